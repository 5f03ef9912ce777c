"""The session cookie stays under what browsers keep (issue 22, part 2), on
SQLite and PostgreSQL, through the pages alone.

Three keys of the signed session keep secret links for the page after a POST:
a new match's links (``new_matches``), a re-issued link (``reissued_links``)
and a new season's links (``new_seasons``); a fourth kept a season match's
host link until issue 23 derived those (the season host page always links
them, so nothing of them is kept). Each had its own budget, and together they
made a cookie of 4,211 bytes: browsers drop a cookie over 4,096 bytes, and with
it every kept link and the CSRF token. The whole cookie is now bounded
(``referee.web.pages.keep_in_session``): the oldest kept entries, of any key,
go first, and a link that cannot be kept is shown on the answer itself."""

from __future__ import annotations

import re
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from flask import Flask, session
from flask.testing import FlaskClient

from referee.seasons.service import Seasons
from referee.service import Referee
from referee.web import pages

from ..test_seasons import play_to_the_end
from .web_kit import Clock, Links, new_match_form

THREE_RAPIDS = Path(__file__).resolve().parents[3] / "seeds" / "maps" / "three-rapids.json"
BROWSER_LIMIT = 4096  # bytes of one cookie: name, value and attributes
SIX = [f"Player {n}" for n in range(1, 7)]


class Watched:
    """A test client whose every answer's Set-Cookie headers are measured."""

    def __init__(self, client: FlaskClient) -> None:
        self.client = client
        self.largest = 0

    def measure(self, r: Any) -> Any:
        for header in r.headers.getlist("Set-Cookie"):
            size = len(header.encode())
            assert size <= BROWSER_LIMIT, (size, header[:80])
            self.largest = max(self.largest, size)
        return r

    def get(self, url: str, **kw: Any) -> Any:
        return self.measure(self.client.get(url, **kw))

    def post(self, url: str, **kw: Any) -> Any:
        return self.measure(self.client.post(url, **kw))


@pytest.fixture
def web(client: FlaskClient) -> Watched:
    # as in a browser with CSRF on: the session holds its token from the first form
    with client.session_transaction() as session:
        session["csrf_token"] = "f" * 40
    return Watched(client)


def rocky_match(web: Watched, name: str, **extra: str) -> Links:
    """A Rocky River match through the form; its links, from the page the
    POST redirects to."""
    r = web.post("/new", data=new_match_form(name, **extra))
    assert r.status_code == 303, r.get_data(as_text=True)[:2000]
    html = web.get(r.headers["Location"]).get_data(as_text=True)
    host = re.search(r'id="host-link" href="http://localhost(/host/[^"]+)"', html)
    seats = re.findall(r'href="http://localhost(/play/[^"]+)"', html)
    match_id = r.headers["Location"].rsplit("/", 1)[1]
    assert host and len(seats) == 3
    return Links(match_id, host.group(1), dict(enumerate(seats, start=1)))


def new_forks_match(web: Watched, name: str) -> str:
    """A Forks match of six seats (the most links of one match) through the form."""
    data = {"game": "forks-2e", "name": name, "deadline_hours": "48", "create": "1"}
    for i, player in enumerate(SIX):
        data[f"players-{i}-name"] = player
        data[f"players-{i}-garnets"] = "1"
    r = web.post("/new", data=data)
    assert r.status_code == 303, r.get_data(as_text=True)[:2000]
    location: str = r.headers["Location"]
    return location.rsplit("/", 1)[1]


def new_rocky_match_with_report(web: Watched, name: str) -> str:
    """A Rocky River match on a pasted map: its balance report is kept too."""
    links = rocky_match(web, name, bundled_map="", map_json=THREE_RAPIDS.read_text("utf-8"))
    assert "balance" in web.get(f"/new/{links.match_id}").get_data(as_text=True).lower()
    return links.match_id


def links_page_kept(web: Watched, match_id: str) -> bool:
    r = web.get(f"/new/{match_id}")
    assert r.status_code in (200, 404)
    return bool(r.status_code == 200)


def reissue(web: Watched, links: Links, who: str) -> str:
    r = web.post(f"{links.host}/reissue", data={"who": who, "sure": "y"})
    assert r.status_code == 303, r.get_data(as_text=True)[:2000]
    location: str = r.headers["Location"]
    return location


def reissued_kept(web: Watched, location: str) -> bool:
    r = web.get(location)
    assert r.status_code in (200, 302)
    return bool(r.status_code == 200 and 'id="new-link"' in r.get_data(as_text=True))


