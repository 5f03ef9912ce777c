"""The wall-time budget one host's audit shares among its replay, its
candidate orders and its CP-SAT solves (Forfort's FO22, Fortune & Famine's
FF22): once it is spent the audit stops with ``audit/solver`` and gives no
figure rather than a guess.

Rocky River's audit keeps its own budget (:mod:`referee.rulesets.rocky_river.audit`):
there each solve gets a fair share of what is left and a solve the time cuts
short leaves the figure unknown and the report incomplete, instead of an error.

Pure: no Flask, SQL or click imports.
"""

from __future__ import annotations

import time

from referee.errors import RuleError


class AuditBudget:
    """``seconds`` of wall time, counted from when the budget is made."""

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self.deadline = time.monotonic() + seconds

    def left(self, seat: int) -> float:
        """The seconds left for ``seat``'s audit; ``audit/solver`` once there are none."""
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise RuleError.single(
                "audit/solver",
                f"the audit's time budget ({self.seconds:g} s) ran out at seat {seat}; "
                "no figure is given rather than a guess",
            )
        return left
