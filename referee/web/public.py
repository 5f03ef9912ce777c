"""Web pages for the public: the home page, creating a match, a match's public
page and its forum post.

Every page about a match is rendered from :func:`referee.views.view_for`, never
from stored rows. The helpers the pages share are in :mod:`referee.web.pages`
(Rocky River's own in :mod:`referee.web.rocky_river`); a refusal that is not
shown on a form is answered by the app's one RuleError handler.
"""

from __future__ import annotations

import hmac
import re
from typing import Any

from flask import Blueprint, Response, current_app, render_template, request
from flask.typing import ResponseReturnValue

from forms.match import CreateMatchForm
from forms.orders import choices
from referee.errors import Problem, RuleError
from referee.jsonio import loads_strict
from referee.ruleset import Viewer, get_ruleset
from referee.rulesets.rocky_river.data import DEFAULT_MAP, bundled_map_names
from referee.rulesets.rocky_river.data import load_bundled_map as _load_bundled_map
from referee.rulesets.rocky_river.river_map import parse_map
from referee.service import setting_keys
from referee.views import view_for
from referee.web import referee
from referee.web.common import base_url, check_post_format, check_text, external_url, status_for
from referee.web.pages import form_problems, group_problems
from referee.web.rocky_river import match_context

bp = Blueprint("public", __name__)


# ---- pages ------------------------------------------------------------------


@bp.get("/")
def index() -> str:
    return render_template("public/index.html")


def _number(text: str | None, default: int | float | str) -> int | float | str:
    """A number typed in a form; what was typed when it is not one (so the
    service names it in its message)."""
    text = (text or "").strip()
    if not text:
        return default
    if re.fullmatch(r"[+-]?\d+", text):
        return int(text)
    try:
        return float(text)
    except ValueError:
        return text


def _create_field(p: Problem) -> str:
    """The create form's field a problem concerns."""
    field = p.field or ""
    index = re.fullmatch(r"players\[(\d)\]", field)
    if index:
        return f"players-{index.group(1)}"
    if p.code.startswith(("map/", "json/")) or p.code == "match/bad_map":
        return "map"
    if field in setting_keys(get_ruleset("rocky-river")) or field in ("name", "admin_key"):
        return field
    return ""


def _read_map(form: Any) -> tuple[Any, list[Problem], str]:
    """The map the host chose: (map_ref or None, problems reading it, source).
    An uploaded file comes first, then pasted JSON, else the bundled map. An
    uploaded file's text is put in the paste box, so a refused map can be edited."""
    upload: Any = form.map_file.data
    text: str | None = None
    source = "bundled"
    if upload is not None and upload.filename:
        source = "upload"
        raw = upload.read()
        try:
            text = raw.decode("utf-8-sig")
        except UnicodeDecodeError:
            return None, [Problem("json/invalid", "the map file is not UTF-8 text", "map")], source
        form.map_json.data = text
    elif (form.map_json.data or "").strip():
        source = "paste"
        text = form.map_json.data
    if text is None:
        return form.bundled_map.data or DEFAULT_MAP, [], source
    try:
        doc = loads_strict(text, "the map")
        check_text(doc, "the map", "map/bad_text")
        return doc, [], source
    except RuleError as exc:
        return None, list(exc.problems), source


def _balance(map_ref: Any) -> dict[str, Any] | None:
    """The map's balance and fairness report, or None for a map with problems
    (those are shown by the form's own check)."""
    try:
        report: dict[str, Any] = get_ruleset("rocky-river").setup_report({"map": map_ref})
    except RuleError:
        return None
    return report


def _map_problems(map_ref: Any) -> list[Problem]:
    try:
        if isinstance(map_ref, str):
            _load_bundled_map(map_ref)
        else:
            parse_map(map_ref)
    except RuleError as exc:
        return list(exc.problems)
    return []


@bp.route("/new", methods=["GET", "POST"])
def new_match() -> ResponseReturnValue:
    form = CreateMatchForm()
    names = bundled_map_names()
    form.bundled_map.choices = choices((n, n) for n in names)
    admin_key = current_app.config.get("ADMIN_KEY")

    def page(problems: list[Problem], balance: Any = None, checked: bool = False) -> str:
        return render_template(
            "public/new.html",
            form=form,
            problems=problems,
            errors=group_problems(problems, _create_field),
            balance=balance,
            map_checked=checked,
            need_admin_key=bool(admin_key),
        )

    if not form.is_submitted():
        form.bundled_map.data = DEFAULT_MAP if DEFAULT_MAP in names else (names or [""])[0]
        return page([])

    if not form.validate():
        invalid = form_problems(form)
        return page(invalid), status_for(RuleError(invalid))
    # the key first, before any work (reading a map, its fairness solves); a wrong
    # key counts as a failed attempt, as on the API (referee.web.ratelimit)
    if admin_key and not hmac.compare_digest(
        (form.admin_key.data or "").encode(), str(admin_key).encode()
    ):
        refusal = [
            Problem(
                "auth/unauthorized",
                "creating matches or checking maps on this server needs its admin key",
                "admin_key",
            )
        ]
        return page(refusal), 401
    problems: list[Problem] = []
    map_ref, read_problems, source = _read_map(form)
    if form.check_map.data:
        problems += read_problems or (_map_problems(map_ref) if map_ref is not None else [])
        balance = _balance(map_ref) if map_ref is not None else None
        status = status_for(RuleError(problems)) if problems else 200
        return page(problems, balance, checked=not problems), status
    players = [
        {
            "seat": i + 1,
            "name": entry.form.name.data or "",
            "garnets": _number(entry.form.garnets.data, ""),
        }
        for i, entry in enumerate(form.players.entries)
    ]
    settings = {
        "deadline_hours": _number(form.deadline_hours.data, 0),
        "publish_totals": bool(form.publish_totals.data),
        "close_early": bool(form.close_early.data),
    }
    balance = _balance(map_ref) if map_ref is not None and source != "bundled" else None
    created = None
    try:
        created = referee().create_match(
            name=form.name.data or "",
            setup={"map": map_ref},
            players=players,
            settings=settings,
        )
    except RuleError as exc:
        found = list(exc.problems)
        if read_problems:  # the map could not be read: say why, not "no map"
            found = [p for p in found if p.code != "match/bad_map"]
        problems += read_problems + found
    if created is None:
        return page(problems, balance), status_for(RuleError(problems))

    state = referee().state(created.match_id)
    view = view_for(state, Viewer.host())
    seat_links = [
        {
            "seat": seat,
            "name": next(p["name"] for p in view["players"] if p["seat"] == seat),
            "url": external_url("player.play", token=token),
        }
        for seat, token in sorted(created.player_tokens.items())
    ]
    return render_template(
        "public/created.html",
        view=view,
        host_url=external_url("host.dashboard", token=created.host_token),
        seat_links=seat_links,
        public_url=external_url("public.match_page", match_id=created.match_id),
        balance=balance,
    )


@bp.get("/matches/<match_id>")
def match_page(match_id: str) -> ResponseReturnValue:
    state = referee().state(match_id)
    view = view_for(state, Viewer.public())
    return render_template("public/match.html", **match_context(view))


@bp.get("/matches/<match_id>/post")
def post(match_id: str) -> ResponseReturnValue:
    fmt = request.args.get("format", "markdown")
    check_post_format(fmt, "format")
    state = referee().state(match_id)
    text = state.ruleset.post(view_for(state, Viewer.public()), fmt, base_url=base_url())
    return Response(text, mimetype="text/plain")
