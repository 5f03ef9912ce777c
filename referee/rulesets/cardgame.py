"""What the two card games, Forks 2nd Edition (``forks_2e``) and Forks
(``forks``), share: a card set of five suits (destinations, companies) with
ids ``<suit>-<value>`` and an ``x`` twin, read case-insensitively; the seeded
hash and deck of the contracts' h(...); the totals, ranking and score of the
top three suits; the Token of Life and the Elimination Candidate (garnets,
then the seeded draw); a match file's settings and ``host_entered``; the
rounds block of a forum post; and the demo loop that plays a demo match from
a fixed seed.

Pure: no Flask, SQL or click imports. Each game binds its own card set and
keeps its own words (a card's name, a refusal's example id).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from referee.errors import Problem, RuleError
from referee.markup import Markup, when
from referee.matchfile import seeded_hash as h
from referee.players import is_int
from referee.ruleset import Setting, check_game_settings
from referee.words import MINUS, signed

TOP = 3  # the first three of a ranking are the top, the last two the bottom
MAX_ID = 12  # no card id is longer; spares lower() a hostile megabyte


# ---- cards -------------------------------------------------------------------------


@dataclass(frozen=True)
class CardSet:
    """Five suits in canonical order, each with one card of each of ``values``
    and an ``x`` twin of its ``extra`` value; ``word`` is what a suit is called
    ("destination", "company")."""

    suits: tuple[str, ...]
    extra: Mapping[str, int]
    values: range
    default_names: Mapping[str, str]
    word: str
    cards: tuple[str, ...] = field(init=False)  # canonical order
    _rank: dict[str, int] = field(init=False, repr=False)
    _value: dict[str, int] = field(init=False, repr=False)
    _suit: dict[str, str] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        ids: list[str] = []
        for suit in self.suits:
            for v in self.values:
                ids.append(f"{suit}-{v}")
                if v == self.extra[suit]:
                    ids.append(f"{suit}-{v}x")
        object.__setattr__(self, "cards", tuple(ids))
        object.__setattr__(self, "_rank", {c: i for i, c in enumerate(ids)})
        object.__setattr__(self, "_value", {c: int(c.split("-")[1].rstrip("x")) for c in ids})
        object.__setattr__(self, "_suit", {c: c.split("-")[0] for c in ids})

    def value(self, card: str) -> int:
        """A card's value: its number (``x`` twins too)."""
        return self._value[card]

    def suit(self, card: str) -> str:
        return self._suit[card]

    def canonical(self, cards: Iterable[str]) -> list[str]:
        """Cards in canonical order (suit, then value, the twin after)."""
        return sorted(cards, key=self._rank.__getitem__)

    def is_card(self, card: object) -> bool:
        return isinstance(card, str) and card in self._rank

    def read(self, text: str) -> str | None:
        """The canonical id ``text`` names (any case; one space for the
        hyphen), or None for anything else."""
        if len(text) > MAX_ID:
            return None
        lowered = text.lower()
        if lowered.count(" ") == 1 and "-" not in lowered:
            lowered = lowered.replace(" ", "-")
        return lowered if lowered in self._rank else None

    def name(self, card: str, names: Mapping[str, str] | None = None) -> str:
        """A card as players know it, "Greysteel City 8", the twin "... 8
        (twin)": its suit's name (``names`` over the defaults) and value."""
        suit = self._suit[card]
        shown = (names or {}).get(suit) or self.default_names[suit]
        return f"{shown} {self._value[card]}" + (" (twin)" if card.endswith("x") else "")

    def totals(self, cards: Iterable[str]) -> dict[str, int]:
        """Each suit's sum of values of ``cards`` (all five, 0 for none)."""
        out = dict.fromkeys(self.suits, 0)
        for card in cards:
            out[self._suit[card]] += self._value[card]
        return out

    def ranking(self, totals: Mapping[str, int], tiebreak: Sequence[str]) -> list[str]:
        """Highest total first, equal totals in ``tiebreak`` order."""
        return sorted(self.suits, key=lambda s: (-totals[s], tiebreak.index(s)))

    def score(self, hand: Iterable[str], ranked: Sequence[str]) -> int:
        """The hand's values in the top three, less its values in the bottom two."""
        top = set(ranked[:TOP])
        return sum(self._value[c] if self._suit[c] in top else -self._value[c] for c in hand)

    def read_order_card(self, raw: object, example: str) -> str:
        """The canonical id an order names, or a refusal (``card/not_a_string``,
        ``card/unknown``) naming what was sent; ``example`` is a twin's id."""
        if not isinstance(raw, str):
            raise RuleError.single(
                "card/not_a_string", f"a card must be a card id such as {example!r}, not {raw!r}"
            )
        card = self.read(raw)
        if card is None:
            shown = raw if len(raw) <= 40 else raw[:40] + "..."
            plain = example.rstrip("x")
            raise RuleError.single(
                "card/unknown",
                f"{shown!r} is not a card: a card is a {self.word} ({', '.join(self.suits)}), "
                f"a hyphen and a value from {self.values[0]} to {self.values[-1]}, such as "
                f"{plain!r} or {example!r}",
            )
        return card


