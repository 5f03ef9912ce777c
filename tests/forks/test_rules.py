"""Forks K1-K11, rule by rule: each test pins one rule of
docs/contracts/forks/RULES.md; each refusal with a case only it refuses."""

from __future__ import annotations

import random
from typing import Any

import pytest

from referee.errors import RuleError
from referee.matchfile import seeded_hash as h
from referee.rulesets.forks import match as m
from referee.rulesets.forks.cards import ALL_CARDS, CARDS, COMPANIES, canonical, read_card
from referee.rulesets.forks.orders import DrawOrder

from .play import document, entry, random_match


def codes(doc: dict[str, Any]) -> list[str]:
    with pytest.raises(RuleError) as exc:
        m.resolve(doc)
    return exc.value.codes


def table_after(seats: int, rounds: int, **kw: Any) -> tuple[m.Table, list[Any]]:
    """A table after ``rounds`` rounds of first-option play, and the file's entries."""
    table = m.start("rules-seed", seats, swap=kw.get("swap", False), merge=kw.get("merge", False))
    orders: list[Any] = []
    for _ in range(rounds):
        order: DrawOrder | str = (
            DrawOrder(table.turn.drawn[0]) if table.next_kind == "draw" else table.options()[0]
        )
        orders.append(entry(table, order))
        m.close_next(table, order)
    return table, orders


# ---- K1 players and seats --------------------------------------------------------


@pytest.mark.parametrize("seats", [2, 5])
def test_k1_two_to_five_players_are_accepted(seats: int) -> None:
    result = m.resolve(document(seats, []))
    assert sorted(result["hands"]) == [str(s) for s in range(1, seats + 1)]


@pytest.mark.parametrize("seats", [1, 6])
def test_k1_one_or_six_players_are_refused(seats: int) -> None:
    doc = document(5, [])
    doc["players"] = [{"seat": s, "name": f"P{s}", "garnets": 0} for s in range(1, seats + 1)]
    assert codes(doc)


def test_k1_the_seat_on_the_left_of_the_last_is_seat_1() -> None:
    assert [m.next_seat(s, 4) for s in (1, 2, 3, 4)] == [2, 3, 4, 1]


# ---- K2 cards -----------------------------------------------------------------------


def test_k2_forty_cards_in_canonical_order() -> None:
    assert len(ALL_CARDS) == 40
    assert ALL_CARDS[:9] == (
        "dtv-3",
        "dtv-4",
        "dtv-4x",
        "dtv-5",
        "dtv-6",
        "dtv-7",
        "dtv-8",
        "dtv-9",
        "apidae-3",
    )
    twins = [c for c in ALL_CARDS if c.endswith("x")]
    assert twins == ["dtv-4x", "apidae-5x", "oxime-6x", "wildrock-7x", "needle-8x"]
    for firm in COMPANIES:
        assert sorted(CARDS.value(c) for c in ALL_CARDS if CARDS.suit(c) == firm)[0] == 3
    assert canonical(["needle-3", "dtv-4x", "dtv-4"]) == ["dtv-4", "dtv-4x", "needle-3"]


@pytest.mark.parametrize(
    ("text", "card"),
    [("DTV-4X", "dtv-4x"), ("Wildrock 7x", "wildrock-7x"), ("needle-8", "needle-8")],
)
def test_k2_ids_are_read_in_any_case_with_a_space_for_the_hyphen(text: str, card: str) -> None:
    assert read_card(text) == card


@pytest.mark.parametrize(
    "text", ["dtv-10", "dtv-2", "dtv-5x", "dtv 4 x", "dtv  4", "dtv- 4", "grey-8", "x" * 100]
)
def test_k2_anything_else_is_an_unknown_card(text: str) -> None:
    assert read_card(text) is None


# ---- K3 setup -------------------------------------------------------------------------


@pytest.mark.parametrize(("seats", "gone", "pile"), [(2, 9, 28), (3, 1, 36), (5, 1, 36)])
def test_k3_deck_order_initial_investment_discards_and_pile(
    seats: int, gone: int, pile: int
) -> None:
    table = m.start("k3", seats)
    deck = sorted(ALL_CARDS, key=lambda c: h("k3", "deck", c))
    assert table.initial == canonical(deck[:3]) == table.investment
    assert table.discarded == canonical(deck[3 : 3 + gone])
    assert table.turn.drawn == deck[3 + gone : 6 + gone]  # the top of the pile, in order
    assert len(table.pile) + 3 == pile


