"""The hash chain of a stored match (issue 27), on SQLite and PostgreSQL: the
heads the public view publishes as rounds close, the export that carries the
proof, `referee verify` and the standalone scripts/check_match.py on it, and
what they say once a closed order was rewritten in the database."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from flask.testing import FlaskClient
from sqlalchemy import delete
from sqlmodel import Session, col, select
from test_chain import docs_recompute

from referee import chain
from referee.backup import backup, restore
from referee.cli import main
from referee.db import make_engine, migrate
from referee.demo import play_steps
from referee.errors import RuleError
from referee.models import ChainEntry, Order, Round
from referee.ruleset import GameState, Viewer, get_ruleset, public_result
from referee.service import Referee, setup_of, step_of
from referee.verify import verify_export
from referee.views import view_for

from .conftest import PLAYERS

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "scripts" / "check_match.py"


@dataclass
class Played:
    """A finished match and what its public view published as it went: the
    head at the start and after each close (as a post would have copied it)."""

    match_id: str
    heads: dict[int, str]  # 0: the start's; n: round n's


def play(svc: Referee, game: str) -> Played:
    """The game's demo match, its demo steps played, then every step to the
    end closed with no orders (defaults); the heads read from the public view
    as each round closed, each checked against that view's result."""
    demo = get_ruleset(game).demo(None)
    created = svc.create_match(
        name=demo.name,
        setup=demo.setup,
        players=demo.players,
        settings=demo.settings,
        ruleset=game,
        seed=demo.seed,
    )
    mid = created.match_id
    public = view_for(svc.state(mid), Viewer.public())
    heads = {0: public["chain_head"]}
    assert heads[0] is not None and all(r["head"] is None for r in public["rounds"])
    number = 0
    while not svc.state(mid).match.finished:
        if svc.state(mid).open_round is None:
            svc.open_round(mid)
        for seat, order in (demo.steps[number] if number < len(demo.steps) else {}).items():
            svc.submit_order(mid, seat, order)
        svc.close_round(mid)
        number += 1
        public = view_for(svc.state(mid), Viewer.public())
        head = public["rounds"][number - 1]["head"]
        assert head is not None and public["chain_head"] == head
        heads[number] = head
        # the entry commits to the result the public view shows right after the close
        (body,) = [e.body for e in entries(svc, mid) if e.head == head]
        assert body["round"] == number
        assert body["result_sha256"] == chain.sha256_hex(chain.canonical_json(public["result"]))
    return Played(mid, heads)


def entries(svc: Referee, mid: str) -> list[ChainEntry]:
    return svc._chain_entries(mid)  # the chain as stored, in order (what the export reads)


def exported(svc: Referee, mid: str, tmp_path: Path) -> Path:
    path = tmp_path / f"{mid}.match.json"
    path.write_text(json.dumps(svc.export(mid), ensure_ascii=False), encoding="utf-8")
    return path


def verify(path: Path, *heads: str) -> Any:
    args = ["verify", str(path), *(a for h in heads for a in ("--head", h))]
    return CliRunner().invoke(main, args)


def script(path: Path, *heads: str) -> subprocess.CompletedProcess[str]:
    args = [sys.executable, str(SCRIPT), str(path), *(a for h in heads for a in ("--head", h))]
    return subprocess.run(args, capture_output=True, text=True, timeout=60, check=False)


GAMES = ["rocky-river", "forks-2e", "fortune-famine"]


