"""A process killed in the middle of closing a round (SIGKILL while the close's
transaction is open: resolved and written, not committed) leaves the match as
it was before the close; the next `referee close-due` closes it once, with the
right result. Uses the test hook REFEREE_FAULT_SLEEP_IN_CLOSE (referee/matches/lifecycle.py)."""

from __future__ import annotations

import random
import signal
import sqlite3
import time
from typing import Any

import pytest
from sqlalchemy import Engine, create_engine, text
from sqlalchemy.engine import make_url
from sqlmodel import Session, select

from referee.db import is_postgres
from referee.models import Match, Order, Round, Seat
from referee.service import Referee

from .conftest import due_match, expected_close, run_referee, start_referee


def snapshot(engine: Engine, match_id: str) -> dict[str, Any]:
    """Every stored column of the match, its seats, rounds and orders."""
    with Session(engine) as session:
        match = session.get(Match, match_id)
        assert match is not None
        seats = session.exec(select(Seat).where(Seat.match_id == match_id))
        rounds = session.exec(select(Round).where(Round.match_id == match_id))
        orders = session.exec(select(Order).where(Order.match_id == match_id))
        return {
            "Match": [match.model_dump()],
            "Seat": sorted((r.model_dump() for r in seats), key=lambda r: r["seat"]),
            "Round": sorted((r.model_dump() for r in rounds), key=lambda r: r["number"]),
            "Order": sorted((r.model_dump() for r in orders), key=lambda r: r["id"]),
        }


def locked(engine: Engine, db_url: str, match_id: str) -> bool:
    """Whether another process holds the lock a close takes (the database's write
    lock on SQLite, the match row's lock on PostgreSQL)."""
    if is_postgres(engine):
        probe = create_engine(db_url)
        try:
            with probe.begin() as conn:
                sql = 'SELECT id FROM "match" WHERE id = :id FOR UPDATE NOWAIT'
                conn.execute(text(sql), {"id": match_id})
            return False
        except Exception as exc:  # LockNotAvailable, wrapped by SQLAlchemy
            assert "lock" in str(exc).lower(), exc
            return True
        finally:
            probe.dispose()
    conn = sqlite3.connect(str(make_url(db_url).database), timeout=0, isolation_level=None)
    try:
        conn.execute("BEGIN IMMEDIATE")
        conn.execute("ROLLBACK")
        return False
    except sqlite3.OperationalError as exc:
        assert "locked" in str(exc), exc
        return True
    finally:
        conn.close()


@pytest.mark.parametrize("round_number", [1, 5])
def test_a_close_killed_half_way_leaves_the_match_as_before(
    engine: Engine, db_url: str, round_number: int
) -> None:
    rng = random.Random(round_number)
    mid = due_match(engine, rng, round_number)
    expected = expected_close(engine, mid)
    before = snapshot(engine, mid)
    assert before["Round"][-1]["status"] == "open"

    proc = start_referee(db_url, "close-due", env={"REFEREE_FAULT_SLEEP_IN_CLOSE": "60"})
    try:
        give_up = time.monotonic() + 60
        while not locked(engine, db_url, mid):
            assert proc.poll() is None, proc.communicate()
            assert time.monotonic() < give_up, "the close never took its lock"
            time.sleep(0.05)
        time.sleep(1.0)  # resolving takes milliseconds: it is asleep before its commit now
        assert proc.poll() is None
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.communicate(timeout=30)
    assert proc.returncode == -signal.SIGKILL

    # nothing of the close is stored, and nothing is left locked
    assert snapshot(engine, mid) == before
    assert not locked(engine, db_url, mid)
    if not is_postgres(engine):  # a later write goes through at once
        conn = sqlite3.connect(str(make_url(db_url).database), timeout=1)
        conn.execute("UPDATE match SET version = version WHERE id = ?", (mid,))
        conn.commit()
        conn.close()

    again = run_referee(db_url, "close-due")
    assert again.returncode == 0, again.stderr
    assert again.stdout.strip() == f"closed round {round_number} of match {mid}"
    after = snapshot(engine, mid)
    closed = after["Round"][-1]
    assert closed["status"] == "closed" and closed["closed_by"] == "deadline"
    assert closed["result"] == expected
    assert after["Match"][0]["version"] == before["Match"][0]["version"] + 1
    assert after["Match"][0]["finished"] == (round_number == 5)
    assert after["Order"] == before["Order"] and after["Seat"] == before["Seat"]
    assert Referee(engine).recheck(mid) == []
    assert run_referee(db_url, "close-due").stdout.strip() == "no round was due"
