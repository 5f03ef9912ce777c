"""Forks (1st edition) behind the game-agnostic :class:`referee.ruleset.Ruleset`."""

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
from .cards import CARDS
from .orders import (
    DRAW,
    INVEST,
    REFUSAL_CODES,
    check_draw,
    check_invest,
    read_draw,
    read_invest,
)
from .view import can_take, options_of, visible

CARD_SCHEMA: dict[str, Any] = {"type": "string", "maxLength": 40, "x-code": "card/not_a_string"}
DRAW_SCHEMA: dict[str, Any] = {
    "type": "object",
    "x-code": "order/not_object",
    "maxProperties": 8,
    "properties": {
        "keep": CARD_SCHEMA,
        "swap": {
            "type": "object",
            "x-code": "swap/not_object",
            "maxProperties": 8,
            "properties": {"give": CARD_SCHEMA, "take": CARD_SCHEMA},
        },
    },
    "description": 'The card you keep of the 3 you drew, e.g. {"keep": "oxime-6x"}; with '
    "the swap variant you may first give one of them for an invested card: "
    '{"keep": CARD, "swap": {"give": CARD, "take": CARD}}',
}
SHARED_CODES = frozenset({"match/unknown_ruleset"})


class Forks(Ruleset):
    name = m.RULESET
    title = "Forks"
    min_players = m.MIN_SEATS
    max_players = m.MAX_SEATS
    phases = (
        Phase(DRAW, DRAW, DRAW_SCHEMA),
        Phase(
            INVEST,
            INVEST,
            {
                **CARD_SCHEMA,
                "description": "The card you invest: one of the two passed to you "
                "(with merge, any card of your hand), e.g. 'needle-4'",
            },
        ),
    )
    settings: ClassVar[tuple[Setting, ...]] = m.SETTINGS
    setup_keys = ()
    web_module = "referee.rulesets.forks.web"
    refusal_codes = REFUSAL_CODES | SHARED_CODES  # for the conformance suite
    # K11: the initial investment is public from the start (and so the totals)
    public_from_seed = ("initial_investment", "investment", "investment_totals", "ranking_so_far")

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
        seats = len(state.setup.seats)
        return [
            Step(number, m.step_kind(number), _title(number), (m.acting_seat(number, seats),))
            for number in range(state.closed + 1, m.rounds_of(seats) + 1)
        ]

    def check_order(self, state: GameState, step: Step, seat: int, order: Any) -> Any:
        _acting(step, seat)
        data = state.data
        if step.phase == DRAW:
            draw = read_draw(order, swap_allowed=bool(state.settings.get("swap")))
            turn = data["turns"][-1]
            return check_draw(draw, turn["drawn"], data["investment"]).as_json()
        card = read_invest(order)
        merge = bool(state.settings.get("merge"))
        return check_invest(card, options_of(data, seat), merge=merge)

    def check_entered_order(
        self, host_view: Mapping[str, Any], step: Step, seat: int, order: Any
    ) -> Any:
        """K11: the host never sees the cards drawn in an open draw step, so a
        draw order it enters is only read (its shape, its cards, the swap
        variant); whether its cards were drawn, and whether a swap's taken card
        is invested, are checked at the close. The investment is public, but
        it starts from the seed (K3): answering a take from it in the first
        step would make the host's answers follow the seed, which the
        conformance suite forbids for every game, so the close checks it with
        the rest. An invest step's options (the cards passed, the hand) are in
        the host's view once the draw step has closed, so it is checked in full now."""
        _acting(step, seat)
        settings = host_view["settings"]
        result = host_view["result"]
        if step.phase == DRAW:
            return read_draw(order, swap_allowed=bool(settings.get("swap"))).as_json()
        card = read_invest(order)
        merge = bool(settings.get("merge"))
        return check_invest(card, options_of(result, seat), merge=merge)

    def checks_entered_in_full(self, step: Step) -> bool:
        return step.phase == INVEST

    # ---- what people see ----------------------------------------------

    def view(
        self,
        state: GameState,
        viewer: Viewer,
        *,
        revealed: bool,
        open_step: Step | None,
    ) -> dict[str, Any]:
        result = visible(state.data, viewer, revealed=revealed)
        out: dict[str, Any] = {"result": result}
        seat = viewer.seat
        if viewer.kind == "seat" and seat is not None:
            out["hand"] = list(result["hand"])
            if open_step is not None and seat in open_step.acting:
                options = options_of(state.data, seat)
                out["options"] = options
                result["options"] = list(options)
                if open_step.phase == DRAW and state.settings.get("swap"):
                    out["can_take"] = can_take(state.data)
                    result["can_take"] = list(out["can_take"])
        return out

    def candidate_orders(
        self, state: GameState, step: Step, seat: int, view: Mapping[str, Any]
    ) -> list[Any]:
        """A draw step's keep of each drawn card and, with swap, swaps (the first
        and last drawn card given for the first and last invested card, keeping
        the card taken and, in the other, a drawn one); an invest step's each card."""
        options = [str(c) for c in view.get("options") or []]
        if step.phase != DRAW:
            return list(options)
        out: list[Any] = [{"keep": card} for card in options]
        takes = [str(c) for c in view.get("can_take") or []]
        if options and takes:
            out.append({"swap": {"give": options[0], "take": takes[0]}, "keep": takes[0]})
            out.append({"swap": {"give": options[-1], "take": takes[-1]}, "keep": options[0]})
        return out

    def preview(self, before: GameState, after: GameState) -> Any:
        """The host's preview of closing an invest step with the order it
        entered: with 2 players, closing seat 2's turn reveals the pile's top
        card, and with it the totals, the ranking and the final result; and
        closing the last step would show the discarded cards. None of that is
        the host's before the step closes (K11)."""
        result = super().preview(before, after)
        if "discarded" in result:  # closing the last step would show them: not yet
            result["discarded_count"] = len(result.pop("discarded"))
        turns = result.get("turns") or []
        closed_turn = next((t for t in turns if t["turn"] == m.turn_of(after.closed)), None)
        if after.closed % 2 == 0 and closed_turn and closed_turn.get("revealed"):
            card = closed_turn["revealed"]
            closed_turn["revealed"] = None
            result["investment"] = [c for c in result["investment"] if c != card]
            tiebreak = after.settings.get("tiebreak") or m.DEFAULT_TIEBREAK
            result["investment_totals"] = CARDS.totals(result["investment"])
            result["ranking_so_far"] = CARDS.ranking(result["investment_totals"], tiebreak)
            result["draw_pile"] = int(result.get("draw_pile") or 0) + 1
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
            return "There is no score chart yet: it is drawn once the last invest step has closed."
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

        return audit_text(audit_document(document, stored=stored))

    def demo(self, players: int | None = None) -> Demo:
        from .demo import demo_match

        return demo_match(self.title, players)

    def openapi_components(self) -> dict[str, Any]:
        return schemas_beside(__file__)


def _acting(step: Step, seat: int) -> None:
    if seat not in step.acting:
        acting = ", ".join(str(s) for s in step.acting)
        raise RuleError.single(
            "step/not_acting", f"seat {seat} does not act in {step.title}: only seat {acting} does"
        )


def _title(number: int) -> str:
    """A step's title for people: "Turn 2: draw"."""
    return f"Turn {m.turn_of(number)}: {m.step_kind(number)}"