def new_season(web: Watched, players: int, name: str = "Budget") -> tuple[str, str]:
    """A season through the form: (its id, its host page)."""
    data = {"name": name, "token_bonus": "0", "token_lasts": "episode"}
    for i in range(players):
        data[f"players-{i}-name"] = f"Season player {i + 1:02d}"
        data[f"players-{i}-garnets"] = "3"
    r = web.post("/seasons/new", data=data)
    assert r.status_code == 303, r.get_data(as_text=True)[:2000]
    location: str = r.headers["Location"]
    season_id = location.split("/")[2]
    page = web.get(location)
    assert page.status_code == 200
    host = re.search(
        r'id="host-link" href="http://localhost(/season-host/[^"]+)"', page.get_data(as_text=True)
    )
    assert host
    return season_id, host.group(1)


def season_links_kept(web: Watched, season_id: str) -> bool:
    r = web.get(f"/seasons/{season_id}/links")
    assert r.status_code in (200, 404)
    return bool(r.status_code == 200)


def shown_match_hosts(text: str) -> dict[str, str]:
    """The season host page's matches: match id -> its host link."""
    return dict(
        re.findall(
            r'<li data-match="([0-9a-f]+)">.*?class="secret-link match-host-link" '
            r'href="(/host/[^"]+)"',
            text,
            re.S,
        )
    )


def season_main(web: Watched, host: str, players: list[int]) -> Any:
    return web.post(
        f"{host}/main", data={"game": "rocky-river", "players": [str(p) for p in players]}
    )


def next_season_match(
    web: Watched, seasons: Seasons, svc: Referee, season_id: str, host: str
) -> str:
    """Create the season's next match through the host page (a Main Match, or
    the episode's Death Match), the episode moved on by the service; its id."""
    state = seasons.state(season_id)
    e = state.episodes[-1] if state.episodes else None
    if e is None or state.done(e):
        r = season_main(web, host, state.remaining()[:3])
    else:
        assert e.main_match_id is not None
        play_to_the_end(svc, e.main_match_id)
        seasons.record_main(season_id, e.number)
        e = seasons.state(season_id).episodes[-1]
        opponent = seasons.opponents(season_id, e.number)[0]
        seasons.choose_opponent(season_id, e.number, chooser=e.candidate, opponent=opponent)
        r = web.post(f"{host}/death", data={"game": "forks-2e"})
    assert r.status_code == 303, r.get_data(as_text=True)[:2000]
    e = seasons.state(season_id).episodes[-1]
    made = e.death_match_id or e.main_match_id
    assert made is not None
    if e.death_match_id is not None:  # end the episode, so a Main Match comes next
        play_to_the_end(svc, e.death_match_id)
        seasons.record_death(season_id, e.number)
    return made


# ---- every key at its most ----------------------------------------------------------


def test_every_kept_key_at_its_most_never_makes_a_cookie_browsers_drop(
    app: Flask, web: Watched, svc: Referee, clock: Clock
) -> None:
    seasons: Seasons = app.extensions["seasons"]
    # three new matches (two of six seats, one with its balance report)
    matches = [new_forks_match(web, "Six 1"), new_forks_match(web, "Six 2")]
    matches.append(new_rocky_match_with_report(web, "Reported"))
    assert all(links_page_kept(web, m) for m in matches)
    # three re-issued links
    links = rocky_match(web, "Reissued")
    reissued = [reissue(web, links, who) for who in ("1", "2", "3")]
    assert reissued_kept(web, reissued[-1])
    # three season matches, of a season of eight: the host page links them all,
    # and the session keeps nothing of them
    season_id, host = new_season(web, 8)
    made = [next_season_match(web, seasons, svc, season_id, host) for _ in range(3)]
    assert set(made) <= set(shown_match_hosts(web.get(host).get_data(as_text=True)))
    with web.client.session_transaction() as held:
        assert "season_matches" not in held
    # and a season of 54 (the largest the old budget of its key kept): the rest must give way
    big_id, _ = new_season(web, 54, "Big")
    assert season_links_kept(web, big_id)
    # the newest of each key is kept when it is made, whatever was kept before
    newest = new_forks_match(web, "Six 3")
    assert links_page_kept(web, newest)
    assert reissued_kept(web, reissue(web, links, "host"))
    assert web.largest > 3400  # the cookie was filled to its budget
    assert not links_page_kept(web, matches[0])  # the oldest went first


