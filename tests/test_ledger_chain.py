"""The hash chain of a season's ledger (issue 27, item 6), without a database:
referee.seasons.chain's construction and checks of a ledger file, docs/verify.md's
recomputation run from the docs themselves, and scripts/check_match.py on a
ledger file."""

from __future__ import annotations

import copy
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from referee.chain import entry_head
from referee.errors import RuleError
from referee.seasons.chain import (
    ENTRY_KEYS,
    is_ledger_file,
    ledger_body,
    ledger_heads,
    parse_wanted,
    verify_ledger,
)

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs" / "verify.md"
SCRIPT = ROOT / "scripts" / "check_match.py"
SEASON = "5eas0n"


def _entries() -> list[dict[str, Any]]:
    rows = [
        (3, 1, 5, "starting garnets", None, None, "referee", None),
        (4, 2, 2, "starting garnets", None, None, "referee", None),
        (9, 1, -2, "late · \u00e9t\u00e9 🎲", 1, "m4tch", "host", None),
        (12, 1, 2, "put right", None, None, "host", 9),
    ]
    return [dict(zip(ENTRY_KEYS, row, strict=True)) for row in rows]


def ledger_file() -> dict[str, Any]:
    """A ledger file as ``/seasons/<id>/ledger.json`` writes it."""
    entries = _entries()
    sums: dict[int, int] = {}
    for entry, head in zip(entries, ledger_heads(SEASON, entries), strict=True):
        sums[entry["player"]] = sums.get(entry["player"], 0) + entry["change"]
        entry.update(balance=sums[entry["player"]], head=head, name="Ana", created_at=None)
    return {
        "season": SEASON,
        "name": "S1",
        "version": 7,
        "entries": entries,
        "ledger_head": entries[-1]["head"],
        "balances": {str(k): v for k, v in sums.items()},
    }


def test_each_body_names_the_head_before_it() -> None:
    entries = _entries()
    heads = ledger_heads(SEASON, entries)
    assert len(set(heads)) == 4
    assert ledger_body(None, SEASON, entries[0])["prev"] is None
    for i in range(1, 4):
        body = ledger_body(heads[i - 1], SEASON, entries[i])
        assert entry_head(body) == heads[i]
    # the season is in every body: the same entries in another season chain otherwise
    assert ledger_heads("other", entries)[0] != heads[0]
    # every key of an entry counts
    for key in ENTRY_KEYS:
        changed = copy.deepcopy(entries)
        changed[1][key] = 99 if changed[1][key] != 99 else 98
        again = ledger_heads(SEASON, changed)
        assert again[0] == heads[0] and again[1] != heads[1], key


def docs_ledger_heads() -> tuple[str, Any]:
    text = DOCS.read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", text, flags=re.DOTALL)
    (code,) = [b for b in blocks if "def ledger_heads(" in b]
    scope: dict[str, Any] = {}
    exec(compile(code, str(DOCS), "exec"), scope)  # the docs' own code, as printed
    return code, scope["ledger_heads"]


def test_the_docs_recompute_the_ledger_heads() -> None:
    code, heads = docs_ledger_heads()
    assert len([line for line in code.splitlines() if line.strip()]) <= 12
    doc = json.loads(json.dumps(ledger_file()))
    assert heads(doc) == [e["head"] for e in doc["entries"]]


def test_the_docs_name_every_key_of_a_ledger_body() -> None:
    text = DOCS.read_text(encoding="utf-8")
    for key in ledger_body(None, SEASON, _entries()[0]):
        assert f"| `{key}` |" in text, key


def test_a_ledger_file_checks() -> None:
    doc = ledger_file()
    assert is_ledger_file(doc) and not is_ledger_file({**doc, "seed_sha256": "x"})
    heads = [f"{e['id']}:{e['head']}" for e in doc["entries"]]
    report = verify_ledger(doc, [*heads, doc["entries"][1]["head"]])
    assert report.findings == []
    assert report.summary() == (
        "4 ledger head(s) recomputed, the balances added up, 5 published head(s) found"
    )
    empty = {"season": SEASON, "entries": [], "ledger_head": None, "balances": {}}
    assert verify_ledger(empty).findings == []


def _codes(doc: dict[str, Any], *wanted: str) -> list[tuple[str, str | None]]:
    return [(f.code, f.where) for f in verify_ledger(doc, wanted).findings]


