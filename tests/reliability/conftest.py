"""Reliability tests: a real server under load, concurrent and killed closes,
backup and restore. Each runs on SQLite and on PostgreSQL (the ``db_url``
fixture of tests/service, which honours REFEREE_REQUIRE_POSTGRES)."""

from __future__ import annotations

import json
import random
import subprocess
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from service.conftest import (  # the fixtures of tests/service, shared
    db_url,
    drop_schemas,
    engine,
    postgres_schema,
    svc,
)
from sqlalchemy import Engine

from referee.loadtest.server import referee_command, referee_env
from referee.rulesets.rocky_river.ruleset import DEMO_FILE
from referee.service import Referee

__all__ = ["db_url", "engine", "svc"]

DEMO: dict[str, Any] = json.loads(DEMO_FILE.read_text(encoding="utf-8"))
ROUNDS: list[dict[str, Any]] = [DEMO["draft"], DEMO["placements"], *DEMO["votes"]]


def run_referee(
    url: str, *args: str, env: dict[str, str] | None = None, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    """``referee ARGS`` in a subprocess with REFEREE_DATABASE_URL=url."""
    return subprocess.run(
        [*referee_command(), *args],
        env=referee_env(url, env),
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def start_referee(url: str, *args: str, env: dict[str, str] | None = None) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [*referee_command(), *args],
        env=referee_env(url, env),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def past_clock(hours: float = 2) -> Callable[[], datetime]:
    when = datetime.now(UTC) - timedelta(hours=hours)
    return lambda: when


def due_match(engine: Engine, rng: random.Random, round_number: int | None = None) -> str:
    """A demo match whose rounds before ``round_number`` (default: random) are
    closed and whose round ``round_number`` is open, its deadline passed, with
    the demo's orders of a random subset of its seats."""
    number = round_number or rng.randint(1, len(ROUNDS))
    then = Referee(engine, clock=past_clock())
    mid = then.create_match(
        name="due",
        setup={"map": DEMO["map"]},
        players=DEMO["players"],
        settings={"deadline_hours": 0},
    ).match_id
    for orders in ROUNDS[: number - 1]:
        then.open_round(mid)
        for seat, order in orders.items():
            then.submit_order(mid, int(seat), order)
        then.close_round(mid)
    then.open_round(mid, deadline=datetime.now(UTC) - timedelta(minutes=30))
    for seat, order in ROUNDS[number - 1].items():
        if rng.random() < 0.7:
            then.submit_order(mid, int(seat), order)
    return mid


def expected_close(engine: Engine, match_id: str) -> Any:
    """The result closing the match's open round gives (without closing it)."""
    return Referee(engine, clock=past_clock()).closing_result(match_id)


@pytest.fixture
def make_db(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Callable[[str], str]]:
    """Make another empty database: ``make_db("sqlite")`` or ``make_db("postgresql")``
    (a fresh schema, dropped afterwards)."""
    schemas: list[str] = []

    def make(kind: str) -> str:
        if kind == "sqlite":
            return f"sqlite:///{tmp_path_factory.mktemp('db') / 'referee.db'}"
        schema, url = postgres_schema()
        schemas.append(schema)
        return url

    yield make
    drop_schemas(schemas)
