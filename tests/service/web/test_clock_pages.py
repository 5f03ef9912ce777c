"""A clock per player on the pages (issue 24): the create form's speed
profiles and own clock, refused input named beside its field, the estimate of
a match's length, and each seat's clock on the match pages (the acting seat's
counting down, the rest in the bank)."""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Any

import pytest
from flask.testing import FlaskClient

from referee.rulesets.rocky_river.ruleset import ORDER_KEYS
from referee.service import Referee
from referee.web.pages import clock_text

from .web_kit import GOLDEN, Clock, new_match_form, page


def links_of(html: str) -> dict[str, Any]:
    host = re.search(r'id="host-link" href="http://localhost(/host/[^"]+)"', html)
    seats = re.findall(r'href="http://localhost(/play/[^"]+)"', html)
    match_id = re.search(r'href="http://localhost/matches/([0-9a-f]+)"', html)
    assert host and match_id and seats
    return {"host": host.group(1), "seats": seats, "id": match_id.group(1)}


def create(client: FlaskClient, **extra: Any) -> dict[str, Any]:
    data = new_match_form("Clocks", close_early="y", auto_open="y", **extra)
    r = client.post("/new", data=data, follow_redirects=True)
    assert r.status_code == 200, r.get_data(as_text=True)
    return links_of(r.get_data(as_text=True))


def errors_of(html: str, field: str) -> str:
    return html.split(f'id="{field}-errors"', 1)[1].split("</ul>", 1)[0]


@pytest.mark.parametrize(
    ("choice", "typed", "setting"),
    [
        ("live", {}, {"bank_minutes": 5, "add_minutes": 1}),
        ("post", {}, {"bank_minutes": 2880, "add_minutes": 720}),
        (
            "custom",
            {"clock_bank": "2.5", "clock_add": "0"},
            {"bank_minutes": 2.5, "add_minutes": 0},
        ),
        ("", {"clock_bank": "9", "clock_add": "9"}, None),  # no clock: the numbers are not read
    ],
)
def test_the_create_form_takes_a_speed_profile_or_the_host_s_own_clock(
    client: FlaskClient, svc: Referee, choice: str, typed: dict[str, str], setting: Any
) -> None:
    links = create(client, clock=choice, **typed)
    assert svc.state(links["id"]).match.settings["clock"] == setting


@pytest.mark.parametrize(
    ("choice", "typed", "words"),
    [
        ("custom", {"clock_bank": "five", "clock_add": "1"}, "bank_minutes must be a number"),
        ("custom", {"clock_bank": "", "clock_add": ""}, "bank_minutes or add_minutes above 0"),
        ("custom", {"clock_bank": "43201", "clock_add": "1"}, "from 0 to 43200"),
        ("blitz", {}, "must be null (no clock) or an object"),
    ],
)
def test_a_bad_clock_is_refused_beside_its_fields_and_nothing_is_created(
    client: FlaskClient, svc: Referee, choice: str, typed: dict[str, str], words: str
) -> None:
    data = new_match_form("Clocks", clock=choice, **typed)
    r = client.post("/new", data=data)
    assert r.status_code == 422
    html = r.get_data(as_text=True)
    assert words in errors_of(html, "clock")
    (select,) = re.findall(r'<select[^>]*id="clock"[^>]*>', html)
    assert 'aria-invalid="true"' in select
    assert svc.match_ids() == []


def test_the_create_page_estimates_how_long_a_match_can_last(client: FlaskClient) -> None:
    html = page(client, "/new?game=forks")
    table = html.split('class="estimates"', 1)[1].split("</table>", 1)[0]
    # 3 players: 24 steps; at most 24 x 10 minutes, or 3 x 5 minutes + 24 x 1 minute
    assert re.search(
        r"<th scope=\"row\">3</th><td>24</td><td>4 hours</td><td>39 minutes</td>", table
    )


def test_auto_open_with_no_fixed_deadline_needs_a_clock(client: FlaskClient, svc: Referee) -> None:
    r = client.post("/new", data=new_match_form("Clocks", auto_open="y", deadline_hours="0"))
    assert r.status_code == 422
    assert "or a clock per player" in errors_of(r.get_data(as_text=True), "deadline_hours")
    links = create(client, deadline_hours="0", clock="live")
    assert svc.state(links["id"]).rounds[0].deadline is not None


