"""Web pages for the public: the home page, creating a match, a match's public
page and its forum post.

Every page about a match is rendered from :func:`referee.views.view_for`, never
from stored rows. The helpers the pages share are in :mod:`referee.web.pages`
(a game's own in its web module, see :mod:`referee.web.game`); a refusal that
is not shown on a form is answered by the app's one RuleError handler.

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

from flask import (
    Blueprint,
    Response,
    abort,
    current_app,
    flash,
    redirect,
    render_template,
    request,
    session,
    url_for,
)
from flask.typing import ResponseReturnValue
from flask_limiter import Limiter
from flask_limiter.util import get_remote_address
from itsdangerous import BadSignature, SignatureExpired, URLSafeTimedSerializer
from limits import parse as parse_limit

from forms.host import ActionForm
from forms.match import create_match_form, setting_field_name
from forms.notify import LinkRequestForm
from referee.errors import Problem, RuleError
from referee.markup import match_post
from referee.notify.checks import check_email
from referee.resources import bundled_dir
from referee.ruleset import Ruleset, Viewer, get_ruleset, ruleset_names
from referee.service import SERVICE_SETTINGS
from referee.views import revealed_orders, view_for
from referee.web import csrf, referee
from referee.web.calendars import feed_links
from referee.web.common import base_url, check_post_format, external_url, status_for
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
    view_context,
)
from referee.web.ratelimit import EXTENSION

bp = Blueprint("public", __name__)

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


# ---- pages ------------------------------------------------------------------


@bp.get("/")
def index() -> str:
    return render_template("public/index.html", games=_games())


def _games() -> list[dict[str, Any]]:
    """Every registered game, for people: name, title, players and web parts."""
    out = []
    for name in ruleset_names():
        rules = get_ruleset(name)
        out.append({"name": name, "rules": rules, "web": web_for(rules)})
    return out


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


def _mail_enabled() -> bool:
    """Whether this server sends e-mail (its operator set REFEREE_SMTP_URL)."""
    return referee().notify.mail_enabled


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
    games = _games()
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
            mail_enabled=_mail_enabled(),
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
    notify, unread_notify = _notify_of(form, create.emails(form) if _mail_enabled() else {})
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


@bp.get("/matches/<match_id>")
def match_page(match_id: str) -> ResponseReturnValue:
    return _match_page(match_id)


def _match_page(
    match_id: str, link_form: LinkRequestForm | None = None, problems: list[Problem] | None = None
) -> str:
    """A match's public page (``link_form`` and ``problems``: the "lost your
    private link?" form as sent, and its refusal)."""
    state = referee().state(match_id)
    view = view_for(state, Viewer.public())
    return render_template(
        "public/match.html",
        mail_enabled=_mail_enabled(),
        link_form=link_form or LinkRequestForm(formdata=None),
        link_errors=[p.message for p in problems or []],
        **view_context(view),
        revealed_orders=revealed_orders(view),
        calendar=feed_links(state),
    )


# ---- lost links and unsubscribing (issue 14) ---------------------------------

LINK_SALT = "seat-link"
LINK_MAX_AGE = 3600  # seconds a link sent by e-mail works
LINK_SENT = "If that address belongs to a seat of this match, an e-mail with a link is on its way."
# "send me my link again" requests, by client address and by match (Flask-Limiter
# limit strings; set in the app's config to change them)
LINK_LIMITS = {
    "RATELIMIT_LINK_REQUESTS": "5 per hour",
    "RATELIMIT_LINK_REQUESTS_PER_MATCH": "20 per hour",
}


def _link_serializer() -> URLSafeTimedSerializer:
    return URLSafeTimedSerializer(current_app.config["SECRET_KEY"], salt=LINK_SALT)


def _link_allowed(match_id: str) -> bool:
    """Count one link request against both limits (:data:`LINK_LIMITS`); False
    when either is used up. Each request costs an e-mail to a third party, so
    both the asking address and the match are limited."""
    limiter: Limiter | None = current_app.extensions.get(EXTENSION)
    if (
        limiter is None
        or not limiter.enabled
        or not current_app.config.get("RATELIMIT_ENABLED", True)
    ):
        return True

    def limit(key: str) -> Any:
        return parse_limit(str(current_app.config.get(key) or LINK_LIMITS[key]))

    by_client = limiter.limiter.hit(limit("RATELIMIT_LINK_REQUESTS"), "link", get_remote_address())
    return by_client and limiter.limiter.hit(
        limit("RATELIMIT_LINK_REQUESTS_PER_MATCH"), "link-match", match_id
    )


