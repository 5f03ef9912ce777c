"""Forks 2nd Edition through the JSON API only (docs/contracts/forks-2e/FORMAT.md's "API bodies" and
docs/contracts/rocky-river/API.md), on SQLite and on PostgreSQL.

Whole matches of 2 to 6 players, standard and merge: each seat's ``/me`` shows
its ``hand`` and, while a round is open, exactly the cards F5 lets it name as
``options`` (top level and under ``result``); orders are sent as canonical ids,
as ``Grey 8x`` and in capitals, by the seat or by the host with ``"seat"``;
refusals carry stable codes and leave the earlier accepted order standing;
seats that send nothing get seeded defaults; the export carries the seed only
at the end, and then resolves to the published result. Every body sent and
every answer is checked against the OpenAPI document.

The forum post, the pictures and the audit are tested in functions of their
own (they need the game's post.py, picture.py and audit.py).
"""

from __future__ import annotations

import hashlib
from typing import Any

import pytest
from api_schema import conforms
from flask.testing import FlaskClient
from werkzeug.test import TestResponse

from referee.rulesets.forks_2e import match as m
from referee.rulesets.forks_2e.cards import ALL_CARDS, DESTINATIONS, canonical

RULESET = "forks-2e"
NAMES = ("Ana", "Bo", "Cy", "Di", "Ed", "Flo")
GARNETS = (2, 0, 2, 1, 0, 3)
END_KEYS = ("hands", "ranking", "scores", "token_of_life", "elimination_candidate")
# docs/contracts/forks-2e/FORMAT.md's result: the keys ``referee resolve --json`` gives
FORMAT_KEYS = (
    "removed",
    "initial_marketing",
    "dealt",
    "marketed",
    "revealed",
    "marketing_totals",
    "hands",
    "ranking",
    "scores",
    "token_of_life",
    "elimination_candidate",
    "defaulted",
)
HOST_ONLY = ("removed", "dealt", "kept", "passed", "marketed_by")


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def spelled(card: str, how: int) -> str:
    """``card`` as a client may write it (F2): canonical, ``Grey 8x``, ``GREY-8X``."""
    dest, value = card.split("-")
    return (card, f"{dest.capitalize()} {value}", card.upper())[how]


def other_key(key: str) -> str:
    return "market" if key == "keep" else "keep"


