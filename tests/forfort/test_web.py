"""Forfort's web pages (referee/rulesets/forfort/web.py,
templates/rulesets/forfort/, static/rulesets/forfort/) through the Flask test
client on SQLite and PostgreSQL: a seat's page shows its own hand and no card
of another hand that its view does not show; the public page no hand before
the end; the order form carries exactly the seat's options (as JSON for the
turn script, in words beside the JSON box); a composed order is accepted
through the form and a refused one is answered in words; the create page's
card set (default, pasted, uploaded; every problem listed, the text kept);
hostile player names are escaped on every page; no rule ids in the words."""

from __future__ import annotations

import html as htmllib
import io
import json
import re
from dataclasses import dataclass
from typing import Any

import pytest
from flask.testing import FlaskClient

from referee.demo import play_steps
from referee.ruleset import Viewer, get_ruleset
from referee.rulesets.forfort.cards import default_card_set
from referee.rulesets.forfort.web import card_table
from referee.service import Referee
from referee.views import view_for

HOSTILE = ('<script>alert("a")</script>', "Bo <img src=x onerror=alert(2)>", "Cy & \"Dee\" 'x'")
CARD_ID = re.compile(r"(?<![\w-])w\d\d(?![\w-])")


@dataclass
class Match:
    match_id: str
    host: str
    seats: dict[int, str]
    public: str


def demo_match(svc: Referee, steps: int, names: tuple[str, ...] = ("Ana", "Bo", "Cy")) -> Match:
    """The demo match of 3 players with its first ``steps`` steps played."""
    demo = get_ruleset("forfort").demo(None)
    created = svc.create_match(
        name="Forts <b>night</b>",
        setup=demo.setup,
        players=[{**p, "name": names[i]} for i, p in enumerate(demo.players)],
        settings=demo.settings,
        ruleset="forfort",
        seed=demo.seed,
    )
    play_steps(svc, created.match_id, demo.steps[:steps])
    seats = {s: f"/play/{t}" for s, t in created.player_tokens.items()}
    return Match(
        created.match_id, f"/host/{created.host_token}", seats, f"/matches/{created.match_id}"
    )


def page(client: FlaskClient, url: str) -> str:
    r = client.get(url)
    assert r.status_code == 200, r.status_code
    return r.get_data(as_text=True)


def without_set(html: str) -> str:
    """A page without its list of the match's card set (public: it names
    every card, of every hand too)."""
    out, n = re.subn(r'<details class="ff-set" id="ff-set">.*?</details>', "", html, flags=re.S)
    assert n == 1
    return out


def view_of(svc: Referee, m: Match, viewer: Viewer) -> dict[str, Any]:
    return view_for(svc.state(m.match_id), viewer)


def ids_in(view: dict[str, Any]) -> set[str]:
    """The card ids a view shows of the match (not its card set, which names
    every card)."""
    result = {k: v for k, v in view["result"].items() if k != "cards"}
    rest = {k: v for k, v in view.items() if k != "result"}
    return set(CARD_ID.findall(json.dumps([result, rest])))


def section(html: str, heading_id: str) -> str:
    found = re.search(rf'aria-labelledby="{heading_id}">(.*?)</section>', html, re.S)
    return found.group(1) if found else ""


def turn_data(html: str) -> dict[str, Any] | None:
    found = re.search(
        r'<script type="application/json" id="ff-turn-data">(.*?)</script>', html, re.S
    )
    if found is None:
        return None
    data: dict[str, Any] = json.loads(found.group(1))
    return data


def no_rule_ids(html: str) -> None:
    text = re.sub(r"<[^>]+>", " ", html)
    assert not re.search(r"\bFO\d+\b", text)
    assert "Traceback" not in html


