"""FF22: the host's audit with OR-Tools CP-SAT: how much grain could each
seat have stored by sending another order in the last economy step?

For each seat of a finished match, ``actual`` is its stored grain at the end
(FF19's first level) and ``best_last_season`` the most it could have ended
with by sending a different order in the last season's economy step only:
any legal combination of trade (FF16), payments and double (FF17), Chysarion
uses (FF17) and decision (FF18). Everything before that step stays as
played, and so do the other seats' orders of the step itself (defaults
included): the seat changes only its own order. No economy order can touch
another seat (FF7's Decided: payments, rewards, wizards, trades and the
decision deal with the seat's own resources and the unlimited stock), so
which orders the others sent changes neither what the seat may send nor
what it stores. A guard changes no stored grain (FF15: it only says which
board resources Famines and thefts spare, and the match is over), so no
candidate names one. The order the seat sent, or its default, is one of the
combinations, so ``gain`` = ``best_last_season`` - ``actual`` >= 0. As FF22
decides, the audit gives these numbers only, not an order that reaches the
best (the order the solver found is kept on :class:`SeatAudit` for the
tests, and shown nowhere).

One CP-SAT model per seat, built section by section from the table just
before the step (the engine's own :func:`~.match.play` of the match file
less its last round), exactly FF16-FF18 carried out in their order:

- trade: one boolean per trade the seat could name (none; with a Trader
  that has not traded this season, each give, count 1..3 and ``at``,
  :func:`~.legal.trades`), exactly one;
- payment: a boolean per worker needing a payment, and with a Philosopher
  one per paid Common Farmer or Merchant it may double (at most one, only
  a paid one); a trade at ``payment`` is affordable from what the seat holds,
  and the payments, doubled one twice, from what it then holds;
- reward: every worker needing no payment earns, each paid one earns
  (twice if doubled), to the board or, ``stored``, into storage;
- Chysarion: a boolean per Chysarion held, each used one giving its amount;
- decision: a trade at ``decision`` affordable from what the seat then
  holds; then exactly one of grain, silver or store N (1 silver to pay, N
  from 1 to the grain held);
- objective: the stored grain at the end: what the seat had stored, plus the
  stored rewards and Chysarions, plus N.

Every solve must end OPTIMAL (anything else is ``audit/solver``, never a
guess), and the order the solver chose is then played by the engine
(:func:`~.orders.close_step`, the other seats' orders as played): it must be
accepted and store exactly the solver's figure, else ``audit/solver`` too.
The replay and the solves of one audit share a wall-time budget
(:data:`AUDIT_BUDGET_SECONDS`), each solve on one worker (reproducible, and
a web request does not take every core). A model has at most a few dozen
booleans (a Kingdom holds at most 6 cards, 13 trades) and is proved optimal
in milliseconds; tests/fortune_famine/test_audit.py checks every figure
against a brute force that plays every combination through the engine.

Pure: no Flask, SQL or click imports.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from ortools.sat.python import cp_model

from referee.audit_budget import AuditBudget
from referee.errors import RuleError

from . import match as m
from .legal import trades
from .orders import close_step
from .state import Table

# Wall time (seconds) one whole audit may take: the replay of the match,
# every seat's solve and the engine's check of its answer; read at each call.
# A 6-seat full match is audited in about a tenth of a second or less.
AUDIT_BUDGET_SECONDS = 5.0
WORKERS = 1

Order = dict[str, Any]


# ---- the report ------------------------------------------------------------------


@dataclass(frozen=True)
class SeatAudit:
    """One seat's FF22 figures."""

    seat: int
    name: str
    actual: int  # stored grain at the end
    best: int  # the most any legal order of the last economy step would have stored
    # an order reaching ``best`` (FF22: not part of the audit; for the tests)
    order: Mapping[str, Any] | None = field(default=None, compare=False)

    @property
    def gain(self) -> int:
        return self.best - self.actual

    def as_dict(self) -> dict[str, Any]:
        return {"actual": self.actual, "best_last_season": self.best, "gain": self.gain}


