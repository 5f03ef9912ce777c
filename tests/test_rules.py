"""Hand-written cases per rule of RULES.md (R1-R10); each test names the rule it checks.

Expected values are worked out by hand from the rule text (or with hashlib for R10),
never copied from the engine's output.
"""

from __future__ import annotations

import copy
import hashlib
import json
from typing import Any

import pytest
from conftest import REPO, build_match

from referee.errors import RuleError
from referee.rulesets.rocky_river.balance import balance
from referee.rulesets.rocky_river.draft import Conflict, conflict_winner, garnet_order, run_draft
from referee.rulesets.rocky_river.mapping import slot_totals
from referee.rulesets.rocky_river.match import parse_match, resolve, resolve_document
from referee.rulesets.rocky_river.orders import check_draft, check_placements, check_votes
from referee.rulesets.rocky_river.rafting import raft_round, scores_and_control
from referee.rulesets.rocky_river.result import elimination_candidate, token_of_life
from referee.rulesets.rocky_river.river_map import parse_map

# R2's card table, typed in from RULES.md.
CARD_TABLE: dict[str, tuple[tuple[str, int], tuple[str, int]]] = {
    "A": (("red", -5), ("green", 1)),
    "B": (("green", -4), ("blue", 2)),
    "C": (("blue", -3), ("red", 3)),
    "D": (("red", -2), ("green", 4)),
    "E": (("green", -1), ("blue", 5)),
    "F": (("blue", 1), ("red", 1)),
    "G": (("red", 2), ("green", 2)),
    "H": (("green", 3), ("blue", 3)),
    "I": (("blue", 4), ("red", 4)),
    "J": (("red", 5), ("green", 5)),
    "K": (("green", -5), ("blue", 1)),
    "L": (("blue", -4), ("red", 2)),
    "M": (("red", -3), ("green", 3)),
    "N": (("green", -2), ("blue", 4)),
    "O": (("blue", -1), ("red", 5)),
    "P": (("red", 1), ("green", 1)),
    "Q": (("green", 2), ("blue", 2)),
    "R": (("blue", 3), ("red", 3)),
    "S": (("red", 4), ("green", 4)),
    "T": (("green", 5), ("blue", 5)),
    "U": (("blue", -5), ("red", 1)),
    "V": (("red", -4), ("green", 2)),
    "W": (("green", -3), ("blue", 3)),
    "X": (("blue", -2), ("red", 4)),
    "Y": (("red", -1), ("green", 5)),
    "Z": (("green", 1), ("blue", 1)),
    "AS": (("blue", 2), ("red", 2)),
}
IDS = [*"ABCDEFGHIJKLMNOPQRSTUVWXYZ", "AS"]
THREE_RAPIDS: dict[str, Any] = json.loads(
    (REPO / "seeds" / "maps" / "three-rapids.json").read_text(encoding="utf-8")
)


def h(seed: str, *parts: object) -> str:
    """R10's h(...), written out independently of the engine."""
    return hashlib.sha256(":".join([seed, *map(str, parts)]).encode("utf-8")).hexdigest()


def ranked(*first: str) -> list[str]:
    """A full priority list: ``first`` then every other card in canonical order."""
    return [*first, *(c for c in IDS if c not in first)]


def map_branches(doc: dict[str, Any]) -> list[dict[str, Any]]:
    return [b for f in doc["forks"] for b in f["left"] + f["right"]]


def codes_of(exc: pytest.ExceptionInfo[RuleError]) -> list[str]:
    return [p.code for p in exc.value.problems]


def br(bid: str, color: str, seat: int, to: str | None) -> dict[str, Any]:
    return {"id": bid, "color": color, "seat": seat, "to": to}


def small_map() -> dict[str, Any]:
    """One segment of two forks; f1 has two branches on the left, f2 two on the right."""
    return {
        "name": "Small",
        "segments": 1,
        "forks_per_segment": 2,
        "start": "f1",
        "forks": [
            {
                "id": "f1",
                "left": [br("aL", "red", 1, "f2"), br("aLL", "green", 2, "f2")],
                "right": [br("aR", "blue", 3, "f2")],
            },
            {
                "id": "f2",
                "left": [br("bL", "green", 3, None)],
                "right": [br("bR", "red", 1, None), br("bRR", "blue", 2, None)],
            },
        ],
    }


# --------------------------------------------------------------------------- R1


@pytest.mark.parametrize(
    ("garnets", "expected"),
    [
        ({1: 7, 2: 5, 3: 3}, (1, 2, 3)),
        ({1: 2, 2: 9, 3: 4}, (2, 3, 1)),
        ({1: 4, 2: 4, 3: 4}, (1, 2, 3)),
        ({1: 1, 2: 6, 3: 6}, (2, 3, 1)),
        ({1: 5, 2: 0, 3: 5}, (1, 3, 2)),
        ({1: 0, 2: 0, 3: 8}, (3, 1, 2)),
    ],
)
def test_r1_garnet_order_most_first_ties_by_lower_seat(garnets, expected) -> None:
    """R1: seats by garnets, most first; equal garnets ordered by seat, lower first."""
    assert garnet_order(garnets) == expected


