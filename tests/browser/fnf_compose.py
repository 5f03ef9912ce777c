"""Composing a Fortune & Famine order in the browser at random, as a player
trying things out would: taps or clicks on whatever the composer
(static/rulesets/fortune_famine/order.js) offers at the moment (a radio, a
check box, a stepper's - or +), changes of mind included, until the order is
complete; then what the page says the seat will hold (its running total) is
checked against the engine carrying out that very order. Shared by the
"Done when" walk (test_fortune_famine_match.py) and the composer's random
walk (test_fortune_famine_composer.py)."""

from __future__ import annotations

import json
import random
from collections import Counter
from typing import Any

from playwright.sync_api import Locator, Page, expect

from referee.rulesets.fortune_famine.match import parse_match, play
from referee.rulesets.fortune_famine.orders import carry_out

MAX_CHOICES = 80  # a guard against a composer that never completes an order

# every control of the composer that a player can use now: inputs not
# disabled (a radio already chosen is left out: a tap on it changes nothing)
# and the steppers' enabled buttons, each found again by its id (a choice
# draws the composer afresh)
CONTROLS = """root => {
  const out = [];
  root.querySelectorAll("input, .stepper button").forEach(e => {
    if (e.disabled || (e.type === "radio" && e.checked)) return;
    out.push({id: e.id, kind: e.tagName === "BUTTON" ? "step" : e.type,
              name: e.name || e.id, value: e.value || "", checked: !!e.checked,
              text: (e.closest("label") || e).innerText});
  });
  return out;
}"""


def controls(page: Page) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = page.locator("#fnf-turn").evaluate(CONTROLS)
    return found


def use(page: Page, target: Locator, touch: bool) -> None:
    """A tap on a phone, a click on a desktop; a radio or check box through
    its label (the 44 px target a finger hits)."""
    target.scroll_into_view_if_needed()
    if touch:
        target.tap()
    else:
        target.click()


def use_control(page: Page, found: dict[str, Any], touch: bool) -> None:
    control = page.locator(f'#fnf-turn [id="{found["id"]}"]')
    if found["kind"] == "step":
        use(page, control, touch)
        return
    label = page.locator(f'#fnf-turn label.pick[for="{found["id"]}"]')
    if touch:
        box = label.bounding_box()
        assert box is not None and box["height"] >= 44, (found, box)
    use(page, label, touch)
    if found["kind"] == "radio":
        expect(control).to_be_checked()
    else:
        expect(control).to_be_checked(checked=not found["checked"])


def kind_of(found: dict[str, Any]) -> str:
    """The name a tally counts a control under: ``fnf-pay`` and friends,
    ``fnf-action:bid`` for a hire action, ``step:fnf-store-plus`` for a
    stepper's button, the Evrathor's per-card names folded into one."""
    name = str(found["name"])
    if found["kind"] == "step":
        name = "step:" + name
        for part in ("evr-", "guard-", "store", "silver"):
            if part in name:
                return "step:" + part.rstrip("-")
        return name
    if name.startswith("fnf-evr-"):
        return "fnf-evr"
    if name == "fnf-action":
        text = str(found["text"]).strip().split(" ", 1)[0].lower()
        return f"fnf-action:{text}"
    if name == "fnf-trade":
        return f"fnf-trade:{'none' if found['value'] == 'none' else 'give'}"
    if name in ("fnf-decision", "fnf-trade-at", "fnf-guard", "fnf-double"):
        return f"{name}:{found['value'] if name != 'fnf-double' else found['value'] != 'none'}"
    return name


def problems(page: Page) -> str:
    """What the summary says is still to choose (empty once complete)."""
    summary = page.locator("#fnf-summary")
    expect(summary).to_contain_text("Your order: ")
    text = summary.inner_text()
    return text.split("Still to choose: ", 1)[1] if "Still to choose: " in text else ""


def compose(
    page: Page,
    rng: random.Random,
    *,
    touch: bool,
    tally: Counter[str],
    tries: int = 6,
    prefer: tuple[str, ...] = (),
) -> dict[str, Any]:
    """Up to ``tries`` choices at random among all the composer offers (a
    control whose id starts with one of ``prefer`` chosen more often, when
    one is offered), then what it says is still missing (an action, a
    discard), each counted in ``tally``; the order the page will send (its
    JSON box)."""
    expect(page.locator("#fnf-turn")).to_be_visible()
    for _ in range(rng.randint(0, tries)):
        offered = controls(page)
        if not offered:
            break
        liked = [i for i, f in enumerate(offered) if str(f["id"]).startswith(prefer)]
        if prefer and liked and rng.random() < 0.7:
            index = rng.choice(liked)
        else:
            index = rng.randrange(len(offered))
        use_control(page, offered[index], touch)
        tally[kind_of(offered[index])] += 1
    for _ in range(MAX_CHOICES):
        missing = problems(page)
        if not missing:
            break
        offered = controls(page)
        wanted = (
            "fnf-action"
            if "an action" in missing
            else "fnf-discard"
            if "a card to discard" in missing
            else None
        )
        if wanted is not None:
            tally["missing:" + wanted] += 1
        else:
            # something the rules refuse (a change of mind left a payment or a
            # store unaffordable): the summary says so, and the player changes
            # a choice again
            tally["missing:other"] += 1
        choices = [i for i, f in enumerate(offered) if wanted is None or f["name"] == wanted]
        assert choices, f"the composer says {missing!r} but offers nothing for it: {offered}"
        index = rng.choice(choices)
        use_control(page, offered[index], touch)
        tally[kind_of(offered[index])] += 1
    else:
        raise AssertionError(f"no complete order after {MAX_CHOICES} choices: {problems(page)}")
    order: dict[str, Any] = json.loads(page.locator("textarea[name=order]").input_value())
    return order


def shown_total(page: Page) -> tuple[int, int, int | None]:
    """The running total the page shows: grain, silver, stored grain."""
    total = page.locator("#fnf-total")
    expect(total).to_contain_text("You will have: ")
    data: dict[str, str] = total.evaluate("e => ({...e.dataset})")
    stored = int(data["stored"]) if data["stored"] != "" else None
    return int(data["grain"]), int(data["silver"]), stored


def engine_total(doc: dict[str, Any], seat: int, order: dict[str, Any]) -> tuple[int, int, int]:
    """What ``seat`` holds once the engine has carried out ``order`` alone
    in the open step of the match file ``doc`` (its closed steps played)."""
    table = play(parse_match(doc)).copy()
    carry_out(table, seat, order)
    held = table.seats[seat]
    return held.grain, held.silver, held.stored
