"""FF3-FF4: the deck's limits, each pinned on both sides (the limit accepted,
one over refused) and each check by a deck only it refuses; every problem of
a deck is listed together; the bundled default is the contract's deck and
gives the card ids FF3 describes."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from referee.errors import RuleError
from referee.rulesets.fortune_famine.cards import deck_problems, default_deck, parse_deck

REPO = Path(__file__).resolve().parents[2]
BUNDLED = REPO / "seeds" / "cards" / "fortune-famine.json"
SHARED = REPO.parent / "shared" / "fortune-famine" / "deck.json"
DEFAULT: dict[str, Any] = json.loads(BUNDLED.read_text(encoding="utf-8"))
SEATS = 2


def test_bundled_deck_is_the_contracts() -> None:
    if not SHARED.is_file():
        pytest.skip(f"the shared rules folder {SHARED.parent} does not exist beside the repository")
    assert BUNDLED.read_bytes() == SHARED.read_bytes()


def test_default_deck() -> None:
    deck = default_deck()
    assert len(deck.cards) == 84 and len(deck.types) == 20
    ids = [c.id for c in deck.cards]
    assert ids[:4] == ["famine.1", "common-farmer.1", "common-farmer.2", "common-farmer.3"]
    assert [c for c in ids if c.startswith("famine.")] == [f"famine.{i}" for i in range(1, 7)]
    assert sum(c.startswith("common-farmer.") for c in ids) == 10
    assert deck.read(" Common-Farmer.3 ", 2) == "common-farmer.3"
    assert deck.read("START-FARMER.2", 2) == "start-farmer.2"
    assert deck.read("start-farmer.3", 2) is None  # no seat 3
    assert deck.read(" " * 100 + "seer.1\t", 2) == "seer.1"
    assert deck.read("start-farmer.01", 2) is None and deck.read("seer.1" * 20, 2) is None
    assert deck.read("common-farmer.11", 2) is None and deck.read(7, 2) is None
    assert deck.type_of("start-farmer.1").id == "common-farmer"
    for seats in range(2, 7):
        for year in (1, 2, 3):
            assert len(deck.year_cards(year, seats)) == 4 * (seats + 1)
    assert parse_deck(deck.as_json()) == deck


def test_every_famine_has_corner_2_and_year_1_has_no_attacker() -> None:
    deck = default_deck()
    assert {c.corner for c in deck.cards if c.type == "famine"} == {2}
    assert [c.year for c in deck.cards if c.type == "famine"] == [1, 2, 2, 3, 3, 3]
    year1 = {deck.type(c.type).kind for c in deck.cards if c.year == 1}
    assert not year1 & {"pickpocket", "seer", "evrathor"}


# ---- decks to check -------------------------------------------------------------------


def _deck(**changes: Any) -> dict[str, Any]:
    out = copy.deepcopy(DEFAULT)
    for key, value in changes.items():
        if value is ...:
            out.pop(key, None)
        else:
            out[key] = value
    return out


def _type(type_id: str, **changes: Any) -> dict[str, Any]:
    """The default deck with the type ``type_id`` changed (``...`` removes a key)."""
    out = copy.deepcopy(DEFAULT)
    entry = next(t for t in out["types"] if t["id"] == type_id)
    for key, value in changes.items():
        if value is ...:
            entry.pop(key, None)
        else:
            entry[key] = value
    return out


def _extra_type(**entry: Any) -> dict[str, Any]:
    """The default deck with one more (unused) type."""
    out = copy.deepcopy(DEFAULT)
    out["types"].append(entry)
    return out


def _row(i: int, **changes: Any) -> dict[str, Any]:
    out = copy.deepcopy(DEFAULT)
    for key, value in changes.items():
        if value is ...:
            out["cards"][i].pop(key, None)
        else:
            out["cards"][i][key] = value
    return out


def _many_types(count: int) -> dict[str, Any]:
    """The default deck's 20 types and unused Seers up to ``count``."""
    out = copy.deepcopy(DEFAULT)
    out["types"] += [{"id": f"seer-{i}", "kind": "seer"} for i in range(count - 20)]
    return out


