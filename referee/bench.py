"""``referee bench``: speed measured on this machine.

- ``resolve_matches_per_s``: whole random matches (all five rounds) parsed,
  checked and resolved by the engine per second, on one core.
- ``audit_seconds_max`` / ``audit_seconds_median``: a full audit (all seats, all
  goals, CP-SAT) of a finished random match.
"""

from __future__ import annotations

import random
import statistics
import time
from typing import Any

from referee.rulesets.rocky_river.audit import audit
from referee.rulesets.rocky_river.data import load_deck
from referee.rulesets.rocky_river.match import parse_match, resolve, result_json
from referee.rulesets.rocky_river.randomplay import random_match_document


def engine_bench(matches: int = 2000, seed: int = 1) -> dict[str, Any]:
    rng = random.Random(seed)
    docs = [random_match_document(rng) for _ in range(min(matches, 200))]
    deck = load_deck()
    start = time.perf_counter()
    for i in range(matches):
        result_json(resolve(parse_match(docs[i % len(docs)]), deck))
    elapsed = time.perf_counter() - start
    return {"resolve_matches": matches, "resolve_matches_per_s": round(matches / elapsed, 1)}


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
    }
