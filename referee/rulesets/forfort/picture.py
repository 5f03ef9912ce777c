"""The picture of a Forfort match, drawn as SVG from a view (the server makes
the PNG from the same SVG): every seat's fort as its owner sees it (FO3).

:func:`forts_svg` reads only the view it is given, whose ``result`` is already
what that viewer may see (FO21), and draws only what is public in every view,
so a picture drawn from a seat's view is the picture drawn from the public
view: no hand is drawn (only hand counts), not even the viewer's own.

Each seat's panel holds the 3x3 square (FO3):
- the centre is the dungeon, face down: its card count and the top card's
  back arrows (FO21), drawn as small arrows on its border toward the spaces
  they name, and written out;
- each of the 8 spaces shows its visible card: a wall with its id, shape
  (angled walls have cut corners, straight ones square corners, and the
  shape is written), symbols and mark in words, and its printed (upright)
  back arrows; a camp; or an army with its owner's seat and an arrow toward
  the space it moves to (FO15). ``\u00d7N`` (times N) counts the cards of a stack (the top
  one shows, the others are covered); the drawbridge token sits on its gate;
- the seat number and the player's name, its points (and at the end its
  score and what it won), the line facing each opponent written on that edge
  of the square (FO4), and under it the hand, discard pile and supply.

Panels go side by side, two to a row (3 and 4 seats take two rows), so the
picture keeps its natural width of 744 whatever the number of seats.
Colour is never the only signal: shapes, marks, symbols, owners and arrows
are all written too. Every string a user wrote is put on one line, cut to its
room and escaped; the output is a pure function of the view.

Cards are read with the match's card set when the view carries it (``cards``
at the view's top level, as Rocky River's view carries its ``map``, or in
``result``), else with the default set (FO2); a card the set does not know is
drawn by its id and the shape its space takes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any
from xml.sax.saxutils import escape, quoteattr

from referee import picture as shared

from .cards import CAMP, CardSet, Wall, card_set_problems, default_card_set
from .fort import CELL, CORNERS, DIRECTIONS, SPACES, front_line, step

FONT, INK, MUTED = shared.FONT, shared.INK, shared.MUTED
WHITE = "#ffffff"
COLUMNS = 2  # panels per row
PANEL_W = 360
CELL_W, CELL_H = 100, 124
GRID_X = 30  # the square's left edge in a panel (room for the left edge's label)
GRID_Y = 86  # the square's top edge in a panel (the header and the top edge's label)
GRID_W, GRID_H = 3 * CELL_W, 3 * CELL_H
INFO_LINES = 4
PANEL_H = GRID_Y + GRID_H + 26 + 16 * INFO_LINES + 8
PANEL_GAP = 8
TOP = 64  # the panels' top (under the title and a one-line subtitle)
LINE = 15  # text line height in a legend
SMALL = 11  # the smallest font size used

# each seat's colour (its header chip and its armies), a strong one and a tint
SEAT_COLORS: dict[int, tuple[str, str]] = {
    1: ("#1d4ed8", "#dbeafe"),
    2: ("#b91c1c", "#fee2e2"),
    3: ("#047857", "#d1fae5"),
    4: ("#6d28d9", "#ede9fe"),
}
OTHER_SEAT = ("#374151", "#e5e7eb")
# walls by shape: stroke and fill (the shape is also drawn and written)
SHAPE_COLORS: dict[str, tuple[str, str]] = {
    "angled": ("#9a3412", "#ffedd5"),
    "straight": ("#075985", "#e0f2fe"),
}
CAMP_COLORS = ("#166534", "#dcfce7")
DUNGEON_FILL = "#374151"
MARK_COLORS = {"gate": "#92400e", "shield": "#1e3a8a"}
BRIDGE_FILL = "#78350f"
SYMBOL_WORDS = {
    "mason": "Mason",
    "ram": "Ram",
    "trebuchet": "Trebuchet",
    "siege": "Siege tower",
    "garrison": "Garrison",
}
MARK_WORDS = {"gate": "GATE", "shield": "SHIELD"}
VECTOR: dict[str, tuple[int, int]] = {
    "up": (0, -1),
    "down": (0, 1),
    "left": (-1, 0),
    "right": (1, 0),
}
CUT = 11  # how much an angled wall's corners are cut


# ---- what the view says ----------------------------------------------------------------


def _int(value: object) -> int | None:
    """A whole number from the view (JSON numbers and digit strings), else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.isascii() and value.isdigit():
        return int(value)
    return None


