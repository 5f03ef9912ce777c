"""The locust side of the load test (run as ``python -m referee.loadtest.swarm``
by :mod:`referee.loadtest`, in its own process: importing locust monkey-patches
the standard library with gevent).

Creators make matches through the API (``POST /api/matches``) and open their
first round (the draft) with an explicit deadline a few seconds ahead
(``POST rounds/open {"deadline": ...}``). Players hammer ``PUT /orders``
with ever new draft orders from ``window`` seconds before a match's deadline
until ``after`` seconds past it, so orders race the close: a request that
arrives after the deadline closes the round itself (every request looks at its
match) and is refused with 409 ``round/closed``. A few seats never send an
order, so their orders are defaulted.

Each seat is used by one locust user at a time, so its accepted responses
have an order and the last one is well defined. Every request is recorded
(client send and receive times, status, error code, receipt) and written as
JSON for :mod:`referee.loadtest.checks`.
"""

from __future__ import annotations

import json
import random
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import click
from locust import FastHttpUser, constant, task
from locust.env import Environment
from locust.exception import StopUser

from referee.rulesets.rocky_river.data import load_deck

PLAYERS = [
    {"seat": 1, "name": "Ana", "garnets": 7},
    {"seat": 2, "name": "Bo", "garnets": 5},
    {"seat": 3, "name": "Cy", "garnets": 5},
]
SEATS = (1, 2, 3)
CREATE = "POST /api/matches"
OPEN = "POST /api/matches/[id]/rounds/open"
PUT = "PUT /api/matches/[id]/orders"


def iso(ts: float) -> str:
    return datetime.fromtimestamp(ts, UTC).isoformat(timespec="microseconds").replace("+00:00", "Z")


def parse_iso(text: str) -> float:
    return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


@dataclass
class Match:
    id: str
    host_token: str
    tokens: dict[int, str]
    deadline: float  # as stored by the server, epoch seconds
    absent: set[int]
    stop: float  # its players send nothing after this (epoch seconds)


@dataclass
class Plan:
    matches: int
    creators: int
    deadline_seconds: float
    spread: float
    window: float
    after: float
    absent_fraction: float
    quiet_fraction: float
    seed: int
    created: list[Match] = field(default_factory=list)
    to_create: int = 0
    pending: int = 0  # matches being created right now
    users: int = 0
    busy: set[tuple[str, int]] = field(default_factory=set)
    requests: list[dict[str, Any]] = field(default_factory=list)
    started: float = 0.0
    rng: random.Random = field(default_factory=random.Random)
    cards: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.to_create = self.matches
        self.rng = random.Random(self.seed)
        self.cards = list(load_deck().ids)

    def creating(self) -> bool:
        return self.to_create > 0

    def done(self) -> bool:
        if self.creating() or self.pending:
            return False
        last = max((m.deadline for m in self.created), default=0.0)
        return time.time() > last + self.after

    def pick(self) -> tuple[Match, int] | None:
        """A seat near its match's deadline that no other user is sending for."""
        now = time.time()
        hot = [
            (m, s)
            for m in self.created
            if m.deadline - self.window <= now <= m.stop
            for s in SEATS
            if s not in m.absent and (m.id, s) not in self.busy
        ]
        return self.rng.choice(hot) if hot else None

    def draft(self) -> list[str]:
        cards = list(self.cards)
        self.rng.shuffle(cards)
        return cards


PLAN: Plan | None = None


def plan() -> Plan:
    assert PLAN is not None
    return PLAN


