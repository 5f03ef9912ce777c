"""A match file's or create body's player list, for any game.

Every game seats its players 1..n with a display name and a whole number of
garnets (0 or more); the games differ only in how many seats they take. Names
follow :mod:`referee.names` (one line, something visible, no two alike), not
checked again for a ``stored`` match (one the service already holds, admitted
by the rules of its day).

Messages are for people: they name a player by seat ("Seat 2: a name is
needed") or, when the entry has no usable seat, by its place in the list
counted from 1 ("The 2nd player of the list ..."); never by a 0-based index.
A problem's ``field`` keeps the entry's path (``players[1]``), for forms and
API clients to find it.

Pure: no Flask, SQL or click.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, NamedTuple, TypeGuard

from referee.names import look_alikes, name_fault, shown

Bad = Callable[[str, str, str], None]  # (code, message, field)


class Player(NamedTuple):
    seat: int
    name: str
    garnets: int


def is_int(value: object) -> TypeGuard[int]:
    """A JSON whole number (not a bool, which Python counts as an int)."""
    return isinstance(value, int) and not isinstance(value, bool)


def seat_list(count: int) -> str:
    """``1, 2, 3`` for people."""
    return ", ".join(str(s) for s in range(1, count + 1))


def player_count_fault(count: object, low: int, high: int) -> str:
    """The message for a player list of the wrong length (``count``: its length,
    or a description when it is no list)."""
    wanted = f"exactly {low}" if low == high else f"{low} to {high}"
    if not isinstance(count, int):
        return f"a match has {wanted} players, given as a list"
    return f"a match has {wanted} players, not {count}"


def parse_players(
    raw: object, bad: Bad, low: int, high: int, *, stored: bool = False
) -> tuple[Player, ...]:
    """``low`` to ``high`` players, seats 1..n once each (n = how many), a name
    each and garnets >= 0, in seat order; each problem goes to ``bad`` (and the
    result leaves that player out). Codes: ``match/player_count``,
    ``match/bad_player``, ``match/bad_seat``, ``match/duplicate_seat``,
    ``match/bad_name``, ``match/confusable_names``, ``match/bad_garnets``."""
    if not isinstance(raw, list) or not low <= len(raw) <= high:
        count = len(raw) if isinstance(raw, list) else "no list"
        bad("match/player_count", player_count_fault(count, low, high), "players")
        return ()
    seats = range(1, len(raw) + 1)
    seen: set[int] = set()
    players: list[Player] = []
    index: dict[int, int] = {}  # seat -> its place in the list
    for i, p in enumerate(raw):
        where = f"players[{i}]"  # the field: the API's path to the entry
        if not isinstance(p, Mapping):
            bad(
                "match/bad_player",
                f"{_nth(i)} player of the list must be an object with seat, name and garnets",
                where,
            )
            continue
        seat, name, garnets = p.get("seat"), p.get("name"), p.get("garnets")
        who = f"Seat {seat}" if is_int(seat) and seat in seats else f"{_nth(i)} player of the list"
        ok = True
        if not is_int(seat) or seat not in seats:
            shown_seat = "no seat" if seat is None else f"seat {seat!r}"
            bad(
                "match/bad_seat",
                f"{who} has {shown_seat}; the seats are {seat_list(len(raw))}",
                where,
            )
            ok = False
        elif seat in seen:
            bad("match/duplicate_seat", f"seat {seat} is given to two players", where)
            ok = False
        if not isinstance(name, str) or not name.strip():
            bad("match/bad_name", f"{who}: a name is needed", where)
            ok = False
        elif not stored and (fault := name_fault(name)) is not None:
            bad("match/bad_name", f"{who}: {fault}", where)
            ok = False
        if not is_int(garnets) or garnets < 0:
            bad("match/bad_garnets", f"{who}: {_garnets_fault(garnets)}", where)
            ok = False
        if ok:
            assert isinstance(seat, int) and isinstance(name, str) and isinstance(garnets, int)
            seen.add(seat)
            index[seat] = i
            players.append(Player(seat, name, garnets))
    alike = [] if stored else look_alikes([(p.seat, p.name) for p in players])
    for (seat_a, name_a), (seat_b, name_b) in alike:
        bad(
            "match/confusable_names",
            f"seats {seat_a} and {seat_b} have names that look alike, {shown(name_a)} and "
            f"{shown(name_b)}: they differ only by case, invisible characters, compatibility "
            "forms or look-alike letters; give the players names that can be told apart",
            f"players[{index[seat_b]}]",
        )
    return tuple(sorted(players, key=lambda p: p.seat))


def _nth(i: int) -> str:
    """The list entry at 0-based ``i`` for people: "The 1st", "The 2nd", ..."""
    n = i + 1
    suffix = "th" if n % 100 in (11, 12, 13) else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"The {n}{suffix}"


def _garnets_fault(garnets: object) -> str:
    if is_int(garnets):  # a whole number below 0
        return f"garnets cannot be negative ({garnets})"
    if garnets is None or garnets == "":
        return "garnets are missing: a whole number, 0 or more"
    return f"garnets are a whole number, 0 or more, not {garnets!r}"


def players_json(players: tuple[Player, ...]) -> list[dict[str, Any]]:
    return [{"seat": p.seat, "name": p.name, "garnets": p.garnets} for p in players]
