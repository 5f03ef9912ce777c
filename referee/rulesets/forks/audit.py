"""K12: the host's audit with OR-Tools CP-SAT: what were a seat's best invest choices?

For each seat of a finished match, ``best_invest`` is the highest score the
seat could have reached by naming other cards in its own invest steps only,
every other choice of every player as it was. The draw steps are unchanged,
so every draw, swap and pass is too; another seat's invest step (a default
included) depends only on that seat's own hand and the cards passed to it,
which do not move. What the seat's choices change is which of its cards are
invested and which stay in its hand. A defaulted invest step counts as a
choice the seat could have made; its actual choices are one of the
combinations, so the gain is never negative.

A combination is only one the seat had if every later order stays legal: a
swap takes an invested card, so a card that a swap took after the seat had
invested it must still be invested by then (K12).

One CP-SAT model per seat, built section by section:

- choices: one boolean per (invest step, card the seat could name there),
  exactly one per step: the 2 passed cards; with merge, every card that has
  reached the hand by then, and no card invested more often than it reached
  the hand by that step (so the hand follows the combination's own earlier
  choices);
- swaps: each later swap's taken card is invested when the swap happens;
- investment: each company's total at the end, the fixed part plus the
  seat's invested values (K7);
- ranking: one boolean per company, three of them true (the top, K8), and
  every top company beats every bottom one on total, ties by the match's
  tiebreak, which singles out the top exactly;
- score: the hand (every card that reached it, less the invested ones),
  values plus in the top, minus in the bottom (K8);
- objective: the score first; among the best combinations, the one keeping
  the most of the seat's actual choices (so the report names few changes).

Every solve must end OPTIMAL; any other status is an error (``audit/solver``),
never a guess. The solves of one call share a wall-time budget
(:data:`AUDIT_BUDGET_SECONDS`) and run on one worker each: reproducible
answers, and a web request does not take every core (BENCHMARKS.md).
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ortools.sat.python import cp_model

from referee.errors import Problem, RuleError
from referee.rulesets.cardgame import TOP

from . import match as m
from .cards import CARDS, COMPANIES, DEFAULT_NAMES, canonical, card_name, company, value
from .orders import DrawOrder

# Wall time (seconds) all the solves of one audit may take together (one per
# seat); read at each call. Each is proved optimal in milliseconds.
AUDIT_BUDGET_SECONDS = 5.0
WORKERS = 1


# ---- the report ------------------------------------------------------------------


@dataclass(frozen=True)
class Choice:
    """One invest step of a seat: the card it invested, and the card of the
    best combination the audit found (the same card when it need not change)."""

    round: int  # the referee round of the invest step (2, 4, ...), as in the match file
    actual: str
    best: str
    defaulted: bool  # the actual card was the seeded default (K10)

    @property
    def turn(self) -> int:
        return self.round // 2

    @property
    def changed(self) -> bool:
        return self.best != self.actual

    def as_dict(self) -> dict[str, Any]:
        return {
            "round": self.round,
            "turn": self.turn,
            "actual": self.actual,
            "best": self.best,
            "defaulted": self.defaulted,
        }


@dataclass(frozen=True)
class SeatAudit:
    seat: int
    name: str
    actual: int  # the seat's score (K8)
    best_invest: int  # the best score its own invest choices could reach (K12)
    choices: tuple[Choice, ...]  # every invest step of the seat, in round order
    actual_ranking: tuple[str, ...]
    best_ranking: tuple[str, ...]  # the final ranking with the best combination

    @property
    def gain(self) -> int:
        return self.best_invest - self.actual

    @property
    def changes(self) -> tuple[Choice, ...]:
        return tuple(c for c in self.choices if c.changed)


@dataclass(frozen=True)
class MatchAudit:
    merge: bool
    seats: dict[int, SeatAudit]
    company_names: dict[str, str]  # display names, the match's over the defaults

    def as_dict(self) -> dict[str, Any]:
        """docs/contracts/forks/FORMAT.md's audit: per seat ``actual``,
        ``best_invest`` and ``gain``; also ``invest`` (per invest step, the
        actual card and the best combination's), ``ranking`` (the final
        ranking with that combination) and ``text`` (the seat's sentence)."""
        return {
            "seats": {
                str(seat): {
                    "actual": a.actual,
                    "best_invest": a.best_invest,
                    "gain": a.gain,
                    "invest": [c.as_dict() for c in a.choices],
                    "ranking": list(a.best_ranking),
                    "text": seat_text(a, self.company_names),
                }
                for seat, a in sorted(self.seats.items())
            }
        }


# ---- what the models need ----------------------------------------------------------


@dataclass(frozen=True)
class _Step:
    round: int  # the invest step's referee round
    passed: tuple[str, ...]  # the 2 cards passed to the seat
    actual: str


@dataclass(frozen=True)
class _Swap:
    round: int  # the draw step's referee round
    take: str


@dataclass(frozen=True)
class _Situation:
    """One seat's part of a finished match, read off a replay."""

    merge: bool
    tiebreak: tuple[str, ...]
    steps: tuple[_Step, ...]  # the seat's invest steps, in round order
    arrivals: tuple[tuple[int, str], ...]  # (round, card): each card reaching the hand
    swaps: tuple[_Swap, ...]  # every swap of the match
    # each card's invested count just before each swap's draw step, without
    # the seat's own invested cards before it (0, or 1 when others invested it)
    fixed_before: Mapping[int, Counter[str]]
    fixed_final: Counter[str]  # the same at the end

    def arrived(self, card: str, before: int) -> int:
        """How often ``card`` reached the hand in rounds before ``before``."""
        return sum(1 for r, c in self.arrivals if c == card and r < before)

    def options(self, k: int) -> list[str]:
        """The cards the seat may invest in its k-th invest step as far as that
        step alone goes: the 2 passed; with merge, every card that reached the
        hand by then (the model keeps the hand right across steps)."""
        step = self.steps[k]
        if self.merge:
            return canonical({c for r, c in self.arrivals if r < step.round})
        return list(step.passed)

    @property
    def hand_cards(self) -> list[str]:
        return [c for _, c in self.arrivals]


def _less(invested: Sequence[str], own: Counter[str]) -> Counter[str]:
    """Each card's invested count less the seat's own investing of it so far
    (-1 for a card the seat invested and a swap has taken since)."""
    out = Counter(invested)
    out.subtract(own)
    return out


def _situation(spec: m.MatchSpec, seat: int) -> _Situation:
    """Replay the match, noting what the seat's audit needs."""
    table = m.start(spec.seed, spec.seats, swap=spec.swap, merge=spec.merge)
    steps: list[_Step] = []
    arrivals: list[tuple[int, str]] = []
    swaps: list[_Swap] = []
    before: dict[int, Counter[str]] = {}
    own_before: Counter[str] = Counter()  # the seat's invested cards so far
    for order in spec.orders:
        assert not isinstance(order, Problem)
        number = table.closed + 1
        turn = table.turn
        if isinstance(order, DrawOrder) and order.take is not None:
            swaps.append(_Swap(number, order.take))
            before[number] = _less(table.investment, own_before)
        if order is not None:
            order = m.check_next(table, order)
        m.close_next(table, order)
        if number % 2 == 1 and turn.current == seat:
            assert turn.kept is not None
            arrivals.append((number, turn.kept))
        if number % 2 == 1 and turn.receiver == seat:
            assert turn.passed is not None
            arrivals += [(number, c) for c in turn.passed]
        if number % 2 == 0 and turn.receiver == seat:
            assert turn.passed is not None and turn.invested is not None
            steps.append(_Step(number, tuple(turn.passed), turn.invested))
            own_before[turn.invested] += 1
    return _Situation(
        merge=spec.merge,
        tiebreak=spec.tiebreak,
        steps=tuple(steps),
        arrivals=tuple(arrivals),
        swaps=tuple(swaps),
        fixed_before=before,
        fixed_final=_less(table.investment, own_before),
    )


# ---- the model -----------------------------------------------------------------------


class _Model:
    """One seat's CP-SAT model, built section by section."""

    def __init__(self, sit: _Situation) -> None:
        self.sit = sit
        self.m = cp_model.CpModel()
        self.x: dict[tuple[int, str], Any] = {}  # (step index, card) -> invested then
        self.total: dict[str, Any] = {}  # company -> investment total at the end
        self.top: dict[str, Any] = {}  # company -> in the top three
        self.score: Any = None
        self.same: list[Any] = []  # per step: the actual card is invested

    def _invested(self, card: str, before: int | None = None) -> Any:
        """The seat's investing of ``card`` in its steps before round ``before``
        (all of them: None), a linear expression."""
        return sum(
            lit
            for (k, c), lit in self.x.items()
            if c == card and (before is None or self.sit.steps[k].round < before)
        )

    # -- choices section ---------------------------------------------------------
    def choices(self) -> None:
        sit = self.sit
        for k, step in enumerate(sit.steps):
            lits = []
            for card in sit.options(k):
                lit = self.m.new_bool_var(f"x_{step.round}_{card}")
                self.x[(k, card)] = lit
                lits.append(lit)
            self.m.add_exactly_one(lits)
            self.same.append(self.x[(k, step.actual)])
        if sit.merge:  # a card is invested at most as often as it reached the hand by then
            for k, step in enumerate(sit.steps):
                for card in sit.options(k):
                    so_far = [lit for (j, c), lit in self.x.items() if c == card and j <= k]
                    limit = sit.arrived(card, step.round)
                    if len(so_far) > limit:
                        self.m.add(sum(so_far) <= limit)

    # -- swaps section --------------------------------------------------------------
    def swaps(self) -> None:
        """Every swap stays legal: its taken card is invested when it is taken."""
        for swap in self.sit.swaps:
            fixed = self.sit.fixed_before[swap.round][swap.take]
            if fixed >= 1:
                continue
            self.m.add(self._invested(swap.take, swap.round) + fixed >= 1)

    # -- investment section ------------------------------------------------------------
    def investment(self) -> None:
        fixed = self.sit.fixed_final
        bound = sum(value(c) for c in CARDS.cards)
        for firm in COMPANIES:
            total = self.m.new_int_var(0, bound, f"total_{firm}")
            self.m.add(
                total
                == sum(value(c) * n for c, n in fixed.items() if company(c) == firm)
                + sum(value(c) * lit for (_, c), lit in self.x.items() if company(c) == firm)
            )
            self.total[firm] = total

    # -- ranking section ------------------------------------------------------------
    def ranking(self) -> None:
        """The top three: every top company beats every bottom one, higher
        total first, equal totals to the earlier in the tiebreak. The ranking is
        a strict order, so exactly one set of three satisfies this."""
        tiebreak = self.sit.tiebreak
        for firm in COMPANIES:
            self.top[firm] = self.m.new_bool_var(f"top_{firm}")
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
        """The final hand is every card that reached it, less the invested
        ones; each company's hand values count plus in the top, minus in the
        bottom."""
        cards = self.sit.hand_cards
        bound = sum(value(c) for c in cards)
        parts = []
        for firm in COMPANIES:
            held = sum(value(c) for c in cards if company(c) == firm) - sum(
                value(c) * lit for (_, c), lit in self.x.items() if company(c) == firm
            )
            part = self.m.new_int_var(-bound, bound, f"part_{firm}")
            self.m.add(part == held).only_enforce_if(self.top[firm])
            self.m.add(part == -held).only_enforce_if(~self.top[firm])
            parts.append(part)
        self.score = self.m.new_int_var(-bound, bound, "score")
        self.m.add(self.score == sum(parts))

    # -- objective section --------------------------------------------------------------
    def objective(self) -> None:
        """The score first; then as many of the actual choices as possible (one
        more point of score outweighs keeping every actual choice)."""
        weight = len(self.sit.steps) + 1
        self.m.maximize(weight * self.score + sum(self.same))

    def build(self) -> _Model:
        self.choices()
        self.swaps()
        self.investment()
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
                f"the solver did not prove seat {seat}'s best invest choices "
                f"({solver.status_name(status)}); no figure is given rather than a guess",
            )
        return solver


