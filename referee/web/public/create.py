"""Creating a match: the create form of each game (:class:`CreatePage`), the
``/new`` page, and the page of a new match's secret links.

Creating a match is POST/redirect/GET: the POST stores the match and redirects
to ``/new/<match id>``, which shows its secret links. The links are kept for
that page in the browser's own signed session (:func:`_keep_links`), for
:data:`LINKS_KEPT_FOR` after creating and for the last :data:`LINKS_KEPT`
matches created, so a reload shows the same links and creates nothing, and
another browser sees none of them (the database keeps only the links' hashes).
"""

from __future__ import annotations

import hmac
import json
import re
from datetime import timedelta
from typing import Any

from flask import abort, current_app, redirect, render_template, request, session, url_for
from flask.typing import ResponseReturnValue

from forms.host import ActionForm
from forms.match import create_match_form, setting_field_name
from referee.errors import Problem, RuleError
from referee.ruleset import Ruleset, Viewer, get_ruleset, ruleset_names
from referee.service import SERVICE_SETTINGS
from referee.views import view_for
from referee.web import referee
from referee.web.common import base_url, external_url, status_for
from referee.web.game import GameWeb, SetupRead, read_settings, web_for
from referee.web.pages import (
    clock_of,
    deadline_hours_of,
    form_problems,
    group_problems,
    keep_in_session,
    kept_in_session,
    now,
    typed_number,
)
from referee.web.public.common import bp, mail_enabled, registered_games

# the create form's fields of issue 14 (a problem names one of them)
NOTIFY_FIELDS = ("webhook_url", "remind_before_hours", "auto_open")

# how long, and for how many new matches, the page of a new match's links is
# shown again to the browser that created it (see docs/hosting.md)
LINKS_KEPT_FOR = timedelta(hours=1)
LINKS_KEPT = 3
# a set-up report longer than this (as JSON) is not kept in the session cookie
# (the whole cookie is bounded: referee.web.pages.keep_in_session; a match whose
# links alone do not fit shows them once, on the POST)
REPORT_KEPT_UP_TO = 1500
SESSION_KEY = "new_matches"
LINKS_GONE = (
    "The links of a new match are shown only to the browser that created it, for one hour "
    "after creating it. The host can re-issue any link from the dashboard."
)


def default_game() -> str | None:
    """The game the create form is for when none is chosen: the only one
    registered, else the one the API creates by default (when registered)."""
    from referee.ruleset import DEFAULT_RULESET

    names = ruleset_names()
    if len(names) == 1:
        return names[0]
    return DEFAULT_RULESET if DEFAULT_RULESET in names else None


class CreatePage:
    """The create form of one game: its form class and the field each problem concerns."""

    def __init__(self, rules: Ruleset) -> None:
        self.rules = rules
        self.web: GameWeb = web_for(rules)
        self.form_class = create_match_form(
            rules.max_players,
            rules.settings,
            self.web.setup_fields(),
            self.web.service_labels,
            self.web.choice_label,
        )
        self.rows: list[int] = list(range(rules.max_players))  # form row of each player sent
        self.game_fields = {s.key: setting_field_name(s) for s in rules.settings}
        self.settings = [(s, setting_field_name(s)) for s in rules.settings]

    def field_of(self, p: Problem) -> str:
        """The create form's field a problem concerns ("" for the whole form)."""
        where = p.field or ""
        index = re.fullmatch(r"players\[(\d+)\]", where)
        if index:
            k = int(index.group(1))
            return f"players-{self.rows[k] if k < len(self.rows) else k}"
        setup = self.web.setup_field(p)
        if setup is not None:
            return setup
        if where in self.game_fields:
            return self.game_fields[where]
        if where in SERVICE_SETTINGS or where in ("name", "admin_key", "game"):
            return where
        if where in NOTIFY_FIELDS:
            return where
        email = re.fullmatch(r"email_(\d+)", where)
        if email:  # seat N is the N-th row sent
            k = int(email.group(1)) - 1
            return f"players-{self.rows[k] if 0 <= k < len(self.rows) else k}-email"
        return ""

    def emails(self, form: Any) -> dict[str, str]:
        """Seat number -> the address typed in its row (after :meth:`players`)."""
        out: dict[str, str] = {}
        for seat, row in enumerate(self.rows, start=1):
            typed = (form.players.entries[row].form.email.data or "").strip()
            if typed:
                out[str(seat)] = typed
        return out

    def players(self, form: Any) -> list[dict[str, Any]]:
        """The players of the form's rows: every row up to the game's minimum,
        then only the rows with something in them (a blank row is left out)."""
        players: list[dict[str, Any]] = []
        self.rows = []
        for i, entry in enumerate(form.players.entries):
            name = entry.form.name.data or ""
            garnets = (entry.form.garnets.data or "").strip()
            if i >= self.rules.min_players and not name.strip() and garnets in ("", "0"):
                continue
            self.rows.append(i)
            players.append(
                {"seat": len(players) + 1, "name": name, "garnets": typed_number(garnets, "")}
            )
        return players


