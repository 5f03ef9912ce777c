"""``referee bench``'s figures through a real ``referee serve`` on 127.0.0.1,
its clients threads in this process: order submissions against the home page
(:func:`server_bench`) and pages following matches live (:func:`pulse_bench`)."""

from __future__ import annotations

import http.client
import json
import statistics
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from referee.rulesets.rocky_river.data import load_deck

# ---- the server: order submissions against a trivial page --------------------


def _hammer(
    base: str,
    request: Callable[[int, int], tuple[str, str, bytes | None, dict[str, str]]],
    *,
    clients: int,
    seconds: float,
    expect: int = 200,
) -> dict[str, float]:
    """``clients`` threads sending ``request(client, n)`` to ``base`` in a closed
    loop for ``seconds``; requests per second, median latency, errors."""
    parsed = urlsplit(base)
    host, port = parsed.hostname or "127.0.0.1", parsed.port or 80
    stop = time.perf_counter() + seconds
    latencies: list[list[float]] = [[] for _ in range(clients)]
    errors = [0] * clients

    def client(i: int) -> None:
        n = 0
        while time.perf_counter() < stop:
            method, path, body, headers = request(i, n)
            n += 1
            start = time.perf_counter()
            conn = http.client.HTTPConnection(host, port, timeout=60)
            try:
                conn.request(method, path, body=body, headers=headers)
                resp = conn.getresponse()
                resp.read()
                if resp.status != expect:
                    errors[i] += 1
            except OSError:
                errors[i] += 1
            finally:
                conn.close()
            latencies[i].append(time.perf_counter() - start)

    begin = time.perf_counter()
    threads = [threading.Thread(target=client, args=(i,)) for i in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    elapsed = time.perf_counter() - begin
    done = [x for per in latencies for x in per]
    return {
        "rps": round(len(done) / elapsed, 1),
        "latency_ms_median": round(statistics.median(done) * 1000, 2) if done else 0.0,
        "errors": sum(errors),
    }


def server_bench(
    database_url: str | None = None,
    *,
    workers: int = 4,
    clients: int = 8,
    seconds: float = 5.0,
    matches: int = 8,
) -> dict[str, Any]:
    """``submit_rps``: draft orders accepted per second by a real ``referee serve``
    (``PUT /api/matches/<id>/orders``, seat tokens of ``matches`` matches, every
    request a new connection as gunicorn's sync workers close each one);
    ``baseline_rps``: ``GET /`` (the home page: a template, no database) of the
    same server, measured with the same clients in the same run."""
    from referee.loadtest.server import api, running_server

    with tempfile.TemporaryDirectory(prefix="referee-bench-") as folder:
        url = database_url or f"sqlite:///{Path(folder) / 'referee.db'}"
        with running_server(url, workers, log_path=Path(folder) / "server.log") as base:
            seats: list[tuple[str, str]] = []
            for i in range(matches):
                created = api(
                    base,
                    "POST",
                    "/api/matches",
                    {
                        "name": f"bench {i}",
                        "map": "three-rapids",
                        "players": BENCH_PLAYERS,
                        "settings": {"deadline_hours": 0},
                    },
                )
                api(
                    base,
                    "POST",
                    f"/api/matches/{created['id']}/rounds/open",
                    {},
                    created["host_token"],
                )
                seats += [(created["id"], t) for t in created["player_tokens"].values()]
            cards = list(load_deck().ids)
            bodies = [json.dumps({"draft": cards[k:] + cards[:k]}).encode() for k in range(8)]

            def submit(i: int, n: int) -> tuple[str, str, bytes | None, dict[str, str]]:
                match_id, token = seats[(i + n * clients) % len(seats)]
                headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json"}
                return "PUT", f"/api/matches/{match_id}/orders", bodies[n % len(bodies)], headers

            def home(_i: int, _n: int) -> tuple[str, str, bytes | None, dict[str, str]]:
                return "GET", "/", None, {}

            _hammer(base, home, clients=clients, seconds=min(1.0, seconds / 3))  # warm up
            _hammer(base, submit, clients=clients, seconds=min(1.0, seconds / 3))
            baseline = _hammer(base, home, clients=clients, seconds=seconds)
            submits = _hammer(base, submit, clients=clients, seconds=seconds)
    return {
        "server_workers": workers,
        "http_clients": clients,
        "submit_rps": submits["rps"],
        "submit_latency_ms_median": submits["latency_ms_median"],
        "submit_errors": int(submits["errors"]),
        "baseline_rps": baseline["rps"],
        "baseline_latency_ms_median": baseline["latency_ms_median"],
        "baseline_errors": int(baseline["errors"]),
        "submit_vs_baseline": round(submits["rps"] / max(baseline["rps"], 1e-9), 2),
    }


BENCH_PLAYERS: list[dict[str, Any]] = [
    {"seat": 1, "name": "Ana", "garnets": 7},
    {"seat": 2, "name": "Bo", "garnets": 5},
    {"seat": 3, "name": "Cy", "garnets": 5},
]


# ---- pages following matches live (issue 24) ------------------------------------


def pulse_bench(
    database_url: str | None = None,
    *,
    pages: int = 200,
    seconds: float = 20.0,
    every: float = 2.0,
    matches: int = 20,
) -> dict[str, Any]:
    """``pages`` open match pages polling their match's pulse every ``every``
    seconds (as static/live.js does while visible) against a real ``referee
    serve`` (one worker, 8 threads, its default), for ``seconds``: requests and
    bytes (status line, headers and body, as received) per page per minute,
    the server's answers per second and their latency (p50, p99) while a step
    opens in each match once a second (so some polls are 200s, most 304s);
    then ``pulse_max_rps``, the most pulses per second 16 clients in a closed
    loop get answered (304s)."""
    from referee.loadtest.server import api, running_server

    env = {"REFEREE_RATELIMIT_PULSE": "1000000 per minute"}
    with tempfile.TemporaryDirectory(prefix="referee-bench-") as folder:
        url = database_url or f"sqlite:///{Path(folder) / 'referee.db'}"
        with running_server(url, 1, log_path=Path(folder) / "server.log", env=env) as base:
            made = []
            for i in range(matches):
                body = {"name": f"live {i}", "map": "three-rapids", "players": BENCH_PLAYERS}
                created = api(base, "POST", "/api/matches", body)
                api(
                    base,
                    "POST",
                    f"/api/matches/{created['id']}/rounds/open",
                    {},
                    created["host_token"],
                )
                made.append(created)
            parsed = urlsplit(base)
            host, port = parsed.hostname or "127.0.0.1", parsed.port or 80
            stop = time.perf_counter() + seconds
            latencies: list[float] = []
            counts = {"requests": 0, "bytes": 0, "errors": 0, "changed": 0}
            lock = threading.Lock()

            def page(i: int) -> None:
                match_id = made[i % len(made)]["id"]
                etag = ""
                time.sleep(every * i / pages)  # pages opened over one interval
                while time.perf_counter() < stop:
                    began = time.perf_counter()
                    conn = http.client.HTTPConnection(host, port, timeout=60)
                    try:
                        conn.request(
                            "GET", f"/api/matches/{match_id}/pulse", headers={"If-None-Match": etag}
                        )
                        resp = conn.getresponse()
                        data = resp.read()
                        size = len(data) + sum(len(k) + len(v) + 4 for k, v in resp.getheaders())
                        size += len(f"HTTP/1.1 {resp.status} {resp.reason}\r\n\r\n")
                        ok = resp.status in (200, 304)
                        etag = resp.getheader("ETag") or etag
                    except OSError:
                        ok, size = False, 0
                    finally:
                        conn.close()
                    took = time.perf_counter() - began
                    with lock:
                        latencies.append(took)
                        counts["requests"] += 1
                        counts["bytes"] += size
                        counts["errors"] += 0 if ok else 1
                    time.sleep(max(0.0, every - took))

            def mover() -> None:  # a step somewhere every second: pages see news
                k = 0
                while time.perf_counter() < stop - 1:
                    m = made[k % len(made)]
                    path = f"/api/matches/{m['id']}/rounds/" + (
                        "close" if k // len(made) % 2 == 0 else "open"
                    )
                    api(base, "POST", path, {}, m["host_token"])
                    k += 1
                    time.sleep(1.0)

            threads = [threading.Thread(target=page, args=(i,)) for i in range(pages)]
            threads.append(threading.Thread(target=mover))
            begin = time.perf_counter()
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            elapsed = time.perf_counter() - begin
            first = made[0]["id"]
            most = _hammer(
                base,
                lambda _i, _n: (
                    "GET",
                    f"/api/matches/{first}/pulse",
                    None,
                    {"If-None-Match": etag_of(base, first)},
                ),
                clients=16,
                seconds=min(5.0, seconds / 2),
                expect=304,
            )
    latencies.sort()
    minutes = elapsed / 60
    return {
        "pulse_pages": pages,
        "pulse_requests_per_page_per_min": round(counts["requests"] / pages / minutes, 1),
        "pulse_bytes_per_page_per_min": round(counts["bytes"] / pages / minutes),
        "pulse_rps": round(counts["requests"] / elapsed, 1),
        "pulse_latency_ms_p50": round(latencies[len(latencies) // 2] * 1000, 2),
        "pulse_latency_ms_p99": round(latencies[int(len(latencies) * 0.99)] * 1000, 2),
        "pulse_errors": counts["errors"],
        "pulse_max_rps": most["rps"],
        "pulse_max_latency_ms_median": most["latency_ms_median"],
    }


_etags: dict[tuple[str, str], str] = {}


def etag_of(base: str, match_id: str) -> str:
    """The pulse's current ETag (looked up once per match and server)."""
    key = (base, match_id)
    if key not in _etags:
        parsed = urlsplit(base)
        conn = http.client.HTTPConnection(parsed.hostname or "127.0.0.1", parsed.port or 80)
        conn.request("GET", f"/api/matches/{match_id}/pulse")
        resp = conn.getresponse()
        resp.read()
        _etags[key] = resp.getheader("ETag") or ""
        conn.close()
    return _etags[key]
