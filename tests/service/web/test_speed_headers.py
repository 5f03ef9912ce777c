"""Fast to load (issue 13): compressed answers (never PNG), fingerprinted static
files kept a year, audits kept per state of the closed rounds, pictures drawn
only where a page shows them (never by an order POST) and kept per state of
the viewer's view. Counted, never timed."""

from __future__ import annotations

import gzip
import re
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import brotli
import pytest
from flask import Flask, url_for
from flask.testing import FlaskClient

from referee.rulesets.rocky_river.data import load_deck
from referee.rulesets.rocky_river.ruleset import RockyRiver
from referee.service import Referee
from referee.web import IMMUTABLE

from .web_kit import create_match, form_data, host_post, play_round

CANONICAL = list(load_deck().ids)
GZIP = {"Accept-Encoding": "gzip"}
BR = {"Accept-Encoding": "gzip, deflate, br"}


@pytest.fixture
def draws(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """Every picture Rocky River draws, counted by name."""
    counted: Counter[str] = Counter()
    original = RockyRiver.pictures

    def pictures(self: RockyRiver) -> dict[str, Callable[[dict[str, Any]], str | None]]:
        def counting(name: str, draw: Callable[[dict[str, Any]], str | None]) -> Any:
            def drawn(view: dict[str, Any]) -> str | None:
                counted[name] += 1
                return draw(view)

            return drawn

        return {name: counting(name, draw) for name, draw in original(self).items()}

    monkeypatch.setattr(RockyRiver, "pictures", pictures)
    return counted


def test_pages_json_and_svg_are_compressed_png_is_not(client: FlaskClient) -> None:
    links = create_match(client, "Squeezed")
    host_post(client, links, "open")
    plain = client.get(links.host)
    assert "Content-Encoding" not in plain.headers
    assert "Accept-Encoding" in plain.headers["Vary"]
    zipped = client.get(links.host, headers=GZIP)
    assert zipped.headers["Content-Encoding"] == "gzip"
    assert len(zipped.data) * 3 < len(plain.data)
    assert b"</html>" in gzip.decompress(zipped.data)
    squeezed = client.get(links.seats[1], headers=BR)
    assert squeezed.headers["Content-Encoding"] == "br"
    assert b"</html>" in brotli.decompress(squeezed.data)
    api = client.get(f"/api/matches/{links.match_id}", headers=GZIP)
    assert api.headers["Content-Encoding"] == "gzip"
    assert gzip.decompress(api.data).startswith(b"{")
    svg = client.get(f"/matches/{links.match_id}/map.svg", headers=GZIP)
    assert svg.headers["Content-Encoding"] == "gzip"
    assert b"<svg" in gzip.decompress(svg.data)
    png = client.get(f"/matches/{links.match_id}/map.png", headers=BR)
    assert png.status_code == 200 and "Content-Encoding" not in png.headers
    assert png.data.startswith(b"\x89PNG")


def test_picture_etags_are_weak_and_revalidate_compressed(client: FlaskClient) -> None:
    links = create_match(client, "Tagged")
    url = f"/matches/{links.match_id}/map.svg"
    first = client.get(url, headers=GZIP)
    etag = first.headers["ETag"]
    assert etag.startswith('W/"')
    assert client.get(url, headers={**GZIP, "If-None-Match": etag}).status_code == 304
    assert client.get(url, headers={"If-None-Match": etag}).status_code == 304
    assert client.get(url).headers["ETag"] == etag  # the same picture, either encoding


def test_static_files_are_fingerprinted_and_kept_a_year(client: FlaskClient) -> None:
    html = client.get("/").get_data(as_text=True)
    sheet = re.search(r'href="(/static/style\.css\?v=([0-9a-f]{12}))"', html)
    assert sheet, "the style sheet's address carries its digest"
    kept = client.get(sheet.group(1), headers=GZIP)
    assert kept.status_code == 200
    assert kept.headers["Cache-Control"] == IMMUTABLE
    assert kept.headers["Content-Encoding"] == "gzip"
    assert b"{" in gzip.decompress(kept.data)
    for unversioned in ("/static/style.css", "/static/style.css?v=0123456789ab"):
        resp = client.get(unversioned)
        assert resp.status_code == 200
        assert "immutable" not in resp.headers.get("Cache-Control", "")
        assert "no-cache" in resp.headers["Cache-Control"]


def test_a_changed_static_file_gets_a_new_address(
    app: Flask, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Any static file (a game's script as much as the style sheet) gets the
    digest of its content, so a changed file is never served from an old
    year-long cache entry."""
    (tmp_path / "rulesets").mkdir()
    script = tmp_path / "rulesets" / "a.js"
    script.write_text("let a = 1;\n")
    app.static_folder = str(tmp_path)
    with app.test_request_context():
        first = url_for("static", filename="rulesets/a.js")
        script.write_text("let a = 2; // changed\n")
        # a file is looked at again once a second: a second later
        later = time.monotonic() + 1.5
        monkeypatch.setattr(time, "monotonic", lambda: later)
        second = url_for("static", filename="rulesets/a.js")
        missing = url_for("static", filename="nowhere.js")
    assert re.fullmatch(r"/static/rulesets/a\.js\?v=[0-9a-f]{12}", first)
    assert second != first
    assert missing == "/static/nowhere.js"
    client = app.test_client()
    assert client.get(second).headers["Cache-Control"] == IMMUTABLE
    assert "immutable" not in client.get(first).headers["Cache-Control"]  # an old digest


def test_the_audit_is_kept_until_a_round_closes(
    client: FlaskClient, svc: Referee, monkeypatch: pytest.MonkeyPatch
) -> None:
    links = create_match(client, "Audited")
    play_round(client, links, 1)
    play_round(client, links, 2)
    solved = Counter[str]()
    original = RockyRiver.audit

    def audit(self: RockyRiver, document: Any, stored: bool = False) -> Any:
        solved["audit"] += 1
        return original(self, document, stored=stored)

    monkeypatch.setattr(RockyRiver, "audit", audit)
    page = client.get(f"{links.host}/audit").get_data(as_text=True)
    again = client.get(f"{links.host}/audit").get_data(as_text=True)
    api = client.get(
        f"/api/matches/{links.match_id}/audit",
        headers={"Authorization": f"Bearer {links.host[6:]}"},
    ).get_json()
    assert solved["audit"] == 1
    assert page == again
    assert api == svc.audit(links.match_id)
    # an order of the open round (sealed) is not in what the audit reads
    host_post(client, links, "open")
    client.post(links.seats[1], data=form_data(3, ["L", "L", "L", "L"]))
    svc.audit(links.match_id)
    assert solved["audit"] == 1
    # a round closing is a new state: audited anew, and the page says so
    host_post(client, links, "close")
    after = svc.audit(links.match_id)
    assert solved["audit"] == 2
    assert after != api


def test_order_posts_draw_no_picture(client: FlaskClient, draws: Counter[str]) -> None:
    links = create_match(client, "Drawn")
    host_post(client, links, "open")  # (and the dashboard it shows, with its pictures)
    draws.clear()
    sent = client.post(links.seats[1], data=form_data(1, list(CANONICAL)))
    assert sent.status_code == 302
    entered = client.post(
        f"{links.host}/order/2", data={"round": "1", "ranking_text": ", ".join(CANONICAL)}
    )
    assert entered.status_code == 302
    token = links.seats[3].rsplit("/", 1)[1]
    api = client.put(
        f"/api/matches/{links.match_id}/orders",
        json={"draft": list(CANONICAL)},
        headers={"Authorization": f"Bearer {token}"},
    )
    assert api.status_code == 200
    assert sum(draws.values()) == 0
    # a page that shows the map draws it, once per state of what its viewer sees
    client.get(links.seats[1])
    assert draws["map"] == 1
    client.get(links.seats[1])
    assert draws["map"] == 1
    client.get(links.seats[2])  # another viewer: another view
    assert draws["map"] == 2
