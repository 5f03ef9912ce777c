"""The order path on both backends, and PostgreSQL's guarded statement
(``Referee._submit_guarded``): after a first locked order of a match, an order
is stored by one statement that re-checks under the match's and the round's
locks that the round is still open and before its deadline; whenever it is
not, nothing is stored and the locked path answers as it always did."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest
from sqlalchemy import Engine, select, text

from referee.db import make_engine, migrate
from referee.errors import RuleError
from referee.models import Order
from referee.rulesets.rocky_river.data import load_deck
from referee.service import Referee

from .conftest import PLAYERS, Clock, drop_schemas, postgres_schema

DECK = list(load_deck().ids)


class Counted(Referee):
    """The service, counting which path stored or refused each order."""

    def __init__(self, engine: Engine, clock: Clock) -> None:
        super().__init__(engine, clock=clock)
        self.locked = 0
        self.guarded: list[bool] = []  # one per try: True when it stored the order

    def _submit_locked(self, *args: Any) -> str:
        self.locked += 1
        return super()._submit_locked(*args)

    def _submit_guarded(self, *args: Any) -> str | None:
        receipt = super()._submit_guarded(*args)
        self.guarded.append(receipt is not None)
        return receipt


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def counted(engine: Engine, clock: Clock) -> Counted:
    return Counted(engine, clock)


def new_match(svc: Referee, **settings: Any) -> str:
    created = svc.create_match(
        name="m", setup={"map": "three-rapids"}, players=PLAYERS, settings=settings
    )
    return created.match_id


def stored(engine: Engine, match_id: str) -> dict[int, tuple[Any, str, int, bool]]:
    with engine.connect() as conn:
        rows = conn.execute(select(Order).where(Order.match_id == match_id)).all()
    return {r.seat: (r.payload, r.receipt, r.revision, r.host_entered) for r in rows}


def test_orders_replace_count_and_keep_the_host_flag(counted: Counted, engine: Engine) -> None:
    mid = new_match(counted, deadline_hours=24)
    counted.open_round(mid)
    first = counted.submit_order(mid, 1, DECK)
    second = counted.submit_order(mid, 1, list(reversed(DECK)))
    by_host = counted.submit_order(mid, 2, DECK, host_entered=True, kind="draft", round_number=1)
    again = counted.submit_order(mid, 2, DECK)
    orders = stored(engine, mid)
    assert orders[1] == (list(reversed(DECK)), second, 2, False)
    assert orders[2] == (DECK, again, 2, False)  # a player's order replaces the host's
    assert len({first, second, by_host, again}) == 4
    postgres = engine.dialect.name == "postgresql"
    # the first order of the match takes the locked path, and so does every order
    # the host enters (checked from the host's view, issue 22); on PostgreSQL the
    # rest are stored by the guarded statement, on SQLite by the locked path
    assert counted.locked == (2 if postgres else 4)
    assert counted.guarded == ([False, True, True] if postgres else [])


def test_refusals_are_the_locked_paths(counted: Counted, engine: Engine) -> None:
    mid = new_match(counted, deadline_hours=24)
    counted.open_round(mid)
    counted.submit_order(mid, 1, DECK)
    for order, kind, number, code in (
        (DECK[:3], None, None, "draft/missing_card"),
        (DECK, "mapping", None, "order/wrong_phase"),
        (DECK, None, 2, "round/closed"),
    ):
        with pytest.raises(RuleError) as refused:
            counted.submit_order(mid, 2, order, kind=kind, round_number=number)
        assert refused.value.codes == [code]
    with pytest.raises(RuleError) as refused:
        counted.submit_order(mid, 9, DECK)
    assert refused.value.codes == ["seat/unknown"]
    assert 2 not in stored(engine, mid)
    assert counted.locked == 5  # every refusal is the locked path's answer


def test_a_deadline_passed_refuses_and_closes(
    counted: Counted, engine: Engine, clock: Clock
) -> None:
    mid = new_match(counted, deadline_hours=1)
    counted.open_round(mid)
    counted.submit_order(mid, 1, DECK)
    clock.advance(hours=1)  # exactly at the deadline: too late
    with pytest.raises(RuleError) as refused:
        counted.submit_order(mid, 2, DECK)
    assert refused.value.codes == ["round/closed"]
    if engine.dialect.name == "postgresql":
        assert counted.guarded[-1] is False
    state = counted.state(mid)
    assert state.rounds[0].status == "closed" and state.rounds[0].closed_by == "deadline"
    assert set(stored(engine, mid)) == {1}


def test_paused_past_the_deadline_still_takes_orders(
    counted: Counted, engine: Engine, clock: Clock
) -> None:
    mid = new_match(counted, deadline_hours=1)
    counted.open_round(mid)
    counted.submit_order(mid, 1, DECK)
    counted.pause(mid)
    clock.advance(hours=2)
    counted.submit_order(mid, 2, DECK)
    assert set(stored(engine, mid)) == {1, 2}
    if engine.dialect.name == "postgresql":
        assert counted.guarded[-1] is True


def test_an_extended_deadline_is_the_one_checked(
    counted: Counted, engine: Engine, clock: Clock
) -> None:
    mid = new_match(counted, deadline_hours=1)
    counted.open_round(mid)
    counted.submit_order(mid, 1, DECK)
    counted.extend_deadline(mid, clock.now + timedelta(minutes=5))  # earlier than before
    clock.advance(minutes=10)
    with pytest.raises(RuleError) as refused:
        counted.submit_order(mid, 2, DECK)
    assert refused.value.codes == ["round/closed"]
    assert set(stored(engine, mid)) == {1}


def test_close_early_completes_the_round(counted: Counted, engine: Engine) -> None:
    mid = new_match(counted, deadline_hours=24, close_early=True)
    counted.open_round(mid)
    for seat in (1, 2, 3):
        counted.submit_order(mid, seat, DECK)
    state = counted.state(mid)
    assert state.rounds[0].closed_by == "early"


@pytest.fixture
def pg_engine() -> Iterator[Engine]:
    """PostgreSQL alone: the guarded statement is its own (SQLite's transactions
    take the write lock first, so an order there always takes the locked path)."""
    schema, url = postgres_schema()
    eng = make_engine(url)
    migrate(eng)
    yield eng
    eng.dispose()
    drop_schemas([schema])


def test_a_close_committed_while_the_statement_waits_stores_nothing(
    pg_engine: Engine, clock: Clock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A host's close holds the match's lock (it sleeps before its commit, the
    test hook of tests/reliability) while an order's guarded statement waits for
    it; once the close commits, the statement finds the round closed and stores
    nothing, and the order is refused."""
    engine = pg_engine
    closer = Counted(engine, clock)
    orders = Counted(engine, clock)
    mid = new_match(orders, deadline_hours=24)
    orders.open_round(mid)
    orders.submit_order(mid, 1, DECK)  # the locked path: this process now has a hint
    monkeypatch.setenv("REFEREE_FAULT_SLEEP_IN_CLOSE", "1.5")
    closing = threading.Thread(target=closer.close_round, args=(mid,))
    closing.start()
    time.sleep(0.5)  # the close is asleep, holding the lock, its round written
    started = time.monotonic()
    with pytest.raises(RuleError) as refused:
        orders.submit_order(mid, 2, DECK)
    waited = time.monotonic() - started
    closing.join()
    assert refused.value.codes == ["round/closed"]
    # the order changed nothing: the match's version is the one the close left
    # (the open, the first order and the close bump it once each)
    assert orders.state(mid).match.version == 3
    assert orders.guarded[-1] is False  # the guarded statement stored nothing
    assert waited > 0.5  # it did wait for the close's lock
    assert set(stored(engine, mid)) == {1}
    assert orders.state(mid).rounds[0].closed_by == "host"


