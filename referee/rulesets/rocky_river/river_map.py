"""R3: the river map, its validation and its balance summary.

:func:`parse_map` turns a map object (docs/contracts/rocky-river/FORMAT.md) into an indexed,
immutable
:class:`RiverMap`, or raises a :class:`RuleError` listing every problem found.
Everything the other rules need (a branch by id, the side lists of a fork, the
segment of a fork) is indexed once here so that resolving never searches.

The contract is silent on a map's size; this referee bounds it (the ``MAX_``
constants below, docs/rules.md "Limits") so that no map can make a request
work for long: checking it, its fairness solves, a host's audit, its pictures.
Ids are short and plain, and the name is one line of text, because both are
written into pages, pictures and forum posts. Every check here is iterative
and linear in the map's size, and a map over the size limits is refused before
its forks are even read.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, TypeGuard

from referee.errors import Problem, RuleError
from referee.text import NOT_ONE_LINE, describe_char

from .cards import COLORS

SEATS: tuple[int, ...] = (1, 2, 3)
SIDES: tuple[str, ...] = ("L", "R")

# ---- limits: the project's choice (docs/rules.md, "Limits") ----------------------------
# Generously above every map the project uses (Three Rapids: 3 x 3, 9 forks; the
# tests' largest: 12 forks a segment, 17 forks with 12 side by side, 68 branches)
# and low enough that a map's fairness report, a full audit and its pictures
# each stay well under their time budgets (measured on maps at these limits).
MAX_SEGMENTS = 6  # rafting rounds
MAX_FORKS_PER_SEGMENT = 12  # directions in one rafting order
MAX_PATH_LENGTH = 24  # forks on every path (segments x forks_per_segment)
MAX_FORKS = 60
MAX_BRANCHES = 4 * MAX_FORKS  # R3 allows at most 2 a side
MAX_ID_LENGTH = 32  # fork and branch ids
MAX_NAME_LENGTH = 100  # the map's name
# ids: ASCII letters, digits, "-", "_" and "." only, so that no id can be markup,
# a line break, a look-alike or invisible character in a page, picture or post
ID_PATTERN = re.compile(r"[A-Za-z0-9._-]+")
ID_RULE = "ids use only the letters A-Z and a-z, digits, '-', '_' and '.'"
# a map's name is one line of text, as a player's name (referee.text), and holds
# no byte-order mark either
_NOT_IN_NAME = re.compile(f"[{NOT_ONE_LINE}\ufeff]")


@dataclass(frozen=True, slots=True)
class Branch:
    id: str
    color: str
    seat: int
    to: str | None
    fork: str
    side: str  # "L" or "R"
    position: int  # 0 = inner, 1 = outer

    @property
    def outer(self) -> bool:
        return self.position == 1


@dataclass(frozen=True, slots=True)
class Fork:
    id: str
    left: tuple[Branch, ...]
    right: tuple[Branch, ...]

    def side(self, direction: str) -> tuple[Branch, ...]:
        return self.left if direction == "L" else self.right

    def branches(self) -> tuple[Branch, ...]:
        return self.left + self.right


@dataclass(frozen=True)
class RiverMap:
    name: str
    segments: int
    forks_per_segment: int
    start: str
    forks: Mapping[str, Fork]
    branches: Mapping[str, Branch]  # in map order: forks as listed, left then right, inner first
    depth: Mapping[str, int]  # fork id -> its 1-based number on any path from the start
    # derived look-ups computed once per map (see mapping.legal_values)
    cache: dict[Any, Any] = field(default_factory=dict, compare=False, repr=False)

    @property
    def path_length(self) -> int:
        return self.segments * self.forks_per_segment

    def segment_of(self, fork_id: str) -> int:
        return (self.depth[fork_id] - 1) // self.forks_per_segment + 1

    def branches_of_color(self, color: str) -> list[Branch]:
        return [b for b in self.branches.values() if b.color == color]

    def to_json(self) -> dict[str, Any]:
        """The map as a docs/contracts/rocky-river/FORMAT.md map object."""

        def side(bs: tuple[Branch, ...]) -> list[dict[str, Any]]:
            return [{"id": b.id, "color": b.color, "seat": b.seat, "to": b.to} for b in bs]

        return {
            "name": self.name,
            "segments": self.segments,
            "forks_per_segment": self.forks_per_segment,
            "start": self.start,
            "forks": [
                {"id": f.id, "left": side(f.left), "right": side(f.right)}
                for f in self.forks.values()
            ],
        }


def is_int(value: object) -> TypeGuard[int]:
    """A JSON whole number (``true`` and ``false`` are not numbers here)."""
    return isinstance(value, int) and not isinstance(value, bool)


def shown(value: object, limit: int = 40) -> str:
    """A value from a map, for a message: a text cut after ``limit`` characters,
    with what is not printable escaped as in Python (a line break as a
    backslash and an n); anything else as its repr, cut the same way."""
    text = value if isinstance(value, str) else repr(value)
    cut = text if len(text) <= limit else text[: limit - 1] + "…"
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in cut)


def id_fault(value: str) -> tuple[str, str] | None:
    """Why ``value`` cannot be a fork or branch id, as (code, reason), or None."""
    if len(value) > MAX_ID_LENGTH:
        return "map/id_too_long", f"is {len(value)} characters long; at most {MAX_ID_LENGTH}"
    if ID_PATTERN.fullmatch(value) is None:
        char = next(c for c in value if ID_PATTERN.fullmatch(c) is None)
        return "map/bad_id", f"holds {describe_char(char)}; {ID_RULE}"
    return None


def parse_map(doc: object, *, limits: bool = True) -> RiverMap:
    """Check a map object against R3 and the project's limits and index it; every
    problem is reported (for a map over the size limits, only those, at once).

    ``limits=False`` checks R3 alone, for a map already stored by a version of
    the referee without these limits (its pictures must still be drawn)."""
    problems: list[Problem] = []

    def bad(code: str, message: str, field: str | None = None) -> None:
        problems.append(Problem(code, message, field))

    if not isinstance(doc, Mapping):
        raise RuleError.single("map/not_object", "the map must be a JSON object")

    name = doc.get("name")
    if not isinstance(name, str) or not name.strip():
        bad("map/bad_name", "the map needs a non-empty 'name' string", "name")
        name = ""
    elif limits and len(name) > MAX_NAME_LENGTH:
        bad(
            "map/name_too_long",
            f"the map's name '{shown(name)}' is {len(name)} characters long; "
            f"at most {MAX_NAME_LENGTH}",
            "name",
        )
    elif limits and (found := _NOT_IN_NAME.search(name)) is not None:
        bad(
            "map/bad_name",
            f"the map's name '{shown(name)}' holds {describe_char(found.group())}; a map's name "
            "is one line of plain text: no control characters, tabs or line breaks",
            "name",
        )
    counts: dict[str, int] = {}
    for key, most, code in (
        ("segments", MAX_SEGMENTS, "map/too_many_segments"),
        ("forks_per_segment", MAX_FORKS_PER_SEGMENT, "map/too_many_forks_per_segment"),
    ):
        value = doc.get(key)
        if not is_int(value) or value < 1:
            bad(
                "map/bad_count",
                f"'{key}' must be a whole number of at least 1, not {shown(repr(value))}",
                key,
            )
        elif limits and value > most:
            bad(code, f"'{key}' is {value}; at most {most}", key)
        else:
            counts[key] = value
    if limits and len(counts) == 2:
        length = counts["segments"] * counts["forks_per_segment"]
        if length > MAX_PATH_LENGTH:
            bad(
                "map/too_deep",
                f"every path would pass {length} forks ({counts['segments']} segments x "
                f"{counts['forks_per_segment']} forks); at most {MAX_PATH_LENGTH}",
                "forks_per_segment",
            )
            del counts["segments"]  # so no path is measured against it
    start = doc.get("start")
    if not isinstance(start, str):
        bad("map/bad_start", f"'start' must be a fork id, not {shown(repr(start))}", "start")
        start = None
    raw_forks = doc.get("forks")
    if not isinstance(raw_forks, list) or not raw_forks:
        bad("map/no_forks", "'forks' must be a non-empty list of forks", "forks")
        raise RuleError(problems)
    if limits:  # the size first, so that a huge map costs nothing more
        if len(raw_forks) > MAX_FORKS:
            bad(
                "map/too_many_forks",
                f"the map has {len(raw_forks)} forks; at most {MAX_FORKS}",
                "forks",
            )
            raise RuleError(problems)
        written = sum(
            len(side)
            for raw_fork in raw_forks
            if isinstance(raw_fork, Mapping)
            for side in (raw_fork.get("left"), raw_fork.get("right"))
            if isinstance(side, list)
        )
        if written > MAX_BRANCHES:
            bad(
                "map/too_many_branches",
                f"the map has {written} branches; at most {MAX_BRANCHES} "
                f"(at most 2 a side, {MAX_FORKS} forks)",
                "forks",
            )
            raise RuleError(problems)

    forks: dict[str, Fork] = {}
    branches: dict[str, Branch] = {}
    targets: list[tuple[str, str]] = []  # (branch id, the fork it leads to), as written
    colors: set[str] = set()
    for fi, raw_fork in enumerate(raw_forks):
        where = f"forks[{fi}]"
        if not isinstance(raw_fork, Mapping):
            bad(
                "map/bad_fork",
                f"fork {fi + 1} of the map's 'forks' list must be an object with id, left "
                "and right",
                where,
            )
            continue
        fid = raw_fork.get("id")
        if not isinstance(fid, str) or not fid:
            bad(
                "map/bad_fork",
                f"fork {fi + 1} of the map's 'forks' list needs a non-empty string 'id'",
                where,
            )
            continue
        if limits and (fault := id_fault(fid)) is not None:
            bad(fault[0], f"fork id '{shown(fid)}' {fault[1]}", where)
        if fid in forks:
            bad("map/duplicate_fork", f"fork id '{shown(fid)}' is used more than once", where)
            continue
        sides: dict[str, tuple[Branch, ...]] = {}
        for side, key in zip(SIDES, ("left", "right"), strict=True):
            raw_side = raw_fork.get(key)
            if not isinstance(raw_side, list) or not raw_side:
                bad(
                    "map/empty_side",
                    f"fork '{shown(fid)}' has no branch on its {key} side",
                    f"{where}.{key}",
                )
                sides[side] = ()
                continue
            if len(raw_side) > 2:
                bad(
                    "map/too_many_branches",
                    f"fork '{shown(fid)}' has {len(raw_side)} branches on its {key} side; "
                    "at most 2",
                    f"{where}.{key}",
                )
            built: list[Branch] = []
            # every branch written is checked, even one too many or with a repeated id,
            # so that one problem never hides another
            for pos, raw_branch in enumerate(raw_side):
                branch = _parse_branch(
                    raw_branch, fid, side, min(pos, 1), f"{where}.{key}[{pos}]", bad, limits
                )
                if isinstance(raw_branch, Mapping):
                    bid, to, color = (raw_branch.get(k) for k in ("id", "to", "color"))
                    if isinstance(bid, str) and isinstance(to, str):
                        targets.append((bid, to))
                    if color in COLORS:
                        colors.add(color)
                if branch is None:
                    continue
                if branch.id in branches:
                    bad(
                        "map/duplicate_branch",
                        f"branch id '{shown(branch.id)}' is used more than once "
                        f"(again at fork '{shown(fid)}')",
                        f"{where}.{key}[{pos}]",
                    )
                    continue
                if pos < 2:
                    branches[branch.id] = branch
                    built.append(branch)
            sides[side] = tuple(built)
        forks[fid] = Fork(fid, sides["L"], sides["R"])

    for bid, to in targets:
        if to not in forks:
            bad(
                "map/dangling_to",
                f"branch '{shown(bid)}' leads to fork '{shown(to)}', which does not exist",
            )
    if start is not None and start not in forks:
        bad("map/bad_start", f"the start fork '{shown(start)}' does not exist", "start")
        start = None

    if colors and len(colors) < 2:
        bad(
            "map/too_few_colors",
            f"every slot is {'/'.join(sorted(colors))}; a map needs at least two colours so that "
            "every card has a face that fits some slot",
        )

    depth: dict[str, int] = {}
    cycle = _find_cycle(forks)
    if cycle:
        bad("map/cycle", "the river flows in a circle: " + " -> ".join(cycle))
    if start is not None:
        reachable = _reachable(forks, start)
        for fid in forks:
            if fid not in reachable:
                bad(
                    "map/unreachable_fork",
                    f"fork '{shown(fid)}' cannot be reached from the start '{shown(start)}'",
                )
        if not cycle and len(counts) == 2:
            expected = counts["segments"] * counts["forks_per_segment"]
            for length, path in sorted(_path_lengths(forks, start).items()):
                if length != expected:
                    bad(
                        "map/path_length",
                        f"the path {' -> '.join(path)} passes {length} forks; every path must pass "
                        f"exactly {expected} ({counts['segments']} segments x "
                        f"{counts['forks_per_segment']} forks)",
                    )
            if not problems:
                depth = _depths(forks, start)

    if problems:
        raise RuleError(problems)
    assert start is not None
    return RiverMap(
        name=name,
        segments=counts["segments"],
        forks_per_segment=counts["forks_per_segment"],
        start=start,
        forks=forks,
        branches=branches,
        depth=depth,
    )


@lru_cache(maxsize=64)
def _stored_river_of_json(text: str) -> RiverMap:
    return parse_map(json.loads(text), limits=False)  # admitted when it was stored


_BY_IDENTITY: dict[int, tuple[Mapping[str, Any], RiverMap]] = {}


def stored_river(map_doc: Mapping[str, Any]) -> RiverMap:
    """The indexed map of a stored match's map object, checked against R3 alone
    (a match stored before the map limits may hold a map over them, and must
    still be played and drawn), parsed once per distinct map and found without
    even re-reading it when the caller passes the same object again."""
    hit = _BY_IDENTITY.get(id(map_doc))
    if hit is not None and hit[0] is map_doc:
        return hit[1]
    river = _stored_river_of_json(json.dumps(map_doc, sort_keys=True))
    if len(_BY_IDENTITY) > 1000:
        _BY_IDENTITY.clear()
    _BY_IDENTITY[id(map_doc)] = (map_doc, river)  # holding map_doc keeps its id unique
    return river


def _parse_branch(
    raw: object, fid: str, side: str, pos: int, where: str, bad: Any, limits: bool
) -> Branch | None:
    if not isinstance(raw, Mapping):
        side_name = "left" if side == "L" else "right"
        bad(
            "map/bad_branch",
            f"a branch on the {side_name} side of fork '{shown(fid)}' must be an object",
            where,
        )
        return None
    bid = raw.get("id")
    if not isinstance(bid, str) or not bid:
        bad(
            "map/bad_branch",
            f"a branch of fork '{shown(fid)}' needs a non-empty string 'id'",
            where,
        )
        return None
    if limits and (fault := id_fault(bid)) is not None:
        bad(fault[0], f"branch id '{shown(bid)}' (fork '{shown(fid)}') {fault[1]}", where)
    ok = True
    color = raw.get("color")
    if color not in COLORS:
        bad(
            "map/unknown_color",
            f"branch '{shown(bid)}' has colour {shown(repr(color))}; "
            f"it must be one of {', '.join(COLORS)}",
            where,
        )
        ok = False
    seat = raw.get("seat")
    if not is_int(seat) or seat not in SEATS:
        bad(
            "map/unknown_seat",
            f"branch '{shown(bid)}' portrays seat {shown(repr(seat))}; it must be 1, 2 or 3",
            where,
        )
        ok = False
    to = raw.get("to")
    if to is not None and not isinstance(to, str):
        bad(
            "map/dangling_to",
            f"branch '{shown(bid)}' has 'to' {shown(repr(to))}; it must be a fork id or null",
            where,
        )
        ok = False
    if not ok:
        return None
    assert isinstance(color, str) and isinstance(seat, int)
    return Branch(bid, color, seat, to if isinstance(to, str) else None, fid, side, pos)


def _successors(fork: Fork) -> list[str]:
    seen: list[str] = []
    for b in fork.left + fork.right:
        if b.to is not None and b.to not in seen:
            seen.append(b.to)
    return seen


def _find_cycle(forks: Mapping[str, Fork]) -> list[str]:
    """One cycle as a list of fork ids (first repeated at the end), or []."""
    white, grey, black = 0, 1, 2
    state = dict.fromkeys(forks, white)
    for root in forks:
        if state[root] != white:
            continue
        stack: list[tuple[str, list[str]]] = [(root, _successors(forks[root]))]
        trail = [root]
        state[root] = grey
        while stack:
            fid, succ = stack[-1]
            nxt = next((s for s in succ if s in forks), None)
            if nxt is None:
                stack.pop()
                trail.pop()
                state[fid] = black
                continue
            succ.remove(nxt)
            if state[nxt] == grey:
                return [*trail[trail.index(nxt) :], nxt]
            if state[nxt] == white:
                state[nxt] = grey
                trail.append(nxt)
                stack.append((nxt, _successors(forks[nxt])))
    return []


def _reachable(forks: Mapping[str, Fork], start: str) -> set[str]:
    seen = {start}
    todo = [start]
    while todo:
        for nxt in _successors(forks[todo.pop()]):
            if nxt in forks and nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return seen


def _path_lengths(forks: Mapping[str, Fork], start: str) -> dict[int, list[str]]:
    """For an acyclic map: each number of forks a path from ``start`` passes,
    with one example path (fork ids) of that length. Iterative, so a long map
    cannot exhaust the stack, and linear in the map's size times the number of
    different lengths (each fork keeps, per length, only the fork it goes on to)."""
    order: list[str] = []  # forks reachable from start, each after all its successors
    state: dict[str, bool] = {}  # False: being visited, True: done
    stack: list[tuple[str, list[str]]] = [(start, _successors(forks[start]))]
    state[start] = False
    while stack:
        fid, succ = stack[-1]
        while succ and (succ[-1] not in forks or succ[-1] in state):
            succ.pop()
        if succ:
            nxt = succ.pop()
            state[nxt] = False
            stack.append((nxt, _successors(forks[nxt])))
        else:
            stack.pop()
            state[fid] = True
            order.append(fid)
    memo: dict[str, dict[int, str | None]] = {}  # fork -> length -> next fork (None: end)
    for fid in order:
        out: dict[int, str | None] = {}
        fork = forks[fid]
        for b in fork.left + fork.right:
            if b.to is None:
                out.setdefault(1, None)
            elif b.to in memo:
                for length in memo[b.to]:
                    out.setdefault(length + 1, b.to)
        memo[fid] = out
    paths: dict[int, list[str]] = {}
    for length in memo[start]:
        path = [start]
        for left in range(length, 1, -1):  # forks still to pass, this one included
            onward = memo[path[-1]][left]
            assert onward is not None
            path.append(onward)
        paths[length] = path
    return paths


def _depths(forks: Mapping[str, Fork], start: str) -> dict[str, int]:
    depth = {start: 1}
    todo = [start]
    while todo:
        fid = todo.pop()
        for nxt in _successors(forks[fid]):
            if nxt not in depth:
                depth[nxt] = depth[fid] + 1
                todo.append(nxt)
    return depth
