"""FF3 and FF4: card kinds and types, the deck (the default one or a host's),
its checks, and card ids.

A deck has the shape of ``seeds/cards/fortune-famine.json`` (the default
deck): ``{"name", "types": [...], "cards": [{"type", "year", "corner",
"count"}, ...]}``. :func:`deck_problems` checks a host's deck against FF4 and
reports every problem (codes ``deck/...`` of
docs/contracts/fortune-famine/FORMAT.md); :func:`default_deck` is the bundled
one. Card ids (FF3) are ``<type>.<k>``, the copies of a type numbered across
the whole file in row order, and ``start-farmer.<seat>`` for each seat's
starting Common Farmer.

Pure: no Flask, SQL or click imports.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from referee.errors import Problem, RuleError
from referee.players import is_int
from referee.resources import bundled_dir

# ---- FF3: kinds --------------------------------------------------------------------------

FAMINE = "famine"
LINE = ("farmer", "merchant", "jester")  # the line workers (FF9: 2 each, 1 skilled)
UNIQUE = ("steward", "pickpocket", "philosopher", "seer", "trader")  # 1 each (FF9)
WIZARDS = ("chysarion", "evrathor")
KINDS = (FAMINE, *LINE, *UNIQUE, *WIZARDS)
GRADES = ("common", "skilled")
RESOURCES = ("grain", "silver")
GIVES = ("grain", "silver", "stored")  # what a Chysarion gives, an Evrathor steals
SPLITS = ("none", "may", "must")
COMMON_FARMER = "common-farmer"  # FF4: the type of every seat's starting card
START = "start-farmer"  # FF3: start-farmer.<seat>

# ---- FF4: limits -------------------------------------------------------------------------

MAX_DECK_NAME = 100
MIN_TYPES, MAX_TYPES = 1, 60
MAX_TYPE_ID = 40
MIN_TYPE_NAME, MAX_TYPE_NAME = 1, 60
MAX_PAYMENT = 5
MAX_REWARD = 9
MIN_AMOUNT, MAX_AMOUNT = 1, 9
MIN_MUST_AMOUNT = 2
MIN_ROWS, MAX_ROWS = 1, 300
MAX_CARDS = 300
YEARS = (1, 2, 3)
MIN_CORNER, MAX_CORNER = 2, 6
MIN_COUNT, MAX_COUNT = 1, 28
SEASONS_PER_YEAR = 4  # FF3: a Year holds 4 x (n + 1) cards
TYPE_ID = re.compile(r"[a-z][a-z0-9-]{0,39}")
DECK_KEYS = ("name", "types", "cards")
ROW_KEYS = ("type", "year", "corner", "count")
# the fields each kind may have besides id, kind and name (FF4)
FIELDS: dict[str, tuple[str, ...]] = {
    FAMINE: (),
    **dict.fromkeys(LINE, ("grade", "payment", "reward")),
    "steward": ("payment", "reward"),
    "pickpocket": (),
    "philosopher": (),
    "seer": (),
    "trader": (),
    "chysarion": ("gives", "amount"),
    "evrathor": ("steals", "amount", "split"),
}
MAX_READ = 60  # no card id is longer; spares lower() a hostile megabyte


@dataclass(frozen=True)
class CardType:
    """A card type (FF3): its kind and numbers. ``payment`` is (grain,
    silver), ``reward`` (grain, silver, stored)."""

    id: str
    kind: str
    name: str
    grade: str | None = None
    payment: tuple[int, int] = (0, 0)
    reward: tuple[int, int, int] = (0, 0, 0)
    gives: str | None = None  # a Chysarion's
    steals: str | None = None  # an Evrathor's
    amount: int = 0
    split: str | None = None

    @property
    def famine(self) -> bool:
        return self.kind == FAMINE

    @property
    def wizard(self) -> bool:
        return self.kind in WIZARDS

    @property
    def worker(self) -> bool:
        """A worker (FF3): a line worker or a unique worker."""
        return self.kind in LINE or self.kind in UNIQUE

    @property
    def attacking(self) -> bool:
        """FF13: a Pickpocket or an Evrathor."""
        return self.kind in ("pickpocket", "evrathor")

    @property
    def needs_payment(self) -> bool:
        """FF3: a worker whose payment is not all 0 (never a wizard)."""
        return self.worker and self.payment != (0, 0)

    @property
    def common_line(self) -> bool:
        """FF17: a Common Farmer or Common Merchant (the Philosopher's double)."""
        return self.kind in ("farmer", "merchant") and self.grade == "common"

    def payment_json(self) -> dict[str, int]:
        return {"grain": self.payment[0], "silver": self.payment[1]}

    def reward_json(self) -> dict[str, int]:
        return {"grain": self.reward[0], "silver": self.reward[1], "stored": self.reward[2]}

    def as_json(self) -> dict[str, Any]:
        """The type as a deck file holds it (only the fields of its kind)."""
        out: dict[str, Any] = {"id": self.id, "kind": self.kind, "name": self.name}
        fields = FIELDS[self.kind]
        if "grade" in fields:
            out["grade"] = self.grade
        if "payment" in fields:
            out["payment"] = self.payment_json()
            out["reward"] = self.reward_json()
        if self.kind == "chysarion":
            out.update({"gives": self.gives, "amount": self.amount})
        if self.kind == "evrathor":
            out.update({"steals": self.steals, "amount": self.amount, "split": self.split})
        return out


@dataclass(frozen=True)
class Row:
    """A deck row (FF4): ``count`` copies of a type in a Year, with a corner number."""

    type: str
    year: int
    corner: int
    count: int

    def as_json(self) -> dict[str, Any]:
        return {"type": self.type, "year": self.year, "corner": self.corner, "count": self.count}


@dataclass(frozen=True)
class Card:
    """One card of the deck: its id (FF3), type, Year and corner number."""

    id: str
    type: str
    year: int
    corner: int


@dataclass(frozen=True)
class Deck:
    """A match's deck (FF3, FF4): its types and rows, and the cards they make."""

    types: tuple[CardType, ...]
    rows: tuple[Row, ...]
    name: str | None = None
    cards: tuple[Card, ...] = field(init=False)
    _types: dict[str, CardType] = field(init=False, repr=False)
    _cards: dict[str, Card] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        copies: dict[str, int] = {}
        cards: list[Card] = []
        for row in self.rows:
            for _ in range(row.count):
                copies[row.type] = copies.get(row.type, 0) + 1
                cards.append(Card(f"{row.type}.{copies[row.type]}", row.type, row.year, row.corner))
        object.__setattr__(self, "cards", tuple(cards))
        object.__setattr__(self, "_types", {t.id: t for t in self.types})
        object.__setattr__(self, "_cards", {c.id: c for c in cards})

    def type(self, type_id: str) -> CardType:
        return self._types[type_id]

    def card(self, card_id: str) -> Card:
        return self._cards[card_id]

    def type_of(self, card_id: str) -> CardType:
        """The type of a deck card or of a starting farmer (FF3)."""
        if card_id.startswith(START + "."):
            return self._types[COMMON_FARMER]
        return self._types[self._cards[card_id].type]

    def read(self, raw: object, seats: int) -> str | None:
        """FF3: the lowercase id a card value names (any case, surrounding
        spaces ignored) when it is a card of this match (a deck card, or a
        starting farmer of seats 1..``seats``); None for anything else."""
        if not isinstance(raw, str):
            return None
        card = raw.strip()
        if len(card) > MAX_READ:
            return None
        card = card.lower()
        if card in self._cards:
            return card
        prefix, _, number = card.partition(".")
        if prefix == START and number in {str(s) for s in range(1, seats + 1)}:
            return card
        return None

    def year_cards(self, year: int, seats: int) -> list[str]:
        """FF5: the cards of Year ``year`` in play with ``seats`` players
        (corner ``seats`` or less), in deck order."""
        return [c.id for c in self.cards if c.year == year and c.corner <= seats]

    def as_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if self.name is not None:
            out["name"] = self.name
        out["types"] = [t.as_json() for t in self.types]
        out["cards"] = [r.as_json() for r in self.rows]
        return out


def start_farmer(seat: int) -> str:
    """FF3: the id of ``seat``'s starting Common Farmer."""
    return f"{START}.{seat}"


def year_size(seats: int) -> int:
    """FF3: the cards a Year keeps with ``seats`` players: one burn and
    ``seats`` reveals for each of 4 seasons."""
    return SEASONS_PER_YEAR * (seats + 1)


# ---- FF4: the checks ---------------------------------------------------------------------


def _amounts(
    raw: object, keys: tuple[str, ...], high: int, where: str, bad: Any
) -> tuple[int, ...] | None:
    """A ``payment`` or ``reward`` object (missing keys 0): its values in
    ``keys`` order, or None after reporting (``deck/bad_type`` for the shape,
    ``deck/bad_number`` for a value)."""
    if raw is None:
        return tuple(0 for _ in keys)
    if not isinstance(raw, Mapping) or not set(map(str, raw)) <= set(keys):
        bad(
            "deck/bad_type",
            f"{where} must be an object of {', '.join(keys)} (each optional), not {_shown(raw)}",
            where,
        )
        return None
    out: list[int] = []
    ok = True
    for key in keys:
        value = raw.get(key, 0)
        if not (is_int(value) and 0 <= value <= high):
            bad(
                "deck/bad_number",
                f"{where}.{key} must be a whole number from 0 to {high}, not {_shown(value)}",
                f"{where}.{key}",
            )
            ok = False
        else:
            out.append(value)
    return tuple(out) if ok else None


def _choice(
    raw: Mapping[str, Any], key: str, allowed: tuple[str, ...], where: str, bad: Any
) -> str:
    value = raw.get(key)
    if isinstance(value, str) and value in allowed:
        return value
    bad(
        "deck/bad_type",
        f"{where}: {key!r} must be one of {', '.join(allowed)}, not {_shown(value)}",
        f"{where}.{key}",
    )
    return ""


def _amount(raw: Mapping[str, Any], where: str, bad: Any, *, must: bool) -> int:
    """A wizard's ``amount``: 1..9, 2 or more for a ``must`` split."""
    if "amount" not in raw or raw["amount"] is None:
        bad("deck/bad_type", f"{where} needs an 'amount' (a whole number 1 to 9)", where)
        return 0
    value = raw["amount"]
    low = MIN_MUST_AMOUNT if must else MIN_AMOUNT
    if is_int(value) and low <= value <= MAX_AMOUNT:
        return value
    extra = " (a 'must' split needs 2 or more)" if must else ""
    bad(
        "deck/bad_number",
        f"{where}: 'amount' must be a whole number from {low} to {MAX_AMOUNT}{extra}, "
        f"not {_shown(value)}",
        f"{where}.amount",
    )
    return 0


def type_problems(raw: object, where: str) -> tuple[CardType | None, list[Problem]]:
    """FF4: one card type of a host's deck, or its problems (``deck/bad_type``,
    ``deck/unknown_kind``, ``deck/bad_number``). Duplicate ids are the deck's check."""
    problems: list[Problem] = []

    def bad(code: str, message: str, at: str) -> None:
        problems.append(Problem(code, message, at))

    if not isinstance(raw, Mapping):
        bad("deck/bad_type", f"{where} must be an object, not {_shown(raw)}", where)
        return None, problems
    kind = raw.get("kind")
    if not isinstance(kind, str) or kind not in KINDS:
        bad(
            "deck/unknown_kind",
            f"{where}: kind {_shown(kind)} is none of {', '.join(KINDS)}",
            f"{where}.kind",
        )
        return None, problems
    type_id = raw.get("id")
    if not isinstance(type_id, str) or not TYPE_ID.fullmatch(type_id) or type_id == START:
        bad(
            "deck/bad_type",
            f"{where}: the id {_shown(type_id)} must be a lowercase letter then up to "
            f"{MAX_TYPE_ID - 1} lowercase letters, digits or hyphens, and not {START!r}",
            f"{where}.id",
        )
    name = raw.get("name")
    if name is not None and not (
        isinstance(name, str) and MIN_TYPE_NAME <= len(name) <= MAX_TYPE_NAME
    ):
        bad(
            "deck/bad_type",
            f"{where}: the name {_shown(name)} must be {MIN_TYPE_NAME} to {MAX_TYPE_NAME} "
            "characters",
            f"{where}.name",
        )
    fields = FIELDS[kind]
    for key in raw:
        if key not in ("id", "kind", "name", *fields):
            own = ", ".join(fields) or "none"
            bad(
                "deck/bad_type",
                f"{where}: a {kind} has no {str(key)!r} (its own fields: {own})",
                f"{where}.{key}",
            )
    grade: str | None = None
    payment: tuple[int, ...] | None = (0, 0)
    reward: tuple[int, ...] | None = (0, 0, 0)
    gives = steals = split = None
    amount = 0
    if "grade" in fields:
        grade = _choice(raw, "grade", GRADES, where, bad)
    if "payment" in fields:
        payment = _amounts(raw.get("payment"), RESOURCES, MAX_PAYMENT, f"{where}.payment", bad)
        reward = _amounts(raw.get("reward"), GIVES, MAX_REWARD, f"{where}.reward", bad)
    if kind == "chysarion":
        gives = _choice(raw, "gives", GIVES, where, bad)
        amount = _amount(raw, where, bad, must=False)
    if kind == "evrathor":
        steals = _choice(raw, "steals", GIVES, where, bad)
        split_raw = raw.get("split")
        split = "none" if split_raw is None else _choice(raw, "split", SPLITS, where, bad)
        amount = _amount(raw, where, bad, must=split == "must")
    if problems:
        return None, problems
    assert isinstance(type_id, str) and payment is not None and reward is not None
    return (
        CardType(
            id=type_id,
            kind=kind,
            name=name if isinstance(name, str) else type_id,
            grade=grade,
            payment=(payment[0], payment[1]),
            reward=(reward[0], reward[1], reward[2]),
            gives=gives,
            steals=steals,
            amount=amount,
            split=split,
        ),
        [],
    )


def _types(raw: object, bad: Any) -> tuple[list[CardType], set[str], bool]:
    """FF4: the deck's ``types``: the accepted ones, the ids of refused ones
    (rows naming them add no problem), and whether ``types`` was a list."""
    if not isinstance(raw, list) or not MIN_TYPES <= len(raw) <= MAX_TYPES:
        count = f", not {len(raw)}" if isinstance(raw, list) else f", not {_shown(raw)}"
        bad(
            "deck/bad_types",
            f"deck: 'types' must be a list of {MIN_TYPES} to {MAX_TYPES} card types{count}",
            "deck.types",
        )
        if not isinstance(raw, list):
            return [], set(), False
    accepted: list[CardType] = []
    refused: set[str] = set()
    seen: set[str] = set()
    for i, entry in enumerate(raw):
        where = f"deck.types[{i}]"
        card_type, problems = type_problems(entry, where)
        for p in problems:
            bad(p.code, p.message, p.field)
        raw_id = entry.get("id") if isinstance(entry, Mapping) else None
        if card_type is not None and card_type.id in seen:
            bad("deck/bad_type", f"{where}: the id {card_type.id!r} is used twice", f"{where}.id")
            continue
        if card_type is None:
            if isinstance(raw_id, str):
                refused.add(raw_id)
            continue
        seen.add(card_type.id)
        accepted.append(card_type)
    return accepted, refused, True


def _rows(raw: object, known: set[str], refused: set[str], bad: Any) -> list[Row]:
    """FF4: the deck's ``cards`` rows; a row naming a refused type adds no
    problem of its own for it."""
    if not isinstance(raw, list):
        bad(
            "deck/bad_cards",
            f"deck: 'cards' must be a list of {MIN_ROWS} to {MAX_ROWS} rows, not {_shown(raw)}",
            "deck.cards",
        )
        return []
    listed = MIN_ROWS <= len(raw) <= MAX_ROWS
    if not listed:
        bad(
            "deck/bad_cards",
            f"deck: 'cards' must be a list of {MIN_ROWS} to {MAX_ROWS} rows, not {len(raw)}",
            "deck.cards",
        )
    rows: list[Row] = []
    for i, entry in enumerate(raw):
        where = f"deck.cards[{i}]"
        if not isinstance(entry, Mapping) or sorted(map(str, entry)) != sorted(ROW_KEYS):
            bad(
                "deck/bad_row",
                f'{where} must be an object of exactly "type", "year", "corner" and "count", '
                f"not {_shown(entry)}",
                where,
            )
            continue
        ok = True
        for key, low, high in (
            ("year", YEARS[0], YEARS[-1]),
            ("corner", MIN_CORNER, MAX_CORNER),
            ("count", MIN_COUNT, MAX_COUNT),
        ):
            value = entry[key]
            if not (is_int(value) and low <= value <= high):
                bad(
                    "deck/bad_row",
                    f"{where}: {key!r} must be a whole number from {low} to {high}, "
                    f"not {_shown(value)}",
                    f"{where}.{key}",
                )
                ok = False
        type_id = entry["type"]
        if not (isinstance(type_id, str) and type_id in known):
            ok = False
            if not (isinstance(type_id, str) and type_id in refused):
                bad(
                    "deck/unknown_type",
                    f"{where}: {_shown(type_id)} is no card type of the deck",
                    f"{where}.type",
                )
        if ok:
            rows.append(Row(type_id, entry["year"], entry["corner"], entry["count"]))
    if listed and len(rows) == len(raw):
        total = sum(r.count for r in rows)
        if total > MAX_CARDS:
            bad(
                "deck/bad_cards",
                f"deck: the rows add up to {total} cards; a deck has at most {MAX_CARDS}",
                "deck.cards",
            )
    return rows


def deck_problems(raw: object, seats: int | None) -> tuple[Deck | None, list[Problem]]:
    """FF4: a host's deck and every problem with it (codes ``deck/...``). The
    Year sizes are checked only when every other check passed and ``seats``
    (the player count, when the player list gives it) is known."""
    if not isinstance(raw, Mapping):
        return None, [
            Problem(
                "deck/not_object",
                'deck must be an object {"name", "types": [...], "cards": [...]} '
                f"(or null for the default deck), not {_shown(raw)}",
                "deck",
            )
        ]
    problems: list[Problem] = []

    def bad(code: str, message: str, where: str | None = None) -> None:
        problems.append(Problem(code, message, where))

    for key in raw:
        if key not in DECK_KEYS:
            bad(
                "deck/unknown_key",
                f"deck has the key {str(key)!r}; its keys are name, types and cards",
                f"deck.{key}",
            )
    name = raw.get("name")
    if name is not None and not (isinstance(name, str) and len(name) <= MAX_DECK_NAME):
        bad(
            "deck/bad_name",
            f"deck: 'name' must be a string of at most {MAX_DECK_NAME} characters, "
            f"not {_shown(name)}",
            "deck.name",
        )
    types, refused, listed = _types(raw.get("types"), bad)
    by_id = {t.id: t for t in types}
    farmer = by_id.get(COMMON_FARMER)
    common = farmer is not None and farmer.kind == "farmer" and farmer.grade == "common"
    if listed and COMMON_FARMER not in refused and not common:
        bad(
            "deck/no_common_farmer",
            f"deck: the type {COMMON_FARMER!r} must be defined as a common farmer "
            "(every seat's starting card)",
            "deck.types",
        )
    rows = _rows(raw.get("cards"), set(by_id), refused, bad)
    if problems:
        return None, problems
    deck = Deck(tuple(types), tuple(rows), name if isinstance(name, str) else None)
    if seats is not None:
        problems += year_size_problems(deck, seats)
    if problems:
        return None, problems
    return deck, []


def year_size_problems(deck: Deck, seats: int) -> list[Problem]:
    """FF4: each Year holds exactly 4 x (n + 1) cards with corner n or less."""
    wanted = year_size(seats)
    out: list[Problem] = []
    for year in YEARS:
        have = len(deck.year_cards(year, seats))
        if have != wanted:
            out.append(
                Problem(
                    "deck/year_size",
                    f"deck: Year {year} has {have} cards with corner {seats} or less; with "
                    f"{seats} players it needs exactly {wanted}",
                    "deck.cards",
                )
            )
    return out


def parse_deck(raw: object, seats: int | None = None) -> Deck:
    """FF4: a host's deck, or one RuleError listing every problem."""
    deck, problems = deck_problems(raw, seats)
    if problems:
        raise RuleError(problems)
    assert deck is not None
    return deck


@cache
def default_deck() -> Deck:
    """FF3: the default deck of 84 cards (``seeds/cards/fortune-famine.json``)."""
    path = bundled_dir("seeds") / "cards" / "fortune-famine.json"
    return parse_deck(json.loads(path.read_text(encoding="utf-8")))


def _shown(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:60] + "..."
