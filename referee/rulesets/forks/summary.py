"""A readable account of a Forks match file (``referee resolve`` without ``--json``)."""

from __future__ import annotations

from typing import Any

from referee.rulesets.cardgame import summary_result_lines
from referee.words import garnets

from . import match as m
from .cards import COMPANIES, DEFAULT_NAMES


def summary_text(document: Any) -> str:
    spec = m.parse_match(document)
    table = m.play(spec)
    result = m.result_json(table, spec)
    names = {p.seat: p.name for p in spec.players}
    firms = {c: spec.names.get(c, DEFAULT_NAMES[c]) for c in COMPANIES}
    variants = [v for v, on in (("swap", spec.swap), ("merge", spec.merge)) if on]
    out = [
        f"Forks, {spec.seats} players ({' and '.join(variants) or 'no'} variant"
        f"{'s' if len(variants) > 1 else ''}); "
        f"{table.closed} of {m.rounds_of(spec.seats)} rounds closed",
        "Players: " + ", ".join(f"{s} {n} ({garnets(spec.garnets[s])})" for s, n in names.items()),
        "Initial investment: " + ", ".join(result["initial_investment"]),
    ]
    for t in result["turns"]:
        line = f"Turn {t['turn']} ({names[t['current']]} draws, {names[t['receiver']]} invests)"
        if t["swap"]:
            line += f": swapped {t['swap']['give']} for {t['swap']['take']}"
        if t["invested"]:
            line += f"; invested {t['invested']}"
        if t["revealed"]:
            line += f"; revealed {t['revealed']}"
        out.append(line)
    totals = result["investment_totals"]
    out.append("Investment totals: " + ", ".join(f"{firms[c]} {totals[c]}" for c in COMPANIES))
    out += summary_result_lines(result, names, firms)
    return "\n".join(out) + "\n"
