"""Web pages for the host: the dashboard behind the private host link and its
actions (open a round, change its deadline, pause and resume, enter an order
for a player, preview, close, reveal, re-issue a link), the forum post and the
export of the match file.

Every action is a CSRF-protected POST that calls the service and then shows
the dashboard again; a refusal is shown on the dashboard with every problem,
keeping what the host typed. The actions that cannot be undone (close a round
now, reveal everything, re-issue a link) need "I am sure" ticked in their form
(:func:`_confirmed`), so they work, and are safe, without JavaScript.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from typing import Any

import markupsafe
from flask import (
    Blueprint,
    Response,
    abort,
    flash,
    redirect,
    render_template,
    request,
    url_for,
)
from flask.typing import ResponseReturnValue

from forms.host import (
    CHOOSE,
    ActionForm,
    ConfirmForm,
    DeadlineForm,
    OpenRoundForm,
    ReissueForm,
    ScheduleForm,
)
from forms.orders import choices
from referee.errors import Problem, RuleError
from referee.markup import match_post, to_html
from referee.notify.outbox import error_for_host
from referee.ruleset import Viewer
from referee.views import preview_for, revealed_orders, view_for
from referee.web import referee
from referee.web.common import (
    POST_FORMATS,
    base_url,
    check_post_format,
    external_url,
    parse_deadline,
    status_for,
)
from referee.web.game import web_for
from referee.web.pages import (
    form_problems,
    group_problems,
    keep_in_session,
    kept_in_session,
    now,
    typed_number,
    view_context,
)
from referee.web.player import order_form, submit

bp = Blueprint("host", __name__, url_prefix="/host")

NOT_FOUND = "This link does not open anything. If you re-issued your host link, use the new one."


def match_of(token: str) -> str:
    """The match of a host's secret link; 404 (revealing nothing) otherwise."""
    found = referee().find_token(token)
    if found is None or found[1] is not None:
        abort(404, description=NOT_FOUND)
    return found[0]


def _deadline_from(form: Any) -> datetime | None:
    """The deadline a form asks for: a date and time, or hours from now (None: neither)."""
    text = (form.deadline.data or "").strip()
    hours = (form.hours.data or "").strip()
    if text and hours:
        raise RuleError.single(
            "round/bad_deadline", "give a deadline or a number of hours, not both", "deadline"
        )
    if hours:
        try:
            value = float(hours)
        except ValueError:
            value = -1.0
        if not 0 < value <= 24 * 366:
            raise RuleError.single(
                "round/bad_deadline",
                f"hours from now must be a number above 0, not '{hours}'",
                "hours",
            )
        return now() + timedelta(hours=value)
    if text:
        return parse_deadline(text, from_form=True)
    return None


def _field_of(p: Problem) -> str:
    if p.field in ("deadline", "hours", "who", "sure", "auto_open"):
        return p.field
    if p.field == "deadline_hours":  # the schedule's hours per round
        return "hours_per_round"
    if p.code == "round/bad_deadline":
        return "deadline"
    return ""


def _dashboard(
    token: str,
    match_id: str,
    *,
    action: str | None = None,
    exc: RuleError | None = None,
    forms: dict[str, Any] | None = None,
) -> ResponseReturnValue:
    state = referee().state(match_id)
    view = view_for(state, Viewer.host())
    context = view_context(view)
    forms = forms or {}
    reissue = forms.get("reissue") or ReissueForm(formdata=None)
    reissue.who.choices = choices(
        [(CHOOSE, "Choose a link…"), ("host", "Host (this dashboard)")]
        + [(str(s), f"Seat {s}: {name}") for s, name in context["names"].items()]
    )
    problems = list(exc.problems) if exc is not None else []
    settings = view.get("settings", {})
    schedule = forms.get("schedule") or ScheduleForm(
        formdata=None,
        data={
            "auto_open": bool(settings.get("auto_open")),
            "hours_per_round": _hours_text(settings.get("deadline_hours")),
        },
    )
    return render_template(
        "host/dashboard.html",
        schedule_form=schedule,
        news=_news(match_id, context["names"]),
        token=token,
        action=action,
        problems=problems,
        errors=group_problems(problems, _field_of),
        open_form=forms.get("open") or OpenRoundForm(formdata=None),
        deadline_form=forms.get("deadline") or DeadlineForm(formdata=None),
        reissue_form=reissue,
        action_form=ActionForm(formdata=None),
        confirm_form=ConfirmForm(formdata=None),
        public_url=external_url("public.match_page", match_id=match_id),
        revealed_orders=revealed_orders(view),
        **context,
    ), status_for(exc) if exc is not None else 200


