"""The interface between the game-agnostic referee and one game's rules.

Matches, rounds (here called *steps*), sealed orders, deadlines, views, pages,
the API, the CLI and storage are the same for every game. What differs is
behind :class:`Ruleset`, one per game, each in its own package under
``referee/rulesets/<game>/`` (its pages under ``templates/rulesets/<game>/``).

The model is the verifiable one of the match file: a match is its **set-up**
(players, settings and the game's own set-up data, such as a map) plus a
**seed** plus the **orders of each closed step**; everything else is replayed.

- :meth:`Ruleset.replay` gives the game state after the closed steps (the
  ruleset's own JSON, the "detailed result"); with no closed step it is the
  state at the start (cards already dealt, for a game that deals).
- :meth:`Ruleset.upcoming` gives the steps still to come, as far as they are
  known now (at least the next one); each :class:`Step` says its phase, title
  and the seats that act (all of them for a simultaneous step, one for a turn).
  The number of steps may depend on play. Each :class:`Phase` gives the JSON
  Schema of its orders, from which the API checks bodies and the OpenAPI
  document's per-game parts are made.
- :meth:`Ruleset.check_order` checks one seat's order with stable error codes.
- :meth:`Ruleset.view` is the game's part of what one viewer may see, including
  a seat's ``options`` in the open step; :func:`referee.views.view_for` stays
  the one gate every page, answer and post goes through.

The game's web parts (order form, set-up form, page sections, pictures) are
in :mod:`referee.rulesets.<game>.web` (see :class:`referee.web.game.GameWeb`),
its command-line tools in ``cli_commands``; the engine itself imports neither
Flask, SQL nor click.

``docs/adding-a-game.md`` walks through a small game written against this.
"""

from __future__ import annotations

import importlib
import json
import os
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from types import ModuleType
from typing import Any, ClassVar, Literal

from referee.errors import Problem, RuleError
from referee.text import ONE_LINE_RULE, line_fault, typed

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
    """A checked match set-up: the players (``{"seat", "name", "garnets"}``
    each, seats 1..n, plus any per-seat data the game keeps) and the game's own
    set-up data (Rocky River: its map), as :meth:`Ruleset.check_setup` made it."""

    players: list[dict[str, Any]]
    data: dict[str, Any] = field(default_factory=dict)

    @property
    def seats(self) -> tuple[int, ...]:
        return tuple(int(p["seat"]) for p in self.players)


@dataclass(frozen=True)
class Phase:
    """A kind of step of a game (e.g. Rocky River's "draft"): the API body key
    its orders come under (``order_key``), the JSON Schema of that key's value
    (``schema``: the shape only; :meth:`Ruleset.check_order` says the rest; an
    ``x-code`` in it is the refusal code of a value without that shape)."""

    name: str
    order_key: str
    schema: dict[str, Any]


@dataclass(frozen=True)
class Step:
    """One step (a referee round) of a match: ``number`` from 1, its ``phase``
    (a :class:`Phase` name), a ``title`` for people ("Rafting 2") and the seats
    ``acting`` in it (all of them in a simultaneous step, one in a turn)."""

    number: int
    phase: str
    title: str
    acting: tuple[int, ...]


class GameState:
    """A game's state after ``closed`` steps, for checking orders and views.
    ``data`` (the ruleset's detailed result, see :meth:`Ruleset.replay`) is
    read only when something needs it: checking most orders needs none."""

    def __init__(
        self,
        setup: Setup,
        settings: Mapping[str, Any],
        closed: int,
        data: JSON | Callable[[], JSON],
    ) -> None:
        self.setup = setup
        self.settings = settings
        self.closed = closed
        self._data = data

    @cached_property
    def data(self) -> JSON:
        return self._data() if callable(self._data) else self._data


@dataclass(frozen=True)
class Demo:
    """A match to try a game with (``referee demo --game NAME``): what
    :meth:`referee.service.Referee.create_match` takes, and orders by seat for
    each step, to play the first ones from."""

    name: str
    setup: dict[str, Any]
    players: list[dict[str, Any]]
    settings: dict[str, Any]
    steps: list[dict[int, JSON]]
    # the match's seed: a game whose orders depend on a secret deal needs a known
    # one for its demo orders to be legal; None gives a random seed, as for a match
    seed: str | None = None


SettingKind = Literal["flag", "choice", "order", "names"]


