"""FF22 by brute force, for the audit's tests: every economy order the rule
names, each checked by the engine and scored by playing the step.

Nothing is merged and nothing is taken from the audit or from
:mod:`~referee.rulesets.fortune_famine.legal`: for the seat, every trade
(none; with a Trader in its Kingdom each give, count 1..3 and ``at``), every
set of the Kingdom's workers whose payment is not all 0, every double (none,
or any one paid worker: the engine refuses all but a paid Common Farmer or
Merchant with a Philosopher held), every set of the Kingdom's Chysarions and
every decision (grain, silver, and store N for N = 1, 2, ... until the engine
refuses the store: every larger N is refused for the same reason, as the
grain and silver at the decision do not depend on N). Each order goes
through the engine's ``check_order``; each one it accepts is played with
``close_step``, the other acting seats' orders as given, and the seat's
stored grain read from the table after it. The best is the most of those.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from itertools import combinations
from typing import Any

from referee.errors import RuleError
from referee.rulesets.fortune_famine.orders import check_order, close_step
from referee.rulesets.fortune_famine.state import Table

Order = dict[str, Any]
STORE_REFUSALS = ("store/not_enough_grain", "store/not_enough_silver")


class TooMany(Exception):
    """The brute force would check more orders than the test allows."""


def subsets(items: list[str]) -> Iterator[tuple[str, ...]]:
    for k in range(len(items) + 1):
        yield from combinations(items, k)


class Brute:
    """Every economy order of ``seat`` in the economy step open in ``before``."""

    def __init__(
        self, before: Table, seat: int, others: Mapping[int, object], cap: int = 50_000
    ) -> None:
        assert before.next is not None and before.next.phase == "economy"
        assert seat in before.next.acting
        self.before = before
        self.seat = seat
        self.others = {s: o for s, o in others.items() if s != seat}
        self.cap = cap
        self.checked = 0
        self.accepted = 0
        self.best: int | None = None

    def codes(self, order: Order) -> list[str]:
        """The engine's codes for ``order`` ([] when accepted)."""
        self.checked += 1
        if self.checked > self.cap:
            raise TooMany
        try:
            check_order(self.before, self.seat, order)
        except RuleError as exc:
            return exc.codes
        return []

    def score(self, order: Order) -> None:
        """Play the step with ``order`` and the others' orders; keep the best."""
        after = close_step(self.before, {**self.others, self.seat: order})
        stored = after.seats[self.seat].stored
        self.accepted += 1
        self.best = stored if self.best is None else max(self.best, stored)

    def trades(self) -> list[Order | None]:
        deck = self.before.deck
        kingdom = self.before.seats[self.seat].kingdom
        out: list[Order | None] = [None]
        every = [
            {"give": give, "count": count, "at": at}
            for give in ("grain", "silver")
            for count in (1, 2, 3)
            for at in ("payment", "decision")
        ]
        if any(deck.type_of(c).kind == "trader" for c in kingdom):
            return out + list(every)
        # without a Trader the engine refuses every trade (checked once here)
        assert self.codes({"trade": every[0], "decision": "grain"}) == ["trade/no_trader"]
        return out

    def orders(self) -> Iterator[Order]:
        """Every combination of trade, payments, double and Chysarion uses,
        without its decision."""
        deck = self.before.deck
        kingdom = list(self.before.seats[self.seat].kingdom)
        payable = [
            c for c in kingdom if deck.type_of(c).worker and deck.type_of(c).payment != (0, 0)
        ]
        wizards = [c for c in kingdom if deck.type_of(c).kind == "chysarion"]
        for trade in self.trades():
            for pay in subsets(payable):
                for double in (None, *pay):
                    for used in subsets(wizards):
                        order: Order = {}
                        if trade is not None:
                            order["trade"] = trade
                        if pay:
                            order["pay"] = list(pay)
                        if double is not None:
                            order["double"] = double
                        if used:
                            order["chysarion"] = list(used)
                        yield order

    def run(self) -> int:
        for order in self.orders():
            for decision in ("grain", "silver"):
                full = {**order, "decision": decision}
                if not self.codes(full):
                    self.score(full)
            n = 1
            while True:
                full = {**order, "decision": "store", "store": n}
                codes = self.codes(full)
                if codes:
                    assert len(codes) == 1
                    break
                self.score(full)
                n += 1
        assert self.best is not None, "the default order is always legal"
        return self.best


def brute_best(before: Table, seat: int, others: Mapping[int, object], cap: int = 50_000) -> int:
    return Brute(before, seat, others, cap).run()
