"""F6-F9: marketing totals, the ranking, scores, the Token of Life and the
Elimination Candidate."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from .cards import DESTINATIONS, destination, value
from .seeded import draw

TOP = 3  # the first three of the ranking are the top, the last two the bottom (F8)


def marketing_totals(cards: Iterable[str]) -> dict[str, int]:
    """F6: each destination's sum of values in marketing (all five, 0 for none)."""
    totals = dict.fromkeys(DESTINATIONS, 0)
    for card in cards:
        totals[destination(card)] += value(card)
    return totals


def ranking(totals: Mapping[str, int], tiebreak: Sequence[str]) -> list[str]:
    """F8 with F7: highest total first, equal totals in tiebreak order."""
    return sorted(DESTINATIONS, key=lambda d: (-totals[d], tiebreak.index(d)))


def score(hand: Iterable[str], ranked: Sequence[str]) -> int:
    """F8: the hand's values in the top, less its values in the bottom."""
    top = set(ranked[:TOP])
    return sum(value(c) if destination(c) in top else -value(c) for c in hand)


def token_of_life(scores: Mapping[int, int]) -> int | None:
    """F9: the single highest score's seat; None when two or more share it."""
    best = max(scores.values())
    leaders = [seat for seat, s in scores.items() if s == best]
    return leaders[0] if len(leaders) == 1 else None


@dataclass(frozen=True)
class Elimination:
    """F9: the Elimination Candidate, what decided it, and the ties on the way."""

    seat: int
    decided_by: str  # "score", "garnets" or "draw"
    tied_on_score: tuple[int, ...]  # the seats with the lowest score
    tied_on_garnets: tuple[int, ...]  # of those, the ones with the fewest garnets

    def as_dict(self) -> dict[str, object]:
        return {"seat": self.seat, "decided_by": self.decided_by}


def elimination_candidate(
    scores: Mapping[int, int], garnets: Mapping[int, int], seed: str
) -> Elimination:
    """F9: the lowest score; ties to the fewest garnets, then the seeded draw (F10)."""
    low = min(scores.values())
    lowest = tuple(sorted(seat for seat, s in scores.items() if s == low))
    if len(lowest) == 1:
        return Elimination(lowest[0], "score", lowest, lowest)
    fewest = min(garnets[seat] for seat in lowest)
    poorest = tuple(seat for seat in lowest if garnets[seat] == fewest)
    if len(poorest) == 1:
        return Elimination(poorest[0], "garnets", lowest, poorest)
    return Elimination(draw(seed, poorest), "draw", lowest, poorest)
