"""Random legal orders built from an acting seat's ``options``
(docs/contracts/fortune-famine/FORMAT.md, API bodies), for the property
tests and a demo to come: a hire action (with the trade a bid may need, now
and then another), an attack turn's Pickpocket and Evrathor uses within the
caps (lowered as the turn's own earlier parts take), an economy order
chosen with the FORMAT's bounds for a form, and for Besella/Baroso, now and
then, a guard within what the rest of the order leaves.

Pure: no Flask, SQL or click imports.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from .options import options
from .orders import carry_out
from .state import GUARD_MAX, Table


def _trade(rng: random.Random, trade: Mapping[str, int] | None) -> dict[str, Any] | None:
    """Now and then a trade the options allow (1 to the most of one resource)."""
    if trade is None or rng.random() < 0.7:
        return None
    gives = [g for g in ("grain", "silver") if trade[g] > 0]
    if not gives:
        return None
    give = rng.choice(gives)
    return {"give": give, "count": rng.randint(1, trade[give])}


def hire_order(
    rng: random.Random, table: Table, seat: int, opts: Mapping[str, Any]
) -> dict[str, Any]:
    """FF10: pass now and then, else one of ``cards``; a bid above the seat's
    silver carries the trade that pays for it."""
    cards = opts["cards"]
    if not cards or rng.random() < 0.15:
        order: dict[str, Any] = {"action": "pass"}
        trade = _trade(rng, opts["trade"])
        if trade is not None:
            order["trade"] = trade
        return order
    choice = rng.choice(cards)
    held = table.seats[seat].silver
    silver = 0
    order = {"action": choice["how"], "card": choice["card"]}
    if choice["discards"] is not None:
        order["discard"] = rng.choice(choice["discards"])
    if choice["how"] == "bid":
        silver = rng.randint(choice["min_silver"], max(choice["min_silver"], opts["max_silver"]))
        if rng.random() < 0.6:
            silver = choice["min_silver"]
        order["silver"] = silver
        if silver > held:
            order["trade"] = {"give": "grain", "count": silver - held}
            return order
    trade = _trade(rng, opts["trade"])
    if trade is not None and (
        choice["how"] != "bid" or trade["give"] == "grain" or held - trade["count"] >= silver
    ):
        order["trade"] = trade
    return order


def _split(rng: random.Random, use: Mapping[str, Any], caps: Mapping[str, int]) -> dict[str, int]:
    """An Evrathor's ``from`` within the caps left: one opponent at most for
    ``none``, any for ``may`` and ``must``, a total of at most the amount."""
    names = [s for s, cap in caps.items() if cap > 0]
    rng.shuffle(names)
    if use["split"] == "none":
        names = names[:1]
    left = use["amount"]
    out: dict[str, int] = {}
    for name in names[: rng.randint(0, len(names))]:
        if left == 0:
            break
        give = rng.randint(1, min(caps[name], left))
        out[name] = give
        left -= give
    return dict(sorted(out.items(), key=lambda kv: int(kv[0])))


def attack_order(rng: random.Random, table: Table, opts: Mapping[str, Any]) -> dict[str, Any]:
    """FF13-FF14: now and then the Pickpocket (0 to 2 of its targets) and
    each Evrathor, each within the caps its turn's earlier parts left."""
    order: dict[str, Any] = {}
    trade = _trade(rng, opts["trade"])
    if trade is not None:
        order["trade"] = trade
    lost: dict[tuple[str, str], int] = {}  # (seat, resource) taken by earlier parts
    targets = opts["pickpocket"]
    if targets is not None and rng.random() < 0.8:
        chosen = rng.sample(targets, rng.randint(0, min(2, len(targets))))
        order["pickpocket"] = chosen
        for t in chosen:
            lost[(str(t), "silver")] = 1
    uses = []
    for use in opts["evrathor"]:
        if rng.random() < 0.3:
            continue
        steals = use["steals"]
        caps = {
            s: cap - (lost.get((s, steals), 0) if steals != "stored" else 0)
            for s, cap in use["from"].items()
        }
        taken = _split(rng, use, caps)
        for s, n in taken.items():
            lost[(s, steals)] = lost.get((s, steals), 0) + n
        uses.append({"card": use["card"], "from": taken})
    if uses:
        rng.shuffle(uses)
        order["evrathor"] = uses
    return order


