"""Issue 23, items 1 and 2, in a real browser: the season host page sets up a
Main Match like the create page (choosing the game switches its fields at
once, a valid set of players ticked, who sits out named), and a fresh browser,
at phone width, reaches the match's host dashboard from the season host page
alone and gives it a new host link, after which the old one opens nothing."""

from __future__ import annotations

import re

from playwright.sync_api import Browser, expect

from referee.db import make_engine
from referee.service import Referee

from .conftest import Server

TIMEOUT = 10_000  # ms
PLAYERS = ["Ana", "Bo", "Cy", "Di", "Ed", "Flo"]


def test_a_season_match_is_set_up_and_hosted_from_any_browser(
    server: Server, browser: Browser
) -> None:
    desk = browser.new_context(viewport={"width": 1280, "height": 900})
    desk.set_default_timeout(TIMEOUT)
    made = desk.request.post(
        f"{server.url}/api/seasons",
        data={"name": "Browser season", "players": [{"name": n} for n in PLAYERS]},
    )
    assert made.ok, made.text()
    host_url = f"{server.url}/season-host/{made.json()['host_token']}"
    page = desk.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    loads: list[str] = []
    page.on("load", lambda p: loads.append(p.url))
    page.goto(host_url)
    main = page.locator("#main-match-fields")
    # six still in: a game that takes all six, every one ticked
    expect(page.get_by_label("Game", exact=True)).to_have_value("forks-2e")
    expect(main.get_by_role("checkbox", name="Flo")).to_be_checked()
    expect(page.get_by_role("button", name="Show this game's fields")).to_be_hidden()
    # Rocky River, chosen with no button pressed: its map fields, three of six ticked
    page.get_by_label("Game", exact=True).select_option("rocky-river")
    expect(main.get_by_label("Bundled map")).to_be_visible()
    expect(main.locator(".left-out")).to_have_text("Di, Ed, Flo")
    expect(main.get_by_role("checkbox", name="Di")).not_to_be_checked()
    assert loads == [host_url]  # no page was loaded for it
    # back to Forks, one player left out, no deadline (the host opens each round)
    page.get_by_label("Game", exact=True).select_option("forks-2e")
    expect(main.get_by_label("Bundled map")).to_have_count(0)
    expect(main.get_by_role("group", name="Tiebreak order of the destinations")).to_be_visible()
    main.get_by_role("checkbox", name="Ed").uncheck()
    expect(main.get_by_label("Open each round by itself")).to_be_checked()
    main.get_by_role("button", name="Create the Main Match").click()
    expect(page.locator(".next-step")).to_have_attribute("data-step", "main_running")
    first_link = page.locator("li[data-match] a.match-host-link").get_attribute("href") or ""
    assert first_link.startswith("/host/")
    assert not errors, errors

    # another browser, at phone width: the season host page alone reaches the match
    phone = browser.new_context(viewport={"width": 375, "height": 800}, is_mobile=True)
    phone.set_default_timeout(TIMEOUT)
    other = phone.new_page()
    other.goto(host_url)
    listed = other.get_by_role("region", name="Matches of this season")
    expect(listed.get_by_role("link", name="host dashboard")).to_have_attribute("href", first_link)
    listed.get_by_role("link", name="host dashboard").click()
    expect(other).to_have_title(re.compile(r"^Host · Browser season: episode 1, Main Match"))
    engine = make_engine(server.database_url)
    try:
        svc = Referee(engine)
        found = svc.find_token(first_link.removeprefix("/host/"))
        assert found is not None and found[1] is None
        state = svc.state(found[0])
        assert [s.name for s in state.seats] == ["Ana", "Bo", "Cy", "Di", "Flo"]
        assert state.match.ruleset == "forks-2e" and len(state.rounds) == 1  # ran by itself
    finally:
        engine.dispose()
    # a new host link from there: the old one opens nothing, in either browser
    other.goto(host_url)
    item = other.locator("li[data-match]")
    item.get_by_label("I am sure: the match's old host link stops working").check()
    item.get_by_role("button", name="Give it a new host link").click()
    expect(other.get_by_text("has a new host link")).to_be_visible()
    second = other.locator("li[data-match] a.match-host-link").get_attribute("href") or ""
    assert second.startswith("/host/") and second != first_link
    assert desk.request.get(server.url + first_link).status == 404
    assert phone.request.get(server.url + second).status == 200
    width = other.evaluate("document.documentElement.scrollWidth")
    assert width <= 375, width
    desk.close()
    phone.close()
