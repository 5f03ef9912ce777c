"""Pages follow the match live (issue 24): a step opened by the host shows on an
open seat page and the public page within seconds, without the reader
reloading, at phone and desktop widths; the seat that acts reads "Your turn"
(title and banner); a form being typed in is never discarded."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import Browser, expect

from referee.loadtest.server import api

from .conftest import Server

LIVE_PAGES = True  # this module's pages keep static/live.js (conftest.browser)

PLAYERS = [
    {"seat": 1, "name": "Ana", "garnets": 7},
    {"seat": 2, "name": "Bo", "garnets": 5},
    {"seat": 3, "name": "Cy", "garnets": 5},
]


def new_match(server: Server) -> dict[str, Any]:
    body = {"name": "Live", "map": "three-rapids", "players": PLAYERS}
    created: dict[str, Any] = api(server.url, "POST", "/api/matches", body)
    return created


@pytest.mark.parametrize("width", [375, 1280])
def test_a_new_step_shows_within_seconds_with_your_turn_in_the_title(
    server: Server, browser: Browser, width: int
) -> None:
    m = new_match(server)
    seat = browser.new_context(viewport={"width": width, "height": 800})
    public = browser.new_context(viewport={"width": width, "height": 800})
    try:
        page = seat.new_page()
        page.goto(f"{server.url}/play/{m['player_tokens']['1']}")
        watcher = public.new_page()
        watcher.goto(f"{server.url}/matches/{m['id']}")
        assert not page.title().startswith("Your turn")
        api(server.url, "POST", f"/api/matches/{m['id']}/rounds/open", {}, m["host_token"])
        expect(page).to_have_title(re.compile(r"^Your turn · Ana · Live"), timeout=6000)
        expect(page.locator(".your-turn")).to_contain_text("Your turn", timeout=6000)
        expect(watcher.locator(".whose-turn")).to_contain_text(
            "Waiting for orders from Ana, Bo and Cy", timeout=6000
        )
        assert not watcher.title().startswith("Your turn")
    finally:
        seat.close()
        public.close()


def test_a_form_being_typed_in_is_kept_and_a_banner_says_the_match_moved_on(
    server: Server, browser: Browser
) -> None:
    m = new_match(server)
    api(server.url, "POST", f"/api/matches/{m['id']}/rounds/open", {}, m["host_token"])
    context = browser.new_context(viewport={"width": 375, "height": 800})
    try:
        page = context.new_page()
        page.goto(f"{server.url}/play/{m['player_tokens']['1']}")
        page.evaluate("window.__sameDocument = true")
        # the reader starts on the order form
        page.evaluate(
            "() => { const f = document.querySelector('.your-order form');"
            " const el = f.querySelector('textarea, input:not([type=hidden]), select');"
            " el.dispatchEvent(new Event('input', {bubbles: true})); }"
        )
        # the host closes the round: the public pulse moves
        api(server.url, "POST", f"/api/matches/{m['id']}/rounds/close", {}, m["host_token"])
        expect(page.locator(".moved-on")).to_be_visible(timeout=6000)
        assert page.evaluate("window.__sameDocument") is True  # not reloaded
    finally:
        context.close()
