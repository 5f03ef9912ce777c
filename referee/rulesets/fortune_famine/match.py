"""A whole Fortune & Famine match: the match file of
docs/contracts/fortune-famine/FORMAT.md, playing it step by step (FF5-FF18)
and its result (FF19).

:func:`parse_match` checks the file's static parts (top-level keys, players,
seed, settings, rulers, deck, the shape of ``orders`` and ``host_entered``)
and reports every problem together; :func:`play` sets the match up and
closes each round in order, the first round with a problem stopping it;
:func:`result_json` is exactly what ``referee resolve --json`` prints,
:func:`detail_json` the whole state a ruleset adapter makes views from
(the result, each seat's own copy of its private data, and what
:func:`.rebuild.table_from_details` needs to make the table again).

Pure: no Flask, SQL or click imports.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from referee.errors import Problem, RuleError
from referee.matchfile import check_seed, frame_problems, match_object
from referee.players import Player, is_int, parse_players, seat_list

from .cards import Deck, deck_problems, default_deck
from .flow import begin
from .orders import close_step
from .state import LENGTHS, RULERS, Round, Table, new_table

RULESET = "fortune-famine"
MIN_SEATS, MAX_SEATS = 2, 6
REQUIRED = ("ruleset", "players", "seed", "orders")
OPTIONAL = ("settings", "rulers", "deck", "host_entered", "name", "seed_sha256")
SETTINGS = ("length",)
PLAYER_KEYS = ("seat", "name", "garnets")
DEFAULT_LENGTH = "full"
# FF19: the levels of the ranking, in turn
LEVELS = ("stored_grain", "grain", "silver", "workers", "garnets", "seat")


@dataclass(frozen=True)
class MatchSpec:
    """A match file whose static parts are checked; its rounds are checked in :func:`play`."""

    players: tuple[Player, ...]
    seed: str
    length: str
    rulers: dict[int, str] | None  # None: dealt by the seed (FF5)
    deck: Deck
    orders: tuple[object, ...]  # one entry per closed round: null or {"S": ORDER}
    host_entered: tuple[tuple[int, int], ...] = ()  # (round, seat)

    @property
    def seats(self) -> int:
        return len(self.players)

    @property
    def garnets(self) -> dict[int, int]:
        return {p.seat: p.garnets for p in self.players}


def players_give_n(raw: object) -> int | None:
    """FF4: the list gives n when it has 2 to 6 entries, each an object of
    exactly seat, name and garnets, with seats 1..n once each (a bad name or
    bad garnets do not hold it back)."""
    if not isinstance(raw, list) or not MIN_SEATS <= len(raw) <= MAX_SEATS:
        return None
    seats = []
    for p in raw:
        if not isinstance(p, Mapping) or sorted(map(str, p)) != sorted(PLAYER_KEYS):
            return None
        seats.append(p["seat"])
    if not all(is_int(s) for s in seats) or sorted(seats) != list(range(1, len(raw) + 1)):
        return None
    return len(raw)


def _player_keys(raw: object, bad: Any) -> None:
    """FORMAT: each player an object of exactly seat, name and garnets (the
    shared checks report a missing or bad one; this, any other key)."""
    if not isinstance(raw, list) or not MIN_SEATS <= len(raw) <= MAX_SEATS:
        return
    for i, p in enumerate(raw):
        if not isinstance(p, Mapping):
            continue
        extra = sorted(str(k) for k in p if k not in PLAYER_KEYS)
        if extra:
            bad(
                "match/bad_player",
                f"players[{i}] has {', '.join(map(repr, extra))}; a player is an object of "
                "exactly seat, name and garnets",
                f"players[{i}]",
            )


def check_settings(raw: object, bad: Any) -> str:
    """FORMAT: ``settings`` is optional, each key optional: ``length`` full
    (the default) or short; no other key; ``"length": null`` is a bad choice."""
    if raw is None:
        return DEFAULT_LENGTH
    if not isinstance(raw, Mapping):
        bad("match/bad_settings", '\'settings\' must be an object such as {"length": "short"}')
        return DEFAULT_LENGTH
    for key in raw:
        if key not in SETTINGS:
            bad(
                "settings/unknown",
                f"'settings' has {str(key)!r}; the only setting is 'length'",
                "settings",
            )
    length = raw.get("length", DEFAULT_LENGTH)
    if not isinstance(length, str) or length not in LENGTHS:
        bad(
            "settings/bad_choice",
            f"'length' is 'full' or 'short' (leave it out for full), not {length!r}",
            "settings.length",
        )
        return DEFAULT_LENGTH
    return length


def rulers_problems(raw: object, seats: int | None) -> tuple[dict[int, str] | None, list[Problem]]:
    """FF5: ``rulers`` absent or null (None: dealt by the seed), or every seat
    a different ruler id, written exactly; and its problems (``rulers/...``).
    Which seats it must name is checked when ``seats`` is known."""
    if raw is None:
        return None, []
    if not isinstance(raw, Mapping):
        return None, [
            Problem(
                "rulers/bad", "'rulers' must be an object giving each seat a ruler id", "rulers"
            )
        ]
    problems: list[Problem] = []
    if seats is not None and sorted(map(str, raw)) != sorted(str(s) for s in range(1, seats + 1)):
        problems.append(
            Problem(
                "rulers/bad",
                f"'rulers' must give exactly the seats {seat_list(seats)} a ruler each, "
                f"not {', '.join(map(str, raw)) or 'none'}",
                "rulers",
            )
        )
    out: dict[int, str] = {}
    seen: dict[str, str] = {}
    for key, ruler in raw.items():
        if not isinstance(ruler, str) or ruler not in RULERS:
            problems.append(
                Problem(
                    "rulers/unknown",
                    f"rulers: seat {key}'s {ruler!r} is no ruler id ({', '.join(RULERS)})",
                    "rulers",
                )
            )
            continue
        if ruler in seen:
            problems.append(
                Problem(
                    "rulers/repeated",
                    f"rulers: seats {seen[ruler]} and {key} both have {ruler}",
                    "rulers",
                )
            )
        seen[ruler] = str(key)
        if str(key).isdigit():
            out[int(key)] = ruler
    return (None if problems else out), problems


def _orders(raw: object, seats: int | None, bad: Any) -> tuple[object, ...]:
    """FORMAT: a list of entries, each null or an object keyed by seat (a
    key that is no seat of the match is ``match/unknown_seat``, checked once
    the player list is valid)."""
    if not isinstance(raw, list):
        bad("match/bad_orders", "'orders' must be a list with one entry per closed round", "orders")
        return ()
    names = None if seats is None else {str(s) for s in range(1, seats + 1)}
    for i, entry in enumerate(raw):
        where = f"orders[{i}]"
        if entry is not None and not isinstance(entry, Mapping):
            bad(
                "match/bad_orders",
                f"{where} (round {i + 1}) must be an object keyed by seat, or null",
                where,
            )
            continue
        if names is None or entry is None:
            continue
        for key in entry:
            if key not in names:
                assert seats is not None
                bad(
                    "match/unknown_seat",
                    f"{where} (round {i + 1}) has the key {str(key)!r}, which is no seat "
                    f"(seats are {seat_list(seats)})",
                    where,
                )
    return tuple(raw)


def _host_entered(raw: object, bad: Any) -> tuple[tuple[int, int], ...]:
    """FORMAT: only the shape: a list of objects of exactly round and seat,
    whole numbers; not matched against the rounds."""
    message = '\'host_entered\' must be a list of {"round": N, "seat": N} (whole numbers)'
    if not isinstance(raw, list):
        bad("match/bad_host_entered", message, "host_entered")
        return ()
    out: list[tuple[int, int]] = []
    for i, entry in enumerate(raw):
        if (
            isinstance(entry, Mapping)
            and sorted(map(str, entry)) == ["round", "seat"]
            and is_int(entry["round"])
            and is_int(entry["seat"])
        ):
            out.append((entry["round"], entry["seat"]))
        else:
            bad("match/bad_host_entered", f"host_entered[{i}]: {message[1:]}", "host_entered")
    return tuple(out)


def parse_match(doc: object, *, stored: bool = False) -> MatchSpec:
    """Check a match file's static parts; every problem in one RuleError.
    With ``stored`` (a match the service holds) names are not checked again."""
    doc = match_object(doc)
    problems = frame_problems(doc, RULESET, REQUIRED + OPTIONAL)

    def bad(code: str, message: str, where: str | None = None) -> None:
        problems.append(Problem(code, message, where))

    players = parse_players(doc.get("players"), bad, MIN_SEATS, MAX_SEATS, stored=stored)
    _player_keys(doc.get("players"), bad)
    seats = players_give_n(doc.get("players"))
    seed, seed_problems = check_seed(doc)
    problems += seed_problems
    length = check_settings(doc.get("settings"), bad)
    rulers, ruler_problems = rulers_problems(doc.get("rulers"), seats)
    problems += ruler_problems
    deck: Deck | None = default_deck()
    if doc.get("deck") is not None:
        deck, found = deck_problems(doc["deck"], seats)
        problems += found
    valid = len(players) == seats and seats is not None
    orders = _orders(doc.get("orders"), seats if valid else None, bad)
    host_entered = _host_entered(doc.get("host_entered", []), bad)
    if problems:
        raise RuleError(problems)
    assert isinstance(seed, str) and deck is not None
    return MatchSpec(players, seed, length, rulers, deck, orders, host_entered)


# ---- playing -----------------------------------------------------------------------------


def start(spec: MatchSpec) -> Table:
    """FF5-FF6: the table as the match starts, the first step open."""
    table = new_table(spec.seed, spec.deck, spec.garnets, spec.length, spec.rulers)
    return begin(table)


def entry_orders(entry: object, step: Round, i: int) -> dict[int, object]:
    """A round's ``orders`` entry as each acting seat's order (None: no
    order): (1) keys of seats that do not act, each ``step/not_acting``;
    (2) acting seats' orders neither an object nor null, each
    ``order/not_object``."""
    if entry is None:
        return {}
    assert isinstance(entry, Mapping)
    where = f"orders[{i}]"
    at = f"{where} (round {step.number})"
    acting = ", ".join(map(str, step.acting))
    problems = [
        Problem(
            "step/not_acting",
            f"{at} has an order for seat {key}, which does not act in this {step.phase} "
            f"round (acting: {acting})",
            where,
        )
        for key in entry
        if int(key) not in step.acting
    ]
    if problems:
        raise RuleError(problems)
    problems = [
        Problem(
            "order/not_object",
            f"{at}, seat {key}: an order must be an object or null, not {type(value).__name__}",
            where,
        )
        for key, value in entry.items()
        if value is not None and not isinstance(value, Mapping)
    ]
    if problems:
        raise RuleError(problems)
    return {int(key): value for key, value in entry.items()}


def play(spec: MatchSpec) -> Table:
    """FF5-FF18: the set-up then every round of the file; the first round with
    a problem stops it (later rounds depend on it), its problems in one RuleError."""
    table = start(spec)
    for i, entry in enumerate(spec.orders):
        step = table.next
        if step is None:
            raise RuleError.single(
                "match/too_many_rounds",
                f"'orders' has {len(spec.orders)} rounds; this match ended after round {i}",
                "orders",
            )
        orders = entry_orders(entry, step, i)
        try:
            table = close_step(table, orders)
        except RuleError as exc:
            where = f"orders[{i}]"
            raise RuleError(
                [
                    Problem(p.code, f"{where} (round {step.number}), {p.message}", where)
                    for p in exc.problems
                ]
            ) from None
    return table


# ---- FF19 --------------------------------------------------------------------------------


def _levels(table: Table, seat: int) -> tuple[int, ...]:
    s = table.seats[seat]
    return (s.stored, s.grain, s.silver, table.workers(seat), table.garnets[seat], -seat)


def ranking(table: Table) -> list[int]:
    """FF19: more is better at each level (stored grain, grain, silver,
    workers, garnets), then the lower seat."""
    return sorted(table.seat_numbers(), key=lambda s: tuple(-v for v in _levels(table, s)))


def decided_by(table: Table, *, best: bool) -> tuple[int, str]:
    """FF19: the Token of Life (``best``) or the Elimination Candidate, and
    the first level that leaves one seat."""
    left = table.seat_numbers()
    for i, level in enumerate(LEVELS):
        values = {s: _levels(table, s)[i] for s in left}
        keep = max(values.values()) if best else min(values.values())
        left = [s for s in left if values[s] == keep]
        if len(left) == 1:
            return left[0], level
    raise AssertionError("the seat level always decides")


# ---- the result --------------------------------------------------------------------------


def seat_json(table: Table, seat: int) -> dict[str, Any]:
    s = table.seats[seat]
    return {
        "ruler": s.ruler,
        "grain": s.grain,
        "silver": s.silver,
        "stored": s.stored,
        "guard": s.guard_json(),
        "tokens": s.tokens,
        "kingdom": list(s.kingdom),
        "workers": table.workers(seat),
    }


def result_json(table: Table) -> dict[str, Any]:
    """docs/contracts/fortune-famine/FORMAT.md's result, exactly."""
    out: dict[str, Any] = {
        "finished": table.over,
        "seasons_total": table.seasons_total,
        "rounds": [r.as_json() for r in table.rounds],
        "next_round": None if table.next is None else table.next.as_json(),
        "seasons": copy.deepcopy(table.seasons),
        "seats": {str(s): seat_json(table, s) for s in table.seat_numbers()},
        "defaulted": [{"round": r, "seat": s} for r, s in sorted(table.defaulted)],
        "ranking": None,
        "token_of_life": None,
        "token_decided_by": None,
        "elimination_candidate": None,
    }
    if table.over:
        token, token_level = decided_by(table, best=True)
        candidate, candidate_level = decided_by(table, best=False)
        out["ranking"] = ranking(table)
        out["token_of_life"] = token
        out["token_decided_by"] = token_level
        out["elimination_candidate"] = {"seat": candidate, "decided_by": candidate_level}
    return out


