"""How a match moves on between steps (FF6-FF8, FF11-FF13): each season's
burn, reveal and Famines, the hire's pointer and automatic passes, the
placing of hired cards, who gets an attack turn, the economy step, and the
end. :func:`advance` runs everything automatic until a step needs orders
(its kind and acting seats then known from public facts, FF7) or the match
is over.

Pure: no Flask, SQL or click imports.
"""

from __future__ import annotations

from typing import Any

from .legal import attack_phase, gets_attack_turn, has_action
from .state import COTARR, DIVINA, PASS_SILVER, Hire, Round, Table


def begin(table: Table) -> Table:
    """FF5-FF6: the first season starts with the match; then the first step."""
    start_season(table)
    advance(table)
    return table


# ---- FF6, FF8 ----------------------------------------------------------------------------


def season_cards(table: Table) -> tuple[str, list[str]]:
    """FF6: the burned card and the revealed ones of the season under way:
    positions (j-1)(n+1)+1 .. j(n+1) of the Year deck, j the season's place
    in its Year."""
    n = table.count
    j = (table.season - 1) % table.per_year + 1
    chunk = table.years[table.year][(j - 1) * (n + 1) : j * (n + 1)]
    return chunk[0], chunk[1:]


def famine(table: Table, card: str) -> dict[str, Any]:
    """FF8: every seat, in seat order, loses half its unguarded grain rounded
    up; Divina/Daznul blocks the first Famine of each Year that would cost it
    grain while it has a token."""
    loss: dict[str, int] = {}
    blocked: list[int] = []
    for seat in table.seat_numbers():
        s = table.seats[seat]
        lost = (s.unguarded("grain") + 1) // 2
        if lost >= 1 and s.ruler == DIVINA and s.tokens > 0 and s.blocked != table.year:
            s.tokens -= 1
            s.blocked = table.year
            blocked.append(seat)
            lost = 0
        s.spend("grain", lost)
        loss[str(seat)] = lost
    return {"card": card, "loss": loss, "blocked": blocked}


def start_season(table: Table) -> None:
    """FF6, FF8: the burn and the reveal, each Famine in board order, and the
    hire's start at the round leader; every Trader may trade again (FF16)."""
    burned, revealed = season_cards(table)
    for s in table.seats.values():
        s.traded = False
    record: dict[str, Any] = {
        "season": table.season,
        "year": table.year,
        "leader": table.leader,
        "burned": burned,
        "revealed": list(revealed),
        "famines": [],
        "hire_turns": [],
        "hired": None,
        "unhired": None,
        "attacks": [],
        "economy": None,
    }
    table.seasons.append(record)
    for card in revealed:
        if table.deck.type_of(card).famine:
            record["famines"].append(famine(table, card))
    table.phase = "hire"
    table.hire = Hire(board=list(revealed), pointer=table.leader)
    table.attack_index = 0


# ---- FF10-FF12 ---------------------------------------------------------------------------


def hire_turn_json(
    seat: int,
    action: str,
    *,
    card: str | None = None,
    silver: int | None = None,
    discard: str | None = None,
    trade: dict[str, Any] | None = None,
    guard: dict[str, int] | None = None,
    auto: bool = False,
) -> dict[str, Any]:
    return {
        "seat": seat,
        "action": action,
        "card": card,
        "silver": silver,
        "discard": discard,
        "trade": trade,
        "guard": guard,
        "auto": auto,
    }


def do_pass(table: Table, seat: int) -> None:
    """FF10: the seat is out of this hire; Cotarr/Corace takes 2 silver."""
    assert table.hire is not None
    table.hire.passed.append(seat)
    if table.seats[seat].ruler == COTARR:
        table.seats[seat].gain("silver", PASS_SILVER)


def next_free(table: Table) -> int | None:
    """FF11: the first free seat in order from the pointer."""
    assert table.hire is not None
    for seat in table.from_seat(table.hire.pointer):
        if table.hire.status(seat) == "free":
            return seat
    return None


def after_turn(table: Table, seat: int) -> None:
    """FF11: the pointer moves to the seat after the one that acted."""
    assert table.hire is not None
    table.hire.pointer = seat % table.count + 1


def end_hire(table: Table) -> None:
    """FF12: each standing bid wins its card, each take and claim goes to its
    seat, which removes its named discard and adds the card at the end; the
    other hire cards are unhired, the Famines discarded."""
    hire = table.hire
    assert hire is not None
    hired: dict[str, Any] = {}
    for seat in table.seat_numbers():
        got = hire.got.get(seat)
        if got is None:
            hired[str(seat)] = None
            continue
        kingdom = table.seats[seat].kingdom
        if got.discard is not None:
            kingdom.remove(got.discard)
        kingdom.append(got.card)
        hired[str(seat)] = got.as_json()
    won = {g.card for g in hire.got.values()}
    table.record["hired"] = hired
    table.record["unhired"] = [
        c for c in hire.board if not table.deck.type_of(c).famine and c not in won
    ]
    table.hire = None
    table.phase = "attack" if attack_phase(table) else "economy"
    table.attack_index = 0


# ---- the next step -----------------------------------------------------------------------


def _open(table: Table, acting: tuple[int, ...]) -> None:
    assert table.phase is not None
    table.next = Round(table.closed + 1, table.season, table.phase, acting)


def advance(table: Table) -> None:
    """Everything automatic after a closed step (or at the start) until a step
    needs orders: FF11's automatic passes and the end of the hire, FF13's
    seats without an attack turn; ``table.next`` is then that step (None
    once the match is over)."""
    table.next = None
    while table.phase is not None:
        if table.phase == "hire":
            hire = table.hire
            assert hire is not None
            seat = next_free(table)
            if seat is None:
                end_hire(table)
                continue
            if not has_action(table, seat):
                do_pass(table, seat)
                table.record["hire_turns"].append(hire_turn_json(seat, "pass", auto=True))
                after_turn(table, seat)
                continue
            _open(table, (seat,))
            return
        if table.phase == "attack":
            order = table.from_seat(table.leader)
            while table.attack_index < len(order):
                seat = order[table.attack_index]
                if gets_attack_turn(table, seat):
                    _open(table, (seat,))
                    return
                table.attack_index += 1
            table.phase = "economy"
            table.attack_index = 0
            continue
        _open(table, tuple(table.seat_numbers()))
        return


def step_closed(table: Table) -> None:
    """After a step's orders are carried out: move the hire's pointer or the
    attack turns on, or after the economy step start the next season (or end
    the match, FF19); then :func:`advance`."""
    closed = table.next
    assert closed is not None
    table.rounds.append(closed)
    if closed.phase == "hire":
        after_turn(table, closed.acting[0])
    elif closed.phase == "attack":
        table.attack_index += 1
    elif table.season == table.seasons_total:
        table.phase = None
    else:
        table.season += 1
        start_season(table)
    advance(table)
