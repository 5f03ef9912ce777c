"""The service layer: deadlines, pause, early close, re-checks and races."""

from __future__ import annotations

import threading
from datetime import timedelta
from typing import Any

import pytest
from sqlalchemy import Engine

from referee.errors import RuleError
from referee.rulesets.rocky_river.data import load_deck
from referee.service import Referee

from .conftest import PLAYERS, Clock

DECK = list(load_deck().ids)


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def timed(engine: Engine, clock: Clock) -> Referee:
    return Referee(engine, clock=clock)


def new_match(svc: Referee, **settings: Any) -> str:
    return svc.create_match(
        name="m", setup={"map": "three-rapids"}, players=PLAYERS, settings=settings
    ).match_id


def test_a_round_past_its_deadline_closes_on_the_next_look(timed: Referee, clock: Clock) -> None:
    mid = new_match(timed, deadline_hours=24)
    timed.open_round(mid)
    timed.submit_order(mid, 1, DECK)
    clock.advance(hours=23, minutes=59)
    assert timed.state(mid).open_round is not None
    clock.advance(minutes=2)
    state = timed.state(mid)  # any request that looks at the match closes it
    assert state.open_round is None
    closed = state.rounds[0]
    assert closed.closed_by == "deadline"
    assert closed.result is not None
    assert closed.result["defaulted"] == [
        {"phase": "draft", "seat": 2},
        {"phase": "draft", "seat": 3},
    ]
    with pytest.raises(RuleError) as refused:
        timed.submit_order(mid, 2, DECK)
    assert refused.value.codes == ["round/closed"]


def test_close_due_closes_only_due_rounds(timed: Referee, clock: Clock) -> None:
    due, later, none = (
        new_match(timed, deadline_hours=1),
        new_match(timed, deadline_hours=5),
        new_match(timed, deadline_hours=0),
    )
    for mid in (due, later, none):
        timed.open_round(mid)
    clock.advance(hours=2)
    assert timed.close_due() == [(due, 1)]
    assert timed.close_due() == []
    assert timed.state(later).open_round is not None
    assert timed.state(none).rounds[0].deadline is None


def test_pause_stops_the_clock_and_resume_moves_the_deadline(timed: Referee, clock: Clock) -> None:
    mid = new_match(timed, deadline_hours=10)
    timed.open_round(mid)
    deadline = timed.state(mid).rounds[0].deadline
    assert deadline is not None
    clock.advance(hours=1)
    timed.pause(mid)
    clock.advance(hours=20)
    assert timed.close_due() == []
    assert timed.state(mid).open_round is not None
    timed.resume(mid)
    assert timed.state(mid).rounds[0].deadline == deadline + timedelta(hours=20)
    clock.advance(hours=8, minutes=59)
    assert timed.close_due() == []
    clock.advance(minutes=2)
    assert timed.close_due() == [(mid, 1)]


def test_close_early_once_every_seat_has_an_order(timed: Referee) -> None:
    mid = new_match(timed, close_early=True)
    timed.open_round(mid)
    timed.submit_order(mid, 1, DECK)
    timed.submit_order(mid, 2, DECK)
    assert timed.state(mid).open_round is not None
    timed.submit_order(mid, 3, DECK)
    state = timed.state(mid)
    assert state.open_round is None and state.rounds[0].closed_by == "early"


def test_opening_rules(timed: Referee) -> None:
    mid = new_match(timed)
    timed.open_round(mid)
    with pytest.raises(RuleError) as twice:
        timed.open_round(mid)
    assert twice.value.codes == ["round/already_open"]
    for _ in range(4):
        timed.close_round(mid)
        timed.open_round(mid)
    timed.close_round(mid)
    state = timed.state(mid)
    assert state.match.finished
    assert [r.phase for r in state.rounds] == ["draft", "mapping", "rafting", "rafting", "rafting"]
    with pytest.raises(RuleError) as done:
        timed.open_round(mid)
    assert done.value.codes == ["match/finished"]
    with pytest.raises(RuleError) as paused:
        timed.pause(mid)
    assert paused.value.codes == ["match/finished"]