def test_r1_r6_garnet_tie_broken_by_seat_in_a_draft_conflict() -> None:
    """R1/R6: seats 2 and 3 tie on the most garnets; conflict 1 goes to seat 2 (lower seat)."""
    lists = {1: ranked("B"), 2: ranked("A"), 3: ranked("A")}
    result = run_draft(lists, garnet_order({1: 3, 2: 8, 3: 8}))
    assert result.conflicts[0] == Conflict(1, 1, "A", (2, 3), 2)
    assert result.hands[2][0] == "A"
    # seat 3 lost and takes its next free card: B is held by seat 1, so C
    assert result.hands[1][0] == "B"
    assert result.hands[3][0] == "C"


def test_r1_players_garnets_must_be_whole_and_not_negative() -> None:
    """R1: garnets are a whole number, 0 or more; exactly seats 1, 2, 3."""
    doc = build_match(garnets=(0, -1, 2))
    doc["players"][2]["garnets"] = 2.5
    with pytest.raises(RuleError) as exc:
        parse_match(doc)
    assert codes_of(exc) == ["match/bad_garnets", "match/bad_garnets"]
    assert "-1" in exc.value.problems[0].message and "2.5" in exc.value.problems[1].message
    doc = build_match()
    doc["players"][2]["seat"] = 1
    with pytest.raises(RuleError) as exc:
        parse_match(doc)
    assert "match/duplicate_seat" in codes_of(exc)


# --------------------------------------------------------------------------- R2


def test_r2_deck_matches_the_rules_table(deck) -> None:
    """R2: 27 cards in canonical order A..Z, AS with the faces of the table."""
    assert list(deck.ids) == IDS
    for card in deck.cards:
        faces = tuple((f.color, f.value) for f in card.faces)
        assert faces == CARD_TABLE[card.id]
        assert faces[0][0] != faces[1][0], f"{card.id}: the two faces share a colour"


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("AS", "AS"),
        ("as", "AS"),
        ("Ace of Spades", "AS"),
        ("ace of spades", "AS"),
        ("  ACE   OF  SPADES ", "AS"),
        ("AoS", "AS"),
        ("aos", "AS"),
        ("Ace", "AS"),
        ("ACE", "AS"),
        ("j", "J"),
        (" z ", "Z"),
        ("A", "A"),
        ("a", "A"),
        ("AA", None),
        ("Ace of Hearts", None),
        ("", None),
        (None, None),
        (1, None),
    ],
)
def test_r2_card_names_and_aliases(deck, name, expected) -> None:
    """R2: ids are case-insensitive; Ace of Spades, AoS and Ace mean AS."""
    assert deck.canonical(name) == expected


def test_r2_draft_accepts_aliases_and_lowercase_and_outputs_canonical_ids(deck) -> None:
    """R2/R5: a list written with aliases and lowercase ids is read as canonical ids."""
    written = [c.lower() for c in IDS[:26]] + ["Ace of Spades"]
    written[0], written[-1] = written[-1], written[0]  # "Ace of Spades" first, "a" last
    expected = ["AS", *IDS[1:26], "A"]
    assert check_draft(written, deck) == expected
    for alias in ("AoS", "Ace", "as", "aCe Of sPaDeS"):
        assert check_draft([alias, *IDS[:26]], deck)[0] == "AS"


@pytest.mark.parametrize("second", ["AoS", "Ace", "ace of spades", "as"])
def test_r2_same_card_under_two_spellings_is_a_repeated_card(deck, second) -> None:
    """R2: naming the same card twice in one order, under any spelling, is a repeated card."""
    order = [*IDS, second]
    with pytest.raises(RuleError) as exc:
        check_draft(order, deck)
    assert codes_of(exc) == ["draft/duplicate_card"]
    message = exc.value.problems[0].message
    assert "AS" in message and second in message


def test_r2_placing_the_same_card_under_two_spellings_is_a_repeated_card(deck, river) -> None:
    """R2/R7: {"AS": ..., "aos": ...} places AS twice."""
    hand = ["AS", "A", "B", "C", "D", "E", "F", "G", "H"]
    raw = {"AS": "1R", "aos": "1LL"}
    with pytest.raises(RuleError) as exc:
        check_placements(raw, hand, deck, river)
    assert "mapping/duplicate_card" in codes_of(exc)
    dup = next(p for p in exc.value.problems if p.code == "mapping/duplicate_card")
    assert "AS" in dup.message and "aos" in dup.message


def test_r2_placements_with_aliases_are_returned_canonical(deck, river) -> None:
    """R2/R7: placement keys may be aliases or lowercase; the result uses canonical ids."""
    hand = ["B", "E", "H", "K", "N", "Q", "T", "W", "AS"]  # all have a blue face
    raw = {"Ace of Spades": "1R", **{c.lower(): "1R" for c in hand if c != "AS"}}
    assert check_placements(raw, hand, deck, river) == dict.fromkeys(hand, "1R")


# --------------------------------------------------------------------------- R3


def test_r3_three_rapids_is_balanced_as_described() -> None:
    """R3: 9 forks, 27 branches, each seat 9x, each colour 9x, each pair 3x, 3 outer per seat."""
    river = parse_map(THREE_RAPIDS)
    branches = map_branches(THREE_RAPIDS)
    assert len(THREE_RAPIDS["forks"]) == 9 and len(branches) == 27
    for seat in (1, 2, 3):
        assert sum(b["seat"] == seat for b in branches) == 9
        outer = [
            side[1]
            for f in THREE_RAPIDS["forks"]
            for side in (f["left"], f["right"])
            if len(side) == 2 and side[1]["seat"] == seat
        ]
        assert len(outer) == 3
        for color in ("red", "green", "blue"):
            assert sum(b["seat"] == seat and b["color"] == color for b in branches) == 3
    b = balance(river)
    assert b.balanced
    assert b.per_seat == {1: 9, 2: 9, 3: 9}
    assert b.per_color == {"red": 9, "green": 9, "blue": 9}
    assert b.outer_per_seat == {1: 3, 2: 3, 3: 3}


