"""Random legal matches, for benchmarks and load tests (not for real games)."""

from __future__ import annotations

import random
from typing import Any

from .data import load_bundled_map, load_deck
from .match import parse_match, resolve
from .river_map import SEATS, RiverMap


def random_match_document(
    rng: random.Random, river: RiverMap | None = None, rafting_rounds: int | None = None
) -> dict[str, Any]:
    """A match file with random but legal orders for every closed round."""
    deck = load_deck()
    map_ref: Any = river.to_json() if river is not None else "three-rapids"
    river = river or load_bundled_map("three-rapids")
    rounds = river.segments if rafting_rounds is None else rafting_rounds
    doc: dict[str, Any] = {
        "ruleset": "rocky-river",
        "map": map_ref,
        "players": [{"seat": s, "name": f"P{s}", "garnets": rng.randint(0, 9)} for s in SEATS],
        "seed": f"random-{rng.getrandbits(64):x}",
        "draft": {str(s): rng.sample(list(deck.ids), len(deck.ids)) for s in SEATS},
    }
    hands = resolve(parse_match(doc), deck).hands
    legal = {
        c.id: [b.id for b in river.branches.values() if c.value_for(b.color) is not None]
        for c in deck.cards
    }
    doc["placements"] = {
        str(s): {card: rng.choice(legal[card]) for card in hands[s]} for s in SEATS
    }
    doc["votes"] = [
        {str(s): [rng.choice("LR") for _ in range(river.forks_per_segment)] for s in SEATS}
        for _ in range(rounds)
    ]
    return doc
