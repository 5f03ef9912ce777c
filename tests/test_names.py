"""Players' names (issue 10, Medium 5): one line of plain text each, something
visible, and no two within a match that look alike; refused by the engine's
player-list reader, so by the service and ``referee resolve --file`` too."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import GOLDEN, REPO, invoke_cli

from referee.errors import Problem, RuleError
from referee.names import look_alikes, name_fault, skeleton
from referee.rulesets.rocky_river.match import parse_match, parse_players
from referee.rulesets.rocky_river.ruleset import RockyRiver

GOLDEN_FULL = GOLDEN / "01-full-game.match.json"


def players(*names: str) -> list[dict[str, Any]]:
    return [{"seat": s, "name": n, "garnets": 5} for s, n in enumerate(names, start=1)]


def problems_of(raw: object) -> list[Problem]:
    found: list[Problem] = []
    parse_players(raw, lambda *a: found.append(Problem(*a)))
    return found


# ---- one line of plain text ------------------------------------------------------

REFUSED_CHARACTERS = {
    "\n": "U+000A",
    "\r": "U+000D",
    "\t": "U+0009",
    "\x0b": "U+000B",
    "\x1b": "U+001B",
    "\x85": "U+0085",
    "\u2028": "U+2028",
    "\u2029": "U+2029",
    "\u202a": "U+202A",
    "\u202e": "U+202E",
    "\u2066": "U+2066",
    "\u2069": "U+2069",
    # the direction marks (left-to-right, right-to-left, Arabic letter mark):
    # invisible, and they reorder the neutral characters around them on screen
    "\u200e": "U+200E",
    "\u200f": "U+200F",
    "\u061c": "U+061C",
}
BIDI = {"\u202a", "\u202e", "\u2066", "\u2069", "\u200e", "\u200f", "\u061c"}


@pytest.mark.parametrize("char", list(REFUSED_CHARACTERS), ids=list(REFUSED_CHARACTERS.values()))
def test_a_name_with_a_control_line_break_or_bidi_character_is_refused(char: str) -> None:
    found = problems_of(players("Ana", f"Bo{char}Token of Life: Bo", "Cy"))
    assert [p.code for p in found] == ["match/bad_name"]
    assert found[0].field == "players[1]"
    assert "Seat 2" in found[0].message and REFUSED_CHARACTERS[char] in found[0].message
    assert "\n" not in found[0].message and char not in found[0].message
    if char in BIDI:
        assert f"a bidirectional-text control ({REFUSED_CHARACTERS[char]})" in found[0].message


@pytest.mark.parametrize("name", ["B\u200do", "\u0627\u200d\u0644", "Ana\u200c"])
def test_joiners_stay_accepted_beside_the_direction_marks(name: str) -> None:
    """The zero-width joiner and non-joiner (U+200D, U+200C) shape scripts that
    need them: accepted, unlike their neighbours the direction marks U+200E/F."""
    assert name_fault(name) is None
    assert problems_of(players("Zed", name, "Cy")) == []


@pytest.mark.parametrize("name", ["\u200b", " \u00ad ", "\u3164", "\u2060\ufe0f", "\u2800 \u200d"])
def test_a_name_of_nothing_but_invisible_characters_is_refused(name: str) -> None:
    found = problems_of(players("Ana", "Bo", name))
    assert [p.code for p in found] == ["match/bad_name"]
    assert "Seat 3" in found[0].message and "invisible" in found[0].message


def test_every_name_problem_is_listed() -> None:
    found = problems_of(players("A\nna", "Bo\t", "\u200b"))
    assert [p.field for p in found] == ["players[0]", "players[1]", "players[2]"]
    assert {p.code for p in found} == {"match/bad_name"}


# ---- look-alike names ------------------------------------------------------------

ALIKE = [
    ("case", "Ana", "ANA"),
    ("zero width space", "Ana", "A\u200bna"),
    ("zero width joiner", "Bo", "B\u200do"),
    ("soft hyphen", "Cy", "C\u00ady"),
    ("variation selector", "Cy", "Cy\ufe0f"),
    ("fullwidth", "Ana", "\uff21\uff4e\uff41"),
    ("mathematical bold", "Ana", "\U0001d400na"),
    ("Cyrillic A", "Ana", "\u0410na"),
    ("Cyrillic a", "Ana", "An\u0430"),
    ("Greek omicron", "Bob", "B\u03bfb"),
    ("Greek capital omicron", "BOB", "B\u039fB"),
    ("digit zero", "Bob", "B0b"),
    ("l and I", "Al", "AI"),
    ("l and 1", "Al", "A1"),
    ("rn and m", "Bern", "Bem"),
    ("spaces", "Ana Bo", "Ana   Bo"),
    ("no-break space", "Ana Bo", "Ana\u00a0Bo"),
    ("composed and decomposed", "Jos\u00e9", "Jose\u0301"),
    ("ligature", "fin", "\ufb01n"),
]


@pytest.mark.parametrize(("a", "b"), [(a, b) for _, a, b in ALIKE], ids=[k for k, _, _ in ALIKE])
def test_names_that_look_alike_are_refused_naming_both_seats(a: str, b: str) -> None:
    assert skeleton(a) == skeleton(b)
    found = problems_of(players(a, "Zed", b))
    assert [p.code for p in found] == ["match/confusable_names"]
    message = found[0].message
    assert "seats 1 and 3" in message and f'"{a}"' in message, message
    assert found[0].field == "players[2]"


def test_invisible_characters_are_written_out_in_the_message() -> None:
    (found,) = problems_of(players("Ana", "A\u200bna", "Cy"))
    assert '"A<U+200B>na"' in found.message


def test_three_look_alike_names_give_two_problems() -> None:
    found = problems_of(players("Ana", "ANA", "\u0410na"))
    assert [p.code for p in found] == ["match/confusable_names"] * 2
    assert "seats 1 and 2" in found[0].message and "seats 1 and 3" in found[1].message


DIFFERENT = [
    ("Ana", "Anna"),
    ("Jos\u00e9", "Jose"),
    ("P1", "P2"),
    ("Bo", "Bob"),
    ("\u0391\u03bb\u03ad\u03be\u03b7\u03c2", "\u0391\u03bb\u03ad\u03be\u03b7"),
    ("\u5f20\u4f1f", "\u738b\u4f1f"),
]


@pytest.mark.parametrize(("a", "b"), DIFFERENT)
def test_names_that_differ_are_accepted(a: str, b: str) -> None:
    assert problems_of(players(a, b, "Cy")) == []
    assert look_alikes([(1, a), (2, b)]) == []


def _names_in(doc: Any) -> list[list[str]]:
    return [[p["name"] for p in doc["players"]]]


def test_every_name_of_the_golden_files_seeds_and_tests_is_accepted() -> None:
    lists: list[list[str]] = []
    for path in [*GOLDEN.glob("*.match.json"), *(REPO / "seeds" / "demo").glob("*.json")]:
        lists += _names_in(json.loads(path.read_text(encoding="utf-8")))
    lists.append(["Ana", "Bo", "Cy"])  # tests/service/conftest.py
    lists.append(["P1", "P2", "P3"])  # tests/conftest.py, random play
    # tests/service/test_security.py: markup in names is text, not refused
    lists.append(
        [
            f"p{i}<script>alert('p{i}')</script>\"><img src=x onerror=alert('p{i}')>"
            for i in (1, 2, 3)
        ]
    )
    lists.append(["Friday *match*", "Ana Bo", "\U0001f9a6 \u00f1"])
    assert len(lists) >= 8
    for names in lists:
        assert problems_of(players(*names)) == [], names
        assert all(name_fault(n) is None for n in names)


def golden_with(*names: str) -> dict[str, Any]:
    """The golden full game with these player names."""
    doc: dict[str, Any] = json.loads(GOLDEN_FULL.read_text(encoding="utf-8"))
    for p, name in zip(doc["players"], names, strict=True):
        p["name"] = name
    return doc


def test_the_engine_refuses_them_in_a_match_file_and_at_setup() -> None:
    doc = golden_with("Ana", "Bo\nToken of Life: Bo", "\u0410na")
    with pytest.raises(RuleError) as refused:
        parse_match(doc)
    assert refused.value.codes == ["match/bad_name", "match/confusable_names"]
    doc["players"][1]["name"] = "Bo"
    with pytest.raises(RuleError) as alike:
        RockyRiver().check_setup({"map": "three-rapids"}, doc["players"])
    assert alike.value.codes == ["match/confusable_names"]


# ---- referee resolve --file ------------------------------------------------------


def _resolve(tmp_path: Path, doc: dict[str, Any]) -> Any:
    path = tmp_path / "match.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    return invoke_cli(["resolve", "--file", str(path), "--json"])


def _problem_lines(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("  [")]


def test_resolve_refuses_a_name_holding_a_new_line(tmp_path: Path) -> None:
    doc = golden_with("Ana\nToken of Life: Ana", "Bo", "Cy\u202e")
    result = _resolve(tmp_path, doc)
    assert result.exit_code == 2 and result.stdout == ""
    assert result.stderr.startswith("error: ") and "(2 problem(s))" in result.stderr
    lines = result.stderr.splitlines()
    assert len(lines) == 3  # the header, then one line per problem
    assert _problem_lines(result.stderr) == lines[1:]
    assert lines[1].startswith("  [match/bad_name] Seat 1: ") and "U+000A" in lines[1]
    assert lines[2].startswith("  [match/bad_name] Seat 3: ") and "U+202E" in lines[2]
    assert not any(line.startswith("Token of Life") for line in lines)


def test_resolve_refuses_two_look_alike_names(tmp_path: Path) -> None:
    doc = golden_with("Ana", "Bo", "\u0410NA")  # Cyrillic A, and upper case
    result = _resolve(tmp_path, doc)
    assert result.exit_code == 2 and result.stdout == ""
    lines = result.stderr.splitlines()
    assert len(lines) == 2 and "(1 problem(s))" in lines[0]
    assert lines[1].startswith("  [match/confusable_names] seats 1 and 3")
    assert '"Ana"' in lines[1] and '"\u0410NA"' in lines[1]
