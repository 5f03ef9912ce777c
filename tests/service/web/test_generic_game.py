"""A game with no web module is played in the browser through the generic
pages of referee/web/game.py: created from "/new?game=...", its set-up as JSON,
its settings drawn from its typed settings, orders sent as JSON (refused next
to the box when they are not JSON, do not match the phase's schema or break
the rules), results shown as a readable list, its pictures by name, and no
page answering 500. The game is the test-only toy (tests/toy, High Card),
which has no web module: one card each (set-up ``hand_size`` 1) makes a match
of two steps, a play then a pick."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from flask.testing import FlaskClient
from toy import Toy, registered

from referee.ruleset import Viewer
from referee.service import Referee
from referee.views import view_for

from .web_kit import esc, page

NAME = Toy.name


@pytest.fixture(autouse=True)
def _toy_registered() -> Iterator[None]:
    with registered():
        yield


SURE = {"sure": "y"}  # "I am sure", ticked


def create_form(**extra: Any) -> dict[str, Any]:
    data: dict[str, Any] = {
        "game": NAME,
        "name": "High Card night",
        "setup_hand_size": "1",
        "setup_deck": "",  # left empty: the whole deck
        "players-0-name": "Ann",
        "players-0-garnets": "3",
        "players-1-name": "Bob",
        "players-1-garnets": "1",
        "players-2-name": "",  # left blank: the game takes 2 to 6 players
        "players-2-garnets": "0",
        "players-3-name": "",
        "players-3-garnets": "",
        "players-4-name": "",
        "players-4-garnets": "",
        "players-5-name": "",
        "players-5-garnets": "",
        "deadline_hours": "48",
        "double": "y",
        "chart": "after-play",  # no picture until a trick is played
        "hints": "y",  # the view's other keys beside the options
        "create": "1",
    }
    data.update(extra)
    return data


def errors_of(html: str, field: str) -> str:
    return html.split(f'id="{field}-errors"', 1)[1].split("</ul>", 1)[0]


def test_the_create_page_offers_every_game_and_shows_the_chosen_ones_fields(
    client: FlaskClient,
) -> None:
    html = page(client, "/new")
    assert f'<option value="{NAME}">High Card</option>' in html
    assert '<option value="rocky-river" selected>' in html  # the API's default game
    html = page(client, f"/new?game={NAME}")
    assert f'<option value="{NAME}" selected>' in html
    assert f'<input type="hidden" name="game" value="{NAME}">' in html
    # the set-up as JSON, one box per key; the game's settings from their types
    assert 'name="setup_hand_size"' in html and "hand_size (JSON)" in html
    assert 'name="setup_deck"' in html and "deck (JSON)" in html
    assert re.search(r'<input id="double" name="double" type="checkbox"', html)
    assert '<select id="chart" name="chart">' in html
    assert '<option selected value="always">always</option>' in html
    # max_players rows, the ones past min_players may stay blank
    for i in range(6):
        assert f'name="players-{i}-name"' in html
    assert "Seat 3 (may be left blank)" in html and "a later row left blank" in html
    assert "check_setup" not in html  # the game has no set-up report
    r = client.get("/new?game=nope")
    assert r.status_code == 422 and "is not known" in r.get_data(as_text=True)


def test_refusals_of_the_generic_create_form_are_shown_by_their_fields(
    client: FlaskClient, svc: Referee
) -> None:
    r = client.post("/new", data=create_form(setup_hand_size="{not json", **{"players-1-name": ""}))
    assert r.status_code == 422
    html = r.get_data(as_text=True)
    assert "the hand_size is not valid JSON" in errors_of(html, "setup_hand_size")
    assert "players[1]: a name is 1 to 100 characters" in errors_of(html, "players-1")
    # the rules refuse a hand size too big for the deck, by the hand size's box...
    r = client.post("/new", data=create_form(setup_hand_size="3", setup_deck="4"))
    assert r.status_code == 422
    assert "2 hands of 3 cards need 6 cards: the deck has 4" in errors_of(
        r.get_data(as_text=True), "setup_hand_size"
    )
    # ... and so the one the game took for a hand size that could not be read
    # (3, its default): the reading says why, once
    r = client.post("/new", data=create_form(setup_hand_size="{not json", setup_deck="4"))
    assert r.status_code == 422
    html = r.get_data(as_text=True)
    assert "the hand_size is not valid JSON" in errors_of(html, "setup_hand_size")
    assert "the deck has 4" not in html and 'data-code="toy/deck_too_small"' not in html
    r = client.post("/new", data=create_form(setup_hand_size="9"))
    assert r.status_code == 422
    assert "hand_size must be 1 to 5, not 9" in errors_of(
        r.get_data(as_text=True), "setup_hand_size"
    )
    # a blank row past the minimum is left out; a row with garnets is not
    r = client.post("/new", data=create_form(**{"players-3-garnets": "4"}))
    assert r.status_code == 422
    assert "players[2]: a name is 1 to 100 characters" in errors_of(
        r.get_data(as_text=True), "players-3"
    )
    assert svc.match_ids() == []


def test_a_set_up_box_that_is_not_json_refuses_even_when_the_game_could_do_without_it(
    client: FlaskClient, svc: Referee
) -> None:
    """The toy takes its set-up without a deck (the whole deck), so a deck box
    that could not be read must not be dropped and the match made without it."""
    r = client.post("/new", data=create_form(setup_deck="[1, 2,"))
    assert r.status_code == 422
    assert "the deck is not valid JSON" in errors_of(r.get_data(as_text=True), "setup_deck")
    assert svc.match_ids() == []
    # every other problem is still named at once, by its field
    r = client.post("/new", data=create_form(setup_deck="[1, 2,", **{"players-1-name": ""}))
    assert r.status_code == 422
    html = r.get_data(as_text=True)
    assert "the deck is not valid JSON" in errors_of(html, "setup_deck")
    assert "players[1]: a name is 1 to 100 characters" in errors_of(html, "players-1")
    assert svc.match_ids() == []
    # the same form with the box left empty makes the match
    r = client.post("/new", data=create_form(setup_deck=""))
    assert r.status_code == 303
    assert len(svc.match_ids()) == 1


def test_a_game_without_web_parts_is_played_through_the_pages(
    client: FlaskClient, svc: Referee
) -> None:
    r = client.post("/new", data=create_form(), follow_redirects=True)
    assert r.status_code == 200, r.get_data(as_text=True)
    created = r.get_data(as_text=True)
    host = re.search(r'id="host-link" href="http://localhost(/host/[^"]+)"', created)
    seats = re.findall(r'href="http://localhost(/play/[^"]+)"', created)
    found = re.search(r'href="http://localhost/matches/([0-9a-f]+)"', created)
    assert host and found and len(seats) == 2  # the blank rows were left out
    match_id, dashboard = found.group(1), host.group(1)
    state = svc.state(match_id)
    assert state.match.ruleset == NAME and state.setup.data == {"hand_size": 1}
    assert state.match.settings == {
        "deadline_hours": 48,
        "close_early": False,
        "auto_open": False,
        "clock": None,
        "double": True,
        "chart": "after-play",
        "hints": True,
        "post_order": ["tricks", "scores"],
        "post_titles": {},
    }
    public = page(client, f"/matches/{match_id}")
    assert "High Card · public page" in public
    assert "the highest card of each trick scores double: yes" in public
    assert "when the scores chart is drawn: after-play" in public
    assert "No round has closed yet." in public
    assert "Pictures to embed" not in public  # nothing drawn yet
    assert client.get(f"/matches/{match_id}/scores.svg").status_code == 404

    assert client.post(f"{dashboard}/open", follow_redirects=True).status_code == 200
    # each seat's one card, dealt from the secret seed
    (mine,) = view_for(svc.state(match_id), Viewer.of_seat(1))["options"]
    (theirs,) = view_for(svc.state(match_id), Viewer.of_seat(2))["options"]
    html = page(client, seats[0])
    assert 'name="order"' in html and "Write the value of <code>card</code> as JSON" in html
    assert "You may choose from:" in html and f"<code>[{mine}]</code>" in html
    # the view's other game keys a player writes an order from, readable and escaped
    also = html.split('class="options order-also"', 1)[1].split("</div>", 1)[0]
    assert "<dt>hint</dt>" in also and "<dt>cards_left</dt><dd>1" in also
    assert f"<dt>highest</dt><dd>{mine}</dd>" in also and esc("play <em>one</em> card") in also
    assert "<em>" not in also and "<dt>result</dt>" not in also and "<dt>rounds</dt>" not in also
    # not JSON, not the phase's shape, against the rules: each refused next to the box
    other = mine % 30 + 1  # a card not in the hand
    for text, message, code in (
        ("three", "the order is not valid JSON", "json/invalid"),
        (f'"{mine}"', "is not of type", "toy/not_a_card"),
        (str(other), f"card {other} is not in your hand ({mine})", "toy/not_in_hand"),
    ):
        r = client.post(seats[0], data={"round": "1", "order": text})
        assert r.status_code == 422, text
        html = r.get_data(as_text=True)
        assert message in errors_of(html, "order-field") and f'data-code="{code}"' in html
        assert esc(text) in html  # what was typed is kept
    r = client.post(seats[0], data={"round": "1", "order": str(mine)}, follow_redirects=True)
    assert r.status_code == 200 and "was accepted" in r.get_data(as_text=True)
    html = r.get_data(as_text=True)
    assert (
        f"Your order: {mine}" in html and f"\n{mine}</textarea>" in html
    )  # the form starts from it
    # the host enters seat 2's order through the same generic form
    r = client.get(f"{dashboard}/order/2")
    assert r.status_code == 200 and 'name="order"' in r.get_data(as_text=True)
    r = client.post(
        f"{dashboard}/order/2", data={"round": "1", "order": str(theirs)}, follow_redirects=True
    )
    assert r.status_code == 200 and "recorded as entered by the host" in r.get_data(as_text=True)
    assert svc.state(match_id).orders_of(1)[2].payload == theirs

    r = client.post(f"{dashboard}/preview")
    assert r.status_code == 200
    assert "Preview: closing Trick 1: play now" in r.get_data(as_text=True)
    assert client.post(f"{dashboard}/close", data=SURE, follow_redirects=True).status_code == 200
    public = page(client, f"/matches/{match_id}")
    result = public.split('id="results-h"', 1)[1]
    assert "<dt>scores</dt>" in result and "<dt>played</dt>" in result
    assert f"<dt>1</dt><dd>{mine}</dd><dt>2</dt><dd>{theirs}</dd>" in result
    assert "<dt>hands</dt>" not in result  # each seat's own, dealt from the secret seed
    assert f'href="/matches/{match_id}/scores.png"' in public
    assert '<figure class="picture picture-scores">' in public  # the picture, drawn on the page
    assert "<title>Scores</title>" in public
    svg = client.get(f"/matches/{match_id}/scores.svg")
    assert svg.status_code == 200 and svg.mimetype == "image/svg+xml"
    png = client.get(f"/matches/{match_id}/scores.png")
    assert png.status_code == 200 and png.data.startswith(b"\x89PNG")
    assert client.get(f"/matches/{match_id}/map.png").status_code == 404  # not this game's
    assert client.get(f"/matches/{match_id}/post?format=bbcode").status_code == 200

    # the dashboard's links and forms: the audit is not offered (the game has none),
    # a link is re-issued for a seat the match has
    board = page(client, dashboard)
    picker = 1 if mine > theirs else 2  # the higher card picks first
    assert f"{dashboard}/audit" not in board and f"Open Trick 1: pick (seat {picker})" in board
    assert 'value="2">Seat 2: Bob</option>' in board and 'value="3"' not in board
    r = client.get(f"{dashboard}/audit")
    assert r.status_code == 422 and "has no audit" in r.get_data(as_text=True)
    r = client.post(f"{dashboard}/reissue", data={"who": "3", "sure": "y"})
    assert r.status_code == 422
    r = client.post(f"{dashboard}/reissue", data={"who": "2", "sure": "y"}, follow_redirects=True)
    assert r.status_code == 200 and "A new link for the link of seat 2 (Bob)" in r.get_data(
        as_text=True
    )

    # the last step: nobody sends, the seeded default plays; the match finishes
    assert client.post(f"{dashboard}/open", follow_redirects=True).status_code == 200
    assert client.post(f"{dashboard}/close", data=SURE, follow_redirects=True).status_code == 200
    public = page(client, f"/matches/{match_id}")
    assert "The match has finished" in public and "<dt>finished</dt><dd>yes</dd>" in public
    assert "<dt>hands</dt>" not in public
    r = client.post(f"{dashboard}/reveal", data={"sure": "y"}, follow_redirects=True)
    assert r.status_code == 200 and "Full reveal: every order" in r.get_data(as_text=True)
    assert "<dt>hands</dt>" in page(client, f"/matches/{match_id}")  # the whole state now
    for url in (f"/matches/{match_id}", dashboard, f"{dashboard}/post", "/"):
        assert client.get(url).status_code == 200, url
    assert "High Card" in page(client, "/")


def test_the_shared_view_keys_are_those_view_for_adds(svc: Referee) -> None:
    """The generic order form shows a view's game keys: all but those every
    view has (referee.web.game.SHARED_VIEW_KEYS, kept equal to view_for's)."""
    from referee.web.game import SHARED_VIEW_KEYS, game_keys

    created = svc.create_match(
        name="Keys",
        setup={"hand_size": 2},
        players=[{"name": "Ann", "garnets": 0}, {"name": "Bob", "garnets": 0}],
        settings={"hints": True},
        ruleset=NAME,
    )
    svc.open_round(created.match_id)
    view = view_for(svc.state(created.match_id), Viewer.of_seat(1))
    own = {"result", "options", "cards_left", "hint"}  # what Toy.view adds for an acting seat
    assert set(view) - set(own) == SHARED_VIEW_KEYS - {"seed"}  # the seed: at the end
    assert set(game_keys(view)) == {"result", "options", "cards_left", "hint"}
