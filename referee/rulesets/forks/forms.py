"""Forks' order form for the web pages (K5): a draw step's kept card and,
with the swap variant, the card given and the card taken, in one order; an
invest step's card. The page draws the cards the seat may name as radio
inputs; the service checks the cards by the rules, so the form accepts any
text and reads no choices."""

from __future__ import annotations

from wtforms import StringField

from forms.orders import OrderBaseForm


class ForksForm(OrderBaseForm):
    """A draw step's ``card`` (kept), ``give`` and ``take`` (the swap, both
    empty for none); an invest step's ``card`` (invested)."""

    card = StringField("Card")
    give = StringField("Give")
    take = StringField("Take")