def test_every_page_shows_each_player_s_clock_and_the_acting_seat_s_counts_down(
    client: FlaskClient, clock: Clock, svc: Referee
) -> None:
    links = create(client, clock="live")  # Rocky River: every seat acts in each step
    clock.now += timedelta(seconds=65)
    r = client.post(
        links["seats"][0],
        data={"round": "1", "ranking": GOLDEN["draft"]["1"]},
        follow_redirects=True,
    )
    assert "was accepted" in r.get_data(as_text=True)
    state = svc.state(links["id"])
    ends = state.rounds[0].opened_at + timedelta(seconds=360)
    stamp = ends.strftime("%Y-%m-%dT%H:%M:%SZ")
    for url in (links["host"], f"/matches/{links['id']}", links["seats"][1]):
        html = page(client, url)
        clocks = html.split('class="clocks"', 1)[1].split("</ul>", 1)[0]
        assert f'data-clock-until="{stamp}"' in clocks  # seats 2 and 3 run
        assert "4:55</span> left on the clock, running" in clocks
        assert "4:55 left: sent, clock stopped" in clocks
    public = page(client, f"/matches/{links['id']}")
    said = "a clock per player: 5 minutes in the bank, 1 minute added at each of its steps"
    assert said in public
    mine = page(client, links["seats"][1])
    assert "Your clock:" in mine.split('class="your-turn"', 1)[1].split("</p>", 1)[0]


def test_clock_text_reads_like_a_chess_clock() -> None:
    assert [clock_text(s) for s in (0, 5, 65, 600, 3725, 86400 + 7200)] == [
        "0:00",
        "0:05",
        "1:05",
        "10:00",
        "1:02:05",
        "1 day 2 hours",
    ]


def test_the_api_takes_a_clock_refuses_a_bad_one_and_an_order_out_of_time(
    client: FlaskClient, clock: Clock
) -> None:
    """Through the JSON API: ``settings.clock`` at creation (``settings/bad_clock``
    names what is wrong), the clocks in the views, and 409 ``round/out_of_time``
    for a seat whose clock ran out while another's still runs."""
    body = {"name": "API clocks", "map": "three-rapids", "players": GOLDEN["players"]}
    bad = client.post("/api/matches", json={**body, "settings": {"clock": {"bank_minutes": 5}}})
    assert bad.status_code == 422
    assert [e["code"] for e in bad.get_json()["errors"]] == ["settings/bad_clock"]
    made = client.post(
        "/api/matches",
        json={
            **body,
            "settings": {"close_early": True, "clock": {"bank_minutes": 5, "add_minutes": 1}},
        },
    )
    assert made.status_code == 201
    created = made.get_json()
    mid = created["id"]
    host = {"Authorization": f"Bearer {created['host_token']}"}
    seats = {s: {"Authorization": f"Bearer {t}"} for s, t in created["player_tokens"].items()}
    assert client.post(f"/api/matches/{mid}/rounds/open", headers=host, json={}).status_code == 200
    opened = clock.now
    # the draft: seat 3 keeps 10 s of its 6 minutes, the others far more
    for seat, after in (("1", 10), ("2", 20), ("3", 350)):
        clock.now = opened + timedelta(seconds=after)
        sent = client.put(
            f"/api/matches/{mid}/orders", headers=seats[seat], json={"draft": GOLDEN["draft"][seat]}
        )
        assert sent.status_code == 200, sent.get_json()
    view = client.get(f"/api/matches/{mid}").get_json()
    assert view["clock_banks"] == {"1": 350.0, "2": 340.0, "3": 10.0}
    assert view["rounds"][0]["clocks"]["3"] == {"start": 360.0, "runs_out_at": None, "left": 10.0}
    assert client.post(f"/api/matches/{mid}/rounds/open", headers=host, json={}).status_code == 200
    clock.now += timedelta(seconds=71)  # seat 3's 10 + 60 s have run out
    key = ORDER_KEYS["mapping"]
    late = client.put(f"/api/matches/{mid}/orders", headers=seats["3"], json={key: {}})
    assert late.status_code == 409
    assert [e["code"] for e in late.get_json()["errors"]] == ["round/out_of_time"]
    pulse = client.get(f"/api/matches/{mid}/pulse").get_json()
    assert pulse["step"]["clocks"]["1"]["runs_out_at"] is not None
    # seat 3's page says its clock ran out (not "Your turn"); the others' still run
    page3 = page(client, f"/play/{created['player_tokens']['3']}")
    assert "Your clock ran out" in page3 and "Your turn" not in page3
    assert "0:00: the clock ran out, the step's default is used" in page3
    page1 = page(client, f"/play/{created['player_tokens']['1']}")
    assert "Your turn" in page1 and "Your clock ran out" not in page1
