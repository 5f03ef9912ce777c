"""Pictures of one viewer's view of a match: the river map and the results.

Both are made from a :func:`referee.views.view_for` view only, whose ``result``
is already what that viewer may see (R11), so a picture never shows more than
the page it sits on:

- the map shows the slot totals the view carries (every total for the host, after
  a full reveal or when the host published them; otherwise only the totals of
  passed branches, read from the path), the path and everyone's directions at
  each passed fork, and for a seat its own placements as small cards;
- the results show the standings (score, control; once finished the Token of
  Life and the Elimination Candidate with the tie-break that decided it) and the
  per-round score chart, from the first closed rafting round on.
"""

from __future__ import annotations

import textwrap
from collections.abc import Mapping, Sequence
from typing import Any
from xml.sax.saxutils import escape, quoteattr

from referee.words import signed

from .data import load_deck
from .picture import SEAT_STYLE, MapLayer, _marker, _short, map_svg, score_chart_svg
from .river_map import MAX_NAME_LENGTH, RiverMap, stored_river

CHART_W, CHART_H = 560, 300
RESULTS_W = 600


def _names(view: Mapping[str, Any]) -> dict[int, str]:
    return {int(p["seat"]): str(p["name"]) for p in view["players"]}


def visible_totals(result: Mapping[str, Any]) -> dict[str, int]:
    """Slot totals the view may show: every published one, else the passed ones."""
    totals = {str(b): int(v) for b, v in (result.get("branch_totals") or {}).items()}
    for step in result.get("path") or []:
        totals[str(step["branch"])] = int(step["points"])
    return totals


def own_cards(view: Mapping[str, Any], river: RiverMap | None = None) -> dict[str, list[str]]:
    """A seat's own placements, as card texts by branch (``{"4RR": ["J +5"]}``);
    nothing for the public or the host."""
    viewer = view.get("viewer") or {}
    if viewer.get("kind") != "seat" or viewer.get("seat") is None:
        return {}
    result = view.get("result") or {}
    mine = (result.get("placements") or {}).get(str(viewer["seat"])) or {}
    river = river or stored_river(view["map"])
    deck = load_deck()
    out: dict[str, list[str]] = {}
    for card in deck.sort(mine):
        branch = river.branches.get(str(mine[card]))
        if branch is None or card not in deck.by_id:
            continue
        value = deck.by_id[card].value_for(branch.color)
        text = card if value is None else f"{card} {signed(value)}"
        out.setdefault(branch.id, []).append(text)
    return out


def view_map_svg(view: Mapping[str, Any]) -> str:
    """The river map with what this view may see on it."""
    river = stored_river(view["map"])
    result = view.get("result") or {}
    path = list(result.get("path") or [])
    title = f"River map {_short(river.name, MAX_NAME_LENGTH)}"
    if path:
        title += f": {len(path)} of {river.path_length} forks passed"
    elif view.get("closed_rounds", 0) >= 2:
        title += ": mapping done, the raft has not left the start"
    layer = MapLayer(
        names=_names(view),
        totals=visible_totals(result),
        path=path,
        votes=list(result.get("votes") or []),
        cards=own_cards(view, river),
        title=title,
    )
    return map_svg(river, layer)


def scores_by_round(
    path: Sequence[Mapping[str, Any]], seats: Sequence[int]
) -> list[dict[int, int]]:
    """Cumulative scores after each rafting round the path covers."""
    out: list[dict[int, int]] = []
    running = dict.fromkeys(seats, 0)
    last = 0
    for step in path:
        segment = int(step["segment"])
        while last < segment - 1:
            out.append(dict(running))
            last += 1
        running[int(step["seat"])] = running.get(int(step["seat"]), 0) + int(step["points"])
        last = max(last, segment - 1)
    if path:
        out.append(dict(running))
    return out


def decided_text(decided_by: str, seat: int, tied: Sequence[int], names: Mapping[int, str]) -> str:
    """How the Elimination Candidate was decided (R9), for people."""
    others = [names.get(s, f"seat {s}") for s in tied if s != seat]
    with_whom = f" with {' and '.join(others)}" if others else ""
    if decided_by == "score":
        return "decided by score: the single lowest score"
    if decided_by == "control":
        return f"decided by control: tied on the lowest score{with_whom}, lowest control"
    if decided_by == "garnets":
        return (
            f"decided by garnets: tied on the lowest score{with_whom} and on control, "
            "fewest garnets"
        )
    return (
        f"decided by draw: tied on the lowest score{with_whom}, still tied after control "
        "and garnets, seeded draw"
    )


def _t(x: float, y: float, text: str, size: int = 14, extra: str = "") -> str:
    return f'<text x="{x:.0f}" y="{y:.0f}" font-size="{size}"{extra}>{escape(text)}</text>'


