"""Creating a season (``/seasons/new``), its secret links, shown once to the
browser that created it, and its public standings.
"""

from __future__ import annotations

import hmac
from typing import Any

from flask import abort, current_app, redirect, render_template, request, url_for
from flask.typing import ResponseReturnValue
from werkzeug.datastructures import MultiDict

from forms.season import MAX_ROSTER_ROWS, ROSTER_ROWS, NewSeasonForm
from referee.errors import Problem, RuleError
from referee.seasons.views import player_names, season_view
from referee.web import seasons
from referee.web.common import external_url, status_for
from referee.web.pages import form_problems, group_problems, keep_in_session, kept_in_session, now
from referee.web.season_pages.common import (
    LINKS_KEPT_FOR,
    SEASON_KEY,
    bp,
    read_int,
    season_state,
    too_many_rows,
)

# ---- creating a season --------------------------------------------------------


def _rows() -> int:
    asked = read_int(request.args.get("rows"))
    return min(max(asked, ROSTER_ROWS), MAX_ROSTER_ROWS) if isinstance(asked, int) else ROSTER_ROWS


def _new_field(p: Problem) -> str:
    if p.field in ("name", "token_bonus", "token_lasts", "admin_key"):
        return p.field
    if p.field == "rules":
        return "token_bonus"
    return ""


def _bad_roster_rows() -> RuleError | None:
    """The refusal of a posted roster the page cannot read, before any form is
    built: more than :data:`MAX_ROSTER_ROWS` rows, counted as the roster's
    FieldList would build them (its distinct ``players-N-`` numbers), or a row
    numbered in other than ASCII digits (which the FieldList would take for
    a number, then fail to read: a 500)."""
    numbers = set()
    for key in request.form:
        if key.startswith("players"):
            part = key[len("players-") :].split("-", 1)[0]
            if part.isdigit() and not part.isascii():
                return RuleError.single(
                    "season/bad_rows",
                    f"the form sent a row numbered {part[:10]!r}: the page's rows are "
                    "numbered 0, 1, 2... Nothing was created.",
                    "players",
                )
            if part.isdigit():
                numbers.add(int(part))
    return too_many_rows(len(numbers), "roster rows")


@bp.route("/seasons/new", methods=["GET", "POST"])
def new() -> ResponseReturnValue:
    admin_key = current_app.config.get("ADMIN_KEY")
    bad_rows = _bad_roster_rows() if request.method == "POST" else None
    if bad_rows is not None:  # the page again with its normal rows, what else was typed kept
        rest = [(k, v) for k, v in request.form.items(multi=True) if not k.startswith("players")]
        form = NewSeasonForm(formdata=MultiDict(rest))
    else:
        form = NewSeasonForm()
    if request.method == "GET":
        while len(form.players.entries) < _rows():
            form.players.append_entry()

    def page(problems: list[Problem]) -> str:
        return render_template(
            "seasons/new.html",
            form=form,
            problems=problems,
            errors=group_problems(problems, _new_field),
            more_rows=min(len(form.players.entries) + 8, MAX_ROSTER_ROWS),
            need_admin_key=bool(admin_key),
        )

    if not form.is_submitted():
        return page([])
    if not form.validate():
        invalid = form_problems(form)
        return page(invalid), status_for(RuleError(invalid))
    # the key first, before any work; a wrong one counts as a failed attempt, as on
    # /new and the API (referee.web.ratelimit)
    if admin_key and not hmac.compare_digest(
        (form.admin_key.data or "").encode(), str(admin_key).encode()
    ):
        refusal = Problem(
            "auth/unauthorized",
            "creating seasons on this server needs its admin key",
            "admin_key",
        )
        return page([refusal]), 401
    if bad_rows is not None:
        return page(list(bad_rows.problems)), status_for(bad_rows)
    roster: list[dict[str, Any]] = []
    for entry in form.players.entries:
        name = entry.form.name.data or ""
        garnets = entry.form.garnets.data or ""
        email = entry.form.email.data or ""
        if not name and garnets in ("", "0") and not email:
            continue  # a blank row
        row: dict[str, Any] = {"name": name, "garnets": read_int(garnets) if garnets else 0}
        if email:
            row["email"] = email
        roster.append(row)
    rules = {
        "token_bonus": read_int(form.token_bonus.data or "0"),
        "token_lasts": form.token_lasts.data,
    }
    try:
        made = seasons().create_season(
            name=form.name.data or "", players=roster, rules=rules, signups=bool(form.signups.data)
        )
    except RuleError as exc:
        return page(list(exc.problems)), status_for(exc)
    entry = {
        "id": made.season_id,
        "at": now().timestamp(),
        "host": made.host_token,
        "players": [[n, t] for n, t in sorted(made.player_tokens.items())],
    }
    kept = keep_in_session(
        SEASON_KEY, entry, keep_for=LINKS_KEPT_FOR, most=1, replaces=lambda e: True
    )
    if not kept:  # too many for a cookie: shown once, by this answer
        return _links_page(entry, kept=False)
    return redirect(url_for("seasons.created", season_id=made.season_id), code=303)


@bp.get("/seasons/<season_id>/links")
def created(season_id: str) -> ResponseReturnValue:
    """A new season's secret links, to the browser that created it, for an hour."""
    entry = next(
        (e for e in kept_in_session(SEASON_KEY, LINKS_KEPT_FOR) if e.get("id") == season_id), None
    )
    if entry is None:
        abort(
            404,
            description="A new season's links are shown only to the browser that created it, "
            "for one hour after creating it.",
        )
    return _links_page(entry, kept=True)


def _links_page(entry: dict[str, Any], *, kept: bool) -> ResponseReturnValue:
    view = season_view(season_state(entry["id"]), "host")
    names = {p["number"]: p["name"] for p in view["players"]}
    links = [
        {"number": n, "name": names[n], "url": external_url("seasons.player", token=t)}
        for n, t in entry["players"]
    ]
    left = max(1, int((LINKS_KEPT_FOR.total_seconds() - (now().timestamp() - entry["at"])) // 60))
    response = current_app.make_response(
        render_template(
            "seasons/created.html",
            view=view,
            kept=kept,
            minutes_left=left,
            host_url=external_url("seasons.host", token=entry["host"]),
            player_links=links,
            public_url=external_url("seasons.standings", season_id=entry["id"]),
        )
    )
    response.headers["Cache-Control"] = "no-store"  # it shows secret links
    return response


# ---- the public standings -----------------------------------------------------


@bp.get("/seasons/<season_id>")
def standings(season_id: str) -> ResponseReturnValue:
    view = season_view(season_state(season_id), "public")
    return render_template("seasons/standings.html", view=view, names=player_names(view))
