"""A whole Forfort match: the match file of docs/contracts/forfort/FORMAT.md,
playing it step by step (FO7, FO18) and its result (FO19).

:func:`parse_match` checks the file's frame (top-level keys, seed, players,
settings, card set, the form of ``orders`` and ``host_entered``) and reports
every problem together; :func:`play` deals (FO6) and closes each step in
order, stopping at the first refused order; :func:`result_json` is exactly
what ``referee resolve --json`` prints, :func:`detail_json` the whole state a
ruleset adapter makes views from.

Pure: no Flask, SQL or click imports.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from referee.errors import Problem, RuleError
from referee.matchfile import check_seed, frame_problems, match_object
from referee.players import Player, is_int, parse_players, seat_list
from referee.rulesets.cardgame import Elimination, by_seat, elimination_candidate

from .cards import CardSet, card_set_problems, default_card_set
from .state import Table, Turn, start

RULESET = "forfort"
MIN_SEATS, MAX_SEATS = 2, 4
REQUIRED = ("ruleset", "players", "seed", "orders")
OPTIONAL = ("settings", "cards", "host_entered", "seed_sha256", "name")
BONUS = 2  # FO19: a seat whose dungeon still holds a card, after an exhaustion


@dataclass(frozen=True)
class MatchSpec:
    """A match file whose frame is checked; its orders are checked in :func:`play`."""

    players: tuple[Player, ...]
    seed: str
    cards: CardSet
    orders: tuple[object, ...]  # one entry per closed step: null or {"S": ORDER}
    host_entered: tuple[tuple[int, int], ...] = ()  # (step, seat)

    @property
    def seats(self) -> int:
        return len(self.players)

    @property
    def garnets(self) -> dict[int, int]:
        return {p.seat: p.garnets for p in self.players}


def parse_match(doc: object, *, stored: bool = False) -> MatchSpec:
    """Check a match file's frame; every problem in one RuleError. With
    ``stored`` (a match the service holds) names are not checked again."""
    doc = match_object(doc)
    problems = frame_problems(doc, RULESET, REQUIRED + OPTIONAL)

    def bad(code: str, message: str, where: str | None = None) -> None:
        problems.append(Problem(code, message, where))

    players = parse_players(doc.get("players"), bad, MIN_SEATS, MAX_SEATS, stored=stored)
    seed, seed_problems = check_seed(doc)
    problems += seed_problems
    settings = doc.get("settings")
    if settings is not None and not isinstance(settings, Mapping):
        bad("match/bad_settings", "'settings' must be an object ({} for Forfort)", "settings")
    elif settings:
        for key in settings:
            bad(
                "settings/unknown",
                f"'settings' has {str(key)!r}; Forfort has no settings (team play is not offered)",
                "settings",
            )
    cards: CardSet | None = default_card_set()
    if "cards" in doc:
        cards, card_problems = card_set_problems(doc["cards"])
        problems += card_problems
    orders = doc.get("orders")
    if not isinstance(orders, list):
        bad("match/bad_orders", "'orders' must be a list with one entry per closed step", "orders")
    else:
        for i, entry in enumerate(orders):
            if entry is not None and not isinstance(entry, Mapping):
                bad(
                    "match/bad_orders",
                    f"orders[{i}] (step {i + 1}) must be an object keyed by seat, or null",
                    f"orders[{i}]",
                )
    host_entered = _host_entered(doc.get("host_entered", []), bad)
    if problems:
        raise RuleError(problems)
    assert isinstance(seed, str) and cards is not None and isinstance(orders, list)
    return MatchSpec(players, seed, cards, tuple(orders), host_entered)


def _host_entered(raw: object, bad: Any) -> tuple[tuple[int, int], ...]:
    """Only the form: a list of objects with exactly ``step`` and ``seat``,
    whole numbers; not matched against the steps, repeats allowed."""
    message = '\'host_entered\' must be a list of {"step": N, "seat": N} (whole numbers)'
    if not isinstance(raw, list):
        bad("match/bad_host_entered", message, "host_entered")
        return ()
    out: list[tuple[int, int]] = []
    for i, entry in enumerate(raw):
        if (
            isinstance(entry, Mapping)
            and sorted(map(str, entry)) == ["seat", "step"]
            and is_int(entry["step"])
            and is_int(entry["seat"])
            and entry["step"] >= 0
            and entry["seat"] >= 0
        ):
            out.append((entry["step"], entry["seat"]))
        else:
            bad("match/bad_host_entered", f"host_entered[{i}]: {message[1:]}", "host_entered")
    return tuple(out)


# ---- playing ---------------------------------------------------------------------------


def step_order(entry: object, turn: Turn, seats: int, i: int) -> object:
    """An ``orders`` entry's order for the acting seat (None: no order, FO20);
    a key of another seat is refused (``step/not_acting``) and a key that is
    no seat too (``match/unknown_seat``)."""
    if entry is None:
        return None
    assert isinstance(entry, Mapping)
    order: object = None
    where = f"orders[{i}]"
    for key, value in entry.items():
        if key == str(turn.seat):
            order = value
            continue
        known = key in {str(s) for s in range(1, seats + 1)}
        raise RuleError.single(
            "step/not_acting" if known else "match/unknown_seat",
            f"{where} (step {turn.step}) has an order for seat {str(key)!r}; only seat "
            f"{turn.seat} acts in it" + ("" if known else f" (seats are {seat_list(seats)})"),
            where,
        )
    return order


def play(spec: MatchSpec) -> Table:
    """FO6 then every step of the file (FO7-FO20); the first refused order
    stops it (later steps depend on it), its problem in one RuleError."""
    from .orders import play_turn

    table = start(spec.seed, spec.cards, spec.seats)
    for i, entry in enumerate(spec.orders):
        turn = table.next
        if turn is None:
            raise RuleError.single(
                "match/too_many_rounds",
                f"'orders' has {len(spec.orders)} steps; this match ended after step {i}",
                "orders",
            )
        order = step_order(entry, turn, spec.seats, i)
        try:
            table = play_turn(table, order)
        except RuleError as exc:
            where = f"orders[{i}]"
            at = f"{where} (step {turn.step}), seat {turn.seat}"
            raise RuleError(
                [Problem(p.code, f"{at}: {p.message}", where) for p in exc.problems]
            ) from None
    return table


def upcoming(table: Table) -> list[Turn]:
    """FO7: the steps to come as far as they are known: the next one (whose
    seat and round are public), or none when the match is over. Later steps
    depend on whether this one uses a drawbridge."""
    return [] if table.next is None else [table.next]


# ---- FO19 ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Final:
    """FO19 once the match is over."""

    bonus: dict[int, int]
    scores: dict[int, int]
    winners: list[int]
    token_of_life: int | None
    elimination: Elimination


def final(table: Table, garnets: Mapping[int, int]) -> Final:
    """FO19: after a completed fort, no bonus and the completer alone wins; after
    an exhaustion, 2 to each seat with a card in its dungeon and every top score
    wins. The Elimination Candidate is the lowest score among the others (all
    seats after an exhaustion); ties to the fewest garnets, then the seeded draw."""
    seats = table.seat_numbers()
    completer = table.completed_by
    bonus = {s: (BONUS if completer is None and table.seats[s].dungeon else 0) for s in seats}
    scores = {s: table.points(s) + bonus[s] for s in seats}
    if completer is not None:
        winners = [completer]
    else:
        best = max(scores.values())
        winners = [s for s in seats if scores[s] == best]
    token = winners[0] if len(winners) == 1 else None
    among = {s: v for s, v in scores.items() if s != completer}
    return Final(bonus, scores, winners, token, elimination_candidate(among, garnets, table.seed))


def end_json(table: Table) -> dict[str, Any] | None:
    """FORMAT's ``end``: null while the match goes on."""
    if table.next is not None:
        return None
    last = table.closed
    if table.completed_by is not None:
        return {"reason": "completed", "step": last}
    return {"reason": "exhausted", "step": last, "triggered_at": table.triggered_at}


