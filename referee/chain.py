"""The hash chain of a match's public record (issue 27); pure, the standard
library only.

Whoever holds the database could rewrite a closed round's orders and their
receipts after the fact. So each match keeps an append-only chain: when it is
created, a *start* entry commits to its set-up, players and seed digest; when a
round closes, a *round* entry commits to the previous head and to that round's
public record (who acts, whose order was used and its receipt, who got the
default, the digest of the public result). Each entry's **head** is the SHA-256
of its body's canonical JSON, and every body names the previous head, so the
latest head commits to everything before it. The heads are published as they
come (pages, the public JSON view, posts): a head copied from an earlier post
shows any later rewrite of what it covers.

docs/verify.md defines the construction exactly; :mod:`referee.verify` checks an
exported match against it, ``scripts/check_match.py`` does the part that needs
no game (seed, receipts, chain) with Python alone.

A fix of a stored round never rewrites a published entry: a ``correction``
entry is appended instead (``referee resolve MATCH_ID --fix``): its body is a
round body with ``"replaces"``, the round's head before it, and the same
orders (acting, sent, receipts, defaults) as the entry it corrects; only the
result's digest may differ. A round's result is checked against its latest
entry; the heads published before the fix stay heads of the chain.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

# the tag of this construction, in every start body: a later change of it is a new tag
CHAIN_VERSION = "referee-chain/1"
START, ROUND, CORRECTION = "start", "round", "correction"
KINDS = (START, ROUND, CORRECTION)
HEX64 = re.compile(r"^[0-9a-f]{64}$")
INVISIBLE = re.compile("[\u200b-\u200d\u2060\ufeff\u00ad]")
SHORT = 12  # hex digits of a head shown for people (the full value beside it)


def canonical_json(value: Any) -> str:
    """The canonical JSON of receipts and heads: keys sorted, no spaces, text
    as itself (not ``\\u`` escapes); hashed as UTF-8."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def sha256_hex(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def receipt_for(order: Any, salt: str) -> str:
    """The commitment of an order: SHA-256 of ``salt:canonical-json(order)``."""
    return sha256_hex(f"{salt}:{canonical_json(order)}")


def json_value(value: Any) -> Any:
    """``value`` as JSON carries it (tuples as lists, number keys as text): what
    a reader of the stored or published JSON hashes, so what the head covers."""
    return json.loads(json.dumps(value, ensure_ascii=False))


def entry_head(body: Mapping[str, Any]) -> str:
    """An entry's head: SHA-256 (hex) of its body's canonical JSON, in UTF-8."""
    return sha256_hex(canonical_json(body))


def result_digest(public_result: Any) -> str:
    """A round entry's ``result_sha256``: the SHA-256 of the canonical JSON of
    the game's public result after that round (the public view's ``result``)."""
    return sha256_hex(canonical_json(json_value(public_result)))


def start_body(
    *,
    match_id: str,
    name: str,
    ruleset: str,
    players: Sequence[Mapping[str, Any]],
    setup: Mapping[str, Any],
    settings: Mapping[str, Any],
    seed_sha256: str,
) -> dict[str, Any]:
    """The first entry's body: the match's set-up as it never changes (its
    players with any per-seat set-up data of the game, the game's own set-up,
    the game's settings; not the service's, which the host may change)."""
    body: dict[str, Any] = json_value(
        {
            "prev": None,
            "kind": START,
            "chain": CHAIN_VERSION,
            "match": match_id,
            "name": name,
            "ruleset": ruleset,
            "players": [dict(p) for p in players],
            "setup": dict(setup),
            "settings": dict(settings),
            "seed_sha256": seed_sha256,
        }
    )
    return body


def round_body(
    prev: str,
    *,
    number: int,
    acting: Iterable[int],
    receipts: Mapping[int, str],
    host_entered: Iterable[int],
    result_sha256: str,
) -> dict[str, Any]:
    """A closed round's entry: ``receipts`` are those of the orders used at the
    close, by seat (an acting seat without one got the game's default)."""
    seats = sorted(int(s) for s in acting)
    used = {int(s): r for s, r in receipts.items()}
    body: dict[str, Any] = json_value(
        {
            "prev": prev,
            "kind": ROUND,
            "round": number,
            "acting": seats,
            "sent": sorted(used),
            "receipts": {str(s): used[s] for s in sorted(used)},
            "host_entered": sorted(int(s) for s in host_entered),
            "defaulted": [s for s in seats if s not in used],
            "result_sha256": result_sha256,
        }
    )
    return body