def _rows(count: int, extra: int = 0) -> dict[str, Any]:
    """A deck of only Common Farmers for 2 seats: 12 rows of corner 2 a Year,
    the rest corner 6 (out of the game), each a card (``extra`` more on the last)."""
    rows = [
        {"type": "common-farmer", "year": y, "corner": 2, "count": 1}
        for y in (1, 2, 3)
        for _ in range(12)
    ]
    rows += [
        {"type": "common-farmer", "year": 1, "corner": 6, "count": 1} for _ in range(count - 36)
    ]
    rows[-1]["count"] += extra
    farmer = next(t for t in DEFAULT["types"] if t["id"] == "common-farmer")
    return {"types": [farmer], "cards": rows}


def _year_one_farmers(count: int) -> dict[str, Any]:
    """The default deck with Year 1's corner-2 Common Farmers row holding ``count``."""
    return _row(1, count=count)


LONG_ID = "a" + "b" * 39
ACCEPTED: list[tuple[str, object]] = [
    ("the default", _deck()),
    ("no name", _deck(name=...)),
    ("a name of 100 characters", _deck(name="n" * 100)),
    ("an empty name", _deck(name="")),
    ("60 types", _many_types(60)),
    ("a type id of 40 characters", _extra_type(id=LONG_ID, kind="seer")),
    ("a type id with digits and hyphens", _extra_type(id="x-1-y", kind="seer")),
    ("a type name of 1 character", _type("seer", name="S")),
    ("a type name of 60 characters", _type("seer", name="S" * 60)),
    ("a type without a name", _type("seer", name=...)),
    ("a payment of 5", _type("common-farmer", payment={"grain": 5, "silver": 5})),
    ("a payment of 0", _type("common-farmer", payment={"grain": 0})),
    ("a reward of 9", _type("steward", reward={"grain": 9, "silver": 9, "stored": 9})),
    ("a Chysarion of 1", _type("chysarion-grain-3", amount=1)),
    ("a Chysarion of 9", _type("chysarion-grain-3", amount=9)),
    ("a must split of 2", _type("evrathor-silver-2", amount=2)),
    ("an Evrathor without split", _type("evrathor-stored-2", split=...)),
    ("a steward with a payment", _type("steward", payment={"silver": 1})),
    ("300 rows", _rows(300)),
    ("300 cards", _rows(299, extra=1)),
    ("a count of 28", _row(74, count=28)),
    ("corner 6 and year 3", _row(74, corner=6, year=3)),
]


@pytest.mark.parametrize(("what", "raw"), ACCEPTED, ids=[a[0] for a in ACCEPTED])
def test_accepted(what: str, raw: object) -> None:
    deck, problems = deck_problems(raw, SEATS)
    assert problems == [] and deck is not None


