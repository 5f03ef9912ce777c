"""The service layer: every state change of a match, each in one transaction.

Web pages, the JSON API and the CLI are thin and call :class:`Referee`. Each
method that changes state opens its own transaction and first locks the match
(``SELECT ... FOR UPDATE`` on PostgreSQL; SQLite transactions start with
``BEGIN IMMEDIATE``), so hosts, players and ``close-due`` processes on several
machines serialise per match: an order racing a close either lands before it or
is refused with ``round/closed``, and closing twice resolves once.

Nothing here knows the rules of a game: the match's :class:`Ruleset` checks
orders and resolves rounds.
"""

from __future__ import annotations

import copy
import hashlib
import json
import os
import secrets
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, NamedTuple

from cachetools import LRUCache
from sqlalchemy import (
    Engine,
    Integer,
    bindparam,
    create_engine,
    event,
    exists,
    func,
    literal,
    or_,
    union_all,
    update,
)
from sqlalchemy import select as core_select
from sqlalchemy.dialects.postgresql import insert as postgresql_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.exc import DBAPIError
from sqlmodel import Session, col, select

from referee import chain, clocks
from referee.chain import Head as ChainHead

# moved to referee.chain (issue 27); still importable from here
from referee.chain import canonical_json as canonical_json
from referee.chain import receipt_for as receipt_for
from referee.db import read, transaction
from referee.errors import Problem, RuleError
from referee.markup import match_post
from referee.matchfile import seed_digest
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
from referee.names import name_fault
from referee.notify import compose
from referee.notify.checks import (
    DEFAULT_REMINDERS,
    NotifyRequest,
    check_email,
    check_notify,
    new_secret,
    schedule_settings,
)
from referee.notify.config import NotifyConfig
from referee.notify.reminders import next_reminder
from referee.orderschema import check_against_schema
from referee.ruleset import (
    DEFAULT_RULESET,
    GameState,
    Ruleset,
    Setup,
    Step,
    Viewer,
    get_ruleset,
    public_result,
)
from referee.text import check_text

# the settings of every match, whatever its game (a game adds its own)
SERVICE_SETTINGS: dict[str, Any] = {
    "deadline_hours": 48,  # each round's deadline, from when it opens; 0 = no deadline
    "close_early": False,  # close a round as soon as every acting seat has an order
    # open the next round as soon as one closes (and the first at creation): the
    # match runs from first round to result with no host action (issue 14)
    "auto_open": False,
    # a clock per seat (issue 24, referee.clocks): {"bank_minutes", "add_minutes"} or None
    "clock": None,
}
MAX_DEADLINE_HOURS = 24 * 60
MAX_GARNETS = 1_000_000_000
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
# lock the match row and bump its version in one statement, reading what an order needs
_LOCK_MATCH_FIELDS = (
    update(Match)
    .where(col(Match.id) == bindparam("match_id"))
    .values(version=col(Match.version) + 1)
    .returning(
        *(
            getattr(Match, name)
            for name in ("ruleset", "settings", "paused_at", "finished", "rounds_opened")
        )
    )
)
# on SQLite the same statement also reads the open round: the write lock
# (BEGIN IMMEDIATE) is held from the start, so nothing can have changed it. Not on
# PostgreSQL, where a subquery reads the statement's snapshot, taken before the
# row lock was granted: a round closed meanwhile would still look open there.
_LOCK_MATCH_AND_ROUND = _LOCK_MATCH_FIELDS.returning(
    *(
        select(getattr(Round, name))
        .where(col(Round.match_id) == col(Match.id), col(Round.number) == col(Match.rounds_opened))
        .scalar_subquery()
        .label(f"round_{name}")
        for name in ("phase", "status", "deadline", "title", "acting")
    )
)
_ROUND_FIELDS = core_select(
    *(
        col(getattr(Round, name))
        for name in ("number", "phase", "status", "deadline", "title", "acting")
    )
).where(col(Round.match_id) == bindparam("match_id"), col(Round.number) == bindparam("number"))


# PostgreSQL's guarded order (see Referee._submit_guarded), one statement: lock the
# match row if the round is still the latest opened and the match has not
# finished; then lock the round row if it is still open and before its deadline
# (or the clock is stopped); only then bump the match's version and store the
# order. Rows locked by FOR UPDATE are re-read as they are once the lock is granted
# (READ COMMITTED re-checks the conditions on their newest version), so a close or
# a deadline change committed while the statement waited makes it find nothing,
# and then it changes nothing.
def _guard(with_token: bool) -> tuple[Any, Any]:
    """The guard's two CTEs (the round it stores into, the match's version bump).
    ``with_token``: the match row is locked only if the seat's secret link still
    has the digest sent (``digest``), so a link re-issued meanwhile stores nothing
    (the caller then asks who the link belongs to, as any request does)."""
    conditions = [
        col(Match.id) == bindparam("match_id"),
        col(Match.rounds_opened) == bindparam("round_number"),
        col(Match.finished).is_(False),
    ]
    if with_token:
        conditions.append(
            exists().where(
                col(Seat.match_id) == bindparam("match_id"),
                col(Seat.seat) == bindparam("seat"),
                col(Seat.token_hash) == bindparam("digest"),
            )
        )
    guard_match = (
        core_select(col(Match.id).label("id"), col(Match.paused_at).label("paused_at"))
        .where(*conditions)
        .with_for_update(of=Match.__table__)  # type: ignore[attr-defined]
        .cte("guard_match")
    )
    guard_round = (
        core_select(col(Round.match_id).label("match_id"), col(Round.number).label("number"))
        .join(guard_match, guard_match.c.id == col(Round.match_id))
        .where(
            col(Round.number) == bindparam("round_number"),
            col(Round.status) == "open",
            or_(
                col(Round.deadline).is_(None),
                col(Round.deadline) > bindparam("submitted_at"),
                guard_match.c.paused_at.is_not(None),
            ),
        )
        .with_for_update(of=Round.__table__)  # type: ignore[attr-defined]
        .cte("guard_round")
    )
    guard_bump = (
        update(Match)
        .where(col(Match.id).in_(core_select(guard_round.c.match_id)))
        .values(version=col(Match.version) + 1)
        .returning(col(Match.id).label("id"))
        .cte("guard_bump")
    )
    return guard_round, guard_bump


_ROUND_RESULT = select(Round.result).where(
    col(Round.match_id) == bindparam("match_id"), col(Round.number) == bindparam("number")
)
_ROUND_CLOCKS = select(Round.clocks).where(
    col(Round.match_id) == bindparam("match_id"), col(Round.number) == bindparam("number")
)
_ROUND_SEATS = select(Order.seat).where(
    col(Order.match_id) == bindparam("match_id"), col(Order.round_number) == bindparam("number")
)
_MATCH_RULESET = select(Match.ruleset).where(col(Match.id) == bindparam("match_id"))
_MATCH_SETUP = select(Match.setup).where(col(Match.id) == bindparam("match_id"))
_MATCH_SEED = select(Match.seed).where(col(Match.id) == bindparam("match_id"))
_SEATS_OF = (
    select(Seat.seat, Seat.name, Seat.garnets, Seat.data)
    .where(col(Seat.match_id) == bindparam("match_id"))
    .order_by(col(Seat.seat))
)


def _json_list(value: Any) -> list[int]:
    """A JSON list column read through a subquery (SQLite may hand back its text)."""
    if isinstance(value, str):
        value = json.loads(value)
    return list(value or ())


_SEAT_COLUMNS = frozenset(("seat", "name", "garnets"))


def new_token() -> str:
    """A long random secret for a link (host or seat)."""
    return secrets.token_urlsafe(32)


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def _order_row(
    match_id: str, number: int, seat: int, order: Any, host_entered: bool, now: datetime
) -> dict[str, Any]:
    """An order's row as stored, with a fresh salt and the receipt made from it."""
    salt = secrets.token_hex(16)
    return {
        "match_id": match_id,
        "round_number": number,
        "seat": seat,
        "payload": order,
        "salt": salt,
        "receipt": receipt_for(order, salt),
        "host_entered": host_entered,
        "submitted_at": now,
        "first_sent_at": now,  # kept by a replacement (the upserts do not set it again)
    }


