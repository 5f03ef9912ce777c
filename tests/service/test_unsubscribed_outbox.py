"""A seat that unsubscribed gets no more e-mail queued (issue 22, part 4e), on
SQLite and PostgreSQL. Delivery drops a message to an unsubscribed address
too, so only the outbox shows whether one was queued: after a seat stops its
e-mails (its unsubscribe link, or its own page), opening and closing rounds,
reminders and the match's end queue nothing for it, while the other seats
still get each of theirs."""

from __future__ import annotations

from collections import Counter

import pytest
from sqlalchemy import Engine

from referee.notify.config import NotifyConfig
from referee.service import Referee

from .conftest import PLAYERS, Clock

ADDRESSES = {1: "ana@example.org", 2: "bo@example.org", 3: "cy@example.org"}


def e_mails(svc: Referee, match_id: str, after: set[int]) -> Counter[tuple[int | None, str]]:
    """The e-mails queued since ``after`` (the outbox ids seen then), by (seat, event)."""
    return Counter(
        (m.seat, m.event)
        for m in svc.messages(match_id)
        if m.channel == "email" and m.id not in after
    )


@pytest.mark.parametrize("how", ["unsubscribe link", "own page"])
def test_an_unsubscribed_seat_gets_nothing_queued_the_others_get_theirs(
    engine: Engine, how: str
) -> None:
    clock = Clock()
    svc = Referee(
        engine,
        clock,
        notify=NotifyConfig(public_url="https://referee.example.org", smtp_url="smtp://x:25"),
    )
    created = svc.create_match(
        name="Quiet",
        setup={"map": "three-rapids"},
        players=PLAYERS,
        settings={"deadline_hours": 48},
        notify={"emails": {str(s): a for s, a in ADDRESSES.items()}},
    )
    mid = created.match_id
    if how == "unsubscribe link":
        contact = svc.contact(mid, 2)
        assert contact is not None
        assert svc.unsubscribe(contact.unsubscribe_key) == (mid, 2)
    else:
        svc.set_email(mid, 2, None)
    seen = {m.id for m in svc.messages(mid) if m.id is not None}

    rounds = 0
    while not svc.state(mid).match.finished:
        svc.open_round(mid)
        clock.advance(hours=24, seconds=1)  # the 24-hour reminder is due
        assert svc.queue_reminders() >= 1
        clock.advance(hours=22)  # the 2-hour one
        assert svc.queue_reminders() >= 1
        svc.close_round(mid)  # no orders: every seat gets the seeded default
        rounds += 1
    queued = e_mails(svc, mid, seen)

    assert not [key for key in queued if key[0] == 2], queued  # nothing for seat 2
    for seat in (1, 3):
        assert queued[(seat, "round_opened")] == rounds, queued
        assert queued[(seat, "reminder")] == 2 * rounds, queued
        assert queued[(seat, "round_closed")] == rounds, queued
        assert queued[(seat, "match_ended")] == 1, queued
    assert rounds == 5
