"""The season host page reaches every match made from the season (issue 23,
item 1): in any browser, not only the one that made the match, and a host
link re-issued from there (or taken back after the match's own dashboard
re-issued it) works at once while the old one answers 404. From the forms
alone, on SQLite and PostgreSQL."""

from __future__ import annotations

import re

from flask import Flask
from flask.testing import FlaskClient

from referee.seasons.service import Seasons
from referee.service import Referee

from .test_season_pages import create_season, html


def season_match_hosts(text: str) -> dict[str, str | None]:
    """The "Matches of this season" list: match id -> its host link (None: not linked)."""
    out: dict[str, str | None] = {}
    for match_id, item in re.findall(r'<li data-match="([0-9a-f]+)">(.*?)</li>', text, re.S):
        found = re.search(r'class="secret-link match-host-link" href="(/host/[^"]+)"', item)
        out[match_id] = found.group(1) if found else None
    return out


def started(app: Flask, client: FlaskClient) -> tuple[str, str, str]:
    """A season and its first Main Match, made from the host page: host page, season, match."""
    links = create_season(client)
    r = client.post(
        f"{links['host']}/main", data={"game": "rocky-river", "players": ["1", "2", "3"]}
    )
    assert r.status_code == 303, html(r)
    seasons: Seasons = app.extensions["seasons"]
    match_id = seasons.state(links["id"]).episodes[-1].main_match_id
    assert match_id is not None
    return links["host"], links["id"], match_id


def test_a_fresh_browser_reaches_the_match_host_dashboard(
    app: Flask, client: FlaskClient, svc: Referee
) -> None:
    host, _, match_id = started(app, client)
    fresh = app.test_client()  # another browser: nothing in its session
    text = html(fresh.get(host))
    match_host = season_match_hosts(text)[match_id]
    assert match_host is not None
    # the next step links it too
    assert f'<a class="match-host-link" href="{match_host}">its host dashboard</a>' in text
    dashboard = fresh.get(match_host)
    assert dashboard.status_code == 200 and dashboard.headers["Cache-Control"] == "no-store"
    assert fresh.post(f"{match_host}/open").status_code in (302, 303)
    assert svc.state(match_id).rounds


def test_the_season_host_gives_a_match_a_new_host_link(
    app: Flask, client: FlaskClient, svc: Referee
) -> None:
    host, _, match_id = started(app, client)
    old = season_match_hosts(html(client.get(host)))[match_id]
    assert old is not None
    # not without "I am sure": nothing changes
    r = client.post(f"{host}/match-host", data={"match": match_id})
    assert r.status_code == 422, html(r)
    assert "Tick “I am sure”" in html(r) and "Nothing was done" in html(r)
    assert client.get(old).status_code == 200
    r = client.post(f"{host}/match-host", data={"match": match_id, "sure": "y"})
    assert r.status_code == 303, html(r)
    text = html(client.get(host))
    assert "has a new host link" in text
    new = season_match_hosts(text)[match_id]
    assert new is not None and new != old
    assert client.get(old).status_code == 404
    assert client.get(new).status_code == 200


def test_a_link_reissued_on_the_match_dashboard_is_taken_back_from_the_season_page(
    app: Flask, client: FlaskClient, svc: Referee
) -> None:
    host, _, match_id = started(app, client)
    svc.reissue_token(match_id, None)  # as the match's own dashboard does
    text = html(client.get(host))
    assert season_match_hosts(text)[match_id] is None
    assert "its host link is not the season" in text and "Give it a host link here" in text
    r = client.post(f"{host}/match-host", data={"match": match_id, "sure": "y"})
    assert r.status_code == 303
    back = season_match_hosts(html(client.get(host)))[match_id]
    assert back is not None and client.get(back).status_code == 200


def test_only_a_match_of_this_season_gets_a_new_host_link_from_its_page(
    app: Flask, client: FlaskClient
) -> None:
    host, _, match_id = started(app, client)
    for sent in ("0123456789", "", "<b>x</b>", "x" * 500):
        r = client.post(f"{host}/match-host", data={"match": sent, "sure": "y"})
        text = html(r)
        assert r.status_code == 422, text
        assert "choose a match of this season" in text or "this season has no match" in text
        assert "<b>x</b>" not in text
    assert season_match_hosts(html(client.get(host)))[match_id] is not None