# ---- K4 turns --------------------------------------------------------------------------


@pytest.mark.parametrize(("seats", "turns"), [(2, 8), (3, 12), (4, 12), (5, 12)])
def test_k4_the_match_ends_when_the_pile_runs_out(seats: int, turns: int) -> None:
    table, _ = table_after(seats, 2 * turns)
    assert table.finished and table.pile == [] and len(table.turns) == turns
    assert sum(len(h) for h in table.hands.values()) == 2 * turns  # a kept and a passed each


def test_k4_with_five_players_seats_1_and_2_draw_three_times() -> None:
    table, _ = table_after(5, 24)
    counts = [sum(t.current == s for t in table.turns) for s in range(1, 6)]
    assert counts == [3, 3, 2, 2, 2]


def test_k4_one_seat_acts_per_step_the_current_then_its_left() -> None:
    assert [m.acting_seat(n, 3) for n in range(1, 9)] == [1, 2, 2, 3, 3, 1, 1, 2]
    assert [m.acting_seat(n, 2) for n in range(1, 5)] == [1, 2, 2, 1]


def test_k4_keep_one_pass_two_invest_one_keep_the_other() -> None:
    table = m.start("k4", 3)
    drawn = list(table.turn.drawn)
    m.close_draw(table, DrawOrder(drawn[1]))
    assert table.hands[1] == [drawn[1]]
    assert table.turn.passed == canonical([drawn[0], drawn[2]])
    passed = list(table.turn.passed)
    m.close_invest(table, passed[0])
    assert table.hands[2] == [passed[1]]
    assert passed[0] in table.investment and len(table.investment) == 4
    assert table.turn.turn == 2 and table.turn.current == 2  # the next turn has started


def test_k4_two_players_reveal_after_seat_2s_turns_only() -> None:
    table, _ = table_after(2, 16)
    assert [t.revealed is not None for t in table.turns] == [False, True] * 4
    for t in table.turns:
        if t.revealed:
            assert t.revealed in table.investment or any(
                x.swap and x.swap["take"] == t.revealed for x in table.turns
            )
    assert len(table.investment) == 3 + 8 + 4


def test_k4_a_swap_takes_effect_when_the_draw_step_closes() -> None:
    table = m.start("k4-swap", 3, swap=True)
    give, take = table.turn.drawn[0], table.investment[0]
    m.close_draw(table, DrawOrder(take, give, take))
    assert give in table.investment and take not in table.investment
    assert table.hands[1] == [take]
    assert table.turn.passed == canonical(table.turn.drawn[1:])
    assert table.turn.swap == {"give": give, "take": take}


# ---- K5 orders ---------------------------------------------------------------------------


def _file_with(order: Any, *, rounds: int = 0, swap: bool = False, merge: bool = False) -> Any:
    table, orders = table_after(3, rounds, swap=swap, merge=merge)
    return document(
        3, [*orders, {str(table.acting): order}], seed="rules-seed", swap=swap, merge=merge
    ), table


def test_k5_a_legal_keep_and_invest_resolve() -> None:
    _, orders = table_after(3, 4)
    assert m.resolve(document(3, orders, seed="rules-seed"))["turns"][1]["invested"]


@pytest.mark.parametrize(
    ("order", "code"),
    [
        ("dtv-3", "order/not_object"),
        ({}, "order/missing_key"),
        ({"invest": "dtv-3"}, "order/wrong_step"),
        ({"keep": "dtv-3", "play": 1}, "order/extra_key"),
        ({"keep": 7}, "card/not_a_string"),
        ({"keep": "dtv-10"}, "card/unknown"),
        ({"keep": "dtv-3", "swap": {"give": "dtv-3", "take": "dtv-4"}}, "swap/not_allowed"),
    ],
)
def test_k5_draw_step_shapes_are_refused(order: Any, code: str) -> None:
    doc, _ = _file_with(order)
    assert codes(doc) == [code]


def test_k5_keep_a_card_not_drawn_is_refused() -> None:
    table = m.start("rules-seed", 3)
    other = next(c for c in ALL_CARDS if c not in table.turn.drawn)
    doc, _ = _file_with({"keep": other})
    assert codes(doc) == ["keep/not_drawn"]
    doc, _ = _file_with({"keep": table.turn.drawn[2].upper().replace("-", " ")})
    assert m.resolve(doc)["turns"][0]["kept"] == table.turn.drawn[2]


