"""A whole Fortune & Famine match in a real browser, played in one sitting as
issue 26's "Done when" asks: a host and four players, each in a browser
context of their own (seat 3 on a 375x812 phone with touch), who only open
the links the service gives them, each ONCE.

The host creates a 4-player short match with the default deck from the
create form, with 10-minute steps, "close a round as soon as all have sent"
and "open each round by itself": the match runs itself to its end with no
host action. Every page (the four seats', the host's and the public one)
keeps static/live.js (LIVE_PAGES): the test never reloads nor navigates a
page after opening it. In each step every page follows the match by itself
(its rendered pulse becomes the server's); each acting seat (one in a hire or
attack turn, all four in an economy round) reads "Your turn" in its title,
composes an order at random from what the page offers (fnf_compose: taps on
the phone, clicks elsewhere), checks the running total against the engine
carrying out that order, and sends it.

Hidden storage (FF21), at every step and on every page: a seat's page shows
its own stored grain (the engine's figure) and every other seat's as hidden;
the public page shows none; the host's page, once a step has closed, every
seat's; at the end every page shows them all. At the end the host's match
file (its dashboard's download link) re-resolves with the engine to exactly
the published public result; screenshots are kept in test-artifacts/.
"""

from __future__ import annotations

import json
import random
import re
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, BrowserContext, Page, expect

from referee.rulesets.fortune_famine.match import resolve

from .conftest import (
    PHONE,
    Server,
    create_from_form,
    finished_match_file,
    no_sideways_scroll,
    people,
    public_json,
)
from .fnf_compose import compose, engine_total, shown_total

pytestmark = pytest.mark.slow
LIVE_PAGES = True  # every page keeps static/live.js (conftest.browser)

TIMEOUT = 10_000
LIVE_WAIT = 8_000  # live.js polls every 2 s; then the page loads again
PLAYERS = [("Ann", 4), ("Ben <b>", 2), ("Cat", 3), ("Dee", 1)]
NAMES = {seat: name for seat, (name, _) in enumerate(PLAYERS, start=1)}
PHONE_SEAT = 3
STEP_MINUTES = 10
MAX_STEPS = 80  # a short match of 4 has about 30 steps (a guard against a loop)
SEED = 2026_12_03


@pytest.fixture
def contexts(browser: Browser) -> Iterator[dict[str, BrowserContext]]:
    with people(browser, len(NAMES), phone_seat=PHONE_SEAT, timeout=TIMEOUT) as made:
        yield made


def shot(page: Page, folder: Path, name: str) -> None:
    no_sideways_scroll(page, name)
    path = folder / f"fortune-famine-{name}.png"
    path.unlink(missing_ok=True)
    page.screenshot(path=str(path), full_page=True)


def stored_shown(page: Page) -> dict[int, int | None]:
    """Each Kingdom's stored grain as the page tells it in words: a number,
    or None where it says "hidden"; a Kingdom saying both or neither fails."""
    out: dict[int, int | None] = {}
    for seat in NAMES:
        kingdom = page.locator(f"#fnf-seat-{seat}")
        shown = kingdom.locator(".fnf-stored")
        hidden = kingdom.locator(".fnf-stored-hidden")
        if shown.count():
            assert not hidden.count(), f"seat {seat}'s Kingdom says stored and hidden"
            out[seat] = int(shown.locator("strong").inner_text())
        else:
            assert hidden.count() == 1, f"seat {seat}'s Kingdom says nothing of its storage"
            out[seat] = None
    return out


