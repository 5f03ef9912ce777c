"""The `referee` command line: malformed files are refused with exit status 2 and a clear
message on stderr (never a traceback); summaries and map checks print what they promise."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from conftest import ENGINE_ONLY, GOLDEN, GOLDEN_ROOT, REPO, invoke_cli

from referee.matchfile import seed_digest

GOLDEN_FULL = GOLDEN / "01-full-game.match.json"
THREE_RAPIDS = REPO / "seeds" / "maps" / "three-rapids.json"


def golden_doc() -> dict[str, Any]:
    return json.loads(GOLDEN_FULL.read_text(encoding="utf-8"))


def _write(tmp_path: Path, text: str, name: str = "match.json") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def _duplicate_key_text() -> str:
    text = json.dumps(golden_doc())
    placed = '"E": "5L"'
    assert text.count(placed) == 1
    return text.replace(placed, f'{placed}, "E": "5R"')


def _bad_map() -> str:
    doc = golden_doc()
    river = json.loads(THREE_RAPIDS.read_text(encoding="utf-8"))
    river["forks"][3]["left"][0]["color"] = "purple"
    doc["map"] = river
    return json.dumps(doc)


def _mutated(change: Callable[[dict[str, Any]], None]) -> Callable[[], str]:
    def build() -> str:
        doc = copy.deepcopy(golden_doc())
        change(doc)
        return json.dumps(doc)

    return build


def _unknown_card(doc):
    doc["draft"]["2"][5] = "ZZ"


def _two_players(doc):
    doc["players"] = doc["players"][:2]


def _negative_garnets(doc):
    doc["players"][1]["garnets"] = -3


def _no_placements(doc):
    del doc["placements"]


def _bad_direction(doc):
    doc["votes"][1]["3"] = ["L", "sideways", "R"]


def _colour_mismatch(doc):
    doc["placements"]["1"]["A"] = "1R"  # A is red/green; 1R is a blue slot


MALFORMED = {
    "bad-json": (lambda: '{"ruleset": "rocky-river", "map": ', "json/invalid", ["not valid JSON"]),
    "nan": (lambda: '{"seed": NaN}', "json/invalid", ["NaN"]),
    "repeated-key": (_duplicate_key_text, "json/duplicate_key", ["'E'", "twice"]),
    "bad-map": (_bad_map, "map/unknown_color", ["purple", "4L"]),
    "unknown-card": (_mutated(_unknown_card), "draft/unknown_card", ["“ZZ”", "seat 2"]),
    "two-players": (_mutated(_two_players), "match/player_count", ["exactly 3", "not 2"]),
    "negative-garnets": (_mutated(_negative_garnets), "match/bad_garnets", ["-3"]),
    "votes-no-placements": (
        _mutated(_no_placements),
        "match/votes_without_placements",
        ["'placements'"],
    ),
    "bad-direction": (_mutated(_bad_direction), "rafting/bad_direction", ["“sideways”", "seat 3"]),
    "colour-mismatch": (_mutated(_colour_mismatch), "mapping/color_mismatch", ["1R", "blue"]),
}


def assert_refused(result, code: str, fragments: list[str]) -> None:
    assert result.exit_code == 2, (result.exit_code, result.output)
    assert isinstance(result.exception, SystemExit)
    assert "Traceback" not in result.stderr
    assert result.stdout == ""
    assert result.stderr.startswith("error: ")
    assert f"[{code}]" in result.stderr
    for fragment in fragments:
        assert fragment in result.stderr, (fragment, result.stderr)


@pytest.mark.parametrize("as_json", [True, False], ids=["json", "summary"])
@pytest.mark.parametrize("case", sorted(MALFORMED))
def test_malformed_match_file_is_refused(tmp_path, run_cli, case, as_json) -> None:
    """docs/contracts/rocky-river/FORMAT.md: an order or file that breaks a rule -> exit 2, a
    message per problem."""
    build, code, fragments = MALFORMED[case]
    path = _write(tmp_path, build())
    args = ["resolve", "--file", str(path)] + (["--json"] if as_json else [])
    assert_refused(run_cli(args), code, fragments)


def test_file_that_is_not_utf8_is_refused(tmp_path, run_cli) -> None:
    path = tmp_path / "latin1.json"
    path.write_bytes('{"seed": "Zürich"}'.encode("latin-1"))
    assert_refused(run_cli(["resolve", "--file", str(path), "--json"]), "json/invalid", ["UTF-8"])


def test_missing_file_is_refused(tmp_path, run_cli) -> None:
    missing = tmp_path / "nope.match.json"
    result = run_cli(["resolve", "--file", str(missing), "--json"])
    assert_refused(result, "file/unreadable", ["nope.match.json"])


def test_every_problem_is_listed(tmp_path, run_cli) -> None:
    """docs/contracts/rocky-river/FORMAT.md: a message per problem; the header counts them."""
    doc = golden_doc()
    doc["players"][0]["garnets"] = -1
    doc["players"][2]["name"] = ""
    doc["seed"] = ""
    result = run_cli(["resolve", "--file", str(_write(tmp_path, json.dumps(doc))), "--json"])
    assert_refused(result, "match/bad_garnets", ["-1"])
    problem_lines = [line for line in result.stderr.splitlines() if line.startswith("  [")]
    assert [line.split("]")[0] for line in problem_lines] == [
        "  [match/bad_garnets",
        "  [match/bad_name",
        "  [match/bad_seed",
    ]
    assert "(3 problem(s))" in result.stderr


def test_non_object_match_file_is_refused(tmp_path, run_cli) -> None:
    result = run_cli(["resolve", "--file", str(_write(tmp_path, "[1, 2, 3]")), "--json"])
    assert result.exit_code == 2
    assert isinstance(result.exception, SystemExit)
    assert "Traceback" not in result.stderr and result.stderr.startswith("error: ")


def test_non_object_match_file_says_it_must_be_an_object(tmp_path, run_cli) -> None:
    result = run_cli(["resolve", "--file", str(_write(tmp_path, "[1, 2, 3]")), "--json"])
    assert "[match/not_object]" in result.stderr


def _names(doc: dict[str, Any]) -> dict[int, str]:
    return {p["seat"]: p["name"] for p in doc["players"]}


@pytest.mark.parametrize(
    "match_file", sorted(GOLDEN.glob("*.match.json")), ids=lambda p: p.name.split(".")[0]
)
def test_summary_prints_token_of_life_and_elimination_candidate(run_cli, match_file) -> None:
    """R9: the summary names the Token of Life and the Elimination Candidate (how decided),
    as in the golden expected result; a partial match has neither line."""
    expected = json.loads(
        match_file.with_name(match_file.name.replace(".match.", ".expected.")).read_text("utf-8")
    )
    names = _names(json.loads(match_file.read_text(encoding="utf-8")))
    result = run_cli(["resolve", "--file", str(match_file)])
    assert result.exit_code == 0, result.stderr
    out = result.stdout
    if "elimination_candidate" not in expected:
        assert "Token of Life" not in out and "Elimination Candidate" not in out
        return
    tol = expected["token_of_life"]
    tol_line = next(line for line in out.splitlines() if line.startswith("Token of Life: "))
    if tol is None:
        assert "nobody" in tol_line
    else:
        assert tol_line == f"Token of Life: seat {tol} ({names[tol]})"
    ec = expected["elimination_candidate"]
    ec_line = next(line for line in out.splitlines() if line.startswith("Elimination Candidate: "))
    assert ec_line.startswith(
        f"Elimination Candidate: seat {ec['seat']} ({names[ec['seat']]}), "
        f"decided by {ec['decided_by']}"
    )
    for seat, score in expected["scores"].items():
        control = expected["control"][seat]
        assert f"seat {seat} ({names[int(seat)]}): score {score}, control {control}" in out


def test_map_check_bundled_map_prints_balance(run_cli) -> None:
    """R3: three-rapids is valid: 9 forks, 27 branches; each seat 3 per colour, 9 in all,
    3 outer; each colour 9."""
    result = run_cli(["map", "check", "three-rapids"])
    assert result.exit_code == 0, result.stderr
    out, _, fairness = result.stdout.partition("Fairness")
    assert fairness  # the fairness report follows the balance summary
    assert "valid: 9 forks, 27 branches, 3 segments x 3 forks" in out
    rows = {
        line.split()[1]: line.split()[2:] for line in out.splitlines() if line.startswith("  seat")
    }
    assert rows == {s: ["3", "3", "3", "9", "3"] for s in ("1", "2", "3")}
    total = next(line for line in out.splitlines() if line.startswith("  total"))
    assert total.split()[1:] == ["9", "9", "9"]
    assert "Balanced" in out and "Warning" not in out


def test_map_check_json_output(run_cli) -> None:
    result = run_cli(["map", "check", "three-rapids", "--json"])
    assert result.exit_code == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["forks"] == 9 and data["branches"] == 27 and data["balanced"] is True
    assert data["per_seat"] == {"1": 9, "2": 9, "3": 9}
    assert data["per_color"] == {"red": 9, "green": 9, "blue": 9}
    assert data["outer_per_seat"] == {"1": 3, "2": 3, "3": 3}


def test_map_check_unbalanced_but_valid_map_warns(tmp_path, run_cli) -> None:
    """R3: a map need not be balanced; the balance summary warns."""
    river = json.loads(THREE_RAPIDS.read_text(encoding="utf-8"))
    river["forks"][0]["right"][0]["seat"] = 1
    result = run_cli(["map", "check", str(_write(tmp_path, json.dumps(river), "lopsided.json"))])
    assert result.exit_code == 0, result.stderr
    assert "is valid" in result.stdout and "Warning: the map is not balanced" in result.stdout


def test_map_check_bad_map_lists_every_problem(tmp_path, run_cli) -> None:
    """R3: a map that breaks several rules is rejected with every problem listed."""
    river = json.loads(THREE_RAPIDS.read_text(encoding="utf-8"))
    river["forks"][0]["left"][0]["color"] = "purple"
    river["forks"][1]["left"][0]["seat"] = 9
    river["forks"][2]["right"][0]["to"] = "f99"
    river["forks"][3]["left"][0]["id"] = "1R"
    river["forks"][4]["left"] = []
    river["forks"].append({"id": "f5", "left": [], "right": []})
    path = _write(tmp_path, json.dumps(river), "BADMAP.json")
    result = run_cli(["map", "check", str(path)])
    expected = {
        "map/unknown_color": "purple",
        "map/unknown_seat": "9",
        "map/dangling_to": "f99",
        "map/duplicate_branch": "'1R'",
        "map/empty_side": "'f5'",
        "map/duplicate_fork": "'f5'",
    }
    assert_refused(result, "map/unknown_color", list(expected.values()))
    problem_lines = [line for line in result.stderr.splitlines() if line.startswith("  [")]
    assert {line[3:].split("]")[0] for line in problem_lines} == set(expected)
    assert f"({len(problem_lines)} problem(s))" in result.stderr


def test_map_check_unknown_bundled_name_and_missing_file(run_cli, tmp_path) -> None:
    assert_refused(run_cli(["map", "check", "no-such-map"]), "map/unknown", ["'no-such-map'"])
    missing = tmp_path / "gone.json"
    assert_refused(run_cli(["map", "check", str(missing)]), "file/unreadable", ["gone.json"])


# ---- `referee demo`: links for the server the user will start ---------------------


def _demo_links(output: str) -> dict[str, str]:
    import re

    return dict(re.findall(r"^(.+?)\s{2,}(\S+)$", output, re.M))


@pytest.mark.parametrize(
    ("args", "env", "base"),
    [
        ([], None, "http://127.0.0.1:5000/"),  # `referee serve`'s default port
        (["--port", "5123"], None, "http://127.0.0.1:5123/"),
        (["--port", "5123"], "https://referee.example.org/", "https://referee.example.org/"),
        (["--base-url", "http://example.test:8000/"], None, "http://example.test:8000/"),
        (["--base-url", "http://a.test"], "https://b.test", "http://a.test/"),
    ],
)
def test_demo_prints_links_for_the_port_or_address_given(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    run_cli,
    args: list[str],
    env: str | None,
    base: str,
) -> None:
    monkeypatch.setenv("REFEREE_DATABASE_URL", f"sqlite:///{tmp_path / 'demo.db'}")
    if env is None:
        monkeypatch.delenv("REFEREE_PUBLIC_BASE_URL", raising=False)
    else:
        monkeypatch.setenv("REFEREE_PUBLIC_BASE_URL", env)
    result = run_cli(["demo", *args])
    assert result.exit_code == 0, result.output
    links = _demo_links(result.stdout)
    assert len(links) == 5  # the host, three seats, the public page
    assert all(url.startswith(base) for url in links.values()), links
    assert links["host (keep private)"].startswith(f"{base}host/")
    assert links["public page"].startswith(f"{base}matches/")


def test_demo_refuses_a_port_out_of_range(tmp_path: Path, monkeypatch, run_cli) -> None:
    monkeypatch.setenv("REFEREE_DATABASE_URL", f"sqlite:///{tmp_path / 'demo.db'}")
    result = run_cli(["demo", "--port", "0"])
    assert result.exit_code == 2 and "Traceback" not in result.output


@pytest.mark.parametrize(
    "example",
    sorted(p for p in GOLDEN_ROOT.glob("*/*.match.json") if p.parent.name not in ENGINE_ONLY),
    ids=str,
)
def test_a_match_file_with_a_name_resolves_as_without(tmp_path, run_cli, example: Path) -> None:
    """An export carries the match's name, a key docs/contracts/rocky-river/FORMAT.md does not
    name: it changes nothing."""
    doc = json.loads(example.read_text(encoding="utf-8"))
    plain = run_cli(["resolve", "--file", str(example), "--json"])
    named = _write(tmp_path, json.dumps({**doc, "name": "Friday night"}))
    with_name = run_cli(["resolve", "--file", str(named), "--json"])
    assert plain.exit_code == 0 and with_name.exit_code == 0, with_name.stderr
    assert json.loads(with_name.stdout) == json.loads(plain.stdout)


@pytest.mark.parametrize(
    "match_file",
    [
        GOLDEN_ROOT / "rocky-river" / "01-full-game.match.json",
        GOLDEN_ROOT / "forks-2e" / "01-three-players.match.json",
        GOLDEN_ROOT / "forks" / "01-three-players.match.json",
    ],
    ids=["rocky-river", "forks-2e", "forks"],
)
def test_a_seed_that_does_not_match_its_published_digest_is_refused(
    tmp_path, run_cli, match_file
) -> None:
    """R10: a golden file given the digest of its own seed resolves; given the
    digest of another seed it is refused (``match/seed_mismatch``), every game."""
    doc = json.loads(match_file.read_text(encoding="utf-8"))
    doc["seed_sha256"] = seed_digest(doc["seed"])
    ok = run_cli(["resolve", "--file", str(_write(tmp_path, json.dumps(doc))), "--json"])
    assert ok.exit_code == 0, ok.stderr
    doc["seed_sha256"] = seed_digest(doc["seed"] + "!")
    result = run_cli(["resolve", "--file", str(_write(tmp_path, json.dumps(doc))), "--json"])
    assert_refused(result, "match/seed_mismatch", [doc["seed_sha256"], seed_digest(doc["seed"])])


def test_version_names_the_distribution() -> None:
    """``referee --version`` reads the installed distribution, named for the
    product (pyproject.toml), not for one game."""
    from importlib.metadata import version

    result = invoke_cli(["--version"])
    assert result.exit_code == 0, result.output
    assert version("play-by-post-referee") in result.stdout
