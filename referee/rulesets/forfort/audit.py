"""FO22: the host's audit with OR-Tools CP-SAT: how many points could each
seat have had right after its own last step?

For each seat of a finished match, ``actual`` is its points (FO19, no bonus)
right after its last step (regular or extra) and ``best`` the most any legal
order of that turn would have given, everything before the step as it was
and the seat's dungeon as it really was (a dungeon Mason pair builds the real
top card). The actual order is counted too, so ``gain`` = best - actual >= 0.
A seat that never acted has ``step`` None and its points at the end as both.

The turn's orders are enumerated from the engine: the first camp (FO8 part
1, each empty space), then, after the seat's armies advance, every action
:func:`~.options.option_set` offers, and for a build every list of the pairs
it makes, each pair's choices read from the state the pairs before it left.
Every candidate is played by the engine's own :func:`~.orders.play_turn`
(which checks it whole) and scored by :meth:`~.state.Table.points`; a
candidate the engine refuses is no choice. The drawbridge and the draw change
no points: every candidate names no drawbridge.

As FO22 allows, choices that cannot change the seat's points right after the
step are merged, one representative each:

- an army placed by a Garrison: 1 point wherever it goes (any other seat's
  empty space, any direction: it first moves at the seat's next turn); what
  it leaves for a later use is one empty space fewer, the same for every
  choice;
- a Battering Ram or Trebuchet: it only destroys another seat's stack, so
  what it leaves is one more empty space for a later Garrison, the same for
  every target and space (an attacked space holds no army);
- a Siege Tower: it only moves other seats' dungeon cards;
- a wall from the discard pile (Mason): only its shape matters (a Mason's
  wall makes no pair, and no mark or symbol scores), so one card per shape,
  every legal space;
- a dungeon Mason pair: only where the real top card lands (its corner if
  angled, its edge if straight) matters;
- the card discarded for a camp or by force, and an effect that changes
  nothing of the seat's (Ram, Trebuchet, Siege, Garrison defeat).

A Garrison defeat frees a space of the seat's own fort (a later Mason may
build there), so every defeat is kept; a Mason's space too.

The choice among the candidates is one CP-SAT model per seat, built section
by section: the first camp (one boolean per option, exactly one, or the
actual order), the action (per first camp, exactly one when that camp is
chosen), the list of pairs (per build, exactly one when that build is
chosen), and the objective, the chosen candidate's points. Every solve must
end OPTIMAL (anything else is ``audit/solver``, never a guess); the
enumeration and the solves of one audit share a wall-time budget
(:data:`AUDIT_BUDGET_SECONDS`), each solve on one worker (reproducible, and a
web request does not take every core).

Pure: no Flask, SQL or click imports.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ortools.sat.python import cp_model

from referee.audit_budget import AuditBudget
from referee.errors import RuleError

from . import match as m
from .fort import CORNERS, EDGES, army_directions
from .legal import (
    attack_targets,
    build_spaces,
    discard_walls,
    free_spaces_of_shape,
    garrison_places,
    has_army,
    invaders,
    siege_targets,
)
from .options import after_camp_and_advance, option_set
from .orders import play_turn
from .state import Table, empty_spaces, start

# Wall time (seconds) one whole audit may take: the replay, every candidate
# turn and every solve; read at each call.
AUDIT_BUDGET_SECONDS = 10.0
WORKERS = 1

Order = dict[str, Any]


# ---- the report ------------------------------------------------------------------


@dataclass(frozen=True)
class SeatAudit:
    """One seat's FO22 figures; ``step`` None for a seat that never acted."""

    seat: int
    name: str
    step: int | None
    actual: int  # points right after the step (FO19, no bonus)
    best: int  # the most any legal order of that turn would have given
    candidates: int = 0  # the candidate orders the engine played for it
    best_order: Mapping[str, Any] | None = field(default=None, compare=False)

    @property
    def gain(self) -> int:
        return self.best - self.actual

    def as_dict(self) -> dict[str, Any]:
        return {"step": self.step, "actual": self.actual, "best": self.best, "gain": self.gain}