def card_set_of(view: Mapping[str, Any]) -> CardSet:
    """The match's card set: the view's (top level, else its result's) when it
    is a valid one, else the default set (FO2)."""
    result = view.get("result") or {}
    for raw in (view.get("cards"), result.get("cards") if isinstance(result, Mapping) else None):
        if raw is not None:
            cards, problems = card_set_problems(raw)
            if cards is not None and not problems:
                return cards
    return default_card_set()


def player_names(view: Mapping[str, Any]) -> dict[int, str]:
    """Each seat's display name, from the view's players (or its result's)."""
    out: dict[int, str] = {}
    result = view.get("result") or {}
    for source in (
        result.get("players") if isinstance(result, Mapping) else None,
        view.get("players"),
    ):
        for player in source if isinstance(source, list) else []:
            if not isinstance(player, Mapping):
                continue
            seat, name = _int(player.get("seat")), player.get("name")
            if seat is not None and isinstance(name, str) and shared.clean(name).strip():
                out[seat] = name
    return out


def _by_seat(result: Mapping[str, Any], key: str) -> dict[int, Any]:
    raw = result.get(key)
    if not isinstance(raw, Mapping):
        return {}
    out: dict[int, Any] = {}
    for seat, value in raw.items():
        number = _int(seat)
        if number is not None:
            out[number] = value
    return out


def _seats(raw: object) -> list[int]:
    """A list of seats from the view (``winners``), what is not a seat left out."""
    found = (_int(s) for s in raw) if isinstance(raw, list) else iter(())
    return [s for s in found if s is not None]


def _stack(space: object) -> list[str]:
    if not isinstance(space, Mapping) or not isinstance(space.get("stack"), list):
        return []
    return [str(card) for card in space["stack"]]


def _army(space: object) -> tuple[int, str] | None:
    """A space's army: its owner and direction (None: no army)."""
    if not isinstance(space, Mapping) or not isinstance(space.get("army"), Mapping):
        return None
    army = space["army"]
    owner = _int(army.get("seat"))
    direction = army.get("direction")
    if owner is None:
        return None
    return owner, direction if direction in DIRECTIONS else ""


def state_text(result: Mapping[str, Any]) -> str:
    """Which moment the picture shows, for people."""
    steps = result.get("steps") if isinstance(result.get("steps"), list) else []
    end = result.get("end")
    if isinstance(end, Mapping):
        last = _int(end.get("step"))
        if end.get("reason") == "completed":
            winners = _seats(result.get("winners"))
            who = f"seat {winners[0]} " if winners else ""
            return f"final: {who}completed its fort at step {last}"
        return f"final: a dungeon ran out, the match ended after step {last}"
    text = "at the start" if not steps else f"after step {len(steps)}"
    if steps and isinstance(steps[-1], Mapping) and _int(steps[-1].get("round")) is not None:
        text += f" (round {_int(steps[-1].get('round'))})"
    nxt = result.get("next")
    if isinstance(nxt, Mapping) and _int(nxt.get("seat")) is not None:
        extra = ", an extra turn" if nxt.get("extra") else ""
        text += f"; next: step {_int(nxt.get('step'))}, seat {_int(nxt.get('seat'))}{extra}"
    return text


# ---- drawing helpers -------------------------------------------------------------------


def _t(x: float, y: float, text: str, size: float = SMALL, extra: str = "") -> str:
    """One text element (``text`` escaped here); ink unless ``extra`` says."""
    fill = "" if " fill=" in extra else f' fill="{INK}"'
    return shared.svg_text(x, y, text, size, fill + extra)


def _mid(x: float, y: float, text: str, size: float = SMALL, extra: str = "") -> str:
    return _t(x, y, text, size, ' text-anchor="middle"' + extra)


def _points(coords: Sequence[tuple[float, float]]) -> str:
    return " ".join(f"{x:.1f},{y:.1f}" for x, y in coords)


