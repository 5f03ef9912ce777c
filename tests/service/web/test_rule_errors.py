"""One app-wide answer to a refusal (RuleError) that no page shows on its own
form: JSON ``{"errors": [...]}`` under /api/ (with ``WWW-Authenticate`` on a
401), the "That was refused" page ("Not found" for a 404) elsewhere, with the
status of the gravest problem, whichever blueprint raised it."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from referee.errors import RuleError

from .web_kit import create_match, esc

NUL_TEXT = "holds the character U+0000"


@pytest.fixture
def answered(app: Flask) -> Iterator[list[str]]:
    """The paths whose refusal the app-wide RuleError handler answered."""
    handlers = app.error_handler_spec[None][None]
    handler = handlers[RuleError]
    seen: list[str] = []

    def counting(exc: RuleError) -> Any:
        from flask import request

        seen.append(request.path)
        return handler(exc)

    handlers[RuleError] = counting
    yield seen
    handlers[RuleError] = handler


def test_no_blueprint_has_its_own_rule_error_handler(app: Flask) -> None:
    assert set(app.blueprints) == {
        *("public", "host", "player", "pictures", "api", "calendars"),
        *("seasons", "season_api", "season_files", "signups"),
    }
    for name, by_code in app.error_handler_spec.items():
        has_own = any(RuleError in handlers for handlers in by_code.values())
        assert has_own == (name is None), name


def refused_page(r: Any, status: int, title: str, message: str) -> None:
    assert r.status_code == status
    assert r.mimetype == "text/html"
    html = r.get_data(as_text=True)
    assert f"<h1>{title}</h1>" in html
    assert esc(message) in html.split('class="problems"', 1)[1]
    assert "WWW-Authenticate" not in r.headers


def test_a_refusal_in_every_blueprint_gets_the_one_answer(
    client: FlaskClient, answered: list[str]
) -> None:
    links = create_match(client, "Refusals")
    mid = links.match_id
    # public: a match that does not exist, and a post in an unknown format
    refused_page(client.get("/matches/nope"), 404, "Not found", "there is no match 'nope'")
    refused_page(
        client.get(f"/matches/{mid}/post?format=html"),
        422,
        "That was refused",
        "format must be markdown or bbcode, not 'html'",
    )
    # host and player: a form field that is not plain text
    refused_page(
        client.post(f"{links.host}/open", data={"deadline": "a\x00"}),
        422,
        "That was refused",
        NUL_TEXT,
    )
    refused_page(
        client.post(links.seats[1], data={"round": "\x00"}), 422, "That was refused", NUL_TEXT
    )
    # pictures: no results picture before the first rafting round
    refused_page(
        client.get(f"/matches/{mid}/results.svg"),
        404,
        "Not found",
        "There is no results picture yet",
    )
    # api: JSON, with the scheme to authenticate with on a 401 only
    r = client.get(f"/api/matches/{mid}/me")
    assert r.status_code == 401 and r.mimetype == "application/json"
    assert r.headers["WWW-Authenticate"] == 'Bearer realm="referee"'
    assert [e["code"] for e in r.get_json()["errors"]] == ["auth/unauthorized"]
    r = client.get("/api/matches/nope")
    assert r.status_code == 404 and "WWW-Authenticate" not in r.headers
    assert r.get_json() == {
        "errors": [{"code": "match/not_found", "message": "there is no match 'nope'"}]
    }
    r = client.get(f"/api/matches/{mid}/post?format=html")
    assert r.status_code == 422
    assert r.get_json() == {
        "errors": [
            {"code": "post/bad_format", "message": "format must be markdown or bbcode, not 'html'"}
        ]
    }
    assert answered == [
        "/matches/nope",
        f"/matches/{mid}/post",
        f"{links.host}/open",
        links.seats[1],
        f"/matches/{mid}/results.svg",
        f"/api/matches/{mid}/me",
        "/api/matches/nope",
        f"/api/matches/{mid}/post",
    ]


def test_a_refusal_outside_any_blueprint_is_a_refusal_not_a_server_error(
    client: FlaskClient, answered: list[str]
) -> None:
    # the plain-text check runs before routing: a form posted to no page (or to a
    # page that takes no POST) is refused for its text, as on a page
    for path in ("/nowhere", "/"):
        refused_page(client.post(path, data={"x": "a\x00"}), 422, "That was refused", NUL_TEXT)
    assert answered == ["/nowhere", "/"]