# what a correction must keep of the entry it corrects: a fix changes a result, never orders
ORDER_KEYS = ("acting", "sent", "receipts", "host_entered", "defaulted")


def correction_body(
    prev: str,
    replaces: str,
    *,
    number: int,
    acting: Iterable[int],
    receipts: Mapping[int, str],
    host_entered: Iterable[int],
    result_sha256: str,
) -> dict[str, Any]:
    """A fix of closed round ``number``'s stored result: a round body of the
    same orders with ``"kind": "correction"`` and ``"replaces"``, the round's
    head before it (its entry's, or its last correction's)."""
    body = round_body(
        prev,
        number=number,
        acting=acting,
        receipts=receipts,
        host_entered=host_entered,
        result_sha256=result_sha256,
    )
    body["kind"] = CORRECTION
    body["replaces"] = replaces
    return body


@dataclass(frozen=True)
class Head:
    """What a page shows of one entry: its place, kind, round, head and when
    it was written (None where not known)."""

    position: int
    kind: str
    round: int | None
    head: str
    at: datetime | None = None


@dataclass(frozen=True)
class Entry:
    """One entry as an export carries it: its body and the head stored with it."""

    body: dict[str, Any]
    head: str

    @property
    def kind(self) -> str:
        return str(self.body.get("kind"))

    @property
    def round(self) -> int | None:
        number = self.body.get("round")
        return number if type(number) is int else None


@dataclass(frozen=True)
class Finding:
    """One thing that does not hold, with the round and seat it concerns."""

    code: str
    message: str
    round: int | None = None
    seat: int | None = None
    where: str | None = None  # when neither a round nor a seat: "start", "chain", "seed"...

    def line(self) -> str:
        """One line for people: ``round 3, seat 2: ...``."""
        parts = []
        if self.round is not None:
            parts.append(f"round {self.round}")
        if self.seat is not None:
            parts.append(f"seat {self.seat}")
        if not parts:
            parts.append(self.where or "file")
        return f"{', '.join(parts)}: {self.message}"


def named(entry: Entry, position: int) -> dict[str, Any]:
    """A finding's place for ``entry``: its round, or "start", or its position."""
    if entry.kind == ROUND and entry.round is not None:
        return {"round": entry.round}
    if entry.kind == CORRECTION:
        of = f"round {entry.round}'s" if entry.round is not None else "a"
        return {"where": f"{of} correction (chain entry {position})"}
    return {"where": "start" if entry.kind == START else f"chain entry {position}"}


def latest_by_round(entries: Sequence[Entry]) -> dict[int, Entry]:
    """Each round's latest entry: its last correction, else its round entry."""
    latest: dict[int, Entry] = {}
    for entry in entries:
        if entry.kind in (ROUND, CORRECTION) and entry.round is not None:
            latest[entry.round] = entry
    return latest


def heads_by_round(entries: Sequence[Entry]) -> dict[int, list[str]]:
    """Each round's heads, recomputed: its round entry's, then its corrections'."""
    out: dict[int, list[str]] = {}
    for entry in entries:
        if entry.kind in (ROUND, CORRECTION) and entry.round is not None:
            out.setdefault(entry.round, []).append(entry_head(entry.body))
    return out


def read_chain(raw: object) -> tuple[list[Entry], list[str]]:
    """An export's ``chain``: its entries, or why it is not one (each problem
    once; a file that is not a chain at all is a bad file, not a finding)."""
    if not isinstance(raw, list) or not raw:
        return [], ["'chain' must be a non-empty list of entries"]
    entries: list[Entry] = []
    problems: list[str] = []
    for i, item in enumerate(raw):
        body = item.get("body") if isinstance(item, dict) else None
        head = item.get("head") if isinstance(item, dict) else None
        if not isinstance(body, dict) or not isinstance(head, str) or set(item) != {"body", "head"}:
            problems.append(f"chain entry {i} must be an object of exactly 'body' and 'head'")
        elif "prev" not in body or body.get("kind") not in KINDS:
            problems.append(
                f"chain entry {i}: its body needs 'prev' and a 'kind' ({', '.join(KINDS)})"
            )
        else:
            entries.append(Entry(body, head))
    return entries, problems


