"""Ready-to-paste forum posts (Markdown or BBCode) of a Fortune & Famine
match, from a *public* view (FF21), built from :class:`referee.markup.Markup`
as every game's post is.

The post is made only from what :func:`referee.views.view_for` gives the
public: the title, ``Players`` (with their rulers), ``Rounds``, then each
seat's board (grain, silver, guard, tokens, Kingdom; stored grain only once
the match has ended, the public view holding none before), the season under
way and the one before it in words (burned cards only at the end), and at
the end the ranking, the Token of Life, the Elimination Candidate and the
seed. Every string a user wrote (the match's and the players' names, and
the card names of a host's deck) goes through
:meth:`referee.markup.Markup.esc`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from referee.errors import RuleError
from referee.markup import Markup, picture_url
from referee.rulesets.cardgame import defaulted_section, rounds_rows
from referee.words import garnets as count_garnets

from .words import LEVEL_WORDS, card_namer, ruler, season_rows, seat_text

FORMATS = ("markdown", "bbcode")
TITLE = "Fortune & Famine"
LAST_SEASONS = 2  # the post tells the season under way and the one before; the page has all


def forum_post(view: dict[str, Any], fmt: str, base_url: str | None = None) -> str:
    if fmt not in FORMATS:
        raise RuleError.single(
            "post/bad_format", f"a post is written in markdown or bbcode, not {fmt!r}"
        )
    m = Markup(fmt)
    result: Mapping[str, Any] = view.get("result") or {}
    players = list(view.get("players") or [])
    names = {int(p["seat"]): p["name"] for p in players}
    garnets = {int(p["seat"]): int(p.get("garnets", 0)) for p in players}
    seats: Mapping[str, Any] = result.get("seats") or {}
    card = card_namer(result.get("deck"), m.esc)

    def who(seat: int) -> str:
        return f"{m.esc(names.get(int(seat), ''))} (seat {int(seat)})"

    out: list[str] = [m.title(view.get("name", ""), str(view.get("title") or TITLE))]
    if base_url:  # the public pictures, drawn for this state
        out.append(m.image("The Hire Board", picture_url(view, base_url, "board")))
        out.append(m.image("The Kingdoms", picture_url(view, base_url, "kingdoms")))
    out.append(f"Seed digest (SHA-256): {m.code(str(view.get('seed_sha256', '')))}")
    rows = []
    for s in sorted(names):
        state = seats.get(str(s)) or {}
        rows.append(f"{who(s)}: {ruler(state.get('ruler'))}, {count_garnets(garnets[s])}")
    out.append(m.section("Players", rows))
    out.append(m.section("Rounds", rounds_rows(view, who)))
    if view.get("paused"):
        out.append(m.bold("The match is paused: the clock is stopped."))
    out.append(
        m.section(
            "Kingdoms",
            [
                f"{who(s)}: {seat_text(seats[str(s)], card)}"
                for s in sorted(names)
                if str(s) in seats
            ],
        )
    )
    total = result.get("seasons_total")
    for record in (result.get("seasons") or [])[-LAST_SEASONS:]:
        leader = who(int(record["leader"]))
        label = f"Season {record['season']} of {total} (Year {record['year']}), led by {leader}"
        out.append(m.section(label, season_rows(record, who, card)))
    out += _end(m, result, who)
    out += defaulted_section(view, m, who)
    if view.get("revealed"):
        out.append("The host has made every order of this match public (full reveal).")
    if view.get("seed"):
        out.append(f"Seed (check it against the digest above): {m.code(str(view['seed']))}")
    return m.document(out)


def _end(m: Markup, result: Mapping[str, Any], who: Any) -> list[str]:
    """The end of the match (FF19): the ranking with each seat's stored grain,
    the Token of Life and the Elimination Candidate with the level that decided."""
    ranking = result.get("ranking")
    if not ranking:
        return []
    seats = result.get("seats") or {}
    rows = []
    for seat in ranking:
        state = seats.get(str(seat)) or {}
        rows.append(
            f"{who(int(seat))}: {state.get('stored')} stored grain, "
            f"{state.get('grain')} grain, {state.get('silver')} silver, "
            f"{state.get('workers')} workers"
        )
    out = [m.section("Ranking, first to last", rows)]
    token = result.get("token_of_life")
    by = LEVEL_WORDS.get(str(result.get("token_decided_by")), str(result.get("token_decided_by")))
    if token is not None:
        out.append(m.field("Token of Life", f"{who(int(token))}, decided by {by}"))
    ec = result.get("elimination_candidate") or {}
    if ec.get("seat") is not None:
        by = LEVEL_WORDS.get(str(ec.get("decided_by")), str(ec.get("decided_by")))
        out.append(m.field("Elimination Candidate", f"{who(int(ec['seat']))}, decided by {by}"))
    return out
