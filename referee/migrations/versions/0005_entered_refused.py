"""host-entered orders checked at the close: ``order.refused``

One new nullable column. A host-entered order is now checked against the
seat's private data only when its round closes (so the host learns nothing
from its being accepted); one that breaks the rules there is not used, and
``refused`` holds why (a JSON list of ``{"code", "message"}``). Every order
stored before this migration was checked in full when it was sent, so each is
left NULL: used.

Revision ID: 0005
Revises: 0004
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("order", schema=None) as batch_op:
        batch_op.add_column(sa.Column("refused", sa.JSON(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("order", schema=None) as batch_op:
        batch_op.drop_column("refused")
