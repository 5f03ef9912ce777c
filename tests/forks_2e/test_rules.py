"""Forks 2nd Edition, rule by rule (RULES.md F1-F10), on small hand-made cases."""

from __future__ import annotations

import hashlib

import pytest

from referee.errors import RuleError
from referee.rulesets.forks_2e import match as m
from referee.rulesets.forks_2e.cards import (
    ALL_CARDS,
    DESTINATIONS,
    canonical,
    cards_in_play,
    read_card,
    value,
)
from referee.rulesets.forks_2e.orders import check_keep, check_market
from referee.rulesets.forks_2e.scoring import (
    elimination_candidate,
    marketing_totals,
    ranking,
    score,
    token_of_life,
)
from referee.rulesets.forks_2e.seeded import deck_order, default_keep, default_market, draw

# ---- F2 cards ---------------------------------------------------------------


def test_f2_there_are_55_cards_11_per_destination() -> None:
    assert len(ALL_CARDS) == len(set(ALL_CARDS)) == 55
    for dest in DESTINATIONS:
        mine = [c for c in ALL_CARDS if c.startswith(dest + "-")]
        assert len(mine) == 11
        assert sorted(value(c) for c in mine if not c.endswith("x")) == list(range(3, 13))
    assert [c for c in ALL_CARDS if c.endswith("x")] == [
        "grey-8x",
        "blue-7x",
        "yellow-6x",
        "green-5x",
        "red-4x",
    ]


def test_f2_canonical_order_puts_the_twin_after_its_number() -> None:
    assert canonical(["red-3", "grey-8x", "grey-9", "grey-8", "blue-12"]) == [
        "grey-8",
        "grey-8x",
        "grey-9",
        "blue-12",
        "red-3",
    ]
    assert value("grey-8x") == value("grey-8") == 8


@pytest.mark.parametrize(
    ("text", "card"),
    [
        ("grey-8x", "grey-8x"),
        ("Grey 8x", "grey-8x"),
        ("GREY-8X", "grey-8x"),
        ("red 12", "red-12"),
        ("grey  8", None),  # two spaces
        (" grey-8", None),
        ("grey-8 ", None),
        ("grey_8", None),
        ("grey-2", None),
        ("grey-13", None),
        ("grey-9x", None),  # grey's twin is the 8
        ("purple-5", None),
        ("grey 8-x", None),
        ("", None),
        ("grey-8" * 1000, None),
    ],
)
def test_f2_reading_a_card(text: str, card: str | None) -> None:
    assert read_card(text) == card


# ---- F3 set-up ---------------------------------------------------------------


@pytest.mark.parametrize("seats", [2, 3, 4, 5, 6])
def test_f3_counts_divide_exactly(seats: int) -> None:
    counts = m.COUNTS[seats]
    in_play = cards_in_play(seats)
    assert len(in_play) == (40 if seats <= 3 else 55)
    per_round = 3 * seats + (1 if seats == 2 else 0)
    assert len(in_play) - counts.removed - counts.initial_marketing == per_round * (
        counts.game_rounds
    )
    table = m.start("any seed", seats)
    assert len(table.removed) == counts.removed
    assert len(table.initial_marketing) == counts.initial_marketing
    assert [len(cards) for cards in table.dealt[0].values()] == [3] * seats


def test_f3_with_two_or_three_players_values_10_to_12_are_out() -> None:
    assert not any(value(c) >= 10 for c in cards_in_play(3))
    assert sum(value(c) >= 10 for c in cards_in_play(4)) == 15


def test_f3_deck_order_is_sorted_by_the_seeded_hash() -> None:
    seed = "s"
    order = deck_order(seed, cards_in_play(4))
    digests = [hashlib.sha256(f"{seed}:deck:{c}".encode()).hexdigest() for c in order]
    assert digests == sorted(digests)
    table = m.start(seed, 4)
    # removed, then initial marketing, then the deal from the top, seat 1 first
    assert table.removed == canonical(order[:4])
    assert table.initial_marketing == canonical(order[4:7])
    assert table.dealt[0] == {1: order[7:10], 2: order[10:13], 3: order[13:16], 4: order[16:19]}


# ---- F4/F5 steps and orders ---------------------------------------------------------


def test_f4_keep_passes_the_other_two_clockwise() -> None:
    table = m.start("pass", 3)
    dealt = {s: list(c) for s, c in table.dealt[0].items()}
    m.close_keep(table, {1: dealt[1][0], 2: dealt[2][1], 3: dealt[3][2]})
    assert table.passed[0][2] == canonical(dealt[1][1:])
    assert table.passed[0][3] == canonical([dealt[2][0], dealt[2][2]])
    assert table.passed[0][1] == canonical(dealt[3][:2])  # seat n passes to seat 1
    assert table.hands == {1: [dealt[1][0]], 2: [dealt[2][1]], 3: [dealt[3][2]]}


def test_f4_standard_market_keeps_the_other_passed_card() -> None:
    table = m.start("market", 4)
    m.close_keep(table, {})
    passed = {s: list(table.passed[0][s]) for s in range(1, 5)}
    hands = {s: list(table.hands[s]) for s in range(1, 5)}
    m.close_market(table, {s: passed[s][0] for s in range(1, 5)})
    for s in range(1, 5):
        assert table.hands[s] == canonical([*hands[s], passed[s][1]])
    assert canonical(table.marketed_by[0].values()) == canonical(p[0] for p in passed.values())
    assert len(table.dealt) == 2  # game round 2 dealt when the market step closed


