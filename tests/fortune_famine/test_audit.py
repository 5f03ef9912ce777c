"""FF22's audit (CP-SAT over the combination's structure) checked against
the brute force of tests/fortune_famine/audit_brute.py, which plays every
combination of trade, payments, double, Chysarion uses and decision the
rule names through the engine and merges nothing: on the finished examples,
on random finished matches of 2 to 6 seats and both lengths (some orders
left to their defaults), at every economy step of a few matches, on a
Kingdom with a Trader, a Philosopher and Chysarions of every kind, and on
a host's deck whose workers pay in both resources. Slow as a whole (every
test_audit.py is, tests/conftest.py); test_audit_quick.py keeps a quick check.
"""

from __future__ import annotations

import json
import random
import statistics
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from referee.errors import RuleError
from referee.rulesets.fortune_famine import audit as audit_module
from referee.rulesets.fortune_famine.audit import (
    MatchAudit,
    SeatAudit,
    audit_document,
    audit_text,
    best_economy,
)
from referee.rulesets.fortune_famine.cards import default_deck
from referee.rulesets.fortune_famine.match import parse_match, play, resolve, start
from referee.rulesets.fortune_famine.orders import check_order, close_step
from referee.rulesets.fortune_famine.randomplay import random_step
from referee.rulesets.fortune_famine.state import FELARREN, RULERS, Table

from .audit_brute import Brute, TooMany, brute_best
from .tables import make

GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "fortune-famine"
FINISHED = sorted(p for p in GOLDEN.glob("*.match.json") if not p.name.startswith("04-"))
PARTIAL = GOLDEN / "04-partial-mid-season.match.json"
GAMES = [(seats, length) for seats in range(2, 7) for length in ("full", "short")]