def test_an_entry_is_kept_up_to_the_budget_and_refused_one_byte_over(
    app: Flask, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The budget pinned on both sides: an entry whose cookie is exactly
    SESSION_BUDGET bytes is kept, one byte more and it is not (nothing kept)."""
    entry = {"id": "m1", "at": 1.0e9, "host": "h" * 43, "seats": [[1, "s" * 43]]}
    with app.test_request_context():
        size = pages.session_cookie_bytes({"new_matches": [entry]})
        assert size > pages.session_cookie_bytes({})
    for budget, kept in ((size, True), (size - 1, False)):
        monkeypatch.setattr(pages, "SESSION_BUDGET", budget, raising=False)
        with app.test_request_context():
            got = pages.keep_in_session(
                "new_matches", dict(entry), keep_for=timedelta(days=99999), most=3, replaces=bool
            )
            assert got is kept and ("new_matches" in session) is kept


# ---- what cannot be kept is shown on the answer ----------------------------------------


def test_a_season_match_host_link_needs_no_room_in_the_session(
    app: Flask, web: Watched, svc: Referee, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With a session that has no room left, a new season match's host link is
    still on the season host page, in this browser and in a fresh one."""
    season_id, host = new_season(web, 3)
    monkeypatch.setattr(pages, "SESSION_BUDGET", 200, raising=False)  # as if it held much else
    r = season_main(web, host, [1, 2, 3])
    assert r.status_code == 303
    seasons: Seasons = app.extensions["seasons"]
    match_id = seasons.state(season_id).episodes[-1].main_match_id
    assert match_id is not None
    match_host = shown_match_hosts(web.get(host).get_data(as_text=True))[match_id]
    assert web.get(match_host).status_code == 200
    fresh = app.test_client()
    assert shown_match_hosts(fresh.get(host).get_data(as_text=True))[match_id] == match_host


def test_a_reissued_link_that_cannot_be_kept_is_shown_on_the_answer(
    web: Watched, monkeypatch: pytest.MonkeyPatch
) -> None:
    links = rocky_match(web, "Reissue")
    monkeypatch.setattr(pages, "SESSION_BUDGET", 200, raising=False)
    r = web.post(f"{links.host}/reissue", data={"who": "2", "sure": "y"})
    assert r.status_code == 200 and r.headers["Cache-Control"] == "no-store"
    text = r.get_data(as_text=True)
    assert "shown only once" in text
    (new_link,) = re.findall(r'id="new-link" href="http://localhost(/play/[^"]+)"', text)
    assert web.get(new_link).status_code == 200 and web.get(links.seats[2]).status_code == 404
    assert not reissued_kept(web, f"{links.host}/reissued/2")


def test_a_season_whose_links_cannot_be_kept_shows_them_on_the_answer(
    web: Watched, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(pages, "SESSION_BUDGET", 200, raising=False)
    data = {"name": "Crowded", "players-0-name": "Ana", "players-1-name": "Bo"}
    r = web.post("/seasons/new", data=data)
    assert r.status_code == 200 and r.headers["Cache-Control"] == "no-store"
    text = r.get_data(as_text=True)
    assert "shown only once" in text and 'id="host-link"' in text
    assert len(re.findall(r'href="http://localhost/season/[^"]+"', text)) == 2


# ---- the oldest go first -----------------------------------------------------------------


def test_the_oldest_kept_entries_of_any_key_go_first(
    app: Flask, web: Watched, svc: Referee, clock: Clock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A minute apart: a match's links, a re-issued link, a season's links, a
    season match (whose host link the season host page derives); then one more
    match, in a cookie with room for one entry less: the oldest (the first
    match's links) goes, the rest stay."""

    def tick() -> None:
        clock.now = clock.now.replace(minute=clock.now.minute + 1)

    first = rocky_match(web, "First")  # kept at minute 0
    tick()
    location = reissue(web, first, "3")
    tick()
    season_id, host = new_season(web, 3)
    tick()
    assert season_main(web, host, [1, 2, 3]).status_code == 303
    seasons: Seasons = app.extensions["seasons"]
    season_match = seasons.state(season_id).episodes[-1].main_match_id
    assert season_match is not None
    tick()
    with app.test_request_context(), web.client.session_transaction() as held:
        now_bytes = pages.session_cookie_bytes(held)
    # no room for one entry more
    monkeypatch.setattr(pages, "SESSION_BUDGET", now_bytes + 40, raising=False)
    second = rocky_match(web, "Second")
    assert not links_page_kept(web, first.match_id)  # the oldest: gone
    assert links_page_kept(web, second.match_id)  # the newest: kept
    assert reissued_kept(web, location)
    assert season_links_kept(web, season_id)
    assert season_match in shown_match_hosts(web.get(host).get_data(as_text=True))
