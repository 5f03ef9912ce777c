"""A whole match: the match file of docs/contracts/forks/FORMAT.md, and playing it step by step.

:func:`parse_match` checks a file's structure (players, seed, settings, the
shape of each closed round's order); :func:`play` sets the deck up (K3) and
closes each round (K4), checking every order against what the seat may name
(K5) and filling in seeded defaults (K10); :func:`result_json` gives the
exact result ``referee resolve --json`` prints, :func:`detail_json` the whole
state the views are made from.

A match in play is a :class:`Table`; :func:`start` sets it up and
:func:`close_draw` / :func:`close_invest` close one step each (the audit
replays a seat's invest choices with them).
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from referee.errors import Problem, RuleError
from referee.matchfile import check_seed
from referee.players import Player, parse_players, seat_list
from referee.ruleset import Setting
from referee.rulesets.cardgame import (
    Elimination,
    by_seat,
    check_file_settings,
    deck_order,
    elimination_candidate,
    parse_host_entered,
    seeded_pick,
    token_of_life,
)

from .cards import ALL_CARDS, CARDS, COMPANIES, canonical
from .orders import (
    DRAW,
    INVEST,
    DrawOrder,
    check_draw,
    check_invest,
    read_draw,
    read_invest_entry,
)

RULESET = "forks"
MIN_SEATS, MAX_SEATS = 2, 5
DRAWN = 3  # cards drawn in a draw step (K4)
INITIAL = 3  # cards invested at the start (K3)
DEFAULT_TIEBREAK: tuple[str, ...] = ("dtv", "apidae", "oxime", "needle", "wildrock")

SETTINGS: tuple[Setting, ...] = (
    Setting(
        "swap",
        "Swap variant: swap a drawn card for an invested one",
        "flag",
        False,
        help="in your draw step you may first give one of your 3 cards to the investment "
        "and take an invested card in its place",
    ),
    Setting(
        "merge",
        "Merge variant: invest any card of your hand",
        "flag",
        False,
        help="both passed cards join your hand first, then you invest any one card of it",
    ),
    Setting(
        "tiebreak",
        "Tiebreak order of the companies",
        "order",
        list(DEFAULT_TIEBREAK),
        choices=COMPANIES,
        help="an earlier company wins a tie on investment totals",
    ),
    Setting(
        "names",
        "Company names",
        "names",
        {},
        choices=COMPANIES,
        help="display names only; ids and results do not change",
    ),
)


def discarded_count(seats: int) -> int:
    """K3: 1 card discarded unseen, 9 with 2 players."""
    return 9 if seats == 2 else 1


def turns_of(seats: int) -> int:
    """K4: 12 turns with 3 to 5 players, 8 with 2."""
    return 8 if seats == 2 else 12


def rounds_of(seats: int) -> int:
    """K4: how many referee rounds (steps) a match of ``seats`` has."""
    return 2 * turns_of(seats)


def step_kind(number: int) -> str:
    """K4: referee round ``number`` (from 1) is a draw step when odd."""
    return DRAW if number % 2 == 1 else INVEST


def turn_of(number: int) -> int:
    """K4: the turn of referee round ``number`` (turn t is rounds 2t-1 and 2t)."""
    return (number + 1) // 2


def next_seat(seat: int, seats: int) -> int:
    """K1: the seat on the left of s is s+1; of seat n, seat 1."""
    return seat % seats + 1


def current_seat(turn: int, seats: int) -> int:
    """K4: seat 1 in turn 1, then the seat on the left of the previous one."""
    return (turn - 1) % seats + 1


def acting_seat(number: int, seats: int) -> int:
    """K4: the one seat that acts in referee round ``number``."""
    current = current_seat(turn_of(number), seats)
    return current if step_kind(number) == DRAW else next_seat(current, seats)


# ---- the match file ---------------------------------------------------------------

Order = DrawOrder | str | Problem | None  # None: no order; a Problem: its shape is wrong


@dataclass(frozen=True)
class MatchSpec:
    """A match file, structurally checked; orders are checked by :func:`play`."""

    players: tuple[Player, ...]
    seed: str
    swap: bool
    merge: bool
    tiebreak: tuple[str, ...]
    names: dict[str, str]
    orders: tuple[Order, ...]  # one per closed round: the acting seat's order
    host_entered: tuple[tuple[int, int], ...] = ()  # (round, seat)

    @property
    def seats(self) -> int:
        return len(self.players)

    @property
    def garnets(self) -> dict[int, int]:
        return {p.seat: p.garnets for p in self.players}


def parse_match(doc: object, *, stored: bool = False) -> MatchSpec:
    """Check a match file's structure (docs/contracts/forks/FORMAT.md); every
    problem is reported. With ``stored`` (a match the service holds) names are
    not checked again."""
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
    settings, setting_problems = check_file_settings(doc.get("settings"), SETTINGS)
    problems += setting_problems
    seats = len(players) if players and len(players) == len(doc["players"]) else 0
    swap = bool(settings.get("swap"))
    orders = _parse_orders(doc.get("orders"), seats, swap, bad)
    host_entered = parse_host_entered(doc.get("host_entered", []), seats, len(orders), bad)
    problems += [o for o in orders if isinstance(o, Problem)]
    if problems:
        raise RuleError(problems)
    assert isinstance(seed, str)
    return MatchSpec(
        players=players,
        seed=seed,
        swap=swap,
        merge=bool(settings["merge"]),
        tiebreak=tuple(settings["tiebreak"]),
        names=dict(settings["names"]),
        orders=orders,
        host_entered=host_entered,
    )


def round_name(number: int) -> str:
    """A round as messages name it: "round 3 (turn 2, draw step)"."""
    return f"round {number} (turn {turn_of(number)}, {step_kind(number)} step)"


def _parse_orders(
    raw: object, seats: int, swap: bool, bad: Callable[[str, str, str], None]
) -> tuple[Order, ...]:
    """``orders``: one entry per closed round, each null or an object holding at
    most the acting seat's order (K4); each order's shape is read here (K5),
    what it names is checked in play."""
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
    out: list[Order] = []
    for i, entry in enumerate(raw):
        number, where = i + 1, f"orders[{i}]"
        at = f"{where} ({round_name(number)})"
        if entry is None:
            out.append(None)
            continue
        if not isinstance(entry, Mapping):
            bad("match/bad_orders", f"{at} must be an object keyed by seat, or null", where)
            out.append(None)
            continue
        if not seats:  # the players are wrong: who acts is not known
            out.append(None)
            continue
        acting = acting_seat(number, seats)
        order: Order = None
        for key, value in entry.items():
            if key != str(acting):
                known = key in {str(s) for s in range(1, seats + 1)}
                bad(
                    "match/not_acting" if known else "match/unknown_seat",
                    f"{at} has an order for seat {key!r}; only seat {acting} acts in it"
                    + ("" if known else f" (seats are {seat_list(seats)})"),
                    where,
                )
                continue
            if value is None:
                continue
            try:
                if step_kind(number) == DRAW:
                    order = read_draw(value, swap_allowed=swap)
                else:
                    order = read_invest_entry(value)
            except RuleError as exc:
                for p in exc.problems:
                    bad(p.code, f"{at}, seat {acting}: {p.message}", where)
        out.append(order)
    return tuple(out)


# ---- the table: a match in play -------------------------------------------------


@dataclass
class Turn:
    """One started turn (docs/contracts/forks/FORMAT.md's ``turns`` entry)."""

    turn: int
    current: int
    receiver: int
    drawn: list[str]  # draw-pile order
    swap: dict[str, str] | None = None
    kept: str | None = None
    passed: list[str] | None = None  # canonical
    invested: str | None = None
    revealed: str | None = None

    def as_json(self) -> dict[str, Any]:
        return {
            "turn": self.turn,
            "current": self.current,
            "drawn": list(self.drawn),
            "swap": None if self.swap is None else dict(self.swap),
            "kept": self.kept,
            "passed": None if self.passed is None else list(self.passed),
            "receiver": self.receiver,
            "invested": self.invested,
            "revealed": self.revealed,
        }


@dataclass
class Table:
    """Everything about a match in play after ``closed`` rounds (mutable: the
    close functions change it in place; copy it first to branch)."""

    seats: int
    seed: str
    swap: bool
    merge: bool
    discarded: list[str]  # canonical
    initial: list[str]  # canonical
    pile: list[str]  # the draw pile, top first
    investment: list[str]  # every card invested now, canonical
    hands: dict[int, list[str]]  # canonical
    turns: list[Turn] = field(default_factory=list)
    defaulted: list[tuple[int, int]] = field(default_factory=list)  # (round, seat)
    closed: int = 0

    @property
    def finished(self) -> bool:
        return self.closed == rounds_of(self.seats)

    @property
    def turn(self) -> Turn:
        """The turn of the next step (the last started)."""
        return self.turns[-1]

    @property
    def next_kind(self) -> str:
        return step_kind(self.closed + 1)

    @property
    def acting(self) -> int:
        """The seat that acts in the next step."""
        return acting_seat(self.closed + 1, self.seats)

    def seat_numbers(self) -> range:
        return range(1, self.seats + 1)

    def options(self) -> list[str]:
        """K5: the cards the acting seat may name in the next step (canonical):
        the 3 drawn (to keep, before any swap), or the cards it may invest."""
        turn = self.turn
        if self.next_kind == DRAW:
            return canonical(turn.drawn)
        assert turn.passed is not None
        if self.merge:
            return canonical([*self.hands[turn.receiver], *turn.passed])
        return list(turn.passed)

    def copy(self) -> Table:
        return copy.deepcopy(self)


def start(seed: str, seats: int, *, swap: bool = False, merge: bool = False) -> Table:
    """K3 and turn 1's draw: the deck in seeded order, the initial investment,
    the discarded cards, and the first 3 cards drawn."""
    deck = deck_order(seed, ALL_CARDS)
    initial, deck = deck[:INITIAL], deck[INITIAL:]
    gone, pile = deck[: discarded_count(seats)], deck[discarded_count(seats) :]
    table = Table(
        seats=seats,
        seed=seed,
        swap=swap,
        merge=merge,
        discarded=canonical(gone),
        initial=canonical(initial),
        pile=pile,
        investment=canonical(initial),
        hands={seat: [] for seat in range(1, seats + 1)},
    )
    _start_turn(table)
    return table


def _start_turn(table: Table) -> None:
    number = len(table.turns) + 1
    current = current_seat(number, table.seats)
    drawn, table.pile = table.pile[:DRAWN], table.pile[DRAWN:]
    table.turns.append(Turn(number, current, next_seat(current, table.seats), drawn))


def close_draw(table: Table, order: DrawOrder | None) -> None:
    """Close a draw step (K4): the swap takes effect, the kept card joins the
    current seat's hand, the other two pass to the seat on its left. No
    order: no swap, the seeded default keep (K10)."""
    turn = table.turn
    if order is None:
        keep = seeded_pick(table.seed, turn.drawn, "nmr", "keep", turn.turn, turn.current)
        order = DrawOrder(keep)
        table.defaulted.append((table.closed + 1, turn.current))
    if order.give is not None and order.take is not None:
        turn.swap = {"give": order.give, "take": order.take}
        rest = [c for c in table.investment if c != order.take]
        table.investment = canonical([*rest, order.give])
    held = order.held(turn.drawn)
    turn.kept = order.keep
    turn.passed = canonical(c for c in held if c != order.keep)
    table.hands[turn.current] = canonical([*table.hands[turn.current], order.keep])
    table.closed += 1


def close_invest(table: Table, card: str | None) -> None:
    """Close an invest step (K4): the card is invested (no order: the seeded
    default, K10), the rest of what was passed joins the receiver's hand; with
    2 players after seat 2's turn the pile's top card is revealed and
    invested; then the next turn starts, if any."""
    turn = table.turn
    options = table.options()
    if card is None:
        card = seeded_pick(table.seed, options, "nmr", "invest", turn.turn, turn.receiver)
        table.defaulted.append((table.closed + 1, turn.receiver))
    assert turn.passed is not None
    hand = [*table.hands[turn.receiver], *turn.passed]
    hand.remove(card)
    table.hands[turn.receiver] = canonical(hand)
    turn.invested = card
    invested = [*table.investment, card]
    if table.seats == 2 and turn.current == 2:
        turn.revealed = table.pile.pop(0)
        invested.append(turn.revealed)
    table.investment = canonical(invested)
    table.closed += 1
    if not table.finished:
        _start_turn(table)


def check_next(table: Table, order: DrawOrder | str) -> DrawOrder | str:
    """K5: an order (read) for the next step of ``table``, checked."""
    if table.next_kind == DRAW:
        assert isinstance(order, DrawOrder)
        return check_draw(order, table.turn.drawn, table.investment)
    assert isinstance(order, str)
    return check_invest(order, table.options(), merge=table.merge)


def close_next(table: Table, order: DrawOrder | str | None) -> None:
    """Close the next step with ``order`` (checked), None for no order."""
    if table.next_kind == DRAW:
        assert order is None or isinstance(order, DrawOrder)
        close_draw(table, order)
    else:
        assert order is None or isinstance(order, str)
        close_invest(table, order)


def play(spec: MatchSpec) -> Table:
    """Set up and close every round of the file; the first round with a
    refused order stops it, every problem of that order in one RuleError
    (later rounds depend on it)."""
    table = start(spec.seed, spec.seats, swap=spec.swap, merge=spec.merge)
    for i, order in enumerate(spec.orders):
        if isinstance(order, Problem):  # parse_match reported it already
            raise RuleError([order])
        if order is not None:
            try:
                order = check_next(table, order)
            except RuleError as exc:
                where = f"orders[{i}]"
                at = f"{where} ({round_name(i + 1)}), seat {table.acting}"
                raise RuleError(
                    [Problem(p.code, f"{at}: {p.message}", where) for p in exc.problems]
                ) from None
        close_next(table, order)
    return table


# ---- results ---------------------------------------------------------------------


@dataclass(frozen=True)
class Final:
    """K8-K9 once every round has closed."""

    ranking: list[str]
    scores: dict[int, int]
    token_of_life: int | None
    elimination: Elimination


def ranking_of(investment: Sequence[str], tiebreak: Sequence[str]) -> list[str]:
    return CARDS.ranking(CARDS.totals(investment), tiebreak)


def final(table: Table, tiebreak: Sequence[str], garnets: Mapping[int, int]) -> Final:
    ranked = ranking_of(table.investment, tiebreak)
    scores = {seat: CARDS.score(table.hands[seat], ranked) for seat in table.seat_numbers()}
    return Final(
        ranked, scores, token_of_life(scores), elimination_candidate(scores, garnets, table.seed)
    )


def result_json(table: Table, spec: MatchSpec) -> dict[str, Any]:
    """docs/contracts/forks/FORMAT.md's result, exactly."""
    out: dict[str, Any] = {
        "discarded": list(table.discarded),
        "initial_investment": list(table.initial),
        "turns": [t.as_json() for t in table.turns],
        "investment": list(table.investment),
        "investment_totals": CARDS.totals(table.investment),
        "hands": by_seat(table.hands),
    }
    if table.finished:
        end = final(table, spec.tiebreak, spec.garnets)
        out["ranking"] = end.ranking
        out["scores"] = by_seat(end.scores)
        out["token_of_life"] = end.token_of_life
        out["elimination_candidate"] = end.elimination.as_dict()
    out["defaulted"] = [{"round": r, "seat": s} for r, s in sorted(table.defaulted)]
    return out


def detail_json(table: Table, spec: MatchSpec) -> dict[str, Any]:
    """The whole state (the ruleset's "detailed result"): the result plus the
    settings, the counts and the ranking so far."""
    out = result_json(table, spec)
    out.update(
        {
            "ruleset": RULESET,
            "seats": table.seats,
            "swap": table.swap,
            "merge": table.merge,
            "closed": table.closed,
            "rounds": rounds_of(table.seats),
            "turns_total": turns_of(table.seats),
            "finished": table.finished,
            "ranking_so_far": ranking_of(table.investment, spec.tiebreak),
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


def order_json(number: int, order: Any) -> dict[str, Any]:
    """A stored order (the API's value) as the match file writes it."""
    return dict(order) if step_kind(number) == DRAW else {INVEST: order}


def match_json(
    players: Sequence[Player] | Sequence[Mapping[str, Any]],
    settings: Mapping[str, Any],
    seed: str | None,
    closed: Sequence[Mapping[int, Any]],
    host_entered: Sequence[tuple[int, int]] = (),
) -> dict[str, Any]:
    """The match file (docs/contracts/forks/FORMAT.md) of closed rounds' orders
    (by seat: the API's values, a draw step's object or an invest step's card)."""
    as_dicts = [p._asdict() if isinstance(p, Player) else dict(p) for p in players]
    seats = len(as_dicts)
    orders: list[dict[str, Any] | None] = []
    for i, step in enumerate(closed):
        acting = acting_seat(i + 1, seats)
        order = step.get(acting)
        orders.append({} if order is None else {str(acting): order_json(i + 1, order)})
    doc: dict[str, Any] = {
        "ruleset": RULESET,
        "players": [{k: p[k] for k in ("seat", "name", "garnets")} for p in as_dicts],
        "seed": seed,
        "settings": {s.key: settings.get(s.key, s.default) for s in SETTINGS},
        "orders": orders,
    }
    if host_entered:
        doc["host_entered"] = [{"round": n, "seat": s} for n, s in host_entered]
    return doc
