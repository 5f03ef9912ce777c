"""Typical orders of the acting seat, built from its ``options`` (FORMAT's
API bodies) and its view, for the conformance suite and tools: a hire turn's
bid, take or claim of each card (with the discard and the trade it needs),
a pass (with a trade); an attack turn that uses the Pickpocket and every
Evrathor within their caps, each alone, and nothing; an economy order that
pays every worker it can, doubles, uses every Chysarion and stores what it
may, and the plain decisions; Besella/Baroso's guard now and then. Each
part is legal alone (the options say so); the rules still check the whole.

Pure: no Flask, SQL or click imports.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def _hire(opts: Mapping[str, Any], silver: int) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for choice in opts["cards"]:
        order: dict[str, Any] = {"action": choice["how"], "card": choice["card"]}
        if choice["how"] == "bid":
            order["silver"] = choice["min_silver"]
            if choice["min_silver"] > silver:
                order["trade"] = {"give": "grain", "count": choice["min_silver"] - silver}
        if choice["discards"]:
            order["discard"] = choice["discards"][0]
        out.append(order)
    trade = opts["trade"]
    passing: list[dict[str, Any]] = [{"action": "pass"}]
    if trade is not None and trade["silver"]:
        passing.append({"action": "pass", "trade": {"give": "silver", "count": 1}})
    return out[:1] + passing + out[1:]


def _attack(opts: Mapping[str, Any]) -> list[dict[str, Any]]:
    full: dict[str, Any] = {}
    alone: list[dict[str, Any]] = []
    lost: dict[tuple[str, str], int] = {}
    if opts["pickpocket"] is not None:
        targets = list(opts["pickpocket"][:2])
        full["pickpocket"] = targets
        alone.append({"pickpocket": targets})
        for t in targets:
            lost[(str(t), "silver")] = 1
    uses = []
    for use in opts["evrathor"]:
        steals = use["steals"]
        caps = {
            s: cap - (lost.get((s, steals), 0) if steals != "stored" else 0)
            for s, cap in use["from"].items()
        }
        names = [s for s, cap in caps.items() if cap > 0][: 1 if use["split"] == "none" else 2]
        left = use["amount"]
        taken: dict[str, int] = {}
        for s in names:
            give = min(caps[s], left)
            if give > 0:
                taken[s] = give
                left -= give
                lost[(s, steals)] = lost.get((s, steals), 0) + give
        uses.append({"card": use["card"], "from": taken})
        alone.append({"evrathor": [{"card": use["card"], "from": {}}]})
    if uses:
        full["evrathor"] = uses
    return ([full] if full else []) + [{}] + alone


def _economy(opts: Mapping[str, Any]) -> list[dict[str, Any]]:
    grain, silver = opts["grain"], opts["silver"]
    pay: list[str] = []
    for p in opts["pay"]:
        cost = p["payment"]
        if cost["grain"] <= grain and cost["silver"] <= silver:
            grain -= cost["grain"]
            silver -= cost["silver"]
            pay.append(p["card"])
    rich: dict[str, Any] = {}
    if pay:
        rich["pay"] = pay
    doubles = [c for c in opts["double"] if c in pay]
    if doubles:
        card = doubles[0]
        cost = next(p["payment"] for p in opts["pay"] if p["card"] == card)
        if cost["grain"] <= grain and cost["silver"] <= silver:
            grain -= cost["grain"]
            silver -= cost["silver"]
            rich["double"] = card
    times = {c: 2 if c == rich.get("double") else 1 for c in pay}
    for p in opts["pay"]:
        grain += p["reward"]["grain"] * times.get(p["card"], 0)
        silver += p["reward"]["silver"] * times.get(p["card"], 0)
    for f in opts["free"]:
        grain += f["reward"]["grain"]
        silver += f["reward"]["silver"]
    if opts["chysarion"]:
        rich["chysarion"] = [c["card"] for c in opts["chysarion"]]
        for c in opts["chysarion"]:
            grain += c["amount"] if c["gives"] == "grain" else 0
            silver += c["amount"] if c["gives"] == "silver" else 0
    if grain >= 1 and silver >= 1:
        rich.update(decision="store", store=grain)
    else:
        rich["decision"] = "silver"
    out = [rich, {"decision": "grain"}, {"decision": "silver"}]
    if opts["store_max"] >= 1:
        out.append({"decision": "store", "store": 1})
    trade = opts["trade"]
    if trade is not None and trade["grain"]:
        out.append({"decision": "silver", "trade": {"give": "grain", "count": 1, "at": "payment"}})
    return out


def candidate_orders(view: Mapping[str, Any], seat: int) -> list[dict[str, Any]]:
    """The acting seat's candidate orders (none when it does not act)."""
    opts = view.get("options")
    if not isinstance(opts, Mapping):
        return []
    held = view["result"]["seats"][str(seat)]
    if opts["phase"] == "hire":
        out = _hire(opts, int(held["silver"]))
    elif opts["phase"] == "attack":
        out = _attack(opts)
    else:
        out = _economy(opts)
    if opts["guard"] and out:
        grain = min(int(held["grain"]), 1)
        out.insert(1, {**out[0], "guard": {"grain": grain}})
        out.append({**out[0], "guard": {}})
    return out