@dataclass(frozen=True)
class MatchAudit:
    seats: dict[int, SeatAudit]

    def as_dict(self) -> dict[str, Any]:
        """docs/contracts/fortune-famine/FORMAT.md's audit, exactly: per seat
        ``actual``, ``best_last_season`` and ``gain``."""
        return {"seats": {str(s): a.as_dict() for s, a in sorted(self.seats.items())}}


# ---- the model -----------------------------------------------------------------------


class _Model:
    """One seat's CP-SAT model for the economy step open in ``table``, built
    section by section in FF16-FF18's order. Grain and silver along the way
    are linear expressions of the choices."""

    def __init__(self, table: Table, seat: int) -> None:
        assert table.next is not None and table.next.phase == "economy"
        self.table = table
        self.seat = seat
        self.m = cp_model.CpModel()
        s = table.seats[seat]
        self.kingdom = list(s.kingdom)
        self.grain: Any = s.grain  # what the seat holds, as the sections go
        self.silver: Any = s.silver
        self.stored: Any = s.stored
        self.bound = s.grain + s.silver  # at least the most grain it could hold
        self.trades = trades(table, seat)
        self.t: list[Any] = []  # per trade (None first)
        self.pay: dict[str, Any] = {}  # per worker needing a payment
        self.double: dict[str, Any] = {}  # per Common Farmer or Merchant (Philosopher)
        self.chysarion: dict[str, Any] = {}  # per Chysarion held
        self.decision: dict[str, Any] = {}  # grain, silver, store
        self.store: Any = None  # N

    def _type(self, card: str) -> Any:
        return self.table.deck.type_of(card)

    def _swap(self, at: str) -> None:
        """FF16: the trade made at ``at`` (if that is the chosen one), affordable then."""
        gives: dict[str, list[Any]] = {"grain": [], "silver": []}
        for trade, var in zip(self.trades, self.t, strict=True):
            if trade is not None and trade.at == at:
                gives[trade.give].append(trade.count * var)
        grain_out, silver_out = sum(gives["grain"]), sum(gives["silver"])
        self.m.add(grain_out <= self.grain)
        self.m.add(silver_out <= self.silver)
        self.grain = self.grain - grain_out + silver_out
        self.silver = self.silver - silver_out + grain_out

    # -- trade section (FF16): one trade or none; made at payment here -------------
    def trade(self) -> None:
        self.t = [self.m.new_bool_var(f"trade_{i}") for i in range(len(self.trades))]
        self.m.add_exactly_one(self.t)
        self.bound += max((t.count for t in self.trades if t is not None), default=0)
        self._swap("payment")

    # -- payment section (FF17 2): the paid workers, the double, affordable -------
    def payment(self) -> None:
        philosopher = self.table.holds_kind(self.seat, "philosopher")
        for card in self.kingdom:
            ctype = self._type(card)
            if not ctype.needs_payment:
                continue
            self.pay[card] = self.m.new_bool_var(f"pay_{card}")
            if philosopher and ctype.common_line:
                self.double[card] = self.m.new_bool_var(f"double_{card}")
                self.m.add_implication(self.double[card], self.pay[card])
        self.m.add_at_most_one(self.double.values())
        cost = [0, 0]
        for card, paid in self.pay.items():
            times = paid + self.double.get(card, 0)
            payment = self._type(card).payment
            cost = [cost[0] + payment[0] * times, cost[1] + payment[1] * times]
        self.m.add(cost[0] <= self.grain)
        self.m.add(cost[1] <= self.silver)
        self.grain = self.grain - cost[0]
        self.silver = self.silver - cost[1]

    # -- reward section (FF17 3): unpaid-for workers earn, paid ones (twice if doubled)
    def reward(self) -> None:
        for card in self.kingdom:
            ctype = self._type(card)
            if not ctype.worker:
                continue
            if ctype.needs_payment:
                times: Any = self.pay[card] + self.double.get(card, 0)
                most = 2 if card in self.double else 1
            else:
                times = most = 1
            grain, silver, stored = ctype.reward
            self.grain = self.grain + grain * times
            self.silver = self.silver + silver * times
            self.stored = self.stored + stored * times
            self.bound += (grain + silver) * most

    # -- Chysarion section (FF17 4): each used one gives its amount ----------------
    def chysarions(self) -> None:
        for card in self.kingdom:
            ctype = self._type(card)
            if ctype.kind != "chysarion":
                continue
            used = self.chysarion[card] = self.m.new_bool_var(f"chysarion_{card}")
            if ctype.gives == "grain":
                self.grain = self.grain + ctype.amount * used
            elif ctype.gives == "silver":
                self.silver = self.silver + ctype.amount * used
            else:
                self.stored = self.stored + ctype.amount * used
            self.bound += ctype.amount

    # -- decision section (FF16 at decision, FF18): grain, silver, or store N ------
    def decide(self) -> None:
        self._swap("decision")
        self.decision = {d: self.m.new_bool_var(f"decision_{d}") for d in ("grain", "silver")}
        store = self.decision["store"] = self.m.new_bool_var("decision_store")
        self.m.add_exactly_one(self.decision.values())
        self.store = self.m.new_int_var(0, max(self.bound, 0), "store")
        self.m.add(self.store >= store)  # 1 or more when storing
        self.m.add(self.store <= self.bound * store)  # 0 otherwise
        self.m.add(self.store <= self.grain)
        self.m.add(self.silver >= store)  # 1 silver to pay for storing

    # -- objective: the stored grain at the end ----------------------------------------
    def objective(self) -> None:
        self.stored = self.stored + self.store
        self.m.maximize(self.stored)

    def build(self) -> _Model:
        self.trade()
        self.payment()
        self.reward()
        self.chysarions()
        self.decide()
        self.objective()
        return self

    def solve(self, budget: AuditBudget) -> tuple[int, Order]:
        """The most stored grain, proved optimal, and the order reaching it;
        ``audit/solver`` otherwise."""
        solver = cp_model.CpSolver()
        solver.parameters.num_workers = WORKERS
        solver.parameters.max_time_in_seconds = budget.left(self.seat)
        status = solver.solve(self.m)
        if status != cp_model.OPTIMAL:
            raise RuleError.single(
                "audit/solver",
                f"the solver did not prove seat {self.seat}'s best last economy order "
                f"({solver.status_name(status)}); no figure is given rather than a guess",
            )
        order: Order = {}
        for trade, var in zip(self.trades, self.t, strict=True):
            if trade is not None and solver.boolean_value(var):
                order["trade"] = {"give": trade.give, "count": trade.count, "at": trade.at}
        paid = [c for c, var in self.pay.items() if solver.boolean_value(var)]
        if paid:
            order["pay"] = paid
        for card, var in self.double.items():
            if solver.boolean_value(var):
                order["double"] = card
        used = [c for c, var in self.chysarion.items() if solver.boolean_value(var)]
        if used:
            order["chysarion"] = used
        decision = next(d for d, var in self.decision.items() if solver.boolean_value(var))
        order["decision"] = decision
        if decision == "store":
            order["store"] = solver.value(self.store)
        return round(solver.objective_value), order


