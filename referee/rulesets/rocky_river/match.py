"""A whole match: the match file of docs/contracts/rocky-river/FORMAT.md, and resolving it rule by
rule.

:func:`parse_match` checks the file's structure (players, seed, which rounds
have closed) and :func:`resolve` checks every order against the rules and
applies R5-R10, returning a :class:`Resolution`. :func:`result_json` turns
that into the exact result that ``referee resolve --json`` prints.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple, cast

from referee.errors import Problem, RuleError
from referee.matchfile import check_seed
from referee.names import names_fine
from referee.players import Player
from referee.players import parse_players as parse_players_of

from .cards import Deck
from .data import load_bundled_map, load_deck
from .draft import Conflict, garnet_order, run_draft
from .mapping import slot_totals
from .orders import check_draft, check_placements, check_votes
from .rafting import Step, raft_round, scores_and_control
from .result import Elimination, elimination_candidate, token_of_life
from .river_map import SEATS, RiverMap, is_int, parse_map
from .seeded import default_draft, default_placements, default_votes

RULESET = "rocky-river"
PHASES = ("draft", "mapping", "rafting")


class Defaulted(NamedTuple):
    """A seat that had no order when a round closed (R10)."""

    phase: str
    seat: int
    round: int | None = None  # the rafting round, for phase "rafting"

    def as_dict(self) -> dict[str, object]:
        out: dict[str, object] = {"phase": self.phase}
        if self.round is not None:
            out["round"] = self.round
        out["seat"] = self.seat
        return out

    def sort_key(self) -> tuple[int, int, int]:
        return (PHASES.index(self.phase), self.round or 0, self.seat)


class HostEntry(NamedTuple):
    phase: str
    seat: int
    round: int | None = None


Orders = dict[int, Any]  # seat -> the order as written, None when the seat had none


class MatchSpec(NamedTuple):
    """A match file, structurally checked; orders are checked by :func:`resolve`."""

    river: RiverMap
    map_name: str | None  # the bundled map's name, or None for a map given inline
    players: tuple[Player, ...]
    seed: str
    draft: Orders
    placements: Orders | None  # None: the mapping round has not closed
    votes: tuple[Orders, ...] | None  # one entry per closed rafting round
    host_entered: tuple[HostEntry, ...] = ()

    @property
    def garnets(self) -> dict[int, int]:
        return {p.seat: p.garnets for p in self.players}


class Resolution(NamedTuple):
    spec: MatchSpec
    draft_lists: dict[int, list[str]]
    conflicts: tuple[Conflict, ...]
    hands: dict[int, list[str]]  # canonical order
    placements: dict[int, dict[str, str]] | None
    totals: dict[str, int] | None
    path: tuple[Step, ...] | None  # None until a rafting round closed
    scores: dict[int, int] | None
    control: dict[int, int] | None
    token_of_life: int | None
    elimination: Elimination | None  # only when every rafting round closed
    defaulted: tuple[Defaulted, ...]

    @property
    def finished(self) -> bool:
        return self.elimination is not None


_SEAT_KEYS = {"1": 1, "2": 2, "3": 3}


def _orders(raw: object, what: str, problems: list[Problem], index: int | None = None) -> Orders:
    """A ``{"1": order, "2": order, ...}`` object; a missing seat or null = no order.
    ``what`` (with ``index``, for an entry of a list) names it in problems."""
    if isinstance(raw, dict) and raw.keys() <= _SEAT_KEYS.keys():  # the usual case
        return {1: raw.get("1"), 2: raw.get("2"), 3: raw.get("3")}
    where = what if index is None else f"{what}[{index}]"
    if not isinstance(raw, Mapping):
        problems.append(
            Problem(
                "match/bad_orders",
                f'\'{where}\' must be an object keyed by seat "1", "2", "3"',
                where,
            )
        )
        return dict.fromkeys(SEATS)
    out: Orders = dict.fromkeys(SEATS)
    for key, order in raw.items():
        seat = _SEAT_KEYS.get(key)
        if seat is None:
            problems.append(
                Problem(
                    "match/unknown_seat",
                    f"'{where}' has an order for seat '{key}'; seats are 1, 2, 3",
                    where,
                )
            )
            continue
        out[seat] = order
    return out


def parse_match(doc: object, *, stored: bool = False) -> MatchSpec:
    """Check a match file's structure (docs/contracts/rocky-river/FORMAT.md); every problem is
    reported.

    ``stored=True`` is for a match the service already holds: it was admitted
    when it was created, perhaps by an earlier version of the referee with
    looser limits, so only what the rules need is checked (R1-R10), not the
    admission limits of this version (map size and ids, names that must be one
    line and unlike each other). A stored match keeps resolving after an upgrade."""
    if not isinstance(doc, (dict, Mapping)):  # dict first: no ABC check in the usual case
        raise RuleError.single("match/not_object", "a match file must be a JSON object")
    problems: list[Problem] = []

    def bad(code: str, message: str, field: str | None = None) -> None:
        problems.append(Problem(code, message, field))

    ruleset = doc.get("ruleset", RULESET)
    if ruleset != RULESET:
        bad(
            "match/unknown_ruleset",
            f"ruleset {ruleset!r} is not known; this file needs '{RULESET}'",
            "ruleset",
        )

    river: RiverMap | None = None
    map_name: str | None = None
    raw_map = doc.get("map")
    try:
        if isinstance(raw_map, str):
            river, map_name = load_bundled_map(raw_map), raw_map
        elif isinstance(raw_map, Mapping):
            river = parse_map(raw_map, limits=not stored)
        else:
            bad("match/bad_map", "'map' must be a bundled map's name or a map object", "map")
    except RuleError as exc:
        problems.extend(exc.problems)

    players = parse_players(doc.get("players"), bad, stored=stored)

    seed, seed_problems = check_seed(doc)
    problems.extend(seed_problems)

    if "draft" not in doc:
        bad(
            "match/no_draft",
            "'draft' is required: the draft orders, one per seat (null for none)",
            "draft",
        )
    draft = _orders(doc.get("draft", {}), "draft", problems)

    placements: Orders | None = None
    if doc.get("placements") is not None:
        placements = _orders(doc["placements"], "placements", problems)

    votes: tuple[Orders, ...] | None = None
    raw_votes = doc.get("votes")
    if raw_votes is not None:
        if placements is None:
            bad(
                "match/votes_without_placements",
                "'votes' is given but 'placements' is not: mapping closes before rafting",
                "votes",
            )
        if not isinstance(raw_votes, list):
            bad(
                "match/bad_votes",
                "'votes' must be a list with one entry per closed rafting round",
                "votes",
            )
        else:
            limit = river.segments if river is not None else None
            if limit is not None and len(raw_votes) > limit:
                bad(
                    "match/too_many_rounds",
                    f"'votes' has {len(raw_votes)} rafting rounds; the map has {limit} segments",
                    "votes",
                )
            votes = tuple(
                [
                    dict.fromkeys(SEATS) if entry is None else _orders(entry, "votes", problems, i)
                    for i, entry in enumerate(raw_votes)
                ]
            )

    host_entered = _host_entered(doc.get("host_entered", []), bad)

    if problems:
        raise RuleError(problems)
    assert river is not None and isinstance(seed, str)
    return MatchSpec(river, map_name, players, seed, draft, placements, votes, host_entered)


def parse_players(raw: object, bad: Any, *, stored: bool = False) -> tuple[Player, ...]:
    """R1: exactly three players, seats 1-3 once each, a name, garnets >= 0.

    A name is one line of plain text with something visible in it, and no two
    names of a match look alike (:mod:`referee.names`); not checked again for a
    ``stored`` match (see :func:`parse_match`)."""
    try:  # fast path: a well-formed list, seats in order
        x, y, z = cast(list[Any], raw)  # anything else fails below
        a = Player(x["seat"], x["name"], x["garnets"])
        b = Player(y["seat"], y["name"], y["garnets"])
        c = Player(z["seat"], z["name"], z["garnets"])
        if (
            (a.seat, b.seat, c.seat) == (1, 2, 3)
            and type(a.seat) is type(b.seat) is type(c.seat) is int
            and type(a.name) is type(b.name) is type(c.name) is str
            and (stored or names_fine((a.name, b.name, c.name)))
            and type(a.garnets) is type(b.garnets) is type(c.garnets) is int
            and min(a.garnets, b.garnets, c.garnets) >= 0
        ):
            return (a, b, c)
    except (TypeError, KeyError, ValueError):
        pass  # the checks below say what is wrong
    return parse_players_of(raw, bad, len(SEATS), len(SEATS), stored=stored)


def _host_entered(raw: object, bad: Any) -> tuple[HostEntry, ...]:
    if not isinstance(raw, list):
        bad(
            "match/bad_host_entered",
            "'host_entered' must be a list of {phase, seat} objects",
            "host_entered",
        )
        return ()
    out: list[HostEntry] = []
    for i, e in enumerate(raw):
        phase = e.get("phase") if isinstance(e, Mapping) else None
        seat = e.get("seat") if isinstance(e, Mapping) else None
        rnd = e.get("round") if isinstance(e, Mapping) else None
        if (
            phase not in PHASES
            or not is_int(seat)
            or seat not in SEATS
            or (rnd is not None and not is_int(rnd))
        ):
            bad(
                "match/bad_host_entered",
                f'host_entered[{i}] must be {{"phase": draft|mapping|rafting, "seat": 1-3}}',
                "host_entered",
            )
            continue
        out.append(HostEntry(phase, seat, rnd))
    return tuple(out)


def _prefixed(exc: RuleError, what: str, field: str) -> list[Problem]:
    return [
        Problem(p.code, f"{what}: {p.message}", f"{field}.{p.field}" if p.field else field)
        for p in exc.problems
    ]


def resolve(spec: MatchSpec, deck: Deck | None = None) -> Resolution:
    """Apply R5-R10 to every closed round of ``spec``; invalid orders are refused."""
    if deck is None:
        deck = load_deck()
    river, seed, garnets = spec.river, spec.seed, spec.garnets
    defaulted: list[Defaulted] = []
    problems: list[Problem] = []

    # R5/R6 draft
    lists: dict[int, list[str]] = {}
    for seat in SEATS:
        raw = spec.draft[seat]
        if raw is None:
            lists[seat] = default_draft(seed, seat, deck)
            defaulted.append(Defaulted("draft", seat))
            continue
        try:
            lists[seat] = check_draft(raw, deck)
        except RuleError as exc:
            problems.extend(_prefixed(exc, f"draft order of seat {seat}", f"draft.{seat}"))
    if problems:
        raise RuleError(problems)
    drafted = run_draft(lists, garnet_order(garnets))
    hands = {seat: deck.sort(hand) for seat, hand in drafted.hands.items()}

    # R7 mapping
    placements: dict[int, dict[str, str]] | None = None
    totals: dict[str, int] | None = None
    if spec.placements is not None:
        placements = {}
        for seat in SEATS:
            raw = spec.placements[seat]
            if raw is None:
                placements[seat] = default_placements(seed, seat, hands[seat], deck, river)
                defaulted.append(Defaulted("mapping", seat))
                continue
            try:
                placements[seat] = check_placements(raw, hands[seat], deck, river)
            except RuleError as exc:
                problems.extend(_prefixed(exc, f"placements of seat {seat}", f"placements.{seat}"))
        if problems:
            raise RuleError(problems)
        totals = slot_totals(placements, deck, river)

    # R8 rafting
    path: list[Step] | None = None
    scores = control = None
    token: int | None = None
    elimination: Elimination | None = None
    if spec.votes and totals is not None:  # once at least one rafting round has closed
        path = []
        at: str | None = river.start
        for r, round_votes in enumerate(spec.votes, start=1):
            effective: dict[int, list[str]] = {}
            for seat in SEATS:
                raw = round_votes[seat]
                if raw is None:
                    effective[seat] = default_votes(seed, r, seat, river.forks_per_segment)
                    defaulted.append(Defaulted("rafting", seat, r))
                    continue
                try:
                    effective[seat] = check_votes(raw, river.forks_per_segment)
                except RuleError as exc:
                    problems.extend(
                        _prefixed(
                            exc, f"rafting round {r} votes of seat {seat}", f"votes.{r}.{seat}"
                        )
                    )
            if problems:
                continue
            assert at is not None
            steps, at = raft_round(river, at, r, effective, totals)
            path.extend(steps)
        if problems:
            raise RuleError(problems)
        scores, control = scores_and_control(path, SEATS)
        # R9 once every rafting round has closed
        if len(spec.votes) == river.segments:
            token = token_of_life(scores)
            elimination = elimination_candidate(scores, control, garnets, seed)

    if defaulted:
        defaulted.sort(key=Defaulted.sort_key)
    return Resolution(
        spec=spec,
        draft_lists=lists,
        conflicts=drafted.conflicts,
        hands=hands,
        placements=placements,
        totals=totals,
        path=tuple(path) if path is not None else None,
        scores=scores,
        control=control,
        token_of_life=token,
        elimination=elimination,
        defaulted=tuple(defaulted),
    )


assert SEATS == (1, 2, 3), "_by_seat writes the seats of R1 out"


def _by_seat(values: Mapping[int, Any]) -> dict[str, Any]:
    """A per-seat mapping of a resolution (every seat of R1) keyed "1", "2", "3"."""
    return {"1": values[1], "2": values[2], "3": values[3]}


def result_json(res: Resolution, details: bool = False) -> dict[str, Any]:
    """The result object of docs/contracts/rocky-river/FORMAT.md; keys the closed rounds do not
    reach are absent.

    With ``details`` it also carries what the referee's views need and
    docs/contracts/rocky-river/FORMAT.md
    leaves out (the orders as applied, defaults included): ``draft_lists``,
    ``placements``, ``votes`` (per closed rafting round) and ``garnet_order``.
    Views (R11) decide who may see which key.
    """
    out: dict[str, Any] = {
        "hands": _by_seat(res.hands),
        "conflicts": [c.as_dict() for c in res.conflicts],
    }
    if res.totals is not None:
        out["branch_totals"] = dict(res.totals)
    if res.path is not None and res.scores is not None and res.control is not None:
        out["path"] = [step.as_dict() for step in res.path]
        out["scores"] = _by_seat(res.scores)
        out["control"] = _by_seat(res.control)
    if res.elimination is not None:
        out["token_of_life"] = res.token_of_life
        out["elimination_candidate"] = res.elimination.as_dict()
    out["defaulted"] = [d.as_dict() for d in res.defaulted]
    if details:
        out["garnet_order"] = list(garnet_order(res.spec.garnets))
        out["draft_lists"] = _by_seat(res.draft_lists)
        if res.placements is not None:
            out["placements"] = _by_seat(res.placements)
        if res.path is not None:
            votes: list[dict[str, list[str]]] = []
            for step in res.path:
                if len(votes) < step.segment:
                    votes.append({str(seat): [] for seat in SEATS})
                for seat, direction in step.votes:
                    votes[step.segment - 1][str(seat)].append(direction)
            out["votes"] = votes
        if res.elimination is not None:
            out["tied_on_score"] = list(res.elimination.tied_on_score)
    return out


def resolve_document(doc: object) -> dict[str, Any]:
    """Parse, check and resolve a match file object; the docs/contracts/rocky-river/FORMAT.md
    result."""
    return result_json(resolve(parse_match(doc)))
