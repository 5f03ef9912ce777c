"""The season pages (issue 15) on SQLite and PostgreSQL, from the browser's
forms alone (a test client): a 6-player season of three episodes (a Rocky
River Main Match of 3 played through the match's own host pages, a Forks 2nd
Edition Main Match of 5, a Forks Death Match of 2 played here, one Death Match
result entered by the host), the Token of Life's holder refused as the
opponent, two players eliminated, every balance the sum of the ledger; hostile
names escaped; wrong links 404; no page shows another player's links."""

from __future__ import annotations

import re
from functools import partial
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from markupsafe import escape
from sqlmodel import Session, select

from forms.season import MAX_ROSTER_ROWS, ROSTER_ROWS, NewSeasonForm
from referee.matchfile import seed_digest
from referee.models import Season
from referee.seasons.service import Seasons
from referee.service import Referee

from ..test_seasons import at_balances, game_parts, play_to_the_end, seed_where

HOSTILE = '<img src=x onerror="alert(1)">'
SEASON_NAME = '"><script>alert(1)</script> S1'
ROSTER = [("Ana", 5), (HOSTILE, 4), ("Cy", 3), ("Di", 2), ("Ed", 1), ("Flo", 0)]


def html(r: Any) -> str:
    text: str = r.get_data(as_text=True)
    return text


def create_season(client: FlaskClient) -> dict[str, Any]:
    data: dict[str, str] = {"name": SEASON_NAME, "token_bonus": "2", "token_lasts": "episode"}
    for i, (name, garnets) in enumerate(ROSTER):
        data[f"players-{i}-name"] = name
        data[f"players-{i}-garnets"] = str(garnets)
    data["players-6-name"] = ""  # a blank row is left out
    data["players-6-garnets"] = "0"
    r = client.post("/seasons/new", data=data)
    assert r.status_code == 303, html(r)
    page = client.get(r.headers["Location"])
    assert page.status_code == 200
    text = html(page)
    host = re.search(r'id="host-link" href="http://localhost(/season-host/[^"]+)"', text)
    players = re.findall(
        r'<li data-player="(\d+)">.*?href="http://localhost(/season/[^"]+)"', text, re.S
    )
    public = re.search(r'href="http://localhost(/seasons/[0-9a-f]+)"', text)
    assert host and public and len(players) == 6
    return {
        "host": host.group(1),
        "players": {int(n): path for n, path in players},
        "public": public.group(1),
        "id": public.group(1).rsplit("/", 1)[1],
    }


def host_step(client: FlaskClient, host: str) -> tuple[str, str]:
    text = html(client.get(host))
    step = re.search(r'data-step="(\w+)"', text)
    assert step
    return step.group(1), text


def kept_match_host(text: str, match_id: str) -> str:
    found = re.search(
        rf'<li data-match="{match_id}">.*?class="secret-link match-host-link" href="(/host/[^"]+)"',
        text,
        re.S,
    )
    assert found, text
    return found.group(1)


def current_episode(svc: Seasons, season_id: str) -> Any:
    return svc.state(season_id).episodes[-1]


def choose_from_page(client: FlaskClient, link: str) -> tuple[int, str]:
    """The candidate's page: the first opponent offered (not disabled)."""
    text = html(client.get(link))
    offered = re.findall(r'<input type="radio" name="opponent" value="(\d+)" id="[^"]+">', text)
    assert offered, text
    r = client.post(f"{link}/opponent", data={"opponent": offered[0]})
    assert r.status_code == 303, html(r)
    return int(offered[0]), text


