"""Map pictures of big maps through the web (issue 10, High 2): the biggest
map the limits allow is created and its map.png stays bounded; a 200-fork
chain is refused at creation, and one stored before the limits (written into
the database directly) still gets small pictures, never a 500."""

from __future__ import annotations

import struct
from typing import Any

from big_maps import chain_map, layered_map
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import update

from referee.models import Match
from referee.rulesets.rocky_river.river_map import MAX_FORKS
from referee.web.pictures import MAX_PNG_PIXELS, MAX_PNG_SIDE

PLAYERS = [{"seat": s, "name": f"P{s}", "garnets": s} for s in (1, 2, 3)]


def png_size(png: bytes) -> tuple[int, int]:
    assert png.startswith(b"\x89PNG\r\n\x1a\n")
    width, height = struct.unpack(">II", png[16:24])
    return width, height


def create(client: FlaskClient, map_doc: Any) -> Any:
    return client.post("/api/matches", json={"name": "Big", "map": map_doc, "players": PLAYERS})


def test_map_png_of_the_biggest_map_allowed_is_bounded(client: FlaskClient) -> None:
    resp = create(client, layered_map(MAX_FORKS, 1, 4))  # 39 forks side by side
    assert resp.status_code == 201, resp.get_json()
    mid = resp.get_json()["id"]
    png = client.get(f"/matches/{mid}/map.png")
    assert png.status_code == 200 and png.mimetype == "image/png"
    width, height = png_size(png.data)
    assert max(width, height) <= MAX_PNG_SIDE and width * height <= MAX_PNG_PIXELS
    assert len(png.data) < 1_500_000
    svg = client.get(f"/matches/{mid}/map.svg")
    assert svg.status_code == 200 and len(svg.data) < 300_000


def test_a_200_fork_chain_is_refused_and_one_already_stored_is_drawn_small(
    app: Flask, client: FlaskClient
) -> None:
    chain = chain_map(200, segments=5)
    refused = create(client, chain)
    assert refused.status_code == 422
    codes = {e["code"] for e in refused.get_json()["errors"]}
    assert {"map/too_many_forks", "map/too_many_forks_per_segment"} <= codes
    # a match stored before the limits: its map written into the row directly
    mid = create(client, "three-rapids").get_json()["id"]
    engine = app.extensions["referee"].engine
    with engine.begin() as conn:
        conn.execute(
            update(Match)
            .where(Match.id == mid)  # type: ignore[arg-type]
            .values(setup={"map": chain, "map_name": None}, version=Match.version + 1)
        )
    svg = client.get(f"/matches/{mid}/map.svg")
    assert svg.status_code == 200
    assert "too big to draw" in svg.get_data(as_text=True) and len(svg.data) < 2000
    png = client.get(f"/matches/{mid}/map.png")
    assert png.status_code == 200
    width, height = png_size(png.data)
    assert width <= 1000 and height <= 400
