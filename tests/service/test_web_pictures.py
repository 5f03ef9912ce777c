"""The public pictures (/matches/<id>/map.svg, map.png, results.svg, results.png),
the pictures on the pages, and the forum post's image links, through the Flask
test client. Pictures come from the public view only (R11)."""

from __future__ import annotations

import json
import re
import struct
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from flask.testing import FlaskClient

from referee.web.pictures import svg_to_png

GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "rocky-river"
DOC: dict[str, Any] = json.loads((GOLDEN / "01-full-game.match.json").read_text())
SVG = "{http://www.w3.org/2000/svg}"
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


class Match:
    """The golden full game, played round by round through the JSON API."""

    def __init__(self, client: FlaskClient, **settings: Any) -> None:
        self.client = client
        resp = client.post(
            "/api/matches",
            json={
                "name": "Pictures",
                "map": DOC["map"],
                "players": DOC["players"],
                "settings": settings,
            },
        )
        assert resp.status_code == 201, resp.get_json()
        data = resp.get_json()
        self.id: str = data["id"]
        self.host = {"Authorization": f"Bearer {data['host_token']}"}
        self.seats = {int(s): t for s, t in data["player_tokens"].items()}
        self.orders: list[tuple[str, dict[str, Any]]] = [
            ("draft", DOC["draft"]),
            ("placements", DOC["placements"]),
            *[("votes", v) for v in DOC["votes"]],
        ]
        self.closed = 0

    def play(self) -> None:
        c = self.client
        opened = c.post(f"/api/matches/{self.id}/rounds/open", headers=self.host, json={})
        assert opened.status_code == 200, opened.get_json()
        kind, orders = self.orders[self.closed]
        for seat, order in orders.items():
            auth = {"Authorization": f"Bearer {self.seats[int(seat)]}"}
            sent = c.put(f"/api/matches/{self.id}/orders", headers=auth, json={kind: order})
            assert sent.status_code == 200, sent.get_json()
        closed = c.post(f"/api/matches/{self.id}/rounds/close", headers=self.host, json={})
        assert closed.status_code == 200, closed.get_json()
        self.closed += 1

    def get(self, name: str, **headers: str) -> Any:
        return self.client.get(f"/matches/{self.id}/{name}", headers=headers)

    def result(self) -> dict[str, Any]:
        view: dict[str, Any] = self.client.get(f"/api/matches/{self.id}").get_json()
        return dict(view["result"])


def png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == PNG_MAGIC
    assert data[12:16] == b"IHDR"
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def branch_texts(svg: str) -> dict[str, str]:
    root = ET.fromstring(svg)
    return {
        g.attrib["data-branch"]: " ".join("".join(t.itertext()) for t in g.iter(f"{SVG}text"))
        for g in root.iter(f"{SVG}g")
        if "data-branch" in g.attrib
    }


def check_map(match: Match) -> str:
    """map.svg and map.png: statuses, types, caching; the PNG is the SVG drawn."""
    svg_resp = match.get("map.svg")
    assert svg_resp.status_code == 200
    assert svg_resp.mimetype == "image/svg+xml"
    assert "max-age=60" in svg_resp.headers["Cache-Control"]
    assert svg_resp.headers["ETag"]
    svg = svg_resp.get_data(as_text=True)
    root = ET.fromstring(svg)
    png_resp = match.get("map.png")
    assert png_resp.status_code == 200 and png_resp.mimetype == "image/png"
    png = png_resp.get_data()
    assert png_size(png) == (int(root.attrib["width"]), int(root.attrib["height"]))
    assert len(png) > 20_000
    assert png == svg_to_png(svg)  # rendered from the public SVG, nothing else
    return svg