@dataclass(frozen=True)
class MatchAudit:
    seats: dict[int, SeatAudit]

    def as_dict(self) -> dict[str, Any]:
        """docs/contracts/forfort/FORMAT.md's audit, exactly: per seat ``step``,
        ``actual``, ``best`` and ``gain``."""
        return {"seats": {str(s): a.as_dict() for s, a in sorted(self.seats.items())}}


# ---- the candidates ----------------------------------------------------------------


@dataclass
class _Leaf:
    """One candidate order, played, and the seat's points right after it."""

    order: Order
    points: int


@dataclass
class _Action:
    """One action (a build is one card on one space) and its candidates
    (a build: one per list of pairs; any other action: one)."""

    leaves: list[_Leaf] = field(default_factory=list)


@dataclass
class _Camp:
    """One choice of first camp (None: no first camp) and its actions."""

    camp: int | None
    actions: list[_Action] = field(default_factory=list)


class _Search:
    """Every candidate order of ``seat``'s turn in ``before`` (the table just
    before the step), merged as the module says."""

    def __init__(self, before: Table, seat: int, budget: AuditBudget) -> None:
        work = before.copy()
        work.steps, work.defaulted = [], []  # not read by a turn: cheaper copies
        self.before = work
        self.seat = seat
        self.budget = budget
        dungeon = before.seats[seat].dungeon
        self.real_top: str | None = dungeon[0] if dungeon else None
        self.played = 0

    def play(self, order: Order) -> Table | None:
        """The table after ``order`` (None: the engine refuses it)."""
        self.played += 1
        if self.played % 64 == 0:
            self.budget.left(self.seat)
        try:
            return play_turn(self.before, order)
        except RuleError:
            return None

    def camps(self) -> list[_Camp]:
        seat = self.seat
        first = self.before.seats[seat].turns == 0
        empty = empty_spaces(self.before, seat) if first else []
        choices: list[int | None] = list(empty) if empty else [None]
        out = []
        for camp in choices:
            node = _Camp(camp)
            for action, made in self.actions(camp):
                if action is not None and "build" in action:
                    leaves = self.pair_lists(camp, action, made)
                else:
                    leaves = self.single(camp, action)
                if leaves:
                    node.actions.append(_Action(leaves))
            if node.actions:
                out.append(node)
        return out

    def single(self, camp: int | None, action: Order | None) -> list[_Leaf]:
        order = {"camp_start": camp, "action": action, "drawbridge": None}
        after = self.play(order)
        return [] if after is None else [_Leaf(order, after.points(self.seat))]

    # -- the action (FO8 part 3) ---------------------------------------------------
    def actions(self, camp: int | None) -> list[tuple[Order | None, list[tuple[int, str]]]]:
        """Each action to try after ``camp`` and the armies' advance, with the
        pairs a build makes (FO13; [] for any other action)."""
        seat = self.seat
        work = after_camp_and_advance(self.before, seat, camp)
        hand = work.seats[seat].hand
        if not hand:
            return [(None, [])]
        opts = option_set(work, seat)
        out: list[tuple[Order | None, list[tuple[int, str]]]] = []
        for card, builds in opts["build"].items():
            for b in builds:
                made = [(int(p["with"]), str(p["symbol"])) for p in b["pairs"]]
                out.append(({"build": card, "space": b["space"], "pairs": []}, made))
        for card, symbols in opts["effects"].items():
            for symbol in symbols:
                for keys in self.effect_uses(work, symbol):
                    out.append(({"effect": card, "symbol": symbol, **keys}, []))
        out += [({"camp": hand[0], "space": s}, []) for s in opts["camp_spaces"]]
        if opts["forced_discard"]:
            out.append(({"discard": hand[0]}, []))
        return out

    def effect_uses(self, work: Table, symbol: str) -> list[Order]:
        """FO11-FO12 from the hand, merged: a Mason's wall per shape and space,
        one representative of every other effect (none changes the seat's points
        but a placed army, 1 wherever it goes)."""
        seat = self.seat
        if symbol == "mason":
            return [
                {"card": card, "space": space}
                for card in _one_per_shape(work, seat)
                for space in build_spaces(work, seat, card)
            ]
        if symbol in ("ram", "trebuchet"):
            return [_first_attack(work, seat, symbol, pair=False)]
        if symbol == "siege":
            return [{"target": min(siege_targets(work, seat))}]
        out = [{"defeat": s} for s in invaders(work, seat)[:1]]
        spots = _places(work, seat)
        if spots:
            out.append(spots[0])
        return out

    # -- the pairs (FO13) ----------------------------------------------------------
    def pair_lists(
        self, camp: int | None, action: Order, made: list[tuple[int, str]]
    ) -> list[_Leaf]:
        """Every list of the build's pairs (each made pair at most once, in any
        order, each with its merged choices), played; a list whose pair
        completes the fort, or ends with a dungeon Mason pair, is not extended."""
        leaves: list[_Leaf] = []

        def visit(pairs: list[Order], used: frozenset[tuple[int, str]]) -> None:
            order = {
                "camp_start": camp,
                "action": {**action, "pairs": pairs},
                "drawbridge": None,
            }
            after = self.play(order)
            if after is None:
                return
            leaves.append(_Leaf(order, after.points(self.seat)))
            if after.completed_by is not None or (pairs and pairs[-1].get("from") == "dungeon"):
                return
            # ``after`` is the state the listed pairs left, but for the draw:
            # the draw moves only the seat's own top dungeon card, which only a
            # dungeon Mason reads (from the real dungeon, self.real_top)
            for pair in made:
                if pair not in used:
                    for raw in self.pair_choices(after, pair):
                        visit([*pairs, raw], used | {pair})

        visit([], frozenset())
        return leaves

    def pair_choices(self, after: Table, pair: tuple[int, str]) -> list[Order]:
        seat = self.seat
        n, symbol = pair
        head: Order = {"with": n, "symbol": symbol}
        if symbol == "mason":
            out = [
                {**head, "from": "discard", "card": card, "space": space}
                for card in _one_per_shape(after, seat)
                for space in free_spaces_of_shape(after, seat, card)
            ]
            if self.real_top is not None:
                corners = [c for c in CORNERS if not has_army(after, seat, c)]
                edges = [e for e in EDGES if not has_army(after, seat, e)]
                if corners and edges:
                    if after.wall(self.real_top).shape == "angled":
                        spots = [(c, edges[0]) for c in corners]
                    else:
                        spots = [(corners[0], e) for e in edges]
                    out += [{**head, "from": "dungeon", "corner": c, "edge": e} for c, e in spots]
            return out
        if symbol in ("ram", "trebuchet"):
            if not attack_targets(after, seat, symbol, pair=True):
                return []
            return [{**head, **_first_attack(after, seat, symbol, pair=True)}]
        if symbol == "siege":
            targets = siege_targets(after, seat)
            return [{**head, "targets": [min(targets)]}] if targets else []
        return [{**head, "uses": uses} for uses in _garrison_lists(after, seat)]