# ---- the audit -------------------------------------------------------------------------


@dataclass(frozen=True)
class EconomyBest:
    """The most stored grain a seat could have right after an economy step."""

    best: int
    order: Mapping[str, Any]  # an order reaching it, accepted by the engine


def _best_economy(
    before: Table, seat: int, orders: Mapping[int, object], clock: AuditBudget
) -> EconomyBest:
    best, order = _Model(before, seat).build().solve(clock)
    try:
        after = close_step(before, {**orders, seat: order})
    except RuleError as exc:
        raise RuleError.single(
            "audit/solver",
            f"the engine refused the order the solver found best for seat {seat} "
            f"({', '.join(exc.codes)}); no figure is given rather than a guess",
        ) from None
    if after.seats[seat].stored != best:
        raise RuleError.single(
            "audit/solver",
            f"the order the solver found best for seat {seat} stores "
            f"{after.seats[seat].stored} grain when played, not {best}; "
            "no figure is given rather than a guess",
        )
    return EconomyBest(best, order)


def best_economy(
    before: Table,
    seat: int,
    orders: Mapping[int, object] | None = None,
    budget: float | None = None,
) -> EconomyBest:
    """FF22's search for any economy step: the most stored grain ``seat``
    could have right after the economy step open in ``before``, with any
    legal order and the other acting seats' ``orders`` (None or missing:
    their defaults; they change nothing of the seat's), within ``budget``
    seconds (default :data:`AUDIT_BUDGET_SECONDS`)."""
    assert before.next is not None and before.next.phase == "economy", "no economy step is open"
    clock = AuditBudget(AUDIT_BUDGET_SECONDS if budget is None else budget)
    return _best_economy(before, seat, orders or {}, clock)


