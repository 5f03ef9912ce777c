"""Host audits with OR-Tools CP-SAT: what was the best play?

For each seat of a match whose mapping round has closed, up to the last
closed rafting round, and for three goals (the seat's own score, its lead over
the best opponent, its lead over the worst opponent) the audit finds the best
value the seat could have reached by changing only its own directions
(``best_votes``), only its own placements of the same hand
(``best_placement``), or both (``best_joint``), everyone else's orders fixed,
with the orders that reach it.

The model is built section by section: votes, the raft's path, placements,
scoring, objective. Every solve's status is checked. :func:`map_fairness` uses
the same path and scoring sections with free directions and all 27 cards to
find each seat's highest and lowest reachable score on a map.

The solves of one call share a wall-time budget (:data:`AUDIT_BUDGET_SECONDS`,
:data:`FAIRNESS_BUDGET_SECONDS`), so no request can keep the server busy for
long. On every map within the limits of :mod:`.river_map` each solve takes well
under a second; should the budget run out anyway, a figure the solver has not
proved is reported as not proven (``None``, ``complete: false``), never guessed.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ortools.sat.python import cp_model

from referee.errors import RuleError

from .cards import COLORS, Deck
from .match import Resolution
from .rafting import passage
from .river_map import SEATS, Branch, RiverMap

GOALS = ("score", "lead_over_best", "lead_over_worst")
KINDS = ("best_votes", "best_placement", "best_joint")
LinearExpr = Any  # cp_model linear expressions and plain ints
# where a chosen card lands: (slot colour, the seat portrayed by the passed branch
# it lies on), or (slot colour, None) for a branch the raft does not pass
_Option = tuple[str, int | None]

# Wall time (seconds) all the solves of one call may take together: a host's audit
# (27 solves) and a map's fairness report (6, for the map check page and `referee
# map check`). Read at each call. Every map within the limits of river_map is
# answered exactly in a fraction of these (docs/rules.md, "Limits").
AUDIT_BUDGET_SECONDS = 15.0
FAIRNESS_BUDGET_SECONDS = 4.0


@dataclass(frozen=True)
class Play:
    """A seat's own orders: directions per closed rafting round, and placements."""

    votes: tuple[tuple[str, ...], ...]
    placements: dict[str, str]

    def as_dict(self) -> dict[str, Any]:
        return {"votes": [list(v) for v in self.votes], "placements": dict(self.placements)}


@dataclass(frozen=True)
class Answer:
    value: int | None  # None: the time budget ran out before the solver proved it
    play: Play | None  # the orders that reach ``value`` (None with it)


UNKNOWN = Answer(None, None)


@dataclass(frozen=True)
class GoalAudit:
    actual: int
    best_votes: Answer
    best_placement: Answer
    best_joint: Answer

    def as_dict(self) -> dict[str, Any]:
        answers: list[Answer] = [getattr(self, kind) for kind in KINDS]
        return {
            "actual": self.actual,
            **{kind: a.value for kind, a in zip(KINDS, answers, strict=True)},
            "orders": {
                kind: a.play.as_dict() if a.play is not None else None
                for kind, a in zip(KINDS, answers, strict=True)
            },
        }


@dataclass(frozen=True)
class SeatAudit:
    seat: int
    goals: dict[str, GoalAudit]
    actual_play: Play

    def as_dict(self) -> dict[str, Any]:
        out = self.goals["score"].as_dict()
        out["actual_orders"] = self.actual_play.as_dict()
        for goal in GOALS[1:]:
            out[goal] = self.goals[goal].as_dict()
        return out


@dataclass(frozen=True)
class MatchAudit:
    rafting_rounds: int  # closed rafting rounds the audit covers
    seats: dict[int, SeatAudit]
    complete: bool = True  # False: some figure is None, not proven within the budget

    def as_dict(self) -> dict[str, Any]:
        return {
            "rafting_rounds": self.rafting_rounds,
            "complete": self.complete,
            "seats": {str(s): a.as_dict() for s, a in sorted(self.seats.items())},
        }


