"""FO8-FO16 and FO20: one turn. :func:`play_turn` applies the acting seat's
order (or the default for a missing one) part by part, each part checked
against the state the parts before it left, and records the step.

An order is ``{"camp_start": SPACE, "action": ACTION, "drawbridge": SPACE}``
(docs/contracts/forfort/FORMAT.md). A refused order raises one
:class:`RuleError` with the first broken rule's stable code; the table is
then unchanged (the turn is played on a copy).

Pure: no Flask, SQL or click imports.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NoReturn

from referee.errors import RuleError
from referee.matchfile import seeded_hash as h
from referee.players import is_int

from .cards import CAMP, SYMBOLS
from .fort import CORNERS, EDGES, army_directions, in_front_line, neighbours, shape_of
from .legal import arrow_or_camp, forced_discard, has_army
from .state import (
    Army,
    Table,
    Turn,
    advance_armies,
    destroy,
    empty_spaces,
    place_wall,
)

ORDER_KEYS = ("camp_start", "action", "drawbridge")
KINDS = ("build", "effect", "camp", "discard")

# every code an order can be refused with (docs/contracts/forfort/FORMAT.md)
_ATTACK = ("bad_keys", "bad_target", "bad_space", "nothing")
_GARRISON = (
    "bad_keys",
    "bad_target",
    "bad_space",
    "no_army_left",
    "not_empty",
    "bad_direction",
    "no_invader",
)
_MASON = ("bad_keys", "not_in_discard", "bad_space", "shape", "army")
REFUSAL_CODES: frozenset[str] = frozenset(
    {
        "order/not_object",
        "order/bad_keys",
        "card/unknown",
        "camp_start/missing",
        "camp_start/not_first_turn",
        "camp_start/bad_space",
        "camp_start/not_empty",
        "action/missing",
        "action/hand_empty",
        "action/not_object",
        "action/bad_keys",
        "build/bad_keys",
        "build/not_in_hand",
        "build/bad_space",
        "build/shape",
        "build/army",
        "build/not_allowed",
        "effect/not_in_hand",
        "effect/no_symbol",
        *(f"mason/{c}" for c in (*_MASON, "not_allowed")),
        *(f"ram/{c}" for c in (*_ATTACK, "not_front_line", "protected")),
        *(f"trebuchet/{c}" for c in (*_ATTACK, "front_line", "protected")),
        "siege/bad_keys",
        "siege/bad_target",
        "siege/empty_dungeon",
        *(f"garrison/{c}" for c in _GARRISON),
        "camp/bad_keys",
        "camp/not_in_hand",
        "camp/bad_space",
        "camp/none_left",
        "camp/not_empty",
        "discard/bad_keys",
        "discard/not_in_hand",
        "discard/not_forced",
        "pair/not_list",
        "pair/not_object",
        "pair/unknown",
        "pair/repeated",
        *(f"pair_mason/{c}" for c in (*_MASON, "empty_dungeon", "not_last", "drawbridge")),
        *(f"pair_ram/{c}" for c in (*_ATTACK, "not_front_line")),
        *(f"pair_trebuchet/{c}" for c in (*_ATTACK, "front_line")),
        "pair_siege/bad_keys",
        "pair_siege/bad_target",
        "pair_siege/empty_dungeon",
        *(f"pair_garrison/{c}" for c in _GARRISON),
        "drawbridge/bad_space",
        "drawbridge/no_token",
        "drawbridge/not_gate",
        "step/not_acting",
    }
)


class Stop(Exception):
    """The acting seat's fort became complete (FO18): the rest of the order
    is neither applied nor checked."""


def refuse(code: str, message: str, field: str | None = None) -> NoReturn:
    raise RuleError.single(code, message, field)


def _shown(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:60] + "..."


def read_space(raw: object, code: str, what: str) -> int:
    """A space: a JSON whole number 1..8 (``true`` is not one)."""
    if is_int(raw) and 1 <= raw <= 8:
        return raw
    refuse(code, f"{what} must be a space from 1 to 8, not {_shown(raw)}")


def read_target(table: Table, seat: int, raw: object, code: str, what: str) -> int:
    """FO10: a target is another seat of the match."""
    if is_int(raw) and raw in table.seats and raw != seat:
        return raw
    others = ", ".join(map(str, table.others(seat)))
    refuse(code, f"{what} must be another seat ({others}), not {_shown(raw)}")


def read_card(table: Table, raw: object, what: str) -> str:
    """FO5: a card id (any case), lowercase; ``card/unknown`` for anything else."""
    card = table.cards.read(raw)
    if card is None:
        refuse("card/unknown", f"{what}: {_shown(raw)} is not a card of this match's card set")
    return card


def check_keys(raw: Mapping[str, Any], wanted: tuple[str, ...], code: str, what: str) -> None:
    """An object with exactly the keys ``wanted``."""
    if sorted(map(str, raw)) != sorted(wanted):
        refuse(
            code,
            f"{what} must have exactly the keys {', '.join(wanted)}, "
            f"not {', '.join(map(str, raw))}",
        )


def dungeon_taken(table: Table, seat: int, turn: Turn) -> None:
    """FO18: a dungeon that becomes empty during round r triggers the end."""
    if not table.seats[seat].dungeon and table.final_round is None:
        table.final_round = turn.round
        table.triggered_at = turn.step


def placed(table: Table, seat: int) -> None:
    """FO18: a build or a Mason placement that completes the fort ends the match."""
    if table.fort_complete(seat):
        table.completed = True
        raise Stop


# ---- FO9, FO11 placement --------------------------------------------------------------------


def check_placement(
    table: Table, seat: int, card: str, space: int, area: str, *, arrows: bool
) -> None:
    """FO9: the card's shape fits the space, no army is there, and (``arrows``)
    the space is an arrow of the top dungeon card or shows a camp."""
    wall = table.wall(card)
    if shape_of(space) != wall.shape:
        kind = "corner" if space in CORNERS else "edge"
        refuse(f"{area}/shape", f"{card} is {wall.shape}: it cannot go on {kind} {space}")
    if has_army(table, seat, space):
        refuse(f"{area}/army", f"space {space} holds an army: nothing can be built there")
    if arrows and not arrow_or_camp(table, seat, space):
        shown = table.top_arrows(seat)
        refuse(
            f"{area}/not_allowed",
            f"space {space} is neither an arrow of the top dungeon card "
            f"({'none: the dungeon is empty' if shown is None else list(shown)}) nor a camp",
        )


def fo9_build(
    table: Table, seat: int, turn: Turn, action: Mapping[str, Any], drawbridge: object
) -> dict[str, Any]:
    """FO9 then FO13: build a wall from the hand, then the listed pairs."""
    if not {"build", "space"} <= set(action) or not set(action) <= {"build", "space", "pairs"}:
        refuse("build/bad_keys", 'a build is {"build": CARD, "space": S, "pairs": [...]}')
    card = read_card(table, action["build"], "build")
    hand = table.seats[seat].hand
    if card not in hand:
        refuse("build/not_in_hand", f"{card} is not in the hand")
    space = read_space(action["space"], "build/bad_space", "the build's space")
    check_placement(table, seat, card, space, "build", arrows=True)
    raw_pairs = action.get("pairs", [])
    if not isinstance(raw_pairs, list):
        refuse("pair/not_list", f"'pairs' must be a list, not {_shown(raw_pairs)}")
    hand.remove(card)
    made = pairs_made(table, seat, space, card)
    out: dict[str, Any] = {"build": card, "space": space, "pairs": []}
    place_wall(table, seat, space, card)
    try:
        placed(table, seat)
        fo13_pairs(table, seat, turn, made, raw_pairs, drawbridge, out["pairs"])
    except Stop:
        pass
    if table.completed:
        raise _Completed(out)
    return out


class _Completed(Exception):
    """The action completed the fort: carries the action as far as it went."""

    def __init__(self, action: dict[str, Any]) -> None:
        super().__init__("completed")
        self.action = action


# ---- FO13 --------------------------------------------------------------------------------


def pairs_made(table: Table, seat: int, space: int, card: str) -> list[tuple[int, str]]:
    """FO13: (neighbour, symbol) for each ring neighbour of ``space`` whose
    visible wall shares a symbol with ``card``; by neighbour then FO2's order
    of the symbols."""
    symbols = set(table.wall(card).symbols)
    out: list[tuple[int, str]] = []
    for n in neighbours(space):
        wall = table.visible_wall(seat, n)
        if wall is not None:
            out += [(n, s) for s in SYMBOLS if s in symbols and s in wall.symbols]
    return out


def fo13_pairs(
    table: Table,
    seat: int,
    turn: Turn,
    made: list[tuple[int, str]],
    raw_pairs: list[Any],
    drawbridge: object,
    applied: list[dict[str, Any]],
) -> None:
    """FO13: each listed pair in turn, checked and applied against the state
    the earlier ones left; a pair that completes the fort stops the list."""
    used: set[tuple[int, str]] = set()
    for i, raw in enumerate(raw_pairs):
        what = f"pairs[{i}]"
        if not isinstance(raw, Mapping):
            refuse("pair/not_object", f"{what} must be an object, not {_shown(raw)}")
        key = (raw.get("with"), raw.get("symbol"))
        if not is_int(key[0]) or (key[0], key[1]) not in made:
            shown = ", ".join(f"with {n} {s}" for n, s in made) or "none"
            refuse(
                "pair/unknown",
                f"{what}: this build made no pair with {_shown(key[0])} on {_shown(key[1])} "
                f"(it made: {shown})",
            )
        pair = (int(key[0]), str(key[1]))
        if pair in used:
            refuse("pair/repeated", f"{what}: the pair with {pair[0]} on {pair[1]} is used twice")
        used.add(pair)
        last = i == len(raw_pairs) - 1
        out = _apply_pair(table, seat, turn, raw, pair, what, last=last, drawbridge=drawbridge)
        applied.append(out)
        placed_now = out.get("from") is not None
        if placed_now:
            try:
                placed(table, seat)
            except Stop:
                return


def _apply_pair(
    table: Table,
    seat: int,
    turn: Turn,
    raw: Mapping[str, Any],
    pair: tuple[int, str],
    what: str,
    *,
    last: bool,
    drawbridge: object,
) -> dict[str, Any]:
    n, symbol = pair
    head: dict[str, Any] = {"with": n, "symbol": symbol}
    area = f"pair_{symbol}"
    if symbol == "mason":
        source = raw.get("from")
        if source == "discard":
            check_keys(raw, ("with", "symbol", "from", "card", "space"), f"{area}/bad_keys", what)
            card = read_card(table, raw["card"], what)
            discard = table.seats[seat].discard
            if card == CAMP or card not in discard:
                refuse(f"{area}/not_in_discard", f"{what}: {card} is not in the discard pile")
            space = read_space(raw["space"], f"{area}/bad_space", f"{what}: the space")
            check_placement(table, seat, card, space, area, arrows=False)
            discard.remove(card)
            place_wall(table, seat, space, card)
            return {**head, "from": "discard", "card": card, "space": space}
        if source == "dungeon":
            check_keys(raw, ("with", "symbol", "from", "corner", "edge"), f"{area}/bad_keys", what)
            corner = read_space(raw["corner"], f"{area}/bad_space", f"{what}: the corner")
            edge = read_space(raw["edge"], f"{area}/bad_space", f"{what}: the edge")
            if corner not in CORNERS or edge not in EDGES:
                refuse(
                    f"{area}/shape",
                    f"{what}: 'corner' must be a corner (1, 3, 5, 7) and 'edge' an edge "
                    f"(2, 4, 6, 8), not {corner} and {edge}",
                )
            for s in (corner, edge):
                if has_army(table, seat, s):
                    refuse(f"{area}/army", f"{what}: space {s} holds an army")
            if not last:
                refuse(f"{area}/not_last", f"{what}: a dungeon Mason pair must be the last pair")
            if drawbridge is not None:
                refuse(
                    f"{area}/drawbridge",
                    f"{what}: an order with a dungeon Mason pair names no drawbridge",
                )
            dungeon = table.seats[seat].dungeon
            if not dungeon:
                refuse(f"{area}/empty_dungeon", f"{what}: the dungeon is empty")
            card = dungeon.pop(0)
            space = corner if table.wall(card).shape == "angled" else edge
            dungeon_taken(table, seat, turn)
            place_wall(table, seat, space, card)
            return {
                **head,
                "from": "dungeon",
                "corner": corner,
                "edge": edge,
                "card": card,
                "space": space,
            }
        refuse(
            f"{area}/bad_keys",
            f'{what}: \'from\' must be "discard" or "dungeon", not {_shown(source)}',
        )
    if symbol in ("ram", "trebuchet"):
        check_keys(raw, ("with", "symbol", "target", "space"), f"{area}/bad_keys", what)
        target, space = attack(table, seat, raw, area, what, symbol, pair=True)
        return {**head, "target": target, "space": space}
    if symbol == "siege":
        check_keys(raw, ("with", "symbol", "targets"), f"{area}/bad_keys", what)
        targets = raw["targets"]
        if not isinstance(targets, list) or not 1 <= len(targets) <= 2:
            refuse(f"{area}/bad_keys", f"{what}: 'targets' must be a list of 1 or 2 seats")
        done = [
            siege(table, seat, turn, t, area, f"{what}.targets[{j}]") for j, t in enumerate(targets)
        ]
        return {**head, "targets": done}
    check_keys(raw, ("with", "symbol", "uses"), f"{area}/bad_keys", what)
    uses = raw["uses"]
    if not isinstance(uses, list) or not 1 <= len(uses) <= 2:
        refuse(f"{area}/bad_keys", f"{what}: 'uses' must be a list of 1 or 2 uses")
    done_uses = []
    for j, use in enumerate(uses):
        where = f"{what}.uses[{j}]"
        if not isinstance(use, Mapping):
            refuse(f"{area}/bad_keys", f"{where} must be an object")
        done_uses.append(garrison(table, seat, use, area, where))
    return {**head, "uses": done_uses}


# ---- FO11, FO12 effects --------------------------------------------------------------------


def attack(
    table: Table,
    seat: int,
    raw: Mapping[str, Any],
    area: str,
    what: str,
    symbol: str,
    *,
    pair: bool,
) -> tuple[int, int]:
    """FO11: a Battering Ram (front line) or Trebuchet (not the front line)
    destroys the stack on the target's space; a pair ignores protection."""
    target = read_target(table, seat, raw["target"], f"{area}/bad_target", f"{what}: the target")
    space = read_space(raw["space"], f"{area}/bad_space", f"{what}: the space")
    front = in_front_line(table.count, target, seat, space)
    if symbol == "ram" and not front:
        refuse(
            f"{area}/not_front_line",
            f"{what}: space {space} is not in seat {target}'s front line for you",
        )
    if symbol == "trebuchet" and front:
        refuse(
            f"{area}/front_line", f"{what}: space {space} is in seat {target}'s front line for you"
        )
    if not table.seats[target].spaces[space].stack:
        refuse(f"{area}/nothing", f"{what}: seat {target}'s space {space} holds no card")
    if not pair and table.shows_protected(target, space):
        refuse(f"{area}/protected", f"{what}: seat {target}'s space {space} shows a protected wall")
    destroy(table, target, space)
    return target, space