def _octagon(x: float, y: float, w: float, h: float, cut: float) -> list[tuple[float, float]]:
    return [
        (x + cut, y),
        (x + w - cut, y),
        (x + w, y + cut),
        (x + w, y + h - cut),
        (x + w - cut, y + h),
        (x + cut, y + h),
        (x, y + h - cut),
        (x, y + cut),
    ]


def _arrow(
    cx: float, cy: float, dx: float, dy: float, back: float, head: float, reach: float, color: str
) -> str:
    """An arrow through (cx, cy) along the unit vector (dx, dy): its shaft from
    ``back`` behind the point, its head from ``head`` to ``reach`` ahead."""
    nx, ny = -dy, dx  # the normal
    half = (reach - head) * 0.65
    tip = (cx + dx * reach, cy + dy * reach)
    base = (cx + dx * head, cy + dy * head)
    left = (base[0] + nx * half, base[1] + ny * half)
    right = (base[0] - nx * half, base[1] - ny * half)
    return (
        f'<line x1="{cx - dx * back:.1f}" y1="{cy - dy * back:.1f}" x2="{base[0]:.1f}" '
        f'y2="{base[1]:.1f}" stroke="{color}" stroke-width="5" stroke-linecap="round"/>'
        f'<polygon points="{_points([tip, left, right])}" fill="{color}"/>'
    )


def _triangle(cx: float, cy: float, dx: float, dy: float, size: float, color: str) -> str:
    """A small filled triangle at (cx, cy) pointing along (dx, dy) (any length)."""
    length = (dx * dx + dy * dy) ** 0.5 or 1.0
    ux, uy = dx / length, dy / length
    nx, ny = -uy, ux
    tip = (cx + ux * size, cy + uy * size)
    left = (cx - ux * size * 0.6 + nx * size * 0.75, cy - uy * size * 0.6 + ny * size * 0.75)
    right = (cx - ux * size * 0.6 - nx * size * 0.75, cy - uy * size * 0.6 - ny * size * 0.75)
    return f'<polygon points="{_points([tip, left, right])}" fill="{color}"/>'


# ---- one space -------------------------------------------------------------------------


def _space_number(x: float, y: float, space: int, fill: str = MUTED) -> str:
    return _t(x + 12, y + 18, str(space), SMALL, f' font-weight="bold" fill="{fill}"')


def _stack_badge(x: float, y: float, height: int) -> str:
    """``\u00d7N`` (times N): the cards of a stack (the top one shows), when more than one."""
    if height < 2:
        return ""
    return (
        f'<g class="stack-height" data-height="{height}">'
        f'<rect x="{x + CELL_W - 40}" y="{y + 5}" width="32" height="16" rx="8" fill="{INK}"/>'
        + _mid(
            x + CELL_W - 24, y + 17, f"\u00d7{height}", 12, f' font-weight="bold" fill="{WHITE}"'
        )
        + "</g>"
    )


def _wall(x: float, y: float, space: int, card: str, wall: Wall | None, bridge: bool) -> str:
    shape = wall.shape if wall is not None else ("angled" if space in CORNERS else "straight")
    stroke, fill = SHAPE_COLORS[shape]
    protected = wall is not None and wall.protected
    width = 3 if protected else 1.5
    x0, y0, w, h = x + 3, y + 3, CELL_W - 6, CELL_H - 6
    if shape == "angled":
        outline = (
            f'<polygon points="{_points(_octagon(x0, y0, w, h, CUT))}" fill="{fill}" '
            f'stroke="{stroke}" stroke-width="{width}"/>'
        )
        if protected:  # a shield wall has a double edge
            outline += (
                f'<polygon points="{_points(_octagon(x0 + 4, y0 + 4, w - 8, h - 8, CUT - 2))}" '
                f'fill="none" stroke="{stroke}" stroke-width="1"/>'
            )
    else:
        outline = (
            f'<rect x="{x0}" y="{y0}" width="{w}" height="{h}" fill="{fill}" '
            f'stroke="{stroke}" stroke-width="{width}"/>'
        )
        if protected:
            outline += (
                f'<rect x="{x0 + 4}" y="{y0 + 4}" width="{w - 8}" height="{h - 8}" '
                f'fill="none" stroke="{stroke}" stroke-width="1"/>'
            )
    cx = x + CELL_W / 2
    parts = [
        outline,
        _mid(cx, y + 31, shared.fit(card, CELL_W - 16, 13, bold=True), 13, ' font-weight="bold"'),
    ]
    parts.append(_mid(cx, y + 44, shape, SMALL, ' font-style="italic"'))
    if wall is None:
        parts.append(_mid(cx, y + 58, "unknown card", SMALL, f' fill="{MUTED}"'))
    else:
        for i, symbol in enumerate(wall.symbols[:2]):
            parts.append(
                _mid(
                    cx,
                    y + 58 + 13 * i,
                    SYMBOL_WORDS.get(symbol, symbol),
                    SMALL,
                    f' class="symbol" data-symbol="{symbol}"',
                )
            )
        if wall.mark in MARK_WORDS:
            color = MARK_COLORS[wall.mark]
            parts.append(
                _mid(
                    cx,
                    y + 85,
                    MARK_WORDS[wall.mark],
                    SMALL,
                    f' font-weight="bold" fill="{color}" class="mark"',
                )
            )
        a, b = sorted(wall.arrows)
        parts.append(_mid(cx, y + 99, f"arrows {a}, {b}", SMALL, f' fill="{MUTED}"'))
    if bridge:
        parts.append(
            f'<g class="drawbridge"><rect x="{x + 10}" y="{y + CELL_H - 20}" width="{CELL_W - 20}" '
            f'height="15" rx="3" fill="{BRIDGE_FILL}"/>'
            + _mid(cx, y + CELL_H - 9, "drawbridge", SMALL, f' font-weight="bold" fill="{WHITE}"')
            + "</g>"
        )
    return "".join(parts)


