"""Issue 23, item 3, in a real browser: choosing a game in the create page's
menu switches the form's fields at once (static/game_choice.js), without the
"Show this game's fields" button, keeping what the host had typed; the match
made from it is of that game and, with the boxes left as they come, runs by
itself. When fetching the fields fails, the browser simply loads that page."""

from __future__ import annotations

import re
from typing import Any

from playwright.sync_api import Browser, Route, expect

from referee.db import make_engine
from referee.service import Referee

from .conftest import Server

TIMEOUT = 10_000  # ms


def test_choosing_forks_switches_the_fields_at_once(server: Server, browser: Browser) -> None:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.set_default_timeout(TIMEOUT)
    host = context.new_page()
    errors: list[str] = []
    host.on("pageerror", lambda e: errors.append(str(e)))
    loads: list[str] = []
    host.on("load", lambda p: loads.append(p.url))
    host.goto(server.url + "/new")
    expect(host.get_by_label("Bundled map")).to_be_visible()  # Rocky River, the default
    expect(host.get_by_role("button", name="Show this game's fields")).to_be_hidden()
    host.get_by_label("Match name").fill("Typed before the choice")
    host.get_by_role("group", name=re.compile(r"^Seat 1( |$)")).get_by_label("Name").fill("Ann")

    host.get_by_label("Game").select_option("forks-2e")  # and no button pressed
    tiebreak = host.get_by_role("group", name="Tiebreak order of the destinations")
    expect(tiebreak).to_be_visible()
    expect(host.get_by_label("Bundled map")).to_have_count(0)
    expect(host.locator("[data-game-choice-status]")).to_contain_text("Forks 2nd Edition")
    assert host.url.endswith("/new?game=forks-2e"), host.url
    assert loads == [server.url + "/new"]  # the fields came without loading another page
    # what was typed is kept; the new form's own fields come with it
    expect(host.get_by_label("Match name")).to_have_value("Typed before the choice")
    seat1 = host.get_by_role("group", name=re.compile(r"^Seat 1( |$)"))
    expect(seat1.get_by_label("Name")).to_have_value("Ann")
    expect(host.locator('input[type=hidden][name="game"]')).to_have_value("forks-2e")
    # the game's script works on the new fields: a place taken swaps with the other
    tiebreak.get_by_role("combobox").nth(0).select_option("red")  # blue at first
    expect(tiebreak.locator(".order-status")).to_contain_text("moved to place")
    # the boxes that let a first match run by itself are ticked at first
    expect(host.get_by_label("Open each round by itself")).to_be_checked()
    expect(host.get_by_label(re.compile(r"^Close a round as soon as"))).to_be_checked()

    for seat, (name, garnets) in enumerate([("Ann", 4), ("Ben", 2), ("Cat", 2)], start=1):
        group = host.get_by_role("group", name=re.compile(rf"^Seat {seat}( |$)"))
        group.get_by_label("Name").fill(name)
        group.get_by_label("Garnets").fill(str(garnets))
    host.get_by_role("button", name="Create the match").click()
    expect(host.get_by_role("heading", level=1)).to_have_text("“Typed before the choice” is ready")
    host_url = host.locator("#host-link").get_attribute("href") or ""
    token = host_url.rsplit("/", 1)[1]
    public_url = (
        host.get_by_role("region", name="The public page").get_by_role("link").get_attribute("href")
        or ""
    )
    match_id = public_url.rsplit("/", 1)[1]
    answer = context.request.get(
        f"{server.url}/api/matches/{match_id}/export",
        headers={"Authorization": f"Bearer {token}"},
    )
    assert answer.ok, answer.text()
    exported: dict[str, Any] = answer.json()
    assert exported["ruleset"] == "forks-2e"
    assert exported["settings"]["tiebreak"][:1] == ["red"]
    engine = make_engine(server.database_url)
    try:
        settings = Referee(engine).state(match_id).match.settings
    finally:
        engine.dispose()
    assert settings["close_early"] is True and settings["auto_open"] is True
    assert settings["deadline_hours"] == 48
    host.goto(host_url)
    # open each round by itself: the first one is open without the host
    expect(host.get_by_role("region", name="Current round")).to_contain_text("is open for orders")
    assert errors == []
    context.close()


def test_a_failed_fetch_loads_the_page_instead(server: Server, browser: Browser) -> None:
    context = browser.new_context(viewport={"width": 375, "height": 812})
    context.set_default_timeout(TIMEOUT)
    page = context.new_page()
    page.goto(server.url + "/new?game=rocky-river")
    failed: list[str] = []

    def first_fails(route: Route) -> None:
        if not failed and route.request.resource_type == "fetch":
            failed.append(route.request.url)
            route.abort()
        else:
            route.continue_()

    page.route(re.compile(r".*/new\?game=forks-2e$"), first_fails)
    with page.expect_navigation():
        page.get_by_label("Game").select_option("forks-2e")
    assert failed == [server.url + "/new?game=forks-2e"]
    expect(page.get_by_role("group", name="Tiebreak order of the destinations")).to_be_visible()
    assert page.url == server.url + "/new?game=forks-2e"
    context.close()
