"""`referee audit` and the fairness part of `referee map check`."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import GOLDEN

from referee.rulesets.rocky_river import parse_match, resolve
from referee.rulesets.rocky_river.audit import audit
from referee.rulesets.rocky_river.data import load_deck


def test_audit_file_json_matches_the_library(run_cli) -> None:  # type: ignore[no-untyped-def]
    path = GOLDEN / "01-full-game.match.json"
    result = run_cli(["audit", "--file", str(path), "--json"])
    assert result.exit_code == 0, result.stderr
    data = json.loads(result.stdout)
    expected = audit(resolve(parse_match(json.loads(path.read_text()))), load_deck()).as_dict()
    assert data == expected
    for seat in ("1", "2", "3"):
        s = data["seats"][seat]
        assert s["actual"] <= s["best_votes"] <= s["best_joint"]
        assert s["actual"] <= s["best_placement"] <= s["best_joint"]


def test_audit_text_names_every_seat_and_goal(run_cli) -> None:  # type: ignore[no-untyped-def]
    result = run_cli(["audit", "--file", str(GOLDEN / "02-ties.match.json")])
    assert result.exit_code == 0
    for text in ("Seat 1 (P1)", "Seat 3 (P3)", "lead over the best opponent", "best play"):
        assert text in result.stdout


def test_audit_refuses_a_match_before_mapping(tmp_path: Path, run_cli) -> None:  # type: ignore[no-untyped-def]
    doc = json.loads((GOLDEN / "01-full-game.match.json").read_text())
    del doc["placements"], doc["votes"]
    path = tmp_path / "early.json"
    path.write_text(json.dumps(doc))
    result = run_cli(["audit", "--file", str(path)])
    assert result.exit_code == 2
    assert "[audit/too_early]" in result.stderr
    assert "Traceback" not in result.stderr


def test_audit_needs_one_source(run_cli) -> None:  # type: ignore[no-untyped-def]
    assert run_cli(["audit"]).exit_code == 2


def test_map_check_reports_fairness(run_cli) -> None:  # type: ignore[no-untyped-def]
    text = run_cli(["map", "check", "three-rapids"])
    assert text.exit_code == 0
    assert "seat 1: from -45 to 78" in text.stdout
    assert "No seat is favoured" in text.stdout
    data = json.loads(run_cli(["map", "check", "three-rapids", "--json"]).stdout)
    assert data["fairness"]["favoured"] is None
    assert data["fairness"]["seats"]["2"] == {"low": -45, "high": 78}


def test_bench_prints_its_figures(run_cli) -> None:  # type: ignore[no-untyped-def]
    result = run_cli(["bench", "--quick", "--json"])
    assert result.exit_code == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["resolve_matches"] == 300 and data["resolve_matches_per_s"] > 0
    assert data["resolve_repeats"] == 5  # the figure is the best of five runs
    assert data["audit_matches"] == 3
    assert 0 < data["audit_seconds_median"] <= data["audit_seconds_max"]
    # Forks 2nd Edition beside Rocky River: whole merge matches resolved, 6-player audits
    assert data["forks_resolve_matches"] == 100 and data["forks_resolve_repeats"] == 5
    assert data["forks_resolve_4p_merge_per_s"] > 0 and data["forks_resolve_6p_merge_per_s"] > 0
    assert data["forks_audit_matches"] == 3 and data["forks_audit_players"] == 6
    assert 0 < data["forks_audit_seconds_median"] <= data["forks_audit_seconds_max"]
    # Forks (1st edition): 5-player audits with swap and merge
    assert data["forks1_audit_matches"] == 3
    assert 0 < data["forks1_audit_seconds_median"] <= data["forks1_audit_seconds_max"]
    # Forfort: whole 3- and 4-player matches resolved, 4-player FO22 audits
    assert data["forfort_resolve_matches"] == 10
    assert data["forfort_resolve_3p_per_s"] > 0 and data["forfort_resolve_4p_per_s"] > 0
    assert data["forfort_audit_matches"] == 3
    assert 0 < data["forfort_audit_seconds_median"] <= data["forfort_audit_seconds_max"]
    # Fortune & Famine: whole 4-player short and 6-player full matches resolved
    assert data["fortune_famine_resolve_matches"] == 10
    assert data["fortune_famine_resolve_4p_short_per_s"] > 0
    assert data["fortune_famine_resolve_6p_full_per_s"] > 0
    assert data["fortune_famine_audit_matches"] == 3
    assert (
        0 < data["fortune_famine_audit_seconds_median"] <= data["fortune_famine_audit_seconds_max"]
    )
