"""The outbox in one process (SQLite and PostgreSQL): retries with back-off,
failures the host sees, secret links struck out once a message is finished,
reminders that are no longer needed, unsubscribing, a server without e-mail,
and the rules of reminders and of the schedule."""

from __future__ import annotations

import json
from datetime import timedelta
from typing import Any

import pytest
from service.conftest import Clock, db_url, engine  # noqa: F401  (fixtures)
from sqlalchemy import Engine

from referee.errors import RuleError
from referee.notify.config import NotifyConfig
from referee.notify.outbox import MAX_ATTEMPTS, backoff, deliver_due
from referee.rulesets.rocky_river.ruleset import DEMO_FILE
from referee.service import Created, Referee

DEMO: dict[str, Any] = json.loads(DEMO_FILE.read_text(encoding="utf-8"))


def referee(db: Engine, clock: Clock, smtp_url: str | None) -> Referee:
    return Referee(
        db,
        clock,
        notify=NotifyConfig(
            public_url="https://referee.example.org", smtp_url=smtp_url, allow_loopback=True
        ),
    )


def new_match(svc: Referee, **notify: Any) -> Created:
    return svc.create_match(
        name="Outbox",
        setup={"map": DEMO["map"]},
        players=DEMO["players"],
        notify=notify,
        settings={"deadline_hours": 48},
    )


def statuses(svc: Referee, match_id: str) -> list[tuple[str, str, str]]:
    return sorted((m.channel, m.event, m.status) for m in svc.messages(match_id))


def test_a_failing_webhook_is_retried_with_back_off_then_shown_as_failed(
    engine: Engine,  # noqa: F811
    webhook_receiver: Any,
) -> None:
    clock = Clock()
    svc = referee(engine, clock, None)
    mid = new_match(svc, webhook_url=webhook_receiver.url).match_id
    webhook_receiver.status = 500
    for attempt in range(1, MAX_ATTEMPTS + 1):
        report = deliver_due(engine, svc.notify, clock=clock)
        assert (report.retrying, report.failed) == ((1, 0) if attempt < MAX_ATTEMPTS else (0, 1))
        (message,) = svc.messages(mid)
        assert message.attempts == attempt
        assert "500" in (message.last_error or "")
        if attempt < MAX_ATTEMPTS:
            assert message.due_at == clock.now + backoff(attempt)
            # not before it is due again
            assert deliver_due(engine, svc.notify, clock=clock).retrying == 0
            clock.advance(seconds=backoff(attempt).total_seconds())
    assert len(webhook_receiver.requests) == MAX_ATTEMPTS
    (message,) = svc.messages(mid)
    assert message.status == "failed"
    assert [backoff(n) for n in (1, 2, 3, 10)] == [
        timedelta(minutes=1),
        timedelta(minutes=2),
        timedelta(minutes=4),
        timedelta(hours=6),
    ]


def test_a_refused_address_fails_at_once_and_its_link_is_struck_out(
    engine: Engine,  # noqa: F811
    smtp_server: Any,
) -> None:
    clock = Clock()
    svc = referee(engine, clock, smtp_server.url)
    smtp_server.refuse.add("gone@example.org")
    created = new_match(svc, emails={"1": "gone@example.org", "2": "bo@example.org"})
    report = deliver_due(engine, svc.notify, clock=clock)
    assert (report.sent, report.failed) == (1, 1)
    failed, sent = sorted(svc.messages(created.match_id), key=lambda m: m.status)
    assert (failed.status, failed.seat, sent.status) == ("failed", 1, "sent")
    assert "550" in (failed.last_error or "")
    for m, seat in ((failed, 1), (sent, 2)):
        assert created.player_tokens[seat] not in m.body
        assert "/play/(removed once sent)" in m.body
    (mail,) = smtp_server.messages
    assert created.player_tokens[2] in mail.message.get_content()


