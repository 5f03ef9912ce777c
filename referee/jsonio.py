"""Strict JSON reading shared by files, the API and forms.

Python's ``json`` silently keeps the last of two equal keys, accepts ``NaN``
and reads ``1e999`` as infinity; a referee must refuse all three (docs/contracts/<game>/FORMAT.md: a
JSON object that repeats a key, such as a card placed twice, is refused).
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


def loads_strict(text: str | bytes, what: str = "the input") -> Any:
    """Parse JSON, raising a :class:`RuleError` (``json/...``) that says what is wrong."""
    try:
        return json.loads(
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
    except (ValueError, RecursionError) as exc:
        raise RuleError.single("json/invalid", f"{what} is not valid JSON: {exc}") from None