def own_json(table: Table, seat: int) -> dict[str, Any]:
    """FF21: what only ``seat`` (and the host) may see before the end, kept
    once per owner: its stored total, and the ``taken`` of each storage
    theft it made (in full) or that named it (its own part)."""
    thefts: list[dict[str, Any]] = []
    me = str(seat)
    for record in table.seasons:
        for a, attack in enumerate(record["attacks"]):
            for u, use in enumerate(attack["evrathor"]):
                if table.deck.type_of(use["card"]).steals != "stored":
                    continue
                if attack["seat"] == seat:
                    taken = dict(use["taken"])
                elif me in use["taken"]:
                    taken = {me: use["taken"][me]}
                else:
                    continue
                thefts.append({"season": record["season"], "attack": a, "use": u, "taken": taken})
    return {"stored": table.seats[seat].stored, "thefts": thefts}


def detail_json(table: Table) -> dict[str, Any]:
    """The whole state (a ruleset's "detailed result"): the result, plus the
    deck (public from the start), ``own`` (each seat's private data, kept
    once per owner: FF21), and what :func:`.rebuild.table_from_details` needs
    besides the result to play on: ``garnets`` and ``years``, the Year decks
    in order (no viewer sees them before the host's full reveal)."""
    out = result_json(table)
    out.update(
        {
            "ruleset": RULESET,
            "closed": table.closed,
            "deck": table.deck.as_json(),
            "garnets": {str(s): table.garnets[s] for s in table.seat_numbers()},
            "own": {str(s): own_json(table, s) for s in table.seat_numbers()},
            "years": {str(y): list(cards) for y, cards in sorted(table.years.items())},
        }
    )
    return out


def upcoming(table: Table) -> list[Round]:
    """FF7: the steps to come as far as they are known: the open one, or none
    when the match is over (later ones depend on its orders)."""
    return [] if table.next is None else [table.next]


def resolve(doc: object, *, details: bool = False, stored: bool = False) -> dict[str, Any]:
    """A match file resolved: its result (``details``: the whole state)."""
    spec = parse_match(doc, stored=stored)
    table = play(spec)
    return detail_json(table) if details else result_json(table)