class ApiMatch:
    """A Forks match driven through the JSON API (its tokens, a few calls)."""

    def __init__(
        self,
        client: FlaskClient,
        players: int,
        *,
        merge: bool = False,
        settings: dict[str, Any] | None = None,
        name: str | None = None,
    ) -> None:
        body = {
            "name": name or f"Forks of {players}",
            "ruleset": RULESET,
            "players": [
                {"seat": i + 1, "name": NAMES[i], "garnets": GARNETS[i]} for i in range(players)
            ],
            "settings": {"merge": merge, **(settings or {})},
        }
        conforms("CreateMatch", body)
        resp = client.post("/api/matches", json=body)
        assert resp.status_code == 201, resp.get_json()
        data = resp.get_json()
        conforms("Created", data)
        self.client = client
        self.id: str = data["id"]
        self.host: str = data["host_token"]
        self.tokens = {int(s): t for s, t in data["player_tokens"].items()}
        self.seat_numbers = list(range(1, players + 1))
        self.players = players
        self.merge = merge
        self.seed_sha256: str = data["seed_sha256"]

    def api(self, method: str, path: str = "", token: str | None = None, **kw: Any) -> TestResponse:
        headers = bearer(token) if token else {}
        url = f"/api/matches/{self.id}{path}"
        return self.client.open(url, method=method, headers=headers, **kw)

    def _view(self, token: str | None, path: str) -> dict[str, Any]:
        resp = self.api("GET", path, token)
        assert resp.status_code == 200, resp.get_json()
        view: dict[str, Any] = resp.get_json()
        conforms("MatchView", view)
        assert view["ruleset"] == RULESET
        return view

    def public(self) -> dict[str, Any]:
        return self._view(None, "")

    def me(self, seat: int) -> dict[str, Any]:
        view = self._view(self.tokens[seat], "/me")
        assert view["viewer"] == {"kind": "seat", "seat": seat}
        return view

    def host_view(self) -> dict[str, Any]:
        view = self._view(self.host, "/me")
        assert view["viewer"] == {"kind": "host", "seat": None}
        return view

    def open(self) -> dict[str, Any]:
        resp = self.api("POST", "/rounds/open", self.host, json={})
        assert resp.status_code == 200, resp.get_json()
        view: dict[str, Any] = resp.get_json()
        conforms("MatchView", view)
        return view

    def close(self) -> dict[str, Any]:
        resp = self.api("POST", "/rounds/close", self.host, json={})
        assert resp.status_code == 200, resp.get_json()
        closed: dict[str, Any] = resp.get_json()
        conforms("Closed", closed)
        return closed

    def put(self, body: dict[str, Any], token: str) -> TestResponse:
        return self.api("PUT", "/orders", token, json=body)

    def send(self, seat: int, key: str, card: str, *, host: bool = False) -> str:
        body: dict[str, Any] = {key: card}
        if host:
            body["seat"] = seat
        conforms("OrderBody", body)
        resp = self.put(body, self.host if host else self.tokens[seat])
        assert resp.status_code == 200, (body, resp.get_json())
        accepted = resp.get_json()
        conforms("Accepted", accepted)
        receipt: str = accepted["receipt"]
        return receipt

    def export(self) -> dict[str, Any]:
        resp = self.api("GET", "/export", self.host)
        assert resp.status_code == 200, resp.get_json()
        document: dict[str, Any] = resp.get_json()
        conforms("MatchFile", document)
        return document

    def refused(self, body: Any, token: str, code: str, status: int = 422) -> str:
        """Send a bad order; it must be refused with exactly ``code``; the message."""
        resp = self.put(body, token)
        assert resp.status_code == status, (body, resp.get_json())
        errors = resp.get_json()
        conforms("Errors", errors)
        assert [e["code"] for e in errors["errors"]] == [code], (body, errors)
        message: str = errors["errors"][0]["message"]
        return message

    def standing(self, number: int, seat: int, token: str) -> dict[str, Any] | None:
        """The order of ``seat`` in round ``number`` as ``token``'s view shows it."""
        orders = self._view(token, "/me")["orders"]
        found: dict[str, Any] | None = orders.get(str(number), {}).get(str(seat))
        return found


def expected_options(result: dict[str, Any], key: str, merge: bool) -> list[str]:
    """F5 from a seat's own view: its dealt cards in a keep step; in a market
    step the two passed to it (with merge, its hand plus those two)."""
    own = result["mine"][-1]
    if key == "keep":
        assert own["kept"] is None and own["received"] is None
        return canonical(own["dealt"])
    assert own["kept"] is not None and own["marketed"] is None
    received: list[str] = own["received"]
    assert len(received) == 2
    return canonical([*result["hand"], *received]) if merge else received


