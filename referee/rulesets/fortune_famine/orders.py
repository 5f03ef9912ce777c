"""FF7, FF10-FF18: one seat's order in a step, checked as it is carried out
(docs/contracts/fortune-famine/FORMAT.md, "Refusals"), and closing a step.

- :func:`hire_order` (FF10-FF12), :func:`attack_order` (FF13-FF14) and
  :func:`economy_order` (FF16-FF18) carry out one seat's order on a table
  in place, each part checked against the state the parts before it left;
  a refused order raises one :class:`RuleError` with the code of the first
  check it fails.
- :func:`check_order` checks one order on a copy (the live service's check
  of a sent order) and returns its normalised record.
- :func:`close_step` closes the open step with the acting seats' orders
  (None: FF7's default) and moves the match on (:mod:`.flow`).

Pure: no Flask, SQL or click imports.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NoReturn

from referee.errors import Problem, RuleError
from referee.players import is_int

from .flow import do_pass, hire_turn_json, step_closed
from .legal import (
    MAX_PICKPOCKET_TARGETS,
    MAX_TRADE,
    PICKPOCKET_SILVER,
    can_claim,
    evrathor_immune,
    fits,
    kingdom_size,
    lowest_bid,
    pickpocket_immune,
)
from .state import BESELLA, ELBAN, GUARD_MAX, Got, Resource, Table

HIRE_KEYS = ("action", "card", "silver", "discard", "trade", "guard")
ATTACK_KEYS = ("pickpocket", "evrathor", "trade", "guard")
ECONOMY_KEYS = ("trade", "pay", "double", "chysarion", "decision", "store", "guard")
KEYS = {"hire": HIRE_KEYS, "attack": ATTACK_KEYS, "economy": ECONOMY_KEYS}
ALL_KEYS = frozenset(HIRE_KEYS + ATTACK_KEYS + ECONOMY_KEYS)
ACTIONS = ("bid", "take", "claim", "pass")
ACTION_KEYS = {  # FF10: the keys each action uses besides action, trade, guard
    "bid": ("card", "silver", "discard"),
    "take": ("card", "discard"),
    "claim": ("card", "discard"),
    "pass": (),
}
DECISIONS = ("grain", "silver", "store")
TRADE_AT = ("payment", "decision")
DEFAULTS: dict[str, dict[str, Any]] = {  # FF7
    "hire": {"action": "pass"},
    "attack": {},
    "economy": {"decision": "grain"},
}

# every code an order can be refused with (docs/contracts/fortune-famine/FORMAT.md)
REFUSAL_CODES: frozenset[str] = frozenset(
    {
        "step/not_acting",
        "order/not_object",
        "order/missing_key",
        "order/extra_key",
        "order/wrong_step",
        "order/unknown_key",
        "order/bad_value",
        *(f"trade/{c}" for c in ("bad", "no_trader", "used", "not_enough")),
        *(f"guard/{c}" for c in ("not_besella", "bad", "too_many", "not_enough")),
        *(
            f"hire/{c}"
            for c in (
                "bad_action",
                "unknown_card",
                "not_on_board",
                "famine",
                "already_taken",
                "not_a_wizard",
                "not_a_worker",
                "not_elban",
                "no_tokens",
                "bid_too_low",
                "not_enough_silver",
                "kingdom_full",
                "kingdom_limit",
                "discard_new_card",
                "discard_not_in_kingdom",
                "discard_not_needed",
            )
        ),
        *(
            f"attack/{c}"
            for c in (
                "no_pickpocket",
                "bad_target",
                "repeated_target",
                "target_immune",
                "unknown_card",
                "no_evrathor",
                "repeated_card",
                "too_many",
                "split",
                "not_enough",
            )
        ),
        *(f"pay/{c}" for c in ("unknown_card", "not_in_kingdom", "no_payment", "repeated")),
        "pay/not_enough",
        *(f"double/{c}" for c in ("unknown_card", "no_philosopher", "not_paid", "not_common")),
        *(f"chysarion/{c}" for c in ("unknown_card", "not_held", "repeated")),
        "decision/bad",
        *(f"store/{c}" for c in ("bad", "not_enough_silver", "not_enough_grain")),
    }
)


def refuse(code: str, message: str, where: str | None = None) -> NoReturn:
    raise RuleError.single(code, message, where)


def _shown(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:60] + "..."


def _other(resource: str) -> Resource:
    return "silver" if resource == "grain" else "grain"


# ---- every kind: keys, trade, guard ------------------------------------------------------


def check_keys(order: Mapping[str, Any], phase: str) -> None:
    """FORMAT, every kind first: each key in the order written, a key of
    another kind of order ``order/wrong_step``, of no order ``order/unknown_key``."""
    own = KEYS[phase]
    for key in order:
        if key in own:
            continue
        if key in ALL_KEYS:
            refuse(
                "order/wrong_step",
                f"{key!r} is not part of a {phase} order (its keys: {', '.join(own)})",
                str(key),
            )
        refuse(
            "order/unknown_key",
            f"{str(key)!r} is no key of any order (a {phase} order has {', '.join(own)})",
            str(key),
        )


def read_trade(table: Table, seat: int, raw: object, *, economy: bool) -> dict[str, Any] | None:
    """FF16: a trade's shape (``trade/bad``), then ``trade/no_trader`` and
    ``trade/used``; None for no trade. ``at`` (economy only) defaults to payment."""
    if raw is None:
        return None
    keys = {"give", "count", "at"} if economy else {"give", "count"}
    shape = (
        '{"give": "grain"|"silver", "count": 1-3, "at": "payment"|"decision"}'
        if economy
        else '{"give": "grain"|"silver", "count": 1-3}'
    )
    if (
        not isinstance(raw, Mapping)
        or not set(map(str, raw)) <= keys
        or "give" not in raw
        or "count" not in raw
    ):
        refuse("trade/bad", f"a trade must be {shape}, not {_shown(raw)}", "trade")
    give, count, at = raw["give"], raw["count"], raw.get("at")
    if give not in ("grain", "silver"):
        refuse("trade/bad", f"a trade gives 'grain' or 'silver', not {_shown(give)}", "trade")
    if not (is_int(count) and 1 <= count <= MAX_TRADE):
        refuse("trade/bad", f"a trade's count is 1 to {MAX_TRADE}, not {_shown(count)}", "trade")
    if at is None:
        at = "payment"
    if at not in TRADE_AT:
        refuse("trade/bad", f"a trade's 'at' is 'payment' or 'decision', not {_shown(at)}", "trade")
    if not table.holds_kind(seat, "trader"):
        refuse("trade/no_trader", f"seat {seat} holds no Trader", "trade")
    if table.seats[seat].traded:
        refuse("trade/used", f"seat {seat}'s Trader has already traded this season", "trade")
    out: dict[str, Any] = {"give": give, "count": count}
    if economy:
        out["at"] = at
    return out


def make_trade(table: Table, seat: int, trade: Mapping[str, Any]) -> None:
    """FF16: the trade must be affordable when it is made (``trade/not_enough``)."""
    s = table.seats[seat]
    give: Resource = trade["give"]
    count: int = trade["count"]
    if s.held(give) < count:
        refuse(
            "trade/not_enough",
            f"seat {seat} cannot give {count} {give} in a trade: it holds {s.held(give)}",
            "trade",
        )
    s.spend(give, count)
    s.gain(_other(give), count)
    s.traded = True


def set_guard(table: Table, seat: int, raw: object) -> dict[str, int] | None:
    """FF15: ``{"grain": G, "silver": S}`` (a missing key 0) sets the guard at
    the end of the order: Besella/Baroso only, G + S <= 3, each at most what
    the seat then holds."""
    if raw is None:
        return None
    s = table.seats[seat]
    if s.ruler != BESELLA:
        refuse("guard/not_besella", f"seat {seat} is not Besella/Baroso: it has no guard", "guard")
    if not isinstance(raw, Mapping) or not set(map(str, raw)) <= {"grain", "silver"}:
        refuse("guard/bad", f'a guard is {{"grain": G, "silver": S}}, not {_shown(raw)}', "guard")
    grain, silver = raw.get("grain", 0), raw.get("silver", 0)
    for value in (grain, silver):
        if not (is_int(value) and value >= 0):
            refuse(
                "guard/bad",
                f"a guard's grain and silver are whole numbers 0 or more, not {_shown(value)}",
                "guard",
            )
    if grain + silver > GUARD_MAX:
        refuse(
            "guard/too_many",
            f"the guard holds at most {GUARD_MAX} resources, not {grain} grain and {silver} silver",
            "guard",
        )
    if grain > s.grain or silver > s.silver:
        refuse(
            "guard/not_enough",
            f"seat {seat} cannot guard {grain} grain and {silver} silver: it holds "
            f"{s.grain} grain and {s.silver} silver",
            "guard",
        )
    s.guard_grain, s.guard_silver = grain, silver
    return {"grain": grain, "silver": silver}


# ---- FF10-FF12: a hire turn --------------------------------------------------------------


def _hire_card(table: Table, seat: int, action: str, raw: object) -> str:
    """FF10: the card a bid, take or claim names."""
    hire = table.hire
    assert hire is not None
    card = table.deck.read(raw, table.count)
    if card is None:
        refuse("hire/unknown_card", f"{_shown(raw)} is no card of this match", "card")
    if card not in hire.board:
        refuse("hire/not_on_board", f"{card} is not on this season's Hire Board", "card")
    ctype = table.deck.type_of(card)
    if ctype.famine:
        refuse("hire/famine", f"{card} is a Famine: it cannot be hired", "card")
    if hire.taken(card):
        refuse("hire/already_taken", f"{card} has been taken or claimed this season", "card")
    if action == "take" and not ctype.wizard:
        refuse(
            "hire/not_a_wizard", f"{card} is a worker: bid on it (only wizards are taken)", "card"
        )
    if action in ("bid", "claim") and ctype.wizard:
        refuse(
            "hire/not_a_worker", f"{card} is a wizard: take it (wizards are never bid on)", "card"
        )
    return card


def _discard(table: Table, seat: int, card: str, raw: object) -> str | None:
    """FF9, FF12: a discard exactly when the Kingdom plus the card would
    break FF9, a card of the Kingdom, and the Kingdom less it plus the card
    keeping FF9."""
    kingdom = table.seats[seat].kingdom
    if raw is None:
        if fits(table, seat, [*kingdom, card]):
            return None
        if len(kingdom) + 1 > kingdom_size(table, seat):
            refuse(
                "hire/kingdom_full",
                f"seat {seat}'s Kingdom is full: name a card of it to discard for {card}",
                "discard",
            )
        refuse(
            "hire/kingdom_limit",
            f"{card} breaks a limit of seat {seat}'s Kingdom: name a card of it to discard",
            "discard",
        )
    discard = table.deck.read(raw, table.count)
    if discard is None:
        refuse("hire/unknown_card", f"discard: {_shown(raw)} is no card of this match", "discard")
    if discard == card:
        refuse(
            "hire/discard_new_card",
            f"{card} is the card being hired: it cannot be discarded",
            "discard",
        )
    if discard not in kingdom:
        refuse(
            "hire/discard_not_in_kingdom",
            f"{discard} is not in seat {seat}'s Kingdom",
            "discard",
        )
    if fits(table, seat, [*kingdom, card]):
        refuse(
            "hire/discard_not_needed",
            f"{card} fits seat {seat}'s Kingdom: no discard may be named",
            "discard",
        )
    if not fits(table, seat, [*(c for c in kingdom if c != discard), card]):
        refuse(
            "hire/kingdom_limit",
            f"without {discard}, {card} still breaks a limit of seat {seat}'s Kingdom",
            "discard",
        )
    return discard


def _outbid(table: Table, card: str) -> None:
    """FF10: the bid standing on ``card`` goes back to its bidder, who is free again."""
    hire = table.hire
    assert hire is not None
    holder = hire.holder(card)
    if holder is not None and hire.got[holder].how == "bid":
        table.seats[holder].gain("silver", hire.got[holder].silver)
        del hire.got[holder]


def hire_order(table: Table, seat: int, order: Mapping[str, Any]) -> dict[str, Any]:
    """FF10-FF12: carry out a hire turn's order; the result's hire turn."""
    hire = table.hire
    assert hire is not None
    check_keys(order, "hire")
    action = order.get("action")
    if action is None:
        refuse(
            "order/missing_key", "a hire order needs 'action' (bid, take, claim or pass)", "action"
        )
    if not isinstance(action, str) or action not in ACTIONS:
        refuse(
            "hire/bad_action",
            f"'action' is bid, take, claim or pass (lowercase), not {_shown(action)}",
            "action",
        )
    used = ACTION_KEYS[action]
    for key in ("card", "silver", "discard"):
        if order.get(key) is not None and key not in used:
            refuse("order/extra_key", f"a {action} has no {key!r}", key)
    for key in ("card", "silver") if action == "bid" else ("card",) if used else ():
        if order.get(key) is None:
            refuse("order/missing_key", f"a {action} needs {key!r}", key)
    trade = read_trade(table, seat, order.get("trade"), economy=False)
    if trade is not None:
        make_trade(table, seat, trade)
    if action == "pass":
        do_pass(table, seat)
        guard = set_guard(table, seat, order.get("guard"))
        return hire_turn_json(seat, "pass", trade=trade, guard=guard)
    card = _hire_card(table, seat, action, order.get("card"))
    silver: int | None = None
    s = table.seats[seat]
    if action == "claim":
        if s.ruler != ELBAN:
            refuse("hire/not_elban", f"seat {seat} is not Elban/Eltezza: it cannot claim", "action")
        if not can_claim(table, seat):
            refuse("hire/no_tokens", f"seat {seat} has no token left to claim with", "action")
    if action == "bid":
        silver = order["silver"]
        if not is_int(silver):
            refuse(
                "order/bad_value",
                f"a bid's silver is a whole number, not {_shown(silver)}",
                "silver",
            )
        low = lowest_bid(table, card)
        if silver < low:
            standing = "" if low == 1 else f" (the standing bid is {low - 1})"
            refuse("hire/bid_too_low", f"a bid on {card} is at least {low}{standing}", "silver")
        if silver > s.silver:
            refuse(
                "hire/not_enough_silver",
                f"seat {seat} cannot bid {silver} silver: it holds {s.silver}",
                "silver",
            )
    discard = _discard(table, seat, card, order.get("discard"))
    if action == "bid":
        assert silver is not None
        _outbid(table, card)
        s.spend("silver", silver)
        hire.got[seat] = Got(card, "bid", silver, discard)
    elif action == "take":
        hire.got[seat] = Got(card, "take", 0, discard)
    else:
        s.tokens -= 1
        _outbid(table, card)
        hire.got[seat] = Got(card, "claim", 0, discard)
    guard = set_guard(table, seat, order.get("guard"))
    return hire_turn_json(
        seat, action, card=card, silver=silver, discard=discard, trade=trade, guard=guard
    )


# ---- FF13-FF14: an attack turn -----------------------------------------------------------


def _opponent(table: Table, seat: int, raw: object) -> int | None:
    """An opponent's seat: a whole number (a string key in ``from``)."""
    if isinstance(raw, str) and raw.isascii() and raw.isdigit() and str(int(raw)) == raw:
        raw = int(raw)
    if is_int(raw) and raw in table.seats and raw != seat:
        return raw
    return None


