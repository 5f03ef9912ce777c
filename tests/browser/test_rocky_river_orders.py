"""Rocky River's order forms in a real browser (Debian's Chromium), at phone
(375 px) and desktop (1280 px) widths:

- the draft list reordered by dragging a card's grip with the real mouse
  (pointer down, moves, up) and with a finger (touch events sent through the
  DevTools protocol, as a touch screen sends them), by the keyboard alone (rank
  box + Enter, Top/Bottom/Up/Down buttons reached with Tab), and without
  JavaScript (rank boxes read by the server); each move announced in the live
  region; the order sent is the one stored (the receipt box and the seat's API
  view);
- placements chosen by picking a card and clicking its branch on the map (an
  illegal branch is refused in words), the full choice shown under each list;
- the direction form saying what each choice leads to at the raft's fork, from
  the seat's view only, the map opening at that fork on a phone.

Matches are set up through the JSON API from a golden match file to keep this
fast; screenshots are kept in test-artifacts/.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, BrowserContext, CDPSession, Locator, Page, expect

from referee.loadtest.server import api as server_api
from referee.rulesets.rocky_river.data import load_bundled_map, load_deck

from .conftest import Server

TIMEOUT = 10_000
SIZES = {"phone": {"width": 375, "height": 812}, "desktop": {"width": 1280, "height": 900}}
GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "rocky-river"
NAMES = {1: "Ann", 2: "Ben", 3: "Cat"}
DECK = load_deck()
CARDS = list(DECK.ids)
RIVER = load_bundled_map("three-rapids")


def api(server: Server, method: str, path: str, token: str | None = None, body: Any = None) -> Any:
    return server_api(server.url, method, "/api" + path, body, token, timeout=10)


class Match:
    """A match made through the API, its rounds played from a golden file's orders."""

    def __init__(self, server: Server, name: str) -> None:
        self.server = server
        self.doc = json.loads((GOLDEN / "01-full-game.match.json").read_text())
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
        self.rounds = [
            ("draft", self.doc["draft"]),
            ("placements", self.doc["placements"]),
            *[("votes", votes) for votes in self.doc["votes"]],
        ]
        self.closed = 0

    def open(self) -> None:
        api(self.server, "POST", f"/matches/{self.id}/rounds/open", self.host)

    def play(self) -> None:
        self.open()
        kind, orders = self.rounds[self.closed]
        for seat, order in orders.items():
            api(self.server, "PUT", f"/matches/{self.id}/orders", self.seats[seat], {kind: order})
        api(self.server, "POST", f"/matches/{self.id}/rounds/close", self.host)
        self.closed += 1

    def url(self, seat: int) -> str:
        return f"{self.server.url}/play/{self.seats[str(seat)]}"

    def stored(self, seat: int, number: int) -> Any:
        """The seat's own order of round ``number`` as its API view holds it."""
        me = api(self.server, "GET", f"/matches/{self.id}/me", self.seats[str(seat)])
        return me["orders"][str(number)][str(seat)]["order"]


