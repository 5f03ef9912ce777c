"""Typical orders of the acting seat, built from its ``options`` (FORMAT's
API bodies), for the conformance suite and tools: a plain build first, then
a build with each kind of pair its options offer (a Mason pair from the
discard pile and from the dungeon, a Ram or Trebuchet pair, a Siege Tower
pair twice, a Garrison pair with two uses), an effect of each symbol, a
camp, the forced discard, and the drawbridge after an action that leaves a
gate for it. Each is legal for one part at a time (the options say so); the
rules still check the whole order.

Pure: no Flask, SQL or click imports.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def _first(mapping: Mapping[str, Any]) -> tuple[str, Any]:
    key = sorted(mapping)[0]
    return key, mapping[key]


def _use(symbol: str, choices: Mapping[str, Any]) -> dict[str, Any] | None:
    """The first use of an effect of ``symbol`` its choices allow (FO11, FO12)."""
    if symbol == "mason":
        discard = choices["discard"]
        if not discard:
            return None
        card, spaces = _first(discard)
        return {"card": card, "space": spaces[0]} if spaces else None
    if symbol in ("ram", "trebuchet"):
        targets = {t: s for t, s in choices.items() if s}
        if not targets:
            return None
        target, spaces = _first(targets)
        return {"target": int(target), "space": spaces[0]}
    if symbol == "siege":
        return {"target": int(_first(choices)[0])} if choices else None
    if choices["defeat"]:
        return {"defeat": choices["defeat"][0]}
    if choices["place"] and choices["armies"]:
        target, spaces = _first(choices["place"])
        space, directions = _first(spaces)
        return {"target": int(target), "space": int(space), "direction": directions[0]}
    return None


def _pair(pair: Mapping[str, Any]) -> list[dict[str, Any]]:
    """A pair's orders (FO13): each form its choices allow, the richest first."""
    symbol, c = pair["symbol"], pair["choices"]
    head = {"with": pair["with"], "symbol": symbol}
    out: list[dict[str, Any]] = []
    if symbol == "mason":
        use = _use("mason", c)
        if use is not None:
            out.append({**head, "from": "discard", **use})
        dungeon = c["dungeon"]
        if dungeon and dungeon["corners"] and dungeon["edges"]:
            corner, edge = dungeon["corners"][0], dungeon["edges"][0]
            out.append({**head, "from": "dungeon", "corner": corner, "edge": edge})
        return out
    if symbol in ("ram", "trebuchet"):
        use = _use(symbol, c)
        return [] if use is None else [{**head, **use}]
    if symbol == "siege":
        if not c:
            return []
        target, count = _first(c)
        twice = [int(target)] * (2 if count >= 2 else 1)
        return [{**head, "targets": twice}, {**head, "targets": [int(target)]}]
    uses: list[dict[str, Any]] = []
    if c["defeat"]:
        uses.append({"defeat": c["defeat"][0]})
    if c["place"] and c["armies"]:
        target, spaces = _first(c["place"])
        space, directions = _first(spaces)
        uses.append({"target": int(target), "space": int(space), "direction": directions[0]})
    return [{**head, "uses": uses}] if uses else []


def _builds(option_set: Mapping[str, Any]) -> list[dict[str, Any]]:
    """A plain build, then one build per kind of pair offered (each symbol once)."""
    out: list[dict[str, Any]] = []
    builds = option_set["build"]
    if not builds:
        return out
    card, spaces = _first(builds)
    out.append({"build": card, "space": spaces[0]["space"], "pairs": []})
    seen: set[str] = set()
    for card in sorted(builds):
        for choice in builds[card]:
            for pair in choice["pairs"]:
                for made in _pair(pair):
                    kind = f"{made['symbol']}:{made.get('from', '')}"
                    if kind in seen:
                        continue
                    seen.add(kind)
                    out.append({"build": card, "space": choice["space"], "pairs": [made]})
    return out


def _effects(option_set: Mapping[str, Any]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    seen: set[str] = set()
    for card in sorted(option_set["effects"]):
        for symbol, c in option_set["effects"][card].items():
            use = _use(symbol, c)
            if symbol in seen or use is None:
                continue
            seen.add(symbol)
            out.append({"effect": card, "symbol": symbol, **use})
    return out


def _with_drawbridge(actions: list[dict[str, Any]], gates: list[int] | None) -> list[Any]:
    """The first action that leaves a gate for the token, with the token on it."""
    if not gates:
        return []
    for action in actions:
        built = (
            action.get("space") if ("build" in action or action.get("symbol") == "mason") else None
        )
        pairs = action.get("pairs") or []
        if any(p.get("from") == "dungeon" for p in pairs):
            continue  # FO13: no drawbridge after a dungeon Mason pair
        left = [g for g in gates if g != built and all(g != p.get("space") for p in pairs)]
        if left:
            return [(action, left[0])]
    return []


def candidate_orders(view: Mapping[str, Any]) -> list[Any]:
    """Orders built from a seat's view (its ``options`` and ``hand``): none
    when it does not act."""
    opts = view.get("options")
    if not isinstance(opts, Mapping):
        return []
    hand = [str(c) for c in view.get("hand") or []]
    head: dict[str, Any] = {}
    option_set: Mapping[str, Any] = opts
    if opts.get("by_camp_start"):
        camp, option_set = _first(opts["by_camp_start"])
        head["camp_start"] = int(camp)
    if not hand:
        return [{**head, "action": None}]
    actions = _builds(option_set) + _effects(option_set)
    if option_set["camp_spaces"]:
        actions.append({"camp": hand[-1], "space": option_set["camp_spaces"][0]})
    if option_set["forced_discard"] or not actions:
        actions.append({"discard": hand[0]})
    out: list[Any] = [{**head, "action": a} for a in actions]
    for action, gate in _with_drawbridge(actions, option_set["drawbridge"]):
        out.insert(1, {**head, "action": action, "drawbridge": gate})
    return out
