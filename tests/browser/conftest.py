"""Browser tests: a real `referee serve` (gunicorn) on 127.0.0.1 and Debian's
Chromium driven by Playwright. Screenshots are kept in test-artifacts/."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Playwright, sync_playwright

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


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Server:
    def __init__(self, url: str, database_url: str, process: subprocess.Popen[bytes]) -> None:
        self.url = url
        self.database_url = database_url
        self.process = process


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """`referee serve` on a free port with its own SQLite database."""
    folder = tmp_path_factory.mktemp("server")
    port = _free_port()
    database_url = f"sqlite:///{folder / 'referee.db'}"
    env = {**os.environ, "REFEREE_DATABASE_URL": database_url, "REFEREE_SECRET_KEY": "browser"}
    referee = Path(sys.executable).with_name("referee")
    log = (folder / "server.log").open("wb")
    process = subprocess.Popen(
        [str(referee), "serve", "--port", str(port), "--workers", "2"],
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        cwd=folder,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while True:
        try:
            with urllib.request.urlopen(url + "/", timeout=2) as resp:
                if resp.status == 200:
                    break
        except OSError:
            pass
        if process.poll() is not None or time.monotonic() > deadline:
            process.kill()
            raise RuntimeError(
                "referee serve did not start:\n" + (folder / "server.log").read_text()
            )
        time.sleep(0.2)
    yield Server(url, database_url, process)
    process.terminate()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
    log.close()


@pytest.fixture(scope="module")
def playwright() -> Iterator[Playwright]:
    with sync_playwright() as p:
        yield p


@pytest.fixture(scope="module")
def browser(playwright: Playwright) -> Iterator[Browser]:
    if not Path(CHROMIUM).exists():
        pytest.fail(
            f"Chromium is not installed at {CHROMIUM}: run `apt-get install -y chromium` "
            "(scripts/test.sh does this)"
        )
    # Playwright gives every launch a fresh, empty profile (--user-data-dir) of its own
    browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
    yield browser
    browser.close()


@pytest.fixture
def artifacts() -> Path:
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS
