"""Helpers the API and the pages share (and the app factory: no import of
:mod:`referee.web` here): error statuses, the deadline parser, the forum post's
formats, plain text, absolute addresses. Helpers of HTML pages only are in
:mod:`referee.web.pages`."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Any

from flask import current_app, request, url_for

from referee.errors import RuleError
from referee.text import check_text, not_text_at

__all__ = [
    "POST_FORMATS",
    "base_url",
    "check_post_format",
    "check_text",
    "external_url",
    "not_text_at",
    "parse_deadline",
    "status_for",
]

# HTTP status of a refusal, by its code (anything else is 422: the input breaks a rule)
STATUS_BY_CODE = {
    "auth/unauthorized": 401,
    "auth/forbidden": 403,
    "match/not_found": 404,
    "picture/not_yet": 404,
    "picture/unknown": 404,
    "round/closed": 409,
    "round/already_open": 409,
    "step/not_acting": 409,  # the seat acts in another step, not this one
    "round/out_of_time": 409,  # the seat's clock ran out in this step (issue 24)
    "match/finished": 409,
    "match/not_finished": 409,
    "match/paused": 409,
    "match/not_paused": 409,
    # seasons (issue 15): no such season; not the caller's to do; a step out of turn
    "season/not_found": 404,
    "season/not_candidate": 403,
    "season/episode_open": 409,
    "season/match_not_finished": 409,
    "season/recorded": 409,
    "season/not_recorded": 409,
    "season/episode_over": 409,
    "season/already_chosen": 409,
    "season/no_opponent": 409,
    "season/played_here": 409,
    # sign-ups (issue 23, item 7)
    "season/signups_open": 409,
    "season/signups_closed": 409,
    "season/full": 409,
    "season/started": 409,
    "season/changed": 409,  # what a step read changed before it locked the season
}


def status_for(exc: RuleError) -> int:
    return max(STATUS_BY_CODE.get(p.code, 422) for p in exc.problems)


def parse_deadline(raw: object, *, from_form: bool = False) -> datetime:
    """A deadline, in UTC: an ISO-8601 date and time (``Z`` or ``z`` for UTC, a
    space accepted instead of ``T``).

    From the API (``from_form=False``) it must name its time zone. From the
    host's form (``from_form=True``) a time without a zone is read as UTC, and a
    problem names the form's ``deadline`` field. Either way text that is not a
    date and time, or one whose zone puts it past year 9999 or before year 1 in
    UTC, is refused with ``round/bad_deadline``.
    """
    field = "deadline" if from_form else None
    if not isinstance(raw, str):
        raise RuleError.single(
            "round/bad_deadline",
            f"a deadline is an ISO-8601 date-time string, not {raw!r}",
            field,
        )
    try:
        value = datetime.fromisoformat(re.sub(r"[Zz]$", "+00:00", raw.strip()))
        if value.tzinfo is None and not from_form:
            raise RuleError.single(
                "round/bad_deadline",
                f"the deadline '{raw}' needs a time zone, e.g. 2026-12-01T18:00Z",
            )
        # OverflowError: a zone that moves it past year 9999 or before year 1
        return value.replace(tzinfo=value.tzinfo or UTC).astimezone(UTC)
    except (ValueError, OverflowError):
        what = "a date and time" if from_form else "an ISO-8601 date-time"
        raise RuleError.single(
            "round/bad_deadline", f"'{raw}' is not {what} such as 2026-12-01T18:00Z", field
        ) from None


# ---- the forum post ----------------------------------------------------------

POST_FORMATS = ("markdown", "bbcode")


def check_post_format(fmt: str, field: str | None = None) -> None:
    """Refuse a forum post format other than :data:`POST_FORMATS`."""
    if fmt not in POST_FORMATS:
        raise RuleError.single(
            "post/bad_format", f"format must be markdown or bbcode, not '{fmt}'", field
        )


# ---- absolute addresses ------------------------------------------------------


def base_url() -> str:
    """The server's public address, ending in ``/``: ``PUBLIC_BASE_URL`` when
    configured (e.g. ``https://referee.example.org``), else the request's own
    (whose ``Host`` header the client chooses: set ``PUBLIC_BASE_URL``, or
    Flask's ``TRUSTED_HOSTS``, on a public server)."""
    configured = current_app.config.get("PUBLIC_BASE_URL")
    if configured:
        return str(configured).rstrip("/") + "/"
    return request.url_root


def external_url(endpoint: str, **values: Any) -> str:
    """An absolute address of ``endpoint`` for links people copy (secret links,
    forum posts), built on :func:`base_url`."""
    if current_app.config.get("PUBLIC_BASE_URL"):
        return base_url().rstrip("/") + url_for(endpoint, **values)
    return url_for(endpoint, _external=True, **values)
