"""FO21: what each viewer may see of a match after its closed steps.

- public: the forts (every stack, covered cards too), discard piles,
  supplies, the drawbridge tokens, dungeon and hand counts, each top dungeon
  card's arrows, points, the steps (without the card drawn), defaults, the
  final round, the step to come, the end; at the end the scores, the season
  keys and every hand.
- a seat: that, plus its own hand and its own draws; when it acts in the
  open step, its ``options`` (:mod:`.options`).
- the host: every closed step's full result (hands and draws), but nothing
  the seed decides before a step has closed (the deal).
- after the host's full reveal: everything, the dungeons in order too.

Pure: no Flask, SQL or click imports.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any, Literal

from .options import options
from .state import Table

Viewer = int | Literal["public", "host"]

# the result keys every viewer sees (FORMAT: "The public view carries ...")
PUBLIC_KEYS = (
    "forts",
    "dungeon_counts",
    "hand_counts",
    "top_arrows",
    "discards",
    "supply",
    "points",
    "steps",
    "defaulted",
    "final_round",
    "next",
    "end",
)
END_KEYS = ("bonus", "scores", "winners", "token_of_life", "elimination_candidate")


def public_result(details: Mapping[str, Any]) -> dict[str, Any]:
    """FO21's public part of a detailed result (match.detail_json)."""
    out = {k: copy.deepcopy(details[k]) for k in PUBLIC_KEYS}
    # FO21: the card set is public from the start (pages describe cards by it)
    out["cards"] = copy.deepcopy(details["cards"])
    for step in out["steps"]:
        step.pop("drew", None)
    if details["finished"]:
        out.update({k: copy.deepcopy(details[k]) for k in END_KEYS})
        out["hands"] = copy.deepcopy(details["hands"])
    return out


def result_for(
    details: Mapping[str, Any], viewer: Viewer, *, revealed: bool = False
) -> dict[str, Any]:
    """The part of a detailed result ``viewer`` may see (FO21)."""
    if revealed:
        return copy.deepcopy(dict(details))
    out = public_result(details)
    if viewer == "host":
        if details["closed"] > 0:
            out["hands"] = copy.deepcopy(details["hands"])
            out["steps"] = copy.deepcopy(details["steps"])
        return out
    if viewer == "public":
        return out
    seat = str(viewer)
    if not details["finished"]:
        out["hands"] = {seat: list(details["hands"][seat])}
    for mine, full in zip(out["steps"], details["steps"], strict=True):
        if mine["seat"] == viewer:
            mine["drew"] = full["drew"]
    return out


def view(
    table: Table, details: Mapping[str, Any], viewer: Viewer, *, revealed: bool = False
) -> dict[str, Any]:
    """The game's part of a viewer's view: ``result``, and for a seat its
    ``hand`` and, when it acts in the open step, its ``options``."""
    out: dict[str, Any] = {"result": result_for(details, viewer, revealed=revealed)}
    if isinstance(viewer, int):
        out["hand"] = list(details["hands"][str(viewer)])
        nxt = details["next"]
        if nxt is not None and nxt["seat"] == viewer:
            out["options"] = options(table)
    return out
