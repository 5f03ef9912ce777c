"""``referee backup`` and ``referee restore``: every match's full state as JSON.

A backup holds, for every match, its row (token hashes, settings and seed
included), its seats, its rounds (deadlines, results) and its orders (salts,
receipts, revisions), its notification rows (webhook and reminders, seats'
addresses, the outbox) and its hash chain, column by column, as stored. It is read in one
transaction, so it is consistent even while the server runs (on PostgreSQL a
REPEATABLE READ snapshot; on SQLite the transaction's lock).

A restore loads a backup into an empty database (it refuses one that holds a
match) in one transaction: restored matches re-resolve to the same results and
the old host and seat links still work, since the token hashes are kept.

This referee writes format ``referee-backup`` version 2. It also restores the
version-1 files of earlier releases (format ``rocky-river-referee-backup``,
written before games were plug-ins), converting their rows as migration 0002
converts a database: the match's ``map_doc`` and ``map_name`` become its
``setup`` (``{"map": ..., "map_name": ...}``), each seat gets ``data`` ``{}``,
and each round its ``title`` ("Draft", "Mapping", "Rafting N") and ``acting``
(the match's seat numbers). Any other format or version is refused.
"""

from __future__ import annotations

import json
import os
from collections import defaultdict
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from alembic.runtime.migration import MigrationContext
from sqlalchemy import DateTime, Engine, Table, func, insert, select, text
from sqlmodel import Session, SQLModel

