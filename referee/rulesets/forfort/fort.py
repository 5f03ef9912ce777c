"""FO3 and FO4: a fort's geometry. Spaces 1..8 clockwise from the top left,
as the owner sees them, round the dungeon::

     1  2  3
     8  D  4
     7  6  5

Corners take angled walls, edges straight ones; side by side means
neighbours on the ring; directions step on the grid; lines and which line
faces which opponent (the front line).

Pure: no Flask, SQL or click imports.
"""

from __future__ import annotations

from typing import Literal

from .cards import Shape

SPACES: tuple[int, ...] = (1, 2, 3, 4, 5, 6, 7, 8)
CORNERS: tuple[int, ...] = (1, 3, 5, 7)
EDGES: tuple[int, ...] = (2, 4, 6, 8)
Direction = Literal["up", "down", "left", "right"]
DIRECTIONS: tuple[Direction, ...] = ("up", "down", "left", "right")

# (row, column) of each space on the square; the dungeon is (1, 1)
CELL: dict[int, tuple[int, int]] = {
    1: (0, 0),
    2: (0, 1),
    3: (0, 2),
    4: (1, 2),
    5: (2, 2),
    6: (2, 1),
    7: (2, 0),
    8: (1, 0),
}
_AT: dict[tuple[int, int], int] = {cell: space for space, cell in CELL.items()}
_STEP: dict[str, tuple[int, int]] = {
    "up": (-1, 0),
    "down": (1, 0),
    "left": (0, -1),
    "right": (0, 1),
}

LINES: dict[str, tuple[int, ...]] = {
    "top": (1, 2, 3),
    "right": (3, 4, 5),
    "bottom": (5, 6, 7),
    "left": (7, 8, 1),
}


def shape_of(space: int) -> Shape:
    """FO3: corners take angled walls, edges straight ones."""
    return "angled" if space in CORNERS else "straight"


def neighbours(space: int) -> tuple[int, int]:
    """FO3: the two spaces side by side with ``space`` on the ring (s-1, s+1;
    8 and 1 are neighbours), ascending."""
    before = 8 if space == 1 else space - 1
    after = 1 if space == 8 else space + 1
    return (min(before, after), max(before, after))


def step(space: int, direction: str) -> int | None:
    """FO3: the space one step from ``space`` in ``direction``; None when the
    step leaves the fort or reaches the dungeon."""
    row, col = CELL[space]
    d_row, d_col = _STEP[direction]
    return _AT.get((row + d_row, col + d_col))


def army_directions(space: int) -> list[str]:
    """FO3: the directions an army placed on ``space`` may be given: those
    whose first step reaches another space (in the order up, down, left, right)."""
    return [d for d in DIRECTIONS if step(space, d) is not None]


def front_line(seats: int, owner: int, attacker: int) -> str:
    """FO4: the line of ``owner``'s fort closest to ``attacker``."""
    if seats == 2:
        return "top"
    offset = (attacker - owner) % seats
    if offset == 1:
        return "left"
    if offset == seats - 1:
        return "right"
    return "top"  # 4 players, across


def in_front_line(seats: int, owner: int, attacker: int, space: int) -> bool:
    """FO4: ``space`` of ``owner``'s fort is in its front line for ``attacker``."""
    return space in LINES[front_line(seats, owner, attacker)]