def _done(token: str, message: str) -> ResponseReturnValue:
    flash(message, "notice")
    return redirect(url_for("host.dashboard", token=token))


def _checked(form: Any) -> None:
    if not form.validate():
        raise RuleError(form_problems(form))


def _confirmed(form: Any, what: str) -> Problem | None:
    """The refusal of an action that cannot be undone when the form's "I am
    sure" box is not ticked (None when it is); ``what`` says what would happen."""
    if form.sure.data:
        return None
    return Problem(
        "form/not_confirmed",
        f"{what} cannot be undone: tick “I am sure” beside the button to confirm. "
        "Nothing was done.",
        "sure",
    )


@bp.get("/<token>")
def dashboard(token: str) -> ResponseReturnValue:
    return _dashboard(token, match_of(token))


@bp.post("/<token>/open")
def open_round(token: str) -> ResponseReturnValue:
    match_id = match_of(token)
    form = OpenRoundForm()
    try:
        _checked(form)
        rnd = referee().open_round(match_id, _deadline_from(form))
    except RuleError as exc:
        return _dashboard(token, match_id, action="open", exc=exc, forms={"open": form})
    return _done(token, f"{rnd.title} is open for orders.")


@bp.post("/<token>/deadline")
def deadline(token: str) -> ResponseReturnValue:
    match_id = match_of(token)
    form = DeadlineForm()
    try:
        _checked(form)
        if form.no_deadline.data:
            if (form.deadline.data or "").strip() or (form.hours.data or "").strip():
                raise RuleError.single(
                    "round/bad_deadline",
                    "choose a new deadline or no deadline, not both",
                    "deadline",
                )
            referee().extend_deadline(match_id, None)
            return _done(token, "The open round has no deadline now.")
        when = _deadline_from(form)
        if when is None:
            raise RuleError.single(
                "round/bad_deadline",
                "give the new deadline, a number of hours from now, or tick 'No deadline'",
                "deadline",
            )
        rnd = referee().extend_deadline(match_id, when)
    except RuleError as exc:
        return _dashboard(token, match_id, action="deadline", exc=exc, forms={"deadline": form})
    shown = rnd.deadline.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ") if rnd.deadline else "none"
    return _done(token, f"The open round's deadline is now {shown}.")


def _simple(
    token: str, action: str, call: Any, message: str, confirm: str | None = None
) -> ResponseReturnValue:
    """A button's action: ``call(match_id)``, then ``message`` (formatted with
    what the call returned as ``{0}``). With ``confirm`` (what the action does,
    for the refusal) the action cannot be undone and needs "I am sure" ticked."""
    match_id = match_of(token)
    try:
        form = ConfirmForm() if confirm else ActionForm()
        _checked(form)
        unsure = _confirmed(form, confirm) if confirm else None
        if unsure is not None:
            raise RuleError([unsure])
        returned = call(match_id)
    except RuleError as exc:
        return _dashboard(token, match_id, action=action, exc=exc)
    return _done(token, message.format(returned))


def _hours_text(value: object) -> str:
    """Hours as the schedule form shows them: 48, not 48.0."""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return "" if value is None else str(value)


