"""``referee demo --game forks-2e``: a demo match whose orders are legal.

Every order names a card dealt or passed to the seat, which the seed decides;
so the demo has a fixed seed (anyone could compute the deal from it, which is
fine for a demo) and its orders are played from it: each seat keeps its
highest dealt card and markets its lowest option."""

from __future__ import annotations

from referee.ruleset import Demo
from referee.rulesets.cardgame import check_demo_players, demo_players, play_demo

from . import match as m
from .cards import value

DEMO_SEED = "forks-2e-demo"


def demo_orders(seats: int, *, merge: bool = False, seed: str = DEMO_SEED) -> list[dict[int, str]]:
    """A whole match of orders: keep the highest dealt card, market the lowest option."""
    table = m.start(seed, seats, merge=merge)

    def choose() -> dict[int, str]:
        pick = max if table.closed % 2 == 0 else min
        return {
            seat: pick(table.options(seat), key=lambda c: (value(c), c))
            for seat in table.seat_numbers()
        }

    def close(chosen: dict[int, str]) -> None:
        (m.close_keep if table.closed % 2 == 0 else m.close_market)(table, dict(chosen))

    return play_demo(lambda: table.finished, choose, close)


def demo_match(title: str, players: int | None) -> Demo:
    count = check_demo_players(title, players, 4, m.MIN_SEATS, m.MAX_SEATS)
    return Demo(
        name=f"Demo: {title}",
        setup={},
        players=demo_players(count),
        settings={
            "deadline_hours": 48,
            "close_early": False,
            "merge": False,
            "tiebreak": list(m.DEFAULT_TIEBREAK),
        },
        steps=demo_orders(count),
        seed=DEMO_SEED,
    )
