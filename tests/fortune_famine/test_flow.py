"""How a match moves on (FF5-FF8, FF11-FF13, FF19): the set-up, the
Famine and Divina/Daznul's block, FF11's pointer, outbids and automatic
passes (Cotarr/Corace's silver too), placing the hired cards, who gets an
attack turn, and the ranking's levels."""

from __future__ import annotations

from typing import Any

import pytest

from referee.rulesets.fortune_famine.cards import default_deck
from referee.rulesets.fortune_famine.flow import famine, season_cards
from referee.rulesets.fortune_famine.match import decided_by, ranking, result_json
from referee.rulesets.fortune_famine.orders import close_step
from referee.rulesets.fortune_famine.state import (
    ARUP,
    BESELLA,
    COTARR,
    DIVINA,
    ELBAN,
    FELARREN,
    Table,
    dealt_rulers,
    new_table,
    start_seat,
)

from .tables import make


def test_set_up() -> None:
    """FF5: the rulers of FF23's example, the starting seats, the Year decks."""
    assert dealt_rulers("ff-example-01", 2) == {1: ARUP, 2: FELARREN}
    besella = start_seat(3, BESELLA)
    assert (besella.grain, besella.silver, besella.guard_grain, besella.guard_silver) == (
        1,
        3,
        1,
        2,
    )
    assert besella.kingdom == ["start-farmer.3"] and besella.tokens == 0
    assert start_seat(1, DIVINA).tokens == start_seat(1, ELBAN).tokens == 3
    t = new_table("ff-example-01", default_deck(), {1: 0, 2: 0}, "short", None)
    assert t.years[1][:6] == [
        "skilled-merchant.1",
        "chysarion-grain-3.1",
        "common-jester.1",
        "famine.1",
        "common-merchant.2",
        "common-merchant.3",
    ]
    assert season_cards(t) == ("skilled-merchant.1", ["chysarion-grain-3.1", "common-jester.1"])
    t.season = 2
    assert season_cards(t) == ("famine.1", ["common-merchant.2", "common-merchant.3"])


def _famine_table() -> Table:
    t = make(
        "hire",
        {1: COTARR, 2: BESELLA, 3: ARUP, 4: DIVINA},
        {s: [f"start-farmer.{s}"] for s in range(1, 5)},
        grain={1: 5, 2: 5, 3: 1, 4: 0},
    )
    t.seats[2].guard_grain = 2
    t.seats[1].stored = 6
    return t


def test_a_famine_halves_unguarded_grain_rounded_up() -> None:
    t = _famine_table()
    assert famine(t, "famine.2") == {
        "card": "famine.2",
        "loss": {"1": 3, "2": 2, "3": 1, "4": 0},  # seat 2 guards 2 of its 5
        "blocked": [],  # Divina/Daznul had nothing to lose: its token is kept
    }
    assert [t.seats[s].grain for s in (1, 2, 3, 4)] == [2, 3, 0, 0]
    assert t.seats[2].guard_grain == 2 and t.seats[1].stored == 6 and t.seats[4].tokens == 3


def test_divina_blocks_the_first_famine_of_each_year_that_would_cost_grain() -> None:
    t = _famine_table()
    t.seats[4].grain = 3
    assert famine(t, "famine.2")["blocked"] == [4]
    assert t.seats[4].grain == 3 and t.seats[4].tokens == 2
    second = famine(t, "famine.3")
    assert second["blocked"] == [] and second["loss"]["4"] == 2
    t.season = 9  # Year 3
    t.seats[4].grain = 1
    assert famine(t, "famine.4")["blocked"] == [4] and t.seats[4].tokens == 1
    t.seats[4].tokens = 0
    t.season = 13
    assert famine(t, "famine.5")["loss"]["4"] == 1  # no token left


def _hire() -> Table:
    """Season 5 (Year 2; 3 seats, so seat 2 leads), seat 1 acting: a farmer,
    a merchant; seat 2 (Cotarr/Corace) has no silver."""
    t = make(
        "hire",
        {1: ARUP, 2: COTARR, 3: BESELLA},
        {s: [f"start-farmer.{s}"] for s in range(1, 4)},
        silver={2: 0},
        board=["common-farmer.6", "famine.2", "common-merchant.6"],
    )
    return t


