"""Re-adjudication appends (issue 27, item 5): a fix of a stored round's result
(``referee resolve MATCH_ID --fix``, :meth:`Referee.correct`) is a correction
entry on the match's chain, shown on its pages and posts; no published head is
rewritten, and ``referee verify`` checks the fixed results. On SQLite and
PostgreSQL.

The story played here: a version of the game's rules with a bug stored a
wrong result for round 2 (and the chain committed to it as it was published);
the bug is fixed; the fix of the stored match appends a correction."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine, delete
from sqlmodel import Session

from referee import chain
from referee.errors import RuleError
from referee.markup import match_post
from referee.models import ChainEntry, Round
from referee.notify.calendar import match_calendar
from referee.ruleset import Viewer, get_ruleset
from referee.service import Referee
from referee.views import view_for

from .test_chain_service import entries, exported, play, script, verify

GAME = "toy"


Replay = Callable[[dict[str, Any]], dict[str, Any]]


def rules_with_a_bug(monkeypatch: pytest.MonkeyPatch, change: Replay) -> None:
    """Until ``monkeypatch.undo()``, the toy's rules store ``change(result)``
    as round 2's result (a bug in a version of its rules)."""
    rules = type(get_ruleset(GAME))
    real = rules.replay

    def replay(self: Any, setup: Any, settings: Any, seed: str, closed: Any, *rest: Any) -> Any:
        out = real(self, setup, settings, seed, closed, *rest)
        return change(copy.deepcopy(out)) if len(closed) == 2 else out

    monkeypatch.setattr(rules, "replay", replay)


def five_too_many(result: dict[str, Any]) -> dict[str, Any]:
    """5 points too many for seat 1: a score, which decides nothing about who
    acts next."""
    result["scores"]["1"] += 5
    return result


