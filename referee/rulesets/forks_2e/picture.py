"""Pictures of a Forks match, drawn as SVG from a view (the server makes the
PNG from the same SVG): the marketing board and the final score chart.

Both read only the view they are given (for the public pictures, the public
view of :func:`referee.views.view_for`), whose ``result`` is already what that
viewer may see (F11), so a picture never shows more than the page it sits on.

- :func:`board_svg`: the five destinations in ranking order (the ranking so
  far, or the final one), each with its cards in marketing as small cards
  showing their values (the initial marketing, every closed market step's
  marketed cards and, with 2 players, the revealed pile cards), its total and
  whether it scores plus (top three) or minus (bottom two), a line between the two;
  the tiebreak order written out. Drawn from the start of the match on.
- :func:`scores_svg`: from the end of the match on, each player's score as a
  bar from a zero line (negative scores to the left), the Token of Life and
  the Elimination Candidate named in words with how it was decided.

Colour is never the only signal: every destination is named, every sign and
mark is written. Every string a user wrote (the match's, the players' and the
destinations' names) is put on one line, cut to the room it has (an ellipsis
marks the cut) and escaped for XML; a clip path keeps even a badly guessed
width inside its column. The output is a pure function of the view.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any
from xml.sax.saxutils import escape

from referee.picture import (
    INK,
    MUTED,
    clean,
    fit,
    signed,
    svg_clip,
    svg_open,
    svg_text,
    wrap,
)
from referee.rulesets.cardgame import decided_text, joined
from referee.words import MINUS
from referee.words import garnets as count_garnets

from .cards import DEFAULT_NAMES, DESTINATIONS, canonical, destination, is_card, value
from .match import DEFAULT_TIEBREAK

__all__ = ["decided_text", "joined"]

# per destination: a strong colour (chips, card edges) and a light tint (card faces);
# values are written in INK on the tint, so every card reads the same
COLORS: dict[str, tuple[str, str]] = {
    "grey": ("#6b7280", "#e5e7eb"),
    "blue": ("#2563eb", "#dbeafe"),
    "yellow": ("#eab308", "#fef9c3"),
    "green": ("#16a34a", "#dcfce7"),
    "red": ("#dc2626", "#fee2e2"),
}

BOARD_W = 760
ROW_H = 58
CARD_W, CARD_H, CARD_GAP = 30, 40, 4
CARDS_X = 268
MAX_CARDS = 11  # a destination has 11 cards, so marketing holds at most 11 of one
NAME_PX = 188  # room for a destination's name
SCORES_W = 780
BAR_ROW_H = 46


# ---- what the view says --------------------------------------------------------


def destination_names(view: Mapping[str, Any]) -> dict[str, str]:
    """Each destination's display name: the host's, else the default (F2)."""
    given = (view.get("settings") or {}).get("names") or {}
    out = dict(DEFAULT_NAMES)
    if isinstance(given, Mapping):
        for dest in DESTINATIONS:
            name = given.get(dest)
            if isinstance(name, str) and clean(name).strip():
                out[dest] = name
    return out


def tiebreak_of(view: Mapping[str, Any]) -> list[str]:
    """The match's tiebreak order (F7); the default when the view has none."""
    order = (view.get("settings") or {}).get("tiebreak")
    if isinstance(order, list) and sorted(map(str, order)) == sorted(DESTINATIONS):
        return [str(d) for d in order]
    return list(DEFAULT_TIEBREAK)


def marketing_cards(result: Mapping[str, Any]) -> list[str]:
    """Every card in marketing: the initial ones, every closed market step's
    marketed cards and the revealed pile cards (canonical order)."""
    cards = list(result.get("initial_marketing") or [])
    for step in result.get("marketed") or []:
        cards.extend(step or [])
    cards.extend(result.get("revealed") or [])
    return canonical(c for c in cards if is_card(c))


def latest_cards(result: Mapping[str, Any]) -> list[str]:
    """The cards the last closed market step added (its marketed cards and,
    with 2 players, its revealed pile card); none before the first."""
    marketed = list(result.get("marketed") or [])
    if not marketed:
        return []
    cards = list(marketed[-1] or [])
    revealed = list(result.get("revealed") or [])
    if len(revealed) >= len(marketed):
        cards.append(revealed[len(marketed) - 1])
    return [c for c in cards if is_card(c)]


