"""The pulse (issue 24): the public facts match pages poll to follow a match
live. Each test runs on SQLite and PostgreSQL (the ``svc``/``client`` fixtures)."""

from __future__ import annotations

from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from referee.demo import play_steps
from referee.ruleset import Viewer, get_ruleset, ruleset_names
from referee.service import Referee
from referee.views import pulse_for, pulse_of_view, view_for

from .test_sealed import PLAYS, Match, other_order

STEP_KEYS = {
    "number",
    "phase",
    "title",
    "acting",
    "status",
    "deadline",
    "deadline_changes",
    "submitted",
    "clocks",  # each acting seat's clock (null without a clock per player)
}


def pulse(m: Match, **headers: str) -> Any:
    return m.client.get(f"/api/matches/{m.id}/pulse", headers=headers)


def test_the_pulse_is_small_public_json_with_a_strong_etag(client: FlaskClient) -> None:
    m = Match(client)
    before = pulse(m)
    assert before.status_code == 200 and before.mimetype == "application/json"
    body = before.get_json()
    assert body == {
        "match": m.id,
        "step": None,
        "waiting": [],
        "paused": False,
        "finished": False,
        "revealed": False,
        "pulse": body["pulse"],
    }
    assert before.headers["ETag"] == f'"{body["pulse"]}"'
    assert before.headers["Cache-Control"] == "no-cache"
    m.open()
    opened = pulse(m)
    step = opened.get_json()["step"]
    assert set(step) == STEP_KEYS and step["number"] == 1 and step["status"] == "open"
    assert opened.get_json()["waiting"] == [1, 2, 3]
    assert opened.headers["ETag"] != before.headers["ETag"]
    assert len(opened.data) < 600
    # asked again with its ETag: 304, no body
    again = pulse(m, **{"If-None-Match": opened.headers["ETag"]})
    assert again.status_code == 304 and again.data == b""
    # an old ETag gets the new pulse
    assert pulse(m, **{"If-None-Match": before.headers["ETag"]}).status_code == 200


def test_an_order_arriving_moves_the_pulse_and_replacing_it_changes_nothing(
    client: FlaskClient,
) -> None:
    m = Match(client)
    m.open()
    m.send(1, 1, PLAYS[0]["1"])
    first = pulse(m)
    assert first.get_json()["step"]["submitted"] == [1]
    assert first.get_json()["waiting"] == [2, 3]
    # a different order in its place: the same pulse, byte for byte, and still 304
    m.send(1, 1, other_order(m, 1, 1))
    replaced = pulse(m)
    assert replaced.data == first.data and replaced.headers["ETag"] == first.headers["ETag"]
    assert pulse(m, **{"If-None-Match": first.headers["ETag"]}).status_code == 304


def test_closing_pausing_and_moving_the_deadline_move_the_pulse(client: FlaskClient) -> None:
    m = Match(client)
    m.open()
    seen = {pulse(m).headers["ETag"]}
    m.close()
    closed = pulse(m)
    assert closed.get_json()["step"]["status"] == "closed" and closed.get_json()["waiting"] == []
    seen.add(closed.headers["ETag"])
    m.open()
    seen.add(pulse(m).headers["ETag"])
    assert m.api("POST", "/pause", m.host, json={}).status_code == 200
    paused = pulse(m)
    assert paused.get_json()["paused"] is True
    seen.add(paused.headers["ETag"])
    assert len(seen) == 4


def test_an_unknown_match_is_404_json(client: FlaskClient) -> None:
    resp = client.get("/api/matches/no-such-match/pulse")
    assert resp.status_code == 404
    assert resp.get_json()["errors"][0]["code"] == "match/not_found"


def test_polling_does_not_touch_the_failed_link_count_and_a_flood_is_bounded(
    app: Flask, client: FlaskClient
) -> None:
    m = Match(client)
    app.config["RATELIMIT_PULSE"] = "5 per minute"
    app.config["RATELIMIT_FAILED_TOKENS"] = "3 per minute"
    assert [pulse(m).status_code for _ in range(5)] == [200] * 5
    flood = pulse(m)
    assert flood.status_code == 429 and "Retry-After" in flood.headers
    # the seat's link still works: polling spent nothing of the failed-link count
    assert client.get(f"/play/{m.seats[1]}").status_code == 200


@pytest.mark.parametrize("game", ruleset_names())
def test_the_page_pulse_is_the_polled_pulse_in_every_game(svc: Referee, game: str) -> None:
    """Pages render the pulse from their view; the endpoint reads it from three
    rows: the two agree byte for byte at every step, for every viewer."""
    demo = get_ruleset(game).demo(None)
    created = svc.create_match(
        name="Live",
        setup=demo.setup,
        players=demo.players,
        settings=demo.settings,
        ruleset=game,
        seed=demo.seed,
    )
    mid = created.match_id
    seats = [int(p["seat"]) for p in demo.players]
    viewers = [Viewer.public(), Viewer.host(), *(Viewer.of_seat(s) for s in seats)]

    def agree() -> dict[str, Any]:
        polled = pulse_for(svc.pulse(mid))
        state = svc.state(mid)
        for viewer in viewers:
            assert pulse_of_view(view_for(state, viewer)) == polled, viewer
        return polled

    seen = [agree()["pulse"]]
    for orders in demo.steps[:3]:
        svc.open_round(mid)
        seen.append(agree()["pulse"])
        for seat, order in orders.items():
            svc.submit_order(mid, seat, order)
            seen.append(agree()["pulse"])
        svc.close_round(mid)
        seen.append(agree()["pulse"])
    assert len(set(seen)) == len(seen)  # every step moved it
    play_steps(svc, mid, demo.steps[3:])
    agree()
