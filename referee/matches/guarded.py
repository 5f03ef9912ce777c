"""PostgreSQL's guarded order path (:class:`GuardedOrders`), under the locked one.

An order is checked against the open round as the last locked order of its
match in this process found it (:class:`referee.matches.state._Hint`), then
stored by one statement (:func:`_guard`) that locks the match and round rows
and stores it only if, as they are once locked, the round is still open and
before its deadline. Whenever that is not certain it stores nothing, and
:meth:`referee.matches.orders.Orders.submit_order` takes the locked path.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from sqlalchemy import Integer, bindparam, create_engine, event, exists, literal, or_, update
from sqlalchemy import select as core_select
from sqlalchemy.dialects.postgresql import insert as postgresql_insert
from sqlalchemy.exc import DBAPIError
from sqlmodel import col, select

from referee.chain import receipt_for
from referee.errors import RuleError
from referee.matches.core import Core, token_hash
from referee.matches.state import _Hint
from referee.models import Match, Order, Round, Seat
from referee.orderschema import check_against_schema
from referee.ruleset import GameState, Ruleset, Setup, Step, get_ruleset

# statements of the hot path, built once (SQLAlchemy then only binds values)
_ROUND_RESULT = select(Round.result).where(
    col(Round.match_id) == bindparam("match_id"), col(Round.number) == bindparam("number")
)
_MATCH_SEED = select(Match.seed).where(col(Match.id) == bindparam("match_id"))


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


class GuardedOrders(Core):
    """The guarded statement of an order, and what it is checked against."""

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
