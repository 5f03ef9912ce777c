"""FO2: the card set's limits, each pinned by a set only it refuses, on both
sides; every problem of a set is listed; the bundled default is the contract's."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from referee.errors import RuleError
from referee.rulesets.forfort.cards import default_card_set, parse_card_set

REPO = Path(__file__).resolve().parents[2]
BUNDLED = REPO / "seeds" / "cards" / "forfort.json"
SHARED = REPO.parent / "shared" / "forfort" / "cards.json"
DEFAULT: dict[str, Any] = json.loads(BUNDLED.read_text(encoding="utf-8"))


def test_bundled_card_set_is_the_contracts() -> None:
    if not SHARED.is_file():
        pytest.skip(f"the shared rules folder {SHARED.parent} does not exist beside the repository")
    assert BUNDLED.read_bytes() == SHARED.read_bytes()


def test_default_set() -> None:
    cards = default_card_set()
    assert len(cards.walls) == 22 and cards.camps == 4 and cards.armies == 4
    assert cards.ids == tuple(f"w{i:02d}" for i in range(1, 23))
    assert sum(w.shape == "angled" for w in cards.walls) == 11
    assert cards.read("W07") == "w07" and cards.read("camp") == "camp"
    assert cards.read("w23") is None and cards.read(7) is None


def _walls(n: int, angled: int | None = None) -> list[dict[str, Any]]:
    angled = n // 2 if angled is None else angled
    return [
        {
            "id": f"x{i}",
            "shape": "angled" if i < angled else "straight",
            "symbols": ["mason"],
            "mark": None,
            "arrows": [1, 2],
        }
        for i in range(n)
    ]


def _set(**changes: Any) -> dict[str, Any]:
    out = copy.deepcopy(DEFAULT)
    out.update(changes)
    return out


def _wall(i: int, **changes: Any) -> dict[str, Any]:
    out = copy.deepcopy(DEFAULT)
    out["walls"][i].update(changes)
    return out


Edit = Callable[[], object]
ACCEPTED: list[tuple[str, object]] = [
    ("10 walls", _set(walls=_walls(10, 4))),
    ("30 walls", _set(walls=_walls(30))),
    ("4 of each shape", _set(walls=_walls(10, 4))),
    ("1 camp", _set(camps=1)),
    ("8 camps", _set(camps=8)),
    ("0 armies", _set(armies=0)),
    ("8 armies", _set(armies=8)),
    ("a 12-character id with hyphens", _wall(0, id="a-b-c-d-e-f1")),
    ("any two arrows", _wall(0, arrows=[1, 3])),
    ("symbols and a mark", _wall(0, symbols=["mason", "ram"], mark="shield")),
    ("no symbol, a mark", _wall(0, symbols=[], mark="gate")),
]
REFUSED: list[tuple[str, object, str]] = [
    ("null", None, "cards/bad_keys"),
    ("a list", [], "cards/bad_keys"),
    ("an extra key", _set(extra=1), "cards/bad_keys"),
    ("no armies key", {k: v for k, v in DEFAULT.items() if k != "armies"}, "cards/bad_keys"),
    ("9 walls", _set(walls=_walls(9, 4)), "cards/count"),
    ("31 walls", _set(walls=_walls(31)), "cards/count"),
    ("walls not a list", _set(walls={}), "cards/count"),
    ("0 camps", _set(camps=0), "cards/bad_supply"),
    ("9 camps", _set(camps=9), "cards/bad_supply"),
    ("camps true", _set(camps=True), "cards/bad_supply"),
    ("-1 armies", _set(armies=-1), "cards/bad_supply"),
    ("9 armies", _set(armies=9), "cards/bad_supply"),
    ("a wall not an object", _set(walls=[*DEFAULT["walls"][:-1], "w22"]), "cards/bad_card"),
    ("a wall with an extra key", _wall(0, colour="red"), "cards/bad_card"),
    ("a bad shape", _wall(0, shape="round"), "cards/bad_card"),
    ("3 symbols", _wall(0, symbols=["mason", "ram", "siege"]), "cards/bad_card"),
    ("a repeated symbol", _wall(0, symbols=["ram", "ram"]), "cards/bad_card"),
    ("an unknown symbol", _wall(0, symbols=["Mason"]), "cards/bad_card"),
    ("a bad mark", _wall(0, mark="moat"), "cards/bad_card"),
    ("neither symbol nor mark", _wall(14, mark=None), "cards/bad_card"),
    ("one arrow", _wall(0, arrows=[1]), "cards/bad_card"),
    ("the same arrow twice", _wall(0, arrows=[2, 2]), "cards/bad_card"),
    ("arrow 0", _wall(0, arrows=[0, 2]), "cards/bad_card"),
    ("arrow 9", _wall(0, arrows=[1, 9]), "cards/bad_card"),
    ("an upper-case id", _wall(0, id="W01"), "cards/bad_id"),
    ("a 13-character id", _wall(0, id="abcdefghijklm"), "cards/bad_id"),
    ("an id starting with a digit", _wall(0, id="1w"), "cards/bad_id"),
    ("the id camp", _wall(0, id="camp"), "cards/bad_id"),
    ("an id not a string", _wall(0, id=1), "cards/bad_id"),
    ("a repeated id", _wall(1, id="w01"), "cards/duplicate_id"),
    ("3 angled walls", _set(walls=_walls(10, 3)), "cards/shapes"),
    ("3 straight walls", _set(walls=_walls(10, 7)), "cards/shapes"),
]


@pytest.mark.parametrize(("what", "raw"), ACCEPTED, ids=[a[0] for a in ACCEPTED])
def test_limits_accepted(what: str, raw: object) -> None:
    parse_card_set(raw)


@pytest.mark.parametrize(("what", "raw", "code"), REFUSED, ids=[r[0] for r in REFUSED])
def test_limit_refused_with_its_code(what: str, raw: object, code: str) -> None:
    with pytest.raises(RuleError) as caught:
        parse_card_set(raw)
    assert caught.value.codes == [code]


def test_every_problem_is_listed() -> None:
    raw = _set(camps=0, armies=9)
    raw["walls"][0]["id"] = "camp"
    raw["walls"][1]["shape"] = "round"
    raw["walls"][2]["id"] = "w04"
    with pytest.raises(RuleError) as caught:
        parse_card_set(raw)
    assert sorted(caught.value.codes) == sorted(
        [
            "cards/bad_supply",
            "cards/bad_supply",
            "cards/bad_id",
            "cards/bad_card",
            "cards/duplicate_id",
        ]
    )
    assert all("cards" in (p.field or "") for p in caught.value.problems)