@dataclass(frozen=True)
class Setting:
    """One of a game's settings, for checking and for forms.

    - ``flag``: true or false;
    - ``choice``: one of ``choices``;
    - ``order``: every one of ``choices``, once each, in an order;
    - ``names``: an object from some of ``choices`` to display names (1 line each).
    """

    key: str
    label: str
    kind: SettingKind
    default: Any
    choices: tuple[str, ...] = ()
    help: str = ""


def check_game_settings(specs: Sequence[Setting], raw: Mapping[str, Any]) -> dict[str, Any]:
    """The values of ``specs`` in ``raw`` (defaults for the missing ones); every
    problem in one :class:`RuleError`. Keys not in ``specs`` are not looked at."""
    out: dict[str, Any] = {}
    problems: list[Problem] = []
    for spec in specs:
        if spec.key not in raw:
            out[spec.key] = spec.default
            continue
        value = raw[spec.key]
        fault = _setting_fault(spec, value)
        if fault is None:
            out[spec.key] = list(value) if spec.kind == "order" else value
        else:
            code = "settings/not_a_flag" if spec.kind == "flag" else f"settings/bad_{spec.kind}"
            problems.append(Problem(code, f"{spec.label}: {fault}", spec.key))
    if problems:
        raise RuleError(problems)
    return out


def _setting_fault(spec: Setting, value: Any) -> str | None:
    """What is wrong with ``value`` for ``spec``, in the create form's words (its
    label, each name by its destination); None: nothing."""
    shown = ", ".join(spec.choices)
    if spec.kind == "flag":
        return None if isinstance(value, bool) else f"must be true or false, not {_sent(value)}"
    if spec.kind == "choice":
        ok = isinstance(value, str) and value in spec.choices
        return None if ok else f"choose one of {shown}, not {_sent(value)}"
    if spec.kind == "order":
        ok = isinstance(value, list) and sorted(map(str, value)) == sorted(spec.choices)
        ok = ok and all(isinstance(v, str) for v in value)
        return None if ok else f"choose each of {shown} once, in any order"
    if not isinstance(value, Mapping):
        return f"must be an object from {shown} to names"
    seen: dict[str, str] = {}
    for key, name in value.items():
        if key not in spec.choices:
            return f"{_sent(key)} is not one of {shown}"
        if isinstance(name, str) and not name.strip():
            return f"the name for {key} is empty: a name is 1 to 40 characters on one line"
        if not isinstance(name, str) or len(name) > 40:
            return f"the name for {key}, {_sent(name)}, is not 1 to 40 characters on one line"
        bad = line_fault(name)
        if bad is not None:
            return f"the name for {key} holds {bad}: {ONE_LINE_RULE}"
        same = seen.setdefault(name.strip().casefold(), key)
        if same != key:
            return f"{same} and {key} have the same name, {_sent(name)}: each needs its own"
    return None


def _sent(value: object) -> str:
    """A value sent, for a message: text quoted and bounded (:func:`typed`),
    anything else (the API's) as Python writes it, bounded too."""
    if isinstance(value, str):
        return typed(value)
    text = repr(value)
    return text if len(text) <= 40 else text[:39] + "…"