def load(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


# ---- matches to audit -------------------------------------------------------------------


def random_match(
    rng: random.Random,
    seats: int,
    length: str,
    *,
    missing: float = 0.1,
    deck: dict[str, Any] | None = None,
) -> tuple[dict[str, Any], list[tuple[Table, dict[int, Any]]]]:
    """A finished match of random legal orders (some left to FF7's
    defaults), and each economy step: the table before it and its orders."""
    doc: dict[str, Any] = {
        "ruleset": "fortune-famine",
        "players": [
            {"seat": s, "name": f"Player {s}", "garnets": rng.randint(0, 3)}
            for s in range(1, seats + 1)
        ],
        "seed": f"ff-audit-{rng.random()}",
        "settings": {"length": length},
        "orders": [],
    }
    if rng.random() < 0.5:
        chosen = rng.sample(RULERS, seats)
        doc["rulers"] = {str(s): chosen[s - 1] for s in range(1, seats + 1)}
    if deck is not None:
        doc["deck"] = deck
    table = start(parse_match(doc))
    economy: list[tuple[Table, dict[int, Any]]] = []
    while table.next is not None:
        step = random_step(table, rng, missing)
        if table.next.phase == "economy":
            economy.append((table, step))
        table = close_step(table, step)
        doc["orders"].append({str(s): o for s, o in step.items()})
    return doc, economy


def last_step(doc: dict[str, Any]) -> tuple[Table, dict[int, Any]]:
    """The table just before the last round (replayed by the engine) and
    that round's orders as the file has them (None: a default)."""
    spec = parse_match(doc)
    before = play(replace(spec, orders=spec.orders[:-1]))
    entry = doc["orders"][-1] or {}
    return before, {int(k): v for k, v in entry.items()}


def check_against_brute_force(doc: dict[str, Any], cap: int = 50_000) -> tuple[int, int]:
    """The audit of a finished match: actual = the stored grain of the
    result, gain >= 0, and best = the brute force's for every seat it covers
    within ``cap`` orders: (seats checked, seats left out)."""
    report = audit_document(doc)
    result = resolve(doc)
    before, others = last_step(doc)
    assert before.next is not None and before.next.phase == "economy"
    assert before.next.season == result["seasons_total"]
    assert sorted(report.seats) == list(range(1, len(doc["players"]) + 1))
    checked = skipped = 0
    for seat, a in report.seats.items():
        assert a.actual == result["seats"][str(seat)]["stored"]
        assert a.gain == a.best - a.actual >= 0
        try:
            expected = brute_best(before, seat, others, cap)
        except TooMany:
            skipped += 1
            continue
        assert a.best == expected, (doc["seed"], seat)
        # the order the solver found is one the engine accepts, and reaches it
        assert a.order is not None
        check_order(before, seat, a.order)
        after = close_step(before, {**others, seat: dict(a.order)})
        assert after.seats[seat].stored == a.best
        checked += 1
    return checked, skipped


# ---- (a) the audit's figures are the brute force's -------------------------------------


@pytest.mark.parametrize("path", FINISHED, ids=lambda p: p.name.removesuffix(".match.json"))
def test_golden_audit_equals_brute_force(path: Path) -> None:
    doc = load(path)
    assert check_against_brute_force(doc) == (len(doc["players"]), 0)


def test_golden_audit_figures() -> None:
    """The figures themselves, for the record (each proved by the test above);
    FF23 gives example 01's."""
    got = {
        p.name[:2]: {
            s: (v["actual"], v["best_last_season"])
            for s, v in audit_document(load(p)).as_dict()["seats"].items()
        }
        for p in FINISHED
    }
    assert got == {
        "01": {"1": (3, 5), "2": (6, 8)},
        "02": {"1": (3, 5), "2": (15, 21), "3": (21, 22), "4": (19, 19)},
        "03": {"1": (3, 3), "2": (5, 10), "3": (4, 7)},
    }


@pytest.mark.parametrize(("seats", "length"), GAMES, ids=[f"{s}-{n}" for s, n in GAMES])
def test_random_matches_audit_equals_brute_force(seats: int, length: str) -> None:
    rng = random.Random(f"ff-audit-{seats}-{length}")
    checked = skipped = 0
    for _ in range(2):
        doc, _ = random_match(rng, seats, length)
        c, s = check_against_brute_force(doc, cap=20_000)
        checked, skipped = checked + c, skipped + s
    assert checked >= 2 * seats - 1 and skipped <= 1


def test_every_economy_step_of_random_matches_agrees() -> None:
    """Not only the last season: best_economy at every economy step of a few
    matches (Traders, Philosophers and Chysarions come and go), with the
    others' orders as played, equals the brute force."""
    rng = random.Random("ff-audit-every-step")
    checked = skipped = 0
    held: dict[str, int] = dict.fromkeys(("trader", "philosopher", "chysarion"), 0)
    for seats, length in ((2, "full"), (4, "short"), (6, "full")):
        _, economy = random_match(rng, seats, length)
        for before, step in economy:
            assert before.next is not None
            for seat in before.next.acting:
                try:
                    expected = brute_best(before, seat, step, cap=5_000)
                except TooMany:
                    skipped += 1
                    continue
                found = best_economy(before, seat, step)
                assert found.best == expected, (seats, before.season, seat)
                checked += 1
                for kind in held:
                    held[kind] += before.holds_kind(seat, kind)
    assert checked >= 100 and skipped <= checked // 10
    assert min(held.values()) >= 5, held


def rich_table(grain: int, silver: int, *, philosopher: bool = True) -> Table:
    """Felarren/Fiagro's 6 cards: a Trader, a Philosopher (or a Steward), the
    starting Common Farmer, a Common Merchant, a Chysarion giving stored
    grain and one giving grain; the other seat a Chysarion giving silver."""
    return make(
        "economy",
        {1: FELARREN, 2: RULERS[0]},
        {
            1: [
                "start-farmer.1",
                "trader.1",
                "philosopher.1" if philosopher else "steward.1",
                "common-merchant.1",
                "chysarion-stored-2.1",
                "chysarion-grain-3.1",
            ],
            2: ["start-farmer.2", "chysarion-silver-3.1"],
        },
        grain={1: grain, 2: 0},
        silver={1: silver, 2: 0},
        acting=(1, 2),
    )


@pytest.mark.parametrize(
    ("grain", "silver", "philosopher"),
    [(0, 0, True), (0, 1, True), (1, 0, True), (2, 2, True), (5, 1, True), (0, 3, False)],
)
def test_a_rich_kingdom_agrees(grain: int, silver: int, philosopher: bool) -> None:
    """Every section at once: trades at both times, payments in both
    resources, the double, Chysarions of grain and stored grain, a store
    that only a trade can pay for."""
    table = rich_table(grain, silver, philosopher=philosopher)
    for others in ({}, {2: {"chysarion": ["chysarion-silver-3.1"], "decision": "silver"}}):
        brute = Brute(table, 1, others)
        expected = brute.run()
        assert brute.accepted > 20
        found = best_economy(table, 1, others)
        assert found.best == expected
        assert close_step(table, {**others, 1: dict(found.order)}).seats[1].stored == expected
    # the other seat's economy: its Chysarion's silver pays for a store
    assert best_economy(table, 2).best == brute_best(table, 2, {})


def host_deck() -> dict[str, Any]:
    """The default deck with other numbers (FF4): farmers and merchants pay
    in both resources, the Steward needs a payment and earns grain too,
    the jesters store, the Chysarions give more."""
    deck = default_deck().as_json()
    for t in deck["types"]:
        if t["kind"] in ("farmer", "merchant"):
            t["payment"] = {"grain": 1, "silver": 1}
            t["reward"] = {**t["reward"], "stored": 1 if t["grade"] == "skilled" else 0}
        elif t["kind"] == "steward":
            t["payment"] = {"grain": 0, "silver": 2}
            t["reward"] = {"grain": 1, "silver": 0, "stored": 2}
        elif t["kind"] == "jester":
            t["reward"] = {**t["reward"], "stored": 1}
        elif t["kind"] == "chysarion":
            t["amount"] = t["amount"] + 2
    return deck


def test_a_host_deck_paying_in_both_resources_agrees() -> None:
    rng = random.Random("ff-audit-host-deck")
    checked = 0
    for seats, length in ((3, "short"), (5, "full")):
        doc, economy = random_match(rng, seats, length, deck=host_deck())
        c, s = check_against_brute_force(doc, cap=20_000)
        assert s == 0
        checked += c
        for before, step in economy[1::3]:
            assert before.next is not None
            for seat in before.next.acting:
                assert best_economy(before, seat, step).best == brute_best(before, seat, step)
                checked += 1
    assert checked >= 20


# ---- (b) the other seats' orders of the step change nothing ---------------------------


def test_the_other_seats_orders_of_the_step_change_nothing() -> None:
    """FF22 keeps the other seats' orders of the last step as played; as no
    economy order touches another seat (FF7), their defaults give the same."""
    rng = random.Random("ff-audit-others")
    for seats in (3, 5):
        doc, _ = random_match(rng, seats, "short", missing=0.0)
        before, others = last_step(doc)
        for seat in others:
            as_played = best_economy(before, seat, others).best
            assert best_economy(before, seat, {}).best == as_played
            assert brute_best(before, seat, {}, cap=20_000) == as_played


# ---- (c) gain, actual --------------------------------------------------------------------


def test_actual_is_the_stored_grain_and_gain_is_never_negative() -> None:
    rng = random.Random("ff-audit-gain")
    for seats, length in GAMES:
        doc, _ = random_match(rng, seats, length, missing=0.4)
        report = audit_document(doc)
        result = resolve(doc)
        for seat, a in report.seats.items():
            assert a.actual == result["seats"][str(seat)]["stored"]
            assert a.gain == a.best - a.actual >= 0
            assert report.as_dict()["seats"][str(seat)]["gain"] == a.gain


def test_a_defaulted_last_step_is_one_of_the_combinations() -> None:
    """Every order of the last step left out: each seat's default (take 1
    grain) counts, so the best is at least what it stored."""
    doc = load(FINISHED[1])
    doc["orders"][-1] = None
    report = audit_document(doc)
    result = resolve(doc)
    assert [d["seat"] for d in result["defaulted"][-4:]] == [1, 2, 3, 4]
    before, _ = last_step(doc)
    for seat, a in report.seats.items():
        assert a.actual == result["seats"][str(seat)]["stored"]
        assert a.best == brute_best(before, seat, {}) >= a.actual


# ---- (d) refusals ------------------------------------------------------------------------


def test_unfinished_match_is_refused() -> None:
    with pytest.raises(RuleError) as err:
        audit_document(load(PARTIAL))
    assert err.value.codes == ["audit/unfinished"]
    assert "14 of its steps have closed" in str(err.value)


def test_a_match_with_its_last_step_open_is_unfinished() -> None:
    doc = load(FINISHED[0])
    doc["orders"] = doc["orders"][:-1]
    with pytest.raises(RuleError) as err:
        audit_document(doc)
    assert err.value.codes == ["audit/unfinished"]


def refusal(call: Any, doc: dict[str, Any]) -> tuple[Any, ...]:
    with pytest.raises(RuleError) as err:
        call(doc)
    return err.value.problems


@pytest.mark.parametrize("where", ["last", "first", "extra", "static"])
def test_a_bad_file_is_refused_as_resolve_refuses_it(where: str) -> None:
    """The audit replays the match once, keeping the table before the last
    round; a bad round anywhere, an entry after the end or a bad static part
    gives exactly resolve's problems."""
    doc = load(FINISHED[0])
    if where == "last":
        doc["orders"][-1] = {"1": {"decision": "store", "store": 99}}
    elif where == "first":
        doc["orders"][0] = {"2": doc["orders"][0]["1"]}
    elif where == "extra":
        doc["orders"].append(None)
    else:
        doc["seed"] = ""
    problems = refusal(audit_document, doc)
    assert problems == refusal(resolve, doc)
    code = {
        "last": "store/not_enough_grain",
        "first": "step/not_acting",
        "extra": "match/too_many_rounds",
        "static": "match/bad_seed",
    }[where]
    assert [p.code for p in problems] == [code]


def test_a_match_with_no_round_closed_is_unfinished() -> None:
    doc = load(FINISHED[0])
    doc["orders"] = []
    with pytest.raises(RuleError) as err:
        audit_document(doc)
    assert err.value.codes == ["audit/unfinished"]
    assert "0 of its steps have closed and step 1 (the hire of season 1 of 6)" in str(err.value)


# ---- (e) the JSON --------------------------------------------------------------------------


def test_as_dict_is_formats_shape() -> None:
    got = audit_document(load(FINISHED[0])).as_dict()
    assert got == {
        "seats": {
            "1": {"actual": 3, "best_last_season": 5, "gain": 2},
            "2": {"actual": 6, "best_last_season": 8, "gain": 2},
        }
    }
    for entry in got["seats"].values():
        assert list(entry) == ["actual", "best_last_season", "gain"]
    assert json.loads(json.dumps(got)) == got


def test_as_dict_seats_in_order_and_no_order_given() -> None:
    report = MatchAudit(
        {2: SeatAudit(2, "B", 3, 3, {"decision": "grain"}), 1: SeatAudit(1, "A", 4, 6)}
    )
    assert report.as_dict() == {
        "seats": {
            "1": {"actual": 4, "best_last_season": 6, "gain": 2},
            "2": {"actual": 3, "best_last_season": 3, "gain": 0},
        }
    }
    assert list(report.as_dict()["seats"]) == ["1", "2"]


# ---- (f) the text --------------------------------------------------------------------------


def test_text_names_every_seat_and_its_player() -> None:
    doc = load(FINISHED[1])
    doc["players"][0]["name"] = 'Ana <b>&amp;</b> "Bo"'
    text = audit_text(audit_document(doc))
    lines = text.splitlines()
    assert lines[1] == ""
    assert lines[2:] == [
        'Seat 1 (Ana <b>&amp;</b> "Bo") ended with 3 stored grain; the best order in the '
        "last economy step would have ended with 5 (2 more).",
        "Seat 2 (P2) ended with 15 stored grain; the best order in the last economy step "
        "would have ended with 21 (6 more).",
        "Seat 3 (P3) ended with 21 stored grain; the best order in the last economy step "
        "would have ended with 22 (1 more).",
        "Seat 4 (P4) ended with 19 stored grain; no other order in the last economy step "
        "would have stored more.",
    ]
    assert "FF" not in text and "&lt;" not in text and "{" not in text


# ---- the budget ----------------------------------------------------------------------------


def test_golden_audits_are_fast() -> None:
    audit_document(load(FINISHED[0]))  # the solver loaded
    for path in FINISHED:
        doc = load(path)
        began = time.perf_counter()
        audit_document(doc)
        assert time.perf_counter() - began < 1.0, path.name


def test_six_seat_full_matches_are_audited_well_within_the_budget() -> None:
    """The largest matches: 6 seats, full length; median and worst time."""
    rng = random.Random("ff-audit-timing")
    audit_document(load(FINISHED[0]))
    times = []
    for _ in range(5):
        doc, _ = random_match(rng, 6, "full")
        began = time.perf_counter()
        audit_document(doc)
        times.append(time.perf_counter() - began)
    assert statistics.median(times) < 0.5 and max(times) < 1.0, times
    assert 5 * max(times) <= audit_module.AUDIT_BUDGET_SECONDS


def test_an_exhausted_budget_is_an_error_not_a_guess() -> None:
    with pytest.raises(RuleError) as err:
        audit_document(load(FINISHED[0]), budget=0.0)
    assert err.value.codes == ["audit/solver"]
    assert "no figure is given" in str(err.value)
    assert audit_module.AUDIT_BUDGET_SECONDS > 0


def test_the_default_budget_is_read_at_each_call(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(audit_module, "AUDIT_BUDGET_SECONDS", 0.0)
    with pytest.raises(RuleError) as err:
        audit_document(load(FINISHED[0]))
    assert err.value.codes == ["audit/solver"]


def test_a_solve_not_proved_optimal_gives_no_figure(monkeypatch: pytest.MonkeyPatch) -> None:
    """Any status but OPTIMAL (here FEASIBLE, as a solve cut short by its
    time limit would answer) is audit/solver, never a figure."""
    from ortools.sat.python import cp_model

    solve = cp_model.CpSolver.solve

    def feasible(solver: cp_model.CpSolver, model: cp_model.CpModel, *rest: Any) -> Any:
        solve(solver, model, *rest)
        return cp_model.FEASIBLE

    monkeypatch.setattr(cp_model.CpSolver, "solve", feasible)
    with pytest.raises(RuleError) as err:
        audit_document(load(FINISHED[0]))
    assert err.value.codes == ["audit/solver"]
    assert "FEASIBLE" in str(err.value)
