"""A Fortune & Famine result in words, for posts and the CLI summary: each
season's board, Famines, hire turns, what was hired, attack turns and
economy orders, and each seat's board
(docs/contracts/fortune-famine/FORMAT.md, "Result").

Every function takes ``who`` (a seat's words, escaped by the caller as its
format needs) and ``card`` (a card's words: a post names the type, escaped,
since a host's deck names it; the summary gives the id). Only what the
result given holds is told: a public result's hidden parts (stored totals,
burned cards, a storage theft's ``taken`` before the end) are null there and
said as hidden.

Pure: no Flask, SQL or click imports.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

Words = Callable[[Any], str]

RULER_NAMES = {
    "arup-avintia": "Arup/Avintia",
    "besella-baroso": "Besella/Baroso",
    "cotarr-corace": "Cotarr/Corace",
    "divina-daznul": "Divina/Daznul",
    "elban-eltezza": "Elban/Eltezza",
    "felarren-fiagro": "Felarren/Fiagro",
}
LEVEL_WORDS = {
    "stored_grain": "stored grain",
    "grain": "grain on the Kingdom",
    "silver": "silver",
    "workers": "workers",
    "garnets": "garnets",
    "seat": "seat number",
}


def ruler(ruler_id: object) -> str:
    return RULER_NAMES.get(str(ruler_id), str(ruler_id))


def amount(n: object, what: str) -> str:
    return f"{n} {what}"


def resources(values: Mapping[str, Any], keys: Sequence[str] = ("grain", "silver")) -> str:
    """``2 grain, 1 silver`` (zeros left out; "nothing" when all are)."""
    words = {"grain": "grain", "silver": "silver", "stored": "stored grain"}
    parts = [f"{values[k]} {words[k]}" for k in keys if values.get(k)]
    return ", ".join(parts) or "nothing"


def cards_text(cards: Sequence[Any] | None, card: Words) -> str:
    return ", ".join(card(c) for c in cards or []) or "none"


def trade_text(trade: Mapping[str, Any] | None) -> str:
    if not trade:
        return ""
    other = "silver" if trade["give"] == "grain" else "grain"
    at = f" (at the {trade['at']})" if trade.get("at") else ""
    return f"traded {trade['count']} {trade['give']} for {trade['count']} {other}{at}"


def guard_text(guard: Mapping[str, Any] | None) -> str:
    if guard is None:
        return ""
    return "guards " + resources(guard)


def _joined(parts: Sequence[str]) -> str:
    return "; ".join(p for p in parts if p)


def hire_turn_text(turn: Mapping[str, Any], who: Words, card: Words) -> str:
    """One hire turn: ``Ana (seat 1) bids 2 silver on Common Merchant``."""
    action = turn["action"]
    if action == "pass":
        main = "passes" + (" (no action left but to pass)" if turn.get("auto") else "")
    elif action == "bid":
        main = f"bids {turn['silver']} silver on {card(turn['card'])}"
    elif action == "take":
        main = f"takes {card(turn['card'])}"
    else:
        main = f"claims {card(turn['card'])}"
    if turn.get("discard"):
        main += f", to discard {card(turn['discard'])}"
    return f"{who(turn['seat'])} " + _joined(
        [trade_text(turn.get("trade")), main, guard_text(turn.get("guard"))]
    )


def famine_text(famine: Mapping[str, Any], who: Words) -> str:
    lost = [
        f"{who(int(s))} {n}"
        for s, n in sorted(famine["loss"].items(), key=lambda kv: int(kv[0]))
        if n
    ]
    text = "grain lost: " + (", ".join(lost) if lost else "none")
    blocked = [who(int(s)) for s in famine["blocked"]]
    if blocked:
        text += "; blocked by " + ", ".join(blocked)
    return text


def hired_text(hired: Mapping[str, Any] | None, who: Words, card: Words) -> list[str]:
    rows = []
    for key, got in sorted((hired or {}).items(), key=lambda kv: int(kv[0])):
        if got is None:
            rows.append(f"{who(int(key))}: nothing")
            continue
        how = {"bid": f"for {got['silver']} silver", "take": "taken", "claim": "claimed"}
        text = f"{who(int(key))}: {card(got['card'])} ({how.get(got['how'], got['how'])})"
        if got.get("discard"):
            text += f", {card(got['discard'])} discarded"
        rows.append(text)
    return rows


def attack_text(attack: Mapping[str, Any], who: Words, card: Words) -> str:
    """One attack turn: its trade, Pickpocket, each Evrathor, its guard."""
    parts = [trade_text(attack.get("trade"))]
    picked = attack.get("pickpocket")
    if picked is not None:
        targets = ", ".join(who(int(s)) for s in picked["from"]) or "nobody"
        parts.append(f"Pickpocket: 1 silver from {targets}, {picked['stock']} from the stock")
    for use in attack.get("evrathor") or []:
        asked = ", ".join(
            f"{n} from {who(int(s))}"
            for s, n in sorted(use["from"].items(), key=lambda kv: int(kv[0]))
        )
        text = f"{card(use['card'])}: " + (asked or "nothing from opponents")
        text += f", {use['stock']} from the stock"
        taken = use.get("taken")
        if taken is None:
            text += " (what storage gave is hidden until the end)"
        elif any(taken.get(s) != n for s, n in use["from"].items()):
            got = ", ".join(
                f"{n} from {who(int(s))}"
                for s, n in sorted(taken.items(), key=lambda kv: int(kv[0]))
            )
            text += f" (taken: {got or 'nothing'})"
        parts.append(text)
    parts.append(guard_text(attack.get("guard")))
    return f"{who(attack['seat'])}: " + (_joined(parts) or "nothing")


def economy_text(seat: int, order: Mapping[str, Any], who: Words, card: Words) -> str:
    """One seat's economy: trade, payments, double, rewards, Chysarions, decision."""
    parts = [trade_text(order.get("trade"))]
    if order.get("paid"):
        parts.append("paid " + cards_text(order["paid"], card))
    if order.get("double"):
        parts.append(f"doubled {card(order['double'])}")
    parts.append("earned " + resources(order["rewards"], ("grain", "silver", "stored")))
    if order.get("chysarion"):
        parts.append("used " + cards_text(order["chysarion"], card))
    decision = order["decision"]
    if decision == "store":
        parts.append(f"stored {order['store']} grain for 1 silver")
    else:
        parts.append(f"took 1 {decision}")
    parts.append(guard_text(order.get("guard")))
    return f"{who(seat)}: " + _joined(parts)


