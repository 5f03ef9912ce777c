"""A whole Forks 2nd Edition match in a real browser: a host and four players,
each in a browser context of their own, who only open the links the service
gives them.

The host creates a 4-player merge match from the create form (the tiebreak
chosen with its selects, one destination renamed), then opens and closes the
eight steps. Players pick a card by clicking it (desktop), by tapping it (seat
3, on a 375x812 phone with touch) or with the keyboard (seat 2 in one step),
then send; seat 4 sends nothing in one step (a seeded default). At the end the
public page's result is checked against the engine's resolution of the host's
export, and screenshots are kept in test-artifacts/.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, BrowserContext, Locator, Page, expect

from referee.rulesets.forks_2e.cards import card_name
from referee.rulesets.forks_2e.match import resolve

from .conftest import PHONE, Server, no_sideways_scroll, people

TIMEOUT = 10_000  # ms, for every expect() on a page that changes
PLAYERS = [("Ann", 4), ("Ben", 2), ("Cat", 2), ("Dan", 6)]
NAMES = {seat: name for seat, (name, _) in enumerate(PLAYERS, start=1)}
PHONE_SEAT = 3
KEYBOARD = (2, 3)  # (seat, step): that seat picks with the keyboard in that step
SILENT = (4, 5)  # (seat, step): no order, so the seeded default
TIEBREAK = ["red", "blue", "grey", "yellow", "green"]


@pytest.fixture
def contexts(browser: Browser) -> Iterator[dict[str, BrowserContext]]:
    with people(browser, 4, phone_seat=PHONE_SEAT, timeout=TIMEOUT) as made:
        yield made


def notice(page: Page) -> Locator:
    return page.locator(".notices")


def shot(page: Page, folder: Path, name: str) -> Path:
    no_sideways_scroll(page, name)
    path = folder / f"forks-{name}.png"
    path.unlink(missing_ok=True)
    page.screenshot(path=str(path), full_page=True)
    return path


def offered(page: Page) -> list[str]:
    cards: list[str] = page.locator('input[type=radio][name="card"]').evaluate_all(
        "els => els.map(e => e.value)"
    )
    return cards


def test_forks_merge_match_host_and_four_players(
    server: Server, contexts: dict[str, BrowserContext], artifacts: Path
) -> None:
    host = contexts["host"].new_page()

    # 1. the host creates the match ----------------------------------------------------
    host.goto(server.url + "/new")
    host.get_by_label("Game").select_option("forks-2e")  # the fields change at once
    expect(host.get_by_role("group", name="Tiebreak order of the destinations")).to_be_visible()
    host.get_by_label("Match name").fill("Browser Forks Cup")
    for seat, (name, garnets) in enumerate(PLAYERS, start=1):
        group = host.get_by_role("group", name=re.compile(rf"^Seat {seat}( |$)"))
        group.get_by_label("Name").fill(name)
        group.get_by_label("Garnets").fill(str(garnets))
    host.get_by_label("Merge variant").check()
    tiebreak = host.get_by_role("group", name="Tiebreak order of the destinations")
    selects = tiebreak.get_by_role("combobox")
    expect(selects).to_have_count(5)
    # each choice swaps with the place that held it (the script keeps one of each)
    for place, dest in enumerate(TIEBREAK):
        selects.nth(place).select_option(dest)
    chosen = [selects.nth(i).input_value() for i in range(5)]
    assert chosen == TIEBREAK
    expect(tiebreak.locator(".order-status")).to_contain_text("moved to place")
    names = host.get_by_role("group", name="Destination names")
    names.get_by_label("grey (by default Greysteel City)").fill("Steelton")
    expect(names.get_by_label("blue (by default Bluecrest Harbour)")).to_have_attribute(
        "placeholder", "Bluecrest Harbour"
    )
    # this host opens and closes each step by hand (both boxes come ticked)
    host.get_by_label("Open each round by itself").uncheck()
    host.get_by_label(re.compile(r"^Close a round as soon as")).uncheck()
    shot(host, artifacts, "create-desktop")
    host.get_by_role("button", name="Create the match").click()
    expect(host.get_by_role("heading", level=1)).to_have_text("“Browser Forks Cup” is ready")
    host_url = host.locator("#host-link").get_attribute("href") or ""
    seat_section = host.get_by_role("region", name="One private link per player")
    seat_links = seat_section.get_by_role("link")
    expect(seat_links).to_have_count(4)
    links = {s: seat_links.nth(s - 1).get_attribute("href") or "" for s in NAMES}
    public_url = (
        host.get_by_role("region", name="The public page").get_by_role("link").get_attribute("href")
        or ""
    )
    match_id = public_url.rsplit("/", 1)[1]
    host_token = host_url.rsplit("/", 1)[1]

    players = {s: contexts[str(s)].new_page() for s in NAMES}
    host.goto(host_url)

    # 2. eight steps: keep and market in four game rounds ------------------------------
    for step in range(1, 9):
        title = f"Round {(step + 1) // 2}: {'keep' if step % 2 else 'market'}"
        host.get_by_role("button", name=f"Open {title}").click()
        expect(notice(host)).to_contain_text(f"{title} is open for orders.")
        if step == 1:  # the host never sees the open keep step's deal
            expect(host.locator("table.steps")).to_have_count(0)
        for seat, page in players.items():
            page.goto(links[seat])
            if (seat, step) == SILENT:
                continue
            picks = page.get_by_role("group", name=re.compile(r"^(Keep|Market) one"))
            expect(picks).to_be_visible()
            cards = offered(page)
            if step % 2:
                assert len(cards) == 3, cards
            else:  # merge: the whole hand plus the two passed cards
                assert len(cards) == step + 1, cards
                expect(page.locator(".pick-tag", has_text="passed to you")).to_have_count(2)
            card = cards[(seat * step) % len(cards)]
            label = page.locator(f'label.pick[for="pick-{card}"]')
            if (seat, step) == KEYBOARD:
                page.locator('input[name="card"]').first.focus()
                page.keyboard.press("Space")  # checks the first card
                for _ in range(cards.index(card)):
                    page.keyboard.press("ArrowRight")
                expect(page.locator(f"#pick-{card}")).to_be_checked()
                focused = artifacts / "forks-keyboard-focus.png"
                page.locator("fieldset.card-pick").screenshot(path=str(focused))
                page.keyboard.press("Tab")
                expect(page.get_by_role("button", name="Send my order")).to_be_focused()
                page.keyboard.press("Enter")
            else:
                if seat == PHONE_SEAT:
                    box = label.bounding_box()
                    assert box is not None and box["height"] >= 44 and box["width"] >= 44, box
                    label.tap()
                else:
                    label.click()
                expect(page.locator(f"#pick-{card}")).to_be_checked()
                if seat == PHONE_SEAT and step == 4:
                    shot(page, artifacts, "player-market-phone")
                page.get_by_role("button", name="Send my order").click()
            expect(notice(page)).to_contain_text("was accepted")
            # the receipt names the card as the player knows it (the match's names)
            said = f"Your order: {card_name(card, {'grey': 'Steelton'})}"
            expect(page.locator(".receipt-box")).to_contain_text(said)
            expect(page.locator(f"#pick-{card}")).to_be_checked()  # the standing order
        host.goto(host_url)
        sent = 3 if step == SILENT[1] else 4
        expect(host.get_by_role("main")).to_contain_text(f"Received from {sent} of 4 players")
        if step == 4:
            shot(host, artifacts, "host-desktop")
        host.get_by_label(f"I am sure: close {title} now").check()
        host.get_by_role("button", name=f"Close and resolve {title} now").click()
        expect(notice(host)).to_contain_text(f"{title} is closed and resolved")
        expect(host.locator(f'table.steps[data-game-round="{(step + 1) // 2}"]')).to_be_visible()
    expect(host.get_by_role("region", name="Current round")).to_contain_text(
        "The match has finished"
    )

    # 3. the public page's result, checked against the engine on the export -------------
    public = contexts["public"].new_page()
    public.goto(public_url)
    final = public.get_by_role("region", name="Final result")
    expect(final).to_be_visible()
    page_scores: dict[str, int] = {}
    rows = public.locator("table.scores tbody tr")
    expect(rows).to_have_count(4)
    for i in range(4):
        seat = rows.nth(i).get_attribute("data-score-seat") or ""
        text = rows.nth(i).locator("td.score").inner_text().replace("\u2212", "-")
        page_scores[seat] = int(text)
    token_text = final.locator(".final-token").inner_text()
    candidate_text = final.locator(".final-candidate").inner_text()
    found = re.search(r"\(seat (\d)\), decided by (score|garnets|draw)\. ", candidate_text)
    assert found is not None, candidate_text
    expect(public.locator("ul.defaulted")).to_contain_text(f"Round 3: keep: {NAMES[4]} (seat 4)")
    expect(public.locator("[data-hand-card]")).to_have_count(4 * 8)  # every hand, at the end
    expect(public.locator("table.steps")).to_have_count(0)  # who did what: not public

    answer = contexts["host"].request.get(
        f"{server.url}/api/matches/{match_id}/export",
        headers={"Authorization": f"Bearer {host_token}"},
    )
    assert answer.ok, answer.text()
    exported: dict[str, Any] = answer.json()
    assert exported["settings"]["merge"] is True
    assert exported["settings"]["tiebreak"] == TIEBREAK
    assert exported["settings"]["names"] == {"grey": "Steelton"}
    resolved = resolve(exported)
    assert resolved["scores"] == page_scores
    ec = resolved["elimination_candidate"]
    assert (int(found.group(1)), found.group(2)) == (ec["seat"], ec["decided_by"])
    token = resolved["token_of_life"]
    if token is None:
        assert token_text.startswith("Token of Life: nobody"), token_text
    else:
        assert f"Token of Life: {NAMES[token]}, with the single highest score" in token_text
    ranking = public.locator(".final-ranking").inner_text()
    named = {"grey": "Steelton", "blue": "Bluecrest Harbour", "yellow": "Yellow"}
    named |= {"green": "Green Acres", "red": "Red"}
    assert [named[d] for d in resolved["ranking"]] == re.findall(r"\d\. ([A-Za-z ]+) \(", ranking)
    assert {"round": 5, "seat": 4} in resolved["defaulted"]

    # 4. screenshots: the public result at desktop and phone widths, a player's end ----
    shot(public, artifacts, "public-desktop")
    public.set_viewport_size(PHONE)
    shot(public, artifacts, "public-phone")
    players[PHONE_SEAT].goto(links[PHONE_SEAT])
    expect(
        players[PHONE_SEAT].get_by_role("region", name="Your order", exact=True)
    ).to_contain_text("The match has finished")
    shot(players[PHONE_SEAT], artifacts, "player-end-phone")
