"""R9: Token of Life and Elimination Candidate."""

from __future__ import annotations

from collections.abc import Mapping
from typing import NamedTuple

from .seeded import draw


class Elimination(NamedTuple):
    seat: int
    decided_by: str  # "score", "control", "garnets" or "draw"
    tied_on_score: tuple[int, ...]  # the seats that shared the lowest score

    def as_dict(self) -> dict[str, object]:
        return {"seat": self.seat, "decided_by": self.decided_by}


def token_of_life(scores: Mapping[int, int]) -> int | None:
    """The single highest score's seat; nobody when two or three share it."""
    top = max(scores.values())
    leaders = [s for s, v in scores.items() if v == top]
    return leaders[0] if len(leaders) == 1 else None


def elimination_candidate(
    scores: Mapping[int, int],
    control: Mapping[int, int],
    garnets: Mapping[int, int],
    seed: str,
) -> Elimination:
    """Lowest score; ties by lowest control, then fewest garnets, then the seeded draw."""
    low = min(scores.values())
    tied = sorted(s for s, v in scores.items() if v == low)
    tied_on_score = tuple(tied)
    if len(tied) == 1:
        return Elimination(tied[0], "score", tied_on_score)
    for criterion, values in (("control", control), ("garnets", garnets)):
        least = min(values[s] for s in tied)
        tied = [s for s in tied if values[s] == least]
        if len(tied) == 1:
            return Elimination(tied[0], criterion, tied_on_score)
    return Elimination(draw(seed, tied), "draw", tied_on_score)
