"""An order written for an earlier round of the same phase (issue 22, part 4b),
on SQLite and PostgreSQL: Rocky River's rafting rounds 3, 4 and 5 take orders
of one shape, so a round-3 order sent while round 4 is open would fit round 4.
It names its round, and is refused ``round/closed`` and stored nowhere,
through the service, the API and the player's page.

On PostgreSQL an order first takes the guarded fast path
(``Referee._submit_guarded``), which needs the open round as the last locked
order of the match found it: each test sends a locked order of round 4 first,
so the stale order goes through that path (the tests check it was tried)."""

from __future__ import annotations

from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import Engine, select

from referee.errors import RuleError
from referee.models import Order
from referee.service import Referee

from .conftest import Clock
from .test_order_guard import Counted
from .web.web_kit import GOLDEN, form_data, golden_order

KIND = {1: "draft", 2: "placements"}


def round_orders(engine: Engine, match_id: str, number: int) -> dict[int, str]:
    """The orders stored for round ``number``: seat -> receipt."""
    with engine.connect() as conn:
        rows = conn.execute(
            select(Order.seat, Order.receipt).where(
                Order.match_id == match_id, Order.round_number == number
            )
        ).all()
    return {seat: receipt for seat, receipt in rows}


def to_round_four(svc: Referee) -> str:
    """A match of the golden file, its first three rounds played (draft,
    mapping, rafting 1), rafting 2 (round 4) open."""
    created = svc.create_match(
        name="Stale", setup={"map": GOLDEN["map"]}, players=GOLDEN["players"], seed=GOLDEN["seed"]
    )
    mid = created.match_id
    for number in (1, 2, 3):
        svc.open_round(mid)
        for seat in (1, 2, 3):
            svc.submit_order(mid, seat, golden_order(number, seat))
        svc.close_round(mid)
    svc.open_round(mid)
    return mid


def test_the_service_refuses_an_order_for_the_rafting_round_before(
    engine: Engine, db_url: str
) -> None:
    svc = Counted(engine, Clock())
    mid = to_round_four(svc)
    assert golden_order(3, 1) != golden_order(4, 1)
    # a locked order of round 4 first: on PostgreSQL the next ones take the fast path
    mine = svc.submit_order(mid, 2, golden_order(4, 2), kind="votes", round_number=4)
    svc.guarded.clear()
    for seat in (1, 2):
        with pytest.raises(RuleError) as refused:
            svc.submit_order(mid, seat, golden_order(3, seat), kind="votes", round_number=3)
        assert refused.value.codes == ["round/closed"]
        assert "round 3, which is not open" in str(refused.value)
    with pytest.raises(RuleError) as by_host:
        svc.submit_order(
            mid, 3, golden_order(3, 3), host_entered=True, kind="votes", round_number=3
        )
    assert by_host.value.codes == ["round/closed"]
    on_postgresql = db_url.startswith("postgresql")
    # the seats' two were tried there and stored nothing; the host's takes the
    # locked path at once (an order the host enters is checked from its view)
    assert svc.guarded == ([False] * 2 if on_postgresql else [])
    assert round_orders(engine, mid, 4) == {2: mine}
    # the fast path was ready: an order for round 4 itself goes through it
    svc.submit_order(mid, 3, golden_order(4, 3), kind="votes", round_number=4)
    assert svc.guarded == ([False] * 2 + [True] if on_postgresql else [])


class Spy:
    """Counts the app's service's tries of the guarded path (PostgreSQL)."""

    def __init__(self, app: Flask, monkeypatch: pytest.MonkeyPatch) -> None:
        self.svc: Referee = app.extensions["referee"]
        self.tries: list[bool] = []
        real = self.svc._submit_guarded

        def guarded(*args: Any) -> str | None:
            receipt = real(*args)
            self.tries.append(receipt is not None)
            return receipt

        monkeypatch.setattr(self.svc, "_submit_guarded", guarded)


