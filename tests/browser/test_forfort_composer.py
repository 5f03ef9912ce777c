"""Forfort's turn composer (static/rulesets/forfort/turn.js) with every kind of
choice, not only the first of each group: a whole 3-player match in which
every turn is composed in Chromium by random choices (seeded, so a failure
repeats), sometimes changing its mind about an earlier choice (a camp, the
action, a card, a space) after later ones were made, triggering a random
subset of the pairs a build makes and sometimes lowering the drawbridge.

Each composed turn must be complete (the summary has nothing "still to
choose"), accepted by the server as sent (the stored order is the JSON the
composer wrote), and legal for the engine at that step, which the match's
re-resolution at the end checks again. The walk-through of issue 25
(tests/browser/test_forfort_match.py) takes the first choice of each group;
this one reaches the others (effects with their targets, camps, discards,
pair choices later in a list) and the composer's resets.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect

from referee.db import make_engine
from referee.ruleset import get_ruleset
from referee.rulesets.forfort.match import resolve
from referee.service import Referee

from .conftest import Server

SEED = 25  # the random choices'
MAX_STEPS = 120  # FO18 ends a match long before (a guard against a loop)
TIMEOUT = 10_000


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    context.set_default_timeout(TIMEOUT)
    yield context.new_page()
    context.close()


def groups(page: Page) -> dict[str, list[str]]:
    """The composer's radio groups now on the page, in page order, each with
    its values and (as the value "*") whether one is chosen."""
    found: dict[str, list[str]] = page.locator("#ff-turn").evaluate(
        """root => {
          const out = {};
          for (const e of root.querySelectorAll("input[type=radio]")) {
            const name = e.name.replace(/^ff-/, "");
            (out[name] = out[name] || []).push(e.value);
            if (e.checked) out[name].push("*");
          }
          return out;
        }"""
    )
    return found


def choose(page: Page, name: str, value: str) -> None:
    page.locator(f'label.pick:has(input[name="ff-{name}"][value="{value}"])').click()
    expect(page.locator(f'input[name="ff-{name}"][value="{value}"]')).to_be_checked()


def fill(page: Page, rng: random.Random, tally: Counter[str]) -> None:
    """Choose at random in every group with nothing chosen, page order, until
    none is left (a choice may bring new groups); tick each pair's trigger box
    at random as it appears."""
    ticked: set[str] = set()
    for _ in range(40):
        for box in page.locator("#ff-turn .ff-pair input[type=checkbox]").all():
            box_id = box.get_attribute("id") or ""
            if box_id not in ticked:
                ticked.add(box_id)
                if rng.random() < 0.8:
                    box.check()
                    tally["pair triggered"] += 1
        now = groups(page)
        open_groups = {n: v for n, v in now.items() if "*" not in v}
        if not open_groups:
            # the drawbridge (optional, "No drawbridge" chosen from the start) last
            bridges = [v for v in now.get("bridge", []) if v not in ("*", "none")]
            if bridges and rng.random() < 0.5:
                choose(page, "bridge", rng.choice(bridges))
                tally["bridge"] += 1
            return
        name, values = next(iter(open_groups.items()))
        value = rng.choice(values)
        tally[f"{name}={value}" if name == "kind" else name] += 1
        choose(page, name, value)
    raise AssertionError("the composer kept offering choices")


def compose(page: Page, rng: random.Random, tally: Counter[str]) -> dict[str, Any]:
    fill(page, rng, tally)
    if rng.random() < 0.35:
        # a change of mind: another value in an earlier group, then the rest again
        chosen = {n: v for n, v in groups(page).items() if "*" in v and n != "bridge"}
        changeable = {n: [x for x in v if x != "*"] for n, v in chosen.items()}
        changeable = {n: v for n, v in changeable.items() if len(v) > 1}
        if changeable:
            name = rng.choice(sorted(changeable))
            current = page.locator(f'input[name="ff-{name}"]:checked').get_attribute("value")
            choose(page, name, rng.choice([v for v in changeable[name] if v != current]))
            tally["changed mind"] += 1
            fill(page, rng, tally)
    summary = page.locator("#ff-summary")
    expect(summary).to_contain_text("Your turn: ")
    expect(summary).not_to_contain_text("Still to choose")
    order: dict[str, Any] = json.loads(page.locator("textarea[name=order]").input_value())
    return order


def test_every_kind_of_choice_composes_an_accepted_turn(server: Server, page: Page) -> None:
    rng = random.Random(SEED)
    engine = make_engine(server.database_url)
    try:
        service = Referee(engine)
        demo = get_ruleset("forfort").demo(None)
        created = service.create_match(
            name="Composer",
            setup=demo.setup,
            players=demo.players,
            settings={"close_early": True, "auto_open": True, "deadline_hours": 1},
            ruleset="forfort",
            seed="composer-" + str(SEED),
        )
        match_id, tokens = created.match_id, created.player_tokens
        tally: Counter[str] = Counter()
        sent: list[dict[str, Any]] = []
        for _ in range(MAX_STEPS):
            state = service.state(match_id)
            rnd = state.open_round
            if rnd is None:
                break
            (seat,) = rnd.acting or sorted(tokens)[:1]
            page.goto(f"{server.url}/play/{tokens[seat]}")
            order = compose(page, rng, tally)
            page.get_by_role("button", name="Send my order").click()
            expect(page.locator(".notices")).to_contain_text("was accepted. Receipt: ")
            stored = service.state(match_id).orders_of(rnd.number)[seat]
            assert stored.payload == {"turn": order} or stored.payload == order, (
                rnd.number,
                stored.payload,
                order,
            )
            sent.append({str(seat): order})
        final = service.state(match_id)
        assert final.match.finished, "the match did not end"
        doc = {
            "ruleset": "forfort",
            "players": [
                {"seat": s.seat, "name": s.name, "garnets": s.garnets} for s in final.seats
            ],
            "seed": final.match.seed,
            "orders": sent,
        }
        public = service.export(match_id)
        assert resolve(doc) == resolve(public)
    finally:
        engine.dispose()
    # the walk reached every kind of action and the composer's other paths
    for what in ("kind=build", "kind=effect", "changed mind", "pair triggered", "bridge"):
        assert tally[what] > 0, (what, tally)
    assert len(sent) >= 30, len(sent)