def siege(table: Table, seat: int, turn: Turn, raw: object, area: str, what: str) -> int:
    """FO12: the top card of the target's dungeon goes face up to its discard pile."""
    target = read_target(table, seat, raw, f"{area}/bad_target", f"{what}: the target")
    dungeon = table.seats[target].dungeon
    if not dungeon:
        refuse(f"{area}/empty_dungeon", f"{what}: seat {target}'s dungeon is empty")
    table.seats[target].discard.append(dungeon.pop(0))
    dungeon_taken(table, target, turn)
    return target


def garrison(
    table: Table, seat: int, raw: Mapping[str, Any], area: str, what: str
) -> dict[str, Any]:
    """FO12: place an army from the supply on another seat's empty space, or
    defeat an army in the seat's own fort. ``raw`` holds the use's keys
    (``target``, ``space``, ``direction``) or ``defeat``."""
    use = raw
    if set(use) == {"defeat"}:
        space = read_space(use["defeat"], f"{area}/bad_space", f"{what}: 'defeat'")
        here = table.seats[seat].spaces[space]
        if here.army is None:
            refuse(f"{area}/no_invader", f"{what}: your space {space} holds no army")
        table.seats[here.army.seat].defeated += 1
        here.army = None
        return {"defeat": space}
    if set(use) != {"target", "space", "direction"}:
        refuse(
            f"{area}/bad_keys",
            f"{what}: a Garrison use is target, space and direction, or defeat; "
            f"not {', '.join(map(str, use))}",
        )
    target = read_target(table, seat, use["target"], f"{area}/bad_target", f"{what}: the target")
    space = read_space(use["space"], f"{area}/bad_space", f"{what}: the space")
    if table.seats[seat].armies == 0:
        refuse(f"{area}/no_army_left", f"{what}: no army card is left in your supply")
    if not table.seats[target].spaces[space].empty:
        refuse(f"{area}/not_empty", f"{what}: seat {target}'s space {space} is not empty")
    direction = use["direction"]
    legal = army_directions(space)
    if direction not in legal:
        refuse(
            f"{area}/bad_direction",
            f"{what}: an army on space {space} may go {' or '.join(legal)}, "
            f"not {_shown(direction)}",
        )
    table.seats[seat].armies -= 1
    table.seats[target].spaces[space].army = Army(seat, str(direction))
    return {"target": target, "space": space, "direction": direction}


