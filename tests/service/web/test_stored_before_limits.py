"""A match stored before this version's admission limits (issue 10) keeps
working after the upgrade: names on two lines or alike, a map whose name and
ids the limits now refuse and a 200-fork chain are refused for new matches,
but a match that already holds them is still played, closed, re-checked,
audited, shown and posted, never a 500. Runs on SQLite and PostgreSQL."""

from __future__ import annotations

import copy
import json
from typing import Any

from big_maps import chain_map
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import update

from referee.models import Match, Seat
from referee.rulesets.rocky_river.data import load_bundled_map
from referee.service import Referee

from .web_kit import GOLDEN, Clock

OLD_NAMES = {1: "Ana\nToken of Life: Ana", 2: "Bo", 3: "B\u200bo"}  # a line break; look-alikes


def old_map() -> dict[str, Any]:
    """Three Rapids with a name and a branch id the limits now refuse."""
    doc = copy.deepcopy(load_bundled_map("three-rapids").to_json())
    doc["name"] = "Old\nmap"
    doc["forks"][0]["left"][0]["id"] = "first left [url=x]"
    return doc


def store_old_match(app: Flask, client: FlaskClient, map_doc: Any) -> dict[str, Any]:
    body = {"name": "Old", "map": "three-rapids", "players": GOLDEN["players"]}
    created: dict[str, Any] = client.post("/api/matches", json=body).get_json()
    engine = app.extensions["referee"].engine
    with engine.begin() as conn:  # as an earlier version could have stored it
        conn.execute(
            update(Match)
            .where(Match.id == created["id"])  # type: ignore[arg-type]
            .values(setup={"map": map_doc, "map_name": None}, name="Old\nmatch")
        )
        for seat, name in OLD_NAMES.items():
            conn.execute(
                update(Seat)
                .where(Seat.match_id == created["id"], Seat.seat == seat)  # type: ignore[arg-type]
                .values(name=name)
            )
    return created


def test_a_match_stored_before_the_limits_is_played_to_the_end(
    app: Flask, client: FlaskClient, clock: Clock, svc: Referee
) -> None:
    # new matches with these are refused
    refused = client.post(
        "/api/matches", json={"name": "New", "map": old_map(), "players": GOLDEN["players"]}
    )
    assert refused.status_code == 422
    players = [{**p, "name": OLD_NAMES[p["seat"]]} for p in GOLDEN["players"]]
    refused = client.post(
        "/api/matches", json={"name": "New", "map": "three-rapids", "players": players}
    )
    assert refused.status_code == 422
    # an old match with them is played round by round
    created = store_old_match(app, client, old_map())
    mid, host = created["id"], {"Authorization": f"Bearer {created['host_token']}"}
    pages = [
        f"/matches/{mid}",
        f"/host/{created['host_token']}",
        *(f"/play/{t}" for t in created["player_tokens"].values()),
        f"/matches/{mid}/post?format=markdown",
        f"/matches/{mid}/post?format=bbcode",
        f"/matches/{mid}/map.svg",
        f"/matches/{mid}/map.png",
    ]
    plays = [GOLDEN["draft"], None, *GOLDEN["votes"]]  # mapping: seeded defaults
    kinds = ["draft", None, "votes", "votes", "votes"]
    for number, orders in enumerate(plays, start=1):
        assert client.post(f"/api/matches/{mid}/rounds/open", headers=host, json={}).status_code
        for seat, token in created["player_tokens"].items():
            if orders is None:
                continue
            resp = client.put(
                f"/api/matches/{mid}/orders",
                headers={"Authorization": f"Bearer {token}"},
                json={kinds[number - 1]: orders[seat]},
            )
            assert resp.status_code == 200, (number, resp.get_json())
        preview = client.get(f"/api/matches/{mid}/preview", headers=host)
        assert preview.status_code == 200
        closed = client.post(f"/api/matches/{mid}/rounds/close", headers=host, json={})
        assert closed.status_code == 200, (number, closed.get_json())
        for url in pages:
            assert client.get(url).status_code == 200, (number, url)
        if number >= 2:
            audit = client.get(f"/api/matches/{mid}/audit", headers=host)
            assert audit.status_code == 200, audit.get_json()
    view = client.get(f"/api/matches/{mid}").get_json()
    assert view["finished"] and view["result"]["elimination_candidate"]["seat"] in (1, 2, 3)
    assert svc.recheck(mid) == []
    post = client.get(f"/matches/{mid}/post").get_data(as_text=True)
    assert "\nToken of Life: Ana" not in post  # the stored line break stays inside its line
    # the host's file of it is refused by `referee resolve --file` as any new file would be
    exported = client.get(f"/api/matches/{mid}/export", headers=host).get_json()
    assert json.dumps(exported).count("first left [url=x]") >= 1


def test_a_stored_200_fork_chain_answers_its_pages_without_a_500(
    app: Flask, client: FlaskClient, clock: Clock
) -> None:
    created = store_old_match(app, client, chain_map(200, segments=5))
    mid, host = created["id"], {"Authorization": f"Bearer {created['host_token']}"}
    assert client.post(f"/api/matches/{mid}/rounds/open", headers=host, json={}).status_code == 200
    for url in (
        f"/matches/{mid}",
        f"/host/{created['host_token']}",
        f"/play/{created['player_tokens']['1']}",
        f"/matches/{mid}/map.png",
    ):
        assert client.get(url).status_code == 200, url
    closed = client.post(f"/api/matches/{mid}/rounds/close", headers=host, json={})
    assert closed.status_code == 200, closed.get_json()
