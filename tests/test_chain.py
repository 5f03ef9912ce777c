"""The hash chain of a match's public record (issue 27), without a database:
referee.chain's construction and checks, and docs/verify.md's ten-line
recomputation, run from the docs themselves so that they cannot drift."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path
from typing import Any

import pytest
from leaf_changes import changed, leaves

from referee import chain, service
from referee.chain import Entry, entry_head, round_body, start_body

DOCS = Path(__file__).resolve().parents[1] / "docs" / "verify.md"
H = "ab" * 32  # a head, as a previous one


def _start() -> dict[str, Any]:
    return start_body(
        match_id="6a9aa19180",
        name="Friday · 🎲",
        ruleset="forks-2e",
        players=[
            {"seat": 1, "name": "Ana", "garnets": 7},
            {"seat": 2, "name": "Bo", "garnets": 5, "extra": [1, 2]},
        ],
        setup={"map": {"name": "Three Rapids"}, "map_name": None},
        settings={"merge": False, "tiebreak": ["blue", "grey"]},
        seed_sha256="cd" * 32,
    )


def _round(prev: str, number: int = 1) -> dict[str, Any]:
    return round_body(
        prev,
        number=number,
        acting=[2, 1, 3],
        receipts={1: "11" * 32, 3: "33" * 32},
        host_entered=[3],
        result_sha256="ee" * 32,
    )


def _chain(rounds: int = 3) -> list[Entry]:
    bodies = [_start()]
    for number in range(1, rounds + 1):
        bodies.append(_round(entry_head(bodies[-1]), number))
    return [Entry(b, entry_head(b)) for b in bodies]


def test_bodies_hold_what_the_docs_name() -> None:
    start, rnd = _start(), _round(H)
    assert start["prev"] is None and start["kind"] == "start"
    assert start["chain"] == chain.CHAIN_VERSION
    assert set(start) == {
        *("prev", "kind", "chain", "match", "name", "ruleset"),
        *("players", "setup", "settings", "seed_sha256"),
    }
    assert rnd == {
        "prev": H,
        "kind": "round",
        "round": 1,
        "acting": [1, 2, 3],
        "sent": [1, 3],
        "receipts": {"1": "11" * 32, "3": "33" * 32},
        "host_entered": [3],
        "defaulted": [2],
        "result_sha256": "ee" * 32,
    }


def test_a_head_is_the_sha256_of_the_canonical_json() -> None:
    body = _start()
    text = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    assert entry_head(body) == hashlib.sha256(text.encode("utf-8")).hexdigest()
    assert "🎲" in text  # text as itself, hashed as UTF-8
    assert service.canonical_json is chain.canonical_json  # still importable from service
    assert service.receipt_for("L", "s") == hashlib.sha256(b's:"L"').hexdigest()


@pytest.mark.parametrize("make", [_start, lambda: _round(H)], ids=["start", "round"])
def test_the_head_changes_when_any_field_changes(make: Any) -> None:
    body = make()
    paths = list(leaves(body))
    assert len(paths) >= 9
    heads = {entry_head(changed(body, path)) for path in paths}
    assert len(heads) == len(paths) and entry_head(body) not in heads


def test_bodies_are_as_json_carries_them() -> None:
    """Stored (a JSON column) and exported, a body reads the same: its head
    is made of that form, so anyone reading it recomputes it."""
    body = _start()
    assert json.loads(json.dumps(body)) == body
    # a result with number keys or tuples hashes as its JSON does
    assert chain.result_digest({1: (2, 3)}) == chain.result_digest({"1": [2, 3]})


def test_a_whole_chain_links_and_recomputes() -> None:
    entries = _chain()
    assert [e.body["prev"] for e in entries] == [None, *(e.head for e in entries[:-1])]
    assert chain.check_chain(entries) == []
    assert chain.check_heads(entries, [e.head for e in entries]) == []


def test_a_changed_body_is_named_by_its_round() -> None:
    entries = _chain()
    tampered = {**entries[2].body, "receipts": {"1": "99" * 32, "3": "33" * 32}}
    entries[2] = Entry(tampered, entries[2].head)  # the stored head kept
    found = chain.check_chain(entries)
    assert [(f.code, f.round) for f in found] == [
        ("chain/head_differs", 2),
        ("chain/broken_link", 3),
    ]
    assert found[0].line().startswith("round 2: the stored head ")


def test_only_the_first_differing_head_is_named() -> None:
    entries = _chain()
    entries = [entries[0], *(Entry(e.body, "00" * 32) for e in entries[1:])]
    found = chain.check_chain(entries)
    assert [(f.code, f.round) for f in found] == [("chain/head_differs", 1)]


def test_a_chain_must_open_with_its_start_and_count_its_rounds() -> None:
    entries = _chain()
    assert {f.code for f in chain.check_chain(entries[1:])} >= {"chain/bad_start"}
    skipped = [entries[0], entries[1], entries[3]]
    assert "chain/round_order" in {f.code for f in chain.check_chain(skipped)}


def test_published_heads_are_looked_for() -> None:
    entries = _chain()
    last = entries[-1].head
    assert chain.check_heads(entries, [last.upper(), f"3:{last}", f"start:{entries[0].head}"]) == []
    unknown = chain.check_heads(entries, ["12" * 32])
    assert [(f.code, f.round) for f in unknown] == [("head/unknown", None)]
    assert unknown[0].line().startswith("--head: ")
    wrong = chain.check_heads(entries, [f"2:{last}"])
    assert [(f.code, f.round) for f in wrong] == [("head/differs", 2)]
    assert wrong[0].line().startswith("round 2: published with head ")
    assert [f.code for f in chain.check_heads(entries, ["nothex"])] == ["head/bad"]


@pytest.mark.parametrize(
    ("value", "parsed"),
    [
        ("AB" * 32, (None, "ab" * 32)),
        (f" 3:{H} ", (3, H)),
        (f"Start:{H}", ("start", H)),
        (f"0:{H}", None),
        (f"x:{H}", None),
        (H[:-1], None),
        # a forum's or chat's invisible characters in what was copied
        (f"3\u2060:{H}\u200b", (3, H)),
        (f"\ufeff{H[:10]}\u00ad{H[10:]}", (None, H)),
        (f"3:{H}x", None),
    ],
)
def test_head_values(value: str, parsed: Any) -> None:
    assert chain.parse_wanted(value) == parsed


def test_a_chain_of_the_wrong_shape_is_not_read() -> None:
    assert chain.read_chain([])[1]
    assert chain.read_chain({"body": {}})[1]
    assert chain.read_chain([{"body": {"prev": None}, "head": H}])[1]  # no kind
    assert chain.read_chain([{"body": {"prev": None, "kind": "start"}, "head": H, "x": 1}])[1]
    entries, problems = chain.read_chain([{"body": {"prev": None, "kind": "start"}, "head": H}])
    assert problems == [] and entries[0].kind == "start"


def docs_recompute() -> tuple[str, Any]:
    """The Python block of docs/verify.md that defines ``heads``, and that function."""
    text = DOCS.read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", text, flags=re.DOTALL)
    (code,) = [b for b in blocks if "def heads(" in b]
    scope: dict[str, Any] = {}
    exec(compile(code, str(DOCS), "exec"), scope)  # the docs' own code, as printed
    return code, scope["heads"]


def test_the_docs_recompute_the_heads_in_ten_lines() -> None:
    code, heads = docs_recompute()
    assert len([line for line in code.splitlines() if line.strip()]) <= 10
    entries = _chain()
    exported = [{"body": e.body, "head": e.head} for e in entries]
    assert heads(json.loads(json.dumps(exported))) == [e.head for e in entries]
    exported[2]["body"] = {**exported[2]["body"], "prev": H}
    with pytest.raises(AssertionError, match="entry 2"):
        heads(exported)


def test_the_docs_name_every_key_of_the_bodies() -> None:
    text = DOCS.read_text(encoding="utf-8")
    for key in [*_start(), *_round(H), *_fix(_chain(), 2)[-1].body]:
        assert f"| `{key}` |" in text, key


def _fix(entries: list[Entry], number: int, **changes: Any) -> list[Entry]:
    """``entries`` and a correction of round ``number`` appended: its orders
    those of the round's latest entry, its result digest ``ff...``, then
    ``changes`` to the body."""
    replaced = chain.latest_by_round(entries)[number]
    body = chain.correction_body(
        entry_head(entries[-1].body),
        entry_head(replaced.body),
        number=number,
        acting=replaced.body["acting"],
        receipts={int(s): r for s, r in replaced.body["receipts"].items()},
        host_entered=replaced.body["host_entered"],
        result_sha256="ff" * 32,
    )
    body.update(changes)
    return [*entries, Entry(body, entry_head(body))]


def test_a_correction_is_a_round_body_that_replaces_a_head() -> None:
    entries = _fix(_chain(), 2)
    fix = entries[-1].body
    assert fix["kind"] == "correction" and fix["replaces"] == entries[2].head
    assert {k: v for k, v in fix.items() if k not in ("kind", "replaces", "prev")} == {
        **{k: v for k, v in entries[2].body.items() if k not in ("kind", "prev")},
        "result_sha256": "ff" * 32,
    }
    again = _fix(entries, 2)  # a second fix replaces the first fix's head
    assert again[-1].body["replaces"] == entries[-1].head
    assert chain.check_chain(again) == []
    assert chain.latest_by_round(again)[2] == again[-1]
    assert chain.latest_by_round(again)[1] == again[1]
    assert chain.heads_by_round(again)[2] == [entries[2].head, entries[-1].head, again[-1].head]


def test_a_correction_keeps_the_orders_and_names_the_head_it_replaces() -> None:
    entries = _chain()
    # each refusal alone: another seat's receipt, an old head replaced, a round to come
    orders = chain.check_chain(_fix(entries, 2, receipts={"1": "99" * 32, "3": "33" * 32}))
    assert [(f.code, f.round, f.where) for f in orders] == [
        ("chain/correction_orders", None, "round 2's correction (chain entry 4)")
    ]
    assert "round 2's receipts" in orders[0].message and orders[0].line().startswith("round 2's")
    for key, value in [("acting", [1, 2]), ("defaulted", []), ("host_entered", [])]:
        found = chain.check_chain(_fix(entries, 2, **{key: value}))
        assert [f.code for f in found] == ["chain/correction_orders"], key
    twice = _fix(entries, 2)
    stale = chain.check_chain(_fix(twice, 2, replaces=entries[2].head))
    assert [f.code for f in stale] == ["chain/correction_replaces"]
    ahead = _fix(entries, 3, round=4)
    assert [f.code for f in chain.check_chain(ahead)] == ["chain/correction_round"]


def test_a_corrections_head_is_one_of_its_rounds() -> None:
    entries = _fix(_chain(), 2)
    fixed = entries[-1].head
    assert chain.check_heads(entries, [f"2:{fixed}", f"2:{entries[2].head}", fixed]) == []
    wrong = chain.check_heads(entries, [f"3:{fixed}"])
    assert [(f.code, f.round) for f in wrong] == [("head/differs", 3)]
