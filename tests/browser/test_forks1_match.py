"""A whole Forks (1st edition) match in a real browser, played in one sitting
as issue 24 asks: a host and three players, each in a browser context of their
own (seat 3 on a 375x812 phone with touch), who only open the links the
service gives them, each ONCE.

The host creates a 3-player match with the swap variant from the create form
(a tiebreak chosen with its selects) with 10-minute steps, "close a round as
soon as all have sent" and "open each round by itself": the match runs itself
through its 24 steps (12 turns of a draw and an invest step) with no host
action. Every page (the three seats', the host's and the public one) keeps
static/live.js (LIVE_PAGES): the test never reloads nor navigates a page after
opening it (a player's sending an order is the player's own navigation). In
each step every page follows the match by itself (its rendered pulse becomes
the server's), the acting seat reads "Your turn" in its title and banner, and
only it has an order form: it picks by clicking (desktop), tapping (the
phone) or with the keyboard (seat 2's invest steps); in turn 2 the drawing
seat swaps (gives a drawn card, takes an invested one and keeps the taken
card) in one order.

At every step, on every page, none of the cards another seat holds privately
(K11: its hand, the cards it drew, the cards passed to it; computed by the
engine from the match's seed, read from the database as only a test may) is
in the page's text, nor the discarded card; the host never sees an open draw
step's cards. At the end the host's match file (its dashboard's download
link) re-resolves with the engine to exactly the published public result;
screenshots are kept in test-artifacts/.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, BrowserContext, Locator, Page, expect

from referee.rulesets.forks.cards import card_name
from referee.rulesets.forks.match import (
    Table,
    acting_seat,
    check_next,
    close_next,
    resolve,
    start,
)
from referee.rulesets.forks.orders import DrawOrder

from .conftest import (
    PHONE,
    Server,
    create_from_form,
    finished_match_file,
    no_sideways_scroll,
    people,
    public_json,
)

LIVE_PAGES = True  # every page keeps static/live.js (conftest.browser)

TIMEOUT = 10_000
LIVE_WAIT = 8_000  # live.js polls every 2 s; then the page loads again
PLAYERS = [("Ann", 4), ("Ben", 2), ("Cat", 2)]
NAMES = {seat: name for seat, (name, _) in enumerate(PLAYERS, start=1)}
SEATS = len(PLAYERS)
STEPS = 24
PHONE_SEAT = 3
KEYBOARD_SEAT = 2  # picks with the keyboard in each of its invest steps
SWAP_STEP = 3  # turn 2's draw step: seat 2 swaps
TIEBREAK = ["oxime", "needle", "dtv", "apidae", "wildrock"]
STEP_MINUTES = 10

# a page's text as the reader could find it: every text node, hidden ones too
# (a card in a hidden element is still sent to the browser), but not scripts
# or styles; the host's page also leaves out its selects, which list all 40
# cards to enter a draw order from (docs/forks.md)
PAGE_TEXT = """skipSelects => {
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  const skip = skipSelects ? "script, style, select" : "script, style";
  const out = [];
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    if (!n.parentElement || !n.parentElement.closest(skip)) out.push(n.nodeValue);
  }
  return out.join("\\n");
}"""


@pytest.fixture
def contexts(browser: Browser) -> Iterator[dict[str, BrowserContext]]:
    with people(browser, 3, phone_seat=PHONE_SEAT, timeout=TIMEOUT) as made:
        yield made


def notice(page: Page) -> Locator:
    return page.locator(".notices")


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


def shows(text: str, card: str) -> bool:
    """Whether ``card`` is in a page's ``text`` by its id or its name."""
    twin = "" if card.endswith("x") else r"(?! \(twin\))"
    by_id = rf"(?<![\w-]){re.escape(card)}(?![\w-])"
    by_name = rf"\b{re.escape(card_name(card))}(?!\d){twin}"
    return re.search(f"{by_id}|{by_name}", text) is not None


# ---- what each viewer may not see, from the engine (K11) -------------------------


def ever_public(table: Table) -> set[str]:
    """Every card that has been on the investment board, so is public for
    good: the initial investment, each card invested or revealed, each swap's
    given and taken card (of closed draw steps)."""
    out = set(table.initial)
    for t in table.turns:
        out |= {c for c in (t.invested, t.revealed) if c is not None}
        if t.swap:
            out |= set(t.swap.values())
    return out


