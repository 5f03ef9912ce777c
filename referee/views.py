"""Visibility is a function: :func:`view_for` turns a stored match into exactly
what one viewer may see (R11). Every page, API response and forum post is built
from its output, never from the stored rows, so nothing sealed can leak.

- The public sees the set-up, the seed's digest, the rounds (phase, status,
  deadline, who has submitted, never what) and the results R11 makes public;
  the seed once the match has finished.
- A seat also sees its own orders (with receipts) and what the ruleset lets it
  see of the results (its own hand and placements).
- The host sees every closed round's orders and full results, and for the open
  round only who has submitted and their commitments, never the content.
- After the host's full reveal, everything is public, salts included.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from referee.ruleset import Viewer
from referee.service import MatchState


def _iso(value: datetime | None) -> str | None:
    return value.isoformat().replace("+00:00", "Z") if value is not None else None


def view_for(state: MatchState, viewer: Viewer) -> dict[str, Any]:
    match = state.match
    rules = state.ruleset
    setup = state.setup
    phases = state.phases
    revealed = match.revealed

    rounds: list[dict[str, Any]] = []
    for number, phase in enumerate(phases, start=1):
        stored = next((r for r in state.rounds if r.number == number), None)
        orders = state.orders_of(number)
        entry: dict[str, Any] = {
            "number": number,
            "phase": phase,
            "title": rules.round_title(setup, number),
            "status": stored.status if stored else "pending",
            "opened_at": _iso(stored.opened_at) if stored else None,
            "deadline": _iso(stored.deadline) if stored else None,
            "closed_at": _iso(stored.closed_at) if stored else None,
            "closed_by": stored.closed_by if stored else None,
            "submitted": sorted(orders),
        }
        if viewer.kind == "host" or revealed:
            entry["receipts"] = {str(s): o.receipt for s, o in sorted(orders.items())}
            entry["host_entered"] = sorted(s for s, o in orders.items() if o.host_entered)
        rounds.append(entry)

    last = state.last_closed
    result = rules.visible(
        last.result if last else None, viewer, settings=match.settings, revealed=revealed
    )

    view: dict[str, Any] = {
        "id": match.id,
        "name": match.name,
        "ruleset": match.ruleset,
        "title": rules.title,
        "viewer": {"kind": viewer.kind, "seat": viewer.seat},
        "map_name": match.map_name,
        "map": match.map_doc,
        "players": setup.players,
        "settings": dict(match.settings),
        "seed_sha256": match.seed_sha256,
        "created_at": _iso(match.created_at),
        "paused": match.paused_at is not None,
        "finished": match.finished,
        "revealed": revealed,
        "rounds": rounds,
        "current_round": match.rounds_opened or None,
        "closed_rounds": last.number if last else 0,
        "version": match.version,
        "result": result,
    }
    if match.finished:
        view["seed"] = match.seed
    view["orders"] = _orders(state, viewer)
    return view


def _orders(state: MatchState, viewer: Viewer) -> dict[str, dict[str, Any]]:
    """Order contents the viewer may read: ``{round: {seat: {...}}}``."""
    revealed = state.match.revealed
    closed = {r.number for r in state.rounds if r.status == "closed"}
    out: dict[str, dict[str, Any]] = {}
    for o in state.orders:
        own = viewer.kind == "seat" and viewer.seat == o.seat
        host_may = viewer.kind == "host" and o.round_number in closed
        if not (own or host_may or revealed):
            continue
        item: dict[str, Any] = {
            "order": o.payload,
            "receipt": o.receipt,
            "submitted_at": _iso(o.submitted_at),
            "host_entered": o.host_entered,
            "revision": o.revision,
        }
        if revealed:
            item["salt"] = o.salt
        out.setdefault(str(o.round_number), {})[str(o.seat)] = item
    return out
