"""A match's life (:class:`Lifecycle`): creating it, opening and closing its rounds.

Creating a match (its seats, links and the chain's first entry), opening the
next round, its deadline (set, extended, paused and resumed), the host's
schedule, closing a round (by the host, at its deadline, or early) with its
chain entry, and the full reveal at the end. Each method that changes state
locks the match in its own transaction (see :mod:`referee.service`).
"""

from __future__ import annotations

import copy
import os
import secrets
import time
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from sqlmodel import Session, col, select

from referee import chain, clocks
from referee.db import read, transaction
from referee.errors import Problem, RuleError
from referee.markup import match_post
from referee.matches.core import Core, new_token, token_hash
from referee.matches.state import (
    ChainHead,
    Created,
    MatchState,
    check_settings,
    game_settings,
    setup_of,
    step_of,
)
from referee.matchfile import seed_digest
from referee.models import (
    Contact,
    Match,
    MatchNotify,
    Round,
    Seat,
)
from referee.names import name_fault
from referee.notify import compose
from referee.notify.checks import (
    NotifyRequest,
    check_notify,
    new_secret,
    schedule_settings,
)
from referee.ruleset import (
    DEFAULT_RULESET,
    GameState,
    Ruleset,
    Setup,
    get_ruleset,
    public_result,
)
from referee.text import check_text

MAX_GARNETS = 1_000_000_000


_SEAT_COLUMNS = frozenset(("seat", "name", "garnets"))


@dataclass(frozen=True)
class _NewMatch:
    """What :meth:`Lifecycle.create_match` was given, checked."""

    rules: Ruleset
    setup: Setup
    settings: dict[str, Any]
    notify: NotifyRequest


def _fault_sleep_in_close(session: Session) -> None:
    """Test hook, not a setting: with REFEREE_FAULT_SLEEP_IN_CLOSE=SECONDS set, a
    close sleeps that long after resolving and writing the closed round, before its
    transaction commits, so a test can kill the process half-way through a close
    (tests/reliability). Unset in production: it does nothing."""
    delay = os.environ.get("REFEREE_FAULT_SLEEP_IN_CLOSE")
    if delay:
        session.flush()  # the writes are in the database, uncommitted
        time.sleep(float(delay))


class Lifecycle(Core):
    """Creating matches, opening and closing their rounds, deadlines and schedule."""

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
        new = self._checked_new(name, players, setup, settings, ruleset, notify, schedule)
        rules, checked_setup, checked, wanted = new.rules, new.setup, new.settings, new.notify
        assert isinstance(name, str)
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

    def check_new_match(
        self,
        *,
        name: object,
        players: object,
        setup: Mapping[str, Any] | None = None,
        settings: object = None,
        ruleset: object = DEFAULT_RULESET,
        notify: object = None,
        schedule: object = None,
    ) -> None:
        """Check what :meth:`create_match` would be given, creating nothing:
        raises the same :class:`RuleError` it would (a create form uses it to
        name every other problem when part of what was typed could not even be
        read, so nothing may be created)."""
        self._checked_new(name, players, setup, settings, ruleset, notify, schedule)

    def _checked_new(
        self,
        name: object,
        players: object,
        setup: Mapping[str, Any] | None,
        settings: object,
        ruleset: object,
        notify: object,
        schedule: object,
    ) -> _NewMatch:
        """A new match's parts, checked: every problem at once as a RuleError."""
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
        assert checked_setup is not None
        return _NewMatch(rules, checked_setup, checked, wanted)

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
