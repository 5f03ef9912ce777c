"""The base every concern of a match's service shares (:class:`Core`).

Its engine, clock and notification settings, the per-process caches, reading
a match's state (:meth:`Core.state`, :meth:`Core.pulse`), finding whose a
secret link is, locking a match, and the few internals several concerns call:
appending to a match's chain, composing and queueing messages, setting a
round's deadline, replaying the stored orders. The concerns are mixins of it
(:mod:`referee.matches.lifecycle`, :mod:`referee.matches.orders`,
:mod:`referee.matches.contacts`, :mod:`referee.matches.records`), composed
into :class:`referee.service.Referee`.
"""

from __future__ import annotations

import hashlib
import secrets
import threading
from collections.abc import Callable, Iterable
from datetime import datetime
from typing import TYPE_CHECKING, Any

from cachetools import LRUCache
from sqlalchemy import Engine, Integer, bindparam, literal, union_all
from sqlalchemy import select as core_select
from sqlmodel import Session, col, select

from referee import chain
from referee.db import read
from referee.errors import RuleError
from referee.matches.state import ChainHead, MatchState, PulseFacts, _Hint
from referee.models import (
    ChainEntry,
    Contact,
    Match,
    MatchNotify,
    Message,
    Order,
    Round,
    Seat,
    utcnow,
)
from referee.notify import compose
from referee.notify.config import NotifyConfig
from referee.notify.reminders import next_reminder
from referee.ruleset import Ruleset, Setup, Viewer, get_ruleset
from referee.views import view_for

AUDIT_CACHE_SIZE = 64  # audits kept per process (see Referee.audit)
HINTS_CACHE_SIZE = 10_000  # matches whose open round a process remembers (submit_order)


# statements of the hot paths, built once (SQLAlchemy then only binds values)
_FIND_TOKEN = union_all(
    select(Match.id, literal(None, Integer).label("seat")).where(
        col(Match.host_token_hash) == bindparam("digest")
    ),
    select(Seat.match_id, Seat.seat).where(col(Seat.token_hash) == bindparam("digest")),
)
_LOCK_MATCH = select(Match).where(col(Match.id) == bindparam("match_id")).with_for_update()
_MATCH_RULESET = select(Match.ruleset).where(col(Match.id) == bindparam("match_id"))


def new_token() -> str:
    """A long random secret for a link (host or seat)."""
    return secrets.token_urlsafe(32)


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


