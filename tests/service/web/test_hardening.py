"""Issue 10's web findings: the admin key checked before any work and counted
when wrong on the create form, limits on the public requests that do work,
no caching of the page with a new match's secret links, absolute links from
the configured address, chunked bodies over the size limit, and the secret
key's file mode. Each test runs on SQLite and on PostgreSQL.
"""

from __future__ import annotations

import io
import json
import stat
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from referee.web import _secret_key

from .web_kit import GOLDEN, new_match_form

ADMIN_KEY = "sesame-" + "k" * 30
PLAYERS = GOLDEN["players"]
GOOD_CREATE = {"name": "Chunked", "map": "three-rapids", "players": PLAYERS}


def from_ip(ip: str) -> dict[str, Any]:
    return {"environ_base": {"REMOTE_ADDR": ip}}


def check_map_form(**extra: Any) -> dict[str, Any]:
    return new_match_form("Map check", check_map="1", **extra)


@pytest.fixture
def keyed(app: Flask, client: FlaskClient) -> FlaskClient:
    app.config["ADMIN_KEY"] = ADMIN_KEY
    return client


def test_the_admin_key_is_checked_before_any_work(
    keyed: FlaskClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 10, High 2: "Check the map only" ran the fairness solves before the
    admin-key check, so anyone could make the server work for minutes."""
    from referee.rulesets.rocky_river.ruleset import RockyRiver
    from referee.rulesets.rocky_river.web import Web

    def no_work(*args: Any) -> Any:
        raise AssertionError("the map was read before the admin key was checked")

    # the game's web part reads the set-up; its ruleset's report runs the solves
    monkeypatch.setattr(Web, "read_setup", no_work)
    monkeypatch.setattr(Web, "setup_report", no_work)
    monkeypatch.setattr(RockyRiver, "setup_report", no_work)
    for form in (check_map_form(), new_match_form("Create")):
        for key in ("", "wrong"):
            resp = keyed.post("/new", data={**form, "admin_key": key})
            assert resp.status_code == 401
            assert "needs its admin key" in resp.get_data(as_text=True)


def test_wrong_admin_keys_on_the_create_form_count_like_on_the_api(
    app: Flask, keyed: FlaskClient
) -> None:
    """Issue 10, Medium 4: 300 guesses in 1.4 s through the form."""
    app.config["RATELIMIT_FAILED_TOKENS"] = "5 per minute"
    app.config["RATELIMIT_CREATE_FORM"] = "1000 per minute"
    for _ in range(3):
        assert (
            keyed.post("/new", data={**check_map_form(), "admin_key": "guess"}).status_code == 401
        )
    for _ in range(2):  # the API's failures are the same count
        api = keyed.post("/api/matches", json=GOOD_CREATE, headers={"Authorization": "Bearer x"})
        assert api.status_code == 401
    # the sixth attempt, even with the right key, waits
    resp = keyed.post("/new", data={**check_map_form(), "admin_key": ADMIN_KEY})
    assert resp.status_code == 429 and "Too many attempts" in resp.get_data(as_text=True)
    assert 1 <= int(resp.headers["Retry-After"]) <= 60
    # another address is not affected, and the page itself still opens
    other = keyed.post(
        "/new", data={**check_map_form(), "admin_key": ADMIN_KEY}, **from_ip("2.2.2.2")
    )
    assert other.status_code == 200
    assert keyed.get("/new").status_code == 200


def test_without_an_admin_key_the_form_counts_no_failures(app: Flask, client: FlaskClient) -> None:
    app.config["RATELIMIT_FAILED_TOKENS"] = "2 per minute"
    app.config["RATELIMIT_CREATE_FORM"] = "1000 per minute"
    for _ in range(4):  # refused for its content, not a failed key
        assert client.post("/new", data=check_map_form(bundled_map="nope")).status_code == 422
    assert client.post("/new", data=check_map_form()).status_code == 200


def test_the_create_form_is_rate_limited(app: Flask, client: FlaskClient) -> None:
    """Issue 10, High 2: the public requests that do work are limited per address."""
    assert app.config["RATELIMIT_CREATE_FORM"] == "10 per minute"  # the documented default
    app.config["RATELIMIT_CREATE_FORM"] = "3 per minute"
    for _ in range(3):
        assert client.post("/new", data=check_map_form()).status_code == 200
    resp = client.post("/new", data=check_map_form())
    assert resp.status_code == 429
    assert "Too many requests" in resp.get_data(as_text=True) and "Retry-After" in resp.headers
    assert client.get("/new").status_code == 200  # showing the form is free
    assert client.post("/new", data=check_map_form(), **from_ip("2.2.2.3")).status_code == 200


def test_drawing_png_pictures_is_rate_limited(app: Flask, client: FlaskClient) -> None:
    assert app.config["RATELIMIT_PICTURES"] == "60 per minute"
    app.config["RATELIMIT_PICTURES"] = "2 per minute"
    created = client.post("/api/matches", json=GOOD_CREATE).get_json()
    url = f"/matches/{created['id']}/map.png"
    first = client.get(url)
    assert first.status_code == 200
    for _ in range(5):  # "not modified" draws nothing and is free
        assert client.get(url, headers={"If-None-Match": first.headers["ETag"]}).status_code == 304
    assert client.get(url).status_code == 200
    assert client.get(url).status_code == 429
    assert client.get(f"/matches/{created['id']}/map.svg").status_code == 200  # no drawing cost
    assert client.get(url, **from_ip("2.2.2.4")).status_code == 200


def test_the_page_with_new_secret_links_is_kept_by_no_cache(client: FlaskClient) -> None:
    resp = client.post("/new", data=new_match_form("No store"))
    assert resp.status_code == 303 and resp.headers["Cache-Control"] == "no-store"
    resp = client.get(resp.headers["Location"])  # the page after the POST shows the links
    assert resp.status_code == 200 and "/play/" in resp.get_data(as_text=True)
    assert resp.headers["Cache-Control"] == "no-store"


def test_absolute_links_use_the_configured_public_address(app: Flask, client: FlaskClient) -> None:
    """Issue 10, Low: the Host header was copied into links people copy."""
    evil = {"Host": "evil.example"}
    app.config["PUBLIC_BASE_URL"] = "https://referee.example.org/"
    resp = client.post("/new", data=new_match_form("Links"), headers=evil, follow_redirects=True)
    html = resp.get_data(as_text=True)
    assert "evil.example" not in html
    assert 'id="host-link" href="https://referee.example.org/host/' in html
    assert html.count('href="https://referee.example.org/play/') == 3
    created = client.post("/api/matches", json=GOOD_CREATE).get_json()
    for url in (f"/matches/{created['id']}/post", f"/api/matches/{created['id']}/post"):
        text = client.get(url, headers=evil).get_data(as_text=True)
        assert "evil.example" not in text
        assert f"https://referee.example.org/matches/{created['id']}/map.png" in text
    host = client.get(f"/host/{created['host_token']}", headers=evil).get_data(as_text=True)
    assert "evil.example" not in host
    # unset: the request's own address (documented: set it on a public server)
    app.config["PUBLIC_BASE_URL"] = None
    text = client.get(f"/matches/{created['id']}/post").get_data(as_text=True)
    assert f"http://localhost/matches/{created['id']}/map.png" in text


def chunked(client: FlaskClient, url: str, body: bytes, content_type: str) -> Any:
    """A request whose body comes without Content-Length, as a WSGI server hands
    on a chunked body (``wsgi.input_terminated``)."""
    return client.post(
        url,
        input_stream=io.BytesIO(body),
        content_type=content_type,
        environ_overrides={"wsgi.input_terminated": True, "HTTP_TRANSFER_ENCODING": "chunked"},
    )


def test_chunked_bodies_over_the_size_limit_are_refused_with_413(
    app: Flask, client: FlaskClient
) -> None:
    """Issue 10, Low: a chunked body over the limit was cut at the limit and the
    rest parsed: a valid JSON object followed by 600 KB of spaces was accepted."""
    limit = app.config["MAX_CONTENT_LENGTH"]
    body = json.dumps(GOOD_CREATE).encode()
    padded = body + b" " * (limit + 100_000)
    resp = chunked(client, "/api/matches", padded, "application/json")
    assert resp.status_code == 413 and resp.get_json()["errors"][0]["code"] == "http/413"
    form = chunked(
        client, "/new", b"name=" + b"x" * (limit + 1), "application/x-www-form-urlencoded"
    )
    assert form.status_code == 413 and form.mimetype == "text/html"
    assert client.get("/api/matches/nope").status_code == 404
    # within the limit, a chunked body is read whole
    ok = chunked(client, "/api/matches", body + b" " * 1000, "application/json")
    assert ok.status_code == 201, ok.get_json()


def test_the_secret_key_file_is_readable_by_its_owner_only(tmp_path: Path) -> None:
    """Issue 10, Low: instance/secret_key was created world-readable (0644)."""
    key = _secret_key(tmp_path / "instance")
    path = tmp_path / "instance" / "secret_key"
    assert len(key) == 64 and path.read_text() == key
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert _secret_key(tmp_path / "instance") == key  # kept, not replaced
