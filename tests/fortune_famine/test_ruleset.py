"""Fortune & Famine behind the Ruleset interface: the set-up (rulers, a
host's deck) with every problem listed, settings, the match file and its
round trip, steps and their titles, orders checked as the engine checks
them, host-entered orders answered without anything private, FF7's
defaults, each viewer's part (FF21) at every state, the host's preview of
an economy close, the demo, candidate orders, posts, the summary and the
audit's door."""

from __future__ import annotations

import copy
import json
import random
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from referee.errors import RuleError
from referee.ruleset import GameState, Setup, Step, Viewer, get_ruleset
from referee.rulesets.fortune_famine import match as m
from referee.rulesets.fortune_famine.cards import default_deck
from referee.rulesets.fortune_famine.flow import begin
from referee.rulesets.fortune_famine.options import options
from referee.rulesets.fortune_famine.orders import DEFAULTS, carry_out, close_step
from referee.rulesets.fortune_famine.randomplay import random_step
from referee.rulesets.fortune_famine.rebuild import table_from_details
from referee.rulesets.fortune_famine.ruleset import FortuneFamine
from referee.rulesets.fortune_famine.state import new_table
from referee.rulesets.fortune_famine.view import RESULT_KEYS
from referee.service import check_settings

GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "fortune-famine"
PLAYERS = [
    {"seat": 1, "name": "Ana", "garnets": 3},
    {"seat": 2, "name": "Bo", "garnets": 2},
    {"seat": 3, "name": "Cy", "garnets": 1},
    {"seat": 4, "name": "Di", "garnets": 0},
]
SHORT = {"length": "short"}
FULL = {"length": "full"}
# a random 4-player full match in which seat 2's Evrathor steals 2 stored grain
# from seat 4 in season 9, which has none: taken {"4": 0} (FF14's shortfall)
THEFT_SEED = "ff-theft-6"


@pytest.fixture
def rules() -> FortuneFamine:
    found = get_ruleset("fortune-famine")
    assert isinstance(found, FortuneFamine)
    return found


def _setup(rules: FortuneFamine, body: dict[str, Any] | None = None) -> Setup:
    return rules.check_setup(body or {}, copy.deepcopy(PLAYERS))


def _state(
    rules: FortuneFamine,
    closed: list[dict[int, Any]],
    seed: str = "s",
    setup: Setup | None = None,
    settings: dict[str, Any] = SHORT,
) -> GameState:
    setup = setup or _setup(rules)
    return GameState(setup, settings, len(closed), rules.replay(setup, settings, seed, closed))


def _step(rules: FortuneFamine, state: GameState) -> Step:
    step = rules.next_step(state)
    assert step is not None
    return step


def _codes(call: Any, *args: Any) -> list[str]:
    try:
        call(*args)
    except RuleError as exc:
        return exc.codes
    return []


@cache
def _theft_orders() -> tuple[tuple[tuple[int, Any], ...], ...]:
    """The orders of THEFT_SEED's match, played by randomplay (a tenth left out)."""
    garnets = {p["seat"]: p["garnets"] for p in PLAYERS}
    table = begin(new_table(THEFT_SEED, default_deck(), garnets, "full", None))
    rng = random.Random(THEFT_SEED)
    out = []
    while table.next is not None:
        orders = random_step(table, rng, missing=0.1)
        table = close_step(table, orders)
        out.append(tuple((s, o) for s, o in sorted(orders.items()) if o is not None))
    return tuple(out)


def _matches(rules: FortuneFamine) -> list[tuple[str, Setup, dict[str, Any], list[dict[int, Any]]]]:
    """The demo match and the theft match: (seed, set-up, settings, orders)."""
    demo = rules.demo()
    assert demo.seed is not None
    theft = [dict(step) for step in _theft_orders()]
    return [
        (demo.seed, rules.check_setup({}, demo.players), SHORT, demo.steps),
        (THEFT_SEED, _setup(rules), FULL, theft),
    ]


# ---- set-up and settings --------------------------------------------------------------


