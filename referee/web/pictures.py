"""Public pictures of a match for forums and other sites: the map and the results
as SVG and as PNG (the PNG is rendered from the same SVG with cairosvg).

Made from the *public* view only (R11), through the match's ruleset, so a
picture never shows more than the public page. Each response carries an ETag
of the match's version and may be kept for a minute.
"""

from __future__ import annotations

from functools import lru_cache

import cairosvg
from flask import Blueprint, Response, request
from flask.typing import ResponseReturnValue

from referee.errors import RuleError
from referee.ruleset import Viewer
from referee.views import view_for
from referee.web import referee
from referee.web.public import refused

bp = Blueprint("pictures", __name__)

MAX_AGE = 60  # seconds a browser or a forum's image proxy may keep a picture
NO_RESULTS = "There is no results picture yet: it is drawn once the first rafting round has closed."


@bp.errorhandler(RuleError)
def _refused(exc: RuleError) -> tuple[str, int]:
    return refused(exc)


@lru_cache(maxsize=32)
def svg_to_png(svg: str) -> bytes:
    """The PNG of an SVG document (pictures are small; the last few are kept)."""
    png: bytes = cairosvg.svg2png(bytestring=svg.encode("utf-8"), unsafe=False)
    return png


def _picture(match_id: str, kind: str, fmt: str) -> ResponseReturnValue:
    state = referee().state(match_id)
    view = view_for(state, Viewer.public())
    etag = f"{match_id}-{view['version']}-{kind}-{fmt}"
    if request.if_none_match.contains(etag):
        response = Response(status=304)
    else:
        svg = state.ruleset.map_svg(view) if kind == "map" else state.ruleset.results_svg(view)
        if svg is None:
            raise RuleError.single("picture/not_yet", NO_RESULTS)
        if fmt == "png":
            response = Response(svg_to_png(svg), mimetype="image/png")
        else:
            response = Response(svg, mimetype="image/svg+xml")
    response.set_etag(etag)
    response.headers["Cache-Control"] = f"public, max-age={MAX_AGE}"
    return response


@bp.get("/matches/<match_id>/map.svg")
def map_svg(match_id: str) -> ResponseReturnValue:
    return _picture(match_id, "map", "svg")


@bp.get("/matches/<match_id>/map.png")
def map_png(match_id: str) -> ResponseReturnValue:
    return _picture(match_id, "map", "png")


@bp.get("/matches/<match_id>/results.svg")
def results_svg(match_id: str) -> ResponseReturnValue:
    return _picture(match_id, "results", "svg")


@bp.get("/matches/<match_id>/results.png")
def results_png(match_id: str) -> ResponseReturnValue:
    return _picture(match_id, "results", "png")
