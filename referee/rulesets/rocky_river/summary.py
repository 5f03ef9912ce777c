"""A readable account of a resolved match, for ``referee resolve`` without --json."""

from __future__ import annotations

from referee.words import garnets, signed

from .draft import garnet_order
from .match import Resolution
from .seeded import seed_digest


def summary_text(res: Resolution) -> str:
    spec = res.spec
    river = spec.river
    names = {p.seat: p.name for p in spec.players}

    def who(seat: int) -> str:
        return f"seat {seat} ({names[seat]})"

    lines: list[str] = []
    add = lines.append
    where = f"{river.name} ({spec.map_name})" if spec.map_name else river.name
    add(f"Rocky River Riding on {where}")
    add(f"Seed digest (SHA-256): {seed_digest(spec.seed)}")
    add("")
    add("Players (garnet order: " + ", ".join(str(s) for s in garnet_order(spec.garnets)) + ")")
    for p in spec.players:
        add(f"  seat {p.seat}  {p.name}  {garnets(p.garnets)}")
    add("")
    add("Draft")
    for seat, hand in res.hands.items():
        add(f"  {who(seat)}: {' '.join(hand)}")
    if res.conflicts:
        add("  Conflicts:")
        for c in res.conflicts:
            seats = ", ".join(str(s) for s in c.contenders)
            add(
                f"    #{c.number} in draft round {c.round}: {c.card} wanted by seats {seats}, "
                f"won by {who(c.winner)}"
            )
    else:
        add("  No conflicts.")
    if res.totals is not None:
        add("")
        add("Mapping: slot totals")
        for fork in river.forks.values():
            parts = [
                f"{b.id} {b.color} s{b.seat} {signed(res.totals[b.id])}" for b in fork.branches()
            ]
            add(f"  {fork.id}: " + " | ".join(parts))
    if res.path is not None and res.scores is not None and res.control is not None:
        add("")
        add("Rafting")
        segment = 0
        for step in res.path:
            if step.segment != segment:
                segment = step.segment
                add(f"  Segment {segment}")
            votes = " ".join(f"{s}:{d}" for s, d in step.votes)
            how = "unanimous" if step.unanimous else "majority"
            add(
                f"    {step.fork}: votes {votes} -> {step.direction} ({how}), "
                f"branch {step.branch}, {signed(step.points)} for {who(step.seat)}"
            )
        add("")
        add("Scores")
        for seat in sorted(res.scores):
            add(f"  {who(seat)}: score {res.scores[seat]}, control {res.control[seat]}")
        if res.elimination is not None:
            add("")
            tol = res.token_of_life
            add(
                "Token of Life: "
                + (who(tol) if tol is not None else "nobody (the top score is shared)")
            )
            e = res.elimination
            reason = {
                "score": "the lowest score",
                "control": "lowest control among the seats tied on the lowest score",
                "garnets": "fewest garnets among the seats still tied on score and control",
                "draw": "the seeded draw among the seats still tied on score, control and garnets",
            }[e.decided_by]
            add(f"Elimination Candidate: {who(e.seat)}, decided by {e.decided_by} ({reason})")
        else:
            add(f"(after {len({s.segment for s in res.path})} of {river.segments} rafting rounds)")
    add("")
    if res.defaulted:
        add("Defaulted orders (seeded defaults, R10):")
        for d in res.defaulted:
            rnd = f" round {d.round}" if d.round is not None else ""
            add(f"  {d.phase}{rnd}: {who(d.seat)}")
    else:
        add("Defaulted orders: none")
    if spec.host_entered:
        add("Entered by the host:")
        for h in spec.host_entered:
            rnd = f" round {h.round}" if h.round is not None else ""
            add(f"  {h.phase}{rnd}: {who(h.seat)}")
    return "\n".join(lines) + "\n"
