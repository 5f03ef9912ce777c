"""Pictures with a bounded cost (issue 10, High 2): every map within the limits
is drawn in full and its PNG stays within MAX_PNG_SIDE a side and
MAX_PNG_PIXELS; a map stored before the limits and over them (a 200-fork chain
made map.png answer 500: cairo cannot make an image over 32,767 pixels a side)
gets a small "too big to draw" picture; a PNG cairo cannot draw is a refusal,
never a 500."""

from __future__ import annotations

import struct
import xml.etree.ElementTree as ET
from typing import Any

import pytest
from big_maps import chain_map, layered_map

from referee.errors import RuleError
from referee.rulesets.rocky_river.picture import MapLayer, map_svg
from referee.rulesets.rocky_river.river_map import MAX_BRANCHES, MAX_FORKS, RiverMap, parse_map
from referee.rulesets.rocky_river.view_pictures import view_map_svg
from referee.web import pictures
from referee.web.pictures import MAX_PNG_PIXELS, MAX_PNG_SIDE, png_scale, svg_to_png

SVG = "{http://www.w3.org/2000/svg}"
NAMES = {1: "Ana", 2: "Bo", 3: "Cy"}


def png_size(png: bytes) -> tuple[int, int]:
    assert png.startswith(b"\x89PNG\r\n\x1a\n")
    width, height = struct.unpack(">II", png[16:24])
    return width, height


def svg_size(svg: str) -> tuple[float, float]:
    root = ET.fromstring(svg)  # well-formed
    return float(root.attrib["width"]), float(root.attrib["height"])


def public_view(map_doc: dict[str, Any]) -> dict[str, Any]:
    return {
        "map": map_doc,
        "players": [{"seat": s, "name": n} for s, n in NAMES.items()],
        "viewer": {"kind": "public", "seat": None},
        "closed_rounds": 0,
        "result": {},
    }


# the biggest maps the limits allow: 60 forks, 240 branches; 39 forks side by side
# (20,960 pixels wide), or 24 rows (4,600 pixels high)
BIGGEST = {
    "wide": (1, 4),
    "deep": (2, 12),
    "many segments": (6, 4),
}


@pytest.mark.parametrize("shape", BIGGEST)
def test_the_biggest_maps_allowed_are_drawn_in_full_and_their_png_is_bounded(shape: str) -> None:
    river = parse_map(layered_map(MAX_FORKS, *BIGGEST[shape]))
    assert len(river.branches) == MAX_BRANCHES
    svg = map_svg(river, MapLayer(names=NAMES))
    root = ET.fromstring(svg)
    boxes = [g for g in root.iter(f"{SVG}g") if "data-branch" in g.attrib]
    assert len(boxes) == MAX_BRANCHES  # every branch drawn
    assert len(svg) < 300_000
    png = svg_to_png(svg)
    width, height = png_size(png)
    assert max(width, height) <= MAX_PNG_SIDE and width * height <= MAX_PNG_PIXELS
    assert len(png) < 1_500_000
    drawn_w, drawn_h = svg_size(svg)
    assert abs(width / height - drawn_w / drawn_h) < 0.05 * drawn_w / drawn_h  # not distorted


def test_small_pictures_are_not_scaled() -> None:
    svg = map_svg(parse_map(chain_map(9, 3)), MapLayer(names=NAMES))
    assert png_scale(svg) == 1.0
    assert png_size(svg_to_png(svg)) == tuple(int(v) for v in svg_size(svg))


@pytest.mark.parametrize(("width", "height"), [(40_000, 300), (300, 40_000), (5_000, 5_000)])
def test_png_scale_bounds_every_side_and_the_area(width: int, height: int) -> None:
    svg = f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}"></svg>'
    scale = png_scale(svg)
    assert max(width, height) * scale <= MAX_PNG_SIDE
    assert width * height * scale * scale <= MAX_PNG_PIXELS * 1.0001
    png = svg_to_png(svg)
    w, h = png_size(png)
    assert max(w, h) <= MAX_PNG_SIDE and w * h <= MAX_PNG_PIXELS


def stored(doc: dict[str, Any]) -> RiverMap:
    """A map as a match stored before the limits may hold it."""
    return parse_map(doc, limits=False)


@pytest.mark.parametrize("forks", [200, 5000])
def test_a_stored_map_over_the_limits_gets_a_small_notice(forks: int) -> None:
    doc = chain_map(forks, segments=5 if forks == 200 else 1)
    with pytest.raises(RuleError):
        parse_map(doc)  # refused today
    svg = map_svg(stored(doc), MapLayer(names=NAMES))
    width, height = svg_size(svg)
    assert width <= 1000 and height <= 400 and len(svg) < 2000
    assert "too big to draw" in svg and f"This map has {forks} forks" in svg
    w, h = png_size(svg_to_png(svg))
    assert (w, h) == (width, height)


def test_the_view_picture_of_a_stored_200_fork_chain_is_answered() -> None:
    """The ruleset's picture of a stored match (its map checked by R3 alone)."""
    doc = chain_map(200, segments=5)
    doc["name"] = "Old " + "long name " * 1000
    svg = view_map_svg(public_view(doc))
    assert "too big to draw" in svg and len(svg) < 2000
    assert len(ET.fromstring(svg).attrib["aria-label"]) < 300


def test_a_png_cairo_cannot_draw_is_refused_not_a_500(monkeypatch: pytest.MonkeyPatch) -> None:
    def fails(**kwargs: Any) -> bytes:
        raise MemoryError("cairo")

    monkeypatch.setattr(pictures.cairosvg, "svg2png", fails)
    svg = '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="11"></svg>'
    with pytest.raises(RuleError) as exc:
        svg_to_png(svg)
    assert exc.value.codes == ["picture/too_big"]