def test_no_rulers_and_no_deck_are_the_seed_and_the_default(rules: FortuneFamine) -> None:
    for body in ({}, {"rulers": None, "deck": None}):
        setup = _setup(rules, body)
        assert setup.data == {}
        doc = rules.document(setup, SHORT, "s", [])
        assert "rulers" not in doc and "deck" not in doc
        assert m.parse_match(doc).deck == default_deck() and m.parse_match(doc).rulers is None


def test_rulers_and_a_deck_are_kept_and_written_in_the_file(rules: FortuneFamine) -> None:
    rulers = {"1": "felarren-fiagro", "2": "arup-avintia", "3": "divina-daznul", "4": "seer"}
    assert _codes(_setup, rules, {"rulers": rulers}) == ["rulers/unknown"]
    rulers["4"] = "cotarr-corace"
    deck = default_deck().as_json()
    deck["name"] = "Our own"
    for t in deck["types"]:
        if t["id"] == "common-jester":
            t["name"] = "Fool"
            t["reward"] = {"grain": 0, "silver": 2, "stored": 0}
    setup = _setup(rules, {"rulers": rulers, "deck": deck})
    assert setup.data == {"rulers": rulers, "deck": deck}
    doc = rules.document(setup, SHORT, "s", [])
    assert doc["rulers"] == rulers and doc["deck"] == deck
    spec = m.parse_match(doc)
    assert spec.rulers == {
        1: "felarren-fiagro",
        2: "arup-avintia",
        3: "divina-daznul",
        4: "cotarr-corace",
    }
    assert spec.deck.type("common-jester").reward == (0, 2, 0)
    state = _state(rules, [], setup=setup)
    assert [state.data["seats"][str(s)]["ruler"] for s in (1, 2, 3, 4)] == list(rulers.values())


def test_a_set_up_refusal_lists_every_problem(rules: FortuneFamine) -> None:
    """Every problem of the players, the rulers and the deck at once, each
    with its code; the deck's on the ``deck`` field (the message says where)."""
    deck = default_deck().as_json()
    deck["extra"] = 1
    deck["name"] = 5
    for t in deck["types"]:
        if t["id"] == "common-farmer":
            t["grade"] = "skilled"
        if t["id"] == "skilled-farmer":
            t["payment"] = {"silver": 7}
    deck["types"] += [{"id": "dragon", "kind": "dragon"}, {"id": "Bad Id", "kind": "seer"}]
    deck["cards"] += [
        {"type": "nothing", "year": 1, "corner": 2, "count": 1},
        {"type": "seer", "year": 4, "corner": 2, "count": 1},
    ]
    rulers = {"1": "arup-avintia", "2": "Arup-Avintia", "3": "arup-avintia", "9": "x"}
    with pytest.raises(RuleError) as exc:
        rules.check_setup({"rulers": rulers, "deck": deck}, [])
    found = {p.code: p for p in exc.value.problems}
    assert {p.field for p in exc.value.problems if p.code.startswith("deck/")} == {"deck"}
    assert {p.field for p in exc.value.problems if p.code.startswith("rulers/")} == {"rulers"}
    assert "types[2]" in found["deck/bad_number"].message  # still says where in the deck
    assert sorted(exc.value.codes) == sorted(
        [
            "match/player_count",
            "rulers/unknown",
            "rulers/repeated",
            "rulers/unknown",
            "deck/unknown_key",
            "deck/bad_name",
            "deck/bad_number",
            "deck/unknown_kind",
            "deck/bad_type",
            "deck/no_common_farmer",
            "deck/unknown_type",
            "deck/bad_row",
        ]
    )


@pytest.mark.parametrize(
    ("body", "codes"),
    [
        ({"rulers": {"1": "arup-avintia"}}, ["rulers/bad"]),  # seats 2 to 4 have none
        ({"rulers": ["arup-avintia"]}, ["rulers/bad"]),
        ({"deck": "default"}, ["deck/not_object"]),
        (
            {"deck": {"types": [], "cards": []}},
            ["deck/bad_types", "deck/no_common_farmer", "deck/bad_cards"],
        ),
    ],
)
def test_each_set_up_code(rules: FortuneFamine, body: dict[str, Any], codes: list[str]) -> None:
    assert _codes(_setup, rules, body) == codes


