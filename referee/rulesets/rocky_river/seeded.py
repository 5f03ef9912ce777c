"""R10: seeded defaults for missing orders and the elimination draw.

Everything here is bit-exact as RULES.md specifies, so anyone holding the
revealed seed can recompute it: h(parts...) is the lowercase SHA-256 hex digest
of the UTF-8 string ``seed:part1:part2:...``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from referee.matchfile import seed_digest as seed_digest
from referee.matchfile import seeded_hash as h

from .cards import Deck
from .river_map import RiverMap


def default_draft(seed: str, seat: int, deck: Deck) -> list[str]:
    """All cards sorted by h(nmr, draft, seat, card) ascending."""
    return sorted(deck.ids, key=lambda card: h(seed, "nmr", "draft", seat, card))


def default_placements(
    seed: str, seat: int, hand: Iterable[str], deck: Deck, river: RiverMap
) -> dict[str, str]:
    """Each card to the branch of a colour it has with the smallest h(nmr, place, ...)."""
    out: dict[str, str] = {}
    for card_id in hand:
        card = deck.by_id[card_id]
        colors = {f.color for f in card.faces}
        candidates = [b.id for b in river.branches.values() if b.color in colors]
        out[card_id] = min(candidates, key=lambda bid: h(seed, "nmr", "place", seat, card_id, bid))
    return out


def default_votes(seed: str, rafting_round: int, seat: int, count: int) -> list[str]:
    """At fork k of the round: L when int(h(nmr, vote, r, seat, k), 16) is even."""
    return [
        "L" if int(h(seed, "nmr", "vote", rafting_round, seat, k), 16) % 2 == 0 else "R"
        for k in range(1, count + 1)
    ]


def draw(seed: str, tied: Sequence[int]) -> int:
    """The seat drawn among ``tied``: sorted ascending, index h(draw, elimination) mod n."""
    seats = sorted(tied)
    return seats[int(h(seed, "draw", "elimination"), 16) % len(seats)]
