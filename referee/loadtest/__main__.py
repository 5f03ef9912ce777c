"""``python -m referee.loadtest``: the load test, with a JSON summary."""

from __future__ import annotations

import json
import re
import secrets
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import click
from sqlalchemy import create_engine, text
from sqlalchemy.engine import make_url

from referee.db import make_engine
from referee.loadtest.checks import figures, verify
from referee.loadtest.server import referee_command, referee_env, running_server

CLOSED = re.compile(r"closed round (\d+) of match (\S+)")


@contextmanager
def fresh_schema(url: str, keep: bool) -> Iterator[str]:
    """A fresh PostgreSQL schema for this run (dropped afterwards unless ``keep``)."""
    schema = f"loadtest_{secrets.token_hex(4)}"
    admin = create_engine(url)
    with admin.begin() as conn:
        conn.execute(text(f'CREATE SCHEMA "{schema}"'))
    sep = "&" if "?" in url else "?"
    try:
        yield f"{url}{sep}options=-csearch_path%3D{schema}"
    finally:
        if not keep:
            with admin.begin() as conn:
                conn.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
        admin.dispose()


def run(
    url: str,
    workdir: Path,
    *,
    workers: int,
    swarm_args: list[str],
    timeout: float,
) -> dict[str, Any]:
    out = workdir / "swarm.json"
    log = workdir / "server.log"
    with running_server(url, workers, log_path=log) as base:
        subprocess.run(
            [
                sys.executable,
                *("-m", "referee.loadtest.swarm", "--url", base, "--out", str(out)),
                *swarm_args,
            ],
            check=True,
            timeout=timeout,
        )
        data = json.loads(out.read_text())
        closer = subprocess.run(
            [*referee_command(), "close-due"],
            env=referee_env(url),
            check=True,
            capture_output=True,
            text=True,
            timeout=600,
        )
        by_close_due = CLOSED.findall(closer.stdout)
        engine = make_engine(url)
        try:
            verdict = verify(engine, base, data)
        finally:
            engine.dispose()
    server_log = log.read_text(errors="replace")
    matches = len(data["matches"])
    return {
        "timed_out": data["timed_out"],
        "matches_created": matches,
        "rounds_closed_by_requests": matches - len(by_close_due),
        "rounds_closed_by_close_due": len(by_close_due),
        **figures(data),
        "locust": data["locust"],
        **verdict,
        "server_tracebacks": server_log.count("Traceback"),
    }


@click.command()
@click.option(
    "--database-url",
    default=None,
    help="Database to load (default: a new SQLite file in a temporary folder).",
)
@click.option("--matches", default=300, show_default=True, type=click.IntRange(1))
@click.option(
    "--workers", default=4, show_default=True, type=click.IntRange(1, 64), help="gunicorn workers."
)
@click.option(
    "--users", default=48, show_default=True, type=click.IntRange(2), help="locust users."
)
@click.option(
    "--deadline-seconds",
    default=8.0,
    show_default=True,
    help="Each match's round 1 deadline, seconds after it was created.",
)
@click.option(
    "--window", default=4.0, show_default=True, help="Orders start this long before a deadline."
)
@click.option("--after", default=1.5, show_default=True, help="...and go on this long after it.")
@click.option(
    "--absent", default=0.05, show_default=True, help="Fraction of seats that send no order."
)
@click.option(
    "--quiet",
    default=0.1,
    show_default=True,
    help="Fraction of matches that get no request after their deadline (close-due closes them).",
)
@click.option("--seed", default=1, show_default=True)
@click.option(
    "--scratch-schema/--no-scratch-schema",
    default=True,
    show_default=True,
    help="On PostgreSQL, run in a new schema of the database (dropped afterwards).",
)
@click.option("--keep", is_flag=True, help="Keep the scratch schema or SQLite folder.")
def main(
    database_url: str | None,
    matches: int,
    workers: int,
    users: int,
    deadline_seconds: float,
    window: float,
    after: float,
    absent: float,
    quiet: float,
    seed: int,
    scratch_schema: bool,
    keep: bool,
) -> None:
    """Load a real `referee serve` with locust: matches created through the API,
    orders replaced in the last seconds before each deadline; then check that
    every accepted order is the one used at the close, none lost or duplicated,
    no 500, none accepted after its round closed. Prints a JSON summary; exit 1
    when an invariant broke."""
    swarm_args = [
        f"--matches={matches}",
        f"--users={users}",
        f"--deadline-seconds={deadline_seconds}",
        f"--window={window}",
        f"--after={after}",
        f"--absent={absent}",
        f"--quiet={quiet}",
        f"--seed={seed}",
    ]
    timeout = 300 + matches * 2.0
    workdir = Path(tempfile.mkdtemp(prefix="referee-loadtest-"))
    url = database_url or f"sqlite:///{workdir / 'referee.db'}"
    backend = make_url(url).get_backend_name()
    started = time.time()
    if backend == "postgresql" and scratch_schema:
        with fresh_schema(url, keep) as scratch:
            result = run(scratch, workdir, workers=workers, swarm_args=swarm_args, timeout=timeout)
    else:
        result = run(url, workdir, workers=workers, swarm_args=swarm_args, timeout=timeout)
    summary = {
        "backend": backend,
        "server_workers": workers,
        "locust_users": users,
        "matches": matches,
        "deadline_seconds": deadline_seconds,
        "window_seconds": window,
        "after_seconds": after,
        "wall_seconds": round(time.time() - started, 1),
        **result,
    }
    if not keep:
        shutil.rmtree(workdir, ignore_errors=True)
    else:
        summary["workdir"] = str(workdir)
    click.echo(json.dumps(summary, indent=1))
    sys.exit(0 if summary["ok"] and not summary["timed_out"] else 1)


if __name__ == "__main__":
    main()
