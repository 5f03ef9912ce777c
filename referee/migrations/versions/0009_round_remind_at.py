"""the sweep follows the work due (issue 24): ``round.remind_at`` and the
indexes of the sweep's questions

``remind_at``: when an open round's next reminder is due (null: none), so that
``referee notify`` reads only the rounds due a reminder instead of every open
round (:mod:`referee.notify.reminders`). Filled here for the open rounds of
matches not paused, from their deadline and lead times, as if just set: a time
already past makes the next sweep look at the round at once, which queues what
was due before (never twice: reminders are deduplicated as before).

Indexes: ``(status, deadline)`` (open rounds past their deadline),
``(status, remind_at)`` (open rounds due a reminder), and the outbox's
``(status, due_at)`` (pending messages due): each question then reads the rows
it answers with, not the closed rounds or sent messages of the past.

Independent of 0008 (per-seat clocks, written in parallel): it touches neither
its columns nor its tables' other parts.

Revision ID: 0009
Revises: 0007
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from typing import Any

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision = "0009"
down_revision = "0007"
branch_labels = None
depends_on = None

_T = sqlmodel.sql.sqltypes.UTCDateTime


def _aware(value: Any) -> datetime | None:
    if value is None:
        return None
    if isinstance(value, str):
        value = datetime.fromisoformat(value)
    return value if value.tzinfo is not None else value.replace(tzinfo=UTC)


def upgrade() -> None:
    with op.batch_alter_table("round", schema=None) as batch_op:
        batch_op.add_column(sa.Column("remind_at", _T(), nullable=True))
        batch_op.create_index("ix_round_status_deadline", ["status", "deadline"])
        batch_op.create_index("ix_round_status_remind_at", ["status", "remind_at"])
    with op.batch_alter_table("outbox", schema=None) as batch_op:
        batch_op.create_index("ix_outbox_status_due_at", ["status", "due_at"])
    bind = op.get_bind()
    rows = bind.execute(
        sa.text(
            "SELECT r.match_id, r.number, r.deadline, r.opened_at, n.remind_before_hours "
            "FROM round r JOIN match m ON m.id = r.match_id "
            "JOIN match_notify n ON n.match_id = r.match_id "
            "WHERE r.status = 'open' AND r.deadline IS NOT NULL "
            "AND m.paused_at IS NULL AND NOT m.finished"
        )
    ).all()
    rounds = sa.table(
        "round",
        sa.column("match_id", sa.String),
        sa.column("number", sa.Integer),
        sa.column("remind_at", _T()),
    )
    for match_id, number, deadline, opened_at, leads in rows:
        if isinstance(leads, str):
            leads = json.loads(leads)
        deadline, opened_at = _aware(deadline), _aware(opened_at)
        assert deadline is not None and opened_at is not None
        times = [deadline - timedelta(hours=float(h)) for h in leads or []]
        due = min((t for t in times if t >= opened_at), default=None)
        if due is not None:
            bind.execute(
                rounds.update()
                .where(rounds.c.match_id == match_id, rounds.c.number == number)
                .values(remind_at=due)
            )


def downgrade() -> None:
    with op.batch_alter_table("outbox", schema=None) as batch_op:
        batch_op.drop_index("ix_outbox_status_due_at")
    with op.batch_alter_table("round", schema=None) as batch_op:
        batch_op.drop_index("ix_round_status_remind_at")
        batch_op.drop_index("ix_round_status_deadline")
        batch_op.drop_column("remind_at")
