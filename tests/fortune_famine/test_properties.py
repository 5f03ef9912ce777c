"""Hypothesis: many random matches (tests/conftest.py runs this module with
the slow ones): random legal orders chosen from the acting seats'
``options``, some left to FF7's default, are always accepted, every match
runs to its end, and the match file of those orders resolves to the same
result; every few steps the checks of test_random_play.py on the state."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from referee.rulesets.fortune_famine.match import resolve, result_json

from .test_random_play import match_doc, play_randomly


@settings(max_examples=30, deadline=None)
@given(
    seats=st.integers(2, 6),
    length=st.sampled_from(["full", "short"]),
    seed=st.text(min_size=1, max_size=12),
    choices=st.integers(0, 2**32),
    missing=st.sampled_from([0.0, 0.05, 0.3, 1.0]),
)
def test_random_legal_play_always_finishes(
    seats: int, length: str, seed: str, choices: int, missing: float
) -> None:
    rng = random.Random(choices)
    doc = match_doc(seats, length, seed, rng)
    table, orders = play_randomly(doc, rng, missing, checks=choices % 3 == 0)
    result = result_json(table)
    assert result["finished"] and result["token_of_life"] == result["ranking"][0]
    assert result["elimination_candidate"]["seat"] == result["ranking"][-1]
    assert resolve({**doc, "orders": orders}) == result
