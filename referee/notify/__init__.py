"""Notifications (issue 14): e-mail to seats, a match webhook, calendar feeds.

Messages are written to an outbox (:mod:`referee.notify.outbox`) in the same
transaction as the state change they tell of, and delivered later by
``referee notify`` (or the server's background sender): e-mail through SMTP
(:mod:`referee.notify.mail`), webhooks through HTTPS to public addresses only
(:mod:`referee.notify.webhook`). Calendars (:mod:`referee.notify.calendar`)
are read from the match as it is, like any page.
"""