def seen_by(table: Table) -> dict[int, set[str]]:
    """The cards each seat has held: those it drew (the open draw step's
    too) or took in a swap, and those passed to it; its hand is among them."""
    seen: dict[int, set[str]] = {s: set() for s in table.seat_numbers()}
    for t in table.turns:
        seen[t.current] |= set(t.drawn) | ({t.swap["take"]} if t.swap else set())
        if t.passed is not None:
            seen[t.receiver] |= set(t.passed)
    for seat, hand in table.hands.items():
        assert set(hand) <= seen[seat], (seat, hand)
    return seen


def forbidden(table: Table) -> dict[str, set[str]]:
    """For each page ("1".."3", "host", "public"), the cards it must not show
    now: another seat's private cards (not those this seat has seen itself)
    and the discarded card; the host sees every closed step, so only an open
    draw step's cards and, before the end, the discarded card. At the end
    every hand is public."""
    public = ever_public(table)
    if table.finished:
        public |= {c for hand in table.hands.values() for c in hand}
    seen = seen_by(table)
    secret = set(table.discarded)
    out = {"public": (set().union(*seen.values()) | secret) - public}
    for seat in table.seat_numbers():
        others = set().union(*(cards for s, cards in seen.items() if s != seat))
        out[str(seat)] = (others | secret) - public - seen[seat]
    host = set() if table.finished else set(secret)
    if not table.finished and table.next_kind == "draw":
        host |= set(table.turn.drawn)
    out["host"] = host - public
    return out


def assert_nothing_private(page: Page, who: str, cards: set[str], step: int) -> None:
    text: str = page.evaluate(PAGE_TEXT, who == "host")
    leaked = sorted(c for c in cards if shows(text, c))
    assert not leaked, f"step {step}: the {who} page shows {leaked}"


