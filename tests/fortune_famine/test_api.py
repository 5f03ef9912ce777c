"""Fortune & Famine through the JSON API only
(docs/contracts/fortune-famine/FORMAT.md's "API bodies" and
docs/contracts/rocky-river/API.md), on SQLite and on PostgreSQL: a whole
3-player short match, every body sent and every answer checked against the
OpenAPI document. Each step only its acting seats may send (others get 409
``step/not_acting``); an acting seat's ``/me`` carries its ``options`` (top
level and under ``result``); until the end each seat sees its own stored
grain and nobody else's, the public none, the host every seat's once a step
has closed; a refusal carries the rules' code and leaves nothing stored; a
seat that sends nothing gets FF7's default; an order the host enters is
recorded as such; the export carries the seed only at the end and then
resolves to the published result.
"""

from __future__ import annotations

import secrets
from typing import Any

import pytest
from api_schema import conforms
from flask.testing import FlaskClient
from werkzeug.test import TestResponse

from referee.rulesets.fortune_famine.match import resolve

PLAYERS = [("Ana", 2), ("Bo", 0), ("Cy", 1)]
SEED = "ff-api-1"  # with simple_order's choices: 35 rounds, 9 of them attack turns
ATTACKING = ("pickpocket.", "evrathor-")  # the default deck's attacking cards (FF13)


def simple_order(options: dict[str, Any]) -> dict[str, Any]:
    """A legal order read from a seat's options alone: a hire turn's first
    card it can pay without trading, an attacking card first (else a pass), an attack turn's
    Pickpocket on its first target, an economy that pays every worker it
    can, then stores 1 grain when it may (else takes grain)."""
    if options["phase"] == "hire":
        held = options["max_silver"] - (options["trade"] or {}).get("grain", 0)
        attacking = [c for c in options["cards"] if c["card"].startswith(ATTACKING)]
        for choice in attacking + options["cards"]:
            if choice["how"] == "bid" and choice["min_silver"] > held:
                continue
            order: dict[str, Any] = {"action": choice["how"], "card": choice["card"]}
            if choice["how"] == "bid":
                order["silver"] = choice["min_silver"]
            if choice["discards"]:
                order["discard"] = choice["discards"][-1]
            return order
        return {"action": "pass"}
    if options["phase"] == "attack":
        targets = options["pickpocket"]
        return {} if targets is None else {"pickpocket": targets[:1]}
    grain, silver = options["grain"], options["silver"]
    pay = []
    for p in options["pay"]:
        if p["payment"]["grain"] <= grain and p["payment"]["silver"] <= silver:
            grain -= p["payment"]["grain"]
            silver -= p["payment"]["silver"]
            pay.append(p)
    for f in pay + options["free"]:
        grain += f["reward"]["grain"]
        silver += f["reward"]["silver"]
    order = {"pay": [p["card"] for p in pay]} if pay else {}
    if grain >= 1 and silver >= 1:
        return {**order, "decision": "store", "store": 1}
    return {**order, "decision": "grain"}


class _FixedSeed:
    """The service's ``secrets`` with the API's random match seed fixed (the
    API takes none), so that the match always has attack turns; links stay random."""

    def token_urlsafe(self, nbytes: int | None = None) -> str:
        return SEED if nbytes == 24 else secrets.token_urlsafe(nbytes)

    def __getattr__(self, name: str) -> Any:
        return getattr(secrets, name)


