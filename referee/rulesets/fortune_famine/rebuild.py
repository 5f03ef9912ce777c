"""A :class:`~.state.Table` made again from a detailed result
(:func:`.match.detail_json`), for what a ruleset adapter does between two
replays: checking an acting seat's order (:func:`.orders.check_order`) and
listing its ``options``.

It reads the result's public parts (FF7: the next step follows from public
facts only): the seats' boards, guards, tokens and Kingdoms, the season's
record (its board, hire turns, attacks: the hire's bids and pointer, which
Trader has traded, Divina/Daznul's blocks), the rounds and the deck; and
two keys no viewer is shown: ``years`` (the Year decks, needed only to start
a later season) and ``garnets`` (FF19). Stored totals come from the host's
record; no check and no option reads them (storage is secret, FF14).

So a viewer's ``result`` (which has the deck, but neither ``years`` nor
``garnets``) makes a table too, good for checking orders and listing
options but not for playing on to a later season or the ranking: an order
the host enters can be checked in full from the host's own view.

Pure: no Flask, SQL or click imports.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from .cards import Deck, default_deck, parse_deck
from .state import LENGTHS, YEARS, Got, Hire, Round, Seat, Table, leader_of, year_of


def _deck(raw: Mapping[str, Any]) -> Deck:
    default = default_deck()
    return default if raw == default.as_json() else parse_deck(raw)


def _round(raw: Mapping[str, Any]) -> Round:
    return Round(
        int(raw["round"]), int(raw["season"]), raw["phase"], tuple(int(s) for s in raw["acting"])
    )


def hire_from_turns(record: Mapping[str, Any], seats: int) -> Hire:
    """FF10-FF11: the hire as its recorded turns left it: each bid, take or
    claim (an outbid or claimed-over bid given back), each pass, and the
    pointer after the last turn (the leader before any)."""
    hire = Hire(board=[str(c) for c in record["revealed"]], pointer=int(record["leader"]))
    for turn in record["hire_turns"]:
        seat = int(turn["seat"])
        action = turn["action"]
        if action == "pass":
            hire.passed.append(seat)
        else:
            card = str(turn["card"])
            holder = hire.holder(card)
            if holder is not None:
                del hire.got[holder]
            silver = int(turn["silver"]) if action == "bid" else 0
            hire.got[seat] = Got(card, action, silver, turn["discard"])
        hire.pointer = seat % seats + 1
    return hire


def _traded(record: Mapping[str, Any], seat: int) -> bool:
    """FF16: the seat's Trader has traded in this season's turns so far."""
    turns = [*record["hire_turns"], *record["attacks"]]
    return any(int(t["seat"]) == seat and t["trade"] is not None for t in turns)


def table_from_details(details: Mapping[str, Any]) -> Table:
    """The table of a detailed result (see the module's text)."""
    deck = _deck(details["deck"])
    seasons = copy.deepcopy(list(details["seasons"]))
    per_year = int(details["seasons_total"]) // YEARS
    length = next(name for name, s in LENGTHS.items() if s == per_year)
    record = seasons[-1]
    season = int(record["season"])
    year = year_of(season, per_year)
    blocked = {
        int(s)
        for r in seasons
        if int(r["year"]) == year
        for famine in r["famines"]
        for s in famine["blocked"]
    }
    seats: dict[int, Seat] = {}
    for key, raw in details["seats"].items():
        seat = int(key)
        guard = raw["guard"]
        seats[seat] = Seat(
            ruler=str(raw["ruler"]),
            kingdom=[str(c) for c in raw["kingdom"]],
            grain=int(raw["grain"]),
            silver=int(raw["silver"]),
            stored=int(raw["stored"] or 0),
            guard_grain=int(guard["grain"]),
            guard_silver=int(guard["silver"]),
            tokens=int(raw["tokens"]),
            traded=_traded(record, seat),
            blocked=year if seat in blocked else None,
        )
    nxt = details["next_round"]
    table = Table(
        deck=deck,
        seats=seats,
        garnets={s: int(details.get("garnets", {}).get(str(s), 0)) for s in seats},
        length=length,
        years={int(y): [str(c) for c in cards] for y, cards in details.get("years", {}).items()},
        season=season,
        phase=None if nxt is None else nxt["phase"],
        next=None if nxt is None else _round(nxt),
        rounds=[_round(r) for r in details["rounds"]],
        seasons=seasons,
        defaulted=[(int(d["round"]), int(d["seat"])) for d in details["defaulted"]],
    )
    if table.phase == "hire":
        table.hire = hire_from_turns(record, len(seats))
    if table.next is not None and table.phase == "attack":
        order = table.from_seat(leader_of(season, len(seats)))
        table.attack_index = order.index(table.next.acting[0])
    return table