def test_a_season_of_three_episodes_from_the_forms(
    app: Flask, client: FlaskClient, svc: Referee, monkeypatch: pytest.MonkeyPatch
) -> None:
    seasons: Seasons = app.extensions["seasons"]
    assert client.get("/").status_code == 200 and "/seasons/new" in html(client.get("/"))
    assert client.get("/seasons/new").status_code == 200
    links = create_season(client)
    host, sid, players = links["host"], links["id"], links["players"]
    assert seasons.state(sid).balances() == {1: 5, 2: 4, 3: 3, 4: 2, 5: 1, 6: 0}
    step, text = host_step(client, host)
    assert step == "main"

    # episode 1: Rocky River of three, a seed where someone holds the Token of Life
    # (the form takes no seed: the test gives the service one, as only a test may)
    chosen = [2, 4, 6]
    bal = seasons.state(sid).balances()
    probe_players = [
        {"seat": i, "name": ROSTER[p - 1][0], "garnets": bal[p]}
        for i, p in enumerate(chosen, start=1)
    ]
    seed = seed_where(svc, probe_players, lambda token, cand: token is not None and token != cand)
    monkeypatch.setattr(seasons, "create_main_match", partial(seasons.create_main_match, seed=seed))
    r = client.post(
        f"{host}/main", data={"game": "rocky-river", "players": [str(p) for p in chosen]}
    )
    assert r.status_code == 303, html(r)
    monkeypatch.undo()
    e1 = current_episode(seasons, sid)
    step, text = host_step(client, host)
    assert step == "main_running"
    match_host = kept_match_host(text, e1.main_match_id)
    while not svc.state(e1.main_match_id).match.finished:  # the match's own host pages
        assert client.post(f"{match_host}/open").status_code in (302, 303)
        assert client.post(f"{match_host}/close", data={"sure": "y"}).status_code in (302, 303)
    step, text = host_step(client, host)
    assert step == "record_main"
    preview = re.search(r'data-candidate="(\d+)" data-token-holder="(\d+)"', text)
    assert preview, text
    candidate, holder = int(preview.group(1)), int(preview.group(2))
    assert "Record this outcome" in text and "+2 garnets" in text
    assert seasons.state(sid).episodes[-1].recorded_at is None  # shown, not applied
    assert client.post(f"{host}/record").status_code == 303
    step, text = host_step(client, host)
    assert step == "choice"

    # the candidate: the token holder disabled with why; choosing them is refused
    page = html(client.get(players[candidate]))
    assert re.search(
        rf'value="{holder}" id="opponent-{holder}" disabled.*?\(holds a Token of Life\)', page, re.S
    )
    assert re.search(
        rf'value="{candidate}" id="opponent-{candidate}" disabled.*?\(you\)', page, re.S
    )
    refused = client.post(f"{players[candidate]}/opponent", data={"opponent": str(holder)})
    assert refused.status_code == 422 and "holds a Token of Life" in html(refused)
    not_theirs = next(p for p in players if p != candidate)
    assert "Choose your opponent" not in html(client.get(players[not_theirs]))
    other = client.post(f"{players[not_theirs]}/opponent", data={"opponent": str(holder)})
    assert other.status_code == 403  # season/not_candidate: not theirs to do
    opponent, _ = choose_from_page(client, players[candidate])
    step, text = host_step(client, host)
    assert step == "death" and 'class="chosen-opponent"' in text

    # its Death Match: Forks 2nd Edition for 2, played here
    assert client.post(f"{host}/death", data={"game": "forks-2e"}).status_code == 303
    e1 = current_episode(seasons, sid)
    assert e1.death_match_id is not None
    step, text = host_step(client, host)
    assert step == "death_running" and kept_match_host(text, e1.death_match_id)
    play_to_the_end(svc, e1.death_match_id)
    step, _ = host_step(client, host)
    assert step == "record_death"
    assert client.post(f"{host}/death-result").status_code == 422  # not without "I am sure"
    assert current_episode(seasons, sid).loser is None
    assert client.post(f"{host}/death-result", data={"sure": "y"}).status_code == 303
    first_out = seasons.state(sid).episodes[-1].loser
    assert first_out in (candidate, opponent)

    # episode 2: Forks 2nd Edition of the five still in; the result entered by hand
    remaining = seasons.state(sid).remaining()
    r = client.post(
        f"{host}/main", data={"game": "forks-2e", "players": [str(p) for p in remaining]}
    )
    assert r.status_code == 303, html(r)
    play_to_the_end(svc, current_episode(seasons, sid).main_match_id)
    assert client.post(f"{host}/record").status_code == 303
    candidate2 = current_episode(seasons, sid).candidate
    page = html(client.get(players[candidate2]))
    assert re.search(rf'id="opponent-{first_out}" disabled.*?\(eliminated\)', page, re.S)
    opponent2, _ = choose_from_page(client, players[candidate2])
    unsure = client.post(f"{host}/result", data={"loser": str(opponent2)})
    assert unsure.status_code == 422 and "I am sure" in html(unsure)
    assert current_episode(seasons, sid).loser is None
    r = client.post(f"{host}/result", data={"loser": str(opponent2), "sure": "y"})
    assert r.status_code == 303
    assert current_episode(seasons, sid).loser == opponent2

    # episode 3: ledger entries (one corrected), Rocky River of three of the four left
    left = seasons.state(sid).remaining()
    assert len(left) == 4
    r = client.post(f"{host}/entry", data={"player": str(left[0]), "change": "+10", "reason": "x"})
    assert r.status_code == 303
    wrong = seasons.state(sid).ledger[-1].id
    bad = client.post(
        f"{host}/entry",
        data={"player": str(left[1]), "change": "1", "reason": "y", "corrects": str(wrong)},
    )
    assert bad.status_code == 422 and 'id="entry-corrects-errors"' in html(bad)
    r = client.post(
        f"{host}/entry",
        data={"player": str(left[0]), "change": "-9", "reason": "+1", "corrects": str(wrong)},
    )
    assert r.status_code == 303
    r = client.post(
        f"{host}/main", data={"game": "rocky-river", "players": [str(p) for p in left[:3]]}
    )
    assert r.status_code == 303, html(r)
    play_to_the_end(svc, current_episode(seasons, sid).main_match_id)
    assert client.post(f"{host}/record").status_code == 303

    # the public standings: balances are the ledger's sums; two eliminated
    final = seasons.state(sid)
    sums = {p.number: 0 for p in final.players}
    for entry in final.ledger:
        sums[entry.player] += entry.change
    public = html(client.get(links["public"]))
    shown = {
        int(n): int(g)
        for n, g in re.findall(
            r'<tr data-player="(\d+)"[^>]*>\s*<th[^>]*>.*?</th><td>(-?\d+)</td>', public
        )
    }
    assert shown == sums == final.balances()
    assert public.count("eliminated in episode") == 2
    assert f'data-entry="{wrong}"' in public and "(corrects #" in public

    # no page shows another player's season link or match link
    for number, link in players.items():
        page = html(client.get(link))
        mine = {x["path"] for x in seasons.match_links(sid, number) if x["path"]}
        assert set(re.findall(r'href="(/play/[^"]+)"', page)) == mine
        assert all(other not in page for n, other in players.items() if n != number)
        assert host not in page
    for page in (public, html(client.get(host))):
        assert "/play/" not in page and "/season/" not in page
    assert host not in public