def test_pictures_follow_the_match_and_show_only_public_information(
    client: FlaskClient,
) -> None:
    match = Match(client)
    svg = check_map(match)
    assert set(branch_texts(svg).values()) and all(
        "total ?" in t for t in branch_texts(svg).values()
    )
    for name in ("results.svg", "results.png"):
        resp = match.get(name)
        assert resp.status_code == 404
        assert resp.mimetype == "text/html"
        assert "There is no results picture yet" in resp.get_data(as_text=True)

    match.play()  # draft
    match.play()  # mapping: totals stay secret (not published)
    svg = check_map(match)
    texts = branch_texts(svg)
    assert len(texts) == 27
    for bid, text in texts.items():
        assert "total ?" in text and not re.search(r"total [+-]?\d", text), (bid, text)
    assert "own-cards" not in svg and "own-card" not in svg  # nobody's placements
    assert match.get("results.svg").status_code == 404

    for rnd in (1, 2, 3):
        match.play()
        svg = check_map(match)
        result = match.result()
        passed = {s["branch"]: s["points"] for s in result["path"]}
        assert len(passed) == 3 * rnd
        for bid, text in branch_texts(svg).items():
            if bid in passed:
                points = passed[bid]
                assert f"total {'+' if points > 0 else ''}{points}" in text
            else:
                assert "total ?" in text and not re.search(r"total [+-]?\d", text), (bid, text)
        assert "own-card" not in svg
        results = match.get("results.svg")
        assert results.status_code == 200 and results.mimetype == "image/svg+xml"
        drawn = ET.fromstring(results.get_data(as_text=True))
        assert drawn.attrib["data-rounds-closed"] == str(rnd)
        png = match.get("results.png")
        assert png.status_code == 200 and png.mimetype == "image/png"
        assert png_size(png.get_data()) == (int(drawn.attrib["width"]), int(drawn.attrib["height"]))
        assert png.get_data() == svg_to_png(results.get_data(as_text=True))
    text = match.get("results.svg").get_data(as_text=True)
    assert "Token of Life:" in text and "Elimination Candidate:" in text
    assert "decided by score" in text


def test_published_totals_appear_on_the_public_map(client: FlaskClient) -> None:
    match = Match(client, publish_totals=True)
    match.play()
    match.play()
    texts = branch_texts(check_map(match))
    assert not any("total ?" in t for t in texts.values())


def test_pictures_are_cached_by_version(client: FlaskClient) -> None:
    match = Match(client)
    first = match.get("map.png")
    etag = first.headers["ETag"]
    again = match.get("map.png", **{"If-None-Match": etag})
    assert again.status_code == 304 and not again.get_data()
    assert match.get("map.svg").headers["ETag"] != etag  # one tag per picture and format
    match.play()  # a closed round changes the match's version
    changed = match.get("map.png", **{"If-None-Match": etag})
    assert changed.status_code == 200 and changed.headers["ETag"] != etag


def test_unknown_match_has_no_pictures(client: FlaskClient) -> None:
    for name in ("map.svg", "map.png", "results.svg", "results.png"):
        resp = client.get(f"/matches/nosuchmatch/{name}")
        assert resp.status_code == 404


def test_forum_post_embeds_the_pictures(client: FlaskClient) -> None:
    match = Match(client)
    base = f"http://localhost/matches/{match.id}"
    md = client.get(f"/api/matches/{match.id}/post?format=markdown").get_json()["post"]
    assert f"![River map: Three Rapids]({base}/map.png?v=0)" in md
    assert "results.png" not in md  # nothing to show yet
    for _ in range(3):
        match.play()  # draft, mapping, rafting 1
    md = client.get(f"/api/matches/{match.id}/post?format=markdown").get_json()["post"]
    bb = client.get(f"/api/matches/{match.id}/post?format=bbcode").get_json()["post"]
    assert f"]({base}/map.png?v=3)" in md and f"]({base}/results.png?v=3)" in md
    assert f"[img]{base}/map.png?v=3[/img]" in bb and f"[img]{base}/results.png?v=3[/img]" in bb
    page = client.get(f"/matches/{match.id}/post?format=bbcode").get_data(as_text=True)
    assert f"[img]{base}/results.png?v=3[/img]" in page
    # each linked picture exists
    for url in re.findall(r"\[img\](\S+?)\[/img\]", bb):
        path = url.removeprefix("http://localhost")
        assert client.get(path).status_code == 200, url


@pytest.mark.parametrize("who", ["public", "seat", "host"])
def test_pages_inline_the_pictures_of_their_viewer(client: FlaskClient, who: str) -> None:
    match = Match(client)
    for _ in range(3):
        match.play()
    if who == "public":
        url = f"/matches/{match.id}"
    elif who == "seat":
        url = f"/play/{match.seats[1]}"
    else:
        url = "/host/" + match.host["Authorization"].removeprefix("Bearer ")
    html = client.get(url).get_data(as_text=True)
    assert html.count('class="river-map"') == 1  # the map, once (its ids are unique)
    assert 'class="results-picture"' in html and 'class="score-chart"' in html
    assert "<summary>Map as a table</summary>" in html
    assert "map.js" in html
    svg = html.split('class="river-map">', 1)[1].split("</svg>", 1)[0]
    unknown = svg.count("total ?")
    if who == "host":
        assert unknown == 0  # the host sees every total
    else:
        assert unknown == 27 - 3  # only the passed branches' totals
    assert ('class="own-cards"' in html) == (who == "seat")
