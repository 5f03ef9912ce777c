"""Audits (CP-SAT) checked against brute-force enumeration on random matches.

The brute force shares nothing with the CP-SAT model: directions are enumerated
one by one and the raft is floated by the engine's own R8 code; placements are
enumerated over every assignment of each card to "no seat gains", "the audited
seat gains" or "opponent X gains" (numpy, 4^9 combinations), taking for each
the best value such a card can give there (the goals only grow with the seat's
own gain and only shrink with an opponent's, so nothing else can be better).
"""

from __future__ import annotations

import itertools
import json
import random
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pytest
from conftest import GOLDEN

from referee.rulesets.rocky_river import parse_match, resolve
from referee.rulesets.rocky_river.audit import GOALS, audit, map_fairness
from referee.rulesets.rocky_river.cards import Deck
from referee.rulesets.rocky_river.data import load_bundled_map, load_deck
from referee.rulesets.rocky_river.match import Resolution
from referee.rulesets.rocky_river.rafting import raft_round
from referee.rulesets.rocky_river.river_map import SEATS, RiverMap, parse_map

DECK = load_deck()
IMPOSSIBLE = -(10**6)


# ---- random matches -------------------------------------------------------------


def forked_map(rng: random.Random) -> RiverMap:
    """3 segments x 2 forks; from depth 2 on, two forks per depth, and each branch
    leads to one of them: the path depends on the directions taken."""
    colors = ["red", "green", "blue"]
    levels = [["s"]] + [[f"d{d}a", f"d{d}b"] for d in range(2, 7)]
    forks = []
    for depth, ids in enumerate(levels):
        nxt = levels[depth + 1] if depth + 1 < len(levels) else None
        for fid in ids:
            sides = []
            for side in ("L", "R"):
                branches = []
                for pos in range(rng.choice([1, 2])):
                    to = None if nxt is None else nxt[(len(branches) + (side == "R")) % 2]
                    branches.append(
                        {
                            "id": f"{fid}{side}{pos}",
                            "color": rng.choice(colors),
                            "seat": rng.choice(SEATS),
                            "to": to,
                        }
                    )
                sides.append(branches)
            forks.append({"id": fid, "left": sides[0], "right": sides[1]})
    forks[0]["left"][0]["color"], forks[0]["right"][0]["color"] = "red", "blue"
    return parse_map(
        {"name": "Forked", "segments": 3, "forks_per_segment": 2, "start": "s", "forks": forks}
    )


def random_match(rng: random.Random, river: RiverMap, rounds: int) -> Resolution:
    doc: dict[str, Any] = {
        "map": river.to_json(),
        "players": [{"seat": s, "name": f"P{s}", "garnets": rng.randint(0, 9)} for s in SEATS],
        "seed": f"audit-{rng.random()}",
        "draft": {str(s): rng.sample(list(DECK.ids), len(DECK.ids)) for s in SEATS},
    }
    hands = resolve(parse_match(doc)).hands
    doc["placements"] = {
        str(s): {c: rng.choice(legal(DECK, river, c)) for c in hands[s]} for s in SEATS
    }
    fps = river.forks_per_segment
    doc["votes"] = [
        {str(s): [rng.choice("LR") for _ in range(fps)] for s in SEATS} for _ in range(rounds)
    ]
    return resolve(parse_match(doc))


def legal(deck: Deck, river: RiverMap, card: str) -> list[str]:
    faces = {f.color for f in deck.by_id[card].faces}
    return [b.id for b in river.branches.values() if b.color in faces]


# ---- brute force ---------------------------------------------------------------------


def goal_value(scores: Mapping[int, int], seat: int, goal: str) -> int:
    others = [v for s, v in scores.items() if s != seat]
    if goal == "score":
        return scores[seat]
    return scores[seat] - (max(others) if goal == "lead_over_best" else min(others))


def float_raft(res: Resolution, seat: int, own: Sequence[str]) -> list[str]:
    """The branches passed when ``seat`` votes ``own`` (all closed steps), others as played."""
    river = res.spec.river
    assert res.path is not None and res.totals is not None
    fps = river.forks_per_segment
    per_round: list[dict[int, list[str]]] = []
    for i, step in enumerate(res.path):
        if i % fps == 0:
            per_round.append({s: [] for s in SEATS})
        for s, d in step.votes:
            per_round[-1][s].append(own[i] if s == seat else d)
    at: str | None = river.start
    passed: list[str] = []
    for r, votes in enumerate(per_round, start=1):
        assert at is not None
        steps, at = raft_round(river, at, r, votes, res.totals)
        passed += [s.branch for s in steps]
    return passed


def scores_on(
    res: Resolution, passed: Sequence[str], placements: Mapping[int, Mapping[str, str]]
) -> dict[int, int]:
    river = res.spec.river
    totals = dict.fromkeys(river.branches, 0)
    for placed in placements.values():
        for card, bid in placed.items():
            value = DECK.by_id[card].value_for(river.branches[bid].color)
            assert value is not None
            totals[bid] += value
    scores = dict.fromkeys(SEATS, 0)
    for bid in passed:
        scores[river.branches[bid].seat] += totals[bid]
    return scores