# ---- seeded randomness ----------------------------------------------------------------


def deck_order(seed: str, cards: Iterable[str]) -> list[str]:
    """The cards sorted by h(deck, card), the top first."""
    return sorted(cards, key=lambda card: h(seed, "deck", card))


def seeded_pick(seed: str, options: Iterable[str], *parts: object) -> str:
    """The option with the smallest h(*parts, card) (a missing order's default)."""
    return min(options, key=lambda card: h(seed, *parts, card))


def draw(seed: str, tied: Sequence[int]) -> int:
    """The seat drawn among ``tied``: sorted ascending, index h(draw, elimination) mod n."""
    seats = sorted(tied)
    return seats[int(h(seed, "draw", "elimination"), 16) % len(seats)]


# ---- the result -------------------------------------------------------------------------


def token_of_life(scores: Mapping[int, int]) -> int | None:
    """The single highest score's seat; None when two or more share it."""
    best = max(scores.values())
    leaders = [seat for seat, s in scores.items() if s == best]
    return leaders[0] if len(leaders) == 1 else None


@dataclass(frozen=True)
class Elimination:
    """The Elimination Candidate, what decided it, and the ties on the way."""

    seat: int
    decided_by: str  # "score", "garnets" or "draw"
    tied_on_score: tuple[int, ...]  # the seats with the lowest score
    tied_on_garnets: tuple[int, ...]  # of those, the ones with the fewest garnets

    def as_dict(self) -> dict[str, object]:
        return {"seat": self.seat, "decided_by": self.decided_by}


def elimination_candidate(
    scores: Mapping[int, int], garnets: Mapping[int, int], seed: str
) -> Elimination:
    """The lowest score; ties to the fewest garnets, then the seeded draw."""
    low = min(scores.values())
    lowest = tuple(sorted(seat for seat, s in scores.items() if s == low))
    if len(lowest) == 1:
        return Elimination(lowest[0], "score", lowest, lowest)
    fewest = min(garnets[seat] for seat in lowest)
    poorest = tuple(seat for seat in lowest if garnets[seat] == fewest)
    if len(poorest) == 1:
        return Elimination(poorest[0], "garnets", lowest, poorest)
    return Elimination(draw(seed, poorest), "draw", lowest, poorest)


def by_seat(values: Mapping[int, Any]) -> dict[str, Any]:
    """A result's per-seat object: seats as text keys, ascending."""
    return {str(seat): v for seat, v in sorted(values.items())}


# ---- the match file ------------------------------------------------------------------------


def check_file_settings(
    raw: object, specs: Sequence[Setting]
) -> tuple[dict[str, Any], list[Problem]]:
    """A match file's ``settings`` (defaults for what it leaves out) and its problems."""
    if raw is None:
        raw = {}
    if not isinstance(raw, Mapping):
        return {}, [Problem("match/bad_settings", "'settings' must be an object", "settings")]
    keys = [s.key for s in specs]
    known = ", ".join(keys[:-1]) + " and " + keys[-1]
    problems = [
        Problem("settings/unknown", f"'settings' has {key!r}; the settings are {known}", "settings")
        for key in raw
        if key not in keys
    ]
    try:
        return check_game_settings(specs, raw), problems
    except RuleError as exc:
        return {}, [*problems, *exc.problems]


def parse_host_entered(
    raw: object, seats: int, rounds: int, bad: Callable[[str, str, str], None]
) -> tuple[tuple[int, int], ...]:
    """A match file's ``host_entered``: (round, seat) pairs, each of a closed round."""
    message = f'\'host_entered\' must be a list of {{"round": 1-{max(rounds, 1)}, "seat": n}}'
    if not isinstance(raw, list):
        bad("match/bad_host_entered", message, "host_entered")
        return ()
    out: list[tuple[int, int]] = []
    for i, entry in enumerate(raw):
        number = entry.get("round") if isinstance(entry, Mapping) else None
        seat = entry.get("seat") if isinstance(entry, Mapping) else None
        if not (is_int(number) and 1 <= number <= rounds and is_int(seat) and 1 <= seat <= seats):
            bad("match/bad_host_entered", f"host_entered[{i}]: {message[1:]}", "host_entered")
            continue
        out.append((number, seat))
    return tuple(out)


# ---- posts ------------------------------------------------------------------------------------


def rounds_rows(view: Mapping[str, Any], who: Callable[[int], str]) -> list[str]:
    """A post's rounds block: each round's title and status; the open one's
    deadline and how many orders are in (never whose or what), a closed one's
    seats whose orders the host entered (``who`` names a seat, escaped)."""
    rows = []
    for r in view.get("rounds") or []:
        line = f"{r['title']}: {'to come' if r['status'] == 'pending' else r['status']}"
        if r["status"] == "open":
            sent, acting = len(r.get("submitted") or []), len(r.get("acting") or [])
            deadline = when(r.get("deadline"))
            line += f", deadline {deadline}" if deadline else ", no deadline"
            line += f"; {sent} of {acting} orders in"
        elif r.get("host_entered") and r["status"] == "closed":
            entered = ", ".join(who(int(s)) for s in r["host_entered"])
            line += f"; orders entered by the host for {entered}"
        rows.append(line)
    return rows


