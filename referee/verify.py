"""``referee verify FILE [--head HEX ...]``: check an exported match offline
(issue 27; docs/verify.md). Pure: no Flask, SQL or click; the game is read
through its :class:`referee.ruleset.Ruleset` only, so every game is checked the
same way.

What holds when the check passes:

- the seed hashes to ``seed_sha256``, the digest the start entry committed to;
- each order of ``proof`` hashes with its salt to its receipt, and that receipt
  is the one the chain's entry of its round holds for its seat; the seats with
  an order are the entry's ``sent``, the others its ``defaulted``;
- replayed by the game's rules from the start entry's set-up, the seed and
  those orders, each round has the acting seats its entry names and gives the
  public result whose digest its entry holds; and the match file's own part
  (what ``referee resolve --file`` reads) is the one those orders make;
- the chain recomputes (each body names the head before it, each stored head
  is its body's digest), and every ``--head`` is one of its heads.

A file that cannot be read as an export (not a match file of a known game, a
chain or proof of the wrong shape) is refused with a :class:`RuleError` (exit
2); everything else that does not hold is a :class:`referee.chain.Finding`
naming its round and seat (exit 1).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from referee import chain
from referee.chain import Entry, Finding, json_value
from referee.errors import Problem, RuleError
from referee.matchfile import EXPORT_KEYS, match_object, seed_digest
from referee.ruleset import GameState, Ruleset, Setup, public_result, ruleset_named_in


@dataclass
class Report:
    """What :func:`verify_export` found, and what it checked."""

    findings: list[Finding] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # what could not be checked, and why
    receipts: int = 0
    rounds: int = 0
    heads: int = 0
    wanted: int = 0

    def summary(self) -> str:
        parts = [
            f"{self.heads} chain head(s) recomputed",
            f"{self.receipts} receipt(s) checked",
            f"{self.rounds} round(s) re-resolved",
        ]
        if self.wanted:
            parts.append(f"{self.wanted} published head(s) found")
        return ", ".join(parts)


@dataclass(frozen=True)
class _Order:
    order: Any
    salt: str
    receipt: str


def verify_export(doc: object, wanted: Sequence[str] = ()) -> Report:
    """Check an export (``referee export``'s file) and the heads ``wanted``
    (``HEX``, ``ROUND:HEX`` or ``start:HEX``, e.g. copied from old posts)."""
    doc = match_object(doc)
    if "seed_sha256" not in doc:  # every export has it, a chain or not
        raise RuleError.single(
            "match/not_export",
            "this file is not an export of a stored match (`referee export`, or the host's "
            "\"Download the match file\"): it has no 'seed_sha256'",
            "seed_sha256",
        )
    rules = ruleset_named_in(doc)
    bad = [w for w in wanted if chain.parse_wanted(w) is None]
    if bad:
        raise RuleError(
            Problem("head/bad", f"--head {w!r} is not a head: 64 hex digits, optionally ROUND:")
            for w in bad
        )
    proof = _read_proof(doc)
    report = Report(wanted=len(wanted))
    found = report.findings
    entries: list[Entry] = []
    if "chain" not in doc:
        found.append(
            Finding(
                "chain/missing",
                "this file has no chain: its match was stored before the referee kept one "
                "(or the file is not an export), so no published head can be checked",
                where="chain",
            )
        )
        found += [
            Finding("head/unknown", f"{w} cannot be found: the file has no chain", where="--head")
            for w in wanted
        ]
    else:
        entries, problems = chain.read_chain(doc["chain"])
        if problems:
            raise RuleError(Problem("chain/bad_file", p, "chain") for p in problems)
        found += chain.check_chain(entries)
        found += chain.check_heads(entries, wanted)
        report.heads = len(entries)
    start = entries[0].body if entries and entries[0].kind == chain.START else None
    if start is not None:
        for key in ("ruleset", "name", "seed_sha256"):
            if key in doc and start.get(key) != doc[key]:
                found.append(
                    Finding(
                        "start/differs",
                        f"the file's {key} is {doc[key]!r}, but the chain's start holds "
                        f"{start.get(key)!r}",
                        where="start",
                    )
                )
    seed = doc.get("seed")
    if seed is None:
        report.notes.append(
            "the file has no seed: it was exported before the match ended. The chain is "
            "checked; the seed, the receipts and the results can be checked in an export "
            "made after the end"
        )
        return report
    if not isinstance(seed, str) or not isinstance(doc.get("seed_sha256"), str):
        raise RuleError.single("match/bad_seed", "'seed' and 'seed_sha256' must be text")
    if seed_digest(seed) != doc["seed_sha256"]:
        found.append(
            Finding(
                "seed/mismatch",
                f"the seed's SHA-256 is {seed_digest(seed)}, not the published "
                f"{doc['seed_sha256']}",
                where="seed",
            )
        )
    if proof is None:
        found.append(
            Finding(
                "proof/missing",
                "the file has the seed but no 'proof' (each order's salt and receipt)",
                where="proof",
            )
        )
        proof = {}
    for (number, seat), item in sorted(proof.items()):
        report.receipts += 1
        if chain.receipt_for(item.order, item.salt) != item.receipt:
            found.append(
                Finding(
                    "receipt/mismatch",
                    f"its order and salt hash to {chain.receipt_for(item.order, item.salt)}, "
                    f"not to its receipt {item.receipt}",
                    number,
                    seat,
                )
            )
    if start is None:
        return report
    rounds = [e for e in entries if e.kind == chain.ROUND]
    latest = chain.latest_by_round(entries)
    fixed = sorted(n for n, e in latest.items() if e.kind == chain.CORRECTION)
    if fixed:
        report.notes.append(
            f"round(s) {', '.join(map(str, fixed))} were corrected after they closed (a fix "
            "of a stored result, appended to the chain): each is checked against its latest "
            "correction, and the result its round first published is not re-resolved"
        )
    found += _check_receipts(rounds, proof)
    found += _replay(rules, doc, start, rounds, proof, seed, report, latest)
    return report


def _read_proof(doc: Mapping[str, Any]) -> dict[tuple[int, int], _Order] | None:
    """The file's ``proof`` by (round, seat); None without one; a bad file
    (RuleError) when it is not a list of {round, seat, order, salt, receipt}."""
    raw = doc.get("proof")
    if raw is None:
        return None
    keys = {"round", "seat", "order", "salt", "receipt"}
    out: dict[tuple[int, int], _Order] = {}
    problems: list[Problem] = []
    if not isinstance(raw, list):
        raw, problems = [], [Problem("proof/bad_file", "'proof' must be a list", "proof")]
    for i, item in enumerate(raw):
        ok = isinstance(item, dict) and set(item) == keys
        ok = ok and all(type(item[k]) is int and item[k] >= 1 for k in ("round", "seat"))
        ok = ok and all(isinstance(item[k], str) for k in ("salt", "receipt"))
        if not ok:
            problems.append(
                Problem(
                    "proof/bad_file",
                    f"proof entry {i} must be an object of exactly round and seat (numbers "
                    "from 1), order, salt and receipt (text)",
                    "proof",
                )
            )
            continue
        place = (item["round"], item["seat"])
        if place in out:
            problems.append(
                Problem(
                    "proof/bad_file",
                    f"proof entry {i}: round {place[0]}, seat {place[1]} is there twice",
                    "proof",
                )
            )
        out[place] = _Order(item["order"], item["salt"], item["receipt"])
    if problems:
        raise RuleError(problems)
    return out


def _round_fields(body: Mapping[str, Any]) -> str | None:
    """What is wrong with a round entry's fields (None: nothing)."""
    seats = ("acting", "sent", "host_entered", "defaulted")
    if not all(isinstance(body.get(k), list) for k in seats):
        return f"its {', '.join(seats)} must be lists of seats"
    if not all(type(s) is int for k in seats for s in body[k]):
        return "its seats must be numbers"
    receipts = body.get("receipts")
    if not isinstance(receipts, dict) or not all(isinstance(r, str) for r in receipts.values()):
        return "its receipts must be an object of seat to receipt"
    if not isinstance(body.get("result_sha256"), str):
        return "its result_sha256 must be text"
    if sorted(body["sent"]) != sorted(int(s) for s in receipts if str(s).isdigit()):
        return "its 'sent' is not the seats of its receipts"
    if body["defaulted"] != [s for s in body["acting"] if s not in body["sent"]]:
        return "its 'defaulted' is not its acting seats that sent nothing"
    return None


def _check_receipts(
    rounds: Sequence[Entry], proof: Mapping[tuple[int, int], _Order]
) -> list[Finding]:
    """Each round entry's receipts against the file's orders of that round."""
    found: list[Finding] = []
    numbers = set()
    for entry in rounds:
        number = entry.round
        assert number is not None  # check_chain counts them
        numbers.add(number)
        fault = _round_fields(entry.body)
        if fault is not None:
            found.append(Finding("chain/bad_round", fault, number))
            continue
        held = {int(s): r for s, r in entry.body["receipts"].items()}
        mine = {seat: item for (n, seat), item in proof.items() if n == number}
        for seat in sorted(set(held) | set(mine)):
            if seat not in mine:
                found.append(
                    Finding(
                        "proof/missing_order",
                        f"the chain holds the receipt {held[seat]} of its order, but the file "
                        "has no such order",
                        number,
                        seat,
                    )
                )
            elif seat not in held:
                found.append(
                    Finding(
                        "proof/unused_order",
                        f"the file has an order of it (receipt {mine[seat].receipt}), but the "
                        "chain says it sent none that was used",
                        number,
                        seat,
                    )
                )
            elif held[seat] != mine[seat].receipt:
                found.append(
                    Finding(
                        "receipt/not_in_chain",
                        f"its receipt is {mine[seat].receipt}, but the chain holds "
                        f"{held[seat]}: the order was changed after the round closed",
                        number,
                        seat,
                    )
                )
    for number, seat in sorted(proof):
        if number not in numbers:
            found.append(
                Finding("proof/no_round", "the chain has no entry of this round", number, seat)
            )
    return found


def _replay(
    rules: Ruleset,
    doc: Mapping[str, Any],
    start: Mapping[str, Any],
    rounds: Sequence[Entry],
    proof: Mapping[tuple[int, int], _Order],
    seed: str,
    report: Report,
    latest: Mapping[int, Entry],
) -> list[Finding]:
    """Replay the rounds by the game's rules from the start entry's set-up,
    the seed and the file's orders: each round's acting seats against its
    entry, its public result against its latest entry (a correction's, if it
    was fixed), then the match file's own part against the file."""
    players, data, settings = start.get("players"), start.get("setup"), start.get("settings")
    if not (isinstance(players, list) and isinstance(data, dict) and isinstance(settings, dict)):
        return [Finding("start/bad", "its players, setup and settings are missing", where="start")]
    setup = Setup(players=[dict(p) for p in players], data=data)
    found: list[Finding] = []
    closed: list[dict[int, Any]] = []
    host_entered: list[tuple[int, int]] = []
    try:
        state = GameState(setup, settings, 0, rules.replay(setup, settings, seed, []))
        for entry in rounds:
            number = entry.round
            assert number is not None
            if _round_fields(entry.body) is not None:
                return found  # named by _check_receipts; the rest cannot be replayed
            step = rules.next_step(state)
            if step is None:
                found.append(Finding("round/after_end", "the match had already ended", number))
                return found
            if list(step.acting) != entry.body["acting"]:
                found.append(
                    Finding(
                        "round/acting",
                        f"by the rules, seat(s) {list(step.acting)} act in it, not "
                        f"{entry.body['acting']} as the chain holds",
                        number,
                    )
                )
            orders = {s: proof[(number, s)].order for s in setup.seats if (number, s) in proof}
            closed.append({s: orders.get(s) for s in setup.seats})
            host_entered += [(number, s) for s in entry.body["host_entered"]]
            after = rules.replay(setup, settings, seed, closed, host_entered)
            state = GameState(setup, settings, number, after)
            digest = chain.result_digest(public_result(rules, state))
            report.rounds += 1
            held = latest.get(number, entry).body.get("result_sha256")
            if digest != held:
                which = "its latest correction" if latest.get(number, entry) is not entry else ""
                found.append(
                    Finding(
                        "result/differs",
                        f"re-resolved from the file's orders, its public result has the "
                        f"digest {digest}, but the chain holds {held}"
                        + (f" ({which})" if which else ""),
                        number,
                    )
                )
        part = {k: v for k, v in doc.items() if k not in EXPORT_KEYS}
        made = rules.document(setup, settings, seed, closed, host_entered)
    except RuleError as exc:
        where = {"round": len(closed)} if closed else {"where": "start"}
        for p in exc.problems:
            message = f"the rules refuse its orders: [{p.code}] {p.message}"
            found.append(Finding("replay/refused", message, **where))
        return found
    if json_value(made) != json_value(part):
        keys = sorted(
            k for k in set(made) | set(part) if json_value(made.get(k)) != json_value(part.get(k))
        )
        found.append(
            Finding(
                "file/differs",
                f"the match file's {', '.join(map(repr, keys))} are not what the chain's set-up "
                "and the file's proof make: the file was changed after it was exported",
                where="match file",
            )
        )
    return found
