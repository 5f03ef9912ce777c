"""Pictures of a match, drawn by the server as SVG: the river map (with what the
viewer may see on it) and the per-round score chart.

Pure functions of plain data: the caller passes only what the viewer may see
(R11), so a picture can never show more than the page it sits on. Every text
and attribute that comes from a map or a player is escaped. Colours are never
the only signal: every slot also shows its colour's name and a pattern, and
every player's line in the chart has its own dash style, marker and label.

A picture's cost is bounded: every map within the limits of
:mod:`.river_map` is drawn in full (at most 240 branch boxes, 24 rows); a map
stored before those limits and beyond them gets a small picture saying it is
too big to draw (:func:`too_big_to_draw`) instead of a drawing of any size.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from xml.sax.saxutils import escape, quoteattr

from referee.words import signed

from .river_map import MAX_BRANCHES, MAX_FORKS, MAX_NAME_LENGTH, MAX_PATH_LENGTH, RiverMap

# slot colours: fill, a light tint for text, and the pattern's id
COLOR_STYLE = {
    "red": ("#c62828", "#fde7e7"),
    "green": ("#2e7d32", "#e6f4e7"),
    "blue": ("#1565c0", "#e3eefb"),
}
PATH_COLOR = "#111827"
BOX_W, BOX_H, GAP = 118, 62, 10
CARD_ROW = 22  # extra box height for a row of the viewer's own cards
SLOT = BOX_W + GAP
FORK_R = 17
ROW_H = 182
SEG_GAP = 34
LEFT = 32  # a margin (segment labels sit above their first row of branches)
TOP = 74
BLOCK_W = 4 * SLOT + 24
# horizontal offset of each branch box from its fork, by (side, position)
OFFSET = {("L", 0): -0.5 * SLOT, ("L", 1): -1.5 * SLOT, ("R", 0): 0.5 * SLOT, ("R", 1): 1.5 * SLOT}


@dataclass(frozen=True)
class MapLayer:
    """What the viewer may see on the map."""

    names: Mapping[int, str]  # seat -> player's name
    totals: Mapping[str, int] = field(default_factory=dict)  # visible slot totals only
    path: Sequence[
        Mapping[str, object]
    ] = ()  # passed steps (docs/contracts/rocky-river/FORMAT.md path entries)
    votes: Sequence[Mapping[str, Sequence[str]]] = ()  # per closed rafting round
    cards: Mapping[str, Sequence[str]] = field(default_factory=dict)  # branch -> own cards text
    # e.g. {"4RR": ["J +5", "T +5"]}: drawn as small cards in a row under the total
    title: str = ""


def _attr(value: object) -> str:
    return quoteattr(str(value))


def _text(value: object) -> str:
    return escape(str(value))


def _short(name: str, limit: int = 14) -> str:
    return name if len(name) <= limit else name[: limit - 1] + "…"


def _patterns() -> str:
    """A distinct pattern per colour, so colour is not the only signal."""
    red, green, blue = (COLOR_STYLE[c][0] for c in ("red", "green", "blue"))
    return (
        "<defs>"
        f'<pattern id="pat-red" width="8" height="8" patternUnits="userSpaceOnUse" '
        f'patternTransform="rotate(45)"><rect width="8" height="8" fill="{red}"/>'
        f'<rect width="3" height="8" fill="#ffffff" opacity="0.55"/></pattern>'
        f'<pattern id="pat-green" width="8" height="8" patternUnits="userSpaceOnUse">'
        f'<rect width="8" height="8" fill="{green}"/>'
        f'<circle cx="4" cy="4" r="1.8" fill="#ffffff" opacity="0.7"/></pattern>'
        f'<pattern id="pat-blue" width="8" height="8" patternUnits="userSpaceOnUse">'
        f'<rect width="8" height="8" fill="{blue}"/>'
        f'<rect y="5" width="8" height="2" fill="#ffffff" opacity="0.6"/></pattern>'
        '<marker id="arrow" viewBox="0 0 10 10" refX="9" refY="5" markerWidth="12" '
        'markerHeight="12" markerUnits="userSpaceOnUse" orient="auto-start-reverse">'
        f'<path d="M0,0 L10,5 L0,10 z" fill="{PATH_COLOR}"/></marker>'
        "</defs>"
    )


@dataclass(frozen=True)
class _Layout:
    forks: dict[str, tuple[float, float]]  # fork id -> centre
    width: float
    height: float
    end_y: float


def _layout(river: RiverMap, row_h: float = ROW_H) -> _Layout:
    rows: dict[int, list[str]] = {}
    for fid in river.forks:  # map order within a row
        rows.setdefault(river.depth[fid], []).append(fid)
    widest = max(len(r) for r in rows.values())
    width = LEFT + widest * BLOCK_W + 24
    forks: dict[str, tuple[float, float]] = {}
    for depth, ids in rows.items():
        segment = (depth - 1) // river.forks_per_segment
        y = TOP + (depth - 1) * row_h + segment * SEG_GAP
        span = len(ids) * BLOCK_W
        x0 = LEFT + (widest * BLOCK_W - span) / 2
        for i, fid in enumerate(ids):
            forks[fid] = (x0 + (i + 0.5) * BLOCK_W, y)
    last = TOP + (river.path_length - 1) * row_h + (river.segments - 1) * SEG_GAP
    end_y = last + row_h
    return _Layout(forks, width, end_y + 40, end_y)


def too_big_to_draw(river: RiverMap) -> bool:
    """A map beyond what the pictures draw: over the limits of river_map (only a
    map stored before them can be)."""
    return (
        len(river.forks) > MAX_FORKS
        or len(river.branches) > MAX_BRANCHES
        or river.path_length > MAX_PATH_LENGTH
    )


def _too_big_svg(river: RiverMap, label: str) -> str:
    """A small picture saying the map is too big to draw, with its size."""
    width, height = 640, 150
    label = f"{label} (too big to draw)"
    lines = [
        f"This map has {len(river.forks)} forks, {len(river.branches)} branches and "
        f"{river.path_length} forks on a path:",
        f"more than a picture draws (at most {MAX_FORKS} forks, {MAX_BRANCHES} branches,",
        f"{MAX_PATH_LENGTH} forks on a path).",
    ]
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" '
        f'width="{width}" height="{height}" role="img" aria-label={_attr(label)} '
        'font-family="DejaVu Sans, Verdana, sans-serif" class="river-map too-big">',
        f"<title>{_text(label)}</title>",
        f'<rect width="{width}" height="{height}" fill="#fbfdff" stroke="#94a3b8"/>',
        f'<text x="20" y="36" font-size="17" font-weight="bold" fill="#111827">'
        f"{_text(_short(label, 60))}</text>",
    ]
    out += [
        f'<text x="20" y="{70 + 24 * i}" font-size="14" fill="#111827">{_text(line)}</text>'
        for i, line in enumerate(lines)
    ]
    out.append("</svg>")
    return "".join(out)


def map_svg(river: RiverMap, layer: MapLayer) -> str:
    """The river map as a standalone SVG document (a small notice instead for a
    map too big to draw)."""
    label = _short(layer.title or f"River map {river.name}", MAX_NAME_LENGTH + 60)
    if too_big_to_draw(river):
        return _too_big_svg(river, label)
    extra = CARD_ROW if layer.cards else 0  # room for the viewer's own cards
    box_h = BOX_H + extra
    row_h = ROW_H + extra
    lay = _layout(river, row_h)
    passed = {str(step["branch"]) for step in layer.path}
    chosen: dict[str, list[str]] = {}  # fork -> "Ana L" texts, for passed forks
    within: dict[int, int] = {}
    for step in layer.path:
        segment = int(str(step["segment"]))
        k = within[segment] = within.get(segment, -1) + 1
        if segment - 1 < len(layer.votes):
            round_votes = layer.votes[segment - 1]
            chosen[str(step["fork"])] = [
                f"{_short(layer.names.get(int(s), 'seat ' + s), 8)} {round_votes[s][k]}"
                for s in sorted(round_votes)
                if k < len(round_votes[s])
            ]
    out: list[str] = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {lay.width:.0f} {lay.height:.0f}" '
        f'width="{lay.width:.0f}" height="{lay.height:.0f}" role="img" '
        f'aria-label={_attr(label)} font-family="DejaVu Sans, Verdana, sans-serif" '
        'class="river-map">',
        f"<title>{_text(label)}</title>",
        _patterns(),
        f'<rect width="{lay.width:.0f}" height="{lay.height:.0f}" fill="#fbfdff"/>',
    ]
    # segment bands and their boundaries
    for segment in range(1, river.segments + 1):
        first = (segment - 1) * river.forks_per_segment
        y0 = TOP + first * row_h + (segment - 1) * SEG_GAP - 40
        y1 = y0 + river.forks_per_segment * row_h
        fill = "#eef3f8" if segment % 2 else "#f7f9fc"
        out.append(
            f'<rect x="8" y="{y0:.0f}" width="{lay.width - 16:.0f}" height="{y1 - y0:.0f}" '
            f'fill="{fill}" rx="8" class="segment" data-segment="{segment}"/>'
        )
        out.append(
            f'<text x="18" y="{y0 + 22:.0f}" font-size="14" font-weight="bold" fill="#334155">'
            f"Segment {segment}</text>"
        )
        if segment > 1:
            out.append(
                f'<line x1="8" y1="{y0 - SEG_GAP / 2:.0f}" x2="{lay.width - 8:.0f}" '
                f'y2="{y0 - SEG_GAP / 2:.0f}" stroke="#64748b" stroke-dasharray="6 5"/>'
            )
    # start and end
    sx, sy = lay.forks[river.start]
    out.append(
        f'<text x="{sx:.0f}" y="22" text-anchor="middle" font-size="14" font-weight="bold">'
        "Start</text>"
        f'<line x1="{sx:.0f}" y1="28" x2="{sx:.0f}" y2="{sy - FORK_R:.0f}" stroke="{PATH_COLOR}" '
        f'stroke-width="{4 if layer.path else 2}" marker-end="url(#arrow)"/>'
    )
    out.append(
        f'<text x="{lay.width / 2:.0f}" y="{lay.end_y + 24:.0f}" text-anchor="middle" '
        'font-size="14" font-weight="bold">End</text>'
    )
    # edges first, so boxes and forks sit on top
    edges: list[str] = []
    boxes: list[str] = []
    for fork in river.forks.values():
        fx, fy = lay.forks[fork.id]
        for b in fork.branches():
            bx = fx + OFFSET[(b.side, b.position)]
            top = fy + 52
            on_path = b.id in passed
            stroke = (
                f'stroke="{PATH_COLOR}" stroke-width="4"'
                if on_path
                else 'stroke="#94a3b8" stroke-width="1.5"'
            )
            edges.append(
                f'<line x1="{fx:.0f}" y1="{fy + FORK_R:.0f}" x2="{bx:.0f}" y2="{top:.0f}" '
                f"{stroke}/>"
            )
            if b.to is not None:
                tx, ty = lay.forks[b.to]
                end = f"{tx:.0f},{ty - FORK_R:.0f}"
            else:
                tx, ty = lay.width / 2, lay.end_y
                end = f"{tx:.0f},{ty:.0f}"
            mid = top + box_h + 20
            arrow = ' marker-end="url(#arrow)"' if on_path else ""
            edges.append(
                f'<path d="M{bx:.0f},{top + box_h:.0f} C{bx:.0f},{mid:.0f} {tx:.0f},{mid:.0f} '
                f'{end}" fill="none" {stroke}{arrow}/>'
            )
            boxes.append(
                _branch_box(
                    b.id, b.color, b.seat, b.side, b.position, bx, top, box_h, layer, on_path
                )
            )
    out.extend(edges)
    out.extend(boxes)
    for fork in river.forks.values():
        fx, fy = lay.forks[fork.id]
        on_path = any(str(s["fork"]) == fork.id for s in layer.path)
        ink, paper = ("#ffffff", "#111827") if on_path else ("#111827", "#ffffff")
        out.append(
            f'<g class="fork" data-fork={_attr(fork.id)}><title>{_text("Fork " + fork.id)}</title>'
            f'<circle cx="{fx:.0f}" cy="{fy:.0f}" r="{FORK_R}" fill="{paper}" '
            f'stroke="#111827" stroke-width="2"/>'
            f'<text x="{fx:.0f}" y="{fy + 5:.0f}" text-anchor="middle" font-size="13" '
            f'font-weight="bold" fill="{ink}">{_text(_short(fork.id, 5))}</text>'
            "</g>"
        )
        if fork.id in chosen:
            out.append(
                f'<text x="{fx + FORK_R + 8:.0f}" y="{fy - 4:.0f}" font-size="12" fill="#111827" '
                f'class="votes">{_text(" · ".join(chosen[fork.id]))}</text>'
            )
    out.append("</svg>")
    return "".join(out)


def _branch_box(
    bid: str,
    color: str,
    seat: int,
    side: str,
    position: int,
    cx: float,
    top: float,
    box_h: float,
    layer: MapLayer,
    on_path: bool,
) -> str:
    solid, tint = COLOR_STYLE[color]
    x = cx - BOX_W / 2
    who = layer.names.get(seat, f"seat {seat}")
    total = layer.totals.get(bid)
    where = f"{'left' if side == 'L' else 'right'} {'outer' if position else 'inner'}"
    lines = [f"{_short(bid, 6)} {color}", _short(who)]
    lines.append(f"total {signed(total)}" if total is not None else "total ?")
    own = list(layer.cards.get(bid, ()))
    title = f"Branch {bid}: {where}, {color} slot, portrays {who} (seat {seat})"
    if total is not None:
        title += f", total {signed(total)}"
    if own:
        title += f", your cards here: {', '.join(own)}"
    if on_path:
        title += ", passed by the raft"
    stroke = (
        f'stroke="{PATH_COLOR}" stroke-width="3.5"'
        if on_path
        else f'stroke="{solid}" stroke-width="1.5"'
    )
    parts = [
        f'<g class="branch{" passed" if on_path else ""}" data-branch={_attr(bid)} '
        f"data-color={_attr(color)} data-seat={_attr(seat)}>",
        f"<title>{_text(title)}</title>",
        f'<rect class="box" x="{x:.0f}" y="{top:.0f}" width="{BOX_W}" height="{box_h:.0f}" '
        f'rx="7" fill="{tint}" {stroke}/>',
        f'<rect x="{x:.0f}" y="{top:.0f}" width="12" height="{box_h:.0f}" rx="4" '
        f'fill="url(#pat-{color})"/>',
    ]
    for i, line in enumerate(lines):
        weight = ' font-weight="bold"' if i == 0 else ""
        parts.append(
            f'<text x="{x + 18:.0f}" y="{top + 18 + i * 17:.0f}" font-size="13"{weight} '
            f'fill="#111827">{_text(line)}</text>'
        )
    if own:
        parts.append(_card_row(own, x + 18, top + BOX_H - 2, x + BOX_W - 4))
    parts.append("</g>")
    return "".join(parts)


def _card_row(cards: Sequence[str], x: float, y: float, right: float) -> str:
    """The viewer's own cards on a branch, as small white cards side by side; what
    does not fit is counted ("+2")."""
    out = ['<g class="own-cards">']
    for i, text in enumerate(cards):
        width = 7 * len(text) + 8
        rest = len(cards) - i
        if x + width > right - (0 if rest == 1 else 22):
            out.append(
                f'<text x="{x + 2:.0f}" y="{y + 14:.0f}" font-size="12" font-weight="bold" '
                f'fill="#111827">+{rest}</text>'
            )
            break
        out.append(
            f'<rect class="own-card" x="{x:.0f}" y="{y:.0f}" width="{width}" height="19" rx="3" '
            'fill="#ffffff" stroke="#111827" stroke-width="1.2"/>'
            f'<text x="{x + 4:.0f}" y="{y + 14:.0f}" font-size="12" font-weight="bold" '
            f'fill="#111827">{_text(text)}</text>'
        )
        x += width + 4
    out.append("</g>")
    return "".join(out)


# chart styles per seat: colour, dash pattern and marker, so lines differ without colour
SEAT_STYLE = {
    1: ("#7c3aed", "", "circle"),
    2: ("#b45309", "8 5", "square"),
    3: ("#0f766e", "2 4", "triangle"),
}


def _marker(shape: str, x: float, y: float, color: str) -> str:
    if shape == "circle":
        return f'<circle cx="{x:.0f}" cy="{y:.0f}" r="5" fill="{color}"/>'
    if shape == "square":
        return f'<rect x="{x - 5:.0f}" y="{y - 5:.0f}" width="10" height="10" fill="{color}"/>'
    return (
        f'<path d="M{x:.0f},{y - 6:.0f} L{x + 6:.0f},{y + 5:.0f} L{x - 6:.0f},{y + 5:.0f} z" '
        f'fill="{color}"/>'
    )


def score_chart_svg(
    names: Mapping[int, str],
    per_round: Sequence[Mapping[int, int]],
    rounds: int,
    *,
    at: tuple[float, float] | None = None,
) -> str:
    """Cumulative scores after each closed rafting round (``per_round[i]``: seat ->
    score after round i+1), for ``rounds`` rafting rounds in all. With ``at`` (x, y)
    it is placed there inside a larger picture."""
    width, height = 560, 300
    left, right, top, bottom = 56, 150, 24, 46
    plot_w, plot_h = width - left - right, height - top - bottom
    values = [v for scores in per_round for v in scores.values()] + [0]
    low, high = min(values), max(values)
    if low == high:
        low, high = low - 1, high + 1
    pad = max(1, round((high - low) * 0.1))
    low, high = low - pad, high + pad

    def px(i: int) -> float:
        return left + plot_w * i / max(1, rounds)

    def py(v: float) -> float:
        return top + plot_h * (high - v) / (high - low)

    where = f'x="{at[0]:.0f}" y="{at[1]:.0f}" ' if at is not None else ""
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" {where}viewBox="0 0 {width} {height}" '
        f'width="{width}" height="{height}" role="img" '
        'aria-label="Scores after each rafting round" '
        'font-family="DejaVu Sans, Verdana, sans-serif" class="score-chart">',
        "<title>Scores after each rafting round</title>",
        f'<rect width="{width}" height="{height}" fill="#ffffff"/>',
    ]
    step = max(1, round((high - low) / 6))
    tick = (low // step) * step
    while tick <= high:
        y = py(tick)
        if top <= y <= top + plot_h:
            dash = "" if tick == 0 else ' stroke-dasharray="3 4"'
            out.append(
                f'<line x1="{left}" y1="{y:.0f}" x2="{left + plot_w}" y2="{y:.0f}" '
                f'stroke="#cbd5e1"{dash}/>'
                f'<text x="{left - 8}" y="{y + 4:.0f}" text-anchor="end" font-size="12">'
                f"{tick}</text>"
            )
        tick += step
    for i in range(rounds + 1):
        label = "start" if i == 0 else f"round {i}"
        out.append(
            f'<text x="{px(i):.0f}" y="{height - 18}" text-anchor="middle" font-size="12">'
            f"{label}</text>"
        )
    # the name labels at the lines' ends, moved apart when scores are equal or close
    label_y: dict[int, float] = {}
    ends = {seat: py(per_round[-1].get(seat, 0) if per_round else 0) for seat in names}
    below = -1e9
    for seat in sorted(ends, key=lambda s: (ends[s], s)):
        below = label_y[seat] = max(ends[seat], below + 16)
    overflow = max(label_y.values(), default=0) - (height - bottom + 4)
    for seat in label_y:
        label_y[seat] -= max(0, overflow)
    for seat in sorted(names):
        color, dash, shape = SEAT_STYLE.get(seat, ("#334155", "", "circle"))
        points = [(px(0), py(0))] + [
            (px(i + 1), py(scores.get(seat, 0))) for i, scores in enumerate(per_round)
        ]
        d = " ".join(f"{x:.0f},{y:.0f}" for x, y in points)
        dash_attr = f' stroke-dasharray="{dash}"' if dash else ""
        name = _short(names[seat], 12)
        last = per_round[-1].get(seat, 0) if per_round else 0
        out.append(
            f'<g class="series" data-seat="{seat}"><title>{_text(names[seat])}: '
            f"{_text(', '.join(str(s.get(seat, 0)) for s in per_round) or '0')}</title>"
            f'<polyline points="{d}" fill="none" stroke="{color}" stroke-width="3"{dash_attr}/>'
        )
        out.extend(_marker(shape, x, y, color) for x, y in points)
        lx, ly = points[-1]
        ty = label_y[seat]
        if abs(ty - ly) > 1:  # a moved label points to its line's end
            out.append(
                f'<line x1="{lx + 6:.0f}" y1="{ly:.0f}" x2="{lx + 12:.0f}" y2="{ty:.0f}" '
                f'stroke="{color}" stroke-width="1.5"/>'
            )
        out.append(
            f'<text x="{lx + 14:.0f}" y="{ty + 4:.0f}" font-size="13" fill="{color}">'
            f"{_text(name)} {signed(last)}</text></g>"
        )
    out.append("</svg>")
    return "".join(out)
