"""The public web pages: the home page, creating a match (with every refusal),
a match's public page (R11) and its forum post."""

from __future__ import annotations

import copy
import io
import json
import re
from datetime import timedelta
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from referee.errors import RuleError
from referee.markup import match_post
from referee.ruleset import Viewer
from referee.rulesets.rocky_river.data import MAPS_DIR
from referee.rulesets.rocky_river.river_map import parse_map
from referee.service import Referee
from referee.views import view_for

from .web_kit import GOLDEN, Clock, esc, new_match_form, page

THREE_RAPIDS = json.loads((MAPS_DIR / "three-rapids.json").read_text())


def form(**extra: Any) -> dict[str, Any]:
    return new_match_form("Public test", **extra)


def links_in(html: str) -> dict[str, Any]:
    host = re.search(r'id="host-link" href="http://localhost(/host/[^"]+)"', html)
    seats = re.findall(r'href="http://localhost(/play/[^"]+)"', html)
    match_id = re.search(r'href="http://localhost/matches/([0-9a-f]+)"', html)
    assert host and match_id and len(seats) == 3
    return {"host": host.group(1), "seats": seats, "id": match_id.group(1)}


def create(client: FlaskClient, **extra: Any) -> dict[str, Any]:
    r = client.post("/new", data=form(**extra), follow_redirects=True)
    assert r.status_code == 200, r.get_data(as_text=True)
    return links_in(r.get_data(as_text=True))


def errors_of(html: str, field: str) -> str:
    """The messages shown next to a field of the create form."""
    return html.split(f'id="{field}-errors"', 1)[1].split("</ul>", 1)[0]


def play(client: FlaskClient, links: dict[str, Any], number: int, seats: tuple[int, ...]) -> None:
    client.post(f"{links['host']}/open")
    for seat in seats:
        if number == 1:
            data: dict[str, Any] = {"ranking": GOLDEN["draft"][str(seat)]}
        elif number == 2:
            data = {f"place_{c}": b for c, b in GOLDEN["placements"][str(seat)].items()}
        else:
            data = {f"vote_{k}": d for k, d in enumerate(GOLDEN["votes"][number - 3][str(seat)])}
        r = client.post(links["seats"][seat - 1], data={"round": str(number), **data})
        assert r.status_code == 302
    client.post(f"{links['host']}/close", data={"sure": "y"})


# ---- home and creating a match ----------------------------------------------------


def test_home_page(client: FlaskClient) -> None:
    html = page(client, "/")
    assert "sealed" in html and 'href="/new"' in html and "Create a match" in html
    html = page(client, "/new")
    assert '<option selected value="three-rapids">' in html
    assert 'enctype="multipart/form-data"' in html
    for i in range(3):
        assert f'name="players-{i}-name"' in html and f'name="players-{i}-garnets"' in html


def test_the_chosen_game_renders_its_fields_without_javascript(client: FlaskClient) -> None:
    """Issue 23: the game menu is a GET form (the path without JavaScript: its
    button reloads the page with ?game=), the page names static/game_choice.js
    (which swaps #match-fields at once), and ?game= renders that game's fields."""
    pages = {game: page(client, f"/new?game={game}") for game in ("rocky-river", "forks-2e")}
    for game, html in pages.items():
        choice = re.search(
            r'<form method="get" action="/new"[^>]*data-game-choice>(.*?)</form>', html, re.S
        )
        assert choice is not None, game
        assert '<button type="submit"' in choice.group(1)
        assert re.search(rf'<option value="{game}" selected>', choice.group(1)), game
        other = "forks-2e" if game == "rocky-river" else "rocky-river"
        assert re.search(rf'<option value="{other}">', choice.group(1))
        assert '<div id="match-fields" data-game-fields>' in html
        fields = html.split('<div id="match-fields" data-game-fields>', 1)[1]
        assert f'<input type="hidden" name="game" value="{game}">' in fields
        assert re.search(r'<script src="/static/game_choice\.js[^"]*" defer>', html)
    river, forks = pages["rocky-river"], pages["forks-2e"]
    assert 'name="bundled_map"' in river and 'name="merge"' not in river
    assert 'name="merge"' in forks and 'name="bundled_map"' not in forks