def test_year_sizes_are_checked_once_the_players_give_n(rules: FortuneFamine) -> None:
    deck = default_deck().as_json()
    deck["cards"] = deck["cards"][1:]  # Year 1 loses its famine
    assert _codes(_setup, rules, {"deck": deck}) == ["deck/year_size"]
    # a bad name does not hold the check back; a bad seat does
    named = [{**p, "name": ""} if p["seat"] == 2 else p for p in PLAYERS]
    assert sorted(_codes(rules.check_setup, {"deck": deck}, named)) == [
        "deck/year_size",
        "match/bad_name",
    ]
    seated = [{**p, "seat": 9} if p["seat"] == 2 else p for p in PLAYERS]
    assert "deck/year_size" not in _codes(rules.check_setup, {"deck": deck}, seated)
    # 2 players keep other cards than 4 (corners): the default deck fits both
    two = PLAYERS[:2]
    assert rules.check_setup({"deck": default_deck().as_json()}, two).data["deck"]


def test_settings_are_the_length_full_or_short(rules: FortuneFamine) -> None:
    assert check_settings({}, rules)["length"] == "full"
    assert check_settings(SHORT, rules)["length"] == "short"
    for raw in ({"length": None}, {"length": "Short"}, {"length": 2}):
        with pytest.raises(RuleError) as exc:
            check_settings(raw, rules)
        assert [(p.code, p.field) for p in exc.value.problems] == [
            ("settings/bad_choice", "length")
        ]
    with pytest.raises(RuleError) as exc:
        check_settings({"seasons": 3}, rules)
    assert exc.value.codes == ["settings/unknown"]


# ---- steps and orders -----------------------------------------------------------------


def test_steps_are_known_one_at_a_time_with_public_titles(rules: FortuneFamine) -> None:
    demo = rules.demo()
    setup = rules.check_setup({}, demo.players)
    assert demo.seed
    titles = set()
    for k in range(len(demo.steps) + 1):
        state = _state(rules, demo.steps[:k], demo.seed, setup)
        coming = rules.upcoming(state)
        if k == len(demo.steps):
            assert coming == []
            break
        (step,) = coming
        nxt = state.data["next_round"]
        assert step == Step(k + 1, nxt["phase"], step.title, tuple(nxt["acting"]))
        titles.add(step.phase)
        if step.phase == "economy":
            assert step.title == f"Season {nxt['season']}, economy" and len(step.acting) == 4
        else:
            assert step.title == f"Season {nxt['season']}, {step.phase} (seat {step.acting[0]})"
    assert titles == {"hire", "attack", "economy"}


def test_check_order_refuses_what_the_engine_refuses_and_keeps_the_order_as_sent(
    rules: FortuneFamine,
) -> None:
    state = _state(rules, [])
    step = _step(rules, state)
    assert step.phase == "hire" and step.acting == (1,)
    board = state.data["seasons"][0]["revealed"]
    card = next(c for c in board if not c.startswith(("famine", "chysarion", "evrathor")))
    bid = {"action": "bid", "card": f" {card.upper()} ", "silver": 1}
    assert rules.check_order(state, step, 1, bid) == bid  # as sent, spaces and case kept
    assert _codes(rules.check_order, state, step, 2, bid) == ["step/not_acting"]
    assert _codes(rules.check_order, state, step, 1, None) == ["order/not_object"]
    assert _codes(rules.check_order, state, step, 1, {**bid, "silver": 9}) == [
        "hire/not_enough_silver"
    ]
    assert _codes(rules.check_order, state, step, 1, {"decision": "grain"}) == ["order/wrong_step"]
    burned = state.data["seasons"][0]["burned"]
    assert _codes(rules.check_order, state, step, 1, {**bid, "card": burned}) == [
        "hire/not_on_board"
    ]