@bp.post("/matches/<match_id>/link")
def request_link(match_id: str) -> ResponseReturnValue:
    """ "Lost your private link?": e-mail a one-time link to the seat whose
    address this is. The answer is the same whether or not it is one."""
    referee().state(match_id)  # 404 for no such match
    form = LinkRequestForm()
    problems: list[Problem] = []
    if not form.validate():
        problems = form_problems(form)
    elif not _mail_enabled():
        problems = [
            Problem("notify/no_mail", "this server sends no e-mail, so it cannot send links")
        ]
    else:
        try:
            check_email(form.email.data or "", "your address")
        except RuleError as exc:
            problems = [Problem(p.code, p.message, "email") for p in exc.problems]
    if problems:
        page = _match_page(match_id, link_form=form, problems=problems)
        return page, status_for(RuleError(problems))
    if not _link_allowed(match_id):
        return (
            render_template(
                "error.html",
                code=429,
                title="Too many requests",
                message="Too many links were asked for from your address or for this match; "
                "wait an hour and try again. No e-mail was sent.",
            ),
            429,
            {"Retry-After": "3600"},
        )

    def make_link(seat: int, fingerprint: str) -> str:
        signed = _link_serializer().dumps([match_id, seat, fingerprint])
        return url_for("public.seat_link", signed=signed)

    referee().request_link(match_id, form.email.data or "", make_link)
    flash(LINK_SENT, "notice")
    return redirect(url_for("public.match_page", match_id=match_id) + "#lost-link", code=303)


class _LinkRefused(Exception):
    def __init__(self, status: int, title: str, message: str) -> None:
        super().__init__(message)
        self.status, self.title, self.message = status, title, message


LINK_USED = (
    "This link has been used already, or the seat's private link has changed since it "
    "was sent. Ask for a new one on the match's public page if you still need it."
)


def _seat_link(signed: str) -> tuple[str, int, str]:
    """The match, seat and fingerprint of a link sent by e-mail; refused
    (:class:`_LinkRefused`) when it is not one of ours or is over an hour old."""
    try:
        data = _link_serializer().loads(signed, max_age=LINK_MAX_AGE)
    except SignatureExpired:
        raise _LinkRefused(
            410,
            "This link has expired",
            "A link sent by e-mail works for one hour. Ask for a new one on the match's "
            "public page (“Lost your private link?”).",
        ) from None
    except BadSignature:
        data = None
    ok = (
        isinstance(data, list)
        and len(data) == 3
        and isinstance(data[0], str)
        and isinstance(data[1], int)
        and isinstance(data[2], str)
    )
    if not ok:
        raise _LinkRefused(
            400,
            "This link is not valid",
            "This address is not a link this server sent (it may have been cut short when "
            "copied). Open the link from the e-mail again, or ask for a new one.",
        )
    return data[0], data[1], data[2]


def _refused_page(exc: _LinkRefused) -> ResponseReturnValue:
    return render_template(
        "error.html", code=exc.status, title=exc.title, message=exc.message
    ), exc.status


@bp.route("/link/<signed>", methods=["GET", "POST"])
def seat_link(signed: str) -> ResponseReturnValue:
    """A link sent by e-mail. GET shows a button and changes nothing (mail
    scanners open links); its POST gives the seat a new private link."""
    try:
        match_id, seat, fingerprint = _seat_link(signed)
    except _LinkRefused as exc:
        return _refused_page(exc)
    state = referee().state(match_id)
    row = next((s for s in state.seats if s.seat == seat), None)
    if row is None or row.token_hash[:16] != fingerprint:
        return _refused_page(_LinkRefused(410, "This link has been used", LINK_USED))
    form = ActionForm()
    if request.method == "POST":
        if not form.validate():
            raise RuleError(form_problems(form))
        try:
            token = referee().redeem_link(match_id, seat, fingerprint)
        except RuleError:
            return _refused_page(_LinkRefused(410, "This link has been used", LINK_USED))
        flash("This is your new private link: bookmark it; the old one no longer works.", "notice")
        return redirect(url_for("player.play", token=token), code=303)
    response = current_app.make_response(
        render_template(
            "notify/link.html",
            view=view_for(state, Viewer.public()),
            seat=seat,
            name=row.name,
            form=ActionForm(formdata=None),
            action=url_for("public.seat_link", signed=signed),
        )
    )
    response.headers["Cache-Control"] = "no-store"
    return response


