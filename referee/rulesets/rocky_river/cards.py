"""R2: the 27 cards, their faces and the names people may type for them."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

COLORS: tuple[str, ...] = ("red", "green", "blue")


@dataclass(frozen=True, slots=True)
class Face:
    color: str
    value: int


@dataclass(frozen=True, slots=True)
class Card:
    id: str
    faces: tuple[Face, Face]

    def value_for(self, color: str) -> int | None:
        """The value of this card's face of ``color``, or None if it has none."""
        for face in self.faces:
            if face.color == color:
                return face.value
        return None

    def describe(self) -> str:
        return f"{self.id} ({', '.join(f'{f.color} {f.value}' for f in self.faces)})"


class Deck:
    """The card list in canonical order, with look-ups by id and alias."""

    __slots__ = ("_names", "by_id", "cards", "id_set", "ids", "order")

    def __init__(self, cards: Sequence[Card], aliases: Mapping[str, str] | None = None) -> None:
        self.cards: tuple[Card, ...] = tuple(cards)
        self.ids: tuple[str, ...] = tuple(c.id for c in self.cards)
        self.id_set: frozenset[str] = frozenset(self.ids)
        self.by_id: dict[str, Card] = {c.id: c for c in self.cards}
        self.order: dict[str, int] = {c.id: i for i, c in enumerate(self.cards)}
        self._names: dict[str, str] = {c.id.upper(): c.id for c in self.cards}
        for alias, target in (aliases or {}).items():
            if target not in self.by_id:
                raise ValueError(f"alias {alias!r} names unknown card {target!r}")
            self._names[_fold(alias)] = target

    def canonical(self, name: object) -> str | None:
        """The canonical id of the card a person called ``name``, or None.

        Ids are case-insensitive, surrounding white space is ignored, and the
        aliases of R2 (``Ace of Spades``, ``AoS``, ``Ace``) name AS.
        """
        if not isinstance(name, str):
            return None
        exact = self._names.get(name)  # fast path: canonical ids as written
        return exact if exact is not None else self._names.get(_fold(name))

    def sort(self, ids: Iterable[str]) -> list[str]:
        """``ids`` in canonical card order (A..Z, AS)."""
        return sorted(ids, key=self.order.__getitem__)

    def __len__(self) -> int:
        return len(self.cards)


def _fold(name: str) -> str:
    return " ".join(name.split()).upper()


def deck_from_json(doc: Mapping[str, Any]) -> Deck:
    """Build a deck from the card file format of ``seeds/cards/*.json``."""
    cards = tuple(
        Card(
            id=str(c["id"]),
            faces=(
                Face(str(c["faces"][0]["color"]), int(c["faces"][0]["value"])),
                Face(str(c["faces"][1]["color"]), int(c["faces"][1]["value"])),
            ),
        )
        for c in doc["cards"]
    )
    return Deck(cards, dict(doc.get("aliases", {})))
