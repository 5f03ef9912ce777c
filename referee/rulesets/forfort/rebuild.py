"""A :class:`~.state.Table` made again from a detailed result
(:func:`.match.detail_json`), for what the ruleset adapter does between two
replays: checking the acting seat's order (:func:`.orders.play_turn` on the
table) and listing its ``options``.

The detailed result holds every seat's dungeon in order, hands, forts,
discard piles and supplies. It does not hold the seed, nor which dungeon
cards are turned round (FO6): nothing a turn checks needs them. A turn's
checks read only the acting seat's **top** dungeon card's arrows (FO9,
FO11), which ``top_arrows`` gives, so each top card is marked turned round
when its printed arrows are not those shown; the cards under it are never
looked at before the next replay. Defaults (FO20) need the seed: the
adapter never plays a default on a rebuilt table.

Lenient on purpose: a value it does not know (a card id no set holds) is
kept as it is, so reading one seat's data never fails for another's.

Pure: no Flask, SQL or click imports.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .cards import CardSet, parse_card_set
from .fort import SPACES
from .state import Army, Seat, Space, Table, Turn


def _space(raw: Mapping[str, Any]) -> Space:
    army = raw.get("army")
    return Space(
        stack=[str(c) for c in raw.get("stack") or []],
        army=None if army is None else Army(int(army["seat"]), str(army["direction"])),
    )


def _rotated(cards: CardSet, dungeon: list[str], shown: object) -> frozenset[str]:
    """The top card marked turned round when its printed arrows are not those shown."""
    if not dungeon or not isinstance(shown, list) or not cards.is_wall(dungeon[0]):
        return frozenset()
    top = dungeon[0]
    printed = sorted(cards.wall(top).arrows)
    return frozenset() if printed == sorted(shown) else frozenset({top})


def table_from_details(details: Mapping[str, Any]) -> Table:
    """The table of a detailed result (see the module's text for what it lacks)."""
    cards = parse_card_set(details["cards"])
    seats: dict[int, Seat] = {}
    rotated: dict[int, frozenset[str]] = {}
    turns: dict[str, int] = {}
    for step in details["steps"]:
        key = str(step["seat"])
        turns[key] = turns.get(key, 0) + 1
    for key, fort in details["forts"].items():
        supply = details["supply"][key]
        dungeon = [str(c) for c in details["dungeons"][key]]
        seats[int(key)] = Seat(
            dungeon=dungeon,
            hand=[str(c) for c in details["hands"][key]],
            discard=[str(c) for c in details["discards"][key]],
            camps=int(supply["camps"]),
            armies=int(supply["armies"]),
            defeated=int(supply["defeated"]),
            drawbridge=fort["drawbridge"],
            spaces={s: _space(fort["spaces"][str(s)]) for s in SPACES},
            turns=turns.get(key, 0),
        )
        rotated[int(key)] = _rotated(cards, dungeon, details["top_arrows"][key])
    nxt = details["next"]
    end = details["end"] or {}
    return Table(
        seed="",
        cards=cards,
        seats=seats,
        rotated=rotated,
        next=None
        if nxt is None
        else Turn(int(nxt["step"]), int(nxt["seat"]), int(nxt["round"]), bool(nxt["extra"])),
        steps=[dict(s) for s in details["steps"]],
        defaulted=[(int(d["step"]), int(d["seat"])) for d in details["defaulted"]],
        final_round=details["final_round"],
        triggered_at=end.get("triggered_at"),
    )
