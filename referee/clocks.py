"""A clock per seat (issue 24), as Board Game Arena plays turn-based games.

Pure: plain data in and out, no Flask, SQL or click. The service stores what
these functions return (``Seat.clock_bank``, ``Round.clocks``) and calls them
at each change; views and pages read :func:`round_clocks`.

A match with the setting ``clock: {"bank_minutes": B, "add_minutes": A}`` gives
each seat a time bank of B minutes. Each step a seat acts in adds A minutes to
its bank, and the seat's clock runs from the step's opening until its first
order of the step (an order replaced later costs nothing more: replacing is
sealed, so it may not show anywhere, a clock included). A seat whose clock runs
out before it sends gets the default of that step, as a missed deadline does.
Every acting seat spends its own bank, so simultaneous steps work the same way.

The step closes when every acting seat has sent or run out of time (the
latest time a seat still to send runs out), or at the step's fixed deadline
(``deadline_hours``) if that comes first; with ``close_early`` a step in which
every acting seat has sent closes at once, as without a clock. A paused match
stops every clock; resuming moves each running clock's end by the time paused.

The round's clocks are stored as ``{"fixed": ISO time | null, "started": ISO
time, "seats": {"N":
{"start": seconds, "ends": ISO time, "left": seconds | null}}}``: ``start`` is
the seat's bank at the opening with the step's added time, ``ends`` when it runs
out while the clock runs, and ``left`` what was left at its first order (null
until then; set for every acting seat once the step has closed).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from referee.errors import Problem

# the longest bank and added time a host may give (30 days and 7 days)
MAX_BANK_MINUTES = 30 * 24 * 60
MAX_ADD_MINUTES = 7 * 24 * 60

# speed profiles the create page offers (and their names on pages)
PROFILES: dict[str, dict[str, int]] = {
    "live": {"bank_minutes": 5, "add_minutes": 1},
    "post": {"bank_minutes": 2 * 24 * 60, "add_minutes": 12 * 60},
}
PROFILE_NAMES = {"live": "Live", "post": "By post"}


@dataclass(frozen=True)
class Clock:
    """A match's clock setting, in seconds."""

    bank: float
    add: float

    @classmethod
    def of(cls, setting: Mapping[str, Any] | None) -> Clock | None:
        """The clock of a match's checked ``clock`` setting (None: no clock)."""
        if not setting:
            return None
        return cls(float(setting["bank_minutes"]) * 60, float(setting["add_minutes"]) * 60)


def _minutes(value: object) -> float | None:
    """A number of minutes as given (None: not a number)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    if value != value or value in (float("inf"), float("-inf")):  # NaN, infinities
        return None
    return value


def check_clock(value: object) -> tuple[dict[str, int | float] | None, list[Problem]]:
    """The ``clock`` setting checked: ``null`` (no clock) or ``{"bank_minutes":
    B, "add_minutes": A}`` with 0 <= B <= 30 days, 0 <= A <= 7 days and B + A > 0.
    Every problem is named, each with the code ``settings/bad_clock``."""
    if value is None:
        return None, []

    def bad(message: str) -> tuple[None, list[Problem]]:
        return None, [Problem("settings/bad_clock", message, "clock")]

    if not isinstance(value, Mapping):
        return bad(
            "the clock must be null (no clock) or an object "
            f'{{"bank_minutes": ..., "add_minutes": ...}}, not {str(value)[:40]!r}'
        )
    problems: list[Problem] = []
    unknown = sorted(str(k)[:40] for k in value if k not in ("bank_minutes", "add_minutes"))
    if unknown:
        problems.append(
            Problem(
                "settings/bad_clock",
                f"the clock has no setting {', '.join(repr(k) for k in unknown)} "
                "(it has bank_minutes and add_minutes)",
                "clock",
            )
        )
    limits = {"bank_minutes": MAX_BANK_MINUTES, "add_minutes": MAX_ADD_MINUTES}
    out: dict[str, int | float] = {}
    for key, most in limits.items():
        if key not in value:
            problems.append(Problem("settings/bad_clock", f"the clock needs '{key}'", "clock"))
            continue
        minutes = _minutes(value[key])
        if minutes is None or not 0 <= minutes <= most:
            problems.append(
                Problem(
                    "settings/bad_clock",
                    f"the clock's {key} must be a number of minutes from 0 to {most}, "
                    f"not {str(value[key])[:40]!r}",
                    "clock",
                )
            )
        else:
            out[key] = minutes
    if not problems and out["bank_minutes"] + out["add_minutes"] <= 0:
        problems.append(
            Problem(
                "settings/bad_clock",
                "a clock needs some time: bank_minutes or add_minutes above 0",
                "clock",
            )
        )
    return (None, problems) if problems else (out, [])


def _iso(value: datetime) -> str:
    return value.isoformat()


def _time(value: str) -> datetime:
    return datetime.fromisoformat(value)


def start(
    clock: Clock,
    banks: Mapping[int, float | None],
    acting: Iterable[int],
    opened_at: datetime,
    fixed: datetime | None,
) -> dict[str, Any]:
    """A new step's clocks: each acting seat's bank (``banks``, seconds; None:
    the clock's full bank) plus the step's added time, running from ``opened_at``."""
    seats: dict[str, Any] = {}
    for seat in acting:
        bank = banks.get(seat)
        begin = (clock.bank if bank is None else bank) + clock.add
        seats[str(seat)] = {
            "start": begin,
            "ends": _iso(opened_at + timedelta(seconds=begin)),
            "left": None,
        }
    return {
        "fixed": _iso(fixed) if fixed is not None else None,
        "started": _iso(opened_at),
        "seats": seats,
    }


def clock_time(clocks: Mapping[str, Any], paused_at: datetime | None, now: datetime) -> datetime:
    """The time the step's clocks show at ``now``: ``now`` while they run; when
    the match is paused, the pause's start (or the step's opening, for a step
    opened during the pause)."""
    if paused_at is None:
        return now
    return max(paused_at, _time(clocks["started"]))


def fixed_of(clocks: Mapping[str, Any]) -> datetime | None:
    fixed = clocks.get("fixed")
    return _time(fixed) if fixed else None


def deadline(clocks: Mapping[str, Any]) -> datetime | None:
    """The step's deadline: the earlier of its fixed deadline and the latest
    time a seat still to send runs out (the fixed one alone once every acting
    seat has sent)."""
    fixed = fixed_of(clocks)
    running = [_time(c["ends"]) for c in clocks["seats"].values() if c["left"] is None]
    if not running:
        return fixed
    latest = max(running)
    return latest if fixed is None else min(fixed, latest)


def out_of_time(clocks: Mapping[str, Any], seat: int, now: datetime) -> bool:
    """Whether ``seat``'s clock ran out at ``now`` (the time the clock shows:
    when paused, the pause's start) before its first order of the step."""
    mine = clocks["seats"].get(str(seat))
    return mine is not None and mine["left"] is None and _time(mine["ends"]) <= now


