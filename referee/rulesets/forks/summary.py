"""A readable account of a Forks match file (``referee resolve`` without ``--json``)."""

from __future__ import annotations

from typing import Any

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
    if "ranking" in result:
        ranked = result["ranking"]
        out.append(
            "Ranking: "
            + ", ".join(firms[c] for c in ranked[:3])
            + " (top); "
            + ", ".join(firms[c] for c in ranked[3:])
            + " (bottom)"
        )
        for seat, hand in result["hands"].items():
            out.append(f"{names[int(seat)]}: {result['scores'][seat]} points ({', '.join(hand)})")
        token = result["token_of_life"]
        out.append(
            "Token of Life: " + (names[token] if token is not None else "nobody (shared top score)")
        )
        ec = result["elimination_candidate"]
        out.append(f"Elimination Candidate: {names[ec['seat']]} (decided by {ec['decided_by']})")
    if result["defaulted"]:
        out.append(
            "Defaulted: "
            + ", ".join(f"round {d['round']} {names[d['seat']]}" for d in result["defaulted"])
        )
    return "\n".join(out) + "\n"
