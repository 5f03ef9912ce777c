"""R7: placing cards on slots and the slot totals."""

from __future__ import annotations

from collections.abc import Mapping

from .cards import Deck
from .river_map import RiverMap


def slot_totals(
    placements: Mapping[int, Mapping[str, str]], deck: Deck, river: RiverMap
) -> dict[str, int]:
    """Every branch of the map (map order) with the sum of the values placed on it.

    ``placements`` must already be valid (see ``orders.check_placements``): the
    face used is the card's face of the slot's colour.
    """
    totals = dict.fromkeys(river.branches, 0)
    branches = river.branches
    by_id = deck.by_id
    for placed in placements.values():
        for card_id, branch_id in placed.items():
            value = by_id[card_id].value_for(branches[branch_id].color)
            assert value is not None, f"{card_id} has no {branches[branch_id].color} face"
            totals[branch_id] += value
    return totals