class Ruleset(ABC):
    """What the service layer, the views, the API, the pages and the CLI need
    from a game. Subclasses set the class attributes and implement the
    abstract methods; the rest have defaults that suit most games."""

    name: ClassVar[str]  # the match file's "ruleset" value, e.g. "rocky-river"
    title: ClassVar[str]  # for people, e.g. "Rocky River Riding"
    min_players: ClassVar[int]
    max_players: ClassVar[int]
    phases: ClassVar[tuple[Phase, ...]]  # every kind of step the game has
    settings: ClassVar[tuple[Setting, ...]] = ()  # the game's own settings
    setup_keys: ClassVar[tuple[str, ...]] = ()  # create-body keys of the game's set-up
    # result keys the rules make public from the start although the seed draws
    # them (Forks: the initial marketing cards), so not secret like a deal
    public_from_seed: ClassVar[tuple[str, ...]] = ()
    web_module: ClassVar[str | None] = None  # "referee.rulesets.<game>.web"
    cli_module: ClassVar[str | None] = None  # a module with ``commands: list[click.Command]``

    # ---- set-up --------------------------------------------------------

    @abstractmethod
    def check_setup(self, body: Mapping[str, Any], players: Any) -> Setup:
        """Check the game's part of a create body (its ``setup_keys``) and the
        players; every problem in one :class:`RuleError`."""

    def check_settings(self, raw: Mapping[str, Any]) -> dict[str, Any]:
        """The game's settings from ``raw`` (defaults filled in): by default the
        typed :attr:`settings`; a game adds checks across settings here."""
        return check_game_settings(self.settings, raw)

    def setup_report(self, body: Mapping[str, Any]) -> JSON:
        """For a host choosing a set-up (Rocky River: a map's balance and
        fairness); None when the game has nothing to report."""
        return None

    # ---- play ----------------------------------------------------------

    @abstractmethod
    def document(
        self,
        setup: Setup,
        settings: Mapping[str, Any],
        seed: str | None,
        closed: Sequence[Mapping[int, JSON | None]],
        host_entered: Sequence[tuple[int, int]] = (),
    ) -> JSON:
        """The match file (docs/contracts/<game>/FORMAT.md) of the closed steps' orders,
        ``closed[i]``
        being step i+1's orders by seat (None or missing: no order), and
        ``host_entered`` the (step, seat) pairs whose order the host entered."""

    @abstractmethod
    def resolve(self, document: JSON, details: bool = False, *, stored: bool = False) -> JSON:
        """Resolve a match file; the result object, or :class:`RuleError`. With
        ``details``, the detailed result (the game state views are made from).
        With ``stored``, the file is one the service made of a match it holds:
        the admission limits of this version (sizes, ids, names) are not applied
        again, only the rules, so a match stored before an upgrade still resolves."""

    def replay(
        self,
        setup: Setup,
        settings: Mapping[str, Any],
        seed: str,
        closed: Sequence[Mapping[int, JSON | None]],
        host_entered: Sequence[tuple[int, int]] = (),
    ) -> JSON:
        """The game state (detailed result) after the closed steps; with none,
        the state at the start. Deterministic: the same arguments, the same state."""
        document = self.document(setup, settings, seed, closed, host_entered)
        return self.resolve(document, details=True, stored=True)

    @abstractmethod
    def upcoming(self, state: GameState) -> list[Step]:
        """The steps still to come after ``state.closed`` steps, as far as they
        are known now: the first is the next step; [] when the match is over."""

    def next_step(self, state: GameState) -> Step | None:
        """The next step, or None when the match is over."""
        steps = self.upcoming(state)
        return steps[0] if steps else None

    @abstractmethod
    def check_order(self, state: GameState, step: Step, seat: int, order: JSON) -> JSON:
        """Check ``seat``'s ``order`` (the value of its phase's ``order_key``) for the
        open ``step`` of a match in ``state``; the order normalised, or a
        :class:`RuleError` listing every problem with stable codes."""

    def check_entered_order(
        self, host_view: Mapping[str, Any], step: Step, seat: int, order: JSON
    ) -> JSON:
        """Check an order the **host** enters for ``seat`` in the open ``step``
        from ``host_view`` alone: the host's own view of the match now
        (:func:`referee.views.view_for` with the host as viewer), so that its
        being accepted or refused tells the host nothing it may not see (a
        seat's deal, its storage). The order normalised, or a
        :class:`RuleError`; its shape was checked against the phase's schema
        first.

        The service checks every host-entered order with :meth:`check_order`
        at the close: one that breaks the rules is not used (the seat gets the
        default for no order), and the host and the seat are told once the
        round has closed. Default: the order as sent, every rule left to the
        close; a game checks here what its host view shows (Rocky River: the
        cards and the map, which are public, and a seat's hand once its draft
        has closed) and says so in :meth:`checks_entered_in_full`."""
        return order

    def checks_entered_in_full(self, step: Step) -> bool:
        """Whether :meth:`check_entered_order` checks every rule of ``step``'s
        orders, so that an order the host entered and that was accepted is
        used as it is at the close. Only then may the host's preview of closing
        a step whose orders it entered resolve it (see
        :meth:`referee.service.Referee.preview`). Default: False."""
        return False

    def phase(self, name: str) -> Phase:
        """The phase called ``name``."""
        found = next((p for p in self.phases if p.name == name), None)
        if found is None:
            raise RuleError.single("round/unknown", f"{self.title} has no phase {name!r}")
        return found

    # ---- what people see ----------------------------------------------

    @abstractmethod
    def view(
        self,
        state: GameState,
        viewer: Viewer,
        *,
        revealed: bool,
        open_step: Step | None,
    ) -> dict[str, Any]:
        """The game's part of ``viewer``'s view: keys added to the shared view
        (``result`` at least: what the viewer may see of the state; a seat's
        ``options`` in ``open_step`` when the game has a finite choice there)."""

    def candidate_orders(
        self, state: GameState, step: Step, seat: int, view: Mapping[str, Any]
    ) -> list[JSON]:
        """Orders ``seat`` might send in the open ``step`` (not all legal, not
        all the legal ones: a sample that covers each kind of order the phase
        has), most typical first; ``view`` is the seat's own view
        (:meth:`view` with ``open_step``). The conformance suite plays from
        them (tests/test_conformance.py), and a tool may offer them. Default:
        made from the view's ``options``: an options list as one order and each
        item as one; an options object of non-empty lists, the first and the
        last choice of each key. A game whose orders are compound (Forks: a
        swap and a keep in one order) lists some of those here."""
        options = view.get("options")
        if isinstance(options, list):
            return [options, *options]
        lists = isinstance(options, Mapping) and all(
            isinstance(v, list) and v for v in options.values()
        )
        if lists and options:
            return [
                {k: v[0] for k, v in options.items()},
                {k: v[-1] for k, v in options.items()},
            ]
        return []

    def preview(self, before: GameState, after: GameState) -> JSON:
        """What the host's preview of closing the open step shows (see
        :meth:`referee.service.Referee.preview`, which resolves it only when the
        host entered every order of it): ``after`` is the state once it closed
        with those orders, ``before`` the state now. By default the host's view
        of ``after``; a game whose closing would show the host what it may not
        know before the step closes (Forks: the rest of a deal, the pile's next
        card) leaves that out."""
        return self.view(after, Viewer.host(), revealed=False, open_step=None)["result"]

    @abstractmethod
    def post(self, public_view: dict[str, Any], fmt: str, base_url: str | None = None) -> str:
        """A ready-to-paste forum post ("markdown" or "bbcode") of a public view;
        with ``base_url`` it embeds the public pictures."""

    def pictures(self) -> dict[str, Callable[[dict[str, Any]], str | None]]:
        """The match's pictures by name (``/matches/<id>/<name>.svg|png``): each
        draws an SVG document from a view (None: nothing to draw yet)."""
        return {}

    def picture_pending(self, name: str) -> str:
        """Why picture ``name`` is not drawn yet, for people."""
        return f"There is no {name} picture yet."

    # ---- tools ---------------------------------------------------------

    @abstractmethod
    def summary(self, document: JSON) -> str:
        """A readable account of a resolved match file."""

    def audit(self, document: JSON, *, stored: bool = False) -> JSON:
        """For the host: what each seat could have done better (RuleError
        ``audit/...`` when the game or the match does not allow it). An audit
        whose time budget ran out says ``"complete": false`` at its top level:
        the service keeps only complete audits (per match state)."""
        raise RuleError.single("audit/unavailable", f"{self.title} has no audit")

    def audit_text(self, document: JSON, *, stored: bool = False) -> str:
        """The audit in words, for people."""
        import json

        return json.dumps(self.audit(document, stored=stored), indent=1) + "\n"

    def demo(self, players: int | None = None) -> Demo:
        """A demo match (``players``: how many, when the game lets the host choose)."""
        raise RuleError.single("demo/unavailable", f"{self.title} has no demo match")

    def closed_steps(self, document: JSON) -> int:
        """How many closed steps a match file holds. Default: the length of its
        ``orders`` list, one entry per closed step (the turn-based games' match
        files); 0 without one."""
        orders = document.get("orders") if isinstance(document, Mapping) else None
        return len(orders) if isinstance(orders, list) else 0

    def openapi_components(self) -> dict[str, JSON]:
        """The game's own schemas for the OpenAPI document, by name (JSON Schema
        2020-12, as OpenAPI 3.1 takes it); they may refer to one another and to
        the document's shared ones (``{"$ref": "#/components/schemas/Seat"}``:
        ``Seat``, ``SeatKey``, ``Player``, ``Time``, ``Sha256``...). The document
        holds them prefixed with the game's name (Rocky River's ``Map`` as
        ``RockyRiverMap``). These names fill the game's parts of the API:

        - ``View``: an object schema of the keys :meth:`view` adds (``result``,
          ``options``...), its ``required`` and ``additionalProperties``;
        - ``Setup``: an object schema of the create body's :attr:`setup_keys`;
        - ``Result``: the ``result`` of a view, as a viewer may see it;
        - ``MatchFile``: the match file of :meth:`document` (``export``);
        - ``Audit``: what :meth:`audit` gives.

        The order bodies (from :attr:`phases`), settings (from :attr:`settings`)
        and players (from ``min_players``/``max_players``) are made without
        this. Default: none, so those parts are any JSON object. A game keeps
        them in ``openapi.json`` beside its adapter: :func:`schemas_beside`."""
        return {}


