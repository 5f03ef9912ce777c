"""Orders the host enters in the first step of a match, checked without the
seed (docs/adding-a-game.md, "Orders the host enters"; FF20, FF21).

Before the first step closes, the host's view is the public one, and all of
it that the rules draw from the seed (the rulers dealt, season 1's board,
its Famines and automatic passes) is public but seeded: answering an
entered order from it would make the host's answers follow the seed, which
the conformance suite forbids for every game. So a first-step order is
checked here for what holds whatever the seed: its keys, its action or
decision, the shape of each part, and that each card id is a card of the
match's deck (the deck is the set-up's, public and drawn by nothing). Each
refusal here is one the rules would give too (the code of the first check
the order fails where it could differ, as every check here fails in every
state); the rest is checked by the rules when the step closes. From the
second step on, the host sees every closed step in full and the adapter
checks an entered order against the table of its own view, with every rule.

Pure: no Flask, SQL or click imports.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from referee.players import is_int

from .cards import Deck
from .legal import MAX_PICKPOCKET_TARGETS, MAX_TRADE
from .orders import ACTION_KEYS, ACTIONS, DECISIONS, TRADE_AT, check_keys, refuse
from .state import GUARD_MAX


def _card(deck: Deck, seats: int, raw: object, code: str, where: str) -> None:
    if deck.read(raw, seats) is None:
        refuse(code, f"{where}: {str(raw)[:60]!r} is no card of this match", where)


def _trade(raw: object, *, economy: bool) -> None:
    """FF16's shape (``trade/bad``); whether the seat may trade is the rules'."""
    if raw is None:
        return
    keys = {"give", "count", "at"} if economy else {"give", "count"}
    ok = (
        isinstance(raw, Mapping)
        and set(map(str, raw)) <= keys
        and raw.get("give") in ("grain", "silver")
        and is_int(raw.get("count"))
        and 1 <= raw["count"] <= MAX_TRADE
        and raw.get("at") in (None, *TRADE_AT)
    )
    if not ok:
        refuse("trade/bad", 'a trade is {"give": "grain"|"silver", "count": 1-3}', "trade")


def _guard(raw: object) -> None:
    """FF15's shape (``guard/bad``, ``guard/too_many``); the seat's ruler and
    what it holds are the rules'."""
    if raw is None:
        return
    if not isinstance(raw, Mapping) or not set(map(str, raw)) <= {"grain", "silver"}:
        refuse("guard/bad", 'a guard is {"grain": G, "silver": S}', "guard")
    values = [raw.get("grain", 0), raw.get("silver", 0)]
    if not all(is_int(v) and v >= 0 for v in values):
        refuse("guard/bad", "a guard's grain and silver are whole numbers 0 or more", "guard")
    if sum(values) > GUARD_MAX:
        refuse("guard/too_many", f"the guard holds at most {GUARD_MAX} resources", "guard")


def _hire(order: Mapping[str, Any], deck: Deck, seats: int) -> None:
    action = order.get("action")
    if action is None:
        refuse("order/missing_key", "a hire order needs 'action' (bid, take, claim or pass)")
    if not isinstance(action, str) or action not in ACTIONS:
        refuse("hire/bad_action", "'action' is bid, take, claim or pass (lowercase)", "action")
    used = ACTION_KEYS[action]
    for key in ("card", "silver", "discard"):
        if order.get(key) is not None and key not in used:
            refuse("order/extra_key", f"a {action} has no {key!r}", key)
    for key in ("card", "silver") if action == "bid" else ("card",) if used else ():
        if order.get(key) is None:
            refuse("order/missing_key", f"a {action} needs {key!r}", key)
    _trade(order.get("trade"), economy=False)
    if action != "pass":
        _card(deck, seats, order.get("card"), "hire/unknown_card", "card")
        if action == "bid" and not is_int(order.get("silver")):
            refuse("order/bad_value", "a bid's silver is a whole number", "silver")
        if order.get("discard") is not None:
            _card(deck, seats, order.get("discard"), "hire/unknown_card", "discard")
    _guard(order.get("guard"))


def _attack(order: Mapping[str, Any], deck: Deck, seats: int) -> None:
    _trade(order.get("trade"), economy=False)
    targets = order.get("pickpocket")
    if targets is not None and (
        not isinstance(targets, list)
        or len(targets) > MAX_PICKPOCKET_TARGETS
        or not all(is_int(t) for t in targets)
    ):
        refuse("attack/bad_target", "'pickpocket' is a list of at most 2 seats", "pickpocket")
    uses = order.get("evrathor")
    if uses is not None:
        if not isinstance(uses, list):
            refuse("order/bad_value", "'evrathor' is a list of uses", "evrathor")
        for i, use in enumerate(uses):
            where = f"evrathor[{i}]"
            if (
                not isinstance(use, Mapping)
                or "card" not in use
                or not set(use) <= {"card", "from"}
            ):
                refuse("order/bad_value", f'{where} must be {{"card": ID, "from": {{...}}}}', where)
            _card(deck, seats, use["card"], "attack/unknown_card", where)
            asked = use.get("from")
            if asked is not None and (
                not isinstance(asked, Mapping)
                or not all(is_int(v) and v >= 1 for v in asked.values())
            ):
                refuse("attack/bad_target", f"{where}: 'from' maps seats to amounts", where)
    _guard(order.get("guard"))


def _cards(raw: object, deck: Deck, seats: int, key: str, code: str) -> None:
    if raw is None:
        return
    if not isinstance(raw, list):
        refuse("order/bad_value", f"{key!r} is a list of card ids", key)
    for item in raw:
        _card(deck, seats, item, code, key)


def _economy(order: Mapping[str, Any], deck: Deck, seats: int) -> None:
    if order.get("decision") is None:
        refuse("order/missing_key", "an economy order needs 'decision' (grain, silver or store)")
    _trade(order.get("trade"), economy=True)
    _cards(order.get("pay"), deck, seats, "pay", "pay/unknown_card")
    if order.get("double") is not None:
        _card(deck, seats, order["double"], "double/unknown_card", "double")
    _cards(order.get("chysarion"), deck, seats, "chysarion", "chysarion/unknown_card")
    decision = order["decision"]
    if not isinstance(decision, str) or decision not in DECISIONS:
        refuse("decision/bad", "'decision' is grain, silver or store (lowercase)", "decision")
    store = order.get("store")
    if decision == "store" and not (is_int(store) and store >= 1):
        refuse("store/bad", "'store' is the grain to store, 1 or more", "store")
    if decision != "store" and store is not None:
        refuse("order/extra_key", f"'store' goes only with the decision store, not {decision}")
    _guard(order.get("guard"))


def check_unseeded(phase: str, order: object, deck: Deck, seats: int) -> None:
    """What of ``order`` (a ``phase`` order) holds whatever the seed (see the
    module's text); a RuleError when it does not."""
    if not isinstance(order, Mapping):
        refuse("order/not_object", "an order must be an object")
    check_keys(order, phase)
    if phase == "hire":
        _hire(order, deck, seats)
    elif phase == "attack":
        _attack(order, deck, seats)
    else:
        _economy(order, deck, seats)