def test_reveal_only_when_finished(timed: Referee) -> None:
    mid = new_match(timed)
    with pytest.raises(RuleError) as early:
        timed.reveal(mid)
    assert early.value.codes == ["match/not_finished"]


def test_recheck_reports_a_tampered_result(timed: Referee, engine: Engine) -> None:
    from sqlmodel import Session, select

    from referee.models import Round

    mid = new_match(timed)
    timed.open_round(mid)
    timed.close_round(mid)
    assert timed.recheck(mid) == []
    with Session(engine) as session:
        rnd = session.exec(select(Round).where(Round.match_id == mid)).one()
        assert rnd.result is not None
        result = dict(rnd.result)
        hands = dict(result["hands"])
        hands["1"], hands["2"] = hands["2"], hands["1"]
        result["hands"] = hands
        rnd.result = result
        session.add(rnd)
        session.commit()
    differences = timed.recheck(mid)
    assert len(differences) == 1 and "'hands'" in differences[0] and "Draft" in differences[0]


def test_two_hosts_closing_at_once_resolve_once(engine: Engine) -> None:
    svc = Referee(engine)
    mid = new_match(svc)
    svc.open_round(mid)
    results: list[Any] = []
    errors: list[str] = []
    barrier = threading.Barrier(4)

    def close() -> None:
        barrier.wait()
        try:
            results.append(Referee(engine).close_round(mid, number=1).closed_at)
        except RuleError as exc:
            errors.extend(exc.codes)

    threads = [threading.Thread(target=close) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert len(results) == 4 and len(set(results)) == 1  # the same close, seen four times
    assert svc.recheck(mid) == []


def test_orders_racing_a_close_land_before_it_or_are_refused(engine: Engine) -> None:
    svc = Referee(engine)
    mid = new_match(svc)
    svc.open_round(mid)
    outcomes: dict[int, str] = {}
    barrier = threading.Barrier(4)

    def order(seat: int) -> None:
        barrier.wait()
        try:
            Referee(engine).submit_order(mid, seat, DECK)
            outcomes[seat] = "accepted"
        except RuleError as exc:
            outcomes[seat] = exc.codes[0]

    def close() -> None:
        barrier.wait()
        Referee(engine).close_round(mid)

    threads = [threading.Thread(target=order, args=(s,)) for s in (1, 2, 3)]
    threads.append(threading.Thread(target=close))
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert set(outcomes.values()) <= {"accepted", "round/closed"}
    result = svc.state(mid).rounds[0].result
    assert result is not None
    defaulted = {d["seat"] for d in result["defaulted"]}
    accepted = {s for s, o in outcomes.items() if o == "accepted"}
    # every accepted order was used; every refused one was defaulted
    assert defaulted == {1, 2, 3} - accepted


def test_create_match_refuses_control_characters_from_any_caller(timed: Referee) -> None:
    players = [dict(p) for p in PLAYERS]
    players[1]["name"] = "Bo\x00"
    with pytest.raises(RuleError) as refused:
        timed.create_match(name="m", setup={"map": "three-rapids"}, players=players)
    assert refused.value.codes == ["request/bad_text"]
    assert "players[1].name" in refused.value.problems[0].message
    assert "U+0000" in refused.value.problems[0].message
    with pytest.raises(RuleError) as bad_name:
        timed.create_match(name="m\x07", setup={"map": "three-rapids"}, players=PLAYERS)
    assert bad_name.value.codes == ["request/bad_text"]
    assert timed.match_ids() == []


def test_check_new_match_refuses_as_create_would_and_creates_nothing(timed: Referee) -> None:
    given: dict[str, Any] = {"name": "m", "setup": {"map": "three-rapids"}, "players": PLAYERS}
    timed.check_new_match(**given)  # all good: no error, and still nothing made
    assert timed.match_ids() == []
    bad = {**given, "name": " ", "setup": {"map": "no-such-map"}}
    with pytest.raises(RuleError) as checked:
        timed.check_new_match(**bad)
    with pytest.raises(RuleError) as created:
        timed.create_match(**bad)
    assert checked.value.problems == created.value.problems
    assert {"match/bad_name"} < set(checked.value.codes)
    assert timed.match_ids() == []