@bp.post("/<token>/schedule")
def schedule(token: str) -> ResponseReturnValue:
    """Whether rounds open by themselves, and each round's hours (issue 14)."""
    match_id = match_of(token)
    form = ScheduleForm()
    try:
        _checked(form)
        hours = typed_number(form.hours_per_round.data, "")
        auto = bool(form.auto_open.data)
        referee().set_schedule(match_id, auto_open=auto, hours_per_round=hours)
    except RuleError as exc:
        return _dashboard(token, match_id, action="schedule", exc=exc, forms={"schedule": form})
    each = f"each round has {_hours_text(hours)} hours" if hours else "rounds have no deadline"
    if auto:
        return _done(token, f"Rounds now open by themselves; {each}.")
    return _done(token, f"Rounds now open only when you open them; {each}.")


# the outbox's events and statuses in plain words
EVENTS = {
    "match_created": "match created",
    "round_opened": "round opened",
    "reminder": "reminder",
    "round_closed": "round closed",
    "match_ended": "match ended",
    "link_again": "private link asked for again",
}


def _status(message: Any) -> str:
    if message.status == "pending":
        return "retrying" if message.attempts else "waiting"
    return str(message.status)


def _news(match_id: str, names: dict[int, str]) -> dict[str, Any]:
    """The "Messages" section: per seat whether it has an address (never the
    address), the webhook set or not, the reminders, and the outbox: counts by
    status and each failed or retrying message (never a body nor a recipient;
    its last error as :func:`referee.notify.outbox.error_for_host` gives it)."""
    settings, contacts = referee().notify_settings(match_id)
    seats = []
    for seat, name in names.items():
        contact = contacts.get(seat)
        if contact is None or (contact.email is None and not contact.unsubscribed):
            state = "no address"
        elif contact.email is None:
            state = "no address (the player stopped e-mails)"
        elif contact.unsubscribed:
            state = "has an address, but unsubscribed"
        else:
            state = "has an address"
        seats.append({"seat": seat, "name": name, "state": state})
    messages = referee().messages(match_id)
    counts: dict[str, int] = {}
    for message in messages:
        counts[_status(message)] = counts.get(_status(message), 0) + 1
    trouble = []
    for message in messages:
        if _status(message) not in ("failed", "retrying"):
            continue
        error = error_for_host(message) or ""
        trouble.append(
            {
                "event": EVENTS.get(message.event, message.event),
                "who": "webhook" if message.seat is None else f"seat {message.seat}",
                "status": _status(message),
                "attempts": message.attempts,
                "error": error or "no error recorded",
                "next": message.due_at.isoformat() if _status(message) == "retrying" else None,
            }
        )
    return {
        "seats": seats,
        "webhook": bool(settings and settings.webhook_url),
        "reminders": [_hours_text(h) for h in (settings.remind_before_hours if settings else [])],
        "configured": settings is not None,
        "counts": counts,
        "total": len(messages),
        "trouble": trouble,
        "mail_enabled": referee().notify.mail_enabled,
    }


@bp.post("/<token>/pause")
def pause(token: str) -> ResponseReturnValue:
    return _simple(
        token, "pause", referee().pause, "The match is paused: no round closes by its deadline."
    )


@bp.post("/<token>/resume")
def resume(token: str) -> ResponseReturnValue:
    return _simple(
        token,
        "pause",
        referee().resume,
        "The match is running again; the open round's deadline moved by the time paused.",
    )


@bp.post("/<token>/close")
def close(token: str) -> ResponseReturnValue:
    def call(match_id: str) -> str:
        return referee().close_round(match_id).title

    return _simple(
        token,
        "close",
        call,
        "{0} is closed and resolved; its results are below.",
        confirm="Closing the open round now",
    )


