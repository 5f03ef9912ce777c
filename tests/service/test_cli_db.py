"""The CLI commands that work on the database: demo, export, resolve MATCH_ID, close-due."""

from __future__ import annotations

import json
import re
from datetime import timedelta
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from sqlalchemy import Engine
from sqlmodel import Session, select

from referee.cli import main
from referee.matchfile import seed_digest
from referee.models import Round, utcnow
from referee.ruleset import get_ruleset
from referee.rulesets.rocky_river import resolve_document
from referee.service import Referee

from .conftest import PLAYERS
from .test_seasons import play_to_the_end


@pytest.fixture
def cli(db_url: str, engine: Engine, monkeypatch: pytest.MonkeyPatch) -> CliRunner:
    monkeypatch.setenv("REFEREE_DATABASE_URL", db_url)
    return CliRunner()


def test_demo_prints_working_links_and_export_resolves(cli: CliRunner, svc: Referee) -> None:
    out = cli.invoke(main, ["demo", "--play", "5", "--base-url", "http://example.test:8000"])
    assert out.exit_code == 0, out.output
    links = dict(re.findall(r"^(.+?)\s{2,}(\S+)$", out.output, re.M))
    host = links["host (keep private)"]
    assert host.startswith("http://example.test:8000/host/")
    token = host.rsplit("/", 1)[1]
    found = svc.find_token(token)
    assert found is not None and found[1] is None
    match_id = found[0]
    assert links["public page"].endswith(f"/matches/{match_id}")
    for seat in (1, 2, 3):
        url = next(v for k, v in links.items() if k.startswith(f"seat {seat} "))
        assert svc.find_token(url.rsplit("/", 1)[1]) == (match_id, seat)
    assert svc.state(match_id).match.finished

    exported = cli.invoke(main, ["export", match_id])
    assert exported.exit_code == 0
    document = json.loads(exported.stdout)
    stored = svc.state(match_id).rounds[-1].result
    assert stored is not None
    result = resolve_document(document)
    assert {k: stored[k] for k in result} == result

    checked = cli.invoke(main, ["resolve", match_id])
    assert checked.exit_code == 0
    assert "5 round(s) checked" in checked.output


def test_demo_without_play_opens_the_draft(cli: CliRunner, svc: Referee) -> None:
    assert cli.invoke(main, ["demo"]).exit_code == 0
    state = svc.state(svc.match_ids()[0])
    assert state.open_round is not None and state.open_round.phase == "draft"


def test_resolve_match_id_reports_an_erratum(cli: CliRunner, svc: Referee, engine: Engine) -> None:
    assert cli.invoke(main, ["demo", "--play", "2"]).exit_code == 0
    match_id = svc.match_ids()[0]
    with Session(engine) as session:
        rnd = session.exec(select(Round).where(Round.match_id == match_id, Round.number == 2)).one()
        assert rnd.result is not None
        changed = dict(rnd.result)
        totals = dict(changed["branch_totals"])
        totals["1L"] += 1
        changed["branch_totals"] = totals
        rnd.result = changed
        session.add(rnd)
        session.commit()
    out = cli.invoke(main, ["resolve", match_id])
    assert out.exit_code == 1
    assert "Mapping: 'branch_totals'" in out.output
    assert "resolve MATCH_ID --fix" in out.output
    as_json = cli.invoke(main, ["resolve", match_id, "--json"])
    assert json.loads(as_json.stdout)["differences"]

    # --fix stores the re-resolved result as a correction on the chain
    published = svc.state(match_id).chain
    fixed = cli.invoke(main, ["resolve", match_id, "--fix"])
    assert fixed.exit_code == 0, fixed.output
    head = svc.state(match_id).chain[-1]
    assert head.kind == "correction" and head.round == 2
    assert f"round 2 fixed: its correction's head is 2:{head.head}" in fixed.output
    assert [h.head for h in svc.state(match_id).chain[: len(published)]] == [
        h.head for h in published
    ]
    again = cli.invoke(main, ["resolve", match_id])
    assert again.exit_code == 0 and "2 round(s) checked" in again.output
    nothing = cli.invoke(main, ["resolve", match_id, "--fix", "--json"])
    assert nothing.exit_code == 0 and json.loads(nothing.stdout)["fixed"] == []


def test_unknown_match_is_a_clear_error(cli: CliRunner) -> None:
    for args in (["export", "nope"], ["resolve", "nope"]):
        out = cli.invoke(main, args)
        assert out.exit_code == 2
        assert "[match/not_found]" in out.stderr
        assert "Traceback" not in out.output + out.stderr


def test_resolve_needs_exactly_one_source(cli: CliRunner) -> None:
    assert cli.invoke(main, ["resolve"]).exit_code == 2
    assert cli.invoke(main, ["resolve", "abc", "--file", "x.json"]).exit_code == 2
    fix_a_file = cli.invoke(main, ["resolve", "--fix", "--file", "x.json"])
    assert fix_a_file.exit_code == 2 and "--fix fixes a stored match" in fix_a_file.output