@pytest.mark.parametrize("game", GAMES)
def test_a_finished_match_passes_verify_with_the_heads_it_published(
    svc: Referee, game: str, tmp_path: Path
) -> None:
    played = play(svc, game)
    rows = entries(svc, played.match_id)
    assert [r.position for r in rows] == list(range(len(rows)))
    assert [r.kind for r in rows] == ["start", *["round"] * (len(rows) - 1)]
    assert [r.head for r in rows] == [played.heads[n] for n in range(len(rows))]
    document = svc.export(played.match_id)
    assert [e["head"] for e in document["chain"]] == [r.head for r in rows]
    assert len(document["proof"]) == sum(len(r.body["sent"]) for r in rows[1:])
    # the docs' ten lines give the published heads
    _code, heads = docs_recompute()
    assert heads(json.loads(json.dumps(document["chain"]))) == list(played.heads.values())

    path = exported(svc, played.match_id, tmp_path)
    copied = [f"{n}:{h}" if n else f"start:{h}" for n, h in played.heads.items()]
    out = verify(path, *copied, played.heads[max(played.heads)])
    assert out.exit_code == 0, out.output
    assert out.stdout.startswith(f"{path}: every check holds")
    assert f"{len(copied) + 1} published head(s) found" in out.stdout
    ran = script(path, *copied)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    # `referee resolve --file` still reads the export, chain and proof and all
    resolved = CliRunner().invoke(main, ["resolve", "--file", str(path), "--json"])
    assert resolved.exit_code == 0, resolved.output


def tamper_order(svc: Referee, mid: str, last: bool) -> tuple[int, int]:
    """What whoever holds the database may do: give a closed order another
    legal payload (the first candidate that the game's rules accept)
    with a receipt correctly recomputed from its salt, in the first closed round
    where there is one (or the last round, with ``last``). The stored results
    and the chain are left as they were. The (round, seat) changed."""
    state = svc.state(mid)
    rules, settings = state.ruleset, state.match.settings
    rounds = [r for r in state.rounds if r.status == "closed"]
    for rnd in reversed(rounds) if last else rounds:
        n = rnd.number
        data = rounds[n - 2].result if n > 1 else svc._resolve_stored(state, 0)
        before = GameState(state.setup, settings, n - 1, data)
        step = step_of(rnd)
        for seat, order in sorted(state.orders_of(n).items()):
            view = rules.view(before, Viewer.of_seat(seat), revealed=False, open_step=step)
            # as the conformance suite chooses orders: the round's other orders, the
            # game's candidates, then the reverse of every list among them
            candidates = [o.payload for o in state.orders_of(n).values()]
            candidates += rules.candidate_orders(before, step, seat, view)
            candidates += [c[::-1] for c in candidates if isinstance(c, list)]
            for candidate in candidates:
                try:
                    other = rules.check_order(before, step, seat, copy.deepcopy(candidate))
                except RuleError:
                    continue
                if other != order.payload:
                    with Session(svc.engine) as session:
                        row = session.get(Order, order.id)
                        assert row is not None
                        row.payload = other
                        row.receipt = chain.receipt_for(other, row.salt)
                        session.add(row)
                        session.commit()
                    return n, seat
        if last:
            break
    raise AssertionError("no closed order has a legal alternative")


def rewrite_chain(svc: Referee, mid: str, start: int) -> None:
    """The thorough attacker: the results and every chain entry from round
    ``start`` on made again from the changed orders (heads and all)."""
    state = svc.state(mid)
    rules = state.ruleset
    with Session(svc.engine) as session:
        rows = list(
            session.exec(
                select(ChainEntry)
                .where(ChainEntry.match_id == mid)
                .order_by(col(ChainEntry.position))
            )
        )
        prev = rows[start - 1].head
        for row in rows[start:]:
            number = row.round_number
            assert number is not None
            result = svc._resolve_stored(state, number)
            rnd = session.get(Round, (mid, number))
            assert rnd is not None
            rnd.result = result
            used = {s: o for s, o in state.orders_of(number).items() if not o.refused}
            after = GameState(state.setup, state.match.settings, number, result)
            body = chain.round_body(
                prev,
                number=number,
                acting=rnd.acting,
                receipts={s: o.receipt for s, o in used.items()},
                host_entered=[s for s, o in used.items() if o.host_entered],
                result_sha256=chain.result_digest(public_result(rules, after)),
            )
            row.body, row.head = body, chain.entry_head(body)
            prev = row.head
            session.add_all([rnd, row])
        session.commit()


