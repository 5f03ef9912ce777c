"""A whole match played in a real browser: a host and three players, each in
a browser context of their own (their own cookies), who only ever open the
links the service gives them.

The host creates the match from the home page and reads the four private
links off the page. Then the draft (one player reorders the list with the
JavaScript enhancement: dragging a card's grip and the Up/Down buttons; one pastes a
text ranking with an alias, after a refused attempt; one replaces an accepted
order), mapping (one branch per card, only legal branches offered) and three
rafting rounds (one player left without an order in one of them). At the end
the public page's result is checked against the engine's resolution of the
exported match file, and screenshots are taken at desktop and phone widths.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, BrowserContext, Locator, Page, expect

from referee.rulesets.rocky_river import resolve_document
from referee.rulesets.rocky_river.data import load_bundled_map, load_deck

from .conftest import Server

TIMEOUT = 10_000  # ms, for every expect() on a page that changes
DESKTOP = {"width": 1280, "height": 900}
PHONE = {"width": 390, "height": 844}

DECK = load_deck()
CARDS = list(DECK.ids)  # canonical order: A..Z then AS
RIVER = load_bundled_map("three-rapids")
PLAYERS = [("Ann", 5), ("Ben", 3), ("Cat", 1)]
NAMES = {seat: name for seat, (name, _) in enumerate(PLAYERS, start=1)}
# directions per rafting round and seat; seat 3 sends nothing in rafting round 2
VOTES: dict[int, dict[int, str]] = {
    1: {1: "LLR", 2: "LRR", 3: "RLR"},
    2: {1: "RLL", 2: "RRL"},
    3: {1: "LRR", 2: "RRL", 3: "LRL"},
}


def legal_branches(card: str) -> set[str]:
    """The branches whose slot colour ``card`` has a face of (R7)."""
    return {
        b.id for b in RIVER.branches.values() if DECK.by_id[card].value_for(b.color) is not None
    }


@pytest.fixture
def contexts(browser: Browser) -> Iterator[dict[str, BrowserContext]]:
    """One browser context (own cookies, own session) per person."""
    made = {
        who: browser.new_context(viewport=DESKTOP, accept_downloads=True)
        for who in ("host", "1", "2", "3", "public")
    }
    for context in made.values():
        context.set_default_timeout(TIMEOUT)
    yield made
    for context in made.values():
        context.close()


# ---- what people do on the pages -------------------------------------------------


def notice(page: Page) -> Locator:
    """The flashed message shown after an accepted action."""
    return page.locator(".notices")


def host_open(host: Page, title: str) -> None:
    host.get_by_role("button", name=f"Open {title}").click()
    expect(notice(host)).to_contain_text(f"{title} is open for orders.", timeout=TIMEOUT)
    expect(host.locator("#current-h + p")).to_contain_text(f"{title} is open for orders")


def host_close(host: Page, title: str) -> None:
    """Close the open round: "I am sure" first (a click without it does nothing)."""
    button = host.get_by_role("button", name=f"Close and resolve {title} now")
    button.click()  # the box is required: the browser keeps the form
    expect(host.locator("#close-sure:invalid")).to_have_count(1)
    expect(host.get_by_role("region", name="Current round")).to_contain_text(
        f"{title} is open for orders"
    )
    host.get_by_label(f"I am sure: close {title} now").check()
    button.click()
    expect(notice(host)).to_contain_text(f"{title} is closed and resolved", timeout=TIMEOUT)


def send_order(page: Page, button: str = "Send my order") -> str:
    """Submit the order form; return the receipt the page then shows."""
    page.get_by_role("button", name=button).click()
    expect(notice(page)).to_contain_text("was accepted", timeout=TIMEOUT)
    receipt = page.locator(".receipt-box code.receipt")
    expect(receipt).to_have_text(re.compile(r"^[0-9a-f]{64}$"))
    return receipt.inner_text()


def shown_order(page: Page) -> str:
    """The order as the player's receipt box repeats it."""
    text = page.locator(".receipt-box p", has_text="Your order:").inner_text()
    return text.removeprefix("Your order:").strip()