def check_refusals(
    g: ApiMatch, number: int, key: str, seat: int, token: str, options: list[str], own: Any
) -> None:
    """F5's refusals of ``seat``'s orders (sent with ``token``, the seat's or the
    host's), each with a stable code; ``seat``'s accepted order still stands."""
    host = token == g.host
    extra: dict[str, Any] = {"seat": seat} if host else {}
    before = g.standing(number, seat, token)
    assert before is not None

    def refused(value: Any, code: str) -> str:
        return g.refused({key: value, **extra}, token, code)

    for unknown in ("purple-3", "grey-13", "grey-2", "blue-8x", "grey  8x", "grey_8x", "grey-8 x"):
        refused(unknown, "card/unknown")
    for not_text in (7, ["grey-3"], {"card": "grey-3"}, True, None):
        refused(not_text, "card/not_a_string")
    outside = next(c for c in ALL_CARDS if c not in options)
    if key == "keep":
        message = refused(outside, "keep/not_dealt")
        assert outside in message
        # the seat has its cards as options; the host must not learn them (F11)
        assert not any(c in message for c in options)
    elif g.merge:
        passed_on = own["passed"][0]  # dealt to it, passed to the next seat: in no hand of its
        refused(passed_on, "market/not_in_hand")
        refused(outside, "market/not_in_hand")
    else:
        refused(own["kept"], "market/not_passed")  # its own hand's card
        refused(own["passed"][0], "market/not_passed")
        refused(outside, "market/not_passed")
    # the other step's key, both keys, none, an unknown key
    g.refused({other_key(key): options[0], **extra}, token, "order/wrong_phase")
    g.refused({"keep": options[0], "market": options[0], **extra}, token, "order/bad_body")
    g.refused(dict(extra), token, "order/bad_body")
    g.refused({key: options[0], "card": options[0], **extra}, token, "request/unknown_field")
    if host:
        g.refused({key: options[0]}, token, "order/no_seat")
        g.refused({key: options[0], "seat": g.players + 1}, token, "seat/unknown")
    else:
        other = seat % g.players + 1
        g.refused({key: options[0], "seat": other}, token, "auth/forbidden", status=403)
    assert g.standing(number, seat, token) == before  # the earlier order still stands


CASES = [(n, merge) for n in range(2, 7) for merge in (False, True)]


