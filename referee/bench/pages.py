"""``referee bench``'s page figures, through the Flask test client on a
temporary SQLite database: a match page among many matches
(:func:`page_bench`) and what a page weighs and what is kept
(:func:`weight_bench`, printed by ``python -m referee.bench``)."""

from __future__ import annotations

import hashlib
import random
import secrets
import statistics
import tempfile
import time
from datetime import timedelta
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, func, insert
from sqlmodel import Session, select

from referee.bench.server import BENCH_PLAYERS
from referee.db import make_engine, migrate, transaction
from referee.models import Match, Order, Round, Seat, utcnow
from referee.rulesets.rocky_river.data import load_deck
from referee.service import Referee, receipt_for

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