def test_a_first_match_runs_without_its_host_by_default(client: FlaskClient, svc: Referee) -> None:
    """Issue 23: "close as soon as all have sent" and "open each round by itself"
    are ticked at first, with a deadline that is not 0 (auto_open needs one)."""
    for game in ("rocky-river", "forks-2e"):
        html = page(client, f"/new?game={game}")
        for name in ("close_early", "auto_open"):
            box = re.search(rf'<input[^>]*id="{name}"[^>]*>', html)
            assert box is not None and " checked " in box.group(0), (game, box)
        deadline = re.search(r'<input[^>]*id="deadline_hours"[^>]*>', html)
        assert deadline is not None and 'value="48"' in deadline.group(0)
    # the form as it comes (both ticked): the first round is open at once; unticked
    # (sent as nothing), the match waits for its host (test_create_a_match_shows_every_link_once)
    create(client, close_early="y", auto_open="y")
    (match_id,) = svc.match_ids()
    state = svc.state(match_id)
    assert state.match.settings["close_early"] is True
    assert state.match.settings["auto_open"] is True
    assert state.match.rounds_opened == 1 and [r.status for r in state.rounds] == ["open"]


def test_create_a_match_shows_every_link_once(client: FlaskClient, svc: Referee) -> None:
    r = client.post(
        "/new",
        data=form(publish_totals="y", close_early="y", deadline_hours="24"),
        follow_redirects=True,
    )
    assert r.status_code == 200
    html = r.get_data(as_text=True)
    assert "only in this browser, for" in html and "re-issue" in html
    links = links_in(html)
    (match_id,) = svc.match_ids()
    assert links["id"] == match_id
    state = svc.state(match_id)
    assert state.match.settings == {
        "deadline_hours": 24,
        "publish_totals": True,
        "close_early": True,
        "auto_open": False,
        "clock": None,
    }
    assert [(s.name, s.garnets) for s in state.seats] == [("P1", 2), ("P2", 6), ("P3", 7)]
    assert state.match.seed_sha256 in html and state.match.seed not in html
    assert "host dashboard" in page(client, links["host"])
    for seat, url in enumerate(links["seats"], start=1):
        assert f"(seat {seat})" in page(client, url)
    assert "Public test" in page(client, f"/matches/{match_id}")
    # the links are shown once: no other page shows a seat's link
    public = page(client, f"/matches/{match_id}")
    dashboard = page(client, links["host"])
    assert links["host"] not in public
    for url in links["seats"]:
        assert url not in public and url not in dashboard


def test_invalid_pasted_map_lists_every_problem_and_keeps_the_input(
    client: FlaskClient, svc: Referee
) -> None:
    broken = copy.deepcopy(THREE_RAPIDS)
    broken["forks"][0]["left"][0]["color"] = "purple"
    broken["forks"][0]["right"][0]["seat"] = 4
    broken["forks"][1]["left"][0]["to"] = "f99"
    broken["forks"][2]["right"][0]["id"] = "2R"
    with pytest.raises(RuleError) as expected:
        parse_map(broken)
    assert len(expected.value.problems) >= 4
    typed = json.dumps(broken, indent=1)
    r = client.post("/new", data=form(map_json=typed, **{"players-1-garnets": "9"}))
    assert r.status_code == 422
    html = r.get_data(as_text=True)
    near_map = errors_of(html, "map")
    for problem in expected.value.problems:
        assert esc(problem.message) in near_map
    assert f"{len(expected.value.problems)} problems:" in html
    # what was typed is kept
    assert esc(typed) in html
    assert 'value="Public test"' in html and 'value="P3"' in html and 'value="9"' in html
    assert svc.match_ids() == []


