"""The match file (docs/contracts/fortune-famine/FORMAT.md): every problem of
its static parts is listed together, each pinned by a file only it refuses;
rounds are replayed in order, each checked in three stages, and the first
round with a problem stops the file."""

from __future__ import annotations

import copy
import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from referee.errors import RuleError
from referee.rulesets.fortune_famine.match import parse_match, resolve

GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "fortune-famine"
REPO = GOLDEN.parents[2]


def _load(name: str) -> dict[str, Any]:
    out: dict[str, Any] = json.loads((GOLDEN / name).read_text(encoding="utf-8"))
    return out


PARTIAL = _load("04-partial-mid-season.match.json")
EXPECTED = _load("04-partial-mid-season.expected.json")
SHORT = _load("01-two-players-short.match.json")
PLAYERS: list[dict[str, Any]] = PARTIAL["players"]
DECK: dict[str, Any] = json.loads(
    (REPO / "seeds" / "cards" / "fortune-famine.json").read_text(encoding="utf-8")
)
RULERS = {"1": "felarren-fiagro", "2": "divina-daznul", "3": "besella-baroso", "4": "arup-avintia"}


def _doc(**changes: Any) -> dict[str, Any]:
    out = copy.deepcopy(PARTIAL)
    for key, value in changes.items():
        if value is ...:
            out.pop(key, None)
        else:
            out[key] = value
    return out


def _player(i: int, **changes: Any) -> list[dict[str, Any]]:
    out = copy.deepcopy(PLAYERS)
    out[i].update(changes)
    return out


def _codes(doc: object) -> list[str]:
    with pytest.raises(RuleError) as caught:
        resolve(doc)
    return caught.value.codes


def _big_year(seats: int = 4) -> dict[str, Any]:
    """The default deck with one card too many in Year 1 for ``seats`` players."""
    deck = copy.deepcopy(DECK)
    deck["cards"][1]["count"] += 1
    return deck


FRAME: list[tuple[str, object, str]] = [
    ("not an object", [], "match/not_object"),
    ("an unknown key", _doc(teams=True), "match/unknown_key"),
    ("a misspelt deck", _doc(decks=None), "match/unknown_key"),
    ("another ruleset", _doc(ruleset="forfort"), "match/unknown_ruleset"),
    ("no ruleset", _doc(ruleset=...), "match/unknown_ruleset"),
    ("a null seed", _doc(seed=None), "match/no_seed"),
    ("an empty seed", _doc(seed=""), "match/bad_seed"),
    ("a seed not a string", _doc(seed=5), "match/bad_seed"),
    ("no seed", _doc(seed=...), "match/bad_seed"),
    ("a digest not a string", _doc(seed_sha256=5), "match/bad_seed"),
    ("a wrong digest", _doc(seed_sha256="0" * 64), "match/seed_mismatch"),
    (
        "an uppercase digest",
        _doc(seed_sha256=hashlib.sha256(PARTIAL["seed"].encode()).hexdigest().upper()),
        "match/seed_mismatch",
    ),
    ("one player", _doc(players=PLAYERS[:1], orders=[]), "match/player_count"),
    (
        "seven players",
        _doc(players=[{"seat": s, "name": f"P{s}", "garnets": 0} for s in range(1, 8)]),
        "match/player_count",
    ),
    ("players not a list", _doc(players={}), "match/player_count"),
    ("a player not an object", _doc(players=[*PLAYERS[:3], 4]), "match/bad_player"),
    ("a player with another key", _doc(players=_player(2, team="red")), "match/bad_player"),
    ("a seat 5 of 4", _doc(players=_player(3, seat=5)), "match/bad_seat"),
    ("a seat twice", _doc(players=_player(3, seat=3)), "match/duplicate_seat"),
    ("an empty name", _doc(players=_player(0, name="")), "match/bad_name"),
    ("a name on two lines", _doc(players=_player(0, name="P\n1")), "match/bad_name"),
    ("look-alike names", _doc(players=_player(1, name="p1")), "match/confusable_names"),
    ("negative garnets", _doc(players=_player(0, garnets=-1)), "match/bad_garnets"),
    ("garnets as text", _doc(players=_player(0, garnets="4")), "match/bad_garnets"),
    ("settings a list", _doc(settings=[]), "match/bad_settings"),
    ("an unknown setting", _doc(settings={"length": "short", "teams": 2}), "settings/unknown"),
    ("a length of long", _doc(settings={"length": "long"}), "settings/bad_choice"),
    ("a null length", _doc(settings={"length": None}), "settings/bad_choice"),
    ("a length in capitals", _doc(settings={"length": "Short"}), "settings/bad_choice"),
    ("rulers a list", _doc(rulers=["arup-avintia"]), "rulers/bad"),
    ("a seat without a ruler", _doc(rulers={k: RULERS[k] for k in "123"}), "rulers/bad"),
    ("a ruler for seat 5", _doc(rulers={**RULERS, "5": "cotarr-corace"}), "rulers/bad"),
    ("a ruler in capitals", _doc(rulers={**RULERS, "4": "Arup-Avintia"}), "rulers/unknown"),
    ("an unknown ruler", _doc(rulers={**RULERS, "4": "king-arthur"}), "rulers/unknown"),
    ("a ruler twice", _doc(rulers={**RULERS, "4": "divina-daznul"}), "rulers/repeated"),
    ("a deck not an object", _doc(deck=[]), "deck/not_object"),
    ("a deck with a Year too big", _doc(deck=_big_year()), "deck/year_size"),
    ("orders not a list", _doc(orders={}), "match/bad_orders"),
    ("no orders", _doc(orders=...), "match/bad_orders"),
    ("an entry neither object nor null", _doc(orders=[5]), "match/bad_orders"),
    ("an entry a list", _doc(orders=[[]]), "match/bad_orders"),
    ("a key that is seat 5", _doc(orders=[{"5": None}]), "match/unknown_seat"),
    ("a key 01", _doc(orders=[{"01": None}]), "match/unknown_seat"),
    ("a key 0", _doc(orders=[*PARTIAL["orders"], {"0": None}]), "match/unknown_seat"),
    ("host_entered not a list", _doc(host_entered={}), "match/bad_host_entered"),
    ("host_entered without seat", _doc(host_entered=[{"round": 1}]), "match/bad_host_entered"),
    (
        "host_entered with step",
        _doc(host_entered=[{"step": 1, "seat": 1}]),
        "match/bad_host_entered",
    ),
    (
        "host_entered with a bool",
        _doc(host_entered=[{"round": True, "seat": 1}]),
        "match/bad_host_entered",
    ),
]