@pytest.fixture(params=list(SIZES))
def size(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def context(browser: Browser, size: str) -> Iterator[BrowserContext]:
    made = browser.new_context(viewport=SIZES[size], has_touch=True)
    made.set_default_timeout(TIMEOUT)
    yield made
    made.close()


# ---- helpers -----------------------------------------------------------------------


def ranking_on(page: Page) -> list[str]:
    """The list as the form sends it (the hidden inputs, in page order)."""
    values: list[str] = page.locator('ol.ranking input[name="ranking"]').evaluate_all(
        "els => els.map(e => e.value)"
    )
    return values


def ranks_on(page: Page) -> list[str]:
    values: list[str] = page.locator("ol.ranking input.rank-input").evaluate_all(
        "els => els.map(e => e.value)"
    )
    return values


def item(page: Page, card: str) -> Locator:
    return page.locator(f'ol.ranking > li[data-card="{card}"]')


def centre(locator: Locator) -> tuple[float, float]:
    box = locator.bounding_box()
    assert box is not None
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


def show_both(page: Page, top: str) -> None:
    """Scroll the page so that card ``top`` is near the top of the screen, but away
    from the edge (a drag near an edge scrolls the page)."""
    item(page, top).evaluate("li => li.scrollIntoView({block: 'start'})")
    page.evaluate("window.scrollBy(0, -120)")


def mouse_drag(page: Page, card: str, onto: str) -> None:
    """Press the real mouse on ``card``'s grip and move it, in steps, onto ``onto``."""
    x0, y0 = centre(item(page, card).locator(".drag-handle"))
    _, y1 = centre(item(page, onto))
    page.mouse.move(x0, y0)
    page.mouse.down()
    for i in range(1, 16):
        page.mouse.move(x0, y0 + (y1 - y0 - 4) * i / 15)
        page.wait_for_timeout(16)
    # rest on the target before letting go, as a person does (the list's animation ends)
    page.wait_for_timeout(250)
    page.mouse.move(x0, y1 - 3)
    page.wait_for_timeout(50)
    page.mouse.up()


def touch_drag(page: Page, cdp: CDPSession, card: str, onto: str) -> None:
    """Put a finger on ``card``'s grip and slide it onto ``onto`` (the touch events
    a touch screen sends, through Input.dispatchTouchEvent)."""
    x0, y0 = centre(item(page, card).locator(".drag-handle"))
    _, y1 = centre(item(page, onto))

    def touch(kind: str, y: float) -> None:
        points = [] if kind == "touchEnd" else [{"x": x0, "y": y}]
        cdp.send("Input.dispatchTouchEvent", {"type": kind, "touchPoints": points})

    touch("touchStart", y0)
    for i in range(1, 16):
        touch("touchMove", y0 + (y1 - y0 - 4) * i / 15)
        page.wait_for_timeout(16)
    page.wait_for_timeout(250)
    touch("touchMove", y1 - 3)
    page.wait_for_timeout(50)
    touch("touchEnd", 0)


def moved(expected: list[str], card: str, rank: int) -> list[str]:
    out = [c for c in expected if c != card]
    out.insert(rank - 1, card)
    return out


def status(page: Page) -> Locator:
    return page.locator(".ranking-status")


def send(page: Page, button: str = "Send my order") -> None:
    page.get_by_role("button", name=button).click()
    expect(page.locator(".notices")).to_contain_text("was accepted", timeout=TIMEOUT)


def shown_order(page: Page) -> str:
    text = page.locator(".receipt-box p", has_text="Your order:").inner_text()
    return text.removeprefix("Your order:").strip()


def fits(page: Page, size: str) -> None:
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= SIZES[size]["width"], f"the page is {width}px wide at {size} size"


# ---- the draft -----------------------------------------------------------------------


def test_draft_list_by_mouse_touch_and_keyboard(
    server: Server, context: BrowserContext, size: str, artifacts: Path
) -> None:
    match = Match(server, f"Draft Cup {size}")
    match.open()
    page = context.new_page()
    page.goto(match.url(1))
    ranking = page.get_by_role("list", name="Your ranking, most wanted first")
    expect(ranking.get_by_role("listitem")).to_have_count(27)
    expect(page.get_by_role("button", name="Move T to the top")).to_be_visible()  # script ran
    expect(status(page)).to_have_attribute("aria-live", "polite")
    fits(page, size)
    expected = list(CARDS)
    assert ranking_on(page) == expected
    # visible rank numbers, one box per card, labelled
    assert ranks_on(page) == [str(i) for i in range(1, 28)]
    expect(page.get_by_label("Rank of card J", exact=True)).to_have_value("10")
    # one line per card at both widths (the buttons fit beside the card)
    heights = ranking.locator("> li").evaluate_all(
        "els => els.map(e => e.getBoundingClientRect().height)"
    )
    assert max(heights) <= 60, (size, max(heights))

    # 1. the real mouse drags M by its grip onto J: M takes J's place, J moves down
    show_both(page, "H")
    mouse_drag(page, "M", "J")
    expected = moved(expected, "M", 10)
    expect(status(page)).to_have_text("M is now number 10 of 27.")
    assert ranking_on(page) == expected
    assert ranks_on(page) == [str(i) for i in range(1, 28)]  # renumbered
    expect(page.get_by_label("Rank of card M", exact=True)).to_have_value("10")

    # 2. a finger slides S by its grip onto N
    cdp = context.new_cdp_session(page)
    show_both(page, "L")
    at = expected.index("N") + 1
    touch_drag(page, cdp, "S", "N")
    expected = moved(expected, "S", at)
    expect(status(page)).to_have_text(f"S is now number {at} of 27.")
    assert ranking_on(page) == expected
    cdp.detach()

    # 3. the keyboard alone: type a rank and press Enter (the form is not sent) ...
    box = page.get_by_label("Rank of card Z", exact=True)
    box.focus()
    page.keyboard.press("Control+a")
    page.keyboard.type("2")
    page.keyboard.press("Enter")
    expected = moved(expected, "Z", 2)
    expect(status(page)).to_have_text("Z is now number 2 of 27.")
    assert ranking_on(page) == expected
    expect(page.get_by_label("Rank of card Z", exact=True)).to_be_focused()
    expect(page.get_by_label("Rank of card Z", exact=True)).to_have_value("2")
    expect(page.locator(".notices")).to_have_count(0)  # Enter moved the card, sent nothing
    # ... then Tab to Z's buttons: Top, Up, Down, Bottom, in that order
    page.keyboard.press("Tab")
    expect(page.get_by_role("button", name="Move Z to the top")).to_be_focused()
    page.keyboard.press("Enter")
    expected = moved(expected, "Z", 1)
    expect(status(page)).to_have_text("Z is now number 1 of 27.")
    expect(page.get_by_role("button", name="Move Z to the top")).to_be_focused()  # kept
    for _ in range(3):
        page.keyboard.press("Tab")
    expect(page.get_by_role("button", name="Move Z to the bottom")).to_be_focused()
    page.keyboard.press("Space")
    expected = moved(expected, "Z", 27)
    expect(status(page)).to_have_text("Z is now number 27 of 27.")
    page.keyboard.press("Shift+Tab")
    page.keyboard.press("Shift+Tab")
    expect(page.get_by_role("button", name="Move Z up")).to_be_focused()
    page.keyboard.press("Enter")
    page.keyboard.press("Enter")
    expected = moved(expected, "Z", 25)
    expect(status(page)).to_have_text("Z is now number 25 of 27.")
    page.get_by_role("button", name="Move AS to the top").click()
    expected = moved(expected, "AS", 1)
    expect(status(page)).to_have_text("AS is now number 1 of 27.")
    # a rank that is not a number is put back and explained
    box = page.get_by_label("Rank of card A", exact=True)
    box.fill("first")
    box.press("Enter")
    expect(status(page)).to_have_text("Type a whole number from 1 to 27 to move A.")
    expect(box).to_have_value(str(expected.index("A") + 1))
    # a rank beyond the list moves the card to the end
    box.fill("99")
    box.press("Enter")
    expected = moved(expected, "A", 27)
    expect(status(page)).to_have_text("A is now number 27 of 27.")
    assert ranking_on(page) == expected
    assert ranks_on(page) == [str(i) for i in range(1, 28)]
    page.locator("form.order").screenshot(path=str(artifacts / f"rr-draft-{size}.png"))

    # 4. sent and stored as shown
    send(page)
    assert shown_order(page) == ", ".join(expected)
    assert match.stored(1, 1) == expected
    # the page comes back with the stored list and its ranks
    assert ranking_on(page) == expected
    assert ranks_on(page) == [str(i) for i in range(1, 28)]


def test_draft_rank_boxes_work_without_javascript(
    server: Server, browser: Browser, artifacts: Path
) -> None:
    match = Match(server, "No Script Cup")
    match.open()
    context = browser.new_context(viewport=SIZES["phone"], java_script_enabled=False)
    context.set_default_timeout(TIMEOUT)
    page = context.new_page()
    page.goto(match.url(2))
    expect(page.locator("ol.ranking > li")).to_have_count(27)
    expect(page.locator("ol.ranking button")).to_have_count(0)  # no script, no buttons
    # a box that is not a number is refused next to its card, nothing stored
    page.get_by_label("Rank of card K", exact=True).fill("top")
    page.get_by_role("button", name="Send my order").click()
    errors = page.locator("#ranking-10-errors")
    expect(errors).to_contain_text("the rank of card K must be a whole number from 1 to 27")
    expect(page.get_by_label("Rank of card K", exact=True)).to_have_attribute(
        "aria-invalid", "true"
    )
    page.locator("form.order").screenshot(path=str(artifacts / "rr-draft-nojs-refused.png"))
    # K to the top, A to the bottom, T to rank 5: the server moves them
    page.get_by_label("Rank of card K", exact=True).fill("1")
    page.get_by_label("Rank of card A", exact=True).fill("27")
    page.get_by_label("Rank of card T", exact=True).fill("5")
    page.get_by_role("button", name="Send my order").click()
    expect(page.locator(".notices")).to_contain_text("was accepted")
    rest = [c for c in CARDS if c not in {"K", "A", "T"}]
    expected = ["K", *rest[:3], "T", *rest[3:], "A"]
    assert shown_order(page) == ", ".join(expected)
    assert match.stored(2, 1) == expected
    assert ranking_on(page) == expected
    context.close()


# ---- mapping -------------------------------------------------------------------------


def test_placing_cards_by_clicking_the_map(
    server: Server, context: BrowserContext, size: str, artifacts: Path
) -> None:
    match = Match(server, f"Map Cup {size}")
    match.play()  # the draft
    match.open()  # mapping
    placed: dict[str, str] = match.doc["placements"]["1"]
    page = context.new_page()
    page.goto(match.url(1))
    form = page.locator("form.order-mapping")
    expect(form.locator("select")).to_have_count(9)
    fits(page, size)
    hand = list(form.locator(".place-field").evaluate_all("els => els.map(e => e.dataset.card)"))
    assert sorted(hand) == sorted(placed)
    svg = page.locator(".map-side svg.river-map")
    expect(svg).to_be_visible()
    status = page.locator(".map-status")

    # a branch clicked before any card is picked: nothing chosen, the page says what to do
    svg.locator('g.branch[data-branch="1L"]').click()
    expect(status).to_contain_text("press a card's “Place on the map” button first")

    first = hand[0]
    page.get_by_role("button", name=f"Place on the map: card {first}").click()
    expect(page.get_by_role("button", name=f"Place on the map: card {first}")).to_have_attribute(
        "aria-pressed", "true"
    )
    legal = {
        b.id for b in RIVER.branches.values() if DECK.by_id[first].value_for(b.color) is not None
    }
    expect(svg.locator("g.branch.legal")).to_have_count(len(legal))
    illegal = sorted(set(RIVER.branches) - legal)[0]
    svg.locator(f'g.branch[data-branch="{illegal}"]').click(force=True)
    color = RIVER.branches[illegal].color
    expect(status).to_contain_text(f"Card {first} has no {color} face")
    expect(form.locator(f'select[name="place_{first}"]')).to_have_value("")

    # each card in turn: the next card without a branch is picked after a click
    for i, card in enumerate(hand):
        if i:
            expect(
                page.get_by_role("button", name=f"Place on the map: card {card}")
            ).to_have_attribute("aria-pressed", "true")
        svg.locator(f'g.branch[data-branch="{placed[card]}"]').click()
        expect(form.locator(f'select[name="place_{card}"]')).to_have_value(placed[card])
        # the whole choice is written out under the list, never cut
        chosen = form.locator(f'.choice-text[data-for="place_{card}"]')
        expect(chosen).to_contain_text(f"Chosen: {placed[card]}: adds ")
        expect(chosen).to_contain_text("portrays ")
    expect(svg.locator("g.branch.legal")).to_have_count(0)  # nothing left to place
    expect(status).to_contain_text(f"Card {hand[-1]} placed")
    page.locator(".map-beside").screenshot(path=str(artifacts / f"rr-mapping-{size}.png"))
    send(page)
    assert match.stored(1, 2) == placed
    # the page comes back with the choices written out without any script
    chosen = page.locator(f'.choice-text[data-for="place_{hand[0]}"]')
    expect(chosen).to_contain_text(f"Chosen: {placed[hand[0]]}: adds ")


# ---- rafting -------------------------------------------------------------------------


def test_the_direction_form_shows_where_each_choice_leads(
    server: Server, context: BrowserContext, size: str, artifacts: Path
) -> None:
    match = Match(server, f"Raft Cup {size}")
    for _ in range(3):  # draft, mapping, rafting 1
        match.play()
    match.open()  # rafting 2
    page = context.new_page()
    page.goto(match.url(1))
    fits(page, size)
    me = api(server, "GET", f"/matches/{match.id}/me", match.seats["1"])
    path = me["result"]["path"]
    at = RIVER.branches[path[-1]["branch"]].to
    assert at is not None
    first = page.get_by_role("group", name=re.compile(r"^Fork 1 of segment 2"))
    expect(first).to_contain_text(f"the raft is now at fork {at}")
    leads = first.locator(".leads-to")
    expect(leads).to_have_attribute("data-fork", at)
    fork = RIVER.forks[at]
    own = me["result"]["placements"]["1"]
    for b in fork.branches():
        line = leads.locator(f'li[data-branch="{b.id}"]')
        expect(line).to_contain_text(f"portrays {NAMES[b.seat]}")
        expect(line).to_contain_text(f"{b.color} slot")
        expect(line).to_contain_text("outer" if b.outer else "inner")
        mine = sorted(c for c, branch in own.items() if branch == b.id)
        if mine:  # secret total: only the seat's own cards there
            expect(line).to_contain_text("total secret (your cards there: " + mine[0])
        else:
            expect(line).to_contain_text("total secret ·")
    # nothing sealed: no other seat's card is named in what the choices lead to
    text = page.locator("form.order-rafting").inner_text()
    for seat in ("2", "3"):
        for card in match.doc["placements"][seat]:
            assert not re.search(rf"\b{card} [+-]\d", text), card
    # the map beside the form opens at the raft's fork, marked, its branches in view
    box = page.locator(".map-side .map-picture")
    expect(box).to_have_attribute("data-focus-fork", at)
    expect(box.locator(f'g.fork.raft-here[data-fork="{at}"]')).to_have_count(1)
    inner_left = next(b.id for b in fork.branches() if b.side == "L")
    in_box = box.evaluate(
        """(box, id) => {
          const g = box.querySelector(`g.branch[data-branch="${id}"]`);
          const r = g.getBoundingClientRect(), b = box.getBoundingClientRect();
          return r.left >= b.left - 1 && r.right <= b.right + 1
            && r.top >= b.top - 1 && r.bottom <= b.bottom + 1;
        }""",
        inner_left,
    )
    assert in_box, f"{inner_left} is not in the map's box at {size} size"
    # choosing a side highlights where it may lead
    first.get_by_role("radio", name="Left").check()
    lefts = [b.id for b in fork.branches() if b.side == "L"]
    expect(box.locator("g.branch.highlight")).to_have_count(len(lefts))
    page.locator(".map-beside").screenshot(path=str(artifacts / f"rr-rafting-{size}.png"))
    # the keyboard: arrows choose within each fork's pair
    for k in (2, 3):
        group = page.get_by_role("group", name=re.compile(rf"^Fork {k} of segment 2"))
        group.get_by_role("radio", name="Left").focus()
        page.keyboard.press("ArrowRight")
        expect(group.get_by_role("radio", name="Right")).to_be_checked()
    send(page)
    assert match.stored(1, 4) == ["L", "R", "R"]


def test_the_path_table_fits_a_phone(server: Server, browser: Browser, artifacts: Path) -> None:
    match = Match(server, "Path Cup")
    for _ in range(5):
        match.play()
    context = browser.new_context(viewport=SIZES["phone"])
    page = context.new_page()
    page.goto(match.url(1))
    table = page.locator("table.path")
    expect(table.locator("tr[data-step]")).to_have_count(9)
    fits(page, "phone")
    wrap = table.locator("xpath=..")
    right = wrap.evaluate("w => w.getBoundingClientRect().right")
    # every column but the votes is on screen without scrolling ...
    for name in ("Fork", "Way", "Branch", "Portrays", "Points"):
        cell = table.get_by_role("columnheader", name=name, exact=True)
        assert cell.evaluate("c => c.getBoundingClientRect().right") <= right + 1, name
    # ... and the votes, when they do not fit, come with a cue
    if wrap.evaluate("w => w.scrollWidth > w.clientWidth"):
        expect(page.locator(".scroll-cue")).to_be_visible()
    wrap.screenshot(path=str(artifacts / "rr-path-table-phone.png"))
    context.close()
