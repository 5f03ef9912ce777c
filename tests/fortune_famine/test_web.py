"""Fortune & Famine's web pages (referee/rulesets/fortune_famine/web.py,
templates/rulesets/fortune_famine/, static/rulesets/fortune_famine/) through
the Flask test client on SQLite and PostgreSQL: each seat's page shows its own
stored grain and nobody else's before the end, the public page none, the host
all (checked by value at many states of the demo); the order form carries
exactly the seat's options (as JSON for the order script, in words beside the
JSON box); composed hire, attack and economy orders are accepted through the
form and stored as sent; a refused one is answered in words and its text
kept; the create page's deck (default, pasted, uploaded; every problem
listed, the text kept) and rulers; hostile player names are escaped on every
page; the rules page; no rule ids in the words."""

from __future__ import annotations

import html as htmllib
import io
import json
import re
from dataclasses import dataclass
from typing import Any

import markupsafe
import pytest
from flask.testing import FlaskClient

from referee.demo import play_steps
from referee.ruleset import Viewer, get_ruleset
from referee.rulesets.fortune_famine.cards import default_deck
from referee.rulesets.fortune_famine.web import card_words
from referee.rulesets.fortune_famine.words import ruler
from referee.service import Referee
from referee.views import view_for

GAME = "fortune-famine"
HOSTILE = (
    '<script>alert("a")</script>',
    "Bo <img src=x onerror=alert(2)>",
    "Cy & \"Dee\" 'x'",
    "Di",
)
NAMES = ("Ana", "Bo", "Cy", "Di")
# demo steps (29 in all): 7 and 9 open hire turns (seats 4 and 2), 10 the
# season 2 economy, 26 an attack turn of seat 4 (an Evrathor), 27 of seat 1
# (Besella/Baroso's guard), 28 the last economy, 29 the end
HIRE_STEP, ECONOMY_STEP, ATTACK_STEP, LAST_ECONOMY = 7, 10, 26, 28


@dataclass
class Match:
    match_id: str
    host: str
    seats: dict[int, str]
    public: str


