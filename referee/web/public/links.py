"""Lost links and unsubscribing (issue 14): the "lost your private link?"
form of a match's public page, the one-time link it e-mails to a seat, and a
seat's unsubscribe link."""

from __future__ import annotations

from typing import Any

from flask import Response, abort, current_app, flash, redirect, render_template, request, url_for
from flask.typing import ResponseReturnValue
from flask_limiter import Limiter
from flask_limiter.util import get_remote_address
from itsdangerous import BadSignature, SignatureExpired, URLSafeTimedSerializer
from limits import parse as parse_limit

from forms.host import ActionForm
from forms.notify import LinkRequestForm
from referee.errors import Problem, RuleError
from referee.notify.checks import check_email
from referee.ruleset import Viewer
from referee.views import view_for
from referee.web import csrf, referee
from referee.web.common import status_for
from referee.web.pages import form_problems
from referee.web.public.common import bp, mail_enabled, render_match_page
from referee.web.ratelimit import EXTENSION

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
    elif not mail_enabled():
        problems = [
            Problem("notify/no_mail", "this server sends no e-mail, so it cannot send links")
        ]
    else:
        try:
            check_email(form.email.data or "", "your address")
        except RuleError as exc:
            problems = [Problem(p.code, p.message, "email") for p in exc.problems]
    if problems:
        page = render_match_page(match_id, link_form=form, problems=problems)
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
