"""FF examples: every tests/golden/fortune-famine/*.match.json resolves,
through the pure engine, to its *.expected.json in full (the folder is the
contract's examples unchanged: tests/test_golden.py keeps it so). Once
Fortune & Famine is registered, tests/test_golden.py runs them through
`referee resolve` too."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from referee.rulesets.fortune_famine.match import detail_json, parse_match, play, resolve
from referee.rulesets.fortune_famine.rebuild import table_from_details

GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "fortune-famine"
CASES = sorted(GOLDEN.glob("*.match.json"))


def _load(match_file: Path) -> tuple[dict[str, object], dict[str, object]]:
    expected = match_file.with_name(match_file.name.replace(".match.json", ".expected.json"))
    return (
        json.loads(match_file.read_text(encoding="utf-8")),
        json.loads(expected.read_text(encoding="utf-8")),
    )


def test_there_are_four_examples() -> None:
    assert len(CASES) == 4


@pytest.mark.parametrize("match_file", CASES, ids=lambda p: p.name.removesuffix(".match.json"))
def test_example_reproduces_exactly(match_file: Path) -> None:
    doc, expected = _load(match_file)
    assert resolve(doc) == expected


@pytest.mark.parametrize("match_file", CASES, ids=lambda p: p.name.removesuffix(".match.json"))
def test_details_hold_the_result(match_file: Path) -> None:
    doc, expected = _load(match_file)
    details = resolve(doc, details=True)
    assert {k: details[k] for k in expected} == expected


@pytest.mark.parametrize("match_file", CASES, ids=lambda p: p.name.removesuffix(".match.json"))
def test_the_table_made_again_from_details_is_the_same(match_file: Path) -> None:
    doc, _ = _load(match_file)
    details = resolve(doc, details=True)
    assert detail_json(table_from_details(details)) == details
    played = play(parse_match(doc))
    rebuilt = table_from_details(details)
    for attr in ("seats", "hire", "attack_index", "season", "phase", "next", "years"):
        assert getattr(rebuilt, attr) == getattr(played, attr), attr
