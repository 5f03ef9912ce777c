"""A season's ledger chain (issue 27, item 6), over HTTP and the CLI, on SQLite
and PostgreSQL: the head on the standings page, at the end of the season post,
in the JSON; earlier heads stay heads as entries are added; the ledger file
passes ``referee verify`` with heads copied from old posts, and a rewritten
entry in the database makes a head copied before fail, naming the entry."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner
from flask import Flask
from flask.testing import FlaskClient
from sqlmodel import Session, select

from referee.cli import main
from referee.models import LedgerEntry
from referee.seasons.service import Seasons

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "check_match.py"
ROSTER = [{"name": "Ana", "garnets": 5}, {"name": "Bo", "garnets": 2}, {"name": "Cy"}]
KEPT = re.compile(r"to keep: `(\d+):([0-9a-f]{64})`")


def posted_head(client: FlaskClient, sid: str) -> str:
    """The ``ENTRY:HEX`` at the end of the season's Markdown post, as a reader copies it."""
    text = client.get(f"/seasons/{sid}/post").get_data(as_text=True)
    last = text.rstrip().splitlines()[-1]
    found = KEPT.search(last)
    assert found is not None and last.startswith("**Ledger head**: "), last
    assert f"{found[2][:12]} (after entry {found[1]})" in last
    return f"{found[1]}:{found[2]}"


def test_the_ledger_head_is_published_and_checks(
    app: Flask, client: FlaskClient, tmp_path: Path
) -> None:
    seasons: Seasons = app.extensions["seasons"]
    sid = seasons.create_season(name="S1", players=ROSTER).season_id
    first = posted_head(client, sid)  # after the starting garnets
    entry = seasons.add_entry(sid, player=2, change=-1, reason="late")
    second = posted_head(client, sid)
    assert second != first and second.startswith(f"{entry.id}:")
    bb = client.get(f"/seasons/{sid}/post?format=bbcode").get_data(as_text=True)
    assert bb.rstrip().endswith(f"[code]{second}[/code]")

    api = client.get(f"/api/seasons/{sid}").get_json()
    ledger = client.get(f"/api/seasons/{sid}/ledger").get_json()
    assert api["ledger_head"] == ledger["ledger_head"] == second.split(":")[1]
    heads = [f"{e['id']}:{e['head']}" for e in ledger["entries"]]
    assert first in heads and heads[-1] == second  # an earlier head stays a head
    page = client.get(f"/seasons/{sid}").get_data(as_text=True)
    assert f'<code class="receipt">{second}</code>' in page

    path = tmp_path / "ledger.json"
    path.write_bytes(client.get(f"/seasons/{sid}/ledger.json").data)
    cli = CliRunner()
    out = cli.invoke(main, ["verify", str(path), "--head", first, "--head", second])
    assert out.exit_code == 0, out.output
    assert "every check holds (3 ledger head(s) recomputed" in out.stdout
    ran = subprocess.run(
        [sys.executable, str(SCRIPT), str(path), "--head", first, "--head", second],
        capture_output=True,
        text=True,
        check=False,
    )
    assert ran.returncode == 0, ran.stdout + ran.stderr

    # whoever holds the database rewrites Bo's starting garnets: every page shows
    # the rewrite with heads that recompute, but the heads posted before differ
    with Session(app.extensions["referee"].engine) as session:
        row = session.exec(
            select(LedgerEntry).where(LedgerEntry.season_id == sid, LedgerEntry.player == 2)
        ).first()
        assert row is not None and row.id is not None and row.change == 2
        row.change = 20
        session.add(row)
        session.commit()
        rewritten = row.id
    path.write_bytes(client.get(f"/seasons/{sid}/ledger.json").data)
    assert json.loads(path.read_text(encoding="utf-8"))["balances"]["2"] == 19
    assert cli.invoke(main, ["verify", str(path)]).exit_code == 0
    out = cli.invoke(main, ["verify", str(path), "--head", first, "--head", second])
    assert out.exit_code == 1
    named = [line.split(":")[0] for line in out.stdout.splitlines()]
    assert named == [f"entry {first.split(':')[0]}", f"entry {second.split(':')[0]}"]
    assert rewritten <= int(first.split(":")[0])
    ran = subprocess.run(
        [sys.executable, str(SCRIPT), str(path), "--head", second],
        capture_output=True,
        text=True,
        check=False,
    )
    assert ran.returncode == 1 and "not one of this ledger's heads" in ran.stdout


def test_a_season_without_entries_posts_no_head(app: Flask, client: FlaskClient) -> None:
    seasons: Seasons = app.extensions["seasons"]
    sid = seasons.create_season(name="S0", players=[{"name": "Ana"}, {"name": "Bo"}]).season_id
    assert client.get(f"/api/seasons/{sid}").get_json()["ledger_head"] is None
    assert "Ledger head" not in client.get(f"/seasons/{sid}/post").get_data(as_text=True)
    assert "Ledger head" not in client.get(f"/seasons/{sid}").get_data(as_text=True)
