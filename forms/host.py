"""The host's small action forms on the dashboard."""

from __future__ import annotations

from flask_wtf import FlaskForm
from wtforms import BooleanField, SelectField, StringField

from forms.filters import strip

# the placeholder of the re-issue select: no link is chosen until the host picks one
CHOOSE = ""


class ActionForm(FlaskForm):  # type: ignore[misc]  # flask_wtf is untyped
    """A button that changes something (pause, close, reveal, ...): only the CSRF token."""


class ConfirmForm(ActionForm):
    """A button whose action cannot be undone (close a round now, reveal
    everything): it needs "I am sure" ticked, so a stray click does nothing.
    The view refuses the action when it is not ticked (not a validator: the
    message names the action)."""

    sure = BooleanField("I am sure")


class OpenRoundForm(FlaskForm):  # type: ignore[misc]
    """Open the next round, with the match's default deadline or one given here."""

    deadline = StringField("Deadline (UTC, e.g. 2026-12-01T18:00Z)", filters=[strip])
    hours = StringField("or hours from now", filters=[strip])


class DeadlineForm(FlaskForm):  # type: ignore[misc]
    """Change the open round's deadline (later or earlier), or remove it."""

    deadline = StringField("New deadline (UTC, e.g. 2026-12-01T18:00Z)", filters=[strip])
    hours = StringField("or hours from now", filters=[strip])
    no_deadline = BooleanField("No deadline (the round closes only when you close it)")


class ReissueForm(FlaskForm):  # type: ignore[misc]
    """A new secret link for the host or one seat; the old link stops working.
    The select starts on a "choose a link" placeholder (:data:`CHOOSE`), and
    "I am sure" must be ticked."""

    who = SelectField("Link to re-issue", validate_choice=False, default=CHOOSE)
    sure = BooleanField("I am sure: the old link stops working at once")


class ScheduleForm(FlaskForm):  # type: ignore[misc]
    """The match's schedule (issue 14): whether each round opens by itself as
    soon as the one before closes, and each round's hours (its deadline)."""

    auto_open = BooleanField("Open each round by itself")
    hours_per_round = StringField("Hours per round (the deadline of each round)", filters=[strip])
