"""FO22's audit (CP-SAT over merged candidates) checked against brute force.

The brute force merges nothing: for the acting seat of one step it plays,
with the engine's own :func:`~orders.play_turn`, every order of the turn:
every first camp (every empty space on a first turn), every hand card in
every kind of action on every space, target and direction, and, for a build,
every list of every pair the build could make with its neighbours, in every
order, each pair with every choice (every discard wall of the right shape on
every space, every corner and edge of a dungeon Mason, every target and space
of an attack, every one or two Siege targets, every list of one or two
Garrison uses with every direction). Each pair's choices are read from the
table the pairs before it left. What the engine refuses is no order; the
best is the most points the seat has right after any other.
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.errors import RuleError
from referee.rulesets.forfort import audit as audit_module
from referee.rulesets.forfort.audit import (
    MatchAudit,
    SeatAudit,
    audit_document,
    audit_text,
    best_turn,
)
from referee.rulesets.forfort.cards import CAMP, CardSet, parse_card_set
from referee.rulesets.forfort.fort import CORNERS, EDGES, SPACES, army_directions, neighbours
from referee.rulesets.forfort.match import parse_match, resolve
from referee.rulesets.forfort.orders import play_turn
from referee.rulesets.forfort.randomplay import random_order
from referee.rulesets.forfort.state import Table, empty_spaces, start

GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "forfort"
FINISHED = sorted(p for p in GOLDEN.glob("*.match.json") if not p.name.startswith("04-"))
PARTIAL = GOLDEN / "04-partial-after-step-9.match.json"

Order = dict[str, Any]


def load(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


# ---- brute force -------------------------------------------------------------------


class TooMany(Exception):
    """The brute force would play more orders than the test allows."""


class Brute:
    """Every order of the acting seat's turn in ``before``, each played."""

    def __init__(self, before: Table, cap: int) -> None:
        assert before.next is not None
        self.before = before.copy()
        self.before.steps, self.before.defaulted = [], []  # no turn reads them: cheaper copies
        self.seat = before.next.seat
        self.cap = cap
        self.played = 0
        self.best = -1

    def play(self, order: Order) -> Table | None:
        self.played += 1
        if self.played > self.cap:
            raise TooMany
        try:
            after = play_turn(self.before, order)
        except RuleError:
            return None
        self.best = max(self.best, after.points(self.seat))
        return after

    def run(self) -> int:
        seat, before = self.seat, self.before
        first = before.seats[seat].turns == 0
        camps: list[int | None] = [None]
        if first and empty_spaces(before, seat):
            camps = list(empty_spaces(before, seat))
        for camp in camps:
            for action in self.actions():
                if action is not None and "build" in action:
                    self.pairs(camp, action, [], set())
                else:
                    self.play({"camp_start": camp, "action": action})
        assert self.best >= 0, "no legal order at all"
        return self.best

    def others(self) -> list[int]:
        return [s for s in self.before.seats if s != self.seat]

    def discard_walls(self, table: Table) -> list[str]:
        return sorted({c for c in table.seats[self.seat].discard if c != CAMP})

    def fits(self, table: Table, card: str, space: int) -> bool:
        """FO3, FO9 at a glance: the card's shape and no army (the engine checks
        the rest; this only saves playing orders it refuses at once)."""
        corner = space in CORNERS
        angled = table.wall(card).shape == "angled"
        return corner == angled and table.seats[self.seat].spaces[space].army is None

    def actions(self) -> Iterator[Order | None]:
        table = self.before
        hand = table.seats[self.seat].hand
        if not hand:
            yield None
            return
        for card in hand:
            yield {"discard": card}
            for s in SPACES:
                if self.fits(table, card, s):
                    yield {"build": card, "space": s}
                if not table.seats[self.seat].spaces[s].stack:
                    yield {"camp": card, "space": s}
            for symbol in table.wall(card).symbols:
                head = {"effect": card, "symbol": symbol}
                for keys in self.uses(table, symbol, pair=False):
                    yield {**head, **keys}

    def uses(self, table: Table, symbol: str, *, pair: bool) -> Iterator[Order]:
        """Every choice of one use of ``symbol`` (a pair's, with ``pair``)."""
        if symbol == "mason":
            source: Order = {"from": "discard"} if pair else {}
            for card in self.discard_walls(table):
                for s in SPACES:
                    if self.fits(table, card, s):
                        yield {**source, "card": card, "space": s}
            if pair:  # the real top card, whatever it is: the engine refuses an empty dungeon
                for c in CORNERS:
                    for e in EDGES:
                        yield {"from": "dungeon", "corner": c, "edge": e}
        elif symbol in ("ram", "trebuchet"):
            for t in self.others():
                for s in SPACES:
                    if table.seats[t].spaces[s].stack:
                        yield {"target": t, "space": s}
        elif symbol == "siege":
            for t in self.others():
                if pair:
                    yield {"targets": [t]}
                    for t2 in self.others():
                        yield {"targets": [t, t2]}
                else:
                    yield {"target": t}
        else:
            singles = list(self.garrison_uses(table))
            if not pair:
                yield from singles
                return
            for u in singles:
                yield {"uses": [u]}
            for u in singles:
                for v in singles:
                    if (u.get("target"), u.get("space"), u.get("defeat")) != (
                        v.get("target"),
                        v.get("space"),
                        v.get("defeat"),
                    ):
                        yield {"uses": [u, v]}

    def garrison_uses(self, table: Table) -> Iterator[Order]:
        """Every defeat of an army in the seat's fort, every army placed on a
        space of another seat with every direction FO3 allows there. The space
        is empty in ``table`` or holds one of the seat's armies: from the table
        before the turn, the seat's armies still advance, and a space they leave
        is empty for the action (a stack they destroy is not: they stand there)."""
        for s in SPACES:
            if table.seats[self.seat].spaces[s].army is not None:
                yield {"defeat": s}
        for t in self.others():
            for s in SPACES:
                here = table.seats[t].spaces[s]
                if here.empty or (here.army is not None and here.army.seat == self.seat):
                    for d in army_directions(s):
                        yield {"target": t, "space": s, "direction": d}

    def pairs(
        self, camp: int | None, build: Order, pairs: list[Order], used: set[tuple[int, str]]
    ) -> None:
        order = {"camp_start": camp, "action": {**build, "pairs": pairs}}
        after = self.play(order)
        if after is None or after.completed_by is not None:
            return
        if pairs and pairs[-1].get("from") == "dungeon":
            return
        # ``after`` is the state the listed pairs left but for the seat's draw,
        # which only moves its own top dungeon card (a dungeon Mason plays the
        # real one: play_turn starts from ``before`` each time)
        card = str(build["build"])
        for n in neighbours(int(build["space"])):
            for symbol in self.before.wall(card).symbols:
                if (n, symbol) in used:
                    continue
                head = {"with": n, "symbol": symbol}
                for keys in self.uses(after, symbol, pair=True):
                    self.pairs(camp, build, [*pairs, {**head, **keys}], used | {(n, symbol)})


