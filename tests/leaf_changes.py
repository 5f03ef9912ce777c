"""Leaf-by-leaf changes of a game's state JSON, for the privacy checks that
change one datum alone and see which viewers' views change
(tests/test_conformance.py for every game, a game's own property tests)."""

from __future__ import annotations

import copy
from collections.abc import Iterator
from typing import Any


def leaves(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    if isinstance(value, dict):
        for key, sub in value.items():
            yield from leaves(sub, (*path, key))
    elif isinstance(value, list):
        for i, sub in enumerate(value):
            yield from leaves(sub, (*path, i))
    elif path:
        yield path


def changed(data: Any, path: tuple[Any, ...]) -> Any:
    out = copy.deepcopy(data)
    node = out
    for key in path[:-1]:
        node = node[key]
    old = node[path[-1]]
    if isinstance(old, bool):
        new: Any = not old
    elif isinstance(old, int | float):
        new = old + 1009
    elif isinstance(old, str):
        new = old + "~changed"
    else:
        new = "changed"
    node[path[-1]] = new
    return out
