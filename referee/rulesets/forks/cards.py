"""K2: the 40 cards, their ids, values and canonical order.

Five companies in canonical order, each with one card of each value 3..9 and
an ``x`` twin of one value. Reading an id is case-insensitive and a single
space may stand for the hyphen (:class:`referee.rulesets.cardgame.CardSet`).
"""

from __future__ import annotations

from referee.rulesets.cardgame import CardSet

COMPANIES: tuple[str, ...] = ("dtv", "apidae", "oxime", "wildrock", "needle")
DEFAULT_NAMES: dict[str, str] = {
    "dtv": "dtv Plumbing",
    "apidae": "Apidae Pharmaceuticals",
    "oxime": "Oxime",
    "wildrock": "Wild Rock Telecoms",
    "needle": "Needle & Green Solicitors",
}
EXTRA_VALUE: dict[str, int] = {"dtv": 4, "apidae": 5, "oxime": 6, "wildrock": 7, "needle": 8}
VALUES = range(3, 10)
EXAMPLE = "oxime-6x"  # the id refusals show as an example

CARDS = CardSet(COMPANIES, EXTRA_VALUE, VALUES, DEFAULT_NAMES, "company")
ALL_CARDS: tuple[str, ...] = CARDS.cards  # canonical order
value = CARDS.value
company = CARDS.suit
canonical = CARDS.canonical
is_card = CARDS.is_card
read_card = CARDS.read
card_name = CARDS.name
