"""The pictures in a real browser (Debian's Chromium): the river map on the
player's and the public page after each rafting round, the placement form
highlighting the chosen branch on the map, and the results picture, at desktop
and phone widths. The match is played through the JSON API (the golden match
files' orders) to keep this fast; screenshots are kept in test-artifacts/.
"""

from __future__ import annotations

import json
import re
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, BrowserContext, Locator, Page, expect

from referee.loadtest.server import api as server_api

from .conftest import Server

TIMEOUT = 10_000
DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}
GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "rocky-river"
NAMES = {1: "Ann", 2: "Ben", 3: "Cat"}


def api(server: Server, method: str, path: str, token: str | None = None, body: Any = None) -> Any:
    return server_api(server.url, method, "/api" + path, body, token, timeout=10)


class Match:
    """A match created through the API from a golden match file's orders."""

    def __init__(self, server: Server, case: str, name: str) -> None:
        self.server = server
        self.doc = json.loads((GOLDEN / f"{case}.match.json").read_text())
        players = [{**p, "name": NAMES[p["seat"]]} for p in self.doc["players"]]
        created = api(
            server,
            "POST",
            "/matches",
            body={
                "name": name,
                "map": self.doc["map"],
                "players": players,
                "settings": {"deadline_hours": 0},
            },
        )
        self.id: str = created["id"]
        self.host: str = created["host_token"]
        self.seats: dict[str, str] = created["player_tokens"]
        self.rounds: list[tuple[str, dict[str, Any]]] = [
            ("draft", self.doc["draft"]),
            ("placements", self.doc["placements"]),
            *[("votes", votes) for votes in self.doc["votes"]],
        ]
        self.closed = 0

    def open(self) -> None:
        api(self.server, "POST", f"/matches/{self.id}/rounds/open", self.host)

    def send_all(self) -> None:
        kind, orders = self.rounds[self.closed]
        for seat, order in orders.items():
            api(self.server, "PUT", f"/matches/{self.id}/orders", self.seats[seat], {kind: order})

    def close(self) -> None:
        api(self.server, "POST", f"/matches/{self.id}/rounds/close", self.host)
        self.closed += 1

    def play(self) -> None:
        """Open, order and close the next round."""
        self.open()
        self.send_all()
        self.close()

    def url(self, seat: int | None = None) -> str:
        if seat is None:
            return f"{self.server.url}/matches/{self.id}"
        return f"{self.server.url}/play/{self.seats[str(seat)]}"


@pytest.fixture
def context(browser: Browser) -> Iterator[BrowserContext]:
    made = browser.new_context(viewport=DESKTOP)
    made.set_default_timeout(TIMEOUT)
    yield made
    made.close()


def shoot(target: Page | Locator, page: Page, folder: Path, name: str) -> list[Path]:
    """Screenshots at desktop and phone widths (a page: the full page; a locator:
    that element). Nothing may make the page wider than the screen."""
    out = []
    for size, viewport in (("desktop", DESKTOP), ("phone", PHONE)):
        page.set_viewport_size(viewport)
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= viewport["width"], f"{name}: the page is {width}px wide at {size} size"
        path = folder / f"pictures-{name}-{size}.png"
        path.unlink(missing_ok=True)
        if isinstance(target, Page):
            target.screenshot(path=str(path), full_page=True)
        else:
            target.screenshot(path=str(path))
        assert path.stat().st_size > 1000, path
        out.append(path)
    page.set_viewport_size(DESKTOP)
    return out


# whether a branch of the map lies inside the visible part of the map's box
IN_BOX = """branch => {
  const g = document.querySelector(`.map-picture g.branch[data-branch="${CSS.escape(branch)}"]`);
  const box = g.closest(".map-picture");
  const r = g.getBoundingClientRect(), b = box.getBoundingClientRect();
  return r.top >= b.top - 1 && r.bottom <= b.bottom + 1 && r.left >= b.left - 1
    && r.right <= b.right + 1 && b.top >= -1 && b.top < window.innerHeight;
}"""


def expect_map(page: Page, passed: int) -> Locator:
    """The inline map: visible, fitting its box at desktop width, with ``passed``
    passed branches."""
    svg = page.locator(".map-picture svg.river-map")
    expect(svg).to_have_count(1)
    expect(svg).to_be_visible()
    expect(svg.locator("g.branch")).to_have_count(27)
    expect(svg.locator("g.branch.passed")).to_have_count(passed)
    box = svg.bounding_box()
    holder = page.locator(".map-picture").first.bounding_box()
    assert box is not None and holder is not None and box["width"] <= holder["width"] + 1
    return svg


