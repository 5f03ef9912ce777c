"""Season sign-ups' pages (issue 23, item 7) on SQLite and PostgreSQL, from the
browser's forms alone (no script): a season created with sign-ups open and an
empty roster, players joining by the posted link and seeing their own link once
(``no-store``), hostile names escaped, the host page listing them with remove
buttons, the first Main Match refused while sign-ups are open, removing refused
after it; CSRF, the rate limits (429 with a plain message) and wrong links."""

from __future__ import annotations

import re
from typing import Any

from flask import Flask
from flask.testing import FlaskClient
from markupsafe import escape

from referee.notify.config import NotifyConfig
from referee.seasons.service import Seasons

HOSTILE = '<img src=x onerror="alert(1)">'


def html(r: Any) -> str:
    text: str = r.get_data(as_text=True)
    return text


def create_open_season(client: FlaskClient, roster: tuple[str, ...] = ()) -> dict[str, str]:
    data = {"name": "Forum S1", "token_bonus": "0", "token_lasts": "episode", "signups": "y"}
    for i, name in enumerate(roster):
        data[f"players-{i}-name"] = name
    r = client.post("/seasons/new", data=data)
    assert r.status_code == 303, html(r)
    text = html(client.get(r.headers["Location"]))
    host = re.search(r'id="host-link" href="http://localhost(/season-host/[^"]+)"', text)
    join = re.search(r'id="signup-link" href="http://localhost(/join/[^"]+)"', text)
    public = re.search(r'href="http://localhost/seasons/([0-9a-f]+)"', text)
    assert host and join and public, text
    return {"host": host.group(1), "join": join.group(1), "id": public.group(1)}


def joined_link(r: Any) -> str:
    found = re.search(r'id="joined-link" data-player="\d+" href="http://localhost([^"]+)"', html(r))
    assert found, html(r)
    return found.group(1)


def test_players_join_by_the_posted_link_and_the_host_runs_the_sign_ups(
    app: Flask, client: FlaskClient
) -> None:
    links = create_open_season(client)
    host, join, sid = links["host"], links["join"], links["id"]
    seasons: Seasons = app.extensions["seasons"]

    # the join page: a plain form (works without JavaScript), kept by no cache
    page = client.get(join)
    assert page.status_code == 200 and page.headers["Cache-Control"] == "no-store"
    text = html(page)
    assert f'<form method="post" action="{join}"' in text and 'name="name"' in text
    assert 'name="email"' not in text  # this server sends no mail

    r = client.post(join, data={"name": HOSTILE})
    assert r.status_code == 200 and r.headers["Cache-Control"] == "no-store"
    assert HOSTILE not in html(r) and str(escape(HOSTILE)) in html(r)
    assert "shown only once" in html(r)
    first = joined_link(r)
    assert client.get(first).status_code == 200
    bo = joined_link(client.post(join, data={"name": "Bo"}))
    cy = client.post(join, data={"name": "Cy"})
    assert cy.status_code == 200
    # the same name again, or one that looks alike: refused, on the form, in plain words
    again = client.post(join, data={"name": "bo"})
    assert again.status_code == 422 and "looks like" in html(again)
    assert "Bo" in html(again)
    assert len(seasons.state(sid).players) == 3

    # the host page: the link to post, the players (escaped), a remove button each
    text = html(client.get(host))
    section = re.search(r'<section class="action signups".*?</section>', text, re.S)
    assert section and 'data-signups="open"' in section.group(0)
    assert f'value="http://localhost{join}"' in section.group(0)
    assert HOSTILE not in text and str(escape(HOSTILE)) in section.group(0)
    assert section.group(0).count(">Remove</button>") == 3

    # the first Main Match waits for the sign-ups to close
    r = client.post(f"{host}/main", data={"game": "rocky-river", "players": ["1", "2", "3"]})
    assert r.status_code == 409 and "close sign-ups first" in html(r)
    assert seasons.state(sid).episodes == []
    r = client.post(f"{host}/signups", data={"open": "0"})
    assert r.status_code == 303
    closed = client.post(join, data={"name": "Di"})
    assert closed.status_code == 409 and "closed" in html(closed)
    assert "Sign-ups for this season are closed" in html(client.get(join))
    # closing is not final before the first Main Match: open, join, close again
    assert client.post(f"{host}/signups", data={"open": "1"}).status_code == 303
    assert client.post(join, data={"name": "Di"}).status_code == 200
    assert client.post(f"{host}/signups", data={"open": "0"}).status_code == 303

    # remove the first player: their link opens nothing, the others' still work
    r = client.post(f"{host}/signups/remove", data={"player": "1"})
    assert r.status_code == 303
    assert client.get(first).status_code == 404
    assert client.get(bo).status_code == 200
    assert [p.number for p in seasons.state(sid).players] == [2, 3, 4]
    r = client.post(f"{host}/main", data={"game": "rocky-river", "players": ["2", "3", "4"]})
    assert r.status_code == 303, html(r)
    # after it: no removing, no reopening, and the page says why
    r = client.post(f"{host}/signups/remove", data={"player": "2"})
    assert r.status_code == 409 and "first Main Match has been made" in html(r)
    r = client.post(f"{host}/signups", data={"open": "1"})
    assert r.status_code == 409 and "only before the first Main Match" in html(r)
    text = html(client.get(host))
    assert ">Remove</button>" not in text and ">Open sign-ups</button>" not in text