def view_results_svg(view: Mapping[str, Any]) -> str | None:
    """Standings and the per-round score chart; None before any rafting round closed."""
    result = view.get("result") or {}
    path = list(result.get("path") or [])
    scores = result.get("scores") or {}
    if not path or not scores:
        return None
    names = _names(view)
    seats = sorted(names)
    rounds = int(view["map"]["segments"])
    per_round = scores_by_round(path, seats)
    done = len(per_round)
    control = result.get("control") or {}
    finished = "elimination_candidate" in result
    tol = result.get("token_of_life")
    ec = result.get("elimination_candidate") or {}
    ec_seat = ec.get("seat")

    # by score; among equal scores the Elimination Candidate last, then by control
    standing = sorted(
        seats,
        key=lambda s: (
            -int(scores.get(str(s), 0)),
            finished and s == ec.get("seat"),
            -int(control.get(str(s), 0)),
            s,
        ),
    )
    heading = "Final result" if finished else f"Standings after rafting round {done} of {rounds}"
    row_h = 30
    top = 70
    lines_y = top + len(standing) * row_h + 26
    notes: list[tuple[str, str, str]] = []  # (class, bold part, rest)
    if finished:
        who = f"{names[tol]} (seat {tol})" if tol is not None else ""
        notes.append(
            (
                "token-of-life",
                "Token of Life: ",
                who or "nobody (the highest score is shared)",
            )
        )
        if ec_seat is not None:
            notes.append(
                (
                    "elimination-candidate",
                    "Elimination Candidate: ",
                    f"{names[int(ec_seat)]} (seat {ec_seat})",
                )
            )
            tied = [int(s) for s in result.get("tied_on_score") or [ec_seat]]
            notes.append(
                (
                    "decided-by",
                    "",
                    decided_text(str(ec.get("decided_by")), int(ec_seat), tied, names),
                )
            )
    else:
        left = rounds - done
        notes.append(("in-progress", "", f"{left} rafting round{'s' if left != 1 else ''} to go"))
    # each note is one text element; long ones wrap onto indented lines (tspans)
    wrapped = [(cls, bold, textwrap.wrap(bold + rest, 66) or [""]) for cls, bold, rest in notes]
    count = sum(len(lines) for _, _, lines in wrapped)
    chart_y = lines_y + count * 22 - 10
    height = chart_y + CHART_H + 8
    label = (
        heading + ": " + ", ".join(f"{names[s]} {signed(int(scores[str(s)]))}" for s in standing)
    )
    out: list[str] = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {RESULTS_W} {height}" '
        f'width="{RESULTS_W}" height="{height}" role="img" aria-label={quoteattr(label)} '
        'font-family="DejaVu Sans, Verdana, sans-serif" class="results-picture" '
        f'data-rounds-closed="{done}">',
        f"<title>{escape(label)}</title>",
        f'<rect width="{RESULTS_W}" height="{height}" fill="#ffffff"/>',
        _t(20, 32, heading, 19, ' font-weight="bold" fill="#111827"'),
        _t(20, top - 12, "#", 12, ' fill="#475569"'),
        _t(62, top - 12, "Player", 12, ' fill="#475569"'),
        _t(290, top - 12, "Score", 12, ' text-anchor="end" fill="#475569"'),
        _t(370, top - 12, "Control", 12, ' text-anchor="end" fill="#475569"'),
    ]
    for place, seat in enumerate(standing):
        y = top + place * row_h
        # equal scores share a rank (1, 1, 3)
        rank = 1 + sum(1 for s in standing if int(scores[str(s)]) > int(scores[str(seat)]))
        badge = ""
        fill = "#ffffff" if place % 2 == 0 else "#f8fafc"
        if finished and seat == tol:
            badge, fill = "★ Token of Life", "#fef9c3"
        elif finished and seat == ec_seat:
            badge, fill = "✕ Elimination Candidate", "#fee2e2"
        color, _, shape = SEAT_STYLE.get(seat, ("#334155", "", "circle"))
        name = names[seat] if len(names[seat]) <= 16 else names[seat][:15] + "…"
        out.append(
            f'<g class="standing" data-seat="{seat}" data-rank="{rank}">'
            f'<rect x="12" y="{y:.0f}" width="{RESULTS_W - 24}" height="{row_h - 2}" rx="4" '
            f'fill="{fill}" stroke="#e2e8f0"/>'
            + _t(20, y + 20, str(rank), 14, ' font-weight="bold" fill="#111827"')
            + _marker(shape, 44, y + 14, color)
            + _t(62, y + 20, f"{name} (seat {seat})", 14, ' fill="#111827"')
            + _t(
                290,
                y + 20,
                signed(int(scores.get(str(seat), 0))),
                15,
                ' font-weight="bold" text-anchor="end" fill="#111827"',
            )
            + _t(
                370, y + 20, str(control.get(str(seat), 0)), 14, ' text-anchor="end" fill="#111827"'
            )
            + (_t(386, y + 20, badge, 13, ' font-weight="bold" fill="#111827"') if badge else "")
            + "</g>"
        )
    y = lines_y
    for cls, bold, lines in wrapped:
        parts = [f'<text font-size="14" fill="#111827" class="{cls}">']
        for i, line in enumerate(lines):
            x = 20 if i == 0 else 36
            parts.append(f'<tspan x="{x}" y="{y:.0f}">')
            if i == 0 and bold:
                parts.append(f'<tspan font-weight="bold">{escape(bold)}</tspan>')
                line = line[len(bold) :]
            parts.append(f"{escape(line if i == 0 else ' ' + line)}</tspan>")
            y += 22
        parts.append("</text>")
        out.append("".join(parts))
    chart = score_chart_svg(names, per_round, rounds, at=((RESULTS_W - CHART_W) / 2, chart_y))
    out.append(chart)
    out.append("</svg>")
    return "".join(out)
