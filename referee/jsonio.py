"""Strict JSON reading shared by files, the API and forms.

Python's ``json`` silently keeps the last of two equal keys, accepts ``NaN``
and reads ``1e999`` as infinity; a referee must refuse all three (docs/contracts/<game>/FORMAT.md: a
JSON object that repeats a key, such as a card placed twice, is refused).

Arrays and objects may be nested at most :data:`MAX_DEPTH` deep. No document
of any game comes near (a backup of every game's finished match: 10), while
what reads a value after it may not go deep: the order schemas' validator
(jsonschema-rs) fails on a value about 255 deep, and Python's ``repr`` and
``json`` stop at the interpreter's recursion limit (issue 24: a 500 to an
order 300 deep).
"""

from __future__ import annotations

import json
import math
from typing import Any

from referee.errors import RuleError


class _DuplicateKey(ValueError):
    pass


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise _DuplicateKey(key)
        out[key] = value
    return out


def _constant(name: str) -> Any:
    raise ValueError(f"{name} is not allowed in JSON")


def _float(text: str) -> float:
    """A JSON number with a fraction or exponent; one too big for a float (``1e999``)
    would silently become infinity."""
    value = float(text)
    if math.isinf(value):
        raise ValueError(f"the number {text[:40]} is too large")
    return value


MAX_DEPTH = 64


def _too_deep(value: Any) -> bool:
    """Whether arrays and objects in ``value`` nest more than :data:`MAX_DEPTH` deep."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:  # no recursion: the value may be as deep as the parser allowed
        item, depth = stack.pop()
        if depth > MAX_DEPTH:
            return True
        children = (
            item.values() if isinstance(item, dict) else item if isinstance(item, list) else ()
        )
        stack.extend((sub, depth + 1) for sub in children if isinstance(sub, dict | list))
    return False


def _deep_refusal(what: str) -> RuleError:
    return RuleError.single(
        "json/invalid",
        f"{what} nests arrays and objects too deeply: at most {MAX_DEPTH} levels are read",
    )


def loads_strict(text: str | bytes, what: str = "the input") -> Any:
    """Parse JSON, raising a :class:`RuleError` (``json/...``) that says what is
    wrong; arrays and objects nested over :data:`MAX_DEPTH` deep are refused."""
    try:
        value = json.loads(
            text, object_pairs_hook=_pairs, parse_constant=_constant, parse_float=_float
        )
    except _DuplicateKey as exc:
        raise RuleError.single(
            "json/duplicate_key", f"{what}: the key '{exc.args[0]}' appears twice in one object"
        ) from None
    except json.JSONDecodeError as exc:
        raise RuleError.single(
            "json/invalid",
            f"{what} is not valid JSON: {exc.msg} at line {exc.lineno}, column {exc.colno}",
        ) from None
    except UnicodeDecodeError:
        raise RuleError.single("json/invalid", f"{what} is not UTF-8 text") from None
    except RecursionError:
        raise _deep_refusal(what) from None
    except ValueError as exc:
        raise RuleError.single("json/invalid", f"{what} is not valid JSON: {exc}") from None
    # a value with fewer brackets than the limit cannot be nested past it
    if isinstance(text, bytes):
        brackets = text.count(b"[") + text.count(b"{")
    else:
        brackets = text.count("[") + text.count("{")
    if brackets > MAX_DEPTH and _too_deep(value):
        raise _deep_refusal(what)
    return value
