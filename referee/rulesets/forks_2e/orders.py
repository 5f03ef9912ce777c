"""F5: one seat's order in a keep or a market step.

An order is a card id (the value of ``{"keep": CARD}`` or ``{"market": CARD}``);
it must name a card the seat may name in that step. Every refusal has a stable
code; its message names the card sent but never the cards the seat could name:
the host may enter an order for a seat, and must not learn its deal from a
refusal (F11; the seat sees its cards on its page and as ``options``).
"""

from __future__ import annotations

from collections.abc import Sequence

from referee.errors import Problem, RuleError

from .cards import CARDS

KEEP, MARKET = "keep", "market"
STEPS = (KEEP, MARKET)

# every code an order or a match file's orders can be refused with
REFUSAL_CODES = frozenset(
    {
        "card/not_a_string",
        "card/unknown",
        "keep/not_dealt",
        "market/not_passed",
        "market/not_in_hand",
        "order/not_object",
        "order/missing_key",
        "order/extra_key",
        "order/wrong_step",
    }
)


def read_order_card(raw: object) -> str:
    """F2: the canonical id an order names, or a refusal (not a string, unknown)."""
    return CARDS.read_order_card(raw, "blue-7x")


def check_keep(raw: object, dealt: Sequence[str]) -> str:
    """F5: a card of the three dealt to the seat this game round."""
    card = read_order_card(raw)
    if card not in dealt:
        raise RuleError.single(
            "keep/not_dealt",
            f"{card} was not dealt to this seat this game round: keep one of the three cards "
            "dealt to it",
        )
    return card


def check_market(raw: object, options: Sequence[str], *, merge: bool) -> str:
    """F5: one of the two cards passed to the seat; with merge, any card of its
    hand once those two were added (``options`` is what the seat may name)."""
    card = read_order_card(raw)
    if card not in options:
        if merge:
            raise RuleError.single(
                "market/not_in_hand",
                f"{card} is not in this seat's hand (with the two cards passed to it): "
                "market one of those",
            )
        raise RuleError.single(
            "market/not_passed",
            f"{card} was not passed to this seat this game round: market one of the two "
            "cards passed to it",
        )
    return card


def order_card(raw: object, step: str) -> str | Problem:
    """The card of an order object of a match file (``{"keep": CARD}`` in a keep
    step), read but not yet checked against the deal; or what is wrong with it."""
    other = MARKET if step == KEEP else KEEP
    if not isinstance(raw, dict):
        return Problem("order/not_object", f'must be an object {{"{step}": CARD}}, not {raw!r}')
    if step not in raw:
        if other in raw:
            return Problem(
                "order/wrong_step", f"names '{other}' in a {step} step: write {{\"{step}\": CARD}}"
            )
        return Problem("order/missing_key", f"has no '{step}': write {{\"{step}\": CARD}}")
    extra = sorted(str(k) for k in raw if k != step)
    if extra:
        what = f"the key of a {other} step" if extra == [other] else "keys"
        return Problem(
            "order/extra_key" if extra != [other] else "order/wrong_step",
            f"has {what} {', '.join(repr(k) for k in extra)} besides '{step}'",
        )
    try:
        return read_order_card(raw[step])
    except RuleError as exc:
        return exc.problems[0]
