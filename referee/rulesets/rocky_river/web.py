"""Rocky River's part of the web pages (:class:`referee.web.game.GameWeb`):
the map and the cards for display, the slot totals a viewer may know, the
order form of each phase (draft ranking, placements, votes), the create form's
map fields with "check the map only" and its balance report, and the names of
its templates (``templates/rulesets/rocky_river/``) and static files
(``static/rulesets/rocky_river/``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache
from typing import Any, ClassVar

from referee.errors import Problem, RuleError
from referee.jsonio import loads_strict
from referee.text import check_text
from referee.web.game import GameWeb, OrderForm, SetupRead
from referee.words import signed

from .data import DEFAULT_MAP, bundled_map_names, load_deck
from .forms import (
    DraftForm,
    apply_ranks,
    map_fields,
    mapping_form,
    place_field,
    rafting_form,
    vote_field,
)
from .orders import split_list
from .river_map import stored_river

__all__ = ["Web", "card_info", "card_value", "known_totals", "map_info"]

TEMPLATES = "rulesets/rocky_river"
STATIC = "rulesets/rocky_river"
SIDE_NAMES = {"L": "left", "R": "right"}


# ---- the cards and the map for display ------------------------------------------


@cache
def card_info() -> dict[str, dict[str, Any]]:
    """Each card by id: its faces, and a text such as "red 5, green 5"."""
    out: dict[str, dict[str, Any]] = {}
    for card in load_deck().cards:
        faces = [{"color": f.color, "value": f.value} for f in card.faces]
        out[card.id] = {
            "id": card.id,
            "faces": faces,
            "text": ", ".join(f"{f.color} {signed(f.value)}" for f in card.faces),
        }
    return out


def card_value(card: str, color: str) -> int | None:
    """The value ``card`` adds to a slot of ``color`` (None: it has no such face)."""
    return load_deck().by_id[card].value_for(color)


def map_info(map_doc: dict[str, Any], names: dict[int, str]) -> dict[str, Any]:
    """The map for display: forks in river order, each branch with its fork, side,
    inner/outer position, slot colour, portrayed seat (and name) and segment."""
    river = stored_river(map_doc)  # a stored match's map, admitted at creation
    branches: dict[str, dict[str, Any]] = {}
    forks: list[dict[str, Any]] = []
    order = {fid: i for i, fid in enumerate(river.forks)}
    for fork in sorted(river.forks.values(), key=lambda f: (river.depth[f.id], order[f.id])):
        rows = []
        for side in ("L", "R"):
            for b in fork.side(side):
                info = {
                    "id": b.id,
                    "color": b.color,
                    "seat": b.seat,
                    "seat_name": names.get(b.seat, f"seat {b.seat}"),
                    "fork": fork.id,
                    "side": SIDE_NAMES[side],
                    "position": "outer" if b.outer else "inner",
                    "to": b.to,
                    "segment": river.segment_of(fork.id),
                }
                branches[b.id] = info
                rows.append(info)
        forks.append(
            {
                "id": fork.id,
                "number": river.depth[fork.id],
                "segment": river.segment_of(fork.id),
                "branches": rows,
            }
        )
    return {
        "name": river.name,
        "segments": river.segments,
        "forks_per_segment": river.forks_per_segment,
        "start": river.start,
        "forks": forks,
        "branches": branches,
    }


def known_totals(result: dict[str, Any]) -> tuple[dict[str, int], set[str]]:
    """The branch totals a result shows (the path's points, then any published
    or revealed totals), and the branches the raft passed."""
    known: dict[str, int] = {}
    for step in result.get("path", []):
        known[step["branch"]] = step["points"]
    passed = set(known)
    known.update(result.get("branch_totals", {}))
    return known, passed


# ---- order forms -----------------------------------------------------------------


@dataclass
class RiverOrderForm(OrderForm):
    """An order form of one of Rocky River's phases."""

    ranking: list[str] = field(default_factory=list)  # draft: the list, in order
    hand: list[str] = field(default_factory=list)  # mapping: the cards to place
    forks: list[dict[str, Any]] = field(default_factory=list)  # rafting: one per fork

    def read(self) -> Any:
        if self.phase == "draft":
            text = (self.form.ranking_text.data or "").strip()
            if text:
                return split_list(text)
            cards = apply_ranks(list(self.form.ranking.data or []), list(self.form.rank.data or []))
            # a refused list is shown again as read, rank boxes renumbered
            self.form.ranking.data = cards
            self.ranking = cards + [c for c in card_info() if c not in cards]
            return cards
        if self.phase == "mapping":
            out: dict[str, str] = {}
            for card in self.hand:
                value = self.form[place_field(card)].data
                if value:
                    out[card] = value
            return out
        return [self.form[vote_field(k)].data or "" for k in range(len(self.forks))]

    def refuse(self, problems: list[Problem]) -> None:
        self.problems = list(problems)
        from_text = self.phase == "draft" and bool((self.form.ranking_text.data or "").strip())
        for p in problems:
            key = ""
            if from_text and p.code.startswith("draft/"):
                # typed text: every draft problem (missing cards too) concerns the text box
                key = "ranking_text"
            elif p.field is not None and p.code.startswith("draft/"):
                key = f"ranking-{p.field}"
            elif p.field is not None and p.code.startswith("mapping/"):
                key = place_field(p.field) if p.field in self.hand else ""
            elif p.field is not None and p.code.startswith("rafting/"):
                key = vote_field(int(p.field)) if p.field.isdigit() else ""
            self.errors.setdefault(key, []).append(p.message)
            if p.code == "mapping/missing_card":
                for card in self.hand:
                    if not self.form[place_field(card)].data:
                        self.errors.setdefault(place_field(card), []).append(
                            f"choose a branch for card {card}"
                        )