def test_missing_orders_get_ff7s_defaults(rules: FortuneFamine) -> None:
    """Every round closed with no order: hire turns pass, the economy takes
    1 grain, each default listed; an attack turn does nothing."""
    closed: list[dict[int, Any]] = []
    state = _state(rules, closed)
    while len(closed) < 12:
        closed.append({})
        state = _state(rules, closed)
    data = state.data
    hire = [t for r in data["seasons"] for t in r["hire_turns"] if not t["auto"]]
    assert hire and all(t["action"] == "pass" for t in hire)
    economies = [r["economy"] for r in data["seasons"] if r["economy"] is not None]
    assert economies and all(
        o["decision"] == "grain" and o["paid"] == [] and o["store"] == 0
        for e in economies
        for o in e.values()
    )
    rounds = data["rounds"]
    assert data["defaulted"] == [
        {"round": r["round"], "seat": s} for r in rounds for s in r["acting"]
    ]
    assert DEFAULTS == {"hire": {"action": "pass"}, "attack": {}, "economy": {"decision": "grain"}}


def test_the_match_file_round_trips(rules: FortuneFamine) -> None:
    """A file of the orders as sent (one round defaulted, one seat of an
    economy left out, one order host-entered) resolves to the replayed state,
    by the CLI's resolve and again from a fresh ruleset."""
    demo = rules.demo()
    assert demo.seed
    setup = rules.check_setup(demo.setup, demo.players)
    economy = next(i for i, step in enumerate(demo.steps) if len(step) == 4)
    closed = [dict(step) for step in demo.steps[: economy + 1]]
    closed[economy] = {s: o for s, o in closed[economy].items() if s != 3}
    closed.append({})  # the round after: nobody sent anything
    (second,) = closed[1]
    doc = rules.document(setup, SHORT, demo.seed, closed, [(2, second)])
    assert doc["orders"][-1] is None and "3" not in doc["orders"][economy]
    assert doc["host_entered"] == [{"round": 2, "seat": second}]
    assert doc["settings"] == SHORT
    replayed = rules.replay(setup, SHORT, demo.seed, closed)
    assert rules.resolve(doc, details=True) == replayed
    again = json.loads(json.dumps(doc))
    assert get_ruleset("fortune-famine").resolve(again, details=True) == replayed
    defaulted = rules.resolve(doc)["defaulted"]
    assert defaulted[0] == {"round": economy + 1, "seat": 3} and len(defaulted) >= 2
    assert rules.closed_steps(doc) == economy + 2
    with pytest.raises(RuleError):  # an export before the end has no seed
        rules.resolve({**doc, "seed": None})


# ---- orders the host enters ------------------------------------------------------------


def _host_view(rules: FortuneFamine, state: GameState) -> dict[str, Any]:
    view = rules.view(state, Viewer.host(), revealed=False, open_step=rules.next_step(state))
    return {**view, "settings": dict(state.settings)}


def _answer(call: Any, *args: Any) -> str:
    try:
        return json.dumps(call(*args))
    except RuleError as exc:
        return " ".join(exc.codes)


def test_a_first_step_entry_is_answered_the_same_whatever_the_seed(rules: FortuneFamine) -> None:
    """The rulers and season 1's board are drawn by the seed: in the first
    step the host is answered only on what holds whatever the seed, so a bid
    on a card that is on one seed's board and not another's gets the same
    answer; the rules' own answers do differ (the test is not blind)."""
    seeds = ("a", "b", "c", "d")
    boards = {s: _state(rules, [], s).data["seasons"][0]["revealed"] for s in seeds}
    orders: list[Any] = [{"action": "pass"}, {"action": "pass", "guard": {"grain": 1}}]
    for board in boards.values():
        for card in board:
            orders += [
                {"action": "bid", "card": card, "silver": 1},
                {"action": "take", "card": card},
                {"action": "claim", "card": card},
            ]
    entered, checked = set(), set()
    for seed in seeds:
        state = _state(rules, [], seed)
        step = _step(rules, state)
        assert not rules.checks_entered_in_full(step)
        view = _host_view(rules, state)
        entered.add(tuple(_answer(rules.check_entered_order, view, step, 1, o) for o in orders))
        checked.add(tuple(_answer(rules.check_order, state, step, 1, o) for o in orders))
    assert len(entered) == 1 and len(checked) > 1