def check_chain(entries: Sequence[Entry]) -> list[Finding]:
    """Whether the chain recomputes: it opens with one start entry; each body
    names the head of the entry before it (``null`` for the first); round
    entries count 1, 2, 3...; a correction names its round's head before it and
    keeps that round's orders; and each stored head is its body's digest (only
    the first entry where they differ is named: every later one differs too)."""
    found: list[Finding] = []
    prev: str | None = None
    number = 0
    first_bad_head = True
    current: dict[int, tuple[Entry, str]] = {}  # each round's latest entry and its head
    for i, entry in enumerate(entries):
        place = named(entry, i)
        if (i == 0) != (entry.kind == START):
            what = "the first entry must be the start" if i == 0 else "a second start entry"
            found.append(Finding("chain/bad_start", what, **place))
        if entry.body.get("prev") != prev:
            found.append(
                Finding(
                    "chain/broken_link",
                    f"its 'prev' is {entry.body.get('prev')}, but the entry before it "
                    f"recomputes to {prev}",
                    **place,
                )
            )
        if entry.kind == ROUND:
            number += 1
            if entry.round != number:
                found.append(
                    Finding(
                        "chain/round_order",
                        f"round entry {number} names round {entry.body.get('round')!r}",
                        **place,
                    )
                )
        elif entry.kind == CORRECTION:
            found += _check_correction(entry, current, place)
        recomputed = entry_head(entry.body)
        if recomputed != entry.head and first_bad_head:
            first_bad_head = False
            found.append(
                Finding(
                    "chain/head_differs",
                    f"the stored head {entry.head} is not its body's digest {recomputed}: "
                    "the chain differs from here on",
                    **place,
                )
            )
        prev = recomputed
        if entry.kind in (ROUND, CORRECTION) and entry.round is not None:
            current[entry.round] = (entry, recomputed)
    return found


def _check_correction(
    entry: Entry, current: Mapping[int, tuple[Entry, str]], place: Mapping[str, Any]
) -> list[Finding]:
    """A correction fixes a closed round's result: it names that round's head
    before it (``replaces``) and keeps its orders (:data:`ORDER_KEYS`)."""
    if entry.round is None or entry.round not in current:
        what = f"it corrects round {entry.body.get('round')!r}, which has not closed before it"
        return [Finding("chain/correction_round", what, **place)]
    replaced, head = current[entry.round]
    if entry.body.get("replaces") != head:
        return [
            Finding(
                "chain/correction_replaces",
                f"it replaces {entry.body.get('replaces')}, but round {entry.round}'s head "
                f"before it recomputes to {head}",
                **place,
            )
        ]
    changed = [k for k in ORDER_KEYS if entry.body.get(k) != replaced.body.get(k)]
    if changed:
        return [
            Finding(
                "chain/correction_orders",
                f"it changes round {entry.round}'s {', '.join(changed)}: a correction fixes "
                "a result, never the orders",
                **place,
            )
        ]
    return []


def parse_wanted(value: str) -> tuple[int | str | None, str] | None:
    """A ``--head`` value: ``HEX``, ``ROUND:HEX`` or ``start:HEX`` (64 hex
    digits, any case), as (round, start or None; the head); None when it is none.
    Invisible characters a forum or chat may slip into a copied value (zero-width
    spaces and joiners, a byte-order mark) are left out."""
    text = INVISIBLE.sub("", value).strip()
    where: int | str | None = None
    if ":" in text:
        label, _, text = text.partition(":")
        label = label.strip().lower()
        if label == START:
            where = START
        elif label.isdigit() and int(label) >= 1:
            where = int(label)
        else:
            return None
    text = text.strip().lower()
    return (where, text) if HEX64.match(text) else None


def check_heads(entries: Sequence[Entry], wanted: Iterable[str]) -> list[Finding]:
    """Whether each head published earlier (``--head``: :func:`parse_wanted`'s
    forms) is one of the chain's recomputed heads (one of its round's, its
    entry's or a correction's, when it names one)."""
    heads = [entry_head(e.body) for e in entries]
    by_round = heads_by_round(entries)
    start = heads[0] if entries and entries[0].kind == START else None
    found: list[Finding] = []
    for value in wanted:
        parsed = parse_wanted(value)
        if parsed is None:
            found.append(Finding("head/bad", f"{value!r} is not a head", where="--head"))
            continue
        where, head = parsed
        if where is None:
            if head not in heads:
                found.append(
                    Finding(
                        "head/unknown",
                        f"{head} is not one of this match's {len(heads)} heads: what it "
                        "covered was changed after it was published",
                        where="--head",
                    )
                )
            continue
        if where == START:
            mine = [start] if start else []
        else:
            mine = by_round.get(where if isinstance(where, int) else -1, [])
        if head in mine:
            continue
        place: dict[str, Any] = {"where": START} if where == START else {"round": where}
        found.append(
            Finding(
                "head/differs",
                f"published with head {head}, but this file's is "
                f"{' or '.join(mine) or 'missing'}: the record was changed after that head "
                "was published",
                **place,
            )
        )
    return found
