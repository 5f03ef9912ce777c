"""The seasons' JSON API (issue 15): everything a season's host and players do
in the browser, for bots and scripts. Thin, like :mod:`referee.web.api`: every
call goes through :class:`referee.seasons.service.Seasons` and every answer about a
season is cut from :func:`referee.seasons.views.season_view` (never from rows).

Auth is the match API's: ``Authorization: Bearer TOKEN`` with the season's host
token or a player's season token. A token of another season, or of a match, is
refused with 403 (the same answer as a wrong token, so it tells nothing).
The matches made from a season are ordinary matches: their own API is
``/api/matches/...``, with the host token each creation answers with; the
season's host can ask for each of them again (``GET .../matches``: they are
derived from the season's host token, issue 23) and re-issue one.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, current_app, jsonify

from referee.errors import Problem, RuleError
from referee.ruleset import DEFAULT_RULESET, get_ruleset, ruleset_names
from referee.seasons.state import MainOutcome, MatchHostLink
from referee.seasons.views import SeasonViewer, season_view
from referee.service import Created
from referee.web import seasons
from referee.web.api_common import bearer, check_admin_key, json_body, object_body
from referee.web.common import base_url
from referee.web.ratelimit import retry_after
from referee.web.signups import TOO_MANY, join_allowed, signups

bp = Blueprint("season_api", __name__, url_prefix="/api/seasons")

EPISODE = "/<season_id>/episodes/<int:number>"


def _named(exc: RuleError, fields: dict[str, str]) -> RuleError:
    """``exc`` with each problem of a code in ``fields`` naming that field of the body."""
    return RuleError(
        Problem(p.code, p.message, p.field or fields.get(p.code)) for p in exc.problems
    )


# ---- who is calling -------------------------------------------------------------


def _caller(season_id: str) -> int | None:
    """The caller's player number (None: the host); 401 without a token, 403
    with one that is not of this season."""
    token = bearer()
    if token is None:
        raise RuleError.single(
            "auth/unauthorized",
            "this needs the season's host token or a player's season token: "
            "Authorization: Bearer TOKEN",
        )
    found = seasons().find_token(token)
    if found is None or found[0] != season_id:
        raise RuleError.single("auth/forbidden", "this token does not give access to this season")
    return found[1]


def _host(season_id: str) -> None:
    if _caller(season_id) is not None:
        raise RuleError.single("auth/forbidden", "only the season's host may do this")


def _player(season_id: str) -> int:
    number = _caller(season_id)
    if number is None:
        raise RuleError.single(
            "auth/forbidden", "this is a player's own call: use their season token"
        )
    return number


def _view(season_id: str, viewer: SeasonViewer = "public", player: int | None = None) -> Any:
    return season_view(seasons().state(season_id), viewer, player)


def _episode(season_id: str, number: int) -> dict[str, Any]:
    """One episode as the public sees it (after a step, the step's answer)."""
    found = [e for e in _view(season_id)["episodes"] if e["number"] == number]
    return dict(found[0])


def _match(episode: int | None, created: Created) -> dict[str, Any]:
    """A match made from the season: its host token is shown once, here."""
    out: dict[str, Any] = {"episode": episode} if episode is not None else {}
    out.update(
        match_id=created.match_id,
        host_token=created.host_token,
        seed_sha256=created.seed_sha256,
    )
    return out


def _outcome(outcome: MainOutcome) -> dict[str, Any]:
    return {
        "episode": outcome.episode,
        "token_holder": outcome.token_holder,
        "candidate": outcome.candidate,
        "effects": [
            {"player": e.player, "change": e.change, "reason": e.reason} for e in outcome.effects
        ],
    }


def _game_parts(keys: tuple[str, ...]) -> dict[str, Any]:
    """A match's part of a body: ``game`` (default: the default ruleset), the game's own
    set-up fields and ``settings``; other keys (``keys``) of the call allowed."""
    raw = json_body()
    game = raw.get("game", DEFAULT_RULESET) if isinstance(raw, dict) else DEFAULT_RULESET
    if not isinstance(game, str) or game not in ruleset_names():
        raise RuleError.single(
            "match/unknown_ruleset",
            f"game {game!r} is not known (known: {', '.join(sorted(ruleset_names()))})",
            "game",
        )
    rules = get_ruleset(game)
    body = object_body(("game", *keys, *rules.setup_keys, "settings"))
    return {
        "game": rules.name,
        "setup": {k: body[k] for k in rules.setup_keys if k in body},
        "settings": body.get("settings"),
        **{k: body[k] for k in keys if k in body},
    }


# ---- the season -----------------------------------------------------------------


@bp.post("")
def create_season() -> tuple[Response, int]:
    check_admin_key("seasons")
    body = object_body(("name", "players", "rules", "signups"))
    made = seasons().create_season(
        name=body.get("name"),
        players=body.get("players"),
        rules=body.get("rules"),
        signups=body.get("signups", False),
    )
    return jsonify(
        {
            "id": made.season_id,
            "host_token": made.host_token,
            "player_tokens": {str(n): t for n, t in made.player_tokens.items()},
        }
    ), 201


@bp.get("/<season_id>")
def public_view(season_id: str) -> Response:
    view = _view(season_id)
    return jsonify({k: v for k, v in view.items() if k != "ledger"})


@bp.get("/<season_id>/me")
def my_view(season_id: str) -> Response:
    number = _player(season_id)
    view = _view(season_id, "player", number)
    return jsonify({**view["me"], "matches": seasons().match_links(season_id, number)})


@bp.post("/<season_id>/players/<int:number>/link")
def reissue_link(season_id: str, number: int) -> Response:
    """The host gives player ``number`` a new season link (shown once, here): the
    old one, and the seat links derived from it, stop working (issue 22)."""
    _host(season_id)
    object_body(())
    made = seasons().reissue_link(season_id, number)
    return jsonify(
        {
            "player": made.player,
            "token": made.token,
            "moved_matches": list(made.moved),
            "left_matches": list(made.left),
        }
    )


# ---- its matches' host links -------------------------------------------------------


def _host_link(link: MatchHostLink) -> dict[str, Any]:
    token = link.path.removeprefix("/host/") if link.path else None
    return {
        "episode": link.episode,
        "kind": link.kind,
        "match_id": link.match_id,
        "host_token": token,
    }


@bp.get("/<season_id>/matches")
def matches(season_id: str) -> Response:
    """Every match made from the season, with its host token (null where it is
    not the season's: re-issued from the match's own API, or made before)."""
    _host(season_id)
    return jsonify({"matches": [_host_link(x) for x in seasons().host_links(season_id)]})


@bp.post("/<season_id>/matches/<match_id>/host-link")
def reissue_match_host(season_id: str, match_id: str) -> Response:
    """A new host token for a match made from the season: the old one stops working."""
    _host(season_id)
    object_body(())
    return jsonify(_host_link(seasons().reissue_match_host(season_id, match_id)))


# ---- the ledger -----------------------------------------------------------------


def _ledger(season_id: str) -> dict[str, Any]:
    view = _view(season_id)
    balances = {str(p["number"]): p["garnets"] for p in view["players"]}
    return {"entries": view["ledger"], "ledger_head": view["ledger_head"], "balances": balances}


@bp.get("/<season_id>/ledger")
def ledger(season_id: str) -> Response:
    return jsonify(_ledger(season_id))


@bp.post("/<season_id>/ledger")
def add_entry(season_id: str) -> tuple[Response, int]:
    _host(season_id)
    body = object_body(("player", "change", "reason", "corrects"))
    corrects = body.get("corrects")
    if corrects is not None and type(corrects) is not int:
        raise RuleError.single(
            "ledger/bad_correction", f"corrects names an entry's id, not {corrects!r}", "corrects"
        )
    try:
        entry = seasons().add_entry(
            season_id,
            player=body.get("player"),
            change=body.get("change"),
            reason=body.get("reason"),
            corrects=corrects,
        )
    except RuleError as exc:  # the service's "no such player" names no field; here it is this
        raise _named(exc, {"season/unknown_player": "player"}) from None
    shown = [e for e in _ledger(season_id)["entries"] if e["id"] == entry.id]
    return jsonify(shown[0]), 201


# ---- episodes -------------------------------------------------------------------


@bp.post("/<season_id>/episodes")
def create_main_match(season_id: str) -> tuple[Response, int]:
    _host(season_id)
    parts = _game_parts(("players",))
    chosen = parts.pop("players", None)
    if chosen is not None and (
        not isinstance(chosen, list) or any(type(p) is not int for p in chosen)
    ):
        raise RuleError.single(
            "season/bad_players", "players must be a list of player numbers, or left out", "players"
        )
    number, created = seasons().create_main_match(
        season_id, players=chosen, base_url=base_url(), **parts
    )
    return jsonify(_match(number, created)), 201


@bp.get(EPISODE + "/outcome")
def outcome(season_id: str, number: int) -> Response:
    _host(season_id)
    return jsonify(_outcome(seasons().main_outcome(season_id, number)))


@bp.post(EPISODE + "/outcome")
def record_main(season_id: str, number: int) -> Response:
    _host(season_id)
    object_body(())
    return jsonify(_outcome(seasons().record_main(season_id, number)))


@bp.get(EPISODE + "/opponents")
def opponents(season_id: str, number: int) -> Response:
    _caller(season_id)
    choosable = seasons().opponents(season_id, number)
    return jsonify(
        {
            "episode": number,
            "candidate": _episode(season_id, number)["candidate"],
            "opponents": choosable,
        }
    )


@bp.post(EPISODE + "/opponent")
def choose_opponent(season_id: str, number: int) -> Response:
    chooser = _player(season_id)
    body = object_body(("opponent",))
    seasons().choose_opponent(season_id, number, chooser=chooser, opponent=body.get("opponent"))
    return jsonify(_episode(season_id, number))


@bp.post(EPISODE + "/token")
def use_token(season_id: str, number: int) -> Response:
    player = _player(season_id)
    object_body(())
    seasons().use_token(season_id, number, player=player)
    return jsonify(_episode(season_id, number))


@bp.post(EPISODE + "/death-match")
def create_death_match(season_id: str, number: int) -> tuple[Response, int]:
    _host(season_id)
    created = seasons().create_death_match(
        season_id, number, base_url=base_url(), **_game_parts(())
    )
    return jsonify(_match(number, created)), 201


@bp.post(EPISODE + "/death-result")
def record_death(season_id: str, number: int) -> Response:
    _host(season_id)
    body = object_body(("loser",))
    seasons().record_death(season_id, number, loser=body.get("loser"))
    return jsonify(_episode(season_id, number))


# ---- sign-ups (issue 23, item 7) ------------------------------------------------


def _signups(season_id: str) -> dict[str, Any]:
    status = signups().status(season_id)
    return {
        "open": status.open,
        "token": status.token,
        "path": f"/join/{status.token}",
        "can_open": status.can_open,
        "players": status.players,
        "room": status.room,
    }


@bp.get("/<season_id>/signups")
def signups_status(season_id: str) -> Response:
    """The season's sign-up link (derived: always the same) and whether it is open."""
    _host(season_id)
    return jsonify(_signups(season_id))


@bp.post("/<season_id>/signups")
def set_signups(season_id: str) -> Response:
    _host(season_id)
    body = object_body(("open",))
    if "open" not in body:
        raise RuleError.single("season/bad_signups", "say 'open': true or false", "open")
    signups().set_open(season_id, body["open"])
    return jsonify(_signups(season_id))


@bp.delete("/<season_id>/players/<int:number>")
def remove_player(season_id: str, number: int) -> Response:
    """The host removes a player, before the first Main Match only."""
    _host(season_id)
    name = signups().remove(season_id, number)
    return jsonify({"player": number, "name": name})


@bp.post("/join/<token>")
def join(token: str) -> tuple[Response, int] | tuple[Response, int, dict[str, str]]:
    """A player joins by the season's sign-up link: their season token, shown once."""
    season_id = signups().find(token)
    if season_id is None:
        raise RuleError.single("season/not_found", "this sign-up link opens nothing here")
    body = object_body(("name", "email"))
    if not join_allowed(season_id):
        refusal = {"errors": [{"code": "request/rate_limited", "message": TOO_MANY}]}
        return jsonify(refusal), 429, {"Retry-After": str(retry_after(current_app))}
    joined = signups().join(season_id, name=body.get("name"), email=body.get("email"))
    return jsonify(
        {
            "season_id": joined.season_id,
            "player": joined.number,
            "name": joined.name,
            "token": joined.token,
        }
    ), 201