class _Budget:
    """The wall time the solves of one call share. Each solve may use a fair share
    of what is left (three times an even split, so one slow solve cannot starve
    the others); the solves after the deadline do not run."""

    def __init__(self, seconds: float, solves: int) -> None:
        self.deadline = time.monotonic() + seconds
        self.left = solves
        self.ran_out = False  # some solve stopped, or did not run, for lack of time

    def remaining(self) -> float:
        return self.deadline - time.monotonic()

    def next_limit(self) -> float:
        """Seconds the next solve may take; 0 or less: it does not run."""
        remaining = self.remaining()
        share = remaining * min(1.0, 3 / max(1, self.left))
        self.left = max(0, self.left - 1)
        if share <= 0:
            self.ran_out = True
        return share


@dataclass(frozen=True)
class _Situation:
    """A resolved match reduced to what the models need."""

    river: RiverMap
    deck: Deck
    steps: int  # forks passed so far
    votes: tuple[dict[int, str], ...]  # per step: every seat's direction there
    hands: dict[int, list[str]]
    placements: dict[int, dict[str, str]]


def _situation(res: Resolution, deck: Deck) -> _Situation:
    if res.placements is None:
        raise RuleError.single("audit/too_early", "an audit needs the mapping round to have closed")
    path = res.path or ()
    return _Situation(
        river=res.spec.river,
        deck=deck,
        steps=len(path),
        votes=tuple(dict(step.votes) for step in path),
        hands=res.hands,
        placements=res.placements,
    )