REFUSED: list[tuple[str, object, str]] = [
    ("a list", [], "deck/not_object"),
    ("a string", "default", "deck/not_object"),
    ("an unknown key", _deck(version=2), "deck/unknown_key"),
    ("a name of 101 characters", _deck(name="n" * 101), "deck/bad_name"),
    ("a name not a string", _deck(name=5), "deck/bad_name"),
    ("61 types", _many_types(61), "deck/bad_types"),
    ("a type not an object", _deck(types=[*DEFAULT["types"], 5]), "deck/bad_type"),
    ("a type id of 41 characters", _extra_type(id=LONG_ID + "c", kind="seer"), "deck/bad_type"),
    ("an uppercase type id", _extra_type(id="Seer-2", kind="seer"), "deck/bad_type"),
    ("a type id starting with a digit", _extra_type(id="2seer", kind="seer"), "deck/bad_type"),
    (
        "the id start-farmer",
        _extra_type(id="start-farmer", kind="farmer", grade="common"),
        "deck/bad_type",
    ),
    ("a type id twice", _extra_type(id="seer", kind="seer"), "deck/bad_type"),
    ("an empty type name", _type("seer", name=""), "deck/bad_type"),
    ("a type name of 61 characters", _type("seer", name="S" * 61), "deck/bad_type"),
    ("a field of another kind", _type("steward", grade="common"), "deck/bad_type"),
    ("a field of no kind", _type("famine", payment={"grain": 1}), "deck/bad_type"),
    ("no grade", _type("common-jester", grade=...), "deck/bad_type"),
    ("a grade neither common nor skilled", _type("common-jester", grade="master"), "deck/bad_type"),
    ("a payment not an object", _type("common-farmer", payment=[1]), "deck/bad_type"),
    ("a payment in stored grain", _type("common-farmer", payment={"stored": 1}), "deck/bad_type"),
    ("a Chysarion without gives", _type("chysarion-grain-3", gives=...), "deck/bad_type"),
    ("a theft of gold", _type("evrathor-grain-2", steals="gold"), "deck/bad_type"),
    ("a split of sometimes", _type("evrathor-grain-2", split="sometimes"), "deck/bad_type"),
    ("a wizard without amount", _type("evrathor-grain-2", amount=...), "deck/bad_type"),
    ("an unknown kind", _type("seer", kind="oracle"), "deck/unknown_kind"),
    ("no kind", _type("seer", kind=...), "deck/unknown_kind"),
    ("a payment of 6", _type("common-farmer", payment={"silver": 6}), "deck/bad_number"),
    ("a payment below 0", _type("common-farmer", payment={"silver": -1}), "deck/bad_number"),
    ("a payment as text", _type("common-farmer", payment={"silver": "1"}), "deck/bad_number"),
    ("a reward of 10", _type("steward", reward={"stored": 10}), "deck/bad_number"),
    ("a reward below 0", _type("steward", reward={"grain": -1}), "deck/bad_number"),
    ("a Chysarion of 0", _type("chysarion-grain-3", amount=0), "deck/bad_number"),
    ("a Chysarion of 10", _type("chysarion-grain-3", amount=10), "deck/bad_number"),
    ("a must split of 1", _type("evrathor-silver-2", amount=1), "deck/bad_number"),
    ("a skilled common farmer", _type("common-farmer", grade="skilled"), "deck/no_common_farmer"),
    (
        "a common farmer that is a merchant",
        _type("common-farmer", kind="merchant"),
        "deck/no_common_farmer",
    ),
    ("cards not a list", _deck(cards={}), "deck/bad_cards"),
    ("no cards", _deck(cards=...), "deck/bad_cards"),
    ("no rows", _deck(cards=[]), "deck/bad_cards"),
    ("301 rows", _rows(301), "deck/bad_cards"),
    ("301 cards", _rows(300, extra=1), "deck/bad_cards"),
    ("a row not an object", _row(0) | {"cards": [*DEFAULT["cards"], 5]}, "deck/bad_row"),
    ("a row without count", _row(74, count=...), "deck/bad_row"),
    ("a row with an extra key", _row(74, note="x"), "deck/bad_row"),
    ("year 0", _row(74, year=0), "deck/bad_row"),
    ("year 4", _row(74, year=4), "deck/bad_row"),
    ("corner 1", _row(74, corner=1), "deck/bad_row"),
    ("corner 7", _row(74, corner=7), "deck/bad_row"),
    ("count 0", _row(74, count=0), "deck/bad_row"),
    ("count 29", _row(74, count=29), "deck/bad_row"),
    ("a count as text", _row(74, count="1"), "deck/bad_row"),
    ("a row of no type", _row(74, type="gold-farmer"), "deck/unknown_type"),
    ("a row naming a type in capitals", _row(74, type="Evrathor-Stored-2"), "deck/unknown_type"),
    ("one card too many in a Year", _year_one_farmers(4), "deck/year_size"),
    ("one card too few in a Year", _year_one_farmers(2), "deck/year_size"),
]