def test_r3_small_custom_map_is_valid_and_indexed() -> None:
    """R3: a 1 x 2 map with path-dependent sides parses; inner branch first, outer second."""
    river = parse_map(small_map())
    assert river.path_length == 2
    assert list(river.branches) == ["aL", "aLL", "aR", "bL", "bR", "bRR"]
    assert [b.id for b in river.forks["f1"].left] == ["aL", "aLL"]
    assert river.branches["aLL"].outer and not river.branches["aL"].outer
    assert river.segment_of("f1") == river.segment_of("f2") == 1


def test_r3_segment_of_a_fork_is_its_depth_over_forks_per_segment() -> None:
    """R3: fork number d belongs to segment ceil(d / forks_per_segment)."""
    river = parse_map(THREE_RAPIDS)
    for d in range(1, 10):
        assert river.segment_of(f"f{d}") == -(-d // 3)


def _bad_map(mutate) -> pytest.ExceptionInfo[RuleError]:
    doc = small_map()
    mutate(doc)
    with pytest.raises(RuleError) as exc:
        parse_map(doc)
    return exc


def test_r3_empty_side_is_refused() -> None:
    """R3: each side has 1 or 2 branches; an empty side is refused."""

    def mutate(doc):
        doc["forks"][1]["left"] = []

    exc = _bad_map(mutate)
    assert codes_of(exc) == ["map/empty_side"]
    assert "'f2'" in exc.value.problems[0].message and "left" in exc.value.problems[0].message


def test_r3_more_than_two_branches_on_a_side_is_refused() -> None:
    """R3: at most 2 branches on a side."""

    def mutate(doc):
        doc["forks"][0]["left"].append(br("aLLL", "blue", 3, "f2"))

    exc = _bad_map(mutate)
    assert codes_of(exc) == ["map/too_many_branches"]
    assert "'f1'" in exc.value.problems[0].message and "3" in exc.value.problems[0].message


def test_r3_unknown_colour_is_refused() -> None:
    """R3: a slot colour must be red, green or blue."""

    def mutate(doc):
        doc["forks"][0]["right"][0]["color"] = "purple"

    exc = _bad_map(mutate)
    assert codes_of(exc) == ["map/unknown_color"]
    assert "purple" in exc.value.problems[0].message and "aR" in exc.value.problems[0].message


@pytest.mark.parametrize("seat", [0, 4, "1", None, True])
def test_r3_unknown_seat_is_refused(seat) -> None:
    """R3: a portrait is a seat 1-3."""

    def mutate(doc):
        doc["forks"][1]["left"][0]["seat"] = seat

    exc = _bad_map(mutate)
    assert codes_of(exc) == ["map/unknown_seat"]
    assert "bL" in exc.value.problems[0].message and repr(seat) in exc.value.problems[0].message


def test_r3_duplicate_fork_id_is_refused() -> None:
    """R3: fork ids are unique."""

    def mutate(doc):
        doc["forks"].append(
            {"id": "f2", "left": [br("cL", "red", 1, None)], "right": [br("cR", "red", 2, None)]}
        )

    exc = _bad_map(mutate)
    assert codes_of(exc) == ["map/duplicate_fork"]
    assert "'f2'" in exc.value.problems[0].message


def test_r3_duplicate_branch_id_is_refused() -> None:
    """R3: each branch has a unique id (across the whole map)."""

    def mutate(doc):
        doc["forks"][1]["right"][1]["id"] = "aLL"

    exc = _bad_map(mutate)
    assert codes_of(exc) == ["map/duplicate_branch"]
    assert "'aLL'" in exc.value.problems[0].message


def test_r3_dangling_to_is_refused() -> None:
    """R3: `to` is an existing fork or nothing."""

    def mutate(doc):
        doc["forks"][0]["right"][0]["to"] = "f9"

    exc = _bad_map(mutate)
    assert codes_of(exc) == ["map/dangling_to"]
    assert "aR" in exc.value.problems[0].message and "f9" in exc.value.problems[0].message


def test_r3_cycle_is_refused() -> None:
    """R3: the map is acyclic."""

    def mutate(doc):
        doc["forks"][1]["left"][0]["to"] = "f1"

    exc = _bad_map(mutate)
    assert codes_of(exc) == ["map/cycle"]
    assert "f1 -> f2 -> f1" in exc.value.problems[0].message


def test_r3_unreachable_fork_is_refused() -> None:
    """R3: every fork is reachable from the start."""

    def mutate(doc):
        doc["forks"].append(
            {"id": "lost", "left": [br("xL", "red", 1, "f2")], "right": [br("xR", "blue", 2, "f2")]}
        )

    exc = _bad_map(mutate)
    assert codes_of(exc) == ["map/unreachable_fork"]
    assert "'lost'" in exc.value.problems[0].message


@pytest.mark.parametrize(
    ("segments", "per_segment", "mutate_to"),
    [(1, 3, None), (2, 2, None), (1, 2, "cut")],
)
def test_r3_wrong_path_length_is_refused(segments, per_segment, mutate_to) -> None:
    """R3: every path passes exactly segments x forks_per_segment forks."""

    def mutate(doc):
        doc["segments"], doc["forks_per_segment"] = segments, per_segment
        if mutate_to == "cut":  # one branch of f1 ends the river after 1 fork
            doc["forks"][0]["left"][1]["to"] = None

    exc = _bad_map(mutate)
    assert set(codes_of(exc)) == {"map/path_length"}
    message = exc.value.problems[0].message
    assert f"exactly {segments * per_segment}" in message


def test_r3_map_with_several_problems_reports_all_of_them() -> None:
    """R3: a map that breaks several rules is rejected with every problem listed."""
    doc = small_map()
    doc["forks"][0]["left"][0]["color"] = "purple"  # unknown colour
    doc["forks"][0]["right"][0]["seat"] = 7  # unknown seat
    doc["forks"][1]["right"][0]["id"] = "aLL"  # duplicate branch id
    doc["forks"][1]["right"][1]["to"] = "nowhere"  # dangling to
    doc["forks"][1]["left"] = []  # empty side
    doc["forks"].append({"id": "f1", "left": [], "right": []})  # duplicate fork id
    doc["forks"].append(  # unreachable fork with three branches on a side
        {
            "id": "island",
            "left": [br("i1", "red", 1, None), br("i2", "red", 1, None), br("i3", "red", 1, None)],
            "right": [br("i4", "blue", 2, None)],
        }
    )
    with pytest.raises(RuleError) as exc:
        parse_map(doc)
    assert set(codes_of(exc)) == {
        "map/unknown_color",
        "map/unknown_seat",
        "map/duplicate_branch",
        "map/dangling_to",
        "map/empty_side",
        "map/duplicate_fork",
        "map/too_many_branches",
        "map/unreachable_fork",
    }
    text = str(exc.value)
    for fragment in ("purple", "7", "aLL", "nowhere", "island"):
        assert fragment in text


def test_r3_map_with_cycle_and_wrong_length_and_unreachable_reports_each() -> None:
    """R3: structural problems are listed together too (cycle + unreachable + colour)."""
    doc = small_map()
    doc["forks"][1]["left"][0]["to"] = "f1"  # cycle
    doc["forks"].append(
        {"id": "lost", "left": [br("xL", "red", 1, None)], "right": [br("xR", "pink", 2, None)]}
    )
    with pytest.raises(RuleError) as exc:
        parse_map(doc)
    assert set(codes_of(exc)) == {"map/cycle", "map/unreachable_fork", "map/unknown_color"}


def test_r3_long_chain_map_is_refused_by_size_and_valid_by_r3_alone() -> None:
    """A 1200-segment chain map (1 fork per segment) is over the size limits and
    refused at once; R3 alone (a map stored before the limits) still accepts it,
    its checks iterative so a long chain cannot exhaust the stack."""
    n = 1200
    forks = [
        {
            "id": f"f{i}",
            "left": [br(f"{i}L", "red", 1, f"f{i + 1}" if i < n else None)],
            "right": [br(f"{i}R", "blue", 2, f"f{i + 1}" if i < n else None)],
        }
        for i in range(1, n + 1)
    ]
    doc = {"name": "Long", "segments": n, "forks_per_segment": 1, "start": "f1", "forks": forks}
    with pytest.raises(RuleError) as exc:
        parse_map(doc)
    assert set(codes_of(exc)) == {"map/too_many_segments", "map/too_many_forks"}
    assert parse_map(doc, limits=False).path_length == n


# --------------------------------------------------------------------------- R5


def test_r5_no_conflict_when_wishes_differ() -> None:
    """R5: unshared requests are granted; each seat gets one card per draft round."""
    lists = {1: ranked(*IDS[0:9]), 2: ranked(*IDS[9:18]), 3: ranked(*IDS[18:27])}
    result = run_draft(lists, (1, 2, 3))
    assert result.conflicts == ()
    assert result.hands == {1: tuple(IDS[0:9]), 2: tuple(IDS[9:18]), 3: tuple(IDS[18:27])}


def test_r5_r6_identical_lists_give_a_three_way_conflict_every_round() -> None:
    """R5/R6: with identical lists, every draft round opens with a three-way conflict on the
    next free card, the two losers then conflict on the following card, and the last seat
    takes the third. Conflict k favours garnet position (k - 1) mod 3."""
    order = garnet_order({1: 2, 2: 9, 3: 4})
    assert order == (2, 3, 1)
    result = run_draft({s: list(IDS) for s in (1, 2, 3)}, order)
    expected_conflicts = []
    expected_hands: dict[int, list[str]] = {1: [], 2: [], 3: []}
    for r in range(1, 10):
        c0, c1, c2 = IDS[3 * (r - 1) : 3 * r]
        first = order[(2 * r - 2) % 3]  # conflict 2r-1, three-way
        second = order[(2 * r - 1) % 3]  # conflict 2r, between the two losers
        third = ({1, 2, 3} - {first, second}).pop()
        expected_conflicts.append(Conflict(2 * r - 1, r, c0, (1, 2, 3), first))
        expected_conflicts.append(Conflict(2 * r, r, c1, tuple(sorted({second, third})), second))
        expected_hands[first].append(c0)
        expected_hands[second].append(c1)
        expected_hands[third].append(c2)
    assert list(result.conflicts) == expected_conflicts
    assert {s: list(h) for s, h in result.hands.items()} == expected_hands


def test_r5_r6_three_way_conflict_first_cycle_positions() -> None:
    """R6: a three-way conflict k goes to the seat at garnet position (k - 1) mod 3."""
    order = (3, 1, 2)
    assert [conflict_winner(k, (1, 2, 3), order) for k in range(1, 7)] == [3, 1, 2, 3, 1, 2]


def test_r5_loser_requests_its_next_free_card() -> None:
    """R5: a conflict loser requests again, skipping cards granted in the same step."""
    lists = {1: ranked("A"), 2: ranked("A", "B", "C"), 3: ranked("B")}
    result = run_draft(lists, (1, 2, 3))
    assert result.conflicts[0] == Conflict(1, 1, "A", (1, 2), 1)
    assert [result.hands[s][0] for s in (1, 2, 3)] == ["A", "C", "B"]


def test_r5_conflicts_are_numbered_across_the_whole_draft() -> None:
    """R5: conflict numbers continue across draft rounds (here rounds 1 and 2)."""
    lists = {1: ranked("A", "D"), 2: ranked("A", "C", "E"), 3: ranked("B", "D")}
    result = run_draft(lists, (1, 2, 3))
    assert [(c.number, c.round) for c in result.conflicts[:2]] == [(1, 1), (2, 2)]


# --------------------------------------------------------------------------- R6


def test_r6_conflict_2_between_most_and_fewest_goes_to_fewest() -> None:
    """R6's example: conflict 2 designates the second; if not contending, the fewest wins."""
    order = garnet_order({1: 9, 2: 5, 3: 1})
    assert conflict_winner(2, (1, 3), order) == 3
    # and in a real draft: conflict 1 (seats 1, 2 on A) then conflict 2 (seats 1, 3 on D)
    lists = {1: ranked("A", "D"), 2: ranked("A", "C", "E"), 3: ranked("B", "D")}
    result = run_draft(lists, order)
    assert result.conflicts[0] == Conflict(1, 1, "A", (1, 2), 1)
    assert result.conflicts[1] == Conflict(2, 2, "D", (1, 3), 3)
    assert result.hands[3][:2] == ("B", "D")
    # seat 1 lost D; B, C, E are held by then, so it takes F
    assert result.hands[1][:2] == ("A", "F")


@pytest.mark.parametrize(
    ("index", "contenders", "winner"),
    [
        # order = (2, 3, 1): position 0 = seat 2, 1 = seat 3, 2 = seat 1
        (1, (2, 3), 2),
        (1, (1, 3), 3),  # designated seat 2 absent -> next round the cycle: seat 3
        (1, (1, 2), 2),
        (2, (2, 3), 3),
        (2, (1, 2), 1),  # designated seat 3 absent -> seat 1
        (2, (1, 3), 3),
        (3, (1, 2), 1),
        (3, (2, 3), 2),  # designated seat 1 absent -> wraps round to seat 2
        (4, (1, 3), 3),  # conflict 4 favours the most again (seat 2 absent -> seat 3)
        (5, (1, 2), 1),
        (6, (2, 3), 2),
    ],
)
def test_r6_conflict_cycle(index, contenders, winner) -> None:
    """R6: conflict k starts at garnet position (k - 1) mod 3 and reads the order cyclically."""
    assert conflict_winner(index, contenders, (2, 3, 1)) == winner


# --------------------------------------------------------------------------- R7


def test_r7_slot_totals_sum_the_faces_of_the_slot_colour(deck, river) -> None:
    """R7: several cards from any players share a slot; the slot colour chooses the face;
    an empty slot totals 0; every branch is listed in map order."""
    placements = {
        1: {"C": "1LL", "T": "1R"},  # C red 3 ; T blue 5
        2: {"A": "1LL", "E": "1R"},  # A red -5 ; E blue 5
        3: {"F": "1LL", "B": "1R", "Y": "1L"},  # F red 1 ; B blue 2 ; Y green 5
    }
    totals = slot_totals(placements, deck, river)
    assert list(totals) == [b["id"] for b in map_branches(THREE_RAPIDS)]
    assert totals["1LL"] == 3 - 5 + 1
    assert totals["1R"] == 5 + 5 + 2
    assert totals["1L"] == 5
    assert all(v == 0 for k, v in totals.items() if k not in ("1LL", "1R", "1L"))


def test_r7_same_card_face_depends_on_slot_colour(deck, river) -> None:
    """R7: C is blue -3 / red 3: -3 on a blue slot, 3 on a red one."""
    assert slot_totals({1: {"C": "1R"}}, deck, river)["1R"] == -3
    assert slot_totals({1: {"C": "1LL"}}, deck, river)["1LL"] == 3


# --------------------------------------------------------------------------- R8


@pytest.fixture
def small() -> Any:
    return parse_map(small_map())


SMALL_TOTALS = {"aL": -5, "aLL": 4, "aR": 3, "bL": 2, "bR": 7, "bRR": -1}


def _raft(small, votes):
    return raft_round(small, "f1", 1, votes, SMALL_TOTALS)


def test_r8_unanimous_on_a_side_with_two_branches_takes_the_outer(small) -> None:
    """R8: all three choose L at f1 (two left branches) -> the outer branch aLL."""
    steps, end = _raft(small, {1: ["L", "L"], 2: ["L", "L"], 3: ["L", "L"]})
    assert [(s.fork, s.direction, s.unanimous, s.branch) for s in steps] == [
        ("f1", "L", True, "aLL"),
        ("f2", "L", True, "bL"),  # one left branch at f2 -> the inner (only) one
    ]
    assert end is None


def test_r8_unanimous_on_a_side_with_one_branch_takes_it(small) -> None:
    """R8: all three choose R at f1 (one right branch) -> aR; all R at f2 -> outer bRR."""
    steps, _ = _raft(small, {1: ["R", "R"], 2: ["R", "R"], 3: ["R", "R"]})
    assert [(s.branch, s.unanimous) for s in steps] == [("aR", True), ("bRR", True)]
    assert [(s.seat, s.points) for s in steps] == [(3, 3), (2, -1)]


def test_r8_two_to_one_majority_takes_the_inner_branch(small) -> None:
    """R8: a 2-1 majority takes the inner branch on its side, even when there are two."""
    steps, _ = _raft(small, {1: ["L", "R"], 2: ["L", "R"], 3: ["R", "L"]})
    assert [(s.direction, s.unanimous, s.branch) for s in steps] == [
        ("L", False, "aL"),
        ("R", False, "bR"),
    ]


def test_r8_negative_total_is_a_loss_and_control_counts_agreeing_forks(small, deck) -> None:
    """R8: a passed branch with a negative total lowers its seat's score; control +1 per fork
    where the raft went the seat's way (unanimous forks give all three a point)."""
    totals = slot_totals({1: {"A": "aL", "U": "aL"}, 2: {"G": "aL"}}, deck, small)
    assert totals["aL"] == -5 + 1 + 2  # A red -5, U red 1, G red 2
    steps, _ = raft_round(small, "f1", 1, {1: ["L", "L"], 2: ["R", "L"], 3: ["L", "L"]}, totals)
    assert [s.branch for s in steps] == ["aL", "bL"]
    scores, control = scores_and_control(steps, (1, 2, 3))
    assert scores == {1: -2, 2: 0, 3: 0}  # bL is empty: total 0
    assert control == {1: 2, 2: 1, 3: 2}


def test_r8_a_round_needs_one_direction_per_fork_of_its_segment(small) -> None:
    """raft_round is given checked votes; a wrong count is a caller's error, not a
    shorter or longer float."""
    with pytest.raises(ValueError, match="a segment has 2 forks, not 1"):
        _raft(small, {1: ["L"], 2: ["L"], 3: ["R"]})
    with pytest.raises(ValueError, match="a segment has 2 forks, not 3"):
        _raft(small, {1: ["L"] * 3, 2: ["L"] * 3, 3: ["R"] * 3})


def test_r8_the_same_votes_at_the_same_fork_pass_the_same_way_again(small) -> None:
    """A fork's passages are worked out once per map and kept; the second float
    through the same forks with the same votes gives the same steps."""
    votes = {1: ["L", "R"], 2: ["L", "R"], 3: ["R", "L"]}
    assert _raft(small, votes) == _raft(small, votes)
    other = _raft(small, {1: ["R", "R"], 2: ["R", "R"], 3: ["R", "R"]})
    assert [s.branch for s in other[0]] == ["aR", "bRR"]  # not the kept passages of the first


def test_r8_raft_continues_at_the_branch_to(small) -> None:
    """R8: after a branch the raft continues at its `to`; the round returns the next fork."""
    river = parse_map(THREE_RAPIDS)
    totals = dict.fromkeys(river.branches, 0)
    steps, nxt = raft_round(river, "f4", 2, {s: ["R", "R", "L"] for s in (1, 2, 3)}, totals)
    assert [s.fork for s in steps] == ["f4", "f5", "f6"]
    assert [s.branch for s in steps] == ["4RR", "5R", "6L"]
    assert all(s.segment == 2 for s in steps)
    assert nxt == "f7"


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        (["L", "R", "L"], ["L", "R", "L"]),
        (["left", "RIGHT", "Left"], ["L", "R", "L"]),
        (["l", "r", " R "], ["L", "R", "R"]),
    ],
)
def test_r8_directions_accept_l_r_left_right_any_case(raw, expected) -> None:
    """R8: L, R, left, right in any case."""
    assert check_votes(raw, 3) == expected


