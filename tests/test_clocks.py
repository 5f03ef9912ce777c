"""The clock per player's pure functions (referee.clocks, issue 24): a whole
match of clocks played step by step against the module, with random steps and
random thinking times, never lasts longer than the create page's estimate,
and each seat's bank follows the rules (its time at the opening, less the time
to its first order, or 0 when it ran out)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from referee import clocks

T0 = datetime(2026, 12, 3, 12, 0, tzinfo=UTC)


def test_the_deadline_is_the_earlier_of_the_fixed_one_and_the_last_running_clock() -> None:
    clock = clocks.Clock(bank=300, add=60)
    started = clocks.start(clock, {1: 100.0, 2: None}, (1, 2), T0, T0 + timedelta(hours=1))
    # seat 1: 160 s; seat 2: the full bank, 360 s
    assert clocks.deadline(started) == T0 + timedelta(seconds=360)
    one_sent = clocks.sent(started, 2, T0 + timedelta(seconds=10))
    assert clocks.deadline(one_sent) == T0 + timedelta(seconds=160)
    both_sent = clocks.sent(one_sent, 1, T0 + timedelta(seconds=20))
    assert clocks.deadline(both_sent) == T0 + timedelta(hours=1)  # the fixed one alone
    early = clocks.with_fixed(started, T0 + timedelta(seconds=60))
    assert clocks.deadline(early) == T0 + timedelta(seconds=60)


def test_a_clock_runs_out_at_its_end_not_before_and_stops_at_the_first_order() -> None:
    clock = clocks.Clock(bank=0, add=30)
    started = clocks.start(clock, {1: 0.0}, (1,), T0, None)
    assert not clocks.out_of_time(started, 1, T0 + timedelta(seconds=29.9))
    assert clocks.out_of_time(started, 1, T0 + timedelta(seconds=30))
    sent = clocks.sent(started, 1, T0 + timedelta(seconds=10))
    assert sent["seats"]["1"]["left"] == 20.0
    assert not clocks.out_of_time(sent, 1, T0 + timedelta(hours=1))  # it has sent
    assert clocks.sent(sent, 1, T0 + timedelta(seconds=25)) == sent  # a replacement: free
    assert not clocks.out_of_time(started, 2, T0 + timedelta(hours=1))  # not acting


def test_a_pause_stops_the_clocks_and_a_resume_moves_them() -> None:
    clock = clocks.Clock(bank=60, add=0)
    started = clocks.start(clock, {1: None, 2: None}, (1, 2), T0, None)
    sent = clocks.sent(started, 1, T0 + timedelta(seconds=15))
    paused_at = T0 + timedelta(seconds=20)
    view = clocks.round_clocks(sent, "open", paused_at)
    assert view == {
        "1": {"start": 60.0, "runs_out_at": None, "left": 45.0},
        "2": {"start": 60.0, "runs_out_at": None, "left": 40.0},
    }
    # the clock's time while paused is the pause's start, whatever the time now
    later = T0 + timedelta(hours=3)
    assert clocks.clock_time(sent, paused_at, later) == paused_at
    moved = clocks.moved(sent, later - paused_at)
    assert moved["seats"]["1"] == sent["seats"]["1"]  # stopped: not moved
    assert clocks.deadline(moved) == later + timedelta(seconds=40)
    # a step opened during a pause: its clocks count from its opening
    opened = clocks.start(clock, {3: None}, (3,), later, None)
    assert clocks.clock_time(opened, paused_at, later + timedelta(hours=1)) == later


@settings(max_examples=200, deadline=None)
@given(
    seats=st.integers(min_value=2, max_value=5),
    bank=st.integers(min_value=0, max_value=600),
    add=st.integers(min_value=0, max_value=120),
    fixed=st.one_of(st.none(), st.integers(min_value=1, max_value=900)),
    plan=st.lists(
        st.tuples(st.integers(min_value=0, max_value=2**10), st.lists(st.floats(0, 2), max_size=6)),
        min_size=1,
        max_size=20,
    ),
)
def test_no_match_lasts_longer_than_its_estimate_and_banks_follow_the_rules(
    seats: int, bank: int, add: int, fixed: int | None, plan: list[tuple[int, list[float]]]
) -> None:
    """Each planned step: a set of acting seats (from bits) and, per acting
    seat, how long it thinks as a share of its clock (over 1: it runs out)."""
    if bank + add == 0:
        add = 1
    clock = clocks.Clock(float(bank), float(add))
    banks: dict[int, float | None] = {s: None for s in range(1, seats + 1)}
    now = T0
    steps = []
    for bits, shares in plan:
        acting = tuple(s for s in range(1, seats + 1) if bits >> (s - 1) & 1) or (1,)
        steps.append(acting)
        fixed_at = now + timedelta(seconds=fixed) if fixed else None
        state = clocks.start(clock, banks, acting, now, fixed_at)
        had = {s: state["seats"][str(s)]["start"] for s in acting}
        # orders in time order: each acting seat sends after its share of its clock
        sends = sorted(
            (had[s] * (shares[i] if i < len(shares) else 2.0), s) for i, s in enumerate(acting)
        )
        sent_after: dict[int, float] = {}
        for after, seat in sends:
            at = now + timedelta(seconds=after)
            due = clocks.deadline(state)
            if due is not None and due <= at:
                break  # the step closed before this order
            if clocks.out_of_time(state, seat, at):
                continue  # refused: round/out_of_time
            state = clocks.sent(state, seat, at)
            sent_after[seat] = after
        if len(sent_after) == len(acting):  # close early: the last order closed it
            closed_at = now + timedelta(seconds=max(sent_after.values()))
        else:
            due = clocks.deadline(state)
            assert due is not None  # a clock still runs: the step always ends
            closed_at = due
        state = clocks.closed(state, closed_at)
        for seat, left in clocks.banks_after(state).items():
            spent = sent_after.get(seat, (closed_at - now).total_seconds())
            assert left == pytest.approx(max(0.0, had[seat] - spent), abs=1e-5)
            banks[seat] = left
        now = closed_at
    bound = clocks.estimate(steps, clock, fixed)
    assert bound is not None
    assert (now - T0).total_seconds() <= bound + 1e-6
