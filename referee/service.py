"""The service layer: every state change of a match, each in one transaction.

Web pages, the JSON API and the CLI are thin and call :class:`Referee`. Each
method that changes state opens its own transaction and first locks the match
(``SELECT ... FOR UPDATE`` on PostgreSQL; SQLite transactions start with
``BEGIN IMMEDIATE``), so hosts, players and ``close-due`` processes on several
machines serialise per match: an order racing a close either lands before it or
is refused with ``round/closed``, and closing twice resolves once.

Nothing here knows the rules of a game: the match's :class:`Ruleset` checks
orders and resolves rounds.

This module is the facade: :class:`Referee` is composed of one class per
concern, each a mixin of the shared base, in the package ``referee.matches``
(issue 28, "One room per concern"):

- :mod:`referee.matches.state`: the state types every layer reads
  (:class:`MatchState`, :class:`PulseFacts`, :class:`Preview`,
  :class:`Created`), the service's settings and their check, and pure
  helpers (:func:`setup_of`, :func:`step_of`); it imports no other module of
  the package, nor the views, which read it.
- :mod:`referee.matches.core`: the base (:class:`~referee.matches.core.Core`):
  engine, clock, notification settings, caches, reading state, token look-up,
  locking, and the internals several concerns call (chain append, queueing
  messages, setting a deadline, replaying stored orders).
- :mod:`referee.matches.lifecycle`: creating a match, opening and closing
  rounds, deadlines, pause and resume, the schedule, ``close_due``, the reveal.
- :mod:`referee.matches.orders`: :meth:`Referee.submit_order` and its locked
  path, and the host's preview; :mod:`referee.matches.guarded`, the base of
  its class: PostgreSQL's guarded one-statement order path.
- :mod:`referee.matches.contacts`: news settings, e-mail addresses, secret
  links (re-issued, lost and redeemed), unsubscribing, the outbox, reminders.
- :mod:`referee.matches.records`: export, audit, recheck and corrections.

The names other modules import from here are re-exported below.
"""

from __future__ import annotations

# moved to referee.chain (issue 27); still importable from here
from referee.chain import canonical_json, receipt_for
from referee.matches.contacts import Contacts
from referee.matches.core import AUDIT_CACHE_SIZE, HINTS_CACHE_SIZE, new_token, token_hash
from referee.matches.lifecycle import MAX_GARNETS, Lifecycle
from referee.matches.orders import Orders
from referee.matches.records import Records
from referee.matches.state import (
    MAX_DEADLINE_HOURS,
    SERVICE_SETTINGS,
    ChainHead,
    Created,
    MatchState,
    Preview,
    PulseFacts,
    check_settings,
    game_settings,
    setting_keys,
    setup_of,
    step_of,
)

__all__ = [
    "AUDIT_CACHE_SIZE",
    "HINTS_CACHE_SIZE",
    "MAX_DEADLINE_HOURS",
    "MAX_GARNETS",
    "SERVICE_SETTINGS",
    "ChainHead",
    "Created",
    "MatchState",
    "Preview",
    "PulseFacts",
    "Referee",
    "canonical_json",
    "check_settings",
    "game_settings",
    "new_token",
    "receipt_for",
    "setting_keys",
    "setup_of",
    "step_of",
    "token_hash",
]


class Referee(Lifecycle, Orders, Contacts, Records):
    """Every state change of every match goes through here."""
