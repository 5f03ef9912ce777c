"""Random legal orders built from the acting seat's ``options`` (for the
property tests, and a demo to come): a first camp, one action (a build with
at most one pair, an effect, a camp or the forced discard) and, now and then,
the drawbridge the options allow after that action.

Pure: no Flask, SQL or click imports.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

from .options import options
from .state import Table


def _pick_space_list(rng: random.Random, by_key: Mapping[str, Any]) -> tuple[str, Any]:
    key = rng.choice(sorted(by_key))
    return key, by_key[key]


def _effect_args(rng: random.Random, symbol: str, choices: Mapping[str, Any]) -> dict[str, Any]:
    """The keys of one use of ``symbol`` chosen from its ``choices``."""
    if symbol == "mason":
        card, spaces = _pick_space_list(rng, choices["discard"])
        return {"card": card, "space": rng.choice(spaces)}
    if symbol in ("ram", "trebuchet"):
        target, spaces = _pick_space_list(rng, choices)
        return {"target": int(target), "space": rng.choice(spaces)}
    if symbol == "siege":
        return {"target": int(rng.choice(sorted(choices)))}
    if choices["defeat"] and (not choices["place"] or rng.random() < 0.5):
        return {"defeat": rng.choice(choices["defeat"])}
    target, spaces = _pick_space_list(rng, choices["place"])
    space, directions = _pick_space_list(rng, spaces)
    return {"target": int(target), "space": int(space), "direction": rng.choice(directions)}


def _pair(rng: random.Random, pair: Mapping[str, Any]) -> dict[str, Any] | None:
    """One pair's order from its choices, or None when it has no use now."""
    symbol, c = pair["symbol"], pair["choices"]
    head = {"with": pair["with"], "symbol": symbol}
    if symbol == "mason":
        dungeon = c["dungeon"]
        usable = dungeon is not None and dungeon["corners"] and dungeon["edges"]
        if usable and (not c["discard"] or rng.random() < 0.5):
            corner = rng.choice(dungeon["corners"])
            edge = rng.choice(dungeon["edges"])
            return {**head, "from": "dungeon", "corner": corner, "edge": edge}
        if not c["discard"]:
            return None
        card, spaces = _pick_space_list(rng, c["discard"])
        return {**head, "from": "discard", "card": card, "space": rng.choice(spaces)}
    if symbol in ("ram", "trebuchet"):
        if not c:
            return None
        target, spaces = _pick_space_list(rng, c)
        return {**head, "target": int(target), "space": rng.choice(spaces)}
    if symbol == "siege":
        if not c:
            return None
        first = rng.choice(sorted(c))
        targets = [int(first)]
        if rng.random() < 0.5 and c[first] >= 2:
            targets.append(int(first))
        return {**head, "targets": targets}
    if not c["defeat"] and not c["place"]:
        return None
    return {**head, "uses": [_effect_args(rng, "garrison", c)]}


def _action(
    rng: random.Random, opts: Mapping[str, Any], hand: list[str], table: Table
) -> tuple[dict[str, Any] | None, list[int] | None]:
    """An action and the drawbridge spaces left after it (FORMAT: a space
    built on leaves the list, and joins it when the wall built is a gate)."""
    gates = opts["drawbridge"]
    kinds = [k for k in ("build", "effects") if opts[k]]
    if opts["camp_spaces"]:
        kinds.append("camp")
    if not hand:
        return None, gates
    if opts["forced_discard"] or not kinds:
        return {"discard": rng.choice(hand)}, gates
    kind = rng.choice(kinds)
    if kind == "camp":
        return {"camp": rng.choice(hand), "space": rng.choice(opts["camp_spaces"])}, gates
    built: tuple[str, int] | None = None
    if kind == "build":
        card, spaces = _pick_space_list(rng, opts["build"])
        choice = rng.choice(spaces)
        action: dict[str, Any] = {"build": card, "space": choice["space"], "pairs": []}
        # the build's wall first: a Mason pair may then cover it
        gates = _after_build(table, gates, card, choice["space"])
        if choice["pairs"] and rng.random() < 0.8:
            pair = _pair(rng, rng.choice(choice["pairs"]))
            if pair is not None:
                action["pairs"].append(pair)
                if pair["symbol"] == "mason" and pair["from"] == "dungeon":
                    return action, None
                if pair["symbol"] == "mason":
                    gates = _after_build(table, gates, pair["card"], pair["space"])
    else:
        card, symbols = _pick_space_list(rng, opts["effects"])
        symbol, c = _pick_space_list(rng, symbols)
        action = {"effect": card, "symbol": symbol, **_effect_args(rng, symbol, c)}
        if symbol == "mason":
            built = (action["card"], action["space"])
    if built is not None:
        gates = _after_build(table, gates, *built)
    return action, gates


def _after_build(table: Table, gates: list[int] | None, card: str, space: int) -> list[int] | None:
    if gates is None:
        return None
    out = [s for s in gates if s != space]
    if table.wall(card).gate:
        out.append(space)
    return sorted(out)


def random_order(table: Table, rng: random.Random) -> dict[str, Any]:
    """A legal order for the acting seat of ``table``'s next step."""
    opts = options(table)
    assert opts is not None and table.next is not None
    seat = table.next.seat
    order: dict[str, Any] = {}
    if opts["by_camp_start"] is not None:
        camp = rng.choice(opts["camp_start"])
        order["camp_start"] = camp
        opts = opts["by_camp_start"][str(camp)]
    hand = list(table.seats[seat].hand)
    action, gates = _action(rng, opts, hand, table)
    order["action"] = action
    if gates and rng.random() < 0.5:
        order["drawbridge"] = rng.choice(gates)
    return order
