"""The balance summary of a map: how often each seat and colour appears (R3)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

from .cards import COLORS
from .river_map import SEATS, RiverMap


@dataclass(frozen=True)
class Balance:
    """How often each seat, colour and (seat, colour) pair appears on a map."""

    per_seat: dict[int, int]
    per_color: dict[str, int]
    per_seat_color: dict[tuple[int, str], int]
    outer_per_seat: dict[int, int]

    @property
    def balanced(self) -> bool:
        return (
            len(set(self.per_seat.values())) == 1
            and len(set(self.per_color.values())) == 1
            and len(set(self.per_seat_color.values())) == 1
            and len(set(self.outer_per_seat.values())) == 1
        )


def balance(river: RiverMap) -> Balance:
    bs = list(river.branches.values())
    per_seat = Counter(b.seat for b in bs)
    per_color = Counter(b.color for b in bs)
    pair = Counter((b.seat, b.color) for b in bs)
    outer = Counter(b.seat for b in bs if b.outer)
    return Balance(
        per_seat={s: per_seat[s] for s in SEATS},
        per_color={c: per_color[c] for c in COLORS},
        per_seat_color={(s, c): pair[(s, c)] for s in SEATS for c in COLORS},
        outer_per_seat={s: outer[s] for s in SEATS},
    )


def balance_json(river: RiverMap) -> dict[str, Any]:
    b = balance(river)
    return {
        "name": river.name,
        "forks": len(river.forks),
        "branches": len(river.branches),
        "balanced": b.balanced,
        "per_seat": {str(s): n for s, n in b.per_seat.items()},
        "per_color": dict(b.per_color),
        "per_seat_color": {
            str(s): {c: n for (s2, c), n in b.per_seat_color.items() if s2 == s} for s in b.per_seat
        },
        "outer_per_seat": {str(s): n for s, n in b.outer_per_seat.items()},
    }


def balance_text(river: RiverMap) -> str:
    b = balance(river)
    colors = list(b.per_color)
    lines = [
        f"Map '{river.name}' is valid: {len(river.forks)} forks, {len(river.branches)} branches, "
        f"{river.segments} segments x {river.forks_per_segment} forks per path.",
        "",
        "Balance            " + "".join(f"{c:>7}" for c in colors) + "   total  outer",
    ]
    for seat in b.per_seat:
        row = "".join(f"{b.per_seat_color[(seat, c)]:>7}" for c in colors)
        lines.append(
            f"  seat {seat}          {row}   {b.per_seat[seat]:>5}  {b.outer_per_seat[seat]:>5}"
        )
    lines.append("  total           " + "".join(f"{b.per_color[c]:>7}" for c in colors))
    lines.append("")
    lines.append(
        "Balanced: every seat, colour, (seat, colour) pair and outer-branch count is equal."
        if b.balanced
        else "Warning: the map is not balanced; some seat or colour appears more often "
        "than another."
    )
    return "\n".join(lines) + "\n"
