"""A Forfort match in play: every seat's fort, dungeon, hand, discard pile and
supply (FO2-FO3), the set-up from the seed (FO6), what happens to cards and
armies (FO15 advance, FO16 the token's return, FO17 destruction), points
(FO19) and the completed fort (FO18).

A :class:`Table` is mutable: the rules change it in place; copy it first to
branch (:meth:`Table.copy`).

Pure: no Flask, SQL or click imports.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

from referee.matchfile import seeded_hash as h

from .cards import CAMP, CardSet, Wall
from .fort import SPACES, step


@dataclass
class Army:
    """An army card on a space: its owner and its fixed direction (FO12)."""

    seat: int
    direction: str

    def as_json(self) -> dict[str, Any]:
        return {"seat": self.seat, "direction": self.direction}


@dataclass
class Space:
    """FO3: nothing, one army alone, or a stack of the owner's cards (bottom
    first, the visible card last)."""

    stack: list[str] = field(default_factory=list)
    army: Army | None = None

    @property
    def top(self) -> str | None:
        return self.stack[-1] if self.stack else None

    @property
    def empty(self) -> bool:
        return not self.stack and self.army is None

    def as_json(self) -> dict[str, Any]:
        return {
            "stack": list(self.stack),
            "army": None if self.army is None else self.army.as_json(),
        }


@dataclass
class Seat:
    """One seat's cards, supply and fort."""

    dungeon: list[str]  # top first
    hand: list[str]  # card-set order
    discard: list[str] = field(default_factory=list)  # in the order cards arrived
    camps: int = 0
    armies: int = 0
    defeated: int = 0
    drawbridge: int | None = None  # the space holding the token, None: in supply
    spaces: dict[int, Space] = field(default_factory=lambda: {s: Space() for s in SPACES})
    turns: int = 0  # turns played so far (FO8's first turn is the one at 0)

    def supply_json(self) -> dict[str, int]:
        return {"camps": self.camps, "armies": self.armies, "defeated": self.defeated}

    def fort_json(self) -> dict[str, Any]:
        return {
            "spaces": {str(s): self.spaces[s].as_json() for s in SPACES},
            "drawbridge": self.drawbridge,
        }


@dataclass(frozen=True)
class Turn:
    """A step to come or played (FO7): its number, acting seat, round, and
    whether it is a drawbridge extra turn."""

    step: int
    seat: int
    round: int
    extra: bool

    def as_json(self) -> dict[str, Any]:
        return {"step": self.step, "seat": self.seat, "round": self.round, "extra": self.extra}


@dataclass
class Table:
    """Everything about a match in play after its closed steps."""

    seed: str
    cards: CardSet
    seats: dict[int, Seat]
    rotated: dict[int, frozenset[str]]  # per seat: the walls turned round (FO6)
    next: Turn | None  # the step to come; None once the match is over
    steps: list[dict[str, Any]] = field(default_factory=list)  # the result's entries
    defaulted: list[tuple[int, int]] = field(default_factory=list)  # (step, seat)
    final_round: int | None = None
    triggered_at: int | None = None
    completed_by: int | None = None  # the seat whose fort was completed (FO18)
    completed: bool = False  # set by a placement that completes the fort, mid-step

    @property
    def count(self) -> int:
        return len(self.seats)

    @property
    def closed(self) -> int:
        return len(self.steps)

    @property
    def over(self) -> bool:
        return self.next is None

    def seat_numbers(self) -> list[int]:
        return sorted(self.seats)

    def others(self, seat: int) -> list[int]:
        return [s for s in self.seat_numbers() if s != seat]

    def wall(self, card: str) -> Wall:
        return self.cards.wall(card)

    def copy(self) -> Table:
        """A deep copy sharing only what never changes: the card set (frozen)
        and the turned walls (frozensets, read only), which halves the time."""
        return copy.deepcopy(self, {id(self.cards): self.cards, id(self.rotated): self.rotated})

    # ---- what a space shows ------------------------------------------------------------

    def visible_wall(self, seat: int, space: int) -> Wall | None:
        """The wall visible on a space of ``seat``'s fort (None: no card, a
        camp or an army)."""
        top = self.seats[seat].spaces[space].top
        return None if top is None or top == CAMP else self.wall(top)

    def shows_camp(self, seat: int, space: int) -> bool:
        return self.seats[seat].spaces[space].top == CAMP

    def shows_protected(self, seat: int, space: int) -> bool:
        """FO11: the visible card is a protected (shield) wall."""
        wall = self.visible_wall(seat, space)
        return wall is not None and wall.protected

    # ---- the dungeon's back ----------------------------------------------------------

    def arrows(self, seat: int, card: str) -> tuple[int, int]:
        """FO6: the arrows ``card``'s back shows in ``seat``'s dungeon, ascending
        (turned round: each arrow moved by 4)."""
        a, b = self.wall(card).arrows
        if card in self.rotated[seat]:
            a, b = (a + 3) % 8 + 1, (b + 3) % 8 + 1
        return (min(a, b), max(a, b))

    def top_arrows(self, seat: int) -> tuple[int, int] | None:
        """FO6, FO21: the arrows of ``seat``'s top dungeon card, None when empty."""
        dungeon = self.seats[seat].dungeon
        return self.arrows(seat, dungeon[0]) if dungeon else None

    # ---- FO19 ------------------------------------------------------------------------

    def points(self, seat: int) -> int:
        """FO19: 2 per visible wall and 1 per visible camp of the seat's fort, 1
        per army of its own standing in another seat's fort."""
        total = 0
        for space in self.seats[seat].spaces.values():
            if space.top == CAMP:
                total += 1
            elif space.top is not None:
                total += 2
        for owner, other in self.seats.items():
            if owner != seat:
                total += sum(
                    1
                    for sp in other.spaces.values()
                    if sp.army is not None and sp.army.seat == seat
                )
        return total

    def fort_complete(self, seat: int) -> bool:
        """FO18: all 8 spaces show walls (no army, no camp on top)."""
        return all(self.visible_wall(seat, s) is not None for s in SPACES)


