"""A season's public files over HTTP (issue 15), on SQLite and PostgreSQL:
the forum post (as text, and on a page to copy it from with a forum's
preview, issue 23), the garnet picture as SVG and PNG (ETag, 304), the ledger
as CSV (a download) and JSON; an unknown season is 404 on each; nothing private (an
address) is in any of them; drawn files count towards RATELIMIT_PICTURES."""

from __future__ import annotations

import csv
import html
import io
import re
import xml.etree.ElementTree as ET

from flask import Flask
from flask.testing import FlaskClient

from referee.seasons.service import Seasons

ROSTER = [
    {"name": "Ana <b>&", "garnets": 5, "email": "ana@example.org"},
    {"name": "=Bo", "garnets": 2},
    {"name": "Cy"},
]


PATHS = (
    "post",
    "post?format=bbcode",
    "forum-post",
    "forum-post?format=bbcode",
    "garnets.svg",
    "garnets.png",
    "ledger.csv",
    "ledger.json",
)


def make_season(app: Flask) -> str:
    seasons: Seasons = app.extensions["seasons"]
    made = seasons.create_season(name="Spring [b]S1[/b]", players=ROSTER)
    seasons.add_entry(made.season_id, player=3, change=-1, reason="-late")
    return made.season_id


def test_the_files_of_a_season(app: Flask, client: FlaskClient) -> None:
    sid = make_season(app)
    md = client.get(f"/seasons/{sid}/post")
    assert md.status_code == 200 and md.mimetype == "text/plain"
    text = md.get_data(as_text=True)
    assert "### Spring \\[b\\]S1\\[&#47;b\\] \u2014 season standings" in text
    assert f"(http://localhost/seasons/{sid}/garnets.png?v=" in text  # forums take PNG
    assert "Ana &#60;b\\>&#38;: 5 garnets" in text
    bb = client.get(f"/seasons/{sid}/post?format=bbcode").get_data(as_text=True)
    assert "[*]Ana <b>&: 5 garnets" in bb and "Spring (b)S1(/b)" in bb
    bad = client.get(f"/seasons/{sid}/post?format=html")
    assert bad.status_code == 422 and b"markdown or bbcode" in bad.data

    svg = client.get(f"/seasons/{sid}/garnets.svg")
    assert svg.status_code == 200 and svg.mimetype == "image/svg+xml"
    root = ET.fromstring(svg.data)
    assert root.get("role") == "img"
    assert "Ana <b>&" in "".join(root.itertext())  # escaped in the XML, the text as typed
    assert svg.headers["Cache-Control"] == "public, max-age=60"
    etag = svg.headers["ETag"]
    again = client.get(f"/seasons/{sid}/garnets.svg", headers={"If-None-Match": etag})
    assert again.status_code == 304 and again.headers["ETag"] == etag
    app.extensions["seasons"].add_entry(sid, player=1, change=2, reason="bonus")
    changed = client.get(f"/seasons/{sid}/garnets.svg", headers={"If-None-Match": etag})
    assert changed.status_code == 200 and changed.headers["ETag"] != etag

    ledger = client.get(f"/seasons/{sid}/ledger.csv")
    assert ledger.status_code == 200 and ledger.mimetype == "text/csv"
    assert ledger.headers["Content-Disposition"] == (
        f'attachment; filename="season-{sid}-ledger.csv"'
    )
    rows = list(csv.DictReader(io.StringIO(ledger.get_data(as_text=True))))
    assert [(r["name"], r["change"], r["balance"], r["reason"]) for r in rows] == [
        ("Ana <b>&", "5", "5", "starting garnets"),
        ("'=Bo", "2", "2", "starting garnets"),
        ("Cy", "-1", "-1", "'-late"),
        ("Ana <b>&", "2", "7", "bonus"),
    ]

    data = client.get(f"/seasons/{sid}/ledger.json")
    assert data.status_code == 200 and data.mimetype == "application/json"
    body = data.get_json()
    assert body["balances"] == {"1": 7, "2": 2, "3": -1}
    assert [e["balance"] for e in body["entries"]] == [5, 2, -1, 7]

    everything = b"".join(client.get(f"/seasons/{sid}/{path}").data for path in PATHS)
    assert b"ana@example.org" not in everything and b"example.org" not in everything


