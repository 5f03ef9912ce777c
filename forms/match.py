"""Creating a match of any game: its name, its players, the settings every
match has and the game's own settings, built per game by :func:`create_match_form`.

The game's set-up fields (its ``setup_keys``, such as a board to play on) come
from the game's web part (:class:`referee.web.game.GameWeb.setup_fields`), so
nothing here knows any one game.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from flask_wtf import FlaskForm
from wtforms import (
    BooleanField,
    FieldList,
    Form,
    FormField,
    HiddenField,
    PasswordField,
    SelectField,
    StringField,
    SubmitField,
)

from forms.filters import strip
from forms.orders import choices
from referee.ruleset import Setting

# the fields of every create form: a game setting or set-up field may not use these names
RESERVED = frozenset(
    (
        "csrf_token",
        "game",
        "name",
        "players",
        "deadline_hours",
        "deadline_unit",
        "close_early",
        "admin_key",
        "create",
        "webhook_url",
        "remind_before_hours",
        "auto_open",
        "clock",
        "clock_bank",
        "clock_add",
    )
)


class PlayerForm(Form):  # type: ignore[misc]  # wtforms is untyped
    """One seat: a display name, a whole number of garnets and (on a server
    that sends e-mail) the player's address, which only that player gets
    e-mails at (issue 14)."""

    name = StringField("Name", filters=[strip])
    garnets = StringField("Garnets", default="0", filters=[strip])
    email = StringField("E-mail address (optional)", filters=[strip])


class CreateMatchForm(FlaskForm):  # type: ignore[misc]  # flask_wtf is untyped
    """What every create form has; :func:`create_match_form` adds the player
    rows and the game's own fields."""

    game = HiddenField()
    name = StringField("Match name", filters=[strip])
    deadline_hours = StringField("Deadline of each round", default="48", filters=[strip])
    # issue 24: short steps (a match in one sitting) as well as steps of hours or days
    deadline_unit = SelectField(
        "Unit of the deadline",
        choices=choices([("minutes", "minutes"), ("hours", "hours"), ("days", "days")]),
        default="hours",
        validate_choice=False,  # an unknown unit is refused by name (deadline_hours_of)
    )
    # issue 24: a clock per seat (referee.clocks), by speed profile or the host's own
    clock = SelectField(
        "Clock per player",
        choices=choices(
            [
                ("", "No clock"),
                ("live", "Live: 5 min + 1 min a step"),
                ("post", "By post: 2 days + 12 h a step"),
                ("custom", "My own (below)"),
            ]
        ),
        default="",
        validate_choice=False,  # an unknown choice is refused by name (clock_of)
    )
    clock_bank = StringField("My own: each player's bank, in minutes", default="", filters=[strip])
    clock_add = StringField(
        "My own: added at each step a player acts in, in minutes", default="", filters=[strip]
    )
    # issue 23: ticked by default, with the 48-hour deadline above, so that a
    # first match runs to its result without its host
    close_early = BooleanField(
        "Close a round as soon as every player who acts in it has sent an order", default=True
    )
    # issue 14: news of the match elsewhere, and rounds that run themselves
    webhook_url = StringField("Webhook URL (optional)", filters=[strip])
    remind_before_hours = StringField(
        "Reminders, in hours before the deadline", default="24, 2", filters=[strip]
    )
    auto_open = BooleanField("Open each round by itself", default=True)
    admin_key = PasswordField("Admin key of this server")
    create = SubmitField("Create the match")


def setting_field_name(setting: Setting) -> str:
    """The create form's field of a game setting: its key, unless that is one of
    the form's own names."""
    return f"setting_{setting.key}" if setting.key in RESERVED else setting.key


ChoiceLabel = Callable[[Setting, str], str]


def _plain_label(setting: Setting, choice: str) -> str:
    return choice


def setting_field(setting: Setting, choice_label: ChoiceLabel | None = None) -> Any:
    """A form field for a game setting: a checkbox for a flag, a select for a
    choice; for an order, one select per place (``<key>-0`` is the first), each
    offering every choice and starting at the default order; for names, one
    line per choice (``<key>-0`` names the first choice), empty for "keep the
    default". ``choice_label`` gives a choice's text in a select (by default
    the choice itself)."""
    label_of = choice_label or _plain_label
    if setting.kind == "flag":
        return BooleanField(setting.label, default=bool(setting.default))
    if setting.kind == "choice":
        return SelectField(
            setting.label,
            choices=choices((c, label_of(setting, c)) for c in setting.choices),
            default=setting.default,
            validate_choice=False,
        )
    if setting.kind == "order":
        default = [str(v) for v in setting.default or setting.choices]
        places = {
            str(i): SelectField(
                choices=choices((c, label_of(setting, c)) for c in setting.choices),
                default=value,
                validate_choice=False,
            )
            for i, value in enumerate(default)
        }
        return FormField(type("OrderPlaces", (Form,), places), setting.label, separator="-")
    given = setting.default if isinstance(setting.default, Mapping) else {}
    lines = {
        str(i): StringField(default=str(given.get(c, "")), filters=[strip])
        for i, c in enumerate(setting.choices)
    }
    return FormField(type("NameLines", (Form,), lines), setting.label, separator="-")


def create_match_form(
    seats: int,
    settings: tuple[Setting, ...] = (),
    extra: Mapping[str, Any] | None = None,
    labels: Mapping[str, str] | None = None,
    choice_label: ChoiceLabel | None = None,
) -> type[CreateMatchForm]:
    """The create form of a game: ``seats`` player rows, a field per game
    setting (``choice_label`` gives a setting's choice its text in a select),
    the game's set-up fields ``extra`` (unbound fields by name) and other
    ``labels`` for the shared fields (e.g. ``close_early``)."""
    fields: dict[str, Any] = {
        "players": FieldList(FormField(PlayerForm), min_entries=seats, max_entries=seats),
    }
    for key, label in (labels or {}).items():
        shared = getattr(CreateMatchForm, key)
        fields[key] = shared.field_class(label, *shared.args[1:], **shared.kwargs)
    for setting in settings:
        fields[setting_field_name(setting)] = setting_field(setting, choice_label)
    for key, value in (extra or {}).items():
        if key in RESERVED:
            raise ValueError(f"a game's set-up field may not be called {key!r}")
        fields[key] = value
    return type("GameCreateMatchForm", (CreateMatchForm,), fields)