def public_result(rules: Ruleset, state: GameState) -> JSON:
    """The game's result as the public sees it in ``state``, before any full
    reveal: the public view's ``result`` (:func:`referee.views.view_for`), whose
    digest each round's entry of the match's chain holds (issue 27,
    :mod:`referee.chain`). No seat's options are in it, so it is the same
    whether the next step has opened or not."""
    return rules.view(state, Viewer.public(), revealed=False, open_step=None)["result"]


def schemas_beside(module_file: str) -> dict[str, JSON]:
    """The ``schemas`` of the ``openapi.json`` beside ``module_file`` (a
    ruleset adapter's ``__file__``): what its :meth:`Ruleset.openapi_components`
    returns."""
    text = Path(module_file).with_name("openapi.json").read_text(encoding="utf-8")
    schemas: dict[str, JSON] = json.loads(text)["schemas"]
    return schemas


def audit_beside(package: str, title: str) -> ModuleType:
    """The ``audit`` module of a ruleset's ``package`` (its adapter's
    ``__package__``), or ``audit/unavailable`` while that module is not there
    (an import error inside it is not hidden); ``title`` names the game."""
    name = f"{package}.audit"
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as exc:
        if exc.name != name:
            raise
        raise RuleError.single("audit/unavailable", f"{title} has no audit yet") from None


