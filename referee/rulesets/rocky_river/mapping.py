"""R7: placing cards on slots and the slot totals."""

from __future__ import annotations

from collections.abc import Mapping

from .cards import Deck
from .river_map import RiverMap


def legal_values(deck: Deck, river: RiverMap) -> dict[tuple[str, str], int]:
    """Every legal (card, branch) pair with the value the card adds there (R7),
    computed once per map and deck."""
    key = deck  # the map's cache holds one table per deck, keyed by the deck itself
    values: dict[tuple[str, str], int] | None = river.cache.get(key)
    if values is None:
        values = {}
        for card in deck.cards:
            for b in river.branches.values():
                value = card.value_for(b.color)
                if value is not None:
                    values[(card.id, b.id)] = value
        river.cache[key] = values
    return values


def slot_totals(
    placements: Mapping[int, Mapping[str, str]], deck: Deck, river: RiverMap
) -> dict[str, int]:
    """Every branch of the map (map order) with the sum of the values placed on it.

    ``placements`` must already be valid (see ``orders.check_placements``): the
    face used is the card's face of the slot's colour.
    """
    totals = dict.fromkeys(river.branches, 0)
    values = legal_values(deck, river)
    for placed in placements.values():
        for pair in placed.items():
            totals[pair[1]] += values[pair]
    return totals
