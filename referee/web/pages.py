"""Helpers every HTML page shares, for any game: the service's clock, times and
"time left" for people, signed numbers, problems grouped by form field, and
the context of a match page (the shared part, then the game's own from its
:class:`referee.web.game.GameWeb`).

The JSON API does not use these (it shares :mod:`referee.web.common` with the
pages). The helpers templates call (``time_left``, ``signed``, the ``utc``
filter) are given to every template of the app by :func:`template_helpers`,
which the app factory calls once. What only one game knows is in that game's
web module (see :mod:`referee.web.game`), never here.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from datetime import UTC, datetime, timedelta
from typing import Any

from flask import Flask, current_app, session
from flask.sessions import SecureCookieSessionInterface
from markupsafe import Markup
from werkzeug.http import dump_cookie

from referee import clocks
from referee.errors import Problem, RuleError
from referee.ruleset import Ruleset, get_ruleset
from referee.views import pulse_of_view
from referee.web import referee
from referee.web.game import PageWords, web_for
from referee.web.pictures import drawn
from referee.words import counted, duration, garnets, signed, span

__all__ = [
    "KEPT_KEYS",
    "SESSION_BUDGET",
    "form_problems",
    "group_problems",
    "keep_in_session",
    "kept_in_session",
    "now",
    "parse_iso",
    "relative",
    "session_cookie_bytes",
    "signed",
    "template_helpers",
    "time_left",
    "utc",
    "utc_text",
    "view_context",
]


def template_helpers(app: Flask) -> None:
    """Give every template of ``app`` ``time_left``, ``signed`` and the ``utc``,
    ``utc_text`` and ``relative`` filters (called once by
    :func:`referee.web.create_app`)."""
    app.add_template_global(time_left)
    app.add_template_global(signed)
    app.add_template_filter(garnets, "garnets")  # "1 garnet", "+2 garnets" (referee.words)
    app.add_template_filter(counted, "counted")
    app.add_template_filter(duration, "duration")  # "10 minutes", "48 hours"
    app.add_template_filter(span, "span")  # seconds in words: "4 minutes 30 seconds"
    app.add_template_global(estimates, "clock_estimates")  # the create page's table
    app.add_template_global(clock_rows)  # every seat's clock on a match page
    app.add_template_global(clock_until)
    app.add_template_filter(utc, "utc")
    app.add_template_filter(utc_text, "utc_text")
    app.add_template_filter(relative, "relative")


# ---- times and numbers for people -------------------------------------------


def now() -> datetime:
    """The service's clock (tests may move it)."""
    return referee().clock()


# ---- secret links kept for the page after a POST --------------------------------

# The keys of the signed session that hold entries kept for the page after a
# POST (POST/redirect/GET): each a list of dicts, newest first, each with its
# ``at`` (a timestamp). A new match's links (referee.web.public.create), a re-issued
# link (referee.web.host) and a new season's links (referee.web.season_pages.new; a
# season match's host link is derived, never kept: issue 23).
KEPT_KEYS = ("new_matches", "reissued_links", "new_seasons")
# Browsers drop a cookie over 4,096 bytes (its name, value and attributes), and
# with it the whole session: every kept link and the CSRF token. The session
# cookie is kept at most this long once an entry is kept, which leaves room
# for what a request adds after (a notice of about 200 characters).
SESSION_BUDGET = 3800
# what Flask-WTF keeps in the session once a page shows a form (40 hex digits)
_CSRF_TOKEN = "0" * 40


def kept_in_session(key: str, keep_for: timedelta) -> list[dict[str, Any]]:
    """The entries a page keeps for this browser under ``key`` of its signed
    session (new matches' links, a re-issued link), newest first, once those
    older than ``keep_for`` (by their ``at``, a timestamp) are dropped."""
    kept = session.get(key)
    if not isinstance(kept, list):
        return []
    oldest = now().timestamp() - keep_for.total_seconds()
    fresh = [e for e in kept if isinstance(e, dict) and _at(e) >= oldest]
    if len(fresh) != len(kept):
        session[key] = fresh
    return fresh