def _one_per_shape(table: Table, seat: int) -> list[str]:
    """The first wall of each shape in the seat's discard pile (a Mason's wall
    scores 2 whatever it is; its shape decides where it may go)."""
    seen: dict[str, str] = {}
    for card in discard_walls(table, seat):
        seen.setdefault(table.wall(card).shape, card)
    return list(seen.values())


def _first_attack(table: Table, seat: int, symbol: str, *, pair: bool) -> Order:
    targets = attack_targets(table, seat, symbol, pair=pair)
    target = min(targets)
    return {"target": target, "space": targets[target][0]}


def _places(table: Table, seat: int) -> list[Order]:
    """Where an army may go (FO12), each with its first direction (an army's
    direction changes nothing until the seat's next turn); [] with no army."""
    places = garrison_places(table, seat)
    return [
        {"target": t, "space": s, "direction": army_directions(s)[0]}
        for t in sorted(places)
        for s in sorted(places[t])
    ]


def _garrison_lists(table: Table, seat: int) -> list[list[Order]]:
    """A Garrison pair's use lists, merged: every defeat (each frees a space
    of the seat's fort), one army placed, two placed, and each mix."""
    defeats: list[Order] = [{"defeat": s} for s in invaders(table, seat)]
    spots = _places(table, seat)
    place = spots[:1]
    out: list[list[Order]] = [[u] for u in defeats + place]
    out += [[a, b] for a in defeats for b in defeats if a != b]
    if place:
        out += [[a, *place] for a in defeats] + [[*place, a] for a in defeats]
    if len(spots) >= 2 and table.seats[seat].armies >= 2:
        out.append(spots[:2])
    return out


