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
from referee.errors import Problem, RuleError

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
    value per card, reordered by dragging or the move buttons); ``rank`` is the
    rank box beside each card, in the same order (a changed number moves its
    card there, with or without JavaScript, see :func:`apply_ranks`);
    ``ranking_text`` is the plain text fallback (``J, T, S, ...``) and wins
    when it is not empty."""

    ranking = ListField("Your ranking")
    rank = ListField("Rank")
    ranking_text = TextAreaField("Or type your ranking")


def apply_ranks(cards: Sequence[str], ranks: Sequence[str]) -> list[str]:
    """The list ``cards`` after moving each card whose rank box (``ranks[i]``
    beside ``cards[i]``, 1-based) no longer shows its place to the place typed.

    Cards whose box is unchanged (or empty) keep their order; the moved ones
    are put at the ranks typed, lowest rank first (equal ranks: in list order),
    so one moved card always lands exactly where it was sent. A rank beyond the
    list moves the card to the end. Boxes that do not pair with the list (a
    form not made by the page) are ignored; a box that is not a whole number is
    refused, next to its card."""
    if len(ranks) != len(cards):
        return list(cards)
    problems: list[Problem] = []
    moved: list[tuple[int, int, str]] = []  # (rank typed, place in the list, card)
    kept: list[str] = []
    for i, (card, raw) in enumerate(zip(cards, ranks, strict=True)):
        text = raw.strip()
        if not text:
            kept.append(card)
            continue
        if not (text.isascii() and text.isdigit() and len(text) <= 4) or int(text) < 1:
            shown = text if len(text) <= 12 else text[:11] + "…"
            problems.append(
                Problem(
                    "draft/bad_rank",
                    f"the rank of card {card} must be a whole number from 1 to {len(cards)}, "
                    f"not “{shown}”",
                    str(i),
                )
            )
            continue
        rank = int(text)
        if rank == i + 1:
            kept.append(card)
        else:
            moved.append((rank, i, card))
    if problems:
        raise RuleError(problems)
    out = kept
    for rank, _, card in sorted(moved, key=lambda m: (m[0], -m[1])):
        out.insert(min(rank, len(out) + 1) - 1, card)
    return out


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
