"""Rocky River's own parts of the web pages, kept together so that a later step
(issue 11) can move them into the ruleset's package: the cards and the map for
display, the branch totals a viewer may know, and a match page's context, which
is :func:`referee.web.pages.view_context` plus these.

Nothing game-agnostic belongs here; nothing here belongs in
:mod:`referee.web.pages` or :mod:`referee.web.common`.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from referee.rulesets.rocky_river.data import load_deck
from referee.rulesets.rocky_river.river_map import parse_map
from referee.web.pages import signed, view_context

__all__ = ["card_info", "card_value", "known_totals", "map_info", "match_context"]

SIDE_NAMES = {"L": "left", "R": "right"}


@cache
def card_info() -> dict[str, dict[str, Any]]:
    """Each card by id: its faces, and a text such as "red 5, green 5"."""
    out: dict[str, dict[str, Any]] = {}
    for card in load_deck().cards:
        faces = [{"color": f.color, "value": f.value} for f in card.faces]
        out[card.id] = {
            "id": card.id,
            "faces": faces,
            "text": ", ".join(f"{f.color} {signed(f.value)}" for f in card.faces),
        }
    return out


def card_value(card: str, color: str) -> int | None:
    """The value ``card`` adds to a slot of ``color`` (None: it has no such face)."""
    return load_deck().by_id[card].value_for(color)


def map_info(map_doc: dict[str, Any], names: dict[int, str]) -> dict[str, Any]:
    """The map for display: forks in river order, each branch with its fork, side,
    inner/outer position, slot colour, portrayed seat (and name) and segment."""
    river = parse_map(map_doc, limits=False)  # a stored match's map, admitted at creation
    branches: dict[str, dict[str, Any]] = {}
    forks: list[dict[str, Any]] = []
    order = {fid: i for i, fid in enumerate(river.forks)}
    for fork in sorted(river.forks.values(), key=lambda f: (river.depth[f.id], order[f.id])):
        rows = []
        for side in ("L", "R"):
            for b in fork.side(side):
                info = {
                    "id": b.id,
                    "color": b.color,
                    "seat": b.seat,
                    "seat_name": names.get(b.seat, f"seat {b.seat}"),
                    "fork": fork.id,
                    "side": SIDE_NAMES[side],
                    "position": "outer" if b.outer else "inner",
                    "to": b.to,
                    "segment": river.segment_of(fork.id),
                }
                branches[b.id] = info
                rows.append(info)
        forks.append(
            {
                "id": fork.id,
                "number": river.depth[fork.id],
                "segment": river.segment_of(fork.id),
                "branches": rows,
            }
        )
    return {
        "name": river.name,
        "segments": river.segments,
        "forks_per_segment": river.forks_per_segment,
        "start": river.start,
        "forks": forks,
        "branches": branches,
    }


def known_totals(result: dict[str, Any]) -> tuple[dict[str, int], set[str]]:
    """The branch totals a result shows (the path's points, then any published
    or revealed totals), and the branches the raft passed."""
    known: dict[str, int] = {}
    for step in result.get("path", []):
        known[step["branch"]] = step["points"]
    passed = set(known)
    known.update(result.get("branch_totals", {}))
    return known, passed


def match_context(view: dict[str, Any]) -> dict[str, Any]:
    """What a Rocky River match page needs besides the view: the game-agnostic
    :func:`referee.web.pages.view_context`, the map, the cards and the totals of
    branches the viewer may know."""
    context = view_context(view)
    river = map_info(view["map"], context["names"])
    known, passed = known_totals(context["result"])
    context.update(
        river=river,
        cards=card_info(),
        known_totals=known,
        passed=passed,
        segments=list(range(1, river["segments"] + 1)),
    )
    return context