def brute_best(before: Table, cap: int = 60_000) -> int:
    return Brute(before, cap).run()


# ---- matches to audit -------------------------------------------------------------------


def turns(doc: dict[str, Any]) -> list[tuple[Table, Table]]:
    """(the table before, the table after) for every step of a match file."""
    spec = parse_match(doc)
    table = start(spec.seed, spec.cards, spec.seats)
    out = []
    for entry in spec.orders:
        assert table.next is not None
        order = None if entry is None else entry.get(str(table.next.seat))
        after = play_turn(table, order)
        out.append((table, after))
        table = after
    return out


RICH = {
    # a host's set where every wall has two symbols (many pairs per build: up to
    # 4, two shared symbols with each neighbour), some with marks
    "walls": [
        {
            "id": f"r{i:02d}",
            "shape": "angled" if i % 2 else "straight",
            "symbols": list(pair),
            "mark": (None, None, "gate", "shield")[i % 4],
            "arrows": [i % 8 + 1, (i + 3) % 8 + 1],
        }
        for i, pair in enumerate(
            [
                (a, b)
                for a in ("mason", "ram", "trebuchet", "siege", "garrison")
                for b in ("mason", "ram", "trebuchet", "siege", "garrison")
                if a < b
            ]
            * 2
        )
    ],
    "camps": 4,
    "armies": 4,
}


