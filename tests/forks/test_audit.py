"""K12's audit (CP-SAT) checked against brute force on random finished matches.

The brute force shares nothing with the model: for one seat it replays the
whole match with the engine's own :func:`~match.close_next`, every other order
exactly as in the file (missing ones left missing, so the engine works out
each default again), and branches at each of the seat's invest steps over
every card the engine offers it there (:meth:`~match.Table.options`: with
merge, whatever the hand holds after that combination's earlier choices). A
branch where a later order of the file becomes illegal (a swap taking a card
no longer invested) is dropped, as K12 says. Each finished branch is scored
by the engine's K7-K8.
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from conftest import GOLDEN_ROOT

from referee.errors import RuleError
from referee.rulesets.forks import match as m
from referee.rulesets.forks.audit import audit_document
from referee.rulesets.forks.cards import CARDS

from .play import random_match

GOLDEN = GOLDEN_ROOT / "forks"


def brute_best(doc: dict[str, Any], seat: int) -> tuple[int, int]:
    """(the seat's actual score, its best over every legal combination)."""
    spec = m.parse_match(doc)
    best: list[int] = []

    def score(table: m.Table) -> int:
        return CARDS.score(table.hands[seat], m.ranking_of(table.investment, spec.tiebreak))

    def walk(table: m.Table, i: int) -> None:
        if i == len(spec.orders):
            best.append(score(table))
            return
        order = spec.orders[i]
        assert not isinstance(order, m.Problem)
        if table.next_kind == "invest" and table.acting == seat:
            for card in table.options():
                branch = table.copy()
                m.close_next(branch, card)
                walk(branch, i + 1)
            return
        if order is not None:
            try:
                order = m.check_next(table, order)
            except RuleError:
                return  # this combination makes a later order illegal: not a choice
        m.close_next(table, order)
        walk(table, i + 1)

    walk(m.start(spec.seed, spec.seats, swap=spec.swap, merge=spec.merge), 0)
    actual = m.resolve(doc)["scores"][str(seat)]
    return actual, max(best)


CASES = [
    (seats, swap, merge)
    for seats in (2, 3, 4, 5)
    for swap in (False, True)
    for merge in (False, True)
]


@pytest.mark.parametrize(("seats", "swap", "merge"), CASES)
def test_audit_equals_brute_force(seats: int, swap: bool, merge: bool) -> None:
    rng = random.Random(f"audit-{seats}-{swap}-{merge}")
    gained = 0
    for _ in range(4 if merge and seats <= 3 else 6):
        doc = random_match(rng, seats, swap=swap, merge=merge)
        report = audit_document(doc).as_dict()["seats"]
        for seat in range(1, seats + 1):
            actual, best = brute_best(doc, seat)
            got = report[str(seat)]
            assert (got["actual"], got["best_invest"]) == (actual, best), (doc["seed"], seat)
            assert got["gain"] == best - actual >= 0
            gained += got["gain"] > 0
    assert gained > 0  # the audit found some better play, so the comparison bites


def test_audit_drops_combinations_that_break_a_later_swap() -> None:
    """A swap takes the card the seat invested: not investing it is no choice."""
    rng = random.Random(12)
    found = 0
    for _ in range(200):
        doc = random_match(rng, 3, swap=True, missing=0.0)
        spec = m.parse_match(doc)
        table = m.play(spec)
        for t in table.turns:
            if t.swap is None:
                continue
            earlier = [u for u in table.turns if u.turn < t.turn and u.invested == t.swap["take"]]
            if earlier and earlier[-1].receiver != t.current:
                seat = earlier[-1].receiver
                actual, best = brute_best(doc, seat)
                got = audit_document(doc).seats[seat]
                assert (got.actual, got.best_invest) == (actual, best)
                found += 1
        if found >= 5:
            break
    assert found >= 5


def test_golden_audit_example() -> None:
    doc = json.loads((GOLDEN / "01-three-players.match.json").read_text())
    want = json.loads((GOLDEN / "01-three-players.audit.json").read_text())
    for seat in (1, 2, 3):
        actual, best = brute_best(doc, seat)
        assert want["seats"][str(seat)]["best_invest"] == best
        assert want["seats"][str(seat)]["actual"] == actual