def test_without_a_mail_server_addresses_are_refused_and_webhooks_still_go(
    engine: Engine,  # noqa: F811
    webhook_receiver: Any,
) -> None:
    svc = referee(engine, Clock(), None)
    with pytest.raises(RuleError) as refused:
        new_match(svc, emails={"1": "ana@example.org"})
    assert refused.value.codes == ["notify/no_mail"]
    mid = new_match(svc, webhook_url=webhook_receiver.url).match_id
    assert deliver_due(engine, svc.notify, clock=svc.clock).sent == 1
    assert statuses(svc, mid) == [("webhook", "match_created", "sent")]


def test_reminders_go_to_seats_that_have_not_sent_and_only_once(
    engine: Engine,  # noqa: F811
    smtp_server: Any,
) -> None:
    clock = Clock()
    svc = referee(engine, clock, smtp_server.url)
    emails = {"1": "ana@example.org", "2": "bo@example.org", "3": "cy@example.org"}
    mid = new_match(svc, emails=emails, remind_before_hours=[24, 2]).match_id
    svc.open_round(mid)
    deliver_due(engine, svc.notify, clock=clock)
    smtp_server.messages.clear()
    clock.advance(hours=23)
    assert svc.queue_reminders() == 0  # 25 h before the deadline: none yet
    clock.advance(hours=1, minutes=30)
    assert svc.queue_reminders() == 3  # 22.5 h before: the 24-hour one
    assert svc.queue_reminders() == 0  # never twice
    # seat 1 sends before the reminders go out: its reminder is dropped
    svc.submit_order(mid, 1, DEMO["draft"]["1"])
    report = deliver_due(engine, svc.notify, clock=clock)
    assert (report.sent, report.skipped) == (2, 1)
    assert sorted(m.rcpt_tos[0] for m in smtp_server.messages) == [
        "bo@example.org",
        "cy@example.org",
    ]
    # a moved deadline repeats no reminder already sent; the next lead time still comes
    svc.extend_deadline(mid, clock.now + timedelta(hours=10))
    assert svc.queue_reminders() == 0  # the 24-hour one went already; 2 h is not due yet
    clock.advance(hours=8, minutes=30)
    assert svc.queue_reminders() == 2  # seats 2 and 3, the 2-hour one
    # a paused match reminds no one
    svc.pause(mid)
    clock.advance(minutes=20)
    assert svc.queue_reminders() == 0


def test_a_short_round_gets_no_reminder_longer_than_itself(
    engine: Engine,  # noqa: F811
    smtp_server: Any,
) -> None:
    clock = Clock()
    svc = referee(engine, clock, smtp_server.url)
    mid = new_match(svc, emails={"1": "ana@example.org"}, remind_before_hours=[24, 2]).match_id
    svc.open_round(mid, deadline=clock.now + timedelta(hours=12))
    clock.advance(hours=1)
    assert svc.queue_reminders() == 0  # the 24-hour lead was before the round opened
    clock.advance(hours=9, minutes=1)
    assert svc.queue_reminders() == 1


def test_an_unsubscribed_seat_gets_nothing_more(
    engine: Engine,  # noqa: F811
    smtp_server: Any,
) -> None:
    clock = Clock()
    svc = referee(engine, clock, smtp_server.url)
    created = new_match(svc, emails={"1": "ana@example.org", "2": "bo@example.org"})
    mid = created.match_id
    svc.open_round(mid)  # queued to both
    contact = svc.contact(mid, 2)
    assert contact is not None
    assert svc.unsubscribe(contact.unsubscribe_key) == (mid, 2)
    assert svc.unsubscribe("no-such-key") is None
    report = deliver_due(engine, svc.notify, clock=clock)
    # seat 2's two messages (its link, the round) were still waiting: both dropped
    assert (report.sent, report.skipped) == (2, 2)
    svc.close_round(mid)
    deliver_due(engine, svc.notify, clock=clock)
    assert "bo@example.org" not in [m.rcpt_tos[0] for m in smtp_server.messages]
    # the player can subscribe again from its own page
    svc.set_email(mid, 2, "bo2@example.org")
    svc.open_round(mid)
    deliver_due(engine, svc.notify, clock=clock)
    assert [
        m.message["X-Referee-Event"]
        for m in smtp_server.messages
        if m.rcpt_tos == ["bo2@example.org"]
    ] == ["round_opened"]