def _swap_file(give: str, take: str, keep: str) -> Any:
    return _file_with({"keep": keep, "swap": {"give": give, "take": take}}, swap=True)[0]


def test_k5_swap_refusals_each_alone() -> None:
    table = m.start("rules-seed", 3, swap=True)
    drawn, invested = table.turn.drawn, table.investment
    nowhere = next(c for c in ALL_CARDS if c not in drawn and c not in invested)
    assert m.resolve(_swap_file(drawn[0], invested[0], invested[0]))["turns"][0]["swap"]
    assert m.resolve(_swap_file(drawn[0], invested[0], drawn[1]))["turns"][0]["kept"] == drawn[1]
    assert codes(_swap_file(nowhere, invested[0], invested[0])) == ["swap/give_not_drawn"]
    assert codes(_swap_file(drawn[0], nowhere, drawn[1])) == ["swap/take_not_invested"]
    assert codes(_swap_file(drawn[0], invested[0], drawn[0])) == ["keep/given"]
    assert codes(_swap_file(drawn[0], drawn[0], drawn[1])) == ["swap/same_card"]
    assert codes(_swap_file(drawn[0], invested[0], nowhere)) == ["keep/not_drawn"]


@pytest.mark.parametrize(
    ("swap", "code"),
    [
        ("dtv-3", "swap/not_object"),
        ({"give": "dtv-3"}, "swap/missing_key"),
        ({"give": "dtv-3", "take": "dtv-4", "also": 1}, "swap/extra_key"),
    ],
)
def test_k5_swap_shapes_are_refused(swap: Any, code: str) -> None:
    table = m.start("rules-seed", 3, swap=True)
    doc, _ = _file_with({"keep": table.turn.drawn[0], "swap": swap}, swap=True)
    assert code in codes(doc)


@pytest.mark.parametrize(
    ("order", "code"),
    [
        ("dtv-3", "order/not_object"),
        ({}, "order/missing_key"),
        ({"keep": "dtv-3"}, "order/wrong_step"),
        ({"invest": "dtv-3", "x": 1}, "order/extra_key"),
        ({"invest": None}, "card/not_a_string"),
        ({"invest": "oxime-6xx"}, "card/unknown"),
    ],
)
def test_k5_invest_step_shapes_are_refused(order: Any, code: str) -> None:
    doc, _ = _file_with(order, rounds=1)
    assert codes(doc) == [code]


def test_k5_invest_a_card_not_passed_is_refused() -> None:
    _, table = _file_with(None, rounds=1)
    kept = table.turn.kept
    doc, _ = _file_with({"invest": kept}, rounds=1)
    assert codes(doc) == ["invest/not_passed"]  # the passer's kept card: not passed


def test_k6_merge_invests_any_card_of_the_hand_but_no_other() -> None:
    table, _ = table_after(3, 6, merge=True)  # seat 2 holds a card from turn 1
    held = table.hands[1]
    assert held
    doc, _ = _file_with({"invest": held[0]}, rounds=7, merge=True)
    assert codes(doc) == ["invest/not_in_hand"]  # seat 1's card, for seat 2
    mine = table_after(3, 7, merge=True)[0].hands[2][0]
    doc, _ = _file_with({"invest": mine}, rounds=7, merge=True)
    assert m.resolve(doc)["turns"][3]["invested"] == mine


def test_k5_a_key_of_another_seat_is_refused_even_null() -> None:
    for value in (None, {"keep": "dtv-3"}):
        doc = document(3, [{"2": value}])
        assert codes(doc) == ["match/not_acting"]
    assert codes(document(3, [{"9": None}])) == ["match/unknown_seat"]


def test_k5_no_order_forms_default() -> None:
    for empty in (None, {}, {"1": None}):
        result = m.resolve(document(3, [empty]))
        assert result["defaulted"] == [{"round": 1, "seat": 1}]


def test_k5_too_many_rounds_are_refused() -> None:
    _, orders = table_after(2, 16)
    assert m.resolve(document(2, orders, seed="rules-seed"))["scores"]
    assert codes(document(2, [*orders, {}], seed="rules-seed")) == ["match/too_many_rounds"]


