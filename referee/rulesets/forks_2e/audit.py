"""F12: the host's audit with OR-Tools CP-SAT: what were a seat's best market choices?

For each seat of a finished match, ``best_market`` is the highest score the
seat could have reached by naming other cards in its own market steps only,
every other choice of every player as it was. Nothing else can move: the keep
steps are unchanged, so every deal and pass is too; another seat's market step
(a default included) depends only on that seat's own hand, and with 2 players
the revealed draw-pile cards are fixed. So marketing is a fixed part plus the
seat's own marketed cards, and its final hand is every card it kept or was
passed, less those it marketed. A defaulted market step counts as a choice the
seat could have made; its actual choices are one of the combinations, so the
gain is never negative.

One CP-SAT model per seat, built section by section:

- choices: one boolean per (market step, card the seat could name there),
  exactly one per step; the standard game offers the 2 passed cards, the
  merge variant every card that has reached the hand by then, each marketed
  at most once (so a later step offers what the earlier choices of that same
  combination left in the hand);
- marketing: each destination's total, the fixed part plus the seat's
  marketed values (F6);
- ranking: one boolean per destination, three of them true (the top, F8), and
  every top destination beats every bottom one on total, ties by the match's
  tiebreak (F7), which singles out the top exactly;
- score: each destination's hand values counted plus in the top, minus in the
  bottom (F8);
- objective: the score first; among the best combinations, the one keeping
  the most of the seat's actual choices (so the report names few changes).

Every solve must end OPTIMAL; any other status is an error (``audit/solver``),
never a guess. The solves of one call share a wall-time budget
(:data:`AUDIT_BUDGET_SECONDS`) and run on one worker each: reproducible
answers, and a web request does not take every core. Each model has at most a
few dozen booleans and is proved optimal in milliseconds (BENCHMARKS.md).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ortools.sat.python import cp_model

from referee.errors import RuleError

from . import match as m
from .cards import DEFAULT_NAMES, DESTINATIONS, canonical, card_name, destination, value
from .scoring import TOP, marketing_totals, ranking, score

# Wall time (seconds) all the solves of one audit may take together (one per
# seat); read at each call. Each is proved optimal in milliseconds.
AUDIT_BUDGET_SECONDS = 5.0
WORKERS = 1


# ---- the report ------------------------------------------------------------------


@dataclass(frozen=True)
class Choice:
    """One market step of a seat: the card it marketed, and the card of the
    best combination the audit found (the same card when it need not change)."""

    round: int  # the referee round of the market step (2, 4, ...), as in the match file
    actual: str
    best: str
    defaulted: bool  # the actual card was the seeded default (F10)

    @property
    def game_round(self) -> int:
        return self.round // 2

    @property
    def changed(self) -> bool:
        return self.best != self.actual

    def as_dict(self) -> dict[str, Any]:
        return {
            "round": self.round,
            "game_round": self.game_round,
            "actual": self.actual,
            "best": self.best,
            "defaulted": self.defaulted,
        }


@dataclass(frozen=True)
class SeatAudit:
    seat: int
    name: str
    actual: int  # the seat's score (F8)
    best_market: int  # the best score its own market choices could reach (F12)
    choices: tuple[Choice, ...]  # every market step, in round order
    actual_ranking: tuple[str, ...]
    best_ranking: tuple[str, ...]  # the final ranking with the best combination

    @property
    def gain(self) -> int:
        return self.best_market - self.actual

    @property
    def changes(self) -> tuple[Choice, ...]:
        return tuple(c for c in self.choices if c.changed)


@dataclass(frozen=True)
class MatchAudit:
    merge: bool
    seats: dict[int, SeatAudit]
    destination_names: dict[str, str]  # display names, the match's over the defaults

    def as_dict(self) -> dict[str, Any]:
        """docs/contracts/forks-2e/FORMAT.md's audit: per seat ``actual``, ``best_market`` and
        ``gain``;
        also ``market`` (per market step, the actual card and the best
        combination's), ``ranking`` (the final ranking with that combination)
        and ``text`` (the seat's line of :func:`audit_text`)."""
        return {
            "seats": {
                str(seat): {
                    "actual": a.actual,
                    "best_market": a.best_market,
                    "gain": a.gain,
                    "market": [c.as_dict() for c in a.choices],
                    "ranking": list(a.best_ranking),
                    "text": seat_text(a, self.destination_names),
                }
                for seat, a in sorted(self.seats.items())
            }
        }


# ---- what the models need ----------------------------------------------------------


@dataclass(frozen=True)
class _Situation:
    """One seat's part of a finished match."""

    merge: bool
    tiebreak: tuple[str, ...]
    fixed_marketing: dict[str, int]  # each destination's total without the seat's marketed cards
    kept: tuple[str, ...]  # the card kept in each game round
    passed: tuple[tuple[str, ...], ...]  # the 2 cards passed to the seat in each game round
    actual: tuple[str, ...]  # the card marketed in each game round

    @property
    def game_rounds(self) -> int:
        return len(self.actual)

    @property
    def entered(self) -> dict[str, int]:
        """Every card that reached the seat's hand -> the game round it came."""
        out: dict[str, int] = {}
        for g, (kept, passed) in enumerate(zip(self.kept, self.passed, strict=True), 1):
            out |= dict.fromkeys((kept, *passed), g)
        return out

    def options(self, game_round: int) -> list[str]:
        """The cards the seat may market in ``game_round`` as far as each step
        alone goes: the 2 passed cards; with merge, every card that has reached
        the hand by then (the model rules out marketing one twice)."""
        if self.merge:
            return canonical(c for c, g in self.entered.items() if g <= game_round)
        return list(self.passed[game_round - 1])


def _situation(table: m.Table, seat: int, tiebreak: Sequence[str]) -> _Situation:
    actual = tuple(step[seat] for step in table.marketed_by)
    rest = list(table.marketing())
    for card in actual:
        rest.remove(card)
    return _Situation(
        merge=table.merge,
        tiebreak=tuple(tiebreak),
        fixed_marketing=marketing_totals(rest),
        kept=tuple(step[seat] for step in table.kept),
        passed=tuple(tuple(step[seat]) for step in table.passed),
        actual=actual,
    )


# ---- the model -----------------------------------------------------------------------


class _Model:
    """One seat's CP-SAT model, built section by section."""

    def __init__(self, sit: _Situation) -> None:
        self.sit = sit
        self.m = cp_model.CpModel()
        self.x: dict[tuple[int, str], Any] = {}  # (game round, card) -> marketed then
        self.total: dict[str, Any] = {}  # destination -> marketing total
        self.top: dict[str, Any] = {}  # destination -> in the top three
        self.score: Any = None
        self.same: list[Any] = []  # per game round: the actual card is marketed

    # -- choices section ---------------------------------------------------------
    def choices(self) -> None:
        sit = self.sit
        for g in range(1, sit.game_rounds + 1):
            lits = []
            for card in sit.options(g):
                lit = self.m.new_bool_var(f"x_{g}_{card}")
                self.x[(g, card)] = lit
                lits.append(lit)
            self.m.add_exactly_one(lits)
            self.same.append(self.x[(g, sit.actual[g - 1])])
        for card in sit.entered:  # a card leaves the hand when marketed: once at most
            steps = [lit for (_, c), lit in self.x.items() if c == card]
            if len(steps) > 1:
                self.m.add_at_most_one(steps)

    # -- marketing section ----------------------------------------------------------
    def marketing(self) -> None:
        bound = sum(self.sit.fixed_marketing.values()) + sum(value(c) for c in self.sit.entered)
        for dest in DESTINATIONS:
            total = self.m.new_int_var(0, bound, f"total_{dest}")
            self.m.add(
                total
                == self.sit.fixed_marketing[dest]
                + sum(value(c) * lit for (_, c), lit in self.x.items() if destination(c) == dest)
            )
            self.total[dest] = total

    # -- ranking section ------------------------------------------------------------
    def ranking(self) -> None:
        """The top three: every top destination beats every bottom one, higher
        total first, equal totals to the earlier in the tiebreak. The ranking is
        a strict order, so exactly one set of three satisfies this."""
        tiebreak = self.sit.tiebreak
        for dest in DESTINATIONS:
            self.top[dest] = self.m.new_bool_var(f"top_{dest}")
        self.m.add(sum(self.top.values()) == TOP)
        for i, d in enumerate(tiebreak):
            for e in tiebreak[i + 1 :]:  # d wins a tie against e
                self.m.add(self.total[d] >= self.total[e]).only_enforce_if(
                    [self.top[d], ~self.top[e]]
                )
                self.m.add(self.total[e] >= self.total[d] + 1).only_enforce_if(
                    [self.top[e], ~self.top[d]]
                )

    # -- score section ----------------------------------------------------------------
    def scoring(self) -> None:
        """The final hand is every card that entered it, less the marketed ones;
        each destination's hand values count plus in the top, minus in the bottom."""
        bound = sum(value(c) for c in self.sit.entered)
        parts = []
        for dest in DESTINATIONS:
            cards = [c for c in self.sit.entered if destination(c) == dest]
            held = sum(value(c) for c in cards) - sum(
                value(c) * lit for (_, c), lit in self.x.items() if destination(c) == dest
            )
            part = self.m.new_int_var(-bound, bound, f"part_{dest}")
            self.m.add(part == held).only_enforce_if(self.top[dest])
            self.m.add(part == -held).only_enforce_if(~self.top[dest])
            parts.append(part)
        self.score = self.m.new_int_var(-bound, bound, "score")
        self.m.add(self.score == sum(parts))

    # -- objective section --------------------------------------------------------------
    def objective(self) -> None:
        """The score first; then as many of the actual choices as possible (one
        more point of score outweighs keeping every actual choice)."""
        weight = self.sit.game_rounds + 1
        self.m.maximize(weight * self.score + sum(self.same))

    def build(self) -> _Model:
        self.choices()
        self.marketing()
        self.ranking()
        self.scoring()
        self.objective()
        return self

    def solve(self, deadline: float, seat: int) -> cp_model.CpSolver:
        """The solver once it has proved the optimum; RuleError otherwise."""
        left = deadline - time.monotonic()
        if left <= 0:
            raise RuleError.single(
                "audit/solver",
                f"the audit's time budget ({AUDIT_BUDGET_SECONDS:g} s) ran out before seat {seat}",
            )
        solver = cp_model.CpSolver()
        solver.parameters.num_workers = WORKERS
        solver.parameters.max_time_in_seconds = left
        status = solver.solve(self.m)
        if status != cp_model.OPTIMAL:
            raise RuleError.single(
                "audit/solver",
                f"the solver did not prove seat {seat}'s best market choices "
                f"({solver.status_name(status)}); no figure is given rather than a guess",
            )
        return solver


# ---- the audit -------------------------------------------------------------------------


def audit_table(
    table: m.Table,
    tiebreak: Sequence[str],
    names: Mapping[int, str] | None = None,
    destination_names: Mapping[str, str] | None = None,
    budget: float | None = None,
) -> MatchAudit:
    """F12 for every seat of a finished ``table``, within ``budget`` seconds of
    solving (default :data:`AUDIT_BUDGET_SECONDS`)."""
    if not table.finished:
        rounds = m.rounds_of(table.seats)
        raise RuleError.single(
            "audit/unfinished",
            f"the audit needs a finished match: {table.closed} of its {rounds} rounds have "
            "closed (it compares final scores)",
        )
    deadline = time.monotonic() + (AUDIT_BUDGET_SECONDS if budget is None else budget)
    actual_ranking = ranking(marketing_totals(table.marketing()), tiebreak)
    defaulted = set(table.defaulted)
    seats: dict[int, SeatAudit] = {}
    for seat in table.seat_numbers():
        sit = _situation(table, seat, tiebreak)
        model = _Model(sit).build()
        solver = model.solve(deadline, seat)
        best = tuple(
            next(c for c in sit.options(g) if solver.boolean_value(model.x[(g, c)]))
            for g in range(1, sit.game_rounds + 1)
        )
        best_ranking = ranking(_add(sit.fixed_marketing, best), tiebreak)
        seats[seat] = SeatAudit(
            seat=seat,
            name=(names or {}).get(seat, f"Seat {seat}"),
            actual=score(table.hands[seat], actual_ranking),
            best_market=solver.value(model.score),
            choices=tuple(
                Choice(2 * g, sit.actual[g - 1], best[g - 1], (2 * g, seat) in defaulted)
                for g in range(1, sit.game_rounds + 1)
            ),
            actual_ranking=tuple(actual_ranking),
            best_ranking=tuple(best_ranking),
        )
    return MatchAudit(
        merge=table.merge,
        seats=seats,
        destination_names={**DEFAULT_NAMES, **(destination_names or {})},
    )


def _add(fixed: Mapping[str, int], cards: Sequence[str]) -> dict[str, int]:
    totals = dict(fixed)
    for card in cards:
        totals[destination(card)] += value(card)
    return totals


def audit_document(
    document: Any, *, stored: bool = False, budget: float | None = None
) -> MatchAudit:
    """Audit a finished match file (docs/contracts/forks-2e/FORMAT.md); ``stored`` as for
    :func:`~.match.parse_match`. An unfinished match is refused
    (``audit/unfinished``), a bad file as :func:`~.match.play` refuses it."""
    spec = m.parse_match(document, stored=stored)
    table = m.play(spec)
    return audit_table(
        table,
        spec.tiebreak,
        names={p.seat: p.name for p in spec.players},
        destination_names=spec.names,
        budget=budget,
    )


# ---- in words -------------------------------------------------------------------------

CardWords = Callable[[str], str]  # a card as a sentence names it


def _card_id(card: str) -> str:
    return card


def _and(parts: Sequence[str]) -> str:
    if len(parts) <= 1:
        return "".join(parts)
    return ", ".join(parts[:-1]) + " and " + parts[-1]


def _step(choice: Choice, card: CardWords) -> str:
    was = f"{card(choice.actual)} (the seeded default)" if choice.defaulted else card(choice.actual)
    return f"{card(choice.best)} instead of {was} in round {choice.game_round}'s market step"


def _sentence(
    name: str,
    actual: int,
    best: int,
    choices: Sequence[Choice],
    new_top: Sequence[str] | None,
    destination_names: Mapping[str, str],
    card: CardWords,
) -> str:
    """One seat's audit in a sentence; ``new_top``: the top three of the best
    combination when it is not the actual top, else None."""
    if best == actual:
        return f"{name}'s market choices were the best they could make (score {actual})."
    changes = [c for c in choices if c.changed]
    line = (
        f"{name} could have scored {best} instead of {actual} by marketing "
        f"{_and([_step(c, card) for c in changes])}"
    )
    if new_top is not None:
        top = [destination_names.get(d, d) for d in new_top]
        line += f"; the top would then have been {_and(top)}"
    return line + "."


def _new_top(best_ranking: Sequence[str], actual_ranking: Sequence[str]) -> list[str] | None:
    top = list(best_ranking[:TOP])
    return top if set(top) != set(actual_ranking[:TOP]) else None


def seat_text(
    a: SeatAudit, destination_names: Mapping[str, str], card: CardWords = _card_id
) -> str:
    """One seat's audit in a sentence (plain text: the pages escape it). Cards
    by their ids, as the audit JSON's ``text`` (the contract's words), unless
    ``card`` names them otherwise."""
    new_top = _new_top(a.best_ranking, a.actual_ranking)
    return _sentence(a.name, a.actual, a.best_market, a.choices, new_top, destination_names, card)


def seat_words(
    entry: Mapping[str, Any],
    name: str,
    actual_ranking: Sequence[str],
    destination_names: Mapping[str, str],
) -> str:
    """The sentence of one seat's entry of the audit JSON
    (:meth:`MatchAudit.as_dict`), its cards named as players know them
    ("Greysteel City 8"): for the host's audit page, which has the JSON and the
    match's view (``actual_ranking``: its final ranking)."""
    choices = [
        Choice(int(c["round"]), str(c["actual"]), str(c["best"]), bool(c["defaulted"]))
        for c in entry["market"]
    ]
    return _sentence(
        name,
        int(entry["actual"]),
        int(entry["best_market"]),
        choices,
        _new_top([str(d) for d in entry["ranking"]], actual_ranking),
        destination_names,
        lambda card: card_name(card, destination_names),
    )


def audit_text(report: MatchAudit, document: Any = None) -> str:
    """The audit in words, for the CLI: each seat's sentence as the host's page
    says it, cards named as players know them ("Greysteel City 8"; the JSON's
    ``text`` names them by id). ``document`` is the match file the report was
    made from; the report already holds the names read from it."""
    variant = (
        "merge variant: any card of the hand" if report.merge else "one of the two passed cards"
    )
    lines = [
        "Audit of the market steps (F12): for each player, the best score they could have "
        "reached by marketing other cards in their own market steps "
        f"({variant}), every other choice as it was.",
        "",
    ]
    names = report.destination_names
    lines += [
        seat_text(a, names, lambda card: card_name(card, names))
        for _, a in sorted(report.seats.items())
    ]
    return "\n".join(lines) + "\n"
