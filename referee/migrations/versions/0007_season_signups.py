"""season sign-ups (issue 23, item 7): ``season.signups_open``,
``season.signup_hash`` and ``season_player.joined_at``

A season's sign-up link is derived (an HMAC of the server's key and the season
host link's digest, :func:`referee.signups.signup_token`), never stored in
clear: ``signup_hash`` keeps its SHA-256 (as every link), so that the link can
be looked up, from the first time sign-ups are opened. ``signups_open`` says
whether the link takes new players now (false by default: a season made before
this migration has no sign-ups). ``joined_at``: when a player joined through
the link (null for a roster player the host typed).

Revision ID: 0007
Revises: 0006
"""

from __future__ import annotations

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None

_S = sqlmodel.sql.sqltypes.AutoString
_T = sqlmodel.sql.sqltypes.UTCDateTime


def upgrade() -> None:
    with op.batch_alter_table("season", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("signups_open", sa.Boolean(), nullable=False, server_default=sa.false())
        )
        batch_op.add_column(sa.Column("signup_hash", _S(length=64), nullable=True))
        batch_op.create_index("ix_season_signup_hash", ["signup_hash"], unique=True)
    with op.batch_alter_table("season_player", schema=None) as batch_op:
        batch_op.add_column(sa.Column("joined_at", _T(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("season_player", schema=None) as batch_op:
        batch_op.drop_column("joined_at")
    with op.batch_alter_table("season", schema=None) as batch_op:
        batch_op.drop_index("ix_season_signup_hash")
        batch_op.drop_column("signup_hash")
        batch_op.drop_column("signups_open")