def demo_match(svc: Referee, steps: int, names: tuple[str, ...] = NAMES) -> Match:
    """The demo match of 4 players with its first ``steps`` steps played."""
    demo = get_ruleset(GAME).demo(None)
    created = svc.create_match(
        name="Harvest <b>night</b>",
        setup=demo.setup,
        players=[{**p, "name": names[i]} for i, p in enumerate(demo.players)],
        settings=demo.settings,
        ruleset=GAME,
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


def view_of(svc: Referee, m: Match, viewer: Viewer) -> dict[str, Any]:
    return view_for(svc.state(m.match_id), viewer)


def turn_data(html: str) -> dict[str, Any] | None:
    found = re.search(
        r'<script type="application/json" id="fnf-turn-data">(.*?)</script>', html, re.S
    )
    if found is None:
        return None
    data: dict[str, Any] = json.loads(found.group(1))
    return data


def seat_block(html: str, seat: int) -> str:
    found = re.search(rf'<div class="fnf-seat[^"]*" id="fnf-seat-{seat}">(.*?)</div>', html, re.S)
    assert found is not None, seat
    return found.group(1)


def stored_shown(block: str) -> int | None:
    found = re.search(r'class="fnf-stored">stored grain: <strong>(\d+)</strong>', block)
    return int(found.group(1)) if found else None


def no_rule_ids(html: str) -> None:
    text = re.sub(r"<[^>]+>", " ", html)
    assert not re.search(r"\bFF\d+\b", text)
    assert "Traceback" not in html


@pytest.mark.parametrize("steps", [0, 5, HIRE_STEP, ECONOMY_STEP, 19, ATTACK_STEP, 29])
def test_each_seat_sees_its_own_storage_and_nobody_elses(
    web: FlaskClient, svc: Referee, steps: int
) -> None:
    m = demo_match(svc, steps)
    host_result = view_of(svc, m, Viewer.host())["result"]
    # each seat's total as its own view gives it (the engine's FF21 view)
    truth = {
        s: view_of(svc, m, Viewer.of_seat(s))["result"]["seats"][str(s)]["stored"] for s in m.seats
    }
    assert all(isinstance(v, int) for v in truth.values())
    if steps:  # the host sees the same totals (before the first close, the public start)
        assert truth == {int(k): s["stored"] for k, s in host_result["seats"].items()}
    finished = bool(host_result["finished"])
    host = page(web, m.host)
    no_rule_ids(host)
    for seat in truth:
        # the host sees every total (the public start before the first step closes)
        if steps:
            assert stored_shown(seat_block(host, seat)) == truth[seat], seat
    for seat, url in m.seats.items():
        html = page(web, url)
        no_rule_ids(html)
        assert stored_shown(seat_block(html, seat)) == truth[seat]
        for other in truth:
            if other == seat:
                continue
            block = seat_block(html, other)
            if finished:
                assert stored_shown(block) == truth[other]
            else:
                assert stored_shown(block) is None and "stored grain hidden" in block
        data = turn_data(html)
        if data is not None:
            assert data["me"]["stored"] == truth[seat]
            assert "stored" not in json.dumps(data["boards"])
    public = page(web, m.public)
    no_rule_ids(public)
    for seat in truth:
        block = seat_block(public, seat)
        if finished:
            assert stored_shown(block) == truth[seat]
        else:
            assert stored_shown(block) is None
    if finished:
        assert "Token of Life" in public and "Elimination Candidate" in public
    # somebody has stored something by then: the check is not vacuous
    assert steps < ECONOMY_STEP or any(truth.values())


@pytest.mark.parametrize("steps", [ECONOMY_STEP, 29])
def test_each_kingdom_in_words_folds_its_cards_under_its_line(
    web: FlaskClient, svc: Referee, steps: int
) -> None:
    """Beside the picture, each Kingdom is told in words, its cards folded
    under one line that stays shown: who (or "Your Kingdom"), seat, ruler and
    the number of cards, then grain, silver and the stored grain (or that it
    is hidden). The seat's own Kingdom is open, mid-match and at the end; the
    others, and every Kingdom on the host's and the public page, closed."""
    m = demo_match(svc, steps)
    pages = {seat: (url, Viewer.of_seat(seat)) for seat, url in m.seats.items()}
    pages.update({0: (m.host, Viewer.host()), -1: (m.public, Viewer.public())})
    for own, (url, viewer) in pages.items():
        html = page(web, url)
        result = view_of(svc, m, viewer)["result"]
        card = card_words(result["deck"])
        for seat, s in result["seats"].items():
            block = seat_block(html, int(seat))
            fold = re.fullmatch(
                r'\s*<details class="fnf-seat-words"( open)?>\s*<summary>(.*?)</summary>'
                r'\s*<ul class="fnf-kingdom">(.*?)</ul>\s*</details>\s*',
                block,
                re.S,
            )
            assert fold is not None, (own, seat, block)
            opened, summary, cards = fold.groups()
            assert bool(opened) == (int(seat) == own), (own, seat)
            who = "Your Kingdom" if int(seat) == own else NAMES[int(seat) - 1]
            count = len(s["kingdom"])
            heading = f"{who} (seat {seat}), {ruler(s['ruler'])}: {count} card"
            assert re.search(rf"<h4>{re.escape(heading)}s?</h4>", summary), (summary, heading)
            holdings = summary.split('<span class="fnf-holdings">')[1]
            assert holdings.startswith(f"{s['grain']} grain, {s['silver']} silver")
            if s.get("stored") is None:
                assert '<span class="fnf-stored-hidden">' in holdings
            else:
                assert stored_shown(holdings) == s["stored"]
            items = [htmllib.unescape(i) for i in re.findall(r"<li>(.*?)</li>", cards, re.S)]
            assert [i.split(":")[0] for i in items] == [card(c)["name"] for c in s["kingdom"]]
            assert "<li>" not in summary and "fnf-stored" not in cards
        # one fold a Kingdom, each its own
        assert html.count('<details class="fnf-seat-words"') == len(result["seats"])
        assert html.count('<details class="fnf-seat-words" open>') == (own > 0)


def test_the_hire_board_shows_each_bid_and_bidder(web: FlaskClient, svc: Referee) -> None:
    m = demo_match(svc, HIRE_STEP)  # season 2: Bo bid 1 on the Philosopher, Cy 1 on a farmer
    html = page(web, m.public)
    board = html.split('id="fnf-board-h"')[1].split("</section>")[0]
    assert "<strong>Philosopher 1</strong>" in board
    assert "bid 1 silver by Bo" in board and "bid 1 silver by Cy" in board
    assert "no bid yet" in board


@pytest.mark.parametrize("steps", [HIRE_STEP, ECONOMY_STEP, ATTACK_STEP, 27])
def test_the_form_offers_exactly_the_options(web: FlaskClient, svc: Referee, steps: int) -> None:
    m = demo_match(svc, steps)
    host_view = view_of(svc, m, Viewer.host())
    acting = host_view["result"]["next_round"]["acting"]
    for seat, url in m.seats.items():
        html = page(web, url)
        data = turn_data(html)
        if seat not in acting:
            assert data is None
            continue
        view = view_of(svc, m, Viewer.of_seat(seat))
        assert data is not None and data["options"] == view["options"], seat
        assert data["seat"] == seat
        assert "static/rulesets/fortune_famine/order.js" in html
        opts = view["options"]
        words = [
            htmllib.unescape(w)
            for w in re.findall(
                r"<li>([^<]*)</li>", html.split('class="fnf-option-list"')[1].split("</ul>")[0]
            )
        ]
        if opts["phase"] == "hire":
            assert (
                len(words) == len(opts["cards"]) + 1 + (opts["trade"] is not None) + opts["guard"]
            )
            for c, line in zip(opts["cards"], words, strict=False):
                if c["how"] == "bid":
                    assert line.startswith(f"Bid {c['min_silver']} to {opts['max_silver']} silver")
            assert "Pass." in words
        elif opts["phase"] == "economy":
            pays = [w for w in words if w.startswith("Pay ")]
            assert len(pays) == len(opts["pay"])
            assert any(f"up to {opts['store_max']}" in w for w in words)
        else:
            assert len([w for w in words if w.startswith("Evrathor")]) == len(opts["evrathor"])
    # the host enters orders as JSON: no options, no script data
    host_form = page(web, f"{m.host}/order/{acting[0]}")
    assert turn_data(host_form) is None


def post_order(web: FlaskClient, svc: Referee, m: Match, seat: int, order: Any) -> str:
    number = view_of(svc, m, Viewer.of_seat(seat))["current_round"]
    r = web.post(
        m.seats[seat],
        data={"round": str(number), "order": json.dumps(order)},
        follow_redirects=True,
    )
    html = r.get_data(as_text=True)
    assert r.status_code == 200, html
    assert "has been received" in html
    return html


def test_a_hire_order_is_sent_through_the_form_and_stored_as_sent(
    web: FlaskClient, svc: Referee
) -> None:
    m = demo_match(svc, HIRE_STEP)  # seat 4 (Elban/Eltezza) outbids on the Philosopher
    order = {"action": "bid", "card": "philosopher.1", "silver": 3}
    html = post_order(web, svc, m, 4, order)
    assert "Your order: bid 3 silver on Philosopher 1" in html
    state = svc.state(m.match_id)
    (sent,) = [o for o in state.orders if o.seat == 4 and o.round_number == HIRE_STEP + 1]
    assert sent.payload == order
    svc.close_round(m.match_id)
    turn = view_of(svc, m, Viewer.public())["result"]["seasons"][-1]["hire_turns"][-1]
    assert turn["seat"] == 4 and turn["action"] == "bid" and turn["silver"] == 3


def test_an_attack_order_is_sent_through_the_form(web: FlaskClient, svc: Referee) -> None:
    m = demo_match(svc, ATTACK_STEP)
    view = view_of(svc, m, Viewer.of_seat(4))
    (evr,) = view["options"]["evrathor"]
    target, cap = next(iter(evr["from"].items()))
    order = {"evrathor": [{"card": evr["card"], "from": {target: cap}}]}
    html = post_order(web, svc, m, 4, order)
    assert f"Your order: {evr['card'].split('.')[0].replace('-', ' ')}" not in html
    assert "from Cy" in html
    svc.close_round(m.match_id)
    attack = view_of(svc, m, Viewer.public())["result"]["seasons"][-1]["attacks"][-1]
    assert attack["seat"] == 4 and attack["evrathor"][0]["from"] == {target: cap}


def test_an_economy_order_is_sent_through_the_form(web: FlaskClient, svc: Referee) -> None:
    m = demo_match(svc, ECONOMY_STEP)
    opts = view_of(svc, m, Viewer.of_seat(3))["options"]
    pay = [p["card"] for p in opts["pay"]][:1]
    order = {"pay": pay, "decision": "store", "store": 2}
    html = post_order(web, svc, m, 3, order)
    assert "store 2 grain for 1 silver" in html
    svc.close_round(m.match_id)
    host = view_of(svc, m, Viewer.host())["result"]
    record = host["seasons"][-2]["economy"]["3"]
    assert record["paid"] == pay and record["decision"] == "store" and record["store"] == 2


def test_a_refused_order_is_answered_in_words_and_kept(web: FlaskClient, svc: Referee) -> None:
    m = demo_match(svc, HIRE_STEP)
    number = view_of(svc, m, Viewer.of_seat(4))["current_round"]
    bad = {"action": "bid", "card": "philosopher.1", "silver": 1}  # Bo's standing bid is 1
    r = web.post(m.seats[4], data={"round": str(number), "order": json.dumps(bad)})
    html = r.get_data(as_text=True)
    assert 400 <= r.status_code < 500
    problems = re.search(r'<div class="problems".*?</div>', html, re.S)
    assert problems is not None
    text = htmllib.unescape(problems.group(0))
    assert "Your bid of 1 silver on Philosopher 1 is too low." in text
    assert "philosopher.1" not in text
    no_rule_ids(html)
    box = re.search(r'<textarea[^>]*id="order"[^>]*>(.*?)</textarea>', html, re.S)
    assert box is not None and json.loads(htmllib.unescape(box.group(1))) == bad
    # an economy refusal names the amount
    m2 = demo_match(svc, ECONOMY_STEP)
    number = view_of(svc, m2, Viewer.of_seat(3))["current_round"]
    bad = {"decision": "store", "store": 40}
    r = web.post(m2.seats[3], data={"round": str(number), "order": json.dumps(bad)})
    text = htmllib.unescape(r.get_data(as_text=True))
    assert 400 <= r.status_code < 500 and "You would not have 40 grain to store." in text
    r = web.post(m2.seats[3], data={"round": str(number), "order": "{"})
    assert 400 <= r.status_code < 500 and "Traceback" not in r.get_data(as_text=True)


def create_form(**extra: Any) -> dict[str, Any]:
    data: dict[str, Any] = {"game": GAME, "name": "Harvest", "deadline_hours": "48", "create": "1"}
    for i, (name, garnets) in enumerate([("Ana", 3), ("Bo", 5)]):
        data[f"players-{i}-name"] = name
        data[f"players-{i}-garnets"] = str(garnets)
    data.update(extra)
    return data


def two_player_deck() -> dict[str, Any]:
    """The default deck's types with rows making 12 cards a Year for 2 players."""
    doc = default_deck().as_json()
    doc["cards"] = [
        {"type": t, "year": y, "corner": 2, "count": n}
        for y in (1, 2, 3)
        for t, n in (("famine", 1), ("common-farmer", 5), ("common-merchant", 6))
    ]
    doc["name"] = "Farmers and merchants"
    return doc


def test_the_default_deck_and_a_host_deck(web: FlaskClient, svc: Referee) -> None:
    r = web.post("/new", data=create_form(check_deck="1"))
    html = r.get_data(as_text=True)
    assert r.status_code == 200 and "The deck is valid." in html and "The default deck" in html
    r = web.post("/new", data=create_form())
    assert r.status_code == 303, r.get_data(as_text=True)
    (first,) = svc.match_ids()
    assert view_for(svc.state(first), Viewer.public())["result"]["deck"] == default_deck().as_json()
    own = two_player_deck()
    r = web.post(
        "/new",
        data=create_form(deck_json=json.dumps(own), ruler_1="arup-avintia", ruler_2="arup-avintia"),
    )
    assert 400 <= r.status_code < 500  # the same ruler twice
    assert "rulers-errors" in r.get_data(as_text=True)
    r = web.post(
        "/new",
        data=create_form(
            deck_json=json.dumps(own), ruler_1="cotarr-corace", ruler_2="arup-avintia"
        ),
    )
    assert r.status_code == 303, r.get_data(as_text=True)
    (second,) = [x for x in svc.match_ids() if x != first]
    result = view_for(svc.state(second), Viewer.public())["result"]
    assert result["deck"]["name"] == "Farmers and merchants"
    assert result["seats"]["1"]["ruler"] == "cotarr-corace"
    assert result["seats"]["2"]["ruler"] == "arup-avintia"
    assert result["seasons_total"] == 12  # the default length


def bad_deck() -> str:
    doc = default_deck().as_json()
    doc["types"][1]["payment"] = {"silver": 9}  # a bad number
    doc["types"].append({"id": "wiz", "kind": "wizard"})  # an unknown kind
    doc["cards"].append({"type": "nope", "year": 4, "corner": 2, "count": 1})  # a bad row
    return json.dumps(doc, indent=1)


def test_a_bad_deck_lists_every_problem_and_keeps_the_text(web: FlaskClient) -> None:
    text = bad_deck()
    for data in (
        create_form(deck_json=text),
        create_form(check_deck="1", deck_json=text),
        create_form(deck_file=(io.BytesIO(text.encode()), "mine.json")),
    ):
        r = web.post("/new", data=data, content_type="multipart/form-data")
        html = r.get_data(as_text=True)
        assert 400 <= r.status_code < 500
        errors = re.search(r'<ul class="field-errors" id="deck-errors">(.*?)</ul>', html, re.S)
        assert errors is not None, html
        listed = re.findall(r"<li>(.*?)</li>", errors.group(1), re.S)
        assert len(listed) >= 4, listed
        joined = htmllib.unescape(" ".join(listed))
        assert "card type 2" in joined and "row 76" in joined and "deck.types[" not in joined
        box = re.search(r'<textarea[^>]*id="deck_json"[^>]*>(.*?)</textarea>', html, re.S)
        assert box is not None and htmllib.unescape(box.group(1)).strip() == text.strip()
        assert 'aria-invalid="true"' in box.group(0)
    r = web.post("/new", data=create_form(deck_json="{not json"))
    html = r.get_data(as_text=True)
    assert 400 <= r.status_code < 500 and 'id="deck-errors"' in html


def test_a_deck_of_the_wrong_size_for_the_players_is_refused_by_its_field(
    web: FlaskClient,
) -> None:
    own = two_player_deck()
    own["cards"][0]["count"] = 2  # 13 cards in Year 1
    r = web.post("/new", data=create_form(deck_json=json.dumps(own)))
    html = r.get_data(as_text=True)
    assert 400 <= r.status_code < 500
    assert re.search(r'<ul class="field-errors" id="deck-errors">', html)


def report_text(web: FlaskClient, deck: dict[str, Any] | None) -> str:
    data = create_form(check_deck="1", **({"deck_json": json.dumps(deck)} if deck else {}))
    r = web.post("/new", data=data)
    html = r.get_data(as_text=True)
    assert r.status_code == 200 and "The deck is valid." in html, html
    found = re.search(r'<section class="fnf-deck-report".*?</section>', html, re.S)
    assert found is not None
    return " ".join(htmllib.unescape(re.sub(r"<[^>]+>", " ", found.group(0))).split())


def test_checking_a_deck_says_which_player_counts_it_fits(web: FlaskClient) -> None:
    """FF4's Year sizes depend on the player count, which "Check the deck
    only" may not know yet: its report says, for each count, whether the
    deck fits, and why not."""
    text = report_text(web, None)
    assert "It can be played by 2, 3, 4, 5 or 6 players." in text
    assert "With " not in text
    text = report_text(web, two_player_deck())  # 12 cards a Year, all of corner 2
    assert "It can be played by 2 players." in text
    for n in (3, 4, 5, 6):
        assert (
            f"With {n} players: deck: Year 1 has 12 cards with corner {n} or less; "
            f"with {n} players it needs exactly {4 * (n + 1)}"
        ) in text
    odd = two_player_deck()
    odd["cards"][0]["count"] = 2  # 13 cards in Year 1: no count fits
    text = report_text(web, odd)
    assert "No number of players can play it" in text
    assert "With 2 players: deck: Year 1 has 13 cards with corner 2 or less" in text
    with_two = text.split("With 2 players: ")[1].split("With 3 players")[0]
    assert "Year 1 has" in with_two and "Year 2 has" not in with_two  # only the misfit


def test_hostile_names_are_escaped_everywhere(web: FlaskClient, svc: Referee) -> None:
    for steps in (HIRE_STEP, ECONOMY_STEP, 29):
        m = demo_match(svc, steps, HOSTILE)
        for url in [m.host, m.public, *m.seats.values()]:
            html = page(web, url)
            assert "<script>alert" not in html
            assert "<img src=x" not in html
            assert "&lt;img src=x onerror=alert(2)&gt;" in html or "\\u003cimg" in html
            data = turn_data(html)
            if data is not None:  # names inside the script block cannot close it
                assert data["names"]["1"] == HOSTILE[0]


def test_the_rules_page(web: FlaskClient) -> None:
    html = page(web, f"/games/{GAME}/rules")
    no_rule_ids(html)
    text = " ".join(re.sub(r"<[^>]+>", " ", html).split())
    for words in (
        "How to play Fortune &amp; Famine",
        "The goal",
        "How the match ends",
        "What the referee keeps sealed",
        "stored grain",
        "Token of Life",
        "Elimination Candidate",
        "seeded",
        "Besella/Baroso",
        "Chysarion",
        "Evrathor",
    ):
        assert words in text, words
    assert html.count("<svg") == 1 and 'role="img"' in html
    assert f'href="/new?game={GAME}"' in html


@pytest.mark.parametrize("steps", [9, 20])
def test_a_long_match_folds_its_earlier_rounds_and_seasons(
    web: FlaskClient, svc: Referee, steps: int
) -> None:
    m = demo_match(svc, steps)
    for url in (m.public, m.seats[1], m.host):
        html = page(web, url)
        main = html.split("<caption>Rounds</caption>")[1].split("</table>")[0]
        titles = re.findall(r'<th scope="row">([^<]+)</th>', main)
        folded = re.findall(r"<summary>Earlier rounds \((\d+)\)</summary>", html)
        if steps + 1 <= 10:
            assert folded == [] and len(titles) == steps + 1, (url, titles)
        else:
            assert folded == [str(steps - 6)], url
        seasons = re.findall(r"<summary>Earlier seasons \((\d+)\)</summary>", html)
        started = len(view_of(svc, m, Viewer.public())["result"]["seasons"])
        assert seasons == ([str(started - 2)] if started > 2 else [])


def test_pictures_are_placed_beside_their_words_when_drawn(
    web: FlaskClient, svc: Referee, monkeypatch: pytest.MonkeyPatch
) -> None:
    rules = get_ruleset(GAME)
    drawn = {
        "board": lambda view: "<svg><title>board-picture</title></svg>",
        "kingdoms": lambda view: "<svg><title>kingdoms-picture</title></svg>",
        "kingdoms-column": lambda view: "<svg><title>column-picture</title></svg>",
    }
    monkeypatch.setattr(type(rules), "pictures", lambda self: drawn)
    m = demo_match(svc, HIRE_STEP)
    html = page(web, m.public)
    board = html.split('id="fnf-board-h"')[1].split("</section>")[0]
    assert "board-picture" in board and "bid 1 silver by Bo" in board
    kingdoms = html.split('id="fnf-kingdoms-h"')[1].split('id="fnf-seasons-h"')[0]
    assert "kingdoms-picture" in kingdoms and "column-picture" in kingdoms
    assert 'class="picture-box fnf-wide"' in kingdoms and "fnf-narrow" in kingdoms
    # each only once on the page (not again under "Pictures")
    assert html.count("board-picture") == 1 and html.count("kingdoms-picture") == 1


def test_the_host_audit_page_of_a_finished_match(web: FlaskClient, svc: Referee) -> None:
    """The host's audit (FF22) is offered only once the match has finished;
    then each player's stored grain, the best last economy order's and the
    gain, in words and a table, with the ruleset's numbers, names escaped."""
    steps = len(get_ruleset(GAME).demo(None).steps)
    m = demo_match(svc, steps - 1, HOSTILE)  # the last economy step still open
    assert f"{m.host}/audit" not in page(web, m.host)
    m = demo_match(svc, steps, HOSTILE)
    assert f"{m.host}/audit" in page(web, m.host)
    html = page(web, f"{m.host}/audit")
    assert HOSTILE[1] not in html and htmllib.escape(HOSTILE[1], quote=False) in html
    export = json.loads(web.get(f"{m.host}/export").get_data(as_text=True))
    assert export["seed"] is not None  # the match file of a finished match
    report = get_ruleset(GAME).audit(export)
    section = html.split('id="audit-h"')[1].split("</section>")[0]
    items = re.findall(r"<li>(.*?)</li>", section, re.S)
    assert len(items) == 4
    for (seat, a), item in zip(report["seats"].items(), items, strict=True):
        shown = markupsafe.escape(HOSTILE[int(seat) - 1])
        assert f"<strong>{shown}</strong> ended with {a['actual']} stored grain" in item
        if a["gain"]:
            assert f"would have ended with {a['best_last_season']} ({a['gain']} more)" in item
        else:
            assert "the most any last economy order could give" in item
    rows = re.findall(r"<tr><th scope=\"row\" class=\"name\">.*?</tr>", section, re.S)
    assert len(rows) == 4
    assert "FF22" not in section and "best_last_season" not in section