@pytest.mark.parametrize("steps", [0, 5, 18, 33, 47])
def test_a_seat_sees_its_own_hand_and_no_other(web: FlaskClient, svc: Referee, steps: int) -> None:
    m = demo_match(svc, steps)
    data: dict[str, Any] = svc.state(m.match_id).game_state().data
    finished = bool(data["finished"])
    cards = card_table(None)
    hidden_somewhere = False
    for seat, url in m.seats.items():
        html = without_set(page(web, url))
        no_rule_ids(html)
        mine = list(data["hands"][str(seat)])
        hand = section(html, "ff-hand-h")
        assert hand, "the seat's page shows its hand"
        for c in mine:
            assert htmllib.escape(cards[c]["full"], quote=False) in hand
        assert set(CARD_ID.findall(hand)) == set(mine)
        # no card of another hand that this seat's view does not show
        seen = ids_in(view_of(svc, m, Viewer.of_seat(seat)))
        for other, others_hand in data["hands"].items():
            if int(other) == seat:
                continue
            for c in others_hand:
                if c not in seen:
                    hidden_somewhere = True
                    assert not re.search(rf"(?<![\w-]){c}(?![\w-])", html), (seat, other, c)
        if not finished:
            assert "Every hand" not in html
        # nothing in the view but what this seat may see: no other hand, no dungeon
        assert "dungeons" not in (view_of(svc, m, Viewer.of_seat(seat))["result"])
    public = without_set(page(web, m.public))
    no_rule_ids(public)
    assert "ff-hand-h" not in public
    if not finished:
        seen = ids_in(view_of(svc, m, Viewer.public()))
        for others_hand in data["hands"].values():
            for c in others_hand:
                if c not in seen:
                    assert not re.search(rf"(?<![\w-]){c}(?![\w-])", public)
        assert "Every hand" not in public
    else:
        assert "Every hand at the end" in public and "Token of Life" in public
        assert "Elimination Candidate" in public
    host = page(web, m.host)
    no_rule_ids(host)
    assert not finished or "Winner" in host
    assert finished or hidden_somewhere, "the check saw no hidden card"


def test_the_form_offers_exactly_the_options(web: FlaskClient, svc: Referee) -> None:
    m = demo_match(svc, 18)  # seat 3 acts: builds that make a Ram and a Garrison pair
    view = view_of(svc, m, Viewer.of_seat(3))
    html = page(web, m.seats[3])
    data = turn_data(html)
    assert data is not None and data["options"] == view["options"]
    assert data["hand"] == view["hand"] and data["seat"] == 3
    assert "static/rulesets/forfort/turn.js" in html
    cards = card_table(None)
    words = [htmllib.unescape(w) for w in re.findall(r"<li>(Build [^<]*)</li>", html)]
    assert len(words) == len(view["options"]["build"])
    for card, builds in view["options"]["build"].items():
        head = f"Build {cards[card]['name']} on "
        line = next(w for w in words if w.startswith(head))
        offered = re.sub(r" \(makes [^)]*\)", "", line.removeprefix(head))
        assert {int(s) for s in re.findall(r"space (\d)", offered)} == {b["space"] for b in builds}
    # a seat that does not act has no form to compose a turn
    for seat in (1, 2):
        assert turn_data(page(web, m.seats[seat])) is None
    # the host enters orders as JSON (it never sees a hand or options)
    host_form = page(web, f"{m.host}/order/3")
    assert turn_data(host_form) is None


def test_first_turn_options_per_first_camp(web: FlaskClient, svc: Referee) -> None:
    m = demo_match(svc, 0)
    html = page(web, m.seats[1])
    data = turn_data(html)
    assert data is not None
    assert data["options"]["camp_start"] == list(range(1, 9))
    assert set(data["options"]["by_camp_start"]) == {str(s) for s in range(1, 9)}
    assert "With your first camp on space 1" in html


def test_a_composed_order_is_sent_through_the_form(web: FlaskClient, svc: Referee) -> None:
    m = demo_match(svc, 18)
    order = {
        "action": {
            "build": "w10",
            "space": 5,
            "pairs": [
                {
                    "with": 4,
                    "symbol": "garrison",
                    "uses": [
                        {"target": 1, "space": 6, "direction": "left"},
                        {"target": 2, "space": 5, "direction": "up"},
                    ],
                }
            ],
        },
        "drawbridge": None,
    }
    number = view_of(svc, m, Viewer.of_seat(3))["current_round"]
    r = web.post(
        m.seats[3], data={"round": str(number), "order": json.dumps(order)}, follow_redirects=True
    )
    html = r.get_data(as_text=True)
    assert r.status_code == 200, html
    assert "has been received" in html
    assert (
        "Your order: build w10 (angled, Garrison) on space 5; then the Garrison pair with " in html
    )
    assert "Ana&#39;s space 6, heading left, then place an army on Bo&#39;s space 5" in html
    svc.close_round(m.match_id)
    played = view_of(svc, m, Viewer.public())["result"]["steps"][-1]
    assert played["seat"] == 3 and played["order"]["action"]["build"] == "w10"
    assert len(played["order"]["action"]["pairs"][0]["uses"]) == 2


