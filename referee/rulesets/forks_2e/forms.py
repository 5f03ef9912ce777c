"""Forks 2nd Edition's order form for the web pages: one card, named by its id
(F5). The page draws the cards the seat may name as cards to pick (radio
inputs); the host, who never sees an open keep step's dealt cards (F11),
names the card from a list of every card in play. The service checks the card
by the rules, so the form accepts any text and reads no choices.
"""

from __future__ import annotations

from wtforms import StringField

from forms.orders import OrderBaseForm


class CardForm(OrderBaseForm):
    """The card a seat keeps or markets (its canonical id, any case)."""

    card = StringField("Card")
