"""Browser tests: a real `referee serve` (gunicorn) on 127.0.0.1 and Debian's
Chromium driven by Playwright. Screenshots are kept in test-artifacts/."""

from __future__ import annotations

import json
import os
import re
import urllib.request
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import (
    Browser,
    BrowserContext,
    Page,
    Playwright,
    ViewportSize,
    expect,
    sync_playwright,
)

from referee.db import make_engine
from referee.loadtest.server import running_server
from referee.service import Referee

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts"
CHROMIUM = os.environ.get("REFEREE_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-quic",
]


@dataclass(frozen=True)
class Server:
    url: str
    database_url: str


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """`referee serve` on a free port with its own SQLite database (its log in
    the test's temporary folder, shown if it fails to start)."""
    folder = tmp_path_factory.mktemp("server")
    database_url = f"sqlite:///{folder / 'referee.db'}"
    with running_server(
        database_url, 1, log_path=folder / "server.log", env={"REFEREE_SECRET_KEY": "browser"}
    ) as url:
        yield Server(url, database_url)


@pytest.fixture(scope="module")
def playwright() -> Iterator[Playwright]:
    with sync_playwright() as p:
        yield p


# static/live.js reloads a match page by itself when the match moves on (issue 24);
# a test that steps through pages with goto() would race those reloads ("navigation
# interrupted by another navigation"), so its contexts get an empty live.js instead.
# A module that tests following the match live sets LIVE_PAGES = True.
LIVE_SCRIPT = re.compile(r".*/static/live\.js(\?.*)?$")


def _without_live_pages(context: BrowserContext) -> BrowserContext:
    context.route(
        LIVE_SCRIPT,
        lambda route: route.fulfill(
            status=200, content_type="text/javascript", body="/* off in this test */"
        ),
    )
    return context


@pytest.fixture(scope="module")
def browser(playwright: Playwright, request: pytest.FixtureRequest) -> Iterator[Browser]:
    if not Path(CHROMIUM).exists():
        pytest.fail(
            f"Chromium is not installed at {CHROMIUM}: run `apt-get install -y chromium` "
            "(scripts/test.sh does this)"
        )
    # Playwright gives every launch a fresh, empty profile (--user-data-dir) of its own
    browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
    if not getattr(request.module, "LIVE_PAGES", False):
        new_context = browser.new_context

        def still_context(*args: Any, **kwargs: Any) -> BrowserContext:
            return _without_live_pages(new_context(*args, **kwargs))

        browser.new_context = still_context  # type: ignore[method-assign]
    yield browser
    browser.close()


@pytest.fixture
def artifacts() -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS


# ---- a turn-based match created from the host's form --------------------------------


@dataclass(frozen=True)
class CreatedMatch:
    """What the host's "is ready" page gives, and the match as stored (its
    secret seed: only a test may read it, to play along with the engine)."""

    match_id: str
    host_url: str
    links: dict[int, str]  # seat -> private link
    public_url: str
    match: Any  # referee.models.Match