@pytest.mark.parametrize(
    ("order", "code"),
    [
        ([], "order/not_object"),
        ({"action": "pass", "decision": "grain"}, "order/wrong_step"),
        ({"action": "pass", "note": 1}, "order/unknown_key"),
        ({"card": "steward.1"}, "order/missing_key"),
        ({"action": "Pass"}, "hire/bad_action"),
        ({"action": "pass", "card": "steward.1"}, "order/extra_key"),
        ({"action": "bid", "card": "steward.1"}, "order/missing_key"),
        ({"action": "pass", "trade": {"give": "gold", "count": 1}}, "trade/bad"),
        ({"action": "pass", "trade": {"give": "grain", "count": 1, "at": "payment"}}, "trade/bad"),
        ({"action": "take", "card": "dragon.1"}, "hire/unknown_card"),
        ({"action": "bid", "card": "steward.1", "silver": "1"}, "order/bad_value"),
        (
            {"action": "bid", "card": "steward.1", "silver": 1, "discard": "x.1"},
            "hire/unknown_card",
        ),
        ({"action": "pass", "guard": {"gold": 1}}, "guard/bad"),
        ({"action": "pass", "guard": {"grain": 2, "silver": 2}}, "guard/too_many"),
    ],
)
def test_a_first_step_entry_is_refused_for_what_holds_whatever_the_seed(
    rules: FortuneFamine, order: Any, code: str
) -> None:
    """Each refusal at entry is one the rules give too, whatever the seed."""
    for seed in ("a", "b"):
        state = _state(rules, [], seed)
        step = _step(rules, state)
        view = _host_view(rules, state)
        assert _codes(rules.check_entered_order, view, step, 1, order) == [code]
        assert _codes(rules.check_order, state, step, 1, order)  # the rules refuse it too
    assert _codes(rules.check_entered_order, view, step, 2, {"action": "pass"}) == [
        "step/not_acting"
    ]


def test_the_first_step_of_an_economy_is_checked_for_its_shape(rules: FortuneFamine) -> None:
    from referee.rulesets.fortune_famine.entered import check_unseeded

    deck = default_deck()
    ok = {"pay": ["start-farmer.1"], "decision": "store", "store": 1}
    check_unseeded("economy", ok, deck, 4)
    for order, code in [
        ({}, "order/missing_key"),
        ({"decision": "gold"}, "decision/bad"),
        ({"decision": "store"}, "store/bad"),
        ({"decision": "grain", "store": 1}, "order/extra_key"),
        ({"decision": "grain", "pay": "start-farmer.1"}, "order/bad_value"),
        ({"decision": "grain", "pay": ["start-farmer.9"]}, "pay/unknown_card"),
        ({"decision": "grain", "double": "x"}, "double/unknown_card"),
        ({"decision": "grain", "chysarion": ["x"]}, "chysarion/unknown_card"),
        ({"decision": "grain", "action": "pass"}, "order/wrong_step"),
        ({"pickpocket": [1, 2, 3]}, "attack/bad_target"),
    ]:
        phase = "attack" if "pickpocket" in order else "economy"
        assert _codes(check_unseeded, phase, order, deck, 4) == [code], order
    for order, code in [
        ({"evrathor": {}}, "order/bad_value"),
        ({"evrathor": [{"card": "x.1"}]}, "attack/unknown_card"),
        ({"evrathor": [{"card": "evrathor-grain-2.1", "from": {"2": 0}}]}, "attack/bad_target"),
        ({"evrathor": [{"card": "evrathor-grain-2.1", "to": {}}]}, "order/bad_value"),
    ]:
        assert _codes(check_unseeded, "attack", order, deck, 4) == [code], order


