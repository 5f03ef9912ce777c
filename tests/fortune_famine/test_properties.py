"""Hypothesis: many random matches (tests/conftest.py runs this module with
the slow ones): random legal orders chosen from the acting seats'
``options``, some left to FF7's default, are always accepted, every match
runs to its end, and the match file of those orders resolves to the same
result; every few steps the checks of test_random_play.py on the state.
And, leaf by leaf, that no private datum of the detailed result reaches two
seats' views (FF21)."""

from __future__ import annotations

import json
import random
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from leaf_changes import changed as changed_at
from leaf_changes import leaves

from referee.rulesets.fortune_famine.match import (
    detail_json,
    parse_match,
    resolve,
    result_json,
    start,
)
from referee.rulesets.fortune_famine.orders import close_step
from referee.rulesets.fortune_famine.randomplay import random_step
from referee.rulesets.fortune_famine.view import view

from .test_random_play import match_doc, play_randomly
from .test_view import after_theft


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


# ---- FF21: no private datum reaches two seats --------------------------------------------


def _seen(details: Any, viewer: Any) -> str:
    try:
        shown: Any = view(details, viewer)
        if viewer == "public":
            shown = {"view": shown, "next": details["next_round"]}
        return json.dumps(shown, sort_keys=True)
    except Exception as exc:  # a view that fails on a changed state has read it
        return f"error: {type(exc).__name__}"


def test_no_private_datum_reaches_two_seats() -> None:
    """As the conformance suite will check once the game is registered: each
    leaf of the detailed result changed alone; a leaf the public does not
    see changes at most one seat's view (options included)."""
    rng = random.Random(5)
    doc = match_doc(3, "short", "leaves", rng)
    doc["rulers"] = {"1": "besella-baroso", "2": "elban-eltezza", "3": "divina-daznul"}
    table = start(parse_match(doc))
    states = [table]
    while table.next is not None:
        table = close_step(table, random_step(table, rng, 0.05))
        states.append(table)
    details_list = [detail_json(t) for t in states[::7]]
    details_list.append(after_theft())
    private = 0
    for details in details_list:
        viewers: list[Any] = ["public", "host", *(int(s) for s in details["seats"])]
        base = {v: _seen(details, v) for v in viewers}
        for path in leaves(details):
            changed = changed_at(details, path)
            seeing = [v for v in viewers if _seen(changed, v) != base[v]]
            if "public" in seeing:
                continue
            seats = [v for v in seeing if isinstance(v, int)]
            assert len(seats) <= 1, f"{'/'.join(map(str, path))} is seen by seats {seats}"
            private += bool(seats)
    assert private > 0  # stored totals and storage thefts are private