def fo10_effect(table: Table, seat: int, turn: Turn, action: Mapping[str, Any]) -> dict[str, Any]:
    """FO10-FO12: use one symbol of a hand card; the card then goes to the
    discard pile (a Mason's as its wall leaves the pile, FO11)."""
    card = read_card(table, action["effect"], "effect")
    hand = table.seats[seat].hand
    if card not in hand:
        refuse("effect/not_in_hand", f"{card} is not in the hand")
    symbol = action.get("symbol")
    symbols = table.wall(card).symbols
    if not isinstance(symbol, str) or symbol not in symbols:
        shown = ", ".join(symbols) or "none"
        refuse("effect/no_symbol", f"{card} has no symbol {_shown(symbol)} (its symbols: {shown})")
    head: dict[str, Any] = {"effect": card, "symbol": symbol}
    what = f"the {symbol} effect"
    if symbol == "mason":
        check_keys(action, ("effect", "symbol", "card", "space"), "mason/bad_keys", what)
        wall = read_card(table, action["card"], what)
        discard = table.seats[seat].discard
        if wall == CAMP or wall not in discard:
            refuse("mason/not_in_discard", f"{what}: {wall} is not in the discard pile")
        space = read_space(action["space"], "mason/bad_space", f"{what}: the space")
        check_placement(table, seat, wall, space, "mason", arrows=True)
        hand.remove(card)
        discard.remove(wall)
        discard.append(card)
        place_wall(table, seat, space, wall)
        out = {**head, "card": wall, "space": space}
        if table.fort_complete(seat):
            table.completed = True
            raise _Completed(out)
        return out
    if symbol in ("ram", "trebuchet"):
        check_keys(action, ("effect", "symbol", "target", "space"), f"{symbol}/bad_keys", what)
        target, space = attack(table, seat, action, symbol, what, symbol, pair=False)
        done: dict[str, Any] = {**head, "target": target, "space": space}
    elif symbol == "siege":
        check_keys(action, ("effect", "symbol", "target"), "siege/bad_keys", what)
        done = {**head, "target": siege(table, seat, turn, action["target"], "siege", what)}
    else:
        use = {k: v for k, v in action.items() if k not in ("effect", "symbol")}
        done = {**head, **garrison(table, seat, use, "garrison", what)}
    hand.remove(card)
    table.seats[seat].discard.append(card)
    return done


