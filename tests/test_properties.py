"""Property tests: random legal matches on random valid maps (R3, R5-R10).

The map strategy builds a layered DAG: depth level d (1-based) holds 1-3 forks, each
fork has 1-2 branches per side, and every branch leads to some fork of the next level
(each next-level fork is the target of at least one branch, so every fork is
reachable and every path passes exactly segments x forks_per_segment forks).
"""

from __future__ import annotations

import copy
import hashlib
import json
import random
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from referee.rulesets.rocky_river.data import load_deck
from referee.rulesets.rocky_river.match import parse_match, resolve, resolve_document
from referee.rulesets.rocky_river.river_map import parse_map

DECK = load_deck()
IDS = list(DECK.ids)
COLORS = ("red", "green", "blue")
FACES = {c.id: {f.color: f.value for f in c.faces} for c in DECK.cards}
SEATS = (1, 2, 3)
DIRECTION_SPELLINGS = {"L": "L", "l": "L", "left": "L", "R": "R", "r": "R", "RIGHT": "R"}

PROPERTY_SETTINGS = settings(
    max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


def sometimes_none(rnd: random.Random) -> bool:
    """True about one time in eight: the seat has no order (R10 default)."""
    return rnd.random() < 0.125


@st.composite
def river_maps(draw: st.DrawFn) -> dict[str, Any]:
    segments = draw(st.integers(1, 3))
    per_segment = draw(st.integers(1, 3))
    depth = segments * per_segment
    rnd = random.Random(draw(st.integers(0, 2**32 - 1)))  # colours and seats
    levels: list[list[str]] = [["s"]]
    forks: list[dict[str, Any]] = []
    all_branches: list[dict[str, Any]] = []
    for d in range(depth):
        level_branches: list[dict[str, Any]] = []
        for fid in levels[d]:
            fork: dict[str, Any] = {"id": fid}
            for side in ("left", "right"):
                fork[side] = [
                    {
                        "id": f"{fid}{side[0].upper()}{i}",
                        "color": rnd.choice(COLORS),
                        "seat": rnd.choice(SEATS),
                        "to": None,
                    }
                    for i in range(draw(st.integers(1, 2)))
                ]
                level_branches.extend(fork[side])
            forks.append(fork)
        if d < depth - 1:
            count = draw(st.integers(1, min(3, len(level_branches))))
            nxt = [f"d{d + 2}k{i}" for i in range(count)]
            order = draw(st.permutations(range(len(level_branches))))
            for j, bi in enumerate(order):  # the first `count` cover every next fork
                level_branches[bi]["to"] = nxt[j] if j < count else draw(st.sampled_from(nxt))
            levels.append(nxt)
        all_branches.extend(level_branches)
    if len({b["color"] for b in all_branches}) < 2:
        first = all_branches[0]
        first["color"] = next(c for c in COLORS if c != first["color"])
    return {
        "name": "Random",
        "segments": segments,
        "forks_per_segment": per_segment,
        "start": "s",
        "forks": draw(st.permutations(forks)),  # map order need not be path order
    }


def branches_of(map_doc: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {b["id"]: b for f in map_doc["forks"] for b in f["left"] + f["right"]}


def hands_of(doc: dict[str, Any]) -> dict[int, list[str]]:
    draft_only = {k: v for k, v in doc.items() if k not in ("placements", "votes")}
    return {int(s): hand for s, hand in resolve_document(draft_only)["hands"].items()}


@st.composite
def matches(draw: st.DrawFn) -> dict[str, Any]:
    map_doc = draw(river_maps())
    segments, per_segment = map_doc["segments"], map_doc["forks_per_segment"]
    branches = branches_of(map_doc)
    # bulk choices (list orders, branches, directions) come from one seeded Random: cheap
    rnd = random.Random(draw(st.integers(0, 2**32 - 1)))
    garnets = [draw(st.integers(0, 3)) for _ in SEATS]
    draft: dict[str, Any] = {}
    for seat in SEATS:
        if sometimes_none(rnd):
            draft[str(seat)] = None
            continue
        order = rnd.sample(IDS, len(IDS))
        draft[str(seat)] = [c.lower() for c in order] if draw(st.booleans()) else order
    doc: dict[str, Any] = {
        "ruleset": "rocky-river",
        "map": map_doc,
        "players": [
            {"seat": s, "name": f"P{s}", "garnets": g} for s, g in zip(SEATS, garnets, strict=True)
        ],
        "seed": draw(st.text(st.characters(codec="utf-8"), min_size=1, max_size=10)),
        "draft": draft,
    }
    hands = hands_of(doc)
    fits = {card: [bid for bid, b in branches.items() if b["color"] in FACES[card]] for card in IDS}
    placements: dict[str, Any] = {}
    for seat in SEATS:
        if sometimes_none(rnd):
            placements[str(seat)] = None
            continue
        placements[str(seat)] = {card: rnd.choice(fits[card]) for card in hands[seat]}
    doc["placements"] = placements
    spellings = sorted(DIRECTION_SPELLINGS)
    votes: list[Any] = []
    for _ in range(draw(st.integers(1, segments))):
        if sometimes_none(rnd):
            votes.append(None)
            continue
        votes.append(
            {
                str(seat): None
                if sometimes_none(rnd)
                else [rnd.choice(spellings) for _ in range(per_segment)]
                for seat in SEATS
            }
        )
    doc["votes"] = votes
    return doc


def h(seed: str, *parts: object) -> str:
    return hashlib.sha256(":".join([seed, *map(str, parts)]).encode("utf-8")).hexdigest()


def reference_draft(
    lists: dict[int, list[str]], garnets: dict[int, int]
) -> tuple[dict[int, list[str]], list[tuple[int, int, str, tuple[int, ...], int]]]:
    """R5/R6 written out independently: hands in the order received and the conflicts."""
    order = sorted(SEATS, key=lambda s: (-garnets[s], s))
    held: set[str] = set()
    hands: dict[int, list[str]] = {s: [] for s in SEATS}
    conflicts: list[tuple[int, int, str, tuple[int, ...], int]] = []
    for rnd in range(1, 10):
        waiting = list(SEATS)
        while waiting:
            wanted: dict[str, list[int]] = {}
            for s in waiting:
                wanted.setdefault(next(c for c in lists[s] if c not in held), []).append(s)
            waiting = []
            for card, seats in wanted.items():
                winner = seats[0]
                if len(seats) > 1:
                    k = len(conflicts) + 1
                    cycle = [order[(k - 1 + i) % 3] for i in range(3)]
                    winner = next(s for s in cycle if s in seats)
                    conflicts.append((k, rnd, card, tuple(sorted(seats)), winner))
                    waiting.extend(s for s in seats if s != winner)
                held.add(card)
                hands[winner].append(card)
    return hands, conflicts


@given(river_maps())
@PROPERTY_SETTINGS
def test_r3_random_layered_maps_are_valid(map_doc) -> None:
    """R3: every map the strategy builds is accepted and indexed with consistent depths."""
    river = parse_map(map_doc)
    assert set(river.branches) == set(branches_of(map_doc))
    assert river.depth[river.start] == 1
    for b in river.branches.values():
        if b.to is None:
            assert river.depth[b.fork] == river.path_length
        else:
            assert river.depth[b.to] == river.depth[b.fork] + 1


@given(matches())
@PROPERTY_SETTINGS
def test_r5_every_card_dealt_once_nine_per_hand_as_reference_draft(doc) -> None:
    """R5/R6/R10: 27 cards dealt once each, 9 per hand; the draft equals a reference run."""
    res = resolve(parse_match(doc))
    dealt = [c for hand in res.hands.values() for c in hand]
    assert sorted(dealt) == sorted(IDS)
    assert all(len(hand) == 9 for hand in res.hands.values())
    assert all(hand == DECK.sort(hand) for hand in res.hands.values())
    lists = {}
    for seat in SEATS:
        raw = doc["draft"][str(seat)]
        if raw is None:
            lists[seat] = sorted(IDS, key=lambda c, s=seat: h(doc["seed"], "nmr", "draft", s, c))
        else:
            lists[seat] = [c.upper() for c in raw]
    ref_hands, ref_conflicts = reference_draft(
        lists, {p["seat"]: p["garnets"] for p in doc["players"]}
    )
    assert res.hands == {s: DECK.sort(hand) for s, hand in ref_hands.items()}
    assert [(c.number, c.round, c.card, c.contenders, c.winner) for c in res.conflicts] == (
        ref_conflicts
    )


@given(matches())
@PROPERTY_SETTINGS
def test_r7_slot_totals_add_up_to_the_placed_values(doc) -> None:
    """R7: each slot total is the sum of the faces (slot colour) placed on it."""
    res = resolve(parse_match(doc))
    branches = branches_of(doc["map"])
    assert res.placements is not None and res.totals is not None
    expected = dict.fromkeys(branches, 0)
    for seat, placed in res.placements.items():
        assert sorted(placed) == sorted(res.hands[seat])
        given_order = doc["placements"][str(seat)]
        if given_order is not None:
            assert placed == given_order
        for card, bid in placed.items():
            assert branches[bid]["color"] in FACES[card]
            expected[bid] += FACES[card][branches[bid]["color"]]
    assert res.totals == expected
    assert sum(res.totals.values()) == sum(
        FACES[card][branches[bid]["color"]]
        for placed in res.placements.values()
        for card, bid in placed.items()
    )


@given(matches())
@PROPERTY_SETTINGS
def test_r8_path_follows_to_links_from_the_start(doc) -> None:
    """R3/R8: the path passes forks_per_segment forks per closed round, starts at the start,
    follows each branch's `to`, and ends the river when every round has closed."""
    res = resolve(parse_match(doc))
    map_doc = doc["map"]
    branches = branches_of(map_doc)
    forks = {f["id"]: f for f in map_doc["forks"]}
    per_segment = map_doc["forks_per_segment"]
    closed = len(doc["votes"])
    assert res.path is not None
    assert len(res.path) == closed * per_segment
    assert res.path[0].fork == map_doc["start"]
    for i, step in enumerate(res.path):
        assert step.segment == i // per_segment + 1
        branch = branches[step.branch]
        side = forks[step.fork]["left" if step.direction == "L" else "right"]
        assert branch in side
        chosen = [d for _, d in step.votes]
        assert chosen.count(step.direction) >= 2
        assert step.unanimous == (chosen.count(step.direction) == 3)
        assert branch is (side[-1] if step.unanimous else side[0])
        assert step.seat == branch["seat"]
        if i + 1 < len(res.path):
            assert res.path[i + 1].fork == branch["to"]
    last = branches[res.path[-1].branch]
    if closed == map_doc["segments"]:
        assert len(res.path) == map_doc["segments"] * per_segment
        assert last["to"] is None
    else:
        assert last["to"] is not None


@given(matches())
@PROPERTY_SETTINGS
def test_r8_votes_given_are_the_votes_applied(doc) -> None:
    """R8/R10: a seat's written directions (any spelling) are applied; others defaulted."""
    res = resolve(parse_match(doc))
    per_segment = doc["map"]["forks_per_segment"]
    assert res.path is not None
    for i, step in enumerate(res.path):
        r, k = i // per_segment + 1, i % per_segment
        round_votes = doc["votes"][r - 1]
        for seat, applied in step.votes:
            written = None if round_votes is None else round_votes[str(seat)]
            if written is None:
                bit = int(h(doc["seed"], "nmr", "vote", r, seat, k + 1), 16) % 2
                assert applied == ("L" if bit == 0 else "R")
            else:
                assert applied == DIRECTION_SPELLINGS[written[k]]


@given(matches())
@PROPERTY_SETTINGS
def test_r8_control_never_exceeds_forks_passed(doc) -> None:
    """R8: control <= forks passed; each fork gives 3 points if unanimous, else 2."""
    res = resolve(parse_match(doc))
    assert res.path is not None and res.control is not None
    for seat in SEATS:
        assert 0 <= res.control[seat] <= len(res.path)
        assert res.control[seat] == sum(dict(s.votes)[seat] == s.direction for s in res.path)
    assert sum(res.control.values()) == sum(3 if s.unanimous else 2 for s in res.path)


@given(matches())
@PROPERTY_SETTINGS
def test_r9_scores_sum_to_the_passed_branch_points(doc) -> None:
    """R8/R9: each step scores its branch total for the portrayed seat; the scores add up."""
    res = resolve(parse_match(doc))
    assert res.path is not None and res.scores is not None and res.totals is not None
    for step in res.path:
        assert step.points == res.totals[step.branch]
    assert sum(res.scores.values()) == sum(step.points for step in res.path)
    for seat in SEATS:
        assert res.scores[seat] == sum(s.points for s in res.path if s.seat == seat)
    out = resolve_document(doc)
    if len(doc["votes"]) == doc["map"]["segments"]:
        top = max(res.scores.values())
        leaders = [s for s in SEATS if res.scores[s] == top]
        assert out["token_of_life"] == (leaders[0] if len(leaders) == 1 else None)
        low = min(res.scores.values())
        assert res.scores[out["elimination_candidate"]["seat"]] == low
    else:
        assert "token_of_life" not in out and "elimination_candidate" not in out


@given(matches())
@PROPERTY_SETTINGS
def test_resolving_twice_gives_the_same_result(doc) -> None:
    """R10: resolution is deterministic and does not modify the match file."""
    before = copy.deepcopy(doc)
    first = resolve_document(doc)
    assert doc == before
    second = resolve_document(json.loads(json.dumps(doc)))
    assert first == second
    assert json.loads(json.dumps(first)) == first