def test_f4_merge_market_may_name_any_card_of_the_hand() -> None:
    table = m.start("merge", 4, merge=True)
    m.close_keep(table, {})
    kept = table.hands[1][0]
    assert table.options(1) == canonical([kept, *table.passed[0][1]])
    m.close_market(table, {1: kept})
    assert table.hands[1] == table.passed[0][1]  # both passed cards stay, the kept one left
    assert kept in table.marketing()


def test_f4_two_players_reveal_the_top_pile_card_after_each_market_step() -> None:
    table = m.start("two", 2)
    top = None
    while not table.finished:
        if table.closed % 2 == 1:
            top = table.pile[0]
        (m.close_keep if table.closed % 2 == 0 else m.close_market)(table, {})
        if table.closed % 2 == 0:
            assert table.revealed[-1] == top
    assert len(table.revealed) == 4 and table.pile == []


def test_f5_keep_must_be_dealt_and_market_must_be_passed() -> None:
    dealt = ["grey-3", "blue-7x", "red-9"]
    assert check_keep("Blue 7x", dealt) == "blue-7x"
    with pytest.raises(RuleError) as exc:
        check_keep("blue-7", dealt)
    assert exc.value.codes == ["keep/not_dealt"]
    # names the card sent, never the seat's cards (the host may be the sender)
    assert "blue-7 " in str(exc.value) and not any(c in str(exc.value) for c in dealt)
    with pytest.raises(RuleError) as exc:
        check_keep("blue-77", dealt)
    assert exc.value.codes == ["card/unknown"]
    with pytest.raises(RuleError) as exc:
        check_keep(7, dealt)
    assert exc.value.codes == ["card/not_a_string"]
    with pytest.raises(RuleError) as exc:
        check_market("grey-3", ["blue-3", "red-3"], merge=False)
    assert exc.value.codes == ["market/not_passed"]
    with pytest.raises(RuleError) as exc:
        check_market("grey-3", ["blue-3", "red-3"], merge=True)
    assert exc.value.codes == ["market/not_in_hand"]


# ---- F6-F9 scoring ------------------------------------------------------------


def test_f6_totals_include_every_destination() -> None:
    assert marketing_totals([]) == dict.fromkeys(DESTINATIONS, 0)
    assert marketing_totals(["grey-8", "grey-8x", "red-3"])["grey"] == 16


def test_f7_f8_ties_follow_the_tiebreak_order() -> None:
    totals = {"grey": 10, "blue": 10, "yellow": 5, "green": 5, "red": 0}
    assert ranking(totals, m.DEFAULT_TIEBREAK) == ["blue", "grey", "yellow", "green", "red"]
    other = ("red", "green", "yellow", "grey", "blue")
    assert ranking(totals, other) == ["grey", "blue", "green", "yellow", "red"]


def test_f8_score_adds_the_top_and_subtracts_the_bottom() -> None:
    ranked = ["blue", "grey", "yellow", "green", "red"]
    assert score(["blue-7", "yellow-3", "green-5x", "red-12"], ranked) == 7 + 3 - 5 - 12


def test_f9_token_of_life_needs_a_single_highest() -> None:
    assert token_of_life({1: 5, 2: 9, 3: 1}) == 2
    assert token_of_life({1: 9, 2: 9, 3: 1}) is None


def test_f9_elimination_by_score_garnets_and_draw() -> None:
    by_score = elimination_candidate({1: -3, 2: 0, 3: 4}, {1: 9, 2: 0, 3: 0}, "s")
    assert (by_score.seat, by_score.decided_by) == (1, "score")
    by_garnets = elimination_candidate({1: -3, 2: -3, 3: 4}, {1: 2, 2: 1, 3: 0}, "s")
    assert (by_garnets.seat, by_garnets.decided_by) == (2, "garnets")
    assert by_garnets.tied_on_score == (1, 2)
    drawn = elimination_candidate({1: -3, 2: -3, 3: -3}, {1: 2, 2: 1, 3: 1}, "s")
    assert drawn.decided_by == "draw" and drawn.tied_on_garnets == (2, 3)
    index = int(hashlib.sha256(b"s:draw:elimination").hexdigest(), 16) % 2
    assert drawn.seat == [2, 3][index] == draw("s", [3, 2])


# ---- F10 defaults -----------------------------------------------------------------


def test_f10_defaults_take_the_smallest_hash() -> None:
    def h(*parts: object) -> str:
        return hashlib.sha256(":".join(map(str, ("sd", *parts))).encode()).hexdigest()

    dealt = ["grey-3", "blue-7x", "red-9"]
    assert default_keep("sd", 2, 3, dealt) == min(dealt, key=lambda c: h("nmr", "keep", 2, 3, c))
    assert default_market("sd", 1, 4, dealt) == min(
        dealt, key=lambda c: h("nmr", "market", 1, 4, c)
    )


def test_f10_a_missing_order_is_defaulted_and_listed() -> None:
    table = m.start("nmr", 3)
    dealt = table.dealt[0][2]
    m.close_keep(table, {1: table.dealt[0][1][0], 3: table.dealt[0][3][0]})
    assert table.defaulted == [(1, 2)]
    assert table.kept[0][2] == default_keep("nmr", 1, 2, dealt)


def test_f1_passing_wraps_round() -> None:
    assert [m.next_seat(s, 5) for s in range(1, 6)] == [2, 3, 4, 5, 1]
    assert [m.previous_seat(s, 5) for s in range(1, 6)] == [5, 1, 2, 3, 4]
