"""Your-turn messages (issue 24): a step one seat acts in is that seat's turn.
Its e-mail says so (subject too), the webhook names whose turn it is, the
other seats get no e-mail per step, and every name is escaped for its channel."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator
from datetime import timedelta

import pytest
from service.conftest import Clock, db_url, engine  # noqa: F401  (fixtures)
from sqlalchemy import Engine
from toy import registered

from notify.test_outbox import referee
from referee.ruleset import Viewer
from referee.service import Referee
from referee.views import view_for

EMAILS = {str(s): f"p{s}@example.org" for s in range(1, 7)}
HOOK = "https://hooks.example.org/turns"


@pytest.fixture(autouse=True)
def _toy_registered() -> Iterator[None]:
    with registered():
        yield


def toy_match(svc: Referee, names: list[str], **notify: object) -> str:
    players = [{"seat": i, "name": n} for i, n in enumerate(names, start=1)]
    if "emails" in notify:
        notify["emails"] = {str(p["seat"]): EMAILS[str(p["seat"])] for p in players}
    return svc.create_match(
        name="Turns",
        players=players,
        ruleset="toy",
        setup={"hand_size": 5},
        settings={"deadline_hours": 48, "auto_open": True, "close_early": True},
        seed="turn-mail",
        notify=notify,
    ).match_id


def play_out(svc: Referee, mid: str) -> int:
    """Every acting seat sends its first option until the match ends; the steps."""
    steps = 0
    while True:
        state = svc.state(mid)
        rnd = state.open_round
        if rnd is None:
            return steps
        steps += 1
        for seat in rnd.acting:
            order = view_for(state, Viewer.of_seat(seat))["options"][0]
            svc.submit_order(mid, seat, order)


def test_a_long_turn_match_sends_each_seat_its_own_turns_not_every_step(
    engine: Engine,  # noqa: F811
) -> None:
    svc = referee(engine, Clock(), "smtp://127.0.0.1:9")
    names = ["Ana", "Bo", "Cy", "Di", "Ed", "Flo"]
    mid = toy_match(svc, names, emails=EMAILS)
    steps = play_out(svc, mid)
    assert steps >= 12  # tricks of one play step and five turns each
    mail = [m for m in svc.messages(mid) if m.channel == "email"]
    per_seat = Counter(m.seat for m in mail)
    turns = Counter(m.seat for m in mail if m.subject.startswith("Your turn:"))
    together = len([m for m in mail if m.event == "round_opened" and m.seat == 1]) - turns[1]
    for seat in range(1, 7):
        # the creation e-mail, a play step's opening and close, one e-mail per own turn, the end
        assert per_seat[seat] <= 1 + 2 * together + turns[seat] + 1, (seat, per_seat)
    assert sum(turns.values()) > 0
    closed = Counter(m.seat for m in mail if m.event == "round_closed")
    assert all(closed[seat] == together for seat in range(1, 7))  # the play steps alone


def test_the_acting_seat_is_told_it_is_its_turn_and_the_webhook_names_it(
    engine: Engine,  # noqa: F811
) -> None:
    svc = referee(engine, Clock(), "smtp://127.0.0.1:9")
    mid = toy_match(svc, ["Ana", "Bo", "Cy"], emails=EMAILS, webhook_url=HOOK)
    state = svc.state(mid)
    rnd = state.open_round
    assert rnd is not None
    for seat in rnd.acting:  # the play step: all three
        svc.submit_order(mid, seat, view_for(state, Viewer.of_seat(seat))["options"][0])
    turn = svc.state(mid).open_round
    assert turn is not None and len(turn.acting) == 1
    seat = turn.acting[0]
    name = ["Ana", "Bo", "Cy"][seat - 1]
    opened = [m for m in svc.messages(mid) if m.event == "round_opened"]
    mail = [m for m in opened if m.channel == "email" and m.subject.startswith("Your turn")]
    assert [(m.seat, m.subject) for m in mail] == [(seat, f"Your turn: Turns — {turn.title}")]
    assert "It is your turn" in mail[0].body
    hook = json.loads(next(m for m in opened if m.channel == "webhook").body)
    assert f"{name}'s turn: {turn.title}" in hook["text"]
    assert hook["turn_of"] == seat


def test_a_name_with_markup_or_line_breaks_is_escaped_in_each_channel(
    engine: Engine,  # noqa: F811
) -> None:
    svc = referee(engine, Clock(), "smtp://127.0.0.1:9")
    # (a line break in a name is refused when the match is made: names are one line)
    names = ["**Ana**", "<!channel> Bo", "[Cy](https://evil.example)"]
    mid = toy_match(svc, names, emails=EMAILS, webhook_url=HOOK)
    for _ in range(6):  # a few steps, so every seat has had a turn or more
        state = svc.state(mid)
        rnd = state.open_round
        assert rnd is not None
        for seat in rnd.acting:
            svc.submit_order(mid, seat, view_for(state, Viewer.of_seat(seat))["options"][0])
    messages = svc.messages(mid)
    assert all("\n" not in m.subject and "\r" not in m.subject for m in messages)
    hooks = [json.loads(m.body) for m in messages if m.channel == "webhook"]
    turns = [h["content"] for h in hooks if "turn_of" in h]
    assert turns
    for content in turns:
        assert "**Ana**" not in content and "](https://evil" not in content
    assert all("<!channel>" not in h["text"] for h in hooks)  # Slack: no mention


def test_reminders_in_a_turn_go_to_the_acting_seat_only(
    engine: Engine,  # noqa: F811
) -> None:
    clock = Clock()
    svc = referee(engine, clock, "smtp://127.0.0.1:9")
    mid = toy_match(svc, ["Ana", "Bo", "Cy"], emails=EMAILS)
    state = svc.state(mid)
    rnd = state.open_round
    assert rnd is not None
    for seat in rnd.acting:
        svc.submit_order(mid, seat, view_for(state, Viewer.of_seat(seat))["options"][0])
    turn = svc.state(mid).open_round
    assert turn is not None
    clock.advance(hours=25)
    assert svc.queue_reminders() == 1
    reminders = [m for m in svc.messages(mid) if m.event == "reminder"]
    assert [m.seat for m in reminders] == turn.acting
    assert turn.deadline is not None and turn.deadline - clock.now < timedelta(hours=24)