def _hand_of(view: dict[str, Any], seat: int) -> list[str]:
    result = view.get("result") or {}
    if "hand" in result:
        return list(result["hand"])
    return list(result.get("hands", {}).get(str(seat), []))


def _raft_at(view: dict[str, Any], river: dict[str, Any]) -> str | None:
    """The fork the raft is at now (the start before any rafting round)."""
    path = (view.get("result") or {}).get("path") or []
    if not path:
        return str(river["start"])
    to = river["branches"][path[-1]["branch"]]["to"]
    return str(to) if to is not None else None


def _own_placements(view: dict[str, Any], seat: int) -> dict[str, list[tuple[str, int]]]:
    """The seat's own cards by branch, with the value each adds there (from the
    seat's view: its own placements only)."""
    result = view.get("result") or {}
    mine = (result.get("placements") or {}).get(str(seat)) or {}
    river = stored_river(view["map"])
    out: dict[str, list[tuple[str, int]]] = {}
    for card, branch in sorted(mine.items()):
        b = river.branches.get(str(branch))
        if b is None or card not in card_info():
            continue
        value = card_value(card, b.color)
        if value is not None:
            out.setdefault(b.id, []).append((card, value))
    return out


def _in_river_order(river: dict[str, Any], ids: set[str]) -> list[str]:
    return [f["id"] for f in river["forks"] if f["id"] in ids]


def _fork_choices(
    river: dict[str, Any],
    fork_id: str,
    known: dict[str, int],
    own: dict[str, list[tuple[str, int]]],
) -> dict[str, Any]:
    """What each direction at ``fork_id`` leads to (R8: a 2-1 majority takes the
    inner branch, a unanimous choice the outer one when the side has two), with
    only what the viewer knows: the slot total when known, else the viewer's own
    cards on it."""
    fork = next(f for f in river["forks"] if f["id"] == fork_id)
    sides = []
    for side, word in (("left", "Left"), ("right", "Right")):
        branches = [b for b in fork["branches"] if b["side"] == side]
        ways = []
        for b in branches:
            if len(branches) == 1:
                when = "if 2 or 3 players choose it"
            elif b["position"] == "inner":
                when = "if 2 of the 3 players choose it"
            else:
                when = "if all 3 players choose it"
            mine = own.get(b["id"], [])
            ways.append(
                {
                    **b,
                    "when": when,
                    "total": known.get(b["id"]),
                    "own": mine,
                    "own_sum": sum(v for _, v in mine),
                }
            )
        sides.append({"side": side, "word": word, "branches": ways})
    return {"fork": fork_id, "number": fork["number"], "sides": sides}


