"""A match's state as the service stores and reads it, and the pure helpers it needs.

The types every layer reads (:class:`MatchState`, :class:`PulseFacts`,
:class:`Preview`, :class:`Created`), the service's own settings and their check
(:func:`check_settings`), and the small pure functions made from stored rows
(:func:`setup_of`, :func:`step_of`, :func:`game_settings`). This module imports
nothing from :mod:`referee.views` or the other ``referee.matches`` modules, so
that the views may read these types while the service's modules import the
views: nothing imports in a circle.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, NamedTuple

from referee import chain, clocks
from referee.chain import Head as ChainHead
from referee.errors import Problem, RuleError
from referee.models import Match, Order, Round, Seat
from referee.ruleset import GameState, Ruleset, Setup, Step

__all__ = [
    "MAX_DEADLINE_HOURS",
    "SERVICE_SETTINGS",
    "ChainHead",
    "Created",
    "MatchState",
    "Preview",
    "PulseFacts",
    "check_settings",
    "game_settings",
    "setting_keys",
    "setup_of",
    "step_of",
]

# the settings of every match, whatever its game (a game adds its own)
SERVICE_SETTINGS: dict[str, Any] = {
    "deadline_hours": 48,  # each round's deadline, from when it opens; 0 = no deadline
    "close_early": False,  # close a round as soon as every acting seat has an order
    # open the next round as soon as one closes (and the first at creation): the
    # match runs from first round to result with no host action (issue 14)
    "auto_open": False,
    # a clock per seat (issue 24, referee.clocks): {"bank_minutes", "add_minutes"} or None
    "clock": None,
}
MAX_DEADLINE_HOURS = 24 * 60


def setting_keys(rules: Ruleset) -> list[str]:
    """Every setting a match of ``rules`` has: the service's, then the game's."""
    return [*SERVICE_SETTINGS, *(s.key for s in rules.settings)]


def check_settings(raw: object, rules: Ruleset) -> dict[str, Any]:
    """A match's settings (the service's and its game's) with defaults filled
    in; every problem reported."""
    if raw is None:
        raw = {}
    if not isinstance(raw, Mapping):
        raise RuleError.single("settings/not_an_object", "'settings' must be an object")
    problems: list[Problem] = []
    out = dict(SERVICE_SETTINGS)
    known = setting_keys(rules)
    game = {s.key for s in rules.settings}
    try:
        out.update(rules.check_settings({k: v for k, v in raw.items() if k in game}))
    except RuleError as exc:
        problems.extend(exc.problems)
    for key, value in raw.items():
        if key in game:
            continue
        if key not in SERVICE_SETTINGS:
            problems.append(
                Problem(
                    "settings/unknown",
                    f"unknown setting '{key}' (known: {', '.join(known)})",
                    key,
                )
            )
        elif key == "deadline_hours":
            ok = isinstance(value, int | float) and not isinstance(value, bool)
            if not ok or not 0 <= value <= MAX_DEADLINE_HOURS:
                problems.append(
                    Problem(
                        "settings/bad_deadline",
                        f"the deadline must be a number of hours from 0 "
                        f"(no deadline) to {MAX_DEADLINE_HOURS}, not {value!r}",
                        key,
                    )
                )
            else:
                out[key] = value
        elif key == "clock":
            checked_clock, bad = clocks.check_clock(value)
            problems.extend(bad)
            out[key] = checked_clock
        elif not isinstance(value, bool):
            problems.append(
                Problem("settings/not_a_flag", f"'{key}' must be true or false, not {value!r}", key)
            )
        else:
            out[key] = value
    if (
        not problems
        and out.get("auto_open")
        and not out.get("deadline_hours")
        and not out.get("clock")
    ):
        problems.append(
            Problem(
                "schedule/no_deadline",
                "rounds that open by themselves need hours per round (a deadline) or a "
                "clock per player, not 0",
                "deadline_hours",
            )
        )
    if problems:
        raise RuleError(problems)
    return out


@dataclass(frozen=True)
class Created:
    match_id: str
    host_token: str
    player_tokens: dict[int, str]
    seed_sha256: str
    webhook_secret: str | None = None  # signs the match's webhook requests (issue 14)


@dataclass(frozen=True)
class PulseFacts:
    """What :meth:`Referee.pulse` reads: the match, its latest round (None before
    the first) and the seats that have sent an order in that round."""

    match: Match
    round: Round | None
    submitted: list[int]


@dataclass
class MatchState:
    """A snapshot of one match as stored: what views and posts are made from."""

    match: Match
    seats: list[Seat]
    rounds: list[Round]  # the rounds opened so far, in order
    orders: list[Order]
    ruleset: Ruleset = field(repr=False)
    # the heads of the match's hash chain (issue 27), in order; [] for a match
    # stored before chains (its pages say it has none)
    chain: list[ChainHead] = field(default_factory=list)

    @property
    def setup(self) -> Setup:
        return setup_of(self.match.setup, self.seats)

    def game_state(self) -> GameState:
        """The game after the closed rounds (at the start when none has closed)."""
        last = self.last_closed
        if last is not None:
            return GameState(self.setup, self.match.settings, last.number, last.result)
        setup, settings, seed = self.setup, self.match.settings, self.match.seed
        return GameState(setup, settings, 0, lambda: self.ruleset.replay(setup, settings, seed, []))

    def upcoming(self) -> list[Step]:
        """The steps not opened yet, as far as the game knows them now."""
        return [s for s in self.ruleset.upcoming(self.game_state()) if s.number > len(self.rounds)]

    @property
    def open_round(self) -> Round | None:
        if self.rounds and self.rounds[-1].status == "open":
            return self.rounds[-1]
        return None

    @property
    def last_closed(self) -> Round | None:
        closed = [r for r in self.rounds if r.status == "closed"]
        return closed[-1] if closed else None

    def orders_of(self, number: int) -> dict[int, Order]:
        return {o.seat: o for o in self.orders if o.round_number == number}

    @property
    def chain_head(self) -> str | None:
        """The latest head of the match's chain (None: it has no chain)."""
        return self.chain[-1].head if self.chain else None

    def round_heads(self) -> dict[int, str]:
        """Each closed round's own head: that of the entry its close wrote."""
        return {h.round: h.head for h in self.chain if h.kind == chain.ROUND and h.round}

    def corrections(self) -> dict[int, list[ChainHead]]:
        """Each corrected round's correction entries, in order (issue 27)."""
        out: dict[int, list[ChainHead]] = {}
        for h in self.chain:
            if h.kind == chain.CORRECTION and h.round:
                out.setdefault(h.round, []).append(h)
        return out


