"""The load test: ``python -m referee.loadtest`` (see BENCHMARKS.md).

It starts a real ``referee serve`` (gunicorn, several workers) on 127.0.0.1,
runs a locust swarm against it (:mod:`referee.loadtest.swarm`, in its own
process), closes what is left with ``referee close-due``, then checks every
invariant of :data:`referee.loadtest.checks.INVARIANTS` from the database and
the API and prints a JSON summary (exit 1 when an invariant broke).
"""
