"""The load test's verdict: what the swarm recorded, compared with the database
and the API once every round has closed. Nothing here imports locust."""

from __future__ import annotations

import json
import statistics
import urllib.error
import urllib.request
from collections import Counter, defaultdict
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from sqlalchemy import Engine
from sqlmodel import Session, col, select

from referee.models import Order, Round
from referee.service import Referee

CREATE = "POST /api/matches"
OPEN = "POST /api/matches/[id]/rounds/open"
PUT = "PUT /api/matches/[id]/orders"
SEATS = (1, 2, 3)

INVARIANTS = {
    "no_5xx": "no request got a 5xx answer or lost its connection",
    "only_expected_answers": "create 201, open 200, order 200 or 409 round/closed; nothing else",
    "every_round_closed_once": "each match has exactly one round 1, closed, with a result",
    "closed_not_before_deadline": "no round closed by deadline before its deadline",
    "last_accepted_is_used": "the stored order's receipt is the seat's last accepted receipt",
    "no_order_lost_or_duplicated": "a stored order iff one was accepted; revision == accepted",
    "defaulted_are_seats_without_order": "the result's defaulted seats == seats never accepted",
    "no_order_accepted_after_close": "every accepted order was sent before the round closed",
    "no_refusal_while_open": "no 409 round/closed answered before the round's deadline "
    "(or, for a round the host closed, before it closed)",
    "results_re_resolve": "Referee.recheck finds no difference for any match",
    "api_agrees": "the API shows every round closed, its submitters and each seat's receipt",
}


class Verdict:
    def __init__(self) -> None:
        self.invariants = dict.fromkeys(INVARIANTS, True)
        self.violations: list[str] = []
        self.counts: Counter[str] = Counter()

    def fail(self, name: str, message: str) -> None:
        self.invariants[name] = False
        self.counts[name] += 1
        if self.counts[name] <= 5:
            self.violations.append(f"{name}: {message}")


def percentiles(values: Iterable[float]) -> dict[str, float]:
    data = sorted(values)
    if not data:
        return {"p50_ms": 0.0, "p95_ms": 0.0, "p99_ms": 0.0, "max_ms": 0.0}

    def at(q: float) -> float:
        return round(data[min(len(data) - 1, int(q * len(data)))] * 1000, 1)

    return {
        "p50_ms": round(statistics.median(data) * 1000, 1),
        "p95_ms": at(0.95),
        "p99_ms": at(0.99),
        "max_ms": round(data[-1] * 1000, 1),
    }


def figures(data: dict[str, Any]) -> dict[str, Any]:
    """Throughput and latency of what the swarm sent."""
    reqs = data["requests"]
    duration = max(1e-9, data["ended"] - data["started"])
    by_name: dict[str, Any] = {}
    for name in (CREATE, OPEN, PUT):
        mine = [r for r in reqs if r["name"] == name]
        entry: dict[str, Any] = {
            "requests": len(mine),
            **percentiles(r["t1"] - r["t0"] for r in mine),
        }
        if mine:
            span = max(r["t1"] for r in mine) - min(r["t0"] for r in mine)
            entry["rps"] = round(len(mine) / max(span, 1e-9), 1)
        by_name[name] = entry
    puts = [r for r in reqs if r["name"] == PUT]
    return {
        "duration_s": round(duration, 2),
        "requests": len(reqs),
        "throughput_rps": round(len(reqs) / duration, 1),
        "latency": percentiles(r["t1"] - r["t0"] for r in reqs),
        "by_endpoint": by_name,
        "statuses": dict(sorted(Counter(str(r["status"]) for r in reqs).items())),
        "orders": {
            "sent": len(puts),
            "accepted": sum(r["status"] == 200 for r in puts),
            "refused_round_closed": sum(r["code"] == "round/closed" for r in puts),
        },
    }


def _expected(r: dict[str, Any]) -> bool:
    if r["name"] == CREATE:
        return bool(r["status"] == 201)
    if r["name"] == OPEN:
        return bool(r["status"] == 200)
    return bool(r["status"] == 200 or (r["status"] == 409 and r["code"] == "round/closed"))


