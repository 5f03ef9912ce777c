"""The small forms of issue 14's pages: a player's own e-mail address, and
"lost your private link?" on a match's public page. As everywhere in
:mod:`forms`, the fields only carry input: the service checks the address."""

from __future__ import annotations

from flask_wtf import FlaskForm
from wtforms import StringField, SubmitField

from forms.filters import strip


class EmailForm(FlaskForm):  # type: ignore[misc]  # flask_wtf is untyped
    """A seat's address on its own page: save a (new) address, or stop e-mails."""

    email = StringField("Your e-mail address", filters=[strip])
    save = SubmitField("Save my address")
    stop = SubmitField("Stop e-mails")


class LinkRequestForm(FlaskForm):  # type: ignore[misc]
    """ "Lost your private link?": the address the host entered for a seat."""

    email = StringField("Your e-mail address", filters=[strip])
