"""A whole Forks (1st edition) match in a real browser: a host and three
players, each in a browser context of their own (seat 3 on a 375x812 phone
with touch), who only open the links the service gives them.

The host creates a 3-player match with the swap variant from the create form
(a tiebreak chosen with its selects), then opens and closes the 24 steps (12
turns of a draw and an invest step). In each step only the acting seat has an
order form: it picks by clicking (desktop), tapping (the phone) or with the
keyboard (seat 2 in one step); in turn 2 the drawing seat swaps (gives a
drawn card, takes an invested one and keeps the taken card) in one order. At
the end the public page's result is checked against the engine's resolution
of the host's export; screenshots are kept in test-artifacts/.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, BrowserContext, Locator, Page, expect

from referee.rulesets.forks.cards import card_name
from referee.rulesets.forks.match import resolve

from .conftest import Server

TIMEOUT = 10_000
DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 375, "height": 812}
PLAYERS = [("Ann", 4), ("Ben", 2), ("Cat", 2)]
NAMES = {seat: name for seat, (name, _) in enumerate(PLAYERS, start=1)}
PHONE_SEAT = 3
KEYBOARD_SEAT = 2  # picks with the keyboard in each of its invest steps
SWAP_STEP = 3  # turn 2's draw step: seat 2 swaps
TIEBREAK = ["oxime", "needle", "dtv", "apidae", "wildrock"]


@pytest.fixture
def contexts(browser: Browser) -> Iterator[dict[str, BrowserContext]]:
    made: dict[str, BrowserContext] = {}
    for who in ("host", "1", "2", "3", "public"):
        if who == str(PHONE_SEAT):
            made[who] = browser.new_context(viewport=PHONE, has_touch=True, is_mobile=True)
        else:
            made[who] = browser.new_context(viewport=DESKTOP)
        made[who].set_default_timeout(TIMEOUT)
    yield made
    for context in made.values():
        context.close()


def notice(page: Page) -> Locator:
    return page.locator(".notices")


def no_sideways_scroll(page: Page, what: str) -> None:
    width = page.evaluate("document.documentElement.scrollWidth")
    viewport = page.viewport_size
    assert viewport is not None
    assert width <= viewport["width"], f"{what} is {width}px wide at {viewport['width']}px"


def shot(page: Page, folder: Path, name: str) -> None:
    no_sideways_scroll(page, name)
    path = folder / f"forks1-{name}.png"
    path.unlink(missing_ok=True)
    page.screenshot(path=str(path), full_page=True)


def values(page: Page, name: str) -> list[str]:
    found: list[str] = page.locator(f'input[type=radio][name="{name}"]').evaluate_all(
        "els => els.map(e => e.value)"
    )
    return found


def pick(page: Page, seat: int, name: str, value: str) -> None:
    label = page.locator(f'label.pick[for="{name}-{value}"]')
    if seat == PHONE_SEAT:
        box = label.bounding_box()
        assert box is not None and box["height"] >= 44, box
        label.tap()
    else:
        label.click()
    expect(page.locator(f"#{name}-{value}")).to_be_checked()


def shows(html: str, card: str) -> bool:
    """Whether ``card`` is on the page by its id or its name (escaped)."""
    name = re.escape(card_name(card).replace("&", "&amp;"))
    twin = "" if card.endswith("x") else r"(?! \(twin\))"
    by_id = rf"(?<![\w-]){re.escape(card)}(?![\w-])"
    return re.search(rf"{by_id}|\b{name}(?!\d){twin}", html) is not None


def acting_seat(step: int) -> int:
    turn = (step + 1) // 2
    current = (turn - 1) % 3 + 1
    return current if step % 2 else current % 3 + 1


def test_forks_swap_match_host_and_three_players(
    server: Server, contexts: dict[str, BrowserContext], artifacts: Path
) -> None:
    host = contexts["host"].new_page()
    host.goto(server.url + "/new")
    host.get_by_label("Game").select_option("forks")
    tiebreak = host.get_by_role("group", name="Tiebreak order of the companies")
    expect(tiebreak).to_be_visible()
    host.get_by_label("Match name").fill("Browser <Forks> Cup")
    for seat, (name, garnets) in enumerate(PLAYERS, start=1):
        group = host.get_by_role("group", name=re.compile(rf"^Seat {seat}( |$)"))
        group.get_by_label("Name").fill(name)
        group.get_by_label("Garnets").fill(str(garnets))
    host.get_by_label("Swap variant").check()
    selects = tiebreak.get_by_role("combobox")
    expect(selects).to_have_count(5)
    for place, firm in enumerate(TIEBREAK):
        selects.nth(place).select_option(firm)
    assert [selects.nth(i).input_value() for i in range(5)] == TIEBREAK
    host.get_by_label("Open each round by itself").uncheck()
    host.get_by_label(re.compile(r"^Close a round as soon as")).uncheck()
    host.get_by_role("button", name="Create the match").click()
    expect(host.get_by_role("heading", level=1)).to_have_text("“Browser <Forks> Cup” is ready")
    host_url = host.locator("#host-link").get_attribute("href") or ""
    seat_links = host.get_by_role("region", name="One private link per player").get_by_role("link")
    expect(seat_links).to_have_count(3)
    links = {s: seat_links.nth(s - 1).get_attribute("href") or "" for s in NAMES}
    public_url = (
        host.get_by_role("region", name="The public page").get_by_role("link").get_attribute("href")
        or ""
    )
    match_id = public_url.rsplit("/", 1)[1]
    host_token = host_url.rsplit("/", 1)[1]
    players = {s: contexts[str(s)].new_page() for s in NAMES}
    host.goto(host_url)

    for step in range(1, 25):
        turn = (step + 1) // 2
        title = f"Turn {turn}: {'draw' if step % 2 else 'invest'}"
        host.get_by_role("button", name=f"Open {title}").click()
        expect(notice(host)).to_contain_text(f"{title} is open for orders.")
        seat = acting_seat(step)
        for other, page in players.items():  # whose turn it is, on every seat's page
            page.goto(links[other])
            expect(page.locator("#turn-now")).to_contain_text(f"Turn {turn}:")
            if other != seat:
                expect(page.locator('input[name="card"]')).to_have_count(0)
        page = players[seat]
        cards = [c for c in values(page, "card") if c != "taken"]
        said: str
        if step % 2:
            assert len(cards) == 3, cards
        if step == SWAP_STEP:
            takes = [c for c in values(page, "take") if c]
            give, take = cards[0], takes[-1]
            pick(page, seat, "give", give)
            pick(page, seat, "take", take)
            pick(page, seat, "card", "taken")
            said = f"keep {card_name(take)}, after giving {card_name(give)} for {card_name(take)}"
        elif seat == KEYBOARD_SEAT and step % 2 == 0:
            card = cards[-1]
            page.locator('input[name="card"]').first.focus()
            page.keyboard.press("Space")
            for _ in range(len(cards) - 1):
                page.keyboard.press("ArrowDown")
            expect(page.locator(f"#card-{card}")).to_be_checked()
            said = f"invest {card_name(card)}"
        else:
            card = cards[step % len(cards)]
            pick(page, seat, "card", card)
            said = f"{'keep' if step % 2 else 'invest'} {card_name(card)}"
        if seat == PHONE_SEAT and step in (2, 5):
            shot(page, artifacts, f"player-step{step}-phone")
        page.get_by_role("button", name="Send my order").click()
        expect(notice(page)).to_contain_text("was accepted")
        expect(page.locator(".receipt-box")).to_contain_text(f"Your order: {said}")
        host.goto(host_url)
        if step == 1:  # the host never sees the open draw step's cards nor the sealed order
            html = host.content()
            assert not any(shows(html, c) for c in cards), cards
        host.get_by_label(f"I am sure: close {title} now").check()
        host.get_by_role("button", name=f"Close and resolve {title} now").click()
        expect(notice(host)).to_contain_text(f"{title} is closed and resolved")
    expect(host.get_by_role("region", name="Current round")).to_contain_text(
        "The match has finished"
    )

    public = contexts["public"].new_page()
    public.goto(public_url)
    rows = public.locator("tr[data-score-seat]")
    expect(rows).to_have_count(3)
    page_scores: dict[str, int] = {}
    for i in range(3):
        seat_text = rows.nth(i).get_attribute("data-score-seat") or ""
        text = rows.nth(i).locator("td.score").inner_text().replace("\u2212", "-")
        page_scores[seat_text] = int(text)
    expect(public.locator("svg.forks-board")).to_have_count(1)
    expect(public.locator("svg.forks-scores")).to_have_count(1)
    answer = contexts["host"].request.get(
        f"{server.url}/api/matches/{match_id}/export",
        headers={"Authorization": f"Bearer {host_token}"},
    )
    assert answer.ok, answer.text()
    exported: dict[str, Any] = answer.json()
    assert exported["settings"]["swap"] is True
    assert exported["settings"]["tiebreak"] == TIEBREAK
    resolved = resolve(exported)
    assert resolved["scores"] == page_scores
    token = resolved["token_of_life"]
    token_text = public.locator(".final-token").inner_text()
    if token is None:
        assert "nobody" in token_text
    else:
        assert NAMES[token] in token_text
    ec = resolved["elimination_candidate"]
    expect(public.locator(".final-candidate")).to_contain_text(NAMES[ec["seat"]])
    names = {"dtv": "dtv Plumbing", "apidae": "Apidae Pharmaceuticals", "oxime": "Oxime"}
    names |= {"wildrock": "Wild Rock Telecoms", "needle": "Needle & Green Solicitors"}
    ranking = public.locator(".final-ranking").inner_text()
    assert ranking == "Ranking: " + ", ".join(names[c] for c in resolved["ranking"]) + "."
    sent = [order for entry in exported["orders"] for order in entry.values()]
    assert sum("swap" in o for o in sent if isinstance(o, dict)) == 1  # turn 2's, in one order
    shot(public, artifacts, "public-desktop")
    public.set_viewport_size(PHONE)
    shot(public, artifacts, "public-phone")
    players[PHONE_SEAT].goto(links[PHONE_SEAT])
    shot(players[PHONE_SEAT], artifacts, "player-end-phone")