def test_pictures_on_the_pages(server: Server, context: BrowserContext, artifacts: Path) -> None:
    match = Match(server, "01-full-game", "Picture Cup")
    match.play()  # the draft
    match.open()  # mapping
    shots: list[Path] = []

    # the placement form: cards drawn as cards, the chosen branch highlighted on the map
    ann = context.new_page()
    ann.goto(match.url(1))
    expect(ann.get_by_role("heading", level=1)).to_have_text("Picture Cup")
    hand = ann.locator('ul[data-hand-seat="1"] li[data-hand-card]')
    expect(hand).to_have_count(9)
    first = hand.first.locator(".card")
    expect(first.locator(".face")).to_have_count(2)  # both faces
    faces = first.locator(".face-color").all_text_contents()
    assert len(faces) == 2 and set(faces) <= {"red", "green", "blue"}  # colour names written
    form = ann.locator("form.order-mapping")
    map_svg = expect_map(ann, 0)
    # the map sits next to the form, inside "Your order"
    expect(ann.locator(".map-beside .map-picture svg.river-map")).to_be_visible()
    selects = form.locator("select")
    expect(selects).to_have_count(9)
    placed = match.doc["placements"]["1"]
    cards = list(hand.evaluate_all("els => els.map(e => e.dataset.handCard)"))
    label = form.locator(f'label[for="place_{cards[0]}"] .card')
    expect(label).to_be_visible()
    expect(label.locator(".face")).to_have_count(2)
    highlighted = map_svg.locator("g.branch.highlight")
    expect(highlighted).to_have_count(0)
    one = form.locator(f'select[name="place_{cards[0]}"]')
    one.select_option(placed[cards[0]])
    expect(highlighted).to_have_count(1)
    expect(highlighted).to_have_attribute("data-branch", placed[cards[0]])
    expect(ann.locator(".map-status")).to_contain_text(f"branch {placed[cards[0]]}")
    # a second card's branch: the highlight moves there
    two = form.locator(f'select[name="place_{cards[1]}"]')
    two.select_option(placed[cards[1]])
    expect(highlighted).to_have_count(1)
    expect(highlighted).to_have_attribute("data-branch", placed[cards[1]])
    # keyboard: focusing the first list highlights its branch again
    one.focus()
    expect(highlighted).to_have_attribute("data-branch", placed[cards[0]])
    assert ann.evaluate("document.activeElement.name") == f"place_{cards[0]}"
    # the map's box scrolled to the highlighted branch, at both widths
    for size, viewport in (("desktop", DESKTOP), ("phone", PHONE)):
        ann.set_viewport_size(viewport)
        two.focus()
        one.focus()
        expect(highlighted).to_have_attribute("data-branch", placed[cards[0]])
        assert ann.evaluate(IN_BOX, placed[cards[0]]), f"highlight not in view ({size})"
        path = artifacts / f"pictures-player-mapping-highlight-{size}.png"
        ann.locator(".map-side").screenshot(path=str(path))
        shots.append(path)
    ann.set_viewport_size(DESKTOP)
    shots += shoot(ann, ann, artifacts, "player-mapping")

    match.send_all()
    match.close()

    # after mapping: the player's map shows their own cards, and only theirs
    ann.goto(match.url(1))
    map_svg = expect_map(ann, 0)
    mine = {b for b in placed.values()}
    expect(map_svg.locator("g.branch:has(g.own-cards)")).to_have_count(len(mine))
    for branch in mine:
        expect(map_svg.locator(f'g.branch[data-branch="{branch}"] g.own-cards')).to_have_count(1)
    texts = " ".join(map_svg.locator("g.own-cards text").all_text_contents())
    for seat in ("2", "3"):  # no other seat's card is drawn on Ann's map
        hand = api(server, "GET", f"/matches/{match.id}/me", match.seats[seat])["result"]["hand"]
        assert len(hand) == 9
        for card in hand:
            assert not re.search(rf"(^|\s){card} [+-]?\d", texts), (card, texts)
    shots += shoot(ann.locator(".map-picture"), ann, artifacts, "player-map-after-mapping")

    # each rafting round: the public map shows the path so far; the results appear
    public = context.new_page()
    for rnd in (1, 2, 3):
        match.play()
        public.goto(match.url())
        map_svg = expect_map(public, 3 * rnd)
        expect(map_svg.locator("text.votes")).to_have_count(3 * rnd)
        assert "total ?" in " ".join(map_svg.locator("g.branch").all_text_contents())
        results = public.locator(".results-picture svg.results-picture")
        expect(results).to_be_visible()
        expect(results).to_have_attribute("data-rounds-closed", str(rnd))
        expect(results.locator("svg.score-chart")).to_be_visible()
        expect(results.locator("svg.score-chart g.series")).to_have_count(3)
        shots += shoot(public.locator(".map-picture"), public, artifacts, f"map-after-round-{rnd}")

    # the finished match: standings, Token of Life, Elimination Candidate, how decided
    expected = json.loads((GOLDEN / "01-full-game.expected.json").read_text())
    results = public.locator(".results-picture svg.results-picture")
    tol = results.locator("text.token-of-life")
    expect(tol).to_be_visible()
    expect(tol).to_contain_text(f"Token of Life: {NAMES[expected['token_of_life']]}")
    ec = results.locator("text.elimination-candidate")
    expect(ec).to_be_visible()
    ec_seat = expected["elimination_candidate"]["seat"]
    expect(ec).to_contain_text(f"Elimination Candidate: {NAMES[ec_seat]} (seat {ec_seat})")
    how = expected["elimination_candidate"]["decided_by"]
    expect(results.locator("text.decided-by")).to_contain_text(f"decided by {how}")
    expect(results.locator("g.standing")).to_have_count(3)
    expect(results.locator('g.standing[data-rank="1"]')).to_have_attribute(
        "data-seat", str(expected["token_of_life"])
    )
    shots += shoot(public.locator("section.results"), public, artifacts, "results")
    shots += shoot(public, public, artifacts, "public-finished")
    ann.goto(match.url(1))
    expect_map(ann, 9)
    expect(ann.locator(".results-picture svg.score-chart")).to_be_visible()
    shots += shoot(ann, ann, artifacts, "player-finished")

    # the forum pictures on the live server
    for name, kind in (("map.png", "image/png"), ("results.svg", "image/svg+xml")):
        with urllib.request.urlopen(f"{match.url()}/{name}", timeout=10) as resp:
            assert resp.headers["Content-Type"].startswith(kind)
            assert len(resp.read()) > 1000
    assert len(shots) == 18


