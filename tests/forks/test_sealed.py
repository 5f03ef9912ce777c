"""Sealed means sealed in Forks (1st edition), through everything the app
serves (SQLite and PostgreSQL): the acting seat replaces its sealed order
(a keep with a keep and a swap, an invest with another card) and nothing the
other seats, the host or the public can fetch changes, byte for byte (the
clock stands still): API views, preview, export, posts, pages, the host's order
pages and preview, the pictures and their ETags, the pulse and its ETag.
tests/test_conformance.py compares the views of every game; this compares the
pages and pictures made from them."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from referee.service import Referee

PLAYERS = [{"seat": s, "name": n, "garnets": 3} for s, n in ((1, "Ana"), (2, "Bo"), (3, "Cy"))]


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


@pytest.fixture
def web(app: Flask) -> Iterator[FlaskClient]:
    app.config["WTF_CSRF_ENABLED"] = False
    app.config["RATELIMIT_ENABLED"] = False
    service: Referee = app.extensions["referee"]
    service.clock = lambda: datetime(2026, 11, 1, 12, 0, tzinfo=UTC)
    yield app.test_client()


def everything_but(
    web: FlaskClient, mid: str, host: str, seats: dict[int, str], sender: int
) -> dict[str, Any]:
    """What every viewer but ``sender`` can fetch about the match."""
    api = f"/api/matches/{mid}"
    out: dict[str, Any] = {}
    for path in ("/me", "/preview", "/export", "/post?format=markdown", "/post?format=bbcode"):
        out[f"api {path}"] = web.get(api + path, headers=bearer(host)).get_data()
    out["api public"] = web.get(api).get_data()
    pulse = web.get(f"{api}/pulse")
    out["pulse"] = (pulse.get_data(), pulse.headers["ETag"])
    for seat, token in seats.items():
        if seat != sender:
            out[f"me {seat}"] = web.get(f"{api}/me", headers=bearer(token)).get_data()
            out[f"page {seat}"] = web.get(f"/play/{token}").get_data()
    for path in ("", "/post?format=markdown", "/export", *(f"/order/{s}" for s in seats)):
        out[f"host {path}"] = web.get(f"/host/{host}{path}").get_data()
    out["host preview"] = web.post(f"/host/{host}/preview").get_data()
    out["public page"] = web.get(f"/matches/{mid}").get_data()
    out["public post"] = web.get(f"/matches/{mid}/post").get_data()
    for picture in ("board.svg", "board.png", "scores.svg"):
        resp = web.get(f"/matches/{mid}/{picture}")
        out[picture] = (resp.status_code, resp.headers.get("ETag"), resp.get_data())
    return out


def test_replacing_a_sealed_forks_order_changes_nothing_another_viewer_can_fetch(
    web: FlaskClient, app: Flask
) -> None:
    service: Referee = app.extensions["referee"]
    body = {"ruleset": "forks", "name": "Sealed", "players": PLAYERS, "settings": {"swap": True}}
    created = web.post("/api/matches", json=body).get_json()
    mid, host = created["id"], created["host_token"]
    seats = {int(s): t for s, t in created["player_tokens"].items()}
    compared = 0
    for _ in range(4):  # turns 1 and 2: each a draw and an invest step
        opened = web.post(f"/api/matches/{mid}/rounds/open", json={}, headers=bearer(host))
        assert opened.status_code == 200
        rnd = service.state(mid).open_round
        assert rnd is not None
        seat = int(rnd.acting[0])
        me = web.get(f"/api/matches/{mid}/me", headers=bearer(seats[seat])).get_json()
        options, takes = me["options"], me.get("can_take") or []
        if rnd.phase == "draw":
            orders: list[Any] = [
                {"draw": {"keep": options[0]}},
                {"draw": {"keep": takes[0], "swap": {"give": options[1], "take": takes[0]}}},
            ]
        else:
            orders = [{"invest": options[0]}, {"invest": options[1]}]
        seen = []
        for order in orders:
            resp = web.put(f"/api/matches/{mid}/orders", json=order, headers=bearer(seats[seat]))
            assert resp.status_code == 200, resp.get_json()
            seen.append(everything_but(web, mid, host, seats, seat))
        moved = [key for key in seen[0] if seen[0][key] != seen[1][key]]
        assert not moved, f"{rnd.title}: replacing seat {seat}'s order changed {moved}"
        mine = web.get(f"/api/matches/{mid}/me", headers=bearer(seats[seat])).get_json()
        stored = mine["orders"][str(rnd.number)][str(seat)]["order"]
        first, second = (next(iter(order.values())) for order in orders)
        assert stored == second != first  # the order did change: the comparison is not blind
        compared += 1
        closed = web.post(f"/api/matches/{mid}/rounds/close", json={}, headers=bearer(host))
        assert closed.status_code == 200
    assert compared == 4
