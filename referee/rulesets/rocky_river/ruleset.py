"""Rocky River Riding behind the game-agnostic :class:`referee.ruleset.Ruleset`."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar

from referee.errors import Problem, RuleError
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

from .audit import audit_document, audit_text, map_fairness
from .balance import balance_json
from .data import SEEDS_DIR, load_bundled_map, load_deck
from .mapping import legal_values
from .match import RULESET, parse_match, parse_players, resolve, result_json
from .orders import check_draft, check_placements, check_votes
from .post import forum_post
from .river_map import SEATS, parse_map, stored_river
from .summary import summary_text
from .view_pictures import view_map_svg, view_results_svg

DEMO_FILE = SEEDS_DIR / "demo" / "demo.match.json"

# Result keys R11 makes public once the round that produces them has closed.
PUBLIC_KEYS = (
    "path",
    "scores",
    "control",
    "votes",
    "token_of_life",
    "elimination_candidate",
    "tied_on_score",
    "defaulted",
)


ORDER_KEYS = {"draft": "draft", "mapping": "placements", "rafting": "votes"}

# The JSON Schema of each phase's order (the value under its ORDER_KEYS key).
# They say the shape only; the rules (check_order) say the rest. ``x-code`` is
# the refusal code the API gives when a value does not have that shape.
SCHEMAS: dict[str, dict[str, Any]] = {
    "draft": {
        "description": "R5: all 27 cards, most wanted first (ids such as J, T, AS)",
        "type": "array",
        "items": {"type": "string", "x-code": "draft/unknown_card"},
        "x-code": "draft/not_a_list",
    },
    "mapping": {
        "description": "R7: each card in hand mapped to the id of a branch of its colour",
        "type": "object",
        "additionalProperties": {"type": "string", "x-code": "mapping/unknown_branch"},
        "x-code": "mapping/not_an_object",
    },
    "rafting": {
        "description": "R8: L or R for each fork of the segment, in river order",
        "type": "array",
        "items": {"type": "string", "x-code": "rafting/bad_direction"},
        "x-code": "rafting/not_a_list",
    },
}


class RockyRiver(Ruleset):
    name = RULESET
    title = "Rocky River Riding"
    min_players = len(SEATS)
    max_players = len(SEATS)
    phases = tuple(Phase(name, ORDER_KEYS[name], SCHEMAS[name]) for name in ORDER_KEYS)
    settings: ClassVar[tuple[Setting, ...]] = (
        Setting(
            "publish_totals",
            "Publish every slot total once mapping has closed",
            "flag",
            False,
            help="otherwise a total is public only once the raft has passed its branch",
        ),
    )
    setup_keys = ("map",)
    web_module = "referee.rulesets.rocky_river.web"
    cli_module = "referee.rulesets.rocky_river.cli"

    # ---- set-up --------------------------------------------------------

    def check_setup(self, body: Mapping[str, Any], players: Any) -> Setup:
        problems: list[Problem] = []
        map_ref = body.get("map")
        map_doc: dict[str, Any] = {}
        map_name: str | None = None
        try:
            if isinstance(map_ref, str):
                map_doc, map_name = load_bundled_map(map_ref).to_json(), map_ref
            elif isinstance(map_ref, Mapping):
                map_doc = parse_map(map_ref).to_json()
            else:
                problems.append(
                    Problem("match/bad_map", "the map must be a bundled map's name or a map object")
                )
        except RuleError as exc:
            problems.extend(exc.problems)
        checked = parse_players(players, lambda *a: problems.append(Problem(*a)))
        if problems:
            raise RuleError(problems)
        return Setup(
            players=[{"seat": p.seat, "name": p.name, "garnets": p.garnets} for p in checked],
            data={"map": map_doc, "map_name": map_name},
        )

    def setup_report(self, body: Mapping[str, Any]) -> dict[str, Any]:
        map_ref = body.get("map")
        river = load_bundled_map(map_ref) if isinstance(map_ref, str) else parse_map(map_ref)
        return {**balance_json(river), "fairness": map_fairness(river, load_deck()).as_dict()}

    # ---- play ----------------------------------------------------------

    def document(
        self,
        setup: Setup,
        settings: Mapping[str, Any],
        seed: str | None,
        closed: Sequence[Mapping[int, Any]],
        host_entered: Sequence[tuple[int, int]] = (),
    ) -> dict[str, Any]:
        def by_seat(orders: Mapping[int, Any]) -> dict[str, Any]:
            return {str(seat): orders.get(seat) for seat in SEATS}

        map_name = setup.data.get("map_name")
        doc: dict[str, Any] = {
            "ruleset": RULESET,
            "map": map_name if map_name is not None else setup.data["map"],
            "players": setup.players,
            "seed": seed,
            "draft": by_seat(closed[0]) if closed else {},
        }
        if len(closed) >= 2:
            doc["placements"] = by_seat(closed[1])
            doc["votes"] = [by_seat(r) for r in closed[2:]]
        if host_entered:
            doc["host_entered"] = [_host_entry(step, seat) for step, seat in host_entered]
        return doc

    def resolve(self, document: Any, details: bool = False, *, stored: bool = False) -> Any:
        return result_json(resolve(parse_match(document, stored=stored)), details=details)

    def replay(
        self,
        setup: Setup,
        settings: Mapping[str, Any],
        seed: str,
        closed: Sequence[Mapping[int, Any]],
        host_entered: Sequence[tuple[int, int]] = (),
    ) -> Any:
        if not closed:
            return {}  # nothing is dealt before the draft closes
        return super().replay(setup, settings, seed, closed, host_entered)

    def upcoming(self, state: GameState) -> list[Step]:
        segments = int(state.setup.data["map"]["segments"])
        seats = state.setup.seats
        return [self._step(number, seats) for number in range(state.closed + 1, segments + 3)]

    def _step(self, number: int, seats: tuple[int, ...]) -> Step:
        phase = "draft" if number == 1 else "mapping" if number == 2 else "rafting"
        title = {1: "Draft", 2: "Mapping"}.get(number, f"Rafting {number - 2}")
        return Step(number, phase, title, seats)

    def check_order(self, state: GameState, step: Step, seat: int, order: Any) -> Any:
        return _checked_order(
            step, seat, order, state.setup.data["map"], lambda: state.data["hands"]
        )

    def check_entered_order(
        self, host_view: Mapping[str, Any], step: Step, seat: int, order: Any
    ) -> Any:
        """R11: the host sees every closed round in full (the hands once the
        draft has closed) and the map, and the cards are public: every rule of an
        order is checked from the host's view."""
        return _checked_order(
            step, seat, order, host_view["map"], lambda: host_view["result"]["hands"]
        )

    def checks_entered_in_full(self, step: Step) -> bool:
        return True

    def closed_steps(self, document: Any) -> int:
        if not isinstance(document, Mapping) or "draft" not in document:
            return 0
        return 1 + ("placements" in document) + len(document.get("votes") or [])

    def openapi_components(self) -> dict[str, Any]:
        """Rocky River's schemas (view, map, result, match file, audit...), kept
        in openapi.json beside this module."""
        return schemas_beside(__file__)

    # ---- what people see ----------------------------------------------

    def view(
        self,
        state: GameState,
        viewer: Viewer,
        *,
        revealed: bool,
        open_step: Step | None,
    ) -> dict[str, Any]:
        out: dict[str, Any] = {
            "map_name": state.setup.data.get("map_name"),
            "map": state.setup.data["map"],
            "result": self._visible(state.data, viewer, state.settings, revealed),
        }
        if viewer.kind == "seat" and viewer.seat is not None and open_step is not None:
            out["options"] = self._options(state, open_step, viewer.seat)
        return out

    def _visible(
        self, result: Any, viewer: Viewer, settings: Mapping[str, Any], revealed: bool
    ) -> dict[str, Any]:
        if not result:
            return {}
        if viewer.kind == "host" or revealed:
            return dict(result)
        out = {key: result[key] for key in PUBLIC_KEYS if key in result}
        if settings.get("publish_totals") and "branch_totals" in result:
            out["branch_totals"] = result["branch_totals"]
        if viewer.kind == "seat" and viewer.seat is not None:
            mine = str(viewer.seat)
            out["hand"] = result["hands"][mine]
            if "draft_lists" in result:
                out["draft_list"] = result["draft_lists"][mine]
            if "placements" in result:
                out["placements"] = {mine: result["placements"][mine]}
        return out

    def _options(self, state: GameState, step: Step, seat: int) -> Any:
        """What the seat may choose from in ``step``: the cards to rank, each
        card's legal branches, or the two directions."""
        deck = load_deck()
        if step.phase == "draft":
            return list(deck.ids)
        if step.phase == "rafting":
            return ["L", "R"]
        river = stored_river(state.setup.data["map"])
        legal = legal_values(deck, river)
        hand = state.data.get("hands", {}).get(str(seat), [])
        return {card: [b for (c, b) in legal if c == card] for card in hand}

    def post(self, public_view: dict[str, Any], fmt: str, base_url: str | None = None) -> str:
        return forum_post(public_view, fmt, base_url)

    def pictures(self) -> dict[str, Callable[[dict[str, Any]], str | None]]:
        return {"map": view_map_svg, "results": view_results_svg}

    def picture_pending(self, name: str) -> str:
        if name == "results":
            return (
                "There is no results picture yet: it is drawn once the first rafting "
                "round has closed."
            )
        return super().picture_pending(name)

    # ---- tools ---------------------------------------------------------

    def summary(self, document: Any) -> str:
        return summary_text(resolve(parse_match(document)))

    def audit(self, document: Any, *, stored: bool = False) -> dict[str, Any]:
        return audit_document(document, stored=stored).as_dict()

    def audit_text(self, document: Any, *, stored: bool = False) -> str:
        report = audit_document(document, stored=stored)
        names = {int(p["seat"]): str(p["name"]) for p in document["players"]}  # checked
        return audit_text(report, names)

    def demo(self, players: int | None = None) -> Demo:
        if players not in (None, len(SEATS)):
            raise RuleError.single(
                "demo/bad_players", f"{self.title} is for {len(SEATS)} players, not {players}"
            )
        doc = json.loads(DEMO_FILE.read_text(encoding="utf-8"))
        return Demo(
            name=f"Demo: {self.title}",
            setup={"map": doc["map"]},
            players=doc["players"],
            settings={"deadline_hours": 48, "publish_totals": False, "close_early": False},
            steps=[
                {int(seat): order for seat, order in orders.items()}
                for orders in [doc["draft"], doc["placements"], *doc["votes"]]
            ],
        )


def _checked_order(
    step: Step, seat: int, order: Any, map_doc: Any, hands: Callable[[], Any]
) -> Any:
    """R5, R7, R8: an order of ``step`` checked against the stored map and, in
    the mapping step, the seat's hand (``hands``: every seat's, read only then)."""
    deck = load_deck()
    if step.phase == "draft":
        return check_draft(order, deck)
    river = stored_river(map_doc)
    if step.phase == "mapping":
        return check_placements(order, hands()[str(seat)], deck, river)
    return check_votes(order, river.forks_per_segment)


def _host_entry(step: int, seat: int) -> dict[str, Any]:
    """docs/contracts/rocky-river/FORMAT.md's host_entered entry of a step's order."""
    if step == 1:
        return {"phase": "draft", "seat": seat}
    if step == 2:
        return {"phase": "mapping", "seat": seat}
    return {"phase": "rafting", "seat": seat, "round": step - 2}
