"""Forfort through the generic pages (no web module), on SQLite and
PostgreSQL: the create form's card-set box (left empty: the default set; a
bad set: every problem shown by the box), and a seat's page shows its own
hand and options, never another seat's hand."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from markupsafe import escape

from referee.rulesets.forfort.cards import default_card_set
from referee.rulesets.forfort.ruleset import TURN_SCHEMA
from referee.service import Referee

PLAYERS = [("Ana", 3), ("Bo", 5), ("Cy", 2)]


@pytest.fixture
def web(app: Flask) -> Iterator[FlaskClient]:
    app.config["WTF_CSRF_ENABLED"] = False
    yield app.test_client()


@pytest.fixture
def service(app: Flask) -> Referee:
    found: Referee = app.extensions["referee"]
    return found


def _form(**extra: str) -> dict[str, Any]:
    data = {"game": "forfort", "name": "Fort night", "deadline_hours": "48", "create": "1"}
    for i, (name, garnets) in enumerate(PLAYERS):
        data[f"players-{i}-name"] = name
        data[f"players-{i}-garnets"] = str(garnets)
    data.update(extra)
    return data


def test_the_create_page_has_an_optional_card_set_box(web: FlaskClient) -> None:
    html = web.get("/new?game=forfort").get_data(as_text=True)
    assert 'name="setup_cards"' in html and "cards (JSON)" in html


def test_an_empty_card_set_box_makes_a_match_with_the_default_set(
    web: FlaskClient, service: Referee
) -> None:
    r = web.post("/new", data=_form(setup_cards=""))
    assert r.status_code == 303, r.get_data(as_text=True)
    (match_id,) = service.match_ids()
    state = service.state(match_id)
    assert state.match.ruleset == "forfort"
    assert state.game_state().data["dungeon_counts"] == {"1": 19, "2": 19, "3": 19}


def test_a_bad_card_set_is_refused_with_every_problem_by_its_box(
    web: FlaskClient, service: Referee
) -> None:
    cards = default_card_set().as_json()
    cards["armies"] = 9  # cards/bad_supply
    cards["walls"][0]["arrows"] = [1, 1]  # cards/bad_card
    cards["walls"][5]["id"] = "W6"  # cards/bad_id
    r = web.post("/new", data=_form(setup_cards=json.dumps(cards)))
    html = r.get_data(as_text=True)
    assert r.status_code == 422, html
    errors = html.split('id="setup_cards-errors"', 1)[1].split("</ul>", 1)[0]
    assert errors.count("<li") == 3, errors
    for part in ("armies", "arrows", "W6"):
        assert part in errors
    assert service.match_ids() == []
    small = {**cards, "walls": cards["walls"][:12], "armies": 2}
    small["walls"][0]["arrows"] = [1, 2]
    small["walls"][5]["id"] = "w06"
    r = web.post("/new", data=_form(setup_cards=json.dumps(small)))
    assert r.status_code == 303, r.get_data(as_text=True)
    (match_id,) = service.match_ids()
    assert service.state(match_id).game_state().data["dungeon_counts"]["1"] == 9


def test_a_seat_page_shows_its_own_hand_only(web: FlaskClient, service: Referee) -> None:
    r = web.post("/new", data=_form(), follow_redirects=True)
    html = r.get_data(as_text=True)
    seats = re.findall(r'href="http://localhost(/play/[^"]+)"', html)
    assert len(seats) == 3
    (match_id,) = service.match_ids()
    service.open_round(match_id)
    hands = service.state(match_id).game_state().data["hands"]
    # the page's words (links hold random tokens that may look like a card id)
    pages = [re.sub(r"<[^>]*>", " ", web.get(link).get_data(as_text=True)) for link in seats]
    for seat, text in enumerate(pages, start=1):
        own = hands[str(seat)]
        others = {c for s, h in hands.items() if s != str(seat) for c in h} - set(own)
        others -= set(re.findall(r"w\d\d", TURN_SCHEMA["description"]))  # its example
        assert all(str(escape(c)) in text for c in own)
        assert not [c for c in others if re.search(rf"(?<![\w/-]){c}(?![\w/-])", text)], seat
    assert "camp_start" in pages[0] and "by_camp_start" in pages[0]  # seat 1 acts
    assert "by_camp_start" not in pages[1]
