"""Forks match files through ``referee resolve``: malformed files are refused
with exit status 2 and one line per problem, each with its stable code, and
nothing is repaired (docs/contracts/forks-2e/FORMAT.md)."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from conftest import GOLDEN_ROOT

GOLDEN = GOLDEN_ROOT / "forks-2e"
FULL = json.loads((GOLDEN / "01-three-players.match.json").read_text(encoding="utf-8"))


def _refused(run_cli: Callable[..., Any], tmp_path: Path, doc: Any) -> list[str]:
    path = tmp_path / "match.json"
    path.write_text(doc if isinstance(doc, str) else json.dumps(doc), encoding="utf-8")
    result = run_cli(["resolve", "--file", str(path), "--json"])
    assert result.exit_code == 2, result.stdout
    assert result.stdout == ""
    assert "Traceback" not in result.stderr
    return [line.strip() for line in result.stderr.splitlines()[1:] if line.strip()]


def _with(change: Callable[[dict[str, Any]], None]) -> dict[str, Any]:
    doc = copy.deepcopy(FULL)
    change(doc)
    return doc


CASES: list[tuple[str, Callable[[dict[str, Any]], None], list[str]]] = [
    ("one player", lambda d: d.update(players=d["players"][:1]), ["match/player_count"]),
    (
        "seven players",
        lambda d: d.update(
            players=[{"seat": s, "name": f"N{s}", "garnets": 0} for s in range(1, 8)]
        ),
        ["match/player_count"],
    ),
    ("seat 4 of 3", lambda d: d["players"][2].update(seat=4), ["match/bad_seat"]),
    ("negative garnets", lambda d: d["players"][0].update(garnets=-1), ["match/bad_garnets"]),
    ("bad tiebreak", lambda d: d["settings"].update(tiebreak=["blue"]), ["settings/bad_order"]),
    (
        "tiebreak twice the same",
        lambda d: d["settings"].update(tiebreak=["blue", "blue", "grey", "green", "red"]),
        ["settings/bad_order"],
    ),
    (
        "a name that reorders text",
        lambda d: d["settings"].update(names={"blue": "Blue\u202eX"}),
        ["settings/bad_names"],
    ),
    (
        "two destinations named alike",
        lambda d: d["settings"].update(names={"blue": "Home", "red": "home "}),
        ["settings/bad_names"],
    ),
    ("merge not a flag", lambda d: d["settings"].update(merge="yes"), ["settings/not_a_flag"]),
    ("unknown setting", lambda d: d["settings"].update(speed=2), ["settings/unknown"]),
    ("no seed", lambda d: d.pop("seed"), ["match/bad_seed"]),
    ("other ruleset", lambda d: d.update(ruleset="forks-3e"), ["match/unknown_ruleset"]),
    ("orders not a list", lambda d: d.update(orders={}), ["match/bad_orders"]),
    ("too many rounds", lambda d: d["orders"].append(None), ["match/too_many_rounds"]),
    ("order for seat 4", lambda d: d["orders"][0].update({"4": None}), ["match/unknown_seat"]),
    ("unknown card", lambda d: d["orders"][0].update({"1": {"keep": "grey-13"}}), ["card/unknown"]),
    (
        "card not a string",
        lambda d: d["orders"][0].update({"1": {"keep": 8}}),
        ["card/not_a_string"],
    ),
    ("order not object", lambda d: d["orders"][0].update({"1": "grey-8"}), ["order/not_object"]),
    ("missing key", lambda d: d["orders"][0].update({"1": {}}), ["order/missing_key"]),
    (
        "other step's key",
        lambda d: d["orders"][0].update({"1": {"market": "grey-8"}}),
        ["order/wrong_step"],
    ),
    (
        "extra key",
        lambda d: d["orders"][0].update({"1": {"keep": "grey-8", "why": "x"}}),
        ["order/extra_key"],
    ),
    (
        "keep not dealt",
        lambda d: d["orders"][0].update({"1": {"keep": "red-9"}}),
        ["keep/not_dealt"],
    ),
    (
        "market not passed",
        lambda d: d["orders"][1].update({"1": {"market": "grey-8"}}),
        ["market/not_passed"],
    ),
    (
        "two bad orders in a round",
        lambda d: d["orders"][0].update({"1": {"keep": "red-9"}, "2": {"keep": "nope"}}),
        ["keep/not_dealt", "card/unknown"],
    ),
    (
        "bad host_entered",
        lambda d: d.update(host_entered=[{"round": 99, "seat": 1}]),
        ["match/bad_host_entered"],
    ),
    (
        "several problems at once",
        lambda d: (d["players"][0].update(garnets="7"), d["settings"].update(merge=None)),
        ["match/bad_garnets", "settings/not_a_flag"],
    ),
]


@pytest.mark.parametrize(("what", "change", "codes"), CASES, ids=[c[0] for c in CASES])
def test_a_malformed_file_is_refused_with_one_line_per_problem(
    what: str,
    change: Callable[[dict[str, Any]], None],
    codes: list[str],
    run_cli: Callable[..., Any],
    tmp_path: Path,
) -> None:
    lines = _refused(run_cli, tmp_path, _with(change))
    assert [line.split("]")[0].lstrip("[") for line in lines] == codes, lines
    assert all(len(line.split("] ", 1)[1]) > 10 for line in lines), lines


def test_a_bad_order_names_round_seat_and_card(run_cli: Callable[..., Any], tmp_path: Path) -> None:
    doc = _with(lambda d: d["orders"][2].update({"3": {"keep": "yellow-3"}}))
    (line,) = _refused(run_cli, tmp_path, doc)
    assert "round 3" in line and "seat 3" in line and "yellow-3" in line
    assert "keep one of" in line  # says what could be named


@pytest.mark.parametrize(
    "text",
    ["", "[]", "null", '"x"', "{", '{"ruleset": "forks-2e", "ruleset": "forks-2e"}'],
)
def test_not_a_match_file(text: str, run_cli: Callable[..., Any], tmp_path: Path) -> None:
    assert _refused(run_cli, tmp_path, text)


def test_a_file_may_stop_after_any_round_and_names_change_no_result(
    run_cli: Callable[..., Any], tmp_path: Path
) -> None:
    full = run_cli(["resolve", "--file", str(GOLDEN / "01-three-players.match.json"), "--json"])
    renamed = _with(lambda d: d["settings"].update(names={"grey": "Steel", "red": "Rust"}))
    path = tmp_path / "renamed.json"
    path.write_text(json.dumps(renamed), encoding="utf-8")
    assert run_cli(["resolve", "--file", str(path), "--json"]).stdout == full.stdout
    for k in range(len(FULL["orders"])):
        partial = _with(lambda d, k=k: d.update(orders=d["orders"][:k]))
        path.write_text(json.dumps(partial), encoding="utf-8")
        result = run_cli(["resolve", "--file", str(path), "--json"])
        assert result.exit_code == 0, result.stderr
        out = json.loads(result.stdout)
        assert len(out["marketed"]) == k // 2
        assert ("scores" in out) is False


def test_the_summary_reads_like_the_result(run_cli: Callable[..., Any]) -> None:
    result = run_cli(["resolve", "--file", str(GOLDEN / "01-three-players.match.json")])
    assert result.exit_code == 0
    assert "Token of Life: P2" in result.stdout
    assert "Elimination Candidate: P1 (decided by score)" in result.stdout
