"""The acting seat's ``options`` (FORMAT's API bodies): per first camp on a
first turn, else flat; each build, effect and camp choice listed is accepted."""

from __future__ import annotations

import json
from pathlib import Path

from referee.rulesets.forfort.match import parse_match, play
from referee.rulesets.forfort.options import options
from referee.rulesets.forfort.orders import play_turn

GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "forfort"
DOC = json.loads((GOLDEN / "04-partial-after-step-9.match.json").read_text(encoding="utf-8"))


def test_first_turn_options_are_per_first_camp() -> None:
    table = play(parse_match({**DOC, "orders": []}))
    opts = options(table)
    assert opts is not None and opts["camp_start"] == [1, 2, 3, 4, 5, 6, 7, 8]
    by = opts["by_camp_start"]
    assert sorted(by, key=int) == [str(s) for s in range(1, 9)]
    # seat 1's top arrows are [3, 6]; a camp on 1 adds corner 1 for its angled cards
    assert [b["space"] for b in by["1"]["build"]["w01"]] == [1, 3]
    assert [b["space"] for b in by["5"]["build"]["w01"]] == [3, 5]
    assert by["1"]["camp_spaces"] == [2, 3, 4, 5, 6, 7, 8] and by["1"]["drawbridge"] == []
    assert by["1"]["forced_discard"] is False


def test_every_listed_choice_is_accepted_later_in_the_match() -> None:
    table = play(parse_match(DOC))
    opts = options(table)
    assert opts is not None and opts["camp_start"] is None and opts["by_camp_start"] is None
    assert table.next is not None and table.next.seat == 3
    for card, spaces in opts["build"].items():
        for choice in spaces:
            play_turn(table, {"action": {"build": card, "space": choice["space"]}})
    for card, symbols in opts["effects"].items():
        assert set(symbols) <= {"mason", "ram", "trebuchet", "siege", "garrison"}
        if "siege" in symbols:
            for target in symbols["siege"]:
                play_turn(
                    table, {"action": {"effect": card, "symbol": "siege", "target": int(target)}}
                )
    for space in opts["camp_spaces"]:
        play_turn(table, {"action": {"camp": "w05", "space": space}})
    assert opts["drawbridge"] is None  # seat 3's token is on its space 7
