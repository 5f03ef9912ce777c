"""Delivering the outbox: ``referee notify`` (and the server's background sender).

Messages are written by :class:`referee.service.Referee` in the transaction of
the state change they tell of. Delivering them is safe from several processes
and machines at once:

1. **Claim** one due message in its own short transaction: ``FOR UPDATE SKIP
   LOCKED`` on PostgreSQL (a row another sender is claiming is passed over),
   the write lock on SQLite (``BEGIN IMMEDIATE``). The claim is a **lease**
   (``claimed_until``, five minutes by default): no other sender takes the
   message until it runs out.
2. **Send** it, outside any transaction (SMTP or HTTPS, with time-outs well
   under the lease).
3. **Finish** it in a second transaction, only if the lease is still this
   sender's: ``sent``; or, after a failure that may pass, back to ``pending``
   with a back-off (1, 2, 4 ... minutes, at most 6 hours; after
   :data:`MAX_ATTEMPTS`, ``failed``); or ``failed`` at once when retrying
   cannot help (an address refused, a webhook gone). The host sees failures.

A sender that dies between 2 and 3 leaves the message claimed; when the lease
runs out another sender sends it again. Delivery is therefore **at least once**:
exactly once unless a sender crashes (or stalls past its lease) after sending.
Every copy carries the same id, so a receiver can drop repeats: the e-mail's
``Message-ID`` and the webhook's ``X-Referee-Delivery`` header (and its JSON
``delivery`` field).

Once a message is finished, any secret link in its text is struck out of the
stored copy (only the creation e-mail and the link-again e-mail carry one).
"""

from __future__ import annotations

import os
import re
import secrets
import socket
from dataclasses import dataclass
from datetime import datetime, timedelta
from email.message import EmailMessage
from email.utils import format_datetime
from typing import Any

from sqlalchemy import Engine, or_
from sqlmodel import col, select

from referee.db import transaction
from referee.models import Contact, Match, MatchNotify, Message, Order, Round, utcnow
from referee.notify.config import NotifyConfig
from referee.notify.errors import DeliveryError

LEASE = timedelta(minutes=5)
MAX_ATTEMPTS = 8
MAX_BACKOFF = timedelta(hours=6)
_SECRET_LINK = re.compile(r"/(play|host|link)/[A-Za-z0-9_\-.~%]+")


def backoff(attempts: int) -> timedelta:
    """How long to wait after the ``attempts``-th failed attempt."""
    return min(timedelta(minutes=2 ** max(attempts - 1, 0)), MAX_BACKOFF)


_ADDRESS = re.compile(r"[^\s<>()\[\]\"',;:]+@[^\s<>()\[\]\"',;]+")
_URL = re.compile(r"\b[a-z][a-z0-9+.-]*://\S+", re.IGNORECASE)


def error_for_host(message: Message) -> str | None:
    """A message's last error as the host may read it: without its recipient,
    nor any address or URL (a mail server's refusal often quotes the address,
    which may be one a player entered on its own page; a webhook URL is a
    secret of whoever made the webhook)."""
    error = message.last_error
    if not error:
        return error
    if message.recipient:
        error = re.sub(re.escape(message.recipient), "[recipient]", error, flags=re.IGNORECASE)
    return _ADDRESS.sub("[address]", _URL.sub("[URL]", error))


def scrub(text: str) -> str:
    """``text`` with every secret link's token struck out."""
    return _SECRET_LINK.sub(r"/\1/(removed once sent)", text)


@dataclass
class Report:
    """What one run did."""

    sent: int = 0
    retrying: int = 0
    failed: int = 0
    skipped: int = 0

    def line(self) -> str:
        return (
            f"sent {self.sent}, will retry {self.retrying}, failed {self.failed}, "
            f"no longer needed {self.skipped}"
        )


@dataclass(frozen=True)
class Claimed:
    """A claimed message, with what sending it needs."""

    id: int
    match_id: str
    channel: str
    event: str
    recipient: str
    subject: str
    body: str
    message_id: str
    secret: str | None  # the match's webhook secret
    unsubscribe_url: str | None


def worker_name() -> str:
    return f"{socket.gethostname()[:40]}:{os.getpid()}:{secrets.token_hex(4)}"


def deliver_due(
    engine: Engine,
    config: NotifyConfig,
    *,
    clock: Any = utcnow,
    worker: str | None = None,
    limit: int = 500,
    lease: timedelta = LEASE,
) -> Report:
    """Send every message due now (at most ``limit``); what happened."""
    worker = worker or worker_name()
    report = Report()
    for _ in range(limit):
        claimed = _claim_one(engine, config, clock(), worker, lease, report)
        if claimed is None:
            break
        error: DeliveryError | None = None
        try:
            _send(claimed, config)
        except DeliveryError as exc:
            error = exc
        except Exception as exc:  # a bug must not stop the other messages
            error = DeliveryError(f"unexpected error while sending: {type(exc).__name__}")
        _fault_exit_after_send(error)
        _finish(engine, claimed, worker, error, clock(), report)
    return report


def _fault_exit_after_send(error: DeliveryError | None) -> None:
    """Test hook, not a setting: with REFEREE_FAULT_EXIT_AFTER_SEND=1 the process
    dies right after a message went out, before it is marked sent
    (tests/notify: the crash the module's text describes)."""
    if error is None and os.environ.get("REFEREE_FAULT_EXIT_AFTER_SEND"):
        os._exit(3)


