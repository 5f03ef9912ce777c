"""Ready-to-paste forum posts (Markdown or BBCode) of a Forfort match, from a
*public* view (FO21), built from :class:`referee.markup.Markup` as every
game's post is.

The post is made only from what :func:`referee.views.view_for` gives the
public: the title, the forts picture, ``Players``, ``Rounds``, then each
fort in words (every stack, the armies, the drawbridge), points with the
dungeon and hand counts, the discard piles, the last steps, and at the end
the scores, the winners, the Token of Life, the Elimination Candidate and
the seed. Every string a user wrote (the match's and the players' names)
goes through :meth:`referee.markup.Markup.esc`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from referee.errors import RuleError
from referee.markup import Markup, picture_url
from referee.rulesets.cardgame import rounds_rows
from referee.words import garnets as count_garnets

from .words import cards_text, fort_text, step_text

FORMATS = ("markdown", "bbcode")
LAST_STEPS = 6  # the post lists the latest steps; the match page has them all


def _count(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


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

    def who(seat: int) -> str:
        return f"{m.esc(names.get(seat, ''))} (seat {seat})"

    out: list[str] = [m.title(view.get("name", ""), str(view.get("title") or "Forfort"))]
    if base_url:  # the public picture, drawn for this state
        out.append(m.image("Forts", picture_url(view, base_url, "forts")))
    out.append(f"Seed digest (SHA-256): {m.code(str(view.get('seed_sha256', '')))}")
    out.append(
        m.section("Players", [f"{who(s)}: {count_garnets(garnets[s])}" for s in sorted(names)])
    )
    out.append(m.section("Rounds", rounds_rows(view, who)))
    if view.get("paused"):
        out.append(m.bold("The match is paused: the clock is stopped."))

    forts = result.get("forts") or {}
    out.append(
        m.section(
            "Forts (spaces 1 to 8 clockwise from the top left; the last card of a space shows)",
            [f"{who(s)}: {fort_text(forts.get(str(s)) or {}, who)}" for s in sorted(names)],
        )
    )
    points = result.get("points") or {}
    dungeons = result.get("dungeon_counts") or {}
    hands = result.get("hand_counts") or {}
    supply = result.get("supply") or {}
    rows = []
    for s in sorted(names):
        key = str(s)
        own = supply.get(key) or {}
        rows.append(
            f"{who(s)}: {_count(int(points.get(key, 0)), 'point')}; "
            f"{_count(int(dungeons.get(key, 0)), 'card')} in the dungeon, "
            f"{_count(int(hands.get(key, 0)), 'card')} in hand; "
            f"supply {_count(int(own.get('camps', 0)), 'camp')}, "
            f"{_count(int(own.get('armies', 0)), 'army')}".replace("armys", "armies")
        )
    out.append(m.section("Points", rows))
    discards = result.get("discards") or {}
    out.append(
        m.section(
            "Discard piles",
            [f"{who(s)}: {cards_text(discards.get(str(s)))}" for s in sorted(names)],
        )
    )
    steps = [s for s in result.get("steps") or [] if isinstance(s, Mapping)]
    if steps:
        label = "Steps" if len(steps) <= LAST_STEPS else f"The last {LAST_STEPS} steps"
        out.append(m.section(label, [step_text(s, who) for s in steps[-LAST_STEPS:]]))
    if result.get("final_round") is not None and result.get("end") is None:
        out.append(
            m.field(
                "Final round",
                f"a dungeon is empty: the match ends after round {result['final_round']}",
            )
        )
    out += _end(m, result, who)
    defaulted = result.get("defaulted") or []
    if defaulted:
        rows = [f"Step {int(d['step'])}: {who(int(d['seat']))}" for d in defaulted]
        out.append(m.section("Seeded default orders (no order when the step closed)", rows))
    if view.get("revealed"):
        out.append("The host has made every order of this match public (full reveal).")
    if view.get("seed"):
        out.append(f"Seed (check it against the digest above): {m.code(str(view['seed']))}")
    return m.document(out)


def _end(m: Markup, result: Mapping[str, Any], who: Any) -> list[str]:
    """The end of the match: how it ended, scores, winners, the season keys."""
    end = result.get("end")
    if not isinstance(end, Mapping):
        return []
    if end.get("reason") == "completed":
        how = f"a fort was completed at step {end.get('step')}"
    else:
        how = (
            f"a dungeon ran out at step {end.get('triggered_at')}; "
            f"the round was played out to step {end.get('step')}"
        )
    out = [m.field("The end", how)]
    scores = result.get("scores") or {}
    bonus = result.get("bonus") or {}
    rows = [
        f"{who(int(s))}: {v}" + (f" (with a bonus of {bonus.get(s)})" if bonus.get(s) else "")
        for s, v in sorted(scores.items(), key=lambda kv: int(kv[0]))
    ]
    out.append(m.section("Scores", rows))
    winners = [who(int(s)) for s in result.get("winners") or []]
    if winners:
        out.append(m.field("Won by", " and ".join(winners)))
    tol = result.get("token_of_life")
    out.append(
        m.field(
            "Token of Life",
            who(int(tol)) if tol is not None else "nobody (the highest score is shared)",
        )
    )
    ec = result.get("elimination_candidate") or {}
    if ec.get("seat") is not None:
        by = {"score": "the lowest score", "garnets": "the fewest garnets"}.get(
            str(ec.get("decided_by")), "a seeded draw"
        )
        out.append(m.field("Elimination Candidate", f"{who(int(ec['seat']))}, by {by}"))
    hands = result.get("hands") or {}
    if hands:
        out.append(
            m.section(
                "Hands at the end",
                [
                    f"{who(int(s))}: {cards_text(h)}"
                    for s, h in sorted(hands.items(), key=lambda kv: int(kv[0]))
                ],
            )
        )
    return out