def _at(entry: object) -> float:
    """When a kept entry was kept (a malformed one: as old as can be)."""
    if not isinstance(entry, dict):
        return float("-inf")
    try:
        return float(entry.get("at", 0))
    except (TypeError, ValueError):
        return float("-inf")


def session_cookie_bytes(values: Mapping[str, Any]) -> int:
    """The bytes of the session cookie (its ``Set-Cookie`` value: name, signed
    value and attributes) that the app sends for a session holding ``values``,
    with a CSRF token in it if it has none yet (the next form adds one)."""
    app = current_app
    interface = app.session_interface
    if not isinstance(interface, SecureCookieSessionInterface):
        raise TypeError("the session is not kept in a signed cookie")
    serializer = interface.get_signing_serializer(app)
    if serializer is None:
        raise RuntimeError("the app has no secret key to sign its session with")
    field = str(app.config.get("WTF_CSRF_FIELD_NAME", "csrf_token"))
    measured = dict(values) if field in values else {**values, field: _CSRF_TOKEN}
    header = dump_cookie(
        interface.get_cookie_name(app),
        serializer.dumps(measured),
        expires=interface.get_expiration_time(app, session),
        domain=interface.get_cookie_domain(app),
        path=interface.get_cookie_path(app),
        secure=interface.get_cookie_secure(app),
        httponly=interface.get_cookie_httponly(app),
        samesite=interface.get_cookie_samesite(app),
        partitioned=interface.get_cookie_partitioned(app),
        max_size=0,  # measured here, not warned about
    )
    return len(header.encode())


def keep_in_session(
    key: str,
    entry: dict[str, Any],
    *,
    keep_for: timedelta,
    most: int,
    replaces: Callable[[dict[str, Any]], bool],
) -> bool:
    """Keep ``entry`` (with its ``at``) first under ``key`` of this browser's
    session for the page after the POST: with the newest of the key's other
    entries, at most ``most`` in all (those older than ``keep_for``, and those
    ``replaces`` says the entry stands for, dropped), then with the oldest
    entries of every key of :data:`KEPT_KEYS` dropped until the whole session
    cookie fits in :data:`SESSION_BUDGET` bytes.

    False when the entry cannot be kept even alone (with nothing else kept,
    beside what the session holds anyway): nothing is kept then, and the
    caller shows it on its answer instead (never on a page after a redirect)."""
    if key not in KEPT_KEYS:
        raise ValueError(f"{key!r} is not one of the session's kept keys")
    others = [e for e in kept_in_session(key, keep_for) if not replaces(e)]
    alone = {k: v for k, v in session.items() if k not in KEPT_KEYS}
    if session_cookie_bytes({**alone, key: [entry]}) > SESSION_BUDGET:
        return False
    session[key] = [entry, *others][: max(most, 1)]
    while session_cookie_bytes(session) > SESSION_BUDGET:
        _drop_oldest(entry)
    return True


def _drop_oldest(entry: dict[str, Any]) -> None:
    """Drop the oldest kept entry of any key but ``entry``, and its key once
    empty (a key holding no list goes at once: nothing in it can be shown)."""
    oldest: tuple[float, str, int] | None = None
    for key in KEPT_KEYS:
        if key not in session:
            continue
        kept = session[key]
        if not isinstance(kept, list):
            session.pop(key)
            return
        for i, other in enumerate(kept):
            if other is not entry and (oldest is None or _at(other) < oldest[0]):
                oldest = (_at(other), key, i)
    assert oldest is not None, "the entry alone fits: there is always an older one to drop"
    _, key, i = oldest
    left = [e for j, e in enumerate(session[key]) if j != i]
    if left:
        session[key] = left
    else:
        session.pop(key)


def parse_iso(value: str | None) -> datetime | None:
    if not value:
        return None
    parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    return parsed if parsed.tzinfo is not None else parsed.replace(tzinfo=UTC)


def _plural(n: int, unit: str) -> str:
    return f"{n} {unit}" if n == 1 else f"{n} {unit}s"