# ---- FO14 -----------------------------------------------------------------------------------


def fo14_camp(table: Table, seat: int, action: Mapping[str, Any]) -> dict[str, Any]:
    """FO14: discard a hand card to place a camp from the supply on an empty space."""
    check_keys(action, ("camp", "space"), "camp/bad_keys", "a camp action")
    card = read_card(table, action["camp"], "camp")
    hand = table.seats[seat].hand
    if card not in hand:
        refuse("camp/not_in_hand", f"{card} is not in the hand")
    space = read_space(action["space"], "camp/bad_space", "the camp's space")
    if table.seats[seat].camps == 0:
        refuse("camp/none_left", "no camp card is left in the supply")
    if not table.seats[seat].spaces[space].empty:
        refuse("camp/not_empty", f"space {space} is not empty")
    hand.remove(card)
    table.seats[seat].discard.append(card)
    table.seats[seat].camps -= 1
    table.seats[seat].spaces[space].stack.append(CAMP)
    return {"camp": card, "space": space}


def fo14_discard(
    table: Table, seat: int, action: Mapping[str, Any], *, forced: bool = True
) -> dict[str, Any]:
    """FO14: the forced discard, allowed only when nothing else is (a
    defaulted turn, FO20, discards whatever it could do)."""
    check_keys(action, ("discard",), "discard/bad_keys", "a discard")
    card = read_card(table, action["discard"], "discard")
    hand = table.seats[seat].hand
    if card not in hand:
        refuse("discard/not_in_hand", f"{card} is not in the hand")
    if forced and not forced_discard(table, seat):
        refuse(
            "discard/not_forced",
            "a card may be discarded only when no build, no effect and no camp is possible",
        )
    hand.remove(card)
    table.seats[seat].discard.append(card)
    return {"discard": card}