def _turns(t: Table) -> list[tuple[int, str, bool]]:
    return [(h["seat"], h["action"], h["auto"]) for h in t.record["hire_turns"]]


def test_a_seat_with_no_action_but_pass_is_passed_automatically() -> None:
    t = close_step(_hire(), {1: {"action": "bid", "card": "common-farmer.6", "silver": 1}})
    assert _turns(t) == [(1, "bid", False), (2, "pass", True)]
    assert t.seats[2].silver == 2  # Cotarr/Corace's 2 silver for an automatic pass too
    assert t.next is not None and t.next.acting == (3,)


def test_an_outbid_seat_acts_again_when_the_pointer_comes_round() -> None:
    t = close_step(_hire(), {1: {"action": "bid", "card": "common-farmer.6", "silver": 1}})
    t = close_step(t, {3: {"action": "bid", "card": "common-farmer.6", "silver": 2}})
    assert t.seats[1].silver == 3 and t.next is not None and t.next.acting == (1,)
    t = close_step(t, {1: {"action": "bid", "card": "common-merchant.6", "silver": 3}})
    # nobody is free: the hire ends and the cards are placed
    assert t.record["hired"] == {
        "1": {"card": "common-merchant.6", "how": "bid", "silver": 3, "discard": None},
        "2": None,
        "3": {"card": "common-farmer.6", "how": "bid", "silver": 2, "discard": None},
    }
    assert t.record["unhired"] == []
    assert t.seats[1].kingdom == ["start-farmer.1", "common-merchant.6"]
    assert t.seats[1].silver == 0 and t.seats[3].silver == 1
    assert t.next is not None and t.next.phase == "economy" and t.next.acting == (1, 2, 3)


def test_the_unhired_cards_and_a_discard_at_placement() -> None:
    t = _hire()
    t.seats[1].kingdom = ["start-farmer.1", "common-farmer.1"]
    bid = {"action": "bid", "card": "common-farmer.6", "silver": 1, "discard": "common-farmer.1"}
    t = close_step(t, {1: bid})
    t = close_step(t, {3: {"action": "pass"}})
    assert t.record["unhired"] == ["common-merchant.6"]  # the Famine is not listed
    assert t.seats[1].kingdom == ["start-farmer.1", "common-farmer.6"]


def test_a_pass_is_the_default_and_cotarr_gets_its_silver() -> None:
    t = _hire()
    t.seats[1].ruler = COTARR
    t = close_step(t, {})
    assert t.defaulted == [(7, 1)] and _turns(t)[0] == (1, "pass", False)
    assert t.seats[1].silver == 5


def _attack_ready(season: int) -> Table:
    """The hire of ``season`` about to end: seat 1 holds a Pickpocket, seat 3
    is Besella/Baroso, seat 2 holds nothing; seat 1 passes last."""
    t = make(
        "hire",
        {1: ARUP, 2: COTARR, 3: BESELLA},
        {1: ["start-farmer.1", "pickpocket.1"], 2: ["start-farmer.2"], 3: ["start-farmer.3"]},
        board=["common-farmer.6"],
        season=season,
    )
    assert t.hire is not None
    t.hire.passed = [2, 3]
    return t


def test_attack_turns_go_from_the_leader_to_each_seat_that_can_do_something() -> None:
    t = close_step(_attack_ready(5), {1: {"action": "pass"}})  # leader: seat 2
    assert t.next is not None and (t.next.phase, t.next.acting) == ("attack", (3,))
    t = close_step(t, {3: {}})
    assert t.next is not None and (t.next.phase, t.next.acting) == ("attack", (1,))
    t = close_step(t, {1: {"pickpocket": [2]}})
    assert t.seats[2].silver == 2
    assert t.next is not None and t.next.phase == "economy"
    assert [a["seat"] for a in t.record["attacks"]] == [3, 1]