def rich_cards() -> CardSet:
    return parse_card_set(RICH)


def random_match(
    rng: random.Random, seats: int, *, cards: dict[str, Any] | None = None, missing: float = 0.05
) -> dict[str, Any]:
    """A finished match of random legal orders (some missing, FO20)."""
    seed = f"audit-{rng.random()}"
    doc: dict[str, Any] = {
        "ruleset": "forfort",
        "players": [
            {"seat": s, "name": f"Player {s}", "garnets": s % 3} for s in range(1, seats + 1)
        ],
        "seed": seed,
        "orders": [],
    }
    if cards is not None:
        doc["cards"] = cards
    table = start(seed, parse_match(doc).cards, seats)
    while table.next is not None:
        seat = table.next.seat
        order = None if rng.random() < missing else random_order(table, rng)
        table = play_turn(table, order)  # randomplay's orders are legal
        doc["orders"].append(None if order is None else {str(seat): order})
    return doc


def check_against_brute_force(doc: dict[str, Any], cap: int = 60_000) -> tuple[int, int]:
    """The audit of a finished match: actual = the engine's points after the
    seat's last step, gain >= 0, and best = the brute force's best (the actual
    order counted too) for every seat whose turn the brute force covers within
    ``cap`` orders: (seats checked, seats left out)."""
    report = audit_document(doc)
    steps = turns(doc)
    checked = skipped = 0
    for seat, a in report.seats.items():
        assert a.gain >= 0
        assert a.step is not None
        before, after = steps[a.step - 1]
        assert before.next is not None and before.next.seat == seat
        assert all(b.next is not None and b.next.seat != seat for b, _ in steps[a.step :])
        assert a.actual == after.points(seat)
        try:
            expected = brute_best(before, cap)
        except TooMany:
            skipped += 1
            continue
        assert a.best == max(expected, a.actual), (doc["seed"], seat)
        checked += 1
    return checked, skipped


# ---- (a) the audit's best is the brute force's -----------------------------------------


@pytest.mark.parametrize("path", FINISHED, ids=lambda p: p.name.removesuffix(".match.json"))
def test_golden_audit_equals_brute_force(path: Path) -> None:
    doc = load(path)
    assert check_against_brute_force(doc) == (len(doc["players"]), 0)


def test_golden_audit_figures() -> None:
    """The figures themselves, for the record (each one proved by the test above)."""
    got = {
        p.name[:2]: {
            s: (v["step"], v["actual"], v["best"])
            for s, v in audit_document(load(p)).as_dict()["seats"].items()
        }
        for p in FINISHED
    }
    assert got == {
        "01": {"1": (26, 16, 16), "2": (25, 14, 16)},
        "02": {"1": (46, 10, 10), "2": (47, 14, 16), "3": (49, 14, 15)},
        "03": {"1": (52, 13, 13), "2": (53, 16, 16), "3": (50, 11, 11), "4": (51, 6, 6)},
    }


def test_random_matches_audit_equals_brute_force() -> None:
    """The last steps of random finished matches (some orders missing)."""
    rng = random.Random("forfort-audit")
    checked = skipped = 0
    for seats in (2, 3, 4, 2, 3, 4):
        c, s = check_against_brute_force(random_match(rng, seats), cap=6_000)
        checked, skipped = checked + c, skipped + s
    assert checked >= 15 and skipped <= checked // 3


