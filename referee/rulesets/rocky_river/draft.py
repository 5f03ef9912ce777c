"""R1, R5, R6: garnet order, the draft and its conflict cycle."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

HAND_SIZE = 9


@dataclass(frozen=True, slots=True)
class Conflict:
    index: int  # 1, 2, 3, ... across the whole draft
    round: int  # draft round 1-9
    card: str
    contenders: tuple[int, ...]  # ascending
    winner: int

    def as_dict(self) -> dict[str, object]:
        return {
            "index": self.index,
            "round": self.round,
            "card": self.card,
            "contenders": list(self.contenders),
            "winner": self.winner,
        }


@dataclass(frozen=True)
class DraftResult:
    hands: dict[int, tuple[str, ...]]  # in the order received
    conflicts: tuple[Conflict, ...]


def garnet_order(garnets: Mapping[int, int]) -> tuple[int, ...]:
    """R1: seats by garnets, most first; equal garnets by seat, lower first."""
    return tuple(sorted(garnets, key=lambda seat: (-garnets[seat], seat)))


def conflict_winner(index: int, contenders: Sequence[int], order: Sequence[int]) -> int:
    """R6: conflict ``index`` designates garnet position (index - 1) mod n; the card
    goes to the first contender in the garnet order read cyclically from there."""
    n = len(order)
    start = (index - 1) % n
    for step in range(n):
        seat = order[(start + step) % n]
        if seat in contenders:
            return seat
    raise ValueError(f"no contender {list(contenders)} is in the garnet order {list(order)}")


def run_draft(
    lists: Mapping[int, Sequence[str]], order: Sequence[int], rounds: int = HAND_SIZE
) -> DraftResult:
    """R5: ``lists`` are complete, valid priority lists (canonical ids) per seat.

    In each draft round every seat still without a card this round requests the
    first card on its list that nobody holds; unshared requests are granted, a
    shared one is a conflict resolved at once by :func:`conflict_winner`, and the
    losers request again until every seat has one card this round.
    """
    held: set[str] = set()
    hands: dict[int, list[str]] = {seat: [] for seat in lists}
    cursor = dict.fromkeys(lists, 0)  # first index on each list that may still be free
    conflicts: list[Conflict] = []
    for draft_round in range(1, rounds + 1):
        waiting = sorted(lists)
        while waiting:
            requests: dict[str, list[int]] = {}
            for seat in waiting:
                wanted = lists[seat]
                i = cursor[seat]
                while wanted[i] in held:
                    i += 1
                cursor[seat] = i
                requests.setdefault(wanted[i], []).append(seat)
            still: list[int] = []
            for card, seats in requests.items():
                if len(seats) == 1:
                    winner = seats[0]
                else:
                    index = len(conflicts) + 1
                    winner = conflict_winner(index, seats, order)
                    conflicts.append(Conflict(index, draft_round, card, tuple(seats), winner))
                    still.extend(s for s in seats if s != winner)
                held.add(card)
                hands[winner].append(card)
            waiting = sorted(still)
    return DraftResult({s: tuple(h) for s, h in hands.items()}, tuple(conflicts))
