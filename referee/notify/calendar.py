"""iCalendar feeds of a match's deadlines (issue 14): one public feed per match,
one private feed per seat.

Both are built from a view (:func:`referee.views.view_for`), never from stored
rows, so a feed shows exactly what its reader may see on the match's pages: the
public feed from the public view, a seat's feed from that seat's view. A feed
never holds a private link: its events link to the public match page only.

A seat's feed is reached without its private link (calendar apps copy the
feed's address to their servers): its address holds :func:`calendar_key`, a
digest of the seat link's hash, which changes when the host re-issues the link.

The text is built with the ``icalendar`` package, which escapes it (commas,
semicolons, backslashes and new lines in names are data, not syntax).
"""

from __future__ import annotations

import hashlib
import hmac
from datetime import UTC, datetime, timedelta
from typing import Any

from icalendar import Alarm, Calendar, Event, vDuration, vText

PRODID = "-//referee//play-by-post deadlines//EN"
KEY_MESSAGE = b"referee seat calendar"
KEY_LENGTH = 32  # hex digits: 128 bits
ALARM_BEFORE = timedelta(hours=2)
# how often calendar apps are asked to fetch the feed again (a deadline may move)
REFRESH = timedelta(hours=1)


def calendar_key(token_hash: str) -> str:
    """The key in a seat feed's address: an HMAC of a fixed message under the seat
    link's stored hash. It reveals nothing of the link (the hash is a secret the
    server alone holds), and changes when the link is re-issued, so an old feed
    address stops working with the old link."""
    mac = hmac.new(bytes.fromhex(token_hash), KEY_MESSAGE, hashlib.sha256)
    return mac.hexdigest()[:KEY_LENGTH]


def key_matches(key: str, token_hash: str) -> bool:
    """Whether ``key`` is the seat's current calendar key (in constant time)."""
    return hmac.compare_digest(key.encode("utf-8"), calendar_key(token_hash).encode("ascii"))


def match_calendar(view: dict[str, Any], match_url: str, now: datetime) -> bytes:
    """The public feed: one event per round with a deadline, from the public view."""
    return _calendar(view, None, match_url, now)


def seat_calendar(view: dict[str, Any], seat: int, match_url: str, now: datetime) -> bytes:
    """A seat's feed, from ``Viewer.of_seat(seat)``'s view: one event per round
    with a deadline in which the seat acts; on the open round, an alarm
    :data:`ALARM_BEFORE` the deadline while the seat has not sent its order."""
    if view["viewer"].get("seat") != seat:
        raise ValueError(f"a seat feed is built from seat {seat}'s own view")
    return _calendar(view, seat, match_url, now)


def _calendar(view: dict[str, Any], seat: int | None, match_url: str, now: datetime) -> bytes:
    names = {int(p["seat"]): str(p["name"]) for p in view["players"]}
    title = str(view["name"]) if seat is None else f"{view['name']} — {names.get(seat, seat)}"
    cal = Calendar()
    cal.add("prodid", PRODID)
    cal.add("version", "2.0")
    cal.add("calscale", "GREGORIAN")
    # vText by hand: icalendar types neither NAME (RFC 7986) nor X- properties as
    # text, and would write them unescaped
    cal.add("name", vText(title))
    cal.add("x-wr-calname", vText(title))
    cal.add("x-published-ttl", vDuration(REFRESH))
    cal.add("refresh-interval", REFRESH, parameters={"VALUE": "DURATION"})
    stamp = now.astimezone(UTC).replace(microsecond=0)
    for rnd in view["rounds"]:
        if rnd.get("deadline") is None or rnd["status"] == "pending":
            continue
        if seat is not None and seat not in rnd["acting"]:
            continue
        cal.add_component(_event(view, rnd, seat, match_url, stamp))
    data: bytes = cal.to_ical()
    return data


def _when(iso: str) -> datetime:
    """A view's ISO time (``Z`` for UTC) as an aware datetime in whole seconds."""
    value = datetime.fromisoformat(iso.replace("Z", "+00:00"))
    return value.astimezone(UTC).replace(microsecond=0)


def _words(when: datetime) -> str:
    return when.strftime("%Y-%m-%d %H:%M UTC")


def event_uid(match_id: str, number: int, seat: int | None) -> str:
    """Stable per (match, round[, seat]): a calendar app updates the event it has
    instead of adding another when the deadline moves or the round closes."""
    who = "" if seat is None else f"-seat-{seat}"
    return f"round-{number}{who}.{match_id}@referee"


def sequence(rnd: dict[str, Any]) -> int:
    """The event's revision (RFC 5545: it only ever increases): twice the number
    of times the round's deadline moved (the host, a resume), plus one once the
    round has closed."""
    return 2 * int(rnd.get("deadline_changes", 0)) + (1 if rnd["status"] == "closed" else 0)


def _event(
    view: dict[str, Any], rnd: dict[str, Any], seat: int | None, match_url: str, stamp: datetime
) -> Event:
    deadline = _when(rnd["deadline"])
    closed = rnd["status"] == "closed"
    event = Event()
    event.add("uid", event_uid(str(view["id"]), int(rnd["number"]), seat))
    event.add("dtstamp", stamp)
    event.add("sequence", sequence(rnd))
    event.add("dtstart", deadline)
    event.add("dtend", deadline)
    event.add("transp", "TRANSPARENT")  # a deadline does not make anyone busy
    verb = "closed" if closed else "closes"
    event.add("summary", f"{view['name']}: {rnd['title']} {verb}")
    event.add("url", match_url)
    event.add("description", _description(view, rnd, seat, match_url))
    sent = seat is not None and seat in rnd.get("submitted", ())
    if seat is not None and rnd["status"] == "open" and not sent:
        alarm = Alarm()
        alarm.add("action", "DISPLAY")
        alarm.add("trigger", -ALARM_BEFORE)
        alarm.add("description", f"{view['name']}: send your order for {rnd['title']}")
        event.add_component(alarm)
    return event


def _description(
    view: dict[str, Any], rnd: dict[str, Any], seat: int | None, match_url: str
) -> str:
    """Plain words: what the deadline asks for, or when the round closed."""
    lines: list[str] = []
    submitted = rnd.get("submitted", ())
    if rnd["status"] == "closed":
        closed_at = rnd.get("closed_at")
        when = f" at {_words(_when(closed_at))}" if closed_at else ""
        lines.append(f"{rnd['title']} closed{when}.")
        if rnd.get("head"):  # issue 27: the calendar keeps a copy too (docs/verify.md)
            lines.append(f"Chain head after it, to keep: {rnd['number']}:{rnd['head']}")
        for fix in rnd.get("corrections") or ():
            lines.append(f"Its result was corrected; chain head: {rnd['number']}:{fix['head']}")
    elif seat is None:
        lines.append(
            f"Players send their orders before this ({len(submitted)} of "
            f"{len(rnd['acting'])} sent so far)."
        )
    else:
        lines.append("Send your order before this.")
        if seat in submitted:
            lines.append("You have sent an order; you may replace it until the round closes.")
        else:
            lines.append("You have not sent an order yet.")
    if rnd["status"] != "closed" and view.get("paused"):
        lines.append("The match is paused: the host may move this deadline.")
    lines.append(f"Match page: {match_url}")
    return "\n".join(lines)