def setting_keys(rules: Ruleset) -> list[str]:
    """Every setting a match of ``rules`` has: the service's, then the game's."""
    return [*SERVICE_SETTINGS, *(s.key for s in rules.settings)]


def check_settings(raw: object, rules: Ruleset) -> dict[str, Any]:
    """A match's settings (the service's and its game's) with defaults filled
    in; every problem reported."""
    if raw is None:
        raw = {}
    if not isinstance(raw, Mapping):
        raise RuleError.single("settings/not_an_object", "'settings' must be an object")
    problems: list[Problem] = []
    out = dict(SERVICE_SETTINGS)
    known = setting_keys(rules)
    game = {s.key for s in rules.settings}
    try:
        out.update(rules.check_settings({k: v for k, v in raw.items() if k in game}))
    except RuleError as exc:
        problems.extend(exc.problems)
    for key, value in raw.items():
        if key in game:
            continue
        if key not in SERVICE_SETTINGS:
            problems.append(
                Problem(
                    "settings/unknown",
                    f"unknown setting '{key}' (known: {', '.join(known)})",
                    key,
                )
            )
        elif key == "deadline_hours":
            ok = isinstance(value, int | float) and not isinstance(value, bool)
            if not ok or not 0 <= value <= MAX_DEADLINE_HOURS:
                problems.append(
                    Problem(
                        "settings/bad_deadline",
                        f"the deadline must be a number of hours from 0 "
                        f"(no deadline) to {MAX_DEADLINE_HOURS}, not {value!r}",
                        key,
                    )
                )
            else:
                out[key] = value
        elif key == "clock":
            checked_clock, bad = clocks.check_clock(value)
            problems.extend(bad)
            out[key] = checked_clock
        elif not isinstance(value, bool):
            problems.append(
                Problem("settings/not_a_flag", f"'{key}' must be true or false, not {value!r}", key)
            )
        else:
            out[key] = value
    if (
        not problems
        and out.get("auto_open")
        and not out.get("deadline_hours")
        and not out.get("clock")
    ):
        problems.append(
            Problem(
                "schedule/no_deadline",
                "rounds that open by themselves need hours per round (a deadline) or a "
                "clock per player, not 0",
                "deadline_hours",
            )
        )
    if problems:
        raise RuleError(problems)
    return out


@dataclass(frozen=True)
class Created:
    match_id: str
    host_token: str
    player_tokens: dict[int, str]
    seed_sha256: str
    webhook_secret: str | None = None  # signs the match's webhook requests (issue 14)


@dataclass(frozen=True)
class PulseFacts:
    """What :meth:`Referee.pulse` reads: the match, its latest round (None before
    the first) and the seats that have sent an order in that round."""

    match: Match
    round: Round | None
    submitted: list[int]


@dataclass
class MatchState:
    """A snapshot of one match as stored: what views and posts are made from."""

    match: Match
    seats: list[Seat]
    rounds: list[Round]  # the rounds opened so far, in order
    orders: list[Order]
    ruleset: Ruleset = field(repr=False)
    # the heads of the match's hash chain (issue 27), in order; [] for a match
    # stored before chains (its pages say it has none)
    chain: list[ChainHead] = field(default_factory=list)

    @property
    def setup(self) -> Setup:
        return setup_of(self.match.setup, self.seats)

    def game_state(self) -> GameState:
        """The game after the closed rounds (at the start when none has closed)."""
        last = self.last_closed
        if last is not None:
            return GameState(self.setup, self.match.settings, last.number, last.result)
        setup, settings, seed = self.setup, self.match.settings, self.match.seed
        return GameState(setup, settings, 0, lambda: self.ruleset.replay(setup, settings, seed, []))

    def upcoming(self) -> list[Step]:
        """The steps not opened yet, as far as the game knows them now."""
        return [s for s in self.ruleset.upcoming(self.game_state()) if s.number > len(self.rounds)]

    @property
    def open_round(self) -> Round | None:
        if self.rounds and self.rounds[-1].status == "open":
            return self.rounds[-1]
        return None

    @property
    def last_closed(self) -> Round | None:
        closed = [r for r in self.rounds if r.status == "closed"]
        return closed[-1] if closed else None

    def orders_of(self, number: int) -> dict[int, Order]:
        return {o.seat: o for o in self.orders if o.round_number == number}

    @property
    def chain_head(self) -> str | None:
        """The latest head of the match's chain (None: it has no chain)."""
        return self.chain[-1].head if self.chain else None

    def round_heads(self) -> dict[int, str]:
        """Each closed round's own head: that of the entry its close wrote."""
        return {h.round: h.head for h in self.chain if h.kind == chain.ROUND and h.round}

    def corrections(self) -> dict[int, list[ChainHead]]:
        """Each corrected round's correction entries, in order (issue 27)."""
        out: dict[int, list[ChainHead]] = {}
        for h in self.chain:
            if h.kind == chain.CORRECTION and h.round:
                out.setdefault(h.round, []).append(h)
        return out


@dataclass(frozen=True)
class Preview:
    """What :meth:`Referee.preview` found: the match, its open round, and the
    round's resolution when every order of it was entered by the host (else
    None), as the host may see it (:meth:`referee.ruleset.Ruleset.preview`)."""

    state: MatchState
    round: Round
    result: Any


def _base_only(settings: MatchNotify, contacts: Mapping[int, Contact]) -> bool:
    """A match's notify row that only records the base of its links: no
    webhook, and no seat has given (or stopped) an address yet."""
    return not settings.webhook_url and not contacts


def game_settings(settings: Mapping[str, Any]) -> dict[str, Any]:
    """A match's settings without the service's (which the host may change)."""
    return {k: v for k, v in settings.items() if k not in SERVICE_SETTINGS}


def setup_of(match_setup: dict[str, Any], seats: Iterable[Any]) -> Setup:
    """A stored match's set-up from its ``setup`` column and its seat rows
    (ORM rows or Core rows with seat, name, garnets and data)."""
    return Setup(
        players=[
            {"seat": s.seat, "name": s.name, "garnets": s.garnets, **(s.data or {})}
            for s in sorted(seats, key=lambda s: s.seat)
        ],
        data=match_setup,
    )


def _fault_sleep_in_close(session: Session) -> None:
    """Test hook, not a setting: with REFEREE_FAULT_SLEEP_IN_CLOSE=SECONDS set, a
    close sleeps that long after resolving and writing the closed round, before its
    transaction commits, so a test can kill the process half-way through a close
    (tests/reliability). Unset in production: it does nothing."""
    delay = os.environ.get("REFEREE_FAULT_SLEEP_IN_CLOSE")
    if delay:
        session.flush()  # the writes are in the database, uncommitted
        time.sleep(float(delay))


def _check_round_number(open_number: int, meant: int | None) -> None:
    """Refuse an order written for a round other than the open one."""
    if meant is not None and meant != open_number:
        raise RuleError.single(
            "round/closed",
            f"this order was written for round {meant}, which is not open (the open round "
            f"is round {open_number}); it was not recorded",
            "round",
        )


def step_of(rnd: Round) -> Step:
    """A stored round as the step it was opened as."""
    return Step(rnd.number, rnd.phase, rnd.title, tuple(rnd.acting or ()))


class _OpenRound(NamedTuple):
    """What an order needs of a match's latest round."""

    number: int
    phase: str
    status: str
    deadline: datetime | None
    title: str
    acting: list[int]


class _Hint(NamedTuple):
    """What the last locked order of a match found, for the next one's guarded
    statement (PostgreSQL): what never changes while a round stays open."""

    ruleset: str
    settings: dict[str, Any]
    round: _OpenRound


