"""Season sign-ups' pages (issue 23, item 7), blueprint ``signups``: the join
page behind a season's sign-up link (``/join/<token>``), the page that shows a
new player their season link once, and the host's steps (open or close
sign-ups, remove a player) behind the season host link, whose section of the
host page is ``templates/seasons/_signups.html`` (filled by
:func:`signup_panel`).

Every answer of this blueprint is kept by no cache (``no-store``): the joined
page holds a secret link, and the others sit behind one. A wrong sign-up link
is a 404 that counts as a failed link attempt (:mod:`referee.web.ratelimit`).
Each join post counts towards two limits, per client address
(``RATELIMIT_SIGNUPS``, default 10 an hour) and per season
(``RATELIMIT_SIGNUPS_PER_SEASON``, default 100 an hour): 429 with a plain
message beyond either.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, abort, current_app, render_template
from flask.typing import ResponseReturnValue
from flask_limiter import Limiter
from flask_limiter.util import get_remote_address
from limits import parse as parse_limit

from forms.season import JoinForm, RemovePlayerForm, SignupsForm
from referee.errors import Problem, RuleError
from referee.seasons.signups import Signups
from referee.seasons.views import season_view
from referee.web import referee, seasons
from referee.web.common import external_url, status_for
from referee.web.pages import form_problems, group_problems
from referee.web.ratelimit import EXTENSION, retry_after
from referee.web.season_pages.common import done, host_season, read_int
from referee.web.season_pages.host import host_page

bp = Blueprint("signups", __name__)

NOT_FOUND = "This sign-up link does not open anything here. Ask the season's host for theirs."
# joins, by client address and by season (Flask-Limiter limit strings; set in the
# app's config to change them)
SIGNUP_LIMITS = {
    "RATELIMIT_SIGNUPS": "10 per hour",
    "RATELIMIT_SIGNUPS_PER_SEASON": "100 per hour",
}
TOO_MANY = (
    "Too many sign-ups came from your address or for this season; wait a while and try "
    "again. Nothing was changed."
)


def signups() -> Signups:
    return Signups(seasons())


@bp.after_request
def _no_store(response: Response) -> Response:
    response.headers["Cache-Control"] = "no-store"
    return response


def _season_of(token: str) -> str:
    found = signups().find(token)
    if found is None:
        abort(404, description=NOT_FOUND)
    return found


def _mail_enabled() -> bool:
    return referee().notify.mail_enabled


def join_allowed(season_id: str) -> bool:
    """Count one join against both limits (:data:`SIGNUP_LIMITS`); False when
    either is used up."""
    limiter: Limiter | None = current_app.extensions.get(EXTENSION)
    if (
        limiter is None
        or not limiter.enabled
        or not current_app.config.get("RATELIMIT_ENABLED", True)
    ):
        return True

    def limit(key: str) -> Any:
        return parse_limit(str(current_app.config.get(key) or SIGNUP_LIMITS[key]))

    by_client = limiter.limiter.hit(limit("RATELIMIT_SIGNUPS"), "signup", get_remote_address())
    return by_client and limiter.limiter.hit(
        limit("RATELIMIT_SIGNUPS_PER_SEASON"), "signup-season", season_id
    )


def _join_page(
    token: str, season_id: str, form: Any, exc: RuleError | None = None
) -> ResponseReturnValue:
    state = seasons().state(season_id)
    status = signups().status(season_id)
    problems = list(exc.problems) if exc is not None else []
    page = render_template(
        "seasons/join.html",
        token=token,
        view=season_view(state, "public"),
        status=status,
        form=form,
        mail_enabled=_mail_enabled(),
        problems=problems,
        errors=group_problems(problems, lambda p: p.field or ""),
        public_url=external_url("seasons.standings", season_id=season_id),
    )
    return page, status_for(exc) if exc is not None else 200


@bp.get("/join/<token>")
def join_page(token: str) -> ResponseReturnValue:
    return _join_page(token, _season_of(token), JoinForm(formdata=None))


@bp.post("/join/<token>")
def join(token: str) -> ResponseReturnValue:
    """Join: the new player's season link is shown once, by this answer alone."""
    season_id = _season_of(token)
    form = JoinForm()
    if not form.validate():
        return _join_page(token, season_id, form, RuleError(form_problems(form)))
    if not join_allowed(season_id):
        page = render_template("error.html", code=429, title="Too many sign-ups", message=TOO_MANY)
        return page, 429, {"Retry-After": str(retry_after(current_app))}
    email = form.email.data or None
    try:
        joined = signups().join(season_id, name=form.name.data or "", email=email)
    except RuleError as exc:
        return _join_page(token, season_id, form, exc)
    state = seasons().state(season_id)
    return render_template(
        "seasons/joined.html",
        view=season_view(state, "public"),
        name=joined.name,
        number=joined.number,
        url=external_url("seasons.player", token=joined.token),
        public_url=external_url("seasons.standings", season_id=season_id),
    )


# ---- the host's part ------------------------------------------------------------


def signup_panel(season_id: str) -> dict[str, Any]:
    """What the host page's sign-up section shows (a template global)."""
    status = signups().status(season_id)
    state = seasons().state(season_id)
    joined = [
        {"number": p.number, "name": p.name, "joined": p.joined_at is not None}
        for p in state.players
    ]
    return {
        "status": status,
        "url": external_url("signups.join_page", token=status.token),
        "players": joined,
        "toggle_form": SignupsForm(formdata=None),
        "remove_form": RemovePlayerForm(formdata=None),
    }


@bp.app_template_global()
def season_signups(season_id: str) -> dict[str, Any]:
    return signup_panel(season_id)


def _host_refused(token: str, season_id: str, exc: RuleError) -> ResponseReturnValue:
    return host_page(token, season_id, action="signups", exc=exc)


@bp.post("/season-host/<token>/signups")
def toggle(token: str) -> ResponseReturnValue:
    season_id = host_season(token)
    form = SignupsForm()
    try:
        if not form.validate():
            raise RuleError(form_problems(form))
        if form.open.data not in ("0", "1"):
            raise RuleError.single("season/bad_signups", "open or close the sign-ups", "open")
        status = signups().set_open(season_id, form.open.data == "1")
    except RuleError as exc:
        return _host_refused(token, season_id, exc)
    if status.open:
        return done(token, "Sign-ups are open: post the sign-up link where players will see it.")
    return done(
        token,
        "Sign-ups are closed: no one can join now (you may open them again until the "
        "first Main Match).",
    )


@bp.post("/season-host/<token>/signups/remove")
def remove(token: str) -> ResponseReturnValue:
    season_id = host_season(token)
    form = RemovePlayerForm()
    try:
        if not form.validate():
            raise RuleError(form_problems(form))
        name = signups().remove(season_id, read_int(form.player.data))
    except RuleError as exc:
        if "season/unknown_player" in exc.codes:
            exc = RuleError([Problem("season/unknown_player", "choose a player of the season")])
        return _host_refused(token, season_id, exc)
    return done(token, f"{name} is removed from the season; their season link opens nothing now.")
