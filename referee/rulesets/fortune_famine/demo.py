"""``referee demo --game fortune-famine``: a demo match whose orders are legal.

Which cards are on the Hire Board follows from the seed (the Year decks'
order, FF5), so the demo has a fixed seed (anyone may compute the decks from
it, which is fine for a demo) and its orders are computed by playing the
engine from it: each step's orders are random legal orders built from the
acting seats' options (:mod:`.randomplay`), with a generator seeded from the
demo seed and the player count, so the same orders every time, played to
the match's end. The demo is a short match (6 seasons) of 4 players by
default.

Pure: no Flask, SQL or click imports.
"""

from __future__ import annotations

import copy
import random
from functools import cache
from typing import Any

from referee.ruleset import Demo
from referee.rulesets.cardgame import check_demo_players, demo_players

from .cards import default_deck
from .flow import begin
from .match import MAX_SEATS, MIN_SEATS
from .orders import close_step
from .randomplay import random_step
from .state import new_table

DEMO_SEED = "fortune-famine-demo"
DEMO_PLAYERS = 4
DEMO_LENGTH = "short"


@cache
def _orders(seats: int, seed: str) -> tuple[tuple[tuple[int, Any], ...], ...]:
    garnets = {p["seat"]: p["garnets"] for p in demo_players(seats)}
    table = begin(new_table(seed, default_deck(), garnets, DEMO_LENGTH, None))
    rng = random.Random(f"{seed}:demo:{seats}")
    out: list[tuple[tuple[int, Any], ...]] = []
    while table.next is not None:
        orders = random_step(table, rng)
        table = close_step(table, orders)
        out.append(tuple(sorted(orders.items())))
    return tuple(out)


def demo_orders(seats: int, seed: str = DEMO_SEED) -> list[dict[int, Any]]:
    """A whole short match of orders (the API's values), by step, to its end."""
    return [{seat: copy.deepcopy(order) for seat, order in step} for step in _orders(seats, seed)]


def demo_match(title: str, players: int | None) -> Demo:
    count = check_demo_players(title, players, DEMO_PLAYERS, MIN_SEATS, MAX_SEATS)
    return Demo(
        name=f"Demo: {title}",
        setup={},
        players=demo_players(count),
        settings={"length": DEMO_LENGTH, "deadline_hours": 48, "close_early": False},
        steps=demo_orders(count),
        seed=DEMO_SEED,
    )
