"""The match file (docs/contracts/forfort/FORMAT.md): every frame problem is
listed together, each pinned by a file only it refuses; orders are checked
in step order and the first refused one stops the file."""

from __future__ import annotations

import copy
import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from referee.errors import RuleError
from referee.rulesets.forfort.match import parse_match, resolve

GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "forfort"
PARTIAL: dict[str, Any] = json.loads(
    (GOLDEN / "04-partial-after-step-9.match.json").read_text(encoding="utf-8")
)
EXPECTED: dict[str, Any] = json.loads(
    (GOLDEN / "04-partial-after-step-9.expected.json").read_text(encoding="utf-8")
)


def _doc(**changes: Any) -> dict[str, Any]:
    out = copy.deepcopy(PARTIAL)
    for key, value in changes.items():
        if value is ...:
            out.pop(key, None)
        else:
            out[key] = value
    return out


def _codes(doc: object) -> list[str]:
    with pytest.raises(RuleError) as caught:
        resolve(doc)
    return caught.value.codes


FRAME: list[tuple[str, object, str]] = [
    ("not an object", [], "match/not_object"),
    ("an unknown key", _doc(teams=True), "match/unknown_key"),
    ("another ruleset", _doc(ruleset="forks"), "match/unknown_ruleset"),
    ("no ruleset", _doc(ruleset=...), "match/unknown_ruleset"),
    ("a null seed", _doc(seed=None), "match/no_seed"),
    ("an empty seed", _doc(seed=""), "match/bad_seed"),
    ("a wrong digest", _doc(seed_sha256="0" * 64), "match/seed_mismatch"),
    ("one player", _doc(players=PARTIAL["players"][:1]), "match/player_count"),
    (
        "five players",
        _doc(players=[{"seat": s, "name": f"P{s}", "garnets": 0} for s in range(1, 6)], orders=[]),
        "match/player_count",
    ),
    (
        "negative garnets",
        _doc(players=[{**PARTIAL["players"][0], "garnets": -1}, *PARTIAL["players"][1:]]),
        "match/bad_garnets",
    ),
    (
        "look-alike names",
        _doc(
            players=[
                PARTIAL["players"][0],
                {**PARTIAL["players"][1], "name": "p1"},
                PARTIAL["players"][2],
            ]
        ),
        "match/confusable_names",
    ),
    ("settings a list", _doc(settings=[]), "match/bad_settings"),
    ("team play asked for", _doc(settings={"teams": True}), "settings/unknown"),
    ("cards null", _doc(cards=None), "cards/bad_keys"),
    ("orders not a list", _doc(orders={}), "match/bad_orders"),
    ("no orders", _doc(orders=...), "match/bad_orders"),
    ("an entry neither object nor null", _doc(orders=[5]), "match/bad_orders"),
    ("host_entered not a list", _doc(host_entered={}), "match/bad_host_entered"),
    ("host_entered without seat", _doc(host_entered=[{"step": 1}]), "match/bad_host_entered"),
    (
        "host_entered with a bool",
        _doc(host_entered=[{"step": True, "seat": 1}]),
        "match/bad_host_entered",
    ),
]


@pytest.mark.parametrize(("what", "doc", "code"), FRAME, ids=[f[0] for f in FRAME])
def test_frame_problem_has_its_code(what: str, doc: object, code: str) -> None:
    assert _codes(doc) == [code]


def test_every_frame_problem_is_listed_together() -> None:
    doc = _doc(teams=1, seed="", settings={"x": 1}, cards={"walls": []}, orders=5)
    assert sorted(_codes(doc)) == sorted(
        [
            "match/unknown_key",
            "match/bad_seed",
            "settings/unknown",
            "cards/bad_keys",
            "cards/count",
            "match/bad_orders",
        ]
    )


def test_accepted_extras_change_nothing() -> None:
    seed = PARTIAL["seed"]
    doc = _doc(
        seed_sha256=hashlib.sha256(seed.encode()).hexdigest(),
        name="A match",
        settings=...,
        host_entered=[{"step": 3, "seat": 2}, {"step": 3, "seat": 2}, {"step": 99, "seat": 7}],
    )
    assert resolve(doc) == EXPECTED
    assert resolve(_doc(settings={})) == EXPECTED
    assert parse_match(doc).host_entered[0] == (3, 2)


def test_default_card_set_given_explicitly_changes_nothing() -> None:
    cards = json.loads((GOLDEN.parents[2] / "seeds" / "cards" / "forfort.json").read_text())
    assert resolve(_doc(cards=cards)) == EXPECTED


def _orders(*entries: object) -> dict[str, Any]:
    return _doc(orders=[*PARTIAL["orders"][:3], *entries])


def test_another_seats_key_is_not_acting() -> None:
    with pytest.raises(RuleError) as caught:
        resolve(_orders({"2": None}))
    assert caught.value.codes == ["step/not_acting"]
    assert "orders[3]" in str(caught.value) and "step 4" in str(caught.value)


@pytest.mark.parametrize("key", ["4", "0", "01", "one"])
def test_a_key_that_is_no_seat(key: str) -> None:
    assert _codes(_orders({key: None})) == ["match/unknown_seat"]


@pytest.mark.parametrize("entry", [None, {}, {"1": None}])
def test_no_order_is_the_default(entry: object) -> None:
    result = resolve(_orders(entry))
    assert result["defaulted"] == [{"step": 4, "seat": 1}]
    assert result["steps"][3]["order"]["action"] == {"discard": result["discards"]["1"][0]}


def test_an_empty_order_is_refused_when_the_seat_holds_a_card() -> None:
    assert _codes(_orders({"1": {}})) == ["action/missing"]


def test_checking_stops_at_the_first_refused_order() -> None:
    assert _codes(_orders({"1": 5}, {"9": None})) == ["order/not_object"]


def test_too_many_orders() -> None:
    finished = json.loads((GOLDEN / "01-two-players-completed.match.json").read_text())
    finished["orders"].append(None)
    assert _codes(finished) == ["match/too_many_rounds"]


def test_fewer_orders_resolve_up_to_there() -> None:
    result = resolve(_doc(orders=[]))
    assert result["steps"] == [] and result["next"] == {
        "step": 1,
        "seat": 1,
        "round": 1,
        "extra": False,
    }
    assert result["hands"] == {
        "1": ["w01", "w04", "w22"],
        "2": ["w10", "w16", "w18"],
        "3": ["w01", "w10", "w16"],
    }
    assert result["top_arrows"] == {"1": [3, 6], "2": [5, 6], "3": [5, 8]}
    assert result["end"] is None and "scores" not in result
