"""Pictures of a Forks match, drawn as SVG from a view (the server makes the
PNG from the same SVG): the investment board and the final score chart.

Both read only the view they are given, whose ``result`` is already what that
viewer may see (K11), so a picture never shows more than the page it sits on:
the board shows invested cards only, which are public.

- :func:`board_svg`: the five companies in ranking order (the ranking so far,
  or the final one), each with its invested cards as small cards showing their
  values, its total and whether it scores plus (top three) or minus (bottom
  two); the tiebreak order written out. Drawn from the start of the match on.
- :func:`scores_svg`: from the end on, each player's score as a bar from a
  zero line, the Token of Life and the Elimination Candidate in words (the
  chart of Forks 2nd Edition, with the companies' names).

Colour is never the only signal: every company is named, every sign written.
Every string a user wrote is put on one line, cut to its room and escaped.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from xml.sax.saxutils import escape

from referee import picture as shared
from referee.rulesets.cardgame import TOP
from referee.rulesets.forks_2e import picture as forks_2e
from referee.words import MINUS

from .cards import CARDS, COMPANIES, canonical, is_card
from .post import company_names, tiebreak_of

INK, MUTED = shared.INK, shared.MUTED
COLORS: dict[str, tuple[str, str]] = {
    "dtv": ("#6b7280", "#e5e7eb"),
    "apidae": ("#ca8a04", "#fef9c3"),
    "oxime": ("#2563eb", "#dbeafe"),
    "wildrock": ("#dc2626", "#fee2e2"),
    "needle": ("#16a34a", "#dcfce7"),
}
BOARD_W = 700
ROW_H = 58
CARD_W, CARD_H, CARD_GAP = 30, 40, 4
CARDS_X = 268
NAME_PX = 188
MAX_CARDS = 8  # a company has 8 cards


def invested(result: Mapping[str, Any]) -> list[str]:
    return canonical(str(c) for c in result.get("investment") or [] if is_card(c))


def ranking_of(view: Mapping[str, Any]) -> list[str]:
    result = view.get("result") or {}
    for key in ("ranking", "ranking_so_far"):
        found = result.get(key)
        if isinstance(found, list) and sorted(map(str, found)) == sorted(COMPANIES):
            return [str(c) for c in found]
    return CARDS.ranking(CARDS.totals(invested(result)), tiebreak_of(view))


def _card(x: float, y: float, card: str) -> str:
    strong, tint = COLORS[CARDS.suit(card)]
    twin = card.endswith("x")
    return (
        f'<g class="card" data-card="{card}">'
        f'<rect x="{x:.0f}" y="{y:.0f}" width="{CARD_W}" height="{CARD_H}" rx="4" '
        f'fill="{tint}" stroke="{strong}" stroke-width="2"/>'
        + shared.svg_text(
            x + CARD_W / 2,
            y + 26,
            str(CARDS.value(card)),
            15,
            f' text-anchor="middle" font-weight="bold" fill="{INK}"',
        )
        + (
            shared.svg_text(
                x + CARD_W / 2, y + 37, "twin", 8, f' text-anchor="middle" fill="{INK}"'
            )
            if twin
            else ""
        )
        + "</g>"
    )


def board_svg(view: Mapping[str, Any]) -> str | None:
    """The investment board of ``view`` (drawn from the start of the match on)."""
    result = view.get("result") or {}
    names = company_names(view)
    ranking = ranking_of(view)
    cards = invested(result)
    totals = CARDS.totals(cards)
    tiebreak = tiebreak_of(view)
    final = "ranking" in result
    short = {c: shared.fit(names[c], NAME_PX, 15, bold=True) for c in COMPANIES}
    tb_names = [f"{i}. {shared.fit(names[c], 170, 13)}" for i, c in enumerate(tiebreak, 1)]
    tb_lines = shared.wrap(", ".join(tb_names), BOARD_W - 40, 13, sep=", ")
    top, sep = 100, 26
    rows_end = top + 5 * ROW_H + sep
    height = rows_end + 16 + 20 * (1 + len(tb_lines)) + 14
    title = shared.fit(view.get("name") or "Forks match", BOARD_W - 40, 20, bold=True)
    state = "final" if final else f"after {int(result.get('closed') or 0)} closed steps"
    label = (
        f"Investment board of {title}, {state}: "
        + ", ".join(f"{i}. {short[c]}, total {totals[c]}" for i, c in enumerate(ranking, 1))
        + ". The top three companies score plus, the bottom two score minus."
    )
    data = f' data-invested="{len(cards)}"'
    out = shared.svg_open(BOARD_W, height, label, "forks-board", data)
    out.append(
        "<defs>" + shared.svg_clip("name-col", 60, top, NAME_PX + 8, 5 * ROW_H + sep) + "</defs>"
    )
    out.append(shared.svg_text(20, 34, title, 20, f' font-weight="bold" fill="{INK}"'))
    heading = "Final investment board" if final else f"Investment board, {state}"
    out.append(shared.svg_text(20, 60, heading, 15, f' fill="{MUTED}"'))
    head = f' font-size="12" fill="{MUTED}"'
    out.append(
        f'<g class="head"><text x="20" y="{top - 10}"{head}>Rank</text>'
        f'<text x="66" y="{top - 10}"{head}>Company</text>'
        f'<text x="{CARDS_X}" y="{top - 10}"{head}>Invested cards (value)</text>'
        f'<text x="{BOARD_W - 60}" y="{top - 10}"{head} text-anchor="end">Total</text>'
        f'<text x="{BOARD_W - 24}" y="{top - 10}"{head} text-anchor="middle">Scores</text></g>'
    )
    for place, firm in enumerate(ranking):
        y = top + place * ROW_H + (sep if place >= TOP else 0)
        strong, _tint = COLORS[firm]
        is_top = place < TOP
        mine = [c for c in cards if CARDS.suit(c) == firm]
        parts = [
            f'<g class="company" data-company="{firm}" data-rank="{place + 1}" '
            f'data-total="{totals[firm]}" data-part="{"top" if is_top else "bottom"}">',
            f'<rect x="12" y="{y + 2}" width="{BOARD_W - 24}" height="{ROW_H - 4}" rx="6" '
            f'fill="{"#ffffff" if is_top else "#f3f4f6"}" stroke="#d1d5db"/>',
            shared.svg_text(
                30, y + 35, str(place + 1), 20, ' text-anchor="middle" font-weight="bold"'
            ),
            f'<rect x="46" y="{y + 10}" width="12" height="{ROW_H - 20}" rx="2" fill="{strong}" '
            f'stroke="{INK}" stroke-width="1"/>',
            '<g clip-path="url(#name-col)">',
            shared.svg_text(
                66, y + 26, short[firm], 15, f' font-weight="bold" fill="{INK}" class="name"'
            ),
            shared.svg_text(
                66,
                y + 45,
                f"{len(mine)} card{'s' if len(mine) != 1 else ''}",
                12,
                f' fill="{MUTED}"',
            ),
            "</g>",
        ]
        for i, card in enumerate(mine[:MAX_CARDS]):
            parts.append(_card(CARDS_X + i * (CARD_W + CARD_GAP), y + 9, card))
        if not mine:
            parts.append(
                shared.svg_text(
                    CARDS_X, y + 35, "no cards", 13, f' font-style="italic" fill="{MUTED}"'
                )
            )
        parts.append(
            shared.svg_text(
                BOARD_W - 60,
                y + 35,
                str(totals[firm]),
                22,
                f' text-anchor="end" font-weight="bold" fill="{INK}" class="total"',
            )
        )
        parts.append(
            shared.svg_text(
                BOARD_W - 24,
                y + 37,
                "+" if is_top else MINUS,
                24,
                f' text-anchor="middle" font-weight="bold" fill="{INK}" class="sign"',
            )
        )
        parts.append("</g>")
        out.append("".join(parts))
    line_y = top + TOP * ROW_H + sep / 2
    out.append(
        f'<line x1="12" y1="{line_y:.0f}" x2="{BOARD_W - 12}" y2="{line_y:.0f}" '
        f'stroke="{INK}" stroke-width="2" stroke-dasharray="8 5" class="top-bottom-line"/>'
    )
    y = rows_end + 22
    tb = [
        f'<text font-size="13" fill="{INK}" class="tiebreak">'
        f'<tspan x="20" y="{y:.0f}" font-weight="bold">'
        "Tiebreak (an earlier company wins a tie on totals): </tspan>"
    ]
    y += 20
    for i, line in enumerate(tb_lines):
        end = " " if i < len(tb_lines) - 1 else ""
        tb.append(f'<tspan x="20" y="{y:.0f}">{escape(line + end)}</tspan>')
        y += 20
    tb.append("</text>")
    out.append("".join(tb))
    out.append("</svg>")
    return "".join(out)


def scores_svg(view: Mapping[str, Any]) -> str | None:
    """The final score chart; None until the match's scores are known."""
    return forks_2e.scores_svg(view, company_names)
