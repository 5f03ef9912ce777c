"""Every path of Fortune & Famine's composer (static/rulesets/fortune_famine/
order.js) in Chromium, reached by seeded random play: the attack turns
(Pickpocket and its targets, Evrathor uses split over opponents), a trade in
each phase (before paying and at the decision too), Besella/Baroso's guard, a
discard from a full Kingdom, the Philosopher's double, Chysarions and a
store.

Matches of 6 (every ruler), full length, are played through the service with
the engine's random orders (randomplay); whenever an acting seat is offered
a choice the walk has not yet seen used in a composed order, that seat's
page (a phone with touch for odd seats, a desktop for even ones) composes
its order at random by taps or clicks, leaning to those choices, changes of
mind included (fnf_compose). Each composed order must be accepted through
the form, the running total must be what the engine gives that seat for
that order, and at the end each match's export must equal the orders sent
and re-resolve to its published result. A tally of what the composed
orders used must cover every path above."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect

from referee.db import make_engine
from referee.rulesets.fortune_famine.match import parse_match, play, resolve
from referee.rulesets.fortune_famine.options import options
from referee.rulesets.fortune_famine.randomplay import random_order
from referee.rulesets.fortune_famine.state import RULERS
from referee.service import Referee

from .conftest import Server, no_sideways_scroll
from .fnf_compose import compose, engine_total, shown_total

pytestmark = pytest.mark.slow

GAME = "fortune-famine"
TIMEOUT = 10_000
PHONE = {"viewport": {"width": 375, "height": 812}, "is_mobile": True, "has_touch": True}
DESKTOP = {"viewport": {"width": 1280, "height": 900}}
MATCHES = 4  # at most; the walk stops once every path has been used
SEATS = len(RULERS)
# each path: the composer's controls (their ids start so) that lead to it
PATHS: dict[str, tuple[str, ...]] = {
    "pickpocket": ("fnf-pp",),
    "pickpocket-target": ("fnf-pp",),
    "evrathor": ("fnf-evr",),
    "trade-hire": ("fnf-trade",),
    "trade-attack": ("fnf-trade",),
    "trade-payment": ("fnf-trade",),
    "trade-decision": ("fnf-trade",),
    "guard": ("fnf-guard",),
    "discard": ("fnf-action",),
    "double": ("fnf-pay", "fnf-double"),
    "chysarion": ("fnf-chys",),
    "store": ("fnf-decision-store", "fnf-store"),
}


def offered(opts: dict[str, Any]) -> set[str]:
    """The paths an acting seat's options allow now."""
    phase = opts["phase"]
    out: set[str] = set()
    if opts.get("trade"):
        out.add(f"trade-{phase}" if phase != "economy" else "trade-payment")
        if phase == "economy":
            out.add("trade-decision")
    if opts.get("guard"):
        out.add("guard")
    if phase == "hire" and any(c["discards"] for c in opts["cards"]):
        out.add("discard")
    if phase == "attack":
        if opts["pickpocket"] is not None:
            out |= {"pickpocket", "pickpocket-target"} if opts["pickpocket"] else {"pickpocket"}
        if any(any(e["from"].values()) for e in opts["evrathor"]):
            out.add("evrathor")
    if phase == "economy":
        if opts["double"]:
            out.add("double")
        if opts["chysarion"]:
            out.add("chysarion")
        if opts["store_max"]:
            out.add("store")
    return out


def used(phase: str, order: dict[str, Any]) -> set[str]:
    """The paths a composed order takes."""
    out: set[str] = set()
    trade = order.get("trade")
    if trade:
        out.add(f"trade-{phase}" if phase != "economy" else f"trade-{trade['at']}")
    if "guard" in order:
        out.add("guard")
    if order.get("discard"):
        out.add("discard")
    if "pickpocket" in order:
        out.add("pickpocket")
        if order["pickpocket"]:
            out.add("pickpocket-target")
    if any(use["from"] for use in order.get("evrathor", [])):
        out.add("evrathor")
    for key in ("double", "chysarion"):
        if order.get(key):
            out.add(key)
    if order.get("decision") == "store":
        out.add("store")
    return out


@pytest.fixture
def svc(server: Server) -> Iterator[Referee]:
    engine = make_engine(server.database_url)
    yield Referee(engine)
    engine.dispose()


@pytest.fixture
def pages(browser: Browser) -> Iterator[dict[str, Page]]:
    made = {"phone": browser.new_context(**PHONE), "desktop": browser.new_context(**DESKTOP)}
    for context in made.values():
        context.set_default_timeout(TIMEOUT)
    yield {kind: context.new_page() for kind, context in made.items()}
    for context in made.values():
        context.close()


def test_every_path_of_the_composer_by_random_play(
    server: Server, svc: Referee, pages: dict[str, Page]
) -> None:
    rng = random.Random(26)
    seen: Counter[str] = Counter()  # paths used by composed orders
    clicks: Counter[str] = Counter()  # the controls used (fnf_compose.kind_of)
    composed = 0
    for number in range(1, MATCHES + 1):
        players = [{"seat": s, "name": f"P{s} <i>", "garnets": s} for s in range(1, SEATS + 1)]
        rulers = {str(s): r for s, r in enumerate(rng.sample(RULERS, SEATS), start=1)}
        created = svc.create_match(
            name=f"Composer walk {number}",
            setup={"rulers": rulers},
            players=players,
            settings={"length": "full"},
            ruleset=GAME,
            seed=f"composer-walk-{number}",
        )
        match_id = created.match_id
        links = {s: f"{server.url}/play/{t}" for s, t in created.player_tokens.items()}
        doc: dict[str, Any] = {
            "ruleset": GAME,
            "players": players,
            "seed": f"composer-walk-{number}",
            "settings": {"length": "full"},
            "rulers": rulers,
            "orders": [],
        }
        while True:
            table = play(parse_match(doc))
            if table.next is None:
                break
            svc.open_round(match_id)
            phase = table.next.phase
            step: dict[str, Any] = {}
            for seat in table.next.acting:
                opts = options(table, seat)
                assert opts is not None
                new = {p for p in offered(opts) if seen[p] < 2}
                if not new:
                    step[str(seat)] = order = random_order(table, seat, rng)
                    svc.submit_order(match_id, seat, order)
                    continue
                page = pages["phone" if seat % 2 else "desktop"]
                page.goto(links[seat], wait_until="load")
                prefer = tuple(c for p in sorted(new) for c in PATHS[p])
                order = compose(
                    page, rng, touch=seat % 2 == 1, tally=clicks, tries=10, prefer=prefer
                )
                assert shown_total(page) == engine_total(doc, seat, order), (match_id, seat, order)
                no_sideways_scroll(page, f"seat {seat}'s {phase} page")
                page.get_by_role("button", name="Send my order").click()
                expect(page.locator(".notices")).to_contain_text("was accepted. Receipt: ")
                step[str(seat)] = order
                seen.update(used(phase, order))
                composed += 1
            svc.close_round(match_id)
            doc["orders"].append(step)
        # played to its end: the export is the orders as sent, and re-resolves
        assert svc.state(match_id).match.finished
        exported = svc.export(match_id)
        assert exported["orders"] == doc["orders"]
        assert resolve(exported) == resolve(doc)
        if all(seen[p] for p in PATHS):
            break
    print(f"{composed} orders composed in {number} matches; paths {dict(seen)}; {dict(clicks)}")
    missing = [p for p in PATHS if not seen[p]]
    assert not missing, f"no composed order took {missing} (paths used: {dict(seen)})"