def result_json(table: Table, spec: MatchSpec) -> dict[str, Any]:
    """docs/contracts/forfort/FORMAT.md's result, exactly."""
    seats = table.seat_numbers()
    out: dict[str, Any] = {
        "forts": {str(s): table.seats[s].fort_json() for s in seats},
        "hands": {str(s): list(table.seats[s].hand) for s in seats},
        "dungeon_counts": {str(s): len(table.seats[s].dungeon) for s in seats},
        "top_arrows": {
            str(s): None if (a := table.top_arrows(s)) is None else list(a) for s in seats
        },
        "discards": {str(s): list(table.seats[s].discard) for s in seats},
        "supply": {str(s): table.seats[s].supply_json() for s in seats},
        "points": {str(s): table.points(s) for s in seats},
        "steps": [_copy_step(st) for st in table.steps],
        "defaulted": [{"step": k, "seat": s} for k, s in table.defaulted],
        "final_round": table.final_round,
        "next": None if table.next is None else table.next.as_json(),
        "end": end_json(table),
    }
    if table.next is None:
        end = final(table, spec.garnets)
        out["bonus"] = by_seat(end.bonus)
        out["scores"] = by_seat(end.scores)
        out["winners"] = end.winners
        out["token_of_life"] = end.token_of_life
        out["elimination_candidate"] = end.elimination.as_dict()
    return out


def _copy_step(step: Mapping[str, Any]) -> dict[str, Any]:
    import copy

    return copy.deepcopy(dict(step))


def detail_json(table: Table, spec: MatchSpec) -> dict[str, Any]:
    """The whole state (a ruleset's "detailed result"): the result plus what
    the views need (hand counts, the dungeons in order for the host's full
    reveal, the card set, the elimination ties)."""
    out = result_json(table, spec)
    seats = table.seat_numbers()
    out.update(
        {
            "ruleset": RULESET,
            "seats": len(seats),
            "closed": table.closed,
            "finished": table.over,
            "cards": spec.cards.as_json(),
            "hand_counts": {str(s): len(table.seats[s].hand) for s in seats},
            "dungeons": {str(s): list(table.seats[s].dungeon) for s in seats},
        }
    )
    if table.over:
        end = final(table, spec.garnets)
        out["elimination_ties"] = {
            "score": list(end.elimination.tied_on_score),
            "garnets": list(end.elimination.tied_on_garnets),
        }
    return out


def resolve(doc: object, *, details: bool = False, stored: bool = False) -> dict[str, Any]:
    """A match file resolved: its result (``details``: the whole state)."""
    spec = parse_match(doc, stored=stored)
    table = play(spec)
    return detail_json(table, spec) if details else result_json(table, spec)
