"""Season sign-ups in the JSON API (issue 23, item 7), on SQLite and
PostgreSQL: a season created with sign-ups open and no roster, players joining
by the sign-up token, the host's status, close and remove, the refusals (closed,
started, unknown player, wrong link, other callers) and the join's rate limit."""

from __future__ import annotations

from typing import Any

from flask import Flask
from flask.testing import FlaskClient

from referee.notify.config import NotifyConfig


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def codes(resp: Any) -> list[str]:
    return [e["code"] for e in resp.get_json()["errors"]]


def open_season(client: FlaskClient) -> dict[str, Any]:
    r = client.post("/api/seasons", json={"name": "API S1", "players": [], "signups": True})
    assert r.status_code == 201, r.get_json()
    made: dict[str, Any] = r.get_json()
    assert made["player_tokens"] == {}
    return made


def test_players_join_by_the_api_and_the_host_runs_the_sign_ups(client: FlaskClient) -> None:
    made = open_season(client)
    sid, host = made["id"], bearer(made["host_token"])
    status = client.get(f"/api/seasons/{sid}/signups", headers=host)
    assert status.status_code == 200 and status.headers["Cache-Control"] == "no-store"
    body = status.get_json()
    assert body["open"] and body["players"] == 0 and body["room"] == 64
    assert body["path"] == f"/join/{body['token']}"
    token = body["token"]
    # the same link every time (derived), and it is the page's too
    assert client.get(f"/api/seasons/{sid}/signups", headers=host).get_json()["token"] == token
    assert client.get(body["path"]).status_code == 200

    joins = []
    for name in ("Ana", "Bo", "Cy", "Di"):
        r = client.post(f"/api/seasons/join/{token}", json={"name": name})
        assert r.status_code == 201 and r.headers["Cache-Control"] == "no-store"
        joins.append(r.get_json())
    assert [j["player"] for j in joins] == [1, 2, 3, 4]
    me = client.get(f"/api/seasons/{sid}/me", headers=bearer(joins[1]["token"]))
    assert me.status_code == 200 and me.get_json()["name"] == "Bo"
    r = client.post(f"/api/seasons/join/{token}", json={"name": "ANA"})
    assert r.status_code == 422 and codes(r) == ["season/confusable_names"]
    r = client.post(f"/api/seasons/join/{token}", json={"name": "Eve", "colour": "red"})
    assert r.status_code == 422 and codes(r) == ["request/unknown_field"]
    r = client.post(f"/api/seasons/join/{token}", json={"name": "Eve", "email": "e@example.org"})
    assert r.status_code == 422 and codes(r) == ["notify/no_mail"]

    # only the host: a player's token is refused, no token is 401
    player = bearer(joins[0]["token"])
    for method, url, payload in (
        ("GET", f"/api/seasons/{sid}/signups", None),
        ("POST", f"/api/seasons/{sid}/signups", {"open": False}),
        ("DELETE", f"/api/seasons/{sid}/players/2", None),
    ):
        assert client.open(url, method=method, json=payload, headers=player).status_code == 403
        assert client.open(url, method=method, json=payload).status_code == 401

    # the first Main Match waits for the close
    r = client.post(f"/api/seasons/{sid}/episodes", json={"game": "forks-2e"}, headers=host)
    assert r.status_code == 409 and codes(r) == ["season/signups_open"]
    r = client.post(f"/api/seasons/{sid}/signups", json={"open": "no"}, headers=host)
    assert r.status_code == 422 and codes(r) == ["season/bad_signups"]
    r = client.post(f"/api/seasons/{sid}/signups", json={}, headers=host)
    assert r.status_code == 422 and codes(r) == ["season/bad_signups"]
    r = client.post(f"/api/seasons/{sid}/signups", json={"open": False}, headers=host)
    assert r.status_code == 200 and not r.get_json()["open"]
    r = client.post(f"/api/seasons/join/{token}", json={"name": "Eve"})
    assert r.status_code == 409 and codes(r) == ["season/signups_closed"]

    r = client.delete(f"/api/seasons/{sid}/players/1", headers=host)
    assert r.status_code == 200 and r.get_json() == {"player": 1, "name": "Ana"}
    assert (
        client.get(f"/api/seasons/{sid}/me", headers=bearer(joins[0]["token"])).status_code == 403
    )
    r = client.delete(f"/api/seasons/{sid}/players/1", headers=host)
    assert r.status_code == 422 and codes(r) == ["season/unknown_player"]
    view = client.get(f"/api/seasons/{sid}").get_json()
    assert [p["number"] for p in view["players"]] == [2, 3, 4]

    r = client.post(
        f"/api/seasons/{sid}/episodes",
        json={"game": "rocky-river", "map": "three-rapids"},
        headers=host,
    )
    assert r.status_code == 201, r.get_json()
    r = client.delete(f"/api/seasons/{sid}/players/2", headers=host)
    assert r.status_code == 409 and codes(r) == ["season/started"]
    r = client.post(f"/api/seasons/{sid}/signups", json={"open": True}, headers=host)
    assert r.status_code == 409 and codes(r) == ["season/started"]
    status = client.get(f"/api/seasons/{sid}/signups", headers=host).get_json()
    assert not status["open"] and not status["can_open"]


def test_a_wrong_sign_up_token_is_a_failed_attempt(app: Flask, client: FlaskClient) -> None:
    token = client.get(
        f"/api/seasons/{(made := open_season(client))['id']}/signups",
        headers=bearer(made["host_token"]),
    ).get_json()["token"]
    app.config["RATELIMIT_FAILED_TOKENS"] = "2 per minute"
    for guess in (token[:-1], made["host_token"]):  # a host token is no sign-up token
        r = client.post(f"/api/seasons/join/{guess}", json={"name": "Ana"})
        assert r.status_code == 404 and codes(r) == ["season/not_found"]
    r = client.post(f"/api/seasons/join/{token}", json={"name": "Ana"})
    assert r.status_code == 429 and codes(r) == ["auth/rate_limited"]


def test_joining_by_the_api_is_rate_limited(app: Flask, client: FlaskClient) -> None:
    made = open_season(client)
    token = client.get(
        f"/api/seasons/{made['id']}/signups", headers=bearer(made["host_token"])
    ).get_json()["token"]
    app.config["RATELIMIT_SIGNUPS"] = "1 per hour"
    assert client.post(f"/api/seasons/join/{token}", json={"name": "Ana"}).status_code == 201
    r = client.post(f"/api/seasons/join/{token}", json={"name": "Bo"})
    assert r.status_code == 429 and codes(r) == ["request/rate_limited"]
    assert int(r.headers["Retry-After"]) >= 1


def test_an_address_where_mail_is_sent(app: Flask, client: FlaskClient) -> None:
    app.extensions["referee"].notify = NotifyConfig(smtp_url="smtp://127.0.0.1:9")
    made = open_season(client)
    token = client.get(
        f"/api/seasons/{made['id']}/signups", headers=bearer(made["host_token"])
    ).get_json()["token"]
    r = client.post(f"/api/seasons/join/{token}", json={"name": "Ana", "email": "nope"})
    assert r.status_code == 422 and codes(r) == ["notify/bad_email"]
    r = client.post(f"/api/seasons/join/{token}", json={"name": "Ana", "email": "a@example.org"})
    assert r.status_code == 201