def test_a_refused_order_is_answered_in_words(web: FlaskClient, svc: Referee) -> None:
    m = demo_match(svc, 18)
    number = view_of(svc, m, Viewer.of_seat(3))["current_round"]
    bad = {
        "action": {
            "build": "w04",
            "space": 5,
            "pairs": [{"with": 6, "symbol": "ram", "target": 2, "space": 3}],
        }
    }
    r = web.post(m.seats[3], data={"round": str(number), "order": json.dumps(bad)})
    html = r.get_data(as_text=True)
    assert 400 <= r.status_code < 500
    problems = re.search(r'<div class="problems".*?</div>', html, re.S)
    assert problems is not None
    text = problems.group(0)
    assert "pair 1" in text and "pairs[" not in text
    assert "Bo" in text and "seat 2" not in text
    no_rule_ids(html)
    # what was sent stays in the box, to be mended
    assert htmllib.escape(json.dumps(bad), quote=False) in html or "&#34;w04&#34;" in html
    # an empty or malformed box says so
    r = web.post(m.seats[3], data={"round": str(number), "order": "{"})
    assert 400 <= r.status_code < 500 and "Traceback" not in r.get_data(as_text=True)


def create_form(**extra: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "game": "forfort",
        "name": "Forfort night",
        "deadline_hours": "48",
        "create": "1",
    }
    for i, (name, garnets) in enumerate([("Ana", 3), ("Bo", 5)]):
        data[f"players-{i}-name"] = name
        data[f"players-{i}-garnets"] = str(garnets)
    data.update(extra)
    return data


def test_the_default_card_set(web: FlaskClient) -> None:
    r = web.post("/new", data=create_form(), follow_redirects=True)
    assert r.status_code == 200 and "/play/" in r.get_data(as_text=True)
    r = web.post("/new", data=create_form(check_cards="1"))
    html = r.get_data(as_text=True)
    assert r.status_code == 200 and "The card set is valid." in html
    assert "22 walls per player: 11 angled, 11 straight" in html
    # the default set pasted is accepted too
    pasted = json.dumps(default_card_set().as_json())
    r = web.post("/new", data=create_form(cards_json=pasted), follow_redirects=True)
    assert r.status_code == 200 and "/play/" in r.get_data(as_text=True)


def bad_set() -> str:
    doc = default_card_set().as_json()
    doc["walls"][0]["id"] = "camp"  # a bad id
    doc["walls"][1]["arrows"] = [3, 3]  # a bad card
    doc["camps"] = 0  # a bad supply
    return json.dumps(doc, indent=1)


def test_a_bad_card_set_lists_every_problem_and_keeps_the_text(web: FlaskClient) -> None:
    text = bad_set()
    for data in (
        create_form(cards_json=text),
        create_form(check_cards="1", cards_json=text),
        create_form(cards_file=(io.BytesIO(text.encode()), "mine.json")),
    ):
        r = web.post("/new", data=data, content_type="multipart/form-data")
        html = r.get_data(as_text=True)
        assert 400 <= r.status_code < 500
        errors = re.search(r'<ul class="field-errors" id="cards-errors">(.*?)</ul>', html, re.S)
        assert errors is not None, html
        listed = re.findall(r"<li>", errors.group(1))
        assert len(listed) >= 3, errors.group(1)
        box = re.search(r'<textarea[^>]*id="cards_json"[^>]*>(.*?)</textarea>', html, re.S)
        assert box is not None and htmllib.unescape(box.group(1)).strip() == text.strip()
        assert 'aria-invalid="true"' in box.group(0)
    r = web.post("/new", data=create_form(cards_json="{not json"))
    html = r.get_data(as_text=True)
    assert 400 <= r.status_code < 500 and 'id="cards-errors"' in html


