"""Where each action may go: the placement and target rules of FO9-FO14, as
small predicates and lists. The order checks (:mod:`.orders`) give each
broken rule its code; the options (:mod:`.options`) and the forced-discard
test (FO14) list what is legal with these.

Pure: no Flask, SQL or click imports.
"""

from __future__ import annotations

from .cards import CAMP
from .fort import CORNERS, EDGES, SPACES, army_directions, in_front_line, shape_of
from .state import Table


def has_army(table: Table, seat: int, space: int) -> bool:
    return table.seats[seat].spaces[space].army is not None


def arrow_or_camp(table: Table, seat: int, space: int) -> bool:
    """FO9: ``space`` is an arrow of the seat's top dungeon card now, or shows a camp."""
    arrows = table.top_arrows(seat)
    return (arrows is not None and space in arrows) or table.shows_camp(seat, space)


def build_spaces(table: Table, seat: int, card: str) -> list[int]:
    """FO9: the spaces ``card`` may be built on (shape, no army, an arrow of
    the top dungeon card or a camp), ascending."""
    shape = table.wall(card).shape
    return [
        s
        for s in SPACES
        if shape_of(s) == shape and not has_army(table, seat, s) and arrow_or_camp(table, seat, s)
    ]


def free_spaces_of_shape(table: Table, seat: int, card: str) -> list[int]:
    """FO13: a Mason pair from the discard pile: any space of the card's shape
    without an army."""
    shape = table.wall(card).shape
    return [s for s in SPACES if shape_of(s) == shape and not has_army(table, seat, s)]


def discard_walls(table: Table, seat: int) -> list[str]:
    """The walls of the seat's discard pile (camps are never taken, FO11), in
    card-set order."""
    return table.cards.sort([c for c in table.seats[seat].discard if c != CAMP])


def mason_discard(table: Table, seat: int, *, pair: bool) -> dict[str, list[int]]:
    """FO11 / FO13: each wall of the discard pile with a legal space, and the spaces."""
    out: dict[str, list[int]] = {}
    for card in discard_walls(table, seat):
        spaces = (
            free_spaces_of_shape(table, seat, card) if pair else build_spaces(table, seat, card)
        )
        if spaces:
            out[card] = spaces
    return out


def dungeon_mason(table: Table, seat: int) -> dict[str, list[int]] | None:
    """FO13: a dungeon Mason pair's corners and edges without an army; None
    when the dungeon is empty."""
    if not table.seats[seat].dungeon:
        return None
    return {
        "corners": [c for c in CORNERS if not has_army(table, seat, c)],
        "edges": [e for e in EDGES if not has_army(table, seat, e)],
    }


def attack_spaces(table: Table, seat: int, target: int, symbol: str, *, pair: bool) -> list[int]:
    """FO11 / FO13: the spaces of ``target``'s fort a Ram (front line) or
    Trebuchet (not the front line) of ``seat`` may hit: holding a card of
    the target's, not showing a protected wall (a pair may)."""
    front = symbol == "ram"
    return [
        s
        for s in SPACES
        if in_front_line(table.count, target, seat, s) == front
        and table.seats[target].spaces[s].stack
        and (pair or not table.shows_protected(target, s))
    ]


def attack_targets(table: Table, seat: int, symbol: str, *, pair: bool) -> dict[int, list[int]]:
    out: dict[int, list[int]] = {}
    for target in table.others(seat):
        spaces = attack_spaces(table, seat, target, symbol, pair=pair)
        if spaces:
            out[target] = spaces
    return out


def siege_targets(table: Table, seat: int) -> dict[int, int]:
    """FO12: the other seats with a card in their dungeon, and how many."""
    return {t: len(table.seats[t].dungeon) for t in table.others(seat) if table.seats[t].dungeon}


def invaders(table: Table, seat: int) -> list[int]:
    """FO12: the spaces of the seat's own fort holding an army (to defeat)."""
    return [s for s in SPACES if has_army(table, seat, s)]


def garrison_places(table: Table, seat: int) -> dict[int, dict[int, list[str]]]:
    """FO12: where an army from the seat's supply may go (other seats' empty
    spaces) and its directions; empty when no army card is in supply."""
    if table.seats[seat].armies == 0:
        return {}
    out: dict[int, dict[int, list[str]]] = {}
    for target in table.others(seat):
        spaces = {s: army_directions(s) for s in SPACES if table.seats[target].spaces[s].empty}
        if spaces:
            out[target] = spaces
    return out


def camp_spaces(table: Table, seat: int) -> list[int]:
    """FO14: the empty spaces of the seat's fort; none when no camp is in supply."""
    if table.seats[seat].camps == 0:
        return []
    return [s for s in SPACES if table.seats[seat].spaces[s].empty]


def gate_spaces(table: Table, seat: int) -> list[int]:
    """FO16: the spaces of the seat's fort showing a gate wall."""
    out = []
    for s in SPACES:
        wall = table.visible_wall(seat, s)
        if wall is not None and wall.gate:
            out.append(s)
    return out


def symbol_usable(table: Table, seat: int, symbol: str) -> bool:
    """FO14: a hand card's symbol has a legal use from the hand (FO11-FO12)."""
    if symbol == "mason":
        return bool(mason_discard(table, seat, pair=False))
    if symbol in ("ram", "trebuchet"):
        return bool(attack_targets(table, seat, symbol, pair=False))
    if symbol == "siege":
        return bool(siege_targets(table, seat))
    return bool(invaders(table, seat) or garrison_places(table, seat))


def forced_discard(table: Table, seat: int) -> bool:
    """FO14: the seat can do no build, no effect and no camp (checked after
    FO8 parts 1 and 2); then, and only then, it may discard."""
    hand = table.seats[seat].hand
    if not hand:
        return False
    for card in hand:
        if build_spaces(table, seat, card):
            return False
        if any(symbol_usable(table, seat, sym) for sym in table.wall(card).symbols):
            return False
    return not camp_spaces(table, seat)
