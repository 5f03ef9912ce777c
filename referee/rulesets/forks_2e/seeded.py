"""F10: seeded randomness. h(parts...) is the lowercase SHA-256 hex digest of
the UTF-8 string ``seed:part1:part2:...``; "sorted by" and "smallest" compare
digests as strings. Anyone holding the revealed seed can recompute all of it."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from referee.matchfile import seeded_hash as h


def deck_order(seed: str, cards: Iterable[str]) -> list[str]:
    """F3: the cards in play sorted by h(deck, card), the top first."""
    return sorted(cards, key=lambda card: h(seed, "deck", card))


def default_keep(seed: str, game_round: int, seat: int, dealt: Iterable[str]) -> str:
    """The dealt card with the smallest h(nmr, keep, g, seat, card)."""
    return min(dealt, key=lambda card: h(seed, "nmr", "keep", game_round, seat, card))


def default_market(seed: str, game_round: int, seat: int, options: Iterable[str]) -> str:
    """Among the cards the seat could name, the smallest h(nmr, market, g, seat, card)."""
    return min(options, key=lambda card: h(seed, "nmr", "market", game_round, seat, card))


def draw(seed: str, tied: Sequence[int]) -> int:
    """The seat drawn among ``tied``: sorted ascending, index h(draw, elimination) mod n."""
    seats = sorted(tied)
    return seats[int(h(seed, "draw", "elimination"), 16) % len(seats)]
