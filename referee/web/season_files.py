"""A season's public files (issue 15), each made by :mod:`referee.seasons.post`,
:mod:`referee.seasons.picture` or :mod:`referee.seasons.ledger_files` from the
season's *public* view (:func:`referee.seasons.views.season_view`):

- ``/seasons/<id>/post?format=markdown|bbcode``: the forum post (text/plain);
- ``/seasons/<id>/forum-post?format=markdown|bbcode``: the same post on a page
  to copy it from (a copy button), with how a forum shows it, as the match
  host's post page (templates/host/post.html);
- ``/seasons/<id>/garnets.svg`` and ``.png``: the garnet picture (the PNG drawn
  from the SVG with cairosvg, as the match pictures are, and the one a post
  shows: forums take PNG), with a weak ETag of the season's version (the same
  picture is sent compressed or not), kept a minute;
- ``/seasons/<id>/ledger.csv`` and ``/seasons/<id>/ledger.json``: the ledger,
  the CSV as a download.

A season is played in the open, so these need no link; an unknown season is
a 404.
"""

from __future__ import annotations

import json
from typing import Any

import markupsafe
from flask import Blueprint, Response, abort, render_template, request
from flask.typing import ResponseReturnValue

from referee.errors import RuleError
from referee.markup import to_html
from referee.seasons import ledger_files
from referee.seasons import picture as garnet_picture
from referee.seasons.post import standings_post
from referee.seasons.views import season_view
from referee.web import seasons
from referee.web.common import POST_FORMATS, base_url, check_post_format
from referee.web.pictures import svg_to_png

bp = Blueprint("season_files", __name__)

MAX_AGE = 60  # seconds a browser or a forum's image proxy may keep the picture


def _public_view(season_id: str) -> dict[str, Any]:
    """The season as the public sees it; 404 when there is no such season."""
    try:
        state = seasons().state(season_id)
    except RuleError as exc:
        if exc.codes == ["season/not_found"]:
            abort(404, description=f"There is no season '{season_id}'.")
        raise
    return season_view(state, "public")


@bp.get("/seasons/<season_id>/post")
def post(season_id: str) -> ResponseReturnValue:
    """The season's standings as a forum post, ready to paste."""
    fmt = request.args.get("format", "markdown")
    check_post_format(fmt, "format")
    view = _public_view(season_id)
    return Response(standings_post(view, fmt, base_url=base_url()), mimetype="text/plain")


@bp.get("/seasons/<season_id>/forum-post")
def post_page(season_id: str) -> ResponseReturnValue:
    """The season's post on a page: the text to copy (a button), and the post
    as a forum shows it."""
    fmt = request.args.get("format", "markdown")
    check_post_format(fmt, "format")
    view = _public_view(season_id)
    text = standings_post(view, fmt, base_url=base_url())
    return render_template(
        "seasons/post.html",
        view=view,
        fmt=fmt,
        formats=POST_FORMATS,
        text=text,
        # as a forum shows it: the renderers escape every character of the post
        # that is not their markup (referee.markup.to_html), so it runs nothing
        rendered=markupsafe.Markup(to_html(text, fmt)),
    )


def _garnets(season_id: str, fmt: str) -> ResponseReturnValue:
    """The garnet picture as SVG or PNG; a request naming the current ETag gets 304."""
    view = _public_view(season_id)
    etag = f"season-{season_id}-{view['version']}-garnets" + ("-png" if fmt == "png" else "")
    if request.if_none_match.contains_weak(etag):
        response = Response(status=304)
    elif fmt == "png":
        response = Response(svg_to_png(garnet_picture.garnets_svg(view)), mimetype="image/png")
    else:
        response = Response(garnet_picture.garnets_svg(view), mimetype="image/svg+xml")
    response.set_etag(etag, weak=True)
    response.headers["Cache-Control"] = f"public, max-age={MAX_AGE}"
    return response


@bp.get("/seasons/<season_id>/garnets.svg")
def garnets_svg(season_id: str) -> ResponseReturnValue:
    """The garnet picture as SVG."""
    return _garnets(season_id, "svg")


@bp.get("/seasons/<season_id>/garnets.png")
def garnets_png(season_id: str) -> ResponseReturnValue:
    """The garnet picture as PNG, for forums (a post shows this one)."""
    return _garnets(season_id, "png")


@bp.get("/seasons/<season_id>/ledger.csv")
def ledger_csv(season_id: str) -> ResponseReturnValue:
    """The ledger as a CSV download."""
    view = _public_view(season_id)
    return Response(
        ledger_files.ledger_csv(view),
        mimetype="text/csv",
        headers={"Content-Disposition": f'attachment; filename="season-{view["id"]}-ledger.csv"'},
    )


@bp.get("/seasons/<season_id>/ledger.json")
def ledger_json(season_id: str) -> ResponseReturnValue:
    """The ledger as JSON: entries in order and every balance."""
    view = _public_view(season_id)
    body = json.dumps(ledger_files.ledger_json(view), ensure_ascii=False, indent=1)
    return Response(body, mimetype="application/json")
