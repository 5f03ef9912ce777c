"""The JSON API of docs/contracts/rocky-river/API.md, end to end through the Flask test client."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest
from flask.testing import FlaskClient

from referee.errors import RuleError
from referee.rulesets.rocky_river import resolve_document

from .conftest import PLAYERS

SEATS = (1, 2, 3)

GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "rocky-river"
GOLDEN_CASES = sorted(p.name.removesuffix(".match.json") for p in GOLDEN.glob("*.match.json"))
KIND = {"draft": "draft", "mapping": "placements", "rafting": "votes"}


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def create(client: FlaskClient, **overrides: Any) -> dict[str, Any]:
    body = {"name": "API match", "map": "three-rapids", "players": PLAYERS, "settings": {}}
    body.update(overrides)
    resp = client.post("/api/matches", json=body)
    assert resp.status_code == 201, resp.get_json()
    data: dict[str, Any] = resp.get_json()
    return data


def codes(resp: Any) -> list[str]:
    return [e["code"] for e in resp.get_json()["errors"]]


def play_file(client: FlaskClient, doc: dict[str, Any]) -> dict[str, Any]:
    """Play a match file through the API: create, then open, order and close
    each of its closed rounds. Returns the creation response."""
    created = create(client, players=doc["players"], map=doc["map"])
    host = bearer(created["host_token"])
    mid = created["id"]
    rounds = [doc["draft"]]
    if "placements" in doc:
        rounds += [doc["placements"], *doc.get("votes", [])]
    for orders in rounds:
        opened = client.post(f"/api/matches/{mid}/rounds/open", headers=host, json={})
        assert opened.status_code == 200, opened.get_json()
        phase = opened.get_json()["rounds"][opened.get_json()["current_round"] - 1]["phase"]
        for seat, order in (orders or {}).items():
            if order is None:
                continue
            token = created["player_tokens"][seat]
            resp = client.put(
                f"/api/matches/{mid}/orders", headers=bearer(token), json={KIND[phase]: order}
            )
            assert resp.status_code == 200, resp.get_json()
            assert resp.get_json()["accepted"] is True
            assert len(resp.get_json()["receipt"]) == 64
        closed = client.post(f"/api/matches/{mid}/rounds/close", headers=host, json={})
        assert closed.status_code == 200, closed.get_json()
    return created


@pytest.mark.parametrize("case", GOLDEN_CASES)
def test_golden_matches_played_through_the_api_reproduce(
    client: FlaskClient, case: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    doc = json.loads((GOLDEN / f"{case}.match.json").read_text())
    expected = json.loads((GOLDEN / f"{case}.expected.json").read_text())
    # the file's seed decides the defaults: make the new match use it
    from referee.matches import lifecycle  # where create_match draws its seed

    monkeypatch.setattr(lifecycle.secrets, "token_urlsafe", _seed_then_random(doc["seed"]))
    created = play_file(client, doc)
    host = bearer(created["host_token"])
    me = client.get(f"/api/matches/{created['id']}/me", headers=host).get_json()
    result = me["result"]
    assert {k: result.get(k) for k in expected} == expected
    exported = client.get(f"/api/matches/{created['id']}/export", headers=host)
    assert exported.status_code == 200
    document = exported.get_json()
    assert document["seed_sha256"] == hashlib.sha256(doc["seed"].encode()).hexdigest()
    if "elimination_candidate" in expected:  # finished: the seed is public (R10)
        assert document["seed"] == doc["seed"]
    else:  # not yet: the host's file has no seed, and cannot be resolved
        assert document["seed"] is None
        with pytest.raises(RuleError) as refused:
            resolve_document(document)
        assert refused.value.codes == ["match/no_seed"]
        document["seed"] = doc["seed"]  # as it will be published at the end
    assert resolve_document(document) == expected


def _seed_then_random(seed: str) -> Any:
    import secrets as real

    calls = {"n": 0}

    def token_urlsafe(n: int | None = None) -> str:
        calls["n"] += 1
        if calls["n"] == 1:
            return seed
        return real.token_bytes(32).hex()

    return token_urlsafe


def test_create_match_answers_with_tokens_and_seed_digest(client: FlaskClient) -> None:
    created = create(client)
    assert set(created) == {"id", "host_token", "player_tokens", "seed_sha256", "webhook_secret"}
    assert created["webhook_secret"] is None  # no webhook asked for
    assert set(created["player_tokens"]) == {"1", "2", "3"}
    tokens = [created["host_token"], *created["player_tokens"].values()]
    assert len(set(tokens)) == 4 and all(len(t) >= 40 for t in tokens)
    public = client.get(f"/api/matches/{created['id']}").get_json()
    assert public["seed_sha256"] == created["seed_sha256"]
    assert "seed" not in public
    assert [p["name"] for p in public["players"]] == ["Ana", "Bo", "Cy"]


def test_tokens_are_stored_only_as_hashes(client: FlaskClient, app: Any) -> None:
    created = create(client)
    from sqlmodel import Session, select

    from referee.models import Match, Seat

    with Session(app.extensions["referee"].engine) as session:
        stored = [m.host_token_hash for m in session.exec(select(Match))]
        stored += [s.token_hash for s in session.exec(select(Seat))]
    everything = json.dumps(stored)
    assert created["host_token"] not in everything
    assert all(t not in everything for t in created["player_tokens"].values())


def test_bad_map_and_players_list_every_problem(client: FlaskClient) -> None:
    bad_map = {
        "name": "Broken",
        "segments": 1,
        "forks_per_segment": 1,
        "start": "a",
        "forks": [
            {"id": "a", "left": [], "right": [{"id": "x", "color": "pink", "seat": 4, "to": None}]}
        ],
    }
    players = [{"seat": 1, "name": "A", "garnets": -1}, {"seat": 1, "name": "", "garnets": 2}]
    resp = client.post("/api/matches", json={"name": "x", "map": bad_map, "players": players})
    assert resp.status_code == 422
    found = codes(resp)
    for code in ("map/empty_side", "map/unknown_color", "map/unknown_seat", "match/player_count"):
        assert code in found
    messages = " ".join(e["message"] for e in resp.get_json()["errors"])
    assert "pink" in messages


def test_malformed_bodies_are_refused_clearly(client: FlaskClient) -> None:
    resp = client.post("/api/matches", data="{not json", content_type="application/json")
    assert resp.status_code == 422 and codes(resp) == ["json/invalid"]
    resp = client.post(
        "/api/matches", data='{"name": "a", "name": "b"}', content_type="application/json"
    )
    assert resp.status_code == 422 and codes(resp) == ["json/duplicate_key"]
    resp = client.post("/api/matches", json=[1, 2])
    assert resp.status_code == 422 and codes(resp) == ["request/not_an_object"]
    resp = client.post("/api/matches", data="x" * (600 * 1024), content_type="application/json")
    assert resp.status_code == 413
    assert resp.get_json()["errors"][0]["code"] == "http/413"


def test_auth_missing_wrong_and_other_match_tokens(client: FlaskClient) -> None:
    one, two = create(client), create(client)
    url = f"/api/matches/{one['id']}/me"
    assert client.get(url).status_code == 401
    assert codes(client.get(url)) == ["auth/unauthorized"]
    assert client.get(url, headers=bearer("guess" * 10)).status_code == 403
    assert client.get(url, headers=bearer(two["host_token"])).status_code == 403
    assert client.get(url, headers=bearer(two["player_tokens"]["1"])).status_code == 403
    # a seat cannot use host actions
    seat = bearer(one["player_tokens"]["2"])
    for path in ("rounds/open", "rounds/close", "reveal", "pause", "tokens"):
        resp = client.post(f"/api/matches/{one['id']}/{path}", headers=seat, json={})
        assert resp.status_code == 403, path
        assert codes(resp) == ["auth/forbidden"]
    assert client.get(f"/api/matches/{one['id']}/export", headers=seat).status_code == 403
    assert client.get("/api/matches/nope").status_code == 404


def test_orders_are_sealed_and_replaceable_until_close(client: FlaskClient) -> None:
    created = create(client)
    mid, host = created["id"], bearer(created["host_token"])
    s1, s2 = bearer(created["player_tokens"]["1"]), bearer(created["player_tokens"]["2"])
    deck = [chr(c) for c in range(ord("A"), ord("Z") + 1)] + ["AS"]
    resp = client.put(f"/api/matches/{mid}/orders", headers=s1, json={"draft": deck})
    assert resp.status_code == 409 and codes(resp) == ["round/closed"]
    client.post(f"/api/matches/{mid}/rounds/open", headers=host, json={})
    first = client.put(f"/api/matches/{mid}/orders", headers=s1, json={"draft": deck}).get_json()
    second = client.put(
        f"/api/matches/{mid}/orders", headers=s1, json={"draft": list(reversed(deck))}
    ).get_json()
    assert first["receipt"] != second["receipt"]
    # seat 2 and the public know that seat 1 submitted, not what
    public = client.get(f"/api/matches/{mid}").get_json()
    assert public["rounds"][0]["submitted"] == [1]
    assert public["orders"] == {}
    other = client.get(f"/api/matches/{mid}/me", headers=s2).get_json()
    assert other["orders"] == {}
    host_view = client.get(f"/api/matches/{mid}/me", headers=host).get_json()
    assert host_view["orders"] == {}
    # the host learns that seat 1 sent an order and when, not its receipt (which
    # changes with every replacement)
    assert "receipts" not in host_view["rounds"][0]
    assert list(host_view["rounds"][0]["sent_at"]) == ["1"]
    mine = client.get(f"/api/matches/{mid}/me", headers=s1).get_json()
    assert mine["orders"]["1"]["1"]["order"] == list(reversed(deck))
    assert mine["orders"]["1"]["1"]["revision"] == 2
    closed = client.post(f"/api/matches/{mid}/rounds/close", headers=host, json={})
    assert closed.status_code == 200
    assert {"phase": "draft", "seat": 2} in closed.get_json()["result"]["defaulted"]
    late = client.put(f"/api/matches/{mid}/orders", headers=s1, json={"draft": deck})
    assert late.status_code == 409 and codes(late) == ["round/closed"]
    # the last accepted order counted: seat 1's first pick was AS (reversed deck)
    hand = client.get(f"/api/matches/{mid}/me", headers=s1).get_json()["result"]["hand"]
    assert "AS" in hand


def test_refused_order_lists_every_problem(client: FlaskClient) -> None:
    created = create(client)
    mid, host = created["id"], bearer(created["host_token"])
    s1 = bearer(created["player_tokens"]["1"])
    client.post(f"/api/matches/{mid}/rounds/open", headers=host, json={})
    draft = ["A", "a", "QQ"] + [chr(c) for c in range(ord("B"), ord("Y"))]
    resp = client.put(f"/api/matches/{mid}/orders", headers=s1, json={"draft": draft})
    assert resp.status_code == 422
    assert sorted(codes(resp)) == [
        "draft/duplicate_card",
        "draft/missing_card",
        "draft/unknown_card",
    ]
    wrong = client.put(f"/api/matches/{mid}/orders", headers=s1, json={"votes": ["L", "L", "L"]})
    assert wrong.status_code == 422 and codes(wrong) == ["order/wrong_phase"]
    # nothing was stored by the refusals
    assert client.get(f"/api/matches/{mid}").get_json()["rounds"][0]["submitted"] == []


def test_host_enters_an_order_for_a_player(client: FlaskClient) -> None:
    created = create(client)
    mid, host = created["id"], bearer(created["host_token"])
    client.post(f"/api/matches/{mid}/rounds/open", headers=host, json={})
    deck = [chr(c) for c in range(ord("A"), ord("Z") + 1)] + ["AS"]
    resp = client.put(f"/api/matches/{mid}/orders", headers=host, json={"seat": 3, "draft": deck})
    assert resp.status_code == 200
    no_seat = client.put(f"/api/matches/{mid}/orders", headers=host, json={"draft": deck})
    assert no_seat.status_code == 422 and codes(no_seat) == ["order/no_seat"]
    client.post(f"/api/matches/{mid}/rounds/close", headers=host, json={})
    exported = client.get(f"/api/matches/{mid}/export", headers=host).get_json()
    assert exported["host_entered"] == [{"phase": "draft", "seat": 3}]
    assert exported["draft"]["3"] == deck
    view = client.get(f"/api/matches/{mid}/me", headers=host).get_json()
    assert view["rounds"][0]["host_entered"] == [3]


def test_closing_twice_resolves_once(client: FlaskClient) -> None:
    created = create(client)
    mid, host = created["id"], bearer(created["host_token"])
    client.post(f"/api/matches/{mid}/rounds/open", headers=host, json={})
    first = client.post(f"/api/matches/{mid}/rounds/close", headers=host, json={"round": 1})
    again = client.post(f"/api/matches/{mid}/rounds/close", headers=host, json={"round": 1})
    assert first.status_code == again.status_code == 200
    assert first.get_json() == again.get_json()
    plain_again = client.post(f"/api/matches/{mid}/rounds/close", headers=host, json={})
    assert plain_again.status_code == 409 and codes(plain_again) == ["round/closed"]


def test_visibility_after_each_round(client: FlaskClient) -> None:
    doc = json.loads((GOLDEN / "01-full-game.match.json").read_text())
    created = create(client, players=doc["players"])
    mid, host = created["id"], bearer(created["host_token"])
    seats = {s: bearer(t) for s, t in created["player_tokens"].items()}
    rounds = [doc["draft"], doc["placements"], *doc["votes"]]
    for number, orders in enumerate(rounds, start=1):
        opened = client.post(f"/api/matches/{mid}/rounds/open", headers=host, json={}).get_json()
        phase = opened["rounds"][number - 1]["phase"]
        for seat, order in orders.items():
            client.put(f"/api/matches/{mid}/orders", headers=seats[seat], json={KIND[phase]: order})
        client.post(f"/api/matches/{mid}/rounds/close", headers=host, json={})
        full = client.get(f"/api/matches/{mid}/me", headers=host).get_json()["result"]
        public = client.get(f"/api/matches/{mid}").get_json()
        pres = public["result"]
        # never public before the full reveal: hands, lists, conflicts, placements, totals
        for key in ("hands", "hand", "draft_lists", "conflicts", "placements", "branch_totals"):
            assert key not in pres, (number, key)
        assert public["orders"] == {}
        assert ("path" in pres) == (number >= 3)
        assert ("elimination_candidate" in pres) == (number == 5)
        assert ("seed" in public) == (number == 5)
        for seat, headers in seats.items():
            mine = client.get(f"/api/matches/{mid}/me", headers=headers).get_json()
            assert mine["result"]["hand"] == full["hands"][seat]
            assert set(mine["orders"]) == {str(n) for n in range(1, number + 1)}
            assert all(set(by_seat) == {seat} for by_seat in mine["orders"].values())
            if number >= 2:
                assert mine["result"]["placements"] == {seat: full["placements"][seat]}
            text = json.dumps(mine)
            for other in set(seats) - {seat}:
                assert json.dumps(full["hands"][other]) not in text
        host_view = client.get(f"/api/matches/{mid}/me", headers=host).get_json()
        assert set(host_view["orders"]) == {str(n) for n in range(1, number + 1)}
    # the full reveal makes everything public, salts included
    assert client.post(f"/api/matches/{mid}/reveal", headers=host, json={}).status_code == 200
    public = client.get(f"/api/matches/{mid}").get_json()
    assert public["result"]["hands"] == full["hands"]
    some = public["orders"]["1"]["1"]
    import hashlib

    from referee.service import canonical_json

    digest = hashlib.sha256(f"{some['salt']}:{canonical_json(some['order'])}".encode()).hexdigest()
    assert digest == some["receipt"]


def test_published_totals_setting(client: FlaskClient) -> None:
    created = create(client, settings={"publish_totals": True})
    mid, host = created["id"], bearer(created["host_token"])
    for _ in range(2):
        client.post(f"/api/matches/{mid}/rounds/open", headers=host, json={})
        client.post(f"/api/matches/{mid}/rounds/close", headers=host, json={})
    public = client.get(f"/api/matches/{mid}").get_json()
    assert len(public["result"]["branch_totals"]) == 27


def test_bad_settings_are_refused(client: FlaskClient) -> None:
    resp = client.post(
        "/api/matches",
        json={
            "name": "x",
            "map": "three-rapids",
            "players": PLAYERS,
            "settings": {"deadline_hours": -1, "publish_totals": "yes", "colour": 1},
        },
    )
    assert resp.status_code == 422
    assert sorted(codes(resp)) == [
        "settings/bad_deadline",
        "settings/not_a_flag",
        "settings/unknown",
    ]


def test_forum_post_formats(client: FlaskClient) -> None:
    created = create(client, name="Friday *match*")
    mid = created["id"]
    md = client.get(f"/api/matches/{mid}/post?format=markdown").get_json()["post"]
    bb = client.get(f"/api/matches/{mid}/post?format=bbcode").get_json()["post"]
    assert created["seed_sha256"] in md and created["seed_sha256"] in bb
    assert "Friday \\*match\\*" in md
    assert "[b]Players[/b]" in bb
    bad = client.get(f"/api/matches/{mid}/post?format=html")
    assert bad.status_code == 422 and codes(bad) == ["post/bad_format"]


def test_deadlines_open_extend_pause_resume(client: FlaskClient) -> None:
    created = create(client)
    mid, host = created["id"], bearer(created["host_token"])
    past = client.post(
        f"/api/matches/{mid}/rounds/open", headers=host, json={"deadline": "2001-01-01T00:00Z"}
    )
    assert past.status_code == 422 and codes(past) == ["round/bad_deadline"]
    naive = client.post(
        f"/api/matches/{mid}/rounds/open", headers=host, json={"deadline": "2999-01-01T00:00"}
    )
    assert naive.status_code == 422
    ok = client.post(
        f"/api/matches/{mid}/rounds/open", headers=host, json={"deadline": "2999-01-01T00:00Z"}
    )
    assert ok.status_code == 200
    assert ok.get_json()["rounds"][0]["deadline"].startswith("2999-01-01T00:00:00")
    moved = client.post(
        f"/api/matches/{mid}/rounds/deadline", headers=host, json={"deadline": "2999-02-01T00:00Z"}
    )
    assert moved.get_json()["rounds"][0]["deadline"].startswith("2999-02-01")
    assert client.post(f"/api/matches/{mid}/pause", headers=host).get_json()["paused"] is True
    again = client.post(f"/api/matches/{mid}/pause", headers=host)
    assert again.status_code == 409 and codes(again) == ["match/paused"]
    assert client.post(f"/api/matches/{mid}/resume", headers=host).get_json()["paused"] is False


def test_preview_is_host_only_and_stores_nothing(client: FlaskClient) -> None:
    created = create(client)
    mid, host = created["id"], bearer(created["host_token"])
    client.post(f"/api/matches/{mid}/rounds/open", headers=host, json={})
    before = client.get(f"/api/matches/{mid}/me", headers=host).get_json()
    preview = client.get(f"/api/matches/{mid}/preview", headers=host)
    assert preview.status_code == 200
    shown = preview.get_json()["preview"]
    assert [(s["seat"], s["uses"]) for s in shown["seats"]] == [(n, "default") for n in SEATS]
    assert shown["resolved"] is False and shown["result"] is None
    after = client.get(f"/api/matches/{mid}/me", headers=host).get_json()
    assert before == after
    seat = bearer(created["player_tokens"]["1"])
    assert client.get(f"/api/matches/{mid}/preview", headers=seat).status_code == 403


def test_reissued_token_replaces_the_old_one(client: FlaskClient) -> None:
    created = create(client)
    mid, host = created["id"], bearer(created["host_token"])
    old = bearer(created["player_tokens"]["2"])
    resp = client.post(f"/api/matches/{mid}/tokens", headers=host, json={"seat": 2})
    new = bearer(resp.get_json()["token"])
    assert client.get(f"/api/matches/{mid}/me", headers=old).status_code == 403
    assert client.get(f"/api/matches/{mid}/me", headers=new).get_json()["viewer"]["seat"] == 2
    resp = client.post(f"/api/matches/{mid}/tokens", headers=host, json={"seat": None})
    assert client.get(f"/api/matches/{mid}/me", headers=host).status_code == 403
    new_host = bearer(resp.get_json()["token"])
    assert (
        client.get(f"/api/matches/{mid}/me", headers=new_host).get_json()["viewer"]["kind"]
        == "host"
    )


def test_admin_key_guards_creation_when_configured(app: Any) -> None:
    app.config["ADMIN_KEY"] = "s3cret-admin"
    client = app.test_client()
    body = {"name": "x", "map": "three-rapids", "players": PLAYERS}
    assert client.post("/api/matches", json=body).status_code == 401
    assert client.post("/api/matches", json=body, headers=bearer("wrong")).status_code == 401
    assert client.post("/api/matches", json=body, headers=bearer("s3cret-admin")).status_code == 201


def test_audit_endpoint_is_host_only(client: FlaskClient) -> None:
    doc = json.loads((GOLDEN / "01-full-game.match.json").read_text())
    created = play_file(client, doc)
    mid, host = created["id"], bearer(created["host_token"])
    resp = client.get(f"/api/matches/{mid}/audit", headers=host)
    assert resp.status_code == 200
    seats = resp.get_json()["seats"]
    public = client.get(f"/api/matches/{mid}").get_json()["result"]
    assert {s: seats[s]["actual"] for s in seats} == public["scores"]
    seat = bearer(created["player_tokens"]["1"])
    assert client.get(f"/api/matches/{mid}/audit", headers=seat).status_code == 403
