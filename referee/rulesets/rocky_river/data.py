"""Bundled data in ``seeds/``: the card list and the maps, loaded by name."""

from __future__ import annotations

import json
import re
from functools import cache

from referee.errors import RuleError
from referee.resources import bundled_dir

from .cards import Deck, deck_from_json
from .river_map import RiverMap, parse_map

SEEDS_DIR = bundled_dir("seeds")
MAPS_DIR = SEEDS_DIR / "maps"
CARDS_DIR = SEEDS_DIR / "cards"
DEFAULT_MAP = "three-rapids"
_NAME = re.compile(r"^[a-z0-9][a-z0-9-]*$")


@cache
def load_deck(name: str = "rocky-river") -> Deck:
    with (CARDS_DIR / f"{name}.json").open(encoding="utf-8") as fh:
        return deck_from_json(json.load(fh))


def bundled_map_names() -> list[str]:
    return sorted(p.stem for p in MAPS_DIR.glob("*.json"))


@cache
def load_bundled_map(name: str) -> RiverMap:
    """The bundled map called ``name`` (its file name without ``.json``)."""
    if not isinstance(name, str) or not _NAME.match(name) or name not in bundled_map_names():
        known = ", ".join(bundled_map_names())
        raise RuleError.single(
            "map/unknown", f"there is no bundled map called {name!r} (known: {known})"
        )
    with (MAPS_DIR / f"{name}.json").open(encoding="utf-8") as fh:
        return parse_map(json.load(fh))