class Core:
    """The shared base of the service's concerns: every state change of every
    match goes through :class:`referee.service.Referee`, composed of them."""

    def __init__(
        self,
        engine: Engine,
        clock: Callable[[], datetime] = utcnow,
        notify: NotifyConfig | None = None,
    ) -> None:
        self.engine = engine
        self.clock = clock
        self.notify = notify or NotifyConfig()
        # one-statement reads (the token look-up of every authenticated request)
        # need no transaction: SQLite runs the statement as its own (see db.py),
        # and PostgreSQL in autocommit saves the BEGIN and ROLLBACK round trips
        self._sqlite = engine.dialect.name == "sqlite"
        self._single_read = (
            engine.execution_options(referee_single_read=True)
            if self._sqlite
            else engine.execution_options(isolation_level="AUTOCOMMIT")
        )
        self._setups: dict[str, Setup] = {}  # match id -> its set-up (never changes)
        self._rulesets: dict[str, str] = {}  # match id -> its ruleset's name (never changes)
        self._upserts: dict[str, Any] = {}  # dialect name -> the order upsert statement
        # (match id, ruleset, digest of the closed rounds' match file) -> its audit
        self._audits: LRUCache[tuple[str, str, str], Any] = LRUCache(maxsize=AUDIT_CACHE_SIZE)
        self._audits_lock = threading.Lock()
        # PostgreSQL's order path: match id -> its open round as last seen, and
        # (match id, round number) -> the game state an order of it is checked against
        self._hints: LRUCache[str, _Hint] = LRUCache(maxsize=HINTS_CACHE_SIZE)
        self._before: LRUCache[tuple[str, int], Any] = LRUCache(maxsize=256)
        self._hints_lock = threading.Lock()
        self._guard_engine: Engine | None = None  # see _guard_connection
        self._guarded: dict[bool, Any] = {}  # the guarded order statements, built once
        # PostgreSQL's order path: a seat link's digest -> (match id, seat), as
        # find_token last found it; only a hint, checked again by the guarded
        # statement itself (see submit_order's ``token``)
        self._links: LRUCache[str, tuple[str, int]] = LRUCache(maxsize=HINTS_CACHE_SIZE * 8)

    def _load(self, session: Session, match: Match) -> MatchState:
        seats = list(
            session.exec(select(Seat).where(Seat.match_id == match.id).order_by(col(Seat.seat)))
        )
        rounds = list(
            session.exec(
                select(Round).where(Round.match_id == match.id).order_by(col(Round.number))
            )
        )
        orders = list(
            session.exec(
                select(Order)
                .where(Order.match_id == match.id)
                .order_by(col(Order.round_number), col(Order.seat))
            )
        )
        heads = session.execute(
            core_select(
                col(ChainEntry.position),
                col(ChainEntry.kind),
                col(ChainEntry.round_number),
                col(ChainEntry.head),
                col(ChainEntry.created_at),
            )
            .where(col(ChainEntry.match_id) == match.id)
            .order_by(col(ChainEntry.position))
        )
        return MatchState(
            match,
            seats,
            rounds,
            orders,
            get_ruleset(match.ruleset),
            [ChainHead(*row) for row in heads],
        )

    def state(self, match_id: str) -> MatchState:
        """The match as stored now (after closing its round if its deadline passed)."""
        state = self._read_state(match_id)
        if self._due(state.match, state.open_round) and self.close_if_due(match_id):
            state = self._read_state(match_id)
        return state

    def pulse(self, match_id: str) -> PulseFacts:
        """The few public facts a page polls to see that the match moved on
        (:func:`referee.views.pulse_for`): the match's row, its latest round and
        who has sent an order in it (the seats, never the orders). Two primary-key
        reads and one indexed one; no replay, no view. Closes the round first if
        its deadline has passed, as :meth:`state` does."""
        facts = self._read_pulse(match_id)
        if self._due(facts.match, facts.round) and self.close_if_due(match_id):
            facts = self._read_pulse(match_id)
        return facts

    def _read_pulse(self, match_id: str) -> PulseFacts:
        with read(self.engine) as session:
            match = session.get(Match, match_id)
            if match is None:
                raise RuleError.single("match/not_found", f"there is no match '{match_id}'")
            rnd = self._current(session, match)
            submitted: list[int] = []
            if rnd is not None:
                seats = session.exec(
                    select(Order.seat)
                    .where(Order.match_id == match_id, Order.round_number == rnd.number)
                    .order_by(col(Order.seat))
                )
                submitted = [int(s) for s in seats]
            return PulseFacts(match, rnd, submitted)

    def _read_state(self, match_id: str) -> MatchState:
        with read(self.engine) as session:
            match = session.get(Match, match_id)
            if match is None:
                raise RuleError.single("match/not_found", f"there is no match '{match_id}'")
            return self._load(session, match)

    def _due(self, match: Match, rnd: Round | None, now: datetime | None = None) -> bool:
        """Whether ``rnd`` is open past its deadline (at ``now``) while the clock runs."""
        return (
            rnd is not None
            and rnd.status == "open"
            and rnd.deadline is not None
            and rnd.deadline <= (now or self.clock())
            and match.paused_at is None
            and not match.finished
        )

    def find_token(self, token: str) -> tuple[str, int | None] | None:
        """The match a secret link belongs to, and its seat (None for the host)."""
        if not token or len(token) > 200:
            return None
        digest = token_hash(token)
        # Core, not the ORM, and a statement built once: this runs on every
        # authenticated request
        with self._single_read.connect() as conn:
            row = conn.execute(_FIND_TOKEN, {"digest": digest}).first()
        if row is None:
            return None
        if row[1] is not None:
            with self._hints_lock:
                self._links[digest] = (str(row[0]), int(row[1]))
        return (str(row[0]), row[1])

    def seat_link_hint(self, token: str) -> tuple[str, int] | None:
        """The (match, seat) a seat's secret link belonged to when this process
        last looked it up, without asking the database; None when not known.
        Only a hint: an order sent with it goes through :meth:`submit_order`
        with ``token``, which checks the link again where it stores the order
        (PostgreSQL's guarded statement, or SQLite's locked path under the write
        lock)."""
        if not token or len(token) > 200:
            return None
        with self._hints_lock:
            return self._links.get(token_hash(token))

    def ruleset_of(self, match_id: str) -> Ruleset:
        """A match's ruleset (it never changes), read once per process."""
        name = self._rulesets.get(match_id)
        if name is None:
            with self._single_read.connect() as conn:
                name = conn.execute(_MATCH_RULESET, {"match_id": match_id}).scalar()
            if name is None:
                raise RuleError.single("match/not_found", f"there is no match '{match_id}'")
            if len(self._rulesets) > 10000:
                self._rulesets.clear()
            self._rulesets[match_id] = name
        return get_ruleset(name)

    def match_ids(self) -> list[str]:
        with read(self.engine) as session:
            return list(session.exec(select(Match.id).order_by(col(Match.created_at))))

    def _append_entry(
        self, session: Session, match_id: str, position: int, body: dict[str, Any], number: int = 0
    ) -> ChainHead:
        """Append an entry to a match's chain in the caller's transaction (which
        creates the match or holds its lock): never an update of one."""
        entry = ChainEntry(
            match_id=match_id,
            position=position,
            kind=body["kind"],
            round_number=number or None,
            body=body,
            head=chain.entry_head(body),
            created_at=self.clock(),
        )
        session.add(entry)
        return ChainHead(position, entry.kind, entry.round_number, entry.head, entry.created_at)

    def _base_url(self, base_url: str | None) -> str | None:
        """The base of a match's links in messages: the operator's
        ``REFEREE_PUBLIC_URL`` whenever it is set, else ``base_url`` (the
        address recorded when the host created the match), else none."""
        base = self.notify.public_url or base_url
        return base.rstrip("/") if base else None

    def _lock(self, session: Session, match_id: str) -> Match:
        match = session.exec(_LOCK_MATCH, params={"match_id": match_id}).first()
        if match is None:
            raise RuleError.single("match/not_found", f"there is no match '{match_id}'")
        return match

    def _targets(self, session: Session, match_id: str) -> compose.Targets | None:
        """Where the match's news goes (None: nowhere, so nothing is composed)."""
        settings = session.get(MatchNotify, match_id)
        if settings is None:
            return None
        emails = {
            c.seat: (c.email, c.unsubscribe_key)
            for c in session.exec(select(Contact).where(Contact.match_id == match_id))
            if c.email and not c.unsubscribed
        }
        if not emails and not settings.webhook_url:
            return None
        base = self._base_url(settings.base_url)
        assert base is not None  # a stored row always has its base
        return compose.Targets(base, settings.webhook_url, emails)

    @staticmethod
    def _public_view(state: MatchState) -> dict[str, Any]:
        return view_for(state, Viewer.public())

    def _enqueue(
        self, session: Session, match_id: str, messages: Iterable[compose.Outgoing]
    ) -> int:
        """Write messages to the outbox in the caller's transaction: they exist
        if and only if the state change they tell of is committed."""
        now = self.clock()
        rows = [
            Message(
                match_id=match_id,
                channel=m.channel,
                event=m.event,
                seat=m.seat,
                recipient=m.recipient,
                subject=m.subject,
                body=m.body,
                message_id=m.message_id,
                dedup_key=m.dedup_key,
                due_at=now,
                created_at=now,
            )
            for m in messages
        ]
        session.add_all(rows)
        return len(rows)

    @staticmethod
    def _set_deadline(session: Session, rnd: Round, deadline: datetime | None) -> None:
        """Set an open round's deadline, and with it when its next reminder is due
        (``remind_at``, what the sweep reads: :mod:`referee.notify.reminders`).
        Every change of ``Round.deadline`` goes through here (or, outside an ORM
        session, must set ``remind_at`` the same way)."""
        rnd.deadline = deadline
        settings = session.get(MatchNotify, rnd.match_id)
        leads = settings.remind_before_hours if settings is not None else None
        rnd.remind_at = next_reminder(deadline, rnd.opened_at, leads)
        session.add(rnd)

    def _current(self, session: Session, match: Match) -> Round | None:
        if match.rounds_opened == 0:
            return None
        return session.get(Round, (match.id, match.rounds_opened))

    def _open_round(self, session: Session, match: Match) -> Round:
        rnd = self._current(session, match)
        if rnd is None or rnd.status != "open":
            raise RuleError.single("round/closed", "no round is open for orders")
        return rnd

    def _title(self, state: MatchState, number: int) -> str:
        return next((r.title for r in state.rounds if r.number == number), f"round {number}")

    def _closed_orders(
        self, state: MatchState, upto: int
    ) -> tuple[list[dict[int, Any]], list[tuple[int, int]]]:
        """Rounds 1..upto's stored orders by seat (None = no order), and the
        (round, seat) pairs whose order the host entered."""
        closed: list[dict[int, Any]] = []
        host_entered: list[tuple[int, int]] = []
        seats = state.setup.seats
        for number in range(1, upto + 1):
            # a host-entered order refused at the close was not used (the default was)
            orders = {s: o for s, o in state.orders_of(number).items() if not o.refused}
            closed.append(
                {seat: orders[seat].payload if seat in orders else None for seat in seats}
            )
            host_entered += [(number, s) for s, o in sorted(orders.items()) if o.host_entered]
        return closed, host_entered

    def _resolve_stored(self, state: MatchState, upto: int) -> Any:
        """The detailed result (game state) of rounds 1..upto of a stored match,
        replayed from its stored orders (missing ones defaulted) by the rules alone."""
        closed, host_entered = self._closed_orders(state, upto)
        match = state.match
        return state.ruleset.replay(state.setup, match.settings, match.seed, closed, host_entered)

    if TYPE_CHECKING:  # defined by a concern (referee.matches.lifecycle), called by others

        def close_if_due(self, match_id: str) -> bool: ...

        def _close(
            self, session: Session, match: Match, rnd: Round, by: str, now: datetime
        ) -> None: ...
