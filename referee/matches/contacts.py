"""A match's people and messages (:class:`Contacts`), issue 14.

The host's view of the match's news settings, each seat's own e-mail address,
unsubscribing, secret links (re-issued by the host or a season, and the
one-time link of "send me my link again"), the outbox as the host sees it,
and the reminders the sweep queues before a deadline. Messages are composed
and queued by :meth:`referee.matches.core.Core._enqueue`, in the transaction
of the change they tell of.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import datetime, timedelta

from sqlalchemy import (
    func,
)
from sqlmodel import Session, col, select

from referee.db import read, transaction
from referee.errors import RuleError
from referee.matches.core import Core, new_token, token_hash
from referee.models import (
    Contact,
    Match,
    MatchNotify,
    Message,
    Round,
    Seat,
)
from referee.notify import compose
from referee.notify.checks import (
    DEFAULT_REMINDERS,
    check_email,
    new_secret,
)
from referee.notify.reminders import next_reminder


def _base_only(settings: MatchNotify, contacts: Mapping[int, Contact]) -> bool:
    """A match's notify row that only records the base of its links: no
    webhook, and no seat has given (or stopped) an address yet."""
    return not settings.webhook_url and not contacts


class Contacts(Core):
    """Addresses, secret links, unsubscribing, the outbox and the reminders."""

    def _refresh_reminder(self, session: Session, match: Match) -> None:
        """After a match's reminder settings changed (an address given, lead
        times set): the open round's next reminder, again (none while paused)."""
        rnd = self._current(session, match)
        if rnd is not None and rnd.status == "open" and match.paused_at is None:
            self._set_deadline(session, rnd, rnd.deadline)

    def notify_settings(self, match_id: str) -> tuple[MatchNotify | None, dict[int, Contact]]:
        """For the host's page: the match's webhook and reminders (None for a
        match without news: no webhook and no seat ever gave an address, even
        when its row records the base of its links), and each seat's address row."""
        with read(self.engine) as session:
            settings = session.get(MatchNotify, match_id)
            contacts = {
                c.seat: c for c in session.exec(select(Contact).where(Contact.match_id == match_id))
            }
            if settings is not None and _base_only(settings, contacts):
                settings = None
            return settings, contacts

    def contact(self, match_id: str, seat: int) -> Contact | None:
        with read(self.engine) as session:
            return session.get(Contact, (match_id, seat))

    def set_email(self, match_id: str, seat: int, address: str | None) -> None:
        """A seat's own address (from its page), or None to stop e-mails.

        The seat's request chooses nothing of where the match's links point
        (else the first seat to give an address would choose it for every
        later e-mail, another seat's "send me my link again" included): that
        is the base recorded when the host created the match, or the
        operator's ``REFEREE_PUBLIC_URL``. A match with neither (created while
        this server sent no e-mail, or before matches recorded their base)
        refuses an address with ``notify/no_public_url``."""
        if address is not None:
            if not self.notify.mail_enabled:
                raise RuleError.single(
                    "notify/no_mail", "this server sends no e-mail (no REFEREE_SMTP_URL)", "email"
                )
            address = check_email(address, "your address")
        with transaction(self.engine) as session:
            match = self._lock(session, match_id)
            if session.get(Seat, (match_id, seat)) is None:
                raise RuleError.single("seat/unknown", f"this match has no seat {seat!r}")
            settings = session.get(MatchNotify, match_id)
            contacts = {
                c.seat: c for c in session.exec(select(Contact).where(Contact.match_id == match_id))
            }
            base = self._base_url(settings.base_url if settings is not None else None)
            if base is None and address is not None:
                raise RuleError.single(
                    "notify/no_public_url",
                    "this match has no address of this server for the links in its "
                    "e-mails (it was created while the server sent no e-mail, or before "
                    "such addresses were kept): the server's operator must set "
                    "REFEREE_PUBLIC_URL before e-mails can be sent about it",
                    "email",
                )
            if base is not None and (settings is None or _base_only(settings, contacts)):
                # the match's first news settings: the default reminder times
                settings = settings or MatchNotify(match_id=match_id, base_url=base)
                settings.remind_before_hours = list(DEFAULT_REMINDERS)
                session.add(settings)
            contact = contacts.get(seat)
            if contact is None:
                contact = Contact(match_id=match_id, seat=seat, unsubscribe_key=new_secret()[:40])
            contact.email = address
            contact.unsubscribed = address is None
            contact.updated_at = self.clock()
            match.version += 1
            session.add_all([contact, match])
            session.flush()
            self._refresh_reminder(session, match)  # the lead times may be new

    def unsubscribe_target(self, key: str) -> tuple[str, int] | None:
        """The (match, seat) an unsubscribe key is of, changing nothing (None:
        no one's): the confirm page a mail program's link opens."""
        if not key or len(key) > 64:
            return None
        with read(self.engine) as session:
            contact = session.exec(select(Contact).where(Contact.unsubscribe_key == key)).first()
            return (contact.match_id, contact.seat) if contact is not None else None

    def unsubscribe(self, key: str) -> tuple[str, int] | None:
        """Stop e-mails to the seat whose unsubscribe key this is: (match, seat),
        or None for a key that is no one's."""
        if not key or len(key) > 64:
            return None
        with transaction(self.engine) as session:
            contact = session.exec(select(Contact).where(Contact.unsubscribe_key == key)).first()
            if contact is None:
                return None
            contact.unsubscribed = True
            contact.updated_at = self.clock()
            session.add(contact)
            return contact.match_id, contact.seat

    def request_link(
        self, match_id: str, address: str, make_link: Callable[[int, str], str]
    ) -> None:
        """ "Send me my link again": when ``address`` is a seat's address in this
        match, e-mail it a one-time link (``make_link(seat, fingerprint)`` gives
        its path; see :meth:`redeem_link`). Says nothing either way: the caller answers the
        same whether or not the address is known."""
        try:
            wanted = check_email(address, "the address")
        except RuleError:
            return
        with transaction(self.engine) as session:
            match = session.get(Match, match_id)
            if match is None or not self.notify.mail_enabled:
                return
            contacts = session.exec(select(Contact).where(Contact.match_id == match_id))
            found = next(
                (c for c in contacts if c.email and c.email.lower() == wanted.lower()), None
            )
            if found is None:
                return
            seat = session.get(Seat, (match_id, found.seat))
            targets = self._targets(session, match_id)
            assert seat is not None
            if targets is None or found.seat not in targets.emails:  # unsubscribed
                settings = session.get(MatchNotify, match_id)
                assert settings is not None and found.email is not None
                base = self._base_url(settings.base_url)
                assert base is not None
                targets = compose.Targets(
                    base, None, {found.seat: (found.email, found.unsubscribe_key)}
                )
            view = self._public_view(self._load(session, match))
            # the operator's address, else the base recorded when the host created
            # the match: never the asking request's, nor a seat's (set_email)
            link = targets.base_url + make_link(found.seat, seat.token_hash[:16])
            self._enqueue(session, match_id, [compose.link_again(view, targets, found.seat, link)])

    def reissue_token(self, match_id: str, seat: int | None, *, token: str | None = None) -> str:
        """A new secret link for the host (seat None) or a seat; the old one
        stops working. ``token``: the new link, made by the caller (a season
        derives its matches' host links, :mod:`referee.seasons.links`); random when
        left out."""
        token = token or new_token()
        with transaction(self.engine) as session:
            match = self._lock(session, match_id)
            if seat is None:
                match.host_token_hash = token_hash(token)
            else:
                row = session.get(Seat, (match_id, seat))
                if row is None:
                    raise RuleError.single("seat/unknown", f"this match has no seat {seat!r}")
                row.token_hash = token_hash(token)
                session.add(row)
            match.version += 1
            session.add(match)
        return token

    def replace_seat_token_hash(self, match_id: str, seat: int, *, expected: str, new: str) -> bool:
        """Replace a seat's link digest by ``new`` if it is still ``expected``
        (compare-and-set under the match's lock): a season re-deriving a
        player's seat link after re-issuing their season link. False, with
        nothing changed, when the seat's link is another (its host re-issued it)."""
        with transaction(self.engine) as session:
            match = self._lock(session, match_id)
            row = session.get(Seat, (match_id, seat))
            if row is None:
                raise RuleError.single("seat/unknown", f"this match has no seat {seat!r}")
            if row.token_hash != expected:
                return False
            row.token_hash = new
            match.version += 1
            session.add_all([row, match])
        return True

    def redeem_link(self, match_id: str, seat: int, fingerprint: str) -> str:
        """A one-time link from :meth:`request_link`, used: a new secret link for
        the seat (the old one stops working). Refused once used (the seat's link
        has changed since, so the fingerprint no longer matches)."""
        token = new_token()
        with transaction(self.engine) as session:
            match = self._lock(session, match_id)
            row = session.get(Seat, (match_id, seat))
            if row is None or len(fingerprint) != 16 or row.token_hash[:16] != fingerprint:
                raise RuleError.single(
                    "link/used",
                    "this link has been used already, or the seat's link has changed since",
                )
            row.token_hash = token_hash(token)
            match.version += 1
            session.add_all([row, match])
        return token

    def messages(self, match_id: str) -> list[Message]:
        """The match's outbox, newest first, for the host (bodies are not shown)."""
        with read(self.engine) as session:
            return list(
                session.exec(
                    select(Message)
                    .where(Message.match_id == match_id)
                    .order_by(col(Message.id).desc())
                    .limit(200)
                )
            )

    def waiting_emails(self) -> int:
        """E-mails in the outbox that no sender can take (no mail server set)."""
        with read(self.engine) as session:
            waiting = select(func.count()).where(
                Message.channel == "email", Message.status == "pending"
            )
            return int(session.exec(waiting).one())

    def queue_reminders(self) -> int:
        """Queue the reminders due now: for each open round with a deadline, the
        shortest lead time already reached (one the round was not open for is
        skipped: a 12-hour round gets no 24-hour reminder); each at most once
        per round, deadline and lead time. Safe from several processes at once
        (each match is locked while its reminders are written).

        Reads only the rounds whose next reminder has come (``Round.remind_at``,
        indexed with the status): the cost follows the reminders due, not the
        number of live matches (issue 24). Each one looked at gets its next
        reminder time, later than now (or none)."""
        now = self.clock()
        with read(self.engine) as session:
            rows = list(
                session.exec(
                    select(Round, MatchNotify.remind_before_hours)
                    .join(Match, col(Match.id) == col(Round.match_id))
                    .join(MatchNotify, col(MatchNotify.match_id) == col(Round.match_id))
                    .where(Round.status == "open", col(Round.remind_at) <= now)
                    .where(col(Round.deadline) > now)
                    .where(col(Match.paused_at).is_(None), col(Match.finished).is_(False))
                )
            )
        queued = 0
        for rnd, leads in rows:
            assert rnd.deadline is not None
            due = [
                float(h)
                for h in leads
                if rnd.opened_at <= rnd.deadline - timedelta(hours=float(h)) <= now
            ]
            lead = min(due) if due else None
            queued += self._queue_reminder(rnd.match_id, rnd.number, rnd.deadline, lead, now)
        return queued

    def _queue_reminder(
        self, match_id: str, number: int, deadline: datetime, lead: float | None, now: datetime
    ) -> int:
        """Queue one round's reminders of one lead time, unless they were queued
        before (for any deadline of the round: a moved deadline does not repeat
        a reminder already sent; one for an earlier deadline still waiting to go
        out is dropped by the sender, so it is queued again for the new one);
        then set the round's next reminder time, after ``now``."""
        with transaction(self.engine) as session:
            match = self._lock(session, match_id)
            rnd = self._current(session, match)
            if rnd is None or rnd.number != number or rnd.status != "open":
                return 0
            if rnd.deadline != deadline or match.paused_at is not None:
                return 0  # moved meanwhile: whoever moved it set remind_at
            settings = session.get(MatchNotify, match_id)
            leads = settings.remind_before_hours if settings is not None else None
            rnd.remind_at = next_reminder(deadline, rnd.opened_at, leads, after=now)
            session.add(rnd)
            if lead is None:
                return 0
            # reminder:<match>:<round>:<lead>:<deadline, epoch seconds>[:seat N | :webhook]
            lead_key = f"reminder:{match_id}:{number}:{lead:g}:"
            key = f"{lead_key}{int(deadline.timestamp())}"
            earlier = session.exec(
                select(Message.dedup_key, Message.status).where(
                    Message.match_id == match_id,
                    col(Message.dedup_key).startswith(lead_key),
                    Message.status != "skipped",
                )
            ).all()
            # a pending one of another deadline will be skipped when claimed
            done = any(
                status != "pending" or (dedup or "").startswith(f"{key}:")
                for dedup, status in earlier
            )
            targets = self._targets(session, match_id)
            if done or targets is None:
                return 0
            view = self._public_view(self._load(session, match))
            left = (deadline - now).total_seconds() / 3600
            reminders = compose.reminder(view, targets, number, left, key)
            return self._enqueue(session, match_id, reminders)