# ---- FO8: the whole turn -----------------------------------------------------------------------


def first_camp(table: Table, seat: int, raw: object) -> int | None:
    """FO8 part 1: the first turn's camp on an empty space (none when no
    space is empty); refused in any later turn."""
    first = table.seats[seat].turns == 0
    if not first:
        if raw is not None:
            refuse("camp_start/not_first_turn", "'camp_start' is only for the seat's first turn")
        return None
    empty = empty_spaces(table, seat)
    if raw is None:
        if empty:
            refuse("camp_start/missing", "the first turn needs 'camp_start': an empty space")
        return None
    space = read_space(raw, "camp_start/bad_space", "'camp_start'")
    if space not in empty:
        refuse("camp_start/not_empty", f"'camp_start' {space} is not an empty space")
    table.seats[seat].camps -= 1
    table.seats[seat].spaces[space].stack.append(CAMP)
    return space


def fo16_drawbridge(table: Table, seat: int, raw: object) -> int | None:
    """FO16: the token from the supply onto a visible gate wall of the fort."""
    if raw is None:
        return None
    space = read_space(raw, "drawbridge/bad_space", "'drawbridge'")
    if table.seats[seat].drawbridge is not None:
        refuse("drawbridge/no_token", "the drawbridge token is not in the supply")
    wall = table.visible_wall(seat, space)
    if wall is None or not wall.gate:
        refuse("drawbridge/not_gate", f"space {space} does not show a gate wall")
    table.seats[seat].drawbridge = space
    return space


