"""A readable account of a Forks 2nd Edition match file (``referee resolve``
without ``--json``)."""

from __future__ import annotations

from typing import Any

from referee.rulesets.cardgame import summary_result_lines

from . import match as m
from .cards import DEFAULT_NAMES, DESTINATIONS


def summary_text(document: Any) -> str:
    spec = m.parse_match(document)
    table = m.play(spec)
    result = m.result_json(table, spec)
    names = {p.seat: p.name for p in spec.players}
    places = {d: spec.names.get(d, DEFAULT_NAMES[d]) for d in DESTINATIONS}
    variant = "merge variant" if spec.merge else "standard"
    out = [
        f"Forks 2nd Edition, {spec.seats} players ({variant}); "
        f"{table.closed} of {m.rounds_of(spec.seats)} rounds closed",
        "Players: " + ", ".join(f"{s} {n} ({spec.garnets[s]} garnets)" for s, n in names.items()),
        "Initial marketing: " + (", ".join(result["initial_marketing"]) or "none"),
    ]
    for g, marketed in enumerate(result["marketed"], start=1):
        line = f"Round {g} marketed: {', '.join(marketed)}"
        if g <= len(result["revealed"]):
            line += f"; revealed from the pile: {result['revealed'][g - 1]}"
        out.append(line)
    totals = result["marketing_totals"]
    out.append("Marketing totals: " + ", ".join(f"{places[d]} {totals[d]}" for d in DESTINATIONS))
    out += summary_result_lines(result, names, places)
    return "\n".join(out) + "\n"