def test_hostile_names_are_escaped_everywhere(client: FlaskClient) -> None:
    links = create_season(client)
    pages = [
        html(client.get(links["host"])),
        html(client.get(links["public"])),
        html(client.get(links["players"][2])),
        html(client.get(links["players"][1])),
        html(client.get(f"/seasons/{links['id']}/links")),
    ]
    for page in pages:
        assert HOSTILE not in page and "<script>alert" not in page
        assert str(escape(HOSTILE)) in page


def test_wrong_links_are_not_found(app: Flask, client: FlaskClient) -> None:
    app.config["RATELIMIT_ENABLED"] = False
    links = create_season(client)
    host_token = links["host"].rsplit("/", 1)[1]
    player_token = links["players"][1].rsplit("/", 1)[1]
    for path in (
        "/season-host/not-a-token",
        "/season/not-a-token",
        f"/season/{host_token}",
        f"/season-host/{player_token}",
        "/seasons/0000000000",
        "/seasons/0000000000/links",
    ):
        assert client.get(path).status_code == 404, path
    assert client.post("/season/not-a-token/opponent", data={"opponent": "2"}).status_code == 404
    assert client.post("/season-host/nope/entry", data={}).status_code == 404
    # the links page of a new season is for the browser that created it
    assert app.test_client().get(f"/seasons/{links['id']}/links").status_code == 404


def test_a_refused_season_shows_its_problems_beside_the_fields(client: FlaskClient) -> None:
    r = client.post(
        "/seasons/new",
        data={
            "name": "",
            "token_bonus": "lots",
            "token_lasts": "episode",
            "players-0-name": "Ana",
        },
    )
    text = html(r)
    assert r.status_code == 422
    assert 'id="name-errors"' in text and 'id="token_bonus-errors"' in text
    assert "2 to 64 players" in text
    assert 'value="Ana"' in text  # what was typed is kept


def test_wrong_season_links_count_as_failed_attempts(app: Flask, client: FlaskClient) -> None:
    links = create_season(client)
    app.config["RATELIMIT_FAILED_TOKENS"] = "3 per minute"
    for _ in range(5):  # a public page that is not there guesses no link
        assert client.get("/seasons/0000000000").status_code == 404
    for path in ("/season/a", "/season-host/b", "/season/c"):
        assert client.get(path).status_code == 404
    assert client.get(links["host"]).status_code == 429
    assert client.get(links["public"]).status_code == 200


