"""Properties of any legal play (hypothesis): every player count, both variants,
any choices and any missing orders.

- every card in play is in exactly one place (removed, marketing, a hand, the
  draw pile, or dealt/passed and not yet placed), and the pile is empty at the end;
- hands grow by two cards per game round;
- the match file of the play resolves to the same result, again and again, and
  through the ruleset's replay of each prefix;
- a prefix of the orders resolves to a prefix of the play (docs/contracts/forks-2e/FORMAT.md's
  partial files).
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from referee.ruleset import Setup, get_ruleset
from referee.rulesets.forks_2e import match as m
from referee.rulesets.forks_2e.cards import DESTINATIONS, cards_in_play

PLAYERS = [{"seat": s, "name": f"P{s}", "garnets": s % 3} for s in range(1, 7)]


@st.composite
def plays(draw: st.DrawFn) -> tuple[dict[str, Any], list[dict[int, str | None]], m.Table]:
    """A settings object, the closed rounds' orders (None: no order) and the final table."""
    seats = draw(st.integers(2, 6))
    merge = draw(st.booleans())
    tiebreak = draw(st.permutations(DESTINATIONS))
    seed = draw(st.text(min_size=1, max_size=12))
    table = m.start(seed, seats, merge=merge)
    orders: list[dict[int, str | None]] = []
    while not table.finished:
        chosen: dict[int, str | None] = {}
        for seat in table.seat_numbers():
            if draw(st.integers(0, 5)) == 0:
                chosen[seat] = None  # a missing order: seeded default
            else:
                chosen[seat] = draw(st.sampled_from(table.options(seat)))
        orders.append(chosen)
        (m.close_keep if table.closed % 2 == 0 else m.close_market)(table, chosen)
    return {"merge": merge, "tiebreak": list(tiebreak), "seed": seed}, orders, table


def _doc(options: dict[str, Any], orders: list[dict[int, str | None]]) -> dict[str, Any]:
    seats = len(orders[0]) if orders else 0
    players = PLAYERS[:seats]
    settings_ = {"merge": options["merge"], "tiebreak": options["tiebreak"]}
    return m.match_json(players, settings_, options["seed"], orders)


@settings(max_examples=60, deadline=None)
@given(plays())
def test_every_card_is_accounted_for_and_the_pile_ends_empty(
    play: tuple[dict[str, Any], list[dict[int, str | None]], m.Table],
) -> None:
    _, _, table = play
    assert table.pile == []
    places = Counter(table.removed + table.marketing())
    for hand in table.hands.values():
        places.update(hand)
    assert sorted(places) == sorted(cards_in_play(table.seats))
    assert set(places.values()) == {1}
    rounds = table.game_rounds
    assert all(len(hand) == 2 * rounds for hand in table.hands.values())
    assert len(table.marketed_by) == rounds
    assert len(table.revealed) == (rounds if table.seats == 2 else 0)


@settings(max_examples=40, deadline=None)
@given(plays())
def test_the_match_file_resolves_to_the_play_again_and_again(
    play: tuple[dict[str, Any], list[dict[int, str | None]], m.Table],
) -> None:
    options, orders, table = play
    doc = _doc(options, orders)
    first = m.resolve(doc)
    assert first == m.resolve(doc)
    assert first["hands"] == {str(s): h for s, h in table.hands.items()}
    missing = sorted((i + 1, s) for i, o in enumerate(orders) for s, c in o.items() if c is None)
    assert [(d["round"], d["seat"]) for d in first["defaulted"]] == missing
    assert set(first) >= {"ranking", "scores", "token_of_life", "elimination_candidate"}
    assert sum(first["marketing_totals"].values()) == sum(
        int(c.split("-")[1].rstrip("x")) for c in table.marketing()
    )


@settings(max_examples=15, deadline=None)
@given(plays())
def test_each_prefix_replays_to_the_same_state_as_the_whole(
    play: tuple[dict[str, Any], list[dict[int, str | None]], m.Table],
) -> None:
    """The ruleset's replay of the first k rounds, for every k, agrees with the
    whole match on everything those rounds decided."""
    options, orders, _ = play
    rules = get_ruleset("forks-2e")
    seats = len(orders[0])
    setup = Setup(players=PLAYERS[:seats])
    game_settings = {"merge": options["merge"], "tiebreak": options["tiebreak"], "names": {}}
    whole = m.resolve(_doc(options, orders), details=True)
    for k in range(len(orders) + 1):
        closed = [{s: c for s, c in o.items() if c is not None} for o in orders[:k]]
        state = rules.replay(setup, game_settings, options["seed"], closed)
        assert state == rules.replay(setup, game_settings, options["seed"], closed)
        assert state["closed"] == k
        assert state["dealt"] == whole["dealt"][: len(state["dealt"])]
        assert state["kept"] == whole["kept"][: len(state["kept"])]
        assert state["marketed"] == whole["marketed"][: len(state["marketed"])]
        assert "ranking" in state if k == len(orders) else "ranking" not in state
        assert len(state["dealt"]) == min(k // 2 + 1, state["game_rounds"])
