"""iCalendar feeds of a match's deadlines (issue 14), for calendar apps to subscribe to.

- ``/matches/<match_id>/calendar.ics``: public, from the public view;
- ``/matches/<match_id>/seats/<seat>/calendar/<key>.ics``: one seat's deadlines,
  from that seat's view. ``key`` is :func:`referee.notify.calendar.calendar_key`
  of the seat link's hash, never the link itself: calendar apps copy a feed's
  address to their servers, and that address must not open the seat's page.
  Re-issuing the seat's link changes the key, so the old address then answers
  404. A wrong key, an unknown seat and an unknown match all get the very same
  404, so the answer tells a guesser nothing.

The feeds are built by :mod:`referee.notify.calendar`; :func:`feed_links` gives
the pages the addresses to show (``templates/notify/calendar_links.html``).
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, abort
from flask.typing import ResponseReturnValue

from referee.errors import RuleError
from referee.notify.calendar import calendar_key, key_matches, match_calendar, seat_calendar
from referee.ruleset import Viewer
from referee.service import MatchState
from referee.views import view_for
from referee.web import referee
from referee.web.common import external_url

bp = Blueprint("calendars", __name__)

MIMETYPE = "text/calendar"
NOT_FOUND = (
    "This calendar address does not open anything. If the host re-issued your link, "
    "the calendar's address changed too: copy the new one from your page."
)


def feed_links(state: MatchState, seat: int | None = None) -> dict[str, Any]:
    """What ``templates/notify/calendar_links.html`` shows: the feed's address
    (``url``, as the server's other links: https behind TLS), the same with
    ``webcal://`` (which opens a calendar app to subscribe) and whether it is a
    seat's (private) feed. ``seat`` None: the match's public feed."""
    match_id = state.match.id
    if seat is None:
        url = external_url("calendars.match_feed", match_id=match_id)
    else:
        row = next(s for s in state.seats if s.seat == seat)
        key = calendar_key(row.token_hash)
        url = external_url("calendars.seat_feed", match_id=match_id, seat=seat, key=key)
    return {"url": url, "webcal": webcal(url), "private": seat is not None}


def webcal(url: str) -> str:
    """``url`` with the ``webcal`` scheme, which calendar apps subscribe to."""
    scheme, sep, rest = url.partition("://")
    return f"webcal://{rest}" if sep and scheme in ("http", "https") else url


def _answer(body: bytes, cache: str, filename: str) -> Response:
    response = Response(body, mimetype=MIMETYPE)
    response.headers["Content-Type"] = f"{MIMETYPE}; charset=utf-8"
    response.headers["Cache-Control"] = cache
    response.headers["Content-Disposition"] = f'inline; filename="{filename}"'
    return response


@bp.get("/matches/<match_id>/calendar.ics")
def match_feed(match_id: str) -> ResponseReturnValue:
    """The public feed: every round's deadline, as on the public page. Kept by no
    shared cache without asking again (a deadline may move at any time)."""
    svc = referee()
    state = svc.state(match_id)
    view = view_for(state, Viewer.public())
    url = external_url("public.match_page", match_id=match_id)
    return _answer(match_calendar(view, url, svc.clock()), "no-cache", "match.ics")


@bp.get("/matches/<match_id>/seats/<int:seat>/calendar/<key>.ics")
def seat_feed(match_id: str, seat: int, key: str) -> ResponseReturnValue:
    """A seat's feed: the deadlines of the rounds it acts in, whether it has sent
    its order, and a reminder before the open round's deadline while it has not.
    Kept by no cache (it says what this seat has done)."""
    svc = referee()
    try:
        state = svc.state(match_id)
    except RuleError:
        abort(404, description=NOT_FOUND)
    row = next((s for s in state.seats if s.seat == seat), None)
    if row is None or not key_matches(key, row.token_hash):
        abort(404, description=NOT_FOUND)
    view = view_for(state, Viewer.of_seat(seat))
    url = external_url("public.match_page", match_id=match_id)
    body = seat_calendar(view, seat, url, svc.clock())
    return _answer(body, "no-store", f"seat-{seat}.ics")