def test_the_api_refuses_an_order_for_the_rafting_round_before(
    app: Flask, client: FlaskClient, db_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    spy = Spy(app, monkeypatch)
    body = {"name": "Stale", "map": GOLDEN["map"], "players": GOLDEN["players"]}
    created = client.post("/api/matches", json=body)
    assert created.status_code == 201, created.get_json()
    data = created.get_json()
    mid, host = data["id"], {"Authorization": f"Bearer {data['host_token']}"}
    seats = {int(s): {"Authorization": f"Bearer {t}"} for s, t in data["player_tokens"].items()}
    url = f"/api/matches/{mid}"
    for number in (1, 2, 3):
        assert client.post(f"{url}/rounds/open", headers=host, json={}).status_code == 200
        for seat in (1, 2, 3):
            order = {KIND.get(number, "votes"): golden_order(number, seat), "round": number}
            r = client.put(f"{url}/orders", headers=seats[seat], json=order)
            assert r.status_code == 200, r.get_json()
        assert client.post(f"{url}/rounds/close", headers=host, json={}).status_code == 200
    assert client.post(f"{url}/rounds/open", headers=host, json={}).status_code == 200
    r = client.put(f"{url}/orders", headers=seats[2], json={"votes": golden_order(4, 2)})
    assert r.status_code == 200  # a locked order of round 4: the fast path's hint
    mine = r.get_json()["receipt"]
    spy.tries.clear()
    stale = [
        (seats[1], {"votes": golden_order(3, 1), "round": 3}),
        (seats[2], {"votes": golden_order(3, 2), "round": 3}),
        (host, {"votes": golden_order(3, 3), "round": 3, "seat": 3}),
    ]
    for headers, order in stale:
        r = client.put(f"{url}/orders", headers=headers, json=order)
        assert r.status_code == 409, r.get_json()
        assert [e["code"] for e in r.get_json()["errors"]] == ["round/closed"]
    # the seats' two tried the fast path; the host's takes the locked one (issue 22)
    assert spy.tries == ([False] * 2 if db_url.startswith("postgresql") else [])
    assert round_orders(spy.svc.engine, mid, 4) == {2: mine}
    me = client.get(f"{url}/me", headers=host).get_json()
    assert me["rounds"][3]["submitted"] == [2]


def test_the_page_refuses_an_order_form_of_the_rafting_round_before(
    app: Flask, client: FlaskClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A page left open on rafting 1 and sent once rafting 2 is open."""
    app.config["WTF_CSRF_ENABLED"] = False
    svc: Referee = app.extensions["referee"]
    mid = to_round_four(svc)
    tokens = {s: svc.reissue_token(mid, s) for s in (1, 2)}
    r = client.post(f"/play/{tokens[2]}", data=form_data(4, golden_order(4, 2)))
    assert r.status_code == 302, r.get_data(as_text=True)[:2000]  # accepted
    mine = round_orders(svc.engine, mid, 4)[2]
    for seat, token in tokens.items():
        r = client.post(f"/play/{token}", data=form_data(3, golden_order(3, seat)))
        assert r.status_code == 409
        text = r.get_data(as_text=True)
        assert "the round you wrote this order for has closed; it was not recorded" in text
    assert round_orders(svc.engine, mid, 4) == {2: mine}


def test_a_page_order_is_refused_when_its_round_closes_after_the_pages_own_look(
    app: Flask, client: FlaskClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The page checks the form's round against the open one, then sends the
    order to the service; a round that closes (and the next opens) between
    the two is caught by the service, which is given the round too: the order
    lands in no round, and the page says so."""
    app.config["WTF_CSRF_ENABLED"] = False
    svc: Referee = app.extensions["referee"]
    mid = to_round_four(svc)
    token = svc.reissue_token(mid, 1)
    real = svc.submit_order

    def racing(*args: Any, **kwargs: Any) -> str:
        svc.close_round(mid)  # rafting 2 closes, rafting 3 opens: after the page looked
        svc.open_round(mid)
        return real(*args, **kwargs)

    monkeypatch.setattr(svc, "submit_order", racing)
    r = client.post(f"/play/{token}", data=form_data(4, golden_order(4, 1)))
    assert r.status_code == 409, r.get_data(as_text=True)[:2000]
    assert round_orders(svc.engine, mid, 5) == {}