def test_r8_votes_not_l_r_and_wrong_count_are_all_reported() -> None:
    """R8: every direction must be L or R, and there is one per fork of the round."""
    with pytest.raises(RuleError) as exc:
        check_votes(["L", "up", 3, "R"], 3)
    assert codes_of(exc) == [
        "rafting/bad_direction",
        "rafting/bad_direction",
        "rafting/wrong_count",
    ]
    messages = [p.message for p in exc.value.problems]
    assert "“up”" in messages[0] and "3" in messages[1]
    assert "3" in messages[2] and "4" in messages[2]
    with pytest.raises(RuleError) as exc:
        check_votes(["L"], 3)
    assert codes_of(exc) == ["rafting/wrong_count"]


# --------------------------------------------------------------------------- R9


@pytest.mark.parametrize(
    ("scores", "token"),
    [
        ({1: 3, 2: 9, 3: -2}, 2),
        ({1: 9, 2: 1, 3: 1}, 1),  # a tie at the bottom does not matter
        ({1: 5, 2: 5, 3: 1}, None),  # two-way top tie: nobody
        ({1: -1, 2: 4, 3: 4}, None),
        ({1: 4, 2: 4, 3: 4}, None),  # three-way top tie: nobody
        ({1: 0, 2: 0, 3: 0}, None),
    ],
)
def test_r9_token_of_life_only_for_a_single_highest_score(scores, token) -> None:
    """R9: the single highest score gets the Token of Life; a shared top score, nobody."""
    assert token_of_life(scores) == token


