"""Guess the Number: a tiny test-only game with no web module (``web_module``
is None), so the browser pages it gets are the generic ones of
:mod:`referee.web.game`. Two simultaneous steps; in each, every seat guesses a
whole number from 1 to the set-up's ``top``; the guesses closest to a target
drawn from the seed score a point (two in the last step with ``double``).
It has one picture (``board``), drawn once a step has closed."""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

from referee.errors import Problem, RuleError
from referee.ruleset import (
    GameState,
    Phase,
    Ruleset,
    Setting,
    Setup,
    Step,
    Viewer,
    register,
    unregister,
)

NAME = "guess-test"
STEPS = 2


class Guess(Ruleset):
    name = NAME
    title = "Guess the Number"
    min_players = 2
    max_players = 4
    phases = (
        Phase(
            "guess",
            "number",
            {"description": "a whole number", "type": "integer", "x-code": "guess/not_a_number"},
        ),
    )
    settings = (
        Setting("double", "The last step scores double", "flag", False),
        Setting("style", "Who scores", "choice", "closest", choices=("closest", "exact")),
    )
    setup_keys = ("top",)
    web_module = None

    def check_setup(self, body: Mapping[str, Any], players: Any) -> Setup:
        problems: list[Problem] = []
        top = body.get("top")
        if not isinstance(top, int) or isinstance(top, bool) or not 2 <= top <= 100:
            problems.append(
                Problem(
                    "guess/bad_top", f"top must be a whole number from 2 to 100, not {top!r}", "top"
                )
            )
        checked: list[dict[str, Any]] = []
        if not isinstance(players, list) or not 2 <= len(players) <= 4:
            problems.append(Problem("match/bad_players", "Guess the Number is for 2 to 4 players"))
        else:
            for i, p in enumerate(players):
                name = p.get("name") if isinstance(p, dict) else None
                garnets = p.get("garnets") if isinstance(p, dict) else None
                if not isinstance(name, str) or not name.strip():
                    problems.append(
                        Problem("match/bad_name", f"players[{i}] needs a name", f"players[{i}]")
                    )
                if not isinstance(garnets, int) or isinstance(garnets, bool) or garnets < 0:
                    problems.append(
                        Problem(
                            "match/bad_garnets",
                            f"players[{i}] has garnets {garnets!r}, not a whole number",
                            f"players[{i}]",
                        )
                    )
                checked.append({"seat": i + 1, "name": name, "garnets": garnets})
        if problems:
            raise RuleError(problems)
        return Setup(players=checked, data={"top": top})

    def document(
        self,
        setup: Setup,
        settings: Mapping[str, Any],
        seed: str | None,
        closed: Sequence[Mapping[int, Any]],
        host_entered: Sequence[tuple[int, int]] = (),
    ) -> Any:
        return {
            "ruleset": NAME,
            "players": setup.players,
            "top": setup.data["top"],
            "settings": {k: settings.get(k) for k in ("double", "style")},
            "seed": seed,
            "orders": [{str(s): o for s, o in step.items()} for step in closed],
        }

    def resolve(self, document: Any, details: bool = False, *, stored: bool = False) -> Any:
        seed = document.get("seed")
        if not isinstance(seed, str):
            raise RuleError.single("guess/no_seed", "the match file has no seed")
        top = int(document["top"])
        seats = [str(p["seat"]) for p in document["players"]]
        target = random.Random(f"{seed}:target").randint(1, top)
        scores = dict.fromkeys(seats, 0)
        steps = []
        settings = document.get("settings") or {}
        for i, orders in enumerate(document["orders"]):
            guesses = {}
            for s in seats:
                guess = orders.get(s)
                guesses[s] = (
                    guess if guess is not None else random.Random(f"{seed}:{i}:{s}").randint(1, top)
                )
            best = min(abs(g - target) for g in guesses.values())
            points = 2 if settings.get("double") and i == STEPS - 1 else 1
            for s, g in guesses.items():
                if abs(g - target) == best and (settings.get("style") != "exact" or g == target):
                    scores[s] += points
            steps.append({"guesses": guesses, "defaulted": [s for s in seats if s not in orders]})
        out: dict[str, Any] = {"scores": scores, "steps": steps}
        if len(steps) == STEPS:
            out["target"] = target
        return out

    def replay(
        self,
        setup: Setup,
        settings: Mapping[str, Any],
        seed: str,
        closed: Sequence[Mapping[int, Any]],
        host_entered: Sequence[tuple[int, int]] = (),
    ) -> Any:
        if not closed:
            return {}
        return super().replay(setup, settings, seed, closed, host_entered)

    def upcoming(self, state: GameState) -> list[Step]:
        seats = state.setup.seats
        return [Step(n, "guess", f"Guess {n}", seats) for n in range(state.closed + 1, STEPS + 1)]

    def check_order(self, state: GameState, step: Step, seat: int, order: Any) -> Any:
        top = int(state.setup.data["top"])
        if not isinstance(order, int) or isinstance(order, bool) or not 1 <= order <= top:
            raise RuleError.single(
                "guess/out_of_range", f"a guess is a whole number from 1 to {top}, not {order!r}"
            )
        return order

    def view(
        self, state: GameState, viewer: Viewer, *, revealed: bool, open_step: Step | None
    ) -> dict[str, Any]:
        out: dict[str, Any] = {"top": state.setup.data["top"], "result": state.data or {}}
        if viewer.kind == "seat" and open_step is not None:
            out["options"] = list(range(1, int(state.setup.data["top"]) + 1))
            # a key beside the options that a player needs to write an order
            # (markup in it, to be shown as text)
            out["can_take"] = {"low": 1, "high": state.setup.data["top"], "note": "<i>any</i> one"}
        return out

    def post(self, public_view: dict[str, Any], fmt: str, base_url: str | None = None) -> str:
        return f"{public_view['name']}: {json.dumps(public_view['result'], sort_keys=True)}\n"

    def pictures(self) -> dict[str, Callable[[dict[str, Any]], str | None]]:
        return {"board": board_svg}

    def summary(self, document: Any) -> str:
        return json.dumps(self.resolve(document), sort_keys=True) + "\n"

    def closed_steps(self, document: Any) -> int:
        return len(document.get("orders") or [])


def board_svg(view: dict[str, Any]) -> str | None:
    closed = int(view["closed_rounds"])
    if not closed:
        return None
    return (
        '<svg xmlns="http://www.w3.org/2000/svg" class="guess-board" width="60" height="20">'
        f'<text x="2" y="15">{closed} closed</text></svg>'
    )


@contextmanager
def registered() -> Iterator[None]:
    """Guess the Number is known while the block runs."""
    register(NAME, Guess)
    try:
        yield
    finally:
        unregister(NAME)
