"""``referee demo --game forks-2e``: a demo match whose orders are legal.

Every order names a card dealt or passed to the seat, which the seed decides;
so the demo has a fixed seed (anyone could compute the deal from it, which is
fine for a demo) and its orders are played from it: each seat keeps its
highest dealt card and markets its lowest option."""

from __future__ import annotations

from referee.errors import RuleError
from referee.ruleset import Demo

from . import match as m
from .cards import value

DEMO_SEED = "forks-2e-demo"
NAMES = ("Ana", "Bo", "Cy", "Di", "Ed", "Flo")
GARNETS = (3, 5, 2, 4, 1, 6)


def demo_orders(seats: int, *, merge: bool = False, seed: str = DEMO_SEED) -> list[dict[int, str]]:
    """A whole match of orders: keep the highest dealt card, market the lowest option."""
    table = m.start(seed, seats, merge=merge)
    steps: list[dict[int, str]] = []
    while not table.finished:
        keep = table.closed % 2 == 0
        chosen = {}
        for seat in table.seat_numbers():
            options = table.options(seat)
            pick = max if keep else min
            chosen[seat] = pick(options, key=lambda c: (value(c), c))
        steps.append(chosen)
        (m.close_keep if keep else m.close_market)(table, dict(chosen))
    return steps


def demo_match(title: str, players: int | None) -> Demo:
    count = 4 if players is None else players
    if not m.MIN_SEATS <= count <= m.MAX_SEATS:
        raise RuleError.single(
            "demo/bad_players",
            f"{title} is for {m.MIN_SEATS} to {m.MAX_SEATS} players, not {players}",
        )
    return Demo(
        name=f"Demo: {title}",
        setup={},
        players=[{"seat": i + 1, "name": NAMES[i], "garnets": GARNETS[i]} for i in range(count)],
        settings={
            "deadline_hours": 48,
            "close_early": False,
            "merge": False,
            "tiebreak": list(m.DEFAULT_TIEBREAK),
        },
        steps=demo_orders(count),
        seed=DEMO_SEED,
    )
