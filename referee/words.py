"""Numbers in people's words, one function for every page, post and e-mail
(issue 23: "1 garnets" was printed wherever a count was): ``garnets(1)`` is
"1 garnet", ``garnets(3)`` "3 garnets", ``garnets(2, signed=True)`` "+2
garnets". Templates call it as the ``garnets`` filter (``{{ n|garnets }}``)."""

from __future__ import annotations


def counted(count: int, one: str, many: str | None = None, *, signed: bool = False) -> str:
    """``count`` and the noun that goes with it: ``one`` for 1 and -1, else
    ``many`` (``one`` + "s" when left out); ``signed`` writes a + before a gain."""
    noun = one if abs(count) == 1 else (many or f"{one}s")
    number = f"+{count}" if signed and count > 0 else str(count)
    return f"{number} {noun}"


def garnets(count: int, *, signed: bool = False) -> str:
    """A number of garnets in words: "1 garnet", "0 garnets", "+2 garnets"."""
    return counted(count, "garnet", signed=signed)
