"""A whole match: the match file of docs/contracts/forks-2e/FORMAT.md, and playing it step by step.

:func:`parse_match` checks a file's structure (players, seed, settings, the
shape of each closed round's orders); :func:`play` deals (F3, F4) and closes
each round, checking every order against the cards the seat may name (F5) and
filling in seeded defaults (F10); :func:`result_json` gives the exact result
``referee resolve --json`` prints, :func:`detail_json` the whole state the
views are made from.

A match in play is a :class:`Table`; :func:`start` deals it and
:func:`close_keep` / :func:`close_market` close one step each (the audit
replays a seat's market choices with them).
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from referee.errors import Problem, RuleError
from referee.matchfile import check_seed
from referee.players import Player, parse_players, seat_list
from referee.ruleset import Setting
from referee.rulesets.cardgame import by_seat as _by_seat
from referee.rulesets.cardgame import check_file_settings, parse_host_entered

from .cards import DESTINATIONS, canonical, cards_in_play
from .orders import KEEP, MARKET, check_keep, check_market, order_card
from .scoring import Elimination, elimination_candidate, marketing_totals, ranking, score
from .scoring import token_of_life as token_of
from .seeded import deck_order, default_keep, default_market

RULESET = "forks-2e"
MIN_SEATS, MAX_SEATS = 2, 6
DEAL = 3  # cards dealt to each seat at the start of a game round (F4)
DEFAULT_TIEBREAK: tuple[str, ...] = ("blue", "grey", "yellow", "green", "red")


@dataclass(frozen=True)
class Counts:
    """F3's table for one player count."""

    removed: int
    initial_marketing: int
    game_rounds: int


COUNTS: dict[int, Counts] = {
    2: Counts(9, 3, 4),
    3: Counts(1, 3, 4),
    4: Counts(4, 3, 4),
    5: Counts(7, 3, 3),
    6: Counts(1, 0, 3),
}

SETTINGS: tuple[Setting, ...] = (
    Setting(
        "merge",
        "Merge variant: market any card of your hand",
        "flag",
        False,
        help="both passed cards join your hand first, then you market any one card of it",
    ),
    Setting(
        "tiebreak",
        "Tiebreak order of the destinations",
        "order",
        list(DEFAULT_TIEBREAK),
        choices=DESTINATIONS,
        help="an earlier destination wins a tie on marketing totals",
    ),
    Setting(
        "names",
        "Destination names",
        "names",
        {},
        choices=DESTINATIONS,
        help="display names only; ids and results do not change",
    ),
)


def rounds_of(seats: int) -> int:
    """F4: how many referee rounds (steps) a match of ``seats`` has."""
    return 2 * COUNTS[seats].game_rounds


def step_kind(number: int) -> str:
    """F4: referee round ``number`` (from 1) is a keep step when odd."""
    return KEEP if number % 2 == 1 else MARKET


def next_seat(seat: int, seats: int) -> int:
    """F1: seat s passes to s+1, seat n to seat 1."""
    return seat % seats + 1


def previous_seat(seat: int, seats: int) -> int:
    return (seat - 2) % seats + 1


# ---- the match file ---------------------------------------------------------

Orders = dict[int, Any]  # seat -> the order's card as written, None when it had none


@dataclass(frozen=True)
class MatchSpec:
    """A match file, structurally checked; orders are checked by :func:`play`."""

    players: tuple[Player, ...]
    seed: str
    merge: bool
    tiebreak: tuple[str, ...]
    names: dict[str, str]
    # one per closed round: by seat, a canonical id, or the Problem of an order
    # that names no card (play() reports it with the rest of its round)
    orders: tuple[Orders, ...]
    host_entered: tuple[tuple[int, int], ...] = ()  # (round, seat)

    @property
    def seats(self) -> int:
        return len(self.players)

    @property
    def garnets(self) -> dict[int, int]:
        return {p.seat: p.garnets for p in self.players}


def check_settings(raw: object) -> tuple[dict[str, Any], list[Problem]]:
    """A file's ``settings`` (defaults for what it leaves out) and its problems."""
    return check_file_settings(raw, SETTINGS)