def sent(clocks: Mapping[str, Any], seat: int, now: datetime) -> dict[str, Any]:
    """The clocks once ``seat`` has sent its order at ``now`` (the clock's time):
    its clock stops at its first order; a later one changes nothing."""
    mine = clocks["seats"].get(str(seat))
    if mine is None or mine["left"] is not None:
        return dict(clocks)
    left = max(0.0, (_time(mine["ends"]) - now).total_seconds())
    seats = {**clocks["seats"], str(seat): {**mine, "left": left}}
    return {**clocks, "seats": seats}


def closed(clocks: Mapping[str, Any], now: datetime) -> dict[str, Any]:
    """The clocks of a step closed at ``now`` (the clock's time): every acting
    seat's ``left`` (0 for one that ran out)."""
    seats = {}
    for seat, mine in clocks["seats"].items():
        left = mine["left"]
        if left is None:
            left = max(0.0, (_time(mine["ends"]) - now).total_seconds())
        seats[seat] = {**mine, "left": left}
    return {**clocks, "seats": seats}


def banks_after(clocks: Mapping[str, Any]) -> dict[int, float]:
    """Each acting seat's bank after its closed step (:func:`closed`)."""
    return {int(seat): float(mine["left"]) for seat, mine in clocks["seats"].items()}


def moved(clocks: Mapping[str, Any], by: timedelta) -> dict[str, Any]:
    """The clocks after a pause of ``by``: the fixed deadline and every running
    clock's end move by it."""
    fixed = fixed_of(clocks)
    seats = {
        seat: ({**mine, "ends": _iso(_time(mine["ends"]) + by)} if mine["left"] is None else mine)
        for seat, mine in clocks["seats"].items()
    }
    return {
        "fixed": _iso(fixed + by) if fixed is not None else None,
        "started": _iso(_time(clocks["started"]) + by),
        "seats": seats,
    }


def with_fixed(clocks: Mapping[str, Any], fixed: datetime | None) -> dict[str, Any]:
    """The clocks with another fixed deadline (the host moved it)."""
    return {**clocks, "fixed": _iso(fixed) if fixed is not None else None}


def round_clocks(
    clocks: Mapping[str, Any] | None, status: str, paused_at: datetime | None
) -> dict[str, dict[str, Any]] | None:
    """A round's clocks as every viewer sees them (public, like the deadline),
    by seat: ``start`` (seconds at the opening), ``runs_out_at`` (while the
    seat's clock runs: an ISO time; pages count down to it) and ``left``
    (seconds, once the clock stopped: at the seat's first order, at the close,
    or while the match is paused). Nothing here depends on the time of asking,
    so a page, a version and the pulse stay the same between changes."""
    if not clocks:
        return None
    out: dict[str, dict[str, Any]] = {}
    for seat, mine in sorted(clocks["seats"].items(), key=lambda kv: int(kv[0])):
        left = mine["left"]
        runs_out_at = None
        if left is None and status == "open":
            if paused_at is None:
                runs_out_at = mine["ends"].replace("+00:00", "Z")
            else:
                stopped = clock_time(clocks, paused_at, paused_at)
                left = max(0.0, (_time(mine["ends"]) - stopped).total_seconds())
        out[seat] = {
            "start": round(float(mine["start"]), 3),
            "runs_out_at": runs_out_at,
            "left": None if left is None else round(float(left), 3),
        }
    return out


def estimate(
    steps: Iterable[Iterable[int]],
    clock: Clock | None,
    fixed_seconds: float | None,
    close_early: bool = True,
) -> float | None:
    """The longest a match of these steps (each its acting seats) can last, in
    seconds: each step lasts at most its fixed deadline, and with a clock (and
    steps that close once every acting seat has sent) every seat spends at most
    its bank and its added times; None when nothing bounds it."""
    acting = [tuple(s) for s in steps]
    bounds = []
    if fixed_seconds:
        bounds.append(len(acting) * fixed_seconds)
    if clock is not None and close_early:
        seats = {seat for step in acting for seat in step}
        turns = sum(len(step) for step in acting)
        bounds.append(len(seats) * clock.bank + turns * clock.add)
    return min(bounds) if bounds else None
