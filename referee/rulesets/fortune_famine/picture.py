"""Pictures of a Fortune & Famine match, drawn as SVG from a view (the server
makes the PNG from the same SVG).

Each reads only the view it is given, whose ``result`` is already what that
viewer may see (FF21), so a picture never shows more than the page it sits
on: a seat's stored grain is drawn only where the view has it (its owner's
view, the host's, everyone's at the end), elsewhere a "hidden" mark; a burned
card only where the view has it. A panel drawn from a seat's view for another
seat is the public view's panel, byte for byte.

- :func:`kingdoms_svg` (two panels a row, 744 wide) and
  :func:`kingdoms_column_svg` (one a row, 376 wide, for phones): each seat's
  ruler and its power, its grain, silver (with Besella/Baroso's guard), stored
  grain, tokens, workers and garnets, whether it leads the season or acts now,
  what it gets in the season's hire, its place, Token of Life or Elimination
  Candidate at the end, and its
  Kingdom's cards in arrival order, each with its numbers (FF3), the spaces
  left drawn empty (FF9).
- :func:`board_svg` and :func:`board_column_svg`: the Hire Board of the season
  under way (the last started): the burned card (or "hidden"), each revealed
  card in board order with its numbers and where it stands (no bid, the
  standing bid and its bidder, taken, claimed; once the hire is over who hired
  it for how much, or unhired), each Famine with every seat's loss; each
  seat's place in the hire (free, waiting, out; FF11) and the open step: who
  acts now.
- :func:`resources_svg` and :func:`resources_column_svg`: a small chart a
  seat of its grain, silver and stored grain at the start and after each
  season (and now, in a season under way), worked out from the seasons'
  record the result keeps (it keeps no totals per season: FF5's starting
  resources and each season's Famines, hire, attacks and economy step give
  them); a seat's stored grain only where the view has it. Each chart has its
  own scale, so a panel drawn from a seat's view for another seat is the
  public one.

Colour is never the only signal: every number, state and role is written, the
chart's lines differ by dash and marker. Every string a user wrote (the
match's name, players' names, a host deck's card names) is put on one line,
cut to its room and escaped. Odd values (a damaged stored result) draw what
they can, never raise. The output is a pure function of the view.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any
from xml.sax.saxutils import quoteattr

from referee import picture as shared

from .cards import COMMON_FARMER, START, default_deck
from .state import (
    ARUP,
    BESELLA,
    COTARR,
    DIVINA,
    ELBAN,
    FELARREN,
    KINGDOM_SIZE,
    PASS_SILVER,
    START_GRAIN,
    START_SILVER,
    YEARS,
)

FONT, INK, MUTED = shared.FONT, shared.INK, shared.MUTED
WHITE = "#ffffff"
PANEL_FILL = "#f9fafb"
EDGE = "#d1d5db"
PANEL_W = 360
GAP = 8
WIDE = 2 * PANEL_W + 3 * GAP  # 744: two panels a row
NARROW = PANEL_W + 2 * GAP  # 376: one a row, a phone's width
SMALL = 11  # the smallest font size used
LINE = 15  # a legend's line height
MAX_ROWS = 8  # Kingdom rows drawn at most (a real Kingdom has 6 at most)
MAX_SEATS = 12  # panels drawn at most (a real match has 6 seats at most)

SEAT_COLORS: dict[int, tuple[str, str]] = {
    1: ("#1d4ed8", "#dbeafe"),
    2: ("#b91c1c", "#fee2e2"),
    3: ("#047857", "#d1fae5"),
    4: ("#6d28d9", "#ede9fe"),
    5: ("#9a3412", "#ffedd5"),
    6: ("#0e7490", "#cffafe"),
}
OTHER_SEAT = ("#374151", "#e5e7eb")
# card kinds: an edge colour and a face tint (text is INK or MUTED on the tint)
KIND_COLORS: dict[str, tuple[str, str]] = {
    "famine": ("#7f1d1d", "#fee2e2"),
    "farmer": ("#a16207", "#fef9c3"),
    "merchant": ("#475569", "#f1f5f9"),
    "jester": ("#be185d", "#fce7f3"),
    "steward": ("#15803d", "#dcfce7"),
    "pickpocket": ("#0f766e", "#ccfbf1"),
    "philosopher": ("#0f766e", "#ccfbf1"),
    "seer": ("#0f766e", "#ccfbf1"),
    "trader": ("#0f766e", "#ccfbf1"),
    "chysarion": ("#6d28d9", "#ede9fe"),
    "evrathor": ("#6d28d9", "#ede9fe"),
}
UNKNOWN_KIND = ("#6b7280", "#f3f4f6")
# the chart's series: colour, dash, marker (the dash and the marker tell them apart)
SERIES: dict[str, tuple[str, str, str]] = {
    "grain": ("#a16207", "", "circle"),
    "silver": ("#475569", "7 4", "square"),
    "stored": ("#15803d", "2 3", "triangle"),
}
FAMINE_BAND = "#fee2e2"
HIDDEN = "hidden"

RULER_NAMES = {
    ARUP: "Arup/Avintia",
    BESELLA: "Besella/Baroso",
    COTARR: "Cotarr/Corace",
    DIVINA: "Divina/Daznul",
    ELBAN: "Elban/Eltezza",
    FELARREN: "Felarren/Fiagro",
}
RULER_POWERS = {
    ARUP: "its silver cannot be stolen",
    BESELLA: "guards up to 3 grain/silver",
    COTARR: f"+{PASS_SILVER} silver on each pass",
    DIVINA: "blocks a Famine a Year (token)",
    ELBAN: "claims a worker (token)",
    FELARREN: f"{KINGDOM_SIZE + 1} Kingdom spaces",
}
TOKEN_RULERS = (DIVINA, ELBAN)
KIND_WORDS = {
    "famine": "Famine",
    "farmer": "Farmer",
    "merchant": "Merchant",
    "jester": "Jester",
    "steward": "Steward",
    "pickpocket": "Pickpocket",
    "philosopher": "Philosopher",
    "seer": "Seer",
    "trader": "Trader",
    "chysarion": "Chysarion",
    "evrathor": "Evrathor",
}
LEVEL_WORDS = {
    "stored_grain": "stored grain",
    "grain": "grain",
    "silver": "silver",
    "workers": "workers",
    "garnets": "garnets",
    "seat": "seat number",
}
PHASE_WORDS = {"hire": "hire turn", "attack": "attack turn", "economy": "economy step"}


# ---- what the view says ----------------------------------------------------------------


def _int(value: object) -> int | None:
    """A whole number from the view (JSON numbers and digit strings), else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.isascii() and value.isdigit() and len(value) < 12:
        return int(value)
    return None


def _map(value: object) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _list(value: object) -> list[Any]:
    return list(value) if isinstance(value, list) else []


def _seat_list(value: object) -> list[int]:
    found = (_int(s) for s in _list(value))
    return [s for s in found if s is not None]


def _result(view: Mapping[str, Any]) -> Mapping[str, Any] | None:
    result = view.get("result") if isinstance(view, Mapping) else None
    return result if isinstance(result, Mapping) else None