def parse_match(doc: object, *, stored: bool = False) -> MatchSpec:
    """Check a match file's structure (docs/contracts/forks-2e/FORMAT.md); every problem is
    reported.
    With ``stored`` (a match the service holds) names are not checked again."""
    if not isinstance(doc, Mapping):
        raise RuleError.single("match/not_object", "a match file must be a JSON object")
    problems: list[Problem] = []

    def bad(code: str, message: str, where: str | None = None) -> None:
        problems.append(Problem(code, message, where))

    if doc.get("ruleset") != RULESET:
        bad(
            "match/unknown_ruleset",
            f"ruleset {doc.get('ruleset')!r} is not this one; this file needs '{RULESET}'",
            "ruleset",
        )
    players = parse_players(doc.get("players"), bad, MIN_SEATS, MAX_SEATS, stored=stored)
    seed, seed_problems = check_seed(doc)
    problems += seed_problems
    settings, setting_problems = check_settings(doc.get("settings"))
    problems += setting_problems
    seats = len(players) if players and len(players) == len(doc["players"]) else 0
    orders = _parse_orders(doc.get("orders"), seats, bad)
    host_entered = parse_host_entered(doc.get("host_entered", []), seats, len(orders), bad)
    if problems:  # with the orders' own problems, so that one run shows them all
        raise RuleError(
            [*problems, *(o for r in orders for o in r.values() if isinstance(o, Problem))]
        )
    assert isinstance(seed, str)
    return MatchSpec(
        players=players,
        seed=seed,
        merge=bool(settings["merge"]),
        tiebreak=tuple(settings["tiebreak"]),
        names=dict(settings["names"]),
        orders=orders,
        host_entered=host_entered,
    )


def _parse_orders(raw: object, seats: int, bad: Any) -> tuple[Orders, ...]:
    """``orders``: one entry per closed round, each null or an object keyed by
    seat; each order's card is read here (F2), checked against the deal in play."""
    if not isinstance(raw, list):
        bad("match/bad_orders", "'orders' must be a list with one entry per closed round", "orders")
        return ()
    if seats and len(raw) > rounds_of(seats):
        bad(
            "match/too_many_rounds",
            f"'orders' has {len(raw)} rounds; a match of {seats} players has {rounds_of(seats)}",
            "orders",
        )
        return ()
    keys = {str(s): s for s in range(1, seats + 1)}
    out: list[Orders] = []
    for i, entry in enumerate(raw):
        number, where = i + 1, f"orders[{i}]"
        kind = step_kind(number)
        closed: Orders = {}
        if entry is None:
            out.append(closed)
            continue
        if not isinstance(entry, Mapping):
            bad(
                "match/bad_orders",
                f"{where} (round {number}) must be an object keyed by seat, or null",
                where,
            )
            out.append(closed)
            continue
        for key, order in entry.items():
            seat = keys.get(key)
            if seat is None:
                if seats:
                    bad(
                        "match/unknown_seat",
                        f"{where} (round {number}) has an order for seat {key!r}; "
                        f"seats are {seat_list(seats)}",
                        where,
                    )
                continue
            if order is None:
                continue
            card = order_card(order, kind)
            if isinstance(card, Problem):  # reported by play() with the round's others
                card = Problem(
                    card.code, f"{where} (round {number}), seat {seat}: {card.message}", where
                )
            closed[seat] = card
        out.append(closed)
    return tuple(out)


# ---- the table: a match in play -------------------------------------------------


@dataclass
class Table:
    """Everything about a match in play after ``closed`` rounds (mutable: the
    close functions change it in place; copy it first to branch)."""

    seats: int
    seed: str
    merge: bool
    removed: list[str]  # canonical
    initial_marketing: list[str]  # canonical
    pile: list[str]  # the draw pile, top first
    dealt: list[dict[int, list[str]]] = field(default_factory=list)  # pile order
    kept: list[dict[int, str]] = field(default_factory=list)
    passed: list[dict[int, list[str]]] = field(default_factory=list)  # by receiver, canonical
    marketed_by: list[dict[int, str]] = field(default_factory=list)
    revealed: list[str] = field(default_factory=list)
    hands: dict[int, list[str]] = field(default_factory=dict)  # canonical
    defaulted: list[tuple[int, int]] = field(default_factory=list)  # (round, seat)
    closed: int = 0

    @property
    def game_rounds(self) -> int:
        return COUNTS[self.seats].game_rounds

    @property
    def finished(self) -> bool:
        return self.closed == rounds_of(self.seats)

    @property
    def game_round(self) -> int:
        """The game round of the next step (1-based)."""
        return self.closed // 2 + 1

    def seat_numbers(self) -> range:
        return range(1, self.seats + 1)

    def marketing(self) -> list[str]:
        """Every card in marketing: the initial ones, the marketed, the revealed."""
        out = list(self.initial_marketing)
        for step in self.marketed_by:
            out += step.values()
        return out + self.revealed

    def options(self, seat: int) -> list[str]:
        """F5: the cards ``seat`` may name in the next step, canonical order."""
        g = self.game_round - 1
        if self.closed % 2 == 0:
            return canonical(self.dealt[g][seat])
        passed = self.passed[g][seat]
        return canonical([*self.hands[seat], *passed]) if self.merge else list(passed)

    def copy(self) -> Table:
        return copy.deepcopy(self)


