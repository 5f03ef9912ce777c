"""The hash chain of a season's garnet ledger (issue 27, item 6); pure, the
standard library only.

Every ledger entry is chained the way a match's rounds are
(:mod:`referee.chain`): an entry's **body** holds the head before it (``null``
for the season's first entry) and what the entry says (player, change, reason,
episode, match, who entered it, the entry it corrects); its **head** is the
SHA-256 of the body's canonical JSON. The latest head (``ledger_head``) is
published on the standings page and at the end of the season post, so a copy
of it in a forum thread shows any later rewrite of an entry it covers.

The heads are computed from the stored entries, oldest first (by id); nothing
else is stored. docs/verify.md ("A season's ledger") defines the body;
:func:`verify_ledger` checks a downloaded ledger (``ledger.json``) against it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from referee.chain import HEX64, INVISIBLE, Finding, entry_head
from referee.errors import Problem, RuleError

LEDGER_VERSION = "referee-ledger/1"
LEDGER = "ledger"
# what an entry says, as the season view and the ledger file carry it
ENTRY_KEYS = ("id", "player", "change", "reason", "episode", "match_id", "entered_by", "corrects")
_TYPES: dict[str, tuple[type, ...]] = {
    "id": (int,),
    "player": (int,),
    "change": (int,),
    "reason": (str,),
    "episode": (int, type(None)),
    "match_id": (str, type(None)),
    "entered_by": (str,),
    "corrects": (int, type(None)),
}


def ledger_body(prev: str | None, season: str, entry: Mapping[str, Any]) -> dict[str, Any]:
    """The body of ``entry`` (a mapping with :data:`ENTRY_KEYS`) of season
    ``season``, after the head ``prev``."""
    body: dict[str, Any] = {"prev": prev, "kind": LEDGER, "chain": LEDGER_VERSION}
    body["season"] = season
    body.update({key: entry[key] for key in ENTRY_KEYS})
    return body


def ledger_heads(season: str, entries: Sequence[Mapping[str, Any]]) -> list[str]:
    """Each entry's head, in order (``entries`` oldest first)."""
    heads: list[str] = []
    for entry in entries:
        heads.append(entry_head(ledger_body(heads[-1] if heads else None, season, entry)))
    return heads


def is_ledger_file(doc: object) -> bool:
    """Whether ``doc`` is a season's ledger file (its ``entries`` and
    ``season``), not a match export."""
    return (
        isinstance(doc, dict) and "entries" in doc and "season" in doc and "seed_sha256" not in doc
    )


@dataclass
class LedgerReport:
    """What :func:`verify_ledger` found, and what it checked."""

    findings: list[Finding] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    heads: int = 0
    wanted: int = 0

    def summary(self) -> str:
        text = f"{self.heads} ledger head(s) recomputed, the balances added up"
        return text + (f", {self.wanted} published head(s) found" if self.wanted else "")


def parse_wanted(value: str) -> tuple[int | None, str] | None:
    """A ``--head`` for a ledger: ``HEX`` or ``ENTRY:HEX`` (the entry's id, as
    the season post writes it); invisible characters a forum adds are left out.
    None when it is neither."""
    text = INVISIBLE.sub("", value).strip()
    number: int | None = None
    if ":" in text:
        label, _, text = text.partition(":")
        if not label.strip().isdigit():
            return None
        number = int(label)
    text = text.strip().lower()
    return (number, text) if HEX64.match(text) else None


def _read(doc: Mapping[str, Any]) -> tuple[str, list[Mapping[str, Any]]]:
    """The season's id and entries of a ledger file, or a bad file's problems."""
    season, entries = doc.get("season"), doc.get("entries")
    if not isinstance(season, str) or not isinstance(entries, list):
        raise RuleError.single(
            "ledger/bad_file", "a ledger file has a 'season' (text) and 'entries' (a list)"
        )
    problems: list[Problem] = []
    for i, entry in enumerate(entries):
        if not isinstance(entry, dict):
            problems.append(Problem("ledger/bad_file", f"entry {i + 1} is not an object"))
            continue
        for key in (*ENTRY_KEYS, "balance", "head"):
            want = _TYPES.get(key, (int,) if key == "balance" else (str,))
            if key not in entry or type(entry[key]) not in want:
                problems.append(
                    Problem("ledger/bad_file", f"entry {i + 1}: {key!r} is missing or not valid")
                )
    if problems:
        raise RuleError(problems)
    return season, entries


def verify_ledger(doc: Mapping[str, Any], wanted: Sequence[str] = ()) -> LedgerReport:
    """Check a season's ledger file (``ledger.json``): every entry's head
    recomputes, ``ledger_head`` is the last, each ``balance`` is the player's
    running sum and ``balances`` their sums, and every ``wanted`` head
    (``HEX`` or ``ENTRY:HEX``, copied from old season posts) is one of its
    heads. A file of the wrong shape is a :class:`RuleError`."""
    bad = [w for w in wanted if parse_wanted(w) is None]
    if bad:
        raise RuleError(
            Problem("head/bad", f"--head {w!r} is not a head: 64 hex digits, optionally ENTRY:")
            for w in bad
        )
    season, entries = _read(doc)
    report = LedgerReport(heads=len(entries), wanted=len(wanted))
    found = report.findings
    heads = ledger_heads(season, entries)
    for entry, head in zip(entries, heads, strict=True):
        if entry["head"] != head:
            found.append(
                Finding(
                    "ledger/head_differs",
                    f"its head is written as {entry['head']}, but it recomputes to {head}: the "
                    "entry or one before it was changed after that head was written",
                    where=f"entry {entry['id']}",
                )
            )
            break
    last = entries[-1]["head"] if entries else None
    if doc.get("ledger_head") != last:
        found.append(
            Finding(
                "ledger/head_differs",
                f"the file's ledger_head is {doc.get('ledger_head')!r}, not its last "
                f"entry's head {last!r}",
                where="ledger_head",
            )
        )
    sums: dict[int, int] = {}
    for entry in entries:
        sums[entry["player"]] = sums.get(entry["player"], 0) + entry["change"]
        if entry["balance"] != sums[entry["player"]]:
            found.append(
                Finding(
                    "ledger/balance",
                    f"player {entry['player']}'s balance after it is written as "
                    f"{entry['balance']}, but their entries add up to {sums[entry['player']]}",
                    where=f"entry {entry['id']}",
                )
            )
    balances = doc.get("balances")
    if isinstance(balances, dict):
        for key, value in sorted(balances.items()):
            added = sums.get(int(key), 0) if str(key).isdigit() else None
            if value != added:
                found.append(
                    Finding(
                        "ledger/balance",
                        f"player {key}'s garnets are written as {value!r}, but their entries "
                        f"add up to {added}",
                        where="balances",
                    )
                )
    by_id = {entry["id"]: head for entry, head in zip(entries, heads, strict=True)}
    for value in wanted:
        parsed = parse_wanted(value)
        assert parsed is not None
        number, head = parsed
        if number is None and head not in heads:
            found.append(
                Finding(
                    "head/unknown",
                    f"{head} is not one of this ledger's {len(heads)} heads: what it covered "
                    "was changed after it was published",
                    where="--head",
                )
            )
        elif number is not None and by_id.get(number) != head:
            found.append(
                Finding(
                    "head/differs",
                    f"published with head {head}, but this file's is "
                    f"{by_id.get(number) or 'missing'}: the ledger was changed after that "
                    "head was published",
                    where=f"entry {number}",
                )
            )
    return report