@dataclass(frozen=True)
class Preview:
    """What :meth:`Referee.preview` found: the match, its open round, and the
    round's resolution when every order of it was entered by the host (else
    None), as the host may see it (:meth:`referee.ruleset.Ruleset.preview`)."""

    state: MatchState
    round: Round
    result: Any


def game_settings(settings: Mapping[str, Any]) -> dict[str, Any]:
    """A match's settings without the service's (which the host may change)."""
    return {k: v for k, v in settings.items() if k not in SERVICE_SETTINGS}


def setup_of(match_setup: dict[str, Any], seats: Iterable[Any]) -> Setup:
    """A stored match's set-up from its ``setup`` column and its seat rows
    (ORM rows or Core rows with seat, name, garnets and data)."""
    return Setup(
        players=[
            {"seat": s.seat, "name": s.name, "garnets": s.garnets, **(s.data or {})}
            for s in sorted(seats, key=lambda s: s.seat)
        ],
        data=match_setup,
    )


def step_of(rnd: Round) -> Step:
    """A stored round as the step it was opened as."""
    return Step(rnd.number, rnd.phase, rnd.title, tuple(rnd.acting or ()))


class _OpenRound(NamedTuple):
    """What an order needs of a match's latest round."""

    number: int
    phase: str
    status: str
    deadline: datetime | None
    title: str
    acting: list[int]


class _Hint(NamedTuple):
    """What the last locked order of a match found, for the next one's guarded
    statement (PostgreSQL): what never changes while a round stays open."""

    ruleset: str
    settings: dict[str, Any]
    round: _OpenRound