def totals_of(result: Mapping[str, Any]) -> dict[str, int]:
    """Each destination's marketing total (F6): the view's, else summed."""
    given = result.get("marketing_totals")
    if isinstance(given, Mapping) and all(d in given for d in DESTINATIONS):
        return {d: int(given[d]) for d in DESTINATIONS}
    out = dict.fromkeys(DESTINATIONS, 0)
    for card in marketing_cards(result):
        out[destination(card)] += value(card)
    return out


def ranking_of(view: Mapping[str, Any]) -> list[str]:
    """The final ranking, else the ranking so far, else one made from the
    totals and the tiebreak (F8)."""
    result = view.get("result") or {}
    for key in ("ranking", "ranking_so_far"):
        ranking = result.get(key)
        if isinstance(ranking, list) and sorted(map(str, ranking)) == sorted(DESTINATIONS):
            return [str(d) for d in ranking]
    totals = totals_of(result)
    order = tiebreak_of(view)
    return sorted(DESTINATIONS, key=lambda d: (-totals[d], order.index(d)))


def board_state(result: Mapping[str, Any]) -> str:
    """Which moment the board shows, for people."""
    steps = len(result.get("marketed") or [])
    game_rounds = int(result.get("game_rounds") or 0)
    if "ranking" in result or result.get("finished"):
        return "final"
    if steps == 0:
        return "at the start: the initial marketing"
    of = f" of {game_rounds}" if game_rounds else ""
    return f"after market step {steps}{of}"


def player_names(view: Mapping[str, Any]) -> dict[int, str]:
    return {int(p["seat"]): str(p["name"]) for p in view.get("players") or []}


# ---- the marketing board ---------------------------------------------------------


def _card(x: float, y: float, card: str, new: bool) -> str:
    strong, tint = COLORS[destination(card)]
    edge = f'stroke="{INK}" stroke-width="2.5"' if new else f'stroke="{strong}" stroke-width="2"'
    mark = ""
    if new:
        mark = svg_text(x + CARD_W / 2, y + 11, "new", 8, f' text-anchor="middle" fill="{INK}"')
    return (
        f'<g class="card" data-card="{card}" data-new="{int(new)}">'
        f'<rect x="{x:.0f}" y="{y:.0f}" width="{CARD_W}" height="{CARD_H}" rx="4" '
        f'fill="{tint}" {edge}/>'
        + mark
        + svg_text(
            x + CARD_W / 2,
            y + (29 if new else 26),
            str(value(card)),
            15,
            f' text-anchor="middle" font-weight="bold" fill="{INK}"',
        )
        + "</g>"
    )