def seat_text(state: Mapping[str, Any], card: Words) -> str:
    """A seat's board: grain, silver, guard, stored (or hidden), tokens, Kingdom."""
    parts = [f"{state['grain']} grain", f"{state['silver']} silver"]
    guard = state.get("guard") or {}
    if guard.get("grain") or guard.get("silver"):
        parts.append("guarding " + resources(guard))
    stored = state.get("stored")
    parts.append("stored grain hidden" if stored is None else f"{stored} stored grain")
    if state.get("tokens"):
        parts.append(f"{state['tokens']} tokens" if state["tokens"] != 1 else "1 token")
    parts.append("Kingdom: " + cards_text(state.get("kingdom"), card))
    return ", ".join(parts)


def season_rows(record: Mapping[str, Any], who: Words, card: Words) -> list[str]:
    """A season in rows: the burn, the board, each Famine, each hire turn,
    what was hired, each attack turn, each economy order."""
    burned = record.get("burned")
    rows = [
        "Burned: " + ("hidden until the end" if burned is None else card(burned)),
        "Hire Board: " + cards_text(record.get("revealed"), card),
    ]
    for famine in record.get("famines") or []:
        rows.append(f"{card(famine['card'])}: {famine_text(famine, who)}")
    rows += ["Hire: " + hire_turn_text(t, who, card) for t in record.get("hire_turns") or []]
    if record.get("hired") is not None:
        rows += ["Hired: " + r for r in hired_text(record["hired"], who, card)]
        rows.append("Unhired: " + cards_text(record.get("unhired"), card))
    rows += ["Attack: " + attack_text(a, who, card) for a in record.get("attacks") or []]
    economy = record.get("economy") or {}
    for key, order in sorted(economy.items(), key=lambda kv: int(kv[0])):
        rows.append("Economy: " + economy_text(int(key), order, who, card))
    return rows


def card_namer(
    deck: Mapping[str, Any] | None, esc: Callable[[str], str] = str
) -> Callable[[Any], str]:
    """A card's type name from a deck (a view's ``deck``), through ``esc``
    (a host's deck names its types): ``common-farmer.3`` is "Common Farmer",
    a starting farmer the common farmer's name, "(start)"."""
    names = {
        str(t.get("id")): str(t.get("name") or t.get("id")) for t in (deck or {}).get("types") or []
    }

    def name(card_id: Any) -> str:
        type_id, _, _ = str(card_id).partition(".")
        if type_id == "start-farmer":
            return esc(names.get("common-farmer", "Common Farmer")) + " (start)"
        return esc(names.get(type_id, str(card_id)))

    return name