@pytest.mark.parametrize(
    ("players", "merge"), CASES, ids=[f"{n}p-{'merge' if g else 'standard'}" for n, g in CASES]
)
def test_a_whole_match_through_the_api(client: FlaskClient, players: int, merge: bool) -> None:
    settings: dict[str, Any] = {}
    if players % 2:  # the other settings too, now and then
        settings = {"tiebreak": list(reversed(DESTINATIONS)), "names": {"grey": "Grau <b>"}}
    g = ApiMatch(client, players, merge=merge, settings=settings)
    rounds = m.rounds_of(players)
    start = g.public()
    assert start["settings"]["merge"] is merge and start["result"]["rounds"] == rounds
    assert [r["phase"] for r in start["rounds"]] == ["keep", "market"] * (rounds // 2)
    assert all(r["status"] == "pending" for r in start["rounds"])
    for key in END_KEYS:
        assert key not in start["result"]
    seen: list[dict[int, list[str]]] = []  # each round's options, by seat
    for number in range(1, rounds + 1):
        key = "keep" if number % 2 else "market"
        opened = g.open()
        assert opened["current_round"] == number
        assert opened["rounds"][number - 1]["status"] == "open"
        assert opened["rounds"][number - 1]["phase"] == key
        assert "options" not in opened and "options" not in g.public()
        options: dict[int, list[str]] = {}
        own: dict[int, Any] = {}
        for seat in g.seat_numbers:
            view = g.me(seat)
            result = view["result"]
            assert view["options"] == result["options"] == expected_options(result, key, merge)
            assert len(result["mine"]) == (number + 1) // 2
            for other in END_KEYS:
                assert other not in result
            options[seat], own[seat] = view["options"], result["mine"][-1]
        seen.append(options)

        chosen: dict[int, str] = {}  # the card each seat's standing order names
        checked = False
        for seat in g.seat_numbers:
            how = (number + seat) % 4  # 0: no order (a seeded default); 3: the host enters it
            if how == 0:
                continue
            card = options[seat][(number * seat) % len(options[seat])]
            host = how == 3
            token = g.host if host else g.tokens[seat]
            if not checked:  # an order first, replaced below, then refusals
                first = next(c for c in reversed(options[seat]) if c != card)
                g.send(seat, key, first, host=host)
            receipt = g.send(seat, key, spelled(card, how - 1), host=host)
            standing = g.standing(number, seat, token)
            assert standing is not None
            assert standing["order"] == card and standing["receipt"] == receipt
            assert standing["host_entered"] is host
            if not checked:
                check_refusals(g, number, key, seat, token, options[seat], own[seat])
                checked = True
            chosen[seat] = card
        submitted = g.public()["rounds"][number - 1]["submitted"]
        assert submitted == sorted(chosen)

        closed = g.close()
        assert closed["round"] == number and closed["closed_by"] == "host"
        public = g.public()
        assert closed["result"] == public["result"]
        result = public["result"]
        assert result["closed"] == number
        defaulted = [d["seat"] for d in result["defaulted"] if d["round"] == number]
        assert defaulted == [s for s in g.seat_numbers if s not in chosen]
        assert public["rounds"][number - 1]["host_entered"] == [
            s for s in chosen if (number + s) % 4 == 3
        ]
        for seat in g.seat_numbers:
            mine = g.me(seat)["result"]
            assert "options" not in mine
            if seat in chosen:
                if key == "keep":
                    assert mine["mine"][(number - 1) // 2]["kept"] == chosen[seat]
                    assert chosen[seat] in mine["hand"]
                else:
                    assert mine["mine"][(number - 1) // 2]["marketed"] == chosen[seat]
                    assert chosen[seat] not in mine["hand"]
        if key == "market":
            marketed = result["marketed"]
            assert len(marketed) == number // 2 and len(marketed[-1]) == players
            assert marketed[-1] == canonical(marketed[-1])  # not by seat (F11)
            assert {chosen[s] for s in chosen} <= set(marketed[-1])
            assert len(result["revealed"]) == (number // 2 if players == 2 else 0)
        if number < rounds:
            document = g.export()
            assert document["seed"] is None and document["seed_sha256"] == g.seed_sha256
            assert len(document["orders"]) == number
            assert document["orders"][-1] == {
                str(s): ({key: chosen[s]} if s in chosen else None) for s in g.seat_numbers
            }
            assert public["finished"] is False and "seed" not in public
            for other in END_KEYS:
                assert other not in result

    public = g.public()
    result = public["result"]
    assert public["finished"] is True and public["current_round"] == rounds
    assert hashlib.sha256(public["seed"].encode()).hexdigest() == g.seed_sha256
    for key in ("marketed", "revealed", "marketing_totals", *END_KEYS):
        assert key in result, key
    for key in HOST_ONLY:
        assert key not in result, key
    document = g.export()
    assert document["seed"] == public["seed"] and document["seed_sha256"] == g.seed_sha256
    assert document["settings"] == {
        "merge": merge,
        "tiebreak": settings.get("tiebreak", list(m.DEFAULT_TIEBREAK)),
        "names": settings.get("names", {}),
    }
    host_entered = [
        {"round": n, "seat": s}
        for n in range(1, rounds + 1)
        for s in g.seat_numbers
        if (n + s) % 4 == 3
    ]
    assert document.get("host_entered", []) == host_entered
    resolved = m.resolve(document)
    assert list(resolved) == list(FORMAT_KEYS)
    assert {k: result[k] for k in FORMAT_KEYS if k in result} == {
        k: resolved[k] for k in FORMAT_KEYS if k in result
    }
    assert set(FORMAT_KEYS) - set(result) == {"removed", "dealt"}  # host only
    host_result = g.host_view()["result"]
    assert {k: host_result[k] for k in FORMAT_KEYS} == resolved
    for seat in g.seat_numbers:
        assert g.me(seat)["result"]["hand"] == resolved["hands"][str(seat)]
    # every seat was offered exactly what F5 allows, in every round
    table = m.start(document["seed"], players, merge=merge)
    for number, orders in enumerate(document["orders"], start=1):
        assert {s: table.options(s) for s in g.seat_numbers} == seen[number - 1], number
        key = "keep" if number % 2 else "market"
        picked = {int(s): (o or {}).get(key) for s, o in orders.items()}
        (m.close_keep if number % 2 else m.close_market)(table, picked)
    assert table.finished


def test_a_map_or_a_bad_setting_in_a_create_body_is_refused(client: FlaskClient) -> None:
    players = [{"seat": i + 1, "name": NAMES[i], "garnets": 1} for i in range(3)]
    body: dict[str, Any] = {"name": "F", "ruleset": RULESET, "players": players}

    def refused(changed: dict[str, Any], *codes: str) -> None:
        resp = client.post("/api/matches", json={**body, **changed})
        assert resp.status_code == 422, resp.get_json()
        conforms("Errors", resp.get_json())
        assert sorted(e["code"] for e in resp.get_json()["errors"]) == sorted(codes), changed

    refused({"map": "three-rapids"}, "request/unknown_field")
    refused({"settings": {"merge": "yes"}}, "settings/not_a_flag")
    refused({"settings": {"publish_totals": True}}, "settings/unknown")
    refused({"settings": {"tiebreak": ["blue", "grey", "red"]}}, "settings/bad_order")
    for count in (1, 7):
        many = [{"seat": i + 1, "name": f"P{i + 1}", "garnets": 0} for i in range(count)]
        resp = client.post("/api/matches", json={**body, "players": many})
        assert resp.status_code == 422, count
        errors = resp.get_json()["errors"]
        assert [e["code"] for e in errors] == ["match/player_count"]
        assert "2 to 6" in errors[0]["message"]
    assert client.post("/api/matches", json=body).status_code == 201


# ---- the parts that need the game's post.py, picture.py and audit.py ----------------


def _finished(client: FlaskClient, players: int = 3, merge: bool = False) -> ApiMatch:
    """A match played to its end with every order defaulted."""
    g = ApiMatch(client, players, merge=merge)
    for _ in range(m.rounds_of(players)):
        g.open()
        g.close()
    return g


def test_the_forum_post_of_a_forks_match(client: FlaskClient) -> None:
    g = ApiMatch(client, 3, name="Post *test*")
    for stage in ("start", "open", "end"):
        if stage == "open":
            g.open()
        if stage == "end":
            g.close()
            for _ in range(m.rounds_of(3) - 1):
                g.open()
                g.close()
        for fmt in ("markdown", "bbcode"):
            resp = g.api("GET", f"/post?format={fmt}")
            assert resp.status_code == 200, (stage, resp.get_json())
            conforms("Post", resp.get_json())
            assert resp.get_json()["format"] == fmt and resp.get_json()["post"].strip()


def test_the_pictures_of_a_forks_match(client: FlaskClient) -> None:
    g = ApiMatch(client, 4)
    board = client.get(f"/matches/{g.id}/board.svg")
    assert board.status_code == 200 and board.mimetype == "image/svg+xml"
    scores = client.get(f"/matches/{g.id}/scores.svg")
    assert scores.status_code == 404  # drawn at the end
    assert "no score chart yet" in scores.get_data(as_text=True)
    g = _finished(client, 4)
    for name in ("board", "scores"):
        resp = client.get(f"/matches/{g.id}/{name}.svg")
        assert resp.status_code == 200 and resp.get_data(as_text=True).lstrip().startswith("<")


def test_the_audit_of_a_forks_match(client: FlaskClient) -> None:
    g = ApiMatch(client, 3, merge=True)
    g.open()
    g.close()
    unfinished = g.api("GET", "/audit", g.host)
    assert unfinished.status_code == 422, unfinished.get_json()
    for _ in range(m.rounds_of(3) - 1):
        g.open()
        g.close()
    resp = g.api("GET", "/audit", g.host)
    assert resp.status_code == 200, resp.get_json()
    audit = resp.get_json()
    conforms("Audit", audit)
    scores = g.public()["result"]["scores"]
    assert set(audit["seats"]) == set(scores)
    for seat, row in audit["seats"].items():
        assert row["actual"] == scores[seat]
        assert row["gain"] == row["best_market"] - row["actual"] >= 0
    assert g.api("GET", "/audit", g.tokens[1]).status_code == 403
