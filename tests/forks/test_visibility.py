"""K11 at the rules' level: what the public, each seat and the host see of a
Forks match at every state of a played match (swap on), and the host's
entered orders answered from its own view."""

from __future__ import annotations

import json
from typing import Any

import pytest

from referee.errors import RuleError
from referee.ruleset import GameState, Setup, Step, Viewer, get_ruleset
from referee.rulesets.forks import match as m
from referee.rulesets.forks.cards import CARDS
from referee.rulesets.forks.demo import DEMO_SEED, demo_orders

RULES = get_ruleset("forks")


def states(seats: int, *, merge: bool = False) -> list[tuple[GameState, Step | None]]:
    """Every state of the demo match (with its orders) and its open step."""
    demo = RULES.demo(seats)
    setup = RULES.check_setup({}, demo.players)
    settings = {**demo.settings, "merge": merge}
    steps = demo_orders(seats, merge=merge)
    out = []
    for n in range(len(steps) + 1):
        data = RULES.replay(setup, settings, DEMO_SEED, steps[:n])
        state = GameState(setup, settings, n, data)
        out.append((state, RULES.next_step(state)))
    return out


def seen(state: GameState, viewer: Viewer, step: Step | None) -> dict[str, Any]:
    return RULES.view(state, viewer, revealed=False, open_step=step)


def text(value: Any) -> str:
    return json.dumps(value)


@pytest.mark.parametrize("seats", [2, 3, 5])
def test_the_public_never_sees_drawn_kept_or_passed_cards(seats: int) -> None:
    for state, step in states(seats):
        result = seen(state, Viewer.public(), step)["result"]
        assert "discarded" not in result and "options" not in result
        for t in result["turns"]:
            assert set(t) == {"turn", "current", "receiver", "swap", "invested", "revealed"}
        if not state.data["finished"]:
            assert "hands" not in result and "scores" not in result
        else:
            assert result["hands"] == state.data["hands"] and "ranking" in result


def test_a_seat_sees_its_draw_as_current_and_the_passed_cards_as_receiver() -> None:
    for state, step in states(3):
        data = state.data
        turn = data["turns"][-1] if data["turns"] else None
        for seat in (1, 2, 3):
            view = seen(state, Viewer.of_seat(seat), step)
            assert view["hand"] == data["hands"][str(seat)]
            acting = step is not None and seat in step.acting
            assert ("options" in view) is acting
            if not acting or step is None or turn is None:
                continue
            if step.phase == "draw":
                assert sorted(view["options"]) == sorted(turn["drawn"])
                assert view["can_take"] == data["investment"]
            else:
                assert view["options"] == turn["passed"] and "can_take" not in view
        for seat in (1, 2, 3):
            mine = seen(state, Viewer.of_seat(seat), step)["result"]["mine"]
            for own in mine:
                t = data["turns"][own["turn"] - 1]
                if own["role"] == "draw":
                    assert t["current"] == seat and own["drawn"] == t["drawn"]
                    assert own["passed"] == t["passed"]  # None until the draw closes
                else:
                    assert t["receiver"] == seat and own["received"] == t["passed"]
            others = [
                t["drawn"]
                for t in data["turns"]
                if t["current"] != seat and text(t["drawn"]) in text(mine)
            ]
            assert others == []


def test_the_host_sees_closed_steps_but_not_an_open_draw_nor_the_discards() -> None:
    every = states(3)
    for state, step in every:
        result = seen(state, Viewer.host(), step)["result"]
        data = state.data
        for t, full in zip(result["turns"], data["turns"], strict=True):
            drawn_closed = data["closed"] >= 2 * t["turn"] - 1
            assert t["drawn"] == (full["drawn"] if drawn_closed else None)
            assert t["kept"] == full["kept"]
        assert ("discarded" in result) is bool(data["finished"])
    start = every[0][0]
    assert "discarded_count" in seen(start, Viewer.host(), None)["result"]


def test_the_full_reveal_shows_everything() -> None:
    state, _ = states(3)[-1]
    shown = RULES.view(state, Viewer.public(), revealed=True, open_step=None)["result"]
    assert shown["turns"] == state.data["turns"] and shown["discarded"]


def _host_view(state: GameState) -> dict[str, Any]:
    return {"settings": dict(state.settings), **seen(state, Viewer.host(), None)}