@pytest.mark.parametrize("game", ["rocky-river", "forks-2e"])
def test_a_rewritten_closed_order_fails_verify_naming_its_round(
    svc: Referee, game: str, tmp_path: Path
) -> None:
    played = play(svc, game)
    number, seat = tamper_order(svc, played.match_id, last=False)
    path = exported(svc, played.match_id, tmp_path)
    out = verify(path, *(f"{n}:{h}" for n, h in played.heads.items() if n))
    assert out.exit_code == 1, out.output
    lines = out.stdout.splitlines()
    assert f"round {number}, seat {seat}: its receipt is " in lines[0]
    assert "but the chain holds" in lines[0]
    assert all(line.startswith("round ") for line in lines)
    assert not any(line.startswith(f"round {n}:") for n in range(1, number) for line in lines)
    ran = script(path)
    assert ran.returncode == 1
    assert ran.stdout.splitlines() == [
        f"round {number}, seat {seat}: its receipt is not the one the chain holds"
    ]


@pytest.mark.parametrize("game", ["rocky-river", "forks-2e"])
def test_a_rewritten_chain_fails_the_heads_published_before(
    svc: Referee, game: str, tmp_path: Path
) -> None:
    """The thorough attacker rewrites the chain too, from that round on: the
    file alone then checks, but not the heads copied from posts before."""
    played = play(svc, game)
    number, _seat = tamper_order(svc, played.match_id, last=True)
    rewrite_chain(svc, played.match_id, number)
    path = exported(svc, played.match_id, tmp_path)
    assert verify(path).exit_code == 0  # nothing in the file alone shows it
    assert script(path).returncode == 0
    before = played.heads[number]
    now = entries(svc, played.match_id)[number].head
    assert now != before
    out = verify(path, f"{number}:{before}", f"{number - 1}:{played.heads[number - 1]}")
    assert out.exit_code == 1, out.output
    assert out.stdout.splitlines() == [
        f"round {number}: published with head {before}, but this file's is {now}: the "
        "record was changed after that head was published"
    ]
    out = verify(path, before)
    assert out.exit_code == 1 and f"--head: {before} is not one of this match's" in out.stdout
    assert script(path, f"{number}:{before}").returncode == 1
    assert script(path, played.heads[number - 1]).returncode == 0


def test_stored_heads_that_differ_are_named_by_their_first_round(
    svc: Referee, tmp_path: Path
) -> None:
    played = play(svc, "rocky-river")
    with Session(svc.engine) as session:
        row = session.get(ChainEntry, (played.match_id, 2))
        assert row is not None
        row.body = {**row.body, "defaulted": [], "acting": [1, 2, 3], "sent": [1, 2, 3]}
        row.body = {**row.body, "result_sha256": "00" * 32}
        session.add(row)
        session.commit()
    out = verify(exported(svc, played.match_id, tmp_path))
    assert out.exit_code == 1
    assert "round 2: the stored head " in out.stdout
    assert "round 3: its 'prev' is " in out.stdout
    assert "round 2: re-resolved from the file's orders" in out.stdout


def test_a_head_not_in_the_chain_exits_1_naming_it(svc: Referee, tmp_path: Path) -> None:
    played = play(svc, "forks-2e")
    path = exported(svc, played.match_id, tmp_path)
    stranger = "0123456789abcdef" * 4
    out = verify(path, stranger, played.heads[1])
    assert out.exit_code == 1
    assert out.stdout.splitlines() == [
        f"--head: {stranger} is not one of this match's {len(played.heads)} heads: what it "
        "covered was changed after it was published"
    ]
    assert script(path, stranger).stdout.startswith(f"--head {stranger}: not one")


