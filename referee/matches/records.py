"""A match's records (:class:`Records`): its file, its audit and its fixes.

The match file as the host may have it (:meth:`Records.export`, with the hash
chain and, at the end, the proof of every order used), the file for the
referee's own checks, the ruleset's audit (kept per process), re-resolving
the closed rounds (:meth:`Records.recheck`) and correcting stored results by
appending correction entries to the chain (:meth:`Records.correct`, issue 27).
"""

from __future__ import annotations

import copy
import hashlib
import json
from typing import Any

from sqlmodel import Session, col, select

from referee import chain
from referee.chain import canonical_json
from referee.db import read, transaction
from referee.errors import RuleError
from referee.matches.core import Core
from referee.matches.state import (
    ChainHead,
    MatchState,
)
from referee.models import (
    ChainEntry,
    Round,
)
from referee.ruleset import (
    GameState,
    public_result,
)


class Records(Core):
    """Export, audit, recheck and correct a match."""

    def _document(self, state: MatchState, upto: int) -> Any:
        """The match file of rounds 1..upto (their stored orders; None = no order)."""
        closed, host_entered = self._closed_orders(state, upto)
        match = state.match
        return state.ruleset.document(state.setup, match.settings, match.seed, closed, host_entered)

    def export(self, match_id: str) -> Any:
        """The match file (docs/contracts/<game>/FORMAT.md) of every closed round, as the host may
        have
        it: R10 makes the seed public only at the end (with it, every seeded
        default, draw and deal could be computed in advance), so before the end
        the file carries ``"seed": null``; ``seed_sha256`` is always there, so the
        seed published at the end can be checked against it. ``name`` is the
        match's name, for people: like ``seed_sha256`` it is a key docs/contracts/<game>/FORMAT.md
        does
        not name, which ``referee resolve --file`` reads past (it changes no result).

        Issue 27: ``chain`` is the match's hash chain, every entry's body and
        head (none for a match stored before chains), and once the match has
        finished ``proof`` lists each order used in a closed round with its salt
        and receipt, so that ``referee verify`` (docs/verify.md) checks the file
        offline. Every game's file reader passes over both keys as it does
        ``name`` (:data:`referee.matchfile.EXPORT_KEYS`)."""
        state = self.state(match_id)
        document = self._closed_document(state)
        if not state.match.finished:
            document["seed"] = None
        document["seed_sha256"] = state.match.seed_sha256
        document["name"] = state.match.name
        entries = self._chain_entries(match_id)
        if entries:
            document["chain"] = [{"body": e.body, "head": e.head} for e in entries]
        if state.match.finished:
            document["proof"] = self._proof(state)
        return document

    def _chain_entries(self, match_id: str) -> list[ChainEntry]:
        """A match's chain, every entry in order (bodies included)."""
        with read(self.engine) as session:
            return list(
                session.exec(
                    select(ChainEntry)
                    .where(ChainEntry.match_id == match_id)
                    .order_by(col(ChainEntry.position))
                )
            )

    @staticmethod
    def _proof(state: MatchState) -> list[dict[str, Any]]:
        """Each order used in a closed round (the match file's orders: not a
        host-entered one refused at its close), with its salt and receipt."""
        closed = {r.number for r in state.rounds if r.status == "closed"}
        return [
            {
                "round": o.round_number,
                "seat": o.seat,
                "order": o.payload,
                "salt": o.salt,
                "receipt": o.receipt,
            }
            for o in state.orders
            if o.round_number in closed and not o.refused
        ]

    def document(self, match_id: str) -> Any:
        """The match file of every closed round with its seed, whatever the
        match's stage: for the referee's own checks and the operator's tools,
        never for a host before the end (see :meth:`export`)."""
        return self._closed_document(self.state(match_id))

    def _closed_document(self, state: MatchState) -> Any:
        closed = state.last_closed
        return self._document(state, upto=closed.number if closed else 0)

    def audit(self, match_id: str) -> Any:
        """The ruleset's audit of the match up to its last closed round (host only).

        An audit solves CP-SAT models (0.1-0.2 s), so each is kept (the last
        :data:`AUDIT_CACHE_SIZE`, per process) under the digest of exactly what
        it is computed from: the match file of the closed rounds (set-up,
        settings, seed, every closed order). A round closing makes a new file,
        hence a new audit; orders of the open round, sealed, are not in it."""
        state = self.state(match_id)
        document = self._closed_document(state)
        digest = hashlib.sha256(canonical_json(document).encode("utf-8")).hexdigest()
        key = (match_id, state.ruleset.name, digest)
        with self._audits_lock:
            found = self._audits.get(key)
        if found is None:
            found = state.ruleset.audit(document, stored=True)
            # an audit cut short by its time budget ("complete": false) is not kept:
            # a later request, on a less busy moment, may prove what this one could not
            if not (isinstance(found, dict) and found.get("complete") is False):
                with self._audits_lock:
                    self._audits[key] = found
        return copy.deepcopy(found)

    def correct(self, match_id: str) -> list[int]:
        """Re-resolve every closed round from its stored orders and, where its
        stored result differs (a result stored by an older version of a game's
        rules, say), store the re-resolved one and append a ``correction``
        entry to the chain (docs/verify.md): a published head is never
        rewritten. The rounds corrected, in order ([] when none differs).

        Refused, with nothing changed, when the match has no chain, or when the
        fixed results would change how the match was played: a later round
        (the open one included) opened with other acting seats, or the match
        ending at another round. A fix changes results, never orders."""
        with transaction(self.engine) as session:
            match = self._lock(session, match_id)
            state = self._load(session, match)
            if not state.chain:
                raise RuleError.single(
                    "chain/none",
                    f"match {match_id} was stored before the referee kept chains, so a fix "
                    "of it could not be published as a correction; it was not changed",
                )
            fixed: list[int] = []
            for rnd in [r for r in state.rounds if r.status == "closed"]:
                again = chain.json_value(self._resolve_stored(state, rnd.number))
                if again == chain.json_value(rnd.result):
                    continue
                rnd.result = again
                session.add(rnd)
                state.chain.append(self._chain_correction(session, state, rnd))
                fixed.append(rnd.number)
            if fixed:
                self._same_play(state)
                match.version += 1
                session.add(match)
            return fixed

    @staticmethod
    def _same_play(state: MatchState) -> None:
        """Refuse a fix after which the rounds would not have been opened as
        they were (:meth:`correct`)."""
        rules, settings = state.ruleset, state.match.settings
        for rnd in state.rounds:
            if rnd.number > 1:
                prev = state.rounds[rnd.number - 2]
                before = GameState(state.setup, settings, prev.number, prev.result)
                step = rules.next_step(before)
                if step is None or (step.number, list(step.acting)) != (rnd.number, rnd.acting):
                    raise RuleError.single(
                        "chain/played_differently",
                        f"with the fixed results, round {rnd.number} would not have been "
                        f"played by seat(s) {rnd.acting} as it was: a fix cannot replay the "
                        "match differently, so nothing was changed",
                    )
        last = state.last_closed
        if last is not None and state.open_round is None:
            ends = rules.next_step(GameState(state.setup, settings, last.number, last.result))
            if (ends is None) != state.match.finished:
                raise RuleError.single(
                    "chain/played_differently",
                    f"with the fixed results the match would "
                    f"{'have ended' if ends is None else 'not have ended'} after round "
                    f"{last.number}: a fix cannot replay the match differently, so nothing "
                    "was changed",
                )

    def _chain_correction(self, session: Session, state: MatchState, rnd: Round) -> ChainHead:
        """Append a correction of closed round ``rnd`` (its result just fixed):
        the same orders as its entry, the new result's digest, ``replaces`` the
        round's head before it."""
        mine = [h for h in state.chain if h.round == rnd.number and h.kind != chain.START]
        used = {s: o for s, o in state.orders_of(rnd.number).items() if not o.refused}
        after = GameState(state.setup, state.match.settings, rnd.number, rnd.result)
        body = chain.correction_body(
            state.chain[-1].head,
            mine[-1].head,
            number=rnd.number,
            acting=rnd.acting,
            receipts={s: o.receipt for s, o in used.items()},
            host_entered=[s for s, o in used.items() if o.host_entered],
            result_sha256=chain.result_digest(public_result(state.ruleset, after)),
        )
        return self._append_entry(session, state.match.id, len(state.chain), body, rnd.number)

    def recheck(self, match_id: str) -> list[str]:
        """Re-resolve every closed round from its stored orders and list each
        difference from the stored results (an erratum check); [] when none."""
        state = self.state(match_id)
        differences: list[str] = []
        for rnd in state.rounds:
            if rnd.status != "closed":
                continue
            again = self._resolve_stored(state, rnd.number)
            stored = rnd.result or {}
            for key in sorted(set(again) | set(stored)):
                if again.get(key) != stored.get(key):
                    was, now = json.dumps(stored.get(key)), json.dumps(again.get(key))
                    differences.append(
                        f"{self._title(state, rnd.number)}: '{key}' stored as {was} "
                        f"but re-resolves to {now}"
                    )
        return differences
