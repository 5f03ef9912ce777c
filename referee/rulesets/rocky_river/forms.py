"""Rocky River's own forms for the web pages: an order form per phase (the
draft ranking, placements, votes) and the create form's map fields.

The mapping and rafting forms depend on the match (the cards in hand, the
forks of a segment), so they are built per request by :func:`mapping_form`
and :func:`rafting_form`. Every order form carries the number of the round it
was made for (:class:`forms.orders.OrderBaseForm`), so an order for a round
that has since closed is refused.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from flask_wtf.file import FileField
from wtforms import Field, RadioField, SelectChoice, SelectField, SubmitField, TextAreaField
from wtforms.widgets import HiddenInput

from forms.orders import OrderBaseForm, choices

DIRECTION_CHOICES = [SelectChoice("L", "Left"), SelectChoice("R", "Right")]


class ListField(Field):  # type: ignore[misc]  # wtforms is untyped
    """Every value sent under one name, in the order sent (a drag-sorted list)."""

    widget = HiddenInput()

    def process_formdata(self, valuelist: list[str]) -> None:
        self.data = [str(v) for v in valuelist]

    def _value(self) -> str:
        return ""


class DraftForm(OrderBaseForm):
    """R5: all 27 cards, most wanted first. ``ranking`` is the ordered list (one
    value per card, reordered by dragging); ``ranking_text`` is the plain text
    fallback (``J, T, S, ...``) and wins when it is not empty."""

    ranking = ListField("Your ranking")
    ranking_text = TextAreaField("Or type your ranking")


def place_field(card: str) -> str:
    """The name of the field that places ``card``."""
    return f"place_{card}"


def vote_field(index: int) -> str:
    """The name of the field of the ``index``-th (0-based) fork's direction."""
    return f"vote_{index}"


def mapping_form(cards: Sequence[tuple[str, str, Sequence[tuple[str, str, str]]]]) -> type[Any]:
    """A placement form: one select per ``(card, label, [(branch_id, label, group), ...])``;
    the branches are grouped (``<optgroup>``) by ``group``, e.g. their fork."""
    fields: dict[str, Any] = {
        place_field(card): SelectField(
            label,
            choices=[
                SelectChoice("", "choose a branch"),
                *[SelectChoice(value, text, optgroup=group) for value, text, group in choices],
            ],
            validate_choice=False,
        )
        for card, label, choices in cards
    }
    return type("MappingForm", (OrderBaseForm,), fields)


def rafting_form(count: int) -> type[Any]:
    """A rafting form: one left/right choice for each of the segment's ``count`` forks."""
    fields: dict[str, Any] = {
        vote_field(k): RadioField(f"Fork {k + 1}", choices=DIRECTION_CHOICES, validate_choice=False)
        for k in range(count)
    }
    return type("RaftingForm", (OrderBaseForm,), fields)


def map_fields(names: Sequence[str], default: str) -> dict[str, Any]:
    """The create form's map fields: a bundled map (``names``), an uploaded file
    or pasted JSON, and the "check the map only" button."""
    return {
        "bundled_map": SelectField(
            "Bundled map",
            choices=choices((n, n) for n in names),
            default=default,
            validate_choice=False,
        ),
        "map_file": FileField("Upload a map file (JSON)"),
        "map_json": TextAreaField("Or paste a map (JSON)"),
        "check_map": SubmitField("Check the map only"),
    }