_REGISTRY: dict[str, Callable[[], Ruleset]] = {}
# the game of a match file or API body that names none: the first game's
# contract (docs/contracts/<game>/FORMAT.md, docs/contracts/rocky-river/API.md) predates the others
# and makes "ruleset" optional
DEFAULT_RULESET = "rocky-river"
_BUILTIN = {
    "rocky-river": "referee.rulesets.rocky_river.ruleset:RockyRiver",
    "forks-2e": "referee.rulesets.forks_2e.ruleset:Forks2e",
    "forks": "referee.rulesets.forks.ruleset:Forks",
    "forfort": "referee.rulesets.forfort.ruleset:Forfort",
    "fortune-famine": "referee.rulesets.fortune_famine.ruleset:FortuneFamine",
}


def register(name: str, factory: Callable[[], Ruleset]) -> None:
    """Make a ruleset known (the built-in games register themselves; tests add theirs)."""
    _REGISTRY[name] = factory


def unregister(name: str) -> None:
    _REGISTRY.pop(name, None)


def ruleset_names() -> list[str]:
    _load_builtin()
    return sorted(_REGISTRY)


def get_ruleset(name: object) -> Ruleset:
    """The ruleset called ``name``, or a :class:`RuleError` naming the known ones."""
    _load_builtin()
    if not isinstance(name, str) or name not in _REGISTRY:
        known = ", ".join(sorted(_REGISTRY))
        raise RuleError.single(
            "match/unknown_ruleset", f"ruleset {name!r} is not known (known: {known})"
        )
    return _REGISTRY[name]()


def ruleset_named_in(document: object) -> Ruleset:
    """The ruleset a match file or create body names in ``"ruleset"``
    (:data:`DEFAULT_RULESET` when it names none; a document that is not an
    object is left to that ruleset's own reader to refuse)."""
    if not isinstance(document, dict):
        return get_ruleset(DEFAULT_RULESET)
    return get_ruleset(document.get("ruleset", DEFAULT_RULESET))


# more games, from outside the package: ``name=module:Class`` entries, comma
# separated (the tests register their toy game in every server they start this way)
EXTRA_RULESETS_ENV = "REFEREE_EXTRA_RULESETS"


def _extra_rulesets() -> dict[str, str]:
    out: dict[str, str] = {}
    for entry in os.environ.get(EXTRA_RULESETS_ENV, "").split(","):
        name, _, where = entry.strip().partition("=")
        if name and ":" in where:
            out[name.strip()] = where.strip()
    return out


def _load_builtin() -> None:
    for name, where in {**_BUILTIN, **_extra_rulesets()}.items():
        if name not in _REGISTRY:
            module, cls = where.split(":", 1)
            register(name, getattr(importlib.import_module(module), cls))
