"""Names through the "/new" form (issue 10, Medium 5): a player name holding a
line break or a bidi control, and two look-alike player names, are refused
(422) with the message next to the player's field; nothing is stored. The form
strips the ends of each field, so the bad character sits inside the name."""

from __future__ import annotations

import pytest
from flask.testing import FlaskClient

from referee.service import Referee

from .web_kit import esc, new_match_form


def errors_of(html: str, field: str) -> str:
    """The messages shown next to a field of the create form."""
    return html.split(f'id="{field}-errors"', 1)[1].split("</ul>", 1)[0]


def test_the_form_refuses_a_player_name_with_a_line_break(
    client: FlaskClient, svc: Referee
) -> None:
    data = new_match_form("Form names", **{"players-1-name": "Bo\nToken of Life: Bo"})
    r = client.post("/new", data=data)
    assert r.status_code == 422
    near = errors_of(r.get_data(as_text=True), "players-1")
    assert "Seat 2: " in near and "U+000A" in near and "line break" in near
    assert svc.match_ids() == []


@pytest.mark.parametrize(
    "char", ["\u200e", "\u200f", "\u061c", "\u2067"], ids=["U+200E", "U+200F", "U+061C", "U+2067"]
)
def test_the_form_refuses_a_player_name_with_a_direction_mark(
    client: FlaskClient, svc: Referee, char: str
) -> None:
    data = new_match_form("Form names", **{"players-1-name": f"B{char}o"})
    r = client.post("/new", data=data)
    assert r.status_code == 422
    near = errors_of(r.get_data(as_text=True), "players-1")
    code = f"U+{ord(char):04X}"
    assert "Seat 2: " in near and f"a bidirectional-text control ({code})" in near
    assert svc.match_ids() == []


def test_the_form_accepts_a_player_name_with_a_zero_width_joiner(
    client: FlaskClient, svc: Referee
) -> None:
    r = client.post("/new", data=new_match_form("Form names", **{"players-1-name": "B\u200do"}))
    assert r.status_code == 303, r.get_data(as_text=True)
    (match_id,) = svc.match_ids()
    assert svc.state(match_id).seats[1].name == "B\u200do"


def test_the_form_refuses_a_match_name_with_a_bidi_control(
    client: FlaskClient, svc: Referee
) -> None:
    r = client.post("/new", data=new_match_form("Friday \u202egnirts"))
    assert r.status_code == 422
    assert "U+202E" in errors_of(r.get_data(as_text=True), "name")
    assert svc.match_ids() == []


def test_the_form_refuses_two_look_alike_player_names(client: FlaskClient, svc: Referee) -> None:
    data = new_match_form("Form names", **{"players-0-name": "Ana", "players-2-name": "\u0410NA"})
    r = client.post("/new", data=data)
    assert r.status_code == 422
    near = errors_of(r.get_data(as_text=True), "players-2")
    assert "seats 1 and 3" in near and esc('"Ana"') in near
    assert svc.match_ids() == []
