"""Domain errors shared by every ruleset.

A rule violation is reported as a :class:`Problem` with a stable, namespaced
``code`` (``draft/duplicate_card``), a message for people that names the
offending input, and optionally the ``field`` it concerns (so a form can show
the message next to that field). Functions that check input collect every
problem they find and raise one :class:`RuleError` carrying all of them.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Problem:
    """One thing wrong with an input."""

    code: str
    message: str
    field: str | None = None

    def as_dict(self) -> dict[str, str]:
        out = {"code": self.code, "message": self.message}
        if self.field is not None:
            out["field"] = self.field
        return out


# at most this many problems are listed in one refusal (a hostile 100,000-entry
# order would otherwise get a reply of megabytes); the rest are counted in one more
MAX_PROBLEMS = 50
# and each message is cut to this many characters: a message that quotes the
# value it refuses (a validator's does) would otherwise be as long as the body
MAX_MESSAGE = 500


def _bounded(problem: Problem) -> Problem:
    if len(problem.message) <= MAX_MESSAGE:
        return problem
    left = len(problem.message) - MAX_MESSAGE
    more = f"{left} more character{'s' if left != 1 else ''}"
    cut = f"{problem.message[:MAX_MESSAGE]}... ({more} not shown)"
    return Problem(problem.code, cut, problem.field)


class RuleError(Exception):
    """An input breaks one or more rules; ``problems`` lists every one found,
    up to :data:`MAX_PROBLEMS`, then one ``problems/more`` saying how many more;
    each message cut to :data:`MAX_MESSAGE` characters."""

    def __init__(self, problems: Iterable[Problem]) -> None:
        found = tuple(_bounded(p) for p in problems)
        if not found:
            raise ValueError("RuleError needs at least one problem")
        if len(found) > MAX_PROBLEMS:
            more = len(found) - MAX_PROBLEMS
            found = (
                *found[:MAX_PROBLEMS],
                Problem(
                    "problems/more",
                    f"... and {more} more problem{'s' if more != 1 else ''} of the same input, "
                    f"not listed (only the first {MAX_PROBLEMS} are)",
                ),
            )
        self.problems: tuple[Problem, ...] = found
        super().__init__("; ".join(p.message for p in self.problems))

    @property
    def codes(self) -> list[str]:
        return [p.code for p in self.problems]

    @classmethod
    def single(cls, code: str, message: str, field: str | None = None) -> RuleError:
        return cls([Problem(code, message, field)])


def raise_if(problems: list[Problem]) -> None:
    """Raise a :class:`RuleError` when ``problems`` is not empty."""
    if problems:
        raise RuleError(problems)
