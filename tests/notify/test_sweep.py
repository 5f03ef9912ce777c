"""The sweep follows the work due (issue 24): each open round keeps when its
next reminder is due (``Round.remind_at``), kept right wherever its deadline
moves, and ``queue_reminders`` reads only the rounds whose time has come."""

from __future__ import annotations

from datetime import datetime, timedelta

from service.conftest import Clock, db_url, engine  # noqa: F401  (fixtures)
from sqlalchemy import Engine, update
from sqlmodel import Session, select

from notify.test_outbox import new_match, referee
from referee.models import Message, Round
from referee.notify.reminders import next_reminder

EMAILS = {"1": "ana@example.org", "2": "bo@example.org", "3": "cy@example.org"}


def remind_at(
    engine: Engine,  # noqa: F811
    match_id: str,
    number: int,
) -> datetime | None:
    with Session(engine) as session:
        rnd = session.get(Round, (match_id, number))
        assert rnd is not None
        return rnd.remind_at


def test_a_moved_deadline_moves_the_reminder_and_a_pause_stops_it(
    engine: Engine,  # noqa: F811
) -> None:
    clock = Clock()
    svc = referee(engine, clock, "smtp://127.0.0.1:9")
    mid = new_match(svc, emails=EMAILS, remind_before_hours=[24, 2]).match_id
    rnd = svc.open_round(mid)
    assert rnd.deadline is not None
    assert remind_at(engine, mid, 1) == rnd.deadline - timedelta(hours=24)
    later = clock.now + timedelta(hours=72)
    svc.extend_deadline(mid, later)
    assert remind_at(engine, mid, 1) == later - timedelta(hours=24)
    svc.pause(mid)
    assert remind_at(engine, mid, 1) is None
    clock.advance(hours=5)
    svc.resume(mid)  # the deadline moves by the time paused, and its reminder with it
    assert remind_at(engine, mid, 1) == later + timedelta(hours=5) - timedelta(hours=24)
    svc.extend_deadline(mid, None)
    assert remind_at(engine, mid, 1) is None
    svc.close_round(mid)
    assert remind_at(engine, mid, 1) is None


def test_after_a_reminder_the_next_lead_time_is_kept_and_a_close_clears_it(
    engine: Engine,  # noqa: F811
) -> None:
    clock = Clock()
    svc = referee(engine, clock, "smtp://127.0.0.1:9")
    mid = new_match(svc, emails=EMAILS, remind_before_hours=[24, 2]).match_id
    deadline = svc.open_round(mid).deadline
    assert deadline is not None
    clock.advance(hours=25)
    assert svc.queue_reminders() == 3
    assert remind_at(engine, mid, 1) == deadline - timedelta(hours=2)
    clock.advance(hours=20, minutes=30)  # 2.5 h before: nothing due, nothing read
    assert svc.queue_reminders() == 0
    assert remind_at(engine, mid, 1) == deadline - timedelta(hours=2)
    clock.advance(minutes=40)
    assert svc.queue_reminders() == 3
    assert remind_at(engine, mid, 1) is None  # no lead time left
    svc.close_round(mid)
    assert remind_at(engine, mid, 1) is None


def test_a_lead_time_not_reached_is_not_read_and_a_short_round_skips_the_long_one(
    engine: Engine,  # noqa: F811
) -> None:
    clock = Clock()
    svc = referee(engine, clock, "smtp://127.0.0.1:9")
    mid = new_match(svc, emails={"1": "ana@example.org"}, remind_before_hours=[24, 2]).match_id
    deadline = clock.now + timedelta(hours=12)
    svc.open_round(mid, deadline=deadline)
    assert remind_at(engine, mid, 1) == deadline - timedelta(hours=2)
    # the sweep reads remind_at alone: a round whose time is set later is passed over
    with Session(engine) as session:
        session.execute(update(Round).values(remind_at=deadline))
        session.commit()
    clock.advance(hours=10, minutes=30)
    assert svc.queue_reminders() == 0


def test_an_address_given_later_gets_the_reminder_due(
    engine: Engine,  # noqa: F811
) -> None:
    clock = Clock()
    svc = referee(engine, clock, "smtp://127.0.0.1:9")
    mid = new_match(svc).match_id  # no news at all: no lead times yet
    deadline = svc.open_round(mid).deadline
    assert deadline is not None and remind_at(engine, mid, 1) is None
    clock.advance(hours=30)
    svc.set_email(mid, 2, "bo@example.org")  # the default lead times come with it
    assert remind_at(engine, mid, 1) == deadline - timedelta(hours=24)
    assert svc.queue_reminders() == 1


def test_a_waiting_reminder_of_a_moved_deadline_is_queued_again_for_the_new_one(
    engine: Engine,  # noqa: F811
) -> None:
    clock = Clock()
    svc = referee(engine, clock, None)  # no mail server: nothing goes out
    mid = new_match(svc, webhook_url="https://hooks.example.org/x", remind_before_hours=[24])
    svc.open_round(mid.match_id)
    clock.advance(hours=25)
    assert svc.queue_reminders() == 1  # the webhook's, not yet delivered
    svc.extend_deadline(mid.match_id, clock.now + timedelta(hours=20))
    assert svc.queue_reminders() == 1  # for the new deadline; the old one is dropped
    with Session(engine) as session:
        keys = sorted(m.dedup_key or "" for m in session.exec(select(Message)) if m.dedup_key)
    assert len(keys) == 2 and keys[0] != keys[1]


def test_several_processes_queue_each_reminder_once(
    engine: Engine,  # noqa: F811
) -> None:
    clock = Clock()
    first = referee(engine, clock, "smtp://127.0.0.1:9")
    second = referee(engine, clock, "smtp://127.0.0.1:9")
    mids = [new_match(first, emails=EMAILS).match_id for _ in range(3)]
    for mid in mids:
        first.open_round(mid)
    clock.advance(hours=25)
    assert first.queue_reminders() + second.queue_reminders() == 9
    assert first.queue_reminders() + second.queue_reminders() == 0


def test_next_reminder_keeps_a_past_time_only_when_asked() -> None:
    opened = datetime(2026, 12, 1, 12, 0).astimezone()
    deadline = opened + timedelta(hours=30)
    assert next_reminder(deadline, opened, [24, 2]) == deadline - timedelta(hours=24)
    assert next_reminder(deadline, opened, [48, 2]) == deadline - timedelta(hours=2)
    after = deadline - timedelta(hours=3)
    assert next_reminder(deadline, opened, [24, 2], after) == deadline - timedelta(hours=2)
    assert next_reminder(deadline, opened, [24, 2], deadline) is None
    assert next_reminder(None, opened, [24]) is None
    assert next_reminder(deadline, opened, []) is None
