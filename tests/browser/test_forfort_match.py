"""A whole Forfort match in a real browser, played in one sitting as issue 25
asks: a host and three players, each in a browser context of their own (seat
3 on a 375x812 phone with touch, seat 2 by keyboard only), who only open the
links the service gives them, each ONCE.

The host creates a 3-player match with the default card set from the create
form, with 10-minute steps, "close a round as soon as all have sent" and
"open each round by itself": the match runs itself to its end with no host
action. Every page (the three seats', the host's and the public one) keeps
static/live.js (LIVE_PAGES): the test never reloads nor navigates a page after
opening it. In each step every page follows the match by itself (its rendered
pulse becomes the server's), the acting seat reads "Your turn" in its title,
and only it has the turn composer (static/rulesets/forfort/turn.js). It
composes its whole turn from the choices offered (its first camp, an action:
a build where it can, else a camp or the forced discard; once a pair the build
makes, with its choices), by clicking (desktop), tapping (the phone) or with
the keyboard alone (seat 2: each choice made with Space and the arrow keys
from its group's first radio, the order sent with Enter), reads the summary
of what the turn will do, and sends it.

Privacy (FO21), at every step and on every page: a seat's page lists its own
hand and no other; the public page no hand; the host's hands only of closed
steps; and no page names a card id that is, for that viewer, only in another
seat's hand or in a dungeon (card ids repeat from seat to seat, FO5, so an id
public in some fort or pile is not a leak). The hands and dungeons are played
along by the engine from the match's secret seed (read from the database as
only a test may). At the end the host's match file (its dashboard's download
link) re-resolves with the engine to exactly the published public result;
screenshots are kept in test-artifacts/.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect

from referee.rulesets.forfort.match import resolve

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
PHONE_SEAT = 3
KEYBOARD_SEAT = 2
STEP_MINUTES = 10
MAX_STEPS = 120  # FO18 ends a match long before (a guard against a loop)

# the page as sent to the browser, scripts' JSON included, but the card set's
# list (public from the start: every id of the set, FO21)
PAGE_HTML = """() => {
  const body = document.body.cloneNode(true);
  body.querySelectorAll("#ff-set").forEach(e => e.remove());
  return body.outerHTML;
}"""


@pytest.fixture
def contexts(browser: Browser) -> Iterator[dict[str, BrowserContext]]:
    with people(browser, len(NAMES), phone_seat=PHONE_SEAT, timeout=TIMEOUT) as made:
        yield made


def shot(page: Page, folder: Path, name: str) -> None:
    no_sideways_scroll(page, name)
    path = folder / f"forfort-{name}.png"
    path.unlink(missing_ok=True)
    page.screenshot(path=str(path), full_page=True)


# ---- what each viewer may not see (FO21), from the engine ---------------------------


def public_ids(state: dict[str, Any]) -> set[str]:
    """Every card id shown face up somewhere: each stack of every fort (covered
    cards too), every discard pile, and the cards the closed steps' orders
    name (a dungeon Mason pair's card is shown face up)."""
    out: set[str] = set()
    for fort in state["forts"].values():
        for space in fort["spaces"].values():
            out |= {c for c in space["stack"] if c != "camp"}
    for pile in state["discards"].values():
        out |= set(pile)
    out |= set(
        re.findall(r'"([a-z][a-z0-9-]{0,11})"', json.dumps([s["order"] for s in state["steps"]]))
    )
    return out


def forbidden(state: dict[str, Any]) -> dict[str, set[str]]:
    """For each page, the card ids that are for it only in another seat's
    hand or in a dungeon: the hidden ids less the ids it may see."""
    hands = {int(s): set(h) for s, h in state["hands"].items()}
    dungeons = set().union(*(set(d) for d in state["dungeons"].values()))
    hidden = set().union(*hands.values()) | dungeons
    seen = public_ids(state)
    out = {"public": hidden - seen}
    for seat, hand in hands.items():
        out[str(seat)] = hidden - seen - hand
    # the host sees every closed step's hands (FO21), never a dungeon's order
    out["host"] = dungeons - seen - set().union(*hands.values())
    if state["finished"]:
        for who in out:
            out[who] -= set().union(*hands.values())
    return out


def ids_in(html: str, ids: set[str]) -> list[str]:
    return sorted(c for c in ids if re.search(rf"(?<![\w-]){re.escape(c)}(?![\w-])", html))


# ---- composing a turn ----------------------------------------------------------------


def radio_values(page: Page, name: str) -> list[str]:
    found: list[str] = page.locator(f'input[type=radio][name="ff-{name}"]').evaluate_all(
        "els => els.map(e => e.value)"
    )
    return found


def pick(page: Page, seat: int, name: str, value: str) -> None:
    """Choose ``value`` in the radio group ``ff-<name>``: a tap on the phone, a
    click on a desktop, and on the keyboard seat Space and the arrow keys from
    the group's first radio."""
    radio = page.locator(f'input[type=radio][name="ff-{name}"][value="{value}"]')
    if seat == KEYBOARD_SEAT:
        values = radio_values(page, name)
        first = page.locator(f'input[type=radio][name="ff-{name}"]').first
        first.focus()
        page.keyboard.press("Space")
        for _ in range(values.index(value)):
            page.keyboard.press("ArrowDown")
    else:
        label = page.locator(f'label.pick:has(input[name="ff-{name}"][value="{value}"])')
        if seat == PHONE_SEAT:
            box = label.bounding_box()
            assert box is not None and box["height"] >= 44, box
            label.tap()
        else:
            label.click()
    expect(radio).to_be_checked()


def unchosen_groups(page: Page) -> list[str]:
    """The radio groups of the composer with nothing chosen yet, in page order."""
    names: list[str] = page.locator("#ff-turn input[type=radio]").evaluate_all(
        """els => {
          const out = [];
          for (const e of els) {
            if (out.includes(e.name)) continue;
            const group = document.querySelectorAll(`input[type=radio][name="${e.name}"]`);
            if (![...group].some(r => r.checked)) out.push(e.name);
          }
          return out;
        }"""
    )
    return [n.removeprefix("ff-") for n in names]


def compose(page: Page, seat: int, trigger_pair: bool) -> str:
    """Compose a whole turn; return the action's kind."""
    if radio_values(page, "camp"):
        pick(page, seat, "camp", radio_values(page, "camp")[0])
    kinds = radio_values(page, "kind")
    kind = next(k for k in ("build", "camp", "discard", "effect") if k in kinds)
    pick(page, seat, "kind", kind)
    if kind == "build":
        pick(page, seat, "bcard", radio_values(page, "bcard")[0])
        spaces = radio_values(page, "bspace")
        with_pairs = [
            s
            for s in spaces
            if "pair"
            in page.locator(f'label.pick:has(input[name="ff-bspace"][value="{s}"])').inner_text()
        ]
        pick(page, seat, "bspace", (with_pairs if trigger_pair and with_pairs else spaces)[0])
        if trigger_pair and with_pairs:
            page.locator("#ff-turn .ff-pair input[type=checkbox]").first.check()
    # every choice still open (a pair's, an effect's): its first offer
    for _ in range(20):
        left = [g for g in unchosen_groups(page) if g != "bridge"]
        if not left:
            break
        pick(page, seat, left[0], radio_values(page, left[0])[0])
    summary = page.locator("#ff-summary")
    expect(summary).to_contain_text("Your turn: ")
    expect(summary).not_to_contain_text("Still to choose")
    return kind


def test_forfort_match_in_one_sitting_that_runs_itself(
    server: Server, contexts: dict[str, BrowserContext], artifacts: Path
) -> None:
    host = contexts["host"].new_page()

    def card_set_offered(page: Page) -> None:
        expect(page.get_by_role("group", name="The card set")).to_be_visible()

    made = create_from_form(
        host,
        server,
        game="forfort",
        name="Browser <Forfort> Cup",
        players=PLAYERS,
        step_minutes=STEP_MINUTES,
        fill_game=card_set_offered,
    )
    host_url, links, public_url = made.host_url, made.links, made.public_url
    match_id, match = made.match_id, made.match
    players = [{"seat": s, "name": n, "garnets": g} for s, (n, g) in enumerate(PLAYERS, start=1)]
    sent: list[dict[str, Any]] = []

    def state() -> dict[str, Any]:
        doc = {"ruleset": "forfort", "players": players, "seed": match.seed, "orders": sent}
        return resolve(doc, details=True)

    # each opens their page once; from here on only live.js loads them again
    host.goto(host_url)
    seat_pages = {s: contexts[str(s)].new_page() for s in NAMES}
    for seat, page in seat_pages.items():
        page.goto(links[seat])
    public = contexts["public"].new_page()
    public.goto(public_url)
    pages: dict[str, Page] = {str(s): p for s, p in seat_pages.items()}
    pages |= {"host": host, "public": public}

    def pulse() -> dict[str, Any]:
        return public_json(server, f"/api/matches/{match_id}/pulse")

    def all_follow(step: int, table: dict[str, Any]) -> None:
        """Every page shows the match as it is now, loaded again by live.js,
        and nothing private of anyone else."""
        now = pulse()
        hidden = forbidden(table)
        for who, page in pages.items():
            expect(page.locator("#live")).to_have_attribute(
                "data-pulse", now["pulse"], timeout=LIVE_WAIT
            )
            leaked = ids_in(page.evaluate(PAGE_HTML), hidden[who])
            assert not leaked, f"step {step}: the {who} page names {leaked}"
            hand = page.locator(".ff-hand .ff-cards li")
            if who.isdigit():
                expect(hand).to_have_count(len(table["hands"][who]))
                for card in table["hands"][who]:
                    expect(page.locator(".ff-hand")).to_contain_text(card)
                if not table["finished"]:
                    expect(page.locator(".ff-hands")).to_have_count(0)
            else:
                expect(hand).to_have_count(0)
        if not table["finished"]:
            expect(public.locator(".ff-hands")).to_have_count(0)

    kinds: list[str] = []
    pair_done = False
    for step in range(1, MAX_STEPS + 1):
        now = pulse()
        if now["finished"]:
            break
        table = state()
        seat = int(table["next"]["seat"])
        assert now["waiting"] == [seat], now
        page = seat_pages[seat]  # its turn arrives by itself, in its title
        expect(page).to_have_title(re.compile(r"^Your turn · "), timeout=LIVE_WAIT)
        all_follow(step, table)
        for other, other_page in seat_pages.items():
            if other != seat:
                assert not other_page.title().startswith("Your turn")
                expect(other_page.locator("#ff-turn")).to_have_count(0)
        expect(page.locator("#ff-turn")).to_be_visible()
        trigger = not pair_done and seat == 1
        kind = compose(page, seat, trigger)
        kinds.append(kind)
        order = json.loads(page.locator("textarea[name=order]").input_value())
        pair_done = pair_done or bool(trigger and (order.get("action") or {}).get("pairs"))
        phone_turns = sum(1 for entry in sent if str(PHONE_SEAT) in entry) + 1
        if seat == PHONE_SEAT and phone_turns in (1, 4):  # its first camp, a later turn
            shot(page, artifacts, f"player-step{step}-phone")
        button = page.get_by_role("button", name="Send my order")
        if seat == KEYBOARD_SEAT:
            button.focus()
            page.keyboard.press("Enter")
        else:
            button.click()
        # the step closes at once (close early) and the next opens by itself
        expect(page.locator(".notices")).to_contain_text("was accepted. Receipt: ")
        sent.append({str(seat): order})
    else:
        pytest.fail(f"the match did not end in {MAX_STEPS} steps")
    table = state()
    assert table["finished"] and table["end"] is not None
    assert "build" in kinds
    assert pair_done, "no build made a pair in the whole match: the test chose none"

    all_follow(len(sent) + 1, table)
    # the host's match file, from its dashboard's link, re-resolves to the
    # public result exactly (and to the engine's, played along)
    exported, published = finished_match_file(host, server, made)
    assert exported["orders"] == sent  # as sent, nobody defaulted (FORMAT)
    resolved = resolve(exported)
    for key, value in resolved.items():
        if key == "steps":
            assert published[key] == [{k: v for k, v in s.items() if k != "drew"} for s in value]
        else:
            assert published[key] == value, key

    # the public page, never reloaded by the test, shows that result
    expect(public.locator(".ff-end")).to_be_visible()
    for seat in resolved["winners"]:
        expect(public.locator(".ff-winners")).to_contain_text(NAMES[seat])
    candidate = resolved["elimination_candidate"]
    expect(public.locator(".ff-candidate")).to_contain_text(NAMES[candidate["seat"]])
    # the forts two a row on a desktop, one a row on a phone: one picture shown
    expect(public.locator(".picture-forts svg:visible")).to_have_count(1)
    expect(public.locator(".picture-forts .ff-wide svg")).to_be_visible()
    shot(public, artifacts, "public-desktop")
    shot(seat_pages[PHONE_SEAT], artifacts, "player-end-phone")
    public.set_viewport_size(PHONE)
    expect(public.locator(".picture-forts svg:visible")).to_have_count(1)
    expect(public.locator(".picture-forts .ff-narrow svg")).to_be_visible()
    shot(public, artifacts, "public-phone")
