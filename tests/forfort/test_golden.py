"""FO examples: every tests/golden/forfort/*.match.json resolves, through the
pure engine, to its *.expected.json in full (the folder is the contract's
examples unchanged: tests/test_golden.py keeps it so). Once Forfort is
registered, tests/test_golden.py runs them through `referee resolve` too."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from referee.rulesets.forfort.match import resolve

GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "forfort"
CASES = sorted(GOLDEN.glob("*.match.json"))


def test_there_are_four_examples() -> None:
    assert len(CASES) == 4


@pytest.mark.parametrize("match_file", CASES, ids=lambda p: p.name.removesuffix(".match.json"))
def test_example_reproduces_exactly(match_file: Path) -> None:
    expected = match_file.with_name(match_file.name.replace(".match.json", ".expected.json"))
    doc = json.loads(match_file.read_text(encoding="utf-8"))
    assert resolve(doc) == json.loads(expected.read_text(encoding="utf-8"))


@pytest.mark.parametrize("match_file", CASES, ids=lambda p: p.name.removesuffix(".match.json"))
def test_details_hold_the_result(match_file: Path) -> None:
    doc = json.loads(match_file.read_text(encoding="utf-8"))
    result, details = resolve(doc), resolve(doc, details=True)
    assert {k: details[k] for k in result} == result
