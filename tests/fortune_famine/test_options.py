"""The acting seat's ``options`` (docs/contracts/fortune-famine/FORMAT.md, API
bodies) on the hand-built tables of test_orders.py: their shape, and that
what they list is accepted and what they leave out refused."""

from __future__ import annotations

from referee.rulesets.fortune_famine.options import options
from referee.rulesets.fortune_famine.state import BESELLA

from .tables import codes
from .test_orders import attack_table, economy_table, hire_table


def test_hire_options() -> None:
    t = hire_table()
    opts = options(t, 1)
    assert opts == {
        "phase": "hire",
        "cards": [
            {"card": "common-farmer.6", "how": "bid", "min_silver": 3, "discards": None},
            {"card": "common-farmer.6", "how": "claim", "min_silver": None, "discards": None},
            {"card": "common-merchant.6", "how": "bid", "min_silver": 1, "discards": None},
            {"card": "common-merchant.6", "how": "claim", "min_silver": None, "discards": None},
            {"card": "chysarion-grain-3.2", "how": "take", "min_silver": None, "discards": None},
            {"card": "skilled-farmer.3", "how": "bid", "min_silver": 1, "discards": None},
            {"card": "skilled-farmer.3", "how": "claim", "min_silver": None, "discards": None},
            {"card": "seer.1", "how": "bid", "min_silver": 1, "discards": None},
            {"card": "seer.1", "how": "claim", "min_silver": None, "discards": None},
        ],
        "max_silver": 5,  # 3 silver and 2 grain a trade could bring
        "trade": {"grain": 2, "silver": 3},
        "guard": False,
    }
    assert options(t, 2) is None  # seat 2 does not act


def test_hire_options_without_a_trade_or_tokens_and_with_discards() -> None:
    t = hire_table()
    t.seats[1].kingdom = [
        "start-farmer.1",
        "common-farmer.1",
        "steward.1",
        "seer.2",
        "philosopher.1",
    ]
    t.seats[1].ruler = BESELLA
    t.seats[1].silver = 2
    opts = options(t, 1)
    assert opts is not None
    assert opts["trade"] is None and opts["max_silver"] == 2 and opts["guard"] is True
    listed = {(c["card"], c["how"]): c["discards"] for c in opts["cards"]}
    assert ("common-farmer.6", "bid") not in listed  # its lowest bid, 3, is above 2
    assert listed[("seer.1", "bid")] == ["seer.2"]  # the Kingdom is full and one Seer only
    assert listed[("common-merchant.6", "bid")] == [
        "start-farmer.1",
        "common-farmer.1",
        "steward.1",
        "seer.2",
        "philosopher.1",
    ]
    assert listed[("skilled-farmer.3", "bid")] == [
        "start-farmer.1",
        "common-farmer.1",
    ]  # size and two farmers: only a farmer makes room
    for (card, how), discards in listed.items():
        assert discards
        order = {"action": how, "card": card, "discard": discards[-1]}
        if how == "bid":
            order["silver"] = 2
        assert codes(t, order) == [], (card, how)


def test_a_bid_listed_only_through_a_trade_needs_that_trade() -> None:
    t = hire_table()
    opts = options(t, 1)
    assert opts is not None
    bid = {"action": "bid", "card": "common-farmer.6", "silver": 5}
    assert codes(t, bid) == ["hire/not_enough_silver"]
    assert codes(t, {**bid, "trade": {"give": "grain", "count": 2}}) == []


def test_attack_options() -> None:
    t = attack_table()
    opts = options(t, 1)
    assert opts == {
        "phase": "attack",
        "pickpocket": [2],  # not Arup (3), not a Pickpocket's holder (4), not 1 unguarded (5)
        "evrathor": [
            {
                "card": "evrathor-grain-2.1",
                "steals": "grain",
                "amount": 2,
                "split": "may",
                "from": {"2": 2, "3": 2, "5": 1},  # seat 4 holds a Seer; seat 5 guards 1 of 2
            },
            {
                "card": "evrathor-silver-2.1",
                "steals": "silver",
                "amount": 2,
                "split": "must",
                "from": {"2": 1, "5": 1},  # not Arup in a silver theft; half of 2
            },
            {
                "card": "evrathor-stored-2.1",
                "steals": "stored",
                "amount": 2,
                "split": "none",
                "from": {"2": 2, "3": 2, "5": 2},  # storage is secret: not a cap
            },
            {
                "card": "evrathor-silver-3.1",
                "steals": "silver",
                "amount": 3,
                "split": "may",
                "from": {"2": 3, "5": 1},
            },
        ],
        "trade": None,
        "guard": False,
    }
    for use in opts["evrathor"]:
        for seat, cap in use["from"].items():
            order = {"evrathor": [{"card": use["card"], "from": {seat: cap}}]}
            assert codes(t, order) == [], order
            if use["split"] != "must" and cap < use["amount"]:
                order["evrathor"][0]["from"][seat] = cap + 1
                assert codes(t, order) == ["attack/not_enough"]


def test_economy_options() -> None:
    t = economy_table()
    opts = options(t, 1)
    assert opts == {
        "phase": "economy",
        "pay": [
            {
                "card": "start-farmer.1",
                "payment": {"grain": 0, "silver": 1},
                "reward": {"grain": 2, "silver": 0, "stored": 0},
            },
            {
                "card": "skilled-farmer.3",
                "payment": {"grain": 0, "silver": 1},
                "reward": {"grain": 3, "silver": 0, "stored": 0},
            },
            {
                "card": "common-merchant.6",
                "payment": {"grain": 1, "silver": 0},
                "reward": {"grain": 0, "silver": 2, "stored": 0},
            },
        ],
        "free": [
            {"card": "common-jester.4", "reward": {"grain": 0, "silver": 1, "stored": 0}},
            {"card": "philosopher.3", "reward": {"grain": 0, "silver": 0, "stored": 0}},
        ],
        "double": ["start-farmer.1", "common-merchant.6"],
        "chysarion": [{"card": "chysarion-grain-3.2", "gives": "grain", "amount": 3}],
        "grain": 2,
        "silver": 3,
        # double the farmer (2 silver), pay the skilled farmer (1): 0 silver,
        # 2 grain; + 4 + 3 grain + 3 (Chysarion) = 12 grain, 1 silver (the
        # jester) to pay for the store
        "store_max": 12,
        "trade": None,
        "guard": False,
    }
    order = {
        "pay": ["start-farmer.1", "skilled-farmer.3"],
        "double": "start-farmer.1",
        "chysarion": ["chysarion-grain-3.2"],
        "decision": "store",
        "store": 12,
    }
    assert codes(t, order) == []
    assert codes(t, {**order, "store": 13}) == ["store/not_enough_grain"]
    paid_merchant = {**order, "pay": [*order["pay"], "common-merchant.6"]}
    assert codes(t, paid_merchant) == ["store/not_enough_grain"]  # 11 grain then


def test_store_max_is_0_when_no_order_can_store() -> None:
    t = economy_table()
    t.seats[1].kingdom = ["start-farmer.1"]
    t.seats[1].grain = 0
    t.seats[1].silver = 0
    opts = options(t, 1)
    assert opts is not None and opts["store_max"] == 0 and opts["double"] == []
    t.seats[1].silver = 1  # pay the farmer: 2 grain, no silver; or keep the silver, no grain
    opts = options(t, 1)
    assert opts is not None and opts["store_max"] == 0