def test_a_season_with_no_players_yet_has_working_public_pages(client: FlaskClient) -> None:
    links = create_open_season(client)
    sid = links["id"]
    for suffix in ("", "/garnets.svg", "/garnets.png", "/ledger.csv", "/ledger.json"):
        assert client.get(f"/seasons/{sid}{suffix}").status_code == 200, suffix
    for fmt in ("markdown", "bbcode"):
        assert client.get(f"/seasons/{sid}/post?format={fmt}").status_code == 200
        assert client.get(f"/seasons/{sid}/forum-post?format={fmt}").status_code == 200
    step = re.search(r'data-step="(\w+)"', html(client.get(links["host"])))
    assert step and step.group(1) == "main"  # not "the season is over"


def test_a_season_without_sign_ups_opens_them_from_the_host_page(client: FlaskClient) -> None:
    data = {"name": "S", "token_bonus": "0", "token_lasts": "episode"}
    data.update({"players-0-name": "Ana", "players-1-name": "Bo"})
    r = client.post("/seasons/new", data=data)
    text = html(client.get(r.headers["Location"]))
    assert 'id="signup-link"' not in text
    host = re.search(r'id="host-link" href="http://localhost(/season-host/[^"]+)"', text)
    assert host
    page = html(client.get(host.group(1)))
    assert 'data-signups="closed"' in page and ">Open sign-ups</button>" in page
    assert client.post(f"{host.group(1)}/signups", data={"open": "1"}).status_code == 303
    page = html(client.get(host.group(1)))
    join = re.search(
        r'id="signup-url" class="signup-url" type="text" readonly value="([^"]+)"', page
    )
    assert join
    path = join.group(1).removeprefix("http://localhost")
    assert joined_link(client.post(path, data={"name": "Cy"}))
    # without sign-ups a season still needs 2 players
    r = client.post("/seasons/new", data={**data, "players-1-name": ""})
    assert r.status_code == 422 and "or sign-ups open" in html(r)


def test_an_address_is_asked_for_only_where_mail_is_sent(app: Flask, client: FlaskClient) -> None:
    join = create_open_season(client)["join"]
    r = client.post(join, data={"name": "Ana", "email": "ana@example.org"})
    assert r.status_code == 422 and "sends no e-mail" in html(r)
    app.extensions["referee"].notify = NotifyConfig(smtp_url="smtp://127.0.0.1:9")
    assert 'name="email"' in html(client.get(join))
    assert client.post(join, data={"name": "Ana", "email": "ana@example.org"}).status_code == 200


def test_joining_needs_the_forms_csrf_token(app: Flask) -> None:
    app.config["WTF_CSRF_ENABLED"] = False
    join = create_open_season(app.test_client())["join"]
    app.config["WTF_CSRF_ENABLED"] = True
    browser = app.test_client()
    r = browser.post(join, data={"name": "Ana"})
    assert r.status_code == 400 and "The form expired" in html(r)
    token = re.search(r'name="csrf_token" type="hidden" value="([^"]+)"', html(browser.get(join)))
    assert token
    other = app.test_client()
    r = other.post(join, data={"name": "Ana", "csrf_token": token.group(1)})
    assert r.status_code == 400  # another browser's token
    assert browser.post(join, data={"name": "Ana", "csrf_token": token.group(1)}).status_code == 200


def test_joining_is_rate_limited_per_address_and_per_season(
    app: Flask, client: FlaskClient
) -> None:
    first = create_open_season(client)["join"]
    second = create_open_season(client)["join"]
    app.config["RATELIMIT_SIGNUPS"] = "2 per hour"
    app.config["RATELIMIT_SIGNUPS_PER_SEASON"] = "3 per hour"
    assert client.post(first, data={"name": "A1"}).status_code == 200
    assert client.post(second, data={"name": "A2"}).status_code == 200
    r = client.post(first, data={"name": "A3"})
    assert r.status_code == 429 and int(r.headers["Retry-After"]) >= 1
    assert "Too many sign-ups came from your address" in html(r)
    assert "Nothing was changed" in html(r)
    # another address may still join; and a season's own count stops everyone
    for i, addr in enumerate(("10.0.0.7", "10.0.0.8"), start=1):
        r = client.post(second, data={"name": f"B{i}"}, environ_base={"REMOTE_ADDR": addr})
        assert r.status_code == 200
    r = client.post(second, data={"name": "B3"}, environ_base={"REMOTE_ADDR": "10.0.0.9"})
    assert r.status_code == 429 and "for this season" in html(r)


def test_a_wrong_sign_up_link_is_a_failed_link_attempt(app: Flask, client: FlaskClient) -> None:
    join = create_open_season(client)["join"]
    app.config["RATELIMIT_FAILED_TOKENS"] = "3 per minute"
    for guess in (join[:-1], join + "A", "/join/" + "x" * 43):
        r = client.get(guess)
        assert r.status_code == 404 and "sign-up link does not open anything" in html(r)
    assert client.get(join).status_code == 429  # the right one too, from this address
    assert client.get(join, environ_base={"REMOTE_ADDR": "10.0.0.9"}).status_code == 200
