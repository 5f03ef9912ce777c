"""Forfort's state in words, for posts and the command-line summary: a fort
space by space, an order, a card list. Only what a result shows (FO21).

Pure: no Flask, SQL or click imports.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from .fort import SPACES

Who = Callable[[int], str]


def cards_text(cards: object) -> str:
    """A list of card ids (camps shown as ``camp``), or "none"."""
    items = [str(c) for c in cards] if isinstance(cards, list) else []
    return ", ".join(items) or "none"


def space_text(number: int, space: Mapping[str, Any], who: Who) -> str | None:
    """One space of a fort: its visible card (and what it covers) or the army
    on it; None when empty."""
    army = space.get("army")
    if isinstance(army, Mapping):
        return f"{number} army of {who(int(army['seat']))} heading {army['direction']}"
    stack = [str(c) for c in space.get("stack") or []]
    if not stack:
        return None
    text = f"{number} {stack[-1]}"
    if len(stack) > 1:
        text += f" (over {', '.join(reversed(stack[:-1]))})"
    return text


def fort_text(fort: Mapping[str, Any], who: Who) -> str:
    """A fort in words: each space that holds something, then the drawbridge."""
    spaces = fort.get("spaces") or {}
    parts = [
        text for s in SPACES if (text := space_text(s, spaces.get(str(s)) or {}, who)) is not None
    ]
    out = "; ".join(parts) if parts else "empty"
    bridge = fort.get("drawbridge")
    if bridge is not None:
        out += f"; drawbridge down on {bridge}"
    return out


def _pair_text(pair: Mapping[str, Any], who: Who) -> str:
    symbol = str(pair.get("symbol"))
    text = f"{symbol} pair with {pair.get('with')}"
    if symbol == "mason":
        if pair.get("from") == "dungeon":
            card = pair.get("card")
            where = pair.get("space")
            return text + (
                f": {card} from the dungeon to {where}" if card else ": from the dungeon"
            )
        return text + f": {pair.get('card')} from the discard pile to {pair.get('space')}"
    if symbol in ("ram", "trebuchet"):
        return text + f": {who(int(pair['target']))} space {pair.get('space')}"
    if symbol == "siege":
        return text + ": " + ", ".join(who(int(t)) for t in pair.get("targets") or [])
    return text + ": " + "; ".join(_use_text(u, who) for u in pair.get("uses") or [])


def _use_text(use: Mapping[str, Any], who: Who) -> str:
    if "defeat" in use:
        return f"defeated the army on {use['defeat']}"
    return (
        f"army to {who(int(use['target']))} space {use.get('space')} heading {use.get('direction')}"
    )


def action_text(action: object, who: Who) -> str:
    """A normalised action (FO8) in words."""
    if not isinstance(action, Mapping):
        return "no action"
    if "build" in action:
        text = f"built {action['build']} on {action.get('space')}"
        pairs = [p for p in action.get("pairs") or [] if isinstance(p, Mapping)]
        if pairs:
            text += " (" + "; ".join(_pair_text(p, who) for p in pairs) + ")"
        return text
    if "effect" in action:
        symbol = str(action.get("symbol"))
        text = f"{action['effect']} as {symbol}"
        if symbol == "mason":
            return text + f": {action.get('card')} from the discard pile to {action.get('space')}"
        if symbol in ("ram", "trebuchet"):
            return text + f" on {who(int(action['target']))} space {action.get('space')}"
        if symbol == "siege":
            return text + f" on {who(int(action['target']))}'s dungeon"
        return text + ": " + _use_text(action, who)
    if "camp" in action:
        return f"discarded {action['camp']} for a camp on {action.get('space')}"
    return f"discarded {action.get('discard')}"


def step_text(step: Mapping[str, Any], who: Who) -> str:
    """One closed step in words (the order as the result shows it)."""
    order = step.get("order") or {}
    parts = []
    if order.get("camp_start") is not None:
        parts.append(f"first camp on {order['camp_start']}")
    parts.append(action_text(order.get("action"), who))
    if order.get("drawbridge") is not None:
        parts.append(f"drawbridge on {order['drawbridge']}")
    lost = [
        f"{a['outcome']} at {a['to']}" if a.get("to") is not None else str(a["outcome"])
        for a in step.get("armies") or []
        if a.get("outcome") != "moved"
    ]
    if lost:
        parts.append("armies: " + ", ".join(lost))
    head = f"Step {step['step']}, {who(int(step['seat']))}"
    if step.get("extra"):
        head += " (extra turn)"
    if step.get("defaulted"):
        head += " (no order: seeded default)"
    return f"{head}: " + "; ".join(parts)