def test_uploaded_maps(client: FlaskClient, svc: Referee) -> None:
    broken = copy.deepcopy(THREE_RAPIDS)
    del broken["forks"][8]  # f9 is gone: the branches into it dangle
    text = json.dumps(broken)
    data = form(map_file=(io.BytesIO(text.encode()), "mine.json"))
    r = client.post("/new", data=data, content_type="multipart/form-data")
    assert r.status_code == 422
    html = r.get_data(as_text=True)
    with pytest.raises(RuleError) as expected:
        parse_map(broken)
    for problem in expected.value.problems:
        assert esc(problem.message) in errors_of(html, "map")
    # the file's text is put in the paste box, to be corrected there
    assert esc(text) in html
    assert svc.match_ids() == []
    # a valid but unbalanced uploaded map: created, with its balance summary
    unbalanced = copy.deepcopy(THREE_RAPIDS)
    unbalanced["name"] = "Lopsided"
    unbalanced["forks"][0]["left"][0]["seat"] = 1
    data = form(map_file=(io.BytesIO(json.dumps(unbalanced).encode()), "lopsided.json"))
    r = client.post("/new", data=data, content_type="multipart/form-data", follow_redirects=True)
    assert r.status_code == 200
    html = r.get_data(as_text=True)
    assert "Balance of the map “Lopsided”" in html
    assert "Warning: the map is not balanced" in html
    (match_id,) = svc.match_ids()
    state = svc.state(match_id)
    assert state.match.setup["map_name"] is None and state.match.setup["map"]["name"] == "Lopsided"


def test_check_the_map_only(client: FlaskClient, svc: Referee) -> None:
    data = form(map_json=json.dumps(THREE_RAPIDS), check_map="1")
    del data["create"]
    r = client.post("/new", data=data)
    assert r.status_code == 200
    html = r.get_data(as_text=True)
    assert "The map is valid." in html and "Balance of the map “Three Rapids”" in html
    assert "Balanced: every seat" in html
    assert svc.match_ids() == []
    data["map_json"] = '{"name": "x", "forks": []}'
    r = client.post("/new", data=data)
    assert r.status_code == 422
    assert "&#39;forks&#39; must be a non-empty list of forks" in r.get_data(as_text=True)


def test_unreadable_map_json_is_reported_with_the_other_problems(
    client: FlaskClient, svc: Referee
) -> None:
    r = client.post("/new", data=form(map_json="{not json", **{"players-0-name": ""}))
    assert r.status_code == 422
    html = r.get_data(as_text=True)
    assert "the map is not valid JSON" in errors_of(html, "map")
    assert "Seat 1: a name is needed" in errors_of(html, "players-0")
    assert "bundled map&#39;s name or a map object" not in html
    assert svc.match_ids() == []


def test_bad_players_and_settings_are_refused_field_by_field(
    client: FlaskClient, svc: Referee
) -> None:
    data = form(
        name="",
        deadline_hours="soon",
        **{"players-0-name": "  ", "players-1-garnets": "-1", "players-2-garnets": "lots"},
    )
    r = client.post("/new", data=data)
    assert r.status_code == 422
    html = r.get_data(as_text=True)
    assert "the match needs a name" in errors_of(html, "name")
    assert "Seat 1: a name is needed" in errors_of(html, "players-0")
    assert "Seat 2: garnets cannot be negative (-1)" in errors_of(html, "players-1")
    assert "Seat 3: garnets are a whole number, 0 or more, not &#39;lots&#39;" in errors_of(
        html, "players-2"
    )
    assert "the deadline must be a number of hours" in errors_of(html, "deadline_hours")
    assert "5 problems:" in html
    # typed values are kept
    assert 'value="-1"' in html and 'value="lots"' in html and 'value="soon"' in html
    assert 'value="P2"' in html
    assert svc.match_ids() == []


