"""F2: the 55 cards, their ids, values and canonical order.

Five destinations in canonical order, each with one card of each value 3..12
and an extra card (its ``x`` twin) of one value. A card id is
``<destination>-<value>`` or ``<destination>-<value>x``; reading one is
case-insensitive and a single space may stand for the hyphen.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from functools import lru_cache

from referee.rulesets.cardgame import CardSet

DESTINATIONS: tuple[str, ...] = ("grey", "blue", "yellow", "green", "red")
DEFAULT_NAMES: dict[str, str] = {
    "grey": "Greysteel City",
    "blue": "Bluecrest Harbour",
    "yellow": "Yellow",
    "green": "Green Acres",
    "red": "Red",
}
EXTRA_VALUE: dict[str, int] = {"grey": 8, "blue": 7, "yellow": 6, "green": 5, "red": 4}
VALUES = range(3, 13)
HIGH_VALUES = frozenset({10, 11, 12})  # out of the game with 2 or 3 players (F3)

CARDS = CardSet(DESTINATIONS, EXTRA_VALUE, VALUES, DEFAULT_NAMES, "destination")
ALL_CARDS: tuple[str, ...] = CARDS.cards  # canonical order


def value(card: str) -> int:
    """A card's value: its number (``grey-8x`` is 8)."""
    return CARDS.value(card)


def destination(card: str) -> str:
    return CARDS.suit(card)


def card_name(card: str, names: Mapping[str, str] | None = None) -> str:
    """A card as players know it: its destination's name (the match's ``names``,
    else F2's) and its value, "Greysteel City 8", the ``x`` twin "Greysteel City
    8 (twin)". ``card`` must be a canonical id. The names are the host's text:
    a page or a post escapes the result as it does every name."""
    return CARDS.name(card, names)


def canonical(cards: Iterable[str]) -> list[str]:
    """Cards in canonical order (destination, then value, the twin after)."""
    return CARDS.canonical(cards)


def is_card(card: object) -> bool:
    return CARDS.is_card(card)


def read_card(text: str) -> str | None:
    """The canonical id ``text`` names (any case; one space for the hyphen),
    or None for anything else."""
    return CARDS.read(text)


@lru_cache(maxsize=8)
def cards_in_play(players: int) -> tuple[str, ...]:
    """F3: all 55 with 4 to 6 players; without values 10-12 (40) with 2 or 3."""
    if players >= 4:
        return ALL_CARDS
    return tuple(card for card in ALL_CARDS if value(card) not in HIGH_VALUES)