def board_svg(view: Mapping[str, Any]) -> str | None:
    """The marketing board of ``view`` (drawn from the start of the match on)."""
    result = view.get("result") or {}
    names = destination_names(view)
    ranking = ranking_of(view)
    totals = totals_of(result)
    cards = marketing_cards(result)
    new = latest_cards(result)
    tiebreak = tiebreak_of(view)
    state = board_state(result)
    final = "ranking" in result

    by_dest: dict[str, list[str]] = {d: [] for d in DESTINATIONS}
    for card in cards:
        by_dest[destination(card)].append(card)
    short = {d: fit(names[d], NAME_PX, 15, bold=True) for d in DESTINATIONS}

    # the tiebreak, written out and wrapped; each name cut to a bounded length
    tb_names = [f"{i}. {fit(names[d], 170, 13)} ({d})" for i, d in enumerate(tiebreak, 1)]
    tb_lines = wrap(", ".join(tb_names), BOARD_W - 40, 13, sep=", ")

    top = 100
    sep = 26  # the room the top/bottom line takes between rows 3 and 4
    rows_end = top + 5 * ROW_H + sep
    height = rows_end + 16 + 20 * (1 + len(tb_lines)) + 30
    title = fit(view.get("name") or "Forks match", BOARD_W - 40, 20, bold=True)
    label = (
        f"Marketing board of {title}, {state}: "
        + ", ".join(f"{i}. {short[d]}, total {totals[d]}" for i, d in enumerate(ranking, 1))
        + ". The top three destinations score plus, the bottom two score minus."
    )
    data = f' data-market-steps="{len(result.get("marketed") or [])}"'
    out = svg_open(BOARD_W, height, label, "forks-board", data)
    out.append("<defs>" + svg_clip("name-col", 60, top, NAME_PX + 8, 5 * ROW_H + sep) + "</defs>")
    out.append(svg_text(20, 34, title, 20, f' font-weight="bold" fill="{INK}"'))
    heading = "Final marketing board" if final else f"Marketing board {state}"
    out.append(svg_text(20, 60, heading, 15, f' fill="{MUTED}"'))
    head = f' font-size="12" fill="{MUTED}"'
    out.append(
        f'<g class="head"><text x="20" y="{top - 10}"{head}>Rank</text>'
        f'<text x="66" y="{top - 10}"{head}>Destination</text>'
        f'<text x="{CARDS_X}" y="{top - 10}"{head}>Cards in marketing (value)</text>'
        f'<text x="700" y="{top - 10}"{head} text-anchor="end">Total</text>'
        f'<text x="738" y="{top - 10}"{head} text-anchor="middle">Scores</text></g>'
    )
    tied = {d for d in DESTINATIONS if sum(totals[o] == totals[d] for o in DESTINATIONS) > 1}
    for place, dest in enumerate(ranking):
        y = top + place * ROW_H + (sep if place >= 3 else 0)
        strong, _tint = COLORS[dest]
        is_top = place < 3
        fill = "#ffffff" if is_top else "#f3f4f6"
        mine = by_dest[dest]
        count = len(mine)
        parts = [
            f'<g class="destination" data-destination="{dest}" data-rank="{place + 1}" '
            f'data-total="{totals[dest]}" data-part="{"top" if is_top else "bottom"}">',
            f'<rect x="12" y="{y + 2}" width="{BOARD_W - 24}" height="{ROW_H - 4}" rx="6" '
            f'fill="{fill}" stroke="#d1d5db"/>',
            svg_text(
                30,
                y + 35,
                str(place + 1),
                20,
                f' text-anchor="middle" font-weight="bold" fill="{INK}"',
            ),
            f'<rect x="46" y="{y + 10}" width="12" height="{ROW_H - 20}" rx="2" fill="{strong}" '
            f'stroke="{INK}" stroke-width="1"/>',
            '<g clip-path="url(#name-col)">',
            svg_text(66, y + 26, short[dest], 15, f' font-weight="bold" fill="{INK}" class="name"'),
            svg_text(
                66,
                y + 45,
                f"{dest}, {count} card{'s' if count != 1 else ''}",
                12,
                f' fill="{MUTED}"',
            ),
            "</g>",
        ]
        if mine:
            shown = mine[:MAX_CARDS]
            for i, card in enumerate(shown):
                parts.append(_card(CARDS_X + i * (CARD_W + CARD_GAP), y + 9, card, card in new))
            if len(mine) > MAX_CARDS:  # cannot happen in a real match: kept bounded anyway
                more = f"+{len(mine) - MAX_CARDS}"
                parts.append(svg_text(CARDS_X + MAX_CARDS * (CARD_W + CARD_GAP), y + 35, more, 12))
        else:
            parts.append(
                svg_text(
                    CARDS_X, y + 35, "no cards yet", 13, f' font-style="italic" fill="{MUTED}"'
                )
            )
        parts.append(
            svg_text(
                700,
                y + 35,
                str(totals[dest]),
                22,
                f' text-anchor="end" font-weight="bold" fill="{INK}" class="total"',
            )
        )
        if dest in tied:
            parts.append(svg_text(700, y + 50, "tied", 11, f' text-anchor="end" fill="{MUTED}"'))
        parts.append(
            svg_text(
                738,
                y + 37,
                "+" if is_top else MINUS,
                24,
                f' text-anchor="middle" font-weight="bold" fill="{INK}" class="sign"',
            )
        )
        parts.append("</g>")
        out.append("".join(parts))
    line_y = top + 3 * ROW_H + sep / 2
    out.append(
        f'<g class="top-bottom-line"><line x1="12" y1="{line_y:.0f}" x2="{BOARD_W - 12}" '
        f'y2="{line_y:.0f}" stroke="{INK}" stroke-width="2" stroke-dasharray="8 5"/>'
        + "".join(
            f'<rect x="{x - 118:.0f}" y="{line_y - 10:.0f}" width="236" height="20" '
            f'fill="#ffffff"/>'
            + svg_text(
                x, line_y + 5, words, 13, f' text-anchor="middle" font-weight="bold" fill="{INK}"'
            )
            for x, words in (
                (BOARD_W * 0.3, "\u25b2 top three: score +"),
                (BOARD_W * 0.7, f"\u25bc bottom two: score {MINUS}"),
            )
        )
        + "</g>"
    )
    y = rows_end + 22
    tb = [
        f'<text font-size="13" fill="{INK}" class="tiebreak">'
        f'<tspan x="20" y="{y:.0f}" font-weight="bold">'
        "Tiebreak (an earlier destination wins a tie on totals): </tspan>"
    ]
    y += 20
    for i, line in enumerate(tb_lines):  # a space at each break: the text reads on in words
        end = " " if i < len(tb_lines) - 1 else ""
        tb.append(f'<tspan x="20" y="{y:.0f}">{escape(line + end)}</tspan>')
        y += 20
    tb.append("</text>")
    out.append("".join(tb))
    if new:
        out.append(
            svg_text(
                20,
                y + 4,
                "Cards marked \u201cnew\u201d (dark edge) joined marketing in the last "
                "market step.",
                12,
                f' fill="{MUTED}" class="legend"',
            )
        )
    out.append("</svg>")
    return "".join(out)


