"""FO8-FO16: each order code, pinned by an order only it refuses, on a table
set up by hand (3 seats, seat 1 acting in a later turn), and the rules'
effects on that table."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from referee.errors import RuleError
from referee.rulesets.forfort.cards import default_card_set
from referee.rulesets.forfort.orders import REFUSAL_CODES, play_turn
from referee.rulesets.forfort.state import Army, Table, Turn, start


def table() -> Table:
    """Seat 1 acts (step 4, round 2). Its top dungeon card w15 shows [4, 5];
    a camp on 1, a gate wall on 3, seat 2's army on 7. Seat 1 attacks seat 2
    on its right line (3, 4, 5), seat 3 on its left line (7, 8, 1)."""
    t = start("orders", default_card_set(), 3)
    t.rotated = {s: frozenset() for s in (1, 2, 3)}
    for s in (1, 2, 3):
        t.seats[s].turns = 1
    one = t.seats[1]
    one.hand = ["w01", "w04", "w06", "w09", "w10", "w12", "w22"]
    one.dungeon = ["w15", "w16", "w17"]
    one.discard = ["camp", "w03"]
    one.spaces[1].stack = ["camp"]
    one.spaces[3].stack = ["w16"]
    one.spaces[7].army = Army(2, "up")
    two = t.seats[2]
    two.spaces[3].stack = ["w19"]  # protected, front line
    two.spaces[4].stack = ["w02"]  # front line
    two.spaces[1].stack = ["w01"]  # not front line
    two.spaces[7].stack = ["w20"]  # protected, not front line
    t.seats[3].dungeon = []
    t.next = Turn(4, 1, 2, False)
    return t


def act(action: object = None, **rest: object) -> dict[str, Any]:
    return {"action": action, **rest}


Tweak = Callable[[Table], None]


def _no_camps(t: Table) -> None:
    t.seats[1].camps = 0


def _no_armies(t: Table) -> None:
    t.seats[1].armies = 0


def _first_turn(t: Table) -> None:
    t.seats[1].turns = 0


def _token_out(t: Table) -> None:
    t.seats[1].drawbridge = 3


def _empty_hand(t: Table) -> None:
    t.seats[1].hand = []


BUILD = {"build": "w01", "space": 5}
CASES: list[tuple[str, object, str, Tweak | None]] = [
    ("order a list", [], "order/not_object", None),
    ("an extra key", {**act(BUILD), "seat": 1}, "order/bad_keys", None),
    ("an unknown card", act({"build": "w99", "space": 5}), "card/unknown", None),
    ("a card not a string", act({"build": 1, "space": 5}), "card/unknown", None),
    ("no first camp", act(BUILD), "camp_start/missing", _first_turn),
    ("a null first camp", act(BUILD, camp_start=None), "camp_start/missing", _first_turn),
    ("first camp later", act(BUILD, camp_start=2), "camp_start/not_first_turn", None),
    ("first camp on 9", act(BUILD, camp_start=9), "camp_start/bad_space", _first_turn),
    ("first camp true", act(BUILD, camp_start=True), "camp_start/bad_space", _first_turn),
    ("first camp on a camp", act(BUILD, camp_start=1), "camp_start/not_empty", _first_turn),
    ("first camp on an army", act(BUILD, camp_start=7), "camp_start/not_empty", _first_turn),
    ("no action", act(None), "action/missing", None),
    ("an action, empty hand", act({"discard": "w01"}), "action/hand_empty", _empty_hand),
    ("action a string", act("build"), "action/not_object", None),
    ("two kinds", act({"build": "w01", "camp": "w04", "space": 5}), "action/bad_keys", None),
    ("no kind", act({"space": 5}), "action/bad_keys", None),
    ("build without space", act({"build": "w01"}), "build/bad_keys", None),
    ("build extra key", act({**BUILD, "target": 2}), "build/bad_keys", None),
    ("build not in hand", act({"build": "w03", "space": 5}), "build/not_in_hand", None),
    ("build on 0", act({"build": "w01", "space": 0}), "build/bad_space", None),
    ("build angled on an edge", act({"build": "w01", "space": 4}), "build/shape", None),
    ("build on an army", act({"build": "w01", "space": 7}), "build/army", None),
    ("build off the arrows", act({"build": "w09", "space": 2}), "build/not_allowed", None),
    ("pairs not a list", act({**BUILD, "pairs": {}}), "pair/not_list", None),
    ("pair not an object", act({**BUILD, "pairs": [1]}), "pair/not_object", None),
    (
        "a pair not made",
        act({**BUILD, "pairs": [{"with": 4, "symbol": "mason"}]}),
        "pair/unknown",
        None,
    ),
    ("effect not in hand", act({"effect": "w03", "symbol": "mason"}), "effect/not_in_hand", None),
    ("a symbol the card lacks", act({"effect": "w22", "symbol": "ram"}), "effect/no_symbol", None),
    (
        "a capitalised symbol",
        act({"effect": "w04", "symbol": "Ram", "target": 2, "space": 4}),
        "effect/no_symbol",
        None,
    ),
    (
        "mason keys",
        act({"effect": "w01", "symbol": "mason", "card": "w03"}),
        "mason/bad_keys",
        None,
    ),
    (
        "mason camp",
        act({"effect": "w01", "symbol": "mason", "card": "camp", "space": 5}),
        "mason/not_in_discard",
        None,
    ),
    (
        "mason not discarded",
        act({"effect": "w01", "symbol": "mason", "card": "w05", "space": 5}),
        "mason/not_in_discard",
        None,
    ),
    (
        "mason on 9",
        act({"effect": "w01", "symbol": "mason", "card": "w03", "space": 9}),
        "mason/bad_space",
        None,
    ),
    (
        "mason shape",
        act({"effect": "w01", "symbol": "mason", "card": "w03", "space": 4}),
        "mason/shape",
        None,
    ),
    (
        "mason army",
        act({"effect": "w01", "symbol": "mason", "card": "w03", "space": 7}),
        "mason/army",
        None,
    ),
    (
        "mason off arrows",
        act({"effect": "w01", "symbol": "mason", "card": "w03", "space": 3}),
        "mason/not_allowed",
        None,
    ),
    ("ram keys", act({"effect": "w04", "symbol": "ram", "target": 2}), "ram/bad_keys", None),
    (
        "ram on itself",
        act({"effect": "w04", "symbol": "ram", "target": 1, "space": 4}),
        "ram/bad_target",
        None,
    ),
    (
        "ram on seat 4",
        act({"effect": "w04", "symbol": "ram", "target": 4, "space": 4}),
        "ram/bad_target",
        None,
    ),
    (
        "ram on 9",
        act({"effect": "w04", "symbol": "ram", "target": 2, "space": 9}),
        "ram/bad_space",
        None,
    ),
    (
        "ram off the front",
        act({"effect": "w04", "symbol": "ram", "target": 2, "space": 1}),
        "ram/not_front_line",
        None,
    ),
    (
        "ram on nothing",
        act({"effect": "w04", "symbol": "ram", "target": 2, "space": 5}),
        "ram/nothing",
        None,
    ),
    (
        "ram on a shield",
        act({"effect": "w04", "symbol": "ram", "target": 2, "space": 3}),
        "ram/protected",
        None,
    ),
    (
        "trebuchet keys",
        act({"effect": "w06", "symbol": "trebuchet", "space": 1}),
        "trebuchet/bad_keys",
        None,
    ),
    (
        "trebuchet target",
        act({"effect": "w06", "symbol": "trebuchet", "target": "2", "space": 1}),
        "trebuchet/bad_target",
        None,
    ),
    (
        "trebuchet on 0",
        act({"effect": "w06", "symbol": "trebuchet", "target": 2, "space": 0}),
        "trebuchet/bad_space",
        None,
    ),
    (
        "trebuchet on the front",
        act({"effect": "w06", "symbol": "trebuchet", "target": 2, "space": 4}),
        "trebuchet/front_line",
        None,
    ),
    (
        "trebuchet on nothing",
        act({"effect": "w06", "symbol": "trebuchet", "target": 2, "space": 2}),
        "trebuchet/nothing",
        None,
    ),
    (
        "trebuchet on a shield",
        act({"effect": "w06", "symbol": "trebuchet", "target": 2, "space": 7}),
        "trebuchet/protected",
        None,
    ),
    (
        "siege keys",
        act({"effect": "w09", "symbol": "siege", "target": 2, "space": 1}),
        "siege/bad_keys",
        None,
    ),
    (
        "siege on itself",
        act({"effect": "w09", "symbol": "siege", "target": 1}),
        "siege/bad_target",
        None,
    ),
    (
        "siege on an empty dungeon",
        act({"effect": "w09", "symbol": "siege", "target": 3}),
        "siege/empty_dungeon",
        None,
    ),
    (
        "garrison keys",
        act({"effect": "w10", "symbol": "garrison", "target": 2, "space": 5}),
        "garrison/bad_keys",
        None,
    ),
    (
        "garrison target",
        act({"effect": "w10", "symbol": "garrison", "target": 1, "space": 5, "direction": "up"}),
        "garrison/bad_target",
        None,
    ),
    (
        "garrison on 9",
        act({"effect": "w10", "symbol": "garrison", "target": 2, "space": 9, "direction": "up"}),
        "garrison/bad_space",
        None,
    ),
    (
        "garrison no army",
        act({"effect": "w10", "symbol": "garrison", "target": 2, "space": 5, "direction": "up"}),
        "garrison/no_army_left",
        _no_armies,
    ),
    (
        "garrison on a wall",
        act({"effect": "w10", "symbol": "garrison", "target": 2, "space": 4, "direction": "up"}),
        "garrison/not_empty",
        None,
    ),
    (
        "garrison out of the fort",
        act({"effect": "w10", "symbol": "garrison", "target": 2, "space": 5, "direction": "down"}),
        "garrison/bad_direction",
        None,
    ),
    (
        "garrison Up",
        act({"effect": "w10", "symbol": "garrison", "target": 2, "space": 5, "direction": "Up"}),
        "garrison/bad_direction",
        None,
    ),
    (
        "garrison defeats nobody",
        act({"effect": "w10", "symbol": "garrison", "defeat": 8}),
        "garrison/no_invader",
        None,
    ),
    (
        "garrison defeats on 0",
        act({"effect": "w10", "symbol": "garrison", "defeat": 0}),
        "garrison/bad_space",
        None,
    ),
    ("camp keys", act({"camp": "w01"}), "camp/bad_keys", None),
    ("camp not in hand", act({"camp": "w03", "space": 5}), "camp/not_in_hand", None),
    ("camp on 9", act({"camp": "w01", "space": 9}), "camp/bad_space", None),
    ("no camp left", act({"camp": "w01", "space": 5}), "camp/none_left", _no_camps),
    ("camp on a camp", act({"camp": "w01", "space": 1}), "camp/not_empty", None),
    ("discard keys", act({"discard": "w01", "space": 1}), "discard/bad_keys", None),
    ("discard not in hand", act({"discard": "w03"}), "discard/not_in_hand", None),
    ("discard not forced", act({"discard": "w01"}), "discard/not_forced", None),
    ("drawbridge on 9", act(BUILD, drawbridge=9), "drawbridge/bad_space", None),
    ("drawbridge token out", act(BUILD, drawbridge=3), "drawbridge/no_token", _token_out),
    ("drawbridge not a gate", act(BUILD, drawbridge=5), "drawbridge/not_gate", None),
]


@pytest.mark.parametrize(("what", "order", "code", "tweak"), CASES, ids=[c[0] for c in CASES])
def test_order_refused_with_its_code(
    what: str, order: object, code: str, tweak: Tweak | None
) -> None:
    t = table()
    if tweak is not None:
        tweak(t)
    with pytest.raises(RuleError) as caught:
        play_turn(t, order)
    assert caught.value.codes == [code]
    assert code in REFUSAL_CODES


def test_the_table_is_unchanged_by_a_refusal() -> None:
    t = table()
    before = t.copy()
    with pytest.raises(RuleError):
        play_turn(t, act({"build": "w01", "space": 4}))
    assert t == before


def test_build_on_an_arrow_or_a_camp_and_draw() -> None:
    t = play_turn(table(), act({"build": "W01", "space": 1}))
    assert t.seats[1].spaces[1].stack == ["camp", "w01"]
    assert t.steps[-1]["order"] == {
        "camp_start": None,
        "action": {"build": "w01", "space": 1, "pairs": []},
        "drawbridge": None,
    }
    assert t.steps[-1]["drew"] == "w15" and "w15" in t.seats[1].hand
    assert t.next == Turn(5, 2, 2, False)


def test_gate_built_then_drawbridge_gives_an_extra_turn() -> None:
    t = table()
    t.seats[1].hand.append("w17")
    t = play_turn(t, act({"build": "w17", "space": 4}, drawbridge=4))
    assert t.seats[1].drawbridge == 4 and t.next == Turn(5, 1, 2, True)
    t = play_turn(t, act({"camp": "w22", "space": 5}))
    assert t.next == Turn(6, 2, 2, False)


def test_ram_destroys_the_whole_stack_covered_shield_included() -> None:
    t = table()
    t.seats[2].spaces[4].stack = ["w21", "w02"]
    t.seats[2].drawbridge = 4
    t = play_turn(t, act({"effect": "w04", "symbol": "ram", "target": 2, "space": 4}))
    assert t.seats[2].spaces[4].stack == [] and t.seats[2].discard == ["w21", "w02"]
    assert t.seats[2].drawbridge is None
    assert t.seats[1].discard == ["camp", "w03", "w04"]


def test_pairs_trebuchet_ignores_protection_then_mason_from_discard() -> None:
    t = table()
    t.seats[1].spaces[6].stack = ["w07"]  # trebuchet beside 5
    t.seats[1].hand.append("w13")  # angled mason + trebuchet
    t.seats[1].spaces[4].stack = ["w02"]  # mason beside 5
    t = play_turn(
        t,
        act(
            {
                "build": "w13",
                "space": 5,
                "pairs": [
                    {"with": 6, "symbol": "trebuchet", "target": 2, "space": 7},
                    {"with": 4, "symbol": "mason", "from": "discard", "card": "w03", "space": 3},
                ],
            }
        ),
    )
    assert t.seats[2].spaces[7].stack == [] and t.seats[2].discard == ["w20"]
    assert t.seats[1].spaces[3].stack == ["w16", "w03"] and t.seats[1].discard == ["camp"]


def test_dungeon_mason_pair_must_be_last_and_without_drawbridge() -> None:
    base = table()
    base.seats[1].spaces[4].stack = ["w02"]  # mason beside 5
    pair = {"with": 4, "symbol": "mason", "from": "dungeon", "corner": 5, "edge": 6}
    other = {"with": 4, "symbol": "mason", "from": "discard", "card": "w03", "space": 5}
    for order, code in [
        (act({"build": "w01", "space": 5, "pairs": [pair, other]}), "pair_mason/not_last"),
        (act({"build": "w01", "space": 5, "pairs": [pair]}, drawbridge=3), "pair_mason/drawbridge"),
        (act({"build": "w01", "space": 5, "pairs": [{**pair, "corner": 6}]}), "pair_mason/shape"),
        (act({"build": "w01", "space": 5, "pairs": [{**pair, "corner": 7}]}), "pair_mason/army"),
        (
            act({"build": "w01", "space": 5, "pairs": [{**pair, "card": "w15"}]}),
            "pair_mason/bad_keys",
        ),
        (
            act({"build": "w01", "space": 5, "pairs": [{**pair, "from": "hand"}]}),
            "pair_mason/bad_keys",
        ),
        (act({"build": "w01", "space": 5, "pairs": [other, other]}), "pair/repeated"),
    ]:
        with pytest.raises(RuleError) as caught:
            play_turn(base, order)
        assert caught.value.codes == [code], order
    t = play_turn(base, act({"build": "w01", "space": 5, "pairs": [pair]}))
    done = t.steps[-1]["order"]["action"]["pairs"][0]
    assert done == {**pair, "card": "w15", "space": 5}  # w15 is angled
    assert t.seats[1].spaces[5].stack == ["w01", "w15"] and t.steps[-1]["drew"] == "w16"


def test_empty_dungeon_pair_is_refused_after_the_spaces() -> None:
    t = table()
    t.seats[1].spaces[4].stack = ["w02"]
    t.seats[1].dungeon = []
    t.seats[1].spaces[5].stack = ["camp"]
    pair = {"with": 4, "symbol": "mason", "from": "dungeon", "corner": 5, "edge": 6}
    with pytest.raises(RuleError) as caught:
        play_turn(t, act({"build": "w01", "space": 5, "pairs": [pair]}))
    assert caught.value.codes == ["pair_mason/empty_dungeon"]


def test_garrison_pair_two_uses_and_armies_advance() -> None:
    t = table()
    t.seats[1].spaces[8].stack = ["w11"]  # garrison beside 1
    t.seats[1].hand.append("w14")  # straight siege + garrison
    t.seats[1].spaces[1].stack = ["w10"]
    uses = [{"defeat": 7}, {"target": 3, "space": 2, "direction": "right"}]
    t.seats[1].dungeon = ["w17"]  # arrows 1, 2
    t = play_turn(
        t,
        act(
            {"build": "w14", "space": 2, "pairs": [{"with": 1, "symbol": "garrison", "uses": uses}]}
        ),
    )
    assert t.seats[2].defeated == 1 and t.seats[1].spaces[7].army is None
    assert t.seats[3].spaces[2].army == Army(1, "right") and t.seats[1].armies == 3
    assert t.final_round == 2 and t.triggered_at == 4  # seat 1 drew its last card
    t.seats[3].spaces[3].stack = ["camp"]
    t.next = Turn(7, 1, 3, False)
    t.seats[1].hand = ["w22"]
    t.seats[1].dungeon = []
    t2 = play_turn(t, act({"camp": "w22", "space": 6}))
    assert t2.steps[-1]["armies"] == [{"fort": 3, "from": 2, "to": 3, "outcome": "destroyed"}]


def test_completed_fort_ends_at_once() -> None:
    t = table()
    walls = {1: "w03", 2: "w02", 3: "w06", 4: "w05", 5: "w08", 6: "w07", 7: "w13", 8: "w11"}
    for s, card in walls.items():
        t.seats[1].spaces[s].stack = [card]
    t.seats[1].spaces[7].army = None
    t.seats[1].spaces[7].stack = []
    t.seats[1].spaces[7].stack = ["camp"]
    # the pairs after the completing build and the drawbridge are not checked
    t = play_turn(t, act({"build": "w04", "space": 7, "pairs": [{"bad": 1}]}, drawbridge=99))
    assert t.next is None and t.completed_by == 1
    assert t.steps[-1]["order"]["action"]["pairs"] == [] and t.steps[-1]["drew"] is None
