"""``referee demo --game forks``: a demo match whose orders are legal.

Every order names a card drawn or passed, which the seed decides; so the demo
has a fixed seed (anyone could compute the deck from it, which is fine for a
demo) and its orders are played from it. The demo has the swap variant: the
current seat keeps its highest drawn card, and from turn 2 on, when an
invested card is higher than every card it drew, it first gives its lowest
drawn card for that one and keeps it; the receiver invests its lowest option.
"""

from __future__ import annotations

from referee.ruleset import Demo
from referee.rulesets.cardgame import check_demo_players, demo_players, play_demo

from . import match as m
from .cards import value
from .orders import DRAW, DrawOrder

DEMO_SEED = "forks-demo"


def _high(card: str) -> tuple[int, str]:
    return value(card), card


def demo_order(table: m.Table) -> DrawOrder | str:
    """The demo's order for the next step of ``table``."""
    if table.next_kind != DRAW:
        return min(table.options(), key=_high)
    drawn = table.turn.drawn
    best = max(drawn, key=_high)
    if table.swap and table.turn.turn > 1 and table.investment:
        top = max(table.investment, key=_high)
        if value(top) > value(best):
            return DrawOrder(top, min(drawn, key=_high), top)
    return DrawOrder(best)


def demo_orders(
    seats: int, *, swap: bool = True, merge: bool = False, seed: str = DEMO_SEED
) -> list[dict[int, object]]:
    """A whole match of orders (the API's values), by step."""
    table = m.start(seed, seats, swap=swap, merge=merge)
    orders: list[DrawOrder | str] = []

    def choose() -> dict[int, object]:
        order = demo_order(table)
        orders.append(order)
        return {table.acting: order.as_json() if isinstance(order, DrawOrder) else order}

    def close(_: dict[int, object]) -> None:
        m.close_next(table, orders[-1])

    return play_demo(lambda: table.finished, choose, close)


def demo_match(title: str, players: int | None) -> Demo:
    count = check_demo_players(title, players, 3, m.MIN_SEATS, m.MAX_SEATS)
    return Demo(
        name=f"Demo: {title}",
        setup={},
        players=demo_players(count),
        settings={
            "deadline_hours": 48,
            "close_early": False,
            "swap": True,
            "merge": False,
            "tiebreak": list(m.DEFAULT_TIEBREAK),
        },
        steps=demo_orders(count),
        seed=DEMO_SEED,
    )