def test_a_host_entered_draw_order_is_read_not_checked_against_the_draw() -> None:
    state, step = states(3)[2]  # turn 2's draw step, seat 2
    assert step is not None and step.phase == "draw"
    host = _host_view(state)
    drawn = state.data["turns"][-1]["drawn"]
    other = next(c for c in ("dtv-3", "dtv-4", "dtv-5", "dtv-6") if c not in drawn)
    # accepted at entry (the host may not know the drawn cards), refused at the close
    assert RULES.check_entered_order(host, step, 2, {"keep": other}) == {"keep": other}
    with pytest.raises(RuleError) as exc:
        RULES.check_order(state, step, 2, {"keep": other})
    assert exc.value.codes == ["keep/not_drawn"]
    # the order itself is checked now; a taken card not invested only at the close
    invested = state.data["investment"]
    nowhere = next(c for c in ("needle-3", "needle-4", "needle-5") if c not in invested)
    with pytest.raises(RuleError) as exc:
        RULES.check_entered_order(
            host, step, 2, {"keep": other, "swap": {"give": other, "take": nowhere}}
        )
    assert exc.value.codes == ["keep/given"]
    bad_take = {"keep": drawn[0], "swap": {"give": drawn[1], "take": nowhere}}
    assert RULES.check_entered_order(host, step, 2, bad_take) == bad_take
    with pytest.raises(RuleError) as exc:
        RULES.check_order(state, step, 2, bad_take)
    assert exc.value.codes == ["swap/take_not_invested"]
    with pytest.raises(RuleError) as exc:
        RULES.check_entered_order(host, step, 3, {"keep": drawn[0]})
    assert exc.value.codes == ["step/not_acting"]
    assert not RULES.checks_entered_in_full(step)


def test_a_host_entered_invest_order_is_checked_in_full() -> None:
    state, step = states(3, merge=False)[3]  # turn 2's invest step, seat 3
    assert step is not None and step.phase == "invest" and step.acting == (3,)
    host = _host_view(state)
    passed = state.data["turns"][-1]["passed"]
    assert RULES.check_entered_order(host, step, 3, passed[1].upper()) == passed[1]
    kept = state.data["turns"][-1]["kept"]
    with pytest.raises(RuleError) as exc:
        RULES.check_entered_order(host, step, 3, kept)
    assert exc.value.codes == ["invest/not_passed"]
    assert RULES.checks_entered_in_full(step)


def test_the_hosts_preview_hides_the_card_a_close_would_reveal() -> None:
    every = states(2)
    before, step = every[3]  # turn 2 (seat 2 draws), its invest step
    after, _ = every[4]
    assert step is not None and step.phase == "invest"
    card = after.data["turns"][1]["revealed"]
    assert card is not None
    preview = RULES.preview(before, after)
    assert preview["turns"][1]["revealed"] is None
    assert card not in preview["investment"]
    invested = after.data["turns"][1]["invested"]
    want = CARDS.totals([*before.data["investment"], invested])
    assert preview["investment_totals"] == want != after.data["investment_totals"]
    assert "draw_pile" in preview and preview["draw_pile"] == after.data["draw_pile"] + 1
    full = seen(after, Viewer.host(), None)["result"]
    assert card in full["investment"]  # the host sees it once the step has closed


def test_one_acting_seat_per_step_and_titles() -> None:
    setup = Setup(players=[{"seat": s, "name": f"P{s}", "garnets": 0} for s in (1, 2, 3, 4)])
    state = GameState(setup, {}, 0, {})
    steps = RULES.upcoming(state)
    assert len(steps) == 24
    assert [s.acting for s in steps[:6]] == [(1,), (2,), (2,), (3,), (3,), (4,)]
    assert [s.title for s in steps[:2]] == ["Turn 1: draw", "Turn 1: invest"]
    assert RULES.upcoming(GameState(setup, {}, 24, {})) == []
    assert m.rounds_of(4) == 24


@pytest.mark.parametrize("seats", [2, 3])
def test_the_preview_of_the_last_step_shows_no_discarded_card(seats: int) -> None:
    every = states(seats)
    (before, step), (after, _) = every[-2], every[-1]
    assert step is not None and after.data["finished"]
    preview = RULES.preview(before, after)
    assert "discarded" not in preview
    assert preview["discarded_count"] == len(after.data["discarded"])
    assert "discarded" in seen(after, Viewer.host(), None)["result"]  # once it has closed


def test_candidate_orders_include_legal_swaps_in_draw_steps_only() -> None:
    """The conformance suite plays what candidate_orders lists: in a draw step
    with swap that is each keep and two swaps, every one legal; in an invest
    step each card it may invest; without swap, no swap at all."""
    swaps = 0
    for state, step in states(3)[:-1]:
        assert step is not None
        seat = step.acting[0]
        view = seen(state, Viewer.of_seat(seat), step)
        orders = RULES.candidate_orders(state, step, seat, view)
        assert orders, step
        for order in orders:
            RULES.check_order(state, step, seat, order)  # raises if illegal
        if step.phase == "draw":
            assert [o["keep"] for o in orders[:3]] == view["options"]
            swaps += sum("swap" in o for o in orders)
        else:
            assert orders == view["options"]
    assert swaps == 2 * 12  # two in each of the 12 draw steps
    state, step = states(3)[0]
    assert step is not None
    plain = GameState(state.setup, {**state.settings, "swap": False}, 0, state.data)
    view = RULES.view(plain, Viewer.of_seat(1), revealed=False, open_step=step)
    assert all("swap" not in o for o in RULES.candidate_orders(plain, step, 1, view))
