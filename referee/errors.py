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


class RuleError(Exception):
    """An input breaks one or more rules; ``problems`` lists every one found."""

    def __init__(self, problems: Iterable[Problem]) -> None:
        self.problems: tuple[Problem, ...] = tuple(problems)
        if not self.problems:
            raise ValueError("RuleError needs at least one problem")
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
