"""The small interface between the game-agnostic referee and one game's rules.

Matches, rounds, sealed orders, deadlines and views are the same for every
game; what differs is behind :class:`Ruleset`: which rounds a match has, how an
order is checked, and how a match file is resolved. Rocky River Riding is the
first ruleset (``referee.rulesets.rocky_river.ruleset``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from referee.errors import RuleError

JSON = Any


class Ruleset(Protocol):
    """What the service layer, the CLI and the API need from a game."""

    name: str  # the match file's "ruleset" value, e.g. "rocky-river"
    title: str  # for people, e.g. "Rocky River Riding"

    def round_phases(self, document: JSON) -> list[str]:
        """The phase of each round of a match, in order (e.g. draft, mapping, rafting...)."""
        ...

    def check_order(self, document: JSON, round_number: int, seat: int, order: JSON) -> JSON:
        """Check ``order`` for ``seat`` in round ``round_number`` (1-based) of the
        match whose closed rounds are ``document`` (a match file); return it
        normalised, or raise :class:`RuleError` listing every problem."""
        ...

    def resolve(self, document: JSON) -> JSON:
        """Resolve a match file; the result object, or :class:`RuleError`."""
        ...

    def summary(self, document: JSON) -> str:
        """A readable account of a resolved match file."""
        ...


_REGISTRY: dict[str, Callable[[], Ruleset]] = {}


def register(name: str, factory: Callable[[], Ruleset]) -> None:
    _REGISTRY[name] = factory


def get_ruleset(name: object) -> Ruleset:
    """The ruleset called ``name``, or a :class:`RuleError` naming the known ones."""
    _load_builtin()
    if not isinstance(name, str) or name not in _REGISTRY:
        known = ", ".join(sorted(_REGISTRY))
        raise RuleError.single(
            "match/unknown_ruleset", f"ruleset {name!r} is not known (known: {known})"
        )
    return _REGISTRY[name]()


def _load_builtin() -> None:
    if not _REGISTRY:
        from referee.rulesets.rocky_river.ruleset import RockyRiver

        register(RockyRiver.name, RockyRiver)
