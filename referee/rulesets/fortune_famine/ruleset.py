"""Fortune & Famine behind the game-agnostic :class:`referee.ruleset.Ruleset`
(docs/contracts/fortune-famine/RULES.md and
docs/contracts/fortune-famine/FORMAT.md).

The engine is pure (:mod:`.match`, :mod:`.orders`, :mod:`.options`,
:mod:`.view`); this module is the glue: a match's set-up (the players, and
optionally the rulers and a host's deck), its match file, its steps (a hire
turn or an attack turn for one seat, an economy step for all, FF7), checking
orders against the table the closed steps left (:mod:`.rebuild`), and what
each viewer sees (FF21).
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping, Sequence
from typing import Any

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
    audit_beside,
    schemas_beside,
)

from . import match as m
from .cards import Deck, deck_problems, default_deck, parse_deck
from .entered import check_unseeded
from .options import options
from .orders import REFUSAL_CODES
from .orders import check_order as engine_check_order
from .rebuild import table_from_details
from .state import COTARR, PASS_SILVER
from .view import Viewer as EngineViewer
from .view import result_for

HIRE, ATTACK, ECONOMY = "hire", "attack", "economy"
HIRE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "x-code": "order/not_object",
    "description": 'Your hire turn: {"action": "bid", "card": ID, "silver": N}, '
    '{"action": "take", "card": ID} (a wizard), {"action": "claim", "card": ID} '
    '(Elban/Eltezza) or {"action": "pass"}; a bid, take or claim names a "discard" '
    'when the new card would not fit your Kingdom; a Trader may add "trade" '
    '{"give": "grain" or "silver", "count": 1 to 3}, Besella/Baroso "guard" '
    '{"grain": G, "silver": S}',
    "properties": {
        "action": {"description": "bid, take, claim or pass"},
        "card": {"description": "the card id on the Hire Board (not for a pass)"},
        "silver": {"description": "a bid's silver"},
        "discard": {"description": "a card of your Kingdom to make room, only when needed"},
        "trade": {"description": 'a Trader\'s trade, {"give", "count"}, made first'},
        "guard": {"description": 'Besella/Baroso\'s guard, {"grain", "silver"}, set last'},
    },
}
ATTACK_SCHEMA: dict[str, Any] = {
    "type": "object",
    "x-code": "order/not_object",
    "description": 'Your attack turn, every key optional ({} does nothing): "pickpocket" '
    'a list of 0 to 2 opponents\' seats, "evrathor" a list of uses {"card": ID, '
    '"from": {"SEAT": N}}, a Trader\'s "trade" and Besella/Baroso\'s "guard"',
    "properties": {
        "pickpocket": {"description": "the opponents your Pickpocket takes 1 silver from"},
        "evrathor": {"description": 'the Evrathors used, in order: {"card", "from"}'},
        "trade": {"description": 'a Trader\'s trade, {"give", "count"}, made first'},
        "guard": {"description": 'Besella/Baroso\'s guard, {"grain", "silver"}, set last'},
    },
}
ECONOMY_SCHEMA: dict[str, Any] = {
    "type": "object",
    "x-code": "order/not_object",
    "description": 'Your economy: "decision" grain, silver or store (with "store": N, the '
    'grain to store for 1 silver); optionally "pay" (the workers you pay), "double" '
    '(a Philosopher\'s doubled Common Farmer or Merchant), "chysarion" (the Chysarions '
    'you use), a Trader\'s "trade" {"give", "count", "at": "payment" or "decision"} '
    'and Besella/Baroso\'s "guard"',
    "properties": {
        "trade": {"description": 'a Trader\'s trade, {"give", "count", "at"}'},
        "pay": {"description": "the workers you pay this season"},
        "double": {"description": "the paid Common Farmer or Merchant a Philosopher doubles"},
        "chysarion": {"description": "the Chysarions you use this season"},
        "decision": {"description": "grain, silver or store"},
        "store": {"description": "with store: the grain to store (1 silver)"},
        "guard": {"description": 'Besella/Baroso\'s guard, {"grain", "silver"}, set last'},
    },
}
LENGTH = Setting(
    "length",
    "Length",
    "choice",
    m.DEFAULT_LENGTH,
    ("full", "short"),
    help="full: 3 Years of 4 seasons (12 seasons, the printed game); "
    "short: 3 Years of 2 seasons (6 seasons)",
)
SETUP_KEYS = ("rulers", "deck")


class FortuneFamine(Ruleset):
    name = m.RULESET
    title = "Fortune & Famine"
    min_players = m.MIN_SEATS
    max_players = m.MAX_SEATS
    phases = (
        Phase(HIRE, HIRE, HIRE_SCHEMA),
        Phase(ATTACK, ATTACK, ATTACK_SCHEMA),
        Phase(ECONOMY, ECONOMY, ECONOMY_SCHEMA),
    )
    settings = (LENGTH,)
    setup_keys = SETUP_KEYS
    refusal_codes = REFUSAL_CODES  # for the conformance suite
    web_module = "referee.rulesets.fortune_famine.web"
    # FF5, FF8, FF11, FF21: the rulers dealt, season 1's board, its Famines (and
    # so the seats' grain and tokens) and automatic passes (and so the first
    # step's seat) are drawn by the seed but public from the start
    public_from_seed = ("seats", "seasons", "next_round")

    # ---- set-up --------------------------------------------------------

    def check_setup(self, body: Mapping[str, Any], players: Any) -> Setup:
        """FF1 players, FF5's optional rulers and FF4's optional deck (absent
        or null: dealt by the seed, the default deck); every problem in one
        RuleError, the deck's on the ``deck`` field (its message says where
        in the deck), the Year sizes checked once the players give n."""
        problems: list[Problem] = []

        def bad(code: str, message: str, where: str | None = None) -> None:
            problems.append(Problem(code, message, where))

        checked = parse_players(players, bad, m.MIN_SEATS, m.MAX_SEATS)
        seats = m.players_give_n(players)
        data: dict[str, Any] = {}
        rulers, found = m.rulers_problems(body.get("rulers"), seats)
        problems += found
        if rulers is not None:
            data["rulers"] = {str(s): r for s, r in sorted(rulers.items())}
        if body.get("deck") is not None:
            deck, found = deck_problems(body["deck"], seats)
            problems += [Problem(p.code, p.message, "deck") for p in found]
            if deck is not None:
                data["deck"] = deck.as_json()
        if problems:
            raise RuleError(problems)
        return Setup(players=[p._asdict() for p in checked], data=data)

    def check_settings(self, raw: Mapping[str, Any]) -> dict[str, Any]:
        """FORMAT's settings (the engine's check: ``length`` full or short,
        ``null`` a bad choice), each problem on its setting's field."""
        problems: list[Problem] = []

        def bad(code: str, message: str, where: str | None = None) -> None:
            problems.append(Problem(code, message, LENGTH.key if where else None))

        length = m.check_settings(dict(raw), bad)
        if problems:
            raise RuleError(problems)
        return {LENGTH.key: length}

    # ---- play ----------------------------------------------------------

    def document(
        self,
        setup: Setup,
        settings: Mapping[str, Any],
        seed: str | None,
        closed: Sequence[Mapping[int, Any]],
        host_entered: Sequence[tuple[int, int]] = (),
    ) -> dict[str, Any]:
        """FORMAT's match file: each closed round's entry is its acting seats'
        orders as sent or entered (``null`` when none was), and the rounds
        whose order the host entered under ``host_entered``."""
        doc: dict[str, Any] = {
            "ruleset": m.RULESET,
            "players": [
                {"seat": p["seat"], "name": p["name"], "garnets": p["garnets"]}
                for p in setup.players
            ],
            "seed": seed,
            "settings": {LENGTH.key: settings.get(LENGTH.key, m.DEFAULT_LENGTH)},
        }
        for key in SETUP_KEYS:
            if setup.data.get(key) is not None:
                doc[key] = copy.deepcopy(setup.data[key])
        doc["orders"] = [_entry(step) for step in closed]
        if host_entered:
            doc["host_entered"] = [{"round": k, "seat": s} for k, s in host_entered]
        return doc

    def resolve(self, document: Any, details: bool = False, *, stored: bool = False) -> Any:
        return m.resolve(document, details=details, stored=stored)

    def upcoming(self, state: GameState) -> list[Step]:
        """FF7: the open step only (who acts after it depends on its orders);
        none once the match is over."""
        nxt = state.data["next_round"]
        if nxt is None:
            return []
        acting = tuple(int(s) for s in nxt["acting"])
        return [Step(int(nxt["round"]), str(nxt["phase"]), step_title(nxt), acting)]

    def check_order(self, state: GameState, step: Step, seat: int, order: Any) -> Any:
        """FF10-FF18 in full, on the table the closed steps left; the order as
        sent (the match file holds orders as sent; the rules read card ids
        in any case)."""
        _acting(step, seat)
        engine_check_order(table_from_details(state.data), seat, order)
        return copy.deepcopy(order)

    def check_entered_order(
        self, host_view: Mapping[str, Any], step: Step, seat: int, order: Any
    ) -> Any:
        """An order the host enters, answered from the host's own view only
        (FF21). Once a step has closed the host sees every closed step in
        full, and no rule reads anything else (a storage theft is never
        refused for the storage it finds, FF14): the order is checked with
        every rule on the table of the host's view. In the first step, what
        the host sees is the public start, drawn by the seed (the rulers,
        season 1's board): the order is only checked for what holds whatever
        the seed (:mod:`.entered`), the rest when the step closes."""
        _acting(step, seat)
        result = host_view["result"]
        if not result["rounds"]:
            check_unseeded(step.phase, order, _deck(result), len(result["seats"]))
        else:
            engine_check_order(table_from_details(result), seat, order)
        return copy.deepcopy(order)

    def checks_entered_in_full(self, step: Step) -> bool:
        return step.number > 1

    # ---- what people see ----------------------------------------------

    def view(
        self,
        state: GameState,
        viewer: Viewer,
        *,
        revealed: bool,
        open_step: Step | None,
    ) -> dict[str, Any]:
        """FF21 (:func:`.view.result_for`): a seat sees its own storage; the
        host every closed step in full; a seat acting in the open step its
        ``options`` (FORMAT's API bodies), top level and under ``result``."""
        details = state.data
        who: EngineViewer = "public" if viewer.kind == "public" else "host"
        seat = viewer.seat
        if viewer.kind == "seat" and seat is not None:
            who = seat
        result = result_for(details, who, revealed=revealed)
        out: dict[str, Any] = {"result": result}
        nxt = details["next_round"]
        acting = (
            viewer.kind == "seat"
            and seat is not None
            and open_step is not None
            and seat in open_step.acting
            and nxt is not None
            and seat in nxt["acting"]
        )
        if acting and seat is not None:
            opts = options(table_from_details(details), seat)
            out["options"] = opts
            result["options"] = copy.deepcopy(opts)
        return out

    def candidate_orders(
        self, state: GameState, step: Step, seat: int, view: Mapping[str, Any]
    ) -> list[Any]:
        from .candidates import candidate_orders

        return candidate_orders(view, seat)

    def preview(self, before: GameState, after: GameState) -> Any:
        """The host's preview of closing a step whose orders it entered: the
        host's view of the state after it, but closing an economy step starts
        the next season, whose burned and revealed cards (and so its Famines
        and automatic passes) nobody may know before the step has really
        closed (FF21): the preview stops at the economy's end, the new
        season's record left out, its Famines' losses and blocks and
        Cotarr/Corace's automatic passes undone, and the next round unknown."""
        result: dict[str, Any] = super().preview(before, after)
        started = len(before.data["seasons"])
        if after.data["finished"] or len(result["seasons"]) <= started:
            return result
        seats = result["seats"]
        for record in result["seasons"][started:]:
            for famine in record["famines"]:
                for key, lost in famine["loss"].items():
                    seats[key]["grain"] += lost
                for s in famine["blocked"]:
                    seats[str(s)]["tokens"] += 1
            for turn in record["hire_turns"]:
                seat = seats[str(turn["seat"])]
                if turn["auto"] and seat["ruler"] == COTARR:
                    seat["silver"] -= PASS_SILVER
        result["seasons"] = result["seasons"][:started]
        result["next_round"] = None
        return result

    def post(self, public_view: dict[str, Any], fmt: str, base_url: str | None = None) -> str:
        from .post import forum_post

        return forum_post(public_view, fmt, base_url)

    def pictures(self) -> dict[str, Callable[[dict[str, Any]], str | None]]:
        from . import picture as p

        # each two panels a row for posts and wide pages, one a row for phones
        return {
            "kingdoms": p.kingdoms_svg,
            "kingdoms-column": p.kingdoms_column_svg,
            "board": p.board_svg,
            "board-column": p.board_column_svg,
            "resources": p.resources_svg,
            "resources-column": p.resources_column_svg,
        }

    # ---- tools ---------------------------------------------------------

    def summary(self, document: Any) -> str:
        from .summary import summary_text

        return summary_text(document)

    def audit(self, document: Any, *, stored: bool = False) -> dict[str, Any]:
        """FF22 (:mod:`.audit`, written beside this adapter)."""
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


def step_title(nxt: Mapping[str, Any]) -> str:
    """A step's title for people, from public facts only: "Season 3, hire
    (seat 2)", "Season 3, attack (seat 4)", "Season 3, economy"."""
    season, phase = nxt["season"], nxt["phase"]
    if phase == ECONOMY:
        return f"Season {season}, economy"
    return f"Season {season}, {phase} (seat {nxt['acting'][0]})"


def _deck(result: Mapping[str, Any]) -> Deck:
    """The deck a view carries (public from the start)."""
    default = default_deck()
    return default if result["deck"] == default.as_json() else parse_deck(result["deck"])


def _entry(step: Mapping[int, Any]) -> dict[str, Any] | None:
    """One closed round's ``orders`` entry: the orders sent, by seat, or null."""
    sent = {str(seat): copy.deepcopy(order) for seat, order in step.items() if order is not None}
    return sent or None


def _acting(step: Step, seat: int) -> None:
    if seat not in step.acting:
        acting = ", ".join(str(s) for s in step.acting)
        raise RuleError.single(
            "step/not_acting",
            f"seat {seat} does not act in {step.title}: only seat {acting} "
            + ("do" if len(step.acting) > 1 else "does"),
        )