@pytest.mark.parametrize(("what", "doc", "code"), FRAME, ids=[f[0] for f in FRAME])
def test_frame_problem_has_its_code(what: str, doc: object, code: str) -> None:
    assert _codes(doc) == [code]


def test_every_frame_problem_is_listed_together() -> None:
    doc = _doc(
        teams=1,
        seed="",
        settings={"x": 1},
        rulers={**RULERS, "4": "nobody"},
        deck={"cards": []},
        orders=[{"9": None}],
        host_entered=5,
    )
    assert _codes(doc) == [
        "match/unknown_key",
        "match/bad_seed",
        "settings/unknown",
        "rulers/unknown",
        "deck/bad_types",
        "deck/bad_cards",
        "match/unknown_seat",
        "match/bad_host_entered",
    ]


def test_a_bad_name_does_not_hold_the_year_size_back_a_bad_seat_does() -> None:
    assert _codes(_doc(deck=_big_year(), players=_player(0, name=""))) == [
        "match/bad_name",
        "deck/year_size",
    ]
    assert _codes(_doc(deck=_big_year(), players=_player(3, seat=7))) == ["match/bad_seat"]
    assert _codes(_doc(deck=_big_year(), players=_player(3, team=1))) == ["match/bad_player"]


def test_an_unknown_seat_waits_for_a_valid_player_list() -> None:
    doc = _doc(players=_player(0, garnets=-1), orders=[{"9": None}])
    assert _codes(doc) == ["match/bad_garnets"]


def test_accepted_extras_change_nothing() -> None:
    seed = PARTIAL["seed"]
    doc = _doc(
        seed_sha256=hashlib.sha256(seed.encode()).hexdigest(),
        name="A match",
        host_entered=[{"round": 3, "seat": 2}, {"round": 3, "seat": 2}, {"round": -1, "seat": 99}],
        rulers=RULERS,
        deck=DECK,
    )
    assert resolve(doc) == EXPECTED
    assert parse_match(doc).host_entered[0] == (3, 2)
    assert resolve(_doc(rulers=None, deck=None)) == EXPECTED


def test_settings_default_to_full() -> None:
    for doc in (_doc(settings=...), _doc(settings={}), _doc(settings=None)):
        result = resolve({**doc, "orders": []})
        assert result["seasons_total"] == 12
    assert resolve(_doc(orders=[]))["seasons_total"] == 6


def test_chosen_rulers_are_used() -> None:
    rulers = {"1": "elban-eltezza", "2": "cotarr-corace", "3": "arup-avintia", "4": "seer"}
    assert _codes(_doc(rulers=rulers)) == ["rulers/unknown"]
    rulers["4"] = "besella-baroso"
    result = resolve(_doc(rulers=rulers, orders=[]))
    assert {s: v["ruler"] for s, v in result["seats"].items()} == rulers
    assert result["seats"]["1"]["tokens"] == 3 and result["seats"]["4"]["guard"] == {
        "grain": 1,
        "silver": 2,
    }


