"""F10: seeded randomness. h(parts...) is the lowercase SHA-256 hex digest of
the UTF-8 string ``seed:part1:part2:...``; "sorted by" and "smallest" compare
digests as strings. Anyone holding the revealed seed can recompute all of it
(:mod:`referee.rulesets.cardgame` holds what Forks shares)."""

from __future__ import annotations

from collections.abc import Iterable

from referee.rulesets.cardgame import deck_order, draw, seeded_pick

__all__ = ["deck_order", "default_keep", "default_market", "draw"]


def default_keep(seed: str, game_round: int, seat: int, dealt: Iterable[str]) -> str:
    """The dealt card with the smallest h(nmr, keep, g, seat, card)."""
    return seeded_pick(seed, dealt, "nmr", "keep", game_round, seat)


def default_market(seed: str, game_round: int, seat: int, options: Iterable[str]) -> str:
    """Among the cards the seat could name, the smallest h(nmr, market, g, seat, card)."""
    return seeded_pick(seed, options, "nmr", "market", game_round, seat)