def _replay(spec: m.MatchSpec) -> tuple[Table, Table, dict[int, object]]:
    """The match replayed once by the engine: the table just before its last
    round, the table after it and that round's orders (None: a default).
    A bad file is refused exactly as :func:`~.match.play` refuses it."""
    # every round before the last: play's own problems, as for the whole file
    before = m.play(replace(spec, orders=spec.orders[:-1]))
    if not spec.orders:
        return before, before, {}
    i = len(spec.orders) - 1
    step = before.next
    try:
        if step is None:  # an entry after the end: play says so
            raise RuleError.single("match/too_many_rounds", "the match is over")
        orders = m.entry_orders(spec.orders[i], step, i)
        return before, close_step(before, orders), orders
    except RuleError:
        m.play(spec)  # the same round refused, in play's words
        raise


def audit_spec(spec: m.MatchSpec, budget: float | None = None) -> MatchAudit:
    """FF22 for every seat of a finished match, within ``budget`` seconds
    (default :data:`AUDIT_BUDGET_SECONDS`)."""
    clock = AuditBudget(AUDIT_BUDGET_SECONDS if budget is None else budget)
    before, final, orders = _replay(spec)
    if not final.over:
        step = final.next
        assert step is not None
        raise RuleError.single(
            "audit/unfinished",
            f"the audit needs a finished match: {final.closed} of its steps have closed and "
            f"step {step.number} (the {step.phase} of season {step.season} of "
            f"{final.seasons_total}) is still to come; the audit looks at the last "
            "season's economy step",
        )
    # ``before`` is the table just before the last season's economy step
    last = before.next
    assert last is not None and last.phase == "economy" and last.season == final.seasons_total
    names = {p.seat: p.name for p in spec.players}
    seats: dict[int, SeatAudit] = {}
    for seat in final.seat_numbers():
        actual = final.seats[seat].stored
        found = _best_economy(before, seat, orders, clock)
        if found.best < actual:  # the order it sent is one of the combinations
            raise RuleError.single(
                "audit/solver",
                f"the solver's best for seat {seat} ({found.best}) is below what it stored "
                f"({actual}); no figure is given rather than a guess",
            )
        seats[seat] = SeatAudit(
            seat, names.get(seat, f"Seat {seat}"), actual, found.best, found.order
        )
    return MatchAudit(seats)


def audit_document(
    document: Any, *, stored: bool = False, budget: float | None = None
) -> MatchAudit:
    """Audit a finished match file (docs/contracts/fortune-famine/FORMAT.md);
    ``stored`` as for :func:`~.match.parse_match`. An unfinished match is
    refused (``audit/unfinished``), a bad file as :func:`~.match.play` refuses it."""
    return audit_spec(m.parse_match(document, stored=stored), budget)


# ---- in words -------------------------------------------------------------------------


def seat_text(a: SeatAudit) -> str:
    """One seat's audit in a sentence (plain text: pages escape it)."""
    head = f"Seat {a.seat} ({a.name}) ended with {a.actual} stored grain"
    if a.gain == 0:
        return f"{head}; no other order in the last economy step would have stored more."
    return (
        f"{head}; the best order in the last economy step would have ended with "
        f"{a.best} ({a.gain} more)."
    )


def audit_text(report: MatchAudit) -> str:
    """The audit in words, for the CLI: one sentence per seat."""
    lines = [
        "Audit of each player's last economy step (the last season's trade, payments, "
        "Chysarions and decision): the grain they had stored at the end, and the most "
        "any other order for that step would have stored, everything before it as played.",
        "",
    ]
    lines += [seat_text(a) for _, a in sorted(report.seats.items())]
    return "\n".join(lines) + "\n"
