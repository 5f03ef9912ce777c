"""Public pictures of a match for forums and other sites: each picture its ruleset
draws (:meth:`referee.ruleset.Ruleset.pictures`), at ``/matches/<id>/<name>.svg``
and ``.png`` (the PNG is rendered from the same SVG with cairosvg).

Made from the *public* view only, through the match's ruleset, so a
picture never shows more than the public page. Each response carries a weak
ETag of the public view's version (weak: the same picture is sent gzip- or
br-compressed or not, ``Vary: Accept-Encoding``) and may be kept for a minute.

:func:`drawn` draws a picture of any viewer's view, pages included, and keeps
the last ones drawn (bounded, per process) by what the viewer sees: the match,
the viewer and the digest of its view (``view["version"]``) with the picture's
name, so a picture drawn from one viewer's view is never handed to another
whose view differs, and a change of state draws it anew.

A PNG's cost is bounded: it is scaled down to at most :data:`MAX_PNG_SIDE`
pixels a side and :data:`MAX_PNG_PIXELS` in all (cairo cannot even make an
image over 32,767 pixels a side: the picture of a board that big answered 500), and a picture
that still cannot be drawn is refused with ``picture/too_big``, never a 500.
"""

from __future__ import annotations

import contextlib
import logging
import math
import re
import threading
from functools import lru_cache
from typing import Any

import cairosvg
from cachetools import LRUCache
from flask import Blueprint, Response, request
from flask.typing import ResponseReturnValue

from referee.errors import RuleError
from referee.ruleset import Viewer, get_ruleset
from referee.views import view_for
from referee.web import referee

bp = Blueprint("pictures", __name__)
log = logging.getLogger(__name__)

MAX_AGE = 60  # seconds a browser or a forum's image proxy may keep a picture
MAX_PNG_SIDE = 4096  # pixels
MAX_PNG_PIXELS = 4_000_000  # 16 MB of image in memory while drawing
_WIDTH = re.compile(r'\swidth="([0-9]+(?:\.[0-9]+)?)"')
_HEIGHT = re.compile(r'\sheight="([0-9]+(?:\.[0-9]+)?)"')


def png_scale(svg: str) -> float:
    """How much to shrink ``svg`` (its root's width and height, in pixels) so that
    its PNG stays within MAX_PNG_SIDE a side and MAX_PNG_PIXELS in all; 1 for
    any picture already within them."""
    start = svg.find("<svg")
    root = svg[start : svg.find(">", start)] if start >= 0 else ""
    found = _WIDTH.search(root), _HEIGHT.search(root)
    if found[0] is None or found[1] is None:
        return 1.0
    width, height = (max(1.0, float(m.group(1))) for m in found if m is not None)
    scale = min(
        1.0, MAX_PNG_SIDE / max(width, height), math.sqrt(MAX_PNG_PIXELS / (width * height))
    )

    def too_big(w: int, h: int) -> bool:
        return max(w, h) > MAX_PNG_SIDE or w * h > MAX_PNG_PIXELS

    # cairosvg rounds the scaled size: shrink a hair more until the rounded size fits
    while scale < 1.0 and too_big(round(width * scale), round(height * scale)):
        scale *= 0.999
    return scale


@lru_cache(maxsize=32)
def svg_to_png(svg: str) -> bytes:
    """The PNG of an SVG document, scaled down when it is big (the last few are
    kept)."""
    try:
        png: bytes = cairosvg.svg2png(
            bytestring=svg.encode("utf-8"), unsafe=False, scale=png_scale(svg)
        )
    except Exception as exc:  # cairo's limits, memory: a refusal, not a 500
        log.warning("picture not drawn: %r", exc)
        raise RuleError.single(
            "picture/too_big", "this picture is too big to draw as PNG; the SVG version may work"
        ) from exc
    return png


MAX_CACHED_SVG = 8_000_000  # characters of SVG kept by drawn(), all pictures together
_cache: LRUCache[tuple[Any, ...], str | None] = LRUCache(
    maxsize=MAX_CACHED_SVG, getsizeof=lambda svg: 200 + len(svg or "")
)
_cache_lock = threading.Lock()


def drawn(view: dict[str, Any], name: str) -> str | None:
    """The ruleset's picture ``name`` of ``view`` (None: not drawn yet at this
    stage), drawn once per state of what the viewer sees and then kept."""
    draw = get_ruleset(view["ruleset"]).pictures()[name]
    version = view.get("version")
    if version is None:  # a view without its digest (a preview): drawn each time
        return draw(view)
    viewer = view.get("viewer") or {}
    key = (view["id"], viewer.get("kind"), viewer.get("seat"), version, view["ruleset"], name)
    with _cache_lock:
        if key in _cache:
            return _cache[key]
    svg = draw(view)
    # (one picture bigger than the whole cache is not kept)
    with _cache_lock, contextlib.suppress(ValueError):
        _cache[key] = svg
    return svg


def _picture(match_id: str, name: str, fmt: str) -> ResponseReturnValue:
    state = referee().state(match_id)
    if name not in state.ruleset.pictures():
        raise RuleError.single("picture/unknown", f"this match has no {name} picture")
    view = view_for(state, Viewer.public())
    etag = f"{match_id}-{view['version']}-{name}-{fmt}"
    if request.if_none_match.contains_weak(etag):
        response = Response(status=304)
    else:
        svg = drawn(view, name)
        if svg is None:
            raise RuleError.single("picture/not_yet", state.ruleset.picture_pending(name))
        if fmt == "png":
            response = Response(svg_to_png(svg), mimetype="image/png")
        else:
            response = Response(svg, mimetype="image/svg+xml")
    response.set_etag(etag, weak=True)
    response.headers["Cache-Control"] = f"public, max-age={MAX_AGE}"
    return response


@bp.get("/matches/<match_id>/<name>.svg")
def svg(match_id: str, name: str) -> ResponseReturnValue:
    """A picture as SVG, by its name in the ruleset's ``pictures()``."""
    return _picture(match_id, name, "svg")


@bp.get("/matches/<match_id>/<name>.png")
def png(match_id: str, name: str) -> ResponseReturnValue:
    """A picture as PNG; drawing one counts towards RATELIMIT_PICTURES."""
    return _picture(match_id, name, "png")