def test_fortune_famine_match_in_one_sitting_that_runs_itself(
    server: Server, contexts: dict[str, BrowserContext], artifacts: Path
) -> None:
    host = contexts["host"].new_page()

    def short_match(page: Page) -> None:
        expect(page.get_by_role("group", name="The deck")).to_be_visible()
        page.get_by_label("Length").select_option("short")

    made = create_from_form(
        host,
        server,
        game="fortune-famine",
        name="Browser <Harvest> Cup",
        players=PLAYERS,
        step_minutes=STEP_MINUTES,
        fill_game=short_match,
    )
    match_id, match = made.match_id, made.match
    assert match.settings["length"] == "short"
    players = [{"seat": s, "name": n, "garnets": g} for s, (n, g) in enumerate(PLAYERS, start=1)]
    sent: list[dict[str, Any]] = []

    def doc() -> dict[str, Any]:
        return {
            "ruleset": "fortune-famine",
            "players": players,
            "seed": match.seed,
            "settings": {"length": "short"},
            "orders": sent,
        }

    # each opens their page once; from here on only live.js loads them again
    host.goto(made.host_url)
    seat_pages = {s: contexts[str(s)].new_page() for s in NAMES}
    for seat, page in seat_pages.items():
        page.goto(made.links[seat])
    public = contexts["public"].new_page()
    public.goto(made.public_url)
    pages: dict[str, Page] = {str(s): p for s, p in seat_pages.items()}
    pages |= {"host": host, "public": public}

    def pulse() -> dict[str, Any]:
        return public_json(server, f"/api/matches/{match_id}/pulse")

    def follows(page: Page) -> None:
        """The page shows the match as it is now (live.js loaded it again)."""
        expect(page.locator("#live")).to_have_attribute(
            "data-pulse", pulse()["pulse"], timeout=LIVE_WAIT
        )

    def all_follow(step: int, table: dict[str, Any]) -> None:
        """Every page follows, and shows stored grain only where FF21 lets it."""
        truth = {s: table["own"][str(s)]["stored"] for s in NAMES}
        for who, page in pages.items():
            follows(page)
            shown = stored_shown(page)
            if table["finished"]:
                expected = truth
            elif who.isdigit():
                expected = {s: truth[s] if str(s) == who else None for s in NAMES}
            elif who == "host" and table["closed"]:
                expected = truth
            else:  # the public page; the host's before any step closed is the public view
                expected = dict.fromkeys(NAMES)
            assert shown == expected, f"step {step}: the {who} page shows stored {shown}"

    rng = random.Random(SEED)
    tally: Counter[str] = Counter()
    phases: Counter[str] = Counter()
    shots: set[str] = set()
    for step in range(1, MAX_STEPS + 1):
        now = pulse()
        if now["finished"]:
            break
        table = resolve(doc(), details=True)
        nxt = table["next_round"]
        acting = list(nxt["acting"])
        assert now["waiting"] == acting, (step, now, nxt)
        phases[nxt["phase"]] += 1
        all_follow(step, table)
        orders: dict[str, Any] = {}
        for seat in acting:
            page = seat_pages[seat]
            follows(page)  # an earlier seat's order moved the pulse: loaded again
            expect(page).to_have_title(re.compile(r"^Your turn · "), timeout=LIVE_WAIT)
            for other, other_page in seat_pages.items():
                if other not in acting or str(other) in orders:
                    assert not other_page.title().startswith("Your turn"), (step, other)
            order = compose(page, rng, touch=seat == PHONE_SEAT, tally=tally)
            assert shown_total(page) == engine_total(doc() | {"orders": sent}, seat, order), (
                step,
                seat,
                order,
            )
            if seat == PHONE_SEAT and nxt["phase"] not in shots:
                shots.add(nxt["phase"])
                shot(page, artifacts, f"player-{nxt['phase']}-phone")
            page.get_by_role("button", name="Send my order").click()
            expect(page.locator(".notices")).to_contain_text("was accepted. Receipt: ")
            orders[str(seat)] = order
            print(f"step {step} ({nxt['phase']}): seat {seat} sent {json.dumps(order)}")
        sent.append(orders)
    else:
        pytest.fail(f"the match did not end in {MAX_STEPS} steps")
    table = resolve(doc(), details=True)
    assert table["finished"], "the pulse says finished, the engine does not"
    assert phases["hire"] and phases["economy"] == 6, phases
    print("phases", dict(phases), "choices", dict(tally))

    all_follow(len(sent) + 1, table)
    # the host's match file, from its dashboard's link, re-resolves to the
    # public result exactly
    exported, published = finished_match_file(host, server, made)
    assert exported["orders"] == sent  # as sent, nobody defaulted (FORMAT)
    resolved = resolve(exported)
    for key, value in resolved.items():  # the API's result names the deck too
        assert published[key] == value, key
    assert resolved == resolve(doc())

    # the public page, never reloaded by the test, shows that result
    end = public.locator(".fnf-end")
    expect(end).to_be_visible()
    first = resolved["ranking"][0]
    expect(end.locator("tbody tr").first).to_contain_text(NAMES[int(first)])
    expect(public.locator(".picture-kingdoms svg:visible")).to_have_count(1)
    shot(public, artifacts, "public-desktop")
    shot(seat_pages[PHONE_SEAT], artifacts, "player-end-phone")
    public.set_viewport_size(PHONE)
    expect(public.locator(".picture-kingdoms svg:visible")).to_have_count(1)
    expect(public.locator(".picture-kingdoms .fnf-narrow svg")).to_be_visible()
    shot(public, artifacts, "public-phone")