@bp.post("/<token>/reveal")
def reveal(token: str) -> ResponseReturnValue:
    rules = referee().ruleset_of(match_of(token))
    return _simple(
        token,
        "reveal",
        referee().reveal,
        f"Full reveal: {web_for(rules).reveal_what} and receipts' salts are now public.",
        confirm="The full reveal",
    )


@bp.post("/<token>/preview")
def preview(token: str) -> ResponseReturnValue:
    match_id = match_of(token)
    try:
        _checked(ActionForm())
        found = referee().preview(match_id)
    except RuleError as exc:
        return _dashboard(token, match_id, action="close", exc=exc)
    view = view_for(found.state, Viewer.host())
    shown = preview_for(found)
    if shown["resolved"]:  # only orders the host entered: the whole resolution
        view = {**view, "closed_rounds": shown["round"], "result": shown["result"]}
    context = view_context(view, draw=False)
    return render_template("host/preview.html", token=token, preview=shown, **context)


@bp.route("/<token>/order/<int:seat>", methods=["GET", "POST"])
def enter_order(token: str, seat: int) -> ResponseReturnValue:
    match_id = match_of(token)
    state = referee().state(match_id)
    if seat not in state.setup.seats:
        abort(404, description="This match has no such seat.")
    view = view_for(state, Viewer.host())
    context = view_context(view)
    exc: RuleError | None = None
    if request.method == "POST":
        built, receipt, exc = submit(match_id, view, context, seat, host=True)
        if exc is None and built is not None:
            return _done(
                token,
                f"Order for {context['names'][seat]} in {built.round['title']} recorded as "
                f"entered by the host. Receipt: {receipt}.",
            )
        if built is None or (exc is not None and exc.codes == ["round/closed"]):
            return _dashboard(token, match_id, action="order", exc=exc)
    else:
        built = order_form(view, context, seat)
    rnd = context["open_round"]
    sent_at = rnd.get("sent_at", {}) if rnd else {}
    return render_template(
        "host/order.html",
        token=token,
        seat=seat,
        order=built,
        problems=list(exc.problems) if exc is not None else [],
        existing=sent_at.get(str(seat)),
        existing_by_host=rnd is not None and seat in rnd.get("host_entered", []),
        **context,
    ), status_for(exc) if exc is not None else 200


@bp.post("/<token>/reissue")
def reissue(token: str) -> ResponseReturnValue:
    match_id = match_of(token)
    form = ReissueForm()
    try:
        _checked(form)
        who = form.who.data or CHOOSE
        seats = referee().state(match_id).setup.seats
        problems: list[Problem] = []
        if who == CHOOSE:
            problems.append(
                Problem(
                    "form/no_choice",
                    "choose the link to re-issue: yours (the host's) or a seat's",
                    "who",
                )
            )
        elif who not in ("host", *(str(s) for s in seats)):
            problems.append(
                Problem("seat/unknown", "choose the host or a seat whose link to re-issue", "who")
            )
        unsure = _confirmed(form, "Re-issuing a link")
        if unsure is not None:
            problems.append(unsure)
        if problems:
            raise RuleError(problems)
        seat = None if who == "host" else int(who)
        new = referee().reissue_token(match_id, seat)
    except RuleError as exc:
        return _dashboard(token, match_id, action="reissue", exc=exc, forms={"reissue": form})
    # POST/redirect/GET, as for a new match: a reload shows the same new link and
    # re-issues nothing (the database keeps only the link's hash)
    entry = {"id": match_id, "who": who, "token": new, "at": now().timestamp()}
    dashboard_token = new if seat is None else token
    kept = keep_in_session(
        REISSUED_KEY,
        entry,
        keep_for=REISSUED_FOR,
        most=REISSUED_KEPT,
        replaces=lambda e: (e.get("id"), e.get("who")) == (match_id, who),
    )
    if not kept:  # no room in this browser's session: shown by this answer alone
        return _reissued_page(dashboard_token, entry, kept=False)
    return redirect(url_for("host.reissued", token=dashboard_token, who=who), code=303)