def economy_order(rng: random.Random, opts: Mapping[str, Any]) -> dict[str, Any]:
    """FF16-FF18 with the FORMAT's bounds for a form: a trade at payment
    changes what the payments come from; grain and silver at the decision
    are that less the payments plus the rewards and Chysarions (then a trade
    at decision); a store needs 1 silver there and stores 1 to the grain."""
    for _ in range(20):
        grain, silver = opts["grain"], opts["silver"]
        order: dict[str, Any] = {}
        trade = _trade(rng, opts["trade"])
        at = rng.choice(("payment", "decision"))
        if trade is not None and at == "payment":
            sign = 1 if trade["give"] == "silver" else -1
            grain, silver = grain + sign * trade["count"], silver - sign * trade["count"]
        pay = [p for p in opts["pay"] if rng.random() < 0.7]
        double = None
        doubles = [c for c in opts["double"] if c in {p["card"] for p in pay}]
        if doubles and rng.random() < 0.7:
            double = rng.choice(doubles)
        times = {p["card"]: 2 if p["card"] == double else 1 for p in pay}
        cost_g = sum(p["payment"]["grain"] * times[p["card"]] for p in pay)
        cost_s = sum(p["payment"]["silver"] * times[p["card"]] for p in pay)
        if cost_g > grain or cost_s > silver:
            continue
        grain -= cost_g
        silver -= cost_s
        for p in pay:
            grain += p["reward"]["grain"] * times[p["card"]]
            silver += p["reward"]["silver"] * times[p["card"]]
        for f in opts["free"]:
            grain += f["reward"]["grain"]
            silver += f["reward"]["silver"]
        used = [c for c in opts["chysarion"] if rng.random() < 0.6]
        for c in used:
            grain += c["amount"] if c["gives"] == "grain" else 0
            silver += c["amount"] if c["gives"] == "silver" else 0
        if trade is not None and at == "decision":
            if (grain if trade["give"] == "grain" else silver) < trade["count"]:
                continue
            sign = 1 if trade["give"] == "silver" else -1
            grain, silver = grain + sign * trade["count"], silver - sign * trade["count"]
        if trade is not None:
            order["trade"] = (
                {**trade, "at": at} if at == "decision" or rng.random() < 0.5 else trade
            )
        if pay:
            order["pay"] = [p["card"] for p in pay]
        if double is not None:
            order["double"] = double
        if used:
            order["chysarion"] = [c["card"] for c in used]
        if silver >= 1 and grain >= 1 and rng.random() < 0.6:
            order["decision"] = "store"
            order["store"] = rng.randint(1, grain)
        else:
            order["decision"] = rng.choice(("grain", "silver"))
        return order
    return {"decision": rng.choice(("grain", "silver"))}


def _guard(rng: random.Random, table: Table, seat: int, order: dict[str, Any]) -> None:
    """FF15: now and then a guard within what the seat holds once the rest of
    the order is done (known by carrying the order out on a copy)."""
    if rng.random() < 0.5:
        return
    after = table.copy()
    carry_out(after, seat, order)
    s = after.seats[seat]
    grain = rng.randint(0, min(GUARD_MAX, s.grain))
    silver = rng.randint(0, min(GUARD_MAX - grain, s.silver))
    guard: dict[str, int] = {}
    if grain or rng.random() < 0.5:
        guard["grain"] = grain
    if silver or rng.random() < 0.5:
        guard["silver"] = silver
    order["guard"] = guard


def random_order(table: Table, seat: int, rng: random.Random) -> dict[str, Any]:
    """A legal order for ``seat``, acting in ``table``'s open step."""
    opts = options(table, seat)
    assert opts is not None, f"seat {seat} does not act now"
    if opts["phase"] == "hire":
        order = hire_order(rng, table, seat, opts)
    elif opts["phase"] == "attack":
        order = attack_order(rng, table, opts)
    else:
        order = economy_order(rng, opts)
    if opts["guard"]:
        _guard(rng, table, seat, order)
    return order


def random_step(table: Table, rng: random.Random, missing: float = 0.0) -> dict[int, Any]:
    """Every acting seat's random order for the open step; each left out
    (FF7's default) with probability ``missing``."""
    step = table.next
    assert step is not None, "the match is over"
    return {
        seat: None if rng.random() < missing else random_order(table, seat, rng)
        for seat in step.acting
    }
