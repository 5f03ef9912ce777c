"""A Fortune & Famine match in play: every seat's ruler, resources, guard,
tokens and Kingdom (FF2, FF5, FF15), the Year decks (FF5), the season under
way with its Hire Board (FF6, FF10-FF12), the steps so far (FF7) and the
result's record of each season.

A :class:`Table` is mutable: the rules change it in place; copy it first to
branch (:meth:`Table.copy`). It holds no seed: once the rulers and Year
decks are drawn (:func:`new_table`, FF20) nothing else is, so a table made
again from a detailed result (:mod:`.rebuild`) plays on exactly as the original.

Pure: no Flask, SQL or click imports.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from referee.matchfile import seeded_hash as h

from .cards import Deck, start_farmer

# ---- FF5, FF15: rulers -------------------------------------------------------------------

ARUP = "arup-avintia"
BESELLA = "besella-baroso"
COTARR = "cotarr-corace"
DIVINA = "divina-daznul"
ELBAN = "elban-eltezza"
FELARREN = "felarren-fiagro"
RULERS: tuple[str, ...] = (ARUP, BESELLA, COTARR, DIVINA, ELBAN, FELARREN)

START_GRAIN, START_SILVER = 1, 3  # FF5
TOKENS = 3  # FF5: Divina/Daznul and Elban/Eltezza
GUARD_MAX = 3  # FF15
PASS_SILVER = 2  # FF15: Cotarr/Corace on each pass
KINGDOM_SIZE = 5  # FF9; Felarren/Fiagro one more
LENGTHS = {"full": 4, "short": 2}  # FF6: seasons a Year
YEARS = 3

Phase = Literal["hire", "attack", "economy"]
PHASES: tuple[Phase, ...] = ("hire", "attack", "economy")
Resource = Literal["grain", "silver"]


@dataclass
class Seat:
    """One seat's ruler, resources (FF2), guard (FF15), tokens and Kingdom
    (ids in arrival order, FF12)."""

    ruler: str
    kingdom: list[str]
    grain: int = START_GRAIN
    silver: int = START_SILVER
    stored: int = 0
    guard_grain: int = 0
    guard_silver: int = 0
    tokens: int = 0
    traded: bool = False  # FF16: its Trader has traded this season
    blocked: int | None = None  # FF8: the Year of Divina/Daznul's last block

    def held(self, resource: Resource) -> int:
        return self.grain if resource == "grain" else self.silver

    def guarded(self, resource: Resource) -> int:
        return self.guard_grain if resource == "grain" else self.guard_silver

    def unguarded(self, resource: Resource) -> int:
        """FF15: on the board less what the guard holds."""
        return self.held(resource) - self.guarded(resource)

    def gain(self, resource: Resource, amount: int) -> None:
        """FF2, FF15: every gain goes to the board."""
        if resource == "grain":
            self.grain += amount
        else:
            self.silver += amount

    def spend(self, resource: Resource, amount: int) -> None:
        """FF2, FF15: spending takes from the board first and from the guard
        last (the guard shrinks only when the board runs out). The caller
        has checked that the seat holds ``amount``."""
        assert 0 <= amount <= self.held(resource), (resource, amount)
        if resource == "grain":
            self.grain -= amount
            self.guard_grain = min(self.guard_grain, self.grain)
        else:
            self.silver -= amount
            self.guard_silver = min(self.guard_silver, self.silver)

    def guard_json(self) -> dict[str, int]:
        return {"grain": self.guard_grain, "silver": self.guard_silver}


@dataclass
class Got:
    """FF10-FF12: the card a seat is getting this season: a standing bid
    (``how`` ``bid``, its silver on the card), a taken wizard or a claimed
    worker, and the discard it named with it."""

    card: str
    how: Literal["bid", "take", "claim"]
    silver: int = 0
    discard: str | None = None

    def as_json(self) -> dict[str, Any]:
        return {"card": self.card, "how": self.how, "silver": self.silver, "discard": self.discard}


@dataclass
class Hire:
    """FF10-FF11: the Hire Board of the season and where the hire stands."""

    board: list[str]  # revealed cards in board order (Famines too)
    pointer: int  # FF11: where the search for the next free seat starts
    got: dict[int, Got] = field(default_factory=dict)
    passed: list[int] = field(default_factory=list)

    def status(self, seat: int) -> Literal["free", "waiting", "out"]:
        """FF11: waiting while holding the standing bid on a card, out once it
        has taken, claimed or passed, otherwise free."""
        if seat in self.passed:
            return "out"
        got = self.got.get(seat)
        if got is None:
            return "free"
        return "waiting" if got.how == "bid" else "out"

    def holder(self, card: str) -> int | None:
        """The seat with a standing bid on, or that took or claimed, ``card``."""
        for seat, got in self.got.items():
            if got.card == card:
                return seat
        return None

    def standing_bid(self, card: str) -> Got | None:
        seat = self.holder(card)
        got = None if seat is None else self.got[seat]
        return got if got is not None and got.how == "bid" else None

    def taken(self, card: str) -> bool:
        """FF10: taken (a wizard) or claimed (a worker) this season."""
        seat = self.holder(card)
        return seat is not None and self.got[seat].how != "bid"


@dataclass(frozen=True)
class Round:
    """FF7: a step (the referee's round): its number, season, phase and acting seats."""

    number: int
    season: int
    phase: Phase
    acting: tuple[int, ...]

    def as_json(self) -> dict[str, Any]:
        return {
            "round": self.number,
            "season": self.season,
            "phase": self.phase,
            "acting": list(self.acting),
        }


@dataclass
class Table:
    """Everything about a match in play after its closed steps."""

    deck: Deck
    seats: dict[int, Seat]
    garnets: dict[int, int]  # FF1: read only by FF19
    length: str  # FF6: "full" or "short"
    years: dict[int, list[str]]  # FF5: each Year deck, top first
    season: int = 1
    phase: Phase | None = "hire"  # None once the match is over
    hire: Hire | None = None
    attack_index: int = 0  # FF13: the next place, from the leader, to look at
    next: Round | None = None  # the step now open; None once the match is over
    rounds: list[Round] = field(default_factory=list)
    seasons: list[dict[str, Any]] = field(default_factory=list)  # the result's records
    defaulted: list[tuple[int, int]] = field(default_factory=list)  # (round, seat)

    # ---- the calendar (FF6) ----------------------------------------------------------

    @property
    def count(self) -> int:
        return len(self.seats)

    @property
    def per_year(self) -> int:
        return LENGTHS[self.length]

    @property
    def seasons_total(self) -> int:
        return YEARS * self.per_year

    @property
    def year(self) -> int:
        return year_of(self.season, self.per_year)

    @property
    def leader(self) -> int:
        return leader_of(self.season, self.count)

    @property
    def over(self) -> bool:
        return self.phase is None

    @property
    def closed(self) -> int:
        return len(self.rounds)

    @property
    def record(self) -> dict[str, Any]:
        """The result's record of the season under way."""
        return self.seasons[-1]

    def seat_numbers(self) -> list[int]:
        return sorted(self.seats)

    def others(self, seat: int) -> list[int]:
        return [s for s in self.seat_numbers() if s != seat]

    def from_seat(self, seat: int) -> list[int]:
        """FF1: seat, seat + 1, ..., n, 1, ..., seat - 1."""
        n = self.count
        return [(seat - 1 + i) % n + 1 for i in range(n)]

    # ---- cards -------------------------------------------------------------------------

    def kind(self, card: str) -> str:
        return self.deck.type_of(card).kind

    def holds_kind(self, seat: int, kind: str) -> bool:
        return any(self.kind(c) == kind for c in self.seats[seat].kingdom)

    def workers(self, seat: int) -> int:
        """FF19: workers in the Kingdom (wizards do not count)."""
        return sum(1 for c in self.seats[seat].kingdom if self.deck.type_of(c).worker)

    def can_trade(self, seat: int) -> bool:
        """FF16: holds a Trader that has not traded this season."""
        return self.holds_kind(seat, "trader") and not self.seats[seat].traded

    def copy(self) -> Table:
        """A deep copy sharing what never changes: the deck (frozen), the Year
        decks (only read), the closed rounds (frozen) and the records of the
        seasons before this one (only the current season's record grows)."""
        memo: dict[int, Any] = {id(self.deck): self.deck, id(self.years): self.years}
        for done in (*self.rounds, *self.seasons[:-1]):
            memo[id(done)] = done
        return copy.deepcopy(self, memo)


def year_of(season: int, per_year: int) -> int:
    """FF6: season k is in Year ceil(k / S)."""
    return (season - 1) // per_year + 1


def leader_of(season: int, seats: int) -> int:
    """FF6: the round leader of season k is seat ((k - 1) mod n) + 1."""
    return (season - 1) % seats + 1


# ---- FF5, FF20: the start ----------------------------------------------------------------


def dealt_rulers(seed: str, seats: int) -> dict[int, str]:
    """FF5: the six ruler ids sorted by h(ruler, id), seat s taking the s-th."""
    order = sorted(RULERS, key=lambda r: h(seed, "ruler", r))
    return {s: order[s - 1] for s in range(1, seats + 1)}


def year_decks(seed: str, deck: Deck, seats: int) -> dict[int, list[str]]:
    """FF5: each Year's cards with corner n or less, sorted by h(deck, card id)."""
    return {
        y: sorted(deck.year_cards(y, seats), key=lambda card: h(seed, "deck", card))
        for y in range(1, YEARS + 1)
    }


def start_seat(seat: int, ruler: str) -> Seat:
    """FF5: 1 grain, 3 silver, the starting farmer; 3 tokens for Divina/Daznul
    and Elban/Eltezza; Besella/Baroso guards as much as it can, grain first."""
    out = Seat(ruler=ruler, kingdom=[start_farmer(seat)])
    if ruler in (DIVINA, ELBAN):
        out.tokens = TOKENS
    if ruler == BESELLA:
        out.guard_grain = min(out.grain, GUARD_MAX)
        out.guard_silver = min(out.silver, GUARD_MAX - out.guard_grain)
    return out


def new_table(
    seed: str,
    deck: Deck,
    garnets: Mapping[int, int],
    length: str,
    rulers: Mapping[int, str] | None,
) -> Table:
    """FF5: the table before the first season starts (:func:`.flow.begin`
    starts it): rulers (dealt by the seed unless given), seats, Year decks."""
    seats = len(garnets)
    chosen = dict(rulers) if rulers is not None else dealt_rulers(seed, seats)
    return Table(
        deck=deck,
        seats={s: start_seat(s, chosen[s]) for s in range(1, seats + 1)},
        garnets=dict(garnets),
        length=length,
        years=year_decks(seed, deck, seats),
    )
