"""FO2 and FO5: the card set (walls, camps, armies), its limits, and card ids.

A card set has the shape of ``seeds/cards/forfort.json`` (the default set):
``{"walls": [...], "camps": N, "armies": N}``, each wall ``{"id", "shape",
"symbols", "mark", "arrows"}``. :func:`parse_card_set` checks a host's set
against FO2's limits and reports every problem (codes ``cards/...`` of
docs/contracts/forfort/FORMAT.md); :func:`default_card_set` is the bundled one.

Pure: no Flask, SQL or click imports.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any, Literal

from referee.errors import Problem, RuleError
from referee.players import is_int
from referee.resources import bundled_dir

Shape = Literal["angled", "straight"]
SHAPES: tuple[Shape, ...] = ("angled", "straight")
# FO2's order of the symbols (the options list pairs in this order)
SYMBOLS: tuple[str, ...] = ("mason", "ram", "trebuchet", "siege", "garrison")
MARKS: tuple[str, ...] = ("gate", "shield")
CAMP = "camp"  # how a camp card is shown (FO5)
WALL_KEYS = ("id", "shape", "symbols", "mark", "arrows")
SET_KEYS = ("walls", "camps", "armies")
MIN_WALLS, MAX_WALLS = 10, 30
MIN_CAMPS, MAX_CAMPS = 1, 8
MIN_ARMIES, MAX_ARMIES = 0, 8
MIN_OF_SHAPE = 4
ID_PATTERN = re.compile(r"[a-z][a-z0-9-]{0,11}")
MAX_ID = 12


@dataclass(frozen=True)
class Wall:
    """One wall card as printed (FO2): arrows are the upright ones."""

    id: str
    shape: Shape
    symbols: tuple[str, ...]
    mark: str | None
    arrows: tuple[int, int]

    @property
    def protected(self) -> bool:
        """A ``shield`` wall (FO11, FO15)."""
        return self.mark == "shield"

    @property
    def gate(self) -> bool:
        """A ``gate`` wall takes the drawbridge token (FO16)."""
        return self.mark == "gate"

    def as_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "shape": self.shape,
            "symbols": list(self.symbols),
            "mark": self.mark,
            "arrows": list(self.arrows),
        }


@dataclass(frozen=True)
class CardSet:
    """A match's card set (FO2): the same for every seat."""

    walls: tuple[Wall, ...]
    camps: int
    armies: int

    @property
    def ids(self) -> tuple[str, ...]:
        """Card-set order (FO5)."""
        return tuple(w.id for w in self.walls)

    def wall(self, card: str) -> Wall:
        return self._by_id()[card]

    def is_wall(self, card: str) -> bool:
        return card in self._by_id()

    def sort(self, cards: Sequence[str]) -> list[str]:
        """Cards in card-set order (FO5)."""
        rank = self._rank()
        return sorted(cards, key=rank.__getitem__)

    def read(self, raw: object) -> str | None:
        """FO5: the lowercase id a card value names (any case), ``camp`` for a
        camp card, or None for anything else."""
        if not isinstance(raw, str) or len(raw) > MAX_ID:
            return None
        card = raw.lower()
        return card if card == CAMP or card in self._by_id() else None

    def as_json(self) -> dict[str, Any]:
        return {
            "walls": [w.as_json() for w in self.walls],
            "camps": self.camps,
            "armies": self.armies,
        }

    def _by_id(self) -> dict[str, Wall]:
        return _index(self.walls)

    def _rank(self) -> dict[str, int]:
        return {w.id: i for i, w in enumerate(self.walls)}


@cache
def _index(walls: tuple[Wall, ...]) -> dict[str, Wall]:
    return {w.id: w for w in walls}