def test_r9_elimination_by_score() -> None:
    """R9: the single lowest score is the Elimination Candidate."""
    e = elimination_candidate({1: 3, 2: -1, 3: 5}, {1: 0, 2: 9, 3: 0}, {1: 0, 2: 9, 3: 0}, "s")
    assert (e.seat, e.decided_by) == (2, "score")


def test_r9_elimination_by_control() -> None:
    """R9: a tie on the lowest score goes to the lowest control (seat 3 is not tied)."""
    e = elimination_candidate({1: 0, 2: 0, 3: 5}, {1: 4, 2: 3, 3: 1}, {1: 0, 2: 9, 3: 0}, "s")
    assert (e.seat, e.decided_by) == (2, "control")


def test_r9_elimination_by_garnets_among_the_still_tied() -> None:
    """R9: still tied after control -> fewest garnets among those still tied (seat 3 has
    the fewest garnets of all but was already out on control)."""
    e = elimination_candidate({1: 0, 2: 0, 3: 0}, {1: 5, 2: 5, 3: 6}, {1: 3, 2: 2, 3: 0}, "s")
    assert (e.seat, e.decided_by) == (2, "garnets")


def _draw_index(seed: str, n: int) -> int:
    return int(h(seed, "draw", "elimination"), 16) % n


