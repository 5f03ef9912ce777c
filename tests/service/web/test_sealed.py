"""Sealed means sealed (issue 10): nothing the host or the public can fetch
changes when a player replaces a sealed order with different content, the host
may see what it entered itself, the seed stays secret until the end, and every
public version is made from public state only.

Each test runs on SQLite and on PostgreSQL (the ``app`` fixture), with the
clock of conftest.py standing still, so two fetches can be compared byte for
byte.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

import pytest
from flask.testing import FlaskClient

from referee.errors import RuleError
from referee.rulesets.rocky_river import resolve_document
from referee.rulesets.rocky_river.data import load_bundled_map, load_deck
from referee.service import Referee

from .web_kit import GOLDEN, Clock

PLAYS: list[dict[str, Any]] = [GOLDEN["draft"], GOLDEN["placements"], *GOLDEN["votes"]]
KIND = {1: "draft", 2: "placements"}  # later rounds: votes
SEATS = (1, 2, 3)


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


class Match:
    def __init__(self, client: FlaskClient) -> None:
        body = {"name": "Sealed", "map": "three-rapids", "players": GOLDEN["players"]}
        resp = client.post("/api/matches", json=body)
        assert resp.status_code == 201, resp.get_json()
        data = resp.get_json()
        self.client = client
        self.id: str = data["id"]
        self.host: str = data["host_token"]
        self.seats = {int(s): t for s, t in data["player_tokens"].items()}

    def api(self, method: str, path: str, token: str | None = None, **kw: Any) -> Any:
        headers = {**(bearer(token) if token else {}), **kw.pop("headers", {})}
        url = f"/api/matches/{self.id}{path}"
        return self.client.open(url, method=method, headers=headers, **kw)

    def open(self) -> None:
        assert self.api("POST", "/rounds/open", self.host, json={}).status_code == 200

    def close(self) -> None:
        assert self.api("POST", "/rounds/close", self.host, json={}).status_code == 200

    def send(self, number: int, seat: int, order: Any, token: str | None = None) -> Any:
        body: dict[str, Any] = {KIND.get(number, "votes"): order}
        if token == self.host:
            body["seat"] = seat
        resp = self.api("PUT", "/orders", token or self.seats[seat], json=body)
        assert resp.status_code == 200, resp.get_json()
        return resp.get_json()


def other_order(m: Match, number: int, seat: int) -> Any:
    """A valid order for ``seat`` in round ``number``, different from the golden one."""
    golden = PLAYS[number - 1][str(seat)]
    if number == 1:
        return list(reversed(golden))
    if number == 2:
        hand = m.api("GET", "/me", m.seats[seat]).get_json()["result"]["hand"]
        river = load_bundled_map("three-rapids")
        deck = load_deck()
        order = {}
        for card in hand:
            fits = [b.id for b in river.branches.values() if deck.by_id[card].value_for(b.color)]
            order[card] = fits[-1] if fits[-1] != golden[card] else fits[0]
        assert order != golden
        return order
    return ["R" if v.upper().startswith("L") else "L" for v in golden]


def everything_the_host_and_public_can_fetch(m: Match) -> dict[str, Any]:
    """Every answer the host's link and token, and the public, can get about the
    match, as bytes (pictures) or text."""
    c = m.client
    out: dict[str, Any] = {}
    for path in ("/me", "/preview", "/export", "/post?format=markdown", "/post?format=bbcode"):
        resp = m.api("GET", path, m.host)
        out[f"api {path}"] = (resp.status_code, resp.get_data(as_text=True))
    out["api public"] = m.api("GET", "").get_data(as_text=True)
    out["api audit"] = m.api("GET", "/audit", m.host).get_data(as_text=True)
    host = f"/host/{m.host}"
    for path in ("", "/post?format=markdown", "/post?format=bbcode", "/export", "/audit"):
        out[f"host {path}"] = c.get(host + path).get_data(as_text=True)
    for seat in SEATS:
        out[f"host order {seat}"] = c.get(f"{host}/order/{seat}").get_data(as_text=True)
    out["host preview"] = c.post(f"{host}/preview").get_data(as_text=True)
    out["public page"] = c.get(f"/matches/{m.id}").get_data(as_text=True)
    out["public post"] = c.get(f"/matches/{m.id}/post").get_data(as_text=True)
    for picture in ("map.svg", "map.png", "results.svg", "results.png"):
        resp = c.get(f"/matches/{m.id}/{picture}")
        out[picture] = (resp.status_code, resp.headers.get("ETag"), resp.get_data())
    return out


def test_replacing_a_sealed_order_changes_nothing_the_host_or_public_can_fetch(
    client: FlaskClient, clock: Clock
) -> None:
    """Issue 10, High 1: the host's preview (and everything else the host can
    fetch) decoded sealed orders. Round by round, seats 1 and 2 send their
    orders and seat 3 sends one; everything the host and the public can fetch
    is recorded; seat 3 replaces its order with different content; every answer
    must be exactly as before (the clock stands still, so even the time of
    submission is the same)."""
    m = Match(client)
    for number in range(1, len(PLAYS) + 1):
        m.open()
        for seat in (1, 2):
            m.send(number, seat, PLAYS[number - 1][str(seat)])
        first = m.send(number, 3, PLAYS[number - 1]["3"])
        before = everything_the_host_and_public_can_fetch(m)
        second = m.send(number, 3, other_order(m, number, 3))
        assert second["receipt"] != first["receipt"]  # it was replaced
        after = everything_the_host_and_public_can_fetch(m)
        changed = [key for key in before if before[key] != after[key]]
        assert changed == [], (number, changed)
        # and the seat itself sees its new order
        mine = m.api("GET", "/me", m.seats[3]).get_json()["orders"][str(number)]["3"]
        assert mine["receipt"] == second["receipt"] and mine["revision"] == 2
        m.send(number, 3, PLAYS[number - 1]["3"])  # back to the golden order
        m.close()
    result = m.api("GET", "/me", m.host).get_json()["result"]
    assert result["scores"] == resolve_document(GOLDEN)["scores"]


def test_the_host_sees_only_when_an_order_was_sent_not_its_receipt(
    client: FlaskClient, clock: Clock
) -> None:
    m = Match(client)
    m.open()
    m.send(1, 1, PLAYS[0]["1"])
    clock.now = clock.now.replace(minute=30)
    m.send(1, 1, list(reversed(PLAYS[0]["1"])))
    rnd = m.api("GET", "/me", m.host).get_json()["rounds"][0]
    assert rnd["submitted"] == [1]
    # the fact and time of its first order: a replacement (at 12:30) shows nowhere
    assert rnd["sent_at"] == {"1": "2030-01-01T12:00:00Z"}
    assert "receipts" not in rnd
    dashboard = client.get(f"/host/{m.host}").get_data(as_text=True)
    assert '<time datetime="2030-01-01T12:00:00Z" title="2030-01-01 12:00 UTC">' in dashboard
    assert "12:30" not in dashboard
    preview = m.api("GET", "/preview", m.host).get_json()["preview"]
    assert preview["seats"][0]["submitted_at"] == "2030-01-01T12:00:00Z"
    m.close()
    # once closed, the host sees the receipt and how often it was replaced
    closed = m.api("GET", "/me", m.host).get_json()
    assert set(closed["rounds"][0]["receipts"]) == {"1"}
    assert closed["orders"]["1"]["1"]["revision"] == 2


def test_the_host_sees_what_it_entered_until_the_player_replaces_it(
    client: FlaskClient, clock: Clock
) -> None:
    """A preview may show what the host entered itself; once the player replaces
    it, that order is sealed from the host again."""
    m = Match(client)
    m.open()
    entered = list(reversed(PLAYS[0]["2"]))
    m.send(1, 2, entered, token=m.host)
    preview = m.api("GET", "/preview", m.host).get_json()["preview"]
    uses = {s["seat"]: s for s in preview["seats"]}
    assert uses[2]["uses"] == "host_entered" and uses[2]["order"] == entered
    assert uses[1]["uses"] == uses[3]["uses"] == "default" and "order" not in uses[1]
    assert preview["resolved"] is False and preview["result"] is None
    host_view = m.api("GET", "/me", m.host).get_json()
    assert host_view["orders"]["1"]["2"]["order"] == entered
    assert "revision" not in host_view["orders"]["1"]["2"]
    assert host_view["rounds"][0]["host_entered"] == [2]
    # the player's page says so, prominently
    page = client.get(f"/play/{m.seats[2]}").get_data(as_text=True)
    assert "The host entered this order for you</strong> at" in page
    # the player replaces it: sealed again
    m.send(1, 2, PLAYS[0]["2"])
    preview = m.api("GET", "/preview", m.host).get_json()["preview"]
    assert {s["seat"]: s["uses"] for s in preview["seats"]}[2] == "sealed"
    assert "order" not in json.dumps(preview["seats"])
    assert m.api("GET", "/me", m.host).get_json()["orders"] == {}
    # every order entered by the host: the whole resolution can be shown
    for seat in SEATS:
        m.send(1, seat, PLAYS[0][str(seat)], token=m.host)
    preview = m.api("GET", "/preview", m.host).get_json()["preview"]
    assert preview["resolved"] is True
    draft_only = {k: v for k, v in GOLDEN.items() if k not in ("placements", "votes")}
    assert preview["result"]["hands"] == resolve_document(draft_only)["hands"]


def test_the_public_learns_which_orders_the_host_entered_once_the_round_closes(
    client: FlaskClient, clock: Clock
) -> None:
    m = Match(client)
    m.open()
    m.send(1, 2, PLAYS[0]["2"], token=m.host)
    public = m.api("GET", "").get_json()["rounds"][0]
    assert "host_entered" not in public  # not while the round is open
    m.close()
    public = m.api("GET", "").get_json()["rounds"][0]
    assert public["host_entered"] == [2]
    page = client.get(f"/matches/{m.id}").get_data(as_text=True)
    assert "P2 (entered by the host)" in page
    post = client.get(f"/matches/{m.id}/post").get_data(as_text=True)
    assert "orders entered by the host for P2 (seat 2)" in post


def test_public_versions_and_picture_etags_move_only_with_public_state(
    client: FlaskClient, clock: Clock
) -> None:
    """Issue 10, Low: a public counter rose on every order replacement."""
    m = Match(client)
    m.open()
    m.send(1, 1, PLAYS[0]["1"])
    view = m.api("GET", "").get_json()
    etag = client.get(f"/matches/{m.id}/map.svg").headers["ETag"]
    for _ in range(3):
        m.send(1, 1, list(reversed(PLAYS[0]["1"])))
        m.send(1, 1, PLAYS[0]["1"])
    assert m.api("GET", "").get_json()["version"] == view["version"]
    assert client.get(f"/matches/{m.id}/map.svg").headers["ETag"] == etag
    # a public change (seat 2 has now sent an order) moves it
    m.send(1, 2, PLAYS[0]["2"])
    assert m.api("GET", "").get_json()["version"] != view["version"]
    assert client.get(f"/matches/{m.id}/map.svg").headers["ETag"] != etag
    # the seat's own version moves with its own order
    own = m.api("GET", "/me", m.seats[1]).get_json()["version"]
    m.send(1, 1, list(reversed(PLAYS[0]["1"])))
    assert m.api("GET", "/me", m.seats[1]).get_json()["version"] != own


def test_the_export_carries_the_seed_only_once_the_match_has_ended(
    client: FlaskClient, clock: Clock, svc: Referee
) -> None:
    """Issue 10, Medium 3: the host got the seed at the start through the export."""
    m = Match(client)
    seed = svc.document(m.id)["seed"]
    digest = hashlib.sha256(seed.encode()).hexdigest()
    for number in range(1, len(PLAYS) + 1):
        for document in (
            m.api("GET", "/export", m.host).get_json(),
            json.loads(client.get(f"/host/{m.host}/export").get_data(as_text=True)),
            svc.export(m.id),
        ):
            assert document["seed"] is None and document["seed_sha256"] == digest
            assert seed not in json.dumps(document)
            if number > 1:  # a closed round: the file cannot be resolved without the seed
                with pytest.raises(RuleError) as refused:
                    resolve_document(document)
                assert refused.value.codes == ["match/no_seed"]
        m.open()
        for seat in SEATS:
            m.send(number, seat, PLAYS[number - 1][str(seat)])
        m.close()
    document = m.api("GET", "/export", m.host).get_json()
    assert document["seed"] == seed and document["seed_sha256"] == digest
    assert resolve_document(document)["scores"] == resolve_document(GOLDEN)["scores"]


def test_orders_are_tied_to_the_round_they_were_written_for(
    client: FlaskClient, clock: Clock
) -> None:
    """Issue 10, Low: a rafting order replayed in the next round was accepted."""
    m = Match(client)
    for number in (1, 2, 3):
        m.open()
        for seat in SEATS:
            m.send(number, seat, PLAYS[number - 1][str(seat)])
        m.close()
    m.open()  # rafting 2 (round 4)
    votes = PLAYS[2]["1"]
    for token, extra in ((m.seats[1], {}), (m.host, {"seat": 1})):
        replayed = m.api("PUT", "/orders", token, json={"votes": votes, "round": 3, **extra})
        assert replayed.status_code == 409
        assert [e["code"] for e in replayed.get_json()["errors"]] == ["round/closed"]
    assert m.api("GET", "/me", m.host).get_json()["rounds"][3]["submitted"] == []
    ok = m.api("PUT", "/orders", m.seats[1], json={"votes": votes, "round": 4})
    assert ok.status_code == 200
    for bad in (4.0, "4", True, 0, -1, 2**40):
        resp = m.api("PUT", "/orders", m.seats[1], json={"votes": votes, "round": bad})
        assert resp.status_code == 422, bad
        assert [e["code"] for e in resp.get_json()["errors"]] == ["round/bad_number"]


def test_integers_must_be_written_as_integers(client: FlaskClient, clock: Clock) -> None:
    """Issue 10, Low: ``"seat": 1.0`` was taken as seat 1 and ``1e999`` as infinity."""
    m = Match(client)
    m.open()
    order = PLAYS[0]["1"]
    for seat in (1.0, True, "1"):
        resp = m.api("PUT", "/orders", m.seats[1], json={"draft": order, "seat": seat})
        assert resp.status_code == 422, seat
        assert [e["code"] for e in resp.get_json()["errors"]] == ["order/no_seat"]
        resp = m.api("PUT", "/orders", m.host, json={"draft": order, "seat": seat})
        assert resp.status_code == 422, seat
    for text in ('{"round": 1e999}', '{"deadline_hours": 1e999}', "[1e400]"):
        for path in ("/rounds/close",):
            resp = m.api(
                "POST", path, m.host, data=text, headers={"Content-Type": "application/json"}
            )
            assert resp.status_code == 422, text
            assert resp.get_json()["errors"][0]["code"] == "json/invalid"
    body = {"name": "x", "map": "three-rapids", "players": GOLDEN["players"]}
    raw = json.dumps(body).replace('"garnets": 7', '"garnets": 1e999')
    resp = client.post("/api/matches", data=raw, headers={"Content-Type": "application/json"})
    assert resp.status_code == 422 and resp.get_json()["errors"][0]["code"] == "json/invalid"
    assert m.api("GET", "/me", m.host).get_json()["rounds"][0]["submitted"] == []


def test_a_huge_bad_order_gets_a_short_answer(client: FlaskClient, clock: Clock) -> None:
    """Issue 10, Low: a 130k-entry bad draft list got a 15 MB error reply."""
    m = Match(client)
    m.open()
    body = json.dumps({"draft": ["0"] * 120_000}, separators=(",", ":"))
    assert len(body) < 500_000  # under the size limit
    headers = {"Content-Type": "application/json"}
    resp = m.api("PUT", "/orders", m.seats[1], data=body, headers=headers)
    assert resp.status_code == 422
    assert len(resp.get_data()) < 20_000
    errors = resp.get_json()["errors"]
    assert len(errors) == 51 and errors[-1]["code"] == "problems/more"
    assert "more problems" in errors[-1]["message"]


def test_a_huge_value_is_not_quoted_whole_in_a_refusal(client: FlaskClient, clock: Clock) -> None:
    """Issue 22's attacker's pass: a 100,000-character string where a list
    belongs came back whole in the schema's message, a 100 KB answer; every
    refusal's message is cut to MAX_MESSAGE characters (referee.errors), so a
    short value is still quoted whole."""
    m = Match(client)
    m.open()
    resp = m.api("PUT", "/orders", m.seats[1], json={"draft": "J" * 100_000})
    assert resp.status_code == 422
    (error,) = resp.get_json()["errors"]
    assert error["code"] == "draft/not_a_list"
    assert len(resp.get_data()) < 1_000 and "more characters not shown" in error["message"]
    short = m.api("PUT", "/orders", m.seats[1], json={"draft": "J" * 20}).get_json()
    assert "J" * 20 in short["errors"][0]["message"]
    assert "more characters" not in short["errors"][0]["message"]
