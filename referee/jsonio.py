"""Strict JSON reading shared by files, the API and forms.

Python's ``json`` silently keeps the last of two equal keys and accepts
``NaN``; a referee must refuse both (FORMAT.md: a JSON object that repeats a
key, such as a card placed twice, is refused).
"""

from __future__ import annotations

import json
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


def loads_strict(text: str | bytes, what: str = "the input") -> Any:
    """Parse JSON, raising a :class:`RuleError` (``json/...``) that says what is wrong."""
    try:
        return json.loads(text, object_pairs_hook=_pairs, parse_constant=_constant)
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
