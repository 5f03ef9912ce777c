#!/usr/bin/env python3
"""Check an exported match (`referee export`) with Python's standard library
alone: the seed against its digest, each order's receipt against its salt and
against the receipt the hash chain holds, the chain's links and heads, and that
every --head given (copied from an earlier post) is one of its heads. It does not
replay the game's rules: `referee verify FILE` does that as well. Given a
season's ledger file (ledger.json) instead, it recomputes the ledger's chain and
checks the --head values (ENTRY:HEX) against it. The construction is in
docs/verify.md.

    python3 check_match.py MATCH.json [--head [ROUND:]HEX ...]
    python3 check_match.py LEDGER.json [--head [ENTRY:]HEX ...]

Exit 0 when everything holds, 1 with one line per problem, 2 for a file that
cannot be read as an export.
"""

import argparse
import hashlib
import json
import re
import sys

# what a forum may slip into a copied head: zero-width characters, a BOM, a soft hyphen
INVISIBLE = re.compile("[\u200b-\u200d\u2060\ufeff\u00ad\\s]")
ORDERS = ("acting", "sent", "receipts", "host_entered", "defaulted")


def sha256(text):
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def canonical(value):
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def check(match, wanted):
    problems, prev, heads, held, bodies = [], None, {}, {}, {}
    digest = match["seed_sha256"]  # every export has it (KeyError: not an export)
    if not match.get("chain"):
        problems.append("chain: this file has no chain (a match stored before chains)")
    if match.get("seed") is not None and sha256(match["seed"]) != digest:
        problems.append("seed: its SHA-256 is not the published seed_sha256")
    for i, entry in enumerate(match.get("chain") or []):
        body = entry["body"]
        fix = body["kind"] == "correction"  # a fix of round N's result: same orders
        label = str(body["round"]) if body["kind"] in ("round", "correction") else body["kind"]
        place = f"round {label}" if body["kind"] == "round" else f"{label} (chain entry {i})"
        place = f"round {label}'s correction (chain entry {i})" if fix else place
        if fix and body["replaces"] != (heads.get(label) or [None])[-1]:
            problems.append(f"{place}: it does not replace that round's head before it")
        if fix and any(body[k] != bodies.get(label, {}).get(k) for k in ORDERS):
            problems.append(f"{place}: it changes that round's orders, which a fix never does")
        bodies[label] = body
        if body["prev"] != prev:
            problems.append(f"{place}: its prev is not the head of the entry before it")
        prev = sha256(canonical(body))
        if prev != entry["head"]:
            problems.append(f"{place}: its stored head {entry['head']} recomputes to {prev}")
        heads.setdefault(label, []).append(prev)
        if body["kind"] == "start" and body["seed_sha256"] != digest:
            problems.append(f"{place}: its seed_sha256 is not the file's")
        if body["kind"] in ("round", "correction"):
            held.update({(body["round"], int(s)): r for s, r in body["receipts"].items()})
    proof = {(o["round"], o["seat"]): o for o in match.get("proof") or []}
    for (number, seat), o in sorted(proof.items()):
        place = f"round {number}, seat {seat}"
        if sha256(f"{o['salt']}:{canonical(o['order'])}") != o["receipt"]:
            problems.append(f"{place}: its order and salt do not hash to its receipt")
        if held.get((number, seat)) != o["receipt"]:
            problems.append(f"{place}: its receipt is not the one the chain holds")
    if "proof" in match:
        for number, seat in sorted(set(held) - set(proof)):
            problems.append(f"round {number}, seat {seat}: the chain holds a receipt, no order")
    for value in wanted:
        label, _, head = INVISIBLE.sub("", value).lower().rpartition(":")
        found = head in heads.get(label, []) if label else any(head in h for h in heads.values())
        if not found:
            problems.append(f"--head {value}: not one of this match's heads")
    return problems


def check_ledger(ledger, wanted):
    problems, prev, heads = [], None, {}
    keys = ("id", "player", "change", "reason", "episode", "match_id", "entered_by", "corrects")
    for entry in ledger["entries"]:
        body = {"prev": prev, "kind": "ledger", "chain": "referee-ledger/1"}
        body.update({"season": ledger["season"], **{k: entry[k] for k in keys}})
        prev = heads[str(entry["id"])] = sha256(canonical(body))
        if prev != entry["head"] and not problems:
            problems.append(f"entry {entry['id']}: its head {entry['head']} recomputes to {prev}")
    if ledger.get("ledger_head") != prev:
        problems.append("ledger_head: it is not the last entry's head")
    for value in wanted:
        label, _, head = INVISIBLE.sub("", value).lower().rpartition(":")
        if (heads.get(label) != head) if label else (head not in heads.values()):
            problems.append(f"--head {value}: not one of this ledger's heads")
    return problems


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("file")
    parser.add_argument("--head", action="append", default=[], metavar="[ROUND:]HEX")
    args = parser.parse_args()
    try:
        with open(args.file, encoding="utf-8") as f:
            doc = json.load(f)
        ledger = "entries" in doc and "season" in doc and "seed_sha256" not in doc
        problems = (check_ledger if ledger else check)(doc, args.head)
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
        print(f"error: {args.file} cannot be read as an export: {exc!r}", file=sys.stderr)
        sys.exit(2)
    for line in problems:
        print(line)
    print(f"{args.file}: {len(problems) or 'no'} problem(s)", file=sys.stderr)
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