def ranking_on(page: Page) -> list[str]:
    """The ranking list as the form would send it (the hidden inputs, in DOM order)."""
    values: list[str] = page.locator('ol.ranking input[name="ranking"]').evaluate_all(
        "els => els.map(e => e.value)"
    )
    return values


def hand_on(page: Page, seat: int) -> list[str]:
    cards: list[str] = page.locator(f'ul[data-hand-seat="{seat}"] li[data-hand-card]').evaluate_all(
        "els => els.map(e => e.dataset.handCard)"
    )
    return cards


def screenshot(page: Page, folder: Path, name: str) -> list[Path]:
    """Full-page screenshots at desktop and phone widths."""
    out = []
    for size, viewport in (("desktop", DESKTOP), ("phone", PHONE)):
        page.set_viewport_size(viewport)
        # nothing may make the page wider than the screen (wide tables scroll in their box)
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= viewport["width"], f"{name} page is {width}px wide at {size} size"
        path = folder / f"full-match-{name}-{size}.png"
        path.unlink(missing_ok=True)
        page.screenshot(path=str(path), full_page=True)
        out.append(path)
    page.set_viewport_size(DESKTOP)
    return out


def signed_int(text: str) -> int:
    return int(text.strip())


# ---- the match -------------------------------------------------------------------


