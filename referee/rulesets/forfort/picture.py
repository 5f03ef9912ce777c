"""A stand-in picture of a Forfort match (another change replaces it): one
row per seat with its points, drawn from the view it is given (FO21: points
are public), so it shows nothing the viewer may not see.

Pure: no Flask, SQL or click imports.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from xml.sax.saxutils import escape


def forts_svg(view: Mapping[str, Any]) -> str | None:
    """Each seat's points, one text row per seat; None without a result."""
    points = (view.get("result") or {}).get("points")
    if not isinstance(points, Mapping):
        return None
    rows = [
        f'<text x="10" y="{24 * (i + 1)}">Seat {escape(str(seat))}: {int(n)} points</text>'
        for i, (seat, n) in enumerate(sorted(points.items(), key=lambda kv: int(kv[0])))
    ]
    height = 24 * (len(rows) + 1)
    return (
        f'<svg xmlns="http://www.w3.org/2000/svg" width="320" height="{height}" '
        f'viewBox="0 0 320 {height}" font-family="sans-serif" font-size="16">'
        "<title>Forfort: points per seat</title>"
        f'<rect width="320" height="{height}" fill="#ffffff"/>{"".join(rows)}</svg>'
    )
