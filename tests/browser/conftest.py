"""Browser tests: a real `referee serve` (gunicorn) on 127.0.0.1 and Debian's
Chromium driven by Playwright. Screenshots are kept in test-artifacts/."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, BrowserContext, Playwright, sync_playwright

from referee.loadtest.server import running_server

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
