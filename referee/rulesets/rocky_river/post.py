"""Ready-to-paste forum posts (Markdown or BBCode) from a *public* view (R11).

The post is made only from what :func:`referee.views.view_for` gives the
public, so it cannot contain anything sealed. Given the server's address it
also embeds the public pictures (the map, and the results from the first
closed rafting round on), which the server draws from the same public view.

Every string a user wrote (the match's name, the players' names, the map's
name, fork and branch ids) goes through :meth:`referee.markup.Markup.esc`
(every game's post shares it; its module says how it keeps user text from
ever becoming markup).
"""

from __future__ import annotations

from typing import Any

from referee.markup import Markup as _Markup
from referee.markup import one_line, picture_url, when
from referee.words import garnets, signed

__all__ = ["forum_post", "one_line", "picture_urls"]


def _points(value: int) -> str:
    return f"{value} point" if abs(value) == 1 else f"{value} points"


def picture_urls(view: dict[str, Any], base_url: str) -> dict[str, str]:
    """Absolute addresses of the public pictures of ``view``'s match."""
    out = {"map": picture_url(view, base_url, "map")}
    if (view.get("result") or {}).get("path"):
        out["results"] = picture_url(view, base_url, "results")
    return out


def forum_post(view: dict[str, Any], fmt: str, base_url: str | None = None) -> str:
    m = _Markup(fmt)
    names = {p["seat"]: p["name"] for p in view["players"]}
    pictures = picture_urls(view, base_url) if base_url else {}

    def who(seat: int) -> str:
        return f"{m.esc(names[seat])} (seat {seat})"

    out: list[str] = [m.title(view["name"], view["title"])]
    map_name = view["map"].get("name", view.get("map_name") or "")
    out.append(f"Map: {m.esc(map_name)}")
    if "map" in pictures:
        out.append(m.image(f"River map: {m.esc(map_name)}", pictures["map"]))
    out.append(f"Seed digest (SHA-256): {m.code(view['seed_sha256'])}")
    out.append(
        m.section(
            "Players", [f"{who(p['seat'])}: {garnets(int(p['garnets']))}" for p in view["players"]]
        )
    )

    rows = []
    for r in view["rounds"]:
        line = f"{r['title']}: {'to come' if r['status'] == 'pending' else r['status']}"
        if r["status"] == "open":
            sent = ", ".join(who(s) for s in r["submitted"]) or "nobody yet"
            deadline = when(r.get("deadline"))
            line += f", deadline {deadline}" if deadline else ", no deadline"
            line += f"; orders received from {sent}"
        elif r.get("host_entered"):  # public once the round has closed
            entered = ", ".join(who(s) for s in r["host_entered"])
            line += f"; orders entered by the host for {entered}"
        rows.append(line)
    out.append(m.section("Rounds", rows))
    if view.get("paused"):
        out.append(m.bold("The match is paused: the clock is stopped."))

    result = view.get("result") or {}
    closed = view.get("closed_rounds", 0)
    if closed >= 1:
        out.append("The draft is done; each player now knows their own hand.")
    if closed >= 2:
        if "branch_totals" in result:
            out.append(
                m.section(
                    "Slot totals (published by the host)",
                    [f"{m.esc(b)}: {signed(v)}" for b, v in result["branch_totals"].items()],
                )
            )
        else:
            out.append("Mapping is done; slot totals stay secret until the raft passes them.")
    if "path" in result:
        votes = result.get("votes", [])
        rows = []
        within: dict[int, int] = {}
        for step in result["path"]:
            segment = step["segment"]
            k = within[segment] = within.get(segment, -1) + 1
            chosen = ""
            if segment - 1 < len(votes):
                round_votes = votes[segment - 1]
                chosen = ", ".join(
                    f"{m.esc(names[int(s)])} {round_votes[s][k]}" for s in sorted(round_votes)
                )
            how = "unanimous" if step["unanimous"] else "majority"
            rows.append(
                f"Segment {segment}, fork {m.esc(step['fork'])}: {chosen} -> {step['direction']} "
                f"({how}), branch {m.esc(step['branch'])}: {signed(step['points'])} for "
                f"{who(step['seat'])}"
            )
        out.append(m.section("The raft's path", rows))
        out.append(
            m.section(
                "Scores",
                [
                    f"{who(int(s))}: {_points(result['scores'][s])}, control {result['control'][s]}"
                    for s in sorted(result["scores"])
                ],
            )
        )
    if "elimination_candidate" in result:
        tol = result["token_of_life"]
        out.append(
            m.field(
                "Token of Life",
                who(tol) if tol is not None else "nobody (the highest score is shared)",
            )
        )
        ec = result["elimination_candidate"]
        out.append(
            m.field("Elimination Candidate", f"{who(ec['seat'])}, decided by {ec['decided_by']}")
        )
    if "results" in pictures:
        out.append(m.image("Standings and scores after each rafting round", pictures["results"]))
    defaulted = result.get("defaulted", [])
    if defaulted:
        out.append(
            m.section(
                "Seeded default orders (no order at the deadline)",
                [
                    f"{d['phase']}{' round ' + str(d['round']) if 'round' in d else ''}: "
                    f"{who(d['seat'])}"
                    for d in defaulted
                ],
            )
        )
    if view.get("revealed"):
        out.append("The host has made every order of this match public (full reveal).")
    if view.get("seed"):
        out.append(f"Seed (check it against the digest above): {m.code(view['seed'])}")
    return m.document(out)
