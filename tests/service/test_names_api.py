"""Names through the service and the JSON API (issue 10, Medium 5): a match or
player name with a control character, tab, line break or bidi control, a name
of invisible characters only, and two look-alike player names are refused with
422 and a stable code, nothing stored; and a post stays safe for names stored
before these checks existed. Each test runs on SQLite and PostgreSQL."""

from __future__ import annotations

from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from markdown_it import MarkdownIt

from referee.db import transaction
from referee.errors import RuleError
from referee.models import Match, Seat
from referee.service import Referee

from .conftest import PLAYERS

GOOD: dict[str, Any] = {"name": "Names", "map": "three-rapids", "players": PLAYERS}


def with_names(*names: str) -> list[dict[str, Any]]:
    return [{**p, "name": n} for p, n in zip(PLAYERS, names, strict=True)]


def refused(client: FlaskClient, app: Flask, body: dict[str, Any]) -> list[dict[str, str]]:
    resp = client.post("/api/matches", json=body)
    assert resp.status_code == 422, resp.get_json()
    assert app.extensions["referee"].match_ids() == []
    errors: list[dict[str, str]] = resp.get_json()["errors"]
    return errors


BAD_PLAYER_NAMES = [
    ("Ana\nToken of Life: Bo", "U+000A"),
    ("Ana\r", "U+000D"),
    ("A\tna", "U+0009"),
    ("Ana\u2028Bo", "U+2028"),
    ("Ana\u0085", "U+0085"),
    ("\u202eanA", "U+202E"),
    ("Ana\u2067", "U+2067"),
    ("Ana\u200e", "U+200E"),
    ("\u200fAna", "U+200F"),
    ("An\u061ca", "U+061C"),
]
BIDI = {"U+202E", "U+2067", "U+200E", "U+200F", "U+061C"}


@pytest.mark.parametrize(("name", "char"), BAD_PLAYER_NAMES, ids=[c for _, c in BAD_PLAYER_NAMES])
def test_api_refuses_a_player_name_that_is_not_one_line(
    client: FlaskClient, app: Flask, name: str, char: str
) -> None:
    (error,) = refused(client, app, {**GOOD, "players": with_names("Ana", name, "Cy")})
    assert error["code"] == "match/bad_name"
    assert error["message"].startswith("Seat 2: ") and char in error["message"]
    assert error["field"] == "players[1]"
    if char in BIDI:
        assert f"a bidirectional-text control ({char})" in error["message"]


def test_api_accepts_a_player_name_with_a_zero_width_joiner(client: FlaskClient) -> None:
    """U+200D, beside the refused direction marks, stays accepted (some
    scripts need it; two names differing only by it are look-alikes)."""
    resp = client.post(
        "/api/matches", json={**GOOD, "players": with_names("Ana", "B\u200do", "Cy")}
    )
    assert resp.status_code == 201, resp.get_json()


@pytest.mark.parametrize("name", ["Friday\nmatch", "Tab\there", "x\u2029y", "\u2066Match"])
def test_api_refuses_a_match_name_that_is_not_one_line(
    client: FlaskClient, app: Flask, name: str
) -> None:
    (error,) = refused(client, app, {**GOOD, "name": name})
    assert error["code"] == "match/bad_name" and error["field"] == "name"
    assert "U+" in error["message"]


def test_api_refuses_names_of_invisible_characters_only(client: FlaskClient, app: Flask) -> None:
    errors = refused(
        client, app, {**GOOD, "name": "\u200b\u200b", "players": with_names("Ana", "Bo", "\u00ad")}
    )
    assert [(e["code"], e.get("field")) for e in errors] == [
        ("match/bad_name", "name"),
        ("match/bad_name", "players[2]"),
    ]


@pytest.mark.parametrize(
    "names",
    [("Ana", "\u0410na", "Cy"), ("Ana", "Bo", "ANA"), ("Ana", "Bo", "A\u200bna")],
    ids=["cyrillic", "case", "zero-width"],
)
def test_api_refuses_two_look_alike_player_names(
    client: FlaskClient, app: Flask, names: tuple[str, str, str]
) -> None:
    (error,) = refused(client, app, {**GOOD, "players": with_names(*names)})
    assert error["code"] == "match/confusable_names"
    seats = sorted(i + 1 for i, n in enumerate(names) if n != "Bo" and n != "Cy")
    assert f"seats {seats[0]} and {seats[1]}" in error["message"]
    assert '"Ana"' in error["message"]


def test_markup_in_names_is_still_accepted(client: FlaskClient) -> None:
    """Only control characters, line breaks and look-alikes are refused: markup is text."""
    names = ("<script>alert(1)</script>", "[url=https://evil.example]x[/url]", "**Cy** & co")
    resp = client.post(
        "/api/matches", json={**GOOD, "name": "# <b>m</b>", "players": with_names(*names)}
    )
    assert resp.status_code == 201, resp.get_json()


def test_the_service_refuses_them_whatever_the_caller(svc: Referee) -> None:
    with pytest.raises(RuleError) as bad:
        svc.create_match(
            name="m\nx", setup={"map": "three-rapids"}, players=with_names("Ana", "Bo\nx", "Cy")
        )
    assert bad.value.codes == ["match/bad_name", "match/bad_name"]
    with pytest.raises(RuleError) as alike:
        svc.create_match(
            name="m", setup={"map": "three-rapids"}, players=with_names("Ana", "Bo", "\uff21na")
        )
    assert alike.value.codes == ["match/confusable_names"]
    assert svc.match_ids() == []


def test_a_post_is_safe_for_names_stored_before_the_checks(
    client: FlaskClient, svc: Referee
) -> None:
    """Names written straight into the database (as an older version could have
    stored them) stay on their line and show as text in both posts."""
    created = svc.create_match(name="Old", setup={"map": "three-rapids"}, players=PLAYERS)
    mid = created.match_id
    with transaction(svc.engine) as session:
        match = session.get(Match, mid)
        assert match is not None
        match.name = "Old\n# Token of Life: Bo"
        match.version += 1
        session.add(match)
        seat = session.get(Seat, (mid, 1))
        assert seat is not None
        seat.name = "Ana\nToken of Life: Bo ![t](https://evil.example/t.png)"
        session.add(seat)
    for fmt in ("markdown", "bbcode"):
        resp = client.get(f"/matches/{mid}/post?format={fmt}")
        assert resp.status_code == 200 and resp.mimetype == "text/plain"
        text = resp.get_data(as_text=True)
        lines = text.splitlines()
        assert not any(line.startswith(("Token of Life", "# Token")) for line in lines), text
        assert any("Ana Token of Life" in line for line in lines)
        api = client.get(f"/api/matches/{mid}/post?format={fmt}").get_json()["post"]
        assert api == text
    post = client.get(f"/matches/{mid}/post?format=markdown").get_data(as_text=True)
    html = MarkdownIt("gfm-like").render(post)
    assert "<a" not in html and "<h1" not in html
    assert html.count("<img") == 1  # our own map picture only
    assert 'src="http://localhost/matches/' in html
