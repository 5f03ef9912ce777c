"""game set-up: a match's ruleset-owned ``setup``, per-seat ``data``, round ``title``/``acting``

Games become plug-ins, so the match row no longer has Rocky River's map columns:

- ``match.map_doc`` and ``match.map_name`` become ``match.setup``, the ruleset's own part
  of the set-up; a Rocky River match's is ``{"map": <map_doc>, "map_name": <map_name>}``;
- ``seat.data`` (new): the ruleset's per-seat set-up data; ``{}`` for Rocky River;
- ``round.title`` (new): the step's name for people: Rocky River's round 1 is "Draft",
  round 2 "Mapping", round N+2 "Rafting N";
- ``round.acting`` (new): the seats that act in the step; in Rocky River every seat acts
  in every round, so it is the match's seat numbers, sorted.

Every row is kept in place (token hashes, salts, receipts, results: nothing is
rewritten but the columns above). The data is copied with SQLAlchemy Core on
tables declared here, not with ``referee.models``, which describes only the newest
schema.

SQLite cannot change a column in place, so ``batch_alter_table`` rebuilds the table
(copy, drop, rename). The referee's SQLite connections enforce foreign keys, and
dropping ``match`` while seats, rounds and orders point at it is refused, so on
SQLite the match rows are set aside in a temporary table and ``match`` is rebuilt
empty, with the foreign key checks deferred to the commit; the rows then go back,
and the commit checks that every seat, round and order has its match again.

Revision ID: 0002
Revises: 0001
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from typing import Any

import sqlalchemy as sa
from alembic import op
from alembic.operations import BatchOperations
from sqlmodel.sql.sqltypes import AutoString

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None

ROCKY_RIVER = "rocky-river"

_match = sa.table(
    "match",
    sa.column("id", sa.String),
    sa.column("ruleset", sa.String),
    sa.column("map_name", sa.String),
    sa.column("map_doc", sa.JSON),
    sa.column("setup", sa.JSON),
)
_seat = sa.table(
    "seat",
    sa.column("match_id", sa.String),
    sa.column("seat", sa.Integer),
    sa.column("data", sa.JSON),
)
_round = sa.table(
    "round",
    sa.column("match_id", sa.String),
    sa.column("number", sa.Integer),
    sa.column("title", sa.String),
    sa.column("acting", sa.JSON),
)


def rocky_river_title(number: int) -> str:
    """A Rocky River round's title (its rounds are draft, mapping, then rafting)."""
    if number == 1:
        return "Draft"
    if number == 2:
        return "Mapping"
    return f"Rafting {number - 2}"


def _rebuild_match(alter: Callable[[BatchOperations], None]) -> None:
    """Run ``alter`` in a batch on ``match``; on SQLite (where the batch rebuilds
    the table) with the match rows set aside, so that the old table is dropped
    empty, and put back into the new one."""
    bind = op.get_bind()
    if bind.dialect.name != "sqlite":
        with op.batch_alter_table("match") as batch:
            alter(batch)
        return
    # foreign key checks wait for the commit, which fails unless every row that
    # points at a match finds it again (this pragma ends with the transaction)
    op.execute("PRAGMA defer_foreign_keys = ON")
    op.execute("CREATE TEMPORARY TABLE _match_rows AS SELECT * FROM main.match")
    op.execute("DELETE FROM main.match")
    with op.batch_alter_table("match", recreate="always") as batch:
        alter(batch)
    columns = ", ".join(f'"{c["name"]}"' for c in sa.inspect(bind).get_columns("match"))
    op.execute(f"INSERT INTO main.match ({columns}) SELECT {columns} FROM temp._match_rows")
    op.execute("DROP TABLE temp._match_rows")


def _seat_numbers(bind: sa.Connection) -> dict[str, list[int]]:
    seats: dict[str, list[int]] = defaultdict(list)
    for match_id, seat in bind.execute(sa.select(_seat.c.match_id, _seat.c.seat)):
        seats[match_id].append(seat)
    return {match_id: sorted(numbers) for match_id, numbers in seats.items()}