def test_later_entries_get_the_rules_answer_from_the_host_view_alone(rules: FortuneFamine) -> None:
    """Once a step has closed the host sees every closed step in full: an
    entered order gets exactly the rules' answer, computed from the host's
    view (which holds neither the Year decks' order nor any seat's copy of
    its private data), so it tells the host nothing it does not see."""
    from referee.rulesets.fortune_famine.candidates import candidate_orders

    for seed, setup, settings, steps in _matches(rules):
        for k in range(1, len(steps), 3):
            state = _state(rules, steps[:k], seed, setup, settings)
            step = _step(rules, state)
            assert rules.checks_entered_in_full(step)
            view = _host_view(rules, state)
            assert "years" not in view["result"] and "own" not in view["result"]
            orders = [o for s in step.acting for o in [steps[k].get(s)] if o is not None]
            for s in step.acting:
                seat_view = rules.view(state, Viewer.of_seat(s), revealed=False, open_step=step)
                orders += candidate_orders(seat_view, s)
            for seat in step.acting:
                for order in orders:
                    entered = _answer(rules.check_entered_order, view, step, seat, order)
                    assert entered == _answer(rules.check_order, state, step, seat, order)


# ---- views (FF21) ----------------------------------------------------------------------


def _storage_thefts(result: dict[str, Any]) -> list[tuple[int, dict[str, Any]]]:
    return [
        (a["seat"], u)
        for r in result["seasons"]
        for a in r["attacks"]
        for u in a["evrathor"]
        if u["card"].startswith("evrathor-stored")
    ]


def test_views_keep_storage_to_its_owner_at_every_state(rules: FortuneFamine) -> None:
    """At every state of the demo and of a match with a storage theft: the
    public sees no stored total, burned card or storage theft's ``taken``
    until the end; a seat its own total and, of a storage theft, all of it
    when it stole, its own part when it was named; the host everything once
    a step has closed; options only for the acting seats, top level and
    under ``result``; nobody the Year decks or the seats' own copies."""
    thefts_seen = 0
    for seed, setup, settings, steps in _matches(rules):
        for k in range(len(steps) + 1):
            state = _state(rules, steps[:k], seed, setup, settings)
            data = state.data
            step = rules.next_step(state)
            over = data["finished"]
            full = {key: data[key] for key in (*RESULT_KEYS, "deck")}
            public = rules.view(state, Viewer.public(), revealed=False, open_step=step)
            host = rules.view(state, Viewer.host(), revealed=False, open_step=step)
            assert set(public) == set(host) == {"result"}
            assert host["result"] == (full if k else public["result"])
            pub = public["result"]
            assert set(pub) == set(full)
            for seat_key, seat in pub["seats"].items():
                assert seat["stored"] == (data["seats"][seat_key]["stored"] if over else None)
            assert all((r["burned"] is None) is not over for r in pub["seasons"])
            for _, use in _storage_thefts(pub):
                assert (use["taken"] is None) is not over
            for s in state.setup.seats:
                mine = rules.view(state, Viewer.of_seat(s), revealed=False, open_step=step)
                res = mine["result"]
                acting = step is not None and s in step.acting
                assert ("options" in mine) is acting and ("options" in res) is acting
                if acting:
                    assert mine["options"] == res["options"] == options(table_from_details(data), s)
                    del res["options"]
                if over:
                    assert res == full
                    continue
                for key, seat in res["seats"].items():
                    stored = data["seats"][key]["stored"]
                    assert seat["stored"] == (stored if key == str(s) else None)
                for (thief, use), (_, true) in zip(
                    _storage_thefts(res), _storage_thefts(data), strict=True
                ):
                    if thief == s:
                        assert use["taken"] == true["taken"]
                        thefts_seen += 1
                    elif str(s) in true["taken"]:
                        assert use["taken"] == {str(s): true["taken"][str(s)]}
                        thefts_seen += 1
                    else:
                        assert use["taken"] is None
                text = json.dumps(res)
                assert '"years"' not in text and '"own"' not in text
            revealed = rules.view(state, Viewer.host(), revealed=True, open_step=step)
            assert revealed["result"]["years"] == data["years"]
    assert thefts_seen > 0


