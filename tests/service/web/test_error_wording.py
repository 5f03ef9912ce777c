"""Refusals on pages are in the player's words: bad input sent through every
page form of both games (the create page's players, map and settings, the
order forms of every step, the host's order and deadline forms) is refused
with messages that name seats and places counted from 1, never a 0-based
index (``[0]``), a rule id (``R3.2``, ``F5``) or a raw code
(``draft/duplicate_card``) in the page's text; the API, sent the same input,
still answers with the codes, in its JSON shape."""

from __future__ import annotations

import copy
import json
import re
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient

from referee.rulesets.forks_2e.cards import card_name
from referee.service import Referee

from .web_kit import GOLDEN, Links, create_match, golden_order, new_match_form, play_round

INDEX = re.compile(r"\[\d+\]")
RULE_ID = re.compile(r"\b[RF]\d+(\.\d+)*\b")
CODE = re.compile(
    r"\b(draft|mapping|rafting|match|map|settings|round|card|keep|market|order|json|form"
    r"|auth|request|problems)/[a-z_]+\b"
)
THREE_RAPIDS = json.loads(
    (Path(__file__).resolve().parents[3] / "seeds" / "maps" / "three-rapids.json").read_text()
)
FORKS_PLAYERS = [
    {"seat": 1, "name": "Ana", "garnets": 7},
    {"seat": 2, "name": "Bo", "garnets": 5},
    {"seat": 3, "name": "Cy", "garnets": 5},
]


class _Text(HTMLParser):
    """A page's text as a reader sees it (not its markup, attributes or scripts)."""

    VOID = frozenset({"br", "input", "meta", "link", "img", "hr", "source", "wbr", "col"})

    def __init__(self) -> None:
        super().__init__()
        self.parts: list[str] = []
        self.stack: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag not in self.VOID:
            self.stack.append(tag)

    def handle_endtag(self, tag: str) -> None:
        if tag in self.stack:
            while self.stack.pop() != tag:
                pass

    def handle_data(self, data: str) -> None:
        if not {"script", "style"} & set(self.stack):
            self.parts.append(data)


def text_of(html: str) -> str:
    parser = _Text()
    parser.feed(html)
    return " ".join(" ".join(parser.parts).split())


def problems_of(html: str) -> list[str]:
    """The problems the page lists (its summary and the messages by the fields)."""
    found = re.findall(r'<li data-code="[^"]+">(.*?)</li>', html, re.S)
    for block in re.findall(r'<ul class="field-errors"[^>]*>(.*?)</ul>', html, re.S):
        found += re.findall(r"<li>(.*?)</li>", block, re.S)
    return [text_of(m) for m in found]


def assert_refused_in_plain_words(response: Any, *expected: str) -> str:
    """The page refused the input, said so, and said it without indexes, rule
    ids or codes; ``expected`` are words it must show."""
    html = response.get_data(as_text=True)
    assert response.status_code in (409, 422), response.status_code
    shown = problems_of(html)
    assert shown, "the page shows no problem"
    text = text_of(html)
    for bad in (INDEX, RULE_ID, CODE):
        hit = bad.search(text)
        assert hit is None, (hit.group(0), text[max(0, hit.start() - 80) : hit.end() + 80])
    for words in expected:
        assert words in text, (words, shown)
    return text


def api_codes(response: Any) -> list[str]:
    assert response.status_code in (409, 422), (response.status_code, response.get_data())
    body = response.get_json()
    assert set(body) == {"errors"}
    assert all({"code", "message"} <= set(e) for e in body["errors"])
    return [e["code"] for e in body["errors"]]


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def token_of(link: str) -> str:
    return link.rsplit("/", 1)[1]


@pytest.fixture(autouse=True)
def _generous_limits(app: Flask) -> None:
    # this file sends many refused forms from one address on purpose
    app.config["RATELIMIT_CREATE_FORM"] = "1000 per minute"
    app.config["RATELIMIT_FAILED_TOKENS"] = "1000 per minute"


