"""R8: moving the raft, passed branches, points and control."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import NamedTuple

from .river_map import Branch, Fork, RiverMap


class Step(NamedTuple):
    """The raft passing one fork (a named tuple: cheap to make, immutable)."""

    segment: int
    fork: str
    direction: str  # "L" or "R"
    unanimous: bool
    branch: str
    seat: int
    points: int
    votes: tuple[tuple[int, str], ...]  # (seat, direction) for every seat
    agreed: tuple[int, ...]  # the seats that chose ``direction`` (a control point each)

    def as_dict(self) -> dict[str, object]:
        segment, fork, direction, unanimous, branch, seat, points, _, _ = self
        return {
            "segment": segment,
            "fork": fork,
            "direction": direction,
            "unanimous": unanimous,
            "branch": branch,
            "seat": seat,
            "points": points,
        }


def passage(fork: Fork, directions: Sequence[str]) -> tuple[str, bool, Branch]:
    """R8 at one fork: the majority's way, whether it was unanimous, and the
    branch taken (the outer one on that side for a unanimous vote, if any)."""
    everyone = len(directions)
    lefts = directions.count("L")
    if 2 * lefts > everyone:
        way, side, unanimous = "L", fork.left, lefts == everyone
    else:
        way, side, unanimous = "R", fork.right, lefts == 0
    return way, unanimous, side[-1] if unanimous else side[0]  # a side has 1 or 2 branches


class _Passage(NamedTuple):
    way: str
    unanimous: bool
    branch: str
    seat: int  # the seat the branch portrays
    votes: tuple[tuple[int, str], ...]
    agreed: tuple[int, ...]
    to: str | None  # the fork the branch leads to


def _passages(
    river: RiverMap, seats: tuple[int, ...]
) -> dict[str, dict[tuple[str, ...], _Passage]]:
    """Per fork, the :func:`passage` of each combination of directions met so far
    (at most 2^seats per fork), kept with the map so each is worked out once."""
    key = ("passages", seats)
    table: dict[str, dict[tuple[str, ...], _Passage]] | None = river.cache.get(key)
    if table is None:
        table = river.cache[key] = {fork_id: {} for fork_id in river.forks}
    return table


def _remember(
    known: dict[tuple[str, ...], _Passage],
    fork: Fork,
    seats: tuple[int, ...],
    chosen: tuple[str, ...],
) -> _Passage:
    """The passage of ``chosen`` at ``fork``, worked out and kept in ``known``."""
    way, unanimous, branch = passage(fork, chosen)
    agreed = tuple(seat for seat, d in zip(seats, chosen, strict=True) if d == way)
    known[chosen] = p = _Passage(
        way,
        unanimous,
        branch.id,
        branch.seat,
        tuple(zip(seats, chosen, strict=True)),
        agreed,
        branch.to,
    )
    return p


def raft_round(
    river: RiverMap,
    at: str,
    segment: int,
    votes: Mapping[int, Sequence[str]],
    totals: Mapping[str, int],
) -> tuple[list[Step], str | None]:
    """Float the raft through the forks of one segment starting at fork ``at``.

    ``votes`` gives each seat's directions for the segment's forks, in order.
    Returns the steps and the fork the raft reaches next (None after the end).
    """
    steps: list[Step] = []
    seats = tuple(sorted(votes))
    table = _passages(river, seats)
    fork_id: str | None = at
    # one tuple of every seat's direction per fork of the segment, in seat order
    per_fork = list(zip(*[votes[s] for s in seats], strict=True))
    if len(per_fork) != river.forks_per_segment:
        raise ValueError(f"a segment has {river.forks_per_segment} forks, not {len(per_fork)}")
    for chosen in per_fork:
        assert fork_id is not None, "the map ends inside a segment"
        known = table[fork_id]
        way, unanimous, branch, seat, pairs, agreed, to = known.get(chosen) or _remember(
            known, river.forks[fork_id], seats, chosen
        )
        steps.append(
            Step(segment, fork_id, way, unanimous, branch, seat, totals[branch], pairs, agreed)
        )
        fork_id = to
    return steps, fork_id


def scores_and_control(
    steps: Sequence[Step], seats: Sequence[int]
) -> tuple[dict[int, int], dict[int, int]]:
    """R8/R9: points gained per portrayed seat and control per seat over ``steps``."""
    scores = dict.fromkeys(seats, 0)
    control = dict.fromkeys(seats, 0)
    for step in steps:
        scores[step.seat] += step.points
        for seat in step.agreed:
            control[seat] += 1
    return scores, control