def test_the_schedule_opens_rounds_by_itself_and_pause_holds_it(
    engine: Engine,  # noqa: F811
) -> None:
    clock = Clock()
    svc = referee(engine, clock, None)
    mid = svc.create_match(
        name="Scheduled",
        setup={"map": DEMO["map"]},
        players=DEMO["players"],
        schedule={"auto_open": True, "hours_per_round": 10},
    ).match_id
    state = svc.state(mid)
    assert state.open_round is not None and state.open_round.deadline == clock.now + timedelta(
        hours=10
    )
    svc.pause(mid)
    svc.close_round(mid)  # the host closes while paused: nothing opens until resumed
    assert svc.state(mid).open_round is None
    clock.advance(hours=1)
    svc.resume(mid)
    state = svc.state(mid)
    assert state.open_round is not None and state.open_round.number == 2
    assert state.open_round.deadline == clock.now + timedelta(hours=10)
    # turned off, a closed round leaves the next to the host; turned on, it opens at once
    svc.set_schedule(mid, auto_open=False, hours_per_round=5)
    svc.close_round(mid)
    assert svc.state(mid).open_round is None
    svc.set_schedule(mid, auto_open=True, hours_per_round=5)
    state = svc.state(mid)
    assert state.open_round is not None and state.open_round.number == 3
    assert state.open_round.deadline == clock.now + timedelta(hours=5)
    with pytest.raises(RuleError) as refused:
        svc.set_schedule(mid, auto_open=True, hours_per_round=0)
    assert refused.value.codes == ["schedule/no_deadline"]


@pytest.mark.parametrize(
    ("notify", "schedule", "code"),
    [
        ({"emails": {"4": "a@example.org"}}, None, "notify/bad_email"),
        ({"emails": {"01": "a@example.org"}}, None, "notify/bad_email"),
        ({"emails": {"\u0661": "a@example.org"}}, None, "notify/bad_email"),  # Arabic-Indic 1
        ({"emails": False}, None, "notify/bad_email"),
        ({"emails": {"1": "not an address"}}, None, "notify/bad_email"),
        ({"emails": ["a@example.org"]}, None, "notify/bad_email"),
        ({"webhook_url": "http://example.org/hook"}, None, "notify/bad_webhook"),
        ({"webhook_url": "https://10.0.0.5/hook"}, None, "notify/bad_webhook"),
        ({"remind_before_hours": [0]}, None, "notify/bad_reminders"),
        ({"remind_before_hours": [1, 2, 3, 4, 5, 6]}, None, "notify/bad_reminders"),
        ({"remind_before_hours": "24"}, None, "notify/bad_reminders"),
        ({"sms": True}, None, "notify/unknown"),
        ("yes", None, "notify/not_an_object"),
        (None, {"auto_open": True, "hours_per_round": 0}, "schedule/no_deadline"),
        (None, {"auto_open": "yes"}, "settings/not_a_flag"),
        (None, {"every": 2}, "schedule/unknown"),
        (None, [1], "schedule/not_an_object"),
    ],
)
def test_bad_notification_settings_are_refused_by_name(
    engine: Engine,  # noqa: F811
    notify: Any,
    schedule: Any,
    code: str,
) -> None:
    svc = referee(engine, Clock(), "smtp://127.0.0.1:9")
    with pytest.raises(RuleError) as refused:
        svc.create_match(
            name="Bad",
            setup={"map": DEMO["map"]},
            players=DEMO["players"],
            notify=notify,
            schedule=schedule,
        )
    assert code in refused.value.codes
    assert svc.match_ids() == []  # nothing stored


