"""FF10-FF18 and FORMAT's "Refusals": each code an order can be refused
with, pinned by an order only it refuses, on tables set up by hand (a hire
turn, an attack turn and an economy step, seat 1 acting), with accepted
boundary cases and the rules' effects."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from referee.rulesets.fortune_famine.orders import REFUSAL_CODES, check_order
from referee.rulesets.fortune_famine.state import (
    ARUP,
    BESELLA,
    COTARR,
    DIVINA,
    ELBAN,
    FELARREN,
    Got,
    Table,
)

from .tables import after, codes, make

Tweak = Callable[[Table], None]
SEEN: set[str] = set()


# ---- a hire turn -------------------------------------------------------------------------


def hire_table() -> Table:
    """Seat 1 (Elban/Eltezza, 3 tokens, a Trader, 2 grain, 3 silver) acts.
    On the board: a Famine, a farmer seat 2 bid 2 on, a merchant without a
    bid, a Chysarion, a skilled farmer, a Seer, an Evrathor seat 3 took."""
    t = make(
        "hire",
        {1: ELBAN, 2: BESELLA, 3: COTARR},
        {1: ["start-farmer.1", "trader.3"], 2: ["start-farmer.2"], 3: ["start-farmer.3"]},
        board=[
            "famine.2",
            "common-farmer.6",
            "common-merchant.6",
            "chysarion-grain-3.2",
            "skilled-farmer.3",
            "seer.1",
            "evrathor-grain-2.1",
        ],
    )
    assert t.hire is not None
    t.hire.got = {2: Got("common-farmer.6", "bid", 2), 3: Got("evrathor-grain-2.1", "take")}
    t.seats[2].silver = 1
    return t


def _no_trader(t: Table) -> None:
    t.seats[1].kingdom = ["start-farmer.1"]


def _traded(t: Table) -> None:
    t.seats[1].traded = True


def _arup(t: Table) -> None:
    t.seats[1].ruler = ARUP


def _no_tokens(t: Table) -> None:
    t.seats[1].tokens = 0


def _full(t: Table) -> None:
    t.seats[1].kingdom = [
        "start-farmer.1",
        "trader.3",
        "steward.1",
        "philosopher.1",
        "common-jester.1",
    ]


def _two_farmers(t: Table) -> None:
    t.seats[1].kingdom = ["start-farmer.1", "common-farmer.1", "trader.3"]


def _one_token(t: Table) -> None:
    t.seats[1].tokens = 1


def _farmer_and_skilled(t: Table) -> None:
    t.seats[1].kingdom = ["start-farmer.1", "skilled-farmer.1", "trader.3"]


def _besella(t: Table) -> None:
    t.seats[1].ruler = BESELLA


def bid(card: str = "common-merchant.6", silver: object = 1, **rest: Any) -> dict[str, Any]:
    return {"action": "bid", "card": card, "silver": silver, **rest}


TRADE = {"give": "grain", "count": 1}
HIRE: list[tuple[str, object, str, Tweak | None]] = [
    ("an order not an object", [], "order/not_object", None),
    (
        "a key of the economy step",
        {"action": "pass", "decision": "grain"},
        "order/wrong_step",
        None,
    ),
    ("a key of an attack turn", {"action": "pass", "pickpocket": None}, "order/wrong_step", None),
    ("a key of no order", {"action": "pass", "seat": 1}, "order/unknown_key", None),
    ("no action", {}, "order/missing_key", None),
    ("a null action", {"action": None}, "order/missing_key", None),
    ("an action in capitals", {"action": "Pass"}, "hire/bad_action", None),
    ("an unknown action", {"action": "steal"}, "hire/bad_action", None),
    ("a pass naming a card", {"action": "pass", "card": "seer.1"}, "order/extra_key", None),
    (
        "a take with silver",
        {"action": "take", "card": "chysarion-grain-3.2", "silver": 1},
        "order/extra_key",
        None,
    ),
    (
        "a claim with silver",
        {"action": "claim", "card": "seer.1", "silver": 1},
        "order/extra_key",
        None,
    ),
    ("a bid without silver", {"action": "bid", "card": "seer.1"}, "order/missing_key", None),
    ("a bid with null silver", bid(silver=None), "order/missing_key", None),
    ("a take without card", {"action": "take"}, "order/missing_key", None),
    ("a trade not an object", bid(trade=[1]), "trade/bad", None),
    ("a trade of gold", bid(trade={"give": "gold", "count": 1}), "trade/bad", None),
    ("a trade of 4", bid(trade={"give": "grain", "count": 4}), "trade/bad", None),
    ("a trade of 0", bid(trade={"give": "grain", "count": 0}), "trade/bad", None),
    ("a trade without count", bid(trade={"give": "grain"}), "trade/bad", None),
    ("a hire trade with at", bid(trade={**TRADE, "at": "payment"}), "trade/bad", None),
    ("a trade without a Trader", bid(trade=TRADE), "trade/no_trader", _no_trader),
    ("a second trade this season", bid(trade=TRADE), "trade/used", _traded),
    (
        "a trade of 3 grain from 2",
        bid(trade={"give": "grain", "count": 3}),
        "trade/not_enough",
        None,
    ),
    ("an unknown card", bid("common-farmer.99"), "hire/unknown_card", None),
    ("a card not a string", bid(7), "hire/unknown_card", None),
    ("a starting farmer of no seat", bid("start-farmer.4"), "hire/unknown_card", None),
    ("the burned card", bid("common-merchant.7"), "hire/not_on_board", None),
    ("a card of another Year", bid("common-farmer.1"), "hire/not_on_board", None),
    ("a starting farmer", bid("start-farmer.2"), "hire/not_on_board", None),
    ("a Famine", bid("famine.2"), "hire/famine", None),
    (
        "a taken wizard",
        {"action": "take", "card": "evrathor-grain-2.1"},
        "hire/already_taken",
        None,
    ),
    ("a take of a worker", {"action": "take", "card": "seer.1"}, "hire/not_a_wizard", None),
    ("a bid on a wizard", bid("chysarion-grain-3.2"), "hire/not_a_worker", None),
    (
        "a claim of a wizard",
        {"action": "claim", "card": "chysarion-grain-3.2"},
        "hire/not_a_worker",
        None,
    ),
    ("a claim by Arup/Avintia", {"action": "claim", "card": "seer.1"}, "hire/not_elban", _arup),
    (
        "a claim without a token",
        {"action": "claim", "card": "seer.1"},
        "hire/no_tokens",
        _no_tokens,
    ),
    ("silver as text", bid(silver="1"), "order/bad_value", None),
    ("silver not whole", bid(silver=1.5), "order/bad_value", None),
    ("silver true", bid(silver=True), "order/bad_value", None),
    ("a bid of 0", bid(silver=0), "hire/bid_too_low", None),
    ("a bid below 0", bid(silver=-1), "hire/bid_too_low", None),
    ("a tie with the standing bid", bid("common-farmer.6", 2), "hire/bid_too_low", None),
    ("a bid above the silver", bid(silver=4), "hire/not_enough_silver", None),
    (
        "a bid above the silver after a trade",
        bid(silver=5, trade=TRADE),
        "hire/not_enough_silver",
        None,
    ),
    ("a sixth card", bid(), "hire/kingdom_full", _full),
    ("a third farmer", bid("common-farmer.6", 3), "hire/kingdom_limit", _two_farmers),
    (
        "a second skilled farmer's limit",
        bid("skilled-farmer.3", discard="trader.3"),
        "hire/kingdom_limit",
        _two_farmers,
    ),
    ("a discard of no card", bid(discard="steward.99"), "hire/unknown_card", _full),
    ("a discard of the new card", bid(discard="common-merchant.6"), "hire/discard_new_card", _full),
    (
        "a discard not in the Kingdom",
        bid(discard="steward.2"),
        "hire/discard_not_in_kingdom",
        _full,
    ),
    ("a discard not needed", bid(discard="trader.3"), "hire/discard_not_needed", None),
    (
        "a discard leaving a farmer too many",
        bid("common-farmer.6", 3, discard="trader.3"),
        "hire/kingdom_limit",
        _two_farmers,
    ),
    ("a guard of another ruler", bid(guard={}), "guard/not_besella", None),
    ("a guard not an object", bid(guard=[1, 0]), "guard/bad", _besella),
    ("a guard of gold", bid(guard={"gold": 1}), "guard/bad", _besella),
    ("a guard below 0", bid(guard={"grain": -1}), "guard/bad", _besella),
    ("a guard as text", bid(guard={"grain": "1"}), "guard/bad", _besella),
    ("a guard of 4", bid(guard={"grain": 2, "silver": 2}), "guard/too_many", _besella),
    ("a guard of silver spent", bid(silver=2, guard={"silver": 2}), "guard/not_enough", _besella),
]


@pytest.mark.parametrize(("what", "order", "code", "tweak"), HIRE, ids=[c[0] for c in HIRE])
def test_hire_refusal(what: str, order: object, code: str, tweak: Tweak | None) -> None:
    t = hire_table()
    if tweak is not None:
        tweak(t)
    assert codes(t, order) == [code]
    SEEN.add(code)


HIRE_ACCEPTED: list[tuple[str, dict[str, Any], Tweak | None]] = [
    ("a bid of 1 on a worker without a bid", bid(), None),
    ("a bid of the standing bid + 1", bid("common-farmer.6", 3), None),
    ("a bid of all the silver", bid(silver=3), None),
    ("a bid paid by a trade", bid(silver=5, trade={"give": "grain", "count": 2}), None),
    ("a trade of all the grain", {"action": "pass", "trade": {"give": "grain", "count": 2}}, None),
    ("a take", {"action": "take", "card": "chysarion-grain-3.2"}, None),
    ("a claim with the last token", {"action": "claim", "card": "common-farmer.6"}, _one_token),
    ("a discard making room", bid(discard="steward.1"), _full),
    (
        "a discard making room under a limit",
        bid("skilled-farmer.3", discard="skilled-farmer.1"),
        _farmer_and_skilled,
    ),
    ("a card id in any case", bid(" Common-Merchant.6 "), None),
    ("a guard of 3", {"action": "pass", "guard": {"grain": 2, "silver": 1}}, _besella),
    ("an empty guard", {"action": "pass", "guard": {}}, _besella),
    (
        "null keys it does not use",
        {"action": "pass", "card": None, "silver": None, "discard": None},
        None,
    ),
]


@pytest.mark.parametrize(
    ("what", "order", "tweak"), HIRE_ACCEPTED, ids=[c[0] for c in HIRE_ACCEPTED]
)
def test_hire_accepted(what: str, order: dict[str, Any], tweak: Tweak | None) -> None:
    t = hire_table()
    if tweak is not None:
        tweak(t)
    assert codes(t, order) == []


def test_a_bid_takes_the_silver_and_gives_the_outbid_seat_its_own_back() -> None:
    t, record = after(hire_table(), bid("common-farmer.6", 4, trade=TRADE))
    assert t.seats[1].silver == 0 and t.seats[1].grain == 1 and t.seats[1].traded
    assert t.seats[2].silver == 3  # 1 + its bid of 2 back
    assert t.hire is not None and t.hire.status(2) == "free" and t.hire.status(1) == "waiting"
    assert record == {
        "seat": 1,
        "action": "bid",
        "card": "common-farmer.6",
        "silver": 4,
        "discard": None,
        "trade": {"give": "grain", "count": 1},
        "guard": None,
        "auto": False,
    }


def test_a_claim_spends_a_token_and_nobody_can_outbid_it() -> None:
    t, record = after(hire_table(), {"action": "claim", "card": "common-farmer.6"})
    assert t.seats[1].tokens == 2 and t.seats[2].silver == 3
    assert t.hire is not None and t.hire.taken("common-farmer.6") and t.hire.status(1) == "out"
    assert record["card"] == "common-farmer.6" and record["silver"] is None
    t.next = t.next and type(t.next)(8, 5, "hire", (2,))
    assert codes(t, bid("common-farmer.6", 3), seat=2) == ["hire/already_taken"]


def test_cotarr_takes_2_silver_on_each_pass() -> None:
    t = hire_table()
    t.seats[1].ruler = COTARR
    t, _ = after(t, {"action": "pass"})
    assert t.seats[1].silver == 5


def test_a_guard_is_set_at_the_end_and_spending_takes_from_it_last() -> None:
    t = hire_table()
    t.seats[1].ruler = BESELLA
    t.seats[1].guard_silver = 2
    t, record = after(t, bid(silver=2, guard={"grain": 1}))
    assert (t.seats[1].guard_grain, t.seats[1].guard_silver) == (1, 0)
    assert record["guard"] == {"grain": 1, "silver": 0}
    t = hire_table()
    t.seats[1].ruler = BESELLA
    t.seats[1].guard_silver = 2
    t, _ = after(t, bid(silver=2))
    assert (t.seats[1].silver, t.seats[1].guard_silver) == (1, 1)  # the board ran out first


def test_felarren_holds_six_cards() -> None:
    t = hire_table()
    _full(t)
    t.seats[1].ruler = FELARREN
    assert codes(t, bid()) == []
    assert codes(t, bid(discard="steward.1")) == ["hire/discard_not_needed"]


# ---- an attack turn ----------------------------------------------------------------------


def attack_table() -> Table:
    """Seat 1 (a Pickpocket and four Evrathors) acts; seat 2 has 3 grain and
    3 silver, 4 stored; seat 3 is Arup/Avintia; seat 4 holds a Seer and a
    Pickpocket; seat 5 is Besella/Baroso guarding 1 grain of 2 and 2 silver of 3."""
    t = make(
        "attack",
        {1: FELARREN, 2: COTARR, 3: ARUP, 4: DIVINA, 5: BESELLA},
        {
            1: [
                "start-farmer.1",
                "pickpocket.1",
                "evrathor-grain-2.1",
                "evrathor-silver-2.1",
                "evrathor-stored-2.1",
                "evrathor-silver-3.1",
            ],
            2: ["start-farmer.2"],
            3: ["start-farmer.3"],
            4: ["start-farmer.4", "seer.1", "pickpocket.2"],
            5: ["start-farmer.5"],
        },
        grain={2: 3, 3: 3, 4: 3, 5: 2},
        silver={2: 3, 3: 3, 4: 3, 5: 3},
        season=9,
    )
    t.seats[2].stored = 4
    t.seats[5].guard_grain, t.seats[5].guard_silver = 1, 2
    return t


def _no_pickpocket(t: Table) -> None:
    t.seats[1].kingdom.remove("pickpocket.1")


def ev(card: str, taken: object = None, **rest: Any) -> dict[str, Any]:
    use: dict[str, Any] = {"card": card, **rest}
    if taken is not None:
        use["from"] = taken
    return {"evrathor": [use]}


ATTACK: list[tuple[str, object, str, Tweak | None]] = [
    ("a key of a hire turn", {"action": "pass"}, "order/wrong_step", None),
    ("a key of no order", {"steal": 1}, "order/unknown_key", None),
    ("an attack trade with at", {"trade": {**TRADE, "at": "payment"}}, "trade/bad", None),
    ("a trade without a Trader", {"trade": TRADE}, "trade/no_trader", None),
    ("a Pickpocket not held", {"pickpocket": []}, "attack/no_pickpocket", _no_pickpocket),
    ("targets not a list", {"pickpocket": 2}, "attack/bad_target", None),
    ("three targets", {"pickpocket": [2, 3, 5]}, "attack/bad_target", None),
    ("a target as text", {"pickpocket": ["2"]}, "attack/bad_target", None),
    ("a target twice", {"pickpocket": [2, 2]}, "attack/repeated_target", None),
    ("itself as a target", {"pickpocket": [1]}, "attack/bad_target", None),
    ("a target of no seat", {"pickpocket": [6]}, "attack/bad_target", None),
    ("Arup/Avintia", {"pickpocket": [3]}, "attack/target_immune", None),
    ("a Pickpocket's holder", {"pickpocket": [4]}, "attack/target_immune", None),
    ("1 unguarded silver", {"pickpocket": [5]}, "attack/target_immune", None),
    ("evrathor not a list", {"evrathor": {}}, "order/bad_value", None),
    ("a use not an object", {"evrathor": ["evrathor-grain-2.1"]}, "order/bad_value", None),
    ("a use without card", {"evrathor": [{"from": {}}]}, "order/bad_value", None),
    ("a use with another key", ev("evrathor-grain-2.1", amount=2), "order/bad_value", None),
    ("a use of no card", ev("evrathor-grain-9.1"), "attack/unknown_card", None),
    ("an Evrathor not held", ev("evrathor-grain-3.1"), "attack/no_evrathor", None),
    ("a Pickpocket as an Evrathor", ev("pickpocket.1"), "attack/no_evrathor", None),
    (
        "an Evrathor used twice",
        {"evrathor": [{"card": "evrathor-grain-2.1"}] * 2},
        "attack/repeated_card",
        None,
    ),
    ("from a list", ev("evrathor-grain-2.1", [2]), "attack/bad_target", None),
    ("an amount of 0", ev("evrathor-grain-2.1", {"2": 0}), "attack/bad_target", None),
    ("an amount as text", ev("evrathor-grain-2.1", {"2": "1"}), "attack/bad_target", None),
    ("from itself", ev("evrathor-grain-2.1", {"1": 1}), "attack/bad_target", None),
    ("from no seat", ev("evrathor-grain-2.1", {"02": 1}), "attack/bad_target", None),
    ("from a Seer's holder", ev("evrathor-grain-2.1", {"4": 1}), "attack/target_immune", None),
    ("silver from Arup/Avintia", ev("evrathor-silver-3.1", {"3": 1}), "attack/target_immune", None),
    ("more than the amount", ev("evrathor-grain-2.1", {"2": 2, "3": 1}), "attack/too_many", None),
    ("a none split from two", ev("evrathor-stored-2.1", {"2": 1, "3": 1}), "attack/split", None),
    ("a must split over half", ev("evrathor-silver-2.1", {"2": 2}), "attack/split", None),
    ("more grain than unguarded", ev("evrathor-grain-2.1", {"5": 2}), "attack/not_enough", None),
    ("a guard of another ruler", {"guard": {"grain": 0}}, "guard/not_besella", None),
]


@pytest.mark.parametrize(("what", "order", "code", "tweak"), ATTACK, ids=[c[0] for c in ATTACK])
def test_attack_refusal(what: str, order: object, code: str, tweak: Tweak | None) -> None:
    t = attack_table()
    if tweak is not None:
        tweak(t)
    assert codes(t, order) == [code]
    SEEN.add(code)


def test_the_pickpocket_takes_from_its_targets_and_the_stock() -> None:
    t, record = after(attack_table(), {"pickpocket": [2]})
    assert t.seats[1].silver == 5 and t.seats[2].silver == 2
    assert record["pickpocket"] == {"from": [2], "stock": 1}
    assert after(attack_table(), {"pickpocket": []})[1]["pickpocket"] == {"from": [], "stock": 2}
    t, _ = after(attack_table(), {"pickpocket": None})
    assert t.seats[1].silver == 3  # null: the Pickpocket is not used


def test_an_earlier_part_lowers_what_a_later_one_may_take() -> None:
    """The Pickpocket's silver, then an Evrathor's, from seat 2 (3 silver)."""
    order = {"pickpocket": [2], **ev("evrathor-silver-3.1", {"2": 3})}
    assert codes(attack_table(), order) == ["attack/not_enough"]
    order = {"pickpocket": [2], **ev("evrathor-silver-3.1", {"2": 2})}
    assert codes(attack_table(), order) == []


def test_evrathors_are_used_in_order_and_discarded() -> None:
    order = {
        "evrathor": [
            {"card": "evrathor-silver-2.1", "from": {"2": 1, "5": 1}},
            {"card": "evrathor-grain-2.1", "from": {"2": 2}},
            {"card": "evrathor-stored-2.1", "from": None},
        ]
    }
    t, record = after(attack_table(), order)
    assert t.seats[1].kingdom == ["start-farmer.1", "pickpocket.1", "evrathor-silver-3.1"]
    assert (t.seats[1].grain, t.seats[1].silver, t.seats[1].stored) == (4, 5, 2)
    assert (t.seats[2].grain, t.seats[2].silver, t.seats[5].silver) == (1, 2, 2)
    assert [u["stock"] for u in record["evrathor"]] == [0, 0, 2]
    assert record["evrathor"][0]["from"] == record["evrathor"][0]["taken"] == {"2": 1, "5": 1}


def test_a_storage_theft_takes_what_there_is_and_the_stock_gives_the_rest() -> None:
    t = attack_table()
    t.seats[2].stored = 1
    t, record = after(t, ev("evrathor-stored-2.1", {"2": 2}))
    assert t.seats[1].stored == 2 and t.seats[2].stored == 0
    assert record["evrathor"] == [
        {"card": "evrathor-stored-2.1", "from": {"2": 2}, "stock": 0, "taken": {"2": 1}}
    ]


def test_a_must_split_need_not_name_two() -> None:
    assert codes(attack_table(), ev("evrathor-silver-2.1", {"2": 1})) == []
    assert codes(attack_table(), ev("evrathor-silver-2.1", {})) == []


def test_an_empty_attack_order_does_nothing() -> None:
    t, record = after(attack_table(), {})
    assert record == {
        "seat": 1,
        "trade": None,
        "pickpocket": None,
        "evrathor": [],
        "guard": None,
    }
    assert t.seats == attack_table().seats


def test_grain_and_silver_thefts_take_only_unguarded_ones() -> None:
    assert codes(attack_table(), ev("evrathor-grain-2.1", {"5": 2})) == ["attack/not_enough"]
    assert codes(attack_table(), ev("evrathor-silver-3.1", {"5": 1})) == []
    assert codes(attack_table(), ev("evrathor-silver-3.1", {"5": 2})) == ["attack/not_enough"]


# ---- an economy step ---------------------------------------------------------------------


def economy_table() -> Table:
    """Every seat acts; seat 1 holds its farmer, a skilled farmer, a merchant,
    a jester, a Philosopher and a Chysarion, with 2 grain and 3 silver."""
    t = make(
        "economy",
        {1: FELARREN, 2: BESELLA, 3: COTARR},
        {
            1: [
                "start-farmer.1",
                "skilled-farmer.3",
                "common-merchant.6",
                "common-jester.4",
                "philosopher.3",
                "chysarion-grain-3.2",
            ],
            2: ["start-farmer.2"],
            3: ["start-farmer.3"],
        },
        acting=(1, 2, 3),
    )
    return t


def _no_philosopher(t: Table) -> None:
    t.seats[1].kingdom.remove("philosopher.3")


def _a_trader(t: Table) -> None:
    t.seats[1].kingdom[4] = "trader.3"


def _no_silver(t: Table) -> None:
    t.seats[1].silver = 0


def _one_grain(t: Table) -> None:
    t.seats[1].grain = 1


def _no_silver_to_come(t: Table) -> None:
    """No silver, and no jester to earn one."""
    t.seats[1].silver = 0
    t.seats[1].kingdom.remove("common-jester.4")


def eco(decision: object = "grain", **rest: Any) -> dict[str, Any]:
    return {"decision": decision, **rest}


ECONOMY: list[tuple[str, object, str, Tweak | None]] = [
    ("no decision", {}, "order/missing_key", None),
    ("a null decision", eco(None), "order/missing_key", None),
    ("a key of a hire turn", eco(card="seer.1"), "order/wrong_step", None),
    ("a key of no order", eco(note="x"), "order/unknown_key", None),
    ("a trade at a later time", eco(trade={**TRADE, "at": "later"}), "trade/bad", _a_trader),
    (
        "a trade at payment not affordable",
        eco(trade={"give": "grain", "count": 3}),
        "trade/not_enough",
        _a_trader,
    ),
    ("pay not a list", eco(pay="start-farmer.1"), "order/bad_value", None),
    ("pay of no card", eco(pay=["start-farmer.9"]), "pay/unknown_card", None),
    ("pay of another seat's card", eco(pay=["start-farmer.2"]), "pay/not_in_kingdom", None),
    ("pay for a jester", eco(pay=["common-jester.4"]), "pay/no_payment", None),
    ("pay for a Philosopher", eco(pay=["philosopher.3"]), "pay/no_payment", None),
    ("pay for a wizard", eco(pay=["chysarion-grain-3.2"]), "pay/no_payment", None),
    ("pay twice", eco(pay=["start-farmer.1", "START-FARMER.1"]), "pay/repeated", None),
    ("a double of no card", eco(pay=["start-farmer.1"], double="x.1"), "double/unknown_card", None),
    (
        "a double without a Philosopher",
        eco(pay=["start-farmer.1"], double="start-farmer.1"),
        "double/no_philosopher",
        _no_philosopher,
    ),
    (
        "a double not paid",
        eco(pay=["common-merchant.6"], double="start-farmer.1"),
        "double/not_paid",
        None,
    ),
    (
        "a double of a skilled farmer",
        eco(pay=["skilled-farmer.3"], double="skilled-farmer.3"),
        "double/not_common",
        None,
    ),
    (
        "payments above the grain",
        eco(pay=["common-merchant.6"], double="common-merchant.6"),
        "pay/not_enough",
        _one_grain,
    ),
    (
        "payments above the silver",
        eco(pay=["start-farmer.1", "skilled-farmer.3"]),
        "pay/not_enough",
        _no_silver,
    ),
    ("chysarion not a list", eco(chysarion="chysarion-grain-3.2"), "order/bad_value", None),
    (
        "a Chysarion of no card",
        eco(chysarion=["chysarion-gold-3.1"]),
        "chysarion/unknown_card",
        None,
    ),
    ("a Chysarion not held", eco(chysarion=["chysarion-grain-3.1"]), "chysarion/not_held", None),
    ("a worker as a Chysarion", eco(chysarion=["philosopher.3"]), "chysarion/not_held", None),
    ("a Chysarion twice", eco(chysarion=["chysarion-grain-3.2"] * 2), "chysarion/repeated", None),
    (
        "a trade at decision not affordable",
        eco(
            trade={"give": "silver", "count": 3, "at": "decision"},
            pay=["start-farmer.1", "skilled-farmer.3"],
        ),
        "trade/not_enough",
        _a_trader,
    ),
    ("a decision in capitals", eco("Grain"), "decision/bad", None),
    ("an unknown decision", eco("wait"), "decision/bad", None),
    ("a store without store", eco("store"), "store/bad", None),
    ("a store of 0", eco("store", store=0), "store/bad", None),
    ("a store as text", eco("store", store="1"), "store/bad", None),
    (
        "a store without silver",
        eco("store", store=1),
        "store/not_enough_silver",
        _no_silver_to_come,
    ),
    ("a store of more grain than held", eco("store", store=3), "store/not_enough_grain", None),
    ("a store with another decision", eco("grain", store=1), "order/extra_key", None),
    ("a guard of another ruler", eco(guard={"grain": 0, "silver": 0}), "guard/not_besella", None),
]


@pytest.mark.parametrize(("what", "order", "code", "tweak"), ECONOMY, ids=[c[0] for c in ECONOMY])
def test_economy_refusal(what: str, order: object, code: str, tweak: Tweak | None) -> None:
    t = economy_table()
    if tweak is not None:
        tweak(t)
    assert codes(t, order) == [code]
    SEEN.add(code)


def test_an_economy_record() -> None:
    order = eco(
        "store",
        store=8,
        pay=["start-farmer.1", "skilled-farmer.3", "common-merchant.6"],
        double="common-merchant.6",
        chysarion=["chysarion-grain-3.2"],
    )
    t, record = after(economy_table(), order)
    # pay 2 silver and 2 grain (0 grain, 1 silver); earn 2 + 3 grain and
    # 2 x 2 + 1 silver (5 grain, 6 silver); the Chysarion: 8 grain; store 8
    assert (t.seats[1].grain, t.seats[1].silver, t.seats[1].stored) == (0, 5, 8)
    assert "chysarion-grain-3.2" not in t.seats[1].kingdom
    assert record == {
        "trade": None,
        "paid": ["start-farmer.1", "skilled-farmer.3", "common-merchant.6"],
        "double": "common-merchant.6",
        "rewards": {"grain": 5, "silver": 5, "stored": 0},
        "chysarion": ["chysarion-grain-3.2"],
        "decision": "store",
        "store": 8,
        "guard": None,
    }


def test_economy_boundaries_accepted() -> None:
    t = economy_table()
    assert codes(t, eco("store", store=2)) == []  # all the grain, 1 of 3 silver
    t.seats[1].silver = 1
    assert codes(t, eco("store", store=2)) == []  # the last silver
    assert codes(t, eco(pay=["start-farmer.1"])) == []  # the last silver on a payment
    assert codes(t, eco(pay=["common-merchant.6"], double="common-merchant.6")) == []
    _a_trader(t)
    trade = {"give": "silver", "count": 3, "at": "decision"}
    assert codes(t, eco(trade=trade, pay=["common-merchant.6"])) == []  # 3 silver by then
    assert codes(t, eco(trade={"give": "grain", "count": 2})) == []  # at: payment
    assert codes(t, eco(store=None, pay=None, double=None, chysarion=None, trade=None)) == []


def test_a_trade_at_payment_pays_and_the_record_says_at() -> None:
    t = economy_table()
    _a_trader(t)
    t.seats[1].silver = 0
    order = eco(trade={"give": "grain", "count": 1}, pay=["start-farmer.1"])
    t, record = after(t, order)
    assert record["trade"] == {"give": "grain", "count": 1, "at": "payment"}
    # grain 2 - 1 + 2 (the farmer) + 1 (the decision); silver 0 + 1 - 1 + 1 (the jester)
    assert (t.seats[1].grain, t.seats[1].silver) == (4, 1)


def test_every_worker_needing_no_payment_earns_anyway() -> None:
    t, record = after(economy_table(), eco("silver"))
    assert record["rewards"] == {"grain": 0, "silver": 1, "stored": 0}  # the jester
    assert t.seats[1].silver == 5


def test_each_seat_of_an_economy_step_is_checked() -> None:
    """Seat 2's order is checked against seat 2's Kingdom, not seat 1's."""
    t = economy_table()
    assert codes(t, eco(pay=["start-farmer.2"]), seat=2) == []
    assert codes(t, eco(pay=["start-farmer.1"]), seat=2) == ["pay/not_in_kingdom"]
    assert codes(t, eco(guard={"grain": 2, "silver": 1}), seat=2) == []
    assert codes(t, eco("silver", guard={"grain": 3}), seat=2) == ["guard/not_enough"]


def test_not_acting() -> None:
    t = hire_table()
    assert codes(t, {"action": "pass"}, seat=2) == ["step/not_acting"]
    SEEN.add("step/not_acting")


def test_every_refusal_code_is_pinned() -> None:
    """Runs after the cases above: each code of REFUSAL_CODES has a case that
    only it refuses."""
    if len(SEEN) < 50:
        pytest.skip("run with the whole module")
    assert sorted(REFUSAL_CODES - SEEN) == []


def test_check_order_leaves_the_table_as_it_was() -> None:
    t = hire_table()
    check_order(t, 1, bid("common-farmer.6", 3))
    assert t.seats[2].silver == 1 and t.hire is not None and 1 not in t.hire.got
