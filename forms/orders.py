"""What every order form shares, whatever the game: the number of the round it
was written for (so an order for a round that has since closed is refused),
and the generic order form of a game without web parts of its own: the order
as JSON in one text box, checked against its phase's schema and then by the
game's rules (see :mod:`referee.web.game`).

A game's own order forms (built per request, since they depend on the match)
subclass :class:`OrderBaseForm`; they live in the game's package.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from flask_wtf import FlaskForm
from wtforms import HiddenField, SelectChoice, TextAreaField


class OrderBaseForm(FlaskForm):  # type: ignore[misc]  # flask_wtf is untyped
    """Every order form: the CSRF token and the round it was written for."""

    round = HiddenField()


class JsonOrderForm(OrderBaseForm):
    """The order as JSON text: the value the API takes under the phase's key."""

    order = TextAreaField("Your order (JSON)")


def choices(pairs: Iterable[tuple[str, str]]) -> list[Any]:
    """``(value, label)`` pairs as the choices of a select field."""
    return [SelectChoice(value, label) for value, label in pairs]
