"""Steps where one seat acts (turns), with the test-only toy game (tests/toy):
only the acting seat may send, ``close_early`` closes a turn once that seat has
sent, who acts next follows from play, and the match ends when the game has no
step to come."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from flask.testing import FlaskClient
from toy import Toy, registered

from referee.errors import RuleError
from referee.ruleset import GameState, Viewer
from referee.service import Referee
from referee.views import view_for

PLAYERS = [{"seat": 1, "name": "Ana"}, {"seat": 2, "name": "Bo"}, {"seat": 3, "name": "Cy"}]
SEED = "turns-seed"


@pytest.fixture(autouse=True)
def _toy_registered() -> Iterator[None]:
    with registered():
        yield


def new_match(svc: Referee, seed: str = SEED, **settings: Any) -> str:
    return svc.create_match(
        name="turns", players=PLAYERS, ruleset="toy", settings=settings, seed=seed
    ).match_id


def options(svc: Referee, mid: str, seat: int) -> list[int]:
    found: list[int] = view_for(svc.state(mid), Viewer.of_seat(seat))["options"]
    return found


def play_cards(svc: Referee, mid: str, pick: Any = max) -> dict[int, int]:
    """Open the play step and have every seat play ``pick`` of its hand; the cards."""
    svc.open_round(mid)
    played = {}
    for seat in (1, 2, 3):
        played[seat] = pick(options(svc, mid, seat))
        svc.submit_order(mid, seat, played[seat])
    return played


def test_only_the_acting_seat_sends_in_a_turn(svc: Referee) -> None:
    mid = new_match(svc)
    played = play_cards(svc, mid)
    svc.close_round(mid)
    rnd = svc.open_round(mid)
    picker = max(played, key=lambda s: played[s])
    assert (rnd.phase, rnd.acting) == ("pick", [picker])
    for seat in (1, 2, 3):
        if seat == picker:
            continue
        assert "options" not in view_for(svc.state(mid), Viewer.of_seat(seat))
        for host_entered in (False, True):
            with pytest.raises(RuleError) as refused:
                svc.submit_order(mid, seat, played[seat], host_entered=host_entered)
            assert refused.value.codes == ["step/not_acting"]
    with pytest.raises(RuleError) as unknown:
        svc.submit_order(mid, 4, played[1])
    assert unknown.value.codes == ["seat/unknown"]
    with pytest.raises(RuleError) as wrong:
        svc.submit_order(mid, picker, played[picker], kind="card")
    assert wrong.value.codes == ["order/wrong_phase"]
    with pytest.raises(RuleError) as gone:
        svc.submit_order(mid, picker, 31)
    assert gone.value.codes == ["toy/not_on_table"]
    with pytest.raises(RuleError) as shape:
        svc.submit_order(mid, picker, "12")
    assert shape.value.codes == ["toy/not_a_card"]
    assert sorted(options(svc, mid, picker)) == sorted(played.values())
    svc.submit_order(mid, picker, min(played.values()), kind="pick")
    state = svc.state(mid)
    assert state.orders_of(2).keys() == {picker}
    assert state.open_round is not None  # close_early is off


def test_close_early_closes_a_turn_once_its_one_seat_has_sent(svc: Referee) -> None:
    mid = new_match(svc, close_early=True)
    svc.open_round(mid)
    for seat in (1, 2):
        svc.submit_order(mid, seat, options(svc, mid, seat)[0])
        assert svc.state(mid).open_round is not None
    svc.submit_order(mid, 3, options(svc, mid, 3)[0])
    assert svc.state(mid).rounds[0].closed_by == "early"
    turn = svc.open_round(mid)
    (picker,) = turn.acting
    svc.submit_order(mid, picker, options(svc, mid, picker)[0])
    state = svc.state(mid)
    assert state.open_round is None
    assert (state.rounds[1].status, state.rounds[1].closed_by) == ("closed", "early")


def test_who_picks_follows_from_the_cards_played(svc: Referee) -> None:
    mid = new_match(svc)
    played = play_cards(svc, mid, pick=min)
    svc.close_round(mid)
    by_card = sorted(played, key=lambda s: -played[s])
    coming = svc.state(mid).upcoming()
    # every pick of the trick is known once the play has closed; the last card
    # goes to the last seat without a step
    assert [(s.number, s.phase, s.acting) for s in coming] == [
        (2, "pick", (by_card[0],)),
        (3, "pick", (by_card[1],)),
    ]
    public = view_for(svc.state(mid), Viewer.public())
    assert [r["acting"] for r in public["rounds"]] == [[1, 2, 3], [by_card[0]], [by_card[1]]]
    assert public["result"]["tricks"][0]["played"] == {str(s): c for s, c in played.items()}
    for number in (2, 3):
        rnd = svc.open_round(mid)
        assert rnd.acting == [by_card[number - 2]]
        svc.close_round(mid)  # no order: a seeded default pick
    result = svc.state(mid).rounds[-1].result
    assert result is not None
    trick = result["tricks"][0]
    assert [p["seat"] for p in trick["picks"]] == by_card
    assert [p["step"] for p in trick["picks"]] == [2, 3, None]
    assert trick["table"] == []


def steps_of(seed: str, pick: Any) -> int:
    """How many steps a match of PLAYERS with ``seed`` has when every seat plays
    and picks ``pick`` of its options (the rules alone, no service)."""
    toy = Toy()
    setup = toy.check_setup({}, PLAYERS)
    closed: list[dict[int, Any]] = []
    while True:
        state = GameState(setup, {}, len(closed), toy.replay(setup, {}, seed, closed))
        step = toy.next_step(state)
        if step is None:
            return len(closed)
        orders = {}
        for seat in step.acting:
            view = toy.view(state, Viewer.of_seat(seat), revealed=False, open_step=step)
            orders[seat] = pick(view["options"])
        closed.append(orders)


def play_to_the_end(svc: Referee, mid: str, pick: Any) -> int:
    """Play the match through the service; how many steps it had."""
    for _ in range(100):
        state = svc.state(mid)
        if not state.upcoming():
            assert state.match.finished
            return len(state.rounds)
        assert not state.match.finished
        rnd = svc.open_round(mid)
        for seat in rnd.acting:
            svc.submit_order(mid, seat, pick(options(svc, mid, seat)))
        svc.close_round(mid)
    raise AssertionError("no end")


def test_the_match_finishes_when_no_step_is_to_come(svc: Referee) -> None:
    # a seed where playing high cards ends the match a trick early
    seed = next(f"s{i}" for i in range(200) if steps_of(f"s{i}", max) != steps_of(f"s{i}", min))
    high, low = new_match(svc, seed), new_match(svc, seed)
    steps = play_to_the_end(svc, high, max), play_to_the_end(svc, low, min)
    assert steps == (steps_of(seed, max), steps_of(seed, min))
    assert steps[0] != steps[1]
    for mid, count in zip((high, low), steps, strict=True):
        state = svc.state(mid)
        assert state.match.finished and state.upcoming() == []
        with pytest.raises(RuleError) as over:
            svc.open_round(mid)
        assert over.value.codes == ["match/finished"]
        exported = svc.export(mid)
        assert exported["seed"] == seed and len(exported["orders"]) == count
        assert Toy().resolve(exported)["finished"] is True
        assert svc.recheck(mid) == []


# ---- through the API ----------------------------------------------------------


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def test_the_api_refuses_a_seat_out_of_turn_with_409(client: FlaskClient) -> None:
    resp = client.post(
        "/api/matches",
        json={"name": "turns", "ruleset": "toy", "hand_size": 2, "players": PLAYERS},
    )
    assert resp.status_code == 201, resp.get_json()
    created = resp.get_json()
    mid, host = created["id"], bearer(created["host_token"])
    seats = {int(s): bearer(t) for s, t in created["player_tokens"].items()}
    orders = f"/api/matches/{mid}/orders"
    assert client.post(f"/api/matches/{mid}/rounds/open", headers=host, json={}).status_code == 200
    played = {}
    for seat, auth in seats.items():
        me = client.get(f"/api/matches/{mid}/me", headers=auth).get_json()
        assert len(me["options"]) == 2 and me["result"]["hand"] == me["options"]
        played[seat] = me["options"][0]
        sent = client.put(orders, headers=auth, json={"card": played[seat], "round": 1})
        assert sent.status_code == 200, sent.get_json()
    assert client.post(f"/api/matches/{mid}/rounds/close", headers=host, json={}).status_code == 200
    opened = client.post(f"/api/matches/{mid}/rounds/open", headers=host, json={}).get_json()
    (picker,) = opened["rounds"][1]["acting"]
    for seat, auth in seats.items():
        resp = client.put(orders, headers=auth, json={"pick": played[seat]})
        if seat == picker:
            assert resp.status_code == 200, resp.get_json()
        else:
            assert resp.status_code == 409, resp.get_json()
            assert [e["code"] for e in resp.get_json()["errors"]] == ["step/not_acting"]
    # the host entering an order for a seat out of turn: the same
    other = next(s for s in seats if s != picker)
    resp = client.put(orders, headers=host, json={"seat": other, "pick": played[other]})
    assert resp.status_code == 409
    assert [e["code"] for e in resp.get_json()["errors"]] == ["step/not_acting"]