def test_hostile_names_are_escaped_everywhere(web: FlaskClient, svc: Referee) -> None:
    for steps in (3, 18, 47):
        m = demo_match(svc, steps, HOSTILE)
        for url in [m.host, m.public, *m.seats.values()]:
            html = page(web, url)
            assert "<script>alert" not in html
            assert "<img src=x" not in html
            assert "&lt;img src=x onerror=alert(2)&gt;" in html or "\\u003cimg" in html
            data = turn_data(html)
            if data is not None:  # names inside the script block cannot close it
                assert data["names"]["1"] == HOSTILE[0]


def test_rules_page(web: FlaskClient) -> None:
    html = page(web, "/games/forfort/rules")
    no_rule_ids(html)
    for words in ("Pairs", "drawbridge", "Armies", "Token of Life", "Elimination Candidate"):
        assert words in html


def test_a_host_card_set_makes_the_match(web: FlaskClient, svc: Referee) -> None:
    """An empty box gives the default set (19 cards in each dungeon after the
    deal of 3); a smaller valid set is the match's set (9 after the deal)."""
    r = web.post("/new", data=create_form())
    assert r.status_code == 303, r.get_data(as_text=True)
    (first,) = svc.match_ids()
    assert svc.state(first).game_state().data["dungeon_counts"] == {"1": 19, "2": 19}
    small = default_card_set().as_json()
    small = {**small, "walls": small["walls"][:12], "armies": 2}
    r = web.post("/new", data=create_form(cards_json=json.dumps(small)))
    assert r.status_code == 303, r.get_data(as_text=True)
    (second,) = [m for m in svc.match_ids() if m != first]
    data = svc.state(second).game_state().data
    assert data["dungeon_counts"]["1"] == 9 and data["supply"]["1"]["armies"] == 2
    # the pages describe the host's cards from the view's card set (public)
    public = view_for(svc.state(second), Viewer.public())
    assert public["result"]["cards"] == small
    assert (
        card_table(public["result"]["cards"])["w12"]["name"]
        == "w12 (straight, Mason, Battering Ram)"
    )
    assert "w13" not in card_table(public["result"]["cards"])


@pytest.mark.parametrize("steps", [9, 10, 20])
def test_a_long_match_folds_its_earlier_rounds(web: FlaskClient, svc: Referee, steps: int) -> None:
    """The shared rounds table (templates/public/_macros.html) of a match of
    more than 10 rounds shows the last 6 closed ones and the open one, the
    earlier ones under "Earlier rounds": every round is on the page once. A
    long turn-based match is where it shows (a phone read 49 rows before)."""
    m = demo_match(svc, steps)
    for url in (m.public, m.seats[1], m.host):
        html = page(web, url)
        main = html.split("<caption>Rounds</caption>")[1].split("</table>")[0]
        titles = re.findall(r'<th scope="row">(Round [^<]+)</th>', main)
        folded = re.findall(r"<summary>Earlier rounds \((\d+)\)</summary>", html)
        if steps + 1 <= 10:  # the closed steps and the open one
            assert folded == [] and len(titles) == steps + 1, (url, titles)
            assert "<caption>Earlier rounds</caption>" not in html
        else:
            assert folded == [str(steps - 6)], url
            assert len(titles) == 7, (url, titles)  # the last 6 closed, the open one
            older = html.split("<caption>Earlier rounds</caption>")[1].split("</table>")[0]
            early = re.findall(r'<th scope="row">(Round [^<]+)</th>', older)
            assert len(early) == steps - 6
            assert len(set(early + titles)) == steps + 1  # each round once