# ---- creating a match ---------------------------------------------------------


def _api_players(changes: dict[int, dict[str, Any]]) -> list[dict[str, Any]]:
    players = copy.deepcopy(GOLDEN["players"])
    for i, change in changes.items():
        players[i].update(change)
    return players


def _map_with(change: Any) -> dict[str, Any]:
    river = copy.deepcopy(THREE_RAPIDS)
    change(river)
    return river


def _bad_colours(river: dict[str, Any]) -> None:
    river["forks"][0]["left"][1]["color"] = "purple"
    river["forks"][1]["right"][0]["seat"] = 5
    river["forks"][2]["left"] = []


def _bad_fork(river: dict[str, Any]) -> None:
    river["forks"][4] = 5
    river["forks"][0]["right"][0] = "x"


ROCKY_CREATES: dict[str, tuple[dict[str, str], dict[str, Any], list[str], list[str]]] = {
    # case: (form fields changed, API body changed, codes, words on the page)
    "negative garnets": (
        {"players-0-garnets": "-2"},
        {"players": _api_players({0: {"garnets": -2}})},
        ["match/bad_garnets"],
        ["Seat 1: garnets cannot be negative"],
    ),
    "garnets not a number": (
        {"players-2-garnets": "many"},
        {"players": _api_players({2: {"garnets": "many"}})},
        ["match/bad_garnets"],
        ["Seat 3: garnets are a whole number, 0 or more"],
    ),
    "a name missing": (
        {"players-1-name": ""},
        {"players": _api_players({1: {"name": ""}})},
        ["match/bad_name"],
        ["Seat 2: a name is needed"],
    ),
    "a name with a control": (
        {"players-1-name": "Bo\u202e"},
        {"players": _api_players({1: {"name": "Bo\u202e"}})},
        ["match/bad_name"],
        ["Seat 2: the name holds a bidirectional-text control"],
    ),
    "names alike": (
        {"players-1-name": "p1"},
        {"players": _api_players({1: {"name": "p1"}})},
        ["match/confusable_names"],
        ["seats 1 and 2 have names that look alike"],
    ),
    "bad map": (
        {"map_json": json.dumps(_map_with(_bad_colours))},
        {"map": _map_with(_bad_colours)},
        ["map/unknown_color", "map/unknown_seat", "map/empty_side"],
        ["colour 'purple'", "portrays seat 5", "fork 'f3' has no branch on its left side"],
    ),
    "bad forks": (
        {"map_json": json.dumps(_map_with(_bad_fork))},
        {"map": _map_with(_bad_fork)},
        ["map/bad_fork", "map/bad_branch"],
        ["fork 5 of the map's 'forks' list", "a branch on the right side of fork 'f1'"],
    ),
    "map not a map": (
        {"map_json": "[1, 2]"},
        {"map": [1, 2]},
        ["match/bad_map"],
        ["the map must be"],
    ),
    "deadline": (
        {"deadline_hours": "-3"},
        {"settings": {"deadline_hours": -3}},
        ["settings/bad_deadline"],
        ["-3"],
    ),
}


@pytest.mark.parametrize("case", sorted(ROCKY_CREATES))
def test_rocky_river_create_refusals_are_in_plain_words(
    client: FlaskClient, svc: Referee, case: str
) -> None:
    form, body, codes, words = ROCKY_CREATES[case]
    page = client.post("/new", data=new_match_form("Plain words", **form))
    assert_refused_in_plain_words(page, *words)
    if "map_json" in form:  # "check the map only" says it the same way
        checked = client.post("/new", data=new_match_form("Plain", check_map="1", **form))
        assert_refused_in_plain_words(checked, *words)
    api_body = {
        "name": "Plain words",
        "map": "three-rapids",
        "players": copy.deepcopy(GOLDEN["players"]),
        **body,
    }
    assert set(codes) <= set(api_codes(client.post("/api/matches", json=api_body)))
    assert svc.match_ids() == []


