"""a clock per seat (issue 24): ``seat.clock_bank`` and ``round.clocks``;
and ``order.first_sent_at``

``seat.clock_bank``: a seat's time bank in seconds after its last closed step,
for a match with the ``clock`` setting (null otherwise). ``round.clocks``: a
step's clocks (its fixed deadline and each acting seat's bank, end and time
left, :mod:`referee.clocks`), null without a clock. Matches stored before have
no clock: both stay null, and nothing else changes.

``order.first_sent_at``: when the seat first had an order in its round; a
replacement keeps it, so the host, who sees when a sealed order was sent,
never learns that it was replaced. Null for the orders stored before (as in
a backup written before): views then read ``submitted_at``, as they did.

Revision ID: 0010
Revises: 0009
"""

from __future__ import annotations

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision = "0010"
down_revision = "0009"
branch_labels = None
depends_on = None

_T = sqlmodel.sql.sqltypes.UTCDateTime


def upgrade() -> None:
    with op.batch_alter_table("seat", schema=None) as batch_op:
        batch_op.add_column(sa.Column("clock_bank", sa.Float(), nullable=True))
    with op.batch_alter_table("round", schema=None) as batch_op:
        batch_op.add_column(sa.Column("clocks", sa.JSON(), nullable=True))
    with op.batch_alter_table("order", schema=None) as batch_op:
        batch_op.add_column(sa.Column("first_sent_at", _T(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("order", schema=None) as batch_op:
        batch_op.drop_column("first_sent_at")
    with op.batch_alter_table("round", schema=None) as batch_op:
        batch_op.drop_column("clocks")
    with op.batch_alter_table("seat", schema=None) as batch_op:
        batch_op.drop_column("clock_bank")
