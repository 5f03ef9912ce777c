"""Forfort behind the Ruleset interface: the set-up and its card set, the
table rebuilt from a detailed result, orders checked as the engine checks
them, host-entered orders answered without private data, each viewer's part
(FO21), the demo, candidate orders, posts and the match file."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from referee.errors import RuleError
from referee.ruleset import GameState, Setup, Step, Viewer, get_ruleset
from referee.rulesets.forfort import match as m
from referee.rulesets.forfort.cards import default_card_set
from referee.rulesets.forfort.options import options
from referee.rulesets.forfort.orders import play_turn
from referee.rulesets.forfort.rebuild import table_from_details
from referee.rulesets.forfort.ruleset import Forfort

GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "forfort"
PLAYERS = [
    {"seat": 1, "name": "Ana", "garnets": 3},
    {"seat": 2, "name": "Bo", "garnets": 2},
    {"seat": 3, "name": "Cy", "garnets": 1},
]


@pytest.fixture
def rules() -> Forfort:
    found = get_ruleset("forfort")
    assert isinstance(found, Forfort)
    return found


def _setup(rules: Forfort, body: dict[str, Any] | None = None) -> Setup:
    return rules.check_setup(body or {}, copy.deepcopy(PLAYERS))


def _state(
    rules: Forfort, closed: list[dict[int, Any]], seed: str = "s", setup: Setup | None = None
) -> GameState:
    setup = setup or _setup(rules)
    return GameState(setup, {}, len(closed), rules.replay(setup, {}, seed, closed))


def _step(rules: Forfort, state: GameState) -> Step:
    step = rules.next_step(state)
    assert step is not None
    return step


def _card_set() -> dict[str, Any]:
    return default_card_set().as_json()


# ---- set-up: the card set --------------------------------------------------------


def test_no_card_set_is_the_default_one_and_a_good_one_is_kept(rules: Forfort) -> None:
    assert _setup(rules).data == {}
    doc = rules.document(_setup(rules), {}, "s", [])
    assert "cards" not in doc and m.parse_match(doc).cards == default_card_set()
    small = _card_set()
    small["walls"] = small["walls"][:12]
    small["camps"] = 2
    setup = _setup(rules, {"cards": small})
    assert setup.data == {"cards": small}
    doc = rules.document(setup, {}, "s", [])
    assert m.parse_match(doc).cards.camps == 2 and len(m.parse_match(doc).cards.walls) == 12
    state = _state(rules, [], setup=setup)
    assert state.data["dungeon_counts"] == {"1": 9, "2": 9, "3": 9}


def test_a_card_set_refusal_lists_every_problem_on_the_cards_field(rules: Forfort) -> None:
    cards = _card_set()
    cards["camps"] = 0  # cards/bad_supply
    cards["walls"][1]["id"] = "w01"  # cards/duplicate_id
    cards["walls"][2]["shape"] = "round"  # cards/bad_card
    cards["walls"][3]["id"] = "camp"  # cards/bad_id
    with pytest.raises(RuleError) as exc:
        rules.check_setup({"cards": cards}, [{"seat": 1, "name": "Ana", "garnets": 0}])
    codes = sorted(p.code for p in exc.value.problems)
    assert codes == [
        "cards/bad_card",
        "cards/bad_id",
        "cards/bad_supply",
        "cards/duplicate_id",
        "match/player_count",
    ]
    assert {p.field for p in exc.value.problems if p.code.startswith("cards/")} == {"cards"}
    # the message still says where in the set
    assert any("walls[2]" in p.message for p in exc.value.problems)


def test_a_null_card_set_is_refused_not_the_default(rules: Forfort) -> None:
    with pytest.raises(RuleError) as exc:
        _setup(rules, {"cards": None})
    assert [p.code for p in exc.value.problems] == ["cards/bad_keys"]


def test_the_create_form_box_left_empty_gives_the_default_set() -> None:
    """The generic create page (one JSON box per set-up key) leaves an empty
    box out of the body, so the default set applies."""
    from referee.web.game import GameWeb

    class Form(dict[str, Any]):
        pass

    class Field:
        def __init__(self, data: str) -> None:
            self.data = data

    web = GameWeb(get_ruleset("forfort"))
    assert web.read_setup(Form(setup_cards=Field("  "))).body == {}
    read = web.read_setup(Form(setup_cards=Field('{"walls": []')))
    assert read.problems and read.unread == frozenset({"cards"})


# ---- the rebuilt table --------------------------------------------------------------


def test_the_rebuilt_table_gives_the_same_result_and_options_as_the_played_one(
    rules: Forfort,
) -> None:
    demo = rules.demo()
    spec = m.parse_match(
        rules.document(rules.check_setup({}, demo.players), {}, demo.seed, demo.steps)
    )
    table = m.start(spec.seed, spec.cards, spec.seats)
    for entry in [*spec.orders, None]:
        details = m.detail_json(table, spec)
        rebuilt = table_from_details(details)
        again = m.result_json(rebuilt, spec)
        for key in ("forts", "hands", "discards", "supply", "points", "top_arrows", "next"):
            assert again[key] == details[key], key
        assert options(rebuilt) == options(table)
        if entry is None or table.next is None:
            break
        assert isinstance(entry, dict)
        table = play_turn(table, next(iter(entry.values())))


# ---- orders ---------------------------------------------------------------------------


def test_check_order_refuses_what_the_engine_refuses_and_keeps_the_order_as_sent(
    rules: Forfort,
) -> None:
    state = _state(rules, [])
    step = _step(rules, state)
    hand = state.data["hands"]["1"]
    good = {"camp_start": 2, "action": {"discard": hand[0].upper()}}
    # a discard is not forced with an empty fort: the engine refuses it
    with pytest.raises(RuleError) as exc:
        rules.check_order(state, step, 1, good)
    assert [p.code for p in exc.value.problems] == ["discard/not_forced"]
    camp = {"camp_start": 2, "action": {"camp": hand[0].upper(), "space": 5}}
    assert rules.check_order(state, step, 1, camp) == camp  # as sent: "W.." kept
    with pytest.raises(RuleError) as exc:
        rules.check_order(state, step, 2, camp)
    assert [p.code for p in exc.value.problems] == ["step/not_acting"]
    with pytest.raises(RuleError) as exc:
        rules.check_order(state, step, 1, None)
    assert [p.code for p in exc.value.problems] == ["order/not_object"]
    not_held = next(c for c in default_card_set().ids if c not in hand)
    with pytest.raises(RuleError) as exc:
        rules.check_order(
            state, step, 1, {"camp_start": 2, "action": {"camp": not_held, "space": 5}}
        )
    assert [p.code for p in exc.value.problems] == ["camp/not_in_hand"]


def test_a_match_file_of_sent_orders_resolves_to_the_replayed_state(rules: Forfort) -> None:
    demo = rules.demo()
    setup = rules.check_setup({}, demo.players)
    closed: list[dict[int, Any]] = []
    for k, orders in enumerate(demo.steps[:12]):
        state = _state(rules, closed, demo.seed or "", setup)
        step = _step(rules, state)
        ((seat, order),) = orders.items()
        assert step.acting == (seat,)
        sent = rules.check_order(state, step, seat, copy.deepcopy(order))
        closed.append({} if k == 4 else {seat: sent})  # step 5 defaulted
    doc = rules.document(setup, {}, demo.seed, closed, [(3, 2)])
    assert doc["orders"][4] is None and doc["host_entered"] == [{"step": 3, "seat": 2}]
    assert rules.resolve(doc, details=True) == rules.replay(setup, {}, demo.seed or "", closed)
    assert rules.resolve(doc)["defaulted"] == [{"step": 5, "seat": 2}]
    assert rules.closed_steps(doc) == 12


# ---- orders the host enters ------------------------------------------------------------


def _host_view(rules: Forfort, state: GameState) -> dict[str, Any]:
    step = rules.next_step(state)
    view = rules.view(state, Viewer.host(), revealed=False, open_step=step)
    return {**view, "settings": {}}


def test_an_entered_order_is_answered_the_same_whatever_the_hands(rules: Forfort) -> None:
    """Naming a card the seat holds or not, building where the top card's
    arrows allow or not: the host gets the same answer (accepted), so it
    learns nothing of a hand or the dungeon; at the close the rules decide."""
    answers: set[str] = set()
    for seed in ("a", "b", "c", "d"):
        state = _state(rules, [], seed)
        step = _step(rules, state)
        view = _host_view(rules, state)
        assert "hands" not in view["result"]
        for card in ("w01", "w13", "w22"):
            order = {"camp_start": 4, "action": {"build": card, "space": 1}}
            answers.add(json.dumps(rules.check_entered_order(view, step, 1, order)))
            try:
                rules.check_order(state, step, 1, order)
            except RuleError:
                answers.add("refused by the rules")  # some of these break a rule...
    assert len([a for a in answers if a != "refused by the rules"]) == 3
    assert "refused by the rules" in answers  # ...which the entry did not tell


def test_an_entered_order_is_refused_for_what_everyone_sees(rules: Forfort) -> None:
    state = _state(rules, [])
    step = _step(rules, state)
    view = _host_view(rules, state)

    def code(order: Any) -> str:
        with pytest.raises(RuleError) as exc:
            rules.check_entered_order(view, step, 1, order)
        return exc.value.problems[0].code

    assert code([1]) == "order/not_object"
    assert code({"action": {"discard": "w01"}, "extra": 1}) == "order/bad_keys"
    assert code({"action": {"discard": "w01"}}) == "camp_start/missing"
    assert code({"camp_start": 9, "action": {"discard": "w01"}}) == "camp_start/bad_space"
    assert code({"camp_start": 1}) == "action/missing"
    assert code({"camp_start": 1, "action": {"discard": "w01", "build": "w02"}}) == (
        "action/bad_keys"
    )
    assert code({"camp_start": 1, "action": None}) == "action/missing"
    with pytest.raises(RuleError) as exc:
        rules.check_entered_order(view, step, 2, {"camp_start": 1, "action": {}})
    assert exc.value.problems[0].code == "step/not_acting"
    # seat 1's later turn: no first camp any more
    first = {"camp_start": 4, "action": {"camp": state.data["hands"]["1"][0], "space": 6}}
    later = _state(rules, [{1: first}, {2: None}, {3: None}])
    view = _host_view(rules, later)
    step = _step(rules, later)
    assert step.acting == (1,)
    with pytest.raises(RuleError) as exc:
        rules.check_entered_order(view, step, 1, {"camp_start": 2, "action": {"discard": "x"}})
    assert exc.value.problems[0].code == "camp_start/not_first_turn"
    assert rules.check_entered_order(view, step, 1, {"action": {"discard": "x"}}) == {
        "action": {"discard": "x"}
    }
    assert not rules.checks_entered_in_full(step)


# ---- views (FO21) ------------------------------------------------------------------------


def test_hands_reach_only_their_seat_and_the_host_after_a_step(rules: Forfort) -> None:
    start = _state(rules, [])
    step = _step(rules, start)
    public = rules.view(start, Viewer.public(), revealed=False, open_step=step)
    host = rules.view(start, Viewer.host(), revealed=False, open_step=step)
    assert "hands" not in public["result"] and "hands" not in host["result"]
    assert "options" not in host and "options" not in public
    for seat in (1, 2, 3):
        mine = rules.view(start, Viewer.of_seat(seat), revealed=False, open_step=step)
        assert list(mine["result"]["hands"]) == [str(seat)]
        assert mine["hand"] == mine["result"]["hand"] == start.data["hands"][str(seat)]
        assert ("options" in mine) == (seat == 1)  # only the acting seat
    order = {"camp_start": 4, "action": {"camp": start.data["hands"]["1"][0], "space": 6}}
    after = _state(rules, [{1: order}])
    host = rules.view(after, Viewer.host(), revealed=False, open_step=None)
    assert sorted(host["result"]["hands"]) == ["1", "2", "3"]
    assert host["result"]["steps"][0]["drew"] is not None
    public = rules.view(after, Viewer.public(), revealed=False, open_step=None)
    assert "drew" not in public["result"]["steps"][0] and "hands" not in public["result"]
    two = rules.view(after, Viewer.of_seat(2), revealed=False, open_step=None)
    assert "drew" not in two["result"]["steps"][0]
    one = rules.view(after, Viewer.of_seat(1), revealed=False, open_step=None)
    assert one["result"]["steps"][0]["drew"] == host["result"]["steps"][0]["drew"]
    assert "dungeons" not in host["result"]
    revealed = rules.view(after, Viewer.host(), revealed=True, open_step=None)
    assert "dungeons" in revealed["result"]


def test_options_follow_the_open_step_not_only_the_next_seat(rules: Forfort) -> None:
    state = _state(rules, [])
    view = rules.view(state, Viewer.of_seat(1), revealed=False, open_step=None)
    assert "options" not in view
    step = _step(rules, state)
    view = rules.view(state, Viewer.of_seat(1), revealed=False, open_step=step)
    assert view["options"]["camp_start"] == [1, 2, 3, 4, 5, 6, 7, 8]
    assert view["result"]["options"] == view["options"]


# ---- steps, demo, candidates ----------------------------------------------------------


def test_steps_are_one_turn_each_with_public_titles(rules: Forfort) -> None:
    state = _state(rules, [])
    assert rules.upcoming(state) == [Step(1, "turn", "Round 1: seat 1", (1,))]


def test_the_demo_plays_a_three_player_match_to_its_end(rules: Forfort) -> None:
    demo = rules.demo()
    assert len(demo.players) == 3 and demo.seed
    setup = rules.check_setup(demo.setup, demo.players)
    closed: list[dict[int, Any]] = []
    for orders in demo.steps:
        state = _state(rules, closed, demo.seed or "", setup)
        step = _step(rules, state)
        assert tuple(orders) == step.acting
        for seat, order in orders.items():
            rules.check_order(state, step, seat, copy.deepcopy(order))
        closed.append(orders)
    final = _state(rules, closed, demo.seed or "", setup)
    assert rules.upcoming(final) == [] and final.data["end"] is not None
    assert final.data["defaulted"] == []
    assert rules.demo() == demo  # the same every time
    assert len(rules.demo(2).players) == 2 and len(rules.demo(4).players) == 4
    with pytest.raises(RuleError):
        rules.demo(5)


def test_candidate_orders_cover_compound_orders_the_rules_accept(rules: Forfort) -> None:
    """Over the demo match, the candidates include accepted builds with each
    kind of pair, effects, camps and a drawbridge, not only simple orders."""
    demo = rules.demo()
    setup = rules.check_setup(demo.setup, demo.players)
    kinds: set[str] = set()
    closed: list[dict[int, Any]] = []
    for orders in demo.steps:
        state = _state(rules, closed, demo.seed or "", setup)
        step = _step(rules, state)
        seat = step.acting[0]
        view = rules.view(state, Viewer.of_seat(seat), revealed=False, open_step=step)
        for order in rules.candidate_orders(state, step, seat, view):
            try:
                rules.check_order(state, step, seat, copy.deepcopy(order))
            except RuleError:
                continue
            action = order.get("action") or {}
            kinds.update(f"pair:{p['symbol']}" for p in action.get("pairs") or [])
            kinds.update(k for k in ("build", "effect", "camp", "discard") if k in action)
            if order.get("drawbridge") is not None:
                kinds.add("drawbridge")
        closed.append(orders)
    assert {"build", "effect", "camp", "drawbridge"} <= kinds
    assert len([k for k in kinds if k.startswith("pair:")]) >= 2, kinds


# ---- posts ---------------------------------------------------------------------------------


def test_a_post_tells_the_forts_and_no_hand_before_the_end(rules: Forfort) -> None:
    doc = json.loads((GOLDEN / "04-partial-after-step-9.match.json").read_text("utf-8"))
    setup = rules.check_setup({}, doc["players"])
    details = rules.resolve(doc, details=True)
    state = GameState(setup, {}, details["closed"], details)
    view = rules.view(state, Viewer.public(), revealed=False, open_step=None)
    public = {**view, "players": doc["players"], "name": "Cup", "rounds": []}
    post = rules.post(public, "markdown")
    assert "Forts" in post and "Discard piles" in post and "Points" in post
    for hand in details["hands"].values():
        for card in hand:
            assert f"hand: {card}" not in post
    assert "Hands at the end" not in post
    with pytest.raises(RuleError):
        rules.post(public, "html")


def test_a_post_at_the_end_gives_scores_and_the_season_keys(rules: Forfort) -> None:
    doc = json.loads((GOLDEN / "02-three-players-exhausted.match.json").read_text("utf-8"))
    setup = rules.check_setup({}, doc["players"])
    details = rules.resolve(doc, details=True)
    state = GameState(setup, {}, details["closed"], details)
    view = rules.view(state, Viewer.public(), revealed=False, open_step=None)
    post = rules.post({**view, "players": doc["players"], "rounds": []}, "bbcode")
    assert "Scores" in post and "Elimination Candidate" in post and "Token of Life" in post
    assert "Hands at the end" in post and "[list]" in post
