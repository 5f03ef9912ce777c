"""Forfort through the JSON API only (docs/contracts/forfort/FORMAT.md's "API
bodies" and docs/contracts/rocky-river/API.md), on SQLite and on PostgreSQL:
a whole 3-player match, every body sent and every answer checked against the
OpenAPI document. Each step only the acting seat may send (others get 409
``step/not_acting``); its ``/me`` carries its ``hand`` and ``options`` (top
level and under ``result``) and no other seat's hand; a refusal carries the
rules' code and leaves nothing stored; a seat that sends nothing gets the
seeded default; the export carries the seed only at the end and then
resolves to the published result.
"""

from __future__ import annotations

from typing import Any

from api_schema import conforms
from flask.testing import FlaskClient
from werkzeug.test import TestResponse

from referee.rulesets.forfort.match import resolve

PLAYERS = [("Ana", 2), ("Bo", 0), ("Cy", 1)]


def simple_order(options: dict[str, Any], hand: list[str]) -> dict[str, Any] | None:
    """A legal turn read from a seat's options alone: its first camp, then a
    build, else a camp, else the forced discard (None: only effects are left,
    and the seat sends nothing, so its default is played)."""
    order: dict[str, Any] = {}
    if options["by_camp_start"] is not None:
        camp = options["camp_start"][0]
        order["camp_start"] = camp
        options = options["by_camp_start"][str(camp)]
    if not hand:
        return {**order, "action": None}
    if options["forced_discard"]:
        return {**order, "action": {"discard": hand[0]}}
    if options["build"]:
        card = sorted(options["build"])[0]
        space = options["build"][card][0]["space"]
        return {**order, "action": {"build": card, "space": space, "pairs": []}}
    if options["camp_spaces"]:
        return {**order, "action": {"camp": hand[0], "space": options["camp_spaces"][0]}}
    return None


class ApiMatch:
    def __init__(self, client: FlaskClient) -> None:
        body = {
            "name": "Forfort <by> API",
            "ruleset": "forfort",
            "players": [
                {"seat": s, "name": n, "garnets": g} for s, (n, g) in enumerate(PLAYERS, start=1)
            ],
            "settings": {},
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
        assert found["ruleset"] == "forfort"
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


def test_a_whole_match_through_the_api(client: FlaskClient) -> None:
    g = ApiMatch(client)
    sent: list[dict[str, Any] | None] = []
    refusals_tried = False
    for _ in range(120):
        public = g.view(None)
        if public["finished"]:
            break
        g.host_call("/rounds/open", "MatchView")
        public = g.view(None)
        acting = int(public["result"]["next"]["seat"])
        for seat in g.tokens:
            me = g.view(g.tokens[seat])
            assert me["viewer"] == {"kind": "seat", "seat": seat}
            result = me["result"]
            assert set(result["hands"]) == {str(seat)}  # its own hand only (FO21)
            assert me["hand"] == result["hands"][str(seat)] == result["hand"]
            if seat == acting:
                assert me["options"] == result["options"] is not None
            else:
                assert me.get("options") is None and result.get("options") is None
                g.refused(seat, {"turn": {"action": None}}, "step/not_acting", status=409)
        assert "hands" not in public["result"]
        me = g.view(g.tokens[acting])
        order = simple_order(me["options"], me["hand"])
        if not refusals_tried and order is not None and order["action"] is not None:
            # refusals with the rules' codes; nothing is stored
            g.refused(acting, {"turn": "build"}, "order/not_object")
            g.refused(acting, {"turn": {**order, "extra": 1}}, "order/bad_keys")
            bad = {**order, "action": {**order["action"], "space": 9}}
            g.refused(
                acting,
                {"turn": bad},
                "build/bad_space" if "build" in bad["action"] else "camp/bad_space",
            )
            number = str(public["current_round"])
            assert g.view(g.tokens[acting])["orders"].get(number, {}).get(str(acting)) is None
            refusals_tried = True
        if order is not None:
            body = {"turn": order}
            conforms("OrderBody", body)
            resp = g.put(acting, body)
            assert resp.status_code == 200, (order, resp.get_json())
            conforms("Accepted", resp.get_json())
        sent.append(None if order is None else {str(acting): order})
        early = g.export()
        assert early["seed"] is None  # the seed only at the end (FO20)
        g.host_call("/rounds/close", "Closed")
    else:
        raise AssertionError("the match did not end")
    assert refusals_tried
    # a seat left with only effects sent nothing: the seeded default was played
    defaulted = [
        {"step": i + 1, "seat": s["seat"]}
        for i, s in enumerate(g.view(None)["result"]["steps"])
        if sent[i] is None
    ]
    document = g.export()
    assert document["seed"] is not None
    assert [e if e else None for e in document["orders"]] == sent  # as sent (FORMAT)
    resolved = resolve(document)
    assert resolved["defaulted"] == defaulted
    published = g.view(None)["result"]
    for key, value in resolved.items():
        if key == "steps":
            assert published[key] == [{k: v for k, v in s.items() if k != "drew"} for s in value]
        else:
            assert published[key] == value, key
    host = g.view(g.host)
    assert host["viewer"] == {"kind": "host", "seat": None}
    assert host["result"]["hands"] == resolved["hands"]


def test_the_forts_pictures_as_svg_and_png(client: FlaskClient) -> None:
    """Both pictures, SVG and PNG (the PNG drawn from the same SVG at its
    size), public, for the start and after a closed step: the picture changes
    with the step, and an unknown picture name is refused."""
    import xml.etree.ElementTree as ET

    from referee.web.pictures import svg_to_png

    g = ApiMatch(client)
    g.host_call("/rounds/open", "MatchView")
    drawn: dict[str, str] = {}
    for stage in ("start", "after step 1"):
        for name in ("forts", "forts-column"):
            svg = client.get(f"/matches/{g.id}/{name}.svg")
            assert svg.status_code == 200 and svg.mimetype == "image/svg+xml", (stage, name)
            text = svg.get_data(as_text=True)
            root = ET.fromstring(text)
            assert root.attrib["data-seats"] == "3"
            assert "Forfort &lt;by&gt; API" in text  # the match's name, escaped
            png = client.get(f"/matches/{g.id}/{name}.png")
            assert png.status_code == 200 and png.mimetype == "image/png"
            assert png.get_data() == svg_to_png(text)
            if stage == "after step 1":
                assert text != drawn[name], name  # the first camp and build are drawn
            drawn[name] = text
        if stage == "start":
            me = g.view(g.tokens[1])
            order = simple_order(me["options"], me["hand"])
            assert order is not None
            assert g.put(1, {"turn": order}).status_code == 200
            # a sealed turn changes no picture
            assert client.get(f"/matches/{g.id}/forts.svg").get_data(as_text=True) == drawn["forts"]
            g.host_call("/rounds/close", "Closed")
    assert client.get(f"/matches/{g.id}/nothing.svg").status_code == 404
