"""The load test, bounded: `python -m referee.loadtest` with 30 matches against a
real `referee serve` (gunicorn, 2 workers) on each backend. Asserts the
invariants, not the speed (BENCHMARKS.md has the full run's figures)."""

from __future__ import annotations

import json
import subprocess
import sys

from referee.loadtest.checks import INVARIANTS


def test_orders_in_the_last_seconds_are_never_lost_or_late(db_url: str) -> None:
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "referee.loadtest",
            f"--database-url={db_url}",
            "--no-scratch-schema",  # db_url is a fresh schema already
            "--matches=30",
            "--workers=2",
            "--users=12",
            "--deadline-seconds=3",
            "--window=2.5",
            "--after=1",
            "--absent=0.1",
            "--quiet=0.2",
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.stdout, run.stderr
    summary = json.loads(run.stdout)
    assert summary["violations"] == [], summary["violations"]
    assert summary["invariants"] == dict.fromkeys(INVARIANTS, True)
    assert run.returncode == 0 and summary["ok"] and not summary["timed_out"]
    assert summary["matches_created"] == 30
    assert summary["statuses"].get("500") is None and summary["server_tracebacks"] == 0
    orders = summary["orders"]
    # the run did what it is for: replaced orders, and orders refused after the close
    assert orders["accepted"] > 60 and orders["refused_round_closed"] > 0
    assert summary["rounds_closed_by_requests"] > 0
