"""FF22's audit, quickly (the quick run leaves tests/fortune_famine/test_audit.py
out, as every test_audit.py: tests/conftest.py): the worked example's
figures (FF23, and FORMAT's audit JSON) equal the brute force's, the text
names every seat, an unfinished match and a spent budget are refused."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from referee.errors import RuleError
from referee.rulesets.fortune_famine.audit import audit_document, audit_text
from referee.rulesets.fortune_famine.match import parse_match, play

from .audit_brute import brute_best

GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "fortune-famine"


def load(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((GOLDEN / f"{name}.match.json").read_text("utf-8"))
    return data


def test_the_worked_example_equals_format_and_the_brute_force() -> None:
    doc = load("01-two-players-short")
    report = audit_document(doc)
    assert report.as_dict() == {
        "seats": {
            "1": {"actual": 3, "best_last_season": 5, "gain": 2},
            "2": {"actual": 6, "best_last_season": 8, "gain": 2},
        }
    }
    spec = parse_match(doc)
    before = play(replace(spec, orders=spec.orders[:-1]))
    others = {int(k): v for k, v in doc["orders"][-1].items()}
    for seat, a in report.seats.items():
        assert a.best == brute_best(before, seat, others)
    text = audit_text(report)
    assert "Seat 1 (P1) ended with 3 stored grain;" in text
    assert "Seat 2 (P2) ended with 6 stored grain;" in text


def test_unfinished_and_out_of_budget_are_refused() -> None:
    with pytest.raises(RuleError) as err:
        audit_document(load("04-partial-mid-season"))
    assert err.value.codes == ["audit/unfinished"]
    with pytest.raises(RuleError) as err:
        audit_document(load("01-two-players-short"), budget=0.0)
    assert err.value.codes == ["audit/solver"]