def pickpocket(table: Table, seat: int, raw: object) -> dict[str, Any]:
    """FF13: the seat gains 2 silver, 1 from each named opponent, the rest from the stock."""
    if not table.holds_kind(seat, "pickpocket"):
        refuse("attack/no_pickpocket", f"seat {seat} holds no Pickpocket", "pickpocket")
    if (
        not isinstance(raw, list)
        or len(raw) > MAX_PICKPOCKET_TARGETS
        or not all(is_int(t) for t in raw)
    ):
        refuse(
            "attack/bad_target",
            f"'pickpocket' is a list of at most 2 opponents' seats, not {_shown(raw)}",
            "pickpocket",
        )
    twice = [t for i, t in enumerate(raw) if t in raw[:i]]
    if twice:
        refuse(
            "attack/repeated_target", f"the Pickpocket names seat {twice[0]} twice", "pickpocket"
        )
    for target in raw:
        if _opponent(table, seat, target) is None:
            refuse("attack/bad_target", f"seat {target} is not an opponent", "pickpocket")
        if pickpocket_immune(table, target):
            refuse(
                "attack/target_immune",
                f"the Pickpocket cannot name seat {target} (it holds a Pickpocket, is "
                "Arup/Avintia, or has fewer than 2 unguarded silver)",
                "pickpocket",
            )
    for target in raw:
        table.seats[target].spend("silver", 1)
    table.seats[seat].gain("silver", PICKPOCKET_SILVER)
    return {"from": list(raw), "stock": PICKPOCKET_SILVER - len(raw)}


