"""One default database wherever a command runs (issue 23): REFEREE_DATABASE_URL,
else referee.db in the user's data folder; every command that uses it names it
on stderr, an old ./instance/referee.db is pointed out, never silently
ignored, and the tests never touch the real user folder."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import TEST_DATA_HOME

from referee import db
from referee.cli import main
from referee.web import create_app


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A temporary XDG_DATA_HOME, no REFEREE_DATABASE_URL, and two working folders."""
    data = tmp_path / "data"
    monkeypatch.setenv("XDG_DATA_HOME", str(data))
    monkeypatch.delenv("REFEREE_DATABASE_URL", raising=False)
    for folder in ("one", "two"):
        (tmp_path / folder).mkdir()
    monkeypatch.chdir(tmp_path / "one")
    return data


def test_the_tests_have_a_data_folder_of_their_own() -> None:
    """tests/conftest.py points every process of the run away from ~/.local/share."""
    assert os.environ["XDG_DATA_HOME"] == str(TEST_DATA_HOME)
    assert TEST_DATA_HOME.name.startswith("referee-test-data-")
    assert db.data_dir() == TEST_DATA_HOME / "referee"
    assert not db.data_dir().is_relative_to(Path.home() / ".local" / "share")


def test_the_default_is_in_the_user_data_folder(home: Path, tmp_path: Path) -> None:
    expected = home / "referee" / "referee.db"
    assert db.data_dir() == home / "referee"
    assert db.database_url() == f"sqlite:///{expected}"
    os.chdir(tmp_path / "two")  # (the fixture's monkeypatch puts the folder back)
    assert db.database_url() == f"sqlite:///{expected}", "it must not follow the folder"


def test_a_set_url_wins_and_an_empty_one_does_not(
    home: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("REFEREE_DATABASE_URL", f"sqlite:///{tmp_path / 'mine.db'}")
    assert db.database_url() == f"sqlite:///{tmp_path / 'mine.db'}"
    monkeypatch.setenv("REFEREE_DATABASE_URL", "")
    assert db.database_url() == f"sqlite:///{home / 'referee' / 'referee.db'}"


def test_demo_in_one_folder_is_found_from_another(home: Path, tmp_path: Path) -> None:
    """The demo's links answered 404 when `referee serve` ran elsewhere."""
    cli = CliRunner()
    made = cli.invoke(main, ["demo", "--play", "5"])
    assert made.exit_code == 0, made.output
    shown = f"database: sqlite:///{home / 'referee' / 'referee.db'}"
    assert shown in made.stderr.splitlines()
    assert shown not in made.stdout
    match_id = re.search(r"/matches/(\w+)$", made.stdout, re.M)
    assert match_id is not None
    assert not (tmp_path / "one" / "instance").exists()

    os.chdir(tmp_path / "two")
    exported = cli.invoke(main, ["export", match_id.group(1)])
    assert exported.exit_code == 0, exported.output
    assert json.loads(exported.stdout)["ruleset"] == "rocky-river"  # stdout: the file only
    assert shown in exported.stderr.splitlines()
    checked = cli.invoke(main, ["resolve", match_id.group(1), "--json"])
    assert json.loads(checked.stdout) == {"match": match_id.group(1), "differences": []}
    app = create_app({"TESTING": True})
    assert app.config["DATABASE_URL"] == db.database_url()
    assert app.test_client().get(f"/matches/{match_id.group(1)}").status_code == 200
    # the server's secret key is kept beside the default database, not in ./instance
    assert (home / "referee" / "secret_key").is_file()
    assert not (tmp_path / "two" / "instance").exists()


def test_a_file_command_names_no_database(home: Path) -> None:
    """`resolve --file` uses no database: it says nothing of one."""
    golden = sorted((Path(__file__).parent / "golden" / "rocky-river").glob("*.match.json"))[0]
    done = CliRunner().invoke(main, ["resolve", "--file", str(golden), "--json"])
    assert done.exit_code == 0 and done.stderr == ""
    assert not (home / "referee").exists()


def test_the_database_shown_hides_a_password(monkeypatch: pytest.MonkeyPatch) -> None:
    url = "postgresql+psycopg://user:s3cret@db.example:5432/referee"
    assert db.shown_url(url) == "postgresql+psycopg://user:***@db.example:5432/referee"


def test_an_old_instance_database_is_pointed_out(home: Path, tmp_path: Path) -> None:
    old = tmp_path / "one" / "instance" / "referee.db"
    old.parent.mkdir()
    old.write_bytes(b"")
    note = db.old_instance_note()
    assert note is not None
    assert str(old) in note and str(home / "referee" / "referee.db") in note
    assert f"REFEREE_DATABASE_URL=sqlite:///{old}" in note
    done = CliRunner().invoke(main, ["demo"])
    assert done.exit_code == 0
    assert done.stderr.startswith("note: ") and note in done.stderr
    assert "note:" not in done.stdout
    # the new default exists now: said once, not at every command
    assert db.old_instance_note() is None
    assert "note:" not in CliRunner().invoke(main, ["close-due"]).stderr


def test_no_note_without_an_old_database_or_with_a_set_url(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert db.old_instance_note() is None  # no ./instance/referee.db here
    old = tmp_path / "one" / "instance" / "referee.db"
    old.parent.mkdir()
    old.write_bytes(b"")
    monkeypatch.setenv("REFEREE_DATABASE_URL", f"sqlite:///{old}")
    assert db.old_instance_note() is None  # the host chose it
    monkeypatch.delenv("REFEREE_DATABASE_URL")
    assert db.old_instance_note() is not None


def test_an_old_secret_key_is_pointed_out(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    old = tmp_path / "one" / "instance" / "secret_key"
    old.parent.mkdir()
    old.write_text("old-key")
    url = f"sqlite:///{tmp_path / 'app.db'}"
    app = create_app({"TESTING": True, "DATABASE_URL": url})
    assert app.config["SECRET_KEY"] != "old-key"
    err = capsys.readouterr().err
    assert f"note: {old}" in err and str(home / "referee" / "secret_key") in err
    create_app({"TESTING": True, "DATABASE_URL": url})
    assert "note:" not in capsys.readouterr().err  # once: the new key exists now
