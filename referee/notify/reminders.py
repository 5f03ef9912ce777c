"""When a round's next reminder is due (issue 24): ``Round.remind_at``.

The sweep (``referee notify``) reads only rounds whose ``remind_at`` has come
(an index on ``(status, remind_at)``), so its cost follows the reminders due,
not the number of live matches. **Any code that changes ``Round.deadline``,
``Round.opened_at`` or a match's reminder lead times must set ``remind_at``
again** (``Referee._set_deadline`` / ``Referee._refresh_reminder`` do it).
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime, timedelta


def next_reminder(
    deadline: datetime | None,
    opened_at: datetime,
    leads: Iterable[float] | None,
    after: datetime | None = None,
) -> datetime | None:
    """The earliest reminder time of a round (its deadline less a lead time, not
    before the round opened: a 12-hour round gets no 24-hour reminder), later
    than ``after`` if given; None without a deadline or lead times.

    With ``after`` None (a round just opened, its deadline or lead times just
    changed) a time already past is kept: the next sweep looks at the round at
    once and queues what the reminder rules say is due now, as it always did."""
    if deadline is None or not leads:
        return None
    times = [deadline - timedelta(hours=float(h)) for h in leads]
    times = [t for t in times if t >= opened_at and (after is None or t > after)]
    return min(times, default=None)
