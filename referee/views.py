"""Visibility is a function: :func:`view_for` turns a stored match into exactly
what one viewer may see (R11). Every page, API response and forum post is built
from its output, never from the stored rows, so nothing sealed can leak.

- The public sees the set-up, the seed's digest, the rounds (phase, status,
  deadline, who has submitted, never what) and the results R11 makes public;
  the seed once the match has finished.
- A seat also sees its own orders (with receipts) and what the ruleset lets it
  see of the game (its own hand, say), with the ``options`` it may choose
  from in the open step.
- The host sees every closed round's orders and full results, and for the open
  round only who has submitted and when each seat first did, and the content of
  the orders it entered itself: never a player's sealed order, nor anything that
  changes with its content or its replacement (its receipt, its revision count,
  the time of a replacement).
- Once a round has closed, everyone sees which of its orders the host entered;
  the host and the seat see whether one of them broke the rules at the close
  (so the seat got the default), and the seat why.
- After the host's full reveal, everything is public, salts included:
  :func:`revealed_orders` lists, from a view, every order with what anyone
  needs to check its receipt.
- The heads of the match's hash chain are public as they come (issue 27,
  :mod:`referee.chain`): ``chain_head``, the latest, and each closed round's
  ``head``; they commit to receipts, never to a sealed order's content.
- ``version`` is a digest of the rest of the view, so it moves only when
  something this viewer may see has changed (a replaced sealed order moves no
  one's version but its sender's).
"""

from __future__ import annotations

import copy
import hashlib
import json
import shlex
from datetime import datetime
from typing import Any

from referee import clocks
from referee.chain import canonical_json
from referee.errors import RuleError
from referee.matches.state import (
    SERVICE_SETTINGS,
    MatchState,
    Preview,
    PulseFacts,
    step_of,
)
from referee.models import Round
from referee.ruleset import GameState, Step, Viewer


def _iso(value: datetime | None) -> str | None:
    return value.isoformat().replace("+00:00", "Z") if value is not None else None


def _first_sent(order: Any) -> datetime:
    """When a seat first had an order in its round: what the host may know of
    a sealed order's timing (a replacement keeps it)."""
    first: datetime | None = order.first_sent_at
    return first if first is not None else order.submitted_at


def view_for(state: MatchState, viewer: Viewer) -> dict[str, Any]:
    match = state.match
    rules = state.ruleset
    setup = state.setup
    revealed = match.revealed

    heads = state.round_heads()
    fixes = state.corrections()
    # the rounds opened so far, then those the game knows are still to come
    steps: list[tuple[Step, Round | None]] = [(step_of(r), r) for r in state.rounds]
    steps += [(step, None) for step in state.upcoming()]
    rounds: list[dict[str, Any]] = []
    for step, stored in steps:
        number = step.number
        orders = state.orders_of(number)
        entry: dict[str, Any] = {
            "number": number,
            "phase": step.phase,
            "title": step.title,
            "acting": list(step.acting),
            "status": stored.status if stored else "pending",
            "opened_at": _iso(stored.opened_at) if stored else None,
            "deadline": _iso(stored.deadline) if stored else None,
            "closed_at": _iso(stored.closed_at) if stored else None,
            "closed_by": stored.closed_by if stored else None,
            "deadline_changes": stored.deadline_changes if stored else 0,
            "submitted": sorted(orders),
            # each acting seat's clock (issue 24; None without a clock): public
            "clocks": (
                clocks.round_clocks(stored.clocks, stored.status, match.paused_at)
                if stored
                else None
            ),
            # the head of the chain once this round closed (issue 27): public
            "head": heads.get(number),
            # each fix of its stored result, appended to the chain (issue 27): public
            "corrections": [{"head": h.head, "at": _iso(h.at)} for h in fixes.get(number, [])],
        }
        closed = stored is not None and stored.status == "closed"
        if closed or viewer.kind == "host":
            # who entered an order is public once its round closes; the host knows
            # it of the open round (a player replacing a host-entered order shows)
            entry["host_entered"] = sorted(s for s, o in orders.items() if o.host_entered)
        if (viewer.kind == "host" and closed) or revealed:
            entry["receipts"] = {str(s): o.receipt for s, o in sorted(orders.items())}
        if viewer.kind == "host" and not closed:
            # the fact and time of each seat's first order, nothing that changes with
            # its content nor with a replacement (issue 24)
            entry["sent_at"] = {str(s): _iso(_first_sent(o)) for s, o in sorted(orders.items())}
        rounds.append(entry)

    last = state.last_closed
    open_round = state.open_round
    now = state.game_state()
    game = rules.view(
        now,
        viewer,
        revealed=revealed,
        open_step=step_of(open_round) if open_round is not None else None,
    )

    view: dict[str, Any] = {
        "id": match.id,
        "name": match.name,
        "ruleset": match.ruleset,
        "title": rules.title,
        "viewer": {"kind": viewer.kind, "seat": viewer.seat},
        **game,  # the game's part: at least "result"
        "players": setup.players,
        # a match stored before a service setting existed has its default (auto_open)
        "settings": {**SERVICE_SETTINGS, **match.settings},
        "seed_sha256": match.seed_sha256,
        # the latest head of the match's hash chain (issue 27; None: a match stored
        # before chains, which has none): docs/verify.md
        "chain_head": state.chain_head,
        "created_at": _iso(match.created_at),
        "paused": match.paused_at is not None,
        "finished": match.finished,
        "revealed": revealed,
        "rounds": rounds,
        "current_round": match.rounds_opened or None,
        "closed_rounds": last.number if last else 0,
    }
    if match.settings.get("clock"):
        # each seat's time bank after its last closed step, in seconds (public)
        view["clock_banks"] = {
            str(s.seat): s.clock_bank for s in sorted(state.seats, key=lambda s: s.seat)
        }
    if match.finished:
        view["seed"] = match.seed
    view["orders"] = _orders(state, viewer)
    if viewer.kind == "seat" and viewer.seat is not None and open_round is not None:
        _check_own_entered(state, now, open_round, viewer.seat, view["orders"])
    view["version"] = view_version(view)
    return view