def start(seed: str, seats: int, *, merge: bool = False) -> Table:
    """F3 and the first deal of F4: the deck in seeded order, the removed cards,
    the initial marketing, and game round 1 dealt."""
    counts = COUNTS[seats]
    deck = deck_order(seed, cards_in_play(seats))
    removed, deck = deck[: counts.removed], deck[counts.removed :]
    initial, pile = deck[: counts.initial_marketing], deck[counts.initial_marketing :]
    table = Table(
        seats=seats,
        seed=seed,
        merge=merge,
        removed=canonical(removed),
        initial_marketing=canonical(initial),
        pile=pile,
        hands={seat: [] for seat in range(1, seats + 1)},
    )
    _deal(table)
    return table


def _deal(table: Table) -> None:
    """F4: three cards to each seat from the top of the pile, seat 1 first."""
    dealt: dict[int, list[str]] = {}
    for seat in table.seat_numbers():
        dealt[seat], table.pile = table.pile[:DEAL], table.pile[DEAL:]
    table.dealt.append(dealt)


def close_keep(table: Table, chosen: Mapping[int, str | None]) -> None:
    """Close a keep step: each seat's kept card joins its hand (a seeded default
    for a seat with none), the other two pass to the next seat."""
    g = table.game_round
    dealt = table.dealt[g - 1]
    kept: dict[int, str] = {}
    for seat in table.seat_numbers():
        card = chosen.get(seat)
        if card is None:
            card = default_keep(table.seed, g, seat, dealt[seat])
            table.defaulted.append((table.closed + 1, seat))
        kept[seat] = card
        table.hands[seat] = canonical([*table.hands[seat], card])
    table.kept.append(kept)
    table.passed.append(
        {
            next_seat(seat, table.seats): canonical(c for c in dealt[seat] if c != kept[seat])
            for seat in table.seat_numbers()
        }
    )
    table.passed[-1] = dict(sorted(table.passed[-1].items()))
    table.closed += 1


def close_market(table: Table, chosen: Mapping[int, str | None]) -> None:
    """Close a market step: each seat's card is marketed (a seeded default for
    a seat with none), the rest of what was passed to it joins its hand; with
    2 players the pile's top card is revealed into marketing; then the next
    game round is dealt, if any."""
    g = table.game_round
    marketed: dict[int, str] = {}
    for seat in table.seat_numbers():
        options = table.options(seat)
        card = chosen.get(seat)
        if card is None:
            card = default_market(table.seed, g, seat, options)
            table.defaulted.append((table.closed + 1, seat))
        marketed[seat] = card
        keep = [*table.hands[seat], *table.passed[g - 1][seat]]
        keep.remove(card)
        table.hands[seat] = canonical(keep)
    table.marketed_by.append(marketed)
    if table.seats == 2:
        table.revealed.append(table.pile.pop(0))
    table.closed += 1
    if not table.finished:
        _deal(table)


def check_choice(table: Table, seat: int, raw: object) -> str:
    """F5: ``seat``'s order for the next step of ``table``, as a canonical id."""
    if table.closed % 2 == 0:
        return check_keep(raw, table.options(seat))
    return check_market(raw, table.options(seat), merge=table.merge)


def play(spec: MatchSpec) -> Table:
    """Deal and close every round of the file; every refused order of the first
    round that has one, in one RuleError (later rounds depend on it)."""
    table = start(spec.seed, spec.seats, merge=spec.merge)
    for i, orders in enumerate(spec.orders):
        problems: list[Problem] = []
        chosen: dict[int, str | None] = {}
        for seat in table.seat_numbers():
            card = orders.get(seat)
            if card is None:
                chosen[seat] = None
                continue
            if isinstance(card, Problem):  # not a card at all (parse_match)
                problems.append(card)
                continue
            try:
                chosen[seat] = check_choice(table, seat, card)
            except RuleError as exc:
                where = f"orders[{i}]"
                problems += [
                    Problem(p.code, f"{where} (round {i + 1}), seat {seat}: {p.message}", where)
                    for p in exc.problems
                ]
        if problems:
            raise RuleError(problems)
        (close_keep if step_kind(i + 1) == KEEP else close_market)(table, chosen)
    return table


