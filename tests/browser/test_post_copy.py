"""The host's forum post page in Chromium (issue 13): the Copy button copies
the post (through the Clipboard API, or, in a browser without it, by selecting
it and copying the old way) and says so in its live region; the rendered preview of a
match whose players have hostile names runs nothing (no dialog opens). A
season's post page (issue 23) does the same, its preview showing the season's
garnet picture as PNG."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Browser, Dialog, expect

from referee.db import make_engine
from referee.ruleset import get_ruleset, ruleset_names
from referee.seasons.service import Seasons
from referee.service import Referee

from .conftest import Server

HOSTILE = (
    "<script>alert(1)</script>",
    "<img src=x onerror=alert(2)>",
    "[url=javascript:alert(3)]x[/url] [x](javascript:alert(4))",
    '" onmouseover="alert(5)',
    "Eve",
    "Flo",
)


def finished_demo(server: Server, game: str) -> str:
    """A finished demo match of ``game`` whose players have hostile names, in
    the server's own database; its host token."""
    engine = make_engine(server.database_url)
    try:
        svc = Referee(engine)
        demo = get_ruleset(game).demo(None)
        created = svc.create_match(
            name="<b onclick=alert(6)>Cup</b>",
            setup=demo.setup,
            players=[{**p, "name": HOSTILE[i]} for i, p in enumerate(demo.players)],
            settings=demo.settings,
            ruleset=game,
            seed=demo.seed,
        )
        for orders in demo.steps:
            svc.open_round(created.match_id)
            for seat, order in orders.items():
                svc.submit_order(created.match_id, seat, order)
            svc.close_round(created.match_id)
        return created.host_token
    finally:
        engine.dispose()


@pytest.mark.parametrize("fmt", ["markdown", "bbcode"])
@pytest.mark.parametrize("game", ruleset_names())
def test_copy_the_post(
    server: Server, browser: Browser, artifacts: Path, game: str, fmt: str
) -> None:
    token = finished_demo(server, game)
    url = f"{server.url}/host/{token}/post?format={fmt}"
    for permissions in (["clipboard-read", "clipboard-write"], []):
        context = browser.new_context(permissions=permissions)
        if not permissions:  # a browser without the Clipboard API: the fallback
            context.add_init_script(
                "Object.defineProperty(navigator, 'clipboard', {value: undefined})"
            )
        page = context.new_page()
        dialogs: list[str] = []

        def opened(dialog: Dialog, seen: list[str] = dialogs) -> None:
            seen.append(dialog.message)
            dialog.dismiss()

        page.on("dialog", opened)
        page.goto(url)
        preview = page.locator("#post-rendered")
        if get_ruleset(game).pictures():  # a game without pictures embeds none
            expect(preview.locator("img").first).to_be_visible()
        else:
            expect(preview.locator("img")).to_have_count(0)
        expect(preview.locator("li").first).to_be_visible()
        preview.hover()
        for item in preview.locator("li").all()[:8]:
            item.hover()
        page.get_by_role("button", name="Copy the post").click()
        status = page.get_by_role("status").filter(has_text="Copied")
        expect(status).to_have_text("Copied.")
        text = page.locator("#post-text").input_value()
        assert text.startswith("### " if fmt == "markdown" else "[b][u]")
        if permissions:
            assert page.evaluate("navigator.clipboard.readText()") == text
        else:
            # copied the old way: the whole post is selected in its box
            selected = page.evaluate(
                "(() => { const b = document.getElementById('post-text');"
                " return b.value.slice(b.selectionStart, b.selectionEnd); })()"
            )
            assert selected == text
        assert dialogs == [], dialogs
        if permissions:
            page.screenshot(path=str(artifacts / f"post-{game}-{fmt}.png"), full_page=True)
        context.close()


def test_copy_the_season_post(server: Server, browser: Browser, artifacts: Path) -> None:
    engine = make_engine(server.database_url)
    try:
        seasons = Seasons(Referee(engine), b"browser")
        made = seasons.create_season(
            name="<b onclick=alert(7)>League</b>",
            players=[{"name": n, "garnets": 3} for n in HOSTILE],
        )
    finally:
        engine.dispose()
    context = browser.new_context(permissions=["clipboard-read", "clipboard-write"])
    page = context.new_page()
    dialogs: list[str] = []
    page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
    page.goto(f"{server.url}/seasons/{made.season_id}")
    page.get_by_role("link", name="BBCode").click()  # the standings link the post page
    expect(page).to_have_url(f"{server.url}/seasons/{made.season_id}/forum-post?format=bbcode")
    for fmt in ("bbcode", "markdown"):
        if fmt == "markdown":
            page.get_by_role("link", name="markdown", exact=True).click()
        preview = page.locator("#post-rendered")
        picture = preview.locator("img")
        expect(picture).to_have_count(1)
        assert "/garnets.png?v=" in str(picture.get_attribute("src"))
        # expect() polls in Playwright's own script: wait_for_function's string is
        # eval'ed in the page since Playwright 1.65, which the CSP forbids
        expect(picture).to_have_js_property("complete", True)
        assert page.evaluate("document.querySelector('#post-rendered img').naturalWidth") > 0
        for item in preview.locator("li").all():
            item.hover()
        page.get_by_role("button", name="Copy the post").click()
        expect(page.get_by_role("status").filter(has_text="Copied")).to_have_text("Copied.")
        text = page.locator("#post-text").input_value()
        assert page.evaluate("navigator.clipboard.readText()") == text
        assert "<script>alert(1)</script>" in preview.inner_text()  # shown as typed
    page.screenshot(path=str(artifacts / "post-season.png"), full_page=True)
    assert dialogs == [], dialogs
    context.close()
