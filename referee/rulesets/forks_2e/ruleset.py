"""Forks 2nd Edition behind the game-agnostic :class:`referee.ruleset.Ruleset`."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar

from referee.errors import Problem, RuleError
from referee.players import parse_players
from referee.ruleset import (
    Demo,
    GameState,
    Phase,
    Ruleset,
    Setting,
    Setup,
    Step,
    Viewer,
    schemas_beside,
)

from . import match as m
from .orders import KEEP, MARKET, REFUSAL_CODES, check_keep, check_market, read_order_card
from .scoring import marketing_totals, ranking
from .view import options_of, visible

CARD_SCHEMA: dict[str, Any] = {
    "type": "string",
    "maxLength": 40,
    "x-code": "card/not_a_string",
}
SHARED_CODES = frozenset({"match/unknown_ruleset"})


class Forks2e(Ruleset):
    name = m.RULESET
    title = "Forks 2nd Edition"
    min_players = m.MIN_SEATS
    max_players = m.MAX_SEATS
    phases = (
        Phase(
            KEEP,
            KEEP,
            {**CARD_SCHEMA, "description": "F5: the dealt card you keep, e.g. 'grey-8x'"},
        ),
        Phase(
            MARKET,
            MARKET,
            {
                **CARD_SCHEMA,
                "description": "F5: the card you market: one of the two passed to you "
                "(with merge, any card of your hand)",
            },
        ),
    )
    settings: ClassVar[tuple[Setting, ...]] = m.SETTINGS
    setup_keys = ()
    web_module = "referee.rulesets.forks_2e.web"
    refusal_codes = REFUSAL_CODES | SHARED_CODES  # for the conformance suite
    # F11: the initial marketing cards are public from the start (and so their totals)
    public_from_seed = ("initial_marketing", "marketing_totals", "ranking_so_far")

    # ---- set-up --------------------------------------------------------

    def check_setup(self, body: Mapping[str, Any], players: Any) -> Setup:
        problems: list[Problem] = []

        def bad(code: str, message: str, where: str | None = None) -> None:
            problems.append(Problem(code, message, where))

        checked = parse_players(players, bad, m.MIN_SEATS, m.MAX_SEATS)
        if problems:
            raise RuleError(problems)
        return Setup(players=[p._asdict() for p in checked], data={})

    # ---- play ----------------------------------------------------------

    def document(
        self,
        setup: Setup,
        settings: Mapping[str, Any],
        seed: str | None,
        closed: Sequence[Mapping[int, Any]],
        host_entered: Sequence[tuple[int, int]] = (),
    ) -> dict[str, Any]:
        return m.match_json(setup.players, settings, seed, closed, host_entered)

    def resolve(self, document: Any, details: bool = False, *, stored: bool = False) -> Any:
        return m.resolve(document, details=details, stored=stored)

    def upcoming(self, state: GameState) -> list[Step]:
        seats = state.setup.seats
        return [
            Step(number, m.step_kind(number), _title(number), seats)
            for number in range(state.closed + 1, m.rounds_of(len(seats)) + 1)
        ]

    def check_order(self, state: GameState, step: Step, seat: int, order: Any) -> Any:
        options = options_of(state.data, seat, bool(state.settings.get("merge")))
        if step.phase == KEEP:
            return check_keep(order, options)
        return check_market(order, options, merge=bool(state.settings.get("merge")))

    def check_entered_order(
        self, host_view: Mapping[str, Any], step: Step, seat: int, order: Any
    ) -> Any:
        """F11: the host sees no seat's dealt cards before the keep step closes,
        so a keep order it enters is only read as a card here (the close checks
        it was dealt); a market step's options (the cards passed, the hands) are
        in the host's view once the keep step has closed, so they are checked now."""
        if step.phase == KEEP:
            return read_order_card(order)
        merge = bool(host_view["settings"].get("merge"))
        return check_market(order, options_of(host_view["result"], seat, merge), merge=merge)

    def checks_entered_in_full(self, step: Step) -> bool:
        return step.phase != KEEP

    # ---- what people see ----------------------------------------------

    def view(
        self,
        state: GameState,
        viewer: Viewer,
        *,
        revealed: bool,
        open_step: Step | None,
    ) -> dict[str, Any]:
        merge = bool(state.settings.get("merge"))
        result = visible(state.data, viewer, revealed=revealed)
        out: dict[str, Any] = {"result": result}
        seat = viewer.seat
        if viewer.kind == "seat" and open_step is not None and seat in open_step.acting:
            assert seat is not None
            options = options_of(state.data, seat, merge)
            out["options"] = options
            result["options"] = list(
                options
            )  # docs/contracts/forks-2e/FORMAT.md: "under result ... options"
        return out

    def preview(self, before: GameState, after: GameState) -> Any:
        """The host's preview of closing a step with orders it entered: closing a
        keep step would show the rest of each seat's deal (what it passes), and
        with 2 players closing a market step the pile's next card and what it
        changes (totals, ranking, the final result): none of that is the host's
        to see before the step closes (F11)."""
        result = super().preview(before, after)
        game_round = (after.closed + 1) // 2
        if after.closed % 2 == 1:
            result["dealt"] = result["dealt"][: game_round - 1]
            result["passed"] = result["passed"][: game_round - 1]
        elif result.get("revealed"):
            result["revealed"] = result["revealed"][:-1]
            cards = [*result["initial_marketing"], *result["revealed"]]
            for step in result["marketed"]:
                cards += step
            tiebreak = after.settings.get("tiebreak") or m.DEFAULT_TIEBREAK
            result["marketing_totals"] = marketing_totals(cards)
            result["ranking_so_far"] = ranking(result["marketing_totals"], tiebreak)
            for key in ("ranking", "scores", "token_of_life", "elimination_candidate"):
                result.pop(key, None)
            result.pop("elimination_ties", None)
        return result

    def post(self, public_view: dict[str, Any], fmt: str, base_url: str | None = None) -> str:
        from .post import forum_post

        return forum_post(public_view, fmt, base_url)

    def pictures(self) -> dict[str, Callable[[dict[str, Any]], str | None]]:
        from .picture import board_svg, scores_svg

        return {"board": board_svg, "scores": scores_svg}

    def picture_pending(self, name: str) -> str:
        if name == "scores":
            return "There is no score chart yet: it is drawn once the last market step has closed."
        return super().picture_pending(name)

    # ---- tools ---------------------------------------------------------

    def summary(self, document: Any) -> str:
        from .summary import summary_text

        return summary_text(document)

    def audit(self, document: Any, *, stored: bool = False) -> dict[str, Any]:
        from .audit import audit_document

        return audit_document(document, stored=stored).as_dict()

    def audit_text(self, document: Any, *, stored: bool = False) -> str:
        from .audit import audit_document, audit_text

        report = audit_document(document, stored=stored)
        return audit_text(report, document)

    def demo(self, players: int | None = None) -> Demo:
        from .demo import demo_match

        return demo_match(self.title, players)

    def openapi_components(self) -> dict[str, Any]:
        return schemas_beside(__file__)


def _title(number: int) -> str:
    """A step's title for people: "Round 2: keep"."""
    game_round = (number + 1) // 2
    return f"Round {game_round}: {'keep' if number % 2 == 1 else 'market'}"