def _camp(x: float, y: float) -> str:
    stroke, fill = CAMP_COLORS
    cx = x + CELL_W / 2
    tent = [(cx, y + 44), (cx + 26, y + 84), (cx - 26, y + 84)]
    door = [(cx, y + 60), (cx + 8, y + 84), (cx - 8, y + 84)]
    return (
        f'<rect x="{x + 3}" y="{y + 3}" width="{CELL_W - 6}" height="{CELL_H - 6}" rx="14" '
        f'fill="{fill}" stroke="{stroke}" stroke-width="1.5"/>'
        f'<polygon points="{_points(tent)}" fill="{stroke}"/>'
        f'<polygon points="{_points(door)}" fill="{fill}"/>'
        + _mid(cx, y + 34, "CAMP", 13, ' font-weight="bold"')
        + _mid(cx, y + 104, "1 point", SMALL, f' fill="{MUTED}"')
    )


def _army_cell(x: float, y: float, space: int, owner: int, direction: str) -> str:
    strong, tint = SEAT_COLORS.get(owner, OTHER_SEAT)
    cx, cy = x + CELL_W / 2, y + 79
    to = step(space, direction) if direction else None
    where = ("moves to " + str(to)) if to is not None else ("leaves the fort" if direction else "")
    body = (
        f'<g class="army" data-army="{owner}" data-direction="{direction}" '
        f'data-to="{to if to is not None else ""}">'
        f'<rect x="{x + 3}" y="{y + 3}" width="{CELL_W - 6}" height="{CELL_H - 6}" fill="{tint}" '
        f'stroke="{strong}" stroke-width="3" stroke-dasharray="7 3"/>'
        + _mid(cx, y + 33, "ARMY", 13, ' font-weight="bold"')
        + _mid(cx, y + 48, f"of seat {owner}", SMALL, ' font-weight="bold"')
    )
    if direction:
        dx, dy = VECTOR[direction]
        body += _arrow(cx, cy, dx, dy, 20, 6, 24, strong)
    body += _mid(cx, y + 116, where, SMALL) + "</g>"
    return body


