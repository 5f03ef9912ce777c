"""Golden cases: every tests/golden/<game>/*.match.json resolves to its *.expected.json.

One folder per game, named as its ruleset; drop a new pair into one and it is
picked up. Each folder must stay identical to its contract's shared examples
(``../shared/<game>/examples``; RULES.md: any implementation must reproduce them).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import ENGINE_ONLY, GOLDEN_ROOT, REPO, SHARED, SHARED_ROOT

MATCH_SUFFIX = ".match.json"
EXPECTED_SUFFIX = ".expected.json"
GAMES = sorted(p.name for p in GOLDEN_ROOT.iterdir() if p.is_dir())
CASES = sorted(
    p for p in GOLDEN_ROOT.glob(f"*/*{MATCH_SUFFIX}") if p.parent.name not in ENGINE_ONLY
)


def _expected_for(match_file: Path) -> Path:
    return match_file.with_name(match_file.name.removesuffix(MATCH_SUFFIX) + EXPECTED_SUFFIX)


@pytest.mark.parametrize("game", GAMES)
def test_golden_folder_has_cases(game: str) -> None:
    assert sorted((GOLDEN_ROOT / game).glob(f"*{MATCH_SUFFIX}")), f"no cases for {game}"


def test_every_game_has_a_golden_folder() -> None:
    from referee.ruleset import ruleset_names

    assert set(ruleset_names()) <= set(GAMES)


def test_engine_only_games_are_not_registered() -> None:
    """A game leaves ENGINE_ONLY when it is registered, so that its cases then
    run through `referee resolve` like every other game's."""
    from referee.ruleset import ruleset_names

    assert ENGINE_ONLY.issubset(GAMES)
    assert not ENGINE_ONLY & set(ruleset_names()), "registered: remove it from ENGINE_ONLY"


def test_every_expected_file_has_a_match_file() -> None:
    for expected in GOLDEN_ROOT.glob(f"*/*{EXPECTED_SUFFIX}"):
        stem = expected.name.removesuffix(EXPECTED_SUFFIX)
        assert (expected.parent / f"{stem}{MATCH_SUFFIX}").is_file(), (
            f"{expected.name} has no match file"
        )


@pytest.mark.parametrize(
    "match_file", CASES, ids=lambda p: f"{p.parent.name}/{p.name.removesuffix(MATCH_SUFFIX)}"
)
def test_golden_case(match_file: Path, run_cli) -> None:
    expected_file = _expected_for(match_file)
    assert expected_file.is_file(), f"{match_file.name} has no {expected_file.name}"
    result = run_cli(["resolve", "--file", str(match_file), "--json"])
    assert result.exit_code == 0, result.stderr
    assert result.stderr == ""
    assert json.loads(result.stdout) == json.loads(expected_file.read_text(encoding="utf-8"))


def _files(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if p.is_file()}


# the toy game (tests/toy/) is the tests' own: it has no shared contract
@pytest.mark.parametrize("game", [g for g in GAMES if g != "toy"])
def test_golden_folder_matches_shared_examples(game: str) -> None:
    examples = SHARED_ROOT / game / "examples"
    if not examples.is_dir():
        pytest.skip(f"the shared rules folder {examples} does not exist beside the repository")
    ours, theirs = _files(GOLDEN_ROOT / game), _files(examples)
    assert sorted(ours) == sorted(theirs), "tests/golden and the shared examples list other files"
    differing = [name for name in ours if ours[name] != theirs[name]]
    assert differing == [], f"these files differ from {examples}: {differing}"


def test_bundled_map_matches_shared_map() -> None:
    shared_map = SHARED / "maps" / "three-rapids.json"
    if not shared_map.is_file():
        pytest.skip(f"the shared map {shared_map} does not exist beside the repository")
    ours = REPO / "seeds" / "maps" / "three-rapids.json"
    assert ours.read_bytes() == shared_map.read_bytes()
