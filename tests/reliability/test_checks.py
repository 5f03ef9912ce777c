"""The load test's checker is not vacuous: each kind of broken record or
stored state is reported by the invariant it breaks."""

from __future__ import annotations

import copy
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import Engine
from sqlmodel import Session

from referee.loadtest.checks import INVARIANTS, PUT, verify
from referee.models import Round
from referee.service import Referee

from .conftest import DEMO, ROUNDS


def _put(mid: str, seat: int, t0: float, status: int, **extra: Any) -> dict[str, Any]:
    code = {409: "round/closed", 500: "server/error"}.get(status)
    return {
        "name": PUT,
        "t0": t0,
        "t1": t0 + 0.01,
        "status": status,
        "code": code,
        "match": mid,
        "seat": seat,
        **extra,
    }


def test_each_broken_invariant_is_reported(engine: Engine) -> None:
    then = datetime.now(UTC) - timedelta(hours=1)
    deadline = then + timedelta(minutes=10)
    past = Referee(engine, clock=lambda: then)
    mid = past.create_match(
        name="checked", setup={"map": DEMO["map"]}, players=DEMO["players"]
    ).match_id
    past.open_round(mid, deadline=deadline)
    t = then.timestamp()
    requests = [
        _put(mid, 1, t + 1, 200, receipt=past.submit_order(mid, 1, ROUNDS[0]["2"])),
        _put(mid, 1, t + 2, 200, receipt=past.submit_order(mid, 1, ROUNDS[0]["1"])),
        _put(mid, 2, t + 3, 200, receipt=past.submit_order(mid, 2, ROUNDS[0]["2"])),
    ]
    assert Referee(engine).close_due() == [(mid, 1)]
    now = datetime.now(UTC).timestamp()
    requests.append(_put(mid, 3, now + 1, 409))
    good = {"requests": requests, "matches": [{"id": mid, "deadline": deadline.timestamp()}]}

    def broken(change: Any) -> set[str]:
        data = copy.deepcopy(good)
        change(data)
        verdict = verify(engine, None, data)
        return {name for name, held in verdict["invariants"].items() if not held}

    verdict = verify(engine, None, good)
    assert verdict["ok"] and verdict["violations"] == []
    assert set(verdict["invariants"]) == set(INVARIANTS) - {"api_agrees"}
    # an accepted order that is not the one stored: lost
    assert broken(lambda d: d["requests"].pop(1)) == {
        "last_accepted_is_used",
        "no_order_lost_or_duplicated",
    }
    # an order accepted after the close, for a seat the result defaulted
    assert broken(lambda d: d["requests"].append(_put(mid, 3, now + 2, 200, receipt="x"))) == {
        "no_order_accepted_after_close",
        "no_order_lost_or_duplicated",
        "defaulted_are_seats_without_order",
    }
    # a server error; a refusal while the round was open
    assert broken(lambda d: d["requests"].append(_put(mid, 3, now, 500))) == {
        "no_5xx",
        "only_expected_answers",
    }
    assert broken(lambda d: d["requests"].append(_put(mid, 3, t + 4, 409))) == {
        "no_refusal_while_open"
    }
    # a stored result that its orders do not give
    with Session(engine) as session:
        rnd = session.get(Round, (mid, 1))
        assert rnd is not None and rnd.result is not None
        rnd.result = {**rnd.result, "defaulted": []}
        session.add(rnd)
        session.commit()
    assert broken(lambda d: None) == {
        "results_re_resolve",
        "defaulted_are_seats_without_order",
    }