def apply_action(
    table: Table, seat: int, turn: Turn, raw: object, drawbridge: object
) -> dict[str, Any] | None:
    """FO8 part 3: exactly one action when the hand holds a card, none when empty."""
    hand = table.seats[seat].hand
    if raw is None:
        if hand:
            refuse("action/missing", "the order needs an 'action': the hand holds a card")
        return None
    if not hand:
        refuse("action/hand_empty", "the hand is empty: the action must be null")
    if not isinstance(raw, Mapping):
        refuse("action/not_object", f"'action' must be an object, not {_shown(raw)}")
    kinds = [k for k in KINDS if k in raw]
    if len(kinds) != 1:
        refuse(
            "action/bad_keys",
            f"'action' must name exactly one of build, effect, camp, discard "
            f"(it has {', '.join(map(str, raw)) or 'no key'})",
        )
    kind = kinds[0]
    if kind == "build":
        return fo9_build(table, seat, turn, raw, drawbridge)
    if kind == "effect":
        return fo10_effect(table, seat, turn, raw)
    if kind == "camp":
        return fo14_camp(table, seat, raw)
    return fo14_discard(table, seat, raw)


def default_camp(table: Table, seat: int, turn: Turn) -> int | None:
    """FO20: a missing order's first camp: the empty space with the smallest
    h(nmr, camp, k, s, space); none in a later turn or with no empty space."""
    if table.seats[seat].turns > 0:
        return None
    empty = empty_spaces(table, seat)
    if not empty:
        return None
    return min(empty, key=lambda s: h(table.seed, "nmr", "camp", turn.step, seat, s))


