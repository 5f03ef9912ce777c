"""Rate limiting of failed token attempts (Flask-Limiter).

Secret links and API tokens are 256-bit random values, so guessing one is
hopeless; still, a client that keeps sending wrong tokens is probing, and it
is stopped early. Only *failed* attempts count: a 401, 403 or 404 answer

- on a host page (``/host/<token>...``) or a seat page (``/play/<token>...``),
- or on an API call that carried ``Authorization: Bearer ...`` (a seat or
  host token, or the server's admin key).

The count is kept per client IP address, shared by all those routes, in a
moving window: by default 20 failures a minute (``RATELIMIT_FAILED_TOKENS``,
any Flask-Limiter limit string such as ``"20 per minute"`` or
``"100/hour;20/minute"``). Once over it, every token-bearing request from that
address gets 429 until the window moves on, a correct token included (else a
429-or-200 answer would still tell a guesser when it was right). Other
addresses are not affected, and successful requests are never counted.

Where the counts live is ``RATELIMIT_STORAGE_URI`` (default ``memory://``:
one count per process). Several processes or servers must share a storage to
share the counts, e.g. ``redis://127.0.0.1:6379``. If that storage fails, the
limiter falls back to per-process memory and logs it, rather than refusing
requests. Tests and benchmarks may set ``RATELIMIT_ENABLED`` to False, or
change ``RATELIMIT_FAILED_TOKENS`` at any time (it is read on each request).

Behind a reverse proxy every request comes from the proxy's address: set
``TRUSTED_PROXIES`` to the number of proxies in front of the app so that the
client's address is read from ``X-Forwarded-For`` (werkzeug's ProxyFix).

The create form (``POST /new``) is limited twice:

- on a server with an admin key, a wrong key there counts as a failed token
  attempt, in the same count as the API's (so guessing the key through the form
  is no faster than through the API);
- every ``POST /new`` counts towards ``RATELIMIT_CREATE_FORM`` (default 10 a
  minute per address): creating a match or checking a set-up runs the
  game's set-up checks (a set-up report may run solvers), the most work a
  public request can cause.

The season create form (``POST /seasons/new``, issue 22) is limited the same
two ways: a wrong admin key there is a failed token attempt too, and it counts
towards the same ``RATELIMIT_CREATE_FORM``, in one count shared with ``POST
/new`` (both public creation forms: ten a minute per address in all, not ten
of each).

A season's sign-up page (``/join/<token>``, issue 23, item 7) is behind a link
too: a wrong one counts as a failed attempt; each join counts towards
``RATELIMIT_SIGNUPS`` (per address) and ``RATELIMIT_SIGNUPS_PER_SEASON`` (per
season), see :mod:`referee.web.signups`.

Drawing a PNG picture counts towards ``RATELIMIT_PICTURES`` (default 60 a
minute per address; an answer 304 "not modified" is free).

A match's pulse (``GET /api/matches/<id>/pulse``, issue 24), which every open
match page polls every 2 seconds, has its own count, ``RATELIMIT_PULSE``
(default 600 a minute per address: 20 pages open at once behind one address,
a household or a club behind one router; 304 answers count too, each is a few
reads): it never touches the counts meant for failed links or writes, and a
flood of it is still bounded.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from flask import Flask, current_app, request
from flask.wrappers import Response
from flask_limiter import Limiter
from flask_limiter.util import get_remote_address

DEFAULT_FAILED_TOKENS = "20 per minute"
DEFAULT_CREATE_FORM = "10 per minute"
DEFAULT_PICTURES = "60 per minute"
DEFAULT_PULSE = "600 per minute"
FAILED_STATUSES = frozenset({401, 403, 404})
SCOPE = "failed-token-attempts"
EXTENSION = "referee_limiter"
CREATE_FORMS = frozenset({"public.new_match", "seasons.new"})  # one count for both
PNG_PICTURES = frozenset({"pictures.png"})  # every picture of every game, as PNG
PULSE = "api.pulse"

DEFAULTS: dict[str, Any] = {
    "RATELIMIT_FAILED_TOKENS": DEFAULT_FAILED_TOKENS,
    "RATELIMIT_CREATE_FORM": DEFAULT_CREATE_FORM,
    "RATELIMIT_PICTURES": DEFAULT_PICTURES,
    "RATELIMIT_PULSE": DEFAULT_PULSE,
    # calendar feeds (issue 14): apps poll them, at most about once an hour each
    "RATELIMIT_CALENDARS": "120 per minute",
    "RATELIMIT_STORAGE_URI": "memory://",
    "RATELIMIT_STRATEGY": "moving-window",
    "RATELIMIT_IN_MEMORY_FALLBACK_ENABLED": True,
    "RATELIMIT_HEADERS_ENABLED": False,
}


def _configured(key: str) -> Callable[[], str]:
    """The limit set as ``key`` in the app's config, read on every request (so it
    can be tuned at any time); its default when it is unset or empty."""

    def limit() -> str:
        return str(current_app.config.get(key) or DEFAULTS[key])

    return limit


def _failed(response: Response) -> bool:
    return response.status_code in FAILED_STATUSES


def _drawn(response: Response) -> bool:
    """A picture was drawn (not a 304 "not modified", nor a refusal)."""
    return response.status_code == 200


def _not_a_create_post() -> bool:
    return request.endpoint not in CREATE_FORMS or request.method != "POST"


def _not_an_admin_key_attempt() -> bool:
    """Only a create-form POST (of a match or a season) on a server with an
    admin key tries a key."""
    return _not_a_create_post() or not current_app.config.get("ADMIN_KEY")


def _not_a_pulse() -> bool:
    return request.endpoint != PULSE


def _not_a_png() -> bool:
    return request.endpoint not in PNG_PICTURES


def _api_without_token() -> bool:
    """An API call with no Bearer token guesses nothing: it is not counted."""
    if request.endpoint == "season_api.join":  # the sign-up link is in its path
        return False
    header = request.headers.get("Authorization", "")
    return not header.lower().startswith("bearer ")


def _not_a_season_link() -> bool:
    """Only the season pages behind a secret link (host or player) try a token."""
    return not request.path.startswith(("/season-host/", "/season/"))


def _no_season_token() -> bool:
    """A season page tries no token: it is not behind a secret link, nor the
    season create form tried with an admin key."""
    return _not_a_season_link() and _not_an_admin_key_attempt()


def init_limiter(app: Flask, blueprints: dict[str, Any]) -> Limiter:
    """Attach a limiter of failed token attempts to ``app`` (one per app, so
    several apps in one process keep separate counts unless they share a
    storage). ``blueprints`` names the host, player, api, public and pictures
    blueprints."""
    for key, value in DEFAULTS.items():
        app.config.setdefault(key, value)
    limiter = Limiter(key_func=get_remote_address, default_limits=[])
    limiter.init_app(app)

    def failed_attempts(exempt_when: Callable[[], bool] | None = None) -> Any:
        """The one count of failed attempts, on the requests ``exempt_when`` leaves."""
        return limiter.shared_limit(
            _configured("RATELIMIT_FAILED_TOKENS"),
            scope=SCOPE,
            deduct_when=_failed,
            exempt_when=exempt_when,
            error_message=too_many_message,
        )

    create_form = limiter.shared_limit(
        _configured("RATELIMIT_CREATE_FORM"),
        scope="create-form",
        exempt_when=_not_a_create_post,
        error_message=busy_message,
    )
    pictures = limiter.shared_limit(
        _configured("RATELIMIT_PICTURES"),
        scope="pictures",
        deduct_when=_drawn,
        exempt_when=_not_a_png,
        error_message=busy_message,
    )
    calendars = limiter.shared_limit(
        _configured("RATELIMIT_CALENDARS"), scope="calendars", error_message=busy_message
    )
    failed_attempts()(blueprints["host"])
    failed_attempts()(blueprints["player"])
    failed_attempts(_api_without_token)(blueprints["api"])
    limiter.shared_limit(  # pages poll it: its own count, 304s included (issue 24)
        _configured("RATELIMIT_PULSE"),
        scope="pulse",
        exempt_when=_not_a_pulse,
        error_message=busy_message,
    )(blueprints["api"])
    failed_attempts(_api_without_token)(blueprints["season_api"])
    failed_attempts(_no_season_token)(blueprints["seasons"])
    failed_attempts(_not_an_admin_key_attempt)(blueprints["public"])
    create_form(blueprints["public"])
    create_form(blueprints["seasons"])  # the same count: POST /new and POST /seasons/new
    pictures(blueprints["pictures"])
    failed_attempts()(blueprints["calendars"])  # a wrong seat-feed key counts as a wrong link
    calendars(blueprints["calendars"])
    limiter.shared_limit(  # a season's files (issue 15) count as pictures do: 304 is free
        _configured("RATELIMIT_PICTURES"),
        scope="season-files",
        deduct_when=_drawn,
        error_message=busy_message,
    )(blueprints["season_files"])
    if "signups" in blueprints:  # a wrong sign-up link (issue 23, item 7) is a wrong link
        failed_attempts()(blueprints["signups"])
    app.extensions[EXTENSION] = limiter
    return limiter


def too_many_message() -> str:
    return (
        "Too many attempts with a wrong link or token came from your address; "
        "wait a minute and try again. A correct link keeps working from other addresses."
    )


def busy_message() -> str:
    return (
        "Too many requests of this kind came from your address; wait a minute and try "
        "again. Nothing was changed."
    )


def retry_after(app: Flask) -> int:
    """Seconds until the current client may try again (at least 1)."""
    import time

    limiter: Limiter | None = app.extensions.get(EXTENSION)
    current = limiter.current_limit if limiter is not None else None
    if current is None:
        return 60
    return max(1, int(current.reset_at - time.time()))
