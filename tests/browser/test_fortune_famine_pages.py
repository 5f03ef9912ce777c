"""Fortune & Famine's order pages in Chromium (static/rulesets/fortune_famine/
order.js), at phone width (375x812, touch) and on a desktop: the acting
seat's page of a hire turn and of an economy step of the demo match; an
order composed by taps (a bid raised with the stepper; a payment, a store
and its amount), the running total read off the page, the order sent
through the form; the step closed through the service, and the total must
be what the engine then gives that seat. No page scrolls sideways."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from playwright.sync_api import Browser, Locator, Page, expect

from referee.db import make_engine
from referee.demo import play_steps
from referee.ruleset import Viewer, get_ruleset
from referee.service import Referee
from referee.views import view_for

from .conftest import Server, no_sideways_scroll

GAME = "fortune-famine"
TIMEOUT = 10_000
HIRE_STEP = 7  # seat 4 (Elban/Eltezza) acts; Bo's standing bid on the Philosopher is 1
ECONOMY_STEP = 10  # season 2's economy; seat 3 has two farmers to pay, 1 grain, 2 silver
VIEWPORTS = {
    "phone": {"viewport": {"width": 375, "height": 812}, "is_mobile": True, "has_touch": True},
    "desktop": {"viewport": {"width": 1280, "height": 900}},
}


@dataclass
class Demo:
    svc: Referee
    match_id: str
    links: dict[int, str]


@pytest.fixture
def svc(server: Server) -> Iterator[Referee]:
    engine = make_engine(server.database_url)
    yield Referee(engine)
    engine.dispose()


def demo_at(svc: Referee, steps: int) -> Demo:
    demo = get_ruleset(GAME).demo(None)
    created = svc.create_match(
        name="Harvest",
        setup=demo.setup,
        players=demo.players,
        settings=demo.settings,
        ruleset=GAME,
        seed=demo.seed,
    )
    play_steps(svc, created.match_id, demo.steps[:steps])
    return Demo(svc, created.match_id, {s: f"/play/{t}" for s, t in created.player_tokens.items()})


@pytest.fixture(params=sorted(VIEWPORTS))
def page(browser: Browser, request: pytest.FixtureRequest) -> Iterator[Page]:
    context = browser.new_context(**VIEWPORTS[request.param])
    context.set_default_timeout(TIMEOUT)
    yield context.new_page()
    context.close()


def tap(page: Page, target: Locator) -> None:
    target.scroll_into_view_if_needed()
    if (page.context.browser is not None) and page.evaluate("'ontouchstart' in window"):
        target.tap()
    else:
        target.click()


def pick(page: Page, name: str, value: str) -> None:
    label = page.locator(f'#fnf-turn label.pick:has(input[name="fnf-{name}"][value="{value}"])')
    tap(page, label)
    expect(page.locator(f'input[name="fnf-{name}"][value="{value}"]')).to_be_checked()


def running_total(page: Page) -> dict[str, int | None]:
    total = page.locator("#fnf-total")
    expect(total).to_be_visible()
    expect(total).to_contain_text("You will have: ")
    found: dict[str, str] = total.evaluate("e => ({...e.dataset})")
    return {k: (int(v) if v != "" else None) for k, v in found.items()}


def send(page: Page) -> dict[str, Any]:
    order: dict[str, Any] = json.loads(page.locator("textarea[name=order]").input_value())
    expect(page.locator("#fnf-summary")).not_to_contain_text("Still to choose")
    no_sideways_scroll(page, "the order page")
    tap(page, page.get_by_role("button", name="Send my order"))
    expect(page.locator(".receipt-box")).to_contain_text("has been received")
    page.wait_for_load_state("load")  # its stylesheets too (a receipt wraps by them)
    no_sideways_scroll(page, "the receipt page")
    return order


def seat_now(d: Demo, seat: int) -> dict[str, Any]:
    found: dict[str, Any] = view_for(d.svc.state(d.match_id), Viewer.of_seat(seat))["result"]
    return found


def test_a_bid_composed_by_taps_gives_the_running_total(
    server: Server, page: Page, svc: Referee
) -> None:
    d = demo_at(svc, HIRE_STEP)
    page.goto(server.url + d.links[4], wait_until="load")
    no_sideways_scroll(page, "the hire page")
    opts = seat_now(d, 4)["options"]
    index = next(
        i for i, c in enumerate(opts["cards"]) if c["card"] == "philosopher.1" and c["how"] == "bid"
    )
    pick(page, "action", str(index))
    expect(page.locator("#fnf-silver")).to_have_text("2")  # the least bid offered
    tap(page, page.locator("#fnf-silver-plus"))
    expect(page.locator("#fnf-silver")).to_have_text("3")
    expect(page.locator("#fnf-silver-plus")).to_be_disabled()  # max_silver is 3
    expect(page.locator("#fnf-summary")).to_contain_text("bid 3 silver on Philosopher 1")
    shown = running_total(page)
    order = send(page)
    assert order == {"action": "bid", "card": "philosopher.1", "silver": 3}
    d.svc.close_round(d.match_id)
    after = seat_now(d, 4)["seats"]["4"]
    assert (shown["grain"], shown["silver"]) == (after["grain"], after["silver"])
    assert shown["stored"] == after["stored"]


def test_an_economy_order_composed_by_taps_gives_the_running_total(
    server: Server, page: Page, svc: Referee
) -> None:
    d = demo_at(svc, ECONOMY_STEP)
    page.goto(server.url + d.links[3], wait_until="load")
    no_sideways_scroll(page, "the economy page")
    opts = seat_now(d, 3)["options"]
    first, second = (p["card"] for p in opts["pay"])
    before = running_total(page)  # nothing chosen: no pay, take 1 grain
    assert before["grain"] == opts["grain"] + 1 and before["silver"] == opts["silver"]
    pick(page, "pay", first)
    pick(page, "pay", second)
    # both farmers paid: no silver left, so storing is not offered
    expect(page.locator('input[name="fnf-decision"][value="store"]')).to_be_disabled()
    store = page.locator('label.pick:has(input[name="fnf-decision"][value="store"])')
    expect(store).to_contain_text("(no silver left to pay for it)")  # why, not just grey
    tap(page, page.locator(f'label.pick:has(input[name="fnf-pay"][value="{second}"])'))
    expect(page.locator(f'input[name="fnf-pay"][value="{second}"]')).not_to_be_checked()
    pick(page, "decision", "store")
    expect(page.locator("#fnf-store")).to_have_text("1")
    while page.locator("#fnf-store-plus").is_enabled():
        tap(page, page.locator("#fnf-store-plus"))
    stored = int(page.locator("#fnf-store").inner_text())
    expect(page.locator("#fnf-summary")).to_contain_text(f"store {stored} grain for 1 silver")
    shown = running_total(page)
    assert shown["grain"] == 0 and shown["silver"] == 0
    order = send(page)
    assert order == {"pay": [first], "decision": "store", "store": stored}
    d.svc.close_round(d.match_id)
    result = view_for(d.svc.state(d.match_id), Viewer.host())["result"]
    after = dict(result["seats"]["3"])
    # closing the economy starts the next season: undo what its start did to
    # the seat (its Famines' losses, Cotarr/Corace's 2 silver per automatic pass)
    new = result["seasons"][-1]
    after["grain"] += sum(f["loss"]["3"] for f in new["famines"])
    auto = [t for t in new["hire_turns"] if t["seat"] == 3 and t["auto"]]
    if after["ruler"] == "cotarr-corace":
        after["silver"] -= 2 * len(auto)
    assert result["seasons"][-2]["economy"]["3"]["store"] == stored
    assert (shown["grain"], shown["silver"], shown["stored"]) == (
        after["grain"],
        after["silver"],
        after["stored"],
    )
