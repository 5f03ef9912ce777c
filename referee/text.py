"""Plain text only: names, maps and bodies must not carry control characters,
NUL or lone surrogates (databases refuse some of them, SVG/XML cannot hold
them). Used by the web layer on every request and by the service on what it
stores, so no caller can slip one in."""

from __future__ import annotations

import re

from referee.errors import RuleError

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
