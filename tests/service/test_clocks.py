"""A clock per seat (issue 24, :mod:`referee.clocks`), through the service on
SQLite and PostgreSQL, with the toy game (tests/toy): a simultaneous play step
(every seat) then pick steps (one seat each).

Each seat starts with a bank (here 5 minutes) and gets the added time (1
minute) at each step it acts in; its clock runs from the step's opening to its
first order; one that runs out gets the step's default; the step closes when
every acting seat has sent or run out, or at the fixed deadline; a pause stops
every clock."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest
from sqlalchemy import Engine
from toy import registered

from referee.errors import RuleError
from referee.ruleset import Viewer
from referee.service import Referee
from referee.views import pulse_for, pulse_of_view, view_for

from .conftest import Clock

PLAYERS = [{"seat": 1, "name": "Ana"}, {"seat": 2, "name": "Bo"}, {"seat": 3, "name": "Cy"}]
LIVE = {"bank_minutes": 5, "add_minutes": 1}
START = 360.0  # 5 minutes of bank and 1 added at the step


@pytest.fixture(autouse=True)
def _toy_registered() -> Iterator[None]:
    with registered():
        yield


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def svc(engine: Engine, clock: Clock) -> Referee:
    return Referee(engine, clock=clock)


def new_match(svc: Referee, clock_setting: Any = LIVE, **settings: Any) -> str:
    settings = {"close_early": True, "deadline_hours": 1, **settings}
    if clock_setting is not None:
        settings["clock"] = clock_setting
    return svc.create_match(
        name="clocks", players=PLAYERS, ruleset="toy", settings=settings, seed="clock-seed"
    ).match_id


def card(svc: Referee, mid: str, seat: int) -> int:
    options: list[int] = view_for(svc.state(mid), Viewer.of_seat(seat))["options"]
    return options[0]


def send(svc: Referee, mid: str, seat: int, **kwargs: Any) -> str:
    return svc.submit_order(mid, seat, card(svc, mid, seat), **kwargs)


def current(svc: Referee, mid: str, viewer: Viewer | None = None) -> dict[str, Any]:
    view = view_for(svc.state(mid), viewer or Viewer.public())
    rnd: dict[str, Any] = view["rounds"][view["current_round"] - 1]
    return rnd


def banks(svc: Referee, mid: str) -> dict[str, float | None]:
    found: dict[str, float | None] = view_for(svc.state(mid), Viewer.public())["clock_banks"]
    return found


def play_step_spending(svc: Referee, clock: Clock, mid: str, seconds: dict[int, int]) -> None:
    """Open the play step; each seat sends after ``seconds[seat]`` from the opening."""
    svc.open_round(mid)
    opened = clock.now
    for seat, after in sorted(seconds.items(), key=lambda kv: kv[1]):
        clock.now = opened + timedelta(seconds=after)
        send(svc, mid, seat)


def test_a_step_starts_each_acting_seat_s_clock_with_its_bank_and_the_added_time(
    svc: Referee, clock: Clock
) -> None:
    mid = new_match(svc)
    assert banks(svc, mid) == {"1": 300.0, "2": 300.0, "3": 300.0}
    rnd = svc.open_round(mid)
    ends = clock.now + timedelta(seconds=START)
    assert rnd.deadline == ends  # the clocks end before the 1-hour fixed deadline
    stamp = ends.isoformat().replace("+00:00", "Z")
    expected = {str(s): {"start": START, "runs_out_at": stamp, "left": None} for s in (1, 2, 3)}
    assert current(svc, mid)["clocks"] == expected


def test_a_seat_s_clock_stops_at_its_first_order_and_its_bank_is_what_was_left(
    svc: Referee, clock: Clock
) -> None:
    mid = new_match(svc)
    play_step_spending(svc, clock, mid, {1: 10, 2: 200, 3: 350})
    # the last order closed the step (close_early); each kept what it had left
    assert banks(svc, mid) == {"1": 350.0, "2": 160.0, "3": 10.0}
    closed = view_for(svc.state(mid), Viewer.public())["rounds"][0]
    assert closed["status"] == "closed"
    assert {s: c["left"] for s, c in closed["clocks"].items()} == {
        "1": 350.0,
        "2": 160.0,
        "3": 10.0,
    }
    # the next step (a pick, one seat) starts that seat's clock from its bank
    rnd = svc.open_round(mid)
    (picker,) = rnd.acting
    left = banks(svc, mid)[str(picker)]
    assert left is not None
    assert rnd.deadline == clock.now + timedelta(seconds=left + 60)


def test_a_replaced_order_costs_no_time_and_changes_nothing_another_viewer_sees(
    svc: Referee, clock: Clock
) -> None:
    mid = new_match(svc, close_early=False)
    svc.open_round(mid)
    clock.advance(seconds=30)
    send(svc, mid, 1)
    state = svc.state(mid)
    public, other = (view_for(state, v) for v in (Viewer.public(), Viewer.of_seat(2)))
    pulse = pulse_for(svc.pulse(mid))
    assert current(svc, mid)["clocks"]["1"] == {"start": START, "runs_out_at": None, "left": 330.0}
    clock.advance(seconds=100)
    options: list[int] = view_for(svc.state(mid), Viewer.of_seat(1))["options"]
    svc.submit_order(mid, 1, options[-1])  # replaced, 100 s later
    state = svc.state(mid)
    assert current(svc, mid)["clocks"]["1"]["left"] == 330.0
    assert pulse_for(svc.pulse(mid)) == pulse
    assert view_for(state, Viewer.public())["version"] == public["version"]
    assert current(svc, mid, Viewer.host())["clocks"] == current(svc, mid)["clocks"]
    assert view_for(state, Viewer.of_seat(2))["version"] == other["version"]


def test_the_pulse_carries_the_clocks_and_equals_every_view_s_pulse(
    svc: Referee, clock: Clock
) -> None:
    mid = new_match(svc)
    svc.open_round(mid)
    clock.advance(seconds=40)
    send(svc, mid, 2)
    pulse = pulse_for(svc.pulse(mid))
    assert pulse["step"]["clocks"]["2"]["left"] == START - 40
    assert pulse["step"]["clocks"]["1"]["runs_out_at"] is not None
    state = svc.state(mid)
    for viewer in (Viewer.public(), Viewer.host(), Viewer.of_seat(1), Viewer.of_seat(2)):
        assert pulse_of_view(view_for(state, viewer)) == pulse


def test_a_seat_whose_clock_ran_out_is_refused_and_gets_the_default(
    svc: Referee, clock: Clock
) -> None:
    mid = new_match(svc)
    # step 1: seat 3 keeps 10 s; then play out the pick steps at once
    play_step_spending(svc, clock, mid, {1: 10, 2: 200, 3: 350})
    while True:
        rnd = svc.open_round(mid)
        if rnd.phase == "play":
            break
        send(svc, mid, rnd.acting[0])
    # trick 2's play step: seat 3 has its bank (10 s, and 60 of any pick step it
    # had, spent in no time) + 60 s, the others far more
    bank = banks(svc, mid)["3"]
    assert bank is not None and bank < 200
    assert current(svc, mid)["clocks"]["3"]["start"] == bank + 60
    clock.advance(seconds=bank + 61)
    with pytest.raises(RuleError) as refused:
        send(svc, mid, 3)
    assert refused.value.codes == ["round/out_of_time"]
    assert "seat 3's clock ran out" in str(refused.value)
    assert svc.state(mid).open_round is not None  # the others still have time
    send(svc, mid, 1)
    assert svc.state(mid).open_round is not None
    send(svc, mid, 2)  # every seat has sent or run out: the step closes now
    state = svc.state(mid)
    assert state.open_round is None
    assert state.rounds[-1].closed_by == "deadline"
    assert banks(svc, mid)["3"] == 0.0
    result = view_for(state, Viewer.public())["result"]
    assert {"step": rnd.number, "seat": 3} in result["defaulted"]


def test_a_one_seat_step_whose_clock_runs_out_closes_with_its_default_at_the_sweep(
    svc: Referee, clock: Clock
) -> None:
    mid = new_match(svc)
    play_step_spending(svc, clock, mid, {1: 300, 2: 300, 3: 300})  # 60 s left each
    rnd = svc.open_round(mid)
    (picker,) = rnd.acting
    assert rnd.deadline == clock.now + timedelta(seconds=120)
    clock.advance(seconds=119)
    assert svc.close_due() == []
    clock.advance(seconds=1)
    assert svc.close_due() == [(mid, rnd.number)]
    assert banks(svc, mid)[str(picker)] == 0.0
    after = svc.open_round(mid)
    if picker in after.acting:  # with an empty bank, a step gives the added time only
        assert after.deadline == clock.now + timedelta(seconds=60)


def test_the_fixed_deadline_closes_a_step_before_the_clocks_and_time_spent_counts(
    svc: Referee, clock: Clock
) -> None:
    mid = new_match(svc, deadline_hours=0.05)  # 3 minutes, before the 6 of the clocks
    rnd = svc.open_round(mid)
    assert rnd.deadline == clock.now + timedelta(minutes=3)
    clock.advance(seconds=20)
    send(svc, mid, 1)
    clock.advance(seconds=159)
    assert svc.close_due() == []
    clock.advance(seconds=1)  # the fixed deadline, 3 minutes after the opening
    assert svc.close_due() == [(mid, 1)]
    assert banks(svc, mid) == {"1": 340.0, "2": 180.0, "3": 180.0}


def test_moving_the_fixed_deadline_leaves_each_seat_s_clock_alone(
    svc: Referee, clock: Clock
) -> None:
    mid = new_match(svc, deadline_hours=0.05)
    svc.open_round(mid)
    later = clock.now + timedelta(hours=2)
    rnd = svc.extend_deadline(mid, later)
    assert rnd.deadline == clock.now + timedelta(seconds=START)  # the clocks come first now
    assert rnd.deadline_changes == 1
    rnd = svc.extend_deadline(mid, clock.now + timedelta(minutes=1))
    assert rnd.deadline == clock.now + timedelta(minutes=1)
    rnd = svc.extend_deadline(mid, None)  # no fixed deadline: the clocks alone
    assert rnd.deadline == clock.now + timedelta(seconds=START)


def test_a_pause_stops_every_clock_and_a_resume_moves_each_running_end(
    svc: Referee, clock: Clock
) -> None:
    mid = new_match(svc, deadline_hours=0)
    opened = clock.now
    svc.open_round(mid)
    clock.advance(seconds=60)
    send(svc, mid, 1)  # 300 s left, stopped
    clock.advance(seconds=60)
    svc.pause(mid)
    clock.advance(hours=5)
    paused = current(svc, mid)["clocks"]
    assert paused["2"] == {"start": START, "runs_out_at": None, "left": 240.0}
    assert paused["1"]["left"] == 300.0
    assert svc.close_due() == []  # nothing runs out while paused
    send(svc, mid, 2)  # sent while paused: its clock stopped at the pause
    assert current(svc, mid)["clocks"]["2"]["left"] == 240.0
    svc.resume(mid)
    rnd = svc.state(mid).open_round
    assert rnd is not None
    # seat 3's clock ends 5 hours later than it would have
    assert rnd.deadline == opened + timedelta(seconds=START, hours=5)
    clock.advance(seconds=239)
    send(svc, mid, 3)
    assert banks(svc, mid) == {"1": 300.0, "2": 240.0, "3": 1.0}


def test_a_host_entered_order_stops_the_seat_s_clock_too(svc: Referee, clock: Clock) -> None:
    mid = new_match(svc)
    svc.open_round(mid)
    clock.advance(seconds=45)
    host_view = view_for(svc.state(mid), Viewer.host())
    assert host_view["rounds"][0]["clocks"]["2"]["left"] is None
    svc.submit_order(mid, 2, card(svc, mid, 2), host_entered=True)
    assert current(svc, mid)["clocks"]["2"]["left"] == START - 45


def test_a_match_without_a_clock_has_none(svc: Referee) -> None:
    mid = new_match(svc, clock_setting=None)
    svc.open_round(mid)
    view = view_for(svc.state(mid), Viewer.public())
    assert "clock_banks" not in view
    assert view["settings"]["clock"] is None
    assert all(r["clocks"] is None for r in view["rounds"])


@pytest.mark.parametrize(
    "setting",
    [
        {"bank_minutes": 0, "add_minutes": 0.5},
        {"bank_minutes": 43200, "add_minutes": 10080},
        {"bank_minutes": 0.5, "add_minutes": 0},
    ],
)
def test_clock_settings_inside_the_limits_are_taken(svc: Referee, setting: Any) -> None:
    mid = new_match(svc, clock_setting=setting)
    assert svc.state(mid).match.settings["clock"] == setting


@pytest.mark.parametrize(
    ("setting", "words"),
    [
        ("live", "must be null (no clock) or an object"),
        ({"bank_minutes": 5}, "the clock needs 'add_minutes'"),
        ({"bank_minutes": 5, "add_minutes": 1, "extra": 2}, "has no setting 'extra'"),
        ({"bank_minutes": 43200.5, "add_minutes": 1}, "bank_minutes must be a number of minutes"),
        ({"bank_minutes": 5, "add_minutes": 10081}, "add_minutes must be a number of minutes"),
        ({"bank_minutes": -1, "add_minutes": 1}, "from 0 to 43200, not '-1'"),
        ({"bank_minutes": True, "add_minutes": 1}, "not 'True'"),
        ({"bank_minutes": "5", "add_minutes": 1}, "not '5'"),
        ({"bank_minutes": float("nan"), "add_minutes": 1}, "not 'nan'"),
        ({"bank_minutes": 0, "add_minutes": 0}, "bank_minutes or add_minutes above 0"),
    ],
)
def test_bad_clock_settings_are_refused_by_name(svc: Referee, setting: Any, words: str) -> None:
    with pytest.raises(RuleError) as refused:
        new_match(svc, clock_setting=setting)
    assert set(refused.value.codes) == {"settings/bad_clock"}
    assert words in str(refused.value)
    assert svc.match_ids() == []


def test_orders_racing_on_the_last_running_clock_close_the_step_once(
    engine: Engine, clock: Clock
) -> None:
    """Two seats send at once, the last two to send: both orders are used and
    the step closes exactly once (on PostgreSQL, in real parallel)."""
    svc = Referee(engine, clock=clock)
    mid = new_match(svc)
    svc.open_round(mid)
    cards = {seat: card(svc, mid, seat) for seat in (1, 2)}
    clock.advance(seconds=START - 1)
    send(svc, mid, 3)
    clock.advance(seconds=0.5)
    errors: list[BaseException] = []
    start = threading.Barrier(2)

    def go(seat: int) -> None:
        try:
            start.wait()
            Referee(engine, clock=clock).submit_order(mid, seat, cards[seat])
        except BaseException as exc:  # reported below
            errors.append(exc)

    threads = [threading.Thread(target=go, args=(s,)) for s in (1, 2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    state = svc.state(mid)
    assert state.open_round is None
    assert [r.status for r in state.rounds] == ["closed"]
    assert set(state.orders_of(1)) == {1, 2, 3}
    assert banks(svc, mid) == {"1": 0.5, "2": 0.5, "3": 1.0}
