"""A season's garnet picture (issue 15): each player's garnets over the
season, drawn as SVG (the server makes the PNG from the same SVG) from a season
view (:func:`referee.seasons.views.season_view`), never rows; the web routes
pass the public view. Pure: no Flask, no SQL; the output is a pure function of
the view.

User text (the season's and the players' names) is cleaned and cut to its
room with every picture's text helpers (:func:`referee.picture.fit`), then
escaped for XML.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any
from xml.sax.saxutils import escape

from referee.picture import FONT, clean, fit, text_width
from referee.seasons.views import player_names
from referee.words import counted

WIDTH = 760
LEFT, RIGHT, TOP = 64, 56, 58
PLOT_H_MIN, LABEL_GAP = 260, 15
LEGEND_COLS, LEGEND_ROW = 3, 22
# colour, dash and marker together tell 8 x 3 x 3 = 72 players apart (a season has at
# most 64); colour is never the only signal: each line ends with its player's number
PALETTE = (
    "#1d4ed8",
    "#b91c1c",
    "#047857",
    "#7c3aed",
    "#b45309",
    "#0e7490",
    "#be185d",
    "#374151",
)
DASHES = ("", "8 4", "2 3")
SHAPES = ("circle", "square", "triangle")


def _style(index: int) -> tuple[str, str, str]:
    """The ``index``-th player's colour, dash pattern and marker shape."""
    return (
        PALETTE[index % len(PALETTE)],
        DASHES[(index // len(PALETTE)) % len(DASHES)],
        SHAPES[(index // (len(PALETTE) * len(DASHES))) % len(SHAPES)],
    )


def _marker(shape: str, x: float, y: float, color: str) -> str:
    if shape == "square":
        return f'<rect x="{x - 4:.1f}" y="{y - 4:.1f}" width="8" height="8" fill="{color}"/>'
    if shape == "triangle":
        return (
            f'<path d="M{x:.1f},{y - 5:.1f} L{x + 5:.1f},{y + 4:.1f} L{x - 5:.1f},{y + 4:.1f} z" '
            f'fill="{color}"/>'
        )
    return f'<circle cx="{x:.1f}" cy="{y:.1f}" r="4" fill="{color}"/>'


def _ticks(low: int, high: int, most: int = 7) -> list[int]:
    """Round values from ``low`` to ``high`` (at most about ``most`` of them)."""
    raw = max(1.0, (high - low) / max(1, most - 1))
    power = 10 ** math.floor(math.log10(raw))
    step = next(s * power for s in (1, 2, 5, 10) if s * power >= raw)
    first = math.ceil(low / step) * step
    return [int(first + i * step) for i in range(int((high - first) // step) + 1)]


def episode_of_entries(view: Mapping[str, Any]) -> list[int]:
    """The point of the garnet picture each ledger entry (in order) counts at:
    its episode when it has one (the referee's entries of an episode's
    results), else the last episode an earlier entry belongs to (0 before the
    first: the starting garnets, and a host's entries and corrections made
    before any episode's results). Never lower than an earlier entry's."""
    current = 0
    out: list[int] = []
    for entry in view.get("ledger") or []:
        episode = entry.get("episode")
        if isinstance(episode, int) and not isinstance(episode, bool):
            current = max(current, episode)
        out.append(current)
    return out


def episode_count(view: Mapping[str, Any]) -> int:
    """How many episodes the picture has a point after: every episode whose
    Main Match was recorded, and any an entry names."""
    recorded = [int(e["number"]) for e in view.get("episodes") or [] if e.get("recorded")]
    return max([0, *recorded, *episode_of_entries(view)])


def balance_series(view: Mapping[str, Any]) -> dict[int, list[tuple[int, int]]]:
    """Each player's garnets by episode: ``(0, starting balance)``, then
    ``(k, balance after episode k)`` for every episode k of
    :func:`episode_count`, one point each (see :func:`episode_of_entries`
    for where an entry counts)."""
    episodes = episode_count(view)
    change: dict[int, list[int]] = {n: [0] * (episodes + 1) for n in player_names(view)}
    for entry, point in zip(view.get("ledger") or [], episode_of_entries(view), strict=True):
        player = int(entry["player"])
        change.setdefault(player, [0] * (episodes + 1))[point] += int(entry["change"])
    series: dict[int, list[tuple[int, int]]] = {}
    for player, changes in change.items():
        total, points = 0, []
        for k, c in enumerate(changes):
            total += c
            points.append((k, total))
        series[player] = points
    return series


def _desc(view: Mapping[str, Any], episodes: int) -> str:
    """The picture's data in words (for screen readers and search)."""
    parts = []
    for p in view.get("players") or []:
        out = (
            f" (eliminated in episode {int(p['eliminated_in'])})"
            if p.get("eliminated_in") is not None
            else ""
        )
        parts.append(f"{clean(p['name'])} {int(p['garnets'])}{out}")
    after = f"after each of the season's {counted(episodes, 'episode')}"
    return (
        f"A line chart of each player's garnets at the start of the season and "
        f"{after if episodes else 'before any episode'}. "
        f"Garnets now: {'; '.join(parts) or 'no players'}."
    )


def garnets_svg(view: Mapping[str, Any]) -> str:
    """An accessible SVG line chart of each player's garnets by episode (x: the
    start, then after each episode; y: garnets), with a legend of the names,
    a ``<title>`` and a ``<desc>`` giving the data in words. Its size is
    bounded: the width is fixed, the height grows with the players only (a
    season has at most 64), and each line has a point per episode."""
    players = list(view.get("players") or [])
    series = balance_series(view)
    episodes = episode_count(view)
    values = [b for points in series.values() for _, b in points] or [0]
    low, high = min(0, *values), max(1, *values)
    pad = max(1, math.ceil((high - low) * 0.08))
    low, high = low - (pad if low < 0 else 0), high + pad
    plot_w = WIDTH - LEFT - RIGHT
    plot_h = max(PLOT_H_MIN, LABEL_GAP * len(players))
    legend_y = TOP + plot_h + 52
    height = legend_y + LEGEND_ROW * math.ceil(max(1, len(players)) / LEGEND_COLS) + 12

    def px(i: int) -> float:
        return LEFT + plot_w * i / max(1, episodes)

    def py(v: float) -> float:
        return TOP + plot_h * (high - v) / (high - low)

    title = f"{clean(view.get('name', ''))}: garnets over the season"
    label = fit(title, WIDTH - 2 * LEFT, 16, bold=True)
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {height}" '
        f'width="{WIDTH}" height="{height}" role="img" '
        'aria-labelledby="garnets-title garnets-desc" '
        f'font-family="{FONT}" class="season-garnets">',
        f'<title id="garnets-title">{escape(title)}</title>',
        f'<desc id="garnets-desc">{escape(_desc(view, episodes))}</desc>',
        f'<rect width="{WIDTH}" height="{height}" fill="#ffffff"/>',
        f'<text x="{LEFT}" y="28" font-size="16" font-weight="bold" fill="#111827">'
        f"{escape(label)}</text>",
    ]
    for tick in _ticks(low, high):
        y = py(tick)
        dash = "" if tick == 0 else ' stroke-dasharray="3 4"'
        out.append(
            f'<line x1="{LEFT}" y1="{y:.1f}" x2="{LEFT + plot_w}" y2="{y:.1f}" '
            f'stroke="#cbd5e1"{dash}/>'
            f'<text x="{LEFT - 8}" y="{y + 4:.1f}" text-anchor="end" font-size="12">'
            f"{tick}</text>"
        )
    for i in sorted({0, episodes, *_ticks(0, episodes)} if episodes else {0}):
        text = "start" if i == 0 else str(i)
        out.append(
            f'<text x="{px(i):.1f}" y="{TOP + plot_h + 18}" text-anchor="middle" '
            f'font-size="12" class="episode-tick">{text}</text>'
        )
    out.append(
        f'<text x="{LEFT + plot_w / 2:.0f}" y="{TOP + plot_h + 36}" text-anchor="middle" '
        f'font-size="12" fill="#4b5563">episode (garnets after it)</text>'
        f'<text x="16" y="{TOP + plot_h / 2:.0f}" font-size="12" fill="#4b5563" '
        f'transform="rotate(-90 16 {TOP + plot_h / 2:.0f})" text-anchor="middle">garnets</text>'
    )
    # the number labels at the lines' ends, moved apart when balances are equal or close
    ends = {int(p["number"]): py(series[int(p["number"])][-1][1]) for p in players}
    label_y: dict[int, float] = {}
    below = -1e9
    for number in sorted(ends, key=lambda n: (ends[n], n)):
        below = label_y[number] = max(ends[number], below + LABEL_GAP)
    overflow = max(label_y.values(), default=0) - (TOP + plot_h + 4)
    for number in label_y:
        label_y[number] -= max(0.0, overflow)
    for index, p in enumerate(players):
        number = int(p["number"])
        color, dash, shape = _style(index)
        points = series[number]
        d = "M" + " L".join(f"{px(i):.1f},{py(b):.1f}" for i, b in points)
        dash_attr = f' stroke-dasharray="{dash}"' if dash else ""
        end_x, end_y = px(points[-1][0]), py(points[-1][1])
        out.append(
            f'<g class="series" data-player="{number}">'
            f"<title>{escape(clean(p['name']))}: {int(p['garnets'])} garnets</title>"
            f'<path d="{d}" fill="none" stroke="{color}" stroke-width="2.5"{dash_attr}/>'
            + "".join(_dot(px(i), py(b), color) for i, b in points[:-1])
            + _marker(shape, end_x, end_y, color)
            + f'<text x="{end_x + 10:.1f}" y="{label_y[number] + 4:.1f}" font-size="12" '
            f'fill="{color}">#{number}</text></g>'
        )
    out.append(_legend(players, legend_y))
    out.append("</svg>")
    return "".join(out)


def _dot(x: float, y: float, color: str) -> str:
    """A small mark at one episode's point of a line."""
    return f'<circle cx="{x:.1f}" cy="{y:.1f}" r="2.5" fill="{color}"/>'


def _legend(players: Sequence[Mapping[str, Any]], top: float) -> str:
    """The legend: each player's line style, number, name (cut to its room) and
    garnets now."""
    col_w = (WIDTH - LEFT) / LEGEND_COLS
    out = []
    for index, p in enumerate(players):
        color, dash, shape = _style(index)
        x = LEFT / 2 + (index % LEGEND_COLS) * col_w
        y = top + (index // LEGEND_COLS) * LEGEND_ROW
        dash_attr = f' stroke-dasharray="{dash}"' if dash else ""
        gone = " (out)" if p.get("eliminated_in") is not None else ""
        text = f"#{int(p['number'])} "
        tail = f": {int(p['garnets'])}{gone}"
        name = fit(p["name"], col_w - 40 - text_width(text + tail, 12), 12)
        out.append(
            f'<line x1="{x:.1f}" y1="{y:.1f}" x2="{x + 24:.1f}" y2="{y:.1f}" stroke="{color}" '
            f'stroke-width="2.5"{dash_attr}/>'
            + _marker(shape, x + 12, y, color)
            + f'<text x="{x + 30:.1f}" y="{y + 4:.1f}" font-size="12">'
            f"{escape(text + name + tail)}</text>"
        )
    return "".join(out)
