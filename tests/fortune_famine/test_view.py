"""FF21: what each viewer sees. Until the end a seat's view holds no other
seat's stored total, a storage theft's ``taken`` reaches only the attacker
(whole) and each opponent it named (its own part), burned cards only the
host (once a step has closed), and the public view no storage at all; at
the end everything is public. Each private datum is kept once, under its
owner (``own``), and no view shows the Year decks before the full reveal."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from referee.rulesets.fortune_famine.cards import default_deck, parse_deck
from referee.rulesets.fortune_famine.match import detail_json, parse_match, play, resolve, start
from referee.rulesets.fortune_famine.options import options
from referee.rulesets.fortune_famine.orders import check_order, close_step
from referee.rulesets.fortune_famine.rebuild import table_from_details
from referee.rulesets.fortune_famine.state import ARUP, BESELLA, COTARR, DIVINA, Table
from referee.rulesets.fortune_famine.view import RESULT_KEYS, result_for, view

from .tables import make

GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "fortune-famine"


def _load(name: str) -> dict[str, Any]:
    out: dict[str, Any] = json.loads((GOLDEN / f"{name}.match.json").read_text(encoding="utf-8"))
    return out


def _states(doc: dict[str, Any]) -> list[Table]:
    """The table at the start and after each closed round of a match file."""
    spec = parse_match(doc)
    table = start(spec)
    out = [table]
    for entry in spec.orders:
        assert table.next is not None
        orders = {int(k): v for k, v in (entry or {}).items()}
        table = close_step(table, orders)
        out.append(table)
    return out


def _theft_table() -> Table:
    """An attack turn of seat 1, holding an Evrathor that steals 2 stored
    grain and may be split (a host's deck); seat 2 has 4 stored, seat 3 none."""
    raw = default_deck().as_json()
    for t in raw["types"]:
        if t["id"] == "evrathor-stored-2":
            t["split"] = "may"
    t = make(
        "attack",
        {1: COTARR, 2: DIVINA, 3: ARUP, 4: BESELLA},
        {
            1: ["start-farmer.1", "evrathor-stored-2.1"],
            2: ["start-farmer.2"],
            3: ["start-farmer.3"],
            4: ["start-farmer.4"],
        },
        season=9,
    )
    t.deck = parse_deck(raw)
    t.seats[2].stored = 4
    t.seats[4].stored = 7
    return t


def after_theft() -> dict[str, Any]:
    order = {"evrathor": [{"card": "evrathor-stored-2.1", "from": {"2": 1, "3": 1}}]}
    table = close_step(_theft_table(), {1: order})
    return detail_json(table)


def _use(result: dict[str, Any]) -> dict[str, Any]:
    use: dict[str, Any] = result["seasons"][-1]["attacks"][0]["evrathor"][0]
    return use


def test_a_storage_theft_is_seen_in_full_by_the_attacker_and_the_host_only() -> None:
    details = after_theft()
    assert _use(details) == {
        "card": "evrathor-stored-2.1",
        "from": {"2": 1, "3": 1},
        "stock": 0,
        "taken": {"2": 1, "3": 0},
    }
    assert _use(result_for(details, "host"))["taken"] == {"2": 1, "3": 0}
    assert _use(result_for(details, 1))["taken"] == {"2": 1, "3": 0}
    assert _use(result_for(details, 2))["taken"] == {"2": 1}
    assert _use(result_for(details, 3))["taken"] == {"3": 0}
    assert _use(result_for(details, 4))["taken"] is None
    public = _use(result_for(details, "public"))
    assert public == {
        "card": "evrathor-stored-2.1",
        "from": {"2": 1, "3": 1},
        "stock": 0,
        "taken": None,
    }


def test_grain_and_silver_thefts_keep_taken_for_everyone() -> None:
    doc = _load("02-four-players-full")
    details = resolve({**doc, "orders": doc["orders"][:45]}, details=True)
    uses = [u for s in details["seasons"] for a in s["attacks"] for u in a["evrathor"]]
    assert uses and all(u["taken"] == u["from"] for u in uses)
    public = result_for(details, "public")
    shown = [u for s in public["seasons"] for a in s["attacks"] for u in a["evrathor"]]
    assert shown == uses


def test_a_seats_view_holds_only_its_own_stored_total() -> None:
    details = after_theft()
    stored = {s: v["stored"] for s, v in details["seats"].items()}
    assert stored == {"1": 2, "2": 3, "3": 0, "4": 7}
    for seat in (1, 2, 3, 4):
        seats = result_for(details, seat)["seats"]
        assert {s: v["stored"] for s, v in seats.items()} == {
            s: (stored[s] if s == str(seat) else None) for s in stored
        }
    assert all(v["stored"] is None for v in result_for(details, "public")["seats"].values())
    assert result_for(details, "host")["seats"] == details["seats"]


@pytest.mark.parametrize(
    "name", ["01-two-players-short", "03-three-players-missing-orders", "04-partial-mid-season"]
)
def test_no_view_before_the_end_shows_another_seats_storage_or_a_burned_card(name: str) -> None:
    for table in _states(_load(name)):
        details = detail_json(table)
        if details["finished"]:
            continue
        seats = [int(s) for s in details["seats"]]
        for viewer in ["public", *seats]:
            result = result_for(details, viewer)  # type: ignore[arg-type]
            assert set(result) == {*RESULT_KEYS, "deck"}
            for key, seat in result["seats"].items():
                shown = seat["stored"]
                assert shown == (table.seats[viewer].stored if key == str(viewer) else None)
            assert all(record["burned"] is None for record in result["seasons"])
            text = json.dumps(result)
            assert '"own"' not in text and '"years"' not in text
        host = result_for(details, "host")
        burned = [record["burned"] for record in host["seasons"]]
        assert all(b is None for b in burned) if table.closed == 0 else None not in burned


def test_the_host_sees_no_burned_card_before_the_first_step_closes() -> None:
    details = resolve({**_load("01-two-players-short"), "orders": []}, details=True)
    assert details["seasons"][0]["burned"] == "skilled-merchant.1"
    assert result_for(details, "host")["seasons"][0]["burned"] is None
    details = resolve(
        {**_load("01-two-players-short"), "orders": _load("01-two-players-short")["orders"][:1]},
        details=True,
    )
    assert result_for(details, "host")["seasons"][0]["burned"] == "skilled-merchant.1"
    assert result_for(details, 1)["seasons"][0]["burned"] is None


def test_after_the_end_everything_is_public() -> None:
    details = resolve(_load("02-four-players-full"), details=True)
    full = {k: details[k] for k in RESULT_KEYS}
    for viewer in ("public", "host", 1, 3):
        result = result_for(details, viewer)  # type: ignore[arg-type]
        assert {k: result[k] for k in RESULT_KEYS} == full
    assert result_for(details, "public")["seats"]["2"]["stored"] == 15


def test_the_full_reveal_shows_the_year_decks() -> None:
    details = resolve({**_load("01-two-players-short"), "orders": []}, details=True)
    revealed = result_for(details, "host", revealed=True)
    assert revealed["years"]["1"][:2] == ["skilled-merchant.1", "chysarion-grain-3.1"]
    assert "years" not in result_for(details, "host")


def test_each_private_datum_is_kept_once_under_its_owner() -> None:
    details = after_theft()
    assert details["own"] == {
        "1": {
            "stored": 2,
            "thefts": [{"season": 9, "attack": 0, "use": 0, "taken": {"2": 1, "3": 0}}],
        },
        "2": {"stored": 3, "thefts": [{"season": 9, "attack": 0, "use": 0, "taken": {"2": 1}}]},
        "3": {"stored": 0, "thefts": [{"season": 9, "attack": 0, "use": 0, "taken": {"3": 0}}]},
        "4": {"stored": 7, "thefts": []},
    }
    # changing one seat's copy changes that seat's view only
    changed = copy.deepcopy(details)
    changed["own"]["2"]["thefts"][0]["taken"]["2"] = 9
    for viewer in ("public", "host", 1, 3, 4):
        assert result_for(changed, viewer) == result_for(details, viewer)  # type: ignore[arg-type]
    assert result_for(changed, 2) != result_for(details, 2)


def test_options_only_for_the_acting_seats() -> None:
    doc = _load("04-partial-mid-season")
    table = play(parse_match(doc))
    details = detail_json(table)
    assert details["next_round"]["acting"] == [3]
    assert view(details, 3)["options"]["phase"] == "hire"
    for viewer in ("public", "host", 1, 2, 4):
        assert "options" not in view(details, viewer)  # type: ignore[arg-type]


def test_orders_are_checked_the_same_on_the_table_of_the_hosts_view() -> None:
    """No order check reads private data (FF7, FF21), so the table made from
    the host's view checks every order as the full state does."""
    doc = _load("02-four-players-full")
    for table in _states(doc)[1:-1]:
        details = detail_json(table)
        mine = table_from_details(result_for(details, "host"))
        assert table.next is not None
        for seat in table.next.acting:
            assert options(mine, seat) == options(table, seat)
    entry = doc["orders"][54]  # round 55: seat 3's Pickpocket
    table = _states({**doc, "orders": doc["orders"][:54]})[-1]
    mine = table_from_details(result_for(detail_json(table), "host"))
    assert check_order(mine, 3, entry["3"]) == check_order(table, 3, entry["3"])