# ---- the API's seat links on the order path ------------------------------------


def _api_match(client: Any) -> tuple[str, str, dict[str, str]]:
    created = client.post(
        "/api/matches",
        json={
            "name": "m",
            "map": "three-rapids",
            "players": PLAYERS,
            "settings": {"deadline_hours": 24},
        },
    ).get_json()
    mid, host = created["id"], created["host_token"]
    opened = client.post(
        f"/api/matches/{mid}/rounds/open", headers={"Authorization": f"Bearer {host}"}, json={}
    )
    assert opened.status_code == 200
    return mid, host, created["player_tokens"]


def _put(client: Any, mid: str, token: str, body: Any) -> Any:
    return client.put(
        f"/api/matches/{mid}/orders", headers={"Authorization": f"Bearer {token}"}, json=body
    )


def test_a_known_seat_link_is_not_looked_up_again_for_an_order(
    client: Any, app: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An order sent with a seat link this process has seen is stored without
    asking first who the link belongs to: PostgreSQL's guarded statement checks
    it, SQLite's locked path under the write lock (issue 28: one statement
    fewer per order)."""
    mid, _host, seats = _api_match(client)
    svc = app.extensions["referee"]
    looked_up: list[str] = []
    original = svc.find_token

    def counting(token: str) -> Any:
        looked_up.append(token)
        return original(token)

    monkeypatch.setattr(svc, "find_token", counting)
    for _ in range(3):
        answer = _put(client, mid, seats["1"], {"round": 1, "draft": DECK})
        assert answer.status_code == 200, answer.get_json()
    assert len(looked_up) == 1
    assert svc.state(mid).orders[0].payload == DECK


def test_a_reissued_seat_link_stops_at_once_on_the_order_path(client: Any, app: Any) -> None:
    """The old link of a seat, known to this process, is refused (403) as soon as
    the link is re-issued, with a good order or a bad one, and stores nothing;
    the new link sends orders."""
    mid, _host, seats = _api_match(client)
    svc = app.extensions["referee"]
    old = seats["2"]
    assert _put(client, mid, old, {"round": 1, "draft": DECK}).status_code == 200
    assert _put(client, mid, old, {"round": 1, "draft": DECK}).status_code == 200
    before = {o.seat: (o.receipt, o.revision) for o in svc.state(mid).orders}
    version = svc.state(mid).match.version
    new = svc.reissue_token(mid, 2)
    for body in (
        {"round": 1, "draft": list(reversed(DECK))},  # good: the guarded statement refuses it
        {"round": 1, "draft": DECK[:3]},  # refused by the rules: the link is checked first
        {"round": 1, "mapping": {}},  # the wrong kind of order
        {"round": 1, "draft": DECK, "seat": 3},  # another seat
    ):
        answer = _put(client, mid, old, body)
        assert answer.status_code == 403, (body, answer.get_json())
        assert [e["code"] for e in answer.get_json()["errors"]] == ["auth/forbidden"]
    assert {o.seat: (o.receipt, o.revision) for o in svc.state(mid).orders} == before
    assert svc.state(mid).match.version == version + 1  # the re-issue alone
    answer = _put(client, mid, new, {"round": 1, "draft": list(reversed(DECK))})
    assert answer.status_code == 200
    assert {o.seat: o.payload for o in svc.state(mid).orders}[2] == list(reversed(DECK))


def test_a_seat_link_sent_to_another_match_is_refused(client: Any) -> None:
    """A link known for one match vouches for nothing in another."""
    first, _h1, seats = _api_match(client)
    second, _h2, _s2 = _api_match(client)
    assert _put(client, first, seats["1"], {"round": 1, "draft": DECK}).status_code == 200
    answer = _put(client, second, seats["1"], {"round": 1, "draft": DECK})
    assert answer.status_code == 403


def test_an_order_on_a_lost_guard_connection_takes_the_locked_path(
    pg_engine: Engine, clock: Clock
) -> None:
    """The guarded statement's pool lends connections without a ping: one the
    server dropped (a restart) fails the statement, and the order is stored by
    the locked path (whose pool pings) instead of failing."""
    svc = Counted(pg_engine, clock)
    mid = new_match(svc, deadline_hours=24)
    svc.open_round(mid)
    svc.submit_order(mid, 1, DECK)
    svc.submit_order(mid, 2, DECK)  # guarded: the guard's pool holds a connection now
    assert svc.guarded == [False, True]
    with svc._guard_connection() as conn:
        pid = conn.execute(text("SELECT pg_backend_pid()")).scalar()
    with pg_engine.connect() as conn:
        assert conn.execute(text("SELECT pg_terminate_backend(:pid)"), {"pid": pid}).scalar()
    time.sleep(0.2)
    receipt = svc.submit_order(mid, 3, DECK)
    assert svc.guarded[-1] is False and svc.locked == 2
    assert stored(pg_engine, mid)[3][1] == receipt
    assert svc.submit_order(mid, 3, list(reversed(DECK)))  # and the guard's pool recovers
    assert svc.guarded[-1] is True
