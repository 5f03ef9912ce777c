"""A match that runs itself (issue 14's "done when"), on SQLite and PostgreSQL:
created with e-mail addresses, a webhook and auto-open, it goes from its first
round to its result with no host action, only the clock and ``referee
notify``'s steps (close due rounds, queue reminders, deliver). Every seat gets
exactly its messages, through a real SMTP server; the webhook gets public
information only, through a real HTTP server; nobody gets a secret link that is
not theirs."""

from __future__ import annotations

import hashlib
import hmac
import json
from collections import Counter
from typing import Any

import pytest
from service.conftest import Clock, db_url, engine  # noqa: F401  (fixtures)
from sqlalchemy import Engine

from referee.errors import RuleError
from referee.notify.config import NotifyConfig
from referee.notify.outbox import Report, deliver_due
from referee.ruleset import get_ruleset
from referee.service import Referee

ADDRESSES = {1: "ana@example.org", 2: "bo@example.org", 3: "cy@example.org"}


def config(smtp_url: str) -> NotifyConfig:
    return NotifyConfig(
        public_url="https://referee.example.org",
        smtp_url=smtp_url,
        mail_from="referee@referee.example.org",
        allow_loopback=True,
    )


def run_notify(svc: Referee) -> Report:
    """What one `referee notify` run does."""
    svc.close_due()
    svc.queue_reminders()
    return deliver_due(svc.engine, svc.notify, clock=svc.clock)


def by_seat(messages: list[Any]) -> dict[str, Counter[str]]:
    out: dict[str, Counter[str]] = {}
    for m in messages:
        out.setdefault(m.rcpt_tos[0], Counter())[m.message["X-Referee-Event"]] += 1
    return out


@pytest.mark.parametrize("game", ["rocky-river", "forks-2e"])
def test_a_match_runs_from_first_round_to_result_by_itself(
    engine: Engine,  # noqa: F811
    smtp_server: Any,
    webhook_receiver: Any,
    game: str,
) -> None:
    clock = Clock()
    svc = Referee(engine, clock, notify=config(smtp_server.url))
    demo = get_ruleset(game).demo(3)
    created = svc.create_match(
        name=demo.name,
        setup=demo.setup,
        players=demo.players,
        settings={k: v for k, v in demo.settings.items() if k != "deadline_hours"},
        ruleset=game,
        seed=demo.seed,
        notify={
            "emails": {str(s): a for s, a in ADDRESSES.items()},
            "webhook_url": webhook_receiver.url,
            "remind_before_hours": [24, 2],
        },
        schedule={"auto_open": True, "hours_per_round": 48},
    )
    assert created.webhook_secret and len(created.webhook_secret) == 64
    state = svc.state(created.match_id)
    assert state.open_round is not None and state.open_round.number == 1  # opened at creation

    step = 0
    expected: dict[str, Counter[str]] = {a: Counter() for a in ADDRESSES.values()}
    for address in ADDRESSES.values():
        expected[address]["match_created"] = 1
    webhook_expected: Counter[str] = Counter({"match_created": 1})
    while not svc.state(created.match_id).match.finished:
        rnd = svc.state(created.match_id).open_round
        assert rnd is not None, "auto-open left the match with no open round"
        for seat in rnd.acting:
            expected[ADDRESSES[seat]]["round_opened"] += 1
        webhook_expected["round_opened"] += 1
        run_notify(svc)
        clock.advance(hours=25)  # the 24-hour reminder is due
        run_notify(svc)
        orders = demo.steps[step] if step < len(demo.steps) else {}
        # the first acting seat sends (when the demo has its order), the others do not
        # (a demo order may not fit a deal changed by earlier defaults: then none)
        senders = []
        for seat in [s for s in rnd.acting if s in orders][:1]:
            try:
                svc.submit_order(created.match_id, seat, orders[seat])
                senders.append(seat)
            except RuleError:
                pass
        missing_after = [s for s in rnd.acting if s not in senders]
        for seat in rnd.acting:
            expected[ADDRESSES[seat]]["reminder"] += 1  # 24 h: nobody had sent then
        webhook_expected["reminder"] += 1
        clock.advance(hours=21.5)  # 1.5 h before the deadline: the 2-hour reminder
        run_notify(svc)
        for seat in missing_after:
            expected[ADDRESSES[seat]]["reminder"] += 1
        if missing_after:
            webhook_expected["reminder"] += 1
        clock.advance(hours=2)  # past the deadline: `referee notify` closes it
        run_notify(svc)
        for address in ADDRESSES.values():
            expected[address]["round_closed"] += 1
        webhook_expected["round_closed"] += 1
        step += 1
    for address in ADDRESSES.values():
        expected[address]["match_ended"] = 1
    webhook_expected["match_ended"] = 1
    report = run_notify(svc)
    assert report.failed == 0 and report.retrying == 0

    # every seat got exactly its messages, once each
    assert by_seat(smtp_server.messages) == expected
    ids = [m.message["Message-ID"] for m in smtp_server.messages]
    assert len(ids) == len(set(ids))
    assert Counter(json.loads(r.body)["event"] for r in webhook_receiver.requests) == (
        webhook_expected
    )

    # secrets: a seat's link only in its own creation e-mail; the host's nowhere
    tokens = {s: created.player_tokens[s] for s in ADDRESSES}
    for m in smtp_server.messages:
        text = m.message.get_content()
        seat = next(s for s, a in ADDRESSES.items() if a == m.rcpt_tos[0])
        assert created.host_token not in text
        for other, token in tokens.items():
            shown = token in text
            assert shown == (other == seat and m.message["X-Referee-Event"] == "match_created")
        assert m.message["List-Unsubscribe"].startswith("<https://referee.example.org/unsubscribe/")
    for r in webhook_receiver.requests:
        body = r.body.decode()
        assert created.host_token not in body
        assert not any(t in body for t in tokens.values())
        payload = json.loads(body)
        assert payload["match_id"] == created.match_id
        assert payload["content"] and payload["text"]
        assert r.headers["X-Referee-Event"] == payload["event"]
        assert r.headers["X-Referee-Delivery"] == payload["delivery"]
        mac = hmac.new(created.webhook_secret.encode(), r.body, hashlib.sha256).hexdigest()
        assert r.headers["X-Referee-Signature"] == f"sha256={mac}"
    # the stored copies no longer hold the links that were sent
    for m in svc.messages(created.match_id):
        assert m.status == "sent"
        assert not any(t in m.body for t in tokens.values())