def test_an_unknown_season_is_404(client: FlaskClient) -> None:
    for path in PATHS:
        resp = client.get(f"/seasons/nosuchseason/{path}")
        assert resp.status_code == 404, path
        assert b"no season" in resp.data


def test_drawn_files_count_towards_the_pictures_limit(app: Flask, client: FlaskClient) -> None:
    sid = make_season(app)
    app.config.update(RATELIMIT_ENABLED=True, RATELIMIT_PICTURES="3 per minute")
    first = client.get(f"/seasons/{sid}/garnets.svg")
    etag = first.headers["ETag"]
    for _ in range(5):  # 304: nothing drawn, nothing counted
        assert (
            client.get(f"/seasons/{sid}/garnets.svg", headers={"If-None-Match": etag}).status_code
            == 304
        )
    assert client.get(f"/seasons/{sid}/ledger.csv").status_code == 200
    assert client.get(f"/seasons/{sid}/post").status_code == 200
    limited = client.get(f"/seasons/{sid}/ledger.json")
    assert limited.status_code == 429 and "Retry-After" in limited.headers


def test_the_post_page_has_the_text_to_copy_and_a_forum_preview(
    app: Flask, client: FlaskClient
) -> None:
    sid = make_season(app)
    standings = client.get(f"/seasons/{sid}").get_data(as_text=True)
    assert f'href="/seasons/{sid}/forum-post?format=markdown"' in standings
    assert f'href="/seasons/{sid}/forum-post?format=bbcode"' in standings
    assert f'href="/seasons/{sid}/garnets.png"' in standings
    for fmt in ("markdown", "bbcode"):
        page = client.get(f"/seasons/{sid}/forum-post?format={fmt}")
        assert page.status_code == 200 and page.mimetype == "text/html"
        body = page.get_data(as_text=True)
        text = client.get(f"/seasons/{sid}/post?format={fmt}").get_data(as_text=True)
        box = re.search(r'<textarea id="post-text"[^>]*>(.*?)</textarea>', body, re.S)
        assert box is not None and html.unescape(box.group(1)) == text  # the same post
        assert 'id="post-copy"' in body and "post.js" in body
        preview = re.search(
            r'<div class="post-rendered" id="post-rendered">(.*?)</div>', body, re.S
        )
        assert preview is not None
        shown = preview.group(1)
        # the names show as typed, escaped: no element of theirs forms
        assert "<b>&" not in shown and "Ana &lt;b&gt;&amp;" in shown, shown
        assert "<strong>S1" not in shown and "<b>S1" not in shown  # no bold from the name
        (src,) = re.findall(r'<img [^>]*src="([^"]+)"', shown)
        assert src.startswith(f"http://localhost/seasons/{sid}/garnets.png?v=")
        assert b"example.org" not in page.data
    bad = client.get(f"/seasons/{sid}/forum-post?format=html")
    assert bad.status_code == 422 and b"markdown or bbcode" in bad.data


def test_the_garnet_picture_as_png(app: Flask, client: FlaskClient) -> None:
    sid = make_season(app)
    png = client.get(f"/seasons/{sid}/garnets.png")
    assert png.status_code == 200 and png.mimetype == "image/png"
    assert png.data.startswith(b"\x89PNG\r\n\x1a\n")
    etag = png.headers["ETag"]
    assert etag != client.get(f"/seasons/{sid}/garnets.svg").headers["ETag"]
    again = client.get(f"/seasons/{sid}/garnets.png", headers={"If-None-Match": etag})
    assert again.status_code == 304
    app.config.update(RATELIMIT_ENABLED=True, RATELIMIT_PICTURES="2 per minute")
    assert client.get(f"/seasons/{sid}/garnets.png").status_code == 200
    assert client.get(f"/seasons/{sid}/garnets.png").status_code == 200
    assert client.get(f"/seasons/{sid}/garnets.png").status_code == 429
