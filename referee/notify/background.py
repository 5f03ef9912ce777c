"""The server's own sender: ``referee serve --notify-every SECONDS`` runs what
``referee notify`` does (close due rounds, queue reminders, deliver the
outbox) in a background thread of each server process, every SECONDS. It is as
safe as several ``referee notify`` runs at once (see :mod:`referee.notify.outbox`),
so cron jobs on other machines may run beside it."""

from __future__ import annotations

import logging
import threading
from typing import TYPE_CHECKING

from referee.notify.outbox import deliver_due

if TYPE_CHECKING:
    from referee.service import Referee

log = logging.getLogger("referee.notify")


def notify_once(svc: Referee) -> str | None:
    """One run of ``referee notify``: a line saying what it did (None: nothing)."""
    closed = svc.close_due()
    reminders = svc.queue_reminders()
    report = deliver_due(svc.engine, svc.notify, clock=svc.clock)
    if not (closed or reminders or report.sent or report.retrying or report.failed):
        return None
    return f"closed {len(closed)} round(s), queued {reminders} reminder(s); {report.line()}"


def start(svc: Referee, every: float) -> threading.Event:
    """Start the sender thread; set the returned event to stop it."""
    stop = threading.Event()

    def run() -> None:
        while not stop.wait(every):
            try:
                line = notify_once(svc)
            except Exception:  # a database blip must not end the thread
                log.exception("the background sender failed; it tries again in %ss", every)
                continue
            if line is not None:
                log.info("%s", line)

    threading.Thread(target=run, name="referee-notify", daemon=True).start()
    return stop
