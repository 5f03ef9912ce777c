"""`referee notify` from several processes at once delivers each message once,
and a sender that dies between sending and marking sent is covered by the
lease: the message goes again, with the same id (at-least-once; receivers drop
repeats by Message-ID / X-Referee-Delivery). SQLite and PostgreSQL; real SMTP
and HTTP servers (tests/notify/conftest.py)."""

from __future__ import annotations

import json
from collections import Counter
from datetime import timedelta
from typing import Any

from notify.conftest import smtp_server, webhook_receiver
from sqlalchemy import Engine

from referee.loadtest.server import call_api, referee_command, referee_env, serving
from referee.models import utcnow
from referee.notify.config import NotifyConfig
from referee.notify.outbox import deliver_due
from referee.service import Referee

from .conftest import DEMO, run_referee, start_referee

__all__ = ["smtp_server", "webhook_receiver"]


def make_messages(engine: Engine, smtp_url: str, hook: str, matches: int) -> int:
    """Matches whose creation and first round queue messages; how many."""
    svc = Referee(
        engine,
        notify=NotifyConfig(
            public_url="https://referee.example.org", smtp_url=smtp_url, allow_loopback=True
        ),
    )
    for i in range(matches):
        svc.create_match(
            name=f"match {i}",
            setup={"map": DEMO["map"]},
            players=DEMO["players"],
            notify={
                "emails": {"1": f"a{i}@example.org", "2": f"b{i}@example.org"},
                "webhook_url": hook,
            },
            schedule={"auto_open": True, "hours_per_round": 48},
        )
    # each: 2 creation e-mails + webhook, 3 round-opened ones (2 e-mails + webhook)
    return matches * 6


def env(smtp_url: str) -> dict[str, str]:
    return {
        "REFEREE_SMTP_URL": smtp_url,
        "REFEREE_WEBHOOK_ALLOW_LOOPBACK": "1",
        "REFEREE_MAIL_FROM": "referee@referee.example.org",
    }


def test_concurrent_runs_deliver_each_message_once(
    engine: Engine, db_url: str, smtp_server: Any, webhook_receiver: Any
) -> None:
    webhook_receiver.delay = 0.02  # requests overlap the other runs' claims
    total = make_messages(engine, smtp_server.url, webhook_receiver.url, 8)
    runs = [start_referee(db_url, "notify", env=env(smtp_server.url)) for _ in range(3)]
    outputs = [run.communicate(timeout=120) for run in runs]
    assert [run.returncode for run in runs] == [0, 0, 0], outputs
    sent = sum(int(out.split("sent ")[1].split(",")[0]) for out, _ in outputs)
    assert sent == total  # the three runs' reports add up to every message, once

    mail_ids = Counter(m.message["Message-ID"] for m in smtp_server.messages)
    hook_ids = Counter(r.headers["X-Referee-Delivery"] for r in webhook_receiver.requests)
    assert len(mail_ids) + len(hook_ids) == total
    assert set(mail_ids.values()) == {1} and set(hook_ids.values()) == {1}
    # and a run after them finds nothing left
    again = run_referee(db_url, "notify", env=env(smtp_server.url))
    assert "sent 0," in again.stdout, again.stdout + again.stderr


def test_a_sender_killed_after_sending_is_covered_by_the_lease(
    engine: Engine, db_url: str, smtp_server: Any, webhook_receiver: Any
) -> None:
    svc = Referee(
        engine,
        notify=NotifyConfig(
            public_url="https://referee.example.org",
            smtp_url=smtp_server.url,
            allow_loopback=True,
        ),
    )
    svc.create_match(
        name="one message",
        setup={"map": DEMO["map"]},
        players=DEMO["players"],
        notify={"webhook_url": webhook_receiver.url},
    )
    crashed = run_referee(
        db_url, "notify", env={**env(smtp_server.url), "REFEREE_FAULT_EXIT_AFTER_SEND": "1"}
    )
    assert crashed.returncode == 3  # died right after the send, before marking it sent
    assert len(webhook_receiver.wait_for(1)) == 1
    (message,) = svc.messages(svc.match_ids()[0])
    assert message.status == "pending" and message.claimed_until is not None

    # within the lease, another run leaves it alone
    within = run_referee(db_url, "notify", env=env(smtp_server.url))
    assert "sent 0," in within.stdout
    assert len(webhook_receiver.requests) == 1

    # once the lease has run out, it goes again: the same delivery id, so the
    # receiver can tell it is a repeat
    later = utcnow() + timedelta(minutes=6)
    report = deliver_due(engine, svc.notify, clock=lambda: later)
    assert report.sent == 1
    first, second = webhook_receiver.wait_for(2)
    assert first.headers["X-Referee-Delivery"] == second.headers["X-Referee-Delivery"]
    assert first.body == second.body
    assert json.loads(first.body)["delivery"] == first.headers["X-Referee-Delivery"]
    (message,) = svc.messages(svc.match_ids()[0])
    assert message.status == "sent" and message.attempts == 2


def test_the_server_sends_by_itself_with_notify_every(
    db_url: str, smtp_server: Any, webhook_receiver: Any
) -> None:
    """`referee serve --notify-every 1`: a match created through the API has its
    messages delivered with no `referee notify` run."""
    with serving(
        referee_command(),
        referee_env(db_url, env(smtp_server.url)),
        args=("--notify-every", "1"),
    ) as base:
        status, created = call_api(
            base,
            "POST",
            "/api/matches",
            {
                "name": "Served",
                "map": "three-rapids",
                "players": DEMO["players"],
                "notify": {
                    "emails": {"2": "bo@example.org"},
                    "webhook_url": webhook_receiver.url,
                },
                "schedule": {"auto_open": True, "hours_per_round": 24},
            },
        )
        assert status == 201, created
        hooks = webhook_receiver.wait_for(2, timeout=20)
        mails = smtp_server.wait_for(2, timeout=20)
    assert sorted(json.loads(r.body)["event"] for r in hooks) == ["match_created", "round_opened"]
    assert sorted(m.message["X-Referee-Event"] for m in mails) == ["match_created", "round_opened"]
    link = f"/play/{created['player_tokens']['2']}"
    assert link in next(
        m.message.get_content() for m in mails if m.message["X-Referee-Event"] == "match_created"
    )
