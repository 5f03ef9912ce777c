"""`referee backup` and `referee restore`: every match's full state survives a
round trip (SQLite and PostgreSQL, either way), restored matches re-resolve to
the same results, old links still work, and a non-empty database is refused."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from click.testing import Result
from sqlalchemy import Engine
from sqlmodel import Session, col, select

from referee.db import make_engine
from referee.models import (
    Contact,
    Episode,
    LedgerEntry,
    Match,
    MatchNotify,
    Message,
    Order,
    Round,
    Season,
    SeasonPlayer,
    Seat,
)
from referee.notify.config import NotifyConfig
from referee.seasons.service import Seasons
from referee.service import Referee

from .conftest import DEMO, ROUNDS

RunCli = Callable[[Sequence[str]], Result]


def populate(svc: Referee) -> dict[str, tuple[str, int | None]]:
    """Matches in every state; each live token -> (match, seat)."""
    tokens: dict[str, tuple[str, int | None]] = {}

    def new(name: str, **settings: Any) -> str:
        created = svc.create_match(
            name=name, setup={"map": DEMO["map"]}, players=DEMO["players"], settings=settings
        )
        tokens[created.host_token] = (created.match_id, None)
        for seat, token in created.player_tokens.items():
            tokens[token] = (created.match_id, seat)
        return created.match_id

    def play(mid: str, rounds: int) -> None:
        for orders in ROUNDS[:rounds]:
            svc.open_round(mid)
            for seat, order in orders.items():
                svc.submit_order(mid, int(seat), order)
            svc.close_round(mid)

    new("fresh")
    mid = new("mid-game, deadline, host-entered order", publish_totals=True)
    play(mid, 2)
    svc.open_round(mid, deadline=datetime.now(UTC) + timedelta(days=2))
    svc.submit_order(mid, 1, ROUNDS[2]["1"])
    svc.submit_order(mid, 2, ROUNDS[2]["2"], host_entered=True)
    svc.submit_order(mid, 1, ROUNDS[2]["1"])  # replaced: revision 2
    mid = new("finished and revealed")
    play(mid, len(ROUNDS))
    svc.reveal(mid)
    mid = new("paused", deadline_hours=24)
    play(mid, 1)
    svc.open_round(mid)
    svc.pause(mid)
    mid = new("a reissued link")
    old = next(t for t, (m, s) in tokens.items() if m == mid and s == 2)
    del tokens[old]
    tokens[svc.reissue_token(mid, 2)] = (mid, 2)
    tokens["gone:" + old] = (mid, 2)  # the old link must stay dead
    # issue 14: addresses, a webhook, an unsubscribed seat and messages in the outbox
    svc.notify = NotifyConfig(smtp_url="smtp://127.0.0.1:9")
    created = svc.create_match(
        name="notified",
        setup={"map": DEMO["map"]},
        players=DEMO["players"],
        notify={
            "emails": {"1": "ana@example.org", "3": "cy@example.org"},
            "webhook_url": "https://93.184.216.34/hook",
            "remind_before_hours": [12],
        },
        schedule={"auto_open": True, "hours_per_round": 24},
    )
    tokens[created.host_token] = (created.match_id, None)
    for seat, token in created.player_tokens.items():
        tokens[token] = (created.match_id, seat)
    svc.set_email(created.match_id, 3, None)
    # issue 15: a season with a ledger, a correction and an episode whose match is above
    seasons = Seasons(svc, b"backup-secret")
    season = seasons.create_season(
        name="season", players=[{"name": "Ana", "garnets": 3}, {"name": "Bo"}, {"name": "Cy"}]
    )
    wrong = seasons.add_entry(season.season_id, player=2, change=5, reason="typo")
    seasons.add_entry(season.season_id, player=2, change=-4, reason="fix", corrects=wrong.id)
    seasons.create_main_match(season.season_id, setup={"map": DEMO["map"]})
    return tokens


def rows(engine: Engine) -> dict[str, list[dict[str, Any]]]:
    with Session(engine) as session:
        return {
            "match": [m.model_dump() for m in session.exec(select(Match).order_by(col(Match.id)))],
            "seat": [
                s.model_dump()
                for s in session.exec(select(Seat).order_by(col(Seat.match_id), col(Seat.seat)))
            ],
            "round": [
                r.model_dump()
                for r in session.exec(
                    select(Round).order_by(col(Round.match_id), col(Round.number))
                )
            ],
            "order": [o.model_dump() for o in session.exec(select(Order).order_by(col(Order.id)))],
            **{
                name: [r.model_dump() for r in session.exec(select(model))]
                for name, model in (("notify", MatchNotify), ("contact", Contact))
            },
            "outbox": [
                m.model_dump() for m in session.exec(select(Message).order_by(col(Message.id)))
            ],
            **{
                name: sorted((r.model_dump() for r in session.exec(select(model))), key=repr)
                for name, model in (
                    ("season", Season),
                    ("season_player", SeasonPlayer),
                    ("ledger", LedgerEntry),
                    ("episode", Episode),
                )
            },
        }


def cli(run_cli: RunCli, monkeypatch: pytest.MonkeyPatch, url: str, *args: str) -> Result:
    monkeypatch.setenv("REFEREE_DATABASE_URL", url)
    return run_cli(list(args))


@pytest.mark.parametrize("target", ["sqlite", "postgresql"])
def test_backup_restores_every_match_into_an_empty_database(
    svc: Referee,
    make_db: Callable[[str], str],
    target: str,
    tmp_path: Path,
    run_cli: RunCli,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    tokens = populate(svc)
    source_url = str(svc.engine.url.render_as_string(hide_password=False))
    target_url = make_db(target)
    file_ = tmp_path / "backup.json"

    made = cli(run_cli, monkeypatch, source_url, "backup", str(file_))
    assert made.exit_code == 0, made.stderr
    assert "wrote 7 match(es)" in made.stderr
    data = json.loads(file_.read_text())
    assert data["format"] == "referee-backup" and len(data["matches"]) == 7
    (season,) = data["seasons"]
    assert [len(season[k]) for k in ("players", "ledger", "episodes")] == [3, 3, 1]
    notified = data["matches"][-2]
    assert [len(notified[k]) for k in ("notify", "contacts")] == [1, 2]
    # created: 2 e-mails and the webhook; round 1 opened: the same three
    assert len(notified["outbox"]) == 6
    first = data["matches"][0]
    assert {"host_token_hash", "seed", "settings", "setup"} <= set(first["match"])
    assert all("salt" in o and "receipt" in o for m in data["matches"] for o in m["orders"])

    restored = cli(run_cli, monkeypatch, target_url, "restore", str(file_))
    assert restored.exit_code == 0, restored.stderr
    assert "restored 7 match(es)" in restored.stderr

    engine = make_engine(target_url)
    try:
        assert rows(engine) == rows(svc.engine)  # every column of every row, as stored
        again = Referee(engine)
        for mid in again.match_ids():
            assert again.recheck(mid) == []
            for before, after in zip(svc.state(mid).rounds, again.state(mid).rounds, strict=True):
                assert after.result == before.result
        for token, (mid, seat) in tokens.items():
            if token.startswith("gone:"):
                assert again.find_token(token.removeprefix("gone:")) is None
            else:
                assert again.find_token(token) == (mid, seat)
        # the restored match goes on exactly as the original would: same order, same close
        live = next(m for m in again.match_ids() if again.state(m).match.name.startswith("mid"))
        for referee in (svc, again):
            referee.submit_order(live, 3, ROUNDS[2]["3"])
        assert again.close_round(live).result == svc.close_round(live).result
        assert again.recheck(live) == []

        # a database that holds a match is refused, and left as it was
        before = rows(engine)
        refused = cli(run_cli, monkeypatch, target_url, "restore", str(file_))
        assert refused.exit_code == 2
        assert "restore only into an empty database" in refused.stderr
        assert rows(engine) == before
    finally:
        engine.dispose()


def test_restore_refuses_what_is_not_a_backup(
    make_db: Callable[[str], str],
    tmp_path: Path,
    run_cli: RunCli,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    url = make_db("sqlite")
    for content, message in (
        ('{"matches": []}', "this is not a backup"),
        ('{"format": "rocky-river-referee-backup", "version": 99}', "version 99"),
        ("[1, 2", "not valid JSON"),
    ):
        path = tmp_path / "bad.json"
        path.write_text(content)
        result = cli(run_cli, monkeypatch, url, "restore", str(path))
        assert result.exit_code == 2, result.stderr
        assert message in result.stderr