def test_the_preview_of_an_economy_close_stops_before_the_next_season(
    rules: FortuneFamine,
) -> None:
    """Closing an economy step starts the next season: its burn and board
    (and Famines, automatic passes) are not the host's before the close. The
    preview gives the seats as the economy leaves them and no new season."""
    demo = rules.demo()
    assert demo.seed
    setup = rules.check_setup({}, demo.players)
    previewed = 0
    for k, orders in enumerate(demo.steps):
        before = _state(rules, demo.steps[:k], demo.seed, setup)
        after = _state(rules, demo.steps[: k + 1], demo.seed, setup)
        shown = rules.preview(before, after)
        if _step(rules, before).phase != "economy" or after.data["finished"]:
            assert (
                shown == rules.view(after, Viewer.host(), revealed=False, open_step=None)["result"]
            )
            continue
        assert len(shown["seasons"]) == len(before.data["seasons"])
        assert shown["seasons"][-1]["economy"] == after.data["seasons"][-2]["economy"]
        assert shown["next_round"] is None
        table = table_from_details(before.data)
        for seat, order in orders.items():
            carry_out(table, seat, order)
        assert shown["seats"] == {str(s): m.seat_json(table, s) for s in table.seat_numbers()}
        previewed += 1
    assert previewed == 5  # every economy but the last


# ---- demo, candidates ------------------------------------------------------------------


def test_the_demo_plays_a_short_four_player_match_to_its_end(rules: FortuneFamine) -> None:
    demo = rules.demo()
    assert demo.seed == "fortune-famine-demo" and len(demo.players) == 4
    assert demo.settings["length"] == "short"
    setup = rules.check_setup(demo.setup, demo.players)
    closed: list[dict[int, Any]] = []
    for orders in demo.steps:
        state = _state(rules, closed, demo.seed, setup)
        step = _step(rules, state)
        assert tuple(orders) == step.acting
        for seat, order in orders.items():
            rules.check_order(state, step, seat, copy.deepcopy(order))
        closed.append(orders)
    final = _state(rules, closed, demo.seed, setup)
    assert rules.upcoming(final) == [] and final.data["finished"]
    assert final.data["defaulted"] == []
    assert {r["phase"] for r in final.data["rounds"]} == {"hire", "attack", "economy"}
    assert rules.demo() == demo  # the same every time
    for n in (2, 3, 5, 6):
        assert len(rules.demo(n).players) == n
    with pytest.raises(RuleError):
        rules.demo(7)


def test_candidate_orders_reach_every_kind_of_order(rules: FortuneFamine) -> None:
    from referee.rulesets.fortune_famine.candidates import candidate_orders

    kinds: set[str] = set()
    for seed, setup, settings, steps in _matches(rules):
        for k in range(len(steps)):
            state = _state(rules, steps[:k], seed, setup, settings)
            step = _step(rules, state)
            for seat in step.acting:
                view = rules.view(state, Viewer.of_seat(seat), revealed=False, open_step=step)
                for order in candidate_orders(view, seat):
                    try:
                        rules.check_order(state, step, seat, copy.deepcopy(order))
                    except RuleError:
                        continue
                    if "action" in order:
                        kinds.add(order["action"])
                    if order.get("decision") == "store":
                        kinds.add("store")
                    used = ("pickpocket", "evrathor", "pay", "chysarion", "double", "discard")
                    kinds.update(k for k in used if order.get(k))
                    kinds.update(k for k in ("trade", "guard") if k in order)
    assert {"bid", "take", "pass", "claim", "pay", "store", "trade", "guard"} <= kinds, kinds
    assert {"pickpocket", "evrathor", "chysarion"} & kinds, kinds


# ---- posts, summary, audit ------------------------------------------------------------