# ---- the audit -------------------------------------------------------------------------


def audit_spec(spec: m.MatchSpec, budget: float | None = None) -> MatchAudit:
    """K12 for every seat of a finished match, within ``budget`` seconds of
    solving (default :data:`AUDIT_BUDGET_SECONDS`)."""
    table = m.play(spec)
    if not table.finished:
        raise RuleError.single(
            "audit/unfinished",
            f"the audit needs a finished match: {table.closed} of its "
            f"{m.rounds_of(table.seats)} rounds have closed (it compares final scores)",
        )
    deadline = time.monotonic() + (AUDIT_BUDGET_SECONDS if budget is None else budget)
    actual_ranking = m.ranking_of(table.investment, spec.tiebreak)
    defaulted = set(table.defaulted)
    names = {p.seat: p.name for p in spec.players}
    seats: dict[int, SeatAudit] = {}
    for seat in table.seat_numbers():
        sit = _situation(spec, seat)
        model = _Model(sit).build()
        solver = model.solve(deadline, seat)
        best = [
            next(c for c in sit.options(k) if solver.boolean_value(model.x[(k, c)]))
            for k in range(len(sit.steps))
        ]
        totals = {firm: solver.value(model.total[firm]) for firm in COMPANIES}
        seats[seat] = SeatAudit(
            seat=seat,
            name=names.get(seat, f"Seat {seat}"),
            actual=CARDS.score(table.hands[seat], actual_ranking),
            best_invest=solver.value(model.score),
            choices=tuple(
                Choice(step.round, step.actual, best[k], (step.round, seat) in defaulted)
                for k, step in enumerate(sit.steps)
            ),
            actual_ranking=tuple(actual_ranking),
            best_ranking=tuple(CARDS.ranking(totals, spec.tiebreak)),
        )
    return MatchAudit(merge=spec.merge, seats=seats, company_names={**DEFAULT_NAMES, **spec.names})