SEEDS = [f"draw-seed-{i}" for i in range(10)]


def test_r9_draw_seeds_cover_several_outcomes() -> None:
    """(guard) the seeds used below do not all draw the same index, so the draw tests bite."""
    assert len({_draw_index(s, 3) for s in SEEDS}) == 3
    assert len({_draw_index(s, 2) for s in SEEDS}) == 2


@pytest.mark.parametrize("seed", SEEDS)
def test_r9_r10_elimination_by_three_way_draw(seed) -> None:
    """R9/R10: tied on score, control and garnets -> sorted seats[int(h(draw, elimination)) % n]."""
    expected = [1, 2, 3][_draw_index(seed, 3)]
    e = elimination_candidate({1: 2, 2: 2, 3: 2}, {1: 6, 2: 6, 3: 6}, {1: 4, 2: 4, 3: 4}, seed)
    assert (e.seat, e.decided_by) == (expected, "draw")


@pytest.mark.parametrize("seed", SEEDS)
def test_r9_r10_elimination_by_two_way_draw(seed) -> None:
    """R9/R10: seats 1 and 3 stay tied after control and garnets; draw among [1, 3]."""
    expected = [1, 3][_draw_index(seed, 2)]
    e = elimination_candidate({1: 0, 2: 0, 3: 0}, {1: 4, 2: 6, 3: 4}, {1: 2, 2: 0, 3: 2}, seed)
    assert (e.seat, e.decided_by) == (expected, "draw")