def _notify_of(form: Any, emails: dict[str, str]) -> tuple[dict[str, Any], list[Problem]]:
    """The create form's notification fields as the service's ``notify``
    object, and the problems of reading them (reminders that are not numbers)."""
    notify: dict[str, Any] = {"emails": emails, "webhook_url": form.webhook_url.data or None}
    text = form.remind_before_hours.data or ""
    parts = [p for p in re.split(r"[,;\s]+", text.strip()) if p]
    hours = [typed_number(p, p) for p in parts]
    bad = [p for p, h in zip(parts, hours, strict=True) if isinstance(h, str)]
    if bad:
        problem = Problem(
            "notify/bad_reminders",
            f"reminders: '{bad[0][:40]}' is not a number of hours; write the hours before "
            "the deadline separated by commas, e.g. 24, 2 (or leave it empty for none)",
            "remind_before_hours",
        )
        # sent as typed: the service refuses it too (its words are left out for
        # these), so nothing is created and every other problem is named
        return {**notify, "remind_before_hours": text}, [problem]
    notify["remind_before_hours"] = hours
    return notify, []


def _chosen_game() -> str | None:
    chosen = request.form.get("game") or request.args.get("game")
    return chosen or default_game()


@bp.route("/new", methods=["GET", "POST"])
def new_match() -> ResponseReturnValue:
    chosen = _chosen_game()
    admin_key = current_app.config.get("ADMIN_KEY")
    games = registered_games()
    if chosen is None:  # several games and none chosen: the page offers them
        return render_template(
            "public/new.html",
            games=games,
            chosen=None,
            form=None,
            problems=[],
            errors={},
            need_admin_key=bool(admin_key),
        )
    create = CreatePage(get_ruleset(chosen))
    web = create.web
    form = create.form_class()

    def page(problems: list[Problem], report: Any = None, checked: bool = False) -> str:
        return render_template(
            "public/new.html",
            games=games,
            chosen=create.rules.name,
            rules=create.rules,
            game=web,
            form=form,
            setting_fields=create.settings,
            problems=problems,
            errors=group_problems(problems, create.field_of),
            report=report,
            checked=checked,
            need_admin_key=bool(admin_key),
            mail_enabled=mail_enabled(),
        )

    if not form.is_submitted():
        return page([])

    if not form.validate():
        invalid = form_problems(form)
        return page(invalid), status_for(RuleError(invalid))
    # the key first, before any work (reading a set-up, a report's solves); a wrong
    # key counts as a failed attempt, as on the API (referee.web.ratelimit)
    if admin_key and not hmac.compare_digest(
        (form.admin_key.data or "").encode(), str(admin_key).encode()
    ):
        refusal = [
            Problem(
                "auth/unauthorized",
                "creating matches or checking set-ups on this server needs its admin key",
                "admin_key",
            )
        ]
        return page(refusal), 401
    read: SetupRead = web.read_setup(form)
    problems: list[Problem] = []
    if web.check_action is not None and form[web.check_action].data:
        report = None
        if read.problems:
            problems = list(read.problems)
        else:
            report, problems = web.setup_report(read.body)
        status = status_for(RuleError(problems)) if problems else 200
        return page(problems, report, checked=not problems), status
    players = create.players(form)
    notify, unread_notify = _notify_of(form, create.emails(form) if mail_enabled() else {})
    settings: dict[str, Any] = {
        "deadline_hours": deadline_hours_of(form.deadline_hours.data, form.deadline_unit.data),
        "close_early": bool(form.close_early.data),
        "clock": clock_of(form.clock.data, form.clock_bank.data, form.clock_add.data),
    }
    game_settings, unread = read_settings(create.rules, form)
    settings.update(game_settings)
    report = web.setup_report(read.body)[0] if read.report and not read.problems else None
    created = None
    problems += [p for bad in unread.values() for p in bad] + unread_notify
    given: dict[str, Any] = {
        "name": form.name.data or "",
        "setup": read.body,
        "players": players,
        "settings": settings,
        "ruleset": create.rules.name,
        "notify": notify,
        "schedule": {"auto_open": bool(form.auto_open.data)},
    }
    try:
        if read.problems:
            # a set-up box that could not be read is left out of ``read.body``, and
            # a game may accept its set-up without that key: nothing is created,
            # and the service still names every other problem
            referee().check_new_match(**given)
            problems += read.problems
        else:
            created = referee().create_match(**given, base_url=base_url())
    except RuleError as exc:
        # what the service says of a set-up or setting that could not be read
        # only repeats that: the reading's problems say why
        found = [
            p
            for p in exc.problems
            if not web.superseded(p, read)
            and p.field not in unread
            and not (unread_notify and p.field == "remind_before_hours")
        ]
        problems += read.problems + found
    if created is None:
        return page(problems, report), status_for(RuleError(problems))

    entry = _links_entry(
        created.match_id, created.host_token, created.player_tokens, report, bool(read.report)
    )
    if created.webhook_secret:
        entry["webhook_secret"] = created.webhook_secret
    if not _keep_links(entry):  # too many seats for a cookie: shown by this answer alone
        shown = {**entry, "report": report, "report_dropped": False} if report else entry
        return _links_page(shown, kept=False)
    # POST/redirect/GET: reloading the next page shows the links again, creates nothing
    return redirect(url_for("public.created", match_id=created.match_id), code=303)