def test_fewer_rounds_resolve_up_to_there() -> None:
    result = resolve(_doc(orders=[]))
    assert result["rounds"] == [] and result["defaulted"] == []
    assert result["next_round"] == {"round": 1, "season": 1, "phase": "hire", "acting": [1]}
    assert len(result["seasons"]) == 1 and result["seasons"][0]["hire_turns"] == []
    assert result["ranking"] is None and result["elimination_candidate"] is None
    assert result["seats"]["1"] == {
        "ruler": "felarren-fiagro",
        "grain": 1,
        "silver": 3,
        "stored": 0,
        "guard": {"grain": 0, "silver": 0},
        "tokens": 0,
        "kingdom": ["start-farmer.1"],
        "workers": 1,
    }


# ---- rounds ---------------------------------------------------------------------------------


def _rounds(*entries: object, base: int = 5) -> dict[str, Any]:
    """Example 04's first ``base`` rounds (round 6 is the economy step), then ``entries``."""
    return _doc(orders=[*PARTIAL["orders"][:base], *entries])


def test_another_seats_key_is_not_acting() -> None:
    assert _codes(_doc(orders=[{"2": None}])) == ["step/not_acting"]
    message = _message(_doc(orders=[{"1": None, "2": None}]))
    assert "orders[0] (round 1)" in message and "seat 2" in message


def _message(doc: object) -> str:
    with pytest.raises(RuleError) as caught:
        resolve(doc)
    return str(caught.value)


def test_the_three_stages_of_a_round() -> None:
    """(1) keys of seats not acting, all of them; (2) orders neither an object
    nor null, all of them; (3) each acting seat's first problem, in seat order."""
    assert _codes(_doc(orders=[{"2": 5, "3": None, "1": 5}])) == ["step/not_acting"] * 2
    assert _codes(_rounds({"1": 5, "2": [], "3": None, "4": {}})) == ["order/not_object"] * 2
    economy = {
        "4": {"decision": "wait"},
        "1": {},
        "2": {"decision": "grain"},
        "3": {"decision": "store"},
    }
    assert _codes(_rounds(economy)) == ["order/missing_key", "store/bad", "decision/bad"]


@pytest.mark.parametrize("entry", [None, {}, {"1": None}])
def test_no_order_is_the_default(entry: object) -> None:
    result = resolve(_doc(orders=[entry]))
    assert result["defaulted"] == [{"round": 1, "seat": 1}]
    assert result["seasons"][0]["hire_turns"][0]["action"] == "pass"


def test_a_missing_economy_order_takes_a_grain() -> None:
    full = resolve(_rounds({"1": {"decision": "grain"}}))
    result = resolve(_rounds({"1": {"decision": "grain"}, "3": None}))
    assert result["defaulted"] == [
        {"round": 6, "seat": 2},
        {"round": 6, "seat": 3},
        {
            "round": 6,
            "seat": 4,
        },
    ]
    assert full == result
    economy = result["seasons"][0]["economy"]
    assert economy["2"]["decision"] == "grain" and economy["2"]["paid"] == []


def test_an_empty_order_is_checked() -> None:
    """``{}`` is an order: refused in a hire turn and an economy step
    (no action, no decision); in an attack turn it does nothing and is no default."""
    assert _codes(_doc(orders=[{"1": {}}])) == ["order/missing_key"]
    assert _codes(_rounds({"1": {}})) == ["order/missing_key"]
    three = _load("03-three-players-missing-orders.match.json")
    assert three["orders"][15] == {"3": {}}
    result = resolve(three)
    assert {"round": 16, "seat": 3} not in result["defaulted"]


def test_checking_stops_at_the_first_round_with_a_problem() -> None:
    assert _codes(_doc(orders=[{"1": 5}, {"1": {"action": "x"}}])) == ["order/not_object"]
    assert _codes(_doc(orders=[{"1": {"action": "x"}}, {"3": 5}])) == ["hire/bad_action"]


def test_too_many_rounds() -> None:
    finished = copy.deepcopy(SHORT)
    finished["orders"].append(None)
    assert _codes(finished) == ["match/too_many_rounds"]
    finished["orders"][-2] = {"1": {"decision": "wait"}}
    assert _codes(finished) == ["decision/bad"]  # an earlier bad round is reported instead


def test_a_refused_order_names_round_and_seat() -> None:
    message = _message(_doc(orders=[{"1": {"action": "bid", "card": "seer.9", "silver": 1}}]))
    assert "orders[0] (round 1)" in message and "seat 1" in message and "seer.9" in message
