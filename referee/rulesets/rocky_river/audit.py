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
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ortools.sat.python import cp_model

from referee.errors import RuleError

from .cards import Deck
from .match import Resolution
from .rafting import passage
from .river_map import SEATS, Branch, RiverMap

GOALS = ("score", "lead_over_best", "lead_over_worst")
KINDS = ("best_votes", "best_placement", "best_joint")
LinearExpr = Any  # cp_model linear expressions and plain ints


@dataclass(frozen=True)
class Play:
    """A seat's own orders: directions per closed rafting round, and placements."""

    votes: tuple[tuple[str, ...], ...]
    placements: dict[str, str]

    def as_dict(self) -> dict[str, Any]:
        return {"votes": [list(v) for v in self.votes], "placements": dict(self.placements)}


@dataclass(frozen=True)
class Answer:
    value: int
    play: Play


@dataclass(frozen=True)
class GoalAudit:
    actual: int
    best_votes: Answer
    best_placement: Answer
    best_joint: Answer

    def as_dict(self) -> dict[str, Any]:
        return {
            "actual": self.actual,
            **{kind: getattr(self, kind).value for kind in KINDS},
            "orders": {kind: getattr(self, kind).play.as_dict() for kind in KINDS},
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

    def as_dict(self) -> dict[str, Any]:
        return {
            "rafting_rounds": self.rafting_rounds,
            "seats": {str(s): a.as_dict() for s, a in sorted(self.seats.items())},
        }


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


def _legal(deck: Deck, river: RiverMap, card: str) -> list[Branch]:
    faces = {f.color for f in deck.by_id[card].faces}
    return [b for b in river.branches.values() if b.color in faces]


class _Model:
    """One CP-SAT model, built section by section."""

    def __init__(self, sit: _Situation) -> None:
        self.sit = sit
        self.m = cp_model.CpModel()
        self.take: dict[str, Any] = {}  # branch id -> literal: the raft passes it
        self.x: list[Any] = []  # own direction per step: True = L
        self.y: dict[tuple[str, str], Any] = {}  # (card, branch) -> literal
        self.fixed: dict[str, int] = {}  # branch id -> total of the fixed placements
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
        """``cards``: card -> its fixed branch, or None where the model chooses."""
        deck, river = self.sit.deck, self.sit.river
        self.fixed = dict.fromkeys(river.branches, 0)
        for card, fixed in cards.items():
            if fixed is not None:
                value = deck.by_id[card].value_for(river.branches[fixed].color)
                assert value is not None
                self.fixed[fixed] += value
                continue
            lits = []
            for b in _legal(deck, river, card):
                lit = self.m.new_bool_var(f"y_{card}_{b.id}")
                self.y[(card, b.id)] = lit
                lits.append(lit)
            self.m.add_exactly_one(lits)

    # -- scoring section ------------------------------------------------------------
    def scoring(self) -> None:
        """A seat's score: the fixed total of each branch it portrays that the raft
        passes, plus each chosen card's value there (``z`` = placed and passed)."""
        river, deck, m = self.sit.river, self.sit.deck, self.m
        bound = 5 * len(deck)
        terms: dict[int, list[LinearExpr]] = {s: [] for s in SEATS}
        for bid, lit in self.take.items():
            seat = river.branches[bid].seat
            if self.fixed[bid]:
                terms[seat].append(self.fixed[bid] * lit)
        for (card, bid), y in self.y.items():
            take = self.take.get(bid)
            if take is None:
                continue  # a branch the raft cannot reach in the closed rounds
            z = m.new_bool_var(f"z_{card}_{bid}")
            m.add_implication(z, y)
            m.add_implication(z, take)
            m.add_bool_or([~y, ~take, z])
            value = deck.by_id[card].value_for(river.branches[bid].color)
            assert value is not None
            terms[river.branches[bid].seat].append(value * z)
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

    def solve(self) -> cp_model.CpSolver:
        solver = cp_model.CpSolver()
        # one worker keeps results reproducible; full linearisation gives it the LP
        # bound that proves these small models optimal in milliseconds
        solver.parameters.num_workers = 1
        solver.parameters.linearization_level = 2
        solver.parameters.max_time_in_seconds = 30.0
        status = solver.solve(self.m)
        if status != cp_model.OPTIMAL:
            raise RuleError.single(
                "audit/solver",
                f"the solver did not prove an optimum ({solver.status_name(status)})",
            )
        return solver


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


def _answer(sit: _Situation, seat: int, goal: str, kind: str) -> Answer:
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
    solver = model.solve()
    fps = sit.river.forks_per_segment
    own = ["L" if solver.boolean_value(lit) else "R" for lit in model.x]
    placements = dict(sit.placements[seat])
    if free_place:
        for (card, bid), lit in model.y.items():
            if solver.boolean_value(lit):
                placements[card] = bid
    play = Play(
        votes=tuple(tuple(own[i : i + fps]) for i in range(0, len(own), fps)),
        placements=placements,
    )
    return Answer(round(solver.objective_value), play)


def audit(res: Resolution, deck: Deck, seats: Sequence[int] = SEATS) -> MatchAudit:
    """Audit every seat (or ``seats``) of a resolved match, all goals."""
    sit = _situation(res, deck)
    scores = res.scores or dict.fromkeys(SEATS, 0)
    fps = sit.river.forks_per_segment
    out: dict[int, SeatAudit] = {}
    for seat in seats:
        goals = {
            goal: GoalAudit(
                _lead(scores, seat, goal), *(_answer(sit, seat, goal, kind) for kind in KINDS)
            )
            for goal in GOALS
        }
        out[seat] = SeatAudit(seat, goals, _actual_play(sit, seat, fps))
    return MatchAudit(sit.steps // fps if fps else 0, out)


# ---- map fairness --------------------------------------------------------------


@dataclass(frozen=True)
class SeatRange:
    seat: int
    low: int  # every card placed, and the path chosen, to hurt this seat
    high: int  # ... to help it


@dataclass(frozen=True)
class Fairness:
    seats: dict[int, SeatRange]
    threshold: int
    unbalanced: bool  # some seat's highest or lowest differs from another's by >= threshold
    favoured: int | None  # the seat whose highest beats every other seat's by >= threshold

    def as_dict(self) -> dict[str, Any]:
        return {
            "seats": {str(s): {"low": r.low, "high": r.high} for s, r in self.seats.items()},
            "threshold": self.threshold,
            "unbalanced": self.unbalanced,
            "favoured": self.favoured,
        }


def map_fairness(river: RiverMap, deck: Deck) -> Fairness:
    """Each seat's highest and lowest score reachable on ``river`` when all the
    cards are placed, and the path chosen, to help or to hurt that seat.

    :func:`judge_fairness` says whether one seat is clearly favoured."""
    sit = _Situation(
        river=river,
        deck=deck,
        steps=river.path_length,
        votes=(),
        hands={},
        placements={},
    )
    ranges: dict[int, SeatRange] = {}
    for seat in SEATS:
        values = []
        for maximize in (False, True):
            model = _Model(sit)
            model.path_free()
            model.placements(dict.fromkeys(deck.ids))
            model.scoring()
            model.objective(seat, "score", maximize=maximize)
            values.append(round(model.solve().objective_value))
        ranges[seat] = SeatRange(seat, values[0], values[1])
    return judge_fairness(ranges)


def judge_fairness(ranges: Mapping[int, SeatRange]) -> Fairness:
    """Flag a map whose seats' ranges differ by at least a tenth of the map's whole
    score range (at least 3 points); a seat is clearly favoured when its highest
    reachable score beats every other seat's highest by that much."""
    spread = max(r.high for r in ranges.values()) - min(r.low for r in ranges.values())
    threshold = max(3, spread // 10)
    highs = [r.high for r in ranges.values()]
    lows = [r.low for r in ranges.values()]
    unbalanced = max(highs) - min(highs) >= threshold or max(lows) - min(lows) >= threshold
    favoured = None
    for s, r in ranges.items():
        if all(r.high - o.high >= threshold for t, o in ranges.items() if t != s):
            favoured = s
    return Fairness(dict(ranges), threshold, unbalanced, favoured)


# ---- for the CLI and the pages -------------------------------------------------------

GOAL_NAMES = {
    "score": "score",
    "lead_over_best": "lead over the best opponent",
    "lead_over_worst": "lead over the worst opponent",
}


def audit_document(document: Any, deck: Deck | None = None) -> MatchAudit:
    """Audit a match file (FORMAT.md) up to its last closed round."""
    from .data import load_deck
    from .match import parse_match, resolve

    deck = deck or load_deck()
    return audit(resolve(parse_match(document), deck), deck)


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
                f"  {GOAL_NAMES[goal]:<30}{g.actual:>8}{g.best_votes.value:>8}"
                f"{g.best_placement.value:>9}{g.best_joint.value:>7}"
            )
        best = seat_audit.goals["score"].best_joint.play
        votes = " / ".join(" ".join(v) for v in best.votes) or "none"
        placed = ", ".join(f"{c}->{b}" for c, b in sorted(best.placements.items()))
        lines.append(f"  best play for score: directions {votes}; placements {placed}")
    return "\n".join(lines) + "\n"


def fairness_text(fairness: Fairness) -> str:
    lines = [
        "Fairness: each seat's lowest and highest score reachable when every card is "
        "placed, and the path chosen, to hurt or to help it",
    ]
    for seat, r in sorted(fairness.seats.items()):
        lines.append(f"  seat {seat}: from {r.low} to {r.high}")
    if fairness.favoured is not None:
        lines.append(
            f"Warning: seat {fairness.favoured} is clearly favoured (its highest beats every "
            f"other seat's by {fairness.threshold} or more)."
        )
    elif fairness.unbalanced:
        lines.append(f"Warning: the seats' ranges differ by {fairness.threshold} points or more.")
    else:
        lines.append(f"No seat is favoured (differences under {fairness.threshold} points).")
    return "\n".join(lines) + "\n"
