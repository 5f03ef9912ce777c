"""R1, R5, R6: garnet order, the draft and its conflict cycle."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from itertools import filterfalse
from typing import NamedTuple

HAND_SIZE = 9


class Conflict(NamedTuple):
    """One conflict of the draft (a named tuple: cheap to make, immutable)."""

    number: int  # 1, 2, 3, ... across the whole draft (the file's "index")
    round: int  # draft round 1-9
    card: str
    contenders: tuple[int, ...]  # ascending
    winner: int

    def as_dict(self) -> dict[str, object]:
        return {
            "index": self.number,
            "round": self.round,
            "card": self.card,
            "contenders": list(self.contenders),
            "winner": self.winner,
        }


class DraftResult(NamedTuple):
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
    n = len(seats)
    # each seat's list with the held cards skipped, lazily (``held`` is read at
    # each request), so a request is one ``next``
    free = [filterfalse(held.__contains__, lists[seat]) for seat in seats]
    dealt: list[Sequence[str]] = []  # per draft round, each seat's card (seat order)
    conflicts: list[Conflict] = []
    # each round starts with one request per seat: the next card of each ``free``
    for draft_round, first in zip(range(1, rounds + 1), zip(*free, strict=True), strict=False):
        requests: Sequence[str] = first  # position in ``seats`` -> card requested
        size = len(held)
        held.update(first)  # every card requested goes to someone this round
        if len(held) - size < n:  # some request is shared
            requests = list(first)
            _settle(draft_round, requests, free, held, seats, order, conflicts)
        dealt.append(requests)
    hands = zip(*dealt, strict=True) if dealt else [()] * n
    return DraftResult(dict(zip(seats, hands, strict=True)), tuple(conflicts))


def _settle(
    draft_round: int,
    requests: list[str],
    free: Sequence[Iterator[str]],
    held: set[str],
    seats: Sequence[int],
    order: Sequence[int],
    conflicts: list[Conflict],
) -> None:
    """R5/R6 for a draft round whose first requests are not all different: each
    shared request is a conflict, resolved at once (in the order of the first
    seat requesting it); the losers request again, until the requests differ."""
    waiting: Sequence[int] = range(len(seats))
    while True:
        by_card: dict[str, list[int]] = {}  # card -> the positions requesting it
        for w in waiting:
            by_card.setdefault(requests[w], []).append(w)
        if len(by_card) == len(waiting):
            return
        losers: list[int] = []
        for card, ws in by_card.items():
            if len(ws) > 1:  # a conflict (R6)
                contenders = tuple(map(seats.__getitem__, ws))
                index = len(conflicts) + 1
                seat = conflict_winner(index, contenders, order)
                conflicts.append(Conflict(index, draft_round, card, contenders, seat))
                ws.remove(seats.index(seat))
                losers += ws
        waiting = sorted(losers)
        for w in waiting:  # the losers request again, all at once
            requests[w] = next(free[w])
        held.update(map(requests.__getitem__, waiting))  # each goes to someone
        if len(waiting) == 1:  # a lone request cannot be shared
            return