class _Model:
    """One CP-SAT model, built section by section."""

    def __init__(self, sit: _Situation) -> None:
        self.sit = sit
        self.m = cp_model.CpModel()
        self.take: dict[str, Any] = {}  # branch id -> literal: the raft passes it
        self.x: list[Any] = []  # own direction per step: True = L
        self.y: dict[tuple[str, _Option], Any] = {}  # (card, option) -> literal
        self.fit: dict[_Option, Any] = {}  # option -> literal: some branch fits it
        self.fixed: dict[str, int] = {}  # branch id -> total of the fixed placements
        river = sit.river
        self.by_color = {c: [b for b in river.branches.values() if b.color == c] for c in COLORS}
        self.score: dict[int, Any] = {}

    # -- votes section --------------------------------------------------------
    def votes(self, seat: int, free: bool) -> None:
        for d in range(self.sit.steps):
            lit = self.m.new_bool_var(f"x{d}")
            if not free:
                self.m.add(lit == (1 if self.sit.votes[d][seat] == "L" else 0))
            self.x.append(lit)

    # -- path section ------------------------------------------------------------
    def path_by_votes(self, seat: int) -> None:
        """The raft's path when only ``seat``'s directions may change."""
        river, m = self.sit.river, self.m
        at = self._forks()
        incoming: dict[str, list[Any]] = {}
        for fid in at:  # the forks the raft can reach in the steps audited
            fork = river.forks[fid]
            d = river.depth[fid] - 1
            others = [self.sit.votes[d][s] for s in SEATS if s != seat]
            chosen: dict[str, Branch] = {}
            for own in ("L", "R"):
                chosen[own] = passage(fork, [own, *others])[2]
            if chosen["L"].id == chosen["R"].id:
                lits = {chosen["L"].id: at[fid]}
            else:
                lits = {}
                for own, cond in (("L", self.x[d]), ("R", ~self.x[d])):
                    t = m.new_bool_var(f"take_{chosen[own].id}")
                    m.add_bool_and([at[fid], cond]).only_enforce_if(t)
                    m.add_bool_or([~at[fid], ~cond]).only_enforce_if(~t)
                    lits[chosen[own].id] = t
            for bid, lit in lits.items():
                self.take[bid] = lit
                to = river.branches[bid].to
                if to is not None:
                    incoming.setdefault(to, []).append(lit)
        self._link(at, incoming)

    def path_free(self) -> None:
        """Any path: all three seats' directions free, so any branch at any fork."""
        river, m = self.sit.river, self.m
        at = self._forks()
        incoming: dict[str, list[Any]] = {}
        for fid in at:
            lits = []
            for b in river.forks[fid].branches():
                t = m.new_bool_var(f"take_{b.id}")
                self.take[b.id] = t
                lits.append(t)
                if b.to is not None:
                    incoming.setdefault(b.to, []).append(t)
            m.add(sum(lits) == at[fid])
        self._link(at, incoming)

    def _forks(self) -> dict[str, Any]:
        at = {
            fid: self.m.new_bool_var(f"at_{fid}")
            for fid, depth in self.sit.river.depth.items()
            if depth <= self.sit.steps
        }
        if at:
            self.m.add(at[self.sit.river.start] == 1)
        return at

    def _link(self, at: Mapping[str, Any], incoming: Mapping[str, list[Any]]) -> None:
        for fid, lit in at.items():
            if fid != self.sit.river.start:
                self.m.add(lit == sum(incoming.get(fid, [])))

    # -- placement section -------------------------------------------------------
    def placements(self, cards: Mapping[str, str | None]) -> None:
        """``cards``: card -> its fixed branch, or None where the model chooses.

        A chosen card only matters through where it lands: on a passed branch of
        one of its colours portraying some seat (that seat gains the card's value
        in that colour), or on a branch of one of its colours the raft does not
        pass (nobody gains). So the model chooses one such *option* per card,
        allowed only when some branch fits it, and the branch itself is picked
        after the solve (:meth:`branch_of`): a few options per card instead of one
        variable per (card, branch), the same optimum, and a model whose size does
        not grow with the map's branches. Needs the path section first."""
        deck, river = self.sit.deck, self.sit.river
        self.fixed = dict.fromkeys(river.branches, 0)
        for card, fixed in cards.items():
            if fixed is not None:
                value = deck.by_id[card].value_for(river.branches[fixed].color)
                assert value is not None
                self.fixed[fixed] += value
                continue
            lits = []
            for face in deck.by_id[card].faces:
                for option in self._options(face.color):
                    lit = self.m.new_bool_var(f"y_{card}_{'_'.join(map(str, option))}")
                    self.m.add_implication(lit, self._fits(option))
                    self.y[(card, option)] = lit
                    lits.append(lit)
            self.m.add_exactly_one(lits)

    def _options(self, color: str) -> list[_Option]:
        """Where a card may land on a slot of ``color``: on a passed branch
        portraying each seat that has one the raft can pass, or off the path."""
        same = self.by_color[color]
        if not same:
            return []
        seats = sorted({b.seat for b in same if b.id in self.take})
        return [(color, seat) for seat in seats] + [(color, None)]

    def _fits(self, option: _Option) -> Any:
        """A literal true when some branch fits ``option`` (cached per option)."""
        hit = self.fit.get(option)
        if hit is not None:
            return hit
        color, seat = option
        lit = self.m.new_bool_var(f"fits_{color}_{seat}")
        same = self.by_color[color]
        if seat is not None:  # some branch of this colour and seat is passed
            self.m.add_bool_or(
                [self.take[b.id] for b in same if b.seat == seat and b.id in self.take]
            ).only_enforce_if(lit)
        elif all(b.id in self.take for b in same):  # else one the raft cannot reach
            self.m.add_bool_or([~self.take[b.id] for b in same]).only_enforce_if(lit)
        self.fit[option] = lit
        return lit

    def branch_of(self, solver: cp_model.CpSolver, option: _Option) -> str:
        """After a solve: the first branch (in map order) that fits ``option``."""
        color, seat = option
        for b in self.by_color[color]:
            passed = b.id in self.take and solver.boolean_value(self.take[b.id])
            if (passed and b.seat == seat) if seat is not None else not passed:
                return b.id
        raise AssertionError(f"no branch fits {option}")  # the model required one

    # -- scoring section ------------------------------------------------------------
    def scoring(self) -> None:
        """A seat's score: the fixed total of each branch it portrays that the raft
        passes, plus the value of each chosen card that lands on a passed branch
        portraying it."""
        river, deck, m = self.sit.river, self.sit.deck, self.m
        bound = 5 * len(deck)
        terms: dict[int, list[LinearExpr]] = {s: [] for s in SEATS}
        for bid, lit in self.take.items():
            if self.fixed[bid]:
                terms[river.branches[bid].seat].append(self.fixed[bid] * lit)
        for (card, (color, gainer)), y in self.y.items():
            if gainer is not None:
                value = deck.by_id[card].value_for(color)
                assert value is not None
                terms[gainer].append(value * y)
        for s in SEATS:
            self.score[s] = m.new_int_var(-bound, bound, f"score_{s}")
            m.add(self.score[s] == sum(terms[s]))

    # -- objective section ----------------------------------------------------------
    def objective(self, seat: int, goal: str, maximize: bool = True) -> None:
        m = self.m
        others = [self.score[s] for s in SEATS if s != seat]
        if goal == "score":
            target: LinearExpr = self.score[seat]
        else:
            bound = 5 * len(self.sit.deck)
            ref = m.new_int_var(-bound, bound, f"ref_{goal}")
            if goal == "lead_over_best":
                m.add_max_equality(ref, others)
            else:
                m.add_min_equality(ref, others)
            target = self.score[seat] - ref
        if maximize:
            m.maximize(target)
        else:
            m.minimize(target)

    def solve(self, budget: _Budget) -> cp_model.CpSolver | None:
        """The solver once it has proved the optimum; None when the budget ran out
        first (whatever it found by then is not proved, so it is not used)."""
        limit = budget.next_limit()
        if limit <= 0:
            return None
        solver = cp_model.CpSolver()
        # one worker keeps results reproducible; full linearisation gives it the LP
        # bound that proves these small models optimal in milliseconds
        solver.parameters.num_workers = 1
        solver.parameters.linearization_level = 2
        solver.parameters.max_time_in_seconds = limit
        status = solver.solve(self.m)
        if status == cp_model.OPTIMAL:
            return solver
        if status in (cp_model.FEASIBLE, cp_model.UNKNOWN):  # stopped by the time limit
            budget.ran_out = True
            return None
        raise RuleError.single(
            "audit/solver",
            f"the solver did not prove an optimum ({solver.status_name(status)})",
        )


