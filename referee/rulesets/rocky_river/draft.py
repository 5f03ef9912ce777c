"""R1, R5, R6: garnet order, the draft and its conflict cycle."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

HAND_SIZE = 9


@dataclass(frozen=True, slots=True)
class Conflict:
    """One conflict of the draft."""

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
    seats = sorted(lists)
    wanted = [lists[seat] for seat in seats]
    got: list[list[str]] = [[] for _ in seats]
    cursor = [0] * len(seats)  # first index on each list that may still be free
    everyone = tuple(range(len(seats)))
    conflicts: list[Conflict] = []
    for draft_round in range(1, rounds + 1):
        waiting: Sequence[int] = everyone  # positions in ``seats``, ascending
        while waiting:
            picked: dict[str, int] = {}  # card -> the first position requesting it
            shared = False
            for w in waiting:
                mine = wanted[w]
                i = cursor[w]
                while mine[i] in held:
                    i += 1
                cursor[w] = i
                card = mine[i]
                if card in picked:
                    shared = True
                else:
                    picked[card] = w
            if not shared:  # every request granted
                for card, w in picked.items():
                    got[w].append(card)
                held.update(picked)
                break
            requests: dict[str, list[int]] = {}  # card -> every position requesting it
            for w in waiting:
                requests.setdefault(wanted[w][cursor[w]], []).append(w)
            still: list[int] = []
            for card, ws in requests.items():
                if len(ws) == 1:
                    winner = ws[0]
                else:  # a conflict (R6), resolved at once
                    contenders = tuple(seats[w] for w in ws)
                    index = len(conflicts) + 1
                    seat = conflict_winner(index, contenders, order)
                    conflicts.append(Conflict(index, draft_round, card, contenders, seat))
                    winner = seats.index(seat)
                    still.extend(w for w in ws if w != winner)
                held.add(card)
                got[winner].append(card)
            waiting = sorted(still)
    return DraftResult(
        {seat: tuple(cards) for seat, cards in zip(seats, got, strict=True)}, tuple(conflicts)
    )
