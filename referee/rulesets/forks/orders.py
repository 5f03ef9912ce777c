"""K5: one seat's order in a draw or an invest step.

- draw step: ``{"keep": CARD}``, with the swap variant also
  ``{"swap": {"give": CARD, "take": CARD}, "keep": CARD}``;
- invest step: ``{"invest": CARD}`` in a match file, the card alone under the
  API's ``invest`` key.

Reading an order (:func:`read_draw`, :func:`read_invest`) checks its shape
and its cards' ids; checking it (:func:`check_draw`, :func:`check_invest`)
checks it against what the seat may name. Every refusal has a stable code;
its message names what was sent but never the cards the seat could name: the
host may enter an order for a seat and must not learn its cards from a
refusal (K11; the seat sees them on its page and as ``options``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from referee.errors import Problem, RuleError

from .cards import CARDS, EXAMPLE

DRAW, INVEST = "draw", "invest"
STEPS = (DRAW, INVEST)

# every code an order, or a match file's order, can be refused with
REFUSAL_CODES = frozenset(
    {
        "card/not_a_string",
        "card/unknown",
        "order/not_object",
        "order/missing_key",
        "order/extra_key",
        "order/wrong_step",
        "swap/not_allowed",
        "swap/not_object",
        "swap/missing_key",
        "swap/extra_key",
        "swap/same_card",
        "swap/give_not_drawn",
        "swap/take_not_invested",
        "keep/not_drawn",
        "keep/given",
        "invest/not_passed",
        "invest/not_in_hand",
        "step/not_acting",
    }
)


@dataclass(frozen=True)
class DrawOrder:
    """A draw step's order: the card kept, and the swap's cards (or None)."""

    keep: str
    give: str | None = None
    take: str | None = None

    @property
    def swap(self) -> dict[str, str] | None:
        if self.give is None or self.take is None:
            return None
        return {"give": self.give, "take": self.take}

    def as_json(self) -> dict[str, Any]:
        """The order as stored and written in a match file (canonical ids)."""
        out: dict[str, Any] = {"keep": self.keep}
        if self.swap is not None:
            out["swap"] = self.swap
        return out

    def held(self, drawn: Sequence[str]) -> list[str]:
        """The 3 cards after the swap: the drawn ones less ``give`` plus ``take``."""
        if self.give is None or self.take is None:
            return list(drawn)
        return [self.take if c == self.give else c for c in drawn]


def _card(raw: object, where: str) -> str | Problem:
    try:
        return CARDS.read_order_card(raw, EXAMPLE)
    except RuleError as exc:
        p = exc.problems[0]
        return Problem(p.code, f"{where}: {p.message}", where)


def _keys(raw: Mapping[Any, Any], wanted: Sequence[str], code: str, what: str) -> list[Problem]:
    """Missing and extra keys of an object that must have exactly ``wanted``."""
    problems = [
        Problem(f"{code}/missing_key", f"{what} has no '{key}'", key)
        for key in wanted
        if key not in raw
    ]
    extra = sorted(str(k) for k in raw if k not in wanted)
    if extra:
        problems.append(
            Problem(
                f"{code}/extra_key",
                f"{what} has {', '.join(repr(k) for k in extra)} besides "
                + " and ".join(f"'{k}'" for k in wanted),
                extra[0],
            )
        )
    return problems


def read_draw(raw: object, *, swap_allowed: bool) -> DrawOrder:
    """K5: a draw step's order object, its cards read; every problem of its
    shape in one RuleError."""
    if not isinstance(raw, Mapping):
        shown = "with the swap variant also 'swap'" if swap_allowed else "no other key"
        raise RuleError.single(
            "order/not_object",
            f'a draw step\'s order must be an object {{"keep": CARD}} ({shown}), not {raw!r}',
        )
    if "keep" not in raw and INVEST in raw:
        raise RuleError.single(
            "order/wrong_step", "names 'invest' in a draw step: write {\"keep\": CARD}", INVEST
        )
    problems: list[Problem] = []
    if "keep" not in raw:
        problems.append(Problem("order/missing_key", "has no 'keep': write {\"keep\": CARD}"))
    extra = sorted(str(k) for k in raw if k not in ("keep", "swap"))
    if extra:
        code = "order/wrong_step" if extra == [INVEST] else "order/extra_key"
        problems.append(
            Problem(code, f"has {', '.join(repr(k) for k in extra)} besides 'keep' and 'swap'")
        )
    keep = _card(raw["keep"], "keep") if "keep" in raw else None
    give = take = None
    if "swap" in raw:
        swap = raw["swap"]
        if not swap_allowed:
            problems.append(
                Problem("swap/not_allowed", "this match is played without the swap variant")
            )
        elif not isinstance(swap, Mapping):
            problems.append(
                Problem(
                    "swap/not_object",
                    f'\'swap\' must be an object {{"give": CARD, "take": CARD}}, not {swap!r}',
                    "swap",
                )
            )
        else:
            problems += _keys(swap, ("give", "take"), "swap", "'swap'")
            give = _card(swap["give"], "swap, give") if "give" in swap else None
            take = _card(swap["take"], "swap, take") if "take" in swap else None
    for card in (keep, give, take):
        if isinstance(card, Problem):
            problems.append(card)
    if isinstance(give, str) and give == take:
        problems.append(
            Problem("swap/same_card", f"the swap gives and takes the same card, {give}")
        )
    if isinstance(keep, str) and isinstance(give, str) and keep == give and give != take:
        problems.append(
            Problem(
                "keep/given",
                f"{keep} is the card given in the swap: keep one of the 3 cards after it",
                "keep",
            )
        )
    if problems:
        raise RuleError(problems)
    assert isinstance(keep, str)
    if isinstance(give, str) and isinstance(take, str):
        return DrawOrder(keep, give, take)
    return DrawOrder(keep)


def read_invest(raw: object) -> str:
    """K5: an invest step's card (the API's value of ``invest``)."""
    card = _card(raw, "invest")
    if isinstance(card, Problem):
        raise RuleError([card])
    return card


def read_invest_entry(raw: object) -> str:
    """A match file's invest order ``{"invest": CARD}``, its card read."""
    if not isinstance(raw, Mapping):
        raise RuleError.single(
            "order/not_object", f'an invest step\'s order must be {{"invest": CARD}}, not {raw!r}'
        )
    if INVEST not in raw:
        if "keep" in raw or "swap" in raw:
            raise RuleError.single(
                "order/wrong_step", "names 'keep' in an invest step: write {\"invest\": CARD}"
            )
        raise RuleError.single("order/missing_key", "has no 'invest': write {\"invest\": CARD}")
    extra = sorted(str(k) for k in raw if k != INVEST)
    if extra:
        raise RuleError.single(
            "order/wrong_step" if set(extra) <= {"keep", "swap"} else "order/extra_key",
            f"has {', '.join(repr(k) for k in extra)} besides 'invest'",
        )
    return read_invest(raw[INVEST])


