"""The match file a host exports (the API's, the dashboard's button, `referee
export`) carries the match's name; `referee resolve --file` reads past it, so
the export still resolves to the stored result."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner
from flask.testing import FlaskClient
from sqlalchemy import Engine

from referee.cli import main
from referee.ruleset import get_ruleset
from referee.service import Referee

from .conftest import PLAYERS

NAME = "Friday <b>night</b> · 🎲"


@pytest.mark.parametrize("game", ["rocky-river", "forks-2e"])
def test_every_export_carries_the_match_name(
    client: FlaskClient,
    svc: Referee,
    db_url: str,
    engine: Engine,
    monkeypatch: pytest.MonkeyPatch,
    game: str,
) -> None:
    setup = {"map": "three-rapids"} if game == "rocky-river" else {}
    created = svc.create_match(name=NAME, setup=setup, players=PLAYERS, ruleset=game)
    api = client.get(
        f"/api/matches/{created.match_id}/export",
        headers={"Authorization": f"Bearer {created.host_token}"},
    )
    assert api.status_code == 200 and api.get_json()["name"] == NAME
    page = client.get(f"/host/{created.host_token}/export")
    assert page.status_code == 200 and json.loads(page.get_data(as_text=True))["name"] == NAME
    monkeypatch.setenv("REFEREE_DATABASE_URL", db_url)
    out = CliRunner().invoke(main, ["export", created.match_id])
    assert out.exit_code == 0, out.output
    assert json.loads(out.stdout)["name"] == NAME


def test_a_finished_export_with_its_name_resolves_to_the_stored_result(
    svc: Referee, db_url: str, engine: Engine, monkeypatch: pytest.MonkeyPatch, tmp_path
) -> None:
    monkeypatch.setenv("REFEREE_DATABASE_URL", db_url)
    out = CliRunner().invoke(main, ["demo", "--play", "5"])
    assert out.exit_code == 0, out.output
    (match_id,) = svc.match_ids()
    document = svc.export(match_id)
    assert document["name"] == svc.state(match_id).match.name and document["seed"]
    path = tmp_path / "export.match.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    resolved = CliRunner().invoke(main, ["resolve", "--file", str(path), "--json"])
    assert resolved.exit_code == 0, resolved.output
    stored = svc.state(match_id).rounds[-1].result
    assert stored is not None
    result = json.loads(resolved.stdout)
    assert result == get_ruleset("rocky-river").resolve(document)
    assert {k: stored[k] for k in result} == result
