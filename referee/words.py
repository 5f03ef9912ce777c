"""Numbers in people's words, one function for every page, post and e-mail
(issue 23: "1 garnets" was printed wherever a count was): ``garnets(1)`` is
"1 garnet", ``garnets(3)`` "3 garnets", ``garnets(2, signed=True)`` "+2
garnets". Templates call it as the ``garnets`` filter (``{{ n|garnets }}``);
``duration(hours)`` says a step's deadline as a person would ("10 minutes",
"48 hours", "1 hour 30 minutes"), the ``duration`` filter (issue 24: short steps)."""

from __future__ import annotations

MINUS = "\u2212"  # a true minus sign: reads better than a hyphen on pages and in pictures


def signed(number: int, minus: str = "-") -> str:
    """A number with its sign written: "+3", "0", "-3". ``minus``: the sign a
    format wants (:data:`MINUS` on pages and in pictures; posts, summaries and
    plain text keep the hyphen, the default)."""
    return f"+{number}" if number > 0 else (f"{minus}{-number}" if number < 0 else "0")


def counted(count: int, one: str, many: str | None = None, *, signed: bool = False) -> str:
    """``count`` and the noun that goes with it: ``one`` for 1 and -1, else
    ``many`` (``one`` + "s" when left out); ``signed`` writes a + before a gain."""
    noun = one if abs(count) == 1 else (many or f"{one}s")
    number = f"+{count}" if signed and count > 0 else str(count)
    return f"{number} {noun}"


def garnets(count: int, *, signed: bool = False) -> str:
    """A number of garnets in words: "1 garnet", "0 garnets", "+2 garnets"."""
    return counted(count, "garnet", signed=signed)


def span(seconds: float) -> str:
    """A length of time given in seconds, in words, as precise as it matters:
    "2 days 4 hours", "1 hour 30 minutes", "4 minutes 30 seconds" (seconds only
    under 10 minutes), "45 seconds" (issue 24: clocks and estimates)."""
    total = max(0, int(seconds))
    days, rest = divmod(total, 86400)
    hours, rest = divmod(rest, 3600)
    minutes, secs = divmod(rest, 60)
    if days:
        return f"{counted(days, 'day')} {counted(hours, 'hour')}" if hours else counted(days, "day")
    if hours:
        return (
            f"{counted(hours, 'hour')} {counted(minutes, 'minute')}"
            if minutes
            else counted(hours, "hour")
        )
    if minutes:
        if minutes < 10 and secs:
            return f"{counted(minutes, 'minute')} {counted(secs, 'second')}"
        return counted(minutes, "minute")
    return counted(secs, "second")


def duration(hours: float) -> str:
    """A length of time given in hours, in words: whole minutes under an hour
    ("10 minutes"), whole hours as hours ("48 hours", so a 2-day deadline reads
    as the host typed it in hours), else hours and minutes ("1 hour 30 minutes").
    Seconds are rounded to the nearest minute, and at least 1 minute is said."""
    minutes = max(1, round(float(hours) * 60))
    whole, rest = divmod(minutes, 60)
    if not whole:
        return counted(rest, "minute")
    if not rest:
        return counted(whole, "hour")
    return f"{counted(whole, 'hour')} {counted(rest, 'minute')}"