def test_pages_with_secret_links_are_kept_by_no_cache(client: FlaskClient) -> None:
    """The host's and players' season pages, and the page of a new season's
    links, are never cached; the public standings may be."""
    r = client.post(
        "/seasons/new",
        data={"name": "Cache", "players-0-name": "Ana", "players-1-name": "Bo"},
    )
    links = client.get(r.headers["Location"])
    assert links.headers["Cache-Control"] == "no-store"
    text = html(links)
    host = re.search(r'id="host-link" href="http://localhost(/season-host/[^"]+)"', text)
    player = re.search(r'href="http://localhost(/season/[^"]+)"', text)
    public = re.search(r'href="http://localhost(/seasons/[0-9a-f]+)"', text)
    assert host and player and public
    for path in (host.group(1), player.group(1)):
        assert client.get(path).headers["Cache-Control"] == "no-store", path
    assert client.get(public.group(1)).headers.get("Cache-Control") != "no-store"


def test_the_season_host_chooses_no_seed(app: Flask, client: FlaskClient, svc: Referee) -> None:
    """Issue 22: a seed chosen by the host would tell them every sealed deal,
    default and draw before any step closes (and let them grind seeds to rig a
    Death Match). The host's forms offer none, and a post that still carries
    ``seed=`` makes a match whose seed the poster did not choose; no page shows
    the seed before the end."""
    seasons: Seasons = app.extensions["seasons"]
    links = create_season(client)
    host, sid = links["host"], links["id"]
    assert 'name="seed"' not in html(client.get(host))
    posted = "the-host-chose-this-seed"
    everyone = [str(p) for p in range(1, 7)]
    r = client.post(f"{host}/main", data={"game": "forks-2e", "players": everyone, "seed": posted})
    assert r.status_code == 303, html(r)
    main = svc.state(current_episode(seasons, sid).main_match_id).match
    assert main.seed != posted and main.seed_sha256 != seed_digest(posted)
    host_page = html(client.get(host))
    match_host = kept_match_host(host_page, main.id)
    for page in (host_page, html(client.get(f"/matches/{main.id}")), html(client.get(match_host))):
        assert posted not in page and main.seed not in page
    play_to_the_end(svc, main.id)
    outcome = seasons.record_main(sid, 1)
    seasons.choose_opponent(
        sid, 1, chooser=outcome.candidate, opponent=seasons.opponents(sid, 1)[0]
    )
    assert 'name="seed"' not in html(client.get(host))
    r = client.post(f"{host}/death", data={"game": "forks-2e", "seed": posted})
    assert r.status_code == 303, html(r)
    death = svc.state(current_episode(seasons, sid).death_match_id or "").match
    assert death.seed != posted and death.seed_sha256 != seed_digest(posted)
    host_page = html(client.get(host))
    assert posted not in host_page and death.seed not in host_page
    assert death.seed not in html(client.get(f"/matches/{death.id}"))


# ---- bounded rows and the creation limit (issue 22) ------------------------------------


def roster_rows(count: int, named: bool = False) -> dict[str, str]:
    """The create form's fields with ``count`` roster rows (blank or named)."""
    data = {"name": "Rows", "token_bonus": "0", "token_lasts": "episode"}
    for i in range(count):
        data[f"players-{i}-name"] = f"P{i}" if named else ""
        data[f"players-{i}-garnets"] = "0"
    return data


def rows_shown(text: str) -> int:
    return len(re.findall(r'name="players-\d+-name"', text))


def test_roster_rows_are_bounded_before_the_form_is_built(app: Flask, client: FlaskClient) -> None:
    """Issue 22: 20,000 posted rows built 20,000 form rows and a 12.7 MB page.
    More than MAX_ROSTER_ROWS (64) distinct rows are refused at once, with the
    page's normal rows; 64 are taken."""
    app.config["RATELIMIT_CREATE_FORM"] = "1000 per minute"
    seasons: Seasons = app.extensions["seasons"]
    huge = {"name": "Rows", **{f"players-{i}-name": "" for i in range(20_000)}}
    for data in (roster_rows(MAX_ROSTER_ROWS + 1), huge):
        r = client.post("/seasons/new", data=data)
        text = html(r)
        assert r.status_code == 422, len(data)
        assert 'data-code="season/too_many_rows"' in text
        assert f"at most {MAX_ROSTER_ROWS} roster rows" in text
        assert rows_shown(text) == ROSTER_ROWS and len(text) < 100_000
        assert 'value="Rows"' in text  # the season's name is kept
    # rows counted by their numbers: one row of many fields is one row, "007" is row 7
    one = {"name": "Rows", **{f"players-0-{k}": "" for k in ("name", "garnets", "email", "x")}}
    assert "too_many_rows" not in html(client.post("/seasons/new", data=one))
    repeated = {**roster_rows(MAX_ROSTER_ROWS), "players-007-name": "P7"}
    assert "too_many_rows" not in html(client.post("/seasons/new", data=repeated))
    with Session(seasons.engine) as session:
        assert session.exec(select(Season)).all() == []  # nothing was created
    largest = client.post(
        "/seasons/new", data=roster_rows(MAX_ROSTER_ROWS, named=True), follow_redirects=True
    )
    assert largest.status_code == 200 and "is ready" in html(largest)  # its links shown
    (season,) = Session(seasons.engine).exec(select(Season)).all()
    assert len(seasons.state(season.id).players) == MAX_ROSTER_ROWS


