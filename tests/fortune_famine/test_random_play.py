"""Random legal play from the acting seats' ``options`` (:mod:`.randomplay`),
some orders left to FF7's default: for 2 to 6 seats and both lengths every
order is accepted, the match runs to its end, and the match file of those
orders resolves to the result of the play step by step. At every state the
table made again from the detailed result gives the same options and
checks every order the same, and no seat's view shows another's storage.
A few fixed games, quick; tests/fortune_famine/test_properties.py plays many
more (slow)."""

from __future__ import annotations

import random
from typing import Any

import pytest

from referee.rulesets.fortune_famine.legal import economy_outcomes
from referee.rulesets.fortune_famine.match import (
    detail_json,
    parse_match,
    resolve,
    result_json,
    start,
)
from referee.rulesets.fortune_famine.options import options
from referee.rulesets.fortune_famine.orders import check_order, close_step
from referee.rulesets.fortune_famine.randomplay import random_step
from referee.rulesets.fortune_famine.rebuild import table_from_details
from referee.rulesets.fortune_famine.state import RULERS, Table
from referee.rulesets.fortune_famine.view import result_for

GAMES = [(seats, length) for seats in range(2, 7) for length in ("full", "short")]


def match_doc(seats: int, length: str, seed: str, rng: random.Random) -> dict[str, Any]:
    """A match file without orders; half the time with rulers the host chose."""
    doc: dict[str, Any] = {
        "ruleset": "fortune-famine",
        "players": [
            {"seat": s, "name": f"P{s}", "garnets": rng.randint(0, 3)} for s in range(1, seats + 1)
        ],
        "seed": seed,
        "settings": {"length": length},
        "orders": [],
    }
    if rng.random() < 0.5:
        chosen = rng.sample(RULERS, seats)
        doc["rulers"] = {str(s): chosen[s - 1] for s in range(1, seats + 1)}
    return doc


def check_state(table: Table, step: dict[int, Any]) -> None:
    """The rebuilt table's options and checks are the table's; the views
    keep each seat's storage to itself; the options' promises hold."""
    details = detail_json(table)
    rebuilt = table_from_details(details)
    assert table.next is not None
    for seat in table.next.acting:
        opts = options(table, seat)
        assert opts is not None and options(rebuilt, seat) == opts
        if opts["phase"] == "hire":
            assert opts["cards"], "a seat with nothing to list is passed automatically"
        order = step.get(seat)
        if order is not None:
            assert check_order(rebuilt, seat, order) == check_order(table, seat, order)
    for seat in table.seat_numbers():
        shown = result_for(details, seat)["seats"]
        assert [v["stored"] for k, v in shown.items() if k != str(seat)] == [None] * (
            table.count - 1
        )
        assert shown[str(seat)]["stored"] == table.seats[seat].stored


def check_store_max(table: Table) -> None:
    """FORMAT's store_max is reached by an order the rules accept."""
    assert table.next is not None and table.next.phase == "economy"
    for seat in table.next.acting:
        opts = options(table, seat)
        assert opts is not None
        best = opts["store_max"]
        if best == 0:
            continue
        out = next(
            o
            for o in economy_outcomes(table, seat, all_chysarions=True)
            if o.silver >= 1 and o.grain == best
        )
        order: dict[str, Any] = {"decision": "store", "store": best, "pay": list(out.pay)}
        if out.trade is not None:
            order["trade"] = {"give": out.trade.give, "count": out.trade.count, "at": out.trade.at}
        if out.double is not None:
            order["double"] = out.double
        order["chysarion"] = list(out.chysarion)
        assert check_order(table, seat, order)["store"] == best
        order["store"] = best + 1
        if out.trade is None:
            with pytest.raises(Exception, match="store"):
                check_order(table, seat, order)


def play_randomly(
    doc: dict[str, Any], rng: random.Random, missing: float, *, checks: bool
) -> tuple[Table, list[Any]]:
    table = start(parse_match(doc))
    orders: list[Any] = []
    while table.next is not None:
        step = random_step(table, rng, missing)
        for seat, order in step.items():
            if order is not None:
                check_order(table, seat, order)  # accepted
        if checks:
            check_state(table, step)
            if table.next.phase == "economy":
                check_store_max(table)
        table = close_step(table, step)
        orders.append({str(s): o for s, o in step.items()})
        assert table.closed < 400
    return table, orders


@pytest.mark.parametrize(("seats", "length"), GAMES, ids=[f"{s}-{n}" for s, n in GAMES])
def test_random_legal_play_runs_to_the_end(seats: int, length: str) -> None:
    rng = random.Random(f"ff-{seats}-{length}")
    doc = match_doc(seats, length, f"random-{seats}-{length}", rng)
    table, orders = play_randomly(doc, rng, 0.1, checks=True)
    result = result_json(table)
    assert result["finished"] and len(result["seasons"]) == result["seasons_total"]
    assert result["seasons_total"] == (12 if length == "full" else 6)
    assert sorted(result["ranking"]) == list(range(1, seats + 1))
    assert resolve({**doc, "orders": orders}) == result