def _claim_one(
    engine: Engine,
    config: NotifyConfig,
    now: datetime,
    worker: str,
    lease: timedelta,
    report: Report,
) -> Claimed | None:
    channels = ["webhook", "email"] if config.mail_enabled else ["webhook"]
    with transaction(engine) as session:
        while True:
            query = (
                select(Message)
                .where(Message.status == "pending", col(Message.due_at) <= now)
                .where(col(Message.channel).in_(channels))
                .where(or_(col(Message.claimed_until).is_(None), col(Message.claimed_until) < now))
                .order_by(col(Message.due_at), col(Message.id))
                .limit(1)
            )
            if engine.dialect.name == "postgresql":
                query = query.with_for_update(skip_locked=True)
            msg = session.exec(query).first()
            if msg is None:
                return None
            if not _still_wanted(session, msg):
                msg.status = "skipped"
                msg.claimed_until = None
                session.add(msg)
                session.flush()
                report.skipped += 1
                continue
            msg.claimed_until = now + lease
            msg.claimed_by = worker
            msg.attempts += 1
            session.add(msg)
            notify = session.get(MatchNotify, msg.match_id)
            unsubscribe = None
            if msg.seat is not None and notify is not None:
                contact = session.get(Contact, (msg.match_id, msg.seat))
                if contact is not None:
                    unsubscribe = f"{notify.base_url}/unsubscribe/{contact.unsubscribe_key}"
            assert msg.id is not None
            return Claimed(
                msg.id,
                msg.match_id,
                msg.channel,
                msg.event,
                msg.recipient,
                msg.subject,
                msg.body,
                msg.message_id,
                notify.webhook_secret if notify is not None else None,
                unsubscribe,
            )


def _still_wanted(session: Any, msg: Message) -> bool:
    """A reminder is dropped once its round has closed, its deadline moved or
    its seat has sent an order (or unsubscribed); everything else always goes."""
    if msg.channel == "email" and msg.seat is not None:
        contact = session.get(Contact, (msg.match_id, msg.seat))
        if contact is None or contact.unsubscribed or contact.email != msg.recipient:
            return msg.event == "link_again" and contact is not None
    if msg.event != "reminder" or not msg.dedup_key:
        return True
    # reminder:<match>:<round>:<lead>:<deadline, epoch seconds>:<seat N | webhook>
    parts = msg.dedup_key.split(":")
    number, deadline = int(parts[2]), int(parts[4])
    rnd = session.get(Round, (msg.match_id, number))
    match = session.get(Match, msg.match_id)
    if rnd is None or match is None or rnd.status != "open" or match.paused_at is not None:
        return False
    if rnd.deadline is None or int(rnd.deadline.timestamp()) != deadline:
        return False
    if msg.seat is None:
        return True
    sent = session.exec(
        select(Order.id).where(
            Order.match_id == msg.match_id,
            Order.round_number == number,
            Order.seat == msg.seat,
        )
    ).first()
    return sent is None


def _send(claimed: Claimed, config: NotifyConfig) -> None:
    if claimed.channel == "email":
        from referee.notify.mail import parse_smtp_url, send_mail

        assert config.smtp_url is not None
        send_mail(parse_smtp_url(config.smtp_url), email_message(claimed, config))
        return
    from referee.notify.webhook import post_webhook, sign

    body = claimed.body.encode("utf-8")
    headers = {
        "X-Referee-Event": claimed.event,
        "X-Referee-Delivery": claimed.message_id,
        "X-Referee-Signature": sign(claimed.secret or "", body),
    }
    post_webhook(claimed.recipient, body, headers, allow_loopback=config.allow_loopback)


def email_message(
    claimed: Claimed, config: NotifyConfig, now: datetime | None = None
) -> EmailMessage:
    """The e-mail of a claimed message, headers included."""
    msg = EmailMessage()
    domain = config.mail_from.rpartition("@")[2] or "localhost"
    msg["From"] = config.mail_from
    msg["To"] = claimed.recipient
    msg["Subject"] = claimed.subject
    msg["Date"] = format_datetime(now or utcnow())
    msg["Message-ID"] = f"<{claimed.message_id}@{domain}>"
    msg["X-Referee-Event"] = claimed.event
    msg["X-Referee-Match"] = claimed.match_id
    msg["Auto-Submitted"] = "auto-generated"
    if claimed.unsubscribe_url:
        msg["List-Unsubscribe"] = f"<{claimed.unsubscribe_url}>"
        msg["List-Unsubscribe-Post"] = "List-Unsubscribe=One-Click"
    msg.set_content(claimed.body)
    return msg


def _finish(
    engine: Engine,
    claimed: Claimed,
    worker: str,
    error: DeliveryError | None,
    now: datetime,
    report: Report,
) -> None:
    with transaction(engine) as session:
        msg = session.get(Message, claimed.id)
        if msg is None or msg.claimed_by != worker or msg.status != "pending":
            return  # the lease ran out and another sender took it over
        msg.claimed_until = None
        if error is None:
            msg.status = "sent"
            msg.sent_at = now
            msg.last_error = None
            msg.body = scrub(msg.body)
            report.sent += 1
        elif error.permanent or msg.attempts >= MAX_ATTEMPTS:
            msg.status = "failed"
            msg.last_error = error.message[:500]
            msg.body = scrub(msg.body)
            report.failed += 1
        else:
            msg.due_at = now + backoff(msg.attempts)
            msg.last_error = error.message[:500]
            report.retrying += 1
        session.add(msg)
