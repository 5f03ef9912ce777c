"""Plain text only: names, maps and bodies must not carry control characters,
NUL or lone surrogates (databases refuse some of them, SVG/XML cannot hold
them). Used by the web layer on every request and by the service on what it
stores, so no caller can slip one in.

Names are stricter: one line of text (:func:`line_fault`),
without tabs, line breaks or bidirectional-text controls, which maps and other
bodies may hold."""

from __future__ import annotations

import re
import unicodedata

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


# One line of text (a match's, a player's or a map's name) holds none of these
# (a regular-expression class): every control character (tab, LF and CR
# included, C1 controls such as U+0085 too), the line and paragraph separators
# U+2028/U+2029, the bidirectional-text controls (they reorder the text
# around them on screen): the embedding, override and isolate controls
# U+202A-U+202E and U+2066-U+2069 and the direction marks U+200E, U+200F
# (left-to-right, right-to-left) and U+061C (Arabic letter mark), and what
# check_text refuses anyway (lone surrogates, U+FFFE/U+FFFF).
BIDI_CONTROLS = "\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"
NOT_ONE_LINE = f"\x00-\x1f\x7f-\x9f\u2028\u2029{BIDI_CONTROLS}\ud800-\udfff\ufffe\uffff"
_BIDI = re.compile(f"[{BIDI_CONTROLS}]")
_NOT_ONE_LINE = re.compile(f"[{NOT_ONE_LINE}]")


def describe_char(char: str) -> str:
    """One character, for a message saying why a name or an id refuses it,
    e.g. "a line break (U+000A)"."""
    if char == " ":
        return "a space"
    if char in "\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029":
        return f"a line break (U+{ord(char):04X})"
    if char == "\t":
        return "a tab (U+0009)"
    if char <= "\x1f" or "\x7f" <= char <= "\x9f":
        return f"a control character (U+{ord(char):04X})"
    if _BIDI.fullmatch(char):
        return f"a bidirectional-text control (U+{ord(char):04X})"
    if char.isprintable():
        return f"the character '{char}' (U+{ord(char):04X})"
    return f"the invisible character U+{ord(char):04X}"


def line_fault(text: str) -> str | None:
    """The first character of ``text`` that one line of text (a name) may not
    hold, described for a message ("a line break (U+000A)"), or None."""
    found = _NOT_ONE_LINE.search(text)
    return describe_char(found.group()) if found is not None else None


ONE_LINE_RULE = (
    "a name is one line of plain text: no control characters, tabs, line breaks "
    "or bidirectional-text controls"
)


def typed(text: str, limit: int = 40) -> str:
    """What a person typed, quoted for a message in their words: “Joker”, at
    most ``limit`` characters (then "…"), every control, format or
    bidirectional character written out (``<U+202E>``), so that the message
    shows what was sent and cannot be turned by it. Pages escape it as they
    escape every text."""
    cut = text if len(text) <= limit else text[: limit - 1] + "…"
    shown = "".join(f"<U+{ord(c):04X}>" if unicodedata.category(c)[0] == "C" else c for c in cut)
    return f"“{shown}”"