def _kept() -> list[dict[str, Any]]:
    """The new matches' links this browser's session keeps, newest first."""
    return kept_in_session(SESSION_KEY, LINKS_KEPT_FOR)


def _links_entry(
    match_id: str, host: str, seats: dict[int, str], report: Any, wanted: bool
) -> dict[str, Any]:
    """What the page of a new match's links needs: its secret links, and its
    set-up report when one is shown (``wanted``) and it is small."""
    entry: dict[str, Any] = {
        "id": match_id,
        "at": now().timestamp(),
        "host": host,
        "seats": [[seat, token] for seat, token in sorted(seats.items())],
    }
    if wanted and report is not None:
        try:
            small = len(json.dumps(report, separators=(",", ":"))) <= REPORT_KEPT_UP_TO
        except (TypeError, ValueError):  # not plain JSON: not kept either
            small = False
        if small:
            entry["report"] = report
        else:
            entry["report_dropped"] = True
    return entry


def _keep_links(entry: dict[str, Any]) -> bool:
    """Keep a new match's links in this browser's session for the page after
    the POST, with the newest of the last :data:`LINKS_KEPT` and whatever else
    the session cookie still has room for (:func:`keep_in_session`); without
    its set-up report when only that does not fit. False when its links alone
    do not fit."""

    def keep() -> bool:
        return keep_in_session(
            SESSION_KEY,
            entry,
            keep_for=LINKS_KEPT_FOR,
            most=LINKS_KEPT,
            replaces=lambda other: other.get("id") == entry["id"],
        )

    if keep():
        return True
    if "report" not in entry:
        return False
    del entry["report"]
    entry["report_dropped"] = True
    return keep()


@bp.get("/new/<match_id>")
def created(match_id: str) -> ResponseReturnValue:
    """A new match's secret links, to the browser that created it (see :func:`_kept`)."""
    entry = next((e for e in _kept() if e.get("id") == match_id), None)
    if entry is None:
        abort(404, description=LINKS_GONE)
    return _links_page(entry, kept=True)


def _links_page(entry: dict[str, Any], *, kept: bool) -> ResponseReturnValue:
    """The page of a new match's links (``kept``: in this browser's session,
    so a reload shows them again; else shown by this answer only)."""
    match_id = entry["id"]
    state = referee().state(match_id)
    view = view_for(state, Viewer.host())
    names = {int(p["seat"]): p["name"] for p in view["players"]}
    seat_links = [
        {
            "seat": int(seat),
            "name": names.get(int(seat), ""),
            "url": external_url("player.play", token=token),
        }
        for seat, token in entry["seats"]
    ]
    kept_until = entry["at"] + LINKS_KEPT_FOR.total_seconds()
    response = current_app.make_response(
        render_template(
            "public/created.html",
            view=view,
            game=web_for(state.ruleset),
            host_url=external_url("host.dashboard", token=entry["host"]),
            seat_links=seat_links,
            public_url=external_url("public.match_page", match_id=match_id),
            report=entry.get("report"),
            report_dropped=entry.get("report_dropped", False),
            minutes_left=max(1, int((kept_until - now().timestamp()) // 60)),
            kept=kept,
            forget_form=ActionForm(formdata=None),
            webhook_secret=entry.get("webhook_secret"),
        )
    )
    response.headers["Cache-Control"] = "no-store"  # it shows secret links
    return response


@bp.post("/new/<match_id>/forget")
def forget_links(match_id: str) -> ResponseReturnValue:
    """Drop a new match's links from this browser's session (a shared computer)."""
    form = ActionForm()
    if not form.validate():
        raise RuleError(form_problems(form))
    session[SESSION_KEY] = [e for e in _kept() if e.get("id") != match_id]
    return redirect(url_for("public.match_page", match_id=match_id), code=303)