def test_schedule_and_settings_must_agree(engine: Engine) -> None:  # noqa: F811
    svc = referee(engine, Clock(), None)
    with pytest.raises(RuleError) as refused:
        svc.create_match(
            name="Both",
            setup={"map": DEMO["map"]},
            players=DEMO["players"],
            settings={"deadline_hours": 24},
            schedule={"hours_per_round": 48},
        )
    assert refused.value.codes == ["schedule/conflict"]


def test_the_order_that_completes_a_round_closes_it_and_opens_the_next(
    engine: Engine,  # noqa: F811
    webhook_receiver: Any,
) -> None:
    """close_early + auto_open: the last order's own transaction closes the round,
    opens the next and queues both messages (the order path, not a host action)."""
    clock = Clock()
    svc = referee(engine, clock, None)
    mid = svc.create_match(
        name="Quick",
        setup={"map": DEMO["map"]},
        players=DEMO["players"],
        settings={"close_early": True},
        schedule={"auto_open": True, "hours_per_round": 24},
        notify={"webhook_url": webhook_receiver.url},
    ).match_id
    for seat, order in DEMO["draft"].items():
        svc.submit_order(mid, int(seat), order)
    state = svc.state(mid)
    assert [(r.number, r.status, r.closed_by) for r in state.rounds] == [
        (1, "closed", "early"),
        (2, "open", None),
    ]
    assert [m.event for m in reversed(svc.messages(mid))] == [
        "match_created",
        "round_opened",
        "round_closed",
        "round_opened",
    ]
    deliver_due(engine, svc.notify, clock=clock)
    bodies = [json.loads(r.body) for r in webhook_receiver.requests]
    assert [b.get("round", {}).get("number") for b in bodies] == [None, 1, 1, 2]
    closed = bodies[2]
    assert "early" in closed["content"] and closed["round"]["status"] == "closed"


def test_e_mails_wait_while_the_server_has_no_mail_server(
    engine: Engine,  # noqa: F811
) -> None:
    """Queued under a mail server's settings, then run without one: the e-mails
    stay pending (counted for `referee notify` to say so), none is lost."""
    clock = Clock()
    with_mail = referee(engine, clock, "smtp://127.0.0.1:9")
    mid = new_match(with_mail, emails={"1": "ana@example.org", "2": "bo@example.org"}).match_id
    without = referee(engine, clock, None)
    assert without.waiting_emails() == 2
    assert deliver_due(engine, without.notify, clock=clock).sent == 0
    assert [m.status for m in without.messages(mid)] == ["pending", "pending"]


def test_replacing_a_sealed_order_changes_no_message_and_no_feed(
    engine: Engine,  # noqa: F811
) -> None:
    """A seat replacing its order with a different one queues nothing and moves
    nothing another viewer's calendar carries (the fact it has sent is public;
    what it sent is not)."""
    from referee.notify.calendar import match_calendar, seat_calendar
    from referee.ruleset import Viewer
    from referee.views import view_for

    clock = Clock()
    svc = referee(engine, clock, "smtp://127.0.0.1:9")
    created = new_match(
        svc,
        emails={"1": "ana@example.org", "2": "bo@example.org"},
        webhook_url="https://93.184.216.34/hook",
    )
    mid = created.match_id
    svc.open_round(mid)
    svc.submit_order(mid, 1, DEMO["draft"]["1"])

    def seen() -> tuple[Any, ...]:
        state = svc.state(mid)
        public = view_for(state, Viewer.public())
        other = view_for(state, Viewer.of_seat(2))
        return (
            [(m.event, m.seat, m.body) for m in svc.messages(mid)],
            match_calendar(public, "https://x/m", clock.now),
            seat_calendar(other, 2, "https://x/m", clock.now),
        )

    before = seen()
    svc.submit_order(mid, 1, list(reversed(DEMO["draft"]["1"])))
    assert svc.state(mid).orders_of(1)[1].revision == 2  # it was replaced
    assert seen() == before