# --------------------------------------------------------------------------- R10


def _default_draft(seed: str, seat: int) -> list[str]:
    return sorted(IDS, key=lambda c: h(seed, "nmr", "draft", seat, c))


def _default_place(seed: str, seat: int, card: str) -> str:
    colors = {color for color, _ in CARD_TABLE[card]}
    candidates = [b["id"] for b in map_branches(THREE_RAPIDS) if b["color"] in colors]
    return min(candidates, key=lambda bid: h(seed, "nmr", "place", seat, card, bid))


def _default_vote(seed: str, r: int, seat: int, k: int) -> str:
    return "L" if int(h(seed, "nmr", "vote", r, seat, k), 16) % 2 == 0 else "R"


@pytest.mark.parametrize("seed", ["seed-a", "Zürich: 7", "x"])
def test_r10_defaults_for_every_phase_recomputed_with_hashlib(seed) -> None:
    """R10: draft lists, placements and votes of seats without orders follow h(nmr, ...)."""
    doc = build_match(seed=seed, garnets=(3, 1, 4), placements={}, votes=[None, {}, None])
    res = resolve(parse_match(doc))
    for seat in (1, 2, 3):
        assert res.draft_lists[seat] == _default_draft(seed, seat)
    assert res.placements is not None
    for seat in (1, 2, 3):
        expected = {card: _default_place(seed, seat, card) for card in res.hands[seat]}
        assert res.placements[seat] == expected
    assert res.path is not None and len(res.path) == 9
    for i, step in enumerate(res.path):
        r, k = i // 3 + 1, i % 3 + 1
        assert step.segment == r
        assert dict(step.votes) == {s: _default_vote(seed, r, s, k) for s in (1, 2, 3)}
    assert [d.as_dict() for d in res.defaulted] == [
        *({"phase": "draft", "seat": s} for s in (1, 2, 3)),
        *({"phase": "mapping", "seat": s} for s in (1, 2, 3)),
        *({"phase": "rafting", "round": r, "seat": s} for r in (1, 2, 3) for s in (1, 2, 3)),
    ]


def test_r10_a_single_missing_order_defaults_only_that_seat() -> None:
    """R10: seat 2 has no draft order; seats 1 and 3 keep theirs; only seat 2 is marked."""
    seed = "only-two"
    doc = build_match(seed=seed, draft={1: list(IDS), 2: None, 3: list(reversed(IDS))})
    res = resolve(parse_match(doc))
    assert res.draft_lists == {1: IDS, 2: _default_draft(seed, 2), 3: list(reversed(IDS))}
    assert [d.as_dict() for d in res.defaulted] == [{"phase": "draft", "seat": 2}]


