"""Upgrading what the released referee left behind to games as plug-ins: a
database of schema revision 0001 migrated to 0002 in place (SQLite and
PostgreSQL), and back, and a version-1 backup file restored into today's schema.

The released rows are made here with plain SQL, in the 0001 shape and with the
values the released code stores (the bundled three-rapids map, the demo match's
orders, salted receipts, token hashes, round results), so these tests read only
referee.db, referee.models and referee.backup, never the service layer.
"""

from __future__ import annotations

import copy
import hashlib
import importlib.util
import json
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlmodel import Session, SQLModel, col, select

from referee.backup import (
    FORMAT,
    VERSION,
    _version_1_round_title,
    backup,
    read_backup,
    restore,
    schema_revision,
)
from referee.db import alembic_config, make_engine, migrate
from referee.errors import RuleError
from referee.models import Match, Round, Seat

REPO = Path(__file__).resolve().parents[2]
MAP: dict[str, Any] = json.loads((REPO / "seeds/maps/three-rapids.json").read_text("utf-8"))
DEMO: dict[str, Any] = json.loads((REPO / "seeds/demo/demo.match.json").read_text("utf-8"))
TABLES = ("match", "seat", "round", "order")
KEYS = {
    "match": ("id",),
    "seat": ("match_id", "seat"),
    "round": ("match_id", "number"),
    "order": ("id",),
}
T0 = datetime(2026, 5, 2, 18, 30, 5, 868338, tzinfo=UTC)

# the newest schema revision (referee/migrations/versions)
HEAD = "0011"