@bp.route("/unsubscribe/<key>", methods=["GET", "POST"])
def unsubscribe(key: str) -> ResponseReturnValue:
    """Stop a seat's e-mails. GET asks first (mail scanners open links); POST
    does it, from the page's button or as an RFC 8058 one-click POST
    (``List-Unsubscribe=One-Click``) from a mail program, which carries no CSRF
    token: the exemption is this view's alone, and the key is the secret."""
    if request.method == "GET":
        found = referee().unsubscribe_target(key)
        if found is None:
            abort(404, description=UNSUBSCRIBE_UNKNOWN)
        return _unsubscribe_page(key, found, done=False)
    one_click = request.form.get("List-Unsubscribe") == "One-Click"
    if not one_click and current_app.config.get("WTF_CSRF_ENABLED", True):
        csrf.protect()  # the page's button: checked as every form is ("The form expired")
    done = referee().unsubscribe(key)
    if done is None:
        abort(404, description=UNSUBSCRIBE_UNKNOWN)
    if one_click:
        return Response("Unsubscribed: no more e-mails about this match.\n", mimetype="text/plain")
    return _unsubscribe_page(key, done, done=True)


# a mail program's one-click POST carries no CSRF token (the key is the secret)
csrf.exempt(unsubscribe)

UNSUBSCRIBE_UNKNOWN = (
    "This unsubscribe link does not belong to any seat (it may have been cut short when "
    "copied). Open it from the e-mail again."
)


def _unsubscribe_page(key: str, found: tuple[str, int], *, done: bool) -> ResponseReturnValue:
    match_id, seat = found
    state = referee().state(match_id)
    name = next((s.name for s in state.seats if s.seat == seat), "")
    response = current_app.make_response(
        render_template(
            "notify/unsubscribe.html",
            view=view_for(state, Viewer.public()),
            seat=seat,
            name=name,
            done=done,
            form=ActionForm(formdata=None),
            action=url_for("public.unsubscribe", key=key),
        )
    )
    response.headers["Cache-Control"] = "no-store"
    return response


@bp.get("/matches/<match_id>/post")
def post(match_id: str) -> ResponseReturnValue:
    fmt = request.args.get("format", "markdown")
    check_post_format(fmt, "format")
    state = referee().state(match_id)
    text = match_post(state.ruleset, view_for(state, Viewer.public()), fmt, base_url=base_url())
    return Response(text, mimetype="text/plain")


@bp.get("/matches/<match_id>/check")
def check_page(match_id: str) -> ResponseReturnValue:
    """How anyone checks this match (issue 27, docs/verify.md): its chain heads
    so far and the exact commands, with the standalone script's address."""
    state = referee().state(match_id)
    view = view_for(state, Viewer.public())
    titles = {r["number"]: r["title"] for r in view["rounds"]}
    heads = [
        {
            "label": "start" if h.kind == "start" else str(h.round),
            "title": "the start"
            if h.kind == "start"
            else titles.get(h.round or 0, "")
            + (", its result corrected" if h.kind == "correction" else ""),
            "head": h.head,
        }
        for h in state.chain
    ]
    return render_template(
        "public/check.html",
        view=view,
        heads=heads,
        script_url=external_url("public.check_script"),
        page_url=external_url("public.match_page", match_id=match_id),
    )


@bp.get("/check_match.py")
def check_script() -> ResponseReturnValue:
    """The standalone check of an export (scripts/check_match.py): Python's
    standard library only, short enough to read before running it."""
    text = (bundled_dir("scripts") / "check_match.py").read_text(encoding="utf-8")
    return Response(
        text,
        mimetype="text/x-python",
        headers={"Content-Disposition": 'attachment; filename="check_match.py"'},
    )


@bp.get("/games/<game>/rules")
def rules_page(game: str) -> ResponseReturnValue:
    """A game's rules in plain words, with a diagram (its ``GameWeb.rules_template``)."""
    if game not in ruleset_names():
        abort(404)
    rules = get_ruleset(game)
    web = web_for(rules)
    return render_template(web.rules_template, rules=rules, web=web, games=_games())


@bp.get("/favicon.ico")
def favicon() -> ResponseReturnValue:
    """The site's icon where browsers look for it unasked (the pages name
    ``static/favicon.svg`` in a ``<link rel="icon">``)."""
    response = current_app.send_static_file("favicon.svg")
    response.mimetype = "image/svg+xml"
    return response
