"""``referee demo --game forfort``: a demo match whose orders are legal.

Every order names cards of a hand the seed deals, so the demo has a fixed
seed (anyone may compute the deal from it, which is fine for a demo) and its
orders are computed by playing the engine from it: each turn is a random
legal order built from the acting seat's options (:mod:`.randomplay`) with a
generator seeded from the demo seed and the player count, so the same
orders every time, played to the match's end.

Pure: no Flask, SQL or click imports.
"""

from __future__ import annotations

import copy
import random
from functools import cache
from typing import Any

from referee.ruleset import Demo
from referee.rulesets.cardgame import check_demo_players, demo_players

from .cards import default_card_set
from .match import MAX_SEATS, MIN_SEATS
from .orders import play_turn
from .randomplay import random_order
from .state import start

DEMO_SEED = "forfort-demo"
DEMO_PLAYERS = 3


@cache
def _orders(seats: int, seed: str) -> tuple[tuple[int, Any], ...]:
    table = start(seed, default_card_set(), seats)
    rng = random.Random(f"{seed}:demo:{seats}")
    out: list[tuple[int, Any]] = []
    while table.next is not None:
        seat = table.next.seat
        order = random_order(table, rng)
        table = play_turn(table, order)
        out.append((seat, order))
    return tuple(out)


def demo_orders(seats: int, seed: str = DEMO_SEED) -> list[dict[int, Any]]:
    """A whole match of orders (the API's values), by step, to its end."""
    return [{seat: copy.deepcopy(order)} for seat, order in _orders(seats, seed)]


def demo_match(title: str, players: int | None) -> Demo:
    count = check_demo_players(title, players, DEMO_PLAYERS, MIN_SEATS, MAX_SEATS)
    return Demo(
        name=f"Demo: {title}",
        setup={},
        players=demo_players(count),
        settings={"deadline_hours": 48, "close_early": False},
        steps=demo_orders(count),
        seed=DEMO_SEED,
    )