def _space(
    seat: int, space: int, raw: object, x: float, y: float, cards: CardSet, bridge: bool
) -> str:
    stack = _stack(raw)
    army = _army(raw)
    top = stack[-1] if stack else None
    data = f'data-seat="{seat}" data-space="{space}" data-stack="{len(stack)}"'
    data += f' data-covered="{max(0, len(stack) - 1)}"'
    if top is not None:
        data += f" data-card={quoteattr(top)}"
    parts = [f'<g class="space" {data}>']
    number_fill = MUTED
    if top is not None:
        if top == CAMP:
            parts.append(_camp(x, y))
        else:
            wall = cards.wall(top) if cards.is_wall(top) else None
            parts.append(_wall(x, y, space, top, wall, bridge))
        parts.append(_stack_badge(x, y, len(stack)))
        number_fill = INK
    elif army is None:
        parts.append(
            f'<rect x="{x + 3}" y="{y + 3}" width="{CELL_W - 6}" height="{CELL_H - 6}" '
            f'fill="{WHITE}" stroke="#9ca3af" stroke-width="1.5" stroke-dasharray="4 4"/>'
        )
        hint = "angled" if space in CORNERS else "straight"
        parts.append(_mid(x + CELL_W / 2, y + CELL_H / 2, "empty", SMALL, f' fill="{MUTED}"'))
        parts.append(
            _mid(x + CELL_W / 2, y + CELL_H / 2 + 15, f"({hint})", SMALL, f' fill="{MUTED}"')
        )
    if army is not None:
        parts.append(_army_cell(x, y, space, *army))
        number_fill = INK
    parts.append(_space_number(x, y, space, number_fill))
    parts.append("</g>")
    return "".join(parts)


def _dungeon(seat: int, x: float, y: float, count: int | None, arrows: list[int]) -> str:
    cx = x + CELL_W / 2
    cy = y + CELL_H / 2
    shown = " ".join(str(a) for a in arrows)
    parts = [
        f'<g class="dungeon" data-seat="{seat}" data-count="{count if count is not None else ""}" '
        f'data-arrows="{shown}">',
        f'<rect x="{x + 3}" y="{y + 3}" width="{CELL_W - 6}" height="{CELL_H - 6}" rx="4" '
        f'fill="{DUNGEON_FILL}" stroke="{INK}" stroke-width="1.5"/>',
        _mid(cx, y + 36, "DUNGEON", SMALL, f' font-weight="bold" fill="{WHITE}"'),
        _mid(
            cx,
            y + 66,
            "?" if count is None else str(count),
            24,
            f' font-weight="bold" fill="{WHITE}"',
        ),
        _mid(cx, y + 82, "card" if count == 1 else "cards", SMALL, f' fill="{WHITE}"'),
    ]
    if arrows:
        parts.append(
            _mid(cx, y + 100, "top: " + ", ".join(map(str, arrows)), SMALL, f' fill="{WHITE}"')
        )
    elif count == 0:
        parts.append(_mid(cx, y + 100, "empty", SMALL, f' fill="{WHITE}"'))
    for target in arrows:
        row, col = CELL[target]
        dx, dy = col - 1, row - 1
        ax = cx + dx * (CELL_W / 2 - 13)
        ay = cy + dy * (CELL_H / 2 - 13)
        parts.append(
            f'<g class="top-arrow" data-to="{target}">'
            + _triangle(ax, ay, dx, dy, 9, "#fde68a")
            + "</g>"
        )
    parts.append("</g>")
    return "".join(parts)


# ---- one fort --------------------------------------------------------------------------


def _edge_label(side: str, text: str, faces: int | None, px: float, py: float) -> str:
    data = (
        f'class="front-line" data-side="{side}" data-faces="{faces if faces is not None else ""}"'
    )
    style = f' font-weight="bold" fill="{INK}"' if faces is not None else f' fill="{MUTED}"'
    if side == "top":
        return (
            f"<g {data}>"
            + _mid(px + GRID_X + GRID_W / 2, py + GRID_Y - 6, text, SMALL, style)
            + "</g>"
        )
    if side == "bottom":
        return (
            f"<g {data}>"
            + _mid(px + GRID_X + GRID_W / 2, py + GRID_Y + GRID_H + 15, text, SMALL, style)
            + "</g>"
        )
    mid_y = py + GRID_Y + GRID_H / 2
    if side == "left":
        x = px + GRID_X - 8
        rotate = -90
    else:
        x = px + GRID_X + GRID_W + 8
        rotate = 90
    return (
        f'<g {data}><text x="{x:.0f}" y="{mid_y:.0f}" font-size="{SMALL}" text-anchor="middle" '
        f'transform="rotate({rotate} {x:.0f} {mid_y:.0f})"{style}>{escape(text)}</text></g>'
    )


