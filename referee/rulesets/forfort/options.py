"""The acting seat's legal choices in the open step (docs/contracts/forfort/FORMAT.md,
API bodies: ``options``), computed after FO8 parts 1 and 2: the first camp
placed (one option set per choice of it), the seat's armies advanced.

Options are exact for one part at a time; the order is still checked as a
whole by FO8 (:mod:`.orders`).

Pure: no Flask, SQL or click imports.
"""

from __future__ import annotations

from typing import Any

from .cards import CAMP
from .legal import (
    attack_targets,
    build_spaces,
    camp_spaces,
    dungeon_mason,
    forced_discard,
    garrison_places,
    gate_spaces,
    invaders,
    mason_discard,
    siege_targets,
    symbol_usable,
)
from .orders import pairs_made
from .state import Table, advance_armies, empty_spaces


def choices(table: Table, seat: int, symbol: str, *, pair: bool) -> dict[str, Any]:
    """FO11-FO13: what an effect (``pair``: a pair) of ``symbol`` may name,
    seats and spaces as string keys."""
    if symbol == "mason":
        return {
            "discard": mason_discard(table, seat, pair=pair),
            "dungeon": dungeon_mason(table, seat) if pair else None,
        }
    if symbol in ("ram", "trebuchet"):
        targets = attack_targets(table, seat, symbol, pair=pair)
        return {str(t): spaces for t, spaces in targets.items()}
    if symbol == "siege":
        return {str(t): n for t, n in siege_targets(table, seat).items()}
    places = garrison_places(table, seat)
    return {
        "defeat": invaders(table, seat),
        "place": {
            str(t): {str(s): dirs for s, dirs in spaces.items()} for t, spaces in places.items()
        },
        "armies": table.seats[seat].armies,
    }


def build_options(table: Table, seat: int) -> dict[str, list[dict[str, Any]]]:
    """FO9, FO13: each hand card with a legal space, its spaces ascending, and
    the pairs each build would make with their choices right after the build
    (no pair's choice depends on the seat's own stacks, so the state now)."""
    out: dict[str, list[dict[str, Any]]] = {}
    for card in table.seats[seat].hand:
        spaces = build_spaces(table, seat, card)
        if not spaces:
            continue
        out[card] = [
            {
                "space": space,
                "pairs": [
                    {"with": n, "symbol": sym, "choices": choices(table, seat, sym, pair=True)}
                    for n, sym in pairs_made(table, seat, space, card)
                ],
            }
            for space in spaces
        ]
    return out


def effect_options(table: Table, seat: int) -> dict[str, dict[str, Any]]:
    """FO10-FO12: each hand card's symbols with a legal use, and their choices."""
    out: dict[str, dict[str, Any]] = {}
    for card in table.seats[seat].hand:
        usable = {
            sym: choices(table, seat, sym, pair=False)
            for sym in table.wall(card).symbols
            if symbol_usable(table, seat, sym)
        }
        if usable:
            out[card] = usable
    return out


def option_set(table: Table, seat: int) -> dict[str, Any]:
    """FORMAT's option set, for ``table`` after FO8 parts 1 and 2."""
    forced = forced_discard(table, seat)
    token_free = table.seats[seat].drawbridge is None
    return {
        "build": build_options(table, seat),
        "effects": effect_options(table, seat),
        "camp_spaces": camp_spaces(table, seat),
        "forced_discard": forced,
        "drawbridge": gate_spaces(table, seat) if token_free else None,
    }


def after_camp_and_advance(table: Table, seat: int, camp: int | None) -> Table:
    """A copy of ``table`` after FO8 part 1 (``camp``: the first camp's space)
    and part 2 (the seat's armies advance)."""
    work = table.copy()
    if camp is not None:
        work.seats[seat].camps -= 1
        work.seats[seat].spaces[camp].stack.append(CAMP)
    advance_armies(work, seat)
    return work


def options(table: Table) -> dict[str, Any] | None:
    """The acting seat's ``options`` for the next step; None when the match is over."""
    if table.next is None:
        return None
    seat = table.next.seat
    if table.seats[seat].turns > 0:
        work = after_camp_and_advance(table, seat, None)
        return {"camp_start": None, "by_camp_start": None, **option_set(work, seat)}
    empty = empty_spaces(table, seat)
    if not empty:
        work = after_camp_and_advance(table, seat, None)
        return {"camp_start": [], "by_camp_start": None, **option_set(work, seat)}
    return {
        "camp_start": empty,
        "by_camp_start": {
            str(s): option_set(after_camp_and_advance(table, seat, s), seat) for s in empty
        },
    }