def player_names(view: Mapping[str, Any]) -> dict[int, str]:
    """Each seat's display name, from the view's players (or its result's)."""
    out: dict[int, str] = {}
    for player in _players(view):
        seat, name = _int(player.get("seat")), player.get("name")
        if seat is not None and isinstance(name, str) and shared.clean(name).strip():
            out[seat] = name
    return out


def player_garnets(view: Mapping[str, Any]) -> dict[int, int]:
    """Each seat's garnets (FF1), from the view's players."""
    out: dict[int, int] = {}
    for player in _players(view):
        seat, garnets = _int(player.get("seat")), _int(player.get("garnets"))
        if seat is not None and garnets is not None:
            out[seat] = garnets
    return out


def _players(view: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    result = _result(view) or {}
    out: list[Mapping[str, Any]] = []
    for source in (result.get("players"), view.get("players")):
        out.extend(p for p in _list(source) if isinstance(p, Mapping))
    return out


def seats_of(result: Mapping[str, Any]) -> dict[int, Mapping[str, Any]]:
    """The result's seats by number (what is not a seat left out), at most MAX_SEATS."""
    out: dict[int, Mapping[str, Any]] = {}
    for key, raw in _map(result.get("seats")).items():
        seat = _int(key)
        if seat is not None and seat >= 1:
            out[seat] = _map(raw)
    return dict(sorted(out.items())[:MAX_SEATS])


def deck_types(view: Mapping[str, Any]) -> dict[str, Mapping[str, Any]]:
    """The match's card types by id: the deck the view carries (in its result,
    or at its top level), else the default deck (FF3)."""
    result = _result(view) or {}
    for raw in (result.get("deck"), view.get("deck")):
        types = _map(raw).get("types")
        if isinstance(types, list):
            out = {
                str(t["id"]): t
                for t in types
                if isinstance(t, Mapping) and isinstance(t.get("id"), str)
            }
            if out:
                return out
    return {t["id"]: t for t in default_deck().as_json()["types"]}


def type_of(types: Mapping[str, Mapping[str, Any]], card: object) -> Mapping[str, Any] | None:
    """A card's type (a starting farmer is a Common Farmer, FF3); None when unknown."""
    if not isinstance(card, str):
        return None
    if card.startswith(START + "."):
        return types.get(COMMON_FARMER)
    return types.get(card.rsplit(".", 1)[0])


def _amounts(raw: object, keys: Sequence[str]) -> dict[str, int]:
    given = _map(raw)
    return {k: max(0, _int(given.get(k)) or 0) for k in keys}


def _kind(ctype: Mapping[str, Any] | None) -> str:
    kind = ctype.get("kind") if ctype is not None else None
    return kind if isinstance(kind, str) else ""


def _resource_words(amounts: Mapping[str, int]) -> str:
    words = {"grain": "grain", "silver": "silver", "stored": "stored grain"}
    parts = [f"{n} {words[k]}" for k, n in amounts.items() if n]
    return ", ".join(parts) if parts else "nothing"


def card_name(types: Mapping[str, Mapping[str, Any]], card: object) -> str:
    """The card's type name (a host's deck may name it), else its id."""
    ctype = type_of(types, card)
    name = ctype.get("name") if ctype is not None else None
    if isinstance(name, str) and shared.clean(name).strip():
        return name
    return str(card)


def effect_text(types: Mapping[str, Mapping[str, Any]], card: object) -> str:
    """What a card does, in words and numbers (FF3)."""
    ctype = type_of(types, card)
    if ctype is None:
        return "a card this deck does not know"
    kind = _kind(ctype)
    word = KIND_WORDS.get(kind, "card")
    grade = ctype.get("grade")
    if grade in ("common", "skilled"):
        word += f", {grade}"
    if kind == "famine":
        return "every seat loses half its unguarded grain"
    if kind in ("farmer", "merchant", "jester", "steward"):
        pay = _amounts(ctype.get("payment"), ("grain", "silver"))
        reward = _resource_words(_amounts(ctype.get("reward"), ("grain", "silver", "stored")))
        if any(pay.values()):
            return f"{word}: pay {_resource_words(pay)} \u2192 {reward}"
        return f"{word}: no payment \u2192 {reward}"
    if kind == "pickpocket":
        return f"{word}: +2 silver in an attack turn"
    if kind == "philosopher":
        return f"{word}: pays a common worker twice"
    if kind == "seer":
        return f"{word}: no Evrathor can name it"
    if kind == "trader":
        return f"{word}: trades 1\u20133, 1 for 1, a season"
    amount = max(0, _int(ctype.get("amount")) or 0)
    if kind == "chysarion":
        gives = ctype.get("gives")
        what = "grain into storage" if gives == "stored" else str(gives)
        return f"{word}: gives {amount} {shared.fit(what, 80, SMALL)}, once"
    if kind == "evrathor":
        steals = ctype.get("steals")
        what = "stored grain" if steals == "stored" else str(steals)
        split = {
            "none": "from one opponent",
            "may": "may be split",
            "must": f"{amount // 2} at most from each",
        }.get(str(ctype.get("split")), "")
        tail = f" ({split})" if split else ""
        return f"{word}: steals {amount} {shared.fit(what, 80, SMALL)}{tail}, once"
    return word


def ruler_name(ruler: object) -> str:
    if isinstance(ruler, str):
        return RULER_NAMES.get(ruler, ruler)
    return "no ruler"


def ordinal(n: int) -> str:
    if 10 <= n % 100 <= 20:
        return f"{n}th"
    return f"{n}{ {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th') }"


def seasons_total(result: Mapping[str, Any]) -> int:
    total = _int(result.get("seasons_total"))
    started = len(_list(result.get("seasons")))
    if total is None or not 1 <= total <= 100:
        return max(1, started)
    return max(total, started)


def year_of(result: Mapping[str, Any], season: int) -> int:
    per_year = max(1, seasons_total(result) // YEARS)
    return (season - 1) // per_year + 1


def next_round(result: Mapping[str, Any]) -> tuple[int | None, str, list[int]]:
    """The open step: its round, phase (``""`` when none) and acting seats."""
    nxt = _map(result.get("next_round"))
    phase = nxt.get("phase")
    phase = phase if phase in PHASE_WORDS else ""
    return _int(nxt.get("round")), str(phase), _seat_list(nxt.get("acting"))


def state_text(result: Mapping[str, Any]) -> str:
    """Which moment a picture shows, for people."""
    total = seasons_total(result)
    closed = len(_list(result.get("rounds")))
    if result.get("finished") is True:
        return f"final, after all {total} seasons ({closed} rounds)"
    records = [r for r in _list(result.get("seasons")) if isinstance(r, Mapping)]
    season = _int(records[-1].get("season")) if records else None
    text = "at the start" if closed == 0 else f"after round {closed}"
    if season is not None:
        text += f", season {season} of {total} (Year {year_of(result, season)})"
    rnd, phase, acting = next_round(result)
    if phase:
        text += f"; now round {rnd}: " + acting_text(phase, acting)
    return text


def acting_text(phase: str, acting: Sequence[int]) -> str:
    if phase == "economy":
        return "the economy step, every seat acts"
    who = " and ".join(f"seat {s}" for s in acting) or "no seat"
    return f"{PHASE_WORDS.get(phase, 'step')} of {who}"


# ---- the season's hire (FF10-FF12) -----------------------------------------------------


@dataclass(frozen=True)
class Got:
    """A seat's card in the hire: a standing bid, a take or a claim."""

    card: str
    how: str
    silver: int
    discard: str | None


@dataclass
class HireState:
    """The hire as its recorded turns left it (FF11): each seat's card and
    the seats out by a pass (``auto``: FF11's automatic pass)."""

    got: dict[int, Got] = field(default_factory=dict)
    passed: dict[int, bool] = field(default_factory=dict)  # seat -> auto

    def holder(self, card: str) -> int | None:
        return next((s for s, g in self.got.items() if g.card == card), None)


def hire_state(record: Mapping[str, Any]) -> HireState:
    """The hire of a season's record: a bid outbid or a claim over it gives the card
    to the later seat (its earlier holder is free again)."""
    out = HireState()
    for raw in _list(record.get("hire_turns")):
        turn = _map(raw)
        seat, action = _int(turn.get("seat")), turn.get("action")
        if seat is None:
            continue
        if action == "pass":
            out.passed[seat] = turn.get("auto") is True
            continue
        card = turn.get("card")
        if action not in ("bid", "take", "claim") or not isinstance(card, str):
            continue
        holder = out.holder(card)
        if holder is not None:
            del out.got[holder]
        silver = (_int(turn.get("silver")) or 0) if action == "bid" else 0
        discard = turn.get("discard")
        out.got[seat] = Got(
            card, str(action), silver, discard if isinstance(discard, str) else None
        )
    return out


# ---- resources over the seasons --------------------------------------------------------


@dataclass(frozen=True)
class Point:
    """A seat's resources at one moment: ``x`` is the season whose end it is
    (0: the start), or a half for "now" in a season under way; ``stored`` is
    None where the view hides it."""

    x: float
    grain: int
    silver: int
    stored: int | None


def _trade(res: list[int], trade: object) -> None:
    given = _map(trade)
    count = _int(given.get("count")) or 0
    if given.get("give") == "grain":
        res[0] -= count
        res[1] += count
    elif given.get("give") == "silver":
        res[1] -= count
        res[0] += count


_INDEX = {"grain": 0, "silver": 1, "stored": 2}


def history(view: Mapping[str, Any]) -> dict[int, list[Point]]:
    """Each seat's grain, silver and stored grain at the start (FF5) and after
    each season's economy step, and now in a season under way, worked out from
    the seasons' record (famine losses, hire trades, Cotarr/Corace's passes,
    the silver of hires, attacks, payments, rewards, Chysarions and decisions):
    the result keeps no totals per season. Stored grain only for the seats
    whose ``stored`` the view shows (their own storage thefts' ``taken`` then
    in it too)."""
    result = _result(view) or {}
    seats = seats_of(result)
    types = deck_types(view)
    visible = {s for s, raw in seats.items() if _int(raw.get("stored")) is not None}
    res = {s: [START_GRAIN, START_SILVER, 0] for s in seats}
    out = {s: [Point(0, START_GRAIN, START_SILVER, 0 if s in visible else None)] for s in seats}

    def add(seat: int | None, index: int, amount: int) -> None:
        if seat in res:
            res[seat][index] += amount

    records = [r for r in _list(result.get("seasons")) if isinstance(r, Mapping)]
    for i, record in enumerate(records):
        for famine in _list(record.get("famines")):
            for key, lost in _map(_map(famine).get("loss")).items():
                add(_int(key), 0, -(_int(lost) or 0))
        for raw in _list(record.get("hire_turns")):
            turn = _map(raw)
            seat = _int(turn.get("seat"))
            if seat in res:
                _trade(res[seat], turn.get("trade"))
                if turn.get("action") == "pass" and seats[seat].get("ruler") == COTARR:
                    res[seat][1] += PASS_SILVER
        hired = record.get("hired")
        if isinstance(hired, Mapping):
            for key, got in hired.items():
                add(_int(key), 1, -(_int(_map(got).get("silver")) or 0))
        else:  # the hire is open: standing bids hold their silver
            for seat, got in hire_state(record).got.items():
                add(seat, 1, -got.silver)
        for raw in _list(record.get("attacks")):
            attack = _map(raw)
            seat = _int(attack.get("seat"))
            if seat in res:
                _trade(res[seat], attack.get("trade"))
            picked = attack.get("pickpocket")
            if isinstance(picked, Mapping):
                add(seat, 1, 2)
                for target in _seat_list(picked.get("from")):
                    add(target, 1, -1)
            for use in _list(attack.get("evrathor")):
                ctype = type_of(types, _map(use).get("card")) or {}
                steals = ctype.get("steals")
                index = _INDEX.get(steals, -1) if isinstance(steals, str) else -1
                if index < 0:
                    continue
                add(seat, index, _int(ctype.get("amount")) or 0)
                for key, n in _map(_map(use).get("taken")).items():
                    add(_int(key), index, -(_int(n) or 0))
        economy = record.get("economy")
        if isinstance(economy, Mapping):
            for key, raw in economy.items():
                seat, order = _int(key), _map(raw)
                if seat not in res:
                    continue
                r = res[seat]
                _trade(r, order.get("trade"))
                paid = [c for c in _list(order.get("paid")) if isinstance(c, str)]
                if isinstance(order.get("double"), str) and order["double"] in paid:
                    paid.append(order["double"])
                for card in paid:
                    pay = _amounts(_map(type_of(types, card)).get("payment"), ("grain", "silver"))
                    r[0] -= pay["grain"]
                    r[1] -= pay["silver"]
                rewards = _amounts(order.get("rewards"), ("grain", "silver", "stored"))
                r[0] += rewards["grain"]
                r[1] += rewards["silver"]
                r[2] += rewards["stored"]
                for card in _list(order.get("chysarion")):
                    ctype = type_of(types, card) or {}
                    gives = ctype.get("gives")
                    if isinstance(gives, str) and gives in _INDEX:
                        r[_INDEX[gives]] += _int(ctype.get("amount")) or 0
                decision = order.get("decision")
                if decision == "grain":
                    r[0] += 1
                elif decision == "silver":
                    r[1] += 1
                elif decision == "store":
                    n = _int(order.get("store")) or 0
                    r[0] -= n
                    r[1] -= 1
                    r[2] += n
        season = _int(record.get("season")) or i + 1
        done = isinstance(economy, Mapping)
        if not done and i < len(records) - 1:
            continue  # a damaged record: no point for it
        x = float(season) if done else season - 0.5
        for seat, (grain, silver, stored) in res.items():
            out[seat].append(Point(x, grain, silver, stored if seat in visible else None))
    return out


# ---- drawing helpers -------------------------------------------------------------------


@lru_cache(maxsize=1024)
def _wrapped(text: str, width: float, size: float, sep: str) -> tuple[str, ...]:
    return tuple(shared.wrap(text, width, size, sep=sep))


def wrap(text: str, width: float, size: float, *, sep: str = " ", bold: bool = False) -> list[str]:
    """``text`` broken into lines of at most ``width`` pixels (the shared
    helper's, kept: legends are the same in every picture); a word longer
    than a line is cut to it."""
    lines = _wrapped(text, width / 1.1 if bold else width, size, sep)
    return [shared.fit(line, width, size, bold=bold) for line in lines]


def _t(x: float, y: float, text: str, size: float = SMALL, extra: str = "") -> str:
    """One text element (``text`` escaped here); ink unless ``extra`` says."""
    fill = "" if " fill=" in extra else f' fill="{INK}"'
    return shared.svg_text(x, y, text, size, fill + extra)


def _end(x: float, y: float, text: str, size: float = SMALL, extra: str = "") -> str:
    return _t(x, y, text, size, ' text-anchor="end"' + extra)


def _mid(x: float, y: float, text: str, size: float = SMALL, extra: str = "") -> str:
    return _t(x, y, text, size, ' text-anchor="middle"' + extra)


def _rect(
    x: float, y: float, w: float, h: float, fill: str, stroke: str = "none", extra: str = ""
) -> str:
    return (
        f'<rect x="{x:.1f}" y="{y:.1f}" width="{w:.1f}" height="{h:.1f}" fill="{fill}" '
        f'stroke="{stroke}"{extra}/>'
    )


def _head(seat: int, names: Mapping[int, str], room: float, size: float = 14) -> str:
    head = f"Seat {seat}"
    if seat in names:
        left = room - shared.text_width(head + " \u00b7 ", size, bold=True)
        head += " \u00b7 " + shared.fit(names[seat], left, size, bold=True)
    return head


def _shield(x: float, y: float) -> str:
    """The Storage Shield: a small shield outline, 14 wide and 17 high (x, y its
    top left)."""
    points = f"{x:.1f},{y:.1f} {x + 14:.1f},{y:.1f} {x + 14:.1f},{y + 8:.1f} "
    points += f"{x + 7:.1f},{y + 17:.1f} {x:.1f},{y + 8:.1f}"
    return f'<polygon points="{points}" fill="{WHITE}" stroke="{INK}" stroke-width="1.5"/>'


def _open(width: int, height: int, label: str, css: str, data: str = "") -> list[str]:
    return shared.svg_open(width, height, shared.fit(label, 4000, SMALL), css, data)


def _title_block(view: Mapping[str, Any], heading: str, width: int) -> tuple[list[str], float, str]:
    """The title (the match's name) and a wrapped subtitle; where the content
    starts and the title as drawn."""
    title = shared.fit(view.get("name") or "Fortune & Famine match", width - 2 * GAP, 18, bold=True)
    subtitle = wrap(heading, width - 2 * GAP, 13)
    parts = [_t(GAP, 28, title, 18, ' font-weight="bold" class="title"')]
    for i, line in enumerate(subtitle):
        parts.append(_t(GAP, 50 + 17 * i, line, 13, f' fill="{MUTED}" class="subtitle"'))
    return parts, 64 + 17 * (len(subtitle) - 1), title


def _legend(text: str, y: float, width: int) -> tuple[list[str], float]:
    lines = wrap(text, width - 2 * GAP, SMALL)
    parts = [
        _t(GAP, y + LINE * i, line, SMALL, f' fill="{MUTED}" class="legend"')
        for i, line in enumerate(lines)
    ]
    return parts, y + LINE * (len(lines) - 1) + 8


def _grid(count: int, columns: int) -> tuple[int, int]:
    columns = max(1, columns)
    width = WIDE if columns > 1 else NARROW
    return width, (count + columns - 1) // columns


def _panel_xy(i: int, columns: int, top: float, height: float) -> tuple[float, float]:
    row, col = divmod(i, max(1, columns))
    return GAP + col * (PANEL_W + GAP), top + row * (height + GAP)


# ---- the kingdoms ----------------------------------------------------------------------

CARD_H = 34
CARD_STEP = CARD_H + 3
KINGDOM_TOP = 178  # the first Kingdom row in a panel


def _slots(seat: Mapping[str, Any]) -> int:
    """FF9: the Kingdom's spaces (Felarren/Fiagro one more)."""
    return KINGDOM_SIZE + 1 if seat.get("ruler") == FELARREN else KINGDOM_SIZE


def _kingdom_rows(seats: Mapping[int, Mapping[str, Any]]) -> int:
    most = max(
        (max(_slots(s), len(_list(s.get("kingdom")))) for s in seats.values()),
        default=KINGDOM_SIZE,
    )
    return min(MAX_ROWS, most)


def _card_row(
    x: float, y: float, w: float, card: object, types: Mapping[str, Mapping[str, Any]]
) -> str:
    ctype = type_of(types, card)
    stroke, tint = KIND_COLORS.get(_kind(ctype), UNKNOWN_KIND)
    ident = shared.fit(card, w / 2, SMALL)
    id_w = shared.text_width(ident, SMALL)
    name = shared.fit(card_name(types, card), w - 22 - id_w, 12, bold=True)
    effect = shared.fit(effect_text(types, card), w - 16, SMALL)
    return (
        f'<g class="card" data-card={quoteattr(ident)} data-kind={quoteattr(_kind(ctype))}>'
        + _rect(x, y, w, CARD_H, tint, stroke, ' rx="4"')
        + _rect(x, y, 6, CARD_H, stroke, extra=' rx="2"')
        + _t(x + 12, y + 14, name, 12, ' font-weight="bold" class="card-name"')
        + _end(x + w - 6, y + 14, ident, SMALL, f' fill="{MUTED}" class="card-id"')
        + _t(x + 12, y + 28, effect, SMALL, ' class="effect"')
        + "</g>"
    )


def _box(
    x: float, y: float, w: float, label: str, value: str, sub: str, cls: str, hidden: bool
) -> str:
    parts = [
        f'<g class="{cls}{" hidden" if hidden else ""}">',
        _rect(x, y, w, 52, WHITE, EDGE, ' rx="5"'),
        _t(x + 8, y + 15, label, SMALL, f' fill="{MUTED}"'),
    ]
    if hidden:
        parts.append(_shield(x + 8, y + 20))
        parts.append(_t(x + 28, y + 35, HIDDEN, 14, f' font-weight="bold" class="value {cls}"'))
    else:
        parts.append(_t(x + 8, y + 36, value, 18, f' font-weight="bold" class="value {cls}"'))
    if sub:
        parts.append(_t(x + 8, y + 48, sub, SMALL, f' fill="{MUTED}"'))
    parts.append("</g>")
    return "".join(parts)


def _roles(result: Mapping[str, Any], seat: int, count: int) -> tuple[str, str]:
    """The seat's two status lines: its place or what it does now, and at the
    end the Token of Life or Elimination Candidate with the deciding level."""
    if result.get("finished") is True:
        ranking = _seat_list(result.get("ranking"))
        first = f"ranked {ordinal(ranking.index(seat) + 1)} of {count}" if seat in ranking else ""
        second = ""
        level = LEVEL_WORDS.get(str(result.get("token_decided_by")), "")
        ec = _map(result.get("elimination_candidate"))
        if _int(result.get("token_of_life")) == seat:
            second = "Token of Life" + (f" (by {level})" if level else "")
        elif _int(ec.get("seat")) == seat:
            level = LEVEL_WORDS.get(str(ec.get("decided_by")), "")
            second = "Elimination Candidate" + (f" (by {level})" if level else "")
        return first, second
    records = [r for r in _list(result.get("seasons")) if isinstance(r, Mapping)]
    roles = []
    if records and _int(records[-1].get("leader")) == seat:
        roles.append("round leader")
    _rnd, phase, acting = next_round(result)
    if phase and seat in acting:
        roles.append(f"acts now ({PHASE_WORDS[phase]})")
    return " \u00b7 ".join(roles), ""


def hire_text(seat: int, record: Mapping[str, Any]) -> str:
    """What the seat gets in the season's hire (FF10-FF12), in a few words."""
    hired = record.get("hired")
    if isinstance(hired, Mapping):
        got = _map(hired.get(str(seat)))
        card = got.get("card")
        if not isinstance(card, str):
            return "no card this season"
        if got.get("how") == "bid":
            return f"got {card} for {_int(got.get('silver'))} silver"
        return f"{'claimed' if got.get('how') == 'claim' else 'took'} {card}"
    hire = hire_state(record)
    if seat in hire.got:
        held = hire.got[seat]
        if held.how == "bid":
            return f"bid {held.silver} silver on {held.card}"
        return f"{'claimed' if held.how == 'claim' else 'took'} {held.card}"
    if seat in hire.passed:
        return "passed"
    return "free (no card yet)"


def _kingdom_panel(
    view: Mapping[str, Any],
    seat: int,
    raw: Mapping[str, Any],
    px: float,
    py: float,
    height: float,
    rows: int,
    types: Mapping[str, Mapping[str, Any]],
) -> str:
    result = _result(view) or {}
    names = player_names(view)
    garnets = player_garnets(view).get(seat)
    ruler = raw.get("ruler")
    grain, silver = _int(raw.get("grain")), _int(raw.get("silver"))
    stored, tokens = _int(raw.get("stored")), _int(raw.get("tokens"))
    workers = _int(raw.get("workers"))
    guard = _map(raw.get("guard"))
    guard_grain, guard_silver = _int(guard.get("grain")), _int(guard.get("silver"))
    kingdom = _list(raw.get("kingdom"))
    strong, _tint = SEAT_COLORS.get(seat, OTHER_SEAT)

    def shown(n: int | None) -> str:
        return "?" if n is None else str(n)

    data = (
        f'data-seat="{seat}" data-grain="{shown(grain)}" data-silver="{shown(silver)}" '
        f'data-stored="{HIDDEN if stored is None else stored}"'
    )
    out = [
        f'<g class="kingdom" {data}>',
        _rect(px, py, PANEL_W, height, PANEL_FILL, EDGE, ' rx="8"'),
        _rect(px + 10, py + 10, 10, 24, strong, extra=' rx="2"'),
        _t(
            px + 28,
            py + 26,
            _head(seat, names, PANEL_W - 40),
            14,
            ' font-weight="bold" class="player"',
        ),
    ]
    power = RULER_POWERS.get(str(ruler), "")
    ruler_line = ruler_name(ruler) + (f": {power}" if power else "")
    out.append(_t(px + 28, py + 44, shared.fit(ruler_line, PANEL_W - 38, 12), 12, ' class="ruler"'))
    first, second = _roles(result, seat, len(seats_of(result)))
    lines = []  # (text, bold, class): at most two, under the ruler
    if first:
        lines.append((first, True, "status"))
    if second:
        lines.append((second, True, "role"))
    records = [r for r in _list(result.get("seasons")) if isinstance(r, Mapping)]
    if result.get("finished") is not True and records:  # the seat in this season's hire
        lines.append(("Hire: " + hire_text(seat, records[-1]), False, "hire"))
    for i, (text, bold, cls) in enumerate(lines[:2]):
        weight = ' font-weight="bold"' if bold else ""
        text = shared.fit(text, PANEL_W - 38, 12, bold=bold)
        out.append(_t(px + 28, py + 62 + 16 * i, text, 12, f'{weight} class="{cls}"'))
    # the resources: grain and silver on the board (guard included), stored grain
    y = py + 88
    w = (PANEL_W - 20 - 2 * 6) / 3
    besella = ruler == BESELLA or bool(guard_grain) or bool(guard_silver)
    sub_grain = f"{shown(guard_grain)} guarded" if besella else "on the board"
    sub_silver = f"{shown(guard_silver)} guarded" if besella else "on the board"
    out.append(_box(px + 10, y, w, "Grain", shown(grain), sub_grain, "grain", False))
    out.append(_box(px + 16 + w, y, w, "Silver", shown(silver), sub_silver, "silver", False))
    out.append(
        _box(
            px + 22 + 2 * w,
            y,
            w,
            "Stored grain",
            shown(stored),
            "until the end" if stored is None else "scores",
            "stored",
            stored is None,
        )
    )
    facts = [f"{shown(workers)} worker{'' if workers == 1 else 's'}"]
    if garnets is not None:
        facts.append(f"{garnets} garnet{'' if garnets == 1 else 's'}")
    if ruler in TOKEN_RULERS or tokens:
        facts.append(f"{shown(tokens)} token{'' if tokens == 1 else 's'}")
    out.append(
        _t(px + 12, py + 158, " \u00b7 ".join(facts), 12, ' class="facts"'),
    )
    slots = _slots(raw)
    out.append(
        _t(
            px + 12,
            py + KINGDOM_TOP - 6,
            f"Kingdom: {len(kingdom)} of {slots} spaces",
            12,
            ' font-weight="bold" class="kingdom-size"',
        )
    )
    shown_cards = kingdom if len(kingdom) <= rows else kingdom[: rows - 1]
    for i, card in enumerate(shown_cards):
        out.append(_card_row(px + 10, py + KINGDOM_TOP + i * CARD_STEP, PANEL_W - 20, card, types))
    if len(shown_cards) < len(kingdom):
        more = len(kingdom) - len(shown_cards)
        y = py + KINGDOM_TOP + len(shown_cards) * CARD_STEP
        out.append(_t(px + 14, y + 21, f"and {more} more cards", 12, ' class="more"'))
    for i in range(len(kingdom), min(slots, rows)):
        y = py + KINGDOM_TOP + i * CARD_STEP
        out.append(
            _rect(
                px + 10,
                y,
                PANEL_W - 20,
                CARD_H,
                WHITE,
                "#9ca3af",
                ' rx="4" stroke-dasharray="4 4" class="empty"',
            )
            + _t(px + 22, y + 21, "empty space", SMALL, f' fill="{MUTED}"')
        )
    out.append("</g>")
    return "".join(out)


KINGDOMS_LEGEND = (
    "Each Kingdom's cards in the order they arrived, with what each costs and earns "
    "(payment \u2192 reward). Grain and silver are on the Kingdom board (Besella/Baroso's "
    "guard included); only stored grain scores. A seat's stored grain is hidden until "
    "the end from all but its owner and the host; the grain it stores, its Steward's and "
    "Chysarions' gifts and its thefts are public."
)


def kingdoms_svg(view: Mapping[str, Any]) -> str | None:
    """Every seat's Kingdom, two panels a row (744 wide); None when the view
    has no seats."""
    return draw_kingdoms(view, 2)


def kingdoms_column_svg(view: Mapping[str, Any]) -> str | None:
    """The same, one panel a row (376 wide): for a phone, where two columns
    would halve the text."""
    return draw_kingdoms(view, 1)


def draw_kingdoms(view: Mapping[str, Any], columns: int) -> str | None:
    result = _result(view)
    if result is None:
        return None
    seats = seats_of(result)
    if not seats:
        return None
    types = deck_types(view)
    rows = _kingdom_rows(seats)
    height = KINGDOM_TOP + rows * CARD_STEP + 8
    width, grid_rows = _grid(len(seats), columns)
    state = state_text(result)
    head, top, title = _title_block(view, "Kingdoms " + state, width)
    panels_end = top + grid_rows * (height + GAP)
    legend, end = _legend(KINGDOMS_LEGEND, panels_end + 10, width)
    label = f"Kingdoms of {title}, {state}: " + "; ".join(
        f"seat {s}, {ruler_name(raw.get('ruler'))}, {_int(raw.get('grain'))} grain, "
        f"{_int(raw.get('silver'))} silver"
        + (f", {_int(raw.get('stored'))} stored" if _int(raw.get("stored")) is not None else "")
        for s, raw in seats.items()
    )
    out = _open(width, int(end + 4), label + ".", "ff-kingdoms", f' data-seats="{len(seats)}"')
    out.extend(head)
    for i, (seat, raw) in enumerate(seats.items()):
        px, py = _panel_xy(i, columns, top, height)
        out.append(_kingdom_panel(view, seat, raw, px, py, height, rows, types))
    out.extend(legend)
    out.append("</svg>")
    return "".join(out)


# ---- the hire board --------------------------------------------------------------------

TILE_H = 92


def _card_status(
    card: str,
    kind: str,
    record: Mapping[str, Any],
    hire: HireState,
) -> tuple[str, str]:
    """Where a card of the board stands: a bold line and a second line."""
    if kind == "famine":
        return "struck as it was revealed", ""
    hired = record.get("hired")
    if isinstance(hired, Mapping):
        for key, raw in hired.items():
            got = _map(raw)
            if got.get("card") == card:
                seat = _int(key)
                how = got.get("how")
                discard = got.get("discard")
                drop = f"seat {seat} discarded {discard}" if isinstance(discard, str) else ""
                if how == "bid":
                    return f"hired by seat {seat} for {_int(got.get('silver'))} silver", drop
                if how == "claim":
                    return f"claimed by seat {seat} (a token)", drop
                return f"taken by seat {seat}", drop
        return "not hired: discarded", ""
    holder = hire.holder(card)
    if holder is None:
        return ("not taken yet" if kind in ("chysarion", "evrathor") else "no bid yet"), ""
    standing = hire.got[holder]
    drop = f"discards {standing.discard} when it joins" if standing.discard else ""
    if standing.how == "bid":
        return f"bid {standing.silver} silver by seat {holder}", drop
    if standing.how == "claim":
        return f"claimed by seat {holder} (a token)", drop
    return f"taken by seat {holder}", drop


def _famine_lines(record: Mapping[str, Any], card: str, width: float) -> list[str]:
    for raw in _list(record.get("famines")):
        famine = _map(raw)
        if famine.get("card") != card:
            continue
        blocked = set(_seat_list(famine.get("blocked")))
        parts = []
        for key, lost in sorted(_map(famine.get("loss")).items(), key=lambda kv: _int(kv[0]) or 0):
            seat = _int(key)
            if seat is None:
                continue
            parts.append(
                f"seat {seat} " + ("blocked it" if seat in blocked else f"\u2212{_int(lost)}")
            )
        return wrap("Grain lost: " + ", ".join(parts), width, SMALL, sep=", ")
    return []


def _tile(
    x: float,
    y: float,
    card: str,
    record: Mapping[str, Any],
    hire: HireState,
    types: Mapping[str, Mapping[str, Any]],
) -> str:
    ctype = type_of(types, card)
    kind = _kind(ctype)
    stroke, tint = KIND_COLORS.get(kind, UNKNOWN_KIND)
    w = PANEL_W
    ident = shared.fit(card, w / 2, SMALL)
    name = shared.fit(
        card_name(types, card), w - 26 - shared.text_width(ident, SMALL), 13, bold=True
    )
    status, extra = _card_status(card, kind, record, hire)
    lines = _famine_lines(record, card, w - 22)[:2] if kind == "famine" else [extra]
    holder = hire.holder(card) if not isinstance(record.get("hired"), Mapping) else None
    data = f"data-card={quoteattr(ident)} data-kind={quoteattr(kind)}"
    if holder is not None:
        got = hire.got[holder]
        data += f' data-holder="{holder}" data-how="{got.how}" data-silver="{got.silver}"'
    out = [
        f'<g class="board-card" {data}>',
        _rect(x, y, w, TILE_H, tint, stroke, ' rx="6" stroke-width="1.5"'),
        _rect(x, y, 8, TILE_H, stroke, extra=' rx="3"'),
        _t(x + 16, y + 20, name, 13, ' font-weight="bold" class="card-name"'),
        _end(x + w - 8, y + 20, ident, SMALL, f' fill="{MUTED}" class="card-id"'),
        _t(x + 16, y + 37, shared.fit(effect_text(types, card), w - 24, SMALL), SMALL),
        _t(x + 16, y + 58, shared.fit(status, w - 24, 13), 13, ' font-weight="bold" class="where"'),
    ]
    for i, line in enumerate(line for line in lines if line):
        out.append(_t(x + 16, y + 74 + 14 * i, shared.fit(line, w - 24, SMALL), SMALL))
    out.append("</g>")
    return "".join(out)


def _seat_status(
    seat: int,
    record: Mapping[str, Any],
    hire: HireState,
    acting: Sequence[int],
    phase: str,
) -> str:
    hired = record.get("hired")
    if isinstance(hired, Mapping):
        got = _map(hired.get(str(seat)))
        card = got.get("card")
        if not isinstance(card, str):
            text = "got no card this season"
        elif got.get("how") == "bid":
            text = f"hired {card} for {_int(got.get('silver'))} silver"
        else:
            text = f"{'claimed' if got.get('how') == 'claim' else 'took'} {card}"
    elif seat in hire.got:
        got_ = hire.got[seat]
        if got_.how == "bid":
            text = f"waiting: its bid of {got_.silver} silver on {got_.card} stands"
        else:
            text = f"out: {'claimed' if got_.how == 'claim' else 'took'} {got_.card}"
    elif seat in hire.passed:
        text = "out: passed" + (" (no action but pass)" if hire.passed[seat] else "")
    else:
        text = "free: acts when its turn comes"
    if phase == "hire" and seat in acting:
        text = "acts now (hire turn)"  # the seat is free
    elif phase and seat in acting:
        text = f"acts now ({PHASE_WORDS[phase]}); " + text
    return text


BOARD_LEGEND = (
    "The Hire Board of the season under way (at the end, the last), cards in board order. "
    "A seat with the standing bid on a card waits; once no seat is free, each standing "
    "bid wins its card. The burned card stays face down until the end (only the host sees it)."
)


def board_svg(view: Mapping[str, Any]) -> str | None:
    """The Hire Board of the season under way, two cards a row (744 wide);
    None when no season has started."""
    return draw_board(view, 2)


def board_column_svg(view: Mapping[str, Any]) -> str | None:
    """The same, one card a row (376 wide), for a phone."""
    return draw_board(view, 1)


def draw_board(view: Mapping[str, Any], columns: int) -> str | None:
    result = _result(view)
    if result is None:
        return None
    records = [r for r in _list(result.get("seasons")) if isinstance(r, Mapping)]
    if not records:
        return None
    record = records[-1]
    types = deck_types(view)
    names = player_names(view)
    seats = sorted(seats_of(result)) or sorted(names)
    hire = hire_state(record)
    board = [c for c in _list(record.get("revealed")) if isinstance(c, str)][:MAX_SEATS]
    season = _int(record.get("season")) or len(records)
    leader = _int(record.get("leader"))
    _rnd, phase, acting = next_round(result)
    if result.get("finished") is True:
        phase, acting = "", []
    width, grid_rows = _grid(len(board), columns)
    state = state_text(result)
    head, top, title = _title_block(view, "Hire Board " + state, width)
    out_body: list[str] = []
    y = top + 4
    hire_open = not isinstance(record.get("hired"), Mapping)
    about = (
        f"Season {season} of {seasons_total(result)} (Year {year_of(result, season)})"
        + (f", round leader seat {leader}" if leader is not None else "")
        + (": the hire is open" if hire_open else ": the hire is over")
    )
    for line in wrap(about, width - 2 * GAP, 13, bold=True):
        out_body.append(_t(GAP, y + 12, line, 13, ' font-weight="bold" class="season"'))
        y += 18
    burned = record.get("burned")
    if isinstance(burned, str):
        burned_text = f"Burned (face down): {burned}, {card_name(types, burned)}"
        out_body.append(
            _t(GAP, y + 12, shared.fit(burned_text, width - 2 * GAP, 12), 12, ' class="burned"')
        )
    else:
        out_body.append(
            f'<g class="burned hidden">{_shield(GAP, y)}'
            + _t(GAP + 20, y + 12, "Burned card: hidden until the end", 12)
            + "</g>"
        )
    y += 24
    for i, card in enumerate(board):
        x, ty = _panel_xy(i, columns, y, TILE_H)
        out_body.append(_tile(x, ty, card, record, hire, types))
    if not board:
        out_body.append(_t(GAP, y + 14, "No card revealed.", 12))
        grid_rows = 1
    y += grid_rows * (TILE_H + GAP) + 10
    # each seat in the hire
    out_body.append(_t(GAP, y + 4, "Seats in the hire", 13, ' font-weight="bold"'))
    y += 12
    for seat in seats:
        status = _seat_status(seat, record, hire, acting, phase)
        who = _head(seat, names, 250 if width > NARROW else width - 2 * GAP, 12)
        strong, _tint = SEAT_COLORS.get(seat, OTHER_SEAT)
        parts = [f'<g class="seat-status" data-seat="{seat}">']
        parts.append(_rect(GAP, y + 4, 6, 14, strong, extra=' rx="1"'))
        if width > NARROW:
            lines = wrap(status, width - 2 * GAP - 274, 12)
            parts.append(_t(GAP + 12, y + 16, who, 12, ' font-weight="bold" class="player"'))
            for j, line in enumerate(lines):
                parts.append(_t(GAP + 274, y + 16 + 16 * j, line, 12, ' class="hire-status"'))
            y += 16 * len(lines) + 4
        else:
            lines = wrap(status, width - 2 * GAP - 12, 12)
            parts.append(_t(GAP + 12, y + 16, who, 12, ' font-weight="bold" class="player"'))
            for j, line in enumerate(lines):
                parts.append(_t(GAP + 12, y + 32 + 16 * j, line, 12, ' class="hire-status"'))
            y += 16 * (len(lines) + 1) + 4
        parts.append("</g>")
        out_body.append("".join(parts))
    now = (
        "The match is over."
        if result.get("finished") is True
        else (f"Now: {acting_text(phase, acting)}." if phase else "")
    )
    if now:
        for line in wrap(now, width - 2 * GAP, 13, bold=True):
            out_body.append(_t(GAP, y + 18, line, 13, ' font-weight="bold" class="now"'))
            y += 18
    legend, end = _legend(BOARD_LEGEND, y + 22, width)
    label = f"Hire Board of {title}, {state}: " + "; ".join(
        f"{card} {_card_status(card, _kind(type_of(types, card)), record, hire)[0]}"
        for card in board
    )
    data = f' data-season="{season}" data-cards="{len(board)}"'
    out = _open(width, int(end + 4), label + ".", "ff-board", data)
    out.extend(head)
    out.extend(out_body)
    out.extend(legend)
    out.append("</svg>")
    return "".join(out)


# ---- resources over the seasons -------------------------------------------------------

CHART_TOP = 70  # the plot's top in a panel (under the head and the Year labels)
CHART_H = 112
CHART_LEFT = 40
CHART_RIGHT = 18
RES_PANEL_H = CHART_TOP + CHART_H + 64


def _nice_step(span: int) -> int:
    for step in (1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000):
        if span / step <= 5:
            return step
    return int(10 ** max(1, math.ceil(math.log10(max(1, span))) - 1))


def _marker(kind: str, x: float, y: float, color: str, hollow: bool) -> str:
    fill = WHITE if hollow else color
    if kind == "square":
        return _rect(x - 3.5, y - 3.5, 7, 7, fill, color, ' stroke-width="1.5"')
    if kind == "triangle":
        points = f"{x:.1f},{y - 4.5:.1f} {x + 4.5:.1f},{y + 3.5:.1f} {x - 4.5:.1f},{y + 3.5:.1f}"
        return f'<polygon points="{points}" fill="{fill}" stroke="{color}" stroke-width="1.5"/>'
    return (
        f'<circle cx="{x:.1f}" cy="{y:.1f}" r="3.5" fill="{fill}" stroke="{color}" '
        'stroke-width="1.5"/>'
    )


def _chart(
    result: Mapping[str, Any],
    points: Sequence[Point],
    px: float,
    py: float,
) -> str:
    total = seasons_total(result)
    x0, x1 = px + CHART_LEFT, px + PANEL_W - CHART_RIGHT
    y0, y1 = py + CHART_TOP, py + CHART_TOP + CHART_H

    def sx(x: float) -> float:
        return x0 + (x1 - x0) * min(max(x, 0.0), float(total)) / total

    series: dict[str, list[tuple[float, int]]] = {"grain": [], "silver": [], "stored": []}
    for p in points:
        series["grain"].append((p.x, p.grain))
        series["silver"].append((p.x, p.silver))
        if p.stored is not None:
            series["stored"].append((p.x, p.stored))
    values = [v for s in series.values() for _x, v in s]
    low = min([0, *values])
    high = max([4, *values])
    step = _nice_step(high - low)
    low = math.floor(low / step) * step
    high = math.ceil(high / step) * step

    def sy(v: float) -> float:
        return y1 - (y1 - y0) * (v - low) / max(1, high - low)

    out = ['<g class="chart">']
    # the seasons where a Famine struck, shaded
    records = [r for r in _list(result.get("seasons")) if isinstance(r, Mapping)]
    for i, record in enumerate(records):
        season = _int(record.get("season")) or i + 1
        struck = any(
            any((_int(v) or 0) > 0 for v in _map(_map(f).get("loss")).values())
            for f in _list(record.get("famines"))
        )
        if struck and 1 <= season <= total:
            out.append(
                _rect(
                    sx(season - 1), y0, sx(season) - sx(season - 1), y1 - y0, FAMINE_BAND
                ).replace("/>", ' class="famine-band"/>')
            )
    # grid and the value axis
    v = low
    while v <= high:
        y = sy(v)
        out.append(
            f'<line x1="{x0:.1f}" y1="{y:.1f}" x2="{x1:.1f}" y2="{y:.1f}" stroke="#e5e7eb"/>'
        )
        out.append(_end(x0 - 5, y + 4, str(v), SMALL, f' fill="{MUTED}"'))
        v += step
    # the Years: a line between two, each named above its seasons
    per_year = max(1, total // YEARS)
    for year in range(1, YEARS + 1):
        a, b = (year - 1) * per_year, min(total, year * per_year)
        if a >= total:
            break
        out.append(_mid((sx(a) + sx(b)) / 2, y0 - 6, f"Year {year}", SMALL, f' fill="{MUTED}"'))
        if year > 1:
            out.append(
                f'<line x1="{sx(a):.1f}" y1="{y0 - 16:.1f}" x2="{sx(a):.1f}" y2="{y1:.1f}" '
                f'stroke="#9ca3af" stroke-dasharray="3 3"/>'
            )
    out.append(
        f'<line x1="{x0:.1f}" y1="{y1:.1f}" x2="{x1:.1f}" y2="{y1:.1f}" stroke="{INK}"/>'
        f'<line x1="{x0:.1f}" y1="{y0:.1f}" x2="{x0:.1f}" y2="{y1:.1f}" stroke="{INK}"/>'
    )
    every = max(1, math.ceil(18 * total / (x1 - x0)))  # labels 18 px apart at least
    for season in range(0, total + 1, every):
        out.append(_mid(sx(season), y1 + 14, str(season), SMALL, f' fill="{MUTED}"'))
    # the series
    for name, pts in series.items():
        if not pts:
            continue
        color, dash, marker = SERIES[name]
        coords = " ".join(f"{sx(x):.1f},{sy(v):.1f}" for x, v in pts)
        dashed = f' stroke-dasharray="{dash}"' if dash else ""
        data = " ".join(str(v) for _x, v in pts)
        out.append(
            f'<g class="series" data-series="{name}" data-values="{data}">'
            f'<polyline points="{coords}" fill="none" stroke="{color}" stroke-width="2"{dashed}/>'
            + "".join(_marker(marker, sx(x), sy(v), color, x != int(x)) for x, v in pts)
            + "</g>"
        )
    out.append("</g>")
    return "".join(out)


def _res_panel(
    view: Mapping[str, Any],
    seat: int,
    raw: Mapping[str, Any],
    points: Sequence[Point],
    px: float,
    py: float,
) -> str:
    result = _result(view) or {}
    names = player_names(view)
    strong, _tint = SEAT_COLORS.get(seat, OTHER_SEAT)
    grain, silver, stored = (_int(raw.get(k)) for k in ("grain", "silver", "stored"))
    out = [
        f'<g class="resources" data-seat="{seat}">',
        _rect(px, py, PANEL_W, RES_PANEL_H, PANEL_FILL, EDGE, ' rx="8"'),
        _rect(px + 10, py + 10, 10, 24, strong, extra=' rx="2"'),
        _t(
            px + 28,
            py + 26,
            _head(seat, names, PANEL_W - 40),
            14,
            ' font-weight="bold" class="player"',
        ),
        _t(px + 28, py + 43, shared.fit(ruler_name(raw.get("ruler")), PANEL_W - 38, 12), 12),
        _chart(result, points, px, py),
    ]
    # the values now (at the end), each beside its line's sample
    y = py + CHART_TOP + CHART_H + 38
    x = px + 12
    for name, value in (("grain", grain), ("silver", silver), ("stored", stored)):
        color, dash, marker = SERIES[name]
        if name == "stored" and value is None:  # no line: the shield instead
            out.append(
                f'<g class="now stored hidden">{_shield(x, y - 13)}'
                + _t(x + 18, y, f"stored {HIDDEN}", 12, ' font-weight="bold"')
                + "</g>"
            )
            break
        dashed = f' stroke-dasharray="{dash}"' if dash else ""
        text = f"{name} {'?' if value is None else value}"
        out.append(
            f'<g class="now {name}">'
            f'<line x1="{x:.1f}" y1="{y - 4:.1f}" x2="{x + 20:.1f}" y2="{y - 4:.1f}" '
            f'stroke="{color}" stroke-width="2"{dashed}/>'
            + _marker(marker, x + 10, y - 4, color, False)
            + _t(x + 24, y, text, 12, f' font-weight="bold" class="value {name}"')
            + "</g>"
        )
        x += 24 + shared.text_width(text, 12, bold=True) + 14
    when = "now" if result.get("finished") is not True else "at the end"
    out.append(_t(px + 12, y + 18, f"The values {when}", SMALL, f' fill="{MUTED}"'))
    out.append("</g>")
    return "".join(out)


RESOURCES_LEGEND = (
    "Each seat's grain (solid, circles), silver (dashed, squares) and stored grain "
    "(dotted, triangles) at the start (0) and after each season, worked out from the "
    "seasons' record; a hollow marker is now, in the season under way. Shaded seasons: a "
    "Famine struck. Each chart has its own scale. Stored grain is hidden until the end "
    "from all but its owner and the host."
)


def resources_svg(view: Mapping[str, Any]) -> str | None:
    """Each seat's resources over the seasons, two charts a row (744 wide);
    None when the view has no seats."""
    return draw_resources(view, 2)


def resources_column_svg(view: Mapping[str, Any]) -> str | None:
    """The same, one chart a row (376 wide), for a phone."""
    return draw_resources(view, 1)


def draw_resources(view: Mapping[str, Any], columns: int) -> str | None:
    result = _result(view)
    if result is None:
        return None
    seats = seats_of(result)
    if not seats:
        return None
    series = history(view)
    width, grid_rows = _grid(len(seats), columns)
    state = state_text(result)
    head, top, title = _title_block(view, "Resources over the seasons " + state, width)
    panels_end = top + grid_rows * (RES_PANEL_H + GAP)
    legend, end = _legend(RESOURCES_LEGEND, panels_end + 10, width)
    label = f"Resources of {title}, {state}: " + "; ".join(
        f"seat {s}, {_int(raw.get('grain'))} grain, {_int(raw.get('silver'))} silver"
        + (f", {_int(raw.get('stored'))} stored" if _int(raw.get("stored")) is not None else "")
        for s, raw in seats.items()
    )
    out = _open(width, int(end + 4), label + ".", "ff-resources", f' data-seats="{len(seats)}"')
    out.extend(head)
    for i, (seat, raw) in enumerate(seats.items()):
        px, py = _panel_xy(i, columns, top, RES_PANEL_H)
        out.append(_res_panel(view, seat, raw, series.get(seat, []), px, py))
    out.extend(legend)
    out.append("</svg>")
    return "".join(out)