def time_left(deadline: str | None, paused: bool = False) -> str:
    """For people: how long until ``deadline`` (an ISO time), e.g. "1 day 3 hours left"."""
    when = parse_iso(deadline)
    if when is None:
        return "no deadline"
    if paused:
        return "the clock is stopped while the match is paused"
    seconds = int((when - now()).total_seconds())
    if seconds <= 0:
        return "the deadline has passed"
    days, rest = divmod(seconds, 86400)
    hours, rest = divmod(rest, 3600)
    minutes = rest // 60
    if days:
        text = _plural(days, "day") + (f" {_plural(hours, 'hour')}" if hours else "")
    elif hours:
        text = _plural(hours, "hour") + (f" {_plural(minutes, 'minute')}" if minutes else "")
    elif minutes:
        text = _plural(minutes, "minute")
    else:
        text = "less than a minute"
    return f"{text} left"


def clock_text(seconds: float) -> str:
    """A clock's time as a chess clock shows it: "4:05", "1:02:03", and in
    days and hours from one day on ("2 days 4 hours"); static/time.js writes
    the same as it counts down."""
    total = max(0, int(seconds))
    if total >= 86400:
        return span(total)
    hours, rest = divmod(total, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


def clock_until(iso: str | None) -> str:
    """A running clock's time left now (it runs out at ``iso``)."""
    ends = parse_iso(iso)
    return clock_text((ends - now()).total_seconds() if ends else 0)


def clock_rows(view: Mapping[str, Any], current: Mapping[str, Any] | None) -> list[dict[str, Any]]:
    """Every seat's clock on a match page (issue 24), from the view alone: a
    seat acting in the open step whose clock runs (``until``: when it runs out,
    which static/time.js counts down to), has stopped at its first order, or is
    stopped by a pause; any other seat's bank. Empty without a clock."""
    banks = view.get("clock_banks")
    if banks is None:
        return []
    step = (current or {}).get("clocks") if current and current.get("status") == "open" else None
    rows = []
    for player in view["players"]:
        seat = player["seat"]
        row: dict[str, Any] = {"seat": seat, "name": player["name"], "until": None}
        mine = (step or {}).get(str(seat))
        if mine is not None and mine["runs_out_at"]:
            ends = parse_iso(mine["runs_out_at"])
            left = (ends - now()).total_seconds() if ends else 0
            state = "running" if left > 0 else "out"
            row.update(until=mine["runs_out_at"], state=state, left=clock_text(left))
        elif mine is not None:
            stopped = "paused" if view.get("paused") and current else "sent"
            if stopped == "paused" and seat in (current or {}).get("submitted", []):
                stopped = "sent"
            row.update(state=stopped, left=clock_text(mine["left"] or 0))
        else:
            row.update(state="bank", left=clock_text(banks.get(str(seat)) or 0))
        rows.append(row)
    return rows


def utc(iso: str | None) -> str:
    """An ISO time as UTC to the second, e.g. 2026-12-01T18:00:00Z: what a
    ``<time datetime>`` holds (HTML allows at most three digits of a second's
    fraction, so none are written)."""
    when = parse_iso(iso)
    return when.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ") if when else "none"


def utc_text(iso: str | None) -> str:
    """An ISO time for people, in UTC: "2026-12-01 18:00 UTC" (the seconds
    only when there are some: "2026-12-01 18:00:42 UTC")."""
    when = parse_iso(iso)
    if when is None:
        return "none"
    when = when.astimezone(UTC)
    return when.strftime("%Y-%m-%d %H:%M:%S UTC" if when.second else "%Y-%m-%d %H:%M UTC")


def relative(iso: str | None) -> str:
    """How far ``iso`` is from now, in the two largest units: "in 1 day 23 h",
    "2 h 5 min ago", "in 5 min", "less than a minute ago" (static/time.js
    writes the same words in the reader's browser and keeps them current)."""
    when = parse_iso(iso)
    if when is None:
        return ""
    seconds = int((when - now()).total_seconds())
    minutes = abs(seconds) // 60
    days, rest = divmod(minutes, 1440)
    hours, mins = divmod(rest, 60)
    if days:
        text = (f"{days} day" if days == 1 else f"{days} days") + (f" {hours} h" if hours else "")
    elif hours:
        text = f"{hours} h" + (f" {mins} min" if mins else "")
    elif mins:
        text = f"{mins} min"
    else:
        text = "less than a minute"
    return f"in {text}" if seconds > 0 else f"{text} ago"


# ---- problems next to the fields they concern --------------------------------


def group_problems(
    problems: Iterable[Problem], where: Callable[[Problem], str]
) -> dict[str, list[str]]:
    """Problem messages by the form field each concerns ("" for the whole form)."""
    out: dict[str, list[str]] = {}
    for p in problems:
        out.setdefault(where(p), []).append(p.message)
    return out


def typed_number(text: str | None, default: int | float | str) -> int | float | str:
    """A number typed in a form; what was typed when it is not one (so the
    service names it in its message); ``default`` when nothing was typed."""
    text = (text or "").strip()
    if not text:
        return default
    if re.fullmatch(r"[+-]?\d+", text):
        return int(text)
    try:
        return float(text)
    except ValueError:
        return text


# the create form's units of a step's deadline (issue 24: steps of minutes for
# matches played in one sitting), in hours each
DEADLINE_UNITS = {"minutes": 1 / 60, "hours": 1.0, "days": 24.0}


def deadline_hours_of(text: str | None, unit: str | None) -> int | float | str:
    """A create form's deadline in hours, from the number typed and its unit
    (minutes, hours or days; hours when the form sent none); what was typed
    when it is not a number, so the service names it in its refusal."""
    typed = typed_number(text, 0)
    factor = DEADLINE_UNITS.get(unit or "hours")
    if factor is None:  # not a unit the form offers: refused, naming what was sent
        return f"{(text or '').strip()[:20]} {unit[:20] if unit else ''}"
    if isinstance(typed, str):
        return typed
    hours = typed * factor
    return int(hours) if float(hours).is_integer() else hours


def clock_of(choice: str | None, bank: str | None, add: str | None) -> Any:
    """A create form's clock setting (issue 24): None for no clock, a speed
    profile's, or the host's own bank and added time in minutes (what was typed
    when it is not a number, so the service names it); an unknown choice as
    sent, which the service refuses by name."""
    if not choice:
        return None
    if choice in clocks.PROFILES:
        return dict(clocks.PROFILES[choice])
    if choice != "custom":
        return choice[:40]
    return {"bank_minutes": typed_number(bank, 0), "add_minutes": typed_number(add, 0)}


@functools.lru_cache(maxsize=128)
def planned_steps(game: str, players: int) -> tuple[tuple[int, ...], ...] | None:
    """The steps (each its acting seats) of ``game``'s demo match with
    ``players`` seats, played to its end (a demo gives every step's orders):
    what the create page's estimate reads, exact for a game whose steps do not
    depend on play, a typical match's for one whose do. None when the game has
    no demo of that many players."""
    try:
        demo = get_ruleset(game).demo(players)
    except RuleError:
        return None
    if len(demo.players) != players:
        return None
    return tuple(tuple(sorted(step)) for step in demo.steps)


# the create page's estimate: a short step for a chat, and each speed profile
ESTIMATE_STEP_MINUTES = 10


def estimates(rules: Ruleset) -> list[dict[str, Any]]:
    """How long a match of ``rules`` can last, by number of players: its steps,
    and the longest it can take with 10-minute steps and with each speed profile
    (steps that close once their players have sent), for a match of as many
    steps as the game's demo (:func:`planned_steps`)."""
    rows = []
    for players in range(rules.min_players, rules.max_players + 1):
        steps = planned_steps(rules.name, players)
        if not steps:
            continue
        row: dict[str, Any] = {"players": players, "steps": len(steps)}
        fixed = clocks.estimate(steps, None, ESTIMATE_STEP_MINUTES * 60)
        row["fixed"] = span(fixed or 0)
        for name, profile in clocks.PROFILES.items():
            row[name] = span(clocks.estimate(steps, clocks.Clock.of(profile), None) or 0)
        rows.append(row)
    return rows


def form_problems(form: Any) -> list[Problem]:
    """A form's own errors (the CSRF token, mostly) as problems."""
    out = []
    for name, messages in form.errors.items():
        for message in messages if isinstance(messages, list) else [messages]:
            out.append(Problem(f"form/{name}", f"{name}: {message}", name))
    return out


# ---- a match page ------------------------------------------------------------


class Pictures(Mapping[str, Markup]):
    """The ruleset's pictures of one view, by name, each drawn only when a
    template first asks for it (:func:`referee.web.pictures.drawn`, which keeps
    them per state of the view): ``pictures.get(name)`` draws that one alone.
    A picture not drawn at this stage (its drawer gave None) is not in it, so
    going through them all (``for name in pictures``, ``if pictures``) draws
    each to know."""

    def __init__(self, view: dict[str, Any], names: Iterable[str]) -> None:
        self._view = view
        self._names = list(names)
        self._drawn: dict[str, Markup | None] = {}

    def _draw(self, name: str) -> Markup | None:
        if name not in self._drawn:
            svg = drawn(self._view, name)
            # drawn from this view only; the ruleset escapes every text in them
            self._drawn[name] = Markup(svg) if svg is not None else None
        return self._drawn[name]

    def __getitem__(self, name: str) -> Markup:
        svg = self._draw(name) if name in self._names else None
        if svg is None:
            raise KeyError(name)
        return svg

    def __iter__(self) -> Iterator[str]:
        return (name for name in self._names if self._draw(name) is not None)

    def __len__(self) -> int:
        return sum(1 for _ in self)


def view_context(view: dict[str, Any], *, draw: bool = True) -> dict[str, Any]:
    """What every match page needs besides the view: the players' names, the
    current, open and next rounds, the result, the ruleset's pictures of this
    view (by name, each drawn when a template first uses it, see
    :class:`Pictures`; with ``draw`` False, none), the game's web parts as
    ``game`` and the context those add
    (:meth:`referee.web.game.GameWeb.page_context`), and ``words``, orders and
    their refusals in the player's words (:class:`referee.web.game.PageWords`)."""
    names = {int(p["seat"]): p["name"] for p in view["players"]}
    rounds = view["rounds"]
    current = rounds[view["current_round"] - 1] if view["current_round"] else None
    open_round = current if current is not None and current["status"] == "open" else None
    next_round = None
    if open_round is None and not view["finished"]:
        next_round = next((r for r in rounds if r["status"] == "pending"), None)
    rules = get_ruleset(view["ruleset"])
    game = web_for(rules)
    context: dict[str, Any] = {
        "view": view,
        "names": names,
        "result": view.get("result") or {},
        "current": current,
        "open_round": open_round,
        "next_round": next_round,
        "pictures": Pictures(view, rules.pictures() if draw else ()),
        "game": game,
    }
    context.update(game.page_context(view, context))
    # following the match live (issue 24, templates/public/_live.html): the pulse
    # the page shows, and whether its seat acts in the open step and owes an order
    context["pulse"] = pulse_of_view(view)
    me = view["viewer"].get("seat")
    context["your_turn"] = bool(
        view["viewer"]["kind"] == "seat"
        and open_round is not None
        and not view["finished"]
        and me in open_round["acting"]
        and me not in open_round["submitted"]
    )
    # a clock per player (issue 24): a seat whose clock ran out gets the default
    mine = ((open_round or {}).get("clocks") or {}).get(str(me))
    ends = parse_iso(mine["runs_out_at"]) if mine and mine["runs_out_at"] else None
    context["out_of_time"] = bool(context["your_turn"] and ends is not None and ends <= now())
    if context["out_of_time"]:
        context["your_turn"] = False
    # orders and their refusals in the player's words (templates pass it to order_text)
    context["words"] = PageWords(game, context)
    return context
