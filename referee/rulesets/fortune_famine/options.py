"""The acting seat's legal choices in the open step
(docs/contracts/fortune-famine/FORMAT.md, API bodies: ``options``), computed
from the state the step opens on, before any part of the seat's own order.
Card ids normalised, lists in board or Kingdom (arrival) order, seats
ascending (string keys in objects).

Options are exact for each part alone; an order is still checked as a whole
(:mod:`.orders`), each part against the state its earlier parts left.

Pure: no Flask, SQL or click imports.
"""

from __future__ import annotations

from typing import Any

from .legal import (
    MAX_TRADE,
    can_claim,
    discards_for,
    evrathor_caps,
    lowest_bid,
    pickpocket_targets,
    store_max,
)
from .state import BESELLA, Table


def trade_option(table: Table, seat: int) -> dict[str, int] | None:
    """FF16: null without a Trader that may still trade this season, else the
    most of each resource it may give now, min(3, what it holds)."""
    if not table.can_trade(seat):
        return None
    s = table.seats[seat]
    return {"grain": min(MAX_TRADE, s.grain), "silver": min(MAX_TRADE, s.silver)}


def guard_option(table: Table, seat: int) -> bool:
    """FF15: Besella/Baroso may set its guard with any order."""
    return table.seats[seat].ruler == BESELLA


def hire_options(table: Table, seat: int) -> dict[str, Any]:
    """FF10-FF12: every card and way the seat may get it: ``take`` each
    wizard nobody has taken, ``bid`` each worker nobody has claimed whose
    lowest legal bid is within ``max_silver`` (the seat's silver, plus what a
    trade could bring), ``claim`` each such worker for Elban/Eltezza with a
    token; ``discards``: null when the card fits, else the Kingdom cards whose
    removal lets it fit."""
    hire = table.hire
    assert hire is not None
    trade = trade_option(table, seat)
    s = table.seats[seat]
    max_silver = s.silver + (trade["grain"] if trade is not None else 0)
    claim = can_claim(table, seat)
    cards: list[dict[str, Any]] = []
    for card in hire.board:
        ctype = table.deck.type_of(card)
        if ctype.famine or hire.taken(card):
            continue
        discards = discards_for(table, seat, card)
        if ctype.wizard:
            cards.append({"card": card, "how": "take", "min_silver": None, "discards": discards})
            continue
        low = lowest_bid(table, card)
        if low <= max_silver:
            cards.append({"card": card, "how": "bid", "min_silver": low, "discards": discards})
        if claim:
            cards.append({"card": card, "how": "claim", "min_silver": None, "discards": discards})
    return {
        "phase": "hire",
        "cards": cards,
        "max_silver": max_silver,
        "trade": trade,
        "guard": guard_option(table, seat),
    }


def attack_options(table: Table, seat: int) -> dict[str, Any]:
    """FF13-FF14: the opponents a Pickpocket may name (null without one), and
    every Evrathor held with the most each opponent alone may give (caps at
    the turn's start: the order's own Pickpocket and earlier uses lower them)."""
    pickpocket = pickpocket_targets(table, seat) if table.holds_kind(seat, "pickpocket") else None
    evrathor = []
    for card in table.seats[seat].kingdom:
        ctype = table.deck.type_of(card)
        if ctype.kind != "evrathor":
            continue
        caps = evrathor_caps(table, seat, card)
        evrathor.append(
            {
                "card": card,
                "steals": ctype.steals,
                "amount": ctype.amount,
                "split": ctype.split,
                "from": {str(t): cap for t, cap in sorted(caps.items())},
            }
        )
    return {
        "phase": "attack",
        "pickpocket": pickpocket,
        "evrathor": evrathor,
        "trade": trade_option(table, seat),
        "guard": guard_option(table, seat),
    }


def economy_options(table: Table, seat: int) -> dict[str, Any]:
    """FF16-FF18: the workers to pay and those that earn anyway, what a
    Philosopher may double, the Chysarions held, what the seat holds, and
    the most grain any legal order could store."""
    s = table.seats[seat]
    deck = table.deck
    pay: list[dict[str, Any]] = []
    free: list[dict[str, Any]] = []
    chysarion: list[dict[str, Any]] = []
    for card in s.kingdom:
        ctype = deck.type_of(card)
        if ctype.needs_payment:
            pay.append(
                {"card": card, "payment": ctype.payment_json(), "reward": ctype.reward_json()}
            )
        elif ctype.worker:
            free.append({"card": card, "reward": ctype.reward_json()})
        elif ctype.kind == "chysarion":
            chysarion.append({"card": card, "gives": ctype.gives, "amount": ctype.amount})
    philosopher = table.holds_kind(seat, "philosopher")
    double = [p["card"] for p in pay if philosopher and deck.type_of(p["card"]).common_line]
    return {
        "phase": "economy",
        "pay": pay,
        "free": free,
        "double": double,
        "chysarion": chysarion,
        "grain": s.grain,
        "silver": s.silver,
        "store_max": store_max(table, seat),
        "trade": trade_option(table, seat),
        "guard": guard_option(table, seat),
    }


def options(table: Table, seat: int) -> dict[str, Any] | None:
    """``seat``'s options in the open step; None when it does not act in it
    (or the match is over)."""
    step = table.next
    if step is None or seat not in step.acting:
        return None
    if step.phase == "hire":
        return hire_options(table, seat)
    if step.phase == "attack":
        return attack_options(table, seat)
    return economy_options(table, seat)
