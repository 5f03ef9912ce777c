"""Issue 15 in a phone's browser: the Elimination Candidate opens their season
page at 375 px, sees the Token of Life's holder offered but disabled with the
reason, chooses an opponent, and the host's season page then shows the choice.

The season is made through the forms (desktop width); its Main Match through
the service on the server's database, with a seed where someone holds the
Token of Life (the host's form takes no seed, issue 22), and the match's rounds
are closed there too (its own pages are tested elsewhere)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from playwright.sync_api import Browser, Page, ViewportSize, expect
from service.test_seasons import game_parts, play_to_the_end, seed_where

from referee.db import make_engine
from referee.seasons.service import Seasons
from referee.service import Referee

from .conftest import Server

GRAVE = ("serious", "critical")
PHONE: ViewportSize = {"width": 375, "height": 812}
AXE_JS = Path(__file__).resolve().parents[2] / "node_modules" / "axe-core" / "axe.min.js"


def grave_axe_violations(page: Page) -> list[str]:
    """axe-core's serious and critical findings on the page as it is shown
    (none checked when the npm package is missing: test_page_checks says so)."""
    if not AXE_JS.is_file():
        return []
    page.add_script_tag(path=str(AXE_JS))
    found: list[dict[str, Any]] = page.evaluate(
        "axe.run(document, {resultTypes: ['violations']}).then(r => r.violations.map("
        "v => ({id: v.id, impact: v.impact, nodes: v.nodes.map(n => n.target.join(' '))})))"
    )
    return [f"{v['id']}: {v['nodes'][:3]}" for v in found if v["impact"] in GRAVE]


def test_the_candidate_chooses_an_opponent_on_a_phone(
    server: Server, browser: Browser, artifacts: Any
) -> None:
    desk = browser.new_page()
    desk.goto(f"{server.url}/seasons/new")
    desk.fill("#name", "Phone season")
    desk.fill("#token_bonus", "1")
    for i, (name, garnets) in enumerate([("Ana", "3"), ("Bo", "2"), ("Cy", "1")]):
        desk.fill(f"#players-{i}-name", name)
        desk.fill(f"#players-{i}-garnets", garnets)
    desk.click("button[type=submit]")
    expect(desk.locator("h1")).to_contain_text("is ready")
    host = desk.get_attribute("#host-link", "href") or ""
    seasons = {
        int(li.get_attribute("data-player") or 0): li.locator("a").get_attribute("href") or ""
        for li in desk.locator("ul.links li[data-player]").all()
    }
    assert host and len(seasons) == 3

    engine = make_engine(server.database_url)
    try:
        svc = Referee(engine)
        roster = [{"seat": 1, "name": "Ana", "garnets": 3}]
        roster += [{"seat": 2, "name": "Bo", "garnets": 2}, {"seat": 3, "name": "Cy", "garnets": 1}]
        seed = seed_where(svc, roster, lambda token, cand: token is not None and token != cand)
        season = Seasons(svc, b"browser")  # the server's REFEREE_SECRET_KEY
        found = season.find_token(host.rsplit("/", 1)[1])
        assert found is not None
        _, main = season.create_main_match(
            found[0], players=[1, 2, 3], seed=seed, **game_parts("rocky-river", 3)
        )
        play_to_the_end(svc, main.match_id)
    finally:
        engine.dispose()
    desk.goto(host)
    preview = desk.locator("ul.preview")
    candidate = int(preview.get_attribute("data-candidate") or 0)
    holder = int(preview.get_attribute("data-token-holder") or 0)
    assert candidate and holder and candidate != holder
    desk.click("button:has-text('Record this outcome')")
    expect(desk.locator("[data-step]")).to_have_attribute("data-step", "choice")

    # axe's script is added to the page, which the pages' CSP would refuse
    phone = browser.new_context(viewport=PHONE, bypass_csp=True).new_page()
    phone.goto(seasons[candidate])
    assert grave_axe_violations(phone) == []
    held = phone.locator(f"#opponent-{holder}")
    expect(held).to_be_disabled()
    expect(phone.locator(f"#opponent-{holder}-why")).to_have_text("(holds a Token of Life)")
    expect(phone.locator(f"#opponent-{candidate}")).to_be_disabled()
    # nothing is wider than the phone's screen
    width = phone.evaluate("document.documentElement.scrollWidth")
    assert width <= PHONE["width"], width
    (other,) = [p for p in (1, 2, 3) if p not in (candidate, holder)]
    phone.check(f"#opponent-{other}")
    phone.screenshot(path=str(artifacts / "season-choice-phone.png"), full_page=True)
    phone.click("button:has-text('Choose this opponent')")
    expect(phone.locator(".notice")).to_contain_text("You chose")

    phone.goto(host)
    expect(phone.locator("[data-step]")).to_have_attribute("data-step", "death")
    assert grave_axe_violations(phone) == []
    assert phone.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    desk.goto(host)
    names = {1: "Ana", 2: "Bo", 3: "Cy"}
    expect(desk.locator(".chosen-opponent")).to_have_text(names[other])
    assert re.search(names[candidate], desk.locator("[data-step]").inner_text())