def _fort(
    view: Mapping[str, Any],
    seat: int,
    seats: list[int],
    px: float,
    py: float,
    cards: CardSet,
    names: Mapping[int, str],
) -> str:
    result = view.get("result") or {}
    fort = _by_seat(result, "forts").get(seat)
    fort = fort if isinstance(fort, Mapping) else {}
    spaces = fort.get("spaces") if isinstance(fort.get("spaces"), Mapping) else {}
    bridge = _int(fort.get("drawbridge"))
    points = _int(_by_seat(result, "points").get(seat))
    strong, _tint = SEAT_COLORS.get(seat, OTHER_SEAT)
    out = [
        f'<g class="fort" data-seat="{seat}" data-points="{points if points is not None else ""}">',
        f'<rect x="{px + 2}" y="{py}" width="{PANEL_W - 4}" height="{PANEL_H}" rx="8" '
        f'fill="#f9fafb" stroke="#d1d5db"/>',
        f'<rect x="{px + 10}" y="{py + 10}" width="10" height="24" rx="2" fill="{strong}"/>',
    ]
    head = f"Seat {seat}"
    if seat in names:
        room = PANEL_W - 40 - shared.text_width(head + " \u00b7 ", 14, bold=True)
        head += " \u00b7 " + shared.fit(names[seat], room, 14, bold=True)
    out.append(_t(px + 28, py + 26, head, 14, ' font-weight="bold" class="player"'))
    # its points, then the end (score, what it won) or whether it plays next
    points_text = f"{points} points" if points is not None else "points unknown"
    out.append(_t(px + 28, py + 45, points_text, 13, ' font-weight="bold" class="points"'))
    after = px + 28 + shared.text_width(points_text, 13, bold=True) + 4
    roles: list[str] = []
    scores = _by_seat(result, "scores")
    note = ""
    if seat in scores:
        bonus = _int(_by_seat(result, "bonus").get(seat)) or 0
        note = f"score {_int(scores[seat])}" + (f" (+{bonus} bonus)" if bonus else "")
        winners = _seats(result.get("winners"))
        if _int(result.get("token_of_life")) == seat:
            roles.append("winner, Token of Life")
        elif seat in winners:
            roles.append("shares the win")
        ec = result.get("elimination_candidate")
        if isinstance(ec, Mapping) and _int(ec.get("seat")) == seat:
            roles.append("Elimination Candidate")
    else:
        nxt = result.get("next")
        if isinstance(nxt, Mapping) and _int(nxt.get("seat")) == seat:
            note = "plays next" + (" (an extra turn)" if nxt.get("extra") else "")
    if note:
        out.append(_t(after, py + 45, "\u00b7 " + note, 12, ' class="status"'))
    if roles:
        out.append(_t(px + 28, py + 62, "; ".join(roles), 12, ' font-weight="bold" class="role"'))
    # the edges: which opponent each faces (FO4); the bottom faces the owner
    facing: dict[str, list[int]] = {}
    for other in seats:
        if other != seat:
            facing.setdefault(front_line(len(seats), seat, other), []).append(other)
    for side in ("top", "left", "right"):
        if side in facing:
            who = " and ".join(f"seat {o}" for o in facing[side])
            faces = facing[side][0] if len(facing[side]) == 1 else None
            out.append(_edge_label(side, f"front line for {who}", faces, px, py))
    out.append(_edge_label("bottom", f"own side (seat {seat})", None, px, py))
    # the square
    raw_spaces = spaces if isinstance(spaces, Mapping) else {}
    for space in SPACES:
        row, col = CELL[space]
        x, y = px + GRID_X + col * CELL_W, py + GRID_Y + row * CELL_H
        out.append(_space(seat, space, raw_spaces.get(str(space)), x, y, cards, bridge == space))
    count = _int(_by_seat(result, "dungeon_counts").get(seat))
    raw_arrows = _by_seat(result, "top_arrows").get(seat)
    arrows = (
        sorted({a for a in (_int(v) for v in raw_arrows or []) if a in SPACES})
        if isinstance(raw_arrows, list)
        else []
    )
    out.append(_dungeon(seat, px + GRID_X + CELL_W, py + GRID_Y + CELL_H, count, arrows))
    # under the square: hand, discard pile, supply
    y = py + GRID_Y + GRID_H + 34
    hand = _int(_by_seat(result, "hand_counts").get(seat))
    discards = _by_seat(result, "discards").get(seat)
    pile = [str(c) for c in discards] if isinstance(discards, list) else []
    supply = _by_seat(result, "supply").get(seat)
    supply = supply if isinstance(supply, Mapping) else {}
    lines = []
    if hand is not None:
        lines.append(f"Hand: {hand} card{'s' if hand != 1 else ''} (hidden)")
    pile_text = f"Discard pile: {len(pile)} card{'s' if len(pile) != 1 else ''}"
    if pile:
        pile_text += ", last " + shared.fit(pile[-1], 100, 12)
    lines.append(pile_text)
    camps, armies, defeated = (_int(supply.get(k)) for k in ("camps", "armies", "defeated"))
    lines.append(
        f"Supply: {camps if camps is not None else '?'} camps, "
        f"{armies if armies is not None else '?'} armies"
        + (f", {defeated} defeated" if defeated else "")
    )
    lines.append(
        "Drawbridge token: " + (f"on space {bridge}" if bridge is not None else "in supply")
    )
    for i, line in enumerate(lines):
        out.append(_t(px + 14, y + 16 * i, line, 12, ' class="info"'))
    out.append("</g>")
    return "".join(out)