def view_version(view: dict[str, Any]) -> str:
    """A short digest of everything in ``view`` but its version: it changes when,
    and only when, something this viewer may see changes (pictures' ETags and
    clients polling for news use it)."""
    content = {k: v for k, v in view.items() if k != "version"}
    text = json.dumps(content, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


# ---- the pulse: what a page polls to follow the match live (issue 24) --------------


def pulse_for(facts: PulseFacts) -> dict[str, Any]:
    """The match's pulse from the few rows :meth:`referee.service.Referee.pulse`
    reads: public facts only, the same for every viewer. Equal, byte for byte,
    to :func:`pulse_of_view` of any view of the match at that moment."""
    rnd = facts.round
    match = facts.match
    step = None
    if rnd is not None:
        step = {
            "number": rnd.number,
            "phase": rnd.phase,
            "title": rnd.title,
            "acting": list(rnd.acting or ()),
            "status": rnd.status,
            "deadline": _iso(rnd.deadline),
            "deadline_changes": rnd.deadline_changes,
            "submitted": sorted(facts.submitted),
            "clocks": clocks.round_clocks(rnd.clocks, rnd.status, match.paused_at),
        }
    return _pulse(match.id, step, match.paused_at is not None, match.finished, match.revealed)


def pulse_of_view(view: dict[str, Any]) -> dict[str, Any]:
    """The pulse of the match a view shows, from the view's public part (its
    current round, paused, finished, revealed): a page renders it so that its
    first poll is answered "not modified" unless the match moved on since."""
    step = None
    if view["current_round"]:
        r = view["rounds"][view["current_round"] - 1]
        step = {k: r[k] for k in PULSE_STEP_KEYS}
    return _pulse(view["id"], step, view["paused"], view["finished"], view["revealed"])


# what the pulse tells of the latest step: all public in every view (R11)
PULSE_STEP_KEYS = (
    "number",
    "phase",
    "title",
    "acting",
    "status",
    "deadline",
    "deadline_changes",
    "submitted",
    "clocks",
)


def _pulse(
    match_id: str, step: dict[str, Any] | None, paused: bool, finished: bool, revealed: bool
) -> dict[str, Any]:
    """The pulse's JSON object and, as ``pulse``, a digest of the rest (its ETag).

    Only facts every viewer may see, and only those that move when a page
    should change for someone: a step opening or closing, an order arriving
    (who, never what: a replaced order changes nothing here), the deadline
    moving, a pause, the end, the reveal. Never Match.version (every order,
    a replaced one too, bumps it) nor anything computed from an order's content.
    The step's clocks (:func:`referee.clocks.round_clocks`) stop at a seat's
    first order only, so a replaced order moves them no more than the rest."""
    open_step = step is not None and step["status"] == "open" and not finished
    body: dict[str, Any] = {
        "match": match_id,
        "step": step,
        # the seats the open step still waits for (its acting seats without an order)
        "waiting": (
            [s for s in step["acting"] if s not in step["submitted"]]
            if step is not None and open_step
            else []
        ),
        "paused": paused,
        "finished": finished,
        "revealed": revealed,
    }
    text = json.dumps(body, sort_keys=True, separators=(",", ":"))
    body["pulse"] = hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]
    return body