class Referee:
    """Every state change of every match goes through here."""

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

    # ---- reading -------------------------------------------------------

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
        if row[1] is not None and not self._sqlite:
            with self._hints_lock:
                self._links[digest] = (str(row[0]), int(row[1]))
        return (str(row[0]), row[1])

    def seat_link_hint(self, token: str) -> tuple[str, int] | None:
        """On PostgreSQL: the (match, seat) a seat's secret link belonged to when
        this process last looked it up, without asking the database; None when
        not known (or on SQLite). Only a hint: an order sent with it goes through
        :meth:`submit_order` with ``token``, which checks the link again."""
        if self._sqlite or not token or len(token) > 200:
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

    # ---- creating ------------------------------------------------------

    def create_match(
        self,
        *,
        name: object,
        players: object,
        setup: Mapping[str, Any] | None = None,
        settings: object = None,
        ruleset: object = DEFAULT_RULESET,
        seed: str | None = None,
        notify: object = None,
        schedule: object = None,
        base_url: str | None = None,
        seat_tokens: Mapping[int, str] | None = None,
        match_id: str | None = None,
        host_token: str | None = None,
    ) -> Created:
        """Create a match of ``ruleset``: ``setup`` is the game's own part of
        the set-up (its ``setup_keys``), as the ruleset's ``check_setup`` reads it.

        ``notify`` (issue 14): ``{"emails": {"1": address, ...}, "webhook_url":
        ..., "remind_before_hours": [24, 2]}``; ``schedule``: ``{"auto_open":
        true, "hours_per_round": 48}`` (the settings ``auto_open`` and
        ``deadline_hours``). With ``auto_open`` the first round opens now, in the
        same transaction. ``base_url``: the address the host created the match
        at (its request's), recorded as the base of links in messages when the
        deployment sets no ``REFEREE_PUBLIC_URL``; the only request that may
        choose it (see :meth:`set_email`). ``seat_tokens``: the secret
        links of some seats, made by the caller (a season derives its players'
        links, see :mod:`referee.seasons.links`, from ``match_id``, the new match's id
        the caller chose); the others are random. ``host_token``: the host's
        link, made by the caller likewise (a season derives it from its own);
        random when left out."""
        rules = get_ruleset(ruleset)
        setup = dict(setup or {})
        # whatever the caller, nothing stored may hold a character that is not text
        check_text({"name": name, "setup": setup, "players": players}, "the match")
        problems: list[Problem] = []
        if not isinstance(name, str) or not name.strip() or len(name) > 200:
            problems.append(
                Problem("match/bad_name", "the match needs a name of 1 to 200 characters", "name")
            )
        elif (fault := name_fault(name)) is not None:  # one line, something visible
            problems.append(Problem("match/bad_name", f"the match name: {fault}", "name"))
        checked_setup: Setup | None = None
        try:
            checked_setup = rules.check_setup(setup, players)
        except RuleError as exc:
            problems.extend(exc.problems)
        checked: dict[str, Any] = {}
        try:
            checked = check_settings(self._with_schedule(settings, schedule), rules)
        except RuleError as exc:
            problems.extend(exc.problems)
        wanted = NotifyRequest()
        try:
            wanted = check_notify(
                notify,
                checked_setup.seats if checked_setup else (),
                mail_enabled=self.notify.mail_enabled,
                allow_loopback=self.notify.allow_loopback,
            )
        except RuleError as exc:
            problems.extend(exc.problems)
        for p in checked_setup.players if checked_setup else []:
            if len(p["name"]) > 100:
                problems.append(
                    Problem(
                        "match/bad_name", f"player name of seat {p['seat']} is over 100 characters"
                    )
                )
            if p["garnets"] > MAX_GARNETS:  # the database stores a 32-bit integer
                problems.append(
                    Problem(
                        "match/bad_garnets",
                        f"garnets of seat {p['seat']} must be at most {MAX_GARNETS}, "
                        f"not {p['garnets']}",
                    )
                )
        if problems:
            raise RuleError(problems)
        assert checked_setup is not None and isinstance(name, str)
        seed = seed or secrets.token_urlsafe(24)
        host_token = host_token or new_token()
        given = dict(seat_tokens or {})
        tokens = {p["seat"]: given.get(p["seat"]) or new_token() for p in checked_setup.players}
        match = Match(
            id=match_id or secrets.token_hex(5),
            name=name.strip(),
            ruleset=rules.name,
            setup=checked_setup.data,
            settings=checked,
            seed=seed,
            seed_sha256=seed_digest(seed),
            host_token_hash=token_hash(host_token),
            created_at=self.clock(),
        )
        clock = clocks.Clock.of(checked.get("clock"))
        seats = [
            Seat(
                match_id=match.id,
                seat=p["seat"],
                name=p["name"],
                garnets=p["garnets"],
                data={k: v for k, v in p.items() if k not in _SEAT_COLUMNS},
                token_hash=token_hash(tokens[p["seat"]]),
                clock_bank=clock.bank if clock is not None else None,
            )
            for p in checked_setup.players
        ]
        with transaction(self.engine) as session:
            session.add(match)
            session.flush()
            session.add_all(seats)
            # the chain's first entry (issue 27): the set-up as it will always read
            start = chain.start_body(
                match_id=match.id,
                name=match.name,
                ruleset=match.ruleset,
                players=setup_of(match.setup, seats).players,
                setup=match.setup,
                settings=game_settings(match.settings),
                seed_sha256=match.seed_sha256,
            )
            self._append_entry(session, match.id, 0, start)
            secret = self._notify_rows(session, match.id, wanted, self._base_url(base_url))
            session.flush()
            if secret is not None or wanted.emails:
                view = self._public_view(self._load(session, match))
                targets = self._targets(session, match.id)
                assert targets is not None
                links = {s: f"{targets.base_url}/play/{t}" for s, t in tokens.items()}
                self._enqueue(session, match.id, compose.match_created(view, targets, links))
            if checked.get("auto_open"):
                self._open_next(session, match, self.clock())
        return Created(match.id, host_token, tokens, match.seed_sha256, secret)

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

    @staticmethod
    def _with_schedule(settings: object, schedule: object) -> object:
        """``settings`` with the ``schedule`` object's two keys in them (a key
        given in both, with different values, is refused)."""
        extra = schedule_settings(schedule)
        if not extra or (settings is not None and not isinstance(settings, Mapping)):
            return settings  # (check_settings names settings that are not an object)
        merged = dict(settings or {})
        for key, value in extra.items():
            if key in merged and merged[key] != value:
                raise RuleError.single(
                    "schedule/conflict",
                    f"'schedule' and 'settings' disagree on '{key}' "
                    f"({value!r} and {merged[key]!r})",
                    "schedule",
                )
            merged[key] = value
        return merged

    def _notify_rows(
        self, session: Session, match_id: str, wanted: NotifyRequest, base_url: str | None
    ) -> str | None:
        """Store a new match's notification settings; its webhook secret (None:
        no webhook). A match with neither addresses nor a webhook stores only
        the base of its links (``base_url``, see :meth:`_base_url`), when this
        server sends e-mail and there is one, so that its seats may give their
        own address later (:meth:`set_email`): no reminders and no webhook, so
        it is a match without news to everyone (:meth:`notify_settings`)."""
        if not wanted.wanted:
            if self.notify.mail_enabled and base_url is not None:
                session.add(MatchNotify(match_id=match_id, base_url=base_url))
            return None
        secret = new_secret() if wanted.webhook_url else None
        session.add(
            MatchNotify(
                match_id=match_id,
                # a caller with no request (a script, a test) and no setting: the
                # address `referee serve` listens at by default
                base_url=base_url or "http://127.0.0.1:5000",
                webhook_url=wanted.webhook_url,
                webhook_secret=secret,
                remind_before_hours=list(wanted.remind_before_hours),
            )
        )
        for seat, address in wanted.emails.items():
            session.add(
                Contact(
                    match_id=match_id,
                    seat=seat,
                    email=address,
                    unsubscribe_key=new_secret()[:40],
                    updated_at=self.clock(),
                )
            )
        return secret

    def _base_url(self, base_url: str | None) -> str | None:
        """The base of a match's links in messages: the operator's
        ``REFEREE_PUBLIC_URL`` whenever it is set, else ``base_url`` (the
        address recorded when the host created the match), else none."""
        base = self.notify.public_url or base_url
        return base.rstrip("/") if base else None

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

    # ---- rounds --------------------------------------------------------

    def _lock(self, session: Session, match_id: str) -> Match:
        match = session.exec(_LOCK_MATCH, params={"match_id": match_id}).first()
        if match is None:
            raise RuleError.single("match/not_found", f"there is no match '{match_id}'")
        return match

    def open_round(self, match_id: str, deadline: datetime | None = None) -> Round:
        now = self.clock()
        with transaction(self.engine) as session:
            match = self._lock(session, match_id)
            return self._open_next(session, match, now, deadline)

    def _open_next(
        self, session: Session, match: Match, now: datetime, deadline: datetime | None = None
    ) -> Round:
        """Open the match's next step in the caller's transaction (which holds
        the match's lock), and queue its ``round_opened`` messages."""
        state = self._load(session, match)
        if state.open_round is not None:
            raise RuleError.single(
                "round/already_open",
                f"{self._title(state, state.open_round.number)} is still open; close it first",
            )
        number = match.rounds_opened + 1
        upcoming = state.upcoming()
        if match.finished or not upcoming:
            raise RuleError.single("match/finished", "every round of this match has closed")
        step = upcoming[0]
        assert step.number == number, (step, number)
        deadline = self._deadline(match, now, deadline)
        rnd = Round(
            match_id=match.id,
            number=number,
            phase=step.phase,
            title=step.title,
            acting=list(step.acting),
            status="open",
            opened_at=now,
        )
        clock = clocks.Clock.of(match.settings.get("clock"))
        if clock is not None:  # each acting seat's clock starts (referee.clocks)
            banks = {s.seat: s.clock_bank for s in state.seats}
            rnd.clocks = clocks.start(clock, banks, step.acting, now, deadline)
            deadline = clocks.deadline(rnd.clocks)
        self._set_deadline(session, rnd, deadline)
        match.rounds_opened = number
        match.version += 1
        session.add(rnd)
        session.add(match)
        targets = self._targets(session, match.id)
        if targets is not None:
            opened = MatchState(
                match, state.seats, [*state.rounds, rnd], state.orders, state.ruleset, state.chain
            )
            view = self._public_view(opened)
            self._enqueue(session, match.id, compose.round_opened(view, targets, number))
        return rnd

    # ---- notifications (issue 14) ----------------------------------------

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
        from referee.views import view_for  # views reads this module's types

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

    def _deadline(self, match: Match, now: datetime, deadline: datetime | None) -> datetime | None:
        if deadline is not None:
            if deadline.tzinfo is None:
                raise RuleError.single(
                    "round/bad_deadline", "a deadline needs a time zone (e.g. 2026-12-01T18:00Z)"
                )
            if deadline <= now:
                raise RuleError.single(
                    "round/bad_deadline",
                    f"the deadline {deadline.isoformat()} is not in the future",
                )
            return deadline
        hours = match.settings.get("deadline_hours", 0)
        return now + timedelta(hours=hours) if hours else None

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

    def _refresh_reminder(self, session: Session, match: Match) -> None:
        """After a match's reminder settings changed (an address given, lead
        times set): the open round's next reminder, again (none while paused)."""
        rnd = self._current(session, match)
        if rnd is not None and rnd.status == "open" and match.paused_at is None:
            self._set_deadline(session, rnd, rnd.deadline)

    def extend_deadline(self, match_id: str, deadline: datetime | None) -> Round:
        """Set the open round's deadline (later or earlier, but in the future), or none."""
        now = self.clock()
        with transaction(self.engine) as session:
            match = self._lock(session, match_id)
            rnd = self._open_round(session, match)
            if deadline is not None:
                deadline = self._deadline(match, now, deadline)
            if rnd.clocks is not None:  # the fixed deadline moves; each seat's clock is its own
                rnd.clocks = clocks.with_fixed(rnd.clocks, deadline)
                deadline = clocks.deadline(rnd.clocks)
            if deadline != rnd.deadline:
                rnd.deadline_changes += 1
            self._set_deadline(session, rnd, deadline)
            if match.paused_at is not None:
                rnd.remind_at = None  # set again by resume
            match.version += 1
            session.add_all([rnd, match])
            return rnd

    def pause(self, match_id: str) -> None:
        """Stop the clock: no round closes by deadline until :meth:`resume`."""
        with transaction(self.engine) as session:
            match = self._lock(session, match_id)
            if match.paused_at is not None:
                raise RuleError.single("match/paused", "the match is already paused")
            if match.finished:
                raise RuleError.single("match/finished", "the match has finished")
            match.paused_at = self.clock()
            match.version += 1
            session.add(match)
            rnd = self._current(session, match)
            if rnd is not None and rnd.remind_at is not None:
                rnd.remind_at = None  # no reminders while paused: resume sets it again
                session.add(rnd)

    def resume(self, match_id: str) -> None:
        """Start the clock again; the open round's deadline moves by the time paused."""
        now = self.clock()
        with transaction(self.engine) as session:
            match = self._lock(session, match_id)
            if match.paused_at is None:
                raise RuleError.single("match/not_paused", "the match is not paused")
            rnd = self._current(session, match)
            if rnd is not None and rnd.status == "open" and rnd.clocks is not None:
                # every running clock (and the fixed deadline) moves by the time it was
                # stopped: since the pause, or since the step opened during it
                stopped = now - clocks.clock_time(rnd.clocks, match.paused_at, now)
                rnd.clocks = clocks.moved(rnd.clocks, stopped)
                self._set_deadline(session, rnd, clocks.deadline(rnd.clocks))
                rnd.deadline_changes += 1
            elif rnd is not None and rnd.status == "open" and rnd.deadline is not None:
                self._set_deadline(session, rnd, rnd.deadline + (now - match.paused_at))
                rnd.deadline_changes += 1
            match.paused_at = None
            match.version += 1
            session.add(match)
            # a round closed while paused: the next one opens now
            closed = rnd is None or rnd.status == "closed"
            if match.settings.get("auto_open") and not match.finished and closed:
                self._open_next(session, match, now)

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

    # ---- orders --------------------------------------------------------

    def submit_order(
        self,
        match_id: str,
        seat: int,
        order: Any,
        *,
        host_entered: bool = False,
        kind: str | None = None,
        round_number: int | None = None,
        token: str | None = None,
    ) -> str:
        """Check and store ``seat``'s order for the open round; the receipt.

        ``token`` (optional): the seat's secret link, not yet checked by the
        caller (see :meth:`seat_link_hint`). The guarded statement then stores
        the order only if the link is still the seat's; otherwise the link is
        looked up before anything else (``auth/forbidden`` unless it is the
        seat's link of this match), as every request's link is.

        ``kind`` (optional) is the API body key the caller sent the order under
        (its phase's ``order_key``); it must be the open step's. ``round_number`` (optional) is
        the round the caller wrote the order for: an order for a round that is no
        longer open (replayed, or sent from a page left open) is refused with
        ``round/closed``. Only the seats acting in the open step may send one
        (``step/not_acting`` otherwise).

        ``host_entered``: the host enters the order for the seat (a player's
        order sent by private message). Its being accepted or refused must tell
        the host nothing it may not see, so it is checked against the host's own
        view only (:meth:`Ruleset.check_entered_order`), and by every rule at
        the close (:meth:`_check_entered`): one that breaks them there is not
        used, and the host and the seat are told once the round has closed.

        The one order path of the service, and its hot path. The locked path
        (:meth:`_submit_locked`, every database) is prepared Core statements in
        one transaction: lock the match row while bumping its version, read the
        open round, check the order, upsert it. A round past its deadline is
        closed instead (and the order refused once that is committed); with
        ``close_early``, the order that completes the acting seats' orders closes
        the round in the same transaction. On PostgreSQL an order is first tried
        by :meth:`_submit_guarded`: checked against the open round as this
        process last saw it, and stored by one statement that re-checks, under
        the locks, that the round is still open; whenever that is not certain it
        stores nothing and the locked path decides.
        """
        if not self._sqlite and not host_entered:
            receipt = self._submit_guarded(match_id, seat, order, kind, round_number, token)
            if receipt is not None:
                return receipt
        if token is not None and self.find_token(token) != (match_id, seat):
            raise RuleError.single(
                "auth/forbidden", "this token does not give access to this match"
            )
        return self._submit_locked(match_id, seat, order, host_entered, kind, round_number)

    def _submit_locked(
        self,
        match_id: str,
        seat: int,
        order: Any,
        host_entered: bool,
        kind: str | None,
        round_number: int | None,
    ) -> str:
        with self.engine.begin() as conn:  # Core: no ORM session needed here
            m, r = self._lock_for_order(conn, match_id)
            now = self.clock()  # after the lock, so the order's time is its real turn
            if r is None or r.status != "open":
                self._forget(match_id)
                raise RuleError.single("round/closed", "no round is open for orders")
            _check_round_number(r.number, round_number)
            due = r.deadline is not None and r.deadline <= now and m.paused_at is None
            if due:  # the deadline passed: close the round now, refuse after the commit
                self._forget(match_id)
                self._close_in(conn, match_id, r.number, "deadline", now)
            else:
                if not self._sqlite:
                    self._remember(match_id, _Hint(m.ruleset, m.settings, r))
                rules = get_ruleset(m.ruleset)
                step = self._acting_step(conn, rules, match_id, r, seat, kind)
                timed = self._seat_clocks(conn, m, match_id, r.number, seat, now)
                setup = self._setup(conn, match_id)
                game = GameState(
                    setup,
                    m.settings,
                    r.number - 1,
                    lambda: self._state_before(conn, rules, match_id, r.number, setup, m.settings),
                )
                # the shape first, the same way for every game; the rules say the rest
                phase = rules.phase(step.phase)
                check_against_schema(order, phase.schema, f"the {phase.order_key} order")
                if host_entered:  # from what the host may see only; the rest at the close
                    host_view = self._host_view_in(conn, match_id)
                    normalized = rules.check_entered_order(host_view, step, seat, order)
                else:
                    normalized = rules.check_order(game, step, seat, order)
                row = _order_row(match_id, r.number, seat, normalized, host_entered, now)
                receipt = str(row["receipt"])
                conn.execute(self._upsert_order(conn), row)
                deadline = r.deadline
                if timed is not None:
                    deadline = self._clock_stops(conn, match_id, r.number, seat, timed, now)
                if m.settings.get("close_early") and m.paused_at is None:
                    params = {"match_id": match_id, "number": r.number}
                    sent = set(conn.execute(_ROUND_SEATS, params).scalars())
                    if sent >= set(step.acting):
                        self._close_in(conn, match_id, r.number, "early", now)
                        return receipt
                if deadline is not None and deadline <= now and m.paused_at is None:
                    # every seat still to send ran out of time: the step closes now
                    self._close_in(conn, match_id, r.number, "deadline", now)
                return receipt
        raise RuleError.single("round/closed", "the round closed at its deadline")

    def _seat_clocks(
        self, conn: Any, m: Any, match_id: str, number: int, seat: int, now: datetime
    ) -> dict[str, Any] | None:
        """A clock match's open step's clocks (None without a clock), once
        ``seat``'s has not run out: ``round/out_of_time`` otherwise (its default
        is used at the close, as for a missed deadline)."""
        if not m.settings.get("clock"):
            return None
        params = {"match_id": match_id, "number": number}
        found = conn.execute(_ROUND_CLOCKS, params).scalar()
        if isinstance(found, str):  # SQLite may hand back a JSON column's text
            found = json.loads(found)
        if not found:
            return None
        if clocks.out_of_time(found, seat, clocks.clock_time(found, m.paused_at, now)):
            raise RuleError.single(
                "round/out_of_time",
                f"seat {seat}'s clock ran out in this step: it gets the step's default, "
                "and its order was not recorded",
                "seat",
            )
        return dict(found)

    def _clock_stops(
        self, conn: Any, match_id: str, number: int, seat: int, found: dict[str, Any], now: datetime
    ) -> datetime | None:
        """``seat`` has sent its order in the open step at ``now``: its clock
        stops (at its first order only), and the step's deadline follows the
        clocks still running. The step's deadline after it."""
        with Session(bind=conn) as session:
            rnd = session.get(Round, (match_id, number))
            match = session.get(Match, match_id)
            assert rnd is not None and match is not None
            stopped = clocks.sent(found, seat, clocks.clock_time(found, match.paused_at, now))
            if stopped == found:
                return rnd.deadline
            rnd.clocks = stopped
            deadline = clocks.deadline(stopped)
            if deadline != rnd.deadline:
                self._set_deadline(session, rnd, deadline)
                if match.paused_at is not None:
                    rnd.remind_at = None  # set again by resume
            session.add(rnd)
            session.flush()
            return deadline

    def _host_view_in(self, conn: Any, match_id: str) -> dict[str, Any]:
        """The host's view of the match as it is in the caller's transaction on
        ``conn``: all a host-entered order may be checked against on entry."""
        from referee.views import view_for  # views reads this module's types

        with Session(bind=conn) as session:
            match = session.get(Match, match_id)
            assert match is not None
            return view_for(self._load(session, match), Viewer.host())

    def _remember(self, match_id: str, hint: _Hint) -> None:
        with self._hints_lock:
            self._hints[match_id] = hint

    def _forget(self, match_id: str) -> None:
        with self._hints_lock:
            self._hints.pop(match_id, None)

    def _submit_guarded(
        self,
        match_id: str,
        seat: int,
        order: Any,
        kind: str | None,
        round_number: int | None,
        token: str | None = None,
    ) -> str | None:
        """PostgreSQL's fast order path: the receipt, or None when the order was
        not stored (the caller then takes the locked path, which says why).
        With ``token``, the statement also requires that it is still the seat's
        secret link.

        Checked against the open round as the last locked order of this match
        in this process found it (its number, phase, acting seats and the game
        state before it never change while it stays open), without a lock; then
        stored by one statement in its own transaction (no BEGIN or COMMIT round
        trip), which locks the match row and the round's, and stores the order
        only if, as they are once locked, the round is still the match's latest,
        open, and before its deadline (or the match paused). A close, a new
        round or an earlier deadline committed meanwhile make it store nothing.
        Anything this path is not sure of (no hint yet, ``close_early``, a seat
        that does not act, a refused order) is left to the locked path, so the
        answers are the same; so is every order the host enters (checked from
        the host's view, see :meth:`_host_view_in`)."""
        with self._hints_lock:
            hint = self._hints.get(match_id)
            setup = self._setups.get(match_id)
        if hint is None or setup is None or hint.settings.get("close_early"):
            return None
        if hint.settings.get("clock"):  # a clock stops at the first order: the locked path
            return None
        r = hint.round
        if (round_number is not None and round_number != r.number) or seat not in r.acting:
            return None
        rules = get_ruleset(hint.ruleset)
        phase = rules.phase(r.phase)
        if kind is not None and kind != phase.order_key:
            return None
        step = Step(r.number, r.phase, r.title, tuple(r.acting))
        game = GameState(
            setup,
            hint.settings,
            r.number - 1,
            lambda: self._cached_state_before(rules, match_id, r.number, setup, hint.settings),
        )
        try:
            check_against_schema(order, phase.schema, f"the {phase.order_key} order")
            normalized = rules.check_order(game, step, seat, order)
        except RuleError:
            return None  # refused: the locked path refuses it on the state under the lock
        row = _order_row(match_id, r.number, seat, normalized, False, self.clock())
        if token is not None:
            row["digest"] = token_hash(token)
        try:
            with self._guard_connection() as conn:
                stored = conn.execute(self._guarded_order(token is not None), row).first()
        except DBAPIError as exc:
            if not exc.connection_invalidated:
                raise
            stored = None  # a connection lost (a restarted server): the locked path

        if stored is None:
            self._forget(match_id)
            return None
        return str(row["receipt"])

    def _cached_state_before(
        self, rules: Ruleset, match_id: str, number: int, setup: Setup, settings: Any
    ) -> Any:
        """:meth:`_state_before`, kept per (match, round): it never changes."""
        key = (match_id, number)
        with self._hints_lock:
            found = self._before.get(key)
        if found is None:
            with self._single_read.connect() as conn:
                found = self._state_before(conn, rules, match_id, number, setup, settings)
            with self._hints_lock:
                self._before[key] = found
        return found

    def _guard_connection(self) -> Any:
        """A connection for the guarded statement: in autocommit mode, from a
        small pool of its own that does not ping a connection before lending it
        (a round trip per order). A connection found dead makes the statement
        fail, which sends the order down the locked path, whose pool pings; the
        pool is disposed with the service's engine."""
        with self._hints_lock:
            if self._guard_engine is None:
                self._guard_engine = create_engine(
                    self.engine.url, isolation_level="AUTOCOMMIT", pool_size=5, max_overflow=5
                )
                guard = self._guard_engine
                event.listen(self.engine, "engine_disposed", lambda _engine: guard.dispose())
            return self._guard_engine.connect()

    def _guarded_order(self, with_token: bool) -> Any:
        """INSERT ... SELECT FROM the guard (see :func:`_guard`) ... ON
        CONFLICT (match, round, seat) DO UPDATE: PostgreSQL only."""
        if with_token not in self._guarded:
            guard_round, guard_bump = _guard(with_token)
            columns = ("payload", "salt", "receipt", "host_entered", "submitted_at")
            inserted = (*columns, "first_sent_at")
            source = core_select(
                bindparam("match_id", type_=Order.__table__.c.match_id.type),  # type: ignore[attr-defined]
                guard_round.c.number,
                bindparam("seat", type_=Integer),
                *(
                    bindparam(c, type_=Order.__table__.c[c].type)  # type: ignore[attr-defined]
                    for c in inserted
                ),
                literal(1, Integer),
            ).select_from(guard_round.join(guard_bump, guard_bump.c.id == guard_round.c.match_id))
            pg = postgresql_insert(Order).from_select(
                ["match_id", "round_number", "seat", *inserted, "revision"], source
            )
            self._guarded[with_token] = pg.on_conflict_do_update(
                index_elements=["match_id", "round_number", "seat"],
                set_={
                    **{c: getattr(pg.excluded, c) for c in columns},
                    "revision": col(Order.revision) + 1,
                },
            ).returning(col(Order.id))
        return self._guarded[with_token]

    def _state_before(
        self,
        conn: Any,
        rules: Ruleset,
        match_id: str,
        number: int,
        setup: Setup,
        settings: Mapping[str, Any],
    ) -> Any:
        """The game state an order of round ``number`` is checked against: the
        stored result of the round before, or for round 1 the start state
        (:meth:`Ruleset.replay` of no step: a game that deals has dealt)."""
        if number > 1:
            params = {"match_id": match_id, "number": number - 1}
            return conn.execute(_ROUND_RESULT, params).scalar()
        seed = conn.execute(_MATCH_SEED, {"match_id": match_id}).scalar_one()
        return rules.replay(setup, settings, seed, [])

    def _acting_step(
        self, conn: Any, rules: Ruleset, match_id: str, r: _OpenRound, seat: int, kind: str | None
    ) -> Step:
        """The open step, once ``seat`` acts in it and ``kind`` (when given) is
        its kind of order; a refusal naming the problem otherwise."""
        acting = tuple(r.acting or ())
        if seat not in acting:
            if seat not in self._setup(conn, match_id).seats:
                raise RuleError.single("seat/unknown", f"this match has no seat {seat!r}")
            raise RuleError.single(
                "step/not_acting",
                f"seat {seat} does not act in {r.title}: only seat(s) "
                f"{', '.join(str(s) for s in acting)} send orders in it",
                "seat",
            )
        expected = rules.phase(r.phase).order_key
        if kind is not None and kind != expected:
            raise RuleError.single(
                "order/wrong_phase",
                f"the open round is {r.title}: send '{expected}', not '{kind}'",
            )
        return Step(r.number, r.phase, r.title, acting)

    def _close_in(self, conn: Any, match_id: str, number: int, by: str, now: datetime) -> None:
        """Close round ``number`` inside the caller's transaction on ``conn``
        (which holds the match's lock)."""
        with Session(bind=conn) as session:
            match = session.get(Match, match_id)
            rnd = session.get(Round, (match_id, number))
            assert match is not None and rnd is not None
            self._close(session, match, rnd, by, now)
            session.flush()

    def _lock_for_order(self, conn: Any, match_id: str) -> tuple[Any, _OpenRound | None]:
        """Lock the match row (bumping its version): what an order needs of the
        match, and its latest round as it is once the lock is held."""
        if self._sqlite:
            m = conn.execute(_LOCK_MATCH_AND_ROUND, {"match_id": match_id}).first()
            if m is None:
                raise RuleError.single("match/not_found", f"there is no match '{match_id}'")
            if m.round_status is None:
                return m, None
            return m, _OpenRound(
                m.rounds_opened,
                m.round_phase,
                m.round_status,
                m.round_deadline,
                m.round_title,
                _json_list(m.round_acting),
            )
        m = conn.execute(_LOCK_MATCH_FIELDS, {"match_id": match_id}).first()
        if m is None:
            raise RuleError.single("match/not_found", f"there is no match '{match_id}'")
        if not m.rounds_opened:
            return m, None
        r = conn.execute(_ROUND_FIELDS, {"match_id": match_id, "number": m.rounds_opened}).first()
        if r is None:
            return m, None
        return m, _OpenRound(r.number, r.phase, r.status, r.deadline, r.title, list(r.acting))

    def _setup(self, conn: Any, match_id: str) -> Setup:
        """A match's set-up (it never changes once created), read once per process."""
        found = self._setups.get(match_id)
        if found is None:
            match_setup = conn.execute(_MATCH_SETUP, {"match_id": match_id}).scalar_one()
            found = setup_of(match_setup, conn.execute(_SEATS_OF, {"match_id": match_id}))
            if len(self._setups) > 1000:
                self._setups.clear()
            self._setups[match_id] = found
        return found

    def _upsert_order(self, conn: Any) -> Any:
        """INSERT ... ON CONFLICT (match, round, seat) DO UPDATE, for this database."""
        name = conn.dialect.name
        if name not in self._upserts:
            columns = ("payload", "salt", "receipt", "host_entered", "submitted_at")
            values: dict[str, Any] = {
                c: bindparam(c)
                for c in ("match_id", "round_number", "seat", *columns, "first_sent_at")
            }
            keys = ["match_id", "round_number", "seat"]
            bump = col(Order.revision) + 1
            if name == "postgresql":
                pg = postgresql_insert(Order).values(**values, revision=1)
                self._upserts[name] = pg.on_conflict_do_update(
                    index_elements=keys,
                    set_={**{c: getattr(pg.excluded, c) for c in columns}, "revision": bump},
                )
            else:
                lite = sqlite_insert(Order).values(**values, revision=1)
                self._upserts[name] = lite.on_conflict_do_update(
                    index_elements=keys,
                    set_={**{c: getattr(lite.excluded, c) for c in columns}, "revision": bump},
                )
        return self._upserts[name]

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

    def _document(self, state: MatchState, upto: int) -> Any:
        """The match file of rounds 1..upto (their stored orders; None = no order)."""
        closed, host_entered = self._closed_orders(state, upto)
        match = state.match
        return state.ruleset.document(state.setup, match.settings, match.seed, closed, host_entered)

    # ---- closing -------------------------------------------------------

    def close_round(self, match_id: str, number: int | None = None, by: str = "host") -> Round:
        """Close the open round (or, if ``number`` has already closed, return it as
        it was closed: closing twice resolves once)."""
        with transaction(self.engine) as session:
            match = self._lock(session, match_id)
            now = self.clock()
            if number is not None:
                rnd = session.get(Round, (match.id, number))
                if rnd is not None and rnd.status == "closed":
                    return rnd
            rnd = self._open_round(session, match)
            if number is not None and rnd.number != number:
                raise RuleError.single("round/closed", f"round {number} is not the open round")
            self._close(session, match, rnd, by, now)
            return rnd

    def _close(self, session: Session, match: Match, rnd: Round, by: str, now: datetime) -> None:
        state = self._load(session, match)
        self._check_entered(session, state, rnd)
        rnd.result = self._resolve_stored(state, rnd.number)
        if rnd.clocks is not None:  # each acting seat keeps what its clock had left
            rnd.clocks = clocks.closed(
                rnd.clocks, clocks.clock_time(rnd.clocks, match.paused_at, now)
            )
            banks = clocks.banks_after(rnd.clocks)
            for seat in state.seats:
                if seat.seat in banks:
                    seat.clock_bank = banks[seat.seat]
                    session.add(seat)
        rnd.status = "closed"
        rnd.closed_at = now
        rnd.closed_by = by
        rnd.remind_at = None
        if state.chain:  # (a match stored before chains gets none: see migration 0011)
            state.chain.append(self._chain_round(session, state, rnd))
        after = GameState(state.setup, match.settings, rnd.number, rnd.result)
        if state.ruleset.next_step(after) is None:
            match.finished = True
            match.paused_at = None
        match.version += 1
        session.add_all([rnd, match])
        _fault_sleep_in_close(session)
        targets = self._targets(session, match.id)
        if targets is not None:
            # ``state`` holds the session's own rows, so it already shows this close
            view = self._public_view(state)
            post = match_post(state.ruleset, view, "markdown")
            messages = compose.round_closed(view, targets, rnd.number, post)
            if match.finished:
                messages += compose.match_ended(view, targets)
            self._enqueue(session, match.id, messages)
        if match.settings.get("auto_open") and not match.finished and match.paused_at is None:
            self._open_next(session, match, now)

    def _chain_round(self, session: Session, state: MatchState, rnd: Round) -> ChainHead:
        """Append the entry of ``rnd``, closing now, to the match's chain: its
        acting seats, the receipts of the orders used (a host-entered order
        refused at the close was not), and the digest of the game's public
        result after it, as the public view shows it (:func:`public_result`)."""
        used = {s: o for s, o in state.orders_of(rnd.number).items() if not o.refused}
        after = GameState(state.setup, state.match.settings, rnd.number, rnd.result)
        body = chain.round_body(
            state.chain[-1].head,
            number=rnd.number,
            acting=rnd.acting,
            receipts={s: o.receipt for s, o in used.items()},
            host_entered=[s for s, o in used.items() if o.host_entered],
            result_sha256=chain.result_digest(public_result(state.ruleset, after)),
        )
        return self._append_entry(session, state.match.id, len(state.chain), body, rnd.number)

    @staticmethod
    def _check_entered(session: Session, state: MatchState, rnd: Round) -> None:
        """At the close, check each order the host entered in ``rnd`` by every
        rule of its game, the seat's private data included, which its entry did
        not look at (:meth:`Ruleset.check_entered_order`): one that breaks them
        is marked refused, with why, and not used; the seat gets the default of
        no order. The host and the seat see it once the round has closed."""
        step = step_of(rnd)
        before = state.game_state()
        for seat, order in state.orders_of(rnd.number).items():
            if not order.host_entered or order.refused:
                continue
            try:
                state.ruleset.check_order(before, step, seat, copy.deepcopy(order.payload))
            except RuleError as exc:
                order.refused = [{"code": p.code, "message": p.message} for p in exc.problems]
                session.add(order)

    def preview(self, match_id: str) -> Preview:
        """For the host: what closing the open round now would use for each seat,
        and the resolution only when it depends on nothing sealed from the host.

        The host never learns a sealed order's content before its round closes,
        and nothing computed from one (a hand, a total, the way the raft goes) is
        as secret as the order. Nor does the host hold the seed before the end, so
        a seat's seeded default is not shown either. The round is therefore
        resolved here only when the host entered every order of it itself and
        the game checks such orders in full on entry
        (:meth:`Ruleset.checks_entered_in_full`: else one of them may break a
        rule on the seat's private data and get the default at the close);
        otherwise the preview says, seat by seat, whose order will be used."""
        state = self.state(match_id)
        rnd = state.open_round
        if rnd is None:
            raise RuleError.single("round/closed", "no round is open to preview")
        orders = state.orders_of(rnd.number)
        result = None
        entered = all(s in orders and orders[s].host_entered for s in rnd.acting)
        # only when the entry of each checked every rule: else whether one of them
        # breaks a rule (and gets the default) depends on what is sealed from the host
        if entered and state.ruleset.checks_entered_in_full(step_of(rnd)):
            after = self._resolve_stored(state, rnd.number)
            settings = state.match.settings
            closed = GameState(state.setup, settings, rnd.number, after)
            result = state.ruleset.preview(state.game_state(), closed)
        return Preview(state, rnd, result)

    def closing_result(self, match_id: str) -> Any:
        """What closing the open round now would resolve to, missing orders
        defaulted; nothing is stored. For the referee's own checks (tests, the
        operator's tools) only: it is computed from sealed orders and the seed,
        so no page or API answer may show it (the host's is :meth:`preview`)."""
        state = self.state(match_id)
        rnd = state.open_round
        if rnd is None:
            raise RuleError.single("round/closed", "no round is open")
        return self._resolve_stored(state, rnd.number)

    def _resolve_stored(self, state: MatchState, upto: int) -> Any:
        """The detailed result (game state) of rounds 1..upto of a stored match,
        replayed from its stored orders (missing ones defaulted) by the rules alone."""
        closed, host_entered = self._closed_orders(state, upto)
        match = state.match
        return state.ruleset.replay(state.setup, match.settings, match.seed, closed, host_entered)

    def close_if_due(self, match_id: str) -> bool:
        """Close the match's open round if its deadline has passed (not while paused)."""
        with read(self.engine) as session:  # a cheap look first: most rounds are not due
            match = session.get(Match, match_id)
            if match is None or not self._due(match, self._current(session, match)):
                return False
        with transaction(self.engine) as session:
            match = self._lock(session, match_id)
            now = self.clock()  # after the lock: the close happens now, never before
            rnd = self._current(session, match)
            if rnd is None or not self._due(match, rnd, now):
                return False  # closed (or paused) by someone else meanwhile
            self._close(session, match, rnd, "deadline", now)
            return True

    def close_due(self) -> list[tuple[str, int]]:
        """Close every round whose deadline has passed; safe to run from several
        processes or machines at once (each close is locked and idempotent)."""
        now = self.clock()
        with read(self.engine) as session:
            due = list(
                session.exec(
                    select(Round.match_id, Round.number)
                    .join(Match, col(Match.id) == col(Round.match_id))
                    .where(Round.status == "open", col(Round.deadline) <= now)
                    .where(col(Match.paused_at).is_(None))
                )
            )
        closed = []
        for match_id, number in due:
            if self.close_if_due(match_id):
                closed.append((match_id, number))
        return closed

    def reveal(self, match_id: str) -> None:
        """Full reveal at the end: every order, the whole game state and the
        receipts' salts become public."""
        with transaction(self.engine) as session:
            match = self._lock(session, match_id)
            if not match.finished:
                raise RuleError.single(
                    "match/not_finished", "a full reveal is possible once every round has closed"
                )
            match.revealed = True
            match.version += 1
            session.add(match)

    # ---- schedule, addresses and messages (issue 14) ----------------------

    def set_schedule(self, match_id: str, *, auto_open: object, hours_per_round: object) -> None:
        """The host's schedule: whether rounds open by themselves, and each
        round's hours (the deadline of rounds opened from now on). Turned on
        between rounds, it opens the next round at once (unless paused)."""
        with transaction(self.engine) as session:
            match = self._lock(session, match_id)
            if match.finished:
                raise RuleError.single("match/finished", "the match has finished")
            rules = get_ruleset(match.ruleset)
            settings = check_settings(
                {**match.settings, "auto_open": auto_open, "deadline_hours": hours_per_round},
                rules,
            )
            match.settings = settings
            match.version += 1
            session.add(match)
            rnd = self._current(session, match)
            between = rnd is None or rnd.status == "closed"
            if settings["auto_open"] and match.paused_at is None and between:
                self._open_next(session, match, self.clock())

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

    # ---- files and checks ----------------------------------------------

    def export(self, match_id: str) -> Any:
        """The match file (docs/contracts/<game>/FORMAT.md) of every closed round, as the host may
        have
        it: R10 makes the seed public only at the end (with it, every seeded
        default, draw and deal could be computed in advance), so before the end
        the file carries ``"seed": null``; ``seed_sha256`` is always there, so the
        seed published at the end can be checked against it. ``name`` is the
        match's name, for people: like ``seed_sha256`` it is a key docs/contracts/<game>/FORMAT.md
        does
        not name, which ``referee resolve --file`` reads past (it changes no result).

        Issue 27: ``chain`` is the match's hash chain, every entry's body and
        head (none for a match stored before chains), and once the match has
        finished ``proof`` lists each order used in a closed round with its salt
        and receipt, so that ``referee verify`` (docs/verify.md) checks the file
        offline. Every game's file reader passes over both keys as it does
        ``name`` (:data:`referee.matchfile.EXPORT_KEYS`)."""
        state = self.state(match_id)
        document = self._closed_document(state)
        if not state.match.finished:
            document["seed"] = None
        document["seed_sha256"] = state.match.seed_sha256
        document["name"] = state.match.name
        entries = self._chain_entries(match_id)
        if entries:
            document["chain"] = [{"body": e.body, "head": e.head} for e in entries]
        if state.match.finished:
            document["proof"] = self._proof(state)
        return document

    def _chain_entries(self, match_id: str) -> list[ChainEntry]:
        """A match's chain, every entry in order (bodies included)."""
        with read(self.engine) as session:
            return list(
                session.exec(
                    select(ChainEntry)
                    .where(ChainEntry.match_id == match_id)
                    .order_by(col(ChainEntry.position))
                )
            )

    @staticmethod
    def _proof(state: MatchState) -> list[dict[str, Any]]:
        """Each order used in a closed round (the match file's orders: not a
        host-entered one refused at its close), with its salt and receipt."""
        closed = {r.number for r in state.rounds if r.status == "closed"}
        return [
            {
                "round": o.round_number,
                "seat": o.seat,
                "order": o.payload,
                "salt": o.salt,
                "receipt": o.receipt,
            }
            for o in state.orders
            if o.round_number in closed and not o.refused
        ]

    def document(self, match_id: str) -> Any:
        """The match file of every closed round with its seed, whatever the
        match's stage: for the referee's own checks and the operator's tools,
        never for a host before the end (see :meth:`export`)."""
        return self._closed_document(self.state(match_id))

    def _closed_document(self, state: MatchState) -> Any:
        closed = state.last_closed
        return self._document(state, upto=closed.number if closed else 0)

    def audit(self, match_id: str) -> Any:
        """The ruleset's audit of the match up to its last closed round (host only).

        An audit solves CP-SAT models (0.1-0.2 s), so each is kept (the last
        :data:`AUDIT_CACHE_SIZE`, per process) under the digest of exactly what
        it is computed from: the match file of the closed rounds (set-up,
        settings, seed, every closed order). A round closing makes a new file,
        hence a new audit; orders of the open round, sealed, are not in it."""
        state = self.state(match_id)
        document = self._closed_document(state)
        digest = hashlib.sha256(canonical_json(document).encode("utf-8")).hexdigest()
        key = (match_id, state.ruleset.name, digest)
        with self._audits_lock:
            found = self._audits.get(key)
        if found is None:
            found = state.ruleset.audit(document, stored=True)
            # an audit cut short by its time budget ("complete": false) is not kept:
            # a later request, on a less busy moment, may prove what this one could not
            if not (isinstance(found, dict) and found.get("complete") is False):
                with self._audits_lock:
                    self._audits[key] = found
        return copy.deepcopy(found)

    def correct(self, match_id: str) -> list[int]:
        """Re-resolve every closed round from its stored orders and, where its
        stored result differs (a result stored by an older version of a game's
        rules, say), store the re-resolved one and append a ``correction``
        entry to the chain (docs/verify.md): a published head is never
        rewritten. The rounds corrected, in order ([] when none differs).

        Refused, with nothing changed, when the match has no chain, or when the
        fixed results would change how the match was played: a later round
        (the open one included) opened with other acting seats, or the match
        ending at another round. A fix changes results, never orders."""
        with transaction(self.engine) as session:
            match = self._lock(session, match_id)
            state = self._load(session, match)
            if not state.chain:
                raise RuleError.single(
                    "chain/none",
                    f"match {match_id} was stored before the referee kept chains, so a fix "
                    "of it could not be published as a correction; it was not changed",
                )
            fixed: list[int] = []
            for rnd in [r for r in state.rounds if r.status == "closed"]:
                again = chain.json_value(self._resolve_stored(state, rnd.number))
                if again == chain.json_value(rnd.result):
                    continue
                rnd.result = again
                session.add(rnd)
                state.chain.append(self._chain_correction(session, state, rnd))
                fixed.append(rnd.number)
            if fixed:
                self._same_play(state)
                match.version += 1
                session.add(match)
            return fixed

    @staticmethod
    def _same_play(state: MatchState) -> None:
        """Refuse a fix after which the rounds would not have been opened as
        they were (:meth:`correct`)."""
        rules, settings = state.ruleset, state.match.settings
        for rnd in state.rounds:
            if rnd.number > 1:
                prev = state.rounds[rnd.number - 2]
                before = GameState(state.setup, settings, prev.number, prev.result)
                step = rules.next_step(before)
                if step is None or (step.number, list(step.acting)) != (rnd.number, rnd.acting):
                    raise RuleError.single(
                        "chain/played_differently",
                        f"with the fixed results, round {rnd.number} would not have been "
                        f"played by seat(s) {rnd.acting} as it was: a fix cannot replay the "
                        "match differently, so nothing was changed",
                    )
        last = state.last_closed
        if last is not None and state.open_round is None:
            ends = rules.next_step(GameState(state.setup, settings, last.number, last.result))
            if (ends is None) != state.match.finished:
                raise RuleError.single(
                    "chain/played_differently",
                    f"with the fixed results the match would "
                    f"{'have ended' if ends is None else 'not have ended'} after round "
                    f"{last.number}: a fix cannot replay the match differently, so nothing "
                    "was changed",
                )

    def _chain_correction(self, session: Session, state: MatchState, rnd: Round) -> ChainHead:
        """Append a correction of closed round ``rnd`` (its result just fixed):
        the same orders as its entry, the new result's digest, ``replaces`` the
        round's head before it."""
        mine = [h for h in state.chain if h.round == rnd.number and h.kind != chain.START]
        used = {s: o for s, o in state.orders_of(rnd.number).items() if not o.refused}
        after = GameState(state.setup, state.match.settings, rnd.number, rnd.result)
        body = chain.correction_body(
            state.chain[-1].head,
            mine[-1].head,
            number=rnd.number,
            acting=rnd.acting,
            receipts={s: o.receipt for s, o in used.items()},
            host_entered=[s for s, o in used.items() if o.host_entered],
            result_sha256=chain.result_digest(public_result(state.ruleset, after)),
        )
        return self._append_entry(session, state.match.id, len(state.chain), body, rnd.number)

    def recheck(self, match_id: str) -> list[str]:
        """Re-resolve every closed round from its stored orders and list each
        difference from the stored results (an erratum check); [] when none."""
        state = self.state(match_id)
        differences: list[str] = []
        for rnd in state.rounds:
            if rnd.status != "closed":
                continue
            again = self._resolve_stored(state, rnd.number)
            stored = rnd.result or {}
            for key in sorted(set(again) | set(stored)):
                if again.get(key) != stored.get(key):
                    was, now = json.dumps(stored.get(key)), json.dumps(again.get(key))
                    differences.append(
                        f"{self._title(state, rnd.number)}: '{key}' stored as {was} "
                        f"but re-resolves to {now}"
                    )
        return differences
