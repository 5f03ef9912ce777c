"""Orders (:class:`Orders`): the service's one order path, and the host's preview.

:meth:`Orders.submit_order` stores an order by one of two paths. The locked
path (:meth:`Orders._submit_locked`, every database) locks the match row while
bumping its version, reads the open round, checks the order and upserts it in
one transaction of prepared Core statements. On PostgreSQL an order is first
tried by the guarded path (:mod:`referee.matches.guarded`, the base of
:class:`Orders`): one statement that stores it only if, under the row locks,
the round is still open. The statements are built once, at import or on first
use.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from sqlalchemy import bindparam, update
from sqlalchemy import select as core_select
from sqlalchemy.dialects.postgresql import insert as postgresql_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlmodel import Session, col, select

from referee import clocks
from referee.errors import RuleError
from referee.matches.core import token_hash
from referee.matches.guarded import GuardedOrders, _order_row
from referee.matches.state import Preview, _Hint, _OpenRound, setup_of, step_of
from referee.models import Match, Order, Round, Seat
from referee.orderschema import check_against_schema
from referee.ruleset import GameState, Ruleset, Setup, Step, Viewer, get_ruleset
from referee.views import view_for

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
# ... and, for an order sent with a seat link only this process vouches for
# (Referee.seat_link_hint), that seat's link as it is under the lock
_LOCK_MATCH_ROUND_AND_LINK = _LOCK_MATCH_AND_ROUND.returning(
    select(Seat.token_hash)
    .where(col(Seat.match_id) == col(Match.id), col(Seat.seat) == bindparam("seat"))
    .scalar_subquery()
    .label("seat_link")
)
_ROUND_FIELDS = core_select(
    *(
        col(getattr(Round, name))
        for name in ("number", "phase", "status", "deadline", "title", "acting")
    )
).where(col(Round.match_id) == bindparam("match_id"), col(Round.number) == bindparam("number"))
_ROUND_CLOCKS = select(Round.clocks).where(
    col(Round.match_id) == bindparam("match_id"), col(Round.number) == bindparam("number")
)
_ROUND_SEATS = select(Order.seat).where(
    col(Order.match_id) == bindparam("match_id"), col(Order.round_number) == bindparam("number")
)
_MATCH_SETUP = select(Match.setup).where(col(Match.id) == bindparam("match_id"))
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


def _check_round_number(open_number: int, meant: int | None) -> None:
    """Refuse an order written for a round other than the open one."""
    if meant is not None and meant != open_number:
        raise RuleError.single(
            "round/closed",
            f"this order was written for round {meant}, which is not open (the open round "
            f"is round {open_number}); it was not recorded",
            "round",
        )


class Orders(GuardedOrders):
    """Sending orders, and what closing the open round would use."""

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
        if token is not None and self._sqlite:  # checked under the write lock, below
            digest: str | None = token_hash(token)
        elif token is not None and self.find_token(token) != (match_id, seat):
            raise RuleError.single(
                "auth/forbidden", "this token does not give access to this match"
            )
        else:
            digest = None
        return self._submit_locked(match_id, seat, order, host_entered, kind, round_number, digest)

    def _submit_locked(
        self,
        match_id: str,
        seat: int,
        order: Any,
        host_entered: bool,
        kind: str | None,
        round_number: int | None,
        link: str | None = None,
    ) -> str:
        """The locked path (see :meth:`submit_order`). ``link``: on SQLite, the
        digest of the seat's link the caller was not sure of; the order is
        stored only if it is still the seat's link once the write lock is held
        (``auth/forbidden`` otherwise, and nothing changes)."""
        with self.engine.begin() as conn:  # Core: no ORM session needed here
            m, r = self._lock_for_order(conn, match_id, seat if link is not None else None)
            if link is not None and m.seat_link != link:
                raise RuleError.single(
                    "auth/forbidden", "this token does not give access to this match"
                )
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
        with Session(bind=conn) as session:
            match = session.get(Match, match_id)
            assert match is not None
            return view_for(self._load(session, match), Viewer.host())

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

    def _lock_for_order(
        self, conn: Any, match_id: str, seat: int | None = None
    ) -> tuple[Any, _OpenRound | None]:
        """Lock the match row (bumping its version): what an order needs of the
        match, and its latest round as it is once the lock is held; on SQLite
        with ``seat``, also that seat's link digest (``seat_link``)."""
        if self._sqlite:
            if seat is None:
                m = conn.execute(_LOCK_MATCH_AND_ROUND, {"match_id": match_id}).first()
            else:
                params = {"match_id": match_id, "seat": seat}
                m = conn.execute(_LOCK_MATCH_ROUND_AND_LINK, params).first()
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