def _orders(state: MatchState, viewer: Viewer) -> dict[str, dict[str, Any]]:
    """Order contents the viewer may read: ``{round: {seat: {...}}}``."""
    revealed = state.match.revealed
    closed = {r.number for r in state.rounds if r.status == "closed"}
    out: dict[str, dict[str, Any]] = {}
    for o in state.orders:
        own = viewer.kind == "seat" and viewer.seat == o.seat
        # the host reads closed rounds' orders, and in the open round only what it
        # entered itself (a player's order that took its place is sealed again)
        host_may = viewer.kind == "host" and (o.round_number in closed or o.host_entered)
        if not (own or host_may or revealed):
            continue
        item: dict[str, Any] = {
            "order": o.payload,
            "receipt": o.receipt,
            "submitted_at": _iso(o.submitted_at),
            "host_entered": o.host_entered,
        }
        if own or revealed or o.round_number in closed:
            # how often an order was replaced says something about a sealed round
            item["revision"] = o.revision
        if o.refused:  # set only at the close, so only a closed round's order has it
            # a host-entered order that broke the rules at the close, so was not used:
            # the host learns that; why (the seat's private data) is its seat's
            item["refused_at_close"] = True
            if own or revealed:
                item["problems"] = [dict(p) for p in o.refused]
        if revealed:
            item["salt"] = o.salt
        out.setdefault(str(o.round_number), {})[str(o.seat)] = item
    return out


def _check_own_entered(
    state: MatchState, now: GameState, rnd: Round, seat: int, orders: dict[str, Any]
) -> None:
    """A seat sees at once whether the order the host entered for it in the
    open round breaks a rule on the seat's own private data (which the host's
    entry could not look at): under ``problems``, so that it can send its own
    before the close gives it the default."""
    item = orders.get(str(rnd.number), {}).get(str(seat))
    if item is None or not item["host_entered"]:
        return
    try:
        state.ruleset.check_order(now, step_of(rnd), seat, copy.deepcopy(item["order"]))
    except RuleError as exc:
        item["problems"] = [{"code": p.code, "message": p.message} for p in exc.problems]


def revealed_orders(view: dict[str, Any]) -> list[dict[str, Any]]:
    """After the full reveal, every order the view carries (so: every order of
    the match), by round then seat, with what checking its receipt needs: the
    order as hashed (``canonical``, the canonical JSON of
    :func:`referee.service.canonical_json`), its ``salt`` and ``receipt``, the
    exact text hashed (``hashed``: ``salt:canonical``; the receipt is its
    SHA-256 in UTF-8) and a shell line that checks it (``command``). Nothing
    before the reveal (a view carries no salts then): ``[]``."""
    if not view.get("revealed"):
        return []
    titles = {r["number"]: r["title"] for r in view["rounds"]}
    out: list[dict[str, Any]] = []
    for number, by_seat in sorted(view.get("orders", {}).items(), key=lambda kv: int(kv[0])):
        for seat, item in sorted(by_seat.items(), key=lambda kv: int(kv[0])):
            if "salt" not in item:
                continue
            canonical = canonical_json(item["order"])
            hashed = f"{item['salt']}:{canonical}"
            out.append(
                {
                    "round": int(number),
                    "title": titles.get(int(number), f"Round {number}"),
                    "seat": int(seat),
                    "order": item["order"],
                    "host_entered": item.get("host_entered", False),
                    "refused_at_close": item.get("refused_at_close", False),
                    "problems": item.get("problems", []),
                    "salt": item["salt"],
                    "receipt": item["receipt"],
                    "canonical": canonical,
                    "hashed": hashed,
                    "command": f"printf '%s' {shlex.quote(hashed)} | sha256sum",
                }
            )
    return out


def preview_for(preview: Preview) -> dict[str, Any]:
    """The host's preview of closing the open round now, as a view: per seat,
    which order closing would use (the player's own, still sealed; the one the
    host entered, with its content; or the seeded default for a missing one),
    and the resolution only when the service could compute it from orders the
    host entered (see :meth:`referee.service.Referee.preview`)."""
    state = preview.state
    rnd = preview.round
    orders = state.orders_of(rnd.number)
    seats: list[dict[str, Any]] = []
    for player in state.setup.players:
        seat = player["seat"]
        if seat not in rnd.acting:
            continue  # a seat that does not act in this step sends no order
        o = orders.get(seat)
        entry: dict[str, Any] = {"seat": seat, "name": player["name"]}
        if o is None:
            entry["uses"] = "default"
        elif o.host_entered:
            entry.update(uses="host_entered", order=o.payload, submitted_at=_iso(o.submitted_at))
        else:
            entry.update(uses="sealed", submitted_at=_iso(_first_sent(o)))
        seats.append(entry)
    resolved = preview.result is not None
    return {
        "round": rnd.number,
        "phase": rnd.phase,
        "title": rnd.title,
        "seats": seats,
        "resolved": resolved,
        "result": preview.result,
        "note": (
            "Every order of this round was entered by you, so this is what closing it now gives."
            if resolved
            else "What closing now would give is not shown: it depends on what is sealed "
            "from you until the round closes (the players' own orders, the seeded "
            "defaults of missing ones, and whether an order you entered breaks a rule "
            "on what only its seat sees: such an order gets the default)."
        ),
    }