def test_bad_files_exit_2(svc: Referee, tmp_path: Path) -> None:
    played = play(svc, "rocky-river")
    good = svc.export(played.match_id)
    bad: dict[str, Any] = {
        "not-json": "{",
        "a-list": [],
        "unknown-game": {**good, "ruleset": "chess"},
        "not-an-export": {k: v for k, v in good.items() if k != "seed_sha256"},
        "any-object": {"x": 1},
        "chain-not-a-list": {**good, "chain": {"head": "x"}},
        "entry-without-head": {**good, "chain": [{"body": good["chain"][0]["body"]}]},
        "proof-not-a-list": {**good, "proof": "salty"},
        "proof-entry-short": {**good, "proof": [{"round": 1, "seat": 1}]},
    }
    for name, content in bad.items():
        path = tmp_path / f"{name}.json"
        text = content if isinstance(content, str) else json.dumps(content)
        path.write_text(text, encoding="utf-8")
        out = verify(path)
        assert out.exit_code == 2, (name, out.output)
        assert "was refused" in out.stderr
        if name in ("not-an-export", "any-object"):
            assert "[match/not_export]" in out.stderr, out.stderr
        if name in ("not-json", "a-list", "entry-without-head", "not-an-export", "any-object"):
            assert script(path).returncode == 2, name
    path = tmp_path / "good.json"
    path.write_text(json.dumps(good), encoding="utf-8")
    out = CliRunner().invoke(main, ["verify", str(path), "--head", "12:nothex"])
    assert out.exit_code == 2 and "[head/bad]" in out.stderr
    missing = CliRunner().invoke(main, ["verify", str(tmp_path / "none.json")])
    assert missing.exit_code == 2 and "file/unreadable" in missing.stderr


def test_an_export_before_the_end_has_its_chain_and_no_proof(svc: Referee, tmp_path: Path) -> None:
    created = svc.create_match(name="Early", setup={"map": "three-rapids"}, players=PLAYERS)
    demo = get_ruleset("rocky-river").demo(None)
    play_steps(svc, created.match_id, demo.steps[:2])
    document = svc.export(created.match_id)
    assert document["seed"] is None and "proof" not in document
    assert [e["body"]["kind"] for e in document["chain"]] == ["start", "round", "round"]
    path = exported(svc, created.match_id, tmp_path)
    head = view_for(svc.state(created.match_id), Viewer.public())["chain_head"]
    out = verify(path, f"2:{head}")
    assert out.exit_code == 0, out.output
    assert "exported before the match ended" in out.stderr
    assert script(path, f"2:{head}").returncode == 0


def test_a_match_stored_before_chains_has_none_and_says_so(
    svc: Referee, client: FlaskClient, tmp_path: Path
) -> None:
    created = svc.create_match(name="Old", setup={"map": "three-rapids"}, players=PLAYERS)
    mid = created.match_id
    with Session(svc.engine) as session:  # as migration 0011 leaves an older match
        session.execute(delete(ChainEntry).where(col(ChainEntry.match_id) == mid))
        session.commit()
    play_steps(svc, mid, get_ruleset("rocky-river").demo(None).steps)
    assert entries(svc, mid) == []  # its closes appended nothing
    view = view_for(svc.state(mid), Viewer.public())
    assert view["chain_head"] is None and all(r["head"] is None for r in view["rounds"])
    page = client.get(f"/matches/{mid}").get_data(as_text=True)
    assert "This match has no hash chain" in page and 'class="head"' not in page
    assert "This match has no hash chain" in client.get(f"/matches/{mid}/check").get_data(
        as_text=True
    )
    document = svc.export(mid)
    assert "chain" not in document and len(document["proof"]) == 15
    out = verify(exported(svc, mid, tmp_path))
    assert out.exit_code == 1
    assert out.stdout.startswith("chain: this file has no chain")
    assert "receipt" not in out.stdout  # its receipts and seed still check


