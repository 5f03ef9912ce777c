"""A readable account of a Fortune & Famine match file (``referee resolve``
without ``--json``): the host's full record (the file holds the seed), season
by season, then each seat's board and, once the match has ended, the ranking,
the Token of Life and the Elimination Candidate (FF19)."""

from __future__ import annotations

from typing import Any

from referee.words import garnets

from . import match as m
from .words import LEVEL_WORDS, ruler, season_rows, seat_text


def summary_text(document: Any) -> str:
    spec = m.parse_match(document)
    table = m.play(spec)
    result = m.result_json(table)
    names = {p.seat: p.name for p in spec.players}

    def who(seat: Any) -> str:
        return f"{names.get(int(seat), '?')} (seat {int(seat)})"

    def card(card_id: Any) -> str:
        return str(card_id)

    total = result["seasons_total"]
    if table.over:
        state = "finished"
    else:
        nxt = result["next_round"]
        state = f"round {nxt['round']} ({nxt['phase']}, season {nxt['season']}) to come"
    deck = "the default deck"
    if document.get("deck") is not None:
        deck = f"the host's deck {spec.deck.name!r}" if spec.deck.name else "a host's deck"
    out = [
        f"Fortune & Famine, {spec.seats} players, {spec.length} ({total} seasons), "
        f"{deck}; {table.closed} rounds closed, {state}",
        "Players: "
        + ", ".join(
            f"{s} {n} ({ruler(result['seats'][str(s)]['ruler'])}, {garnets(spec.garnets[s])})"
            for s, n in names.items()
        ),
    ]
    for record in result["seasons"]:
        out.append(
            f"Season {record['season']} of {total} (Year {record['year']}), "
            f"led by {who(record['leader'])}:"
        )
        out += [f"  {row}" for row in season_rows(record, who, card)]
    for s in sorted(names):
        state = result["seats"][str(s)]
        out.append(f"{who(s)}, {ruler(state['ruler'])}: {seat_text(state, card)}")
    if result["ranking"] is not None:
        out.append("Ranking: " + ", ".join(who(s) for s in result["ranking"]))
        token_by = LEVEL_WORDS[result["token_decided_by"]]
        out.append(f"Token of Life: {who(result['token_of_life'])} (decided by {token_by})")
        ec = result["elimination_candidate"]
        ec_by = LEVEL_WORDS[ec["decided_by"]]
        out.append(f"Elimination Candidate: {who(ec['seat'])} (decided by {ec_by})")
    if result["defaulted"]:
        out.append(
            "Defaulted: "
            + ", ".join(f"round {d['round']} {who(d['seat'])}" for d in result["defaulted"])
        )
    return "\n".join(out) + "\n"
