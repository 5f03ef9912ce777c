"""the hash chain of each match's public record (issue 27): ``chain_entry``

A new table: one row per entry of a match's chain (:mod:`referee.chain`), the
start written with the match, then one per closed round. Matches stored before
have no entry, and get none: their rounds closed before any head was published,
so none could be made now that a post from then would check. Their pages say
they have no chain, and ``referee verify`` reports it.

Revision ID: 0011
Revises: 0010
"""

from __future__ import annotations

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision = "0011"
down_revision = "0010"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "chain_entry",
        sa.Column("match_id", sqlmodel.sql.sqltypes.AutoString(length=32), nullable=False),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("kind", sqlmodel.sql.sqltypes.AutoString(length=20), nullable=False),
        sa.Column("round_number", sa.Integer(), nullable=True),
        sa.Column("body", sa.JSON(), nullable=False),
        sa.Column("head", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("created_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(["match_id"], ["match.id"]),
        sa.PrimaryKeyConstraint("match_id", "position"),
    )


def downgrade() -> None:
    op.drop_table("chain_entry")
