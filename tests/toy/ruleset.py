"""High Card behind :class:`referee.ruleset.Ruleset`: the glue between the
referee and the rules in :mod:`toy.rules`. docs/adding-a-game.md walks
through this file method by method."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar

from referee.errors import Problem, RuleError
from referee.markup import Markup, picture_url, when
from referee.ruleset import Demo, GameState, Phase, Ruleset, Setting, Setup, Step, Viewer

from . import rules

# the shape of a card order; check_order says the rest (x-code: the refusal code
# the API gives a value without this shape, the same as check_order's)
CARD_SCHEMA: dict[str, Any] = {
    "description": "a card number (1..30)",
    "type": "integer",
    "x-code": "toy/not_a_card",
}


CHART_CHOICES = ("always", "after-play")
POST_SECTIONS = ("tricks", "scores")  # the game's own sections of a post, in their default order
POST_TITLES = {"tricks": "Tricks", "scores": "Scores"}


class Toy(Ruleset):
    name = rules.RULESET
    title = "High Card"
    min_players = rules.MIN_SEATS
    max_players = rules.MAX_SEATS
    phases = (
        Phase("play", "card", {**CARD_SCHEMA, "description": "the card of your hand you play"}),
        Phase("pick", "pick", {**CARD_SCHEMA, "description": "the played card you take"}),
    )
    settings: ClassVar[tuple[Setting, ...]] = (
        Setting(
            "double",
            "The highest card of each trick scores double",
            "flag",
            False,
            help="for whoever takes it",
        ),
        # the others change what is shown, not the rules (nor the match file);
        # each at its default shows what the toy always showed
        Setting(
            "chart",
            "When the scores chart is drawn",
            "choice",
            "always",
            choices=CHART_CHOICES,
            help="after-play: once the first trick's cards are played",
        ),
        Setting("hints", "Show an acting seat a hint beside its choices", "flag", False),
        Setting(
            "post_order", "The order of the post's sections", "order", POST_SECTIONS, POST_SECTIONS
        ),
        Setting("post_titles", "Titles of the post's sections", "names", {}, POST_SECTIONS),
    )
    setup_keys = ("hand_size", "deck")
    refusal_codes = rules.REFUSAL_CODES | rules.SHARED_CODES  # for the conformance suite

    # ---- set-up --------------------------------------------------------

    def check_setup(self, body: Mapping[str, Any], players: Any) -> Setup:
        problems: list[Problem] = []
        checked: list[dict[str, Any]] = []
        hand_size = rules.DEFAULT_HAND_SIZE
        try:
            checked = rules.check_players(players)
        except RuleError as exc:
            problems += exc.problems
        try:
            hand_size = rules.check_hand_size(body.get("hand_size"))
        except RuleError as exc:
            problems += exc.problems
        data: dict[str, Any] = {"hand_size": hand_size}
        try:  # the deck must hold the hands (known once the players and hand size are)
            deck = rules.check_deck(body.get("deck"), hand_size, 0 if problems else len(checked))
            if deck is not None:  # kept only when given: a whole deck's set-up is as it was
                data["deck"] = deck
        except RuleError as exc:
            problems += exc.problems
        if problems:
            raise RuleError(problems)
        return Setup(players=checked, data=data)

    # ---- play ----------------------------------------------------------

    def document(
        self,
        setup: Setup,
        settings: Mapping[str, Any],
        seed: str | None,
        closed: Sequence[Mapping[int, Any]],
        host_entered: Sequence[tuple[int, int]] = (),
    ) -> dict[str, Any]:
        doc: dict[str, Any] = {
            "ruleset": rules.RULESET,
            "players": [{k: p[k] for k in rules.PLAYER_KEYS} for p in setup.players],
            "hand_size": setup.data["hand_size"],
            # the settings the rules read; the others change what is shown, not the result
            "settings": {"double": settings.get("double", False)},
            "seed": seed,
            "orders": [
                {str(seat): order for seat, order in sorted(step.items()) if order is not None}
                for step in closed
            ],
        }
        if "deck" in setup.data:
            doc["deck"] = setup.data["deck"]
        if host_entered:
            doc["host_entered"] = [{"step": n, "seat": s} for n, s in host_entered]
        return doc

    def resolve(self, document: Any, details: bool = False, *, stored: bool = False) -> Any:
        state = rules.play_file(document, stored=stored)
        return state if details else rules.public_result(state)

    def replay(
        self,
        setup: Setup,
        settings: Mapping[str, Any],
        seed: str,
        closed: Sequence[Mapping[int, Any]],
        host_entered: Sequence[tuple[int, int]] = (),
    ) -> Any:
        if not closed:  # the start: the cards dealt, nothing played
            return rules.start(setup.seats, setup.data["hand_size"], seed, setup.data.get("deck"))
        return super().replay(setup, settings, seed, closed, host_entered)

    def upcoming(self, state: GameState) -> list[Step]:
        # titles hold no user text (no names): they are shown in many places
        out = []
        for i, (phase, trick, acting) in enumerate(rules.coming(state.data)):
            title = f"Trick {trick}: play" if phase == "play" else f"Trick {trick}: pick"
            if phase == "pick":
                title += f" (seat {acting[0]})"
            out.append(Step(state.closed + 1 + i, phase, title, acting))
        return out

    def check_order(self, state: GameState, step: Step, seat: int, order: Any) -> Any:
        return rules.check_card(state.data, step.phase, seat, order)

    # ---- what people see ----------------------------------------------

    def view(
        self,
        state: GameState,
        viewer: Viewer,
        *,
        revealed: bool,
        open_step: Step | None,
    ) -> dict[str, Any]:
        data = state.data
        # the host sees every closed step's state in full, hands included, but
        # not the deal before any step has closed (no private data before its time)
        if revealed or (viewer.kind == "host" and state.closed > 0):
            result = dict(data)
        else:
            result = rules.public_result(data)
            if viewer.kind == "seat":
                result["hand"] = data["hands"][str(viewer.seat)]
        out: dict[str, Any] = {"result": result}
        seat = viewer.seat
        if viewer.kind == "seat" and open_step is not None and seat in open_step.acting:
            play = open_step.phase == "play"
            options = list(data["hands"][str(seat)] if play else data["tricks"][-1]["table"])
            out["options"] = options
            if state.settings.get("hints"):
                out["cards_left"] = len(data["hands"][str(seat)])
                out["hint"] = {
                    "lowest": min(options),
                    "highest": max(options),
                    # markup on purpose: a view's text is text wherever it is shown
                    "note": f"{'play' if play else 'take'} <em>one</em> card",
                }
        return out

    def post(self, public_view: dict[str, Any], fmt: str, base_url: str | None = None) -> str:
        """Built from :class:`referee.markup.Markup`'s blocks (every game's posts
        are): user text through ``esc``, lists one row per line, times from
        :func:`referee.markup.when`, pictures at :func:`referee.markup.picture_url`."""
        if fmt not in ("markdown", "bbcode"):
            raise RuleError.single("post/bad_format", f"no post format {fmt!r}")
        m = Markup(fmt)
        names = {int(p["seat"]): m.esc(p["name"]) for p in public_view["players"]}
        result = public_view["result"]
        out = [m.title(public_view.get("name", ""), self.title)]
        if base_url and scores_svg(public_view) is not None:  # only a picture the server draws
            out.append(m.image("Scores", picture_url(public_view, base_url, "scores")))
        out.append(m.section("Players", [f"{names[s]} (seat {s})" for s in sorted(names)]))
        rows = []
        for r in public_view.get("rounds") or []:
            line = f"{r['title']}: {r['status']}"
            if r["status"] == "open":
                deadline = when(r.get("deadline"))
                line += f", deadline {deadline}" if deadline else ", no deadline"
                line += f", orders from {len(r.get('submitted') or [])} seat(s)"
            rows.append(line)
        out.append(m.section("Rounds", rows))
        tricks = []
        for trick in result["tricks"]:
            played = ", ".join(f"{names[int(s)]} {c}" for s, c in trick["played"].items())
            took = ", ".join(f"{names[p['seat']]} took {p['card']}" for p in trick["picks"])
            tricks.append(f"Trick {trick['number']}: {played}. {took}.")
        scores = [f"{names[int(s)]}: {v}" for s, v in result["scores"].items()]
        sections = {"tricks": tricks, "scores": scores}
        settings = public_view.get("settings") or {}
        titles = settings.get("post_titles") or {}  # the host's words: escaped
        for key in settings.get("post_order") or POST_SECTIONS:
            title = m.esc(titles[key]) if titles.get(key) else POST_TITLES[key]
            out.append(m.section(title, sections[key]))
        if result["finished"]:
            out.append(m.field("Won by", " and ".join(names[s] for s in result["winners"])))
        return m.document(out)

    def pictures(self) -> dict[str, Callable[[dict[str, Any]], str | None]]:
        return {"scores": scores_svg}

    # ---- tools ---------------------------------------------------------

    def summary(self, document: Any) -> str:
        state = rules.play_file(document)
        names = {p["seat"]: p["name"] for p in document["players"]}
        out = [f"High Card, {len(names)} players, {state['steps']} steps"]
        for trick in state["tricks"]:
            played = ", ".join(f"{names[int(s)]} {c}" for s, c in trick["played"].items())
            took = ", ".join(f"{names[p['seat']]} {p['card']}" for p in trick["picks"])
            out.append(f"Trick {trick['number']}: played {played}; taken: {took}")
        out.append(
            "Scores: " + ", ".join(f"{names[int(s)]} {v}" for s, v in state["scores"].items())
        )
        if state["finished"]:
            out.append("Winner(s): " + ", ".join(names[s] for s in state["winners"]))
        return "\n".join(out) + "\n"

    def demo(self, players: int | None = None) -> Demo:
        """A demo of ``players`` seats (3 unless given), with a known seed so
        that its orders (every order depends on the deal) are legal: each seat
        plays its highest card and picks the highest on the table."""
        count = 3 if players is None else players
        if not rules.MIN_SEATS <= count <= rules.MAX_SEATS:
            raise RuleError.single(
                "demo/bad_players", f"{self.title} is for 2 to 6 players, not {players}"
            )
        names = ["Ana", "Bo", "Cy", "Di", "Ed", "Flo"]
        seed = "toy-demo"
        state = rules.start(range(1, count + 1), rules.DEFAULT_HAND_SIZE, seed)
        steps: list[dict[int, Any]] = []
        while (nxt := rules.next_acting(state)) is not None:
            phase, acting = nxt
            if phase == "play":
                orders = {s: max(state["hands"][str(s)]) for s in acting}
            else:
                orders = {s: max(state["tricks"][-1]["table"]) for s in acting}
            rules.apply_step(state, orders, seed, False)
            steps.append(orders)
        return Demo(
            name=f"Demo: {self.title}",
            setup={"hand_size": rules.DEFAULT_HAND_SIZE},
            players=[{"seat": i + 1, "name": names[i], "garnets": 0} for i in range(count)],
            settings={"deadline_hours": 48, "close_early": False, "double": False},
            steps=steps,
            seed=seed,
        )

    def openapi_components(self) -> dict[str, Any]:
        """Its own schemas, referring to one another (the document prefixes
        them: ``ToyHandSize``...) and to the shared ``Seat``."""
        own = "#/components/schemas/"
        card = {"type": "integer", "minimum": 1, "maximum": 30}
        cards = {"type": "array", "items": card}
        by_seat = {"type": "object", "additionalProperties": {"type": "integer"}}
        result = {
            "type": "object",
            "description": "what the viewer may see of the state (a seat: its own hand too)",
            "properties": {
                "steps": {"type": "integer"},
                "hand_size": {"$ref": own + "HandSize"},
                "scores": by_seat,
                "tricks": {"type": "array", "items": {"type": "object"}},
                "finished": {"type": "boolean"},
                "winners": {"type": "array", "items": {"$ref": own + "Seat"}},
                "hand": cards,
                "hands": {"type": "object", "additionalProperties": cards},
            },
            "required": ["steps", "scores", "tricks", "finished", "winners"],
        }
        return {
            "HandSize": {"description": "the cards dealt to each seat", **card, "maximum": 5},
            "Deck": {
                "description": "the highest card of the deck (30 when left out)",
                **card,
                "minimum": 2,
            },
            "Setup": {
                "type": "object",
                "properties": {
                    "hand_size": {"$ref": own + "HandSize"},
                    "deck": {"$ref": own + "Deck"},
                },
            },
            "Result": result,
            "Hint": {
                "type": "object",
                "description": "with the hints setting: the acting seat's choices at a glance",
                "required": ["lowest", "highest", "note"],
                "additionalProperties": False,
                "properties": {"lowest": card, "highest": card, "note": {"type": "string"}},
            },
            "View": {
                "type": "object",
                "properties": {
                    "result": {"$ref": own + "Result"},
                    "options": cards,
                    "cards_left": {"type": "integer", "minimum": 0},
                    "hint": {"$ref": own + "Hint"},
                },
                "required": ["result"],
                "additionalProperties": False,
            },
        }


# ---- the picture ----------------------------------------------------------------


def scores_svg(view: dict[str, Any]) -> str | None:
    """A bar per seat (its score), from any view (all at 0 before the first
    trick), but with the ``chart`` setting "after-play" none before the first
    trick's cards are played."""
    result = view.get("result") or {}
    if (view.get("settings") or {}).get("chart") == "after-play" and not result.get("tricks"):
        return None  # not drawn before the first trick's cards are played
    scores = result.get("scores") or {}
    best = max([*scores.values(), 1])
    bars = []
    for i, (seat, score) in enumerate(sorted(scores.items(), key=lambda kv: int(kv[0]))):
        width = round(200 * score / best)
        y = 10 + 30 * i
        bars.append(
            f'<text x="10" y="{y + 15}">Seat {int(seat)}</text>'
            f'<rect x="70" y="{y}" width="{width}" height="20" fill="#36c"/>'
            f'<text x="{75 + width}" y="{y + 15}">{int(score)}</text>'
        )
    height = 20 + 30 * len(scores)
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="320" height="{height}" '
        f'viewBox="0 0 320 {height}" font-family="sans-serif" font-size="14">'
        f"<title>Scores</title>{''.join(bars)}</svg>"
    )
