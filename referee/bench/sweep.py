"""``referee bench``'s sweep figures (``python -m referee.bench sweep
[DATABASE_URL]``): one sweep of ``referee notify`` with nothing due among
many live matches."""

from __future__ import annotations

import hashlib
import secrets
import statistics
import tempfile
import time
from datetime import timedelta
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, insert

from referee.db import make_engine, migrate, transaction
from referee.models import Match, Round, Seat, utcnow
from referee.service import Referee

# ---- the sweep among many live matches (issue 24) -------------------------------

SWEEP_SIZES = (200, 2_000, 20_000)


def fill_live(engine: Engine, count: int) -> None:
    """Bulk-insert ``count`` live matches: each with a closed first round, an open
    second one whose deadline is far (a week) with reminders 24 and 2 hours before,
    an address per seat and two sent messages: nothing is due."""
    from referee.models import Contact, MatchNotify, Message

    now = utcnow()
    has_remind_at = hasattr(Round, "remind_at")
    batch = 2000
    for start in range(0, count, batch):
        rows: dict[Any, list[dict[str, Any]]] = {
            t: [] for t in (Match, Seat, Round, MatchNotify, Contact, Message)
        }
        for _ in range(min(batch, count - start)):
            match_id = secrets.token_hex(6)
            rows[Match].append(
                {
                    "id": match_id,
                    "name": f"live {match_id}",
                    "ruleset": "rocky-river",
                    "setup": {},
                    "settings": {"deadline_hours": 168},
                    "seed": match_id,
                    "seed_sha256": hashlib.sha256(match_id.encode()).hexdigest(),
                    "host_token_hash": secrets.token_hex(32),
                    "created_at": now - timedelta(days=2),
                    "rounds_opened": 2,
                    "finished": False,
                    "paused_at": None,
                    "revealed": False,
                    "version": 4,
                }
            )
            rows[MatchNotify].append(
                {
                    "match_id": match_id,
                    "base_url": "http://bench",
                    "webhook_url": None,
                    "webhook_secret": None,
                    "remind_before_hours": [24, 2],
                }
            )
            for number, status in ((1, "closed"), (2, "open")):
                opened = now - timedelta(days=2 - number)
                deadline = opened + timedelta(days=7) if status == "open" else now
                row = {
                    "match_id": match_id,
                    "number": number,
                    "phase": "draft",
                    "title": f"Step {number}",
                    "acting": [1, 2, 3],
                    "status": status,
                    "opened_at": opened,
                    "deadline": deadline - timedelta(hours=1 if status == "closed" else 0),
                    "closed_at": now if status == "closed" else None,
                    "closed_by": "deadline" if status == "closed" else None,
                    "deadline_changes": 0,
                    "result": None,
                }
                if has_remind_at:
                    row["remind_at"] = deadline - timedelta(hours=24) if status == "open" else None
                rows[Round].append(row)
            for seat in (1, 2, 3):
                rows[Seat].append(
                    {
                        "match_id": match_id,
                        "seat": seat,
                        "name": f"P{seat}",
                        "garnets": 0,
                        "data": {},
                        "token_hash": secrets.token_hex(32),
                    }
                )
                rows[Contact].append(
                    {
                        "match_id": match_id,
                        "seat": seat,
                        "email": f"p{seat}@bench.invalid",
                        "unsubscribe_key": secrets.token_hex(20),
                        "unsubscribed": False,
                        "updated_at": now,
                    }
                )
            for event in ("round_closed", "round_opened"):
                rows[Message].append(
                    {
                        "match_id": match_id,
                        "channel": "email",
                        "event": event,
                        "seat": 1,
                        "recipient": "p1@bench.invalid",
                        "subject": event,
                        "body": "",
                        "message_id": secrets.token_hex(16),
                        "dedup_key": None,
                        "status": "sent",
                        "attempts": 1,
                        "due_at": now - timedelta(days=1),
                        "created_at": now - timedelta(days=1),
                        "sent_at": now - timedelta(days=1),
                    }
                )
        with transaction(engine) as session:
            for table, values in rows.items():
                session.execute(insert(table), values)


def sweep_bench(
    database_url: str | None = None, sizes: tuple[int, ...] = SWEEP_SIZES, repeats: int = 7
) -> dict[str, Any]:
    """``sweep_ms_<N>``: the median of ``repeats`` sweeps (``notify_once``: close
    due rounds, queue reminders, deliver the outbox; mail enabled) with nothing
    due, among N live matches (:func:`fill_live`), on a temporary SQLite database
    or on ``database_url`` (PostgreSQL: its tables are dropped first and after)."""
    from sqlmodel import SQLModel

    from referee.notify.background import notify_once
    from referee.notify.config import NotifyConfig

    out: dict[str, Any] = {}
    config = NotifyConfig(smtp_url="smtp://127.0.0.1:9", mail_from="bench@bench.invalid")
    for size in sizes:
        with tempfile.TemporaryDirectory(prefix="referee-bench-") as folder:
            url = database_url or f"sqlite:///{Path(folder) / 'referee.db'}"
            engine = make_engine(url)
            if database_url:
                with engine.begin() as conn:
                    SQLModel.metadata.drop_all(conn)
                    conn.exec_driver_sql("DROP TABLE IF EXISTS alembic_version")
            migrate(engine)
            fill_live(engine, size)
            if engine.dialect.name == "postgresql":
                with engine.begin() as conn:
                    conn.exec_driver_sql("ANALYZE")
            svc = Referee(engine, notify=config)
            times = []
            for _ in range(repeats + 1):
                start = time.perf_counter()
                line = notify_once(svc)
                times.append(time.perf_counter() - start)
                if line is not None:
                    raise RuntimeError(f"the sweep found work: {line}")
            out[f"sweep_ms_{size}"] = round(statistics.median(times[1:]) * 1000, 2)
            if database_url:
                with engine.begin() as conn:
                    SQLModel.metadata.drop_all(conn)
                    conn.exec_driver_sql("DROP TABLE IF EXISTS alembic_version")
            engine.dispose()
    return out