# ---- the model -----------------------------------------------------------------------


class _Model:
    """One seat's CP-SAT model, built section by section."""

    def __init__(self, camps: Sequence[_Camp], actual: int | None) -> None:
        self.camps = camps
        self.actual = actual
        self.m = cp_model.CpModel()
        self.x: list[Any] = []  # per first camp
        self.y: list[list[Any]] = []  # per first camp, per action
        self.z: list[list[list[Any]]] = []  # per first camp, per action, per candidate
        self.keep: Any = None  # the actual order (None: not counted)

    # -- first camp section: one choice, or the actual order ----------------------
    def first_camp(self) -> None:
        self.x = [self.m.new_bool_var(f"camp_{c.camp}") for c in self.camps]
        if self.actual is None:
            self.m.add_exactly_one(self.x)
            return
        self.keep = self.m.new_bool_var("actual")
        self.m.add_exactly_one([*self.x, self.keep])

    # -- action section: one action of the chosen first camp ------------------------
    def action(self) -> None:
        for i, c in enumerate(self.camps):
            row = [self.m.new_bool_var(f"action_{i}_{j}") for j in range(len(c.actions))]
            self.m.add(sum(row) == self.x[i])
            self.y.append(row)

    # -- pairs section: one list of pairs (one candidate) of the chosen action ----
    def pairs(self) -> None:
        for i, c in enumerate(self.camps):
            rows = []
            for j, a in enumerate(c.actions):
                row = [self.m.new_bool_var(f"leaf_{i}_{j}_{k}") for k in range(len(a.leaves))]
                self.m.add(sum(row) == self.y[i][j])
                rows.append(row)
            self.z.append(rows)

    # -- objective: the chosen candidate's points -----------------------------------
    def objective(self) -> None:
        terms = [
            leaf.points * self.z[i][j][k]
            for i, c in enumerate(self.camps)
            for j, a in enumerate(c.actions)
            for k, leaf in enumerate(a.leaves)
        ]
        if self.actual is not None:
            terms.append(self.actual * self.keep)
        self.m.maximize(sum(terms))

    def build(self) -> _Model:
        self.first_camp()
        self.action()
        self.pairs()
        self.objective()
        return self

    def solve(self, budget: AuditBudget, seat: int) -> tuple[int, Order | None]:
        """The best points, proved optimal, and a candidate reaching them (None:
        the actual order); RuleError otherwise."""
        solver = cp_model.CpSolver()
        solver.parameters.num_workers = WORKERS
        solver.parameters.max_time_in_seconds = budget.left(seat)
        status = solver.solve(self.m)
        if status != cp_model.OPTIMAL:
            raise RuleError.single(
                "audit/solver",
                f"the solver did not prove seat {seat}'s best order "
                f"({solver.status_name(status)}); no figure is given rather than a guess",
            )
        best = round(solver.objective_value)
        for i, c in enumerate(self.camps):
            for j, a in enumerate(c.actions):
                for k, leaf in enumerate(a.leaves):
                    if solver.boolean_value(self.z[i][j][k]):
                        return best, leaf.order
        return best, None


# ---- the audit -------------------------------------------------------------------------


@dataclass(frozen=True)
class TurnBest:
    """The most points the acting seat could have right after one turn."""

    best: int
    order: Mapping[str, Any] | None  # a candidate reaching it (None: the actual order)
    candidates: int  # the candidate orders the engine played


def _best_turn(before: Table, actual: int | None, clock: AuditBudget) -> TurnBest:
    assert before.next is not None, "the match is over"
    seat = before.next.seat
    search = _Search(before, seat, clock)
    camps = search.camps()
    best, order = _Model(camps, actual).build().solve(clock, seat)
    return TurnBest(best, order, search.played)


