"""The rules' limits as small predicates and lists: Kingdom limits (FF9) and
the discards that make room (FF12), whether a seat has an action but pass
(FF11), who gets an attack turn and whom it may name (FF13, FF14), and
every outcome of an economy order (FF16-FF18). The order checks
(:mod:`.orders`) give each broken rule its code; the options
(:mod:`.options`) and the flow (:mod:`.flow`) list what is legal with these.

Pure: no Flask, SQL or click imports.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from itertools import combinations

from .cards import LINE, UNIQUE
from .state import ARUP, BESELLA, ELBAN, FELARREN, KINGDOM_SIZE, Table

MAX_TRADE = 3  # FF16
PICKPOCKET_SILVER = 2  # FF13
PICKPOCKET_MIN_SILVER = 2  # FF13: "cannot take an opponent's last silver"
MAX_PICKPOCKET_TARGETS = 2


# ---- FF9, FF12 ---------------------------------------------------------------------------


def kingdom_size(table: Table, seat: int) -> int:
    """FF9: 5 cards, Felarren/Fiagro 6."""
    return KINGDOM_SIZE + (1 if table.seats[seat].ruler == FELARREN else 0)


def breaks_limit(table: Table, cards: Sequence[str]) -> bool:
    """FF9's kind limits: at most 2 of each line worker kind, at most 1 of
    them skilled; at most 1 of each unique worker kind."""
    for kind in LINE:
        of_kind = [table.deck.type_of(c) for c in cards if table.kind(c) == kind]
        if len(of_kind) > 2 or sum(1 for t in of_kind if t.grade == "skilled") > 1:
            return True
    return any(sum(1 for c in cards if table.kind(c) == kind) > 1 for kind in UNIQUE)


def fits(table: Table, seat: int, cards: Sequence[str]) -> bool:
    """FF9: ``cards`` as the seat's Kingdom keeps the size and the kind limits."""
    return len(cards) <= kingdom_size(table, seat) and not breaks_limit(table, cards)


def discards_for(table: Table, seat: int, card: str) -> list[str] | None:
    """FF12: None when ``card`` fits the Kingdom as it is, else the Kingdom
    cards (arrival order) whose removal lets it fit (never empty)."""
    kingdom = table.seats[seat].kingdom
    if fits(table, seat, [*kingdom, card]):
        return None
    return [d for d in kingdom if fits(table, seat, [*(c for c in kingdom if c != d), card])]


# ---- FF10, FF11 --------------------------------------------------------------------------


def lowest_bid(table: Table, card: str) -> int:
    """FF10: 1 on a worker without a bid, else the standing bid + 1."""
    assert table.hire is not None
    standing = table.hire.standing_bid(card)
    return 1 if standing is None else standing.silver + 1


def silver_reach(table: Table, seat: int) -> int:
    """FF11: the seat's silver, plus min(3, its grain) if it holds a Trader
    that has not traded this season."""
    s = table.seats[seat]
    return s.silver + (min(MAX_TRADE, s.grain) if table.can_trade(seat) else 0)


def open_wizards(table: Table) -> list[str]:
    """FF10: the wizards on the board nobody has taken, board order."""
    assert table.hire is not None
    return [c for c in table.hire.board if table.deck.type_of(c).wizard and not table.hire.taken(c)]


def open_workers(table: Table) -> list[str]:
    """FF10: the workers on the board nobody has claimed, board order."""
    assert table.hire is not None
    return [c for c in table.hire.board if table.deck.type_of(c).worker and not table.hire.taken(c)]


def can_claim(table: Table, seat: int) -> bool:
    """FF10: Elban/Eltezza with a token left."""
    s = table.seats[seat]
    return s.ruler == ELBAN and s.tokens > 0


def has_action(table: Table, seat: int) -> bool:
    """FF11: the seat has an action but pass: a wizard nobody has taken, or a
    worker nobody has claimed that it may claim or bid on within its reach."""
    if open_wizards(table):
        return True
    workers = open_workers(table)
    if workers and can_claim(table, seat):
        return True
    reach = silver_reach(table, seat)
    return any(lowest_bid(table, c) <= reach for c in workers)


# ---- FF13, FF14 --------------------------------------------------------------------------


def holds_attacking(table: Table, seat: int) -> bool:
    return any(table.deck.type_of(c).attacking for c in table.seats[seat].kingdom)


def attack_phase(table: Table) -> bool:
    """FF13: Years 2 and 3, when some seat holds a Pickpocket or an Evrathor."""
    return table.year >= 2 and any(holds_attacking(table, s) for s in table.seats)


def gets_attack_turn(table: Table, seat: int) -> bool:
    """FF13: when its turn comes the seat holds an attacking card, or a Trader
    that has not traded this season, or is Besella/Baroso."""
    return (
        holds_attacking(table, seat) or table.can_trade(seat) or table.seats[seat].ruler == BESELLA
    )


def pickpocket_immune(table: Table, target: int) -> bool:
    """FF13: holds a Pickpocket, is Arup/Avintia, or has fewer than 2 unguarded silver."""
    t = table.seats[target]
    return (
        table.holds_kind(target, "pickpocket")
        or t.ruler == ARUP
        or t.unguarded("silver") < PICKPOCKET_MIN_SILVER
    )


def pickpocket_targets(table: Table, seat: int) -> list[int]:
    """FF13: the opponents a Pickpocket may name now, ascending."""
    return [t for t in table.others(seat) if not pickpocket_immune(table, t)]