def _lead(scores: Mapping[int, int], seat: int, goal: str) -> int:
    others = [v for s, v in scores.items() if s != seat]
    if goal == "score":
        return scores[seat]
    return scores[seat] - (max(others) if goal == "lead_over_best" else min(others))


def _actual_play(sit: _Situation, seat: int, fps: int) -> Play:
    own = [sit.votes[d][seat] for d in range(sit.steps)]
    return Play(
        votes=tuple(tuple(own[i : i + fps]) for i in range(0, len(own), fps)),
        placements=dict(sit.placements[seat]),
    )


def _answer(sit: _Situation, seat: int, goal: str, kind: str, budget: _Budget) -> Answer:
    if budget.remaining() <= 0:  # not even worth building the model
        budget.next_limit()
        return UNKNOWN
    free_votes = kind in ("best_votes", "best_joint")
    free_place = kind in ("best_placement", "best_joint")
    model = _Model(sit)
    model.votes(seat, free_votes)
    model.path_by_votes(seat)
    cards: dict[str, str | None] = {}
    for s in SEATS:
        for card, branch in sit.placements[s].items():
            cards[card] = None if (s == seat and free_place) else branch
    model.placements(cards)
    model.scoring()
    model.objective(seat, goal)
    solver = model.solve(budget)
    if solver is None:
        return UNKNOWN
    fps = sit.river.forks_per_segment
    own = ["L" if solver.boolean_value(lit) else "R" for lit in model.x]
    placements = dict(sit.placements[seat])
    if free_place:
        for (card, option), lit in model.y.items():
            if solver.boolean_value(lit):
                placements[card] = model.branch_of(solver, option)
    play = Play(
        votes=tuple(tuple(own[i : i + fps]) for i in range(0, len(own), fps)),
        placements=placements,
    )
    return Answer(round(solver.objective_value), play)


