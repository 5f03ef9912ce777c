"""Forks match files through the CLI: every example resolves exactly, a bad
file exits 2 with one line per problem, the audit of the example, and an
unfinished match's audit refused."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import GOLDEN_ROOT

from referee.matchfile import seed_digest
from referee.rulesets.forks import match as m

GOLDEN = GOLDEN_ROOT / "forks"
EXAMPLES = sorted(GOLDEN.glob("*.match.json"))


def _write(tmp_path: Path, doc: Any) -> str:
    path = tmp_path / "match.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    return str(path)


def _doc(name: str) -> dict[str, Any]:
    return json.loads((GOLDEN / f"{name}.match.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda p: p.name)
def test_every_example_resolves_to_its_expected_file(run_cli, example: Path) -> None:
    result = run_cli(["resolve", "--file", str(example), "--json"])
    assert result.exit_code == 0, result.stderr
    expected = example.with_name(example.name.replace(".match.", ".expected."))
    assert json.loads(result.stdout) == json.loads(expected.read_text(encoding="utf-8"))


def test_the_summary_reads_the_match(run_cli) -> None:
    result = run_cli(["resolve", "--file", str(GOLDEN / "02-two-players-swap.match.json")])
    assert result.exit_code == 0, result.stderr
    out = result.stdout
    assert "Forks, 2 players (swap variant); 16 of 16 rounds closed" in out
    assert "Turn 4 (P2 draws, P1 invests): swapped apidae-9 for needle-5" in out
    assert "Token of Life: P2" in out and "Elimination Candidate: P1 (decided by score)" in out


def test_a_bad_file_exits_2_with_one_line_per_problem(tmp_path: Path, run_cli) -> None:
    doc = _doc("01-three-players")
    doc["orders"][0] = {"1": {"keep": "dtv-99"}}  # an unknown card
    doc["orders"][1] = {"3": None}  # a seat that does not act
    doc["orders"][2] = {"2": {"keep": "dtv-8", "swap": {"give": "x", "take": "y"}}}  # no swap
    doc["settings"]["merge"] = "no"
    result = run_cli(["resolve", "--file", _write(tmp_path, doc), "--json"])
    assert result.exit_code == 2
    assert "Traceback" not in result.stderr
    lines = [line for line in result.stderr.splitlines() if line.startswith("  [")]
    found = [line.split("]")[0].strip(" [") for line in lines]
    assert sorted(found) == sorted(
        ["card/unknown", "match/not_acting", "swap/not_allowed", "settings/not_a_flag"]
    )
    assert any("orders[0] (round 1 (turn 1, draw step)), seat 1" in line for line in lines)
    assert any("'dtv-99'" in line for line in lines)


def test_a_refused_order_names_its_round_and_seat(tmp_path: Path, run_cli) -> None:
    doc = _doc("01-three-players")
    doc["orders"][5] = {"1": {"invest": "wildrock-8"}}  # seat 1's own kept card: not passed
    result = run_cli(["resolve", "--file", _write(tmp_path, doc)])
    assert result.exit_code == 2
    assert "[invest/not_passed] orders[5] (round 6 (turn 3, invest step)), seat 1:" in (
        result.stderr
    )


def test_not_a_match_file_exits_2(tmp_path: Path, run_cli) -> None:
    for doc in ([], {"ruleset": "forks"}, {"ruleset": "forks", "players": "x", "orders": 3}):
        result = run_cli(["resolve", "--file", _write(tmp_path, doc)])
        assert result.exit_code == 2 and "Traceback" not in result.stderr


def test_an_export_with_name_and_digest_resolves_the_same(tmp_path: Path, run_cli) -> None:
    doc = _doc("03-four-players-merge-missing-orders")
    plain = m.resolve(doc)
    doc.update({"name": "Friday", "seed_sha256": seed_digest(doc["seed"])})
    result = run_cli(["resolve", "--file", _write(tmp_path, doc), "--json"])
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout) == plain


def test_the_audit_example(run_cli) -> None:
    result = run_cli(["audit", "--file", str(GOLDEN / "01-three-players.match.json"), "--json"])
    assert result.exit_code == 0, result.stderr
    got = json.loads(result.stdout)["seats"]
    want = json.loads((GOLDEN / "01-three-players.audit.json").read_text())["seats"]
    assert {s: {k: v[k] for k in ("actual", "best_invest", "gain")} for s, v in got.items()} == (
        want
    )
    assert got["2"]["invest"][1] == {
        "round": 8,
        "turn": 4,
        "actual": "apidae-7",
        "best": "wildrock-9",
        "defaulted": False,
    }


def test_the_audit_in_words(run_cli) -> None:
    """Without --json, cards by their names, as players know them (the JSON's
    ``text``, a contract, keeps their ids)."""
    path = str(GOLDEN / "01-three-players.match.json")
    result = run_cli(["audit", "--file", path])
    assert result.exit_code == 0, result.stderr
    assert "P1's invest choices were the best they could make (score 18)." in result.stdout
    assert (
        "P2 could have scored 38 instead of 10 by investing Wild Rock Telecoms 9 instead of "
        "Apidae Pharmaceuticals 7 in turn 4" in result.stdout
    )
    assert "wildrock-9" not in result.stdout and "apidae-7" not in result.stdout
    text = json.loads(run_cli(["audit", "--file", path, "--json"]).stdout)["seats"]["2"]["text"]
    assert "by investing wildrock-9 instead of apidae-7 in turn 4" in text


def test_an_unfinished_match_is_not_audited(run_cli) -> None:
    path = GOLDEN / "04-partial-after-round-5.match.json"
    result = run_cli(["audit", "--file", str(path), "--json"])
    assert result.exit_code == 2
    assert "[audit/unfinished]" in result.stderr and "5 of its 24 rounds" in result.stderr