def _public(rules: FortuneFamine, doc: dict[str, Any], names: list[str] | None = None) -> Any:
    setup = rules.check_setup({}, doc["players"])
    details = rules.resolve(doc, details=True)
    state = GameState(setup, doc.get("settings") or {}, details["closed"], details)
    view = rules.view(state, Viewer.public(), revealed=False, open_step=None)
    players = [
        {**p, "name": names[i] if names else p["name"]} for i, p in enumerate(doc["players"])
    ]
    return {**view, "players": players, "name": "Cup", "rounds": [], "seed_sha256": "ab"}


def test_a_post_before_the_end_tells_no_storage(rules: FortuneFamine) -> None:
    doc = json.loads((GOLDEN / "04-partial-mid-season.match.json").read_text("utf-8"))
    details = rules.resolve(doc, details=True)
    post = rules.post(_public(rules, doc), "markdown")
    assert "Kingdoms" in post and "Hire Board" in post and "Players" in post
    assert "stored grain hidden" in post and "Burned: hidden until the end" in post
    assert "stored grain," not in post and "Ranking" not in post
    for record in details["seasons"]:
        assert f"Burned: {record['burned']}" not in post
    with pytest.raises(RuleError):
        rules.post(_public(rules, doc), "html")


def test_a_post_at_the_end_gives_the_ranking_and_the_season_keys(rules: FortuneFamine) -> None:
    doc = json.loads((GOLDEN / "01-two-players-short.match.json").read_text("utf-8"))
    for fmt, marker in (("markdown", "**"), ("bbcode", "[list]")):
        post = rules.post(_public(rules, doc), fmt)
        assert marker in post
        for words in ("Ranking", "Token of Life", "Elimination Candidate", "stored grain"):
            assert words in post, words
        assert "decided by stored grain" in post and "6 stored grain" in post


def test_a_post_escapes_names_and_a_hosts_card_names(rules: FortuneFamine) -> None:
    doc = json.loads((GOLDEN / "02-four-players-full.match.json").read_text("utf-8"))
    deck = default_deck().as_json()
    for t in deck["types"]:
        if t["id"] == "common-farmer":
            t["name"] = "<b>*Ox*</b> [b]x[/b] www.evil.example"
    doc["deck"] = deck
    hostile = ["<i>A</i>", "[u]B[/u]", "*C*", "_D_"]
    public = _public(rules, doc, hostile)
    markdown = rules.post(public, "markdown")
    bbcode = rules.post(public, "bbcode")
    for raw in ("<b>", "<i>", "*Ox*", "*C*", "_D_", "www.evil"):
        assert raw not in markdown, raw
    for raw in ("[b]x", "[u]B", "www.evil"):
        assert raw not in bbcode, raw
    assert "Ox" in markdown and "Ox" in bbcode


def test_the_summary_tells_the_match_to_its_end(rules: FortuneFamine) -> None:
    doc = json.loads((GOLDEN / "03-three-players-missing-orders.match.json").read_text("utf-8"))
    text = rules.summary(doc)
    assert text.startswith("Fortune & Famine, 3 players, short (6 seasons)")
    for words in ("Season 6 of 6", "Token of Life", "Elimination Candidate", "Defaulted"):
        assert words in text, words
    partial = json.loads((GOLDEN / "04-partial-mid-season.match.json").read_text("utf-8"))
    assert "to come" in rules.summary(partial) and "Ranking" not in rules.summary(partial)


def test_the_audit_is_the_audit_modules_or_unavailable(rules: FortuneFamine) -> None:
    import importlib.util

    doc = json.loads((GOLDEN / "01-two-players-short.match.json").read_text("utf-8"))
    if importlib.util.find_spec("referee.rulesets.fortune_famine.audit") is None:
        assert _codes(rules.audit, doc) == ["audit/unavailable"]
        assert _codes(rules.audit_text, doc) == ["audit/unavailable"]
    else:  # FF23: seat 1 5 (gain 2), seat 2 8 (gain 2)
        assert rules.audit(doc) == {
            "seats": {
                "1": {"actual": 3, "best_last_season": 5, "gain": 2},
                "2": {"actual": 6, "best_last_season": 8, "gain": 2},
            }
        }
        assert rules.audit_text(doc).strip()