def _forks_form(**extra: str) -> dict[str, str]:
    data = {"game": "forks-2e", "name": "Plain forks", "deadline_hours": "48", "create": "1"}
    for i, p in enumerate(FORKS_PLAYERS):
        data[f"players-{i}-name"] = str(p["name"])
        data[f"players-{i}-garnets"] = str(p["garnets"])
    data.update(extra)
    return data


FORKS_CREATES: dict[str, tuple[dict[str, str], dict[str, Any], list[str], list[str]]] = {
    "one player": (
        {f"players-{i}-{k}": "" for i in (1, 2) for k in ("name", "garnets")},
        {"players": FORKS_PLAYERS[:1]},
        ["match/player_count"],
        ["2 to 6 players"],
    ),
    "negative garnets": (
        {"players-1-garnets": "-1"},
        {"players": [FORKS_PLAYERS[0], {**FORKS_PLAYERS[1], "garnets": -1}, FORKS_PLAYERS[2]]},
        ["match/bad_garnets"],
        ["Seat 2: garnets cannot be negative"],
    ),
    "tiebreak twice": (
        {f"tiebreak-{i}": d for i, d in enumerate(["blue", "blue", "grey", "green", "red"])},
        {"settings": {"tiebreak": ["blue", "blue", "grey", "green", "red"]}},
        ["settings/bad_order"],
        ["Tiebreak order of the destinations: choose each of grey, blue, yellow, green, red once"],
    ),
}


@pytest.mark.parametrize("case", sorted(FORKS_CREATES))
def test_forks_create_refusals_are_in_plain_words(
    client: FlaskClient, svc: Referee, case: str
) -> None:
    form, body, codes, words = FORKS_CREATES[case]
    assert_refused_in_plain_words(client.post("/new", data=_forks_form(**form)), *words)
    api_body = {"name": "Plain forks", "ruleset": "forks-2e", "players": FORKS_PLAYERS, **body}
    assert set(codes) <= set(api_codes(client.post("/api/matches", json=api_body)))
    assert svc.match_ids() == []


# ---- orders -----------------------------------------------------------------------


def _send(client: FlaskClient, url: str, data: dict[str, Any]) -> Any:
    return client.post(url, data=data, follow_redirects=True)


def test_rocky_river_order_refusals_are_in_plain_words(client: FlaskClient) -> None:
    links: Links = create_match(client, "Plain orders")
    api = f"/api/matches/{links.match_id}/orders"
    seat1, host = bearer(token_of(links.seats[1])), bearer(token_of(links.host))
    assert client.post(f"{links.host}/open", data={}, follow_redirects=True).status_code == 200

    twice = ["A", "A", *golden_order(1, 1)[2:]]
    page = _send(client, links.seats[1], {"round": "1", "ranking": twice})
    assert_refused_in_plain_words(page, "listed twice")
    codes = api_codes(client.put(api, json={"draft": twice}, headers=seat1))
    assert "draft/duplicate_card" in codes
    # the host entering an order for a seat, on the host's order page
    page = _send(client, f"{links.host}/order/2", {"round": "1", "ranking": ["A", "ZZ"]})
    assert_refused_in_plain_words(page, "“ZZ”")
    codes = api_codes(client.put(api, json={"seat": 2, "draft": ["A", "ZZ"]}, headers=host))
    assert "draft/unknown_card" in codes
    # a value of the wrong shape (the phase's schema) through the API only: no
    # form sends one, but its message is the same everywhere
    codes = api_codes(client.put(api, json={"draft": ["A", 5]}, headers=seat1))
    assert codes and all(c.startswith("draft/") for c in codes)
    client.post(f"{links.host}/close", data={"sure": "y"})  # nothing accepted: defaults

    assert client.post(f"{links.host}/open", data={}, follow_redirects=True).status_code == 200
    view = client.get(f"/api/matches/{links.match_id}/me", headers=seat1).get_json()
    hand = view["result"]["hand"]
    data: dict[str, Any] = {"round": "2", f"place_{hand[0]}": "nowhere"}
    page = _send(client, links.seats[1], data)
    assert_refused_in_plain_words(page, "not a branch", "must be placed")
    codes = api_codes(client.put(api, json={"placements": {hand[0]: "nowhere"}}, headers=seat1))
    assert {"mapping/unknown_branch", "mapping/missing_card"} <= set(codes)