def _evrathor_use(
    table: Table, seat: int, raw: object, held: list[str], done: list[str], where: str
) -> dict[str, Any]:
    """FF14: one Evrathor use, checked and carried out (its card discarded
    once the turn's uses are done)."""
    if not isinstance(raw, Mapping) or "card" not in raw or not set(raw) <= {"card", "from"}:
        refuse("order/bad_value", f'{where} must be {{"card": ID, "from": {{...}}}}', where)
    card = table.deck.read(raw["card"], table.count)
    if card is None:
        refuse(
            "attack/unknown_card", f"{where}: {_shown(raw['card'])} is no card of this match", where
        )
    ctype = table.deck.type_of(card)
    if card not in held or ctype.kind != "evrathor":
        refuse("attack/no_evrathor", f"{where}: seat {seat} holds no Evrathor {card}", where)
    if card in done:
        refuse("attack/repeated_card", f"{where}: {card} is used twice", where)
    asked = raw.get("from")
    if asked is None:
        asked = {}
    if not isinstance(asked, Mapping) or not all(is_int(v) and v >= 1 for v in asked.values()):
        refuse(
            "attack/bad_target",
            f"{where}: 'from' maps opponents' seats to amounts of 1 or more, not {_shown(asked)}",
            where,
        )
    steals = ctype.steals or ""
    take: dict[int, int] = {}
    for key, amount in asked.items():
        target = _opponent(table, seat, key)
        if target is None:
            refuse("attack/bad_target", f"{where}: {_shown(key)} is not an opponent's seat", where)
        if evrathor_immune(table, target, steals):
            refuse(
                "attack/target_immune",
                f"{where}: {card} cannot name seat {target} (a Seer's holder, or "
                "Arup/Avintia in a silver theft)",
                where,
            )
        take[target] = amount
    total = sum(take.values())
    if total > ctype.amount:
        refuse("attack/too_many", f"{where}: {card} steals {ctype.amount}, not {total}", where)
    if ctype.split == "none" and len(take) >= 2:
        refuse("attack/split", f"{where}: {card} cannot be split: name one opponent at most", where)
    if ctype.split == "must" and any(v > ctype.amount // 2 for v in take.values()):
        refuse(
            "attack/split",
            f"{where}: with {card} no opponent gives more than {ctype.amount // 2}",
            where,
        )
    if steals in ("grain", "silver"):
        res: Resource = "grain" if steals == "grain" else "silver"
        for target in sorted(take):
            have = table.seats[target].unguarded(res)
            if take[target] > have:
                refuse(
                    "attack/not_enough",
                    f"{where}: seat {target} has {have} unguarded {steals}, not {take[target]}",
                    where,
                )
    taken: dict[str, int] = {}
    s = table.seats[seat]
    for target in sorted(take):
        victim = table.seats[target]
        if steals == "stored":
            got = min(take[target], victim.stored)
            victim.stored -= got
        else:
            got = take[target]
            victim.spend("grain" if steals == "grain" else "silver", got)
        taken[str(target)] = got
    if steals == "stored":
        s.stored += ctype.amount
    else:
        s.gain("grain" if steals == "grain" else "silver", ctype.amount)
    done.append(card)
    return {
        "card": card,
        "from": {str(t): take[t] for t in sorted(take)},
        "stock": ctype.amount - total,
        "taken": taken,
    }


def attack_order(table: Table, seat: int, order: Mapping[str, Any]) -> dict[str, Any]:
    """FF13-FF14: carry out an attack turn's order: trade, Pickpocket,
    Evrathors in the listed order, guard; the result's attack entry."""
    check_keys(order, "attack")
    trade = read_trade(table, seat, order.get("trade"), economy=False)
    if trade is not None:
        make_trade(table, seat, trade)
    picked = None
    if order.get("pickpocket") is not None:
        picked = pickpocket(table, seat, order["pickpocket"])
    uses: list[dict[str, Any]] = []
    raw_uses = order.get("evrathor")
    if raw_uses is not None:
        if not isinstance(raw_uses, list):
            refuse(
                "order/bad_value",
                f"'evrathor' is a list of uses, not {_shown(raw_uses)}",
                "evrathor",
            )
        held = list(table.seats[seat].kingdom)
        done: list[str] = []
        for i, use in enumerate(raw_uses):
            uses.append(_evrathor_use(table, seat, use, held, done, f"evrathor[{i}]"))
        kingdom = table.seats[seat].kingdom
        kingdom[:] = [c for c in kingdom if c not in done]
    guard = set_guard(table, seat, order.get("guard"))
    return {"seat": seat, "trade": trade, "pickpocket": picked, "evrathor": uses, "guard": guard}


# ---- FF16-FF18: an economy order ---------------------------------------------------------


def _pay(table: Table, seat: int, raw: object) -> list[str]:
    """FF17: the workers listed in ``pay``, each needing a payment, once each."""
    if raw is None:
        return []
    if not isinstance(raw, list):
        refuse("order/bad_value", f"'pay' is a list of card ids, not {_shown(raw)}", "pay")
    paid: list[str] = []
    for item in raw:
        card = table.deck.read(item, table.count)
        if card is None:
            refuse("pay/unknown_card", f"pay: {_shown(item)} is no card of this match", "pay")
        if card not in table.seats[seat].kingdom:
            refuse("pay/not_in_kingdom", f"pay: {card} is not in seat {seat}'s Kingdom", "pay")
        if not table.deck.type_of(card).needs_payment:
            refuse("pay/no_payment", f"pay: {card} needs no payment", "pay")
        if card in paid:
            refuse("pay/repeated", f"pay: {card} is listed twice", "pay")
        paid.append(card)
    return paid


def _double(table: Table, seat: int, raw: object, paid: list[str]) -> str | None:
    """FF17: the Philosopher's double, a paid Common Farmer or Common Merchant."""
    if raw is None:
        return None
    card = table.deck.read(raw, table.count)
    if card is None:
        refuse("double/unknown_card", f"double: {_shown(raw)} is no card of this match", "double")
    if not table.holds_kind(seat, "philosopher"):
        refuse("double/no_philosopher", f"seat {seat} holds no Philosopher", "double")
    if card not in paid:
        refuse("double/not_paid", f"double: {card} is not among the paid workers", "double")
    if not table.deck.type_of(card).common_line:
        refuse("double/not_common", f"double: {card} is no Common Farmer or Merchant", "double")
    return card


def _gain_all(table: Table, seat: int, grain: int, silver: int, stored: int) -> None:
    s = table.seats[seat]
    s.gain("grain", grain)
    s.gain("silver", silver)
    s.stored += stored


def _chysarions(table: Table, seat: int, raw: object) -> list[str]:
    """FF17: each listed Chysarion gives its amount and is discarded."""
    if raw is None:
        return []
    if not isinstance(raw, list):
        refuse(
            "order/bad_value", f"'chysarion' is a list of card ids, not {_shown(raw)}", "chysarion"
        )
    held = list(table.seats[seat].kingdom)
    used: list[str] = []
    for item in raw:
        card = table.deck.read(item, table.count)
        if card is None:
            refuse(
                "chysarion/unknown_card",
                f"chysarion: {_shown(item)} is no card of this match",
                "chysarion",
            )
        ctype = table.deck.type_of(card)
        if card not in held or ctype.kind != "chysarion":
            refuse(
                "chysarion/not_held",
                f"chysarion: seat {seat} holds no Chysarion {card}",
                "chysarion",
            )
        if card in used:
            refuse("chysarion/repeated", f"chysarion: {card} is listed twice", "chysarion")
        used.append(card)
        amount = ctype.amount
        _gain_all(
            table,
            seat,
            amount if ctype.gives == "grain" else 0,
            amount if ctype.gives == "silver" else 0,
            amount if ctype.gives == "stored" else 0,
        )
    kingdom = table.seats[seat].kingdom
    kingdom[:] = [c for c in kingdom if c not in used]
    return used


def economy_order(table: Table, seat: int, order: Mapping[str, Any]) -> dict[str, Any]:
    """FF16-FF18: carry out a seat's economy order in the rulebook's phase
    order; the result's economy entry for the seat."""
    check_keys(order, "economy")
    if order.get("decision") is None:
        refuse(
            "order/missing_key",
            "an economy order needs 'decision' (grain, silver or store)",
            "decision",
        )
    s = table.seats[seat]
    deck = table.deck
    trade = read_trade(table, seat, order.get("trade"), economy=True)
    if trade is not None and trade["at"] == "payment":
        make_trade(table, seat, trade)
    paid = _pay(table, seat, order.get("pay"))
    double = _double(table, seat, order.get("double"), paid)
    times = {c: 2 if c == double else 1 for c in paid}
    cost_grain = sum(deck.type_of(c).payment[0] * times[c] for c in paid)
    cost_silver = sum(deck.type_of(c).payment[1] * times[c] for c in paid)
    for res, cost in (("grain", cost_grain), ("silver", cost_silver)):
        have = s.held(res)  # type: ignore[arg-type]
        if cost > have:
            refuse(
                "pay/not_enough",
                f"the payments cost {cost} {res}; seat {seat} holds {have}",
                "pay",
            )
    s.spend("grain", cost_grain)
    s.spend("silver", cost_silver)
    rewards = [0, 0, 0]
    for card in s.kingdom:
        ctype = deck.type_of(card)
        if not ctype.worker:
            continue
        earned = times.get(card, 0) if ctype.needs_payment else 1
        for i in range(3):
            rewards[i] += ctype.reward[i] * earned
    _gain_all(table, seat, *rewards)
    used = _chysarions(table, seat, order.get("chysarion"))
    if trade is not None and trade["at"] == "decision":
        make_trade(table, seat, trade)
    decision = order["decision"]
    if not isinstance(decision, str) or decision not in DECISIONS:
        refuse(
            "decision/bad",
            f"'decision' is grain, silver or store (lowercase), not {_shown(decision)}",
            "decision",
        )
    stored = 0
    if decision == "store":
        n = order.get("store")
        if not (is_int(n) and n >= 1):
            refuse(
                "store/bad", f"'store' is the grain to store, 1 or more, not {_shown(n)}", "store"
            )
        if s.silver < 1:
            refuse(
                "store/not_enough_silver", f"seat {seat} has no silver to pay for storing", "store"
            )
        if n > s.grain:
            refuse(
                "store/not_enough_grain",
                f"seat {seat} cannot store {n} grain: it holds {s.grain}",
                "store",
            )
        s.spend("silver", 1)
        s.spend("grain", n)
        s.stored += n
        stored = n
    else:
        if order.get("store") is not None:
            refuse(
                "order/extra_key",
                f"'store' goes only with the decision store, not {decision}",
                "store",
            )
        s.gain("grain" if decision == "grain" else "silver", 1)
    guard = set_guard(table, seat, order.get("guard"))
    return {
        "trade": trade,
        "paid": paid,
        "double": double,
        "rewards": {"grain": rewards[0], "silver": rewards[1], "stored": rewards[2]},
        "chysarion": used,
        "decision": decision,
        "store": stored,
        "guard": guard,
    }


# ---- a step ------------------------------------------------------------------------------


def carry_out(table: Table, seat: int, order: Mapping[str, Any]) -> dict[str, Any]:
    """One seat's order in the open step, carried out on ``table`` in place."""
    step = table.next
    assert step is not None and seat in step.acting
    if step.phase == "hire":
        return hire_order(table, seat, order)
    if step.phase == "attack":
        return attack_order(table, seat, order)
    return economy_order(table, seat, order)


def check_order(table: Table, seat: int, order: object) -> dict[str, Any]:
    """The live check of ``seat``'s order for the open step, against the state
    the step opens on: its record, or a RuleError (``table`` is unchanged)."""
    step = table.next
    if step is None or seat not in step.acting:
        refuse("step/not_acting", f"seat {seat} does not act in the open step")
    if not isinstance(order, Mapping):
        refuse("order/not_object", f"an order must be an object, not {_shown(order)}")
    return carry_out(table.copy(), seat, order)


def close_step(table: Table, orders: Mapping[int, object]) -> Table:
    """Close the open step: each acting seat's order (missing or None: FF7's
    default), in seat order; the new table, or one RuleError with the first
    problem of each refused order, in seat order (``table`` is unchanged)."""
    step = table.next
    assert step is not None, "the match is over"
    work = table.copy()
    problems: list[Problem] = []
    records: dict[int, dict[str, Any]] = {}
    for seat in step.acting:
        order = orders.get(seat)
        defaulted = order is None
        if defaulted:
            order = DEFAULTS[step.phase]
            work.defaulted.append((step.number, seat))
        if not isinstance(order, Mapping):
            problems.append(
                Problem("order/not_object", f"seat {seat}: an order must be an object", str(seat))
            )
            continue
        try:
            records[seat] = carry_out(work, seat, order)
        except RuleError as exc:
            problems += [
                Problem(p.code, f"seat {seat}: {p.message}", p.field) for p in exc.problems
            ]
    if problems:
        raise RuleError(problems)
    record = work.record
    if step.phase == "hire":
        record["hire_turns"].append(records[step.acting[0]])
    elif step.phase == "attack":
        record["attacks"].append(records[step.acting[0]])
    else:
        record["economy"] = {str(s): records[s] for s in step.acting}
    step_closed(work)
    return work