def best_placements(res: Resolution, seat: int, passed: Sequence[str]) -> dict[str, int]:
    """Best value of each goal over every placement of ``seat``'s hand, path fixed."""
    river = res.spec.river
    assert res.placements is not None
    others = {s: p for s, p in res.placements.items() if s != seat}
    base = scores_on(res, passed, others)
    passed_set = set(passed)
    opp = [s for s in SEATS if s != seat]
    gains = {seat: np.zeros(1, dtype=np.int64), opp[0]: np.zeros(1, dtype=np.int64)}
    gains[opp[1]] = np.zeros(1, dtype=np.int64)
    for card in res.hands[seat]:
        # options: 0 = nobody gains, 1 = seat, 2 = opp[0], 3 = opp[1]
        best = {s: None for s in SEATS}  # type: dict[int, int | None]
        nobody = False
        for bid in legal(DECK, river, card):
            b = river.branches[bid]
            value = DECK.by_id[card].value_for(b.color)
            assert value is not None
            if bid not in passed_set:
                nobody = True
                continue
            current = best[b.seat]
            if current is None:
                best[b.seat] = value
            else:
                best[b.seat] = max(current, value) if b.seat == seat else min(current, value)
        own = np.array([0, best[seat] if best[seat] is not None else IMPOSSIBLE, 0, 0])
        if not nobody:
            own[0] = IMPOSSIBLE
        a = np.array([0, 0, best[opp[0]] or 0, 0])
        if best[opp[0]] is None:
            own[2] = IMPOSSIBLE
        b_ = np.array([0, 0, 0, best[opp[1]] or 0])
        if best[opp[1]] is None:
            own[3] = IMPOSSIBLE
        gains[seat] = np.add.outer(gains[seat], own).ravel()
        gains[opp[0]] = np.add.outer(gains[opp[0]], a).ravel()
        gains[opp[1]] = np.add.outer(gains[opp[1]], b_).ravel()
    mine = base[seat] + gains[seat]
    first, second = base[opp[0]] + gains[opp[0]], base[opp[1]] + gains[opp[1]]
    return {
        "score": int(mine.max()),
        "lead_over_best": int((mine - np.maximum(first, second)).max()),
        "lead_over_worst": int((mine - np.minimum(first, second)).max()),
    }


def brute(res: Resolution, seat: int) -> dict[str, dict[str, int]]:
    assert res.path is not None and res.placements is not None
    steps = len(res.path)
    actual_own = [dict(step.votes)[seat] for step in res.path]
    out = {goal: {"best_votes": -(10**9), "best_joint": -(10**9)} for goal in GOALS}
    cache: dict[tuple[str, ...], dict[str, int]] = {}
    for own in itertools.product("LR", repeat=steps):
        passed = float_raft(res, seat, own)
        scores = scores_on(res, passed, res.placements)
        key = tuple(passed)
        if key not in cache:
            cache[key] = best_placements(res, seat, passed)
        for goal in GOALS:
            out[goal]["best_votes"] = max(out[goal]["best_votes"], goal_value(scores, seat, goal))
            out[goal]["best_joint"] = max(out[goal]["best_joint"], cache[key][goal])
    actual_passed = float_raft(res, seat, actual_own)
    placed = best_placements(res, seat, actual_passed)
    for goal in GOALS:
        out[goal]["best_placement"] = placed[goal]
        out[goal]["actual"] = goal_value(scores_on(res, actual_passed, res.placements), seat, goal)
    return out


# ---- the checks ------------------------------------------------------------------------


def check_against_brute_force(res: Resolution) -> None:
    report = audit(res, DECK)
    assert res.placements is not None
    for seat in SEATS:
        expected = brute(res, seat)
        for goal in GOALS:
            got = report.seats[seat].goals[goal]
            assert got.actual == expected[goal]["actual"], (seat, goal)
            for kind in ("best_votes", "best_placement", "best_joint"):
                answer = getattr(got, kind)
                assert answer.value == expected[goal][kind], (seat, goal, kind)
                # the orders given reach the value they claim
                own = [d for round_votes in answer.play.votes for d in round_votes]
                passed = float_raft(res, seat, own)
                placements = {**res.placements, seat: answer.play.placements}
                assert sorted(answer.play.placements) == sorted(res.hands[seat])
                for card, bid in answer.play.placements.items():
                    assert bid in legal(DECK, res.spec.river, card)
                reached = goal_value(scores_on(res, passed, placements), seat, goal)
                assert reached == answer.value, (seat, goal, kind)
                if kind == "best_votes":
                    assert answer.play.placements == res.placements[seat]
                if kind == "best_placement":
                    assert own == [dict(s.votes)[seat] for s in res.path or ()]


@pytest.mark.parametrize("case", range(5))
def test_default_map_audits_match_brute_force(case: int) -> None:
    rng = random.Random(1000 + case)
    river = load_bundled_map("three-rapids")
    check_against_brute_force(random_match(rng, river, rounds=3 if case < 3 else case - 2))


