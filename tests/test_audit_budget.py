"""The solvers' time budget (issue 10, High 2): every CP-SAT solve made for a
request (a host's audit, a map's fairness report) has a wall-time limit, the
solves of one call share a total, and when the time runs out before the solver
proved an optimum the report says so (``complete`` false, the figure ``None``)
instead of guessing. Maps within the limits are answered exactly in time."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from big_maps import layered_map
from conftest import GOLDEN
from ortools.sat.python import cp_model

from referee.rulesets.rocky_river import audit as audit_module
from referee.rulesets.rocky_river.audit import (
    _Budget,
    _Model,
    _Situation,
    audit,
    audit_document,
    audit_text,
    fairness_text,
    map_fairness,
)
from referee.rulesets.rocky_river.data import load_bundled_map, load_deck
from referee.rulesets.rocky_river.match import parse_match, resolve
from referee.rulesets.rocky_river.river_map import (
    MAX_FORKS,
    MAX_FORKS_PER_SEGMENT,
    MAX_PATH_LENGTH,
    MAX_SEGMENTS,
    SEATS,
    parse_map,
)

DECK = load_deck()


def golden(name: str) -> dict[str, Any]:
    doc: dict[str, Any] = json.loads((GOLDEN / f"{name}.match.json").read_text())
    return doc


def test_fairness_out_of_time_says_incomplete_and_gives_no_wrong_number(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    river = load_bundled_map("three-rapids")
    exact = map_fairness(river, DECK)
    assert exact.complete and exact.as_dict()["complete"] is True
    monkeypatch.setattr(audit_module, "FAIRNESS_BUDGET_SECONDS", 0.001)
    cut = map_fairness(river, DECK)
    assert not cut.complete
    data = cut.as_dict()
    assert data["complete"] is False
    # no verdict from partial figures
    assert data["threshold"] is None and data["unbalanced"] is None and data["favoured"] is None
    unknown = 0
    for seat in SEATS:
        for got, want in (
            (cut.seats[seat].low, exact.seats[seat].low),
            (cut.seats[seat].high, exact.seats[seat].high),
        ):
            if got is None:
                unknown += 1
            else:
                assert got == want  # whatever is given is exact
    assert unknown > 0
    text = fairness_text(cut)
    assert "Not complete" in text and "No verdict" in text and " ?" in text
    assert "No seat is favoured" not in text


def test_audit_out_of_time_says_incomplete_and_gives_no_wrong_number(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    doc = golden("01-full-game")
    exact = audit_document(doc).as_dict()
    assert exact["complete"] is True
    monkeypatch.setattr(audit_module, "AUDIT_BUDGET_SECONDS", 0.001)
    report = audit_document(doc)
    assert not report.complete
    cut = report.as_dict()
    assert cut["complete"] is False
    unknown = 0
    for seat in ("1", "2", "3"):
        for goal in (None, "lead_over_best", "lead_over_worst"):
            got = cut["seats"][seat] if goal is None else cut["seats"][seat][goal]
            want = exact["seats"][seat] if goal is None else exact["seats"][seat][goal]
            assert got["actual"] == want["actual"]
            for kind in ("best_votes", "best_placement", "best_joint"):
                if got[kind] is None:
                    unknown += 1
                    assert got["orders"][kind] is None
                else:
                    assert got[kind] == want[kind]
                    assert got["orders"][kind] is not None
    assert unknown > 0
    text = audit_text(report, {1: "P1", 2: "P2", 3: "P3"})
    assert "Not complete" in text and "?" in text


def test_a_solve_stopped_by_its_time_limit_gives_no_answer(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A solve that runs but cannot prove its optimum in its share of the budget
    (CP-SAT answers FEASIBLE or UNKNOWN) gives nothing, and the budget says so."""
    river = parse_map(layered_map(MAX_FORKS, 4, 6))
    sit = _Situation(river, DECK, river.path_length, (), {}, {})
    model = _Model(sit)
    model.path_free()
    model.placements(dict.fromkeys(DECK.ids))
    model.scoring()
    model.objective(1, "score")
    ran: list[tuple[float, str]] = []
    solve = cp_model.CpSolver.solve

    def spy(solver: cp_model.CpSolver, m: cp_model.CpModel, *rest: Any) -> Any:
        status = solve(solver, m, *rest)
        ran.append((solver.parameters.max_time_in_seconds, solver.status_name(status)))
        return status

    monkeypatch.setattr(cp_model.CpSolver, "solve", spy)
    budget = _Budget(0.002, 1)  # time to start, not to prove anything
    assert model.solve(budget) is None
    assert budget.ran_out
    assert len(ran) == 1 and 0 < ran[0][0] <= 0.002 and ran[0][1] in ("FEASIBLE", "UNKNOWN")


def test_the_budget_shares_time_and_stops_at_the_deadline() -> None:
    budget = _Budget(10.0, 6)
    first = budget.next_limit()
    assert 4.0 < first <= 5.0  # three times an even split of what is left
    for _ in range(4):
        budget.next_limit()
    assert 9.0 < budget.next_limit() <= 10.0  # the last solve may use all that is left
    assert not budget.ran_out
    spent = _Budget(0.0, 3)
    assert spent.next_limit() <= 0 and spent.ran_out


@pytest.mark.parametrize(
    ("segments", "per_segment"),
    [(MAX_SEGMENTS, MAX_PATH_LENGTH // MAX_SEGMENTS), (2, MAX_FORKS_PER_SEGMENT)],
)
def test_the_largest_hard_maps_allowed_are_answered_exactly_within_the_budget(
    segments: int, per_segment: int
) -> None:
    """The most forks the limits allow, every fork with four branches, seats and
    colours mixed: the fairness report and a full audit of a finished match
    are complete (every figure proved) with the default budgets."""
    river = parse_map(layered_map(MAX_FORKS, segments, per_segment, seed=segments))
    assert len(river.forks) == MAX_FORKS and len(river.branches) == 4 * MAX_FORKS
    fairness = map_fairness(river, DECK)
    assert fairness.complete
    assert all(r.low is not None and r.high is not None for r in fairness.seats.values())
    rng = random.Random(segments)
    doc = {
        "ruleset": "rocky-river",
        "map": river.to_json(),
        "players": [{"seat": s, "name": f"P{s}", "garnets": s} for s in SEATS],
        "seed": "budget",
        "draft": {str(s): rng.sample(list(DECK.ids), len(DECK.ids)) for s in SEATS},
    }
    hands = resolve(parse_match(doc)).hands
    doc["placements"] = {
        str(s): {
            c: rng.choice(
                [b for b in river.branches.values() if DECK.by_id[c].value_for(b.color) is not None]
            ).id
            for c in hands[s]
        }
        for s in SEATS
    }
    doc["votes"] = [
        {str(s): [rng.choice("LR") for _ in range(per_segment)] for s in SEATS}
        for _ in range(segments)
    ]
    report = audit(resolve(parse_match(doc)), DECK)
    assert report.complete
    for seat in report.seats.values():
        for goal in seat.goals.values():
            assert goal.actual <= goal.best_votes.value <= goal.best_joint.value  # type: ignore[operator]
            assert goal.actual <= goal.best_placement.value <= goal.best_joint.value  # type: ignore[operator]
