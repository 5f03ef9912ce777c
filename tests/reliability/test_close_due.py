"""Concurrent closes: `referee close-due` in two processes at once, and orders
racing a host's close (twice at once) through a real `referee serve`."""

from __future__ import annotations

import random
import re
import threading
import time
from typing import Any

from sqlalchemy import Engine
from sqlmodel import Session, select

from referee.loadtest.checks import INVARIANTS, PUT, verify
from referee.loadtest.server import call_api, running_server
from referee.models import Match, Round
from referee.rulesets.rocky_river.data import load_deck
from referee.service import Referee

from .conftest import DEMO, due_match, expected_close, start_referee

CLOSED = re.compile(r"closed round (\d+) of match (\S+)")


def test_close_due_in_two_processes_closes_each_round_once(engine: Engine, db_url: str) -> None:
    rng = random.Random(6)
    mids = [due_match(engine, rng) for _ in range(24)]
    expected = {mid: expected_close(engine, mid) for mid in mids}
    with Session(engine) as session:
        before = {m.id: (m.version, m.rounds_opened) for m in session.exec(select(Match))}
    # each close holds its lock a little longer, so the two processes overlap
    slow = {"REFEREE_FAULT_SLEEP_IN_CLOSE": "0.05"}
    procs = [start_referee(db_url, "close-due", env=slow) for _ in range(2)]
    outputs = []
    for proc in procs:
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
        outputs.append(CLOSED.findall(out))
    reported = [(mid, int(n)) for found in outputs for n, mid in found]
    # every due round was closed by exactly one of the two processes
    assert sorted(reported) == sorted((mid, before[mid][1]) for mid in mids)
    svc = Referee(engine)
    with Session(engine) as session:
        for mid in mids:
            match = session.get(Match, mid)
            assert match is not None
            assert match.version == before[mid][0] + 1  # one close, not two
            rnd = session.get(Round, (mid, before[mid][1]))
            assert rnd is not None and rnd.status == "closed" and rnd.closed_by == "deadline"
            assert rnd.result == expected[mid]
            assert match.finished == (rnd.number == len(DEMO["votes"]) + 2)
    for mid in mids:
        assert svc.recheck(mid) == []


def test_orders_racing_a_close_through_the_server(engine: Engine, db_url: str) -> None:
    """Players of 6 matches replace their orders as fast as they can while the
    host closes the round (two close requests at once): each order is in the
    close or refused with 409 round/closed, and the round closes once."""
    cards = list(load_deck().ids)
    requests: list[dict[str, Any]] = []
    matches: list[dict[str, Any]] = []
    closes: list[tuple[str, int, Any]] = []
    lock = threading.Lock()
    with running_server(db_url, workers=2) as base:
        for i in range(6):
            status, created = call_api(
                base,
                "POST",
                "/api/matches",
                {"name": f"race {i}", "map": "three-rapids", "players": DEMO["players"]},
            )
            assert status == 201
            status, _ = call_api(
                base, "POST", f"/api/matches/{created['id']}/rounds/open", {}, created["host_token"]
            )
            assert status == 200
            matches.append(
                {
                    "id": created["id"],
                    "host_token": created["host_token"],
                    "tokens": created["player_tokens"],
                    "deadline": None,
                }
            )

        def player(m: dict[str, Any], seat: int, stop: threading.Event) -> None:
            rng = random.Random(f"{m['id']}{seat}")
            refused = 0
            while refused < 2 and not stop.is_set():
                t0 = time.time()
                draft = rng.sample(cards, len(cards))
                status, answer = call_api(
                    base,
                    "PUT",
                    f"/api/matches/{m['id']}/orders",
                    {"draft": draft},
                    m["tokens"][str(seat)],
                )
                entry = {
                    "name": PUT,
                    "t0": t0,
                    "t1": time.time(),
                    "status": status,
                    "code": (answer or {}).get("errors", [{}])[0].get("code"),
                    "match": m["id"],
                    "seat": seat,
                    "receipt": (answer or {}).get("receipt"),
                }
                refused += status == 409
                with lock:
                    requests.append(entry)

        def host(m: dict[str, Any], delay: float) -> None:
            time.sleep(delay)
            status, answer = call_api(
                base, "POST", f"/api/matches/{m['id']}/rounds/close", {"round": 1}, m["host_token"]
            )
            with lock:
                closes.append((m["id"], status, answer))
                m["closed_known_at"] = max(m.get("closed_known_at", 0.0), time.time())

        stop = threading.Event()
        threads = [
            threading.Thread(target=player, args=(m, seat, stop))
            for m in matches
            for seat in (1, 2, 3)
        ]
        for i, m in enumerate(matches):
            delay = 0.6 + 0.15 * i
            threads += [threading.Thread(target=host, args=(m, delay)) for _ in range(2)]
        for t in threads:
            t.start()
        give_up = time.monotonic() + 60
        for t in threads:  # players stop by themselves after two refusals
            t.join(timeout=max(0.0, give_up - time.monotonic()))
        stop.set()
        for t in threads:
            t.join(timeout=60)
        data = {"requests": requests, "matches": matches}
        verdict = verify(engine, base, data)
    assert verdict["violations"] == []
    expected = dict.fromkeys(INVARIANTS, True)
    assert verdict["invariants"] == expected
    # both close requests of a match answered 200 with the same result: closed once
    assert len(closes) == 12 and all(status == 200 for _, status, _ in closes)
    for m in matches:
        answers = [a for mid, _, a in closes if mid == m["id"]]
        assert answers[0] == answers[1] and answers[0]["closed_by"] == "host"
    with Session(engine) as session:
        for m in matches:
            match = session.get(Match, m["id"])
            assert match is not None
            accepted = sum(1 for r in requests if r["match"] == m["id"] and r["status"] == 200)
            # create 0, open +1, each accepted order +1, one close +1
            assert match.version == 1 + accepted + 1
    assert sum(r["status"] == 200 for r in requests) > 18  # orders were replaced
    assert sum(r["status"] == 409 for r in requests) >= 18  # and refused after the close
