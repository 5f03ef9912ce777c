"""K11: what each viewer may see of a match's state (the detailed result of
:func:`referee.rulesets.forks.match.detail_json`).

- the public: the initial investment and every card invested now, the
  totals and the ranking so far, each turn's current seat and receiver, its
  swap once the draw step has closed, its invested card once the invest step
  has closed, a revealed card (2 players), who defaulted, the counts; at the
  end every hand, the scores, the ranking, the Token of Life and the
  Elimination Candidate;
- a seat: that, plus its own hand and of each turn what it saw: as the
  current seat the 3 drawn cards, what it kept and passed; as the receiver
  the 2 cards passed to it once the draw step has closed;
- the host: every closed step in full, but never the cards drawn in a draw
  step before it closes (they are the current seat's alone until then), nor
  the discarded cards before the end (with them the host could tell the
  pile's cards);
- after the full reveal: what the host sees, to everyone.
"""

from __future__ import annotations

import copy
from typing import Any

from referee.ruleset import Viewer

from .cards import canonical

PUBLIC_KEYS = (
    "initial_investment",
    "investment",
    "investment_totals",
    "ranking_so_far",
    "defaulted",
    "seats",
    "swap",
    "merge",
    "closed",
    "rounds",
    "turns_total",
    "finished",
    "draw_pile",
)
PUBLIC_TURN_KEYS = ("turn", "current", "receiver", "swap", "invested", "revealed")
END_KEYS = (
    "hands",
    "ranking",
    "scores",
    "token_of_life",
    "elimination_candidate",
    "elimination_ties",
)


def draw_closed(data: dict[str, Any], turn: int) -> bool:
    """Whether turn ``turn``'s draw step (round 2t-1) has closed."""
    return int(data["closed"]) >= 2 * turn - 1


def visible(data: dict[str, Any], viewer: Viewer, *, revealed: bool) -> dict[str, Any]:
    """``viewer``'s part of the state ``data``."""
    if viewer.kind == "host" or revealed:
        out = copy.deepcopy(data)
        for turn in out["turns"]:
            if not draw_closed(data, int(turn["turn"])):
                turn["drawn"] = None
        if not data.get("finished") and not revealed:
            out.pop("discarded", None)
            out["discarded_count"] = len(data["discarded"])
        return out
    out = {key: copy.deepcopy(data[key]) for key in PUBLIC_KEYS if key in data}
    out["discarded_count"] = len(data["discarded"])
    out["turns"] = [{k: copy.deepcopy(t[k]) for k in PUBLIC_TURN_KEYS} for t in data["turns"]]
    if data.get("finished"):
        out.update({key: copy.deepcopy(data[key]) for key in END_KEYS if key in data})
    if viewer.kind == "seat" and viewer.seat is not None:
        out["hand"] = list(data["hands"][str(viewer.seat)])
        out["mine"] = own_turns(data, viewer.seat)
    return out


def own_turns(data: dict[str, Any], seat: int) -> list[dict[str, Any]]:
    """The turns ``seat`` took part in, as it saw them: as the current seat
    (``role`` "draw") the cards drawn, the swap, the card kept and the 2 it
    passed; as the receiver (``role`` "invest") the 2 cards passed to it
    (once the draw step has closed) and what it invested."""
    out: list[dict[str, Any]] = []
    for t in data["turns"]:
        number = int(t["turn"])
        if t["current"] == seat:
            kept, swap = t["kept"], t["swap"]
            passed = None
            if kept is not None:
                held = list(t["drawn"])
                if swap:
                    held = [swap["take"] if c == swap["give"] else c for c in held]
                passed = canonical(c for c in held if c != kept)
            out.append(
                {
                    "turn": number,
                    "role": DRAW_ROLE,
                    "drawn": list(t["drawn"]),
                    "swap": copy.deepcopy(swap),
                    "kept": kept,
                    "passed": passed,
                    "receiver": t["receiver"],
                }
            )
        if t["receiver"] == seat and draw_closed(data, number):
            out.append(
                {
                    "turn": number,
                    "role": INVEST_ROLE,
                    "received": list(t["passed"]),
                    "from": t["current"],
                    "invested": t["invested"],
                }
            )
    return out


DRAW_ROLE, INVEST_ROLE = "draw", "invest"


def options_of(data: dict[str, Any], seat: int) -> list[str]:
    """K5: the cards ``seat`` may name in the next step (canonical order): the
    3 drawn cards, or the cards it may invest; [] when it does not act."""
    closed = int(data["closed"])
    if data.get("finished") or not data["turns"]:
        return []
    turn = data["turns"][-1]
    if closed % 2 == 0:
        return canonical(turn["drawn"]) if turn["current"] == seat else []
    if turn["receiver"] != seat or turn["passed"] is None:
        return []
    if data.get("merge"):
        return canonical([*data["hands"][str(seat)], *turn["passed"]])
    return list(turn["passed"])


def can_take(data: dict[str, Any]) -> list[str]:
    """The invested cards a swap may take (canonical order)."""
    return list(data["investment"])
