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
import time
from collections.abc import Callable, Mapping
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import (
    func,
)
from sqlmodel import Session, col, select

from referee import chain, clocks

# moved to referee.chain (issue 27); still importable from here
from referee.chain import canonical_json as canonical_json
from referee.chain import receipt_for as receipt_for
from referee.db import read, transaction
from referee.errors import Problem, RuleError
from referee.markup import match_post
from referee.matches.core import AUDIT_CACHE_SIZE as AUDIT_CACHE_SIZE
from referee.matches.core import HINTS_CACHE_SIZE as HINTS_CACHE_SIZE
from referee.matches.core import new_token as new_token
from referee.matches.core import token_hash as token_hash
from referee.matches.orders import Orders

# the state types and their pure helpers (referee.matches.state); still importable from here
from referee.matches.state import MAX_DEADLINE_HOURS as MAX_DEADLINE_HOURS
from referee.matches.state import SERVICE_SETTINGS as SERVICE_SETTINGS
from referee.matches.state import ChainHead as ChainHead
from referee.matches.state import Created as Created
from referee.matches.state import MatchState as MatchState
from referee.matches.state import Preview as Preview
from referee.matches.state import PulseFacts as PulseFacts
from referee.matches.state import check_settings as check_settings
from referee.matches.state import game_settings as game_settings
from referee.matches.state import setting_keys as setting_keys
from referee.matches.state import setup_of as setup_of
from referee.matches.state import step_of as step_of
from referee.matchfile import seed_digest
from referee.models import (
    ChainEntry,
    Contact,
    Match,
    MatchNotify,
    Message,
    Round,
    Seat,
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
from referee.notify.reminders import next_reminder
from referee.ruleset import (
    DEFAULT_RULESET,
    GameState,
    Setup,
    get_ruleset,
    public_result,
)
from referee.text import check_text

MAX_GARNETS = 1_000_000_000
_SEAT_COLUMNS = frozenset(("seat", "name", "garnets"))


def _base_only(settings: MatchNotify, contacts: Mapping[int, Contact]) -> bool:
    """A match's notify row that only records the base of its links: no
    webhook, and no seat has given (or stopped) an address yet."""
    return not settings.webhook_url and not contacts


def _fault_sleep_in_close(session: Session) -> None:
    """Test hook, not a setting: with REFEREE_FAULT_SLEEP_IN_CLOSE=SECONDS set, a
    close sleeps that long after resolving and writing the closed round, before its
    transaction commits, so a test can kill the process half-way through a close
    (tests/reliability). Unset in production: it does nothing."""
    delay = os.environ.get("REFEREE_FAULT_SLEEP_IN_CLOSE")
    if delay:
        session.flush()  # the writes are in the database, uncommitted
        time.sleep(float(delay))


class Referee(Orders):
    """Every state change of every match goes through here."""

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
        links, see :mod:`referee.seasons`, from ``match_id``, the new match's id
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

    def reissue_token(self, match_id: str, seat: int | None, *, token: str | None = None) -> str:
        """A new secret link for the host (seat None) or a seat; the old one
        stops working. ``token``: the new link, made by the caller (a season
        derives its matches' host links, :mod:`referee.seasons`); random when
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
