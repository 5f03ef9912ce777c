"""Fixtures for tests that need a database: each runs on SQLite and on PostgreSQL.

PostgreSQL is reached at REFEREE_TEST_POSTGRES_URL (default: the local server at
127.0.0.1:5432, user postgres, database test). Each test gets a fresh schema
there, dropped afterwards. When no PostgreSQL server answers, the PostgreSQL
variant of each test is skipped with a message saying so; the SQLite variant
always runs. CI sets REFEREE_REQUIRE_POSTGRES=1, which turns that skip into a
failure, so a CI run can never pass without having tested PostgreSQL.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient, FlaskCliRunner
from sqlalchemy import Engine, create_engine, text

from referee.db import make_engine, migrate
from referee.service import Referee
from referee.web import create_app

POSTGRES_URL = os.environ.get(
    "REFEREE_TEST_POSTGRES_URL", "postgresql+psycopg://postgres@127.0.0.1:5432/test"
)
_pg_error: str | None = None
_pg_checked = False


def _postgres_available() -> str | None:
    """None when PostgreSQL answers, else why not."""
    global _pg_error, _pg_checked
    if not _pg_checked:
        _pg_checked = True
        try:
            probe = create_engine(POSTGRES_URL, connect_args={"connect_timeout": 3})
            with probe.connect() as conn:
                conn.execute(text("select 1"))
            probe.dispose()
        except Exception as exc:  # any failure to connect means: not reachable
            _pg_error = f"{type(exc).__name__}: {str(exc).splitlines()[0]}"
    return _pg_error


def postgres_schema() -> tuple[str, str]:
    """A fresh schema in the test PostgreSQL database: (its name, a URL using it).
    Skips the test when no server answers (fails under REFEREE_REQUIRE_POSTGRES)."""
    error = _postgres_available()
    if error is not None:
        message = f"no PostgreSQL server reachable at {POSTGRES_URL} ({error})"
        if os.environ.get("REFEREE_REQUIRE_POSTGRES"):
            pytest.fail(message + "; REFEREE_REQUIRE_POSTGRES is set, so this is a failure")
        pytest.skip(message)
    schema = f"t_{secrets.token_hex(6)}"
    admin = create_engine(POSTGRES_URL)
    with admin.begin() as conn:
        conn.execute(text(f'CREATE SCHEMA "{schema}"'))
    admin.dispose()
    sep = "&" if "?" in POSTGRES_URL else "?"
    return schema, f"{POSTGRES_URL}{sep}options=-csearch_path%3D{schema}"


def drop_schemas(schemas: list[str]) -> None:
    if not schemas:
        return
    admin = create_engine(POSTGRES_URL)
    with admin.begin() as conn:
        for schema in schemas:
            conn.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
    admin.dispose()


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    if request.param == "sqlite":
        yield f"sqlite:///{tmp_path / 'referee.db'}"
        return
    schema, url = postgres_schema()
    yield url
    drop_schemas([schema])


@pytest.fixture
def engine(db_url: str) -> Iterator[Engine]:
    eng = make_engine(db_url)
    migrate(eng)
    yield eng
    eng.dispose()


@pytest.fixture
def svc(engine: Engine) -> Referee:
    return Referee(engine)


def make_app(db_url: str, **config: Any) -> Iterator[Flask]:
    """The app of the tests on ``db_url`` (with ``config`` on top), disposed after."""
    application = create_app(
        {"TESTING": True, "DATABASE_URL": db_url, "SECRET_KEY": "test-secret", **config}
    )
    yield application
    application.extensions["referee"].engine.dispose()


AppMaker = Callable[..., Flask]


@pytest.fixture
def app_maker(db_url: str) -> Iterator[Callable[[dict[str, Any]], AppMaker]]:
    """Apps on the test's database, several per test: ``app_maker(defaults)``
    gives a maker of apps with ``defaults`` and then its own ``**config`` on
    top (a setting given as None is left out); every app is disposed after."""
    made: list[Flask] = []

    def with_defaults(defaults: dict[str, Any]) -> AppMaker:
        def make(**config: Any) -> Flask:
            settings = {
                "TESTING": True,
                "DATABASE_URL": db_url,
                "SECRET_KEY": "test-secret",
                **defaults,
                **config,
            }
            made.append(create_app({k: v for k, v in settings.items() if v is not None}))
            return made[-1]

        return make

    yield with_defaults
    for application in made:
        application.extensions["referee"].engine.dispose()


@pytest.fixture
def app(db_url: str, tmp_path: Path) -> Iterator[Flask]:
    yield from make_app(db_url)


@pytest.fixture
def client(app: Flask) -> FlaskClient:
    return app.test_client()


@pytest.fixture
def web(app: Flask) -> FlaskClient:
    """A test client without CSRF tokens, as the games' page tests post forms
    (tests/service/test_security.py checks CSRF with the plain ``client``)."""
    app.config["WTF_CSRF_ENABLED"] = False
    return app.test_client()


@pytest.fixture
def runner(app: Flask) -> FlaskCliRunner:
    return app.test_cli_runner()


class Clock:
    """A service clock that tests move (``advance(hours=1)``)."""

    def __init__(self) -> None:
        self.now = datetime(2026, 11, 1, 12, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **kwargs: Any) -> None:
        self.now += timedelta(**kwargs)


PLAYERS: list[dict[str, Any]] = [
    {"seat": 1, "name": "Ana", "garnets": 7},
    {"seat": 2, "name": "Bo", "garnets": 5},
    {"seat": 3, "name": "Cy", "garnets": 5},
]