def sha256(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def receipt(order: Any, salt: str) -> str:
    """The released commitment: SHA-256 of ``salt:canonical-json(order)``."""
    canonical = json.dumps(order, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return sha256(f"{salt}:{canonical}")


def released_rows() -> dict[str, list[dict[str, Any]]]:
    """Two matches as revision 0001 stores them. "demo": the bundled map, the demo
    players, its draft and mapping rounds closed with their results, the first
    rafting round open with one order (replaced once, host-entered). "uploaded":
    a map given as a document (no ``map_name``), paused before its first round."""
    hands = {seat: sorted(cards) for seat, cards in DEMO["placements"].items()}
    draft_result = {
        "hands": hands,
        "conflicts": [
            {"index": 1, "round": 4, "card": "F", "contenders": [1, 3], "winner": 1},
            {"index": 2, "round": 5, "card": "O", "contenders": [2, 3], "winner": 2},
            {"index": 3, "round": 8, "card": "A", "contenders": [1, 2, 3], "winner": 3},
        ],
        "defaulted": [],
        "garnet_order": [1, 2, 3],
        "draft_lists": DEMO["draft"],
    }
    mapping_result = {
        **draft_result,
        "branch_totals": {"1L": 5, "1LL": 0, "1R": -2, "9L": -4, "9LL": 4, "9R": 7},
        "placements": DEMO["placements"],
    }
    uploaded_map = copy.deepcopy(MAP)
    uploaded_map["name"] = "Three Rapids, uploaded"
    match: list[dict[str, Any]] = [
        {
            "id": "7f3b760022",
            "name": "Demo: Rocky River Riding",
            "ruleset": "rocky-river",
            "map_name": "three-rapids",
            "map_doc": MAP,
            "settings": {"deadline_hours": 48, "publish_totals": False, "close_early": False},
            "seed": "A7NkI7m7tctV6UWYnApb3wwWJU_t8z-x",
            "seed_sha256": sha256("A7NkI7m7tctV6UWYnApb3wwWJU_t8z-x"),
            "host_token_hash": sha256("host-token-demo"),
            "created_at": T0,
            "rounds_opened": 3,
            "finished": False,
            "paused_at": None,
            "revealed": False,
            "version": 12,
        },
        {
            "id": "c0ffee0001",
            "name": "Uploaded map, paused",
            "ruleset": "rocky-river",
            "map_name": None,
            "map_doc": uploaded_map,
            "settings": {"deadline_hours": 24, "publish_totals": True, "close_early": True},
            "seed": "another-seed",
            "seed_sha256": sha256("another-seed"),
            "host_token_hash": sha256("host-token-uploaded"),
            "created_at": T0 + timedelta(hours=1),
            "rounds_opened": 0,
            "finished": False,
            "paused_at": T0 + timedelta(hours=2),
            "revealed": False,
            "version": 2,
        },
    ]
    seat: list[dict[str, Any]] = [
        {
            "match_id": m["id"],
            "seat": p["seat"],
            "name": p["name"],
            "garnets": p["garnets"],
            "token_hash": sha256(f"seat-token-{m['id']}-{p['seat']}"),
        }
        for m in match
        for p in DEMO["players"]
    ]
    deadline = timedelta(hours=48)
    round_: list[dict[str, Any]] = [
        {
            "match_id": "7f3b760022",
            "number": number,
            "phase": phase,
            "status": "closed" if result is not None else "open",
            "opened_at": T0 + timedelta(minutes=number),
            "deadline": T0 + timedelta(minutes=number) + deadline,
            "closed_at": T0 + timedelta(minutes=number, seconds=30) if result else None,
            "closed_by": "host" if result is not None else None,
            "result": result,
        }
        for number, phase, result in (
            (1, "draft", draft_result),
            (2, "mapping", mapping_result),
            (3, "rafting", None),
        )
    ]
    submitted = [
        (1, DEMO["draft"]),
        (2, DEMO["placements"]),
        (3, {"1": DEMO["votes"][0]["1"], "2": DEMO["votes"][0]["2"]}),
    ]
    order: list[dict[str, Any]] = []
    for number, orders in submitted:
        for seat_key, payload in orders.items():
            salt = sha256(f"salt-{number}-{seat_key}")[:32]
            host_entered = (number, seat_key) == (3, "2")
            order.append(
                {
                    "id": len(order) + 1,
                    "match_id": "7f3b760022",
                    "round_number": number,
                    "seat": int(seat_key),
                    "payload": payload,
                    "salt": salt,
                    "receipt": receipt(payload, salt),
                    "host_entered": host_entered,
                    "submitted_at": T0 + timedelta(minutes=number, seconds=int(seat_key)),
                    "revision": 2 if host_entered else 1,
                }
            )
    return {"match": match, "seat": seat, "round": round_, "order": order}


def upgraded(rows: dict[str, list[dict[str, Any]]]) -> dict[str, list[dict[str, Any]]]:
    """What revisions 0002, 0003 and 0005 must make of ``rows`` (the rules the
    migrations' briefs state; 0003 adds each round's ``deadline_changes``, 0;
    0005 each order's ``refused``, NULL: every stored order was used; 0009 each
    round's ``remind_at``, NULL: these matches have no reminder settings; 0010
    each seat's ``clock_bank`` and each round's ``clocks``, NULL: no clock, and
    each order's ``first_sent_at``, NULL: stored before, views read ``submitted_at``)."""
    seats: dict[str, list[int]] = {}
    for s in rows["seat"]:
        seats.setdefault(s["match_id"], []).append(s["seat"])
    titles = {1: "Draft", 2: "Mapping"}
    return {
        "match": [
            {
                **{k: v for k, v in m.items() if k not in ("map_doc", "map_name")},
                "setup": {"map": m["map_doc"], "map_name": m["map_name"]},
            }
            for m in rows["match"]
        ],
        "seat": [{**s, "data": {}, "clock_bank": None} for s in rows["seat"]],
        "round": [
            {
                **r,
                "title": titles.get(r["number"], f"Rafting {r['number'] - 2}"),
                "acting": sorted(seats[r["match_id"]]),
                "deadline_changes": 0,
                "remind_at": None,
                "clocks": None,
            }
            for r in rows["round"]
        ],
        "order": [{**o, "refused": None, "first_sent_at": None} for o in rows["order"]],
    }


def read_rows(engine: sa.Engine) -> dict[str, list[dict[str, Any]]]:
    """Every row of the four tables, column by column, with the database's own
    (reflected) column types, in key order: no model is involved."""
    meta = sa.MetaData()
    with engine.connect() as conn:
        meta.reflect(conn, only=TABLES)
        out = {}
        for name in TABLES:
            table = meta.tables[name]
            query = sa.select(table).order_by(*(table.c[k] for k in KEYS[name]))
            out[name] = [dict(row) for row in conn.execute(query).mappings()]
        return out


def as_stored(engine: sa.Engine, rows: dict[str, list[dict[str, Any]]]) -> None:
    """Insert ``rows`` as they are, with the database's own column types."""
    meta = sa.MetaData()
    with engine.begin() as conn:
        meta.reflect(conn, only=TABLES)
        for name in TABLES:
            conn.execute(sa.insert(meta.tables[name]), rows[name])


def normal(rows: dict[str, list[dict[str, Any]]]) -> dict[str, list[dict[str, Any]]]:
    """Rows with their datetimes in UTC, as the database gives them back (SQLite
    keeps them naive), for comparing what was put in with what is read."""

    def value(v: Any) -> Any:
        if isinstance(v, datetime):
            return v.astimezone(UTC).replace(tzinfo=None)
        return v

    return {t: [{k: value(v) for k, v in r.items()} for r in rs] for t, rs in rows.items()}


@pytest.fixture(params=["sqlite", "postgresql"])
def released_db(
    request: pytest.FixtureRequest, make_db: Callable[[str], str]
) -> Iterator[sa.Engine]:
    """A fresh database (a temporary SQLite file, or a fresh PostgreSQL schema
    dropped afterwards) at revision 0001, holding :func:`released_rows`."""
    engine = make_engine(make_db(request.param))
    command.upgrade(alembic_config(engine), "0001")
    as_stored(engine, released_rows())
    yield engine
    engine.dispose()


@pytest.fixture(params=["sqlite", "postgresql"])
def fresh_db(request: pytest.FixtureRequest, make_db: Callable[[str], str]) -> Iterator[sa.Engine]:
    """A fresh, empty database at the newest revision."""
    engine = make_engine(make_db(request.param))
    migrate(engine)
    yield engine
    engine.dispose()


def schema_differences(engine: sa.Engine) -> list[Any]:
    """How the database's schema differs from referee.models' (none, once migrated)."""
    with engine.connect() as conn:
        return list(compare_metadata(MigrationContext.configure(conn), SQLModel.metadata))


def naive(value: datetime | None) -> datetime | None:
    return None if value is None else value.astimezone(UTC).replace(tzinfo=None)


def test_migration_keeps_every_row_and_converts_the_set_up(released_db: sa.Engine) -> None:
    engine = released_db
    before = read_rows(engine)
    assert normal(before) == normal(released_rows())  # the 0001 rows, as stored
    assert [len(before[t]) for t in TABLES] == [2, 6, 3, 8]

    migrate(engine)

    assert schema_revision(engine) == HEAD
    assert schema_differences(engine) == []  # exactly the schema of referee.models
    after = read_rows(engine)
    assert after == upgraded(before)  # every other column of every row as it was
    demo, uploaded = after["match"]
    assert demo["setup"] == {"map": MAP, "map_name": "three-rapids"}
    assert uploaded["setup"]["map_name"] is None
    assert uploaded["setup"]["map"]["name"] == "Three Rapids, uploaded"
    assert [s["token_hash"] for s in after["seat"]] == [s["token_hash"] for s in before["seat"]]
    assert [m["host_token_hash"] for m in after["match"]] == [
        sha256("host-token-demo"),
        sha256("host-token-uploaded"),
    ]
    assert [(r["title"], r["acting"]) for r in after["round"]] == [
        ("Draft", [1, 2, 3]),
        ("Mapping", [1, 2, 3]),
        ("Rafting 1", [1, 2, 3]),
    ]
    assert all(s["data"] == {} for s in after["seat"])
    # payloads, salts, receipts, revisions; none refused
    assert after["order"] == [
        {**o, "refused": None, "first_sent_at": None} for o in before["order"]
    ]
    assert all(o["receipt"] == receipt(o["payload"], o["salt"]) for o in after["order"])
    if engine.dialect.name == "sqlite":
        with engine.connect() as conn:
            assert conn.exec_driver_sql("PRAGMA foreign_key_check").all() == []
            assert {fk[2] for fk in conn.exec_driver_sql("PRAGMA foreign_key_list(seat)")} == {
                "match"
            }

    # today's models read the upgraded rows
    with Session(engine) as session:
        match = session.exec(select(Match).where(col(Match.id) == "7f3b760022")).one()
        assert match.setup["map"] == MAP and match.version == 12
        assert naive(match.created_at) == naive(T0)
        rounds = session.exec(select(Round).order_by(col(Round.number))).all()
        assert [r.title for r in rounds] == ["Draft", "Mapping", "Rafting 1"]
        assert rounds[1].result is not None and rounds[1].result["placements"] == DEMO["placements"]
        assert len(session.exec(select(Seat)).all()) == 6

    # down to 0001 gives back the very rows the released code wrote; up again, the same
    command.downgrade(alembic_config(engine), "0001")
    assert schema_revision(engine) == "0001"
    assert read_rows(engine) == before
    migrate(engine)
    assert read_rows(engine) == after
    assert schema_differences(engine) == []


def test_an_empty_database_migrates_both_ways(fresh_db: sa.Engine) -> None:
    assert schema_revision(fresh_db) == HEAD
    assert schema_differences(fresh_db) == []
    command.downgrade(alembic_config(fresh_db), "0001")
    assert read_rows(fresh_db) == {"match": [], "seat": [], "round": [], "order": []}
    migrate(fresh_db)
    assert schema_differences(fresh_db) == []


def test_downgrade_refuses_a_match_of_another_ruleset(fresh_db: sa.Engine) -> None:
    rows = upgraded(released_rows())
    rows["match"][1] = {**rows["match"][1], "ruleset": "another-game", "setup": {"pieces": 4}}
    as_stored(fresh_db, rows)
    before = read_rows(fresh_db)
    with pytest.raises(RuntimeError, match="ruleset 'another-game'"):
        command.downgrade(alembic_config(fresh_db), "0001")
    # 0002 refused, changing nothing of its own; PostgreSQL runs the whole downgrade in
    # one transaction (still at the newest), SQLite had taken 0003 (new tables only) down
    postgres = fresh_db.dialect.name == "postgresql"
    assert schema_revision(fresh_db) == (HEAD if postgres else "0002")
    migrate(fresh_db)  # (SQLite: 0003 again, its new column back at its default)
    assert read_rows(fresh_db) == before
    assert schema_differences(fresh_db) == []


def released_backup(rows: dict[str, list[dict[str, Any]]]) -> dict[str, Any]:
    """A backup file as the released ``referee backup`` writes it: format
    "rocky-river-referee-backup" version 1, each match's row and its seats,
    rounds and orders in key order, column by column, datetimes in ISO 8601 UTC."""

    def dumped(row: dict[str, Any]) -> dict[str, Any]:
        return {
            k: v.astimezone(UTC).isoformat() if isinstance(v, datetime) else v
            for k, v in row.items()
        }

    return {
        "format": "rocky-river-referee-backup",
        "version": 1,
        "schema_revision": "0001",
        "created_at": "2026-05-03T09:00:00.000001+00:00",
        "matches": [
            {
                "match": dumped(m),
                "seats": [dumped(s) for s in rows["seat"] if s["match_id"] == m["id"]],
                "rounds": [dumped(r) for r in rows["round"] if r["match_id"] == m["id"]],
                "orders": [dumped(o) for o in rows["order"] if o["match_id"] == m["id"]],
            }
            for m in rows["match"]
        ],
    }


def test_a_version_1_backup_restores_as_the_migration_converts(
    fresh_db: sa.Engine, make_db: Callable[[str], str]
) -> None:
    # the file goes through JSON text, as `referee restore FILE` reads it
    data = json.loads(json.dumps(released_backup(released_rows())))
    counts = restore(fresh_db, data)
    assert counts == {"match": 2, "seats": 6, "rounds": 3, "orders": 8} | {
        "notify": 0,  # issue 14's tables: a version-1 backup has none of their rows
        "contacts": 0,
        "outbox": 0,
        "seasons": 0,  # issue 15's: none either
        "season_players": 0,
        "ledger": 0,
        "episodes": 0,
        "chain": 0,  # issue 27's: a match stored before chains has none
    }
    restored = read_rows(fresh_db)
    assert normal(restored) == normal(upgraded(released_rows()))

    # the same rows, migrated in place instead, come out the same, column by column
    migrated = make_engine(make_db("sqlite"))
    try:
        command.upgrade(alembic_config(migrated), "0001")
        as_stored(migrated, released_rows())
        migrate(migrated)
        assert normal(read_rows(migrated)) == normal(restored)
    finally:
        migrated.dispose()


def test_format_2_round_trips(fresh_db: sa.Engine, make_db: Callable[[str], str]) -> None:
    restore(fresh_db, json.loads(json.dumps(released_backup(released_rows()))))
    first = json.loads(json.dumps(backup(fresh_db)))
    assert (first["format"], first["version"]) == (FORMAT, VERSION) == ("referee-backup", 2)
    assert first["schema_revision"] == HEAD
    demo = first["matches"][0]
    assert demo["match"]["setup"] == {"map": MAP, "map_name": "three-rapids"}
    assert "map_doc" not in demo["match"] and "map_name" not in demo["match"]
    assert [s["data"] for s in demo["seats"]] == [{}, {}, {}]
    assert [r["title"] for r in demo["rounds"]] == ["Draft", "Mapping", "Rafting 1"]

    for kind in ("sqlite", "postgresql"):
        target = make_engine(make_db(kind))
        try:
            migrate(target)
            restore(target, first)
            again = backup(target)
            assert {k: v for k, v in again.items() if k != "created_at"} == {
                k: v for k, v in first.items() if k != "created_at"
            }
            assert normal(read_rows(target)) == normal(read_rows(fresh_db))
        finally:
            target.dispose()


@pytest.mark.parametrize(
    ("change", "code", "message"),
    [
        ({"format": "something-else"}, "backup/bad_file", "this is not a backup"),
        ({"format": None}, "backup/bad_file", "this is not a backup"),
        ({"version": 99}, "backup/bad_version", "version 99"),
        ({"version": True}, "backup/bad_version", "version True"),
        ({"version": 2}, "backup/bad_version", "version 2 of format 'rocky-river-referee"),
        ({"format": "referee-backup"}, "backup/bad_version", "version 1 of format 'referee-"),
    ],
)
def test_unknown_formats_and_versions_are_refused(
    change: dict[str, Any], code: str, message: str
) -> None:
    data = {**released_backup(released_rows()), **change}
    with pytest.raises(RuleError) as refused:
        read_backup(data)
    assert refused.value.codes == [code]
    assert message in str(refused.value)


def test_a_version_1_backup_with_version_2_columns_is_refused() -> None:
    for part, column in (("match", "setup"), ("seats", "data"), ("rounds", "title")):
        data = released_backup(released_rows())
        entry = data["matches"][0]
        if part == "match":
            entry["match"][column] = {}
        else:
            entry[part][0][column] = {}
        with pytest.raises(RuleError, match=rf"{part}: column\(s\) \['{column}'\] are not in"):
            read_backup(data)
    data = released_backup(released_rows())
    del data["matches"][1]["match"]["map_doc"]
    with pytest.raises(RuleError, match=r"matches\[1\]\.match: missing column\(s\) \['map_doc'\]"):
        read_backup(data)


def test_the_migration_and_the_restore_title_rounds_alike() -> None:
    spec = importlib.util.spec_from_file_location(
        "migration_0002", REPO / "referee/migrations/versions/0002_game_setup.py"
    )
    assert spec is not None and spec.loader is not None
    migration = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(migration)
    expected = ["Draft", "Mapping", *(f"Rafting {n}" for n in range(1, 11))]
    assert [migration.rocky_river_title(n) for n in range(1, 13)] == expected
    assert [_version_1_round_title(n) for n in range(1, 13)] == expected


def test_0009_sets_the_next_reminder_of_open_rounds_with_reminder_settings(
    released_db: sa.Engine,
) -> None:
    """0009 fills ``remind_at`` of each open round whose match has lead times
    (its deadline less the longest lead time the round was open for); others
    stay NULL."""
    engine = released_db
    command.upgrade(alembic_config(engine), "0007")
    opened = datetime(2026, 12, 1, 12, 0, tzinfo=UTC)
    deadline = opened + timedelta(hours=30)
    meta = sa.MetaData()
    with engine.begin() as conn:
        meta.reflect(conn, only=["round", "match_notify"])
        rounds = meta.tables["round"]
        open_round = conn.execute(
            sa.select(rounds.c.match_id, rounds.c.number).where(rounds.c.status == "open")
        ).first()
        assert open_round is not None
        conn.execute(
            rounds.update()
            .where(rounds.c.match_id == open_round.match_id)
            .where(rounds.c.number == open_round.number)
            .values(opened_at=opened, deadline=deadline)
        )
        conn.execute(
            sa.insert(meta.tables["match_notify"]),
            [
                {
                    "match_id": open_round.match_id,
                    "base_url": "https://referee.example.org",
                    "remind_before_hours": [48, 24, 2],
                }
            ],
        )
    migrate(engine)
    with Session(engine) as session:
        found = {(r.match_id, r.number): r.remind_at for r in session.exec(select(Round))}
    assert naive(found.pop((open_round.match_id, open_round.number))) == naive(
        deadline - timedelta(hours=24)
    )
    assert set(found.values()) == {None}