def test_rich_card_set_matches_audit_equals_brute_force() -> None:
    """A host's set where every wall has two symbols: many pairs per build."""
    rng = random.Random("forfort-audit-rich")
    checked = skipped = 0
    for seats in (2, 3, 4):
        c, s = check_against_brute_force(random_match(rng, seats, cards=RICH), cap=3_000)
        checked, skipped = checked + c, skipped + s
    assert checked >= 4


def every_turn_agrees(doc: dict[str, Any], cap: int, every: int) -> tuple[int, int]:
    """best_turn (no actual order counted) = the brute force at every
    ``every``-th step of ``doc`` the brute force covers within ``cap`` orders:
    (steps checked, steps left out)."""
    checked = skipped = 0
    for before, _ in turns(doc)[::every]:
        try:
            expected = brute_best(before, cap)
        except TooMany:
            skipped += 1
            continue
        assert best_turn(before).best == expected, (doc["seed"], before.closed + 1)
        checked += 1
    return checked, skipped


def test_turns_all_through_random_matches_agree() -> None:
    """Not only last steps: every third step of a few matches, first turns
    (every first camp) included."""
    rng = random.Random("forfort-every-turn")
    checked = skipped = 0
    for seats in (2, 3, 4):
        c, s = every_turn_agrees(random_match(rng, seats), cap=2_000, every=3)
        checked, skipped = checked + c, skipped + s
    assert checked >= 25 and skipped <= checked // 3


def test_turns_all_through_rich_matches_agree() -> None:
    """The same with the rich set, whose builds make many pair lists."""
    rng = random.Random("forfort-every-turn-rich")
    checked = skipped = 0
    for seats in (2, 3, 4):
        c, s = every_turn_agrees(random_match(rng, seats, cards=RICH), cap=1_500, every=4)
        checked, skipped = checked + c, skipped + s
    assert checked >= 12


@settings(max_examples=6, deadline=None)
@given(
    seats=st.integers(2, 4),
    choices=st.integers(0, 2**32),
    rich=st.booleans(),
    missing=st.sampled_from([0.0, 0.1, 0.5]),
)
def test_hypothesis_audit_equals_brute_force(
    seats: int, choices: int, rich: bool, missing: float
) -> None:
    rng = random.Random(choices)
    doc = random_match(rng, seats, cards=RICH if rich else None, missing=missing)
    check_against_brute_force(doc, cap=3_000)


# ---- (b) gain, actual ------------------------------------------------------------------


def test_actual_is_the_points_after_the_last_step_and_gain_is_never_negative() -> None:
    rng = random.Random("forfort-audit-gain")
    for seats in (2, 3, 4):
        for _ in range(3):
            doc = random_match(rng, seats, missing=0.3)
            report = audit_document(doc)
            steps = turns(doc)
            for seat, a in report.seats.items():
                assert a.gain == a.best - a.actual >= 0
                assert a.step is not None
                assert a.actual == steps[a.step - 1][1].points(seat)


# ---- (c) an unfinished match -------------------------------------------------------------


def test_unfinished_match_is_refused() -> None:
    with pytest.raises(RuleError) as err:
        audit_document(load(PARTIAL))
    assert [p.code for p in err.value.problems] == ["audit/unfinished"]


def test_a_bad_file_is_refused_as_resolve_refuses_it() -> None:
    doc = load(FINISHED[0])
    doc["orders"][0] = {"2": doc["orders"][0]["1"]}
    with pytest.raises(RuleError) as err:
        audit_document(doc)
    assert [p.code for p in err.value.problems] == ["step/not_acting"]


# ---- (d) a seat that never acted ------------------------------------------------------------