def default_discard(table: Table, seat: int, turn: Turn) -> dict[str, Any] | None:
    """FO20: a missing order's action: discard the hand card with the smallest
    h(nmr, discard, k, s, card), even when other actions were possible; none
    with an empty hand."""
    hand = table.seats[seat].hand
    if not hand:
        return None
    card = min(hand, key=lambda c: h(table.seed, "nmr", "discard", turn.step, seat, c))
    return fo14_discard(table, seat, {"discard": card}, forced=False)


def next_turn(table: Table, turn: Turn, extra: bool) -> Turn | None:
    """FO7, FO18: the step after ``turn``: the same seat's extra turn after a
    drawbridge, else the seat on its left (a new round after seat n); None
    when the match is over (a completed fort, or the end of the final round)."""
    if table.completed:
        return None
    if extra:
        return Turn(turn.step + 1, turn.seat, turn.round, True)
    seat = turn.seat % table.count + 1
    round_ = turn.round + 1 if seat == 1 else turn.round
    if table.final_round is not None and round_ > table.final_round:
        return None
    return Turn(turn.step + 1, seat, round_, False)


def play_turn(table: Table, order: object) -> Table:
    """Close the next step with the acting seat's ``order`` (None: no order,
    FO20's default): the new table, or a RuleError (``table`` is unchanged)."""
    turn = table.next
    assert turn is not None, "the match is over"
    seat = turn.seat
    work = table.copy()
    work.seats[seat].hand = work.cards.sort(work.seats[seat].hand)
    defaulted = order is None
    if order is not None and not isinstance(order, Mapping):
        refuse("order/not_object", f"an order must be an object, not {_shown(order)}")
    if isinstance(order, Mapping):
        extra = sorted(str(k) for k in order if k not in ORDER_KEYS)
        if extra:
            refuse(
                "order/bad_keys",
                f"an order has only camp_start, action and drawbridge, not {', '.join(extra)}",
            )
    raw: Mapping[str, Any] = order if isinstance(order, Mapping) else {}
    if defaulted:
        camp_start = first_camp(work, seat, default_camp(work, seat, turn))
    else:
        camp_start = first_camp(work, seat, raw.get("camp_start"))
    armies = advance_armies(work, seat)
    drawbridge: int | None = None
    try:
        if defaulted:
            action = default_discard(work, seat, turn)
        else:
            action = apply_action(work, seat, turn, raw.get("action"), raw.get("drawbridge"))
            drawbridge = fo16_drawbridge(work, seat, raw.get("drawbridge"))
    except _Completed as done:
        action = done.action
        drawbridge = None
    drew: str | None = None
    if not work.completed:
        dungeon = work.seats[seat].dungeon
        if dungeon:
            drew = dungeon.pop(0)
            work.seats[seat].hand = work.cards.sort([*work.seats[seat].hand, drew])
            dungeon_taken(work, seat, turn)
    else:
        work.completed_by = seat
    work.seats[seat].turns += 1
    work.steps.append(
        {
            **turn.as_json(),
            "defaulted": defaulted,
            "armies": armies,
            "order": {"camp_start": camp_start, "action": action, "drawbridge": drawbridge},
            "drew": drew,
        }
    )
    if defaulted:
        work.defaulted.append((turn.step, seat))
    work.next = next_turn(work, turn, drawbridge is not None)
    return work