@pytest.mark.parametrize("case", range(25))
def test_path_dependent_map_audits_match_brute_force(case: int) -> None:
    rng = random.Random(2000 + case)
    river = forked_map(rng)
    check_against_brute_force(random_match(rng, river, rounds=rng.choice([1, 2, 3, 3])))


@pytest.mark.parametrize("name", ["01-full-game", "02-ties", "03-missing-orders"])
def test_golden_matches_audit_against_brute_force(name: str) -> None:
    res = resolve(parse_match(json.loads((GOLDEN / f"{name}.match.json").read_text())))
    check_against_brute_force(res)


def test_audit_needs_mapping_closed() -> None:
    from referee.errors import RuleError

    doc = json.loads((GOLDEN / "01-full-game.match.json").read_text())
    del doc["placements"], doc["votes"]
    with pytest.raises(RuleError) as refused:
        audit(resolve(parse_match(doc)), DECK)
    assert refused.value.codes == ["audit/too_early"]


def test_audit_json_shape() -> None:
    res = resolve(parse_match(json.loads((GOLDEN / "01-full-game.match.json").read_text())))
    data = audit(res, DECK).as_dict()
    assert set(data["seats"]) == {"1", "2", "3"}
    seat = data["seats"]["1"]
    for key in ("actual", "best_votes", "best_placement", "best_joint", "orders"):
        assert key in seat
    assert seat["actual"] == res.scores[1] if res.scores else False
    for goal in ("lead_over_best", "lead_over_worst"):
        assert set(seat[goal]) == {"actual", "best_votes", "best_placement", "best_joint", "orders"}
    assert len(seat["orders"]["best_joint"]["votes"]) == 3
    assert len(seat["orders"]["best_joint"]["placements"]) == 9


# ---- map fairness ---------------------------------------------------------------------------


def all_paths(river: RiverMap) -> list[list[str]]:
    paths: list[list[str]] = []

    def walk(fid: str, so_far: list[str]) -> None:
        for b in river.forks[fid].branches():
            if b.to is None:
                paths.append([*so_far, b.id])
            else:
                walk(b.to, [*so_far, b.id])

    walk(river.start, [])
    return paths


def brute_fairness(river: RiverMap) -> dict[int, tuple[int, int]]:
    """Every path; each of the 27 cards where it helps (or hurts) the seat most."""
    out: dict[int, tuple[int, int]] = {}
    paths = all_paths(river)
    options = {
        c: [
            (river.branches[b], DECK.by_id[c].value_for(river.branches[b].color))
            for b in legal(DECK, river, c)
        ]
        for c in DECK.ids
    }
    for seat in SEATS:
        low, high = 10**9, -(10**9)
        for path in paths:
            passed = set(path)
            hi = lo = 0
            for card in DECK.ids:
                effects = [
                    (value or 0) if b.id in passed and b.seat == seat else 0
                    for b, value in options[card]
                ]
                hi += max(effects)
                lo += min(effects)
            high, low = max(high, hi), min(low, lo)
        out[seat] = (low, high)
    return out


def test_map_fairness_matches_brute_force_on_the_default_map() -> None:
    river = load_bundled_map("three-rapids")
    fairness = map_fairness(river, DECK)
    expected = brute_fairness(river)
    assert {s: (r.low, r.high) for s, r in fairness.seats.items()} == expected
    assert fairness.favoured is None and not fairness.unbalanced  # the default map is balanced


@pytest.mark.parametrize("case", range(4))
def test_map_fairness_matches_brute_force_on_forked_maps(case: int) -> None:
    river = forked_map(random.Random(3000 + case))
    fairness = map_fairness(river, DECK)
    assert {s: (r.low, r.high) for s, r in fairness.seats.items()} == brute_fairness(river)


def test_a_lopsided_map_is_flagged(lopsided_map_doc: dict[str, Any]) -> None:
    """Seat 1 portrays every branch but one of each other seat's."""
    fairness = map_fairness(parse_map(lopsided_map_doc), DECK)
    assert fairness.unbalanced
    assert fairness.favoured == 1
    for seat in (2, 3):
        assert fairness.seats[1].high - fairness.seats[seat].high >= fairness.threshold


def test_judge_fairness_thresholds() -> None:
    from referee.rulesets.rocky_river.audit import SeatRange, judge_fairness

    even = judge_fairness({s: SeatRange(s, -20, 40) for s in SEATS})
    assert (even.unbalanced, even.favoured, even.threshold) == (False, None, 6)
    close = judge_fairness(
        {1: SeatRange(1, -20, 45), 2: SeatRange(2, -20, 40), 3: SeatRange(3, -20, 40)}
    )
    assert (close.unbalanced, close.favoured) == (False, None)  # 5 < threshold 6
    clear = judge_fairness(
        {1: SeatRange(1, -20, 47), 2: SeatRange(2, -20, 40), 3: SeatRange(3, -20, 40)}
    )
    assert (clear.unbalanced, clear.favoured) == (True, 1)
    shared = judge_fairness(
        {1: SeatRange(1, -20, 50), 2: SeatRange(2, -20, 50), 3: SeatRange(3, 0, 0)}
    )
    assert (shared.unbalanced, shared.favoured) == (True, None)
