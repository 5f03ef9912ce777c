"""a clock per seat (issue 24): ``seat.clock_bank`` and ``round.clocks``

``seat.clock_bank``: a seat's time bank in seconds after its last closed step,
for a match with the ``clock`` setting (null otherwise). ``round.clocks``: a
step's clocks (its fixed deadline and each acting seat's bank, end and time
left, :mod:`referee.clocks`), null without a clock. Matches stored before have
no clock: both stay null, and nothing else changes.

Revision ID: 0010
Revises: 0009
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("seat", schema=None) as batch_op:
        batch_op.add_column(sa.Column("clock_bank", sa.Float(), nullable=True))
    with op.batch_alter_table("round", schema=None) as batch_op:
        batch_op.add_column(sa.Column("clocks", sa.JSON(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("round", schema=None) as batch_op:
        batch_op.drop_column("clocks")
    with op.batch_alter_table("seat", schema=None) as batch_op:
        batch_op.drop_column("clock_bank")
