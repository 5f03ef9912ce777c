"""The small interface between the game-agnostic referee and one game's rules.

Matches, rounds, sealed orders, deadlines and views are the same for every
game; what differs is behind :class:`Ruleset`: how a match is set up, which
rounds it has, how an order is checked, how the closed rounds are resolved and
what each viewer may see of a result. Rocky River Riding is the first ruleset
(``referee.rulesets.rocky_river.ruleset``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from referee.errors import RuleError

JSON = Any
ViewerKind = Literal["public", "seat", "host"]


@dataclass(frozen=True, slots=True)
class Viewer:
    """Who is looking: the public, one seat, or the host."""

    kind: ViewerKind
    seat: int | None = None

    @classmethod
    def public(cls) -> Viewer:
        return cls("public")

    @classmethod
    def host(cls) -> Viewer:
        return cls("host")

    @classmethod
    def of_seat(cls, seat: int) -> Viewer:
        return cls("seat", seat)


@dataclass(frozen=True)
class Setup:
    """A checked match set-up: the map (as an object, and its bundled name if
    any) and the players (``{"seat", "name", "garnets"}`` each)."""

    map_doc: dict[str, Any]
    map_name: str | None
    players: list[dict[str, Any]]


class Ruleset(Protocol):
    """What the service layer, the CLI and the API need from a game."""

    name: str  # the match file's "ruleset" value, e.g. "rocky-river"
    title: str  # for people, e.g. "Rocky River Riding"
    seats: tuple[int, ...]

    def check_setup(self, map_ref: JSON, players: JSON) -> Setup:
        """Check a map (a bundled name or an object) and the players; every
        problem is reported in one :class:`RuleError`."""
        ...

    def round_phases(self, setup: Setup) -> list[str]:
        """The phase of each round, in order (e.g. draft, mapping, rafting, ...)."""
        ...

    def round_title(self, setup: Setup, number: int) -> str:
        """A short name for people, e.g. "Rafting 2"."""
        ...

    def document(
        self,
        setup: Setup,
        seed: str,
        closed: Sequence[Mapping[int, JSON | None]],
        host_entered: Sequence[Mapping[str, Any]] = (),
    ) -> JSON:
        """The match file for the closed rounds' orders (None: no order)."""
        ...

    def order_key(self, phase: str) -> str:
        """The name of a phase's kind of order in API bodies (e.g. "placements")."""
        ...

    def check_order(
        self,
        map_doc: JSON,
        round_number: int,
        seat: int,
        order: JSON,
        previous: Callable[[], JSON | None],
    ) -> JSON:
        """Check ``order`` for ``seat`` in round ``round_number`` (1-based) of a match
        on ``map_doc``; ``previous()`` gives, when needed, the detailed result stored
        when the round before closed (None for the first round). Return the order
        normalised, or raise :class:`RuleError` listing every problem."""
        ...

    def resolve(self, document: JSON, details: bool = False, *, stored: bool = False) -> JSON:
        """Resolve a match file; the result object, or :class:`RuleError`. With
        ``stored``, the file is one the service made of a match it holds: the
        admission limits of this version (sizes, ids, names) are not applied
        again, only the rules, so a match stored before an upgrade still resolves."""
        ...

    def visible(
        self,
        result: JSON,
        viewer: Viewer,
        *,
        settings: Mapping[str, Any],
        revealed: bool,
    ) -> JSON:
        """The part of a detailed ``result`` that ``viewer`` may see."""
        ...

    def post(self, public_view: dict[str, Any], fmt: str, base_url: str | None = None) -> str:
        """A ready-to-paste forum post ("markdown" or "bbcode") of a public view.
        With ``base_url`` (the server's absolute address, e.g. ``https://host/``)
        it also embeds the public pictures (``/matches/<id>/map.png`` and
        ``results.png``)."""
        ...

    def map_svg(self, view: dict[str, Any]) -> str:
        """The match's map as an SVG document, showing only what ``view`` (made by
        :func:`referee.views.view_for` for one viewer) carries."""
        ...

    def results_svg(self, view: dict[str, Any]) -> str | None:
        """The standings and score chart of ``view`` as an SVG document, or None
        while there is nothing to draw yet."""
        ...

    def summary(self, document: JSON) -> str:
        """A readable account of a resolved match file."""
        ...

    def audit(self, document: JSON, *, stored: bool = False) -> JSON:
        """For the host: the best each seat could have done, up to the last closed
        round (RuleError ``audit/...`` when the match is not far enough)."""
        ...

    def map_report(self, map_ref: JSON) -> JSON:
        """A checked map's balance and fairness, for a host choosing a map."""
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
