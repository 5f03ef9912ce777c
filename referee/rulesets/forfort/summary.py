"""A readable account of a Forfort match file (``referee resolve`` without ``--json``)."""

from __future__ import annotations

from typing import Any

from referee.words import garnets

from . import match as m
from .words import cards_text, fort_text, step_text


def summary_text(document: Any) -> str:
    spec = m.parse_match(document)
    table = m.play(spec)
    result = m.result_json(table, spec)
    names = {p.seat: p.name for p in spec.players}

    def who(seat: int) -> str:
        return f"{names.get(seat, '?')} (seat {seat})"

    state = "over" if table.over else f"step {table.closed + 1} to come"
    out = [
        f"Forfort, {spec.seats} players; {table.closed} steps closed, {state}",
        "Players: " + ", ".join(f"{s} {n} ({garnets(spec.garnets[s])})" for s, n in names.items()),
    ]
    out += [step_text(step, who) for step in result["steps"]]
    for s in sorted(names):
        key = str(s)
        out.append(
            f"{who(s)}: {result['points'][key]} points; "
            f"fort: {fort_text(result['forts'][key], who)}; "
            f"discards: {cards_text(result['discards'][key])}; "
            f"dungeon {result['dungeon_counts'][key]}"
        )
    if result["end"] is not None:
        end = result["end"]
        how = "a completed fort" if end["reason"] == "completed" else "an empty dungeon"
        out.append(f"Ended at step {end['step']} by {how}")
        out.append(
            "Scores: " + ", ".join(f"{who(int(s))} {v}" for s, v in result["scores"].items())
        )
        out.append("Won by " + " and ".join(who(s) for s in result["winners"]))
        tol = result["token_of_life"]
        out.append("Token of Life: " + (who(tol) if tol is not None else "nobody (shared top)"))
        ec = result["elimination_candidate"]
        out.append(f"Elimination Candidate: {who(ec['seat'])} (by {ec['decided_by']})")
    if result["defaulted"]:
        out.append(
            "Seeded defaults: "
            + ", ".join(f"step {d['step']} {who(d['seat'])}" for d in result["defaulted"])
        )
    return "\n".join(out) + "\n"