def audit_document(
    document: Any, *, stored: bool = False, budget: float | None = None
) -> MatchAudit:
    """Audit a finished match file (docs/contracts/forks/FORMAT.md); ``stored``
    as for :func:`~.match.parse_match`. An unfinished match is refused
    (``audit/unfinished``), a bad file as :func:`~.match.play` refuses it."""
    return audit_spec(m.parse_match(document, stored=stored), budget)


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
    return f"{card(choice.best)} instead of {was} in turn {choice.turn}"


def _sentence(
    name: str,
    actual: int,
    best: int,
    choices: Sequence[Choice],
    new_top: Sequence[str] | None,
    company_names: Mapping[str, str],
    card: CardWords,
) -> str:
    """One seat's audit in a sentence; ``new_top``: the top three of the best
    combination when it is not the actual top, else None."""
    if not choices:
        return f"{name} had no invest step (score {actual})."
    if best == actual:
        return f"{name}'s invest choices were the best they could make (score {actual})."
    changes = [c for c in choices if c.changed]
    line = (
        f"{name} could have scored {best} instead of {actual} by investing "
        f"{_and([_step(c, card) for c in changes])}"
    )
    if new_top is not None:
        line += f"; the top would then have been {_and([company_names.get(c, c) for c in new_top])}"
    return line + "."