def best_turn(before: Table, actual: int | None = None, budget: float | None = None) -> TurnBest:
    """FO22's search for any one turn: the most points the seat acting in
    ``before``'s next step could have right after it, with any legal order
    (and the actual order's ``actual`` points, when given), within ``budget``
    seconds (default :data:`AUDIT_BUDGET_SECONDS`)."""
    return _best_turn(
        before, actual, AuditBudget(AUDIT_BUDGET_SECONDS if budget is None else budget)
    )


def _last_steps(table: Table) -> dict[int, int]:
    """Each seat's last step (a seat that never acted is absent)."""
    last: dict[int, int] = {}
    for entry in table.steps:
        last[int(entry["seat"])] = int(entry["step"])
    return last


def _before_and_after(spec: m.MatchSpec, steps: set[int]) -> dict[int, tuple[Table, Table]]:
    """Replay the match (already checked by :func:`~.match.play`), keeping the
    tables just before and just after each of ``steps``."""
    table = start(spec.seed, spec.cards, spec.seats)
    out: dict[int, tuple[Table, Table]] = {}
    for i, entry in enumerate(spec.orders):
        turn = table.next
        assert turn is not None
        after = play_turn(table, m.step_order(entry, turn, spec.seats, i))
        if turn.step in steps:
            out[turn.step] = (table, after)
        table = after
    return out


def audit_spec(spec: m.MatchSpec, budget: float | None = None) -> MatchAudit:
    """FO22 for every seat of a finished match, within ``budget`` seconds
    (default :data:`AUDIT_BUDGET_SECONDS`)."""
    clock = AuditBudget(AUDIT_BUDGET_SECONDS if budget is None else budget)
    final = m.play(spec)
    if not final.over:
        raise RuleError.single(
            "audit/unfinished",
            f"the audit needs a finished match: {final.closed} steps have closed and "
            f"step {final.closed + 1} is still to come (it compares each seat's last step)",
        )
    names = {p.seat: p.name for p in spec.players}
    last = _last_steps(final)
    tables = _before_and_after(spec, set(last.values()))
    seats: dict[int, SeatAudit] = {}
    for seat in final.seat_numbers():
        name = names.get(seat, f"Seat {seat}")
        step = last.get(seat)
        if step is None:
            points = final.points(seat)
            seats[seat] = SeatAudit(seat, name, None, points, points)
            continue
        before, after = tables[step]
        actual = after.points(seat)
        turn = _best_turn(before, actual, clock)
        seats[seat] = SeatAudit(seat, name, step, actual, turn.best, turn.candidates, turn.order)
    return MatchAudit(seats)


def audit_document(
    document: Any, *, stored: bool = False, budget: float | None = None
) -> MatchAudit:
    """Audit a finished match file (docs/contracts/forfort/FORMAT.md);
    ``stored`` as for :func:`~.match.parse_match`. An unfinished match is
    refused (``audit/unfinished``), a bad file as :func:`~.match.play` refuses it."""
    return audit_spec(m.parse_match(document, stored=stored), budget)


# ---- in words -------------------------------------------------------------------------


def _points(n: int) -> str:
    return f"{n} point" if n == 1 else f"{n} points"


def seat_text(a: SeatAudit) -> str:
    """One seat's audit in a sentence (plain text: pages escape it)."""
    who = f"Seat {a.seat} ({a.name})"
    if a.step is None:
        return (
            f"{who} never acted: the match ended before its first turn; it had {_points(a.actual)}."
        )
    head = f"{who}: at its last step ({a.step}) it scored {a.actual}"
    if a.gain == 0:
        return f"{head}; no other order would have scored more."
    return f"{head}; the best order would have scored {a.best} ({a.gain} more)."


def audit_text(report: MatchAudit) -> str:
    """The audit in words, for the CLI: one sentence per seat."""
    lines = [
        "Audit of each player's last turn: the points they had right after it, "
        "and the most any other order for that turn would have given them, "
        "everything before it as it was.",
        "",
    ]
    lines += [seat_text(a) for _, a in sorted(report.seats.items())]
    return "\n".join(lines) + "\n"
