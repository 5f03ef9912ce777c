"""Match files of random legal Forks play (the benchmarks and the tests)."""

from __future__ import annotations

import random
from typing import Any

from . import match as m
from .cards import COMPANIES
from .orders import DRAW, DrawOrder

NAMES = ("Ana", "Bo", "Cy", "Di", "Ed")


def document(
    seats: int,
    orders: list[Any],
    *,
    seed: str = "test-seed",
    swap: bool = False,
    merge: bool = False,
    garnets: tuple[int, ...] = (3, 5, 2, 4, 1),
    tiebreak: list[str] | None = None,
) -> dict[str, Any]:
    """A match file of ``orders`` (each round's entry as the file writes it)."""
    settings: dict[str, Any] = {"swap": swap, "merge": merge}
    if tiebreak is not None:
        settings["tiebreak"] = tiebreak
    return {
        "ruleset": m.RULESET,
        "players": [
            {"seat": s, "name": NAMES[s - 1], "garnets": garnets[s - 1]}
            for s in range(1, seats + 1)
        ],
        "seed": seed,
        "settings": settings,
        "orders": orders,
    }


def entry(table: m.Table, order: DrawOrder | str | None) -> dict[str, Any]:
    """The file's entry of ``order`` for the next step of ``table``."""
    if order is None:
        return {}
    value = order.as_json() if isinstance(order, DrawOrder) else {"invest": order}
    return {str(table.acting): value}


def random_order(rng: random.Random, table: m.Table) -> DrawOrder | str:
    """A legal order for the next step of ``table`` (swaps now and then)."""
    if table.next_kind != DRAW:
        return rng.choice(table.options())
    drawn = list(table.turn.drawn)
    if table.swap and table.investment and rng.random() < 0.4:
        give, take = rng.choice(drawn), rng.choice(table.investment)
        held = [take if c == give else c for c in drawn]
        return DrawOrder(rng.choice(held), give, take)
    return DrawOrder(rng.choice(drawn))


def random_match(
    rng: random.Random,
    seats: int,
    *,
    swap: bool = False,
    merge: bool = False,
    missing: float = 0.15,
    rounds: int | None = None,
) -> dict[str, Any]:
    """A match file of random legal play (``missing``: the chance an order is
    left out), ``rounds`` closed rounds (default: all)."""
    seed = f"forks-{rng.random()}"
    tiebreak = list(COMPANIES)
    rng.shuffle(tiebreak)
    table = m.start(seed, seats, swap=swap, merge=merge)
    orders: list[Any] = []
    for _ in range(m.rounds_of(seats) if rounds is None else rounds):
        order = None if rng.random() < missing else random_order(rng, table)
        orders.append(entry(table, order))
        m.close_next(table, order)
    garnets = tuple(rng.randint(0, 3) for _ in range(5))
    return document(
        seats, orders, seed=seed, swap=swap, merge=merge, garnets=garnets, tiebreak=tiebreak
    )