from referee.db import is_postgres, transaction
from referee.errors import RuleError
from referee.models import (
    ChainEntry,
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

FORMAT = "referee-backup"
VERSION = 2
# the files of releases before version 2, which restore converts (see _from_version_1)
OLD_FORMAT = "rocky-river-referee-backup"
OLD_VERSION = 1
READS = {FORMAT: VERSION, OLD_FORMAT: OLD_VERSION}
TABLES: dict[str, type[SQLModel]] = {
    "match": Match,
    "seats": Seat,
    "rounds": Round,
    "orders": Order,
    # issue 14: a match's webhook and reminders, its seats' addresses, its messages
    # (a backup written before them has none of these keys: restored as none)
    "notify": MatchNotify,
    "contacts": Contact,
    "outbox": Message,
    # issue 27: a match's hash chain (a backup written before has none: restored as none)
    "chain": ChainEntry,
}
# issue 15: every season, under "seasons" (a backup written before them has none):
# part of a season's entry -> its table
SEASON_PARTS: dict[str, type[SQLModel]] = {
    "season": Season,
    "players": SeasonPlayer,
    "ledger": LedgerEntry,
    "episodes": Episode,
}
# a season part's rows, among all the rows a restore loads (keys apart from TABLES')
SEASON_ROWS = {
    "season": "seasons",
    "players": "season_players",
    "ledger": "ledger",
    "episodes": "episodes",
}
# the tables whose rows are numbered by the database (restored with their ids)
NUMBERED: dict[str, type[SQLModel]] = {"orders": Order, "outbox": Message, "ledger": LedgerEntry}


def _table(model: type[SQLModel]) -> Table:
    table = model.__table__  # type: ignore[attr-defined]  # SQLModel sets it on table models
    assert isinstance(table, Table)
    return table


def _is_datetime(column: Any) -> bool:
    kind = column.type
    return isinstance(kind, DateTime) or isinstance(getattr(kind, "impl", None), DateTime)


def _dump_value(value: Any) -> Any:
    if isinstance(value, datetime):
        aware = value if value.tzinfo is not None else value.replace(tzinfo=UTC)
        return aware.astimezone(UTC).isoformat()
    return value


def _row(model: type[SQLModel], values: Any) -> dict[str, Any]:
    return {c.name: _dump_value(values[c.name]) for c in _table(model).columns}


@contextmanager
def _snapshot(engine: Engine) -> Iterator[Session]:
    if is_postgres(engine):
        snapshot = engine.connect().execution_options(isolation_level="REPEATABLE READ")
        with snapshot as conn, Session(bind=conn) as session, session.begin():
            yield session
    else:
        with transaction(engine) as session:
            yield session


def schema_revision(engine: Engine) -> str | None:
    with engine.connect() as conn:
        return MigrationContext.configure(conn).get_current_revision()


def backup(engine: Engine) -> dict[str, Any]:
    """Every match and season of the database, as a JSON-ready dict."""
    grouped: dict[str, dict[str, list[dict[str, Any]]]] = defaultdict(lambda: defaultdict(list))
    with _snapshot(engine) as session:
        for key, model in TABLES.items():
            table = _table(model)
            order = [c for c in table.primary_key.columns]
            for values in session.execute(select(table).order_by(*order)).mappings():
                grouped[values["id" if model is Match else "match_id"]][key].append(
                    _row(model, values)
                )
        seasons = _seasons(session)  # in the same snapshot
    matches = []
    for match_id in sorted(grouped, key=lambda m: (grouped[m]["match"][0]["created_at"], m)):
        parts = grouped[match_id]
        matches.append(
            {"match": parts["match"][0], **{key: parts[key] for key in TABLES if key != "match"}}
        )
    return {
        "format": FORMAT,
        "version": VERSION,
        "schema_revision": schema_revision(engine),
        "created_at": datetime.now(UTC).isoformat(),
        "matches": matches,
        "seasons": seasons,
    }


def _seasons(session: Session) -> list[dict[str, Any]]:
    """Every season (its row, players, ledger, episodes), oldest first."""
    grouped: dict[str, dict[str, list[dict[str, Any]]]] = defaultdict(lambda: defaultdict(list))
    for part, model in SEASON_PARTS.items():
        table = _table(model)
        order = [c for c in table.primary_key.columns]
        for values in session.execute(select(table).order_by(*order)).mappings():
            key = values["id" if model is Season else "season_id"]
            grouped[key][part].append(_row(model, values))
    return [
        {"season": parts["season"][0], **{p: parts[p] for p in SEASON_PARTS if p != "season"}}
        for _, parts in sorted(grouped.items(), key=lambda kv: kv[1]["season"][0]["created_at"])
    ]


def write_backup(engine: Engine, path: Path) -> int:
    """Write the backup to ``path`` (atomically: a temporary file renamed);
    the number of matches."""
    data = backup(engine)
    tmp = path.with_name(path.name + ".tmp")
    with tmp.open("w", encoding="utf-8") as f:
        json.dump(data, f, ensure_ascii=False, separators=(",", ":"))
        f.write("\n")
        f.flush()
        os.fsync(f.fileno())
    tmp.replace(path)
    return len(data["matches"])


def _load_value(column: Any, value: Any) -> Any:
    if value is not None and _is_datetime(column):
        parsed = datetime.fromisoformat(value)
        return parsed if parsed.tzinfo is not None else parsed.replace(tzinfo=UTC)
    return value


def _rows(model: type[SQLModel], raw: object, where: str) -> list[dict[str, Any]]:
    columns = {c.name: c for c in _table(model).columns}
    if not isinstance(raw, list) or not all(isinstance(r, dict) for r in raw):
        raise RuleError.single("backup/bad_file", f"{where} must be a list of objects")
    out = []
    for row in raw:
        unknown = sorted(set(row) - set(columns))
        missing = sorted(
            name
            for name, c in columns.items()
            if name not in row
            and not c.nullable
            and c.server_default is None  # a column added later: its default
            and not (model in NUMBERED.values() and name == "id")
        )
        if unknown or missing:
            raise RuleError.single(
                "backup/bad_file",
                f"{where}: unknown column(s) {unknown} / missing column(s) {missing}",
            )
        out.append({name: _load_value(columns[name], value) for name, value in row.items()})
    return out


def _version_1_round_title(number: int) -> str:
    """A version-1 (Rocky River) round's title, as migration 0002 gives it."""
    if number == 1:
        return "Draft"
    if number == 2:
        return "Mapping"
    return f"Rafting {number - 2}"


def _from_version_1(entry: dict[str, Any], where: str) -> dict[str, Any]:
    """One match of a version-1 backup in today's columns (as migration 0002
    converts a database); the rest of the rows is checked by :func:`_rows`."""
    match, seats, rounds = entry.get("match"), entry.get("seats", []), entry.get("rounds", [])
    for raw, part, new in (
        ([match], "match", ("setup",)),
        (seats, "seats", ("data",)),
        (rounds, "rounds", ("title", "acting")),
    ):
        if not isinstance(raw, list) or not all(isinstance(r, dict) for r in raw):
            raise RuleError.single("backup/bad_file", f"{where}.{part} must be a list of objects")
        for row in raw:
            if unknown := sorted(set(new) & set(row)):
                raise RuleError.single(
                    "backup/bad_file",
                    f"{where}.{part}: column(s) {unknown} are not in a version-{OLD_VERSION} "
                    "backup",
                )
    assert isinstance(match, dict) and isinstance(seats, list) and isinstance(rounds, list)
    if "map_doc" not in match:
        raise RuleError.single("backup/bad_file", f"{where}.match: missing column(s) ['map_doc']")
    numbers = [seat.get("seat") for seat in seats]
    if not all(type(n) is int and n >= 1 for n in numbers) or not all(
        type(r.get("number")) is int and r["number"] >= 1 for r in rounds
    ):
        raise RuleError.single(
            "backup/bad_file", f"{where}: seat and round numbers must be positive integers"
        )
    numbers.sort()
    setup = {"map": match["map_doc"], "map_name": match.get("map_name")}
    return {
        **entry,
        "match": {
            **{k: v for k, v in match.items() if k not in ("map_doc", "map_name")},
            "setup": setup,
        },
        "seats": [{**seat, "data": {}} for seat in seats],
        "rounds": [
            {**r, "title": _version_1_round_title(r["number"]), "acting": numbers} for r in rounds
        ],
    }


def read_backup(data: object) -> dict[str, list[dict[str, Any]]]:
    """The rows of every table in a backup, checked (a version-1 backup's rows
    converted to today's columns); RuleError when it is not one this referee reads."""
    kind = data.get("format") if isinstance(data, dict) else None
    if not isinstance(data, dict) or not isinstance(kind, str) or kind not in READS:
        raise RuleError.single(
            "backup/bad_file", f"this is not a backup ('format': '{FORMAT}' or '{OLD_FORMAT}')"
        )
    version = data.get("version")
    if type(version) is not int or version != READS[kind]:
        raise RuleError.single(
            "backup/bad_version",
            f"this backup is version {version!r} of format '{kind}'; this referee reads "
            f"version {VERSION} of '{FORMAT}' and version {OLD_VERSION} of '{OLD_FORMAT}'",
        )
    matches = data.get("matches")
    if not isinstance(matches, list):
        raise RuleError.single("backup/bad_file", "'matches' must be a list")
    rows: dict[str, list[dict[str, Any]]] = {key: [] for key in TABLES}
    for i, entry in enumerate(matches):
        if not isinstance(entry, dict):
            raise RuleError.single("backup/bad_file", f"matches[{i}] must be an object")
        if kind == OLD_FORMAT:
            entry = _from_version_1(entry, f"matches[{i}]")
        rows["match"] += _rows(Match, [entry.get("match")], f"matches[{i}].match")
        for key in TABLES:
            if key != "match":
                rows[key] += _rows(TABLES[key], entry.get(key, []), f"matches[{i}].{key}")
    rows.update({key: [] for key in SEASON_ROWS.values()})
    seasons = data.get("seasons", [])
    if not isinstance(seasons, list):
        raise RuleError.single("backup/bad_file", "'seasons' must be a list")
    for i, entry in enumerate(seasons):
        if not isinstance(entry, dict):
            raise RuleError.single("backup/bad_file", f"seasons[{i}] must be an object")
        for part, model in SEASON_PARTS.items():
            raw = [entry.get(part)] if part == "season" else entry.get(part, [])
            rows[SEASON_ROWS[part]] += _rows(model, raw, f"seasons[{i}].{part}")
    return rows


def count_matches(engine: Engine) -> int:
    with Session(engine) as session:
        return int(session.execute(select(func.count()).select_from(_table(Match))).scalar_one())


def restore(engine: Engine, data: object) -> dict[str, int]:
    """Load a backup into an empty (migrated) database, in one transaction;
    how many rows of each kind. RuleError ``restore/not_empty`` when the
    database holds a match already."""
    rows = read_backup(data)
    with transaction(engine) as session:
        existing = session.execute(select(func.count()).select_from(_table(Match))).scalar_one()
        existing_seasons = session.execute(
            select(func.count()).select_from(_table(Season))
        ).scalar_one()
        if existing or existing_seasons:
            raise RuleError.single(
                "restore/not_empty",
                f"the database already holds {existing} match(es) and {existing_seasons} "
                "season(s); restore only into an empty database",
            )
        for key, model in TABLES.items():
            if rows[key]:
                session.execute(insert(_table(model)), rows[key])
        for part, model in SEASON_PARTS.items():
            if rows[SEASON_ROWS[part]]:
                session.execute(insert(_table(model)), rows[SEASON_ROWS[part]])
        for key, model in NUMBERED.items():
            if is_postgres(engine) and rows[key]:
                # rows were inserted with their ids: move the id sequence past them
                name = _table(model).name
                session.execute(
                    text(
                        f"SELECT setval(pg_get_serial_sequence('\"{name}\"', 'id'), "
                        f'(SELECT max(id) FROM "{name}"))'
                    )
                )
    return {key: len(value) for key, value in rows.items()}
