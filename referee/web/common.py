"""Helpers the blueprints share: error statuses, token look-up, deadlines."""

from __future__ import annotations

import re
from datetime import UTC, datetime

from referee.errors import RuleError

# HTTP status of a refusal, by its code (anything else is 422: the input breaks a rule)
STATUS_BY_CODE = {
    "auth/unauthorized": 401,
    "auth/forbidden": 403,
    "match/not_found": 404,
    "picture/not_yet": 404,
    "round/closed": 409,
    "round/already_open": 409,
    "match/finished": 409,
    "match/not_finished": 409,
    "match/paused": 409,
    "match/not_paused": 409,
}


def status_for(exc: RuleError) -> int:
    return max(STATUS_BY_CODE.get(p.code, 422) for p in exc.problems)


def parse_deadline(raw: object) -> datetime:
    """An ISO-8601 date-time with a time zone (``Z`` accepted), in UTC."""
    if not isinstance(raw, str):
        raise RuleError.single(
            "round/bad_deadline", f"a deadline is an ISO-8601 date-time string, not {raw!r}"
        )
    try:
        value = datetime.fromisoformat(raw.strip().replace("Z", "+00:00").replace("z", "+00:00"))
        utc = value.astimezone(UTC)
    except (ValueError, OverflowError):
        raise RuleError.single(
            "round/bad_deadline", f"'{raw}' is not an ISO-8601 date-time such as 2026-12-01T18:00Z"
        ) from None
    if value.tzinfo is None:
        raise RuleError.single(
            "round/bad_deadline", f"the deadline '{raw}' needs a time zone, e.g. 2026-12-01T18:00Z"
        )
    return utc


# ---- text that can be stored and shown --------------------------------------

# what XML 1.0 calls a character: no control characters but tab, LF and CR, no
# lone surrogates, no U+FFFE/U+FFFF. PostgreSQL cannot store NUL in text, UTF-8
# cannot encode a lone surrogate, and an SVG picture with any of them is not XML.
_NOT_TEXT = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def _where(path: tuple[object, ...]) -> str:
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out or "the value"


def not_text_at(value: object) -> tuple[str, str] | None:
    """The first string (key or value) in ``value`` holding a character that is
    not text: (where, the character's code point), or None when all is text."""
    stack: list[tuple[tuple[object, ...], object]] = [((), value)]
    while stack:  # no recursion: a deeply nested body cannot exhaust the stack
        path, item = stack.pop()
        if isinstance(item, str):
            found = _NOT_TEXT.search(item)
            if found:
                return _where(path), f"U+{ord(found.group()):04X}"
        elif isinstance(item, dict):
            for key, sub in item.items():
                stack.append(((*path, "(a key)"), key))
                stack.append(((*path, key), sub))
        elif isinstance(item, list | tuple):
            stack.extend(((*path, i), sub) for i, sub in enumerate(item))
    return None


def check_text(value: object, what: str, code: str = "request/bad_text") -> None:
    """Refuse (422 ``code``) input with a character that is not text."""
    found = not_text_at(value)
    if found is not None:
        where, char = found
        raise RuleError.single(
            code,
            f"{what}: {where} holds the character {char}, a control character or a code "
            "point that is not text; send plain text (tabs and new lines are fine)",
            where,
        )