# ---- FO6 -----------------------------------------------------------------------------


HAND = 3  # cards dealt to each hand (FO6)


def start(seed: str, cards: CardSet, seats: int) -> Table:
    """FO6: each seat's dungeon sorted by h(dungeon, s, id), walls turned round
    when int(h(rotate, s, id), 16) is odd, the top 3 dealt to the hand; camps,
    armies and the token in supply. Step 1 is seat 1's, round 1."""
    table_seats: dict[int, Seat] = {}
    rotated: dict[int, frozenset[str]] = {}
    for s in range(1, seats + 1):
        order = sorted(cards.ids, key=lambda card: h(seed, "dungeon", s, card))
        rotated[s] = frozenset(c for c in cards.ids if int(h(seed, "rotate", s, c), 16) % 2 == 1)
        table_seats[s] = Seat(
            dungeon=order[HAND:],
            hand=cards.sort(order[:HAND]),
            camps=cards.camps,
            armies=cards.armies,
        )
    return Table(seed, cards, table_seats, rotated, Turn(1, 1, 1, False))


# ---- FO15-FO17 -------------------------------------------------------------------------


def take_token_back(table: Table, seat: int, space: int) -> None:
    """FO16: the token returns to the supply when its space is destroyed or
    covered by a wall."""
    if table.seats[seat].drawbridge == space:
        table.seats[seat].drawbridge = None


def destroy(table: Table, owner: int, space: int) -> None:
    """FO17: every card of the stack goes to the owner's discard pile, bottom
    card first (camps stay there as ``camp``); the token on it returns."""
    place = table.seats[owner].spaces[space]
    table.seats[owner].discard.extend(place.stack)
    place.stack = []
    take_token_back(table, owner, space)


def place_wall(table: Table, seat: int, space: int, card: str) -> None:
    """FO9: ``card`` goes face up on top of the stack on ``space`` (covering a
    space returns the token on it)."""
    table.seats[seat].spaces[space].stack.append(card)
    take_token_back(table, seat, space)


def empty_spaces(table: Table, seat: int) -> list[int]:
    return [s for s in SPACES if table.seats[seat].spaces[s].empty]


def advance_armies(table: Table, seat: int) -> list[dict[str, Any]]:
    """FO15: each of ``seat``'s armies in play advances one space, those in
    seat 1's fort first, each fort's by ascending space (where they stand when
    the turn starts); the moves as the result lists them."""
    standing = [
        (fort, space)
        for fort in table.seat_numbers()
        for space in SPACES
        if (army := table.seats[fort].spaces[space].army) is not None and army.seat == seat
    ]
    moves: list[dict[str, Any]] = []
    for fort, space in standing:
        here = table.seats[fort].spaces[space]
        army = here.army
        assert army is not None
        to = step(space, army.direction)
        move: dict[str, Any] = {"fort": fort, "from": space, "to": to}
        if to is None:
            here.army = None
            table.seats[seat].armies += 1
            move["outcome"] = "exited"
        else:
            there = table.seats[fort].spaces[to]
            if there.army is not None:
                move["outcome"] = "blocked"
            elif table.shows_protected(fort, to):
                here.army = None
                table.seats[seat].defeated += 1
                move["outcome"] = "defeated"
            else:
                move["outcome"] = "destroyed" if there.stack else "moved"
                destroy(table, fort, to)
                there.army, here.army = army, None
        moves.append(move)
    return moves