def upgrade() -> None:
    bind = op.get_bind()

    # 1. the new columns, nullable until they are filled
    with op.batch_alter_table("match") as batch:
        batch.add_column(sa.Column("setup", sa.JSON(), nullable=True))
    with op.batch_alter_table("seat") as batch:
        batch.add_column(sa.Column("data", sa.JSON(), nullable=True))
    with op.batch_alter_table("round") as batch:
        batch.add_column(sa.Column("title", AutoString(length=100), nullable=True))
        batch.add_column(sa.Column("acting", sa.JSON(), nullable=True))

    # 2. their values, from the old columns (every match so far is Rocky River's)
    setups = [
        {"b_id": match_id, "b_setup": {"map": map_doc, "map_name": map_name}}
        for match_id, map_name, map_doc in bind.execute(
            sa.select(_match.c.id, _match.c.map_name, _match.c.map_doc)
        )
    ]
    if setups:
        bind.execute(
            sa.update(_match)
            .where(_match.c.id == sa.bindparam("b_id"))
            .values(setup=sa.bindparam("b_setup", type_=sa.JSON)),
            setups,
        )
    bind.execute(sa.update(_seat).values(data={}))
    seats = _seat_numbers(bind)
    rounds = [
        {
            "b_match_id": match_id,
            "b_number": number,
            "b_title": rocky_river_title(number),
            "b_acting": seats.get(match_id, []),
        }
        for match_id, number in bind.execute(sa.select(_round.c.match_id, _round.c.number))
    ]
    if rounds:
        bind.execute(
            sa.update(_round)
            .where(
                _round.c.match_id == sa.bindparam("b_match_id"),
                _round.c.number == sa.bindparam("b_number"),
            )
            .values(
                title=sa.bindparam("b_title", type_=sa.String),
                acting=sa.bindparam("b_acting", type_=sa.JSON),
            ),
            rounds,
        )

    # 3. the new columns become NOT NULL; the map columns go. The children first:
    # on SQLite rebuilding them needs no care, and must not run while match is set aside
    with op.batch_alter_table("seat") as batch:
        batch.alter_column("data", existing_type=sa.JSON(), nullable=False)
    with op.batch_alter_table("round") as batch:
        batch.alter_column("title", existing_type=AutoString(length=100), nullable=False)
        batch.alter_column("acting", existing_type=sa.JSON(), nullable=False)

    def alter_match(batch: BatchOperations) -> None:
        batch.alter_column("setup", existing_type=sa.JSON(), nullable=False)
        batch.drop_column("map_doc")
        batch.drop_column("map_name")

    _rebuild_match(alter_match)


def downgrade() -> None:
    bind = op.get_bind()
    others = bind.execute(
        sa.select(_match.c.id, _match.c.ruleset).where(_match.c.ruleset != ROCKY_RIVER)
    ).first()
    if others is not None:
        raise RuntimeError(
            f"cannot downgrade below 0002: match {others.id} is of ruleset {others.ruleset!r}, "
            f"and the schema of 0001 holds only {ROCKY_RIVER!r} matches"
        )

    with op.batch_alter_table("match") as batch:
        batch.add_column(sa.Column("map_name", AutoString(length=100), nullable=True))
        batch.add_column(sa.Column("map_doc", sa.JSON(), nullable=True))

    maps: list[dict[str, Any]] = []
    for match_id, setup in bind.execute(sa.select(_match.c.id, _match.c.setup)):
        if not isinstance(setup, dict) or "map" not in setup:
            raise RuntimeError(f"cannot downgrade below 0002: match {match_id} has no map")
        maps.append({"b_id": match_id, "b_doc": setup["map"], "b_name": setup.get("map_name")})
    if maps:
        bind.execute(
            sa.update(_match)
            .where(_match.c.id == sa.bindparam("b_id"))
            .values(
                map_doc=sa.bindparam("b_doc", type_=sa.JSON),
                map_name=sa.bindparam("b_name", type_=sa.String),
            ),
            maps,
        )

    with op.batch_alter_table("round") as batch:
        batch.drop_column("acting")
        batch.drop_column("title")
    with op.batch_alter_table("seat") as batch:
        batch.drop_column("data")

    def alter_match(batch: BatchOperations) -> None:
        batch.alter_column("map_doc", existing_type=sa.JSON(), nullable=False)
        batch.drop_column("setup")

    _rebuild_match(alter_match)