# ---- the game's web parts --------------------------------------------------------


class Web(GameWeb):
    """Rocky River Riding's pages."""

    results_template = f"{TEMPLATES}/results.html"
    sections_template = f"{TEMPLATES}/sections.html"
    order_template = f"{TEMPLATES}/order_form.html"
    setup_template = f"{TEMPLATES}/setup_fields.html"
    report_template = f"{TEMPLATES}/balance.html"
    about_template = f"{TEMPLATES}/about.html"
    rules_template = f"{TEMPLATES}/rules.html"
    audit_template = f"{TEMPLATES}/audit.html"
    # SortableJS 1.15.7 (static/vendor/sortablejs/README.md) before the ranking that uses it
    scripts = ("vendor/sortablejs/Sortable.min.js", f"{STATIC}/ranking.js", f"{STATIC}/map.js")
    stylesheets = (f"{STATIC}/style.css",)

    players_hint = "Garnets are a whole number, 0 or more; they decide draft conflicts and ties."
    service_labels: ClassVar[dict[str, str]] = {
        "close_early": "Close a round as soon as all three players have sent an order"
    }
    close_early_text = "rounds close early once all three have sent an order"
    reveal_what = "draft lists, hands, placements"
    audit_note = "Every number is proved optimal by the OR-Tools CP-SAT solver."
    check_ok = "The map is valid."

    # ---- match pages -------------------------------------------------

    def page_context(self, view: dict[str, Any], context: dict[str, Any]) -> dict[str, Any]:
        """The map, the cards and the totals of branches the viewer may know."""
        river = map_info(view["map"], context["names"])
        known, passed = known_totals(context["result"])
        return {
            "river": river,
            "cards": card_info(),
            "known_totals": known,
            "passed": passed,
            "segments": list(range(1, river["segments"] + 1)),
            # where the map opens on a phone: the raft's fork (public: read from the path)
            "raft_at": _raft_at(view, river),
        }

    def order_words(self, order: Any, context: Any) -> str | None:
        """A rafting order as the form words it, "left, right" (not ``L, R``);
        cards and branches are named by the ids the pages show them by."""
        river = context.get("river") or {}
        votes = isinstance(order, list) and len(order) == river.get("forks_per_segment")
        # a draft list names cards L and R too, but all 27 of them: never this short
        if votes and all(isinstance(v, str) and v in SIDE_NAMES for v in order):
            return ", ".join(SIDE_NAMES[v] for v in order)
        return None

    def game_settings_summary(self, settings: Any) -> list[str]:
        published = settings.get("publish_totals")
        return [
            "slot totals " + ("published after mapping" if published else "secret until passed")
        ]

    def audit_offered(self, view: dict[str, Any]) -> bool:
        return int(view.get("closed_rounds") or 0) >= 2  # the audit needs mapping closed

    # ---- orders ------------------------------------------------------

    def order_form(
        self,
        view: dict[str, Any],
        context: dict[str, Any],
        seat: int,
        current: Any = None,
        formdata: Any = None,
    ) -> OrderForm | None:
        rnd = context["open_round"]
        phase = rnd["phase"]
        river = context["river"]
        base = {"template": self.order_template, "round": rnd, "seat": seat}
        out: RiverOrderForm
        if phase == "draft":
            form = DraftForm(formdata=formdata)
            if formdata is None:
                form.ranking.data = list(current) if current else list(card_info())
            sent = [str(c) for c in form.ranking.data or []]
            ranking = sent + [c for c in card_info() if c not in sent]
            out = RiverOrderForm(**base, form=form, ranking=ranking)
        elif phase == "mapping":
            hand = _hand_of(view, seat)
            rows = []
            for card in hand:
                choices = []
                for b in river["branches"].values():
                    value = card_value(card, b["color"])
                    if value is None:
                        continue
                    choices.append(
                        (
                            b["id"],
                            # the value first: a narrow select shows the start
                            f"{b['id']}: adds {value:+d} to the {b['color']} slot; "
                            f"{b['side']} {b['position']} branch, portrays {b['seat_name']}",
                            f"fork {b['fork']} (segment {b['segment']})",
                        )
                    )
                rows.append((card, f"Card {card} ({card_info()[card]['text']})", choices))
            form = mapping_form(rows)(formdata=formdata)
            if formdata is None and isinstance(current, dict):
                for card, branch in current.items():
                    if card in hand:
                        form[place_field(card)].data = branch
            out = RiverOrderForm(**base, form=form, hand=hand)
        else:
            count = int(river["forks_per_segment"])
            segment = rnd["number"] - 2
            form = rafting_form(count)(formdata=formdata)
            if formdata is None and isinstance(current, list):
                for k, direction in enumerate(current[:count]):
                    form[vote_field(k)].data = direction
            at = _raft_at(view, river)
            own = _own_placements(view, seat)
            known = context.get("known_totals") or {}
            forks = []
            here = {at} if at is not None else set()
            for k in range(count):
                where = f"fork {k + 1} of segment {segment}"
                if k == 0 and at is not None:
                    where += f" (the raft is now at fork {at})"
                leads = [
                    _fork_choices(river, fid, known, own) for fid in _in_river_order(river, here)
                ]
                forks.append({"index": k, "field": vote_field(k), "label": where, "choices": leads})
                here = {
                    str(b["to"])
                    for fid in here
                    for b in river["branches"].values()
                    if b["fork"] == fid and b["to"] is not None
                }
            out = RiverOrderForm(**base, form=form, forks=forks)
        if formdata is None:
            out.form.round.data = str(rnd["number"])
        return out

    # ---- creating a match ---------------------------------------------

    @property
    def check_action(self) -> str | None:
        return "check_map"

    def setup_fields(self) -> dict[str, Any]:
        names = bundled_map_names()
        default = DEFAULT_MAP if DEFAULT_MAP in names else (names or [""])[0]
        return map_fields(names, default)

    def read_setup(self, form: Any) -> SetupRead:
        """The map the host chose. An uploaded file comes first, then pasted
        JSON, else the bundled map. An uploaded file's text is put in the paste
        box, so a refused map can be edited; the balance report is shown after
        creating a match on a map that is not a bundled one."""
        upload: Any = form.map_file.data
        text: str | None = None
        if upload is not None and upload.filename:
            try:
                text = upload.read().decode("utf-8-sig")
            except UnicodeDecodeError:
                problem = Problem("json/invalid", "the map file is not UTF-8 text", "map")
                return SetupRead({}, [problem], frozenset({"map"}))
            form.map_json.data = text
        elif (form.map_json.data or "").strip():
            text = form.map_json.data
        if text is None:
            return SetupRead({"map": form.bundled_map.data or DEFAULT_MAP})
        try:
            doc = loads_strict(text, "the map")
            check_text(doc, "the map", "map/bad_text")
        except RuleError as exc:
            return SetupRead({}, list(exc.problems), frozenset({"map"}))
        return SetupRead({"map": doc}, report=True)

    def setup_report(self, body: Any) -> tuple[Any, list[Problem]]:
        if not body.get("map"):
            return None, []  # the map could not be read: the form says why
        return super().setup_report(body)

    def setup_field(self, problem: Problem) -> str | None:
        if problem.code.startswith(("map/", "json/")) or problem.code == "match/bad_map":
            return "map"
        return None

    def superseded(self, problem: Problem, read: SetupRead) -> bool:
        # the map could not be read: say why, not "no map"
        return bool(read.problems) and problem.code == "match/bad_map"
