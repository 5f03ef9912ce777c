"""The draft form's rank boxes (referee.rulesets.rocky_river.forms.apply_ranks):
a changed box moves its card to the rank typed, the others keep their order."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from referee.errors import RuleError
from referee.rulesets.rocky_river.data import load_deck
from referee.rulesets.rocky_river.forms import apply_ranks

CARDS = list(load_deck().ids)


def boxes(cards: list[str], changes: dict[str, str]) -> list[str]:
    """The rank boxes as the page shows them (1..n), with ``changes`` typed in."""
    return [changes.get(c, str(i)) for i, c in enumerate(cards, start=1)]


def test_unchanged_boxes_keep_the_list() -> None:
    assert apply_ranks(CARDS, boxes(CARDS, {})) == CARDS
    assert apply_ranks(CARDS, ["" for _ in CARDS]) == CARDS  # emptied boxes: no move


@given(st.sampled_from(CARDS), st.integers(1, 27))
def test_one_moved_card_lands_on_its_rank(card: str, rank: int) -> None:
    out = apply_ranks(CARDS, boxes(CARDS, {card: str(rank)}))
    assert out.index(card) == rank - 1
    assert [c for c in out if c != card] == [c for c in CARDS if c != card]


def test_several_moves_and_ranks_beyond_the_list() -> None:
    out = apply_ranks(CARDS, boxes(CARDS, {"K": "1", "A": "99", "T": "5", "B": " 2 "}))
    assert out[:5] == ["K", "B", "C", "D", "T"]
    assert out[-1] == "A" and sorted(out) == sorted(CARDS)


def test_equal_ranks_keep_the_list_order() -> None:
    out = apply_ranks(CARDS, boxes(CARDS, {"Z": "3", "Y": "3"}))
    assert out[2:4] == ["Y", "Z"]


@pytest.mark.parametrize("typed", ["top", "0", "-1", "1.5", "\u0661", "12345", "x" * 500])
def test_a_box_that_is_not_a_rank_is_refused_next_to_its_card(typed: str) -> None:
    with pytest.raises(RuleError) as caught:
        apply_ranks(CARDS, boxes(CARDS, {"K": typed}))
    (problem,) = caught.value.problems
    assert problem.code == "draft/bad_rank" and problem.field == "10"
    assert problem.message.startswith("the rank of card K must be a whole number from 1 to 27")
    assert len(problem.message) < 120  # a long entry is cut


def test_boxes_that_do_not_pair_with_the_list_are_ignored() -> None:
    assert apply_ranks(CARDS, ["1"]) == CARDS
    assert apply_ranks(CARDS, []) == CARDS