def check_draw(order: DrawOrder, drawn: Sequence[str], investment: Sequence[str]) -> DrawOrder:
    """K5: ``give`` one of the 3 drawn cards, ``take`` an invested card, and
    ``keep`` one of the 3 cards after the swap."""
    problems: list[Problem] = []
    if order.give is not None and order.give not in drawn:
        problems.append(
            Problem(
                "swap/give_not_drawn",
                f"{order.give} was not drawn this turn: give one of the 3 cards drawn",
                "swap",
            )
        )
    if order.take is not None and order.take not in investment:
        problems.append(
            Problem(
                "swap/take_not_invested",
                f"{order.take} is not invested now: take one of the invested cards",
                "swap",
            )
        )
    if not problems and order.keep not in order.held(drawn):
        problems.append(
            Problem(
                "keep/not_drawn",
                f"{order.keep} is not one of this turn's 3 cards"
                + (" after the swap" if order.swap else "")
                + ": keep one of them",
                "keep",
            )
        )
    if problems:
        raise RuleError(problems)
    return order


def check_invest(card: str, options: Sequence[str], *, merge: bool) -> str:
    """K5: one of the 2 cards passed to the seat; with merge, any card of its
    hand once they were added (``options`` is what the seat may name)."""
    if card in options:
        return card
    if merge:
        raise RuleError.single(
            "invest/not_in_hand",
            f"{card} is not in this seat's hand (with the 2 cards passed to it): invest one "
            "of those",
        )
    raise RuleError.single(
        "invest/not_passed",
        f"{card} was not passed to this seat this turn: invest one of the 2 cards passed to it",
    )