# ---- the final score chart -----------------------------------------------------


def _who(names: Mapping[int, str], seat: int, width: float = 200) -> str:
    return f"{fit(names.get(seat, f'seat {seat}'), width, 14)} (seat {seat})"


def scores_svg(
    view: Mapping[str, Any],
    suit_names: Callable[[Mapping[str, Any]], Mapping[str, str]] | None = None,
) -> str | None:
    """The final score chart; None until the match's scores are known.
    ``suit_names``: the names of the ranking's suits (by default the
    destinations'; Forks (1st edition) passes its companies')."""
    result = view.get("result") or {}
    scores_raw = result.get("scores")
    if not isinstance(scores_raw, Mapping) or not scores_raw:
        return None
    names = player_names(view)
    garnets = {int(p["seat"]): int(p.get("garnets", 0)) for p in view.get("players") or []}
    seats = sorted(set(names) | {int(s) for s in scores_raw})
    scores = {s: int(scores_raw.get(str(s), 0)) for s in seats}
    tol = result.get("token_of_life")
    ec = (result.get("elimination_candidate") or {}).get("seat")
    tol = int(tol) if tol is not None else None
    ec = int(ec) if ec is not None else None
    # highest first; among equal scores the Elimination Candidate last, then by seat
    order = sorted(seats, key=lambda s: (-scores[s], s == ec, s))

    high = max(0, *scores.values())
    low = min(0, *scores.values())
    span = max(1, high - low)
    area_x, area_w = 290, 230  # the bars; their labels sit in 40 px either side
    zero_x = area_x + area_w * (-low) / span

    def bar_x(score: int) -> float:
        return zero_x + area_w * score / span

    top = 96
    rows_end = top + len(order) * BAR_ROW_H
    notes: list[tuple[str, str, str]] = []  # (class, bold part, rest)
    if tol is not None:
        notes.append(
            (
                "token-of-life",
                "Token of Life: ",
                f"{_who(names, tol)}, the single highest score ({signed(scores[tol])})",
            )
        )
    else:
        best = max(scores.values())
        sharing = " and ".join(_who(names, s, 150) for s in seats if scores[s] == best)
        notes.append(
            (
                "token-of-life",
                "Token of Life: ",
                f"nobody: the highest score ({signed(best)}) is shared by {sharing}",
            )
        )
    if ec is not None:
        decided = decided_text(result, lambda s: _who(names, s, 150), garnets)
        notes.append(
            ("elimination-candidate", "Elimination Candidate: ", f"{_who(names, ec)}, {decided}")
        )
    ranking = result.get("ranking")
    if isinstance(ranking, list) and len(ranking) == 5:
        dest_names = (suit_names or destination_names)(view)
        shown = [fit(dest_names.get(str(d), str(d)), 220, 14) for d in ranking]
        notes.append(
            (
                "ranking",
                "Ranking: ",
                f"{', '.join(shown[:3])} score +; {', '.join(shown[3:])} score {MINUS}",
            )
        )
    wrapped = [(cls, bold, wrap(bold + rest, SCORES_W - 50, 14)) for cls, bold, rest in notes]
    lines = sum(len(w) for _, _, w in wrapped)
    notes_y = rows_end + 40
    height = notes_y + lines * 21 + 14

    title = fit(view.get("name") or "Forks match", SCORES_W - 40, 20, bold=True)
    label = (
        f"Final scores of {title}: "
        + ", ".join(f"{fit(names.get(s, ''), 200, 14)} {signed(scores[s])}" for s in order)
        + (f". Token of Life: {_who(names, tol)}" if tol is not None else ". No Token of Life")
        + (f". Elimination Candidate: {_who(names, ec)}" if ec is not None else "")
        + "."
    )
    out = svg_open(SCORES_W, height, label, "forks-scores")
    out.append("<defs>" + svg_clip("player-col", 12, top, 226, len(order) * BAR_ROW_H) + "</defs>")
    out.append(svg_text(20, 34, title, 20, f' font-weight="bold" fill="{INK}"'))
    out.append(svg_text(20, 60, "Final scores", 15, f' fill="{MUTED}"'))
    head = f' font-size="12" fill="{MUTED}"'
    out.append(
        f'<g class="head"><text x="20" y="{top - 10}"{head}>Player</text>'
        f'<text x="{zero_x:.0f}" y="{top - 10}"{head} text-anchor="middle">0</text></g>'
    )
    for place, seat in enumerate(order):
        y = top + place * BAR_ROW_H
        score = scores[seat]
        fill = "#ffffff" if place % 2 == 0 else "#f9fafb"
        badge = ""
        if seat == tol:
            badge, fill = "\u2605 Token of Life", "#fef9c3"
        elif seat == ec:
            badge, fill = "\u2715 Elimination Candidate", "#fee2e2"
        x0, x1 = sorted((zero_x, bar_x(score)))
        bar_fill = "#15803d" if score > 0 else "#b91c1c"
        parts = [
            f'<g class="player" data-seat="{seat}" data-score="{score}">',
            f'<rect x="12" y="{y + 2}" width="{SCORES_W - 24}" height="{BAR_ROW_H - 4}" rx="5" '
            f'fill="{fill}" stroke="#e5e7eb"/>',
            '<g clip-path="url(#player-col)">',
            svg_text(
                20,
                y + 21,
                fit(names.get(seat, f"seat {seat}"), 214, 14, bold=True),
                14,
                f' font-weight="bold" fill="{INK}" class="name"',
            ),
            svg_text(
                20,
                y + 38,
                f"seat {seat}, {count_garnets(garnets.get(seat, 0))}",
                12,
                f' fill="{MUTED}"',
            ),
            "</g>",
        ]
        if score != 0:
            parts.append(
                f'<rect x="{x0:.1f}" y="{y + 11}" width="{x1 - x0:.1f}" height="22" '
                f'fill="{bar_fill}"/>'
            )
        if score >= 0:
            parts.append(
                svg_text(
                    bar_x(score) + 6,
                    y + 28,
                    signed(score),
                    15,
                    f' font-weight="bold" fill="{INK}" class="score"',
                )
            )
        else:
            parts.append(
                svg_text(
                    bar_x(score) - 6,
                    y + 28,
                    signed(score),
                    15,
                    f' text-anchor="end" font-weight="bold" fill="{INK}" class="score"',
                )
            )
        if badge:
            parts.append(
                svg_text(574, y + 28, badge, 13, f' font-weight="bold" fill="{INK}" class="badge"')
            )
        parts.append("</g>")
        out.append("".join(parts))
    out.append(
        f'<line x1="{zero_x:.1f}" y1="{top - 4}" x2="{zero_x:.1f}" y2="{rows_end + 4}" '
        f'stroke="{INK}" stroke-width="2" class="zero-line"/>'
    )
    y = notes_y
    for cls, bold, wrapped_lines in wrapped:
        parts = [f'<text font-size="14" fill="{INK}" class="{cls}">']
        for i, line in enumerate(wrapped_lines):
            parts.append(f'<tspan x="20" y="{y:.0f}">')
            if i == 0 and bold:
                parts.append(f'<tspan font-weight="bold">{escape(bold)}</tspan>')
                line = line[len(bold) :]
            end = " " if i < len(wrapped_lines) - 1 else ""
            parts.append(f"{escape(line + end)}</tspan>")
            y += 21
        parts.append("</text>")
        out.append("".join(parts))
    out.append("</svg>")
    return "".join(out)
