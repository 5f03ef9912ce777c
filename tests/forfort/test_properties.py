"""Hypothesis: random legal orders chosen from the acting seat's ``options``
(some steps left to FO20's default) are always accepted, every match ends
(a completed fort or an exhausted dungeon), and the match file of those
orders resolves to the same result."""

from __future__ import annotations

import random
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from referee.rulesets.forfort.cards import default_card_set
from referee.rulesets.forfort.match import detail_json, parse_match, resolve, result_json
from referee.rulesets.forfort.orders import play_turn
from referee.rulesets.forfort.randomplay import random_order
from referee.rulesets.forfort.state import start
from referee.rulesets.forfort.view import view


@settings(max_examples=25, deadline=None)
@given(
    seats=st.integers(2, 4),
    seed=st.text(min_size=1, max_size=12),
    choices=st.integers(0, 2**32),
    missing=st.sampled_from([0.0, 0.05, 0.3]),
)
def test_random_legal_play_always_finishes(
    seats: int, seed: str, choices: int, missing: float
) -> None:
    rng = random.Random(choices)
    table = start(seed, default_card_set(), seats)
    orders: list[Any] = []
    while table.next is not None:
        seat = table.next.seat
        order = None if rng.random() < missing else random_order(table, rng)
        table = play_turn(table, order)
        orders.append(None if order is None else {str(seat): order})
        assert table.closed < 200
    assert table.completed_by is not None or table.final_round is not None
    doc = {
        "ruleset": "forfort",
        "players": [{"seat": s, "name": f"P{s}", "garnets": s % 2} for s in range(1, seats + 1)],
        "seed": seed,
        "orders": orders,
    }
    result = resolve(doc)
    assert result == result_json(table, parse_match(doc))
    assert result["winners"] and result["end"] is not None
    assert set(result["scores"]) == {str(s) for s in range(1, seats + 1)}


@settings(max_examples=10, deadline=None)
@given(seats=st.integers(2, 4), choices=st.integers(0, 2**32))
def test_views_show_hands_only_to_their_seat(seats: int, choices: int) -> None:
    rng = random.Random(choices)
    table = start("views", default_card_set(), seats)
    doc = {
        "ruleset": "forfort",
        "players": [{"seat": s, "name": f"P{s}", "garnets": 0} for s in range(1, seats + 1)],
        "seed": "views",
        "orders": [],
    }
    spec = parse_match(doc)
    for _ in range(rng.randint(0, 12)):
        table = play_turn(table, random_order(table, rng))
        if table.next is None:
            return
    details = detail_json(table, spec)
    public = view(table, details, "public")
    assert "hands" not in public["result"] and "options" not in public
    assert all("drew" not in step for step in public["result"]["steps"])
    assert "dungeons" not in public["result"]
    for s in range(1, seats + 1):
        mine = view(table, details, s)
        assert list(mine["result"]["hands"]) == [str(s)]
        assert ("options" in mine) == (table.next.seat == s)
        for step in mine["result"]["steps"]:
            assert ("drew" in step) == (step["seat"] == s)
    host = view(table, details, "host")["result"]
    assert ("hands" in host) == (table.closed > 0)
    assert "dungeons" not in host
    assert "dungeons" in view(table, details, "host", revealed=True)["result"]
