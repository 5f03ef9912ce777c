"""The OpenAPI description of the JSON API (``openapi_document()``: the base in
referee/web/openapi.json with the per-game parts made from the registered
rulesets): it is a valid OpenAPI 3 document, it is served at /api/openapi.json,
it names every route of the API blueprint, and Schemathesis finds no 500 and no
response that breaks it, for every operation, with real matches and real tokens
of every built-in game (Rocky River and Forks 2nd Edition).

Schemathesis runs in-process against the Flask app (its WSGI transport), on
SQLite and on PostgreSQL (skipped when no server answers, as in conftest.py),
derandomized and with a small number of examples per operation so that the
whole file takes well under a minute.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import schemathesis
from flask import Flask
from flask.testing import FlaskClient
from hypothesis import HealthCheck, Phase, settings
from openapi_spec_validator import validate
from schemathesis.specs.openapi.checks import positive_data_acceptance

from referee.web import create_app
from referee.web.openapi import openapi_document

from .conftest import drop_schemas, postgres_schema
from .test_seasons import at_balances, game_parts, play_to_the_end, seed_where

GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "rocky-river"
FULL_GAME = json.loads((GOLDEN / "01-full-game.match.json").read_text())
KIND = {"draft": "draft", "mapping": "placements", "rafting": "votes"}
MAX_EXAMPLES = 30  # per operation: the whole file runs in about 20 s

schema = schemathesis.openapi.from_dict(openapi_document())


def test_the_description_is_valid_openapi_and_served(tmp_path: Path) -> None:
    doc = openapi_document()
    validate(doc)  # raises on any error
    assert doc["openapi"].startswith("3.")
    app = create_app(
        {"TESTING": True, "DATABASE_URL": f"sqlite:///{tmp_path / 'o.db'}", "SECRET_KEY": "t"}
    )
    resp = app.test_client().get("/api/openapi.json")
    assert resp.status_code == 200 and resp.mimetype == "application/json"
    assert resp.get_json() == doc
    # every route of the API blueprint is described, with the same methods
    described = {
        (path, method.upper())
        for path, item in doc["paths"].items()
        for method in item
        if method in ("get", "post", "put", "delete", "patch")
    }
    routed = set()
    for rule in app.url_map.iter_rules():
        if rule.endpoint.startswith(("api.", "season_api.")):
            path = re.sub(r"<(?:\w+:)?(\w+)>", r"{\1}", rule.rule)
            for method in rule.methods or ():
                if method not in ("HEAD", "OPTIONS"):
                    routed.add((path, method))
    assert routed == described
    # every refusal is the error object
    for item in doc["paths"].values():
        for operation in item.values():
            for status, answer in operation["responses"].items():
                if status.startswith(("4", "5")):
                    ref = answer["content"]["application/json"]["schema"]["$ref"]
                    assert ref == "#/components/schemas/Errors"
    app.extensions["referee"].engine.dispose()


# ---- Schemathesis ---------------------------------------------------------------


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


@dataclass
class Match:
    id: str
    host: str
    seats: dict[str, str]


@dataclass
class World:
    """Real matches of every built-in game: for each, one finished (every result
    key exists) and one with a round open (orders can be sent); tokens follow
    re-issues. Rocky River's live match has its mapping round open, Forks' its
    first keep round."""

    app: Flask
    db: str
    client: FlaskClient
    finished: Match
    live: Match
    forks_finished: Match
    forks_live: Match
    calls: int = 0
    season: SeasonWorld | None = None  # made for the first season operation
    signup_token: str | None = None  # of a season with sign-ups open, for joining

    def season_for(self, case: Any) -> SeasonWorld:
        """A season where the operation can succeed (see :func:`season_at`)."""
        if self.season is None:
            self.season = season_at(self.app, case.operation.path)
        return self.season

    def match_for(self, case: Any) -> Match | None:
        """The match a call is about: the live or the finished one of either
        game, now and then the id Schemathesis drew (an unknown match)."""
        if self.calls % 6 == 5:
            return None
        forks = self.calls % 4 >= 2
        if self.calls % 2 and not case.operation.path.endswith("/orders"):
            return self.forks_finished if forks else self.finished
        return self.forks_live if forks else self.live

    def token_for(self, case: Any, match: Match) -> str:
        """Whose token: mostly the host's, else a seat's, now and then a wrong one
        (Schemathesis itself also sends requests without one)."""
        turn = self.calls % 7
        if turn == 6:
            return "not-a-token-" + "x" * 40
        if turn in (3, 4) or (case.operation.path.endswith("/orders") and turn == 2):
            return match.seats[str(1 + self.calls % 3)]
        return match.host

    def follow(self, case: Any, match: Match, response: Any) -> None:
        """After a re-issue, the new token is the one to use."""
        reissue = case.method.upper() == "POST" and case.operation.path.endswith("/tokens")
        if response.status_code != 200 or not reissue:
            return
        body = response.json()
        if set(body) == {"seat", "token"}:
            if body["seat"] is None:
                match.host = body["token"]
            else:
                match.seats[str(body["seat"])] = body["token"]


@dataclass
class SeasonWorld:
    """A real season in the state a season operation needs: its host's token, a
    player's, the Elimination Candidate's (when there is one), and a body that
    the operation accepts there (None: Schemathesis' own)."""

    id: str
    host: str
    player: str
    candidate: str | None = None
    body: dict[str, Any] | None = None


def season_at(app: Flask, path: str) -> SeasonWorld:
    """A 6-player season (tokens last until used) brought, through the service,
    to where the operation at ``path`` can succeed: a new season for its
    creation, reading and ledger; an ended Main Match for its outcome; a
    recorded one for the choice; a chosen opponent for the Death Match; a
    candidate holding a token won before for spending it."""
    seasons = app.extensions["seasons"]
    made = seasons.create_season(
        name="Schemathesis season",
        players=[{"name": f"S{i}", "garnets": 3} for i in range(1, 7)],
        rules={"token_lasts": "until_used"},
    )
    sid = made.season_id
    world = SeasonWorld(sid, made.host_token, made.player_tokens[6])
    rr = game_parts("rocky-river", 3)  # as seed_where plays its probes
    steps = ("/outcome", "/opponents", "/opponent", "/death-match", "/death-result", "/token")
    if not path.endswith(steps):
        return world
    if path.endswith("/token"):
        seed = _seed(app, sid, [1, 2, 3], lambda token, _c: token is not None)
        _, main = seasons.create_main_match(sid, players=[1, 2, 3], seed=seed, **rr)
        play_to_the_end(app.extensions["referee"], main.match_id)
        first = seasons.record_main(sid, 1)
        holder = first.token_holder
        seasons.choose_opponent(sid, 1, chooser=first.candidate, opponent=4)
        seasons.record_death(sid, 1, loser=4)
        players = [holder, 5, 6]
        seed = _seed(app, sid, players, lambda _t, candidate: candidate == 1)
        _, main = seasons.create_main_match(sid, players=players, seed=seed, **rr)
        play_to_the_end(app.extensions["referee"], main.match_id)
        seasons.record_main(sid, 2)
        world.candidate = made.player_tokens[holder]
        return world
    _, main = seasons.create_main_match(sid, players=[1, 2, 3], **rr)
    play_to_the_end(app.extensions["referee"], main.match_id)
    if path.endswith("/outcome"):
        return world
    outcome = seasons.record_main(sid, 1)
    world.candidate = made.player_tokens[outcome.candidate]
    choosable = seasons.opponents(sid, 1)
    world.body = {"opponent": choosable[0]}
    if path.endswith("/death-match") or path.endswith("/death-result"):
        seasons.choose_opponent(sid, 1, chooser=outcome.candidate, opponent=choosable[0])
        world.body = {"loser": outcome.candidate} if path.endswith("/death-result") else None
    return world


def _seed(app: Flask, season_id: str, players: list[int], want: Any) -> str:
    """:func:`seed_where` for the season's ``players`` at their balances now."""
    roster = at_balances(app.extensions["seasons"], season_id, players)
    return seed_where(app.extensions["referee"], roster, want)


def new_match(client: FlaskClient, rounds: int) -> Match:
    """A match of the golden game's players with its first ``rounds`` rounds
    played through the API (and the next one open when there is one)."""
    resp = client.post(
        "/api/matches",
        json={"name": "Schemathesis <b>&", "map": "three-rapids", "players": FULL_GAME["players"]},
    )
    assert resp.status_code == 201, resp.get_json()
    data = resp.get_json()
    match = Match(data["id"], data["host_token"], dict(data["player_tokens"]))
    host = bearer(match.host)
    plays = [FULL_GAME["draft"], FULL_GAME["placements"], *FULL_GAME["votes"]]
    for number, orders in enumerate(plays[:rounds], start=1):
        opened = client.post(f"/api/matches/{match.id}/rounds/open", headers=host, json={})
        phase = opened.get_json()["rounds"][number - 1]["phase"]
        for seat, order in orders.items():
            client.put(
                f"/api/matches/{match.id}/orders",
                headers=bearer(match.seats[seat]),
                json={KIND[phase]: order},
            )
        client.post(f"/api/matches/{match.id}/rounds/close", headers=host, json={})
    if rounds < len(plays):
        client.post(f"/api/matches/{match.id}/rounds/open", headers=host, json={})
    return match


FORKS_PLAYERS = [{"seat": s, "name": f"Forks {s}", "garnets": s % 2} for s in (1, 2, 3)]
FORKS_ROUNDS = 8  # 3 players: 4 game rounds, each a keep and a market round


def new_forks_match(client: FlaskClient, rounds: int) -> Match:
    """A Forks 2nd Edition match of three players with its first ``rounds``
    rounds played through the API (each seat names the first of its options;
    seat 3 sends nothing, so it is defaulted), and the next one open when there is one."""
    body = {"name": "Forks <i>", "ruleset": "forks-2e", "players": FORKS_PLAYERS}
    resp = client.post("/api/matches", json=body)
    assert resp.status_code == 201, resp.get_json()
    data = resp.get_json()
    match = Match(data["id"], data["host_token"], dict(data["player_tokens"]))
    host = bearer(match.host)
    for number in range(1, rounds + 1):
        client.post(f"/api/matches/{match.id}/rounds/open", headers=host, json={})
        key = "keep" if number % 2 else "market"
        for seat in ("1", "2"):
            mine = client.get(f"/api/matches/{match.id}/me", headers=bearer(match.seats[seat]))
            card = mine.get_json()["options"][0]
            sent = client.put(
                f"/api/matches/{match.id}/orders",
                headers=bearer(match.seats[seat]),
                json={key: card},
            )
            assert sent.status_code == 200, sent.get_json()
        client.post(f"/api/matches/{match.id}/rounds/close", headers=host, json={})
    if rounds < FORKS_ROUNDS:
        client.post(f"/api/matches/{match.id}/rounds/open", headers=host, json={})
    return match


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def api_app(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[Flask, Match, Match]]:
    schemas: list[str] = []
    if request.param == "sqlite":
        url = f"sqlite:///{tmp_path_factory.mktemp('schemathesis') / 'referee.db'}"
    else:
        schema, url = postgres_schema()
        schemas.append(schema)
    app = create_app(
        {
            "TESTING": True,
            "DATABASE_URL": url,
            "SECRET_KEY": "schemathesis",
            # wrong tokens are sent on purpose: keep the limiter on, far from its limit
            "RATELIMIT_FAILED_TOKENS": "100000 per minute",
            "RATELIMIT_SIGNUPS": "100000 per minute",
            "RATELIMIT_SIGNUPS_PER_SEASON": "100000 per minute",
        }
    )
    finished = new_match(app.test_client(), rounds=5)
    forks_finished = new_forks_match(app.test_client(), rounds=FORKS_ROUNDS)
    app.config["TEST_DB"] = request.param
    yield app, finished, forks_finished
    app.extensions["referee"].engine.dispose()
    drop_schemas(schemas)


WORLD: list[World] = []  # the current test's world, for the auth provider
SEEN: dict[tuple[str, str], set[int]] = {}  # the statuses of each (database, operation)
# the statuses of each (database, operation, game) of the calls about a game's match
SEEN_GAMES: dict[tuple[str, str, str], set[int]] = {}


@pytest.fixture
def world(api_app: tuple[Flask, Match, Match]) -> Iterator[World]:
    """Fresh live matches for each operation (the finished ones are shared)."""
    app, finished, forks_finished = api_app
    client = app.test_client()
    live, forks_live = new_match(client, rounds=1), new_forks_match(client, rounds=0)
    WORLD.append(
        World(app, app.config["TEST_DB"], client, finished, live, forks_finished, forks_live)
    )
    yield WORLD[-1]
    WORLD.clear()


@schema.auth(refresh_interval=None)
class Tokens:
    """Schemathesis' auth provider: it marks which requests carry a token (the
    test then picks whose); the requests it leaves without one test the 401s."""

    def get(self, case: Any, context: Any) -> str:
        return WORLD[-1].live.host if WORLD else "no-world"

    def set(self, case: Any, data: str, context: Any) -> None:
        case.headers = {**(case.headers or {}), **bearer(data)}


@schema.parametrize()
@settings(
    max_examples=MAX_EXAMPLES,
    derandomize=True,
    deadline=None,
    database=None,
    phases=[Phase.explicit, Phase.generate],
    suppress_health_check=list(HealthCheck),
)
def test_api_conforms_to_its_description(case: Any, world: World) -> None:
    world.calls += 1
    match = world.match_for(case)
    if match is not None and "match_id" in (case.path_parameters or {}):
        case.path_parameters["match_id"] = match.id
    if case.headers and "Authorization" in case.headers:
        case.headers["Authorization"] = bearer(world.token_for(case, match or world.live))[
            "Authorization"
        ]
    if "season_id" in (case.path_parameters or {}) and world.calls % 6 != 5:
        _in_season(case, world)
    if case.operation.path == "/api/seasons/join/{token}" and world.calls % 6 != 5:
        _in_signups(case, world)
    # every default check runs (no 5xx, status codes, content types, headers and
    # bodies as described, schema-invalid input refused, auth enforced) except
    # positive_data_acceptance: the description gives each body's shape, while
    # the rules (three distinct seats, a known map, a draft of all 27 cards, the
    # cards of one's own hand...) are refused with a documented 422 listing them
    # in-process, Schemathesis' own follow-up probes (of ignored auth...) included
    case.operation.app = case.operation.schema.app = world.app
    # the in-process WSGI call does not decode a compressed body, so ask for none
    # (compression itself: tests/service/web/test_speed_headers.py)
    case.headers = {**(case.headers or {}), "Accept-Encoding": "identity"}
    response = case.call_and_validate(excluded_checks=[positive_data_acceptance])
    assert response.status_code < 500
    SEEN.setdefault((world.db, case.operation.label), set()).add(response.status_code)
    if match is not None and "match_id" in (case.path_parameters or {}):
        game = "forks-2e" if match in (world.forks_live, world.forks_finished) else "rocky-river"
        SEEN_GAMES.setdefault((world.db, case.operation.label, game), set()).add(
            response.status_code
        )
    if match is not None:
        world.follow(case, match, response)


def _in_season(case: Any, world: World) -> None:
    """A season operation about a real season in the state it needs (else the id
    Schemathesis drew: an unknown season), episode 1 (2 for spending a token),
    with the token of whoever may call it (mostly), and now and then a body it
    accepts there."""
    season = world.season_for(case)
    case.path_parameters["season_id"] = season.id
    path = case.operation.path
    if "number" in case.path_parameters:
        case.path_parameters["number"] = 2 if path.endswith("/token") else 1
    if case.headers and "Authorization" in case.headers and world.calls % 7 != 6:
        if path.endswith(("/opponent", "/token")):
            token = season.candidate or season.player
        elif path.endswith(("/me", "/opponents")):
            token = season.player
        else:
            token = season.host
        case.headers["Authorization"] = bearer(token)["Authorization"]
    if season.body is not None and world.calls % 3 == 0:
        case.body = dict(season.body)


def _in_signups(case: Any, world: World) -> None:
    """A join by the sign-up link of a season whose sign-ups are open (else the
    token Schemathesis drew: a wrong link), now and then with a name it takes."""
    from referee.seasons.signups import Signups

    if world.signup_token is None:
        seasons = world.app.extensions["seasons"]
        made = seasons.create_season(name="Schemathesis sign-ups", players=[], signups=True)
        world.signup_token = Signups(seasons).status(made.season_id).token
    case.path_parameters["token"] = world.signup_token
    if world.calls % 3 == 0:
        case.body = {"name": f"Joiner {world.calls}"}


def test_every_operation_was_exercised_with_success_and_refusals() -> None:
    """Runs after the Schemathesis tests: on each database they ran on, each
    operation answered at least once with success (so its 2xx body was checked
    against the description) and, for those needing a token, with 401 and 403;
    and each reading of a match (its views, preview, export, audit, post) did so
    for a match of each built-in game, so that each game's own parts of the
    description were checked against real answers."""
    operations = {
        f"{method.upper()} {path}": item[method]
        for path, item in openapi_document()["paths"].items()
        for method in item
    }
    databases = sorted({db for db, _ in SEEN})
    if not databases or any({(db, op) for op in operations} - set(SEEN) for db in databases):
        pytest.skip("run with the Schemathesis tests of this file")
    for db in databases:
        for label, operation in operations.items():
            statuses = SEEN[db, label]
            assert any(200 <= s < 300 for s in statuses), (db, label, statuses)
            if operation["security"] == [{"bearerAuth": []}]:
                assert {401, 403} <= statuses, (db, label, statuses)
    for db in databases:
        for label in operations:
            if "{match_id}" not in label or not label.startswith("GET "):
                continue
            for game in ("rocky-river", "forks-2e"):
                statuses = SEEN_GAMES.get((db, label, game), set())
                assert any(200 <= s < 300 for s in statuses), (db, label, game, statuses)