def test_a_rewritten_entry_is_named_by_its_head_and_by_an_old_head() -> None:
    old = ledger_file()
    copied = f"9:{old['entries'][2]['head']}"
    doc = ledger_file()
    doc["entries"][2]["reason"] = "on time"  # heads left as they were
    assert _codes(doc) == [("ledger/head_differs", "entry 9")]  # the first only
    # heads recomputed for the rewrite: only a head copied before shows it
    heads = ledger_heads(SEASON, doc["entries"])
    for entry, head in zip(doc["entries"], heads, strict=True):
        entry["head"] = head
    doc["ledger_head"] = heads[-1]
    assert _codes(doc) == []
    assert _codes(doc, copied) == [("head/differs", "entry 9")]
    assert _codes(doc, copied.split(":")[1]) == [("head/unknown", "--head")]
    assert _codes(doc, f"4:{old['entries'][1]['head']}") == []  # before it: unchanged


def test_each_check_refuses_what_only_it_sees() -> None:
    doc = ledger_file()
    doc["ledger_head"] = doc["entries"][2]["head"]  # a head, but not the last
    assert _codes(doc) == [("ledger/head_differs", "ledger_head")]
    doc = ledger_file()
    doc["entries"][3]["balance"] += 1
    assert _codes(doc) == [("ledger/balance", "entry 12")]
    doc = ledger_file()
    doc["balances"]["2"] = 3
    assert _codes(doc) == [("ledger/balance", "balances")]
    doc = ledger_file()
    assert _codes(doc, f"3:{doc['entries'][1]['head']}") == [("head/differs", "entry 3")]
    assert _codes(doc, f"5:{doc['entries'][1]['head']}") == [("head/differs", "entry 5")]


@pytest.mark.parametrize(
    ("change", "code"),
    [
        (lambda d: d.update(entries={}), "ledger/bad_file"),
        (lambda d: d.update(season=None), "ledger/bad_file"),
        (lambda d: d["entries"].append(7), "ledger/bad_file"),
        (lambda d: d["entries"][0].pop("head"), "ledger/bad_file"),
        (lambda d: d["entries"][0].update(change=True), "ledger/bad_file"),
        (lambda d: d["entries"][0].update(episode="1"), "ledger/bad_file"),
        (lambda d: d["entries"][0].update(balance=None), "ledger/bad_file"),
    ],
)
def test_a_file_of_the_wrong_shape_is_refused(change: Any, code: str) -> None:
    doc = ledger_file()
    change(doc)
    with pytest.raises(RuleError) as refused:
        verify_ledger(doc)
    assert set(refused.value.codes) == {code}


def test_a_head_to_check_is_a_head() -> None:
    head = "AB" * 32
    assert parse_wanted(f" 17\u200b:{head}\ufeff") == (17, head.lower())
    assert parse_wanted(head) == (None, head.lower())
    for bad in (f"start:{head}", f"x:{head}", head[:-1], f"-1:{head}"):
        assert parse_wanted(bad) is None, bad
    with pytest.raises(RuleError) as refused:
        verify_ledger(ledger_file(), ["nope"])
    assert refused.value.codes == ["head/bad"] and "'nope'" in refused.value.problems[0].message


def run_script(path: Path, *heads: str) -> subprocess.CompletedProcess[str]:
    args = [a for h in heads for a in ("--head", h)]
    return subprocess.run(
        [sys.executable, str(SCRIPT), str(path), *args], capture_output=True, text=True, check=False
    )


def test_the_standalone_script_checks_a_ledger_file(tmp_path: Path) -> None:
    doc = ledger_file()
    path = tmp_path / "ledger.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    copied = f"9:{doc['entries'][2]['head']}"
    ran = run_script(path, copied, doc["entries"][0]["head"])
    assert ran.returncode == 0, ran.stdout + ran.stderr
    doc["entries"][2]["change"] = -1
    path.write_text(json.dumps(doc), encoding="utf-8")
    ran = run_script(path)
    assert ran.returncode == 1 and ran.stdout.startswith("entry 9: its head")
    heads = ledger_heads(SEASON, doc["entries"])
    for entry, head in zip(doc["entries"], heads, strict=True):
        entry["head"] = head
    doc["ledger_head"] = heads[-1]
    path.write_text(json.dumps(doc), encoding="utf-8")
    assert run_script(path).returncode == 0
    ran = run_script(path, copied)
    assert ran.returncode == 1 and f"--head {copied}: not one of this ledger's heads" in ran.stdout
    path.write_text('{"season": "x", "entries": [1]}', encoding="utf-8")
    assert run_script(path).returncode == 2
