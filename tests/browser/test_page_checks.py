"""Every HTML page, valid and accessible: the W3C Nu HTML checker (vnu-jar) and
axe-core (in Chromium, at phone and desktop widths) over every page the service
shows, in every state of a whole match of each game.

The pages are collected once per module through the Flask test client (a clock
the test moves, CSRF off): home, the create form (no game, each game, a refused
submission, Rocky River's map check), the created page, and for a match of each
game before any round, each round open (before and after an order, a refused
order, the host's enter-order page and preview), each round closed, finished
and revealed: the host dashboard, the host's post pages (Markdown, BBCode) and
audit, every seat's page, the public page; the re-issued link page; 404 and 400
error pages; then every same-site page linked from those that was not yet
collected (so a page another part of the app adds, such as a rules page, is
checked as soon as a page links to it; :func:`fixed_pages` lists any that no
page links to).

vnu runs once over all of them (Java: scripts/test.sh installs a JRE when
``java`` is missing). Chromium loads each page once (the ``walk`` fixture), for
axe at both widths, the phone-width fit and the local times: each page is
served to it as collected, with its own headers (its Content-Security-Policy
included), its static files and pictures from the same test client; axe itself
is served at a same-origin address, so the page's CSP applies unchanged. The checkers come
from the npm registry (package.json, installed by ``npm ci`` in scripts/test.sh);
without node_modules/ this module fails under CI and is skipped elsewhere.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import timedelta
from html import unescape
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from flask import Flask
from flask.testing import FlaskClient
from playwright.sync_api import Browser, Route, ViewportSize
from service.web.web_kit import Clock, form_data, golden_order, new_match_form

from referee.demo import create_demo
from referee.notify.outbox import deliver_due
from referee.ruleset import get_ruleset, ruleset_names
from referee.web import create_app

from .conftest import LIVE_SCRIPT

ROOT = Path(__file__).resolve().parents[2]
VNU_JAR = ROOT / "node_modules" / "vnu-jar" / "build" / "dist" / "vnu.jar"
AXE_JS = ROOT / "node_modules" / "axe-core" / "axe.min.js"
ORIGIN = "http://localhost"  # what the test client's absolute links name
AXE_PATH = "/__page-checks__/axe.min.js"  # served same-origin, so the page's CSP allows it
WIDTHS: dict[str, ViewportSize] = {
    "phone": {"width": 375, "height": 812},
    "desktop": {"width": 1280, "height": 800},
}
GRAVE = ("serious", "critical")
# a player's name of the longest kind (100 characters, no space) and a match name
# with a long word: every page must still wrap them at phone width
LONG_NAME = "Maximiliana" * 9 + "X"
LONG_WORD = "Championship" * 7
SURE = {"sure": "y"}  # "I am sure", ticked beside an action that cannot be undone


@dataclass
class Shot:
    """One page as the server sent it."""

    name: str
    path: str
    status: int
    html: str
    headers: list[tuple[str, str]] = field(default_factory=list)


def checkers_installed() -> None:
    """Fail (under CI) or skip (elsewhere) when the npm packages are missing."""
    missing = [str(p.relative_to(ROOT)) for p in (VNU_JAR, AXE_JS) if not p.is_file()]
    if not missing:
        return
    message = (
        f"the page checkers are not installed ({', '.join(missing)} missing): "
        "run `npm ci --ignore-scripts` at the repository root (scripts/test.sh does)"
    )
    if os.environ.get("CI") or os.environ.get("REFEREE_REQUIRE_POSTGRES"):
        pytest.fail(message + "; under CI this is a failure")
    pytest.skip(message)


# ---- collecting the pages ----------------------------------------------------------


def fixed_pages() -> list[tuple[str, str]]:
    """Pages that need no match, as (name, path). A page that no collected page
    links to is checked only when it is listed here."""
    games = ruleset_names()  # every registered game (the toy game too: tests/conftest.py)
    return [
        ("home", "/"),
        ("create: no game chosen", "/new"),
        *[(f"create: {game}", f"/new?game={game}") for game in games],
        *[(f"rules: {game}", f"/games/{game}/rules") for game in games],
        ("error 404", "/no/such/page"),
        ("season: create", "/seasons/new"),
    ]


def demo_pages(c: Collector) -> None:
    """Every registered game's demo match (referee.demo.create_demo, as
    ``referee demo --game`` makes it): its host's, seats' and public pages
    with the first step open, after it closed, and finished when the demo's
    orders play it to the end."""
    svc = c.app.extensions["referee"]
    for game in ruleset_names():
        played = len(get_ruleset(game).demo(None).steps)
        for when, steps in (("step 1 open", 0), ("step 2 open", 1), ("demo played", played)):
            if when != "step 1 open" and steps == 0:
                continue
            for label, link in create_demo(svc, "http://localhost", play=steps, game=game):
                c.get(f"demo {game} {when}: {label}", link.removeprefix("http://localhost"))


# links never followed: downloads, pictures, plain-text posts, the API, static files
NOT_PAGES = re.compile(r"^/(static|api)/|/export$|\.(svg|png|json)$|^/matches/[^/]+/post")


class Collector:
    def __init__(self, app: Flask, client: FlaskClient, clock: Clock) -> None:
        self.app = app
        self.client = client
        self.clock = clock
        self.shots: list[Shot] = []

    def keep(self, name: str, response: Any, path: str, status: int | None) -> str:
        html: str = response.get_data(as_text=True)
        code = response.status_code
        assert code < 500, f"{name} ({path}): {code}\n{html[:2000]}"
        if status is not None:
            assert code == status, f"{name} ({path}): {code}, not {status}\n{html[:2000]}"
        assert response.mimetype == "text/html", f"{name} ({path}): {response.mimetype}"
        self.shots.append(Shot(name, path, code, html, list(response.headers.items())))
        return html

    def get(self, name: str, path: str, status: int | None = 200) -> str:
        return self.keep(name, self.client.get(path), path, status)

    def post(
        self,
        name: str,
        path: str,
        data: dict[str, Any],
        status: int | None = 200,
    ) -> str:
        response = self.client.post(path, data=data, follow_redirects=True)
        return self.keep(name, response, response.request.path, status)

    def act(self, path: str, data: dict[str, Any] | None = None) -> str:
        """A POST whose page is not kept (a host's button, an order)."""
        response = self.client.post(path, data=data or {}, follow_redirects=True)
        html = response.get_data(as_text=True)
        assert response.status_code == 200, f"{path}: {response.status_code}\n{html[:2000]}"
        return html

    def crawl(self) -> None:
        """Every same-site page linked from a kept page and not yet kept."""
        seen = {s.path for s in self.shots}
        for shot in list(self.shots):
            for href in re.findall(r'href="([^"#]+)', shot.html):
                parts = urlsplit(unescape(href))
                if parts.netloc not in ("", "localhost") or not parts.path.startswith("/"):
                    continue
                path = parts.path + (f"?{parts.query}" if parts.query else "")
                if path in seen or NOT_PAGES.search(parts.path):
                    continue
                seen.add(path)
                response = self.client.get(path)
                # a link of an earlier state may lead nowhere now (an order page of a closed round)
                if response.status_code == 200 and response.mimetype == "text/html":
                    self.keep(f"linked from {shot.name}", response, path, None)


@dataclass
class Links:
    match_id: str
    host: str
    seats: dict[int, str]


def links_on(html: str) -> Links:
    """The host's, each seat's and the public link on the "match is ready" page."""
    host = re.search(r'href="(?:http://localhost)?(/host/[\w-]+)"', html)
    seats = re.findall(r'href="(?:http://localhost)?(/play/[\w-]+)"', html)
    found = re.search(r'href="(?:http://localhost)?/matches/([0-9a-f]+)"', html)
    assert host and found and seats, html[:3000]
    ordered = list(dict.fromkeys(seats))
    return Links(found.group(1), host.group(1), dict(enumerate(ordered, start=1)))


def match_pages(c: Collector, game: str, links: Links, when: str) -> None:
    """The host's, every seat's and the public page of a match as it stands."""
    c.get(f"{game} {when}: host", links.host)
    for seat, url in links.seats.items():
        c.get(f"{game} {when}: seat {seat}", url)
    c.get(f"{game} {when}: public", f"/matches/{links.match_id}")


def host_extras(c: Collector, game: str, links: Links, when: str) -> None:
    for fmt in ("markdown", "bbcode"):
        c.get(f"{game} {when}: host post ({fmt})", f"{links.host}/post?format={fmt}")
    c.get(f"{game} {when}: host audit", f"{links.host}/audit", None)


def play_match(
    c: Collector,
    game: str,
    links: Links,
    rounds: int,
    order: Any,
    refused: dict[str, Any],
    entered_wrong: bool = False,
) -> None:
    """Every round: opened, one order refused, one accepted, the host's
    enter-order page and preview, the rest sent, closed; pages in each state.
    ``order(html, number, seat)`` gives the form data of a legal order. With
    ``entered_wrong``, in round 1 the host enters for the last seat seat 1's
    order (one the rules refuse for it, which the host's entry cannot know):
    the seat's page says so, and after the close so do the host's and the
    seat's. Both checkers read every page."""
    match_pages(c, game, links, "before any round")
    host_extras(c, game, links, "before any round")
    for number in range(1, rounds + 1):
        when = f"round {number}"
        c.act(f"{links.host}/open")
        match_pages(c, game, links, f"{when} open, no order")
        first = c.client.get(links.seats[1]).get_data(as_text=True)
        if number <= 2:
            c.post(
                f"{game} {when}: seat 1 refused order",
                links.seats[1],
                {"round": str(number), **refused},
                None,
            )
        accepted = order(first, number, 1)
        c.post(f"{game} {when}: seat 1 order accepted", links.seats[1], accepted)
        c.get(f"{game} {when}: host enter order (seat 2)", f"{links.host}/order/2")
        c.get(f"{game} {when}: host enter order (seat 1, sent)", f"{links.host}/order/1")
        c.post(f"{game} {when}: host preview", f"{links.host}/preview", {})
        last = max(links.seats)
        for seat, url in list(links.seats.items())[1:]:
            if entered_wrong and number == 1 and seat == last:
                c.act(f"{links.host}/order/{seat}", accepted)
                page = c.get(f"{game} {when}: seat {seat}, the host's entry breaks a rule", url)
                assert "It breaks the rules" in page
                continue
            html = c.client.get(url).get_data(as_text=True)
            c.act(url, order(html, number, seat))
        match_pages(c, game, links, f"{when} open, every order in")
        c.clock.now += timedelta(hours=1)
        c.act(f"{links.host}/close", SURE)
        match_pages(c, game, links, f"{when} closed")
        if entered_wrong and number == 1:
            assert "Not used:" in c.client.get(links.host).get_data(as_text=True)
        c.clock.now += timedelta(hours=1)
        if number == 2:
            host_extras(c, game, links, "round 2 closed")
    host_extras(c, game, links, "finished")
    c.act(f"{links.host}/reveal", SURE)
    match_pages(c, game, links, "revealed")
    host_extras(c, game, links, "revealed")


def river_order(html: str, number: int, seat: int) -> dict[str, Any]:
    return form_data(number, golden_order(number, seat))


def forks_order(html: str, number: int, seat: int) -> dict[str, Any]:
    cards = re.findall(r'name="card"[^>]*value="([^"]+)"', html) or re.findall(
        r'<option value="([^"]+)"', html
    )
    assert cards, html[:3000]
    return {"round": str(number), "card": cards[0]}


FORKS_PLAYERS = [("Ana", 3), (LONG_NAME, 5), ("Cy", 2), ("Di", 5)]


def forks_form(**extra: str) -> dict[str, str]:
    data = {"game": "forks-2e", "name": f"Forks <night> & day {LONG_WORD}", "deadline_hours": "48"}
    data |= {"merge": "y", "create": "1"}
    for i, (name, garnets) in enumerate(FORKS_PLAYERS):
        data[f"players-{i}-name"] = name
        data[f"players-{i}-garnets"] = str(garnets)
    data.update(extra)
    return data


def forks1_form(**extra: str) -> dict[str, str]:
    data = {"game": "forks", "name": f"Forks <night> & day {LONG_WORD}", "deadline_hours": "48"}
    data |= {"swap": "y", "create": "1"}
    for i, (name, garnets) in enumerate(FORKS_PLAYERS[:3]):
        data[f"players-{i}-name"] = name
        data[f"players-{i}-garnets"] = str(garnets)
    data.update(extra)
    return data


def forks1_match(c: Collector) -> None:
    """Forks (1st edition), swap variant, three players: one seat acts in each
    step, so the pages of a draw step (with a swap) and an invest step, each
    seat's, the host's enter-order page and the end; a refused order."""
    created = c.post("created: Forks 1st", "/new", forks1_form())
    links = links_on(created)
    game = "Forks 1st"
    match_pages(c, game, links, "before any step")
    svc = c.app.extensions["referee"]
    for number in range(1, 25):  # 3 players: 12 turns of 2 steps
        c.act(f"{links.host}/open")
        pages = {s: c.client.get(url).get_data(as_text=True) for s, url in links.seats.items()}
        (seat,) = [s for s, html in pages.items() if 'type="radio" name="card"' in html]
        cards = re.findall(r'type="radio" name="card" id="card-[^"]+" value="([^"]+)"', pages[seat])
        order: dict[str, Any] = {"round": str(number), "card": cards[0]}
        if number <= 4:
            match_pages(c, game, links, f"step {number} open")
            c.get(f"{game} step {number}: host enter order", f"{links.host}/order/{seat}")
            c.post(
                f"{game} step {number}: refused order",
                links.seats[seat],
                {"round": str(number), "card": "no-such-card"},
                None,
            )
        takes = re.findall(r'name="take" id="take-[^"]+" value="([^"]+)"', pages[seat])
        if number == 3 and takes:  # a swap: the taken card kept
            gives = re.findall(r'name="give" id="give-[^"]+" value="([^"]+)"', pages[seat])
            order |= {"give": gives[0], "take": takes[0], "card": takes[0]}
        c.post(f"{game} step {number}: order accepted", links.seats[seat], order)
        if number <= 4:
            c.post(f"{game} step {number}: host preview", f"{links.host}/preview", {})
        c.act(f"{links.host}/close", SURE)
    assert svc.state(links.match_id).match.finished
    match_pages(c, game, links, "finished")
    host_extras(c, game, links, "finished")


def notify_pages(c: Collector, links: Links) -> None:
    """Issue 14's pages: a player's address refused, "lost your private link?",
    the e-mailed link (good, bad), unsubscribing."""
    svc = c.app.extensions["referee"]
    mid = links.match_id
    c.post("seat 1: bad address", f"{links.seats[1]}/email", {"email": "x", "save": "1"}, 422)
    c.post("public: lost link asked for", f"/matches/{mid}/link", {"email": "ana@example.org"})
    c.post("public: lost link, bad address", f"/matches/{mid}/link", {"email": "x"}, 422)
    asked = next(m for m in svc.messages(mid) if m.event == "link_again")
    path = re.search(r"http://localhost(/link/\S+)", asked.body)
    assert path, asked.body
    c.get("link: new private link", path.group(1))
    c.get("link: not valid", "/link/not-a-link", 400)
    key = svc.contact(mid, 1).unsubscribe_key
    c.get("unsubscribe: asked", f"/unsubscribe/{key}")
    c.post("unsubscribe: done", f"/unsubscribe/{key}", {})
    c.post("link: redeemed, the new seat page", path.group(1), {})


def season_pages(c: Collector) -> None:
    """Issue 15's pages at each step of an episode: the host's (Main Match under
    way, its outcome to record, the candidate's choice awaited, the Death Match to
    make), the candidate's page with its choice, another player's, a player's new
    season link (issue 22), the standings."""
    seasons = c.app.extensions["seasons"]
    svc = c.app.extensions["referee"]
    made = seasons.create_season(
        name=f"Season <Genius> & co {LONG_WORD}",
        players=[{"name": LONG_NAME if i == 2 else f"P{i} <b>", "garnets": i} for i in range(1, 7)],
        rules={"token_bonus": 1},
    )
    host, sid = f"/season-host/{made.host_token}", made.season_id
    c.get("season host: no episode", host)
    _, main = seasons.create_main_match(sid, players=[1, 2, 3], setup={"map": "three-rapids"})
    c.get("season host: Main Match under way", host)
    while not svc.state(main.match_id).match.finished:
        svc.open_round(main.match_id)
        svc.close_round(main.match_id)
    c.get("season host: outcome to record", host)
    outcome = seasons.record_main(sid, 1)
    c.get("season host: the choice awaited", host)
    candidate = f"/season/{made.player_tokens[outcome.candidate]}"
    c.get("season player: the candidate's choice", candidate)
    other = next(p for p in (4, 5, 6) if p != outcome.candidate)
    c.get("season player: another", f"/season/{made.player_tokens[other]}")
    c.post("season player: a refused choice", f"{candidate}/opponent", {"opponent": "99"}, 422)
    seasons.choose_opponent(sid, 1, chooser=outcome.candidate, opponent=other)
    c.get("season host: the Death Match to make", host)
    c.post("season host: a new link, unconfirmed", f"{host}/link", {"player": "1"}, 422)
    c.post("season host: a player's new link", f"{host}/link", {"player": str(other), "sure": "y"})
    c.get("season: standings", f"/seasons/{sid}")
    signup_pages(c)


def signup_pages(c: Collector) -> None:
    """Issue 23, item 7's pages: a season's join page (open, refused, closed), the
    joined page with the new player's link, and the host page's sign-ups."""
    from referee.seasons.signups import Signups

    seasons = c.app.extensions["seasons"]
    made = seasons.create_season(
        name="Sign-ups <Genius> & co", players=[{"name": "Ana <b>"}], signups=True
    )
    host, join = (
        f"/season-host/{made.host_token}",
        f"/join/{Signups(seasons).status(made.season_id).token}",
    )
    c.get("season: join page", join)
    c.post("season: joined", join, {"name": "Bo <i>"})
    c.post("season: join refused", join, {"name": "ANA <b>"}, 422)
    c.get("season host: sign-ups open", host)
    c.post("season host: sign-ups closed", f"{host}/signups", {"open": "0"})
    c.get("season: join page, closed", join)


def collect(app: Flask, clock: Clock) -> list[Shot]:
    client = app.test_client()
    c = Collector(app, client, clock)
    for name, path in fixed_pages():
        c.get(name, path, 404 if name.startswith("error") else 200)

    # Rocky River Riding, the golden match's orders; seat 1 has an address, and a
    # webhook that nothing answers (so the host's outbox has messages to retry)
    river = new_match_form(
        f"River <Cup> & friends {LONG_WORD}", game="rocky-river", **{"players-1-name": LONG_NAME}
    )
    c.post("create: Rocky River, refused", "/new", {**river, "players-0-name": ""}, None)
    c.post("create: Rocky River, map checked", "/new", {**river, "create": "", "check_map": "1"})
    news = {"players-0-email": "ana@example.org", "webhook_url": "http://127.0.0.1:9/hook"}
    c.post("create: Rocky River, bad address", "/new", {**river, "players-1-email": "bo"}, 422)
    created = c.post("created: Rocky River", "/new", {**river, **news})
    links = links_on(created)
    deliver_due(app.extensions["referee"].engine, app.extensions["referee"].notify, clock=clock)
    refused = {"ranking_text": "Joker, J, J"}
    play_match(c, "Rocky River", links, 5, river_order, refused)
    c.post("Rocky River: link re-issued", f"{links.host}/reissue", {"who": "2", **SURE})
    notify_pages(c, links)
    season_pages(c)
    c.get("error 422 (a post format)", f"/matches/{links.match_id}/post?format=nope", 422)
    app.config["WTF_CSRF_ENABLED"] = True
    c.post("error 400 (form expired)", f"{links.host}/close", SURE, 400)
    app.config["WTF_CSRF_ENABLED"] = False

    # Forks 2nd Edition, merge variant, four players
    c.post("create: Forks, refused", "/new", forks_form(**{"players-1-garnets": "-2"}), None)
    created = c.post("created: Forks", "/new", forks_form())
    links = links_on(created)
    play_match(c, "Forks", links, 8, forks_order, {"card": "no-such-card"}, entered_wrong=True)
    c.post("Forks: host link re-issued", f"{links.host}/reissue", {"who": "host", **SURE})
    forks1_match(c)

    demo_pages(c)
    c.crawl()
    return c.shots


@dataclass
class Site:
    """The collected pages, and the client that serves their files and pictures."""

    shots: list[Shot]
    client: FlaskClient


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    checkers_installed()
    folder = tmp_path_factory.mktemp("pages")
    app = create_app(
        {
            "TESTING": True,
            "DATABASE_URL": f"sqlite:///{folder / 'referee.db'}",
            "SECRET_KEY": "page-checks",
            "WTF_CSRF_ENABLED": False,
            "RATELIMIT_ENABLED": False,
            "SMTP_URL": "smtp://127.0.0.1:9",  # mail on: its forms are checked (nothing sent)
            "WEBHOOK_ALLOW_LOOPBACK": True,
        }
    )
    clock = Clock()
    clock.now = clock.now.replace(microsecond=123456)  # as a real clock has them
    app.extensions["referee"].clock = clock
    yield Site(collect(app, clock), app.test_client())
    app.extensions["referee"].engine.dispose()


@pytest.fixture(scope="module")
def pages(site: Site) -> list[Shot]:
    return site.shots


# ---- the checks ---------------------------------------------------------------------


def test_the_collection_covers_every_kind_of_page(pages: list[Shot]) -> None:
    names = [s.name for s in pages]
    for needed in (
        "home",
        "created: Rocky River",
        "created: Forks",
        *[f"create: {game}" for game in ruleset_names()],
        *[f"rules: {game}" for game in ruleset_names()],
        *[f"demo {game} step 1 open: public page" for game in ruleset_names()],
        *[f"demo {game} demo played: host (keep private)" for game in ruleset_names()],
        "Rocky River round 1 open, no order: seat 3",
        "Forks round 8 closed: public",
        "Forks revealed: seat 4",
        "Rocky River finished: host post (bbcode)",
        "Rocky River: link re-issued",
        "error 400 (form expired)",
    ):
        assert needed in names, needed
    assert len(pages) > 150, len(pages)


def test_every_page_is_valid_html(pages: list[Shot], tmp_path: Path) -> None:
    java = shutil.which("java")
    if java is None:
        pytest.fail("no `java` for the W3C checker: apt-get install default-jre-headless")
    files = []
    for i, shot in enumerate(pages):
        path = tmp_path / f"{i:04d}.html"
        path.write_text(shot.html, encoding="utf-8")
        files.append(path)
    run = subprocess.run(
        [java, "-jar", str(VNU_JAR), "--format", "json", "--stdout", "--errors-only"]
        + [str(f) for f in files],
        capture_output=True,
        text=True,
        timeout=600,
    )
    try:
        messages = json.loads(run.stdout)["messages"]
    except (ValueError, KeyError):
        pytest.fail(f"vnu gave no report (exit {run.returncode}): {run.stderr[:2000]}")
    by_file = {f.as_uri(): s for f, s in zip(files, pages, strict=True)}
    errors = []
    for m in messages:
        if m.get("type") not in ("error", "non-document-error"):
            continue
        found = by_file.get(m.get("url", ""))
        where = f"{found.name} ({found.path})" if found else m.get("url", "?")
        extract = " ".join((m.get("extract") or "").split())[:160]
        errors.append(f"{where}, line {m.get('lastLine')}: {m['message']}\n    {extract}")
    assert not errors, f"{len(errors)} W3C errors in {len(pages)} pages:\n" + "\n".join(errors)


TIMES_SHOWN = """() => [
  ...Array.from(document.querySelectorAll("time[datetime]"))
    .filter(t => !t.hasAttribute("data-local") || !/ UTC$/.test(t.title)
                 || / UTC$/.test(t.textContent))
    .map(t => t.outerHTML),
  ...Array.from(document.querySelectorAll("[data-relative]"))
    .filter(e => !/^\\((in .+|.+ ago)\\)$/.test(e.textContent)).map(e => e.outerHTML),
  ...Array.from(document.querySelectorAll("[data-until]"))
    .filter(e => !/( left|has passed)$/.test(e.textContent)).map(e => e.outerHTML),
].slice(0, 3)"""


def test_times_are_valid_and_relative(site: Site) -> None:
    """Every <time> holds UTC to the second; its text is UTC for people; the
    relative form is in the reader's words."""
    times = 0
    for shot in site.shots:
        for stamp, title, text in re.findall(
            r'<time datetime="([^"]*)" title="([^"]*)">([^<]*)</time>', shot.html
        ):
            assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", stamp), (shot.name, stamp)
            assert title == text and text.endswith(" UTC"), (shot.name, text)
            times += 1
        assert shot.html.count("<time") == shot.html.count('<time datetime="'), shot.name
    assert times > 100, times
    relative = [
        r for s in site.shots for r in re.findall(r'data-relative="[^"]*">([^<]*)<', s.html)
    ]
    assert "(less than a minute ago)" in relative and "(1 h ago)" in relative, set(relative)


def serving(site: Site, current: dict[str, Shot]) -> Callable[[Route], None]:
    """A route handler: the page ``current["shot"]`` as collected, with its own
    headers; axe at AXE_PATH; every other same-site file from the test client.
    Those files are asked of the test client once each: once the collection is
    done nothing changes the site, so the same address gives the same answer."""
    axe = AXE_JS.read_bytes()
    files: dict[str, tuple[int, dict[str, str], bytes]] = {}

    def serve(route: Route) -> None:
        request = route.request
        parts = urlsplit(request.url)
        if parts.netloc != "localhost":
            route.abort()
        elif request.resource_type == "document":
            shot = current["shot"]
            headers = {k: v for k, v in shot.headers if k.lower() != "content-length"}
            route.fulfill(status=shot.status, headers=headers, body=shot.html)
        elif parts.path == AXE_PATH:
            route.fulfill(status=200, content_type="text/javascript", body=axe)
        elif LIVE_SCRIPT.match(request.url):
            # a collected page is a snapshot: its live.js would see the match moved
            # on since and reload it under the check (conftest.LIVE_SCRIPT)
            route.fulfill(status=200, content_type="text/javascript", body="/* off */")
        else:
            path = parts.path + (f"?{parts.query}" if parts.query else "")
            if path not in files:
                got = site.client.get(path)
                headers = {k: v for k, v in got.headers.items() if k.lower() != "content-length"}
                files[path] = (got.status_code, headers, got.get_data())
            status, headers, body = files[path]
            route.fulfill(status=status, headers=headers, body=body)

    return serve


# what does not fit a phone's width: the page's own width, and each picture
# (an <svg> or <img> in main) that pokes out of the screen without sitting in a
# box of its own that scrolls sideways, fits the screen, and has a visible
# ".scroll-hint" beside it (in the box's parent)
NOT_FITTING = """() => {
  const width = window.innerWidth, out = [];
  const wide = document.documentElement.scrollWidth;
  if (wide > width) {
    const culprits = Array.from(document.querySelectorAll("main *"))
      .filter(e => e.getBoundingClientRect().right > width + 1
                   && !e.parentElement.closest(".table-wrap, .picture-box, .map-picture"))
      .slice(-3).map(e => e.tagName.toLowerCase() + "." + e.className + ": "
                         + (e.textContent || "").trim().slice(0, 60));
    out.push(`the page is ${wide}px wide: ${culprits.join(" | ")}`);
  }
  for (const pic of document.querySelectorAll("main svg, main img")) {
    if (pic.parentElement.closest("svg")) continue;
    const r = pic.getBoundingClientRect();
    if (r.width === 0 || (r.left >= -1 && r.right <= width + 1)) continue;
    let box = pic.parentElement;
    while (box && !["auto", "scroll"].includes(getComputedStyle(box).overflowX)) {
      box = box.parentElement;
    }
    const what = pic.getAttribute("aria-label") || pic.className.baseVal || pic.tagName;
    if (!box || box === document.documentElement || box === document.body) {
      out.push(`a picture (${what}) is ${Math.round(r.width)}px wide, in no scroll box`);
      continue;
    }
    const b = box.getBoundingClientRect();
    if (b.left < -1 || b.right > width + 1) {
      out.push(`the scroll box of a picture (${what}) is ${Math.round(b.width)}px wide`);
    }
    const hint = box.parentElement.querySelector(".scroll-hint");
    if (!hint || hint.getBoundingClientRect().height === 0) {
      out.push(`a picture (${what}) scrolls sideways with no visible hint saying so`);
    }
  }
  return out;
}"""


@dataclass
class Walk:
    """What Chromium found on every collected page, each loaded once."""

    axe: list[str] = field(default_factory=list)  # times not shown locally, axe violations
    fit: list[str] = field(default_factory=list)  # what does not fit a phone's width
    pictures: int = 0  # the pictures (an <svg> in main) on the pages


@pytest.fixture(scope="module")
def walk(site: Site, browser: Browser) -> Walk:
    """Every collected page loaded once at phone width, in the time zone of a
    reader far from UTC (static/time.js must show their own time, whose words
    are longer than "UTC" on a phone): whether it fits the phone (NOT_FITTING),
    whether its times are shown locally (TIMES_SHOWN), then axe over it at phone
    width and at desktop width. The tests below each assert their part; loading
    each page once for all of them halves the loads of two walks."""
    found = Walk()
    current: dict[str, Shot] = {}
    context = browser.new_context(viewport=WIDTHS["phone"], timezone_id="Asia/Kolkata")
    context.route("**/*", serving(site, current))
    page = context.new_page()
    try:
        for shot in site.shots:
            current["shot"] = shot
            where = f"{shot.name} ({shot.path})"
            page.set_viewport_size(WIDTHS["phone"])
            page.goto(ORIGIN + shot.path.split("?")[0])
            found.fit += [f"{where}: {p}" for p in page.evaluate(NOT_FITTING)]
            found.pictures += page.locator("main svg").count()
            # static/time.js ran (the CSP lets it): each time in the browser's zone, UTC on hover
            wrong = page.evaluate(TIMES_SHOWN)
            if wrong:
                found.axe.append(f"{where}: times not shown locally: {wrong}")
            page.add_script_tag(url=ORIGIN + AXE_PATH)
            for width, size in WIDTHS.items():
                page.set_viewport_size(size)
                t0 = time.perf_counter()
                # every rule at both widths: what shows, scrolls or wraps differs
                options: dict[str, Any] = {"resultTypes": ["violations"]}
                result = page.evaluate(
                    "options => axe.run(document, options)"
                    ".then(r => r.violations.map(v => ({id: v.id, impact: v.impact,"
                    " help: v.help, nodes: v.nodes.map(n => n.target.join(' '))})))",
                    options,
                )
                if os.environ.get("PAGE_CHECKS_TIMES"):
                    print(f"{time.perf_counter() - t0:.2f}s {width} {shot.name}")
                for v in result:
                    if v["impact"] in GRAVE:
                        nodes = "; ".join(v["nodes"][:5])
                        found.axe.append(
                            f"{where} at {width} width: {v['id']} "
                            f"({v['impact']}): {v['help']}\n    {nodes}"
                        )
    finally:
        context.close()
    return found


def test_every_page_passes_axe_at_phone_and_desktop_width(site: Site, walk: Walk) -> None:
    assert not walk.axe, (
        f"{len(walk.axe)} serious or critical axe violations in {len(site.shots)} pages:\n"
        + "\n".join(walk.axe)
    )


def test_every_page_fits_a_phone(site: Site, walk: Walk) -> None:
    """At 375 px, no page is wider than the screen (a 100-character name with
    no space and a long match name included), and every picture fits it or
    scrolls in a box of its own with a visible hint saying so."""
    assert walk.pictures > 100, walk.pictures
    names = [s.name for s in site.shots]
    for needed in ("Forks round 8 closed: seat 2", "season player: another", "season: standings"):
        assert needed in names, needed
    assert not walk.fit, f"{len(walk.fit)} problems at 375px width:\n" + "\n".join(walk.fit)