def test_full_match_host_and_three_players(
    server: Server, contexts: dict[str, BrowserContext], artifacts: Path
) -> None:
    host = contexts["host"].new_page()

    # 1. the host creates the match from the home page --------------------------------
    host.goto(server.url + "/")
    host.get_by_role("main").get_by_role("link", name="Create a match").click()
    expect(host.get_by_role("heading", name="Create a match", level=1)).to_be_visible()
    host.get_by_label("Match name").fill("Browser River Cup")
    host.get_by_label("Bundled map").select_option("three-rapids")
    for seat, (name, garnets) in enumerate(PLAYERS, start=1):
        group = host.get_by_role("group", name=f"Seat {seat}", exact=True)
        group.get_by_label("Name").fill(name)
        group.get_by_label("Garnets").fill(str(garnets))
    host.get_by_label("Deadline of each round").fill("24")
    host.get_by_label("Publish every slot total once mapping has closed").check()
    host.get_by_label("Close a round as soon as all three players").uncheck()
    host.get_by_label("Open each round by itself").uncheck()  # this host opens each by hand
    # Enter in a field creates the match (not "Check the map only", which comes first)
    host.get_by_label("Match name").press("Enter")

    expect(host.get_by_role("heading", level=1)).to_have_text("“Browser River Cup” is ready")
    ready_url = host.url
    assert re.fullmatch(re.escape(server.url) + r"/new/[0-9a-f]+", ready_url), ready_url
    shown = host.locator("a.secret-link").evaluate_all("links => links.map(a => a.href)")
    host.reload()  # the page after the POST: a reload shows the same links, creates nothing
    expect(host.get_by_role("heading", level=1)).to_have_text("“Browser River Cup” is ready")
    assert host.locator("a.secret-link").evaluate_all("links => links.map(a => a.href)") == shown
    stranger = contexts["public"].new_page()  # another browser sees none of them
    answer = stranger.goto(ready_url)
    assert answer is not None and answer.status == 404
    expect(stranger.locator("a.secret-link")).to_have_count(0)
    stranger.close()
    host_url = host.locator("#host-link").get_attribute("href") or ""
    seat_section = host.get_by_role("region", name="One private link per player")
    seat_links = seat_section.get_by_role("link")
    expect(seat_links).to_have_count(3)
    links = {seat: seat_links.nth(seat - 1).get_attribute("href") or "" for seat in (1, 2, 3)}
    for seat in (1, 2, 3):
        expect(seat_section.get_by_role("listitem").nth(seat - 1)).to_contain_text(
            f"Seat {seat}: {NAMES[seat]}"
        )
    public_url = (
        host.get_by_role("region", name="The public page").get_by_role("link").get_attribute("href")
        or ""
    )
    for url in (host_url, public_url, *links.values()):
        assert url.startswith(server.url + "/"), url  # absolute links to this server
    assert re.fullmatch(re.escape(server.url) + r"/host/[^/]+", host_url)
    assert all(re.fullmatch(re.escape(server.url) + r"/play/[^/]+", u) for u in links.values())
    assert len(set(links.values())) == 3
    match_id = public_url.rsplit("/", 1)[1]
    host_token = host_url.rsplit("/", 1)[1]
    digest = host.locator("#public-link-h ~ p code").inner_text()
    assert re.fullmatch(r"[0-9a-f]{64}", digest)

    # 2. the draft --------------------------------------------------------------------
    host.goto(host_url)
    expect(host.get_by_role("heading", level=1)).to_have_text("Browser River Cup")
    expect(host.get_by_role("region", name="Current round")).to_contain_text(
        "No round has opened yet"
    )
    host_open(host, "Draft")

    players = {seat: contexts[str(seat)].new_page() for seat in (1, 2, 3)}
    for seat, page in players.items():
        page.goto(links[seat])
        expect(page.get_by_role("heading", level=1)).to_have_text("Browser River Cup")
        expect(page.get_by_role("main")).to_contain_text(f"the page of {NAMES[seat]} (seat {seat})")
        expect(page.get_by_role("region", name="Your order", exact=True)).to_contain_text(
            "You have not sent an order for Draft yet"
        )

    # Ann (seat 1) reorders the list: drag and drop, then the Up/Down buttons
    ann = players[1]
    ranking = ann.get_by_role("list", name="Your ranking, most wanted first")
    expect(ranking.get_by_role("listitem")).to_have_count(27)
    expect(ann.get_by_role("button", name="Move T up")).to_be_visible()  # the script ran
    assert ranking_on(ann) == CARDS
    # drag T by its grip onto J (both on screen, as a person would): T takes J's place;
    # J is kept away from the screen's edge, where dragging scrolls the page
    ranking.locator('li[data-card="J"]').evaluate("li => li.scrollIntoView({block: 'start'})")
    ann.evaluate("window.scrollBy(0, -150)")
    grip = ranking.locator('li[data-card="T"] .drag-handle').bounding_box()
    onto = ranking.locator('li[data-card="J"]').bounding_box()
    assert grip is not None and onto is not None
    x, y = grip["x"] + grip["width"] / 2, grip["y"] + grip["height"] / 2
    ann.mouse.move(x, y)
    ann.mouse.down()
    for i in range(1, 16):
        ann.mouse.move(x, y + (onto["y"] + onto["height"] / 2 - 4 - y) * i / 15)
        ann.wait_for_timeout(16)  # a person's moves are spread in time
    # and a person rests on the target before letting go (the list's animation ends)
    ann.wait_for_timeout(250)
    ann.mouse.move(x, onto["y"] + onto["height"] / 2 - 3)
    ann.wait_for_timeout(50)
    ann.mouse.up()
    expected = list(CARDS)
    expected.remove("T")
    expected.insert(expected.index("J"), "T")
    expect(ranking.get_by_role("listitem").nth(9)).to_have_attribute("data-card", "T")
    assert ranking_on(ann) == expected
    for card, button, times in (("J", "up", 3), ("A", "down", 2), ("AS", "up", 1)):
        for _ in range(times):
            ann.get_by_role("button", name=f"Move {card} {button}").click()
            i = expected.index(card)
            j = i - 1 if button == "up" else i + 1
            expected[i], expected[j] = expected[j], expected[i]
        expect(ann.locator(".ranking-status")).to_have_text(
            f"{card} is now number {expected.index(card) + 1} of 27."
        )
    ann_order = ranking_on(ann)
    assert ann_order == expected and ann_order != CARDS
    expect(ann.get_by_label("Or type your ranking")).to_have_value("")  # the list is sent
    ann_receipt = send_order(ann)
    assert shown_order(ann) == ", ".join(ann_order)
    expect(ann.get_by_role("button", name="Replace my order")).to_be_visible()

    # Ben (seat 2) pastes a text ranking: first refused, then fixed
    ben = players[2]
    typed = "J, T, Joker, j, " + ", ".join(c for c in CARDS if c not in {"J", "T", "Q", "R"})
    text_box = ben.get_by_label("Or type your ranking")
    text_box.fill(typed)
    ben.get_by_role("button", name="Send my order").click()
    summary = ben.get_by_role("alert").filter(has_text="Your order was not accepted")
    expect(summary).to_be_visible(timeout=TIMEOUT)
    expect(summary).to_contain_text("3 problems")
    problems = [
        "place 3 of the ranking is “Joker”, which is not a card: the cards are A to Z and AS",
        "card J is listed twice in the ranking, at places 1 and 4 (written “j” there)",
        "missing: Q, R",
    ]
    text_box = ben.get_by_label("Or type your ranking")
    next_to_field = ben.locator("#ranking_text-errors")
    for problem in problems:
        expect(summary).to_contain_text(problem)
        expect(next_to_field).to_contain_text(problem)
    expect(text_box).to_have_attribute("aria-invalid", "true")
    expect(text_box).to_have_attribute("aria-describedby", "ranking_text-errors")
    expect(text_box).to_have_value(typed)  # what was typed is kept
    expect(ben.get_by_role("region", name="Your order", exact=True)).to_contain_text(
        "You have not sent an order for Draft yet"
    )
    fixed = "J, T, S, Ace of Spades,\n" + "\n".join(
        c.lower() for c in CARDS if c not in {"J", "T", "S", "AS"}
    )
    text_box.fill(fixed)
    ben_receipt = send_order(ben)
    ben_order = ["J", "T", "S", "AS", *[c for c in CARDS if c not in {"J", "T", "S", "AS"}]]
    assert shown_order(ben) == ", ".join(ben_order)  # canonical ids, alias read as AS
    expect(ben.get_by_role("alert")).to_have_count(0)

    # Cat (seat 3) sends the list as shown, then replaces it with a pasted one
    cat = players[3]
    first_receipt = send_order(cat)
    assert shown_order(cat) == ", ".join(CARDS)
    cat_order = list(reversed(CARDS))
    cat.get_by_label("Or type your ranking").fill(
        "Ace, " + ", ".join(c for c in cat_order if c != "AS")
    )
    cat_receipt = send_order(cat, "Replace my order")
    assert cat_receipt != first_receipt
    assert shown_order(cat) == ", ".join(cat_order)
    expect(cat.locator(".my-orders")).to_contain_text(cat_receipt)
    assert first_receipt not in cat.content()
    assert len({ann_receipt, ben_receipt, cat_receipt}) == 3

    # 3. the host sees who has submitted, never what; then closes the draft ------------
    host.goto(host_url)
    submitted = host.locator("ul.submitted > li")
    expect(submitted).to_have_count(3)
    for seat in (1, 2, 3):
        expect(submitted.nth(seat - 1)).to_contain_text(f"{NAMES[seat]} (seat {seat}):")
        expect(submitted.nth(seat - 1)).to_contain_text("order received")
    expect(host.get_by_role("main")).to_contain_text("Received from 3 of 3 players")
    # the fact and time of each order, nothing that changes with its content
    expect(host.locator("ul.submitted time")).to_have_count(3)
    sealed = host.content()
    assert cat_receipt not in sealed
    for order in (ann_order, ben_order, cat_order):
        assert ", ".join(order) not in sealed
        assert ", ".join(order[:5]) not in sealed
    assert "Ace of Spades," not in sealed and first_receipt not in sealed
    host_close(host, "Draft")

    hands = {seat: hand_on(host, seat) for seat in (1, 2, 3)}
    for seat in (1, 2, 3):
        assert len(hands[seat]) == 9, hands
    assert sorted(hands[1] + hands[2] + hands[3]) == sorted(CARDS)
    for seat, page in players.items():
        page.goto(links[seat])
        expect(page.locator(f'ul[data-hand-seat="{seat}"] li')).to_have_count(9)
        assert hand_on(page, seat) == hands[seat]
        expect(page.get_by_role("heading", name="Your hand")).to_be_visible()
        for other in {1, 2, 3} - {seat}:
            expect(page.locator(f'ul[data-hand-seat="{other}"]')).to_have_count(0)
            for card in hands[other]:
                expect(page.locator(f'[data-hand-card="{card}"]')).to_have_count(0)
        expect(page.get_by_role("region", name="Your order", exact=True)).to_contain_text(
            "No round is open"
        )

    # 4. mapping: one branch per card, only legal branches offered ---------------------
    host_open(host, "Mapping")
    placements: dict[int, dict[str, str]] = {}
    checked_illegal = False
    for seat, page in players.items():
        page.goto(links[seat])
        expect(
            page.get_by_role("group", name=re.compile("^Place each of your 9 cards"))
        ).to_be_visible()
        expect(page.locator("form.order select")).to_have_count(9)
        chosen: dict[str, str] = {}
        for i, card in enumerate(hands[seat]):
            select = page.locator(f'select[name="place_{card}"]')
            expect(page.get_by_label(f"Card {card} (")).to_be_visible()
            offered: list[str] = select.locator("option").evaluate_all(
                "els => els.map(e => e.value).filter(v => v)"
            )
            legal = legal_branches(card)
            assert set(offered) == legal, (card, offered)
            if not checked_illegal:
                illegal = sorted(set(RIVER.branches) - legal)
                assert illegal, card  # every card lacks one of the three colours
                assert illegal[0] not in offered
                expect(select.locator(f'option[value="{illegal[0]}"]')).to_have_count(0)
                checked_illegal = True
            chosen[card] = offered[(3 * i + seat) % len(offered)]
            select.select_option(chosen[card])
        for other in {1, 2, 3} - {seat}:
            for card in hands[other]:
                expect(page.locator(f'select[name="place_{card}"]')).to_have_count(0)
        send_order(page)
        placements[seat] = chosen
    host.goto(host_url)
    expect(host.locator("ul.submitted > li", has_text="order received")).to_have_count(3)
    sealed = host.content()
    for chosen in placements.values():  # the placements as the orders table would show them
        card, branch = sorted(chosen.items())[0]
        assert f"{card} → {branch}" not in sealed
    host_close(host, "Mapping")
    expect(host.locator("table.orders")).to_contain_text(
        ", ".join(f"{c} → {b}" for c, b in sorted(placements[1].items()))
    )
    for seat, page in players.items():
        page.goto(links[seat])
        rows = page.locator(f'table[data-placements-seat="{seat}"] tr[data-placement]')
        expect(rows).to_have_count(9)
        shown: list[str] = rows.evaluate_all("els => els.map(e => e.dataset.placement)")
        assert sorted(shown) == sorted(f"{c}:{b}" for c, b in placements[seat].items())
        for other in {1, 2, 3} - {seat}:
            expect(page.locator(f'table[data-placements-seat="{other}"]')).to_have_count(0)

    # 5. three rafting rounds; seat 3 sends nothing in the second ----------------------
    for rnd in (1, 2, 3):
        title = f"Rafting {rnd}"
        host_open(host, title)
        for seat, directions in VOTES[rnd].items():
            page = players[seat]
            page.goto(links[seat])
            for k, direction in enumerate(directions):
                fork = page.get_by_role(
                    "group", name=re.compile(rf"^Fork {k + 1} of segment {rnd}")
                )
                fork.get_by_role("radio", name="Left" if direction == "L" else "Right").check()
            send_order(page)
            # the receipt says it as the form does: left or right, not L or R
            assert shown_order(page) == ", ".join(
                {"L": "left", "R": "right"}[d] for d in directions
            )
        host.goto(host_url)
        expect(host.locator("ul.submitted > li", has_text="order received")).to_have_count(
            len(VOTES[rnd])
        )
        host_close(host, title)
        expect(host.locator("table.path tr[data-step]")).to_have_count(3 * rnd)
        if rnd == 2:
            defaulted = host.locator("ul.defaulted")
            expect(defaulted).to_contain_text("rafting round 2: Cat (seat 3)")
            expect(defaulted.get_by_role("listitem")).to_have_count(1)
    expect(host.get_by_role("region", name="Current round")).to_contain_text(
        "The match has finished"
    )

    # 6. the public page's result, checked against the engine on the export -----------
    public = contexts["public"].new_page()  # anyone, with no link of their own
    public.goto(public_url)
    expect(public.get_by_role("main")).to_contain_text("finished")
    final = public.get_by_role("region", name="Final result")
    expect(final).to_be_visible()
    score_rows = public.locator("table.scores tbody tr")
    expect(score_rows).to_have_count(3)
    page_scores: dict[str, int] = {}
    page_control: dict[str, int] = {}
    for i in range(3):
        cells = score_rows.nth(i).locator("td")
        who = re.fullmatch(r"(\w+) \(seat (\d)\)", cells.nth(0).inner_text().strip())
        assert who is not None and NAMES[int(who.group(2))] == who.group(1)
        page_scores[who.group(2)] = signed_int(cells.nth(1).inner_text())
        page_control[who.group(2)] = int(cells.nth(2).inner_text())
    token_text = final.locator("p", has_text="Token of Life:").inner_text()
    token = re.search(r"\(seat (\d)\)", token_text)
    if token is None:
        assert "nobody" in token_text
    candidate_text = final.locator("p", has_text="Elimination Candidate:").inner_text()
    candidate = re.search(
        r"\(seat (\d)\),\s+decided by (score|control|garnets|draw)", candidate_text
    )
    assert candidate is not None, candidate_text
    seed = public.locator("p", has_text="Seed (check it against the digest)").locator("code")
    seed_text = seed.inner_text()
    assert hashlib.sha256(seed_text.encode()).hexdigest() == digest
    expect(public.locator("ul.defaulted")).to_contain_text("rafting round 2: Cat (seat 3)")
    # the public page never shows hands or placements (no full reveal)
    expect(public.locator("[data-hand-card], [data-placement]")).to_have_count(0)

    api = contexts["host"].request.get(
        f"{server.url}/api/matches/{match_id}/export",
        headers={"Authorization": f"Bearer {host_token}"},
    )
    assert api.ok, api.text()
    exported: dict[str, Any] = api.json()
    host.goto(host_url)
    with host.expect_download() as download:
        host.get_by_role("link", name="Download the match file (JSON)").click()
    assert download.value.suggested_filename == f"{match_id}.match.json"
    downloaded = json.loads(Path(download.value.path()).read_text(encoding="utf-8"))
    assert downloaded == exported
    assert exported["seed"] == seed_text

    resolved = resolve_document(exported)
    assert resolved["scores"] == page_scores
    assert resolved["control"] == page_control
    assert resolved["token_of_life"] == (int(token.group(1)) if token else None)
    assert resolved["elimination_candidate"] == {
        "seat": int(candidate.group(1)),
        "decided_by": candidate.group(2),
    }
    assert {s: sorted(h) for s, h in resolved["hands"].items()} == {
        str(s): sorted(h) for s, h in hands.items()
    }
    assert {"phase": "rafting", "round": 2, "seat": 3} in resolved["defaulted"]

    # 7. the full reveal: confirmed, then every order with its salt, checkable ---------
    host.goto(host_url)
    host.get_by_label("I am sure: make everything public").check()
    host.get_by_role("button", name="Reveal everything").click()
    expect(notice(host)).to_contain_text("Full reveal", timeout=TIMEOUT)
    public.goto(public_url)
    published = public.locator("li.revealed-order")
    expect(published).to_have_count(3 + 3 + 3 + 2 + 3)  # Cat sent nothing in rafting 2
    for i in range(published.count()):
        item = published.nth(i)
        salt = item.locator("code.salt").inner_text()
        canonical = item.locator("code.canonical").inner_text()
        receipt = item.locator("code.published").inner_text()
        assert hashlib.sha256(f"{salt}:{canonical}".encode()).hexdigest() == receipt
    # on a phone: the result first, and no receipt wider than its box
    public.set_viewport_size(PHONE)
    public.reload()
    results_top = public.locator("#results-h").bounding_box()
    assert results_top is not None and results_top["y"] < 600, results_top
    too_wide = public.locator("code.receipt").evaluate_all(
        "codes => codes.filter(c => c.getBoundingClientRect().right > "
        "document.documentElement.clientWidth + 1).length"
    )
    assert too_wide == 0
    assert public.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    public.set_viewport_size(DESKTOP)

    # 8. screenshots at desktop and phone widths -------------------------------------
    ann.goto(links[1])
    expect(ann.get_by_role("region", name="Your order", exact=True)).to_contain_text(
        "The match has finished"
    )
    shots = [
        *screenshot(ann, artifacts, "player"),
        *screenshot(host, artifacts, "host"),
        *screenshot(public, artifacts, "public"),
    ]
    assert len(shots) == 6
    for path in shots:
        assert path.is_file() and path.stat().st_size > 0, path