def test_too_many_garnets_is_refused_not_a_server_error(client: FlaskClient, svc: Referee) -> None:
    r = client.post("/new", data=form(**{"players-0-garnets": "99999999999"}))
    assert r.status_code == 422
    assert "garnets of seat 1 must be at most" in r.get_data(as_text=True)
    assert svc.match_ids() == []


def test_admin_key_when_the_server_has_one(app: Flask, client: FlaskClient, svc: Referee) -> None:
    app.config["ADMIN_KEY"] = "sesame"
    assert 'name="admin_key"' in page(client, "/new")
    r = client.post("/new", data=form(admin_key="wrong"))
    assert r.status_code == 401 and "needs its admin key" in r.get_data(as_text=True)
    assert svc.match_ids() == []
    assert client.post("/new", data=form(admin_key="sesame")).status_code == 303


def test_names_are_escaped_everywhere(client: FlaskClient) -> None:
    evil = "<script>alert('x')</script>"
    data = form(name=f"Match {evil}", **{"players-0-name": evil})
    r = client.post("/new", data=data, follow_redirects=True)
    assert r.status_code == 200
    created = r.get_data(as_text=True)
    links = links_in(created)
    pages = [
        created,
        page(client, f"/matches/{links['id']}"),
        page(client, links["host"]),
        page(client, links["seats"][0]),
        page(client, links["seats"][1]),
        page(client, f"{links['host']}/post?format=markdown"),
    ]
    for html in pages:
        assert "<script>alert" not in html
        assert "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;" in html
    # the plain-text post is text/plain: the browser does not run it
    r = client.get(f"/matches/{links['id']}/post?format=bbcode")
    assert r.mimetype == "text/plain"


# ---- the public page ---------------------------------------------------------------


def test_unknown_match_is_404(client: FlaskClient) -> None:
    r = client.get("/matches/0000000000")
    assert r.status_code == 404
    assert "there is no match" in r.get_data(as_text=True)
    assert client.get("/matches/0000000000/post").status_code == 404


def test_public_page_through_a_whole_match(client: FlaskClient, svc: Referee) -> None:
    links = create(client)
    match_id = links["id"]
    state = svc.state(match_id)
    html = page(client, f"/matches/{match_id}")
    assert state.match.seed_sha256 in html and state.match.seed not in html
    for p in GOLDEN["players"]:
        assert f'<td class="name">{p["name"]}</td><td>{p["garnets"]}</td>' in html
    assert "No round has opened yet." in html
    client.post(f"{links['host']}/open")
    client.post(
        links["seats"][0], data={"round": "1", "ranking": GOLDEN["draft"]["1"]}
    )  # seat 1 only
    html = page(client, f"/matches/{match_id}")
    assert "<strong>Draft</strong> is open for orders" in html
    assert "2030-01-03T12:00:00Z" in html and "2 days left" in html
    row = html.split('<th scope="row">Draft</th>', 1)[1].split("</tr>", 1)[0]
    assert "P1" in row and "P2" not in row
    assert ", ".join(GOLDEN["draft"]["1"]) not in html
    for seat in (2, 3):
        data = {"round": "1", "ranking": GOLDEN["draft"][str(seat)]}
        assert client.post(links["seats"][seat - 1], data=data).status_code == 302
    client.post(f"{links['host']}/close", data={"sure": "y"})
    html = page(client, f"/matches/{match_id}")
    assert "The draft is done" in html
    assert "data-hand-card" not in html and "Draft conflicts" not in html
    for seat in ("1", "2", "3"):
        assert ", ".join(GOLDEN["draft"][seat]) not in html
    for number in range(2, 6):
        play(client, links, number, (1, 2) if number == 5 else (1, 2, 3))
        html = page(client, f"/matches/{match_id}")
        # R11: never a hand, a draft list or a placement, before the full reveal
        assert "data-hand-card" not in html and "data-placement" not in html
        assert ", ".join(GOLDEN["draft"]["1"]) not in html
        if number == 2:
            assert "Slot totals stay secret until the raft passes them." in html
            assert "<caption>Slot totals</caption>" not in html
        else:
            assert html.count("<tr data-step=") == 3 * (number - 2)
            assert "Scores and control" in html
    assert "The match has finished" in html
    assert "Token of Life" in html and "Elimination Candidate" in html and "decided by" in html
    assert "rafting round 3: P3 (seat 3)" in html
    assert svc.state(match_id).match.seed in html