# ---- the picture -----------------------------------------------------------------------

LEGEND = (
    "Each square as its owner sees it: spaces 1\u20138 clockwise from the top left, the "
    "dungeon (face down) in the centre. Corners take angled walls (cut corners), edges "
    "straight walls (square corners). \u00d7N: the cards in a stack; only the top one "
    "shows and scores. The small arrows on a dungeon are its top card's back arrows. "
    "Armies point to the space they move to. Hands are private and not drawn."
)


def forts_svg(view: Mapping[str, Any]) -> str | None:
    """Every seat's fort (FO3) from ``view``, two to a row (744 wide); None
    when the view has no forts."""
    return draw_forts(view, COLUMNS)


def forts_column_svg(view: Mapping[str, Any]) -> str | None:
    """The same picture one fort to a row (376 wide): for a narrow phone
    page, where two columns scale the text to half its size."""
    return draw_forts(view, 1)


def draw_forts(view: Mapping[str, Any], columns: int) -> str | None:
    """Every seat's fort, ``columns`` to a row (at least 1)."""
    result = view.get("result")
    if not isinstance(result, Mapping):
        return None
    forts = _by_seat(result, "forts")
    if not forts:
        return None
    seats = sorted(forts)
    cards = card_set_of(view)
    names = player_names(view)
    columns = max(1, columns)
    rows = (len(seats) + columns - 1) // columns
    width = columns * PANEL_W + (columns - 1) * PANEL_GAP + 2 * PANEL_GAP
    legend = shared.wrap(LEGEND, width - 2 * PANEL_GAP, SMALL)
    state = state_text(result)
    subtitle = shared.wrap("Forts " + state, width - 2 * PANEL_GAP, 13)
    top = TOP + 17 * (len(subtitle) - 1)
    panels_end = top + rows * (PANEL_H + PANEL_GAP)
    height = panels_end + LINE * len(legend) + 12
    title = shared.fit(view.get("name") or "Forfort match", width - 2 * PANEL_GAP, 18, bold=True)
    points = _by_seat(result, "points")
    label = (
        f"Forts of {title}, {state}: "
        + "; ".join(f"seat {s}, {_int(points.get(s))} points" for s in seats)
        + "."
    )
    data = f' data-seats="{len(seats)}"'
    out = shared.svg_open(width, height, label, "forfort-forts", data)
    out.append(_t(PANEL_GAP, 28, title, 18, ' font-weight="bold"'))
    for i, line in enumerate(subtitle):
        out.append(_t(PANEL_GAP, 50 + 17 * i, line, 13, f' fill="{MUTED}"'))
    for i, seat in enumerate(seats):
        row, col = divmod(i, columns)
        px = PANEL_GAP + col * (PANEL_W + PANEL_GAP)
        py = top + row * (PANEL_H + PANEL_GAP)
        out.append(_fort(view, seat, seats, px, py, cards, names))
    for i, line in enumerate(legend):
        out.append(
            _t(
                PANEL_GAP,
                panels_end + 10 + LINE * i,
                line,
                SMALL,
                f' fill="{MUTED}" class="legend"',
            )
        )
    out.append("</svg>")
    return "".join(out)
