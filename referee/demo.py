"""``referee demo``: a match to try a game with, from the game's own demo
(:meth:`referee.ruleset.Ruleset.demo`).

Its links are printed for the server the user will start: ``referee demo
--port P`` for ``referee serve --port P`` (5000 by default, as ``serve``), or
``--base-url`` / ``REFEREE_PUBLIC_BASE_URL`` for a server reached elsewhere."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from referee.ruleset import DEFAULT_RULESET, get_ruleset
from referee.service import Referee

DEFAULT_PORT = 5000  # `referee serve`'s


def demo_base_url(base_url: str | None, port: int = DEFAULT_PORT) -> str:
    """The address the demo's links start with: ``base_url`` when given (the
    server's public address), else the local server on ``port``; no trailing ``/``."""
    if base_url and base_url.strip():
        return base_url.strip().rstrip("/")
    return f"http://127.0.0.1:{port}"


def play_steps(svc: Referee, match_id: str, steps: Sequence[Mapping[int, Any]]) -> None:
    """Play ``steps`` (each step's orders by seat) in a new match, then open the
    next step unless the match has finished."""
    for orders in steps:
        svc.open_round(match_id)
        for seat, order in orders.items():
            svc.submit_order(match_id, seat, order)
        svc.close_round(match_id)
    if not svc.state(match_id).match.finished:
        svc.open_round(match_id)


def create_demo(
    svc: Referee,
    base_url: str,
    play: int = 0,
    game: str = DEFAULT_RULESET,
    players: int | None = None,
) -> list[tuple[str, str]]:
    """Create a demo match of ``game``, play its first ``play`` steps from the
    demo orders, open the next step, and return (label, link) pairs."""
    demo = get_ruleset(game).demo(players)
    created = svc.create_match(
        name=demo.name,
        setup=demo.setup,
        players=demo.players,
        settings=demo.settings,
        ruleset=game,
        seed=demo.seed,
        base_url=base_url,  # where its links are printed for: its messages' too
    )
    play_steps(svc, created.match_id, demo.steps[:play])
    names = {p["seat"]: p["name"] for p in demo.players}
    return [
        ("host (keep private)", f"{base_url}/host/{created.host_token}"),
        *[
            (f"seat {seat} ({names[seat]})", f"{base_url}/play/{token}")
            for seat, token in sorted(created.player_tokens.items())
        ],
        ("public page", f"{base_url}/matches/{created.match_id}"),
    ]
