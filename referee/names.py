"""Players' names within a match: one line each, something visible, and no two
that look alike.

Pure (no Flask, SQL or click): the rules engine uses it when it reads a player
list (``parse_players``), and so do the service and ``referee resolve``.

Two names *look alike* when their :func:`skeleton` is the same. The skeleton
follows Unicode's confusable-detection recipe (UTS #39) with case folded too:

1. NFKC: compatibility forms become their plain letters (fullwidth A U+FF21
   is "A", the ligature U+FB01 is "fi", a no-break space is a space);
2. invisible characters are dropped: format characters (category Cf: zero
   width space and joiners, soft hyphen, direction marks...) and every other
   Default_Ignorable_Code_Point (variation selectors, the combining grapheme
   joiner, Hangul fillers...), and the blank braille pattern U+2800;
3. each character becomes the representative of its set of look-alikes in
   Unicode's confusables data (``confusables.txt``, as shipped by the
   ``confusable-homoglyphs`` package): Cyrillic A (U+0410) and Greek Alpha
   (U+0391) become Latin "A", Greek omicron (U+03BF) becomes "o", the digit
   "0" becomes "O", "1" and "I" become "l", "m" becomes "rn";
4. case is folded, and step 3 applied again (so "O", "0", "o" are alike);
5. runs of white space become one space, and the ends are stripped.

A name whose skeleton is empty (nothing but spaces and invisible characters)
is refused as empty.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from functools import lru_cache

from referee.text import ONE_LINE_RULE, line_fault

# Default_Ignorable_Code_Point (Unicode's DerivedCoreProperties.txt), plus
# U+2800 BRAILLE PATTERN BLANK, which shows as nothing too
_IGNORABLE = re.compile(
    "[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e"
    "\u2060-\u206f\u2800\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff0-\ufff8"
    "\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0000-\U000e0fff]"
)
_SPACES = re.compile(r"\s+")
# the data wraps right-to-left characters in direction marks for display
_MARKS = str.maketrans("", "", "\u200e\u200f")


@lru_cache(maxsize=1)
def _representatives() -> dict[str, str]:
    """Each character that has look-alikes -> the representative of its set.

    The package's data links each character of ``confusables.txt`` with its
    prototype both ways, so every set is a star: the prototype is linked to
    all its look-alikes, each look-alike to the prototype alone. The
    representative is the prototype; for a set of two (one link, no telling
    which end is the prototype) it is the ASCII one, else the smaller."""
    from confusable_homoglyphs.confusables import confusables_data

    links: dict[str, set[str]] = {}
    for key, entries in confusables_data.items():
        a = key.translate(_MARKS)
        for entry in entries:
            b = entry["c"].translate(_MARKS)
            if a and b and a != b:
                links.setdefault(a, set()).add(b)
                links.setdefault(b, set()).add(a)
    out: dict[str, str] = {}
    for node, near in links.items():
        if len(node) != 1:
            continue  # a sequence: names are mapped character by character
        if len(near) > 1:
            continue  # a prototype stands for itself
        (other,) = near
        if len(links[other]) > 1:
            out[node] = other  # a look-alike of a prototype
        else:
            rep = min(node, other, key=lambda s: (not s.isascii(), len(s), s))
            if rep != node:
                out[node] = rep
    return out


def _map(text: str, table: dict[str, str]) -> str:
    for _ in range(3):  # a representative may hold characters with their own
        mapped = "".join(table.get(c, c) for c in text)
        if mapped == text:
            break
        text = mapped
    return text


def _invisible(char: str) -> bool:
    return unicodedata.category(char) == "Cf" or _IGNORABLE.match(char) is not None


@lru_cache(maxsize=4096)
def skeleton(name: str) -> str:
    """What ``name`` looks like, for comparing names: two names with the same
    skeleton look alike (see the module's documentation)."""
    table = _representatives()
    text = unicodedata.normalize("NFKC", name)
    text = "".join(c for c in text if not _invisible(c))
    text = _map(unicodedata.normalize("NFD", text), table)
    text = _map(unicodedata.normalize("NFD", text.casefold()), table)
    return _SPACES.sub(" ", unicodedata.normalize("NFD", text)).strip()


def name_fault(name: str) -> str | None:
    """Why ``name`` cannot be a player's (or a match's) name, or None: a
    character no one-line name may hold, or nothing visible at all."""
    fault = line_fault(name)
    if fault is not None:
        return f"the name holds {fault}; {ONE_LINE_RULE}"
    if not skeleton(name):
        return "the name is empty once its spaces and invisible characters are left out"
    return None


def shown(name: str) -> str:
    """``name`` quoted for a message, its invisible characters written out
    (``"A<U+200B>na"``), so that two look-alike names can be told apart."""
    return '"' + "".join(f"<U+{ord(c):04X}>" if _invisible(c) else c for c in name) + '"'


def look_alikes(names: Sequence[tuple[int, str]]) -> list[tuple[tuple[int, str], tuple[int, str]]]:
    """Pairs of (seat, name) whose names look alike: each name that looks like
    an earlier one, paired with the first of them."""
    first: dict[str, tuple[int, str]] = {}
    pairs: list[tuple[tuple[int, str], tuple[int, str]]] = []
    for seat, name in names:
        key = skeleton(name)
        if key in first:
            pairs.append((first[key], (seat, name)))
        else:
            first[key] = (seat, name)
    return pairs


def names_fine(names: Sequence[str]) -> bool:
    """The fast check: every name is fine and no two look alike."""
    seen: set[str] = set()
    for name in names:
        if line_fault(name) is not None:
            return False
        key = skeleton(name)
        if not key or key in seen:
            return False
        seen.add(key)
    return True
