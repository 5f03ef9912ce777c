"""Order validation for the three kinds of order (R5, R7, R8).

Each ``check_*`` function takes an order as it arrived (from a form, the API or
a match file), reports every problem it has in one :class:`RuleError`, and
otherwise returns it normalised to canonical ids. ``field`` in a problem is
relative to the order: a list index (``"4"``) or a card id (``"J"``).
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping

from referee.errors import Problem, RuleError
from referee.text import typed

from .cards import Deck
from .mapping import legal_values
from .river_map import RiverMap

DIRECTIONS = {"L": "L", "R": "R", "LEFT": "L", "RIGHT": "R"}
_CANONICAL_DIRECTIONS = frozenset(("L", "R"))
_SEPARATORS = re.compile(r"[,;\n\t]+")


def split_list(text: str) -> list[str]:
    """Split what a person typed (``J, T, S`` or one per line) into entries."""
    return [part.strip() for part in _SEPARATORS.split(text) if part.strip()]


def split_words(text: str) -> list[str]:
    """Split ``L R L`` or ``L,R,L`` into entries."""
    return [part for part in re.split(r"[\s,;]+", text) if part]


def _show(value: object) -> str:
    """What was sent, for a message: text as typed (quoted, bounded, its
    controls written out), anything else (from the API or a file) as Python
    shows it, bounded too."""
    if isinstance(value, str):
        return typed(value)
    text = repr(value)
    return text if len(text) <= 40 else text[:39] + "…"


def _blank(value: object) -> bool:
    return value is None or (isinstance(value, str) and not value.strip())


def check_draft(raw: object, deck: Deck) -> list[str]:
    """R5: a priority list naming every card exactly once."""
    if not isinstance(raw, list):
        raise RuleError.single(
            "draft/not_a_list",
            f"a draft order is a list of all {len(deck)} cards, not {_show(raw)}",
        )
    try:  # fast path: every card once, written canonically (the ids it shares with
        # the deck are all of them: nothing unknown, nothing repeated)
        count = len(deck.ids)
        if len(raw) == count and len(deck.id_set.intersection(raw)) == count:
            return list(raw)
    except TypeError:  # an entry that is not a string (a list, an object)
        pass
    problems: list[Problem] = []
    first_at: dict[str, int] = {}
    out: list[str] = []
    for pos, entry in enumerate(raw, start=1):
        card = deck.canonical(entry)
        if card is None:
            what = "is empty" if _blank(entry) else f"is {_show(entry)}, which is not a card"
            problems.append(
                Problem(
                    "draft/unknown_card",
                    f"place {pos} of the ranking {what}: the cards are A to Z and AS",
                    str(pos - 1),
                )
            )
            continue
        if card in first_at:
            written = "" if entry == card else f" (written {_show(entry)} there)"
            problems.append(
                Problem(
                    "draft/duplicate_card",
                    f"card {card} is listed twice in the ranking, at places {first_at[card]} "
                    f"and {pos}{written}",
                    str(pos - 1),
                )
            )
            continue
        first_at[card] = pos
        out.append(card)
    missing = [c for c in deck.ids if c not in first_at]
    if missing:
        problems.append(
            Problem(
                "draft/missing_card",
                f"the ranking must list all {len(deck)} cards; missing: {', '.join(missing)}",
            )
        )
    if problems:
        raise RuleError(problems)
    return out


def check_placements(
    raw: object, hand: Collection[str], deck: Deck, river: RiverMap
) -> dict[str, str]:
    """R7: every card of ``hand`` on one branch whose slot colour it has."""
    if not isinstance(raw, (dict, Mapping)):  # dict first: no ABC check in the usual case
        raise RuleError.single(
            "mapping/not_an_object",
            f"a placement order maps each card in hand to a branch id, not {_show(raw)}",
        )
    values = legal_values(deck, river)
    try:  # fast path: exactly the hand, canonical ids, legal branches (set operations in C)
        if raw.keys() == set(hand) and raw.items() <= values.keys():
            return dict(raw)
    except TypeError:  # a branch that is not a string (a list, an object)
        pass
    problems: list[Problem] = []
    out: dict[str, str] = {}
    written: dict[str, str] = {}
    for key, branch_id in raw.items():
        card = deck.canonical(key)
        field = str(key)
        if card is None:
            problems.append(
                Problem(
                    "mapping/unknown_card",
                    f"{_show(key)} is not a card: the cards are A to Z and AS",
                    field,
                )
            )
            continue
        field = card
        if card in written:
            problems.append(
                Problem(
                    "mapping/duplicate_card",
                    f"card {card} is placed twice (as {_show(written[card])} and {_show(key)})",
                    field,
                )
            )
            continue
        written[card] = str(key)
        if card not in hand:
            problems.append(
                Problem("mapping/card_not_in_hand", f"card {card} is not in your hand", field)
            )
            continue
        branch = river.branches.get(branch_id) if isinstance(branch_id, str) else None
        if branch is None:
            problems.append(
                Problem(
                    "mapping/unknown_branch",
                    f"card {card}: {_show(branch_id)} is not a branch of the map "
                    f"{typed(river.name)}: choose one of its branches",
                    field,
                )
            )
            continue
        if deck.by_id[card].value_for(branch.color) is None:
            problems.append(
                Problem(
                    "mapping/color_mismatch",
                    f"card {deck.by_id[card].describe()} has no {branch.color} face for "
                    f"branch {branch.id} ({branch.color} slot)",
                    field,
                )
            )
            continue
        out[card] = branch.id
    missing = deck.sort(c for c in hand if c not in written)
    if missing:
        problems.append(
            Problem(
                "mapping/missing_card",
                f"all {len(hand)} cards in hand must be placed; not placed: {', '.join(missing)}",
            )
        )
    if problems:
        raise RuleError(problems)
    return out


def check_votes(raw: object, count: int) -> list[str]:
    """R8: exactly ``count`` directions, each L or R (``left``/``right`` too, any case)."""
    if not isinstance(raw, list):
        raise RuleError.single(
            "rafting/not_a_list",
            f'a rafting order is a list of {count} directions such as ["L", "R", "L"], '
            f"not {_show(raw)}",
        )
    try:  # fast path: exactly L and R, right count
        if len(raw) == count and _CANONICAL_DIRECTIONS.issuperset(raw):
            return list(raw)
    except TypeError:  # an entry that is not a string
        pass
    problems: list[Problem] = []
    out: list[str] = []
    for pos, entry in enumerate(raw, start=1):
        direction = DIRECTIONS.get(entry.strip().upper()) if isinstance(entry, str) else None
        if direction is None:
            # the form's words: "Fork 1", "Left", "Right" (L and R are read too)
            sent = "" if _blank(entry) else f" ({_show(entry)} is not a direction)"
            problems.append(
                Problem(
                    "rafting/bad_direction",
                    f"fork {pos}: choose left or right{sent}",
                    str(pos - 1),
                )
            )
        else:
            out.append(direction)
    if len(raw) != count:
        problems.append(
            Problem(
                "rafting/wrong_count",
                f"a rafting order has one direction per fork of the round: {count}, not {len(raw)}",
            )
        )
    if problems:
        raise RuleError(problems)
    return out
