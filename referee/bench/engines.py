"""``referee bench``'s engine and audit figures: each game's whole random
match files resolved per second on one core, and its full audits timed
(Rocky River's figures keep their original names: ``resolve_*``, ``audit_*``)."""

from __future__ import annotations

import random
import statistics
import time
from collections.abc import Callable, Iterable
from typing import Any

from referee.rulesets.forks_2e import match as forks
from referee.rulesets.forks_2e.audit import audit_document as forks_audit
from referee.rulesets.rocky_river.audit import audit
from referee.rulesets.rocky_river.data import load_deck
from referee.rulesets.rocky_river.match import parse_match, resolve, result_json
from referee.rulesets.rocky_river.randomplay import random_match_document


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