def create_from_form(
    host: Page,
    server: Server,
    *,
    game: str,
    name: str,
    players: Sequence[tuple[str, int]],
    step_minutes: int,
    fill_game: Callable[[Page], None] | None = None,
) -> CreatedMatch:
    """Create a match of ``game`` as a host does on /new: its name, each
    seat's name and garnets, the game's own fields (``fill_game``), steps of
    ``step_minutes`` minutes that close as soon as the acting seats have sent
    and open by themselves. Checks the "is ready" page and the stored settings."""
    host.goto(server.url + "/new")
    host.get_by_label("Game").select_option(game)
    # the game's fields come by a fetch (static/game_choice.js): wait until they
    # are in (the address then names the game), so nothing is typed into fields
    # about to be replaced (a fill could race it under load: CI once lost a name)
    expect(host).to_have_url(re.compile(rf"[?&]game={re.escape(game)}(&|$)"), timeout=15_000)
    expect(host.locator("[data-game-choice-status]")).to_contain_text("now shows the fields")
    host.get_by_label("Match name").fill(name)
    for seat, (player, garnets) in enumerate(players, start=1):
        group = host.get_by_role("group", name=re.compile(rf"^Seat {seat}( |$)"))
        group.get_by_label("Name").fill(player)
        group.get_by_label("Garnets").fill(str(garnets))
    if fill_game is not None:
        fill_game(host)
    host.get_by_label(re.compile(r"^Deadline of each round")).fill(str(step_minutes))
    host.get_by_label("Unit of the deadline").select_option("minutes")
    host.get_by_label(re.compile(r"^Close a round as soon as")).check()
    host.get_by_label("Open each round by itself").check()
    host.get_by_role("button", name="Create the match").click()
    host.wait_for_load_state("load")
    refused = [t for t in host.locator("ul.field-errors").all_inner_texts() if t.strip()]
    assert not refused, f"the create form refused: {refused}"
    expect(host.get_by_role("heading", level=1)).to_have_text(f"“{name}” is ready", timeout=15_000)
    host_url = host.locator("#host-link").get_attribute("href") or ""
    seat_links = host.get_by_role("region", name="One private link per player").get_by_role("link")
    expect(seat_links).to_have_count(len(players))
    links = {
        s: seat_links.nth(s - 1).get_attribute("href") or "" for s in range(1, len(players) + 1)
    }
    public_url = (
        host.get_by_role("region", name="The public page").get_by_role("link").get_attribute("href")
        or ""
    )
    match_id = public_url.rsplit("/", 1)[1]
    engine = make_engine(server.database_url)
    try:
        match = Referee(engine).state(match_id).match
    finally:
        engine.dispose()
    assert match.settings["deadline_hours"] == pytest.approx(step_minutes / 60)
    assert match.settings["close_early"] is True and match.settings["auto_open"] is True
    return CreatedMatch(match_id, host_url, links, public_url, match)


# ---- the people of a walk-through -----------------------------------------------------

PHONE: ViewportSize = {"width": 375, "height": 812}
DESKTOP: ViewportSize = {"width": 1280, "height": 900}


@contextmanager
def people(
    browser: Browser, seats: int, *, phone_seat: int | None, timeout: int
) -> Iterator[dict[str, BrowserContext]]:
    """One browser context (own cookies, own session) per person: "host",
    "1" to ``seats`` and "public"; seat ``phone_seat`` on a phone with touch,
    the others on a desktop that accepts downloads (the host's match file)."""
    made: dict[str, BrowserContext] = {}
    try:
        for who in ("host", *map(str, range(1, seats + 1)), "public"):
            if who == str(phone_seat):
                made[who] = browser.new_context(viewport=PHONE, has_touch=True, is_mobile=True)
            else:
                made[who] = browser.new_context(viewport=DESKTOP, accept_downloads=True)
            made[who].set_default_timeout(timeout)
        yield made
    finally:
        for context in made.values():
            context.close()


def host_match_file(host: Page) -> dict[str, Any]:
    """The match file the host's dashboard offers, downloaded through its link."""
    with host.expect_download() as download:
        host.get_by_role("link", name="Download the match file (JSON)").click()
    found: dict[str, Any] = json.loads(Path(download.value.path()).read_text(encoding="utf-8"))
    return found


# ---- checks and reads every walk-through makes --------------------------------------


def finished_match_file(
    host: Page, server: Server, made: CreatedMatch
) -> tuple[dict[str, Any], dict[str, Any]]:
    """At the end of a walk-through: the pulse says the match has finished and
    waits for nobody, the host's dashboard says so, and the match file it
    offers carries the seed and no order the host entered. (The file, the
    public result of the API.)"""
    now = public_json(server, f"/api/matches/{made.match_id}/pulse")
    assert now["finished"] is True and now["waiting"] == [], now
    expect(host.get_by_role("region", name="Current round")).to_contain_text(
        "The match has finished"
    )
    exported = host_match_file(host)
    assert exported["seed"] == made.match.seed
    assert not any(exported.get("host_entered", []))
    published: dict[str, Any] = public_json(server, f"/api/matches/{made.match_id}")["result"]
    return exported, published


def no_sideways_scroll(page: Page, what: str) -> None:
    width = page.evaluate("document.documentElement.scrollWidth")
    viewport = page.viewport_size
    assert viewport is not None
    assert width <= viewport["width"], f"{what} is {width}px wide at {viewport['width']}px"


def public_json(server: Server, path: str) -> dict[str, Any]:
    """A public GET of the API, on a connection of its own: a kept-alive one
    may be closed by the server (gunicorn's 2 s keep-alive) just as it is
    reused, which Playwright's request context reports as ECONNRESET (a
    browser sends the request again)."""
    with urllib.request.urlopen(server.url + path, timeout=30) as answer:
        found: dict[str, Any] = json.loads(answer.read())
    return found