def test_published_slot_totals(client: FlaskClient) -> None:
    links = create(client, publish_totals="y")
    play(client, links, 1, (1, 2, 3))
    play(client, links, 2, (1, 2, 3))
    html = page(client, f"/matches/{links['id']}")
    assert "<caption>Slot totals</caption>" in html
    assert "data-placement" not in html


def test_deadline_closes_the_round_when_the_public_page_loads(
    client: FlaskClient, clock: Clock, svc: Referee
) -> None:
    links = create(client)
    client.post(f"{links['host']}/open")
    clock.now += timedelta(hours=48, seconds=1)
    html = page(client, f"/matches/{links['id']}")
    assert "closed at its deadline" in html
    assert "Seeded default orders" in html
    assert svc.state(links["id"]).rounds[0].closed_by == "deadline"


def test_forum_post_as_plain_text(client: FlaskClient, svc: Referee) -> None:
    links = create(client)
    play(client, links, 1, (1, 2, 3))
    state = svc.state(links["id"])
    for fmt in ("markdown", "bbcode"):
        r = client.get(f"/matches/{links['id']}/post?format={fmt}")
        assert r.status_code == 200 and r.mimetype == "text/plain"
        public = view_for(state, Viewer.public())
        text = r.get_data(as_text=True)
        # the game's post, then the chain head to keep (issue 27)
        assert text == match_post(state.ruleset, public, fmt, base_url="http://localhost/")
        assert text.startswith(state.ruleset.post(public, fmt, base_url="http://localhost/"))
        assert f"1:{public['chain_head']}" in text
        assert f"http://localhost/matches/{links['id']}/map.png" in text  # the map picture
    r = client.get(f"/matches/{links['id']}/post?format=pdf")
    assert r.status_code == 422
    assert "format must be markdown or bbcode, not &#39;pdf&#39;" in r.get_data(as_text=True)


@pytest.mark.parametrize(
    ("typed", "unit", "hours", "words"),
    [
        ("10", "minutes", 10 / 60, "10 minutes"),
        ("2", "days", 48, "48 hours"),
        ("1.5", "hours", 1.5, "1 hour 30 minutes"),
    ],
)
def test_a_steps_deadline_in_minutes_hours_or_days(
    client: FlaskClient, clock: Clock, svc: Referee, typed: str, unit: str, hours: float, words: str
) -> None:
    """Issue 24: short steps for a match in one sitting. The deadline's unit is
    chosen beside its number; a 10-minute step closes at 10 minutes, not before."""
    links = create(client, deadline_hours=typed, deadline_unit=unit, auto_open="y")
    state = svc.state(links["id"])
    assert state.match.settings["deadline_hours"] == pytest.approx(hours)
    (rnd,) = state.rounds
    assert rnd.deadline is not None
    assert (rnd.deadline - rnd.opened_at).total_seconds() == pytest.approx(hours * 3600, abs=1)
    assert f"deadline {words} per round" in page(client, f"/matches/{links['id']}")
    clock.now += timedelta(hours=hours) - timedelta(seconds=2)
    assert svc.state(links["id"]).rounds[0].status == "open"
    clock.now += timedelta(seconds=3)
    assert svc.state(links["id"]).rounds[0].closed_by == "deadline"


def test_a_deadline_unit_the_form_does_not_offer_is_refused_by_name(client: FlaskClient) -> None:
    r = client.post("/new", data=form(deadline_hours="3", deadline_unit="fortnights"))
    assert r.status_code == 422
    message = errors_of(r.get_data(as_text=True), "deadline_hours")
    assert "the deadline must be a number of hours" in message and "fortnights" in message
