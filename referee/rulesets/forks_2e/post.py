"""Ready-to-paste forum posts (Markdown or BBCode) of a Forks match, from a
*public* view (F11).

The post is made only from what :func:`referee.views.view_for` gives the
public, so it cannot hold anything sealed: before the end it shows the
players, the settings, the cards in marketing (the initial ones, each closed
market step's marketed cards and, with 2 players, the revealed pile cards),
the totals and the ranking so far, and of each round its status, deadline and
how many orders are in (never whose or what); at the end every hand, the
scores, the final ranking, the Token of Life and the Elimination Candidate
with how it was decided, and the seed. Given the server's address it embeds
the marketing board and, at the end, the score chart, which the server draws
from the same public view.

Every string a user wrote (the match's, the players' and the destinations'
names) goes through :meth:`referee.markup.Markup.esc`, as in every game's
post, which is built from :class:`referee.markup.Markup`'s blocks: BBCode in
the tags most forums have, Markdown that reads the same in CommonMark and
Python-Markdown, times to the second in UTC.
"""

from __future__ import annotations

from typing import Any

from referee.errors import RuleError
from referee.markup import Markup, picture_url
from referee.rulesets.cardgame import defaulted_section, rounds_rows
from referee.words import garnets as count_garnets
from referee.words import signed

from .cards import canonical, card_name, destination, is_card, value
from .picture import (
    decided_text,
    destination_names,
    joined,
    ranking_of,
    tiebreak_of,
    totals_of,
)

FORMATS = ("markdown", "bbcode")
ORDINALS = ("1st", "2nd", "3rd", "4th", "5th")


def _points(number: int) -> str:
    return f"{signed(number)} point" if abs(number) == 1 else f"{signed(number)} points"


def _cards(cards: list[str], m: Markup, names: dict[str, str]) -> str:
    """Cards as players know them, "Greysteel City 8, Red 4 (twin)" (the engine's
    canonical ids only; nothing else is written), the host's names escaped."""
    escaped = {d: m.esc(name) for d, name in names.items()}
    return ", ".join(card_name(c, escaped) for c in cards if is_card(c)) or "none"


def picture_urls(view: dict[str, Any], base_url: str) -> dict[str, str]:
    """Absolute addresses of the public pictures of ``view``'s match."""
    out = {"board": picture_url(view, base_url, "board")}
    if (view.get("result") or {}).get("scores"):
        out["scores"] = picture_url(view, base_url, "scores")
    return out


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
    dest_names = destination_names(view)
    pictures = picture_urls(view, base_url) if base_url else {}
    settings = view.get("settings") or {}

    def who(seat: int) -> str:
        return f"{m.esc(names.get(seat, ''))} (seat {seat})"

    def dest(d: str) -> str:
        return f"{m.esc(dest_names[d])} ({d})"

    out: list[str] = [m.title(view.get("name", ""), str(view.get("title", "")))]
    if "board" in pictures:
        out.append(m.image("Marketing board", pictures["board"]))
    out.append(f"Seed digest (SHA-256): {m.code(str(view.get('seed_sha256', '')))}")
    out.append(
        m.section("Players", [f"{who(s)}: {count_garnets(garnets[s])}" for s in sorted(names)])
    )

    merge = bool(settings.get("merge", result.get("merge")))
    variant = (
        "merge (both cards passed to you join your hand, then you market any card of it)"
        if merge
        else "standard (you market one of the two cards passed to you)"
    )
    seats = int(result.get("seats") or len(players))
    in_play = "55 in play (values 3 to 12)" if seats >= 4 else "40 in play (values 3 to 9)"
    card_rows = [
        f"Variant: {variant}",
        "Tiebreak (an earlier destination wins a tie on totals): "
        + ", ".join(dest(d) for d in tiebreak_of(view)),
        f"Cards: {in_play}; {int(result.get('removed_count') or 0)} removed unseen at the "
        f"start; {int(result.get('draw_pile') or 0)} left in the draw pile",
    ]
    out.append(m.section("Settings", card_rows))

    rows = rounds_rows(view, who)
    out.append(m.section("Rounds", rows))
    if view.get("paused"):
        out.append(m.bold("The match is paused: the clock is stopped."))

    initial = canonical(result.get("initial_marketing") or [])
    rows = [f"Initial marketing: {_cards(initial, m, dest_names)}"]
    revealed = list(result.get("revealed") or [])
    for step, cards in enumerate(result.get("marketed") or [], start=1):
        line = f"Market step {step}: {_cards(list(cards or []), m, dest_names)}"
        if step - 1 < len(revealed):
            line += f"; revealed from the draw pile: {_cards([revealed[step - 1]], m, dest_names)}"
        rows.append(line)
    out.append(m.section("Cards in marketing", rows))

    final = "ranking" in result
    totals = totals_of(result)
    ranking = ranking_of(view)
    rows = []
    for place, d in enumerate(ranking):
        part = "top three, scores +" if place < 3 else "bottom two, scores -"
        rows.append(f"{ORDINALS[place]}: {dest(d)}, total {totals[d]} ({part})")
    out.append(m.section("Final ranking" if final else "Totals and ranking so far", rows))
    for total in sorted(set(totals.values()), reverse=True):
        tied = [d for d in ranking if totals[d] == total]
        if len(tied) > 1:
            out.append(
                f"Tied on {total}: {joined([dest(d) for d in tied])}, ranked in that order "
                "by the tiebreak."
            )

    scores = result.get("scores")
    if final and isinstance(scores, dict):
        top = set(ranking[:3])
        hands = result.get("hands") or {}
        rows = []
        for seat in sorted(names):
            hand = [c for c in hands.get(str(seat)) or [] if is_card(c)]
            plus = sum(value(c) for c in hand if destination(c) in top)
            minus = sum(value(c) for c in hand if destination(c) not in top)
            rows.append(
                f"{who(seat)}: {_points(int(scores.get(str(seat), 0)))} "
                f"(top cards +{plus}, bottom cards -{minus}); hand: {_cards(hand, m, dest_names)}"
            )
        out.append(m.section("Hands and scores", rows))
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
        if "scores" in pictures:
            out.append(m.image("Final scores", pictures["scores"]))

    out += defaulted_section(view, m, who)
    if view.get("revealed"):
        out.append("The host has made every order of this match public (full reveal).")
    if view.get("seed"):
        out.append(f"Seed (check it against the digest above): {m.code(str(view['seed']))}")
    return m.document(out)
