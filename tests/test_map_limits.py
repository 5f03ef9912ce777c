"""The limits on a map (issue 10, High 2 and Medium 5): size (segments, forks a
segment, path length, forks, branches), id length and characters, the name's
length and characters. Each limit: a map just at it is accepted, one just past
it is refused with its own code and a message naming the value and the limit.
The contract is silent on size; docs/rules.md ("Limits") gives the choice."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from big_maps import chain_map, layered_map

from referee.errors import RuleError
from referee.rulesets.rocky_river.data import load_bundled_map
from referee.rulesets.rocky_river.river_map import (
    MAX_BRANCHES,
    MAX_FORKS,
    MAX_FORKS_PER_SEGMENT,
    MAX_ID_LENGTH,
    MAX_NAME_LENGTH,
    MAX_PATH_LENGTH,
    MAX_SEGMENTS,
    parse_map,
)
from referee.rulesets.rocky_river.ruleset import RockyRiver

PLAYERS = [{"seat": s, "name": f"P{s}", "garnets": s} for s in (1, 2, 3)]


def refusal(doc: Any) -> RuleError:
    with pytest.raises(RuleError) as exc:
        parse_map(doc)
    return exc.value


def three_rapids() -> dict[str, Any]:
    return copy.deepcopy(load_bundled_map("three-rapids").to_json())


def rename_fork(doc: dict[str, Any], old: str, new: str) -> dict[str, Any]:
    for fork in doc["forks"]:
        if fork["id"] == old:
            fork["id"] = new
        for side in ("left", "right"):
            for b in fork[side]:
                if b["to"] == old:
                    b["to"] = new
    if doc["start"] == old:
        doc["start"] = new
    return doc


def test_the_limits_hold_every_map_the_project_uses() -> None:
    river = load_bundled_map("three-rapids")
    assert river.segments <= MAX_SEGMENTS and river.forks_per_segment <= MAX_FORKS_PER_SEGMENT
    # the tests' largest: 12 forks in one segment (tests/test_picture.py), 68 branches
    assert MAX_FORKS_PER_SEGMENT >= 12 and MAX_PATH_LENGTH >= 12 and MAX_BRANCHES >= 68


# ---- size ----------------------------------------------------------------------------------


def test_segments_at_the_limit_accepted_one_more_refused() -> None:
    assert parse_map(chain_map(MAX_SEGMENTS, segments=MAX_SEGMENTS)).segments == MAX_SEGMENTS
    exc = refusal(chain_map(MAX_SEGMENTS + 1, segments=MAX_SEGMENTS + 1))
    assert exc.codes == ["map/too_many_segments"]
    assert f"is {MAX_SEGMENTS + 1}; at most {MAX_SEGMENTS}" in str(exc)


def test_forks_per_segment_at_the_limit_accepted_one_more_refused() -> None:
    n = MAX_FORKS_PER_SEGMENT
    assert parse_map(chain_map(n)).forks_per_segment == n
    exc = refusal(chain_map(n + 1))
    assert exc.codes == ["map/too_many_forks_per_segment"]
    assert f"is {n + 1}; at most {n}" in str(exc)


def test_path_length_at_the_limit_accepted_one_more_refused() -> None:
    assert parse_map(chain_map(MAX_PATH_LENGTH, segments=4)).path_length == MAX_PATH_LENGTH
    # 5 x 5: each count within its own limit, the path one fork too long
    over = MAX_PATH_LENGTH + 1
    assert over == 5 * 5 and min(MAX_SEGMENTS, MAX_FORKS_PER_SEGMENT) >= 5
    exc = refusal(chain_map(over, segments=5))
    assert exc.codes == ["map/too_deep"]
    assert f"pass {over} forks" in str(exc) and f"at most {MAX_PATH_LENGTH}" in str(exc)


def test_forks_at_the_limit_accepted_one_more_refused() -> None:
    river = parse_map(layered_map(MAX_FORKS, 4, 6))
    assert len(river.forks) == MAX_FORKS and len(river.branches) == MAX_BRANCHES
    exc = refusal(layered_map(MAX_FORKS + 1, 4, 6))
    assert exc.codes == ["map/too_many_forks"]
    assert f"has {MAX_FORKS + 1} forks; at most {MAX_FORKS}" in str(exc)


def test_branches_over_the_limit_are_refused_before_anything_else() -> None:
    doc = layered_map(MAX_FORKS, 4, 6)
    extra = dict(doc["forks"][-1]["left"][0], id="extra")
    doc["forks"][-1]["left"].append(extra)  # 241 branches
    exc = refusal(doc)
    assert exc.codes == ["map/too_many_branches"]
    assert f"has {MAX_BRANCHES + 1} branches; at most {MAX_BRANCHES}" in str(exc)
    # a side of 100,000 branches: one problem, not 100,000
    small = three_rapids()
    small["forks"][0]["left"] = [{"id": f"b{i}", "color": "pink"} for i in range(100_000)]
    exc = refusal(small)
    assert exc.codes == ["map/too_many_branches"]
    # within the total, a side with three is still refused as before (R3)
    small = three_rapids()
    small["forks"][0]["left"].append(dict(small["forks"][0]["left"][0], id="third"))
    assert refusal(small).codes == ["map/too_many_branches"]


def test_a_ten_thousand_fork_map_is_refused_at_once() -> None:
    """Refused from its length alone: one problem, no fork read, no recursion."""
    doc = chain_map(10_000)
    exc = refusal(doc)
    assert exc.codes == ["map/too_many_forks_per_segment", "map/too_many_forks"]
    wide = layered_map(60, 4, 6)
    wide["forks"] += [{"id": f"x{i}", "left": [], "right": []} for i in range(10_000)]
    assert refusal(wide).codes == ["map/too_many_forks"]


def test_a_200_fork_chain_is_refused_at_creation() -> None:
    with pytest.raises(RuleError) as exc:
        RockyRiver().check_setup({"map": chain_map(200, segments=5)}, PLAYERS)
    assert set(exc.value.codes) == {"map/too_many_forks_per_segment", "map/too_many_forks"}


# ---- ids ------------------------------------------------------------------------------------


def test_ids_at_the_length_limit_accepted_one_more_refused() -> None:
    fork_id, branch_id = "f" * MAX_ID_LENGTH, "b" * MAX_ID_LENGTH
    doc = rename_fork(three_rapids(), "f1", fork_id)
    doc["forks"][0]["left"][0]["id"] = branch_id
    river = parse_map(doc)
    assert fork_id in river.forks and branch_id in river.branches
    long_fork, long_branch = fork_id + "f", branch_id + "b"
    doc = rename_fork(three_rapids(), "f1", long_fork)
    doc["forks"][0]["left"][0]["id"] = long_branch
    exc = refusal(doc)
    assert exc.codes == ["map/id_too_long", "map/id_too_long"]
    assert f"is {MAX_ID_LENGTH + 1} characters long; at most {MAX_ID_LENGTH}" in str(exc)


@pytest.mark.parametrize(
    ("char", "named"),
    [
        (" ", "a space"),
        ("\t", "a tab"),
        ("\n", "a line break (U+000A)"),
        ("\r", "a line break (U+000D)"),
        ("\x00", "a control character (U+0000)"),
        ("\x1b", "a control character (U+001B)"),
        ("\x85", "a line break (U+0085)"),
        ("\u2028", "a line break (U+2028)"),
        ("\u202e", "a bidirectional-text control (U+202E)"),
        ("\u200b", "the invisible character U+200B"),
        ("<", "the character '<'"),
        ("*", "the character '*'"),
        ("[", "the character '['"),
        ("é", "the character 'é'"),
    ],
)
@pytest.mark.parametrize("what", ["fork", "branch"])
def test_ids_with_space_control_or_markup_characters_are_refused(
    char: str, named: str, what: str
) -> None:
    bad_id = f"a{char}b"
    doc = three_rapids()
    if what == "fork":
        rename_fork(doc, "f2", bad_id)
    else:
        doc["forks"][1]["right"][0]["id"] = bad_id
    exc = refusal(doc)
    assert exc.codes == ["map/bad_id"]
    message = exc.problems[0].message
    assert named in message and "letters A-Z and a-z" in message
    assert "\n" not in message and "\r" not in message  # shown escaped


def test_ids_of_letters_digits_dashes_underscores_and_dots_are_accepted() -> None:
    doc = rename_fork(three_rapids(), "f3", "Rapid-3_b.v2")
    doc["forks"][0]["left"][0]["id"] = "1L.inner-side_A"
    river = parse_map(doc)
    assert "Rapid-3_b.v2" in river.forks and "1L.inner-side_A" in river.branches


def test_a_message_shows_a_huge_id_cut_short() -> None:
    doc = three_rapids()
    doc["forks"][0]["left"][0]["id"] = "x" * 100_000
    doc["forks"][0]["left"][0]["color"] = "pink"
    exc = refusal(doc)
    assert set(exc.codes) == {"map/id_too_long", "map/unknown_color"}
    assert all(len(p.message) < 300 for p in exc.problems)


# ---- the map's name ----------------------------------------------------------------------------


def test_name_at_the_length_limit_accepted_one_more_refused() -> None:
    doc = three_rapids()
    doc["name"] = "N" * MAX_NAME_LENGTH
    assert parse_map(doc).name == doc["name"]
    doc["name"] += "N"
    exc = refusal(doc)
    assert exc.codes == ["map/name_too_long"]
    assert f"is {MAX_NAME_LENGTH + 1} characters long; at most {MAX_NAME_LENGTH}" in str(exc)


@pytest.mark.parametrize(
    "char",
    [
        "\n",
        "\r",
        "\t",
        "\x00",
        "\x07",
        "\x1b",
        "\x7f",
        "\x85",
        "\u2028",
        "\u202e",
        "\u200e",
        "\u061c",
    ],
)
def test_a_name_with_control_characters_or_line_breaks_is_refused(char: str) -> None:
    doc = three_rapids()
    doc["name"] = f"Three{char}Rapids"
    exc = refusal(doc)
    assert exc.codes == ["map/bad_name"]
    assert f"U+{ord(char):04X}" in str(exc)


def test_a_name_may_hold_any_other_text() -> None:
    doc = three_rapids()
    doc["name"] = "Rivière <b>Noire</b> & [b]Co[/b] — *fast*"
    assert parse_map(doc).name == doc["name"]


# ---- R3 alone, for maps stored before the limits ---------------------------------------------


def test_r3_alone_accepts_what_only_the_limits_refuse() -> None:
    doc = chain_map(200, segments=5)
    doc["name"] = "Old\tmap"
    doc["forks"][0]["left"][0]["id"] = "an old id with spaces"
    river = parse_map(doc, limits=False)
    assert len(river.forks) == 200 and river.path_length == 200
    with pytest.raises(RuleError):
        parse_map(doc)