def audit(
    res: Resolution, deck: Deck, seats: Sequence[int] = SEATS, budget: float | None = None
) -> MatchAudit:
    """Audit every seat (or ``seats``) of a resolved match, all goals, within
    ``budget`` seconds of solving (default :data:`AUDIT_BUDGET_SECONDS`)."""
    sit = _situation(res, deck)
    scores = res.scores or dict.fromkeys(SEATS, 0)
    fps = sit.river.forks_per_segment
    clock = _Budget(
        AUDIT_BUDGET_SECONDS if budget is None else budget, len(seats) * len(GOALS) * len(KINDS)
    )
    out: dict[int, SeatAudit] = {}
    for seat in seats:
        goals = {
            goal: GoalAudit(
                _lead(scores, seat, goal),
                *(_answer(sit, seat, goal, kind, clock) for kind in KINDS),
            )
            for goal in GOALS
        }
        out[seat] = SeatAudit(seat, goals, _actual_play(sit, seat, fps))
    return MatchAudit(sit.steps // fps if fps else 0, out, complete=not clock.ran_out)


# ---- map fairness --------------------------------------------------------------


@dataclass(frozen=True)
class SeatRange:
    seat: int
    low: int | None  # every card placed, and the path chosen, to hurt this seat
    high: int | None  # ... to help it (None: not proven within the time budget)


@dataclass(frozen=True)
class Fairness:
    seats: dict[int, SeatRange]
    # the verdict, given only when every range is proven (complete), else None
    threshold: int | None
    unbalanced: bool | None  # some seat's highest or lowest differs from another's by >= threshold
    favoured: int | None  # the seat whose highest beats every other seat's by >= threshold
    complete: bool = True

    def as_dict(self) -> dict[str, Any]:
        return {
            "seats": {str(s): {"low": r.low, "high": r.high} for s, r in self.seats.items()},
            "threshold": self.threshold,
            "unbalanced": self.unbalanced,
            "favoured": self.favoured,
            "complete": self.complete,
        }


def map_fairness(river: RiverMap, deck: Deck, budget: float | None = None) -> Fairness:
    """Each seat's highest and lowest score reachable on ``river`` when all the
    cards are placed, and the path chosen, to help or to hurt that seat, within
    ``budget`` seconds of solving (default :data:`FAIRNESS_BUDGET_SECONDS`).

    :func:`judge_fairness` says whether one seat is clearly favoured."""
    sit = _Situation(
        river=river,
        deck=deck,
        steps=river.path_length,
        votes=(),
        hands={},
        placements={},
    )
    clock = _Budget(FAIRNESS_BUDGET_SECONDS if budget is None else budget, 2 * len(SEATS))
    ranges: dict[int, SeatRange] = {}
    for seat in SEATS:
        values: list[int | None] = []
        for maximize in (False, True):
            if clock.remaining() <= 0:
                clock.next_limit()
                values.append(None)
                continue
            model = _Model(sit)
            model.path_free()
            model.placements(dict.fromkeys(deck.ids))
            model.scoring()
            model.objective(seat, "score", maximize=maximize)
            solver = model.solve(clock)
            values.append(None if solver is None else round(solver.objective_value))
        ranges[seat] = SeatRange(seat, values[0], values[1])
    return judge_fairness(ranges)


def judge_fairness(ranges: Mapping[int, SeatRange]) -> Fairness:
    """Flag a map whose seats' ranges differ by at least a tenth of the map's whole
    score range (at least 3 points); a seat is clearly favoured when its highest
    reachable score beats every other seat's highest by that much. No verdict
    while some range is not proven (``complete`` False)."""
    high = {s: r.high for s, r in ranges.items() if r.high is not None}
    low = {s: r.low for s, r in ranges.items() if r.low is not None}
    if len(high) < len(ranges) or len(low) < len(ranges):
        return Fairness(dict(ranges), None, None, None, complete=False)
    highs, lows = list(high.values()), list(low.values())
    threshold = max(3, (max(highs) - min(lows)) // 10)
    unbalanced = max(highs) - min(highs) >= threshold or max(lows) - min(lows) >= threshold
    favoured = None
    for s in ranges:
        if all(high[s] - high[t] >= threshold for t in ranges if t != s):
            favoured = s
    return Fairness(dict(ranges), threshold, unbalanced, favoured)


# ---- for the CLI and the pages -------------------------------------------------------

GOAL_NAMES = {
    "score": "score",
    "lead_over_best": "lead over the best opponent",
    "lead_over_worst": "lead over the worst opponent",
}


def audit_document(
    document: Any, deck: Deck | None = None, budget: float | None = None, *, stored: bool = False
) -> MatchAudit:
    """Audit a match file (docs/contracts/rocky-river/FORMAT.md) up to its last closed round,
    within ``budget``
    seconds of solving (default :data:`AUDIT_BUDGET_SECONDS`); ``stored`` as for
    :func:`~.match.parse_match`."""
    from .data import load_deck
    from .match import parse_match, resolve

    deck = deck or load_deck()
    return audit(resolve(parse_match(document, stored=stored), deck), deck, budget=budget)


def _shown(value: int | None) -> str:
    return "?" if value is None else str(value)


INCOMPLETE = (
    "Not complete: the solver's time budget ran out before it proved every figure; "
    "those are shown as '?' (every number shown is exact)."
)


def audit_text(report: MatchAudit, names: Mapping[int, str]) -> str:
    lines = [
        f"Audit over {report.rafting_rounds} closed rafting round(s); for each seat, the best "
        "it could have done with everyone else's orders as they were.",
    ]
    for seat, seat_audit in sorted(report.seats.items()):
        lines += ["", f"Seat {seat} ({names.get(seat, '?')})"]
        lines.append(f"  {'goal':<30}{'actual':>8}{'votes':>8}{'placing':>9}{'both':>7}")
        for goal in GOALS:
            g = seat_audit.goals[goal]
            lines.append(
                f"  {GOAL_NAMES[goal]:<30}{g.actual:>8}{_shown(g.best_votes.value):>8}"
                f"{_shown(g.best_placement.value):>9}{_shown(g.best_joint.value):>7}"
            )
        best = seat_audit.goals["score"].best_joint.play
        if best is None:
            lines.append("  best play for score: ? (not proven)")
            continue
        votes = " / ".join(" ".join(v) for v in best.votes) or "none"
        placed = ", ".join(f"{c}->{b}" for c, b in sorted(best.placements.items()))
        lines.append(f"  best play for score: directions {votes}; placements {placed}")
    if not report.complete:
        lines += ["", INCOMPLETE]
    return "\n".join(lines) + "\n"


def fairness_text(fairness: Fairness) -> str:
    lines = [
        "Fairness: each seat's lowest and highest score reachable when every card is "
        "placed, and the path chosen, to hurt or to help it",
    ]
    for seat, r in sorted(fairness.seats.items()):
        lines.append(f"  seat {seat}: from {_shown(r.low)} to {_shown(r.high)}")
    if not fairness.complete:
        lines.append(INCOMPLETE + " No verdict on whether a seat is favoured.")
    elif fairness.favoured is not None:
        lines.append(
            f"Warning: seat {fairness.favoured} is clearly favoured (its highest beats every "
            f"other seat's by {fairness.threshold} or more)."
        )
    elif fairness.unbalanced:
        lines.append(f"Warning: the seats' ranges differ by {fairness.threshold} points or more.")
    else:
        lines.append(f"No seat is favoured (differences under {fairness.threshold} points).")
    return "\n".join(lines) + "\n"