# ---- results ---------------------------------------------------------------------


@dataclass(frozen=True)
class Final:
    """F8-F9 once every round has closed."""

    ranking: list[str]
    scores: dict[int, int]
    token_of_life: int | None
    elimination: Elimination


def final(table: Table, tiebreak: Sequence[str], garnets: Mapping[int, int]) -> Final:
    ranked = ranking(marketing_totals(table.marketing()), tiebreak)
    scores = {seat: score(table.hands[seat], ranked) for seat in table.seat_numbers()}
    return Final(
        ranked, scores, token_of(scores), elimination_candidate(scores, garnets, table.seed)
    )


def result_json(table: Table, spec: MatchSpec) -> dict[str, Any]:
    """docs/contracts/forks-2e/FORMAT.md's result, exactly."""
    out: dict[str, Any] = {
        "removed": table.removed,
        "initial_marketing": table.initial_marketing,
        "dealt": [_by_seat(d) for d in table.dealt],
        "marketed": [canonical(m.values()) for m in table.marketed_by],
        "revealed": list(table.revealed),
        "marketing_totals": marketing_totals(table.marketing()),
        "hands": _by_seat(table.hands),
    }
    if table.finished:
        end = final(table, spec.tiebreak, spec.garnets)
        out["ranking"] = end.ranking
        out["scores"] = _by_seat(end.scores)
        out["token_of_life"] = end.token_of_life
        out["elimination_candidate"] = end.elimination.as_dict()
    out["defaulted"] = [{"round": r, "seat": s} for r, s in sorted(table.defaulted)]
    return out


def detail_json(table: Table, spec: MatchSpec) -> dict[str, Any]:
    """The whole state (the ruleset's "detailed result"): the result plus who
    kept, passed and marketed what, the ranking so far, and the counts."""
    out = result_json(table, spec)
    totals = out["marketing_totals"]
    counts = COUNTS[table.seats]
    out.update(
        {
            "ruleset": RULESET,
            "seats": table.seats,
            "merge": table.merge,
            "closed": table.closed,
            "rounds": rounds_of(table.seats),
            "game_rounds": counts.game_rounds,
            "finished": table.finished,
            "kept": [_by_seat(k) for k in table.kept],
            "passed": [_by_seat(p) for p in table.passed],
            "marketed_by": [_by_seat(m) for m in table.marketed_by],
            "ranking_so_far": ranking(totals, spec.tiebreak),
            "draw_pile": len(table.pile),
        }
    )
    if table.finished:
        end = final(table, spec.tiebreak, spec.garnets)
        out["elimination_ties"] = {
            "score": list(end.elimination.tied_on_score),
            "garnets": list(end.elimination.tied_on_garnets),
        }
    return out


def resolve(doc: object, *, details: bool = False, stored: bool = False) -> dict[str, Any]:
    spec = parse_match(doc, stored=stored)
    table = play(spec)
    return detail_json(table, spec) if details else result_json(table, spec)


def match_json(
    players: Sequence[Player] | Sequence[Mapping[str, Any]],
    settings: Mapping[str, Any],
    seed: str | None,
    closed: Sequence[Mapping[int, Any]],
    host_entered: Sequence[tuple[int, int]] = (),
) -> dict[str, Any]:
    """The match file (docs/contracts/forks-2e/FORMAT.md) of closed rounds' orders (cards by
    seat)."""
    as_dicts = [p._asdict() if isinstance(p, Player) else dict(p) for p in players]
    seats = [int(p["seat"]) for p in as_dicts]
    doc: dict[str, Any] = {
        "ruleset": RULESET,
        "players": [{k: p[k] for k in ("seat", "name", "garnets")} for p in as_dicts],
        "seed": seed,
        "settings": {s.key: settings.get(s.key, s.default) for s in SETTINGS},
        "orders": [
            {
                str(seat): (None if step.get(seat) is None else {step_kind(i + 1): step[seat]})
                for seat in seats
            }
            for i, step in enumerate(closed)
        ],
    }
    if host_entered:
        doc["host_entered"] = [{"round": n, "seat": s} for n, s in host_entered]
    return doc