def test_each_fort_in_words_folds_under_its_points(web: FlaskClient, svc: Referee) -> None:
    """Beside the picture, each fort is told in words (for screen readers and
    for checking the picture), folded under one line with its owner and
    points: space by space, the top card of its stack (or an army, or empty),
    as the public view has it."""
    m = demo_match(svc, 30)
    result = view_for(svc.state(m.match_id), Viewer.public())["result"]
    html = page(web, m.public)
    forts = re.findall(r'<details class="ff-fort">(.*?)</details>', html, re.S)
    assert len(forts) == 3
    names = {1: "Ana", 2: "Bo", 3: "Cy"}
    for seat, words in enumerate(forts, start=1):
        points = result["points"][str(seat)]
        summary = words.split("</summary>")[0]
        assert f"{names[seat]}\u2019s fort (seat {seat}): {points} point" in summary
        items = re.findall(r"<li[^>]*>(.*?)</li>", words.split('<ol class="ff-spaces">')[1], re.S)
        spaces = result["forts"][str(seat)]["spaces"]
        for number, item in enumerate(items[:8], start=1):
            space = spaces.get(str(number)) or {}
            assert f"Space {number}</span>" in item
            if space.get("army"):
                assert "an army of" in item, item
            elif space.get("stack"):
                top = str(space["stack"][-1])
                assert (top if top != "camp" else "a camp") in item, (item, top)
            else:
                assert item.endswith(": empty"), item
    assert any("stack" in sp for f in result["forts"].values() for sp in f["spaces"].values())


@pytest.mark.parametrize("steps", [18, 21, 30])
def test_a_seat_with_many_orders_folds_its_earlier_ones(
    web: FlaskClient, svc: Referee, steps: int
) -> None:
    """The seat page's "Your orders and receipts" (templates/player/play.html)
    of a seat with more than 6 orders shows its last 3, the earlier ones under
    "Earlier orders": each receipt once, the newest last. A turn-based match
    is where it shows (a phone read dozens of receipts before the hand)."""
    m = demo_match(svc, steps)
    html = page(web, m.seats[1])
    section = html.split('id="my-orders-h"')[1].split("</section>")[0]
    receipts = re.findall(r'receipt <code class="receipt">([0-9a-f]+)</code>', section)
    state = svc.state(m.match_id)
    stored = [o.receipt for o in sorted(state.orders, key=lambda o: o.round_number) if o.seat == 1]
    assert len(stored) >= 6 and sorted(receipts) == sorted(stored)
    folded = re.findall(r"<summary>Earlier orders \((\d+)\)</summary>", section)
    if len(stored) <= 6:
        assert folded == [] and receipts == stored
    else:
        assert folded == [str(len(stored) - 3)]
        older = section.split("</summary>")[1].split("</details>")[0]
        assert re.findall(r'<code class="receipt">([0-9a-f]+)</code>', older) == stored[:-3]
        assert receipts[-3:] == stored[-3:]


def test_the_host_audit_page_of_a_finished_match(web: FlaskClient, svc: Referee) -> None:
    """The host's audit (FO22) is offered only once the match has finished;
    then each player's last turn in words and a table, with the ruleset's
    numbers, names escaped."""
    names = ("Ana", HOSTILE[1], "Cy")
    m = demo_match(svc, 46, names)  # one turn before the end
    assert f"{m.host}/audit" not in page(web, m.host)
    m = demo_match(svc, 47, names)
    assert f"{m.host}/audit" in page(web, m.host)
    html = page(web, f"{m.host}/audit")
    assert HOSTILE[1] not in html and htmllib.escape(HOSTILE[1], quote=False) in html
    export = json.loads(web.get(f"{m.host}/export").get_data(as_text=True))
    assert export["seed"] is not None  # the match file of a finished match
    report = get_ruleset("forfort").audit(export)
    section = html.split('id="audit-h"')[1].split("</section>")[0]
    items = re.findall(r"<li>(.*?)</li>", section, re.S)
    assert len(items) == 3
    for (seat, a), item in zip(report["seats"].items(), items, strict=True):
        shown = htmllib.escape(names[int(seat) - 1], quote=False)
        assert (
            f"<strong>{shown}</strong>, last turn at step {a['step']}: {a['actual']} points" in item
        )
        if a["gain"]:
            assert f"would have given {a['best']} ({a['gain']} more)" in item
        else:
            assert "the most any turn there could give" in item
    assert "FO22" not in section