def test_results_picture_explains_a_tie_break(
    server: Server, context: BrowserContext, artifacts: Path
) -> None:
    match = Match(server, "02-ties", "Tie Cup")
    for _ in range(5):
        match.play()
    expected = json.loads((GOLDEN / "02-ties.expected.json").read_text())
    assert expected["token_of_life"] is None
    page = context.new_page()
    page.goto(match.url())
    results = page.locator(".results-picture svg.results-picture")
    expect(results.locator("text.token-of-life")).to_contain_text(
        "Token of Life: nobody (the highest score is shared)"
    )
    how = expected["elimination_candidate"]["decided_by"]
    expect(results.locator("text.decided-by")).to_contain_text(
        f"decided by {how}: tied on the lowest score with"
    )
    shoot(page.locator("section.results"), page, artifacts, "results-tie")


def test_cards_in_the_draft_ranking_stay_compact(
    server: Server, context: BrowserContext, artifacts: Path
) -> None:
    match = Match(server, "01-full-game", "Card Cup")
    match.open()  # the draft
    page = context.new_page()
    page.goto(match.url(2))
    items = page.locator("ol.ranking > li")
    expect(items).to_have_count(27)
    expect(page.get_by_role("button", name="Move T up")).to_be_visible()  # the script ran
    for size, viewport in (("desktop", DESKTOP), ("phone", PHONE)):
        page.set_viewport_size(viewport)
        assert page.evaluate("document.documentElement.scrollWidth") <= viewport["width"]
        card = items.first.locator(".card")
        expect(card.locator(".face")).to_have_count(2)
        expect(card.locator(".face-color")).to_have_text(["red", "green"])  # A: red -5, green +1
        expect(card.locator(".face-value")).to_have_text(["-5", "+1"])
        path = artifacts / f"pictures-draft-ranking-{size}.png"
        page.locator("form.order").screenshot(path=str(path))
        heights = items.evaluate_all("els => els.map(e => e.getBoundingClientRect().height)")
        assert max(heights) <= 60, (size, max(heights))  # one line per card
    page.set_viewport_size(DESKTOP)