def test_no_attack_in_year_1_nor_without_an_attacking_card() -> None:
    t = close_step(_attack_ready(1), {1: {"action": "pass"}})
    assert t.next is not None and t.next.phase == "economy"
    t = _attack_ready(5)
    t.seats[1].kingdom = ["start-farmer.1"]
    t = close_step(t, {1: {"action": "pass"}})
    assert t.next is not None and t.next.phase == "economy"  # Besella alone gets no turn


def test_a_trader_that_has_not_traded_gets_an_attack_turn() -> None:
    t = _attack_ready(5)
    t.seats[2].kingdom.append("trader.3")
    t = close_step(t, {1: {"action": "pass"}})
    assert t.next is not None and t.next.acting == (2,)
    t = _attack_ready(5)
    t.seats[2].kingdom.append("trader.3")
    t.seats[2].traded = True
    t = close_step(t, {1: {"action": "pass"}})
    assert t.next is not None and t.next.acting == (3,)


def test_a_default_attack_turn_does_nothing() -> None:
    t = close_step(_attack_ready(5), {1: {"action": "pass"}})
    t = close_step(t, {3: None})
    assert t.record["attacks"] == [
        {"seat": 3, "trade": None, "pickpocket": None, "evrathor": [], "guard": None}
    ]
    assert t.defaulted == [(t.closed, 3)]


# ---- FF19 -------------------------------------------------------------------------------


def _final(**levels: Any) -> Table:
    """Three seats at the end; ``levels`` maps an attribute to each seat's value."""
    t = make(
        "economy", {1: ARUP, 2: COTARR, 3: BESELLA}, {s: [f"start-farmer.{s}"] for s in (1, 2, 3)}
    )
    for name, values in levels.items():
        for seat, value in zip((1, 2, 3), values, strict=True):
            if name == "garnets":
                t.garnets[seat] = value
            elif name == "kingdom":
                t.seats[seat].kingdom = value
            else:
                setattr(t.seats[seat], name, value)
    t.phase = None
    t.next = None
    return t


EQUAL = {"stored": (3, 3, 3), "grain": (1, 1, 1), "silver": (2, 2, 2)}
LEVELS: list[tuple[str, dict[str, Any], list[int], str, str]] = [
    ("stored grain", {**EQUAL, "stored": (3, 5, 1)}, [2, 1, 3], "stored_grain", "stored_grain"),
    ("grain", {**EQUAL, "grain": (4, 0, 9)}, [3, 1, 2], "grain", "grain"),
    ("silver", {**EQUAL, "silver": (1, 0, 2)}, [3, 1, 2], "silver", "silver"),
    (
        "workers, not wizards",
        {**EQUAL, "kingdom": (["start-farmer.1", "seer.1"], ["chysarion-grain-3.1"], ["seer.2"])},
        [1, 3, 2],
        "workers",
        "workers",
    ),
    ("garnets", {**EQUAL, "garnets": (2, 7, 0)}, [2, 1, 3], "garnets", "garnets"),
    ("seat", EQUAL, [1, 2, 3], "seat", "seat"),
    (
        "mixed",
        {**EQUAL, "stored": (3, 3, 1), "garnets": (0, 1, 9)},
        [2, 1, 3],
        "garnets",
        "stored_grain",
    ),
]


@pytest.mark.parametrize(
    ("what", "levels", "ranked", "token", "candidate"), LEVELS, ids=[x[0] for x in LEVELS]
)
def test_ranking_levels(
    what: str, levels: dict[str, Any], ranked: list[int], token: str, candidate: str
) -> None:
    t = _final(**levels)
    assert ranking(t) == ranked
    assert decided_by(t, best=True) == (ranked[0], token)
    assert decided_by(t, best=False) == (ranked[-1], candidate)
    result = result_json(t)
    assert result["token_of_life"] == ranked[0] and result["token_decided_by"] == token
    assert result["elimination_candidate"] == {"seat": ranked[-1], "decided_by": candidate}
