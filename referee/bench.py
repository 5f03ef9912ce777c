"""``referee bench``: speed measured on this machine.

- ``submit_rps`` / ``baseline_rps``: order submissions per second through a
  real ``referee serve`` (gunicorn) on 127.0.0.1, and its home page (no
  database) measured the same way in the same run (:func:`server_bench`).
- ``page_render_ms_median``: a finished match's public page with 10,000 other
  matches in the database (:func:`page_bench`).
- ``resolve_matches_per_s``: whole random matches (all five rounds) parsed,
  checked and resolved by the engine per second, on one core.
- ``audit_seconds_max`` / ``audit_seconds_median``: a full audit (all seats, all
  goals, CP-SAT) of a finished random match.
- ``forks_resolve_4p_merge_per_s`` / ``forks_resolve_6p_merge_per_s``: whole
  random Forks 2nd Edition match files (4 or 6 players, merge variant) parsed,
  checked and resolved per second, on one core (:func:`forks_engine_bench`).
- ``sweep_ms_<N>`` (``python -m referee.bench sweep [DATABASE_URL]``): one
  sweep of ``referee notify`` (close due rounds, queue reminders, deliver the
  outbox) with nothing due, among N live matches (:func:`sweep_bench`).
- ``forks_audit_seconds_max`` / ``forks_audit_seconds_median``: a full Forks
  audit (F12, every seat, CP-SAT) of a finished random 6-player merge match
  file, parsing and replaying it included (:func:`forks_audit_bench`).
- ``forks1_audit_seconds_max`` / ``forks1_audit_seconds_median``: the same
  for Forks (1st edition), 5 players with swap and merge
  (:func:`forks1_audit_bench`).
- ``forfort_resolve_3p_per_s`` / ``forfort_resolve_4p_per_s``: whole random
  Forfort match files (3 or 4 players) resolved per second, on one core, and
  ``forfort_audit_seconds_max`` / ``forfort_audit_seconds_median``: a full
  FO22 audit of a finished random 4-player match (:func:`forfort_bench`).
- ``fortune_famine_resolve_4p_short_per_s`` /
  ``fortune_famine_resolve_6p_full_per_s``: whole random Fortune & Famine
  match files (4 players short, 6 players full) resolved per second, on one
  core (:func:`fortune_famine_engine_bench`).

Rocky River's figures keep their original names (``resolve_*``, ``audit_*``).
"""

from __future__ import annotations

import hashlib
import http.client
import json
import random
import secrets
import statistics
import tempfile
import threading
import time
from collections.abc import Callable, Iterable
from datetime import timedelta
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from sqlalchemy import Engine, func, insert
from sqlmodel import Session, select

from referee.db import make_engine, migrate, transaction
from referee.models import Match, Order, Round, Seat, utcnow
from referee.rulesets.forks_2e import match as forks
from referee.rulesets.forks_2e.audit import audit_document as forks_audit
from referee.rulesets.rocky_river.audit import audit
from referee.rulesets.rocky_river.data import load_deck
from referee.rulesets.rocky_river.match import parse_match, resolve, result_json
from referee.rulesets.rocky_river.randomplay import random_match_document
from referee.service import Referee, receipt_for


