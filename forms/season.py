"""The season pages' forms (issue 15): creating a season, and the host's and
the players' small forms. Choices of players are filled in by the view from
:func:`referee.seasons.views.season_view` (never from rows); what a form cannot
check (a player still in, an opponent that may be chosen) the service refuses
in plain words."""

from __future__ import annotations

from flask_wtf import FlaskForm
from wtforms import (
    BooleanField,
    FieldList,
    Form,
    FormField,
    HiddenField,
    PasswordField,
    RadioField,
    SelectField,
    StringField,
)

from forms.filters import strip
from forms.orders import choices

# the roster rows the create page shows (a blank row is left out); ?rows= asks for more,
# up to MAX_ROSTER_ROWS (a season's most players, referee.seasons.rules.MAX_PLAYERS): a post
# of more rows is refused before any form is built (referee.web.season_pages.new)
ROSTER_ROWS = 8
MAX_ROSTER_ROWS = 64
TOKEN_LASTS_CHOICES = choices([("episode", "one episode"), ("until_used", "until used")])


class RosterRowForm(Form):  # type: ignore[misc]  # wtforms is untyped
    """One season player: a name, starting garnets and an optional address."""

    name = StringField("Name", filters=[strip])
    garnets = StringField("Starting garnets", default="0", filters=[strip])
    email = StringField("E-mail address (optional)", filters=[strip])


class NewSeasonForm(FlaskForm):  # type: ignore[misc]  # flask_wtf is untyped
    """A season: its name, its rules and its roster."""

    name = StringField("Season name", filters=[strip])
    token_bonus = StringField(
        "Token of Life bonus (garnets, 0 to 100)", default="0", filters=[strip]
    )
    token_lasts = RadioField(
        "A Token of Life lasts", choices=TOKEN_LASTS_CHOICES, default="episode"
    )
    players = FieldList(
        FormField(RosterRowForm), min_entries=ROSTER_ROWS, max_entries=MAX_ROSTER_ROWS
    )
    # issue 23, item 7: players join by the season's sign-up link (the roster may be empty)
    signups = BooleanField(
        "Open sign-ups: players join by a link you post (the roster may be empty)"
    )
    # shown and checked only on a server with an admin key (REFEREE_ADMIN_KEY), as on /new
    admin_key = PasswordField("Admin key of this server")


class SeasonActionForm(FlaskForm):  # type: ignore[misc]
    """A button that changes the season (record an outcome, spend a token): the CSRF token."""


class EntryForm(FlaskForm):  # type: ignore[misc]
    """The host's ledger entry (or a correction naming the entry it puts right)."""

    player = SelectField("Player", validate_choice=False)
    change = StringField("Change (garnets, e.g. +3 or -2)", filters=[strip])
    reason = StringField("Reason", filters=[strip])
    corrects = StringField("Corrects entry # (optional)", filters=[strip])


class LoserForm(FlaskForm):  # type: ignore[misc]
    """The result of a Death Match not played here: who won, who lost ("I am
    sure"); each choice's value is the loser's number."""

    loser = RadioField("The result", validate_choice=False, coerce=str)
    sure = BooleanField("I am sure: the loser is eliminated (this cannot be undone)")


class DeathResultForm(FlaskForm):  # type: ignore[misc]
    """Recording a Death Match played here ("I am sure", as for an entered one)."""

    sure = BooleanField("I am sure: the loser is eliminated (this cannot be undone)")


class ReissueForm(FlaskForm):  # type: ignore[misc]
    """The host re-issues a player's season link ("I am sure")."""

    player = SelectField("Player", validate_choice=False)
    sure = BooleanField(
        "I am sure: the player's old season link, and the match links it gave, stop working"
    )


class MatchHostForm(FlaskForm):  # type: ignore[misc]
    """The season host re-issues a season match's host link ("I am sure")."""

    match = HiddenField()
    sure = BooleanField("I am sure: the match's old host link stops working")


class OpponentForm(FlaskForm):  # type: ignore[misc]
    """The Elimination Candidate's choice of opponent."""

    opponent = RadioField("Your opponent", validate_choice=False, coerce=str)


# ---- sign-ups (issue 23, item 7; referee.seasons.signups) ---------------------------------


class JoinForm(FlaskForm):  # type: ignore[misc]
    """A player joins a season by its sign-up link: a name, and an address only
    where the server sends mail (the page shows that field then)."""

    name = StringField("Your name in the season", filters=[strip])
    email = StringField("Your e-mail address (optional)", filters=[strip])


class SignupsForm(FlaskForm):  # type: ignore[misc]
    """The host opens (``open`` = "1") or closes ("0") the season's sign-ups."""

    open = StringField("Open", filters=[strip])


class RemovePlayerForm(FlaskForm):  # type: ignore[misc]
    """The host removes a player before the first Main Match."""

    player = StringField("Player", filters=[strip])