# a re-issued link is shown again to the browser that re-issued it, for an hour
# (the last three); see docs/hosting.md
REISSUED_KEY = "reissued_links"
REISSUED_KEPT = 3
REISSUED_FOR = timedelta(hours=1)


def _reissued() -> list[dict[str, Any]]:
    """The re-issued links this browser's session keeps, newest first."""
    return kept_in_session(REISSUED_KEY, REISSUED_FOR)


@bp.get("/<token>/reissued/<who>")
def reissued(token: str, who: str) -> ResponseReturnValue:
    """The link just re-issued, to the browser that re-issued it."""
    match_id = match_of(token)
    entry = next((e for e in _reissued() if (e["id"], e["who"]) == (match_id, who)), None)
    if entry is None:
        flash(
            "A re-issued link is shown only to the browser that re-issued it, for one hour: "
            "re-issue it again if it was lost.",
            "notice",
        )
        return redirect(url_for("host.dashboard", token=token))
    return _reissued_page(token, entry, kept=True)


def _reissued_page(token: str, entry: dict[str, Any], *, kept: bool) -> ResponseReturnValue:
    """The page of a link just re-issued (``kept``: in this browser's session,
    so a reload shows it again; else shown by this answer only), under the
    host link ``token``."""
    match_id, who = entry["id"], entry["who"]
    state = referee().state(match_id)
    view = view_for(state, Viewer.host())
    names = {p["seat"]: p["name"] for p in view["players"]}
    seat = None if who == "host" else int(who)
    if seat is None:
        url = external_url("host.dashboard", token=entry["token"])
        label = "your host link"
        dashboard_url = url
    else:
        url = external_url("player.play", token=entry["token"])
        label = f"the link of seat {seat} ({names[seat]})"
        dashboard_url = url_for("host.dashboard", token=token)
    # kept by no cache: the app's one rule for every /host/ answer (referee.web)
    return render_template(
        "host/reissued.html",
        view=view,
        url=url,
        label=label,
        seat=seat,
        dashboard_url=dashboard_url,
        kept=kept,
    )


@bp.get("/<token>/post")
def post(token: str) -> ResponseReturnValue:
    match_id = match_of(token)
    fmt = request.args.get("format", "markdown")
    try:
        check_post_format(fmt, "format")
    except RuleError as exc:
        return _dashboard(token, match_id, action="post", exc=exc)
    state = referee().state(match_id)
    public = view_for(state, Viewer.public())
    text = match_post(state.ruleset, public, fmt, base_url=base_url())
    return render_template(
        "host/post.html",
        token=token,
        view=public,
        fmt=fmt,
        formats=POST_FORMATS,
        text=text,
        # as a forum shows it: the renderers escape every character of the post
        # that is not their markup (referee.markup.to_html), so it runs nothing
        rendered=markupsafe.Markup(to_html(text, fmt)),
    )


@bp.get("/<token>/audit")
def audit(token: str) -> ResponseReturnValue:
    """The best play per seat (the ruleset's audit), for the host only."""
    match_id = match_of(token)
    state = referee().state(match_id)
    view = view_for(state, Viewer.host())
    page = {"token": token, "view": view, "game": web_for(state.ruleset)}
    try:
        report = referee().audit(match_id)
    except RuleError as exc:
        return render_template(
            "host/audit.html", **page, report=None, problems=exc.problems
        ), status_for(exc)
    return render_template("host/audit.html", **page, report=report, problems=())


@bp.get("/<token>/export")
def export(token: str) -> Response:
    match_id = match_of(token)
    doc = referee().export(match_id)
    body = json.dumps(doc, indent=1, ensure_ascii=False) + "\n"
    return Response(
        body,
        mimetype="application/json",
        headers={"Content-Disposition": f'attachment; filename="{match_id}.match.json"'},
    )