def joined(items: Sequence[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def decided_text(
    result: Mapping[str, Any],
    who: Callable[[int], str],
    garnets: Mapping[int, int],
    *,
    minus: str = MINUS,
) -> str:
    """How the Elimination Candidate was decided, for people; ``who`` names
    a seat (the caller escapes and cuts names as its format needs)."""
    ec = result.get("elimination_candidate") or {}
    seat = int(ec.get("seat", 0))
    by = str(ec.get("decided_by"))
    scores = result.get("scores") or {}
    lowest = signed(int(scores.get(str(seat), 0)), minus)
    ties = result.get("elimination_ties") or {}
    tied = [int(s) for s in ties.get("score") or [seat]]
    fewest = [int(s) for s in ties.get("garnets") or [seat]]
    if by == "score" or len(tied) <= 1:
        return f"decided by score: the single lowest score ({lowest})"
    listed = joined([who(s) for s in tied])
    if by == "garnets":
        return (
            f"decided by garnets: {listed} tied on the lowest score ({lowest}); "
            f"{who(seat)} has the fewest garnets ({garnets.get(seat, 0)})"
        )
    fewest_garnets = garnets.get(seat, 0)
    if set(fewest) == set(tied):
        still = f"and on garnets ({fewest_garnets})"
    else:
        still = f"{joined([who(s) for s in fewest])} also on the fewest garnets ({fewest_garnets})"
    return (
        f"decided by draw: {listed} tied on the lowest score ({lowest}), {still}; "
        f"a seeded draw chose {who(seat)}"
    )


def defaulted_section(view: Mapping[str, Any], m: Markup, who: Callable[[int], str]) -> list[str]:
    """A post's seeded-defaults block (empty when no order was defaulted)."""
    defaulted = (view.get("result") or {}).get("defaulted") or []
    if not defaulted:
        return []
    titles = {int(r["number"]): r["title"] for r in view.get("rounds") or []}
    rows = [
        f"{titles.get(int(d['round']), 'round ' + str(d['round']))}: {who(int(d['seat']))}"
        for d in defaulted
    ]
    return [m.section("Seeded default orders (no order when the round closed)", rows)]


# ---- demos ---------------------------------------------------------------------------------------

DEMO_NAMES = ("Ana", "Bo", "Cy", "Di", "Ed", "Flo")
DEMO_GARNETS = (3, 5, 2, 4, 1, 6)


def demo_players(count: int) -> list[dict[str, Any]]:
    """A demo match's players: Ana, Bo, ... with a few garnets each."""
    return [
        {"seat": i + 1, "name": DEMO_NAMES[i], "garnets": DEMO_GARNETS[i]} for i in range(count)
    ]


def check_demo_players(title: str, players: int | None, default: int, low: int, high: int) -> int:
    """How many players a demo has (``default`` when not asked), or a refusal."""
    count = default if players is None else players
    if not low <= count <= high:
        raise RuleError.single(
            "demo/bad_players", f"{title} is for {low} to {high} players, not {players}"
        )
    return count


def play_demo(
    finished: Callable[[], bool],
    choose: Callable[[], dict[int, Any]],
    close: Callable[[dict[int, Any]], None],
) -> list[dict[int, Any]]:
    """A whole demo match's orders: until ``finished``, each step's orders as
    ``choose`` picks them from the table, closed with ``close``."""
    steps: list[dict[int, Any]] = []
    while not finished():
        chosen = choose()
        steps.append(chosen)
        close(dict(chosen))
    return steps


def summary_result_lines(
    result: Mapping[str, Any], names: Mapping[int, str], labels: Mapping[str, str]
) -> list[str]:
    """The end of a card game's CLI summary, shared by Forks and Forks 2nd
    Edition: the ranking (``labels``: a company's or destination's name), each
    seat's points and hand, Token of Life and Elimination Candidate once every
    round has closed, then who was defaulted."""
    out: list[str] = []
    if "ranking" in result:
        ranked = result["ranking"]
        out.append(
            "Ranking: "
            + ", ".join(labels[c] for c in ranked[:3])
            + " (top); "
            + ", ".join(labels[c] for c in ranked[3:])
            + " (bottom)"
        )
        for seat, hand in result["hands"].items():
            out.append(f"{names[int(seat)]}: {result['scores'][seat]} points ({', '.join(hand)})")
        token = result["token_of_life"]
        out.append(
            "Token of Life: " + (names[token] if token is not None else "nobody (shared top score)")
        )
        ec = result["elimination_candidate"]
        out.append(f"Elimination Candidate: {names[ec['seat']]} (decided by {ec['decided_by']})")
    if result["defaulted"]:
        out.append(
            "Defaulted: "
            + ", ".join(f"round {d['round']} {names[d['seat']]}" for d in result["defaulted"])
        )
    return out
