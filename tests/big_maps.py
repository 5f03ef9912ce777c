"""Big valid maps for the tests of the map limits, the solver budget and the
pictures' bounds (not a test module)."""

from __future__ import annotations

import random
from typing import Any

COLORS = ("red", "green", "blue")


def layered_map(
    forks: int, segments: int, per_segment: int, seed: int = 1, name: str = "Big"
) -> dict[str, Any]:
    """A map built to be hard for the solver: the start alone, the other forks
    spread over the levels (each level at most 4 times the one before), every
    fork with two branches a side of random colours and seats (all seats and
    colours mixed), each leading to a random fork of the next level, every one
    of which is reached."""
    rnd = random.Random(seed)
    depth = segments * per_segment
    assert depth <= forks
    per = [1] * depth
    left = forks - depth
    while left:
        grown = False
        for i in range(1, depth):
            if left and per[i] < 4 * per[i - 1]:
                per[i] += 1
                left -= 1
                grown = True
        assert grown, "too many forks for so few levels"
    levels = [[f"d{d}k{k}" for k in range(n)] for d, n in enumerate(per)]
    out: list[dict[str, Any]] = []
    for d, ids in enumerate(levels):
        targets: list[dict[str, Any]] = []
        for fid in ids:
            branches = [
                {
                    "id": f"{fid}b{i}",
                    "color": rnd.choice(COLORS),
                    "seat": rnd.randint(1, 3),
                    "to": None,
                }
                for i in range(4)
            ]
            targets += branches
            out.append({"id": fid, "left": branches[:2], "right": branches[2:]})
        if d + 1 < len(levels):
            nxt = levels[d + 1]
            order = list(range(len(targets)))
            rnd.shuffle(order)
            for j, bi in enumerate(order):  # the first len(nxt) cover every next fork
                targets[bi]["to"] = nxt[j] if j < len(nxt) else rnd.choice(nxt)
    out[0]["left"][0]["color"], out[0]["right"][0]["color"] = "red", "blue"
    return {
        "name": name,
        "segments": segments,
        "forks_per_segment": per_segment,
        "start": "d0k0",
        "forks": out,
    }


def chain_map(forks: int, segments: int = 1) -> dict[str, Any]:
    """One fork after another (``forks`` must be a multiple of ``segments``),
    each with one red and one blue branch to the next."""
    assert forks % segments == 0

    def to(i: int) -> str | None:
        return f"f{i + 1}" if i < forks else None

    return {
        "name": "Chain",
        "segments": segments,
        "forks_per_segment": forks // segments,
        "start": "f1",
        "forks": [
            {
                "id": f"f{i}",
                "left": [{"id": f"{i}L", "color": "red", "seat": 1 + i % 3, "to": to(i)}],
                "right": [{"id": f"{i}R", "color": "blue", "seat": 1 + (i + 1) % 3, "to": to(i)}],
            }
            for i in range(1, forks + 1)
        ],
    }
