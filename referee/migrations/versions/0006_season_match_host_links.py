"""season matches' host links derived from the season's: ``episode.*_host_issue``

Two new integer columns, 0 by default. A season's Main and Death Match host
links are derived (an HMAC of the server's key, the season host link's digest,
the match and this number), so the season host page can always reach them; the
number counts the times the season host took a match's host link back (a new
one), so each re-issue derives a link never given out before. A match made
before this migration has a random host link: its episode's number stays 0, and
the season host page offers to re-issue it (which makes it 1, derived).

Revision ID: 0006
Revises: 0005
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("episode", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("main_host_issue", sa.Integer(), nullable=False, server_default="0")
        )
        batch_op.add_column(
            sa.Column("death_host_issue", sa.Integer(), nullable=False, server_default="0")
        )


def downgrade() -> None:
    with op.batch_alter_table("episode", schema=None) as batch_op:
        batch_op.drop_column("death_host_issue")
        batch_op.drop_column("main_host_issue")