def test_r10_host_entered_orders_do_not_change_the_result() -> None:
    """R10/FORMAT: orders recorded as host-entered resolve exactly like the player's own."""
    golden = REPO / "tests" / "golden" / "rocky-river" / "01-full-game.match.json"
    doc = json.loads(golden.read_text("utf-8"))
    with_host = copy.deepcopy(doc)
    with_host["host_entered"] = [{"phase": "mapping", "seat": 2}, {"phase": "rafting", "seat": 1}]
    assert resolve_document(with_host) == resolve_document(doc)


# ------------------------------------------------------------ order validation


def test_r5_draft_with_repeated_missing_and_unknown_cards_reports_all(deck) -> None:
    """R5: repeated, missing and unknown cards are all refused at once, each named."""
    order = list(IDS)
    order[order.index("Q")] = "QQ"  # unknown (and so Q is missing)
    order[order.index("R")] = "a"  # A repeated (and so R is missing)
    with pytest.raises(RuleError) as exc:
        check_draft(order, deck)
    assert sorted(codes_of(exc)) == [
        "draft/duplicate_card",
        "draft/missing_card",
        "draft/unknown_card",
    ]
    by_code = {p.code: p.message for p in exc.value.problems}
    assert "“QQ”" in by_code["draft/unknown_card"]
    assert "card A " in by_code["draft/duplicate_card"]
    assert "missing: Q, R" in by_code["draft/missing_card"]


def test_r5_draft_order_must_be_a_list(deck) -> None:
    """R5: a draft order is a list."""
    with pytest.raises(RuleError) as exc:
        check_draft("A B C", deck)
    assert codes_of(exc) == ["draft/not_a_list"]


def test_r7_placements_problems_are_all_reported(deck, river) -> None:
    """R7: unknown branch, card not in hand, missing card and a card without a face of the
    slot colour are refused together, each naming the card or branch."""
    hand = ["A", "B", "C", "D", "E", "F", "G", "H", "I"]
    raw = {
        "A": "nowhere",  # unknown branch
        "J": "1LL",  # not in hand
        # B not placed -> missing
        "C": "1L",  # C is blue/red, 1L is green -> colour mismatch
        "D": "1LL",
        "E": "1R",
        "F": "1R",
        "G": "1L",
        "H": "1R",
        "I": "1LL",
    }
    with pytest.raises(RuleError) as exc:
        check_placements(raw, hand, deck, river)
    assert sorted(codes_of(exc)) == [
        "mapping/card_not_in_hand",
        "mapping/color_mismatch",
        "mapping/missing_card",
        "mapping/unknown_branch",
    ]
    by_code = {p.code: p for p in exc.value.problems}
    assert "“nowhere”" in by_code["mapping/unknown_branch"].message
    assert by_code["mapping/unknown_branch"].field == "A"
    assert "card J" in by_code["mapping/card_not_in_hand"].message
    assert "not placed: B" in by_code["mapping/missing_card"].message
    mismatch = by_code["mapping/color_mismatch"].message
    assert "C" in mismatch and "green" in mismatch and "1L" in mismatch


def test_r7_empty_placement_object_is_refused_not_defaulted() -> None:
    """R7/FORMAT: `{}` is a partial placement (every card missing), not a missing order."""
    doc = build_match(placements={1: {}})
    with pytest.raises(RuleError) as exc:
        resolve(parse_match(doc))
    assert codes_of(exc) == ["mapping/missing_card"]
    assert exc.value.problems[0].field == "placements.1"
    assert "placements of seat 1" in exc.value.problems[0].message


def test_resolve_reports_problems_of_several_seats_at_once() -> None:
    """R5: resolve lists every seat's problems, prefixed with the seat."""
    doc = build_match(draft={1: ["A"], 3: [*IDS, "J"]})
    with pytest.raises(RuleError) as exc:
        resolve(parse_match(doc))
    assert codes_of(exc) == ["draft/missing_card", "draft/duplicate_card"]
    assert [p.field for p in exc.value.problems] == ["draft.1", "draft.3.27"]
    assert exc.value.problems[0].message.startswith("draft order of seat 1")


def test_parse_match_votes_without_placements_and_too_many_rounds() -> None:
    """R4/FORMAT: rafting cannot close before mapping; no more rafting rounds than segments."""
    doc = build_match(votes=[None, None, None, None])
    with pytest.raises(RuleError) as exc:
        parse_match(doc)
    assert codes_of(exc) == ["match/votes_without_placements", "match/too_many_rounds"]


def test_r8_no_rafting_round_closed_means_no_path_scores_control() -> None:
    """R8/FORMAT: `votes: []` means no rafting round has closed -> no path, scores, control."""
    doc = build_match(placements={}, votes=[])
    out = resolve_document(doc)
    assert "branch_totals" in out
    assert not {"path", "scores", "control", "token_of_life"} & set(out)


def test_a_refusal_message_is_cut_at_max_message_characters() -> None:
    """Every refusal is short whatever the value it quotes (issue 22's
    attacker's pass): a message of MAX_MESSAGE characters is kept whole, one
    character more is cut, with how much was left out."""
    from referee.errors import MAX_MESSAGE, Problem, RuleError

    whole = RuleError.single("x/y", "m" * MAX_MESSAGE, "f")
    assert whole.problems == (Problem("x/y", "m" * MAX_MESSAGE, "f"),)
    (cut,) = RuleError.single("x/y", "m" * (MAX_MESSAGE + 1), "f").problems
    assert cut.message == "m" * MAX_MESSAGE + "... (1 more character not shown)"
    assert (cut.code, cut.field) == ("x/y", "f")