def _get(url: str, token: str | None = None) -> tuple[int, Any]:
    req = urllib.request.Request(url)
    if token:
        req.add_header("Authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(req, timeout=60) as resp:
            return int(resp.status), json.loads(resp.read())
    except urllib.error.HTTPError as exc:
        return exc.code, None


def verify(engine: Engine, url: str | None, data: dict[str, Any]) -> dict[str, Any]:
    """Check every invariant of :data:`INVARIANTS`; the verdict as a dict."""
    v = Verdict()
    reqs: list[dict[str, Any]] = data["requests"]
    for r in reqs:
        if r["status"] >= 500 or r["status"] == 0:
            v.fail("no_5xx", f"{r['name']} got {r['status']}: {r.get('body', '')}")
        if not _expected(r):
            v.fail("only_expected_answers", f"{r['name']} got {r['status']} {r['code']}")
    matches = {m["id"]: m for m in data["matches"]}
    accepted: dict[tuple[str, int], list[dict[str, Any]]] = defaultdict(list)
    refused: dict[tuple[str, int], list[dict[str, Any]]] = defaultdict(list)
    for r in reqs:
        if r["name"] != PUT:
            continue
        if r["status"] == 200:
            accepted[(r["match"], r["seat"])].append(r)
        elif r["code"] == "round/closed":
            refused[(r["match"], r["seat"])].append(r)

    ids = list(matches)
    with Session(engine) as session:
        rounds: dict[str, list[Round]] = defaultdict(list)
        orders: dict[tuple[str, int], list[Order]] = defaultdict(list)
        for chunk in _chunks(ids, 500):
            for rnd in session.exec(select(Round).where(col(Round.match_id).in_(chunk))):
                rounds[rnd.match_id].append(rnd)
            for order in session.exec(select(Order).where(col(Order.match_id).in_(chunk))):
                orders[(order.match_id, order.seat)].append(order)
    landed_after_deadline = 0
    for mid, m in matches.items():
        stored = rounds.get(mid, [])
        if len(stored) != 1 or stored[0].status != "closed" or stored[0].result is None:
            v.fail("every_round_closed_once", f"match {mid}: rounds {[r.status for r in stored]}")
            continue
        rnd = stored[0]
        assert rnd.closed_at is not None and rnd.result is not None
        closed_at = rnd.closed_at.timestamp()
        deadline = m["deadline"]  # None: closed by the host
        # the round was closed by then: for a deadline, the closing request's clock
        # (an order is only accepted by a request that found the deadline ahead);
        # for the host, when the client had the host's answer
        closed_by = closed_at if deadline is not None else m["closed_known_at"]
        if deadline is not None and closed_at < deadline:
            v.fail(
                "closed_not_before_deadline",
                f"match {mid} closed {m['deadline'] - closed_at}s early",
            )
        for seat in SEATS:
            acc = sorted(accepted[(mid, seat)], key=lambda r: r["t0"])
            rows = orders[(mid, seat)]
            if len(rows) > 1 or any(o.round_number != 1 for o in rows):
                v.fail("no_order_lost_or_duplicated", f"match {mid} seat {seat}: {len(rows)} rows")
                continue
            row = rows[0] if rows else None
            if not acc and row is not None:
                v.fail(
                    "no_order_lost_or_duplicated", f"match {mid} seat {seat}: stored, never sent"
                )
            if acc and row is None:
                v.fail("no_order_lost_or_duplicated", f"match {mid} seat {seat}: accepted, lost")
            if acc and row is not None:
                if row.receipt != acc[-1]["receipt"]:
                    v.fail("last_accepted_is_used", f"match {mid} seat {seat}")
                if row.revision != len(acc) or len({a["receipt"] for a in acc}) != len(acc):
                    v.fail(
                        "no_order_lost_or_duplicated",
                        f"match {mid} seat {seat}: revision {row.revision}, accepted {len(acc)}",
                    )
            for a in acc:
                if a["t0"] > closed_by:
                    v.fail(
                        "no_order_accepted_after_close",
                        f"match {mid} seat {seat}: sent {a['t0'] - closed_by:.3f}s after close",
                    )
                if deadline is not None and a["t1"] > deadline:
                    landed_after_deadline += 1
            for r in refused[(mid, seat)]:
                if r["t1"] < (closed_at if deadline is None else deadline):
                    v.fail("no_refusal_while_open", f"match {mid} seat {seat}")
        defaulted = {d["seat"] for d in rnd.result.get("defaulted", [])}
        expected = {s for s in SEATS if not accepted[(mid, s)]}
        if defaulted != expected:
            v.fail(
                "defaulted_are_seats_without_order",
                f"match {mid}: defaulted {sorted(defaulted)}, expected {sorted(expected)}",
            )

    svc = Referee(engine)
    for mid in ids:
        differences = svc.recheck(mid)
        if differences:
            v.fail("results_re_resolve", f"match {mid}: {differences[0]}")

    if url is not None:
        _check_api(v, url, matches, accepted)
    else:
        v.invariants.pop("api_agrees")

    return {
        "invariants": v.invariants,
        "violations": v.violations,
        "violation_counts": dict(v.counts),
        "orders_accepted_while_the_close_was_due": landed_after_deadline,
        "ok": all(v.invariants.values()),
    }


def _check_api(
    v: Verdict,
    url: str,
    matches: dict[str, dict[str, Any]],
    accepted: dict[tuple[str, int], list[dict[str, Any]]],
) -> None:
    def one_match(mid: str) -> list[str]:
        problems = []
        status, view = _get(f"{url}/api/matches/{mid}")
        if status != 200:
            return [f"match {mid}: public view {status}"]
        first = view["rounds"][0]
        with_orders = sorted(s for s in SEATS if accepted[(mid, s)])
        if first["status"] != "closed" or first["submitted"] != with_orders:
            problems.append(f"match {mid}: round 1 {first['status']}, {first['submitted']}")
        for seat, token in matches[mid]["tokens"].items():
            status, mine = _get(f"{url}/api/matches/{mid}/me", token)
            if status != 200:
                problems.append(f"match {mid} seat {seat}: /me {status}")
                continue
            acc = sorted(accepted[(mid, int(seat))], key=lambda r: r["t0"])
            shown = mine["orders"].get("1", {}).get(str(seat))
            if (shown is None) != (not acc) or (
                shown is not None
                and (shown["receipt"] != acc[-1]["receipt"] or shown["revision"] != len(acc))
            ):
                problems.append(f"match {mid} seat {seat}: /me shows {shown and shown['receipt']}")
        return problems

    with ThreadPoolExecutor(max_workers=4) as pool:
        for problems in pool.map(one_match, list(matches)):
            for problem in problems:
                v.fail("api_agrees", problem)


def _chunks(items: list[str], size: int) -> Iterable[list[str]]:
    for i in range(0, len(items), size):
        yield items[i : i + size]