def engine_bench(matches: int = 2000, seed: int = 1, repeats: int = 5) -> dict[str, Any]:
    """Whole matches parsed, checked, resolved and written as a result, per second:
    the best of ``repeats`` runs over ``matches`` matches each (as ``timeit`` does,
    so that other work on the machine shows less)."""
    rng = random.Random(seed)
    docs = [random_match_document(rng) for _ in range(min(matches, 200))]
    deck = load_deck()
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        for i in range(matches):
            result_json(resolve(parse_match(docs[i % len(docs)]), deck))
        best = min(best, time.perf_counter() - start)
    return {
        "resolve_matches": matches,
        "resolve_repeats": repeats,
        "resolve_matches_per_s": round(matches / best, 1),
        # a Forks match costs several times a Rocky River one: a third as many
        **forks_engine_bench(matches=max(1, matches // 3), repeats=repeats),
        **forfort_engine_bench(matches=max(1, matches // 30), repeats=repeats),
        **fortune_famine_engine_bench(matches=max(1, matches // 30), repeats=repeats),
    }


def audit_bench(matches: int = 10, seed: int = 2) -> dict[str, Any]:
    rng = random.Random(seed)
    deck = load_deck()
    times = []
    for _ in range(matches):
        res = resolve(parse_match(random_match_document(rng)), deck)
        start = time.perf_counter()
        audit(res, deck)
        times.append(time.perf_counter() - start)
    return {
        "audit_matches": matches,
        "audit_seconds_max": round(max(times), 4),
        "audit_seconds_median": round(statistics.median(times), 4),
        **forks_audit_bench(matches=matches),
        **forks1_audit_bench(matches=matches),
        **forfort_audit_bench(matches=matches),
        **fortune_famine_audit_bench(matches=matches),
    }


# ---- Forks 2nd Edition: the engine and the audit ---------------------------------

FORKS_RESOLVED = ((4, True), (6, True))  # (players, merge) of the resolve figures


def forks_random_document(
    rng: random.Random, seats: int, merge: bool, *, missing: float = 0.1
) -> dict[str, Any]:
    """A finished Forks match file of random legal play: each order one of the
    seat's options, or (with chance ``missing``) none, so the seeded default."""
    seed = f"bench-{rng.random()}"
    table = forks.start(seed, seats, merge=merge)
    orders: list[dict[int, str | None]] = []
    while not table.finished:
        chosen: dict[int, str | None] = {
            seat: None if rng.random() < missing else rng.choice(table.options(seat))
            for seat in table.seat_numbers()
        }
        orders.append(chosen)
        (forks.close_keep if table.closed % 2 == 0 else forks.close_market)(table, chosen)
    players = [
        {"seat": s, "name": f"P{s}", "garnets": rng.randint(0, 9)} for s in range(1, seats + 1)
    ]
    return forks.match_json(players, {"merge": merge}, seed, orders)


def forks_engine_bench(matches: int = 1000, seed: int = 4, repeats: int = 5) -> dict[str, Any]:
    """Whole Forks match files resolved (``match.resolve``: parse, check every
    order, play, write the result) per second, for each of :data:`FORKS_RESOLVED`:
    the best of ``repeats`` runs over ``matches`` matches each."""
    rng = random.Random(seed)
    out: dict[str, Any] = {"forks_resolve_matches": matches, "forks_resolve_repeats": repeats}
    for seats, merge in FORKS_RESOLVED:
        docs = [forks_random_document(rng, seats, merge) for _ in range(min(matches, 200))]
        best = float("inf")
        for _ in range(repeats):
            start = time.perf_counter()
            for i in range(matches):
                forks.resolve(docs[i % len(docs)])
            best = min(best, time.perf_counter() - start)
        variant = "merge" if merge else "standard"
        out[f"forks_resolve_{seats}p_{variant}_per_s"] = round(matches / best, 1)
    return out


def audit_figures(
    key: str, documents: Iterable[Any], audit: Callable[[Any], Any]
) -> dict[str, Any]:
    """``<key>_audit_matches`` and the slowest and median seconds of ``audit``
    over ``documents`` (each made before its clock starts)."""
    times = []
    for doc in documents:
        start = time.perf_counter()
        audit(doc)
        times.append(time.perf_counter() - start)
    return {
        f"{key}_audit_matches": len(times),
        f"{key}_audit_seconds_max": round(max(times), 4),
        f"{key}_audit_seconds_median": round(statistics.median(times), 4),
    }


def forks_audit_bench(matches: int = 20, seed: int = 5, seats: int = 6) -> dict[str, Any]:
    """A full Forks audit (every seat, OPTIMAL proved) of ``matches`` random
    finished merge matches of ``seats`` players: the slowest and the median."""
    rng = random.Random(seed)
    docs = (forks_random_document(rng, seats, True) for _ in range(matches))
    return {**audit_figures("forks", docs, forks_audit), "forks_audit_players": seats}


def forks1_audit_bench(matches: int = 20, seed: int = 6, seats: int = 5) -> dict[str, Any]:
    """Forks (1st edition): a full K12 audit of ``matches`` random finished
    5-player matches with swap and merge: the slowest and the median."""
    from referee.rulesets.forks.audit import audit_document
    from referee.rulesets.forks.randomplay import random_match

    rng = random.Random(seed)
    docs = (random_match(rng, seats, swap=True, merge=True) for _ in range(matches))
    return audit_figures("forks1", docs, audit_document)


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


# ---- a match page among 10,000 matches --------------------------------------


def fill_matches(engine: Engine, count: int, seed: int = 3) -> None:
    """Bulk-insert ``count`` plain matches (three seats, a closed draft with three
    orders each) straight into the tables: the crowd a page is measured among."""
    rng = random.Random(seed)
    svc = Referee(engine)
    template = svc.create_match(
        name="template", setup={"map": "three-rapids"}, players=BENCH_PLAYERS
    )
    with Session(engine) as session:
        proto = session.get(Match, template.match_id)
        assert proto is not None
        setup = proto.setup
    cards = list(load_deck().ids)
    now = utcnow()
    batch = 2000
    for start in range(0, count, batch):
        matches, seats, rounds, orders = [], [], [], []
        for _ in range(min(batch, count - start)):
            match_id = secrets.token_hex(5)
            matches.append(
                {
                    "id": match_id,
                    "name": f"filler {match_id}",
                    "ruleset": "rocky-river",
                    "setup": setup,
                    "settings": {
                        "deadline_hours": 48,
                        "publish_totals": False,
                        "close_early": False,
                    },
                    "seed": match_id,
                    "seed_sha256": hashlib.sha256(match_id.encode()).hexdigest(),
                    "host_token_hash": secrets.token_hex(32),
                    "created_at": now,
                    "rounds_opened": 1,
                    "finished": False,
                    "paused_at": None,
                    "revealed": False,
                    "version": 4,
                }
            )
            rounds.append(
                {
                    "match_id": match_id,
                    "number": 1,
                    "phase": "draft",
                    "title": "Draft",
                    "acting": [int(p["seat"]) for p in BENCH_PLAYERS],
                    "status": "open",
                    "opened_at": now,
                    "deadline": now + timedelta(hours=rng.randint(1, 48)),
                    "closed_at": None,
                    "closed_by": None,
                    "result": None,
                }
            )
            for p in BENCH_PLAYERS:
                seat = int(p["seat"])
                seats.append(
                    {
                        "match_id": match_id,
                        "seat": seat,
                        "name": p["name"],
                        "garnets": p["garnets"],
                        "data": {},
                        "token_hash": secrets.token_hex(32),
                    }
                )
                draft = rng.sample(cards, len(cards))
                salt = secrets.token_hex(16)
                orders.append(
                    {
                        "match_id": match_id,
                        "round_number": 1,
                        "seat": seat,
                        "payload": draft,
                        "salt": salt,
                        "receipt": receipt_for(draft, salt),
                        "host_entered": False,
                        "submitted_at": now,
                        "revision": 1,
                    }
                )
        with transaction(engine) as session:
            session.execute(insert(Match), matches)
            session.execute(insert(Seat), seats)
            session.execute(insert(Round), rounds)
            session.execute(insert(Order), orders)


def page_bench(matches: int = 10_000, requests: int = 50) -> dict[str, Any]:
    """``page_render_ms_median``: the public page of a finished match (its map and
    results pictures, every round) through the Flask test client, with
    ``matches`` other matches in a temporary SQLite database."""
    from referee.demo import create_demo
    from referee.web import create_app

    with tempfile.TemporaryDirectory(prefix="referee-bench-") as folder:
        url = f"sqlite:///{Path(folder) / 'referee.db'}"
        engine = make_engine(url)
        migrate(engine)
        fill_matches(engine, matches)
        svc = Referee(engine)
        links = dict(create_demo(svc, "http://bench", play=5))
        target = links["public page"].rsplit("/", 1)[1]
        with Session(engine) as session:
            total = session.exec(select(func.count()).select_from(Match)).one()
        engine.dispose()
        app = create_app(
            {"DATABASE_URL": url, "AUTO_MIGRATE": False, "SECRET_KEY": "bench", "TESTING": True}
        )
        client = app.test_client()
        times = []
        for i in range(requests + 3):
            start = time.perf_counter()
            resp = client.get(f"/matches/{target}")
            elapsed = time.perf_counter() - start
            if resp.status_code != 200:
                raise RuntimeError(f"the match page answered {resp.status_code}")
            if i >= 3:  # the first requests fill caches (templates, the deck)
                times.append(elapsed)
        app.extensions["referee"].engine.dispose()
    return {
        "page_matches_in_db": total,
        "page_requests": requests,
        "page_render_ms_median": round(statistics.median(times) * 1000, 2),
        "page_render_ms_max": round(max(times) * 1000, 2),
    }


# ---- what a page weighs and what is kept ------------------------------------


def weight_bench(repeats: int = 5) -> dict[str, Any]:
    """Bytes sent for the host dashboard and a player's page of each game's demo
    (two steps played), plain and as sent to a browser taking gzip or br; the
    ``Cache-Control`` of a fingerprinted static file and of the same file asked
    for without its digest; the host's audit page (Rocky River after two rounds,
    a finished Forks match) asked for the first time in a process and again; a
    player's order sent through the page's form (Rocky River's rafting vote).
    Through the Flask test client on a temporary SQLite database; times are
    medians of ``repeats`` (the audit's first request: of ``repeats`` fresh
    apps). ``python -m referee.bench`` prints them."""
    import re

    from referee.demo import create_demo
    from referee.ruleset import get_ruleset
    from referee.web import create_app

    out: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="referee-bench-") as folder:
        url = f"sqlite:///{Path(folder) / 'referee.db'}"
        config = {
            "DATABASE_URL": url,
            "SECRET_KEY": "bench",
            "RATELIMIT_ENABLED": False,
            "WTF_CSRF_ENABLED": False,
        }
        app = create_app(config)
        svc: Referee = app.extensions["referee"]
        played = {game: dict(create_demo(svc, "", 2, game)) for game in ("rocky-river", "forks-2e")}
        finished = dict(create_demo(svc, "", 99, "forks-2e"))
        client = app.test_client()
        encodings = {
            "plain": {},
            "gzip": {"Accept-Encoding": "gzip"},
            "br": {"Accept-Encoding": "br"},
        }
        for game, links in played.items():
            seat = next(v for k, v in links.items() if k.startswith("seat 1"))
            for page, path in (("host", links["host (keep private)"]), ("player", seat)):
                for name, headers in encodings.items():
                    out[f"{game}_{page}_bytes_{name}"] = len(client.get(path, headers=headers).data)
        html = client.get(played["rocky-river"]["host (keep private)"]).get_data(as_text=True)
        sheet = re.search(r'href="(/static/style\.css[^"]*)"', html)
        if sheet is not None:
            out["static_fingerprinted_cache_control"] = client.get(sheet.group(1)).headers.get(
                "Cache-Control"
            )
        out["static_unversioned_cache_control"] = client.get("/static/style.css").headers.get(
            "Cache-Control"
        )
        audits = {
            "rocky_river": played["rocky-river"]["host (keep private)"] + "/audit",
            "forks_2e": finished["host (keep private)"] + "/audit",
        }
        for game, path in audits.items():
            first: list[float] = []
            again: list[float] = []
            for _ in range(repeats):
                fresh = create_app({**config, "AUTO_MIGRATE": False}).test_client()
                for i in range(3):
                    start = time.perf_counter()
                    resp = fresh.get(path)
                    (first if i == 0 else again).append(time.perf_counter() - start)
                    if resp.status_code != 200:
                        raise RuntimeError(f"the audit page answered {resp.status_code}")
            out[f"{game}_audit_page_ms_first"] = round(statistics.median(first) * 1000, 1)
            out[f"{game}_audit_page_ms_again"] = round(statistics.median(again) * 1000, 1)
        seat = next(v for k, v in played["rocky-river"].items() if k.startswith("seat 1"))
        votes = get_ruleset("rocky-river").demo(None).steps[2][1]
        form = {"round": "3", **{f"vote_{k}": d for k, d in enumerate(votes)}}
        times = []
        for _ in range(repeats * 6):
            start = time.perf_counter()
            resp = client.post(seat, data=form)
            times.append(time.perf_counter() - start)
            if resp.status_code != 302:
                raise RuntimeError(f"the order form answered {resp.status_code}")
        out["order_post_ms_median"] = round(statistics.median(times) * 1000, 2)
    return out


# ---- the sweep among many live matches (issue 24) -------------------------------

SWEEP_SIZES = (200, 2_000, 20_000)


def fill_live(engine: Engine, count: int) -> None:
    """Bulk-insert ``count`` live matches: each with a closed first round, an open
    second one whose deadline is far (a week) with reminders 24 and 2 hours before,
    an address per seat and two sent messages: nothing is due."""
    from referee.models import Contact, MatchNotify, Message

    now = utcnow()
    has_remind_at = hasattr(Round, "remind_at")
    batch = 2000
    for start in range(0, count, batch):
        rows: dict[Any, list[dict[str, Any]]] = {
            t: [] for t in (Match, Seat, Round, MatchNotify, Contact, Message)
        }
        for _ in range(min(batch, count - start)):
            match_id = secrets.token_hex(6)
            rows[Match].append(
                {
                    "id": match_id,
                    "name": f"live {match_id}",
                    "ruleset": "rocky-river",
                    "setup": {},
                    "settings": {"deadline_hours": 168},
                    "seed": match_id,
                    "seed_sha256": hashlib.sha256(match_id.encode()).hexdigest(),
                    "host_token_hash": secrets.token_hex(32),
                    "created_at": now - timedelta(days=2),
                    "rounds_opened": 2,
                    "finished": False,
                    "paused_at": None,
                    "revealed": False,
                    "version": 4,
                }
            )
            rows[MatchNotify].append(
                {
                    "match_id": match_id,
                    "base_url": "http://bench",
                    "webhook_url": None,
                    "webhook_secret": None,
                    "remind_before_hours": [24, 2],
                }
            )
            for number, status in ((1, "closed"), (2, "open")):
                opened = now - timedelta(days=2 - number)
                deadline = opened + timedelta(days=7) if status == "open" else now
                row = {
                    "match_id": match_id,
                    "number": number,
                    "phase": "draft",
                    "title": f"Step {number}",
                    "acting": [1, 2, 3],
                    "status": status,
                    "opened_at": opened,
                    "deadline": deadline - timedelta(hours=1 if status == "closed" else 0),
                    "closed_at": now if status == "closed" else None,
                    "closed_by": "deadline" if status == "closed" else None,
                    "deadline_changes": 0,
                    "result": None,
                }
                if has_remind_at:
                    row["remind_at"] = deadline - timedelta(hours=24) if status == "open" else None
                rows[Round].append(row)
            for seat in (1, 2, 3):
                rows[Seat].append(
                    {
                        "match_id": match_id,
                        "seat": seat,
                        "name": f"P{seat}",
                        "garnets": 0,
                        "data": {},
                        "token_hash": secrets.token_hex(32),
                    }
                )
                rows[Contact].append(
                    {
                        "match_id": match_id,
                        "seat": seat,
                        "email": f"p{seat}@bench.invalid",
                        "unsubscribe_key": secrets.token_hex(20),
                        "unsubscribed": False,
                        "updated_at": now,
                    }
                )
            for event in ("round_closed", "round_opened"):
                rows[Message].append(
                    {
                        "match_id": match_id,
                        "channel": "email",
                        "event": event,
                        "seat": 1,
                        "recipient": "p1@bench.invalid",
                        "subject": event,
                        "body": "",
                        "message_id": secrets.token_hex(16),
                        "dedup_key": None,
                        "status": "sent",
                        "attempts": 1,
                        "due_at": now - timedelta(days=1),
                        "created_at": now - timedelta(days=1),
                        "sent_at": now - timedelta(days=1),
                    }
                )
        with transaction(engine) as session:
            for table, values in rows.items():
                session.execute(insert(table), values)


def sweep_bench(
    database_url: str | None = None, sizes: tuple[int, ...] = SWEEP_SIZES, repeats: int = 7
) -> dict[str, Any]:
    """``sweep_ms_<N>``: the median of ``repeats`` sweeps (``notify_once``: close
    due rounds, queue reminders, deliver the outbox; mail enabled) with nothing
    due, among N live matches (:func:`fill_live`), on a temporary SQLite database
    or on ``database_url`` (PostgreSQL: its tables are dropped first and after)."""
    from sqlmodel import SQLModel

    from referee.notify.background import notify_once
    from referee.notify.config import NotifyConfig

    out: dict[str, Any] = {}
    config = NotifyConfig(smtp_url="smtp://127.0.0.1:9", mail_from="bench@bench.invalid")
    for size in sizes:
        with tempfile.TemporaryDirectory(prefix="referee-bench-") as folder:
            url = database_url or f"sqlite:///{Path(folder) / 'referee.db'}"
            engine = make_engine(url)
            if database_url:
                with engine.begin() as conn:
                    SQLModel.metadata.drop_all(conn)
                    conn.exec_driver_sql("DROP TABLE IF EXISTS alembic_version")
            migrate(engine)
            fill_live(engine, size)
            if engine.dialect.name == "postgresql":
                with engine.begin() as conn:
                    conn.exec_driver_sql("ANALYZE")
            svc = Referee(engine, notify=config)
            times = []
            for _ in range(repeats + 1):
                start = time.perf_counter()
                line = notify_once(svc)
                times.append(time.perf_counter() - start)
                if line is not None:
                    raise RuntimeError(f"the sweep found work: {line}")
            out[f"sweep_ms_{size}"] = round(statistics.median(times[1:]) * 1000, 2)
            if database_url:
                with engine.begin() as conn:
                    SQLModel.metadata.drop_all(conn)
                    conn.exec_driver_sql("DROP TABLE IF EXISTS alembic_version")
            engine.dispose()
    return out


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


if __name__ == "__main__":
    import sys

    if sys.argv[1:2] == ["sweep"]:
        print(json.dumps(sweep_bench(sys.argv[2] if len(sys.argv) > 2 else None), indent=1))
    else:
        print(json.dumps(weight_bench(), indent=1))


# ---- Forfort: the engine and the audit -----------------------------------------------


def forfort_random_document(
    rng: random.Random, seats: int, *, missing: float = 0.1
) -> dict[str, Any]:
    """A finished Forfort match file of random legal play (the engine's
    randomplay), or (with chance ``missing``) no order, so the default."""
    from referee.rulesets.forfort.cards import default_card_set
    from referee.rulesets.forfort.orders import play_turn
    from referee.rulesets.forfort.randomplay import random_order
    from referee.rulesets.forfort.state import start

    seed = f"bench-{rng.random()}"
    table = start(seed, default_card_set(), seats)
    orders: list[dict[str, Any] | None] = []
    while table.next is not None:
        seat = table.next.seat
        order = None if rng.random() < missing else random_order(table, rng)
        table = play_turn(table, order)
        orders.append(None if order is None else {str(seat): order})
    players = [
        {"seat": s, "name": f"P{s}", "garnets": rng.randint(0, 9)} for s in range(1, seats + 1)
    ]
    return {"ruleset": "forfort", "players": players, "seed": seed, "orders": orders}


def forfort_engine_bench(matches: int = 100, seed: int = 7, repeats: int = 5) -> dict[str, Any]:
    """Whole Forfort match files resolved (parse, check every order, play,
    write the result) per second with 3 and 4 players: the best of
    ``repeats`` runs over ``matches`` matches each."""
    from referee.rulesets.forfort.match import resolve as forfort_resolve

    rng = random.Random(seed)
    out: dict[str, Any] = {"forfort_resolve_matches": matches}
    for seats in (3, 4):
        docs = [forfort_random_document(rng, seats) for _ in range(min(matches, 50))]
        best = float("inf")
        for _ in range(repeats):
            start = time.perf_counter()
            for i in range(matches):
                forfort_resolve(docs[i % len(docs)])
            best = min(best, time.perf_counter() - start)
        out[f"forfort_resolve_{seats}p_per_s"] = round(matches / best, 1)
    return out


def forfort_audit_bench(matches: int = 20, seed: int = 8, seats: int = 4) -> dict[str, Any]:
    """Forfort: a full FO22 audit (every seat, CP-SAT proved optimal) of
    ``matches`` random finished 4-player matches: the slowest and the median."""
    from referee.rulesets.forfort.audit import audit_document as forfort_audit

    rng = random.Random(seed)
    docs = (forfort_random_document(rng, seats) for _ in range(matches))
    return audit_figures("forfort", docs, forfort_audit)


# ---- Fortune & Famine: the engine ---------------------------------------------------------

FORTUNE_FAMINE_RESOLVED = ((4, "short"), (6, "full"))  # (players, length) of the figures


def fortune_famine_random_document(
    rng: random.Random, seats: int, length: str, *, missing: float = 0.1
) -> dict[str, Any]:
    """A finished Fortune & Famine match file of random legal play (the
    engine's randomplay, rulers dealt by the seed, the default deck), each
    order left out with chance ``missing`` (FF7's default then)."""
    from referee.rulesets.fortune_famine.cards import default_deck
    from referee.rulesets.fortune_famine.flow import begin
    from referee.rulesets.fortune_famine.orders import close_step
    from referee.rulesets.fortune_famine.randomplay import random_step
    from referee.rulesets.fortune_famine.state import new_table

    seed = f"bench-{rng.random()}"
    garnets = {s: rng.randint(0, 9) for s in range(1, seats + 1)}
    table = begin(new_table(seed, default_deck(), garnets, length, None))
    orders: list[dict[str, Any] | None] = []
    while table.next is not None:
        step = random_step(table, rng, missing)
        table = close_step(table, step)
        sent = {str(s): o for s, o in step.items() if o is not None}
        orders.append(sent or None)
    players = [{"seat": s, "name": f"P{s}", "garnets": g} for s, g in garnets.items()]
    return {
        "ruleset": "fortune-famine",
        "players": players,
        "seed": seed,
        "settings": {"length": length},
        "orders": orders,
    }


def fortune_famine_engine_bench(
    matches: int = 100, seed: int = 9, repeats: int = 5
) -> dict[str, Any]:
    """Whole Fortune & Famine match files resolved (parse, check every
    order, play, write the result) per second, 4 players short and 6 players
    full: the best of ``repeats`` runs over ``matches`` matches each."""
    from referee.rulesets.fortune_famine.match import resolve as ff_resolve

    rng = random.Random(seed)
    out: dict[str, Any] = {"fortune_famine_resolve_matches": matches}
    for seats, length in FORTUNE_FAMINE_RESOLVED:
        docs = [fortune_famine_random_document(rng, seats, length) for _ in range(min(matches, 50))]
        best = float("inf")
        for _ in range(repeats):
            start = time.perf_counter()
            for i in range(matches):
                ff_resolve(docs[i % len(docs)])
            best = min(best, time.perf_counter() - start)
        out[f"fortune_famine_resolve_{seats}p_{length}_per_s"] = round(matches / best, 1)
    return out


def fortune_famine_audit_bench(matches: int = 20, seed: int = 10, seats: int = 6) -> dict[str, Any]:
    """Fortune & Famine: a full FF22 audit (every seat's last economy step,
    CP-SAT proved optimal, the chosen order played by the engine) of
    ``matches`` random finished 6-player full matches: the slowest and the
    median."""
    from referee.rulesets.fortune_famine.audit import audit_document as ff_audit

    rng = random.Random(seed)
    docs = (fortune_famine_random_document(rng, seats, "full") for _ in range(matches))
    return audit_figures("fortune_famine", docs, ff_audit)
