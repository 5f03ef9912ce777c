"""F6-F9: marketing totals, the ranking, scores, the Token of Life and the
Elimination Candidate (the shared parts in :mod:`referee.rulesets.cardgame`)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from referee.rulesets.cardgame import TOP, Elimination, elimination_candidate, token_of_life

from .cards import CARDS

__all__ = [
    "TOP",
    "Elimination",
    "elimination_candidate",
    "marketing_totals",
    "ranking",
    "score",
    "token_of_life",
]


def marketing_totals(cards: Iterable[str]) -> dict[str, int]:
    """F6: each destination's sum of values in marketing (all five, 0 for none)."""
    return CARDS.totals(cards)


def ranking(totals: Mapping[str, int], tiebreak: Sequence[str]) -> list[str]:
    """F8 with F7: highest total first, equal totals in tiebreak order."""
    return CARDS.ranking(totals, tiebreak)


def score(hand: Iterable[str], ranked: Sequence[str]) -> int:
    """F8: the hand's values in the top, less its values in the bottom."""
    return CARDS.score(hand, ranked)