class ApiMatch:
    def __init__(self, client: FlaskClient) -> None:
        body = {
            "name": "Fortune <by> API",
            "ruleset": "fortune-famine",
            "players": [
                {"seat": s, "name": n, "garnets": g} for s, (n, g) in enumerate(PLAYERS, start=1)
            ],
            "settings": {"length": "short"},
            "rulers": {"1": "besella-baroso", "2": "elban-eltezza", "3": "cotarr-corace"},
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

    def api(self, method: str, path: str = "", token: str | None = None, **kw: Any) -> TestResponse:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        return self.client.open(
            f"/api/matches/{self.id}{path}", method=method, headers=headers, **kw
        )

    def view(self, token: str | None) -> dict[str, Any]:
        resp = self.api("GET", "/me" if token else "", token)
        assert resp.status_code == 200, resp.get_json()
        found: dict[str, Any] = resp.get_json()
        conforms("MatchView", found)
        assert found["ruleset"] == "fortune-famine"
        return found

    def host_call(self, path: str, schema: str) -> dict[str, Any]:
        resp = self.api("POST", path, self.host, json={})
        assert resp.status_code == 200, resp.get_json()
        found: dict[str, Any] = resp.get_json()
        conforms(schema, found)
        return found

    def put(self, seat: int, body: Any) -> TestResponse:
        return self.api("PUT", "/orders", self.tokens[seat], json=body)

    def refused(self, seat: int, body: Any, code: str, status: int = 422) -> None:
        resp = self.put(seat, body)
        assert resp.status_code == status, (body, resp.get_json())
        errors = resp.get_json()
        conforms("Errors", errors)
        assert code in [e["code"] for e in errors["errors"]], errors

    def export(self) -> dict[str, Any]:
        resp = self.api("GET", "/export", self.host)
        assert resp.status_code == 200, resp.get_json()
        found: dict[str, Any] = resp.get_json()
        conforms("MatchFile", found)
        return found


def test_a_whole_short_match_through_the_api(
    client: FlaskClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("referee.matches.lifecycle.secrets", _FixedSeed())
    g = ApiMatch(client)
    sent: list[dict[str, Any] | None] = []
    phases: set[str] = set()
    refusals_tried = entered = False
    for _ in range(200):
        public = g.view(None)
        if public["finished"]:
            break
        g.host_call("/rounds/open", "MatchView")
        public = g.view(None)
        step = public["result"]["next_round"]
        number, phase, acting = step["round"], step["phase"], step["acting"]
        phases.add(phase)
        assert all(s["stored"] is None for s in public["result"]["seats"].values())
        assert all(r["burned"] is None for r in public["result"]["seasons"])
        host = g.view(g.host)
        stored = [s["stored"] for s in host["result"]["seats"].values()]
        assert all(isinstance(v, int) for v in stored) is (number > 1)
        orders: dict[str, Any] = {}
        for seat in g.tokens:
            me = g.view(g.tokens[seat])
            assert me["viewer"] == {"kind": "seat", "seat": seat}
            seats = me["result"]["seats"]
            assert isinstance(seats[str(seat)]["stored"], int)  # its own (FF21)
            assert all(v["stored"] is None for k, v in seats.items() if k != str(seat))
            if seat not in acting:
                assert me.get("options") is None and "options" not in me["result"]
                g.refused(seat, {phase: {}}, "step/not_acting", status=409)
                continue
            options = me["options"]
            assert options == me["result"]["options"] and options["phase"] == phase
            order = simple_order(options)
            if not refusals_tried and phase == "hire" and order["action"] != "pass":
                g.refused(seat, {"hire": "bid"}, "order/not_object")
                g.refused(seat, {"hire": {**order, "action": "Bid"}}, "hire/bad_action")
                g.refused(seat, {"hire": {**order, "decision": "grain"}}, "order/wrong_step")
                g.refused(seat, {"hire": {**order, "card": "famine.99"}}, "hire/unknown_card")
                assert g.view(g.tokens[seat])["orders"].get(str(number), {}).get(str(seat)) is None
                refusals_tried = True
            if (number + seat) % 7 == 0:
                continue  # nothing sent: FF7's default
            body = {phase: order}
            conforms("OrderBody", body)
            if not entered and number > 1:
                # the host enters this seat's order (its players' by private message)
                resp = g.api("PUT", "/orders", g.host, json={**body, "seat": seat})
                assert resp.status_code == 200, (order, resp.get_json())
                entered = True
                host_entered = (number, seat)
            else:
                resp = g.put(seat, body)
                assert resp.status_code == 200, (order, resp.get_json())
            conforms("Accepted", resp.get_json())
            orders[str(seat)] = order
        sent.append(orders or None)
        assert g.export()["seed"] is None  # the seed only at the end (FF20)
        g.host_call("/rounds/close", "Closed")
    else:
        raise AssertionError("the match did not end")
    assert refusals_tried and entered and phases == {"hire", "attack", "economy"}
    document = g.export()
    assert document["seed"] == SEED and document["settings"] == {"length": "short"}
    assert document["rulers"] == {"1": "besella-baroso", "2": "elban-eltezza", "3": "cotarr-corace"}
    assert document["orders"] == sent  # as sent (FORMAT)
    assert document["host_entered"] == [{"round": host_entered[0], "seat": host_entered[1]}]
    resolved = resolve(document)
    published = g.view(None)["result"]
    assert {k: published[k] for k in resolved} == resolved
    assert resolved["defaulted"] == [
        {"round": i + 1, "seat": s}
        for i, entry in enumerate(sent)
        for s in resolved["rounds"][i]["acting"]
        if str(s) not in (entry or {})
    ]
    assert resolved["finished"] and resolved["token_of_life"] is not None
    for seat in g.tokens:  # at the end everyone sees every stored total
        seats = g.view(g.tokens[seat])["result"]["seats"]
        assert [s["stored"] for s in seats.values()] == [
            resolved["seats"][k]["stored"] for k in seats
        ]
