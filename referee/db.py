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

import platformdirs
from alembic import command
from alembic.config import Config
from sqlalchemy import Engine, event
from sqlalchemy.engine import make_url
from sqlmodel import Session, create_engine

MIGRATIONS = Path(__file__).resolve().parent / "migrations"
APP_NAME = "referee"
DATABASE_FILE = "referee.db"
# the default before issue 23: relative to the folder a command ran in, so
# `referee demo` in one folder and `referee serve` in another used two databases
OLD_INSTANCE = Path("instance")


def data_dir() -> Path:
    """The folder of the default database and of the server's secret key: the
    user's data folder (platformdirs: ``$XDG_DATA_HOME/referee``, by default
    ``~/.local/share/referee`` on Linux), the same wherever a command runs."""
    return platformdirs.user_data_path(APP_NAME)


def default_url() -> str:
    return f"sqlite:///{data_dir() / DATABASE_FILE}"


def database_url() -> str:
    """REFEREE_DATABASE_URL, or the SQLite file in :func:`data_dir`."""
    return os.environ.get("REFEREE_DATABASE_URL") or default_url()


def shown_url(url: str) -> str:
    """``url`` as a command prints it: without its password."""
    return make_url(url).render_as_string(hide_password=True)


def old_instance_note() -> str | None:
    """What to say when the old default database (``./instance/referee.db``)
    is here but not used: REFEREE_DATABASE_URL is unset and the new default
    does not exist yet (this command is about to create an empty one), so the
    host learns where their matches went instead of finding them gone."""
    if os.environ.get("REFEREE_DATABASE_URL"):
        return None
    old, new = OLD_INSTANCE / DATABASE_FILE, data_dir() / DATABASE_FILE
    if not old.is_file() or new.exists() or old.resolve() == new.resolve():
        return None
    return (
        f"note: {old.resolve()}, the default database of earlier versions (in the folder "
        f"a command ran in), is not used: the default is now {new}, the same wherever a "
        f"command runs. To keep using it, set REFEREE_DATABASE_URL=sqlite:///{old.resolve()}; "
        f"or stop the server and move it there, over the empty database this command "
        f"starts: mkdir -p {new.parent} && mv {old}* {new.parent}/"
    )


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