class Player(FastHttpUser):
    wait_time = constant(0)
    network_timeout = 120.0
    connection_timeout = 120.0

    def on_start(self) -> None:
        p = plan()
        self.index = p.users
        p.users += 1

    def _record(
        self, name: str, t0: float, t1: float, resp: Any, **extra: Any
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        """Record one request; (the record, the answer's JSON object or {})."""
        code = None
        body: Any = None
        try:
            body = resp.json()
        except Exception:  # not JSON (a proxy's or gunicorn's own error page)
            body = None
        if isinstance(body, dict) and body.get("errors"):
            code = body["errors"][0].get("code")
        entry = {
            "name": name,
            "t0": t0,
            "t1": t1,
            "status": int(resp.status_code or 0),
            "code": code,
            **extra,
        }
        if entry["status"] >= 500 or entry["status"] == 0:
            entry["body"] = (resp.text or "")[:300] if resp.text is not None else str(resp.error)
        plan().requests.append(entry)
        return entry, body if isinstance(body, dict) else {}

    @task
    def step(self) -> None:
        p = plan()
        if p.creating() and self.index < p.creators:
            number = p.matches - p.to_create
            p.to_create -= 1
            p.pending += 1
            try:
                self.create_match(number)
            finally:
                p.pending -= 1
            return
        picked = p.pick()
        if picked is None:
            if p.done():
                raise StopUser()
            time.sleep(0.02)  # cooperative: locust monkey-patched time with gevent
            return
        match, seat = picked
        p.busy.add((match.id, seat))
        try:
            self.submit(match, seat)
        finally:
            p.busy.discard((match.id, seat))

    def create_match(self, number: int) -> None:
        p = plan()
        body = {
            "name": f"load test {number}",
            "map": "three-rapids",
            "players": PLAYERS,
            "settings": {"deadline_hours": 0},
        }
        t0 = time.time()
        with self.client.post("/api/matches", json=body, name=CREATE, catch_response=True) as r:
            _, created = self._record(CREATE, t0, time.time(), r)
            if r.status_code != 201:
                r.failure(f"status {r.status_code}")
                return
        match_id = created["id"]
        host = {"Authorization": f"Bearer {created['host_token']}"}
        # deadlines spread evenly over `spread` seconds, the first `deadline_seconds`
        # after the start, so a steady stream of rounds reaches its last seconds
        ahead = p.started + p.deadline_seconds + p.spread * number / p.matches - time.time()
        t0 = time.time()
        with self.client.post(
            f"/api/matches/{match_id}/rounds/open",
            json={"deadline": iso(t0 + max(ahead, 1.0))},
            headers=host,
            name=OPEN,
            catch_response=True,
        ) as r:
            _, view = self._record(OPEN, t0, time.time(), r, match=match_id)
            if r.status_code != 200:
                r.failure(f"status {r.status_code}")
                return
        absent = {s for s in SEATS if p.rng.random() < p.absent_fraction}
        deadline = parse_iso(view["rounds"][0]["deadline"])
        # a quiet match gets no request after its deadline: `referee close-due` closes it
        quiet = p.rng.random() < p.quiet_fraction
        p.created.append(
            Match(
                id=match_id,
                host_token=created["host_token"],
                tokens={int(s): t for s, t in created["player_tokens"].items()},
                deadline=deadline,
                absent=absent,
                stop=deadline - 0.5 if quiet else deadline + p.after,
            )
        )

    def submit(self, match: Match, seat: int) -> None:
        headers = {"Authorization": f"Bearer {match.tokens[seat]}"}
        body = {"draft": plan().draft()}
        t0 = time.time()
        with self.client.put(
            f"/api/matches/{match.id}/orders",
            json=body,
            headers=headers,
            name=PUT,
            catch_response=True,
        ) as r:
            entry, answer = self._record(PUT, t0, time.time(), r, match=match.id, seat=seat)
            if r.status_code == 200:
                entry["receipt"] = answer.get("receipt")
            elif r.status_code == 409 and entry["code"] == "round/closed":
                r.success()  # the right answer once the round has closed
            else:
                r.failure(f"status {r.status_code}")


def run(url: str, p: Plan, users: int, timeout: float) -> dict[str, Any]:
    global PLAN
    PLAN = p
    env = Environment(user_classes=[Player], host=url)
    runner = env.create_local_runner()
    p.started = time.time()
    runner.start(user_count=users, spawn_rate=users)
    stop_at = time.monotonic() + timeout
    while not p.done() and time.monotonic() < stop_at:
        time.sleep(0.1)
    runner.quit()
    ended = time.time()
    total = env.stats.total
    return {
        "started": p.started,
        "ended": ended,
        "timed_out": not p.done(),
        "matches": [
            {
                "id": m.id,
                "host_token": m.host_token,
                "tokens": {str(s): t for s, t in m.tokens.items()},
                "deadline": m.deadline,
                "absent": sorted(m.absent),
                "quiet": m.stop < m.deadline,
            }
            for m in p.created
        ],
        "requests": p.requests,
        "locust": {
            "requests": total.num_requests,
            "failures": total.num_failures,
            "p50_ms": total.get_response_time_percentile(0.5),
            "p95_ms": total.get_response_time_percentile(0.95),
            "p99_ms": total.get_response_time_percentile(0.99),
        },
    }


@click.command()
@click.option("--url", required=True, help="The server's base URL (127.0.0.1 only).")
@click.option("--matches", default=300, show_default=True, type=click.IntRange(1))
@click.option("--users", default=48, show_default=True, type=click.IntRange(2))
@click.option("--deadline-seconds", default=8.0, show_default=True, type=float)
@click.option("--spread", default=None, type=float, help="Default: matches / 15 seconds.")
@click.option("--window", default=4.0, show_default=True, type=float)
@click.option("--after", default=1.5, show_default=True, type=float)
@click.option("--absent", "absent_fraction", default=0.05, show_default=True, type=float)
@click.option("--quiet", "quiet_fraction", default=0.1, show_default=True, type=float)
@click.option("--seed", default=1, show_default=True, type=int)
@click.option("--timeout", default=900.0, show_default=True, type=float)
@click.option("--out", required=True, type=click.Path(dir_okay=False))
def main(
    url: str,
    matches: int,
    users: int,
    deadline_seconds: float,
    spread: float | None,
    window: float,
    after: float,
    absent_fraction: float,
    quiet_fraction: float,
    seed: int,
    timeout: float,
    out: str,
) -> None:
    """Run the swarm against URL and write every request to OUT (JSON)."""
    if not url.startswith(("http://127.", "http://localhost")):
        raise click.UsageError("the load test only targets a server on this machine")
    p = Plan(
        matches=matches,
        creators=max(1, users // 4),
        deadline_seconds=deadline_seconds,
        spread=matches / 15 if spread is None else spread,
        window=window,
        after=after,
        absent_fraction=absent_fraction,
        quiet_fraction=quiet_fraction,
        seed=seed,
    )
    Path(out).write_text(json.dumps(run(url, p, users, timeout)))


if __name__ == "__main__":
    main()
