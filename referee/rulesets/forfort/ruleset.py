"""Forfort behind the game-agnostic :class:`referee.ruleset.Ruleset`
(docs/contracts/forfort/RULES.md and
docs/contracts/forfort/FORMAT.md).

The engine is pure (:mod:`.match`, :mod:`.orders`, :mod:`.options`,
:mod:`.view`); this module is the glue: a match's set-up (the players and an
optional card set), its match file, its steps (one turn each, FO7), checking
orders against the state the closed steps left (:mod:`.rebuild`), and what
each viewer sees (FO21).
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from referee.errors import Problem, RuleError
from referee.players import is_int, parse_players
from referee.ruleset import (
    Demo,
    GameState,
    Phase,
    Ruleset,
    Setup,
    Step,
    Viewer,
    audit_beside,
    schemas_beside,
)

from . import match as m
from .cards import card_set_problems
from .fort import SPACES
from .options import options
from .orders import KINDS, ORDER_KEYS, REFUSAL_CODES, play_turn
from .rebuild import table_from_details
from .view import Viewer as EngineViewer
from .view import result_for

TURN = "turn"
TURN_SCHEMA: dict[str, Any] = {
    "type": "object",
    "x-code": "order/not_object",
    "description": 'Your whole turn, e.g. {"camp_start": 1, "action": {"build": "w01", '
    '"space": 1, "pairs": []}, "drawbridge": null}: the first camp (your first turn '
    "only), one action (build, effect, camp or discard) and, if you like, the "
    "drawbridge on a gate wall of your fort",
}
# the codes a match file or a create body is refused with besides an order's
SHARED_CODES = frozenset({"match/unknown_ruleset"})


class Forfort(Ruleset):
    name = m.RULESET
    title = "Forfort"
    min_players = m.MIN_SEATS
    max_players = m.MAX_SEATS
    phases = (Phase(TURN, TURN, TURN_SCHEMA),)
    setup_keys = ("cards",)
    refusal_codes = REFUSAL_CODES | SHARED_CODES  # for the conformance suite
    # FO21: each top dungeon card's arrows are public from the start
    public_from_seed = ("top_arrows",)
    web_module = "referee.rulesets.forfort.web"

    # ---- set-up --------------------------------------------------------

    def check_setup(self, body: Mapping[str, Any], players: Any) -> Setup:
        """FO1 players and FO2's optional card set (absent: the default set);
        every problem in one RuleError, each card-set problem on the
        ``cards`` field (its message says where in the set)."""
        problems: list[Problem] = []

        def bad(code: str, message: str, where: str | None = None) -> None:
            problems.append(Problem(code, message, where))

        checked = parse_players(players, bad, m.MIN_SEATS, m.MAX_SEATS)
        data: dict[str, Any] = {}
        if "cards" in body:
            cards, card_problems = card_set_problems(body["cards"])
            problems += [Problem(p.code, p.message, "cards") for p in card_problems]
            if cards is not None:
                data["cards"] = cards.as_json()
        if problems:
            raise RuleError(problems)
        return Setup(players=[p._asdict() for p in checked], data=data)

    # ---- play ----------------------------------------------------------

    def document(
        self,
        setup: Setup,
        settings: Mapping[str, Any],
        seed: str | None,
        closed: Sequence[Mapping[int, Any]],
        host_entered: Sequence[tuple[int, int]] = (),
    ) -> dict[str, Any]:
        """FORMAT's match file: each closed step's entry is the order as it was
        sent or entered (``null`` for none), keyed by the acting seat."""
        doc: dict[str, Any] = {
            "ruleset": m.RULESET,
            "players": [
                {"seat": p["seat"], "name": p["name"], "garnets": p["garnets"]}
                for p in setup.players
            ],
            "seed": seed,
            "settings": {},
        }
        if "cards" in setup.data:
            doc["cards"] = copy.deepcopy(setup.data["cards"])
        doc["orders"] = [_entry(step) for step in closed]
        if host_entered:
            doc["host_entered"] = [{"step": k, "seat": s} for k, s in host_entered]
        return doc

    def resolve(self, document: Any, details: bool = False, *, stored: bool = False) -> Any:
        return m.resolve(document, details=details, stored=stored)

    def upcoming(self, state: GameState) -> list[Step]:
        """FO7: the next turn only (whether a drawbridge gives an extra turn is
        known when this one closes); none once the match is over."""
        nxt = state.data["next"]
        if nxt is None:
            return []
        seat = int(nxt["seat"])
        return [Step(int(nxt["step"]), TURN, _title(nxt), (seat,))]

    def check_order(self, state: GameState, step: Step, seat: int, order: Any) -> Any:
        """FO8-FO16 in full: the turn is played on the table the closed steps
        left (which the acting seat can foresee but for its own draw, FO8);
        the order as sent, the match file's form (FORMAT: the export holds
        orders as sent)."""
        _acting(step, seat)
        if order is None:
            raise RuleError.single(
                "order/not_object", 'an order must be an object {"camp_start", "action", ...}'
            )
        table = table_from_details(state.data)
        if table.next is None or table.next.seat != seat:
            raise RuleError.single("step/not_acting", f"seat {seat} does not act now")
        play_turn(table, order)
        return copy.deepcopy(order)

    def check_entered_order(
        self, host_view: Mapping[str, Any], step: Step, seat: int, order: Any
    ) -> Any:
        """An order the host enters, checked only against what every viewer
        sees (FO21: forts, hand counts, who has had a turn): its keys, the
        first camp, and that an action is there exactly when the hand holds a
        card and names one kind. The cards it names, where they go and what
        they hit depend on the hand and the dungeon, which the host must not
        learn from an answer (and before the first step closes does not see):
        the rules check those when the step closes."""
        _acting(step, seat)
        result = host_view["result"]
        if not isinstance(order, Mapping):
            raise RuleError.single(
                "order/not_object", f"an order must be an object, not {type(order).__name__}"
            )
        extra = sorted(str(k) for k in order if k not in ORDER_KEYS)
        if extra:
            raise RuleError.single(
                "order/bad_keys",
                f"an order has only camp_start, action and drawbridge, not {', '.join(extra)}",
            )
        _check_camp_start(result, seat, order.get("camp_start"))
        action = order.get("action")
        in_hand = int(result["hand_counts"][str(seat)])
        if action is None and in_hand:
            raise RuleError.single(
                "action/missing", "the order needs an 'action': the hand holds a card"
            )
        if action is not None:
            if not in_hand:
                raise RuleError.single(
                    "action/hand_empty", "the hand is empty: the action must be null"
                )
            if not isinstance(action, Mapping):
                raise RuleError.single(
                    "action/not_object", f"'action' must be an object, not {type(action).__name__}"
                )
            if sum(1 for k in KINDS if k in action) != 1:
                raise RuleError.single(
                    "action/bad_keys",
                    "'action' must name exactly one of build, effect, camp, discard",
                )
        return copy.deepcopy(order)

    # ---- what people see ----------------------------------------------

    def view(
        self,
        state: GameState,
        viewer: Viewer,
        *,
        revealed: bool,
        open_step: Step | None,
    ) -> dict[str, Any]:
        """FO21 (:func:`.view.result_for`); a seat also gets its ``hand`` and,
        acting in the open step, its ``options`` (FORMAT's API bodies), both
        under ``result`` too."""
        details = state.data
        who: EngineViewer = "public" if viewer.kind == "public" else "host"
        if viewer.kind == "seat" and viewer.seat is not None:
            who = viewer.seat
        result = result_for(details, who, revealed=revealed)
        out: dict[str, Any] = {"result": result}
        seat = viewer.seat
        if viewer.kind == "seat" and seat is not None:
            hand = list(details["hands"][str(seat)])
            out["hand"] = hand
            result["hand"] = list(hand)
            nxt = details["next"]
            acting = open_step is not None and seat in open_step.acting
            if acting and nxt is not None and nxt["seat"] == seat:
                opts = options(table_from_details(details))
                out["options"] = opts
                result["options"] = copy.deepcopy(opts)
        return out

    def candidate_orders(
        self, state: GameState, step: Step, seat: int, view: Mapping[str, Any]
    ) -> list[Any]:
        from .candidates import candidate_orders

        return candidate_orders(view)

    def post(self, public_view: dict[str, Any], fmt: str, base_url: str | None = None) -> str:
        from .post import forum_post

        return forum_post(public_view, fmt, base_url)

    def pictures(self) -> dict[str, Callable[[dict[str, Any]], str | None]]:
        from .picture import forts_column_svg, forts_svg

        # two forts a row for posts and wide pages, one a row for phones
        return {"forts": forts_svg, "forts-column": forts_column_svg}

    # ---- tools ---------------------------------------------------------

    def summary(self, document: Any) -> str:
        from .summary import summary_text

        return summary_text(document)

    def audit(self, document: Any, *, stored: bool = False) -> dict[str, Any]:
        """FO22 (:mod:`.audit`, written beside this adapter)."""
        audit = audit_beside(__package__, self.title)
        out: dict[str, Any] = audit.audit_document(document, stored=stored).as_dict()
        return out

    def audit_text(self, document: Any, *, stored: bool = False) -> str:
        audit = audit_beside(__package__, self.title)
        text: str = audit.audit_text(audit.audit_document(document, stored=stored))
        return text

    def demo(self, players: int | None = None) -> Demo:
        from .demo import demo_match

        return demo_match(self.title, players)

    def openapi_components(self) -> dict[str, Any]:
        return schemas_beside(__file__)


def _entry(step: Mapping[int, Any]) -> dict[str, Any] | None:
    """One closed step's ``orders`` entry: the acting seat's order, or null."""
    sent = {str(seat): copy.deepcopy(order) for seat, order in step.items() if order is not None}
    return sent or None


def _acting(step: Step, seat: int) -> None:
    if seat not in step.acting:
        acting = ", ".join(str(s) for s in step.acting)
        raise RuleError.single(
            "step/not_acting", f"seat {seat} does not act in {step.title}: only seat {acting} does"
        )


def _title(nxt: Mapping[str, Any]) -> str:
    """A step's title for people: "Round 3: seat 2" (", extra turn")."""
    title = f"Round {nxt['round']}: seat {nxt['seat']}"
    return title + (", extra turn" if nxt["extra"] else "")


def _check_camp_start(result: Mapping[str, Any], seat: int, raw: object) -> None:
    """FO8 part 1 from the public forts and steps: required in the seat's
    first turn when its fort has an empty space, refused in any later turn."""
    first = not any(int(s["seat"]) == seat for s in result["steps"])
    spaces = result["forts"][str(seat)]["spaces"]
    empty = [s for s in SPACES if not spaces[str(s)]["stack"] and spaces[str(s)]["army"] is None]
    if not first:
        if raw is not None:
            raise RuleError.single(
                "camp_start/not_first_turn",
                "'camp_start' is for the seat's first turn only: it must be null or left out",
            )
        return
    if raw is None:
        if empty:
            raise RuleError.single(
                "camp_start/missing", "the first turn needs 'camp_start', an empty space"
            )
        return
    if not is_int(raw) or raw not in SPACES:
        raise RuleError.single(
            "camp_start/bad_space", f"'camp_start' must be a space 1 to 8, not {raw!r}"
        )
    if raw not in empty:
        raise RuleError.single(
            "camp_start/not_empty", f"'camp_start' {raw} is not an empty space of the fort"
        )