def _new_top(best_ranking: Sequence[str], actual_ranking: Sequence[str]) -> list[str] | None:
    top = list(best_ranking[:TOP])
    return top if set(top) != set(actual_ranking[:TOP]) else None


def seat_text(a: SeatAudit, company_names: Mapping[str, str], card: CardWords = _card_id) -> str:
    """One seat's audit in a sentence (plain text: the pages escape it). Cards
    by their ids, as the audit JSON's ``text`` (the contract's words), unless
    ``card`` names them otherwise."""
    new_top = _new_top(a.best_ranking, a.actual_ranking)
    return _sentence(a.name, a.actual, a.best_invest, a.choices, new_top, company_names, card)


def seat_words(
    entry: Mapping[str, Any],
    name: str,
    actual_ranking: Sequence[str],
    company_names: Mapping[str, str],
) -> str:
    """The sentence of one seat's entry of the audit JSON
    (:meth:`MatchAudit.as_dict`), its cards named as players know them ("Oxime
    3"): for the host's audit page, which has the JSON and the match's view
    (``actual_ranking``: its final ranking)."""
    choices = [
        Choice(int(c["round"]), str(c["actual"]), str(c["best"]), bool(c["defaulted"]))
        for c in entry["invest"]
    ]
    return _sentence(
        name,
        int(entry["actual"]),
        int(entry["best_invest"]),
        choices,
        _new_top([str(c) for c in entry["ranking"]], actual_ranking),
        company_names,
        lambda card: card_name(card, company_names),
    )


def audit_text(report: MatchAudit) -> str:
    """The audit in words, for the CLI: each seat's sentence as the host's page
    says it, cards named as players know them ("Oxime 3"; the JSON's ``text``
    names them by id)."""
    variant = (
        "merge variant: any card of the hand" if report.merge else "one of the two passed cards"
    )
    lines = [
        "Audit of the invest steps: for each player, the best score they could have "
        "reached by investing other cards in their own invest steps "
        f"({variant}), every draw step and every other choice as it was.",
        "",
    ]
    names = report.company_names
    lines += [
        seat_text(a, names, lambda card: card_name(card, names))
        for _, a in sorted(report.seats.items())
    ]
    return "\n".join(lines) + "\n"
