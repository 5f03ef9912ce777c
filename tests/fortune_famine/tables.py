"""Tables set up by hand for the Fortune & Famine order tests: the season's
record, the open step and each seat's resources and Kingdom as a test wants
them (the rest as FF5 deals it)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from referee.errors import RuleError
from referee.rulesets.fortune_famine.cards import default_deck
from referee.rulesets.fortune_famine.orders import carry_out, check_order
from referee.rulesets.fortune_famine.state import Hire, Phase, Round, Table, new_table


def make(
    phase: Phase,
    rulers: Mapping[int, str],
    kingdoms: Mapping[int, Sequence[str]],
    *,
    grain: Mapping[int, int] | None = None,
    silver: Mapping[int, int] | None = None,
    acting: Sequence[int] = (1,),
    board: Sequence[str] = (),
    season: int = 5,
) -> Table:
    """A table in ``phase`` of ``season`` (5: Year 2 of a full match), its step
    open for ``acting``; every seat 2 grain and 3 silver unless given."""
    seats = len(rulers)
    t = new_table("tables", default_deck(), dict.fromkeys(range(1, seats + 1), 0), "full", rulers)
    t.season = season
    t.seasons = [
        {
            "season": season,
            "year": t.year,
            "leader": t.leader,
            "burned": "common-merchant.7",
            "revealed": list(board),
            "famines": [],
            "hire_turns": [],
            "hired": None,
            "unhired": None,
            "attacks": [],
            "economy": None,
        }
    ]
    for seat, cards in kingdoms.items():
        t.seats[seat].kingdom = list(cards)
    for seat in t.seats:
        t.seats[seat].grain = (grain or {}).get(seat, 2)
        t.seats[seat].silver = (silver or {}).get(seat, 3)
        t.seats[seat].guard_grain = t.seats[seat].guard_silver = 0
    t.phase = phase
    if phase == "hire":
        t.hire = Hire(board=list(board), pointer=acting[0])
    t.next = Round(7, season, phase, tuple(acting))
    return t


def codes(table: Table, order: object, seat: int = 1) -> list[str]:
    """The codes ``seat``'s order is refused with ([] when accepted)."""
    try:
        check_order(table, seat, order)
    except RuleError as exc:
        return exc.codes
    return []


def after(table: Table, order: Mapping[str, Any], seat: int = 1) -> tuple[Table, dict[str, Any]]:
    """A copy of ``table`` once ``seat``'s order is carried out, and its record."""
    work = table.copy()
    return work, carry_out(work, seat, order)
