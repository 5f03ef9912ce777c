"""The player's web pages: the seat page, its order forms for each phase,
refusals shown next to their fields, receipts, and what R11 lets a seat see."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from flask.testing import FlaskClient

from referee.errors import RuleError
from referee.rulesets.rocky_river.data import load_bundled_map, load_deck
from referee.rulesets.rocky_river.orders import check_draft, split_list
from referee.service import Referee

from .web_kit import (
    EXPECTED,
    GOLDEN,
    Clock,
    Links,
    create_match,
    esc,
    host_post,
    page,
    play_round,
    send,
)

HANDS: dict[str, list[str]] = EXPECTED["hands"]
CANONICAL = list(load_deck().ids)


def create(client: FlaskClient, **extra: str) -> Links:
    return create_match(client, "River test", **extra)


def receipt_in(html: str) -> str:
    found = re.search(r"Receipt: ([0-9a-f]{64})", html)
    assert found, "no receipt shown"
    return found.group(1)


# ---- the page -----------------------------------------------------------------


def test_seat_page_shows_map_round_deadline_and_draft_form(
    client: FlaskClient, clock: Clock
) -> None:
    links = create(client)
    host_post(client, links, "open")
    clock.now += timedelta(hours=1)
    html = page(client, links.seats[1])
    assert "the page of <strong>P1</strong> (seat 1)" in html
    # the map: every fork and branch, colour written, portrayed seat named
    river = load_bundled_map("three-rapids")
    for branch in river.branches.values():
        assert f'data-branch="{branch.id}"' in html
    assert 'class="color color-green">green</span>' in html
    assert "P2 (seat 2)" in html
    # the round, its deadline in UTC ISO form, and the time left
    assert "<strong>Draft</strong> is open for orders" in html
    assert "2030-01-03T12:00:00Z" in html
    assert "1 day 23 hours left" in html
    # the draft form: an ordered list of all 27 cards plus the text fallback
    assert html.count('name="ranking" value=') == 27
    assert 'name="ranking_text"' in html
    assert "ranking.js" in html
    assert "You have not sent an order for Draft yet" in html


def test_unknown_seat_link_is_404_and_reveals_nothing(client: FlaskClient) -> None:
    links = create(client)
    r = client.get("/play/not-a-real-token")
    assert r.status_code == 404
    html = r.get_data(as_text=True)
    assert "River test" not in html and "P1" not in html
    # the host's link is not a seat link
    assert client.get("/play/" + links.host.rsplit("/", 1)[1]).status_code == 404
    r = client.post("/play/nope", data={"round": "1"})
    assert r.status_code == 404


# ---- draft ------------------------------------------------------------------------


def test_draft_from_the_list_shows_its_receipt(client: FlaskClient, svc: Referee) -> None:
    links = create(client)
    host_post(client, links, "open")
    r = send(client, links, 1, 1)
    html = r.get_data(as_text=True)
    assert r.status_code == 200
    receipt = receipt_in(html)
    stored = svc.state(links.match_id).orders_of(1)[1]
    assert stored.receipt == receipt and stored.payload == GOLDEN["draft"]["1"]
    # the page now shows the order as received, and starts from it
    assert "has been received" in html and "Replace my order" in html
    first = re.findall(r'name="ranking" value="([A-Z]+)"', html)
    assert first == GOLDEN["draft"]["1"]


def test_draft_text_fallback_with_aliases(client: FlaskClient, svc: Referee) -> None:
    links = create(client)
    host_post(client, links, "open")
    ranking = ["Ace", *[c.lower() for c in CANONICAL if c != "AS"]]
    text = ", ".join(ranking[:10]) + "\n" + "\n".join(ranking[10:])
    r = client.post(
        links.seats[2],
        data={"round": "1", "ranking": CANONICAL, "ranking_text": text},
        follow_redirects=True,
    )
    assert r.status_code == 200
    receipt_in(r.get_data(as_text=True))
    # the text wins over the list, and is stored with canonical ids
    assert svc.state(links.match_id).orders_of(1)[2].payload == ["AS", *CANONICAL[:-1]]
    r = client.post(
        links.seats[3],
        data={"round": "1", "ranking_text": "Ace of Spades; " + ", ".join(CANONICAL[:-1])},
        follow_redirects=True,
    )
    assert r.status_code == 200
    assert svc.state(links.match_id).orders_of(1)[3].payload[0] == "AS"


def test_refused_draft_text_shows_every_problem_and_keeps_the_text(
    client: FlaskClient, svc: Referee
) -> None:
    links = create(client)
    host_post(client, links, "open")
    typed = "J, T, Joker, j, " + ", ".join(c for c in CANONICAL if c not in {"J", "T", "Q", "R"})
    r = client.post(links.seats[1], data={"round": "1", "ranking_text": typed})
    assert r.status_code == 422
    html = r.get_data(as_text=True)
    with pytest.raises(RuleError) as refused:
        check_draft(split_list(typed), load_deck())
    assert len(refused.value.problems) == 3  # unknown, duplicate, missing
    for problem in refused.value.problems:
        assert esc(problem.message) in html
    # next to the text field, and the text is kept as typed
    errors = html.split('id="ranking_text-errors"', 1)[1].split("</ul>", 1)[0]
    assert "Joker" in errors and "listed twice" in errors
    assert esc(typed) in html
    assert "Your order was not accepted" in html
    assert 1 not in svc.state(links.match_id).orders_of(1)


def test_refused_draft_list_puts_problems_next_to_each_entry(client: FlaskClient) -> None:
    links = create(client)
    host_post(client, links, "open")
    sent = ["J", "J", *[c for c in CANONICAL if c not in {"J", "K"}]]
    r = client.post(links.seats[1], data={"round": "1", "ranking": sent})
    assert r.status_code == 422
    html = r.get_data(as_text=True)
    # the duplicate is entry 2 (index 1): its message sits on that list item
    item = html.split('id="ranking-1-errors"', 1)[1].split("</ul>", 1)[0]
    assert "card J is listed twice" in item
    assert "missing: K" in html
    # the list keeps the order sent
    assert re.findall(r'name="ranking" value="([A-Z]+)"', html)[:3] == ["J", "J", "A"]


def test_replaced_order_shows_the_new_receipt(client: FlaskClient, svc: Referee) -> None:
    links = create(client)
    host_post(client, links, "open")
    first = receipt_in(send(client, links, 1, 1).get_data(as_text=True))
    html = send(client, links, 1, 1, list(reversed(CANONICAL))).get_data(as_text=True)
    second = receipt_in(html)
    assert first != second
    later = page(client, links.seats[1])
    assert second in later and first not in later
    stored = svc.state(links.match_id).orders_of(1)[1]
    assert stored.receipt == second and stored.revision == 2
    assert stored.payload == list(reversed(CANONICAL))


def test_order_after_close_is_refused_clearly(client: FlaskClient, svc: Referee) -> None:
    links = create(client)
    host_post(client, links, "open")
    host_post(client, links, "close")
    r = send(client, links, 1, 1)
    assert r.status_code == 409
    html = r.get_data(as_text=True)
    assert "has closed" in html and "not recorded" in html
    assert svc.state(links.match_id).orders_of(1) == {}
    # an order written for the draft while mapping is open is refused, not misread
    host_post(client, links, "open")
    r = send(client, links, 1, 1)
    assert r.status_code == 409
    assert "The open round is now Mapping" in r.get_data(as_text=True)
    assert svc.state(links.match_id).orders_of(2) == {}


# ---- mapping ----------------------------------------------------------------------


def test_mapping_offers_only_legal_branches_and_accepts_placements(
    client: FlaskClient, svc: Referee
) -> None:
    links = create(client)
    play_round(client, links, 1)
    host_post(client, links, "open")
    html = page(client, links.seats[1])
    deck = load_deck()
    river = load_bundled_map("three-rapids")
    for card in HANDS["1"]:
        select = html.split(f'name="place_{card}"', 1)[1].split("</select>", 1)[0]
        offered = set(re.findall(r'<option value="([^"]+)"', select))
        legal = {
            b.id for b in river.branches.values() if deck.by_id[card].value_for(b.color) is not None
        }
        assert offered == legal
    # the value the card would add is shown: A is red -5, green +1
    select_a = html.split('name="place_A"', 1)[1].split("</select>", 1)[0]
    assert "adds -5" in select_a and "adds +1" in select_a
    # no select for another seat's cards
    for card in HANDS["2"]:
        assert f'name="place_{card}"' not in html
    r = send(client, links, 1, 2)
    assert r.status_code == 200
    receipt_in(r.get_data(as_text=True))
    assert svc.state(links.match_id).orders_of(2)[1].payload == GOLDEN["placements"]["1"]


def test_refused_placements_show_each_problem_next_to_its_card(
    client: FlaskClient, svc: Referee
) -> None:
    links = create(client)
    play_round(client, links, 1)
    host_post(client, links, "open")
    placements = dict(GOLDEN["placements"]["1"])
    del placements["N"]  # not placed
    placements["A"] = "1R"  # A has no blue face; 1R is a blue slot
    placements["E"] = "nowhere"
    r = send(client, links, 1, 2, placements)
    assert r.status_code == 422
    html = r.get_data(as_text=True)
    near_a = html.split('id="place_A-errors"', 1)[1].split("</ul>", 1)[0]
    assert "has no blue face" in near_a
    near_e = html.split('id="place_E-errors"', 1)[1].split("</ul>", 1)[0]
    assert "not a branch" in near_e
    near_n = html.split('id="place_N-errors"', 1)[1].split("</ul>", 1)[0]
    assert "choose a branch for card N" in near_n
    assert "not placed: N" in html
    # the choices made are kept
    select_i = html.split('name="place_I"', 1)[1].split("</select>", 1)[0]
    assert '<option selected value="7L">' in select_i
    assert svc.state(links.match_id).orders_of(2) == {}


# ---- rafting ----------------------------------------------------------------------


def test_rafting_votes_and_refusal(client: FlaskClient, svc: Referee) -> None:
    links = create(client)
    play_round(client, links, 1)
    play_round(client, links, 2)
    host_post(client, links, "open")
    html = page(client, links.seats[3])
    assert html.count('type="radio"') == 6
    assert "the raft is now at fork f1" in html
    # a fork left without a choice is refused next to that fork; the others are kept
    r = client.post(links.seats[3], data={"round": "3", "vote_0": "L", "vote_2": "R"})
    assert r.status_code == 422
    html = r.get_data(as_text=True)
    near = html.split('id="vote_1-errors"', 1)[1].split("</ul>", 1)[0]
    assert "fork 2: choose left or right" in near  # the form's words, not L or R
    assert '<input checked id="vote_0-0" name="vote_0" type="radio" value="L">' in html
    assert '<input checked id="vote_2-1" name="vote_2" type="radio" value="R">' in html
    assert '<input id="vote_1-0"' in html and '<input id="vote_1-1"' in html
    r = send(client, links, 3, 3)
    assert r.status_code == 200
    receipt_in(r.get_data(as_text=True))
    assert svc.state(links.match_id).orders_of(3)[3].payload == GOLDEN["votes"][0]["3"]


# ---- R11: what each seat sees after each round ----------------------------------


def assert_seat_sees_only_its_own(html: str, seat: int, placements: bool) -> None:
    for other in ("1", "2", "3"):
        cards = HANDS[other]
        if other == str(seat):
            assert f'data-hand-seat="{seat}"' in html
            for card in cards:
                assert f'data-hand-card="{card}"' in html
        else:
            assert f'data-hand-seat="{other}"' not in html
            for card in cards:
                assert f'data-hand-card="{card}"' not in html
                assert f'name="place_{card}"' not in html
        for card, branch in GOLDEN["placements"][other].items():
            shown = f'data-placement="{card}:{branch}"' in html
            assert shown == (placements and other == str(seat))
            if other != str(seat):
                assert f"{card} → {branch}" not in html


def test_r11_visibility_for_each_seat_after_each_round(client: FlaskClient) -> None:
    links = create(client)
    # before any round closes: no hands, no placements, only own order
    host_post(client, links, "open")
    send(client, links, 1, 1)
    other = page(client, links.seats[2])
    assert "data-hand-card" not in other and ", ".join(GOLDEN["draft"]["1"]) not in other
    own = page(client, links.seats[1])
    assert ", ".join(GOLDEN["draft"]["1"]) in own
    for seat in (2, 3):
        send(client, links, seat, 1)
    host_post(client, links, "close")
    for seat in (1, 2, 3):
        html = page(client, links.seats[seat])
        assert_seat_sees_only_its_own(html, seat, placements=False)
        # own draft list, never another's
        assert ", ".join(GOLDEN["draft"][str(seat)]) in html
        for o in {1, 2, 3} - {seat}:
            assert ", ".join(GOLDEN["draft"][str(o)]) not in html
        assert "Draft conflicts" not in html
    play_round(client, links, 2)
    for seat in (1, 2, 3):
        html = page(client, links.seats[seat])
        assert_seat_sees_only_its_own(html, seat, placements=True)
        assert "Slot totals stay secret" in html
    for number in (3, 4, 5):
        play_round(client, links, number)
        for seat in (1, 2, 3):
            html = page(client, links.seats[seat])
            assert_seat_sees_only_its_own(html, seat, placements=True)
            # the path so far, the votes, points and scores are public
            assert html.count("<tr data-step=") == 3 * (number - 2)
            assert "Scores and control" in html
    html = page(client, links.seats[1])
    assert "Token of Life" in html and "Elimination Candidate" in html
    ec = EXPECTED["elimination_candidate"]
    assert f"decided by {ec['decided_by']}" in html


def test_deadline_closes_the_round_on_page_load(client: FlaskClient, clock: Clock) -> None:
    links = create(client)
    host_post(client, links, "open")
    send(client, links, 1, 1)
    clock.now += timedelta(hours=49)
    html = page(client, links.seats[1])
    assert "closed at its deadline" in html
    assert "Seeded default orders" in html
    assert "draft: P2 (seat 2)" in html and "draft: P3 (seat 3)" in html
    # and the seat now sees its hand
    assert 'data-hand-seat="1"' in html
