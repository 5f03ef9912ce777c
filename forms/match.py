"""Creating a match: its name, map, three players and settings."""

from __future__ import annotations

from flask_wtf import FlaskForm
from flask_wtf.file import FileField
from wtforms import (
    BooleanField,
    FieldList,
    Form,
    FormField,
    PasswordField,
    SelectField,
    StringField,
    SubmitField,
    TextAreaField,
)

SEAT_COUNT = 3


def _strip(value: object) -> object:
    return value.strip() if isinstance(value, str) else value


class PlayerForm(Form):  # type: ignore[misc]  # wtforms is untyped
    """One seat: a display name and a whole number of garnets (R1)."""

    name = StringField("Name", filters=[_strip])
    garnets = StringField("Garnets", default="0", filters=[_strip])


class CreateMatchForm(FlaskForm):  # type: ignore[misc]  # flask_wtf is untyped
    name = StringField("Match name", filters=[_strip])
    bundled_map = SelectField("Bundled map", validate_choice=False)
    map_file = FileField("Upload a map file (JSON)")
    map_json = TextAreaField("Or paste a map (JSON)")
    players = FieldList(FormField(PlayerForm), min_entries=SEAT_COUNT, max_entries=SEAT_COUNT)
    deadline_hours = StringField("Deadline of each round, in hours", default="48", filters=[_strip])
    publish_totals = BooleanField("Publish every slot total once mapping has closed")
    close_early = BooleanField("Close a round as soon as all three players have sent an order")
    admin_key = PasswordField("Admin key of this server")
    check_map = SubmitField("Check the map only")
    create = SubmitField("Create the match")
