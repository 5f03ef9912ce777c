"""What every SVG picture shares (the games' pictures and the season's garnet
chart): the font and inks, a generous guess of a text's width, user text made
fit for one SVG line and cut to its room, and the SVG elements every picture
opens with. Pure: no Flask, no SQL, no click; the output is a pure function of
the input.

User text goes through :func:`fit` (or :func:`clean`) before it is drawn, and
:func:`svg_text` escapes it for XML.
"""

from __future__ import annotations

import unicodedata
from xml.sax.saxutils import escape, quoteattr

from referee import words
from referee.markup import one_line
from referee.words import MINUS

FONT = "DejaVu Sans, Verdana, sans-serif"
INK = "#111827"
MUTED = "#4b5563"
ELLIPSIS = "\u2026"


def advance(char: str) -> float:
    """A generous guess of a character's width in ems (DejaVu Sans)."""
    if unicodedata.combining(char):
        return 0.0
    if unicodedata.east_asian_width(char) in ("W", "F"):
        return 1.05
    if char in "ijlI.,:;'|!()[] \u2060":
        return 0.4
    if char in "mwMW@%\u2026":
        return 1.05
    if char.isdigit():
        return 0.66
    if char.isascii():
        return 0.8 if char.isupper() else 0.64
    return 0.85


def clean(text: object) -> str:
    """User text fit for one SVG text line: no line break or control character
    (a space instead), no bidirectional-text control, no code point XML cannot
    hold, and at most two combining marks on one character (so that no stack of
    them climbs out of its row)."""
    out: list[str] = []
    marks = 0
    for char in one_line(text):
        if "\ud800" <= char <= "\udfff" or char in "\ufffe\uffff":
            continue
        if unicodedata.combining(char):
            marks += 1
            if marks > 2:
                continue
        else:
            marks = 0
        out.append(char)
    return "".join(out)


def fit(text: object, width: float, size: float, *, bold: bool = False) -> str:
    """``text`` (cleaned) cut to fit ``width`` pixels at font ``size``: the
    longest start that fits, then an ellipsis."""
    s = clean(text)
    scale = size * (1.1 if bold else 1.0)
    if text_width(s, size, bold=bold) <= width:
        return s
    room = width - advance(ELLIPSIS) * scale
    used = 0.0
    for i, char in enumerate(s):
        used += advance(char) * scale
        if used > room:
            return s[:i].rstrip() + ELLIPSIS
    return s  # pragma: no cover - the whole text fitted after all


def text_width(text: str, size: float, *, bold: bool = False) -> float:
    """A generous guess of ``text``'s width in pixels at font ``size``."""
    return sum(advance(c) for c in text) * size * (1.1 if bold else 1.0)


def wrap(text: str, width: float, size: float, *, sep: str = " ", indent: str = "") -> list[str]:
    """``text`` broken after each ``sep`` into lines of at most ``width`` pixels
    (a piece longer than a line gets a line of its own); lines after the first
    start with ``indent``."""
    lines: list[str] = []
    line = ""
    for piece in text.split(sep):
        candidate = f"{line}{sep}{piece}" if line else (indent + piece if lines else piece)
        if line and text_width(candidate, size) > width:
            lines.append(line + sep.rstrip())
            line = indent + piece
        else:
            line = candidate
    if line or not lines:
        lines.append(line)
    return lines


def signed(number: int) -> str:
    """A number with its sign written: ``+3``, ``0``, and a true minus sign (U+2212)."""
    return words.signed(number, MINUS)


def svg_text(x: float, y: float, text: str, size: float, extra: str = "") -> str:
    """One text element; ``text`` is escaped here (user text must already be fitted)."""
    return f'<text x="{x:.0f}" y="{y:.0f}" font-size="{size:g}"{extra}>{escape(text)}</text>'


def svg_open(width: int, height: int, label: str, css_class: str, data: str = "") -> list[str]:
    """A picture's first elements: the ``<svg>`` (its ``label`` for screen readers,
    ``data``: more attributes), its title and a white background."""
    return [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {width} {height}" '
        f'width="{width}" height="{height}" role="img" aria-label={quoteattr(label)} '
        f'font-family="{FONT}" class="{css_class}"{data}>',
        f"<title>{escape(label)}</title>",
        f'<rect width="{width}" height="{height}" fill="#ffffff"/>',
    ]


def svg_clip(clip_id: str, x: float, y: float, width: float, height: float) -> str:
    """A clip path of one rectangle (a column's room), for ``<defs>``."""
    return (
        f'<clipPath id="{clip_id}"><rect x="{x:.0f}" y="{y:.0f}" '
        f'width="{width:.0f}" height="{height:.0f}"/></clipPath>'
    )
