"""What each viewer may see of a season (issue 15): the one gate every season
page, API answer, post, picture and export goes through, as
:func:`referee.views.view_for` is for a match.

Everything about a season is public (its players, garnets, Tokens of Life,
episodes and ledger: a season is played in the open) except: e-mail addresses
(the host sees whether a player has one; a player sees their own), links and
their digests (never in a view). A player's view adds their own number and
address; the host's adds who has an address.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any, Literal

from referee.seasons.chain import ledger_heads
from referee.seasons.state import SeasonState

SeasonViewer = Literal["public", "player", "host"]


def _iso(value: datetime | None) -> str | None:
    return value.isoformat().replace("+00:00", "Z") if value is not None else None


def player_names(view: Mapping[str, Any]) -> dict[int, str]:
    """Each player's name by number, from a season view."""
    return {int(p["number"]): str(p["name"]) for p in view.get("players") or []}


def season_view(
    state: SeasonState, viewer: SeasonViewer = "public", player: int | None = None
) -> dict[str, Any]:
    """The season as ``viewer`` may see it (``player``: the viewing player's number)."""
    season = state.season
    balances = state.balances()
    current = state.episodes[-1].number if state.episodes else 0
    tokens = state.tokens(current) if current else {}
    players: list[dict[str, Any]] = []
    for p in state.players:
        entry: dict[str, Any] = {
            "number": p.number,
            "name": p.name,
            "garnets": balances[p.number],
            "tokens": tokens.get(p.number, 0),
            "status": "in" if p.eliminated_in is None else "eliminated",
            "eliminated_in": p.eliminated_in,
        }
        if viewer == "host":
            entry["has_email"] = p.email is not None
        players.append(entry)
    episodes = [
        {
            "number": e.number,
            "main_match_id": e.main_match_id,
            "main_seats": {
                k: v for k, v in sorted(e.main_seats.items(), key=lambda kv: int(kv[0]))
            },
            "recorded": e.recorded_at is not None,
            "token_holder": e.token_holder,
            "candidate": e.candidate,
            "token_used": e.token_used,
            "opponent": e.opponent,
            "death_match_id": e.death_match_id,
            "loser": e.loser,
            "loser_by": e.loser_by,
            "over": state.done(e),
        }
        for e in state.episodes
    ]
    ledger = [
        {
            "id": x.id,
            "player": x.player,
            "change": x.change,
            "reason": x.reason,
            "episode": x.episode,
            "match_id": x.match_id,
            "created_at": _iso(x.created_at),
            "entered_by": x.entered_by,
            "corrects": x.corrects,
        }
        for x in state.ledger
    ]
    # issue 27: each entry's head on the season's ledger chain, the latest published
    heads = ledger_heads(season.id, ledger)
    for entry, head in zip(ledger, heads, strict=True):
        entry["head"] = head
    view: dict[str, Any] = {
        "id": season.id,
        "name": season.name,
        "rules": dict(season.rules),
        "created_at": _iso(season.created_at),
        "viewer": {"kind": viewer, "player": player if viewer == "player" else None},
        "players": players,
        "episodes": episodes,
        "ledger": ledger,
        "ledger_head": heads[-1] if heads else None,
        "version": season.version,
    }
    if viewer == "player" and player is not None:
        me = state.player(player)
        view["me"] = {"number": me.number, "name": me.name, "email": me.email}
    return view