@pytest.mark.parametrize(("what", "raw", "code"), REFUSED, ids=[r[0] for r in REFUSED])
def test_refused_with_its_code_only(what: str, raw: object, code: str) -> None:
    deck, problems = deck_problems(raw, SEATS)
    assert deck is None and [p.code for p in problems] == [code]
    assert all(p.message for p in problems)


def test_every_problem_is_listed_together() -> None:
    raw = _deck(name=5, extra=1)
    raw["types"][3]["grade"] = "master"  # common-merchant
    raw["types"][8]["kind"] = "oracle"  # pickpocket
    raw["cards"][0]["year"] = 9
    raw["cards"].append({"type": "nothing", "year": 1, "corner": 2, "count": 1})
    with pytest.raises(RuleError) as caught:
        parse_deck(raw, SEATS)
    assert caught.value.codes == [
        "deck/unknown_key",
        "deck/bad_name",
        "deck/bad_type",
        "deck/unknown_kind",
        "deck/bad_row",
        "deck/unknown_type",
    ]
    fields = [p.field for p in caught.value.problems]
    assert fields[2:4] == ["deck.types[3].grade", "deck.types[8].kind"]


def test_a_row_naming_a_refused_type_adds_no_problem() -> None:
    refused = _type("steward", reward={"stored": 10})
    _, problems = deck_problems(refused, SEATS)
    assert [p.code for p in problems] == ["deck/bad_number"]  # its 5 rows add nothing
    gone = _deck(types=[t for t in DEFAULT["types"] if t["id"] != "steward"])
    _, problems = deck_problems(gone, SEATS)
    assert [p.code for p in problems] == ["deck/unknown_type"] * 5


def test_a_refused_common_farmer_is_not_also_missing() -> None:
    _, problems = deck_problems(_type("common-farmer", payment={"silver": 9}), SEATS)
    assert [p.code for p in problems] == ["deck/bad_number"]


def test_year_sizes_wait_for_every_other_check_and_the_player_count() -> None:
    both = _year_one_farmers(4)
    both["name"] = 7
    _, problems = deck_problems(both, SEATS)
    assert [p.code for p in problems] == ["deck/bad_name"]
    assert deck_problems(_year_one_farmers(4), None)[1] == []


@pytest.mark.parametrize("seats", [2, 3, 4, 5, 6])
def test_year_size_for_each_player_count(seats: int) -> None:
    """A corner-``seats`` row moved to corner ``seats + 1`` leaves its Year one short."""
    raw = copy.deepcopy(DEFAULT)
    assert deck_problems(raw, seats)[1] == []
    row = next(r for r in raw["cards"] if r["corner"] == seats and r["count"] == 1)
    row["corner"] = seats + 1 if seats < 6 else 2
    codes = [p.code for p in deck_problems(raw, seats)[1]]
    assert codes == ([] if seats == 6 else ["deck/year_size"])


def test_a_year_size_problem_says_how_many() -> None:
    (problem,) = deck_problems(_year_one_farmers(4), 2)[1]
    assert "Year 1 has 13" in problem.message and "exactly 12" in problem.message
    for seats in (3, 4, 5, 6):
        assert [p.code for p in deck_problems(_year_one_farmers(4), seats)[1]] == ["deck/year_size"]


def test_types_not_a_list() -> None:
    _, problems = deck_problems(_deck(types={}), SEATS)
    assert {p.code for p in problems} == {"deck/bad_types", "deck/unknown_type"}


def test_one_type_and_one_row_before_the_year_sizes() -> None:
    """The lower limits: 1 type, 1 row (the Year sizes, checked with a player
    count, are what such a deck then fails)."""
    farmer = next(t for t in DEFAULT["types"] if t["id"] == "common-farmer")
    raw = {
        "types": [farmer],
        "cards": [{"type": "common-farmer", "year": 1, "corner": 2, "count": 1}],
    }
    assert deck_problems(raw, None)[1] == []
    assert [p.code for p in deck_problems(raw, 2)[1]] == ["deck/year_size"] * 3
    assert "deck/bad_types" in [p.code for p in deck_problems({**raw, "types": []}, None)[1]]