def test_rocky_river_rafting_refusals_are_in_plain_words(client: FlaskClient) -> None:
    links = create_match(client, "Plain rafting")
    for number in (1, 2):
        play_round(client, links, number)
    assert client.post(f"{links.host}/open", data={}, follow_redirects=True).status_code == 200
    page = _send(client, links.seats[3], {"round": "3", "vote_0": "X", "vote_1": "L"})
    assert_refused_in_plain_words(page, "fork 1: choose left or right (“X” is not a direction)")
    api = f"/api/matches/{links.match_id}/orders"
    codes = api_codes(
        client.put(api, json={"votes": ["X", "L"]}, headers=bearer(token_of(links.seats[3])))
    )
    assert "rafting/bad_direction" in codes


def test_forks_order_refusals_are_in_plain_words(client: FlaskClient, svc: Referee) -> None:
    created = svc.create_match(
        name="Plain forks", setup={}, players=FORKS_PLAYERS, settings={}, ruleset="forks-2e"
    )
    host = f"/host/{created.host_token}"
    assert client.post(f"{host}/open", data={}, follow_redirects=True).status_code == 200
    me = bearer(created.player_tokens[1])
    api = f"/api/matches/{created.match_id}/orders"
    options = client.get(f"/api/matches/{created.match_id}/me", headers=me).get_json()
    dealt = set(options["result"]["options"])
    other = next(c for c in ("red-3", "red-5", "grey-3", "blue-4") if c not in dealt)
    play = f"/play/{created.player_tokens[1]}"
    for card, code, words in (
        (other, "keep/not_dealt", f"{card_name(other)} was not dealt to you this round"),
        ("grey-99", "card/unknown", "“grey-99” is not a card of this game"),
    ):
        page = _send(client, play, {"round": "1", "card": card})
        assert_refused_in_plain_words(page, words)
        assert code in api_codes(client.put(api, json={"keep": card}, headers=me))
    page = _send(client, f"{host}/order/2", {"round": "1", "card": "grey-99"})
    assert_refused_in_plain_words(page, "grey-99")
    assert "card/unknown" in api_codes(
        client.put(api, json={"seat": 2, "keep": "grey-99"}, headers=bearer(created.host_token))
    )


# ---- the host's deadline forms ---------------------------------------------------------


def test_deadline_refusals_are_in_plain_words(client: FlaskClient) -> None:
    links = create_match(client, "Plain deadlines")
    host = bearer(token_of(links.host))
    api = f"/api/matches/{links.match_id}/rounds"
    for data, words in (
        ({"hours": "-5"}, "hours from now must be a number above 0"),
        ({"deadline": "tomorrow"}, "is not a date and time"),
        ({"deadline": "2031-01-01T00:00Z", "hours": "3"}, "not both"),
        ({"deadline": "2001-01-01T00:00Z"}, "is not in the future"),
    ):
        assert_refused_in_plain_words(client.post(f"{links.host}/open", data=data), words)
    assert "round/bad_deadline" in api_codes(
        client.post(f"{api}/open", json={"deadline": "tomorrow"}, headers=host)
    )
    assert client.post(f"{links.host}/open", data={}, follow_redirects=True).status_code == 200
    for data, words in (
        ({}, "give the new deadline"),
        ({"deadline": "2026-13-45T99:00Z"}, "is not a date and time"),
        ({"deadline": "2031-01-01T00:00Z", "no_deadline": "y"}, "not both"),
    ):
        assert_refused_in_plain_words(client.post(f"{links.host}/deadline", data=data), words)
    assert "round/bad_deadline" in api_codes(
        client.post(f"{api}/deadline", json={"deadline": "2026-13-45T99:00Z"}, headers=host)
    )
