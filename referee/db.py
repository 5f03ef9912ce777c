"""Database engine and migrations.

SQLite is the embedded default; PostgreSQL is the scale-out path. Every state
change runs in :func:`transaction`, which takes the database's write lock for
the match first (``BEGIN IMMEDIATE`` on SQLite, ``SELECT ... FOR UPDATE`` on
PostgreSQL, see ``referee.service``), so concurrent requests, hosts and
``close-due`` processes on several machines serialise per match.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from alembic import command
from alembic.config import Config
from sqlalchemy import Engine, event
from sqlalchemy.engine import make_url
from sqlmodel import Session, create_engine

MIGRATIONS = Path(__file__).resolve().parent / "migrations"
DEFAULT_URL = "sqlite:///instance/referee.db"


def database_url() -> str:
    return os.environ.get("REFEREE_DATABASE_URL", DEFAULT_URL)


def make_engine(url: str, **kwargs: Any) -> Engine:
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite":
        if parsed.database and parsed.database != ":memory:":
            Path(parsed.database).parent.mkdir(parents=True, exist_ok=True)
        engine = create_engine(
            url, connect_args={"check_same_thread": False, "timeout": 30}, **kwargs
        )
        _sqlite_transactions(engine)
        return engine
    return create_engine(url, pool_pre_ping=True, **kwargs)


def _sqlite_transactions(engine: Engine) -> None:
    """Let SQLAlchemy, not pysqlite, start transactions, and take the write lock
    at the start (``BEGIN IMMEDIATE``) so a read-then-write cannot interleave."""

    @event.listens_for(engine, "connect")
    def _connect(dbapi_conn: Any, _record: Any) -> None:
        dbapi_conn.isolation_level = None
        cur = dbapi_conn.cursor()
        cur.execute("PRAGMA foreign_keys=ON")
        cur.execute("PRAGMA busy_timeout=30000")
        cur.execute("PRAGMA journal_mode=WAL")
        cur.execute("PRAGMA synchronous=NORMAL")
        cur.close()

    @event.listens_for(engine, "begin")
    def _begin(conn: Any) -> None:
        # reads (see read()) take no lock; a write takes the write lock at once
        options = conn.get_execution_options()
        if options.get("referee_single_read"):
            return  # one SELECT: SQLite runs it as its own transaction
        conn.exec_driver_sql("BEGIN" if options.get("referee_readonly") else "BEGIN IMMEDIATE")


def is_postgres(engine: Engine) -> bool:
    return engine.dialect.name == "postgresql"


def alembic_config(engine: Engine) -> Config:
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    cfg.attributes["engine"] = engine
    return cfg


def migrate(engine: Engine) -> None:
    """Bring the database schema up to date (creates it when empty)."""
    command.upgrade(alembic_config(engine), "head")


@contextmanager
def transaction(engine: Engine) -> Iterator[Session]:
    """One unit of work: committed when the block ends, rolled back on error."""
    with Session(engine, expire_on_commit=False) as session, session.begin():
        yield session


@contextmanager
def read(engine: Engine) -> Iterator[Session]:
    """A consistent read that changes nothing; on SQLite it takes no write lock,
    so pages and API reads never queue behind (or block) the writers."""
    readonly = engine.execution_options(referee_readonly=True)
    with Session(readonly, expire_on_commit=False) as session, session.begin():
        yield session