def _wall_problems(raw: object, where: str) -> tuple[Wall | None, list[Problem]]:
    """FO2: one wall of a host's set, or its problems (``cards/bad_card``,
    ``cards/bad_id``)."""
    if not isinstance(raw, Mapping) or sorted(map(str, raw)) != sorted(WALL_KEYS):
        keys = sorted(map(str, raw)) if isinstance(raw, Mapping) else None
        shown = f"it has {keys}" if keys is not None else f"not {type(raw).__name__}"
        return None, [
            Problem(
                "cards/bad_card",
                f"{where} must be an object with exactly the keys id, shape, symbols, "
                f"mark and arrows ({shown})",
                where,
            )
        ]
    problems: list[Problem] = []
    card_id = raw["id"]
    if not isinstance(card_id, str) or not ID_PATTERN.fullmatch(card_id) or card_id == CAMP:
        problems.append(
            Problem(
                "cards/bad_id",
                f"{where}: the id {card_id!r} must be a lowercase letter then up to 11 "
                "lowercase letters, digits or hyphens, and not 'camp'",
                f"{where}.id",
            )
        )
    shape = raw["shape"]
    if shape not in SHAPES:
        problems.append(
            Problem(
                "cards/bad_card",
                f"{where}: shape {shape!r} must be 'angled' or 'straight'",
                f"{where}.shape",
            )
        )
    symbols = raw["symbols"]
    good_symbols = (
        isinstance(symbols, list)
        and len(symbols) <= 2
        and all(isinstance(s, str) and s in SYMBOLS for s in symbols)
        and len(set(symbols)) == len(symbols)
    )
    if not good_symbols:
        problems.append(
            Problem(
                "cards/bad_card",
                f"{where}: symbols {symbols!r} must be a list of 0 to 2 different ones "
                f"of {', '.join(SYMBOLS)}",
                f"{where}.symbols",
            )
        )
    mark = raw["mark"]
    if mark is not None and mark not in MARKS:
        problems.append(
            Problem(
                "cards/bad_card",
                f"{where}: mark {mark!r} must be 'gate', 'shield' or null",
                f"{where}.mark",
            )
        )
    elif mark is None and good_symbols and not symbols:
        problems.append(
            Problem(
                "cards/bad_card",
                f"{where}: a wall with no symbol needs a mark ('gate' or 'shield')",
                f"{where}.mark",
            )
        )
    arrows = raw["arrows"]
    if not (
        isinstance(arrows, list)
        and len(arrows) == 2
        and all(is_int(a) and 1 <= a <= 8 for a in arrows)
        and arrows[0] != arrows[1]
    ):
        problems.append(
            Problem(
                "cards/bad_card",
                f"{where}: arrows {arrows!r} must be 2 different spaces from 1 to 8",
                f"{where}.arrows",
            )
        )
    if problems:
        return None, problems
    return (
        Wall(card_id, shape, tuple(symbols), mark, (arrows[0], arrows[1])),
        [],
    )


def _supply_problem(raw: Mapping[str, Any], key: str, low: int, high: int) -> Problem | None:
    value = raw.get(key)
    if is_int(value) and low <= value <= high:
        return None
    return Problem(
        "cards/bad_supply",
        f"cards: {key!r} must be a whole number from {low} to {high}, not {value!r}",
        f"cards.{key}",
    )


def card_set_problems(raw: object) -> tuple[CardSet | None, list[Problem]]:
    """FO2: a host's card set and every problem with it (codes ``cards/...``)."""
    if not isinstance(raw, Mapping):
        return None, [
            Problem(
                "cards/bad_keys",
                'cards must be an object {"walls": [...], "camps": N, "armies": N}, '
                f"not {type(raw).__name__ if raw is not None else 'null'}",
                "cards",
            )
        ]
    problems: list[Problem] = []
    if sorted(map(str, raw)) != sorted(SET_KEYS):
        problems.append(
            Problem(
                "cards/bad_keys",
                f"cards must have exactly the keys walls, camps and armies, not {sorted(raw)}",
                "cards",
            )
        )
    for key, low, high in (("camps", MIN_CAMPS, MAX_CAMPS), ("armies", MIN_ARMIES, MAX_ARMIES)):
        if key in raw:
            supply = _supply_problem(raw, key, low, high)
            if supply is not None:
                problems.append(supply)
    walls_raw = raw.get("walls")
    walls: list[Wall] = []
    count = len(walls_raw) if isinstance(walls_raw, list) else None
    if "walls" in raw and (count is None or not MIN_WALLS <= count <= MAX_WALLS):
        problems.append(
            Problem(
                "cards/count",
                f"cards: 'walls' must be a list of {MIN_WALLS} to {MAX_WALLS} walls"
                + (f", not {count}" if count is not None else ""),
                "cards.walls",
            )
        )
    if isinstance(walls_raw, list):
        seen: set[str] = set()
        for i, entry in enumerate(walls_raw):
            wall, wall_problems = _wall_problems(entry, f"cards.walls[{i}]")
            problems += wall_problems
            if wall is None:
                continue
            if wall.id in seen:
                problems.append(
                    Problem(
                        "cards/duplicate_id",
                        f"cards.walls[{i}]: the id {wall.id!r} is used twice",
                        f"cards.walls[{i}].id",
                    )
                )
            seen.add(wall.id)
            walls.append(wall)
        if len(walls) == len(walls_raw) and MIN_WALLS <= len(walls) <= MAX_WALLS:
            for shape in SHAPES:
                have = sum(1 for w in walls if w.shape == shape)
                if have < MIN_OF_SHAPE:
                    problems.append(
                        Problem(
                            "cards/shapes",
                            f"cards: at least {MIN_OF_SHAPE} walls must be {shape}, not {have}",
                            "cards.walls",
                        )
                    )
    if problems:
        return None, problems
    return CardSet(tuple(walls), raw["camps"], raw["armies"]), []


def parse_card_set(raw: object) -> CardSet:
    """FO2: a host's card set, or one RuleError listing every problem."""
    cards, problems = card_set_problems(raw)
    if problems:
        raise RuleError(problems)
    assert cards is not None
    return cards


@cache
def default_card_set() -> CardSet:
    """The default set of 22 walls, 4 camps, 4 armies (``seeds/cards/forfort.json``)."""
    path = bundled_dir("seeds") / "cards" / "forfort.json"
    return parse_card_set(json.loads(path.read_text(encoding="utf-8")))
