"""Rocky River Riding behind the game-agnostic :class:`referee.ruleset.Ruleset`."""

from __future__ import annotations

from typing import Any

from referee.errors import RuleError

from .data import load_deck
from .match import RULESET, parse_match, resolve, result_json
from .orders import check_draft, check_placements, check_votes
from .summary import summary_text


class RockyRiver:
    name = RULESET
    title = "Rocky River Riding"

    def round_phases(self, document: Any) -> list[str]:
        river = parse_match({**document, "draft": {}, "placements": None, "votes": None}).river
        return ["draft", "mapping", *["rafting"] * river.segments]

    def check_order(self, document: Any, round_number: int, seat: int, order: Any) -> Any:
        deck = load_deck()
        phases = self.round_phases(document)
        if not 1 <= round_number <= len(phases):
            raise RuleError.single("round/unknown", f"this match has no round {round_number}")
        phase = phases[round_number - 1]
        if phase == "draft":
            return check_draft(order, deck)
        res = resolve(parse_match(document), deck)
        if phase == "mapping":
            return check_placements(order, res.hands[seat], deck, res.spec.river)
        return check_votes(order, res.spec.river.forks_per_segment)

    def resolve(self, document: Any) -> Any:
        return result_json(resolve(parse_match(document)))

    def summary(self, document: Any) -> str:
        return summary_text(resolve(parse_match(document)))
