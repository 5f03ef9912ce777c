"""notifications: ``match_notify`` (webhook, reminders), ``contact`` (a seat's
e-mail address) and ``outbox`` (messages waiting to be delivered)

New tables, and one new column, ``round.deadline_changes`` (how often an open
round's deadline moved; 0 for every round there is). A match made before this
migration has no row in ``match_notify`` and sends nothing until its seats give
an address.

Revision ID: 0003
Revises: 0002
"""

from __future__ import annotations

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("round", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column("deadline_changes", sa.Integer(), nullable=False, server_default="0")
        )
    op.create_table(
        "match_notify",
        sa.Column("match_id", sqlmodel.sql.sqltypes.AutoString(length=32), nullable=False),
        sa.Column("base_url", sqlmodel.sql.sqltypes.AutoString(length=500), nullable=False),
        sa.Column("webhook_url", sqlmodel.sql.sqltypes.AutoString(length=2000), nullable=True),
        sa.Column("webhook_secret", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=True),
        sa.Column("remind_before_hours", sa.JSON(), nullable=False),
        sa.ForeignKeyConstraint(["match_id"], ["match.id"]),
        sa.PrimaryKeyConstraint("match_id"),
    )
    op.create_table(
        "contact",
        sa.Column("match_id", sqlmodel.sql.sqltypes.AutoString(length=32), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("email", sqlmodel.sql.sqltypes.AutoString(length=254), nullable=True),
        sa.Column("unsubscribe_key", sqlmodel.sql.sqltypes.AutoString(length=64), nullable=False),
        sa.Column("unsubscribed", sa.Boolean(), nullable=False),
        sa.Column("updated_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(["match_id"], ["match.id"]),
        sa.PrimaryKeyConstraint("match_id", "seat"),
    )
    with op.batch_alter_table("contact", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_contact_unsubscribe_key"), ["unsubscribe_key"], unique=True
        )
    op.create_table(
        "outbox",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("match_id", sqlmodel.sql.sqltypes.AutoString(length=32), nullable=False),
        sa.Column("channel", sqlmodel.sql.sqltypes.AutoString(length=10), nullable=False),
        sa.Column("event", sqlmodel.sql.sqltypes.AutoString(length=20), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=True),
        sa.Column("recipient", sqlmodel.sql.sqltypes.AutoString(length=2000), nullable=False),
        sa.Column("subject", sqlmodel.sql.sqltypes.AutoString(length=300), nullable=False),
        sa.Column("body", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("message_id", sqlmodel.sql.sqltypes.AutoString(length=80), nullable=False),
        sa.Column("dedup_key", sqlmodel.sql.sqltypes.AutoString(length=200), nullable=True),
        sa.Column("status", sqlmodel.sql.sqltypes.AutoString(length=10), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("due_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.Column("claimed_until", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
        sa.Column("claimed_by", sqlmodel.sql.sqltypes.AutoString(length=80), nullable=True),
        sa.Column("last_error", sqlmodel.sql.sqltypes.AutoString(length=500), nullable=True),
        sa.Column("created_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.Column("sent_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
        sa.ForeignKeyConstraint(["match_id"], ["match.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("message_id"),
        sa.UniqueConstraint("dedup_key"),
    )
    with op.batch_alter_table("outbox", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_outbox_match_id"), ["match_id"], unique=False)
        batch_op.create_index(batch_op.f("ix_outbox_due_at"), ["due_at"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("outbox", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_outbox_due_at"))
        batch_op.drop_index(batch_op.f("ix_outbox_match_id"))
    op.drop_table("outbox")
    with op.batch_alter_table("contact", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_contact_unsubscribe_key"))
    op.drop_table("contact")
    op.drop_table("match_notify")
    with op.batch_alter_table("round", schema=None) as batch_op:
        batch_op.drop_column("deadline_changes")
