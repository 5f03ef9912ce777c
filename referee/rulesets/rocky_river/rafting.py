"""R8: moving the raft, passed branches, points and control."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from .river_map import RiverMap


@dataclass(frozen=True, slots=True)
class Step:
    """The raft passing one fork."""

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


def majority(directions: Sequence[str]) -> tuple[str, bool]:
    """The direction most seats chose, and whether every seat chose it."""
    lefts = directions.count("L")
    way = "L" if 2 * lefts > len(directions) else "R"
    return way, directions.count(way) == len(directions)


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
    fork_id: str | None = at
    for k in range(river.forks_per_segment):
        assert fork_id is not None, "the map ends inside a segment"
        fork = river.forks[fork_id]
        chosen = [votes[s][k] for s in seats]
        way, unanimous = majority(chosen)
        side = fork.left if way == "L" else fork.right
        branch = side[1] if unanimous and len(side) == 2 else side[0]
        steps.append(
            Step(
                segment=segment,
                fork=fork_id,
                direction=way,
                unanimous=unanimous,
                branch=branch.id,
                seat=branch.seat,
                points=totals[branch.id],
                votes=tuple(zip(seats, chosen, strict=True)),
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
