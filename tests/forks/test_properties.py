"""Hypothesis over whole random Forks matches: every card is somewhere, once;
resolving is deterministic and a prefix of a file resolves to a prefix of
its turns; card ids read back in any case and with a space."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from referee.rulesets.forks import match as m
from referee.rulesets.forks.cards import ALL_CARDS, read_card

from .play import random_match

MATCHES = st.tuples(
    st.integers(0, 2**32), st.integers(2, 5), st.booleans(), st.booleans(), st.floats(0, 0.6)
)


@settings(max_examples=60, deadline=None)
@given(MATCHES)
def test_every_card_is_in_one_place_at_the_end(case: tuple[int, int, bool, bool, float]) -> None:
    seed, seats, swap, merge, missing = case
    doc = random_match(random.Random(seed), seats, swap=swap, merge=merge, missing=missing)
    result = m.resolve(doc)
    places = [*result["discarded"], *result["investment"]]
    for hand in result["hands"].values():
        places += hand
    assert sorted(places) == sorted(ALL_CARDS)
    if not merge:  # a kept card per draw, one passed card per invest step
        drew = [sum(t["current"] == s for t in result["turns"]) for s in range(1, seats + 1)]
        got = [sum(t["receiver"] == s for t in result["turns"]) for s in range(1, seats + 1)]
        assert [len(result["hands"][str(s)]) for s in range(1, seats + 1)] == [
            d + g for d, g in zip(drew, got, strict=True)
        ]
    assert result["elimination_candidate"]["seat"] in range(1, seats + 1)


@settings(max_examples=40, deadline=None)
@given(MATCHES, st.integers(0, 24))
def test_a_prefix_resolves_to_a_prefix(case: tuple[int, int, bool, bool, float], cut: int) -> None:
    seed, seats, swap, merge, missing = case
    doc = random_match(random.Random(seed), seats, swap=swap, merge=merge, missing=missing)
    full = m.resolve(doc)
    assert m.resolve(doc) == full
    cut = min(cut, len(doc["orders"]))
    part = m.resolve({**doc, "orders": doc["orders"][:cut]})
    done = cut // 2  # turns whose invest step has closed
    assert part["turns"][:done] == full["turns"][:done]
    assert len(part["turns"]) == min(done + 1, m.turns_of(seats))
    assert part["defaulted"] == [d for d in full["defaulted"] if d["round"] <= cut]
    assert ("scores" in part) is (cut == m.rounds_of(seats))


@given(st.sampled_from(ALL_CARDS), st.booleans(), st.booleans())
def test_every_id_reads_back_in_any_case_and_with_a_space(
    card: str, upper: bool, space: bool
) -> None:
    text = card.upper() if upper else card
    text = text.replace("-", " ") if space else text
    assert read_card(text) == card


@given(st.text(max_size=20))
def test_any_text_reads_as_a_card_or_nothing(text: str) -> None:
    card = read_card(text)
    assert card is None or card in ALL_CARDS