def test_forks_swap_match_in_one_sitting_that_runs_itself(
    server: Server, contexts: dict[str, BrowserContext], artifacts: Path
) -> None:
    host = contexts["host"].new_page()

    def swap_and_tiebreak(page: Page) -> None:
        tiebreak = page.get_by_role("group", name="Tiebreak order of the companies")
        expect(tiebreak).to_be_visible()
        page.get_by_label("Swap variant").check()
        selects = tiebreak.get_by_role("combobox")
        expect(selects).to_have_count(5)
        for place, firm in enumerate(TIEBREAK):
            selects.nth(place).select_option(firm)
        assert [selects.nth(i).input_value() for i in range(5)] == TIEBREAK

    made = create_from_form(
        host,
        server,
        game="forks",
        name="Browser <Forks> Cup",
        players=PLAYERS,
        step_minutes=STEP_MINUTES,
        fill_game=swap_and_tiebreak,
    )
    host_url, links, public_url = made.host_url, made.links, made.public_url
    match_id, match = made.match_id, made.match
    table = start(match.seed, SEATS, swap=True)

    # each opens their page once; from here on only live.js loads them again
    host.goto(host_url)
    players = {s: contexts[str(s)].new_page() for s in NAMES}
    for seat, page in players.items():
        page.goto(links[seat])
    public = contexts["public"].new_page()
    public.goto(public_url)
    pages: dict[str, Page] = {str(s): p for s, p in players.items()}
    pages |= {"host": host, "public": public}

    def pulse() -> dict[str, Any]:
        return public_json(server, f"/api/matches/{match_id}/pulse")

    def all_follow(step: int) -> None:
        """Every page shows the match as it is now, loaded again by live.js
        (the pulse a page was rendered with is the server's), and shows
        nothing private of anyone else."""
        now = pulse()
        hidden = forbidden(table)
        for who, page in pages.items():
            expect(page.locator("#live")).to_have_attribute(
                "data-pulse", now["pulse"], timeout=LIVE_WAIT
            )
            assert_nothing_private(page, who, hidden[who], step)

    for step in range(1, STEPS + 1):
        turn = (step + 1) // 2
        draw = step % 2 == 1
        title = f"Turn {turn}: {'draw' if draw else 'invest'}"
        seat = acting_seat(step, SEATS)
        assert table.acting == seat
        now = pulse()
        assert now["step"]["title"] == title and now["step"]["status"] == "open", now
        assert now["waiting"] == [seat], now
        page = players[seat]  # its turn arrives by itself, in its title and a banner
        expect(page).to_have_title(re.compile(r"^Your turn · "), timeout=LIVE_WAIT)
        expect(page.locator(".your-turn")).to_contain_text(
            f"Your turn: send your order for {title}", timeout=LIVE_WAIT
        )
        all_follow(step)
        for other, other_page in players.items():
            expect(other_page.locator("#turn-now")).to_contain_text(f"Turn {turn}:")
            if other != seat:
                assert not other_page.title().startswith("Your turn")
                expect(other_page.locator('input[name="card"]')).to_have_count(0)
                expect(other_page.locator(".whose-turn")).to_contain_text(
                    f"Waiting for orders from {NAMES[seat]}."
                )
        expect(host.locator(".whose-turn")).to_contain_text(
            f"Waiting for orders from {NAMES[seat]}."
        )
        cards = [c for c in values(page, "card") if c != "taken"]
        assert sorted(cards) == sorted(table.options()), (step, cards)
        said: str
        if step == SWAP_STEP:
            takes = [c for c in values(page, "take") if c]
            assert sorted(takes) == sorted(table.investment)
            give, take = cards[0], takes[-1]
            pick(page, seat, "give", give)
            pick(page, seat, "take", take)
            pick(page, seat, "card", "taken")
            order: DrawOrder | str = DrawOrder(take, give, take)
            said = f"keep {card_name(take)}, after giving {card_name(give)} for {card_name(take)}"
        elif seat == KEYBOARD_SEAT and not draw:
            card = cards[-1]
            page.locator('input[name="card"]').first.focus()
            page.keyboard.press("Space")
            for _ in range(len(cards) - 1):
                page.keyboard.press("ArrowDown")
            expect(page.locator(f"#card-{card}")).to_be_checked()
            order = card
            said = f"invest {card_name(card)}"
        else:
            card = cards[step % len(cards)]
            pick(page, seat, "card", card)
            order = DrawOrder(card) if draw else card
            said = f"{'keep' if draw else 'invest'} {card_name(card)}"
        if seat == PHONE_SEAT and step in (4, 5):  # an invest and a draw step
            shot(page, artifacts, f"player-step{step}-phone")
        page.get_by_role("button", name="Send my order").click()
        # the step closes at once (close early) and the next opens (by itself)
        expect(notice(page)).to_contain_text("was accepted. Receipt: ")
        expect(notice(page)).to_contain_text(
            f"{title} has closed: yours was the last order it was waiting for."
        )
        expect(page.locator(".my-orders")).to_contain_text(f"{title}: {said}")
        close_next(table, check_next(table, order))
    assert table.finished

    all_follow(STEPS + 1)
    # the host's match file, from its dashboard's link, re-resolves to the
    # public result exactly (and to the engine's, played along)
    exported, published = finished_match_file(host, server, made)
    assert exported["settings"]["swap"] is True
    assert exported["settings"]["tiebreak"] == TIEBREAK
    sent = [order for entry in exported["orders"] for order in entry.values()]
    assert len(sent) == STEPS  # nobody defaulted
    assert sum("swap" in o for o in sent if isinstance(o, dict)) == 1  # turn 2's, in one order
    resolved = resolve(exported)
    public_turn_keys = ("turn", "current", "receiver", "swap", "invested", "revealed")
    assert published["turns"] == [{k: t[k] for k in public_turn_keys} for t in resolved["turns"]]
    assert "discarded" not in published  # unseen until a full reveal (K11)
    assert published["discarded_count"] == len(resolved["discarded"])
    for key, value in resolved.items():
        if key not in ("turns", "discarded"):
            assert published[key] == value, key
    assert resolved["hands"] == {str(s): h for s, h in table.hands.items()}

    # the public page, never reloaded by the test, shows that result
    rows = public.locator("tr[data-score-seat]")
    expect(rows).to_have_count(SEATS)
    page_scores: dict[str, int] = {}
    for i in range(SEATS):
        seat_text = rows.nth(i).get_attribute("data-score-seat") or ""
        text = rows.nth(i).locator("td.score").inner_text().replace("\u2212", "-")
        page_scores[seat_text] = int(text)
    assert resolved["scores"] == page_scores
    expect(public.locator("svg.forks-board")).to_have_count(1)
    expect(public.locator("svg.forks-scores")).to_have_count(1)
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
    shot(public, artifacts, "public-desktop")
    shot(players[PHONE_SEAT], artifacts, "player-end-phone")
    public.set_viewport_size(PHONE)
    shot(public, artifacts, "public-phone")