def test_k5_every_problem_of_a_file_is_listed() -> None:
    doc = document(3, [{"2": None}, "x"], swap=True)
    doc["seed"] = ""
    doc["settings"]["merge"] = "yes"
    found = codes(doc)
    assert "match/not_acting" in found and "match/bad_orders" in found
    assert "settings/not_a_flag" in found and len(found) >= 4


# ---- K7-K9 investment, scoring, result -------------------------------------------------


def test_k7_k8_totals_ranking_and_score() -> None:
    totals = CARDS.totals(["dtv-4", "dtv-4x", "wildrock-8", "needle-3"])
    assert totals == {"dtv": 8, "apidae": 0, "oxime": 0, "wildrock": 8, "needle": 3}
    ranked = CARDS.ranking(totals, m.DEFAULT_TIEBREAK)
    assert ranked == ["dtv", "wildrock", "needle", "apidae", "oxime"]  # dtv wins the tie
    assert CARDS.ranking(totals, ["wildrock", *[c for c in COMPANIES if c != "wildrock"]])[0] == (
        "wildrock"
    )
    assert CARDS.score(["dtv-9", "oxime-5", "needle-3"], ranked) == 9 - 5 + 3


def test_k8_the_default_tiebreak() -> None:
    assert m.DEFAULT_TIEBREAK == ("dtv", "apidae", "oxime", "needle", "wildrock")
    assert m.SETTINGS[2].default == list(m.DEFAULT_TIEBREAK)


def test_k9_token_and_elimination_over_random_matches() -> None:
    rng = random.Random(9)
    seen: set[str] = set()
    for _ in range(60):
        doc = random_match(rng, rng.randint(2, 5))
        result = m.resolve(doc)
        scores = {int(s): v for s, v in result["scores"].items()}
        best = max(scores.values())
        leaders = [s for s, v in scores.items() if v == best]
        assert result["token_of_life"] == (leaders[0] if len(leaders) == 1 else None)
        ec = result["elimination_candidate"]
        low = min(scores.values())
        assert scores[ec["seat"]] == low
        seen.add(ec["decided_by"])
    assert "score" in seen


def test_k9_garnets_then_the_seeded_draw_decide_ties() -> None:
    from referee.rulesets.cardgame import elimination_candidate

    assert elimination_candidate({1: 0, 2: 0, 3: 5}, {1: 3, 2: 1, 3: 0}, "s").decided_by == (
        "garnets"
    )
    drawn = elimination_candidate({1: 0, 2: 0, 3: 0}, {1: 1, 2: 1, 3: 1}, "s")
    assert drawn.decided_by == "draw"
    assert drawn.seat == [1, 2, 3][int(h("s", "draw", "elimination"), 16) % 3]


# ---- K10 defaults ---------------------------------------------------------------------------


def test_k10_defaults_follow_the_seeded_hash() -> None:
    doc = document(3, [{}, {}], seed="k10")
    result = m.resolve(doc)
    t = result["turns"][0]
    assert t["kept"] == min(t["drawn"], key=lambda c: h("k10", "nmr", "keep", 1, 1, c))
    assert t["invested"] == min(t["passed"], key=lambda c: h("k10", "nmr", "invest", 1, 2, c))
    assert result["defaulted"] == [{"round": 1, "seat": 1}, {"round": 2, "seat": 2}]


def test_k10_a_merge_default_chooses_among_the_whole_hand() -> None:
    table, orders = table_after(3, 6, merge=True)
    result = m.resolve(document(3, [*orders, {}, {}], seed="rules-seed", merge=True))
    t = result["turns"][3]
    options = canonical([*table.hands[2], *t["passed"]])
    want = min(options, key=lambda c: h("rules-seed", "nmr", "invest", 4, 2, c))
    assert t["invested"] == want


# ---- the result's shape --------------------------------------------------------------------


def test_result_keys_before_and_at_the_end() -> None:
    _, orders = table_after(3, 2)
    partial = m.resolve(document(3, orders, seed="rules-seed"))
    assert "ranking" not in partial and "scores" not in partial
    assert partial["turns"][1]["swap"] is None and partial["turns"][1]["kept"] is None
    assert partial["turns"][1]["drawn"]  # filled as soon as the turn starts
    assert m.resolve(document(3, []))["turns"][0]["drawn"]