def test_pages_show_the_heads_and_how_to_check(
    svc: Referee, client: FlaskClient, tmp_path: Path
) -> None:
    created = svc.create_match(name="Pages", setup={"map": "three-rapids"}, players=PLAYERS)
    mid = created.match_id
    play_steps(svc, mid, get_ruleset("rocky-river").demo(None).steps[:2])
    view = view_for(svc.state(mid), Viewer.public())
    head = view["rounds"][1]["head"]
    assert view["chain_head"] == head and view["rounds"][2]["head"] is None
    api = client.get(f"/api/matches/{mid}").get_json()
    assert api["chain_head"] == head and [r["head"] for r in api["rounds"]][:3] == [
        view["rounds"][0]["head"],
        head,
        None,
    ]
    for url in (
        f"/matches/{mid}",
        f"/host/{created.host_token}",
        f"/play/{created.player_tokens[1]}",
    ):
        page = client.get(url).get_data(as_text=True)
        assert f"<code>{head[:12]}…</code>" in page, url  # short, in the rounds table
        assert f'<code class="receipt">2:{head}</code>' in page, url  # and in full
        assert f'Chain head after Mapping:\n<code class="receipt">{head}</code>' in page, url
        assert f'href="/matches/{mid}/check">How to check this match</a>' in page, url
    check = client.get(f"/matches/{mid}/check").get_data(as_text=True)
    assert f"referee export {mid} -o {mid}.match.json" in check
    assert f"referee verify {mid}.match.json --head 2:{head}" in check
    assert f"python3 check_match.py {mid}.match.json --head 2:{head}" in check
    start = entries(svc, mid)[0].head
    assert f"start:{start}</code>" in check and f"1:{view['rounds'][0]['head']}</code>" in check
    script_page = client.get("/check_match.py")
    assert script_page.status_code == 200
    assert script_page.get_data(as_text=True) == SCRIPT.read_text(encoding="utf-8")


def test_a_backup_keeps_the_chain(svc: Referee, db_url: str, tmp_path: Path) -> None:
    played = play(svc, "forks-2e")
    data = json.loads(json.dumps(backup(svc.engine)))
    (entry,) = data["matches"]
    assert len(entry["chain"]) == len(played.heads)
    target = make_engine(f"sqlite:///{tmp_path / 'restored.db'}")
    try:
        migrate(target)
        restore(target, data)
        again = Referee(target)
        assert again.export(played.match_id) == svc.export(played.match_id)
        setup = setup_of(
            again.state(played.match_id).match.setup, again.state(played.match_id).seats
        )
        assert setup.players == entry["chain"][0]["body"]["players"]
    finally:
        target.dispose()


def test_verify_in_python_names_rounds_and_seats(svc: Referee) -> None:
    played = play(svc, "rocky-river")
    document = json.loads(json.dumps(svc.export(played.match_id)))
    document["proof"][0]["salt"] = "0" * 32
    report = verify_export(document)
    first = document["proof"][0]
    assert [(f.code, f.round, f.seat) for f in report.findings] == [
        ("receipt/mismatch", first["round"], first["seat"])
    ]
    # the match file's own part edited: the set-up the chain's start holds is not its
    document = json.loads(json.dumps(svc.export(played.match_id)))
    document["players"][0]["garnets"] += 1
    document["name"] = "Renamed"
    found = verify_export(document).findings
    assert [(f.code, f.line()) for f in found] == [
        (
            "start/differs",
            "start: the file's name is 'Renamed', but the chain's start holds "
            f"{svc.state(played.match_id).match.name!r}",
        ),
        (
            "file/differs",
            "match file: the match file's 'players' are not what the chain's "
            "set-up and the file's proof make: the file was changed after it was exported",
        ),
    ]
    # another seed deals other hands: the rules refuse the orders from round 1 on
    played = play(svc, "forks-2e")
    document = json.loads(json.dumps(svc.export(played.match_id)))
    document["seed"] = "another seed"
    found = verify_export(document).findings
    assert found[0].code == "seed/mismatch"
    assert {(f.code, f.round) for f in found[1:]} == {("replay/refused", 1)}