def test_the_roster_field_list_takes_at_most_max_roster_rows(app: Flask) -> None:
    with app.test_request_context(method="POST", data=roster_rows(MAX_ROSTER_ROWS + 6)):
        form = NewSeasonForm(meta={"csrf": False})
        assert len(form.players.entries) == MAX_ROSTER_ROWS


def test_the_main_match_players_are_bounded(app: Flask, client: FlaskClient) -> None:
    links = create_season(client)
    host, sid = links["host"], links["id"]
    seasons: Seasons = app.extensions["seasons"]
    for count in (MAX_ROSTER_ROWS + 1, 20_000):
        r = client.post(f"{host}/main", data={"game": "forks-2e", "players": ["1"] * count})
        text = html(r)
        assert r.status_code == 422 and "season/too_many_rows" in text, count
        assert len(text) < 200_000
    # the largest list this check takes goes on to the next checks (Forks takes 2 to 6)
    r = client.post(f"{host}/main", data={"game": "forks-2e", "players": ["1"] * MAX_ROSTER_ROWS})
    assert r.status_code == 422 and "too_many_rows" not in html(r)
    assert 'data-code="season/bad_players"' in html(r)  # one player, 64 times
    assert seasons.state(sid).episodes == []


def test_creating_seasons_is_rate_limited_with_creating_matches(
    app: Flask, client: FlaskClient
) -> None:
    """Each POST /seasons/new counts towards RATELIMIT_CREATE_FORM (10 a minute
    per address by default), in the same count as POST /new; showing the form
    is free."""
    assert app.config["RATELIMIT_CREATE_FORM"] == "10 per minute"
    for _ in range(5):
        assert client.get("/seasons/new").status_code == 200
    for i in range(10):
        assert client.post("/seasons/new", data={"name": f"S{i}"}).status_code == 422
    limited = client.post("/seasons/new", data=roster_rows(2, named=True))
    assert limited.status_code == 429 and "Too many requests" in html(limited)
    assert "Retry-After" in limited.headers
    assert client.get("/seasons/new").status_code == 200
    assert client.post("/new", data={"name": "m"}).status_code == 429  # one count for both
    other = {"environ_base": {"REMOTE_ADDR": "2.2.2.5"}}
    assert client.post("/seasons/new", data=roster_rows(2, named=True), **other).status_code == 303


def test_matches_count_towards_the_season_creation_limit(app: Flask, client: FlaskClient) -> None:
    app.config["RATELIMIT_CREATE_FORM"] = "3 per minute"
    for _ in range(3):
        assert client.post("/new", data={"name": "m"}).status_code != 429
    assert client.post("/seasons/new", data=roster_rows(2, named=True)).status_code == 429


# ---- the admin key (issue 22) ------------------------------------------------------------

ADMIN_KEY = "season-key-" + "k" * 30


def seasons_made(app: Flask) -> int:
    with Session(app.extensions["seasons"].engine) as session:
        return len(session.exec(select(Season)).all())