def evrathor_immune(table: Table, target: int, steals: str) -> bool:
    """FF14: a Seer's holder; Arup/Avintia in a silver theft."""
    return table.holds_kind(target, "seer") or (
        steals == "silver" and table.seats[target].ruler == ARUP
    )


def evrathor_caps(table: Table, seat: int, card: str) -> dict[int, int]:
    """FORMAT's options: each opponent an Evrathor may name and the most it
    alone may give: min(amount, amount // 2 for ``must``, its unguarded grain
    or silver for such a theft); storage is secret and ignored; 0 left out."""
    ctype = table.deck.type_of(card)
    steals = ctype.steals or ""
    out: dict[int, int] = {}
    for target in table.others(seat):
        if evrathor_immune(table, target, steals):
            continue
        cap = ctype.amount // 2 if ctype.split == "must" else ctype.amount
        if steals in ("grain", "silver"):
            cap = min(cap, table.seats[target].unguarded(steals))  # type: ignore[arg-type]
        if cap > 0:
            out[target] = cap
    return out


# ---- FF16-FF18: the outcomes of an economy order -----------------------------------------


@dataclass(frozen=True)
class Trade:
    """FF16: give ``count`` of ``give`` for as many of the other, at ``at``."""

    give: str
    count: int
    at: str = "payment"


@dataclass(frozen=True)
class Outcome:
    """One combination of an economy order's trade, payments, double and
    Chysarion uses (FF16, FF17), and what the seat holds at the decision."""

    trade: Trade | None
    pay: tuple[str, ...]
    double: str | None
    chysarion: tuple[str, ...]
    grain: int  # at the decision
    silver: int
    stored: int  # gained before the decision (Steward, Chysarion)


def trades(table: Table, seat: int) -> list[Trade | None]:
    """FF16: no trade, and every trade a Trader that has not traded could
    name (affordable or not: the outcomes check that)."""
    out: list[Trade | None] = [None]
    if table.can_trade(seat):
        out += [
            Trade(give, count, at)
            for at in ("payment", "decision")
            for give in ("grain", "silver")
            for count in range(1, MAX_TRADE + 1)
        ]
    return out


def _swap(grain: int, silver: int, trade: Trade) -> tuple[int, int] | None:
    if trade.give == "grain":
        return (grain - trade.count, silver + trade.count) if grain >= trade.count else None
    return (grain + trade.count, silver - trade.count) if silver >= trade.count else None


def economy_outcomes(table: Table, seat: int, *, all_chysarions: bool = False) -> Iterator[Outcome]:
    """FF16-FF17: every legal combination of trade, payments, double and
    Chysarion uses of the seat's economy order, with what it then holds at
    the decision (before it). With ``all_chysarions`` only the combinations
    using every Chysarion (they only ever add)."""
    s = table.seats[seat]
    deck = table.deck
    kingdom = s.kingdom
    payable = [c for c in kingdom if deck.type_of(c).needs_payment]
    free = [c for c in kingdom if deck.type_of(c).worker and not deck.type_of(c).needs_payment]
    wizards = [c for c in kingdom if deck.type_of(c).kind == "chysarion"]
    philosopher = table.holds_kind(seat, "philosopher")
    free_reward = [sum(deck.type_of(c).reward[i] for c in free) for i in range(3)]
    chysarion_sets = (
        [tuple(wizards)]
        if all_chysarions
        else [tuple(x) for k in range(len(wizards) + 1) for x in combinations(wizards, k)]
    )
    for trade in trades(table, seat):
        grain, silver = s.grain, s.silver
        if trade is not None and trade.at == "payment":
            swapped = _swap(grain, silver, trade)
            if swapped is None:
                continue
            grain, silver = swapped
        for k in range(len(payable) + 1):
            for pay in combinations(payable, k):
                doubles: list[str | None] = [None]
                if philosopher:
                    doubles += [c for c in pay if deck.type_of(c).common_line]
                for double in doubles:
                    times = {c: 2 if c == double else 1 for c in pay}
                    cost_g = sum(deck.type_of(c).payment[0] * times[c] for c in pay)
                    cost_s = sum(deck.type_of(c).payment[1] * times[c] for c in pay)
                    if cost_g > grain or cost_s > silver:
                        continue
                    g = grain - cost_g + free_reward[0]
                    sv = silver - cost_s + free_reward[1]
                    st = free_reward[2]
                    for c in pay:
                        reward = deck.type_of(c).reward
                        g += reward[0] * times[c]
                        sv += reward[1] * times[c]
                        st += reward[2] * times[c]
                    for used in chysarion_sets:
                        cg, cs, cst = g, sv, st
                        for c in used:
                            ctype = deck.type_of(c)
                            if ctype.gives == "grain":
                                cg += ctype.amount
                            elif ctype.gives == "silver":
                                cs += ctype.amount
                            else:
                                cst += ctype.amount
                        if trade is not None and trade.at == "decision":
                            swapped = _swap(cg, cs, trade)
                            if swapped is None:
                                continue
                            cg, cs = swapped
                        yield Outcome(trade, pay, double, used, cg, cs, cst)


def store_max(table: Table, seat: int) -> int:
    """FORMAT's options: the most grain any legal economy order of the seat
    could store now (0 when none can): grain at the decision, with 1 silver
    left to pay for the store."""
    best = 0
    for out in economy_outcomes(table, seat, all_chysarions=True):
        if out.silver >= 1:
            best = max(best, out.grain)
    return best
