"""Ready-to-paste forum posts (Markdown or BBCode) of a Forks match, from a
*public* view (K11).

The post is made only from what :func:`referee.views.view_for` gives the
public, so it holds nothing sealed or private: before the end the players,
the settings, whose turn it is, the investment (the initial cards, each
closed turn's swap, invested card and, with 2 players, revealed card), the
totals and the ranking so far, and of each round its status, deadline and
whether the order is in; with a ``base_url``, the public investment board
picture (and at the end the score chart); at the end every hand, the scores, the final
ranking, the Token of Life and the Elimination Candidate, and the seed.

Every string a user wrote (the match's, the players' and the companies'
names) goes through :meth:`referee.markup.Markup.esc`, as in every game's post.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from referee.errors import RuleError
from referee.markup import Markup, picture_url
from referee.rulesets.cardgame import (
    TOP,
    decided_text,
    defaulted_section,
    joined,
    rounds_rows,
)
from referee.words import garnets as count_garnets
from referee.words import signed

from .cards import CARDS, COMPANIES, DEFAULT_NAMES, is_card
from .match import DEFAULT_TIEBREAK

FORMATS = ("markdown", "bbcode")
ORDINALS = ("1st", "2nd", "3rd", "4th", "5th")


def company_names(view: Mapping[str, Any]) -> dict[str, str]:
    """Each company's display name: the host's, else the default (K2)."""
    given = (view.get("settings") or {}).get("names") or {}
    out = dict(DEFAULT_NAMES)
    if isinstance(given, Mapping):
        for firm in COMPANIES:
            name = given.get(firm)
            if isinstance(name, str) and name.strip():
                out[firm] = name
    return out


def tiebreak_of(view: Mapping[str, Any]) -> list[str]:
    order = (view.get("settings") or {}).get("tiebreak")
    if isinstance(order, list) and sorted(map(str, order)) == sorted(COMPANIES):
        return [str(c) for c in order]
    return list(DEFAULT_TIEBREAK)


def _points(number: int) -> str:
    return f"{signed(number, '-')} point" + ("" if abs(number) == 1 else "s")


def forum_post(view: dict[str, Any], fmt: str, base_url: str | None = None) -> str:
    if fmt not in FORMATS:
        raise RuleError.single(
            "post/bad_format", f"a post is written in markdown or bbcode, not {fmt!r}"
        )
    m = Markup(fmt)
    result: dict[str, Any] = view.get("result") or {}
    players = list(view.get("players") or [])
    names = {int(p["seat"]): p["name"] for p in players}
    garnets = {int(p["seat"]): int(p.get("garnets", 0)) for p in players}
    firms = {c: m.esc(n) for c, n in company_names(view).items()}
    settings = view.get("settings") or {}

    def who(seat: int) -> str:
        return f"{m.esc(names.get(seat, ''))} (seat {seat})"

    def firm(c: str) -> str:
        return f"{firms[c]} ({c})"

    def cards(items: list[str]) -> str:
        return ", ".join(CARDS.name(c, firms) for c in items if is_card(c)) or "none"

    out: list[str] = [m.title(view.get("name", ""), str(view.get("title", "")))]
    out.append(f"Seed digest (SHA-256): {m.code(str(view.get('seed_sha256', '')))}")
    out.append(
        m.section("Players", [f"{who(s)}: {count_garnets(garnets[s])}" for s in sorted(names)])
    )
    swap = bool(settings.get("swap", result.get("swap")))
    merge = bool(settings.get("merge", result.get("merge")))
    out.append(
        m.section(
            "Settings",
            [
                "Swap variant: "
                + (
                    "on (before keeping, the drawing player may give one drawn card for an "
                    "invested one)"
                    if swap
                    else "off"
                ),
                "Merge variant: "
                + (
                    "on (both passed cards join the hand, then any card of it is invested)"
                    if merge
                    else "off (one of the two passed cards is invested)"
                ),
                "Tiebreak (an earlier company wins a tie on totals): "
                + ", ".join(firm(c) for c in tiebreak_of(view)),
                f"Cards: 40; {int(result.get('discarded_count') or 0)} discarded unseen at the "
                f"start; {int(result.get('draw_pile') or 0)} left in the draw pile",
            ],
        )
    )
    out.append(m.section("Rounds", rounds_rows(view, who)))
    if view.get("paused"):
        out.append(m.bold("The match is paused: the clock is stopped."))

    rows = [f"Initial investment: {cards(list(result.get('initial_investment') or []))}"]
    for t in result.get("turns") or []:
        line = f"Turn {int(t['turn'])}: {who(int(t['current']))} draws"
        swapped = t.get("swap")
        if isinstance(swapped, Mapping):
            line += (
                f", swapped {cards([str(swapped.get('give'))])} "
                f"for {cards([str(swapped.get('take'))])}"
            )
        line += f"; {who(int(t['receiver']))} "
        line += f"invested {cards([str(t['invested'])])}" if t.get("invested") else "invests"
        if t.get("revealed"):
            line += f"; revealed from the draw pile: {cards([str(t['revealed'])])}"
        rows.append(line)
    out.append(m.section("Turns and investment", rows))
    out.append(m.field("Invested now", cards(list(result.get("investment") or []))))

    final = "ranking" in result
    totals = {c: int((result.get("investment_totals") or {}).get(c, 0)) for c in COMPANIES}
    ranking = [
        str(c)
        for c in result.get("ranking") or result.get("ranking_so_far") or tiebreak_of(view)
        if c in COMPANIES
    ]
    rows = []
    for place, c in enumerate(ranking):
        part = "top three, scores +" if place < TOP else "bottom two, scores -"
        rows.append(f"{ORDINALS[place]}: {firm(c)}, total {totals[c]} ({part})")
    if base_url:  # the public pictures, drawn for this state
        out.append(m.image("Investment board", picture_url(view, base_url, "board")))
    out.append(m.section("Final ranking" if final else "Totals and ranking so far", rows))
    for total in sorted(set(totals.values()), reverse=True):
        tied = [c for c in ranking if totals[c] == total]
        if len(tied) > 1:
            out.append(
                f"Tied on {total}: {joined([firm(c) for c in tied])}, ranked in that order "
                "by the tiebreak."
            )

    scores = result.get("scores")
    if final and isinstance(scores, dict):
        top = set(ranking[:TOP])
        hands = result.get("hands") or {}
        rows = []
        for seat in sorted(names):
            hand = [c for c in hands.get(str(seat)) or [] if is_card(c)]
            plus = sum(CARDS.value(c) for c in hand if CARDS.suit(c) in top)
            minus = sum(CARDS.value(c) for c in hand if CARDS.suit(c) not in top)
            rows.append(
                f"{who(seat)}: {_points(int(scores.get(str(seat), 0)))} "
                f"(top cards +{plus}, bottom cards -{minus}); hand: {cards(hand)}"
            )
        out.append(m.section("Hands and scores", rows))
        if base_url:
            out.append(m.image("Final scores", picture_url(view, base_url, "scores")))
        tol = result.get("token_of_life")
        out.append(
            m.field(
                "Token of Life",
                f"{who(int(tol))}, the single highest score"
                if tol is not None
                else "nobody (the highest score is shared)",
            )
        )
        ec = result.get("elimination_candidate") or {}
        if ec.get("seat") is not None:
            decided = decided_text(result, who, garnets, minus="-")
            out.append(m.field("Elimination Candidate", f"{who(int(ec['seat']))}, {decided}"))
    out += defaulted_section(view, m, who)
    if view.get("revealed"):
        out.append("The host has made every order of this match public (full reveal).")
    if view.get("seed"):
        out.append(f"Seed (check it against the digest above): {m.code(str(view['seed']))}")
    return m.document(out)
