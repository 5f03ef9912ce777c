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

    def as_dict(self) -> dict[str, object]:
        return {
            "segment": self.segment,
            "fork": self.fork,
            "direction": self.direction,
            "unanimous": self.unanimous,
            "branch": self.branch,
            "seat": self.seat,
            "points": self.points,
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
    seats = sorted(votes)
    forks = river.forks
    fork_id: str | None = at
    # one tuple of every seat's direction per fork of the segment, in seat order
    per_fork = list(zip(*(votes[s] for s in seats), strict=True))
    for k in range(river.forks_per_segment):
        assert fork_id is not None, "the map ends inside a segment"
        fork = forks[fork_id]
        chosen = per_fork[k]
        way, unanimous, branch = passage(fork, chosen)
        steps.append(
            Step(
                segment,
                fork_id,
                way,
                unanimous,
                branch.id,
                branch.seat,
                totals[branch.id],
                tuple(zip(seats, chosen, strict=False)),  # same length
            )
        )
        fork_id = branch.to
    return steps, fork_id


def scores_and_control(
    steps: Sequence[Step], seats: Sequence[int]
) -> tuple[dict[int, int], dict[int, int]]:
    """R8/R9: points gained per portrayed seat and control per seat over ``steps``."""
    scores = dict.fromkeys(seats, 0)
    control = dict.fromkeys(seats, 0)
    for step in steps:
        scores[step.seat] += step.points
        for seat, direction in step.votes:
            if direction == step.direction:
                control[seat] += 1
    return scores, control
