"""The public's pages of a match and of the site: the home page, a match's
public page, its forum post, how to check it (and the check script), a game's
rules, the site's icon."""

from __future__ import annotations

from flask import Response, abort, current_app, render_template, request
from flask.typing import ResponseReturnValue

from referee.markup import match_post
from referee.resources import bundled_dir
from referee.ruleset import Viewer, get_ruleset, ruleset_names
from referee.views import view_for
from referee.web import referee
from referee.web.common import base_url, check_post_format, external_url
from referee.web.game import web_for
from referee.web.public.common import bp, registered_games, render_match_page


@bp.get("/")
def index() -> str:
    return render_template("public/index.html", games=registered_games())


@bp.get("/matches/<match_id>")
def match_page(match_id: str) -> ResponseReturnValue:
    return render_match_page(match_id)


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
    return render_template(web.rules_template, rules=rules, web=web, games=registered_games())


@bp.get("/favicon.ico")
def favicon() -> ResponseReturnValue:
    """The site's icon where browsers look for it unasked (the pages name
    ``static/favicon.svg`` in a ``<link rel="icon">``)."""
    response = current_app.send_static_file("favicon.svg")
    response.mimetype = "image/svg+xml"
    return response
