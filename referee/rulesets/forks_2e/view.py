"""F11: what each viewer may see of a match's state (the detailed result of
:func:`referee.rulesets.forks_2e.match.detail_json`).

- the public: the initial marketing, each closed market step's marketed cards
  (canonical order, not by seat), the revealed pile cards, totals and the
  ranking so far, the counts, who defaulted; at the end every hand, the
  scores, the ranking, the Token of Life and the Elimination Candidate;
- a seat: that, plus its own hand and, for each game round, the cards dealt
  to it, what it kept, passed and marketed and what was passed to it;
- the host: every closed step's state, but never a game round's dealt cards
  before its keep step has closed (F11: they are that seat's alone until then),
  nor the cards set aside (with them the host could tell the pile's last cards)
  before the end;
- after the full reveal: what the host sees, to everyone.
"""

from __future__ import annotations

from typing import Any

from referee.ruleset import Viewer

from .cards import canonical

PUBLIC_KEYS = (
    "initial_marketing",
    "marketed",
    "revealed",
    "marketing_totals",
    "ranking_so_far",
    "defaulted",
    "seats",
    "merge",
    "closed",
    "rounds",
    "game_rounds",
    "finished",
    "draw_pile",
)
END_KEYS = (
    "hands",
    "ranking",
    "scores",
    "token_of_life",
    "elimination_candidate",
    "elimination_ties",
)


def closed_keeps(data: dict[str, Any]) -> int:
    return (int(data["closed"]) + 1) // 2


def visible(data: dict[str, Any], viewer: Viewer, *, revealed: bool) -> dict[str, Any]:
    """``viewer``'s part of the state ``data``."""
    if viewer.kind == "host" or revealed:
        out = dict(data)
        out["dealt"] = data["dealt"][: closed_keeps(data)]
        if not data.get("finished"):  # set aside unseen (F3), and they tell the pile
            out.pop("removed", None)
        return out
    out = {key: data[key] for key in PUBLIC_KEYS if key in data}
    out["removed_count"] = len(data["removed"])
    if data.get("finished"):
        out.update({key: data[key] for key in END_KEYS if key in data})
    if viewer.kind == "seat" and viewer.seat is not None:
        mine = str(viewer.seat)
        out["hand"] = data["hands"][mine]
        out["mine"] = own_rounds(data, mine)
    return out


def own_rounds(data: dict[str, Any], seat: str) -> list[dict[str, Any]]:
    """One seat's game rounds so far: dealt (as they came off the pile), kept,
    passed on, received, marketed (None until that step has closed)."""
    out = []
    for g, dealt in enumerate(data["dealt"]):
        mine = dealt[seat]
        kept = data["kept"][g][seat] if g < len(data["kept"]) else None
        received = data["passed"][g][seat] if g < len(data["passed"]) else None
        marketed = data["marketed_by"][g][seat] if g < len(data["marketed_by"]) else None
        out.append(
            {
                "round": g + 1,
                "dealt": list(mine),
                "kept": kept,
                "passed": None if kept is None else canonical(c for c in mine if c != kept),
                "received": received,
                "marketed": marketed,
            }
        )
    return out


def options_of(data: dict[str, Any], seat: int, merge: bool) -> list[str]:
    """F5: the cards ``seat`` may name in the next step (canonical order)."""
    closed = int(data["closed"])
    g = closed // 2
    mine = str(seat)
    if closed % 2 == 0:
        return canonical(data["dealt"][g][mine])
    passed = data["passed"][g][mine]
    return canonical([*data["hands"][mine], *passed]) if merge else list(passed)