def test_close_due_closes_past_deadlines(cli: CliRunner, engine: Engine) -> None:
    past = Referee(engine, clock=lambda: utcnow() - timedelta(hours=3))
    mid = past.create_match(
        name="m", setup={"map": "three-rapids"}, players=PLAYERS, settings={"deadline_hours": 1}
    ).match_id
    past.open_round(mid)
    out = cli.invoke(main, ["close-due"])
    assert out.exit_code == 0
    assert f"closed round 1 of match {mid}" in out.output
    again = cli.invoke(main, ["close-due"])
    assert "no round was due" in again.output


def test_audit_of_a_stored_match(cli: CliRunner, svc: Referee) -> None:
    assert cli.invoke(main, ["demo", "--play", "5"]).exit_code == 0
    match_id = svc.match_ids()[0]
    out = cli.invoke(main, ["audit", match_id, "--json"])
    assert out.exit_code == 0, out.output
    data = json.loads(out.stdout)
    stored = svc.state(match_id).rounds[-1].result
    assert stored is not None
    for seat in ("1", "2", "3"):
        assert data["seats"][seat]["actual"] == stored["scores"][seat]
    assert data["rafting_rounds"] == 3
    missing = cli.invoke(main, ["audit", "nope"])
    assert missing.exit_code == 2 and "[match/not_found]" in missing.stderr


def test_demo_takes_the_game_and_refuses_an_unknown_one(cli: CliRunner, svc: Referee) -> None:
    out = cli.invoke(main, ["demo", "--game", "rocky-river", "--play", "1"])
    assert out.exit_code == 0, out.output
    state = svc.state(svc.match_ids()[0])
    assert state.match.ruleset == "rocky-river" and state.open_round is not None
    assert state.open_round.title == "Mapping" and state.open_round.acting == [1, 2, 3]

    unknown = cli.invoke(main, ["demo", "--game", "chess"])
    assert unknown.exit_code == 2
    assert "match/unknown_ruleset" in unknown.output and "rocky-river" in unknown.output
    too_many = cli.invoke(main, ["demo", "--players", "4"])
    assert too_many.exit_code == 2 and "demo/bad_players" in too_many.output
    assert len(svc.match_ids()) == 1  # the refusals created nothing


def test_demo_of_a_registered_game_with_a_player_count(cli: CliRunner, svc: Referee) -> None:
    from toy import registered

    with registered():
        out = cli.invoke(main, ["demo", "--game", "toy", "--players", "5"])
        assert out.exit_code == 0, out.output
        assert len([line for line in out.output.splitlines() if line.startswith("seat ")]) == 5
        state = svc.state(svc.match_ids()[0])
        assert state.match.ruleset == "toy" and len(state.seats) == 5
        assert state.open_round is not None and state.open_round.acting == [1, 2, 3, 4, 5]


@pytest.mark.parametrize("game", ["rocky-river", "forks-2e"])
def test_resolve_file_refuses_a_revealed_seed_that_does_not_match_its_digest(
    cli: CliRunner, svc: Referee, tmp_path: Path, game: str
) -> None:
    """R10: the export of a finished match carries its seed and the digest
    published from the start; ``referee resolve --file`` checks one against
    the other, for every game (``match/seed_mismatch``)."""
    demo = get_ruleset(game).demo(3)
    created = svc.create_match(
        name="Seeded",
        setup=demo.setup,
        players=demo.players,
        settings=demo.settings,
        ruleset=game,
        seed="the-real-seed",
    )
    play_to_the_end(svc, created.match_id)
    exported = cli.invoke(main, ["export", created.match_id])
    assert exported.exit_code == 0, exported.output
    document = json.loads(exported.stdout)
    assert document["seed"] == "the-real-seed"
    assert document["seed_sha256"] == created.seed_sha256 == seed_digest("the-real-seed")

    def resolve(doc: dict[str, object]) -> Result:
        path = tmp_path / "match.json"
        path.write_text(json.dumps(doc), encoding="utf-8")
        return cli.invoke(main, ["resolve", "--file", str(path), "--json"])

    assert resolve(document).exit_code == 0  # the seed and its digest agree
    for changed in ({"seed": "another-seed"}, {"seed_sha256": seed_digest("another-seed")}):
        result = resolve({**document, **changed})
        assert result.exit_code == 2, result.output
        assert result.stdout == "" and "Traceback" not in result.stderr
        (line,) = [ln for ln in result.stderr.splitlines() if ln.startswith("  [")]
        assert line.startswith("  [match/seed_mismatch] ")
        seed = str({**document, **changed}["seed"])
        assert seed_digest(seed) in line and str({**document, **changed}["seed_sha256"]) in line