def test_a_seat_that_never_acted(monkeypatch: pytest.MonkeyPatch) -> None:
    """FO22: step null, actual and best its points at the end, gain 0.

    A real match where a fort is completed before another seat's first turn
    needs 8 walls in one seat's first turn and its drawbridge extra turns,
    each of which must first cover the token's gate again; no such match is
    among the examples. So the finished example 01 is played as it is, and
    the audit is shown a final table that lists no step of seat 2: it must
    not search a turn for it, and report its points at the end.
    """
    doc = load(FINISHED[0])
    real_play = audit_module.m.play

    def without_seat_2(spec: Any) -> Table:
        final = real_play(spec)
        final.steps = [e for e in final.steps if e["seat"] != 2]
        return final

    monkeypatch.setattr(audit_module.m, "play", without_seat_2)
    report = audit_document(doc)
    end = resolve(doc)["points"]
    assert report.seats[2] == SeatAudit(2, "P2", None, end["2"], end["2"])
    assert report.as_dict()["seats"]["2"] == {
        "step": None,
        "actual": end["2"],
        "best": end["2"],
        "gain": 0,
    }
    assert report.seats[1].step == 26 and report.seats[1].best == 16
    assert "Seat 2 (P2) never acted" in audit_text(report)


# ---- (e) the JSON --------------------------------------------------------------------------


def test_as_dict_is_formats_shape() -> None:
    got = audit_document(load(FINISHED[0])).as_dict()
    assert got == {
        "seats": {
            "1": {"step": 26, "actual": 16, "best": 16, "gain": 0},
            "2": {"step": 25, "actual": 14, "best": 16, "gain": 2},
        }
    }
    assert list(got) == ["seats"]
    for entry in got["seats"].values():
        assert list(entry) == ["step", "actual", "best", "gain"]
    assert json.loads(json.dumps(got)) == got


def test_as_dict_seats_in_order_and_null_step() -> None:
    report = MatchAudit({2: SeatAudit(2, "B", None, 3, 3), 1: SeatAudit(1, "A", 7, 4, 6)})
    assert report.as_dict() == {
        "seats": {
            "1": {"step": 7, "actual": 4, "best": 6, "gain": 2},
            "2": {"step": None, "actual": 3, "best": 3, "gain": 0},
        }
    }
    assert list(report.as_dict()["seats"]) == ["1", "2"]


# ---- (f) the text --------------------------------------------------------------------------


def test_text_names_every_seat_and_its_player() -> None:
    doc = load(FINISHED[1])
    doc["players"][0]["name"] = 'Ana <b>&amp;</b> "Bo"'
    text = audit_text(audit_document(doc))
    assert 'Seat 1 (Ana <b>&amp;</b> "Bo"): at its last step (46) it scored 10;' in text
    two = "Seat 2 (P2): at its last step (47) it scored 14; "
    three = "Seat 3 (P3): at its last step (49) it scored 14; "
    assert two + "the best order would have scored 16 (2 more)." in text
    assert three + "the best order would have scored 15 (1 more)." in text
    assert "FO" not in text and "&lt;" not in text


def test_text_of_a_seat_that_never_acted() -> None:
    text = audit_text(
        MatchAudit({1: SeatAudit(1, "Ana", 3, 16, 16), 2: SeatAudit(2, "Bo", None, 1, 1)})
    )
    assert (
        "Seat 1 (Ana): at its last step (3) it scored 16; no other order would have scored more."
        in text
    )
    assert "Seat 2 (Bo) never acted: the match ended before its first turn; it had 1 point." in text


# ---- the budget ----------------------------------------------------------------------------


def test_golden_audits_are_fast() -> None:
    for path in FINISHED:
        doc = load(path)
        began = time.perf_counter()
        audit_document(doc)
        assert time.perf_counter() - began < 1.0, path.name


def test_an_exhausted_budget_is_an_error_not_a_guess() -> None:
    with pytest.raises(RuleError) as err:
        audit_document(load(FINISHED[0]), budget=0.0)
    assert [p.code for p in err.value.problems] == ["audit/solver"]
    assert audit_module.AUDIT_BUDGET_SECONDS > 0