def test_a_fix_is_a_correction_and_every_published_head_stays(
    svc: Referee, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    rules_with_a_bug(monkeypatch, five_too_many)
    played = play(svc, GAME)  # the heads as each close published them, bug and all
    mid = played.match_id
    monkeypatch.undo()  # the bug is fixed
    before = entries(svc, mid)
    wrong = svc.state(mid).rounds[1].result
    assert len(played.heads) >= 4 and svc.state(mid).match.finished

    # the stored match checks as it was published, and not against the fixed rules
    path = exported(svc, mid, tmp_path)
    out = verify(path)
    assert out.exit_code == 1
    assert [line.split(":")[0] for line in out.stdout.splitlines()] == ["round 2"]
    assert "result_sha256" not in out.stdout and "the chain holds" in out.stdout
    (difference,) = svc.recheck(mid)
    assert "'scores' stored as" in difference

    assert svc.correct(mid) == [2]
    after = entries(svc, mid)
    # appended, never rewritten: every entry before is there as it was
    assert [(e.body, e.head) for e in after[: len(before)]] == [(e.body, e.head) for e in before]
    (fix,) = after[len(before) :]
    assert fix.kind == "correction" and fix.round_number == 2
    assert fix.body["replaces"] == played.heads[2] and fix.body["prev"] == before[-1].head
    assert {k: fix.body[k] for k in chain.ORDER_KEYS} == {
        k: before[2].body[k] for k in chain.ORDER_KEYS
    }
    state = svc.state(mid)
    assert state.rounds[1].result != wrong and svc.recheck(mid) == []
    assert svc.correct(mid) == []  # fixed once: nothing more to fix, nothing appended
    assert len(entries(svc, mid)) == len(after)

    # published: the view, the post, the calendar, the check page
    public = view_for(state, Viewer.public())
    assert public["chain_head"] == fix.head
    assert [c["head"] for c in public["rounds"][1]["corrections"]] == [fix.head]
    assert all(r["corrections"] == [] for i, r in enumerate(public["rounds"]) if i != 1)
    assert public["rounds"][1]["head"] == played.heads[2]  # its own head, as published
    # the fixed result's digest (the export's verify below recomputes it)
    assert fix.body["result_sha256"] != before[2].body["result_sha256"]
    post = match_post(state.ruleset, public, "markdown")
    assert post.rstrip().endswith(f"`2:{fix.head}`")
    assert "round 2's result corrected" in post
    ics = match_calendar(public, "http://x.test/m", svc.clock()).decode()
    unfolded = ics.replace("\r\n ", "")
    assert f"2:{fix.head}" in unfolded and f"2:{played.heads[2]}" in unfolded

    # the fixed export passes verify and the script, with every head published
    # before the fix and the correction's
    path = exported(svc, mid, tmp_path)
    copied = [f"{n}:{h}" if n else f"start:{h}" for n, h in played.heads.items()]
    out = verify(path, *copied, f"2:{fix.head}")
    assert out.exit_code == 0, out.output
    assert "corrected after they closed" in out.output
    ran = script(path, *copied, f"2:{fix.head}")
    assert ran.returncode == 0, ran.stdout + ran.stderr
    # a correction is a round's head, not another round's
    wrong_round = verify(path, f"3:{fix.head}")
    assert wrong_round.exit_code == 1 and wrong_round.stdout.startswith("round 3: ")
    assert script(path, f"3:{fix.head}").returncode == 1


def test_a_correction_cannot_carry_a_rewritten_order(
    svc: Referee, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Whoever holds the database cannot pass a changed order off as a fix: a
    correction that holds another receipt than its round is named by both
    tools, though the order's own receipt checks."""
    played = play(svc, GAME)
    mid = played.match_id
    with Session(svc.engine) as session:
        rnd = session.get(Round, (mid, 2))
        assert rnd is not None and rnd.result is not None
        rnd.result = {**rnd.result, "scores": {**rnd.result["scores"], "1": 99}}
        session.add(rnd)
        session.commit()
    assert svc.correct(mid) == [2]
    document = json.loads(exported(svc, mid, tmp_path).read_text(encoding="utf-8"))
    fix = document["chain"][-1]
    seat = next(iter(fix["body"]["receipts"]))
    item = next(p for p in document["proof"] if p["round"] == 2 and str(p["seat"]) == seat)
    item["salt"] = "0" * 32  # the order kept, its receipt recomputed with a new salt
    new = chain.receipt_for(item["order"], item["salt"])
    item["receipt"] = new
    fix["body"]["receipts"][seat] = new
    fix["head"] = chain.entry_head(fix["body"])
    path = tmp_path / "rewritten.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    out = verify(path, f"2:{played.heads[2]}")
    assert out.exit_code == 1
    assert "round 2's correction (chain entry" in out.stdout
    assert "never the orders" in out.stdout
    ran = script(path, f"2:{played.heads[2]}")
    assert ran.returncode == 1 and "changes that round's orders" in ran.stdout


def test_a_fix_that_would_replay_the_match_differently_changes_nothing(
    svc: Referee, monkeypatch: pytest.MonkeyPatch
) -> None:
    rules_with_a_bug(monkeypatch, lambda result: {**result, "finished": True})
    played = play(svc, GAME)
    mid = played.match_id
    monkeypatch.undo()
    assert len(played.heads) == 3  # the bug ended the match after round 2
    before = entries(svc, mid)
    stored = svc.state(mid).rounds[1].result
    with pytest.raises(RuleError) as refused:
        svc.correct(mid)
    assert refused.value.codes == ["chain/played_differently"]
    assert "not have ended after round 2" in refused.value.problems[0].message
    assert [e.head for e in entries(svc, mid)] == [e.head for e in before]
    assert svc.state(mid).rounds[1].result == stored


def test_a_match_without_a_chain_is_not_fixed(svc: Referee, engine: Engine) -> None:
    played = play(svc, GAME)
    with Session(engine) as session:
        session.execute(delete(ChainEntry).where(ChainEntry.match_id == played.match_id))
        session.commit()
    with pytest.raises(RuleError) as refused:
        svc.correct(played.match_id)
    assert refused.value.codes == ["chain/none"]
