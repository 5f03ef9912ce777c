"""Rocky River Riding behind the game-agnostic :class:`referee.ruleset.Ruleset`."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from functools import lru_cache
from typing import Any

from referee.errors import Problem, RuleError
from referee.ruleset import Setup, Viewer

from .audit import audit_document, map_fairness
from .balance import balance_json
from .data import load_bundled_map, load_deck
from .match import RULESET, parse_match, parse_players, resolve, result_json
from .orders import check_draft, check_placements, check_votes
from .post import forum_post
from .river_map import SEATS, RiverMap, parse_map
from .summary import summary_text
from .view_pictures import view_map_svg, view_results_svg

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


@lru_cache(maxsize=64)
def _river_of_json(text: str) -> RiverMap:
    return parse_map(json.loads(text), limits=False)  # admitted when it was stored


_BY_IDENTITY: dict[int, tuple[Mapping[str, Any], RiverMap]] = {}


def river_of(map_doc: Mapping[str, Any]) -> RiverMap:
    """The indexed map of a stored match's map object, parsed once per distinct map
    (and found without even re-reading it when the caller passes the same object
    again, as the service's per-match cache does)."""
    hit = _BY_IDENTITY.get(id(map_doc))
    if hit is not None and hit[0] is map_doc:
        return hit[1]
    river = _river_of_json(json.dumps(map_doc, sort_keys=True))
    if len(_BY_IDENTITY) > 1000:
        _BY_IDENTITY.clear()
    _BY_IDENTITY[id(map_doc)] = (map_doc, river)  # holding map_doc keeps its id unique
    return river


class RockyRiver:
    name = RULESET
    title = "Rocky River Riding"
    seats = SEATS

    def check_setup(self, map_ref: Any, players: Any) -> Setup:
        problems: list[Problem] = []
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
            map_doc=map_doc,
            map_name=map_name,
            players=[{"seat": p.seat, "name": p.name, "garnets": p.garnets} for p in checked],
        )

    def round_phases(self, setup: Setup) -> list[str]:
        return ["draft", "mapping", *["rafting"] * int(setup.map_doc["segments"])]

    def round_title(self, setup: Setup, number: int) -> str:
        if number == 1:
            return "Draft"
        if number == 2:
            return "Mapping"
        return f"Rafting {number - 2}"

    def document(
        self,
        setup: Setup,
        seed: str,
        closed: Sequence[Mapping[int, Any]],
        host_entered: Sequence[Mapping[str, Any]] = (),
    ) -> dict[str, Any]:
        def by_seat(orders: Mapping[int, Any]) -> dict[str, Any]:
            return {str(seat): orders.get(seat) for seat in SEATS}

        doc: dict[str, Any] = {
            "ruleset": RULESET,
            "map": setup.map_name if setup.map_name is not None else setup.map_doc,
            "players": setup.players,
            "seed": seed,
            "draft": by_seat(closed[0]) if closed else {},
        }
        if len(closed) >= 2:
            doc["placements"] = by_seat(closed[1])
            doc["votes"] = [by_seat(r) for r in closed[2:]]
        if host_entered:
            doc["host_entered"] = list(host_entered)
        return doc

    def order_key(self, phase: str) -> str:
        return ORDER_KEYS[phase]

    def check_order(
        self,
        map_doc: Any,
        round_number: int,
        seat: int,
        order: Any,
        previous: Callable[[], Any],
    ) -> Any:
        deck = load_deck()
        river = river_of(map_doc)
        if not 1 <= round_number <= 2 + river.segments:
            raise RuleError.single("round/unknown", f"this match has no round {round_number}")
        if round_number == 1:
            return check_draft(order, deck)
        if round_number == 2:
            return check_placements(order, previous()["hands"][str(seat)], deck, river)
        return check_votes(order, river.forks_per_segment)

    def resolve(self, document: Any, details: bool = False, *, stored: bool = False) -> Any:
        return result_json(resolve(parse_match(document, stored=stored)), details=details)

    def visible(
        self,
        result: Any,
        viewer: Viewer,
        *,
        settings: Mapping[str, Any],
        revealed: bool,
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

    def post(self, public_view: dict[str, Any], fmt: str, base_url: str | None = None) -> str:
        return forum_post(public_view, fmt, base_url)

    def map_svg(self, view: dict[str, Any]) -> str:
        return view_map_svg(view)

    def results_svg(self, view: dict[str, Any]) -> str | None:
        return view_results_svg(view)

    def summary(self, document: Any) -> str:
        return summary_text(resolve(parse_match(document)))

    def audit(self, document: Any, *, stored: bool = False) -> dict[str, Any]:
        return audit_document(document, stored=stored).as_dict()

    def map_report(self, map_ref: Any) -> dict[str, Any]:
        river = load_bundled_map(map_ref) if isinstance(map_ref, str) else parse_map(map_ref)
        return {**balance_json(river), "fairness": map_fairness(river, load_deck()).as_dict()}
