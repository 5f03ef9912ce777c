"""Forks' web parts: the generic pages of :class:`referee.web.game.GameWeb`
(the order as JSON beside the seat's ``options``), but for the host's audit
page, which says the audit (K12) in words, and is offered once the match has
finished (the audit compares final scores)."""

from __future__ import annotations

from typing import Any, ClassVar

from referee.web.game import GameWeb


class Web(GameWeb):
    audit_template: ClassVar[str] = "rulesets/forks/audit.html"
    audit_note: ClassVar[str] = "Every best score is proved optimal by the OR-Tools CP-SAT solver."

    def audit_offered(self, view: dict[str, Any]) -> bool:
        return bool(view.get("finished"))