def test_creating_a_season_needs_the_admin_key_where_there_is_one(
    app: Flask, client: FlaskClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 22: with REFEREE_ADMIN_KEY set, /api/seasons needed it and
    /seasons/new did not (and its host page then makes matches of any game).
    The key is checked before any work; a refusal names the field."""
    app.config["ADMIN_KEY"] = ADMIN_KEY
    app.config["RATELIMIT_CREATE_FORM"] = "1000 per minute"
    page = html(client.get("/seasons/new"))
    assert 'name="admin_key"' in page and 'type="password"' in page
    seasons: Seasons = app.extensions["seasons"]
    real = seasons.create_season

    def no_work(**kwargs: Any) -> Any:
        raise AssertionError("the season was made before the admin key was checked")

    monkeypatch.setattr(seasons, "create_season", no_work)
    for extra in ({}, {"admin_key": ""}, {"admin_key": "wrong"}, {"admin_key": ADMIN_KEY[:-1]}):
        r = client.post("/seasons/new", data={**roster_rows(2, named=True), **extra})
        text = html(r)
        assert r.status_code == 401, extra
        assert 'data-code="auth/unauthorized"' in text and "needs its admin key" in text
        assert 'id="admin_key-errors"' in text  # beside the field
        assert 'value="P0"' in text  # what was typed is kept
    # too many rows without the key: refused for the key first
    r = client.post("/seasons/new", data=roster_rows(MAX_ROSTER_ROWS + 1))
    assert r.status_code == 401
    monkeypatch.setattr(seasons, "create_season", real)
    assert seasons_made(app) == 0
    r = client.post("/seasons/new", data={**roster_rows(2, named=True), "admin_key": ADMIN_KEY})
    assert r.status_code == 303 and seasons_made(app) == 1


def test_wrong_admin_keys_on_the_season_form_count_as_failed_attempts(
    app: Flask, client: FlaskClient
) -> None:
    app.config["ADMIN_KEY"] = ADMIN_KEY
    app.config["RATELIMIT_FAILED_TOKENS"] = "3 per minute"
    app.config["RATELIMIT_CREATE_FORM"] = "1000 per minute"
    for _ in range(2):
        r = client.post("/seasons/new", data={**roster_rows(2, named=True), "admin_key": "guess"})
        assert r.status_code == 401
    api = client.post("/api/seasons", json={}, headers={"Authorization": "Bearer guess"})
    assert api.status_code == 401  # the API's wrong keys are the same count
    right = client.post("/seasons/new", data={**roster_rows(2, named=True), "admin_key": ADMIN_KEY})
    assert right.status_code == 429 and "Too many attempts" in html(right)
    assert client.get("/seasons/new").status_code == 200  # the page itself still opens
    other = {"environ_base": {"REMOTE_ADDR": "2.2.2.6"}}
    data = {**roster_rows(2, named=True), "admin_key": ADMIN_KEY}
    assert client.post("/seasons/new", data=data, **other).status_code == 303
    assert seasons_made(app) == 1


def test_without_an_admin_key_the_season_form_asks_for_none_and_counts_nothing(
    app: Flask, client: FlaskClient
) -> None:
    app.config["RATELIMIT_FAILED_TOKENS"] = "2 per minute"
    app.config["RATELIMIT_CREATE_FORM"] = "1000 per minute"
    assert 'name="admin_key"' not in html(client.get("/seasons/new"))
    for _ in range(4):  # refused for their content, not a failed key
        r = client.post("/seasons/new", data={"name": "", "admin_key": "anything"})
        assert r.status_code == 422
    r = client.post("/seasons/new", data={**roster_rows(2, named=True), "admin_key": "anything"})
    assert r.status_code == 303


def test_look_alike_names_are_refused_on_the_form(app: Flask, client: FlaskClient) -> None:
    data = {"name": "Alike", "players-0-name": "Ana", "players-1-name": "A\u200bna"}
    r = client.post("/seasons/new", data=data)
    assert r.status_code == 422 and 'data-code="season/confusable_names"' in html(r)
    assert "&#34;A&lt;U+200B&gt;na&#34;" in html(r) or '"A&lt;U+200B&gt;na"' in html(r)
    assert seasons_made(app) == 0


# ---- numbers are ASCII digits (issue 22) ----------------------------------------------

NOT_ASCII_NUMBERS = ["\u00b2", "\u00b9", "\u2460", "\u0661"]  # ² ¹ ① and Arabic-Indic 1
NOT_ASCII_IDS = ["superscript-2", "superscript-1", "circled-1", "arabic-indic-1"]


@pytest.mark.parametrize("typed", NOT_ASCII_NUMBERS, ids=NOT_ASCII_IDS)
def test_a_player_number_is_ascii_digits(
    app: Flask, client: FlaskClient, monkeypatch: pytest.MonkeyPatch, typed: str
) -> None:
    """Issue 22: ``²``, ``¹`` or ``①`` as a Main Match player gave a 500
    (``isdigit()`` then ``int()``); a number is read as ASCII digits only, and
    anything else is refused with a problem naming it, on every season form."""
    seasons: Seasons = app.extensions["seasons"]
    links = create_season(client)
    host, sid = links["host"], links["id"]
    r = client.post(f"{host}/main", data={"game": "forks-2e", "players": ["1", "2", typed]})
    assert r.status_code == 422, html(r)
    assert 'data-code="season/bad_players"' in html(r)
    assert f"{typed!r} is not a player number" in html(r).replace("&#39;", "'")
    assert seasons.state(sid).episodes == []
    entries = len(seasons.state(sid).ledger)
    r = client.post(f"{host}/entry", data={"player": typed, "change": "1", "reason": "r"})
    assert r.status_code == 422 and len(seasons.state(sid).ledger) == entries
    r = client.post(f"{host}/entry", data={"player": "1", "change": typed, "reason": "r"})
    assert r.status_code == 422 and 'id="entry-change-errors"' in html(r)
    assert len(seasons.state(sid).ledger) == entries
    r = client.post("/seasons/new", data={**roster_rows(2, named=True), "token_bonus": typed})
    assert r.status_code == 422 and 'id="token_bonus-errors"' in html(r)
    r = client.post("/seasons/new", data={"name": "N", f"players-{typed}-name": "Ana"})
    assert r.status_code == 422 and 'data-code="season/bad_rows"' in html(r)
    assert client.get(f"/seasons/new?rows={typed}").status_code == 200
    # the candidate's choice and the host's entered loser
    rr = {"game": "rocky-river", "setup": {"map": "three-rapids"}}
    _, main = seasons.create_main_match(sid, players=[1, 2, 3], **rr)
    play_to_the_end(app.extensions["referee"], main.match_id)
    outcome = seasons.record_main(sid, 1)
    r = client.post(f"{links['players'][outcome.candidate]}/opponent", data={"opponent": typed})
    assert r.status_code == 422 and 'data-code="season/bad_opponent"' in html(r)
    seasons.choose_opponent(
        sid, 1, chooser=outcome.candidate, opponent=seasons.opponents(sid, 1)[0]
    )
    r = client.post(f"{host}/result", data={"loser": typed, "sure": "y"})
    assert r.status_code == 422 and 'data-code="season/bad_loser"' in html(r)
    assert seasons.state(sid).episode(1).loser is None


def test_ascii_numbers_with_a_sign_or_spaces_are_read(app: Flask, client: FlaskClient) -> None:
    seasons: Seasons = app.extensions["seasons"]
    links = create_season(client)
    host, sid = links["host"], links["id"]
    r = client.post(f"{host}/main", data={"game": "forks-2e", "players": ["1", "+2", " 3 "]})
    assert r.status_code == 303, html(r)
    assert sorted(seasons.state(sid).episode(1).main_seats.values()) == [1, 2, 3]


# ---- a Token of Life lasts one episode by default ---------------------------------------


def test_a_token_of_life_protects_in_its_own_episode_only(app: Flask, client: FlaskClient) -> None:
    """With the default rules (``token_lasts: "episode"``) the holder of episode
    1's Token of Life is protected in episode 1 and choosable in episode 2, on
    the service and on the candidate's page."""
    seasons: Seasons = app.extensions["seasons"]
    svc: Referee = app.extensions["referee"]
    made = seasons.create_season(name="One episode", players=[{"name": n} for n, _ in ROSTER])
    sid = made.season_id
    assert seasons.state(sid).season.rules["token_lasts"] == "episode"
    rr = game_parts("rocky-river", 3)
    seed = seed_where(
        svc, at_balances(seasons, sid, [1, 2, 3]), lambda t, cand: t is not None and t != cand
    )
    _, main = seasons.create_main_match(sid, players=[1, 2, 3], seed=seed, **rr)
    play_to_the_end(svc, main.match_id)
    first = seasons.record_main(sid, 1)
    holder = first.token_holder
    assert holder is not None and holder != first.candidate

    def page_of(candidate: int) -> str:
        return html(client.get(f"/season/{made.player_tokens[candidate]}"))

    # episode 1: protected
    assert holder not in seasons.opponents(sid, 1)
    assert re.search(
        rf'id="opponent-{holder}" disabled.*?\(holds a Token of Life\)',
        page_of(first.candidate),
        re.S,
    )
    opponent = seasons.opponents(sid, 1)[0]
    seasons.choose_opponent(sid, 1, chooser=first.candidate, opponent=opponent)
    seasons.record_death(sid, 1, loser=opponent)

    # episode 2, which the holder does not play: choosable, shown so
    others = [p for p in seasons.state(sid).remaining() if p != holder][:3]
    _, main2 = seasons.create_main_match(sid, players=others, **rr)
    play_to_the_end(svc, main2.match_id)
    second = seasons.record_main(sid, 2)
    assert holder in seasons.opponents(sid, 2)
    assert holder not in seasons.state(sid).tokens(2)
    page = page_of(second.candidate)
    assert re.search(
        rf'<input type="radio" name="opponent" value="{holder}" id="opponent-{holder}">', page
    )
    assert not re.search(rf'id="opponent-{holder}-why"', page)
    seasons.choose_opponent(sid, 2, chooser=second.candidate, opponent=holder)  # taken
    assert seasons.state(sid).episode(2).opponent == holder


# ---- re-issuing a player's season link (issue 22) -----------------------------------------


NEW_LINK = r'id="new-player-link" data-player="2" href="http://localhost(/season/[^"]+)"'


def play_paths(text: str) -> set[str]:
    return set(re.findall(r'href="(/play/[^"]+)"', text))


def test_the_host_gives_a_player_a_new_season_link(
    app: Flask, client: FlaskClient, svc: Referee
) -> None:
    seasons: Seasons = app.extensions["seasons"]
    links = create_season(client)
    host, sid, old = links["host"], links["id"], links["players"][2]
    # two matches of player 2: episode 1's Main Match, and a Main Match made elsewhere
    r = client.post(f"{host}/main", data={"game": "forks-2e", "players": ["1", "2", "3"]})
    assert r.status_code == 303, html(r)
    old_page = html(client.get(old))
    (old_play,) = play_paths(old_page)
    assert client.get(old_play).status_code == 200
    assert 'id="link-h"' in html(client.get(host))

    unsure = client.post(f"{host}/link", data={"player": "2"})
    assert unsure.status_code == 422 and "I am sure" in html(unsure)
    assert client.get(old).status_code == 200  # nothing was done
    for bad in ("", "9", "x"):
        r = client.post(f"{host}/link", data={"player": bad, "sure": "y"})
        assert r.status_code == 422 and 'id="link-player-errors"' in html(r), bad

    r = client.post(f"{host}/link", data={"player": "2", "sure": "y"})
    assert r.status_code == 200 and r.headers["Cache-Control"] == "no-store"
    found = re.search(NEW_LINK, html(r))
    assert found, html(r)
    new = found.group(1)
    assert new != old and "shown only once" in html(r)
    assert new not in html(client.get(host))  # shown by that answer only
    # the old season link and the match link it gave open nothing
    assert client.get(old).status_code == 404
    assert client.get(old_play).status_code == 404
    # the new one opens the player's page, whose match links work
    page = client.get(new)
    assert page.status_code == 200 and str(escape(HOSTILE)) in html(page)  # player 2's
    (new_play,) = play_paths(html(page))
    assert new_play != old_play and client.get(new_play).status_code == 200
    # the others' links are untouched
    assert client.get(links["players"][1]).status_code == 200
    (first_play,) = play_paths(html(client.get(links["players"][1])))
    assert client.get(first_play).status_code == 200
    assert seasons.find_token(new.rsplit("/", 1)[1]) == (sid, 2)


def test_a_seat_whose_match_host_gave_a_new_link_is_left_alone(
    app: Flask, client: FlaskClient, svc: Referee
) -> None:
    links = create_season(client)
    host = links["host"]
    r = client.post(f"{host}/main", data={"game": "forks-2e", "players": ["1", "2", "3"]})
    assert r.status_code == 303
    match_id = current_episode(app.extensions["seasons"], links["id"]).main_match_id
    by_host = svc.reissue_token(match_id, 2)  # the match's host re-issues player 2's seat
    r = client.post(f"{host}/link", data={"player": "2", "sure": "y"})
    assert r.status_code == 200 and "left as it is" in html(r)
    assert client.get(f"/play/{by_host}").status_code == 200  # still theirs
    found = re.search(NEW_LINK, html(r))
    assert found
    page = html(client.get(found.group(1)))
    assert play_paths(page) == set() and "re-issued by its host" in page


def test_a_player_cannot_give_new_links(app: Flask, client: FlaskClient) -> None:
    app.config["RATELIMIT_ENABLED"] = False
    links = create_season(client)
    player = links["players"][1].rsplit("/", 1)[1]
    for path in (f"/season-host/{player}/link", f"/season/{player}/link"):
        r = client.post(path, data={"player": "2", "sure": "y"})
        assert r.status_code == 404, path
    assert client.get(links["players"][2]).status_code == 200  # nothing changed


def test_wrong_links_giving_new_links_count_as_failed_attempts(
    app: Flask, client: FlaskClient
) -> None:
    links = create_season(client)
    app.config["RATELIMIT_FAILED_TOKENS"] = "3 per minute"
    for guess in ("a", "b", "c"):
        r = client.post(f"/season-host/{guess}/link", data={"player": "1", "sure": "y"})
        assert r.status_code == 404
    r = client.post(f"{links['host']}/link", data={"player": "1", "sure": "y"})
    assert r.status_code == 429
    assert client.get(links["players"][1]).status_code == 429  # a token-bearing page waits
