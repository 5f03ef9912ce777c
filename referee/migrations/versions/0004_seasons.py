"""seasons: ``season``, ``season_player``, ``ledger_entry`` and ``episode``

New tables only; no existing row changes.

Revision ID: 0004
Revises: 0003
"""

from __future__ import annotations

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None

_S = sqlmodel.sql.sqltypes.AutoString
_T = sqlmodel.sql.sqltypes.UTCDateTime


def upgrade() -> None:
    op.create_table(
        "season",
        sa.Column("id", _S(length=32), nullable=False),
        sa.Column("name", _S(length=200), nullable=False),
        sa.Column("host_token_hash", _S(length=64), nullable=False),
        sa.Column("rules", sa.JSON(), nullable=False),
        sa.Column("created_at", _T(), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("season", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_season_host_token_hash"), ["host_token_hash"], unique=True
        )
    op.create_table(
        "season_player",
        sa.Column("season_id", _S(length=32), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("name", _S(length=100), nullable=False),
        sa.Column("email", _S(length=254), nullable=True),
        sa.Column("token_hash", _S(length=64), nullable=False),
        sa.Column("eliminated_in", sa.Integer(), nullable=True),
        sa.ForeignKeyConstraint(["season_id"], ["season.id"]),
        sa.PrimaryKeyConstraint("season_id", "number"),
    )
    with op.batch_alter_table("season_player", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_season_player_token_hash"), ["token_hash"], unique=True
        )
    op.create_table(
        "ledger_entry",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("season_id", _S(length=32), nullable=False),
        sa.Column("player", sa.Integer(), nullable=False),
        sa.Column("change", sa.Integer(), nullable=False),
        sa.Column("reason", _S(length=200), nullable=False),
        sa.Column("episode", sa.Integer(), nullable=True),
        sa.Column("match_id", _S(length=32), nullable=True),
        sa.Column("created_at", _T(), nullable=False),
        sa.Column("entered_by", _S(length=10), nullable=False),
        sa.Column("corrects", sa.Integer(), nullable=True),
        sa.ForeignKeyConstraint(["season_id"], ["season.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    with op.batch_alter_table("ledger_entry", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_ledger_entry_season_id"), ["season_id"], unique=False)
    op.create_table(
        "episode",
        sa.Column("season_id", _S(length=32), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("main_match_id", _S(length=32), nullable=True),
        sa.Column("main_seats", sa.JSON(), nullable=False),
        sa.Column("token_holder", sa.Integer(), nullable=True),
        sa.Column("candidate", sa.Integer(), nullable=True),
        sa.Column("recorded_at", _T(), nullable=True),
        sa.Column("token_used", sa.Boolean(), nullable=False),
        sa.Column("opponent", sa.Integer(), nullable=True),
        sa.Column("death_match_id", _S(length=32), nullable=True),
        sa.Column("death_seats", sa.JSON(), nullable=False),
        sa.Column("loser", sa.Integer(), nullable=True),
        sa.Column("loser_by", _S(length=10), nullable=True),
        sa.Column("created_at", _T(), nullable=False),
        sa.ForeignKeyConstraint(["season_id"], ["season.id"]),
        sa.PrimaryKeyConstraint("season_id", "number"),
    )


def downgrade() -> None:
    op.drop_table("episode")
    with op.batch_alter_table("ledger_entry", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_ledger_entry_season_id"))
    op.drop_table("ledger_entry")
    with op.batch_alter_table("season_player", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_season_player_token_hash"))
    op.drop_table("season_player")
    with op.batch_alter_table("season", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_season_host_token_hash"))
    op.drop_table("season")
