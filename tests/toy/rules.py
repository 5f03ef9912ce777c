"""High Card, the toy game's rules: pure functions of JSON, no referee import
but the shared error type, the seed check and the keys an export adds.

Rules (docs/adding-a-game.md walks through them):

- 2 to 6 seats. From a deck of the cards 1..30 (1..``deck`` when the set-up
  says 2..30: it must hold every hand), shuffled with the match seed, each seat
  is dealt ``hand_size`` cards (3 unless the set-up says 1..5). A hand is
  private to its seat.
- A trick starts with a **play** step, simultaneous: every seat plays one card
  of its hand, sealed until the step closes.
- Then **pick** steps, one seat at a time: in order of the card each played,
  highest first, each seat takes one of the played cards still on the table;
  the last card goes to the last seat without a step. So a trick of n seats
  has n - 1 pick steps, and who acts in them follows from the play.
- A seat scores the cards it takes (with the ``double`` setting, the trick's
  highest card scores double). The match ends after the trick in which a seat
  reaches :data:`TARGET` points, or when the hands are empty: how many steps a
  match has depends on play.
- A missing order gets a seeded default: a card drawn from the seat's hand (or
  from the table), from the seed, the step and the seat.

The state (the ruleset's "detailed result") is JSON::

    {"ruleset": "toy", "steps": 3, "hand_size": 3,
     "hands": {"1": [4, 17], ...},            # private: each seat's own
     "scores": {"1": 29, ...},
     "tricks": [{"number": 1, "played": {"1": 29, "2": 8},
                 "order": [1, 2], "picks": [{"seat": 1, "card": 29, "step": 2}],
                 "table": [8]}],
     "defaulted": [{"step": 1, "seat": 2}],
     "finished": false, "winners": []}
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from typing import Any

from referee.errors import Problem, RuleError
from referee.matchfile import EXPORT_KEYS, check_seed
from referee.names import name_fault

RULESET = "toy"
DECK = tuple(range(1, 31))
MIN_SEATS, MAX_SEATS = 2, 6
HAND_SIZES = range(1, 6)
DEFAULT_HAND_SIZE = 3
DECK_TOPS = range(2, len(DECK) + 1)  # the set-up's "deck": the highest card, when not 30
TARGET = 45  # the match ends after the trick in which a seat reaches this score

# Every refusal code of the game (the shared ones it also gives: settings/...
# from check_game_settings, match/... from the seed check, step/... and
# round/... from the service).
REFUSAL_CODES = frozenset(
    {
        "toy/bad_players",  # the players are not a list of 2..6 seats
        "toy/bad_player",  # one player's entry is wrong
        "toy/bad_hand_size",  # the set-up's hand_size is not 1..5
        "toy/bad_deck",  # the set-up's deck is not 2..30
        "toy/deck_too_small",  # the deck holds fewer cards than the hands need
        "toy/bad_file",  # a match file that is not one
        "toy/not_acting",  # a match file with an order of a seat not acting in its step
        "toy/too_many_steps",  # a match file with orders after the match's end
        "toy/not_a_card",  # an order that is not a card number
        "toy/not_in_hand",  # a play of a card not in the seat's hand
        "toy/not_on_table",  # a pick of a card not on the table
    }
)
SHARED_CODES = frozenset(
    {"settings/not_a_flag", "match/no_seed", "match/bad_seed", "match/seed_mismatch"}
)

PLAYER_KEYS = ("seat", "name", "garnets")


# ---- set-up ----------------------------------------------------------------


def check_players(players: Any, *, limits: bool = True) -> list[dict[str, Any]]:
    """The players (``{"seat", "name", "garnets"}``, seats 1..n in order), or
    every problem in one RuleError. Without ``limits`` (a stored match) the
    name rules of this version are not applied again."""
    if not isinstance(players, list) or not MIN_SEATS <= len(players) <= MAX_SEATS:
        raise RuleError.single(
            "toy/bad_players",
            f"'players' must be a list of {MIN_SEATS} to {MAX_SEATS} players",
            "players",
        )
    problems: list[Problem] = []
    out: list[dict[str, Any]] = []
    names: set[str] = set()
    for i, p in enumerate(players):
        where = f"players[{i}]"
        if not isinstance(p, Mapping) or set(p) - set(PLAYER_KEYS) or "name" not in p:
            problems.append(
                Problem("toy/bad_player", f"{where} must be {{seat, name, garnets}}", where)
            )
            continue
        seat, name, garnets = p.get("seat", i + 1), p["name"], p.get("garnets", 0)
        if type(seat) is not int or not 1 <= seat <= len(players):
            problems.append(Problem("toy/bad_player", f"{where}: seat {seat!r} is not 1..n", where))
        if not isinstance(name, str) or not name.strip() or len(name) > 100:
            problems.append(
                Problem("toy/bad_player", f"{where}: a name is 1 to 100 characters", where)
            )
        elif limits and (fault := name_fault(name)) is not None:
            problems.append(Problem("toy/bad_player", f"{where}: {fault}", where))
        elif name.casefold() in names:
            problems.append(
                Problem("toy/bad_player", f"{where}: the name {name!r} is taken", where)
            )
        else:
            names.add(name.casefold())
        if type(garnets) is not int or garnets < 0:
            problems.append(Problem("toy/bad_player", f"{where}: garnets must be 0 or more", where))
        out.append({"seat": seat, "name": name, "garnets": garnets})
    if not problems and sorted(p["seat"] for p in out) != list(range(1, len(out) + 1)):
        problems.append(Problem("toy/bad_players", "the seats must be 1..n, once each", "players"))
    if problems:
        raise RuleError(problems)
    return sorted(out, key=lambda p: p["seat"])


def check_hand_size(value: Any) -> int:
    if value is None:
        return DEFAULT_HAND_SIZE
    if type(value) is not int or value not in HAND_SIZES:
        raise RuleError.single(
            "toy/bad_hand_size", f"hand_size must be 1 to 5, not {value!r}", "hand_size"
        )
    return value


def check_deck(value: Any, hand_size: int, seats: int) -> int | None:
    """The set-up's ``deck`` (None: left out, the whole deck), or a RuleError.
    A deck too small for every hand is refused as the hand size's fault (the
    field ``hand_size``): a hand size left out is refused too, as 3."""
    if value is None:
        return None
    if type(value) is not int or value not in DECK_TOPS:
        raise RuleError.single(
            "toy/bad_deck", f"deck must be a card from 2 to 30, not {value!r}", "deck"
        )
    if hand_size * seats > value:
        raise RuleError.single(
            "toy/deck_too_small",
            f"{seats} hands of {hand_size} cards need {hand_size * seats} cards: "
            f"the deck has {value}",
            "hand_size",
        )
    return value


# ---- the state -------------------------------------------------------------


def deal(
    seats: Sequence[int], hand_size: int, seed: str, top: int | None = None
) -> dict[str, list[int]]:
    """Each seat's hand, from the deck (cards 1..``top``, the whole deck when
    None) shuffled with the seed (deterministic: ``random.Random`` seeded with
    a string does not depend on the process)."""
    deck = list(DECK if top is None else range(1, top + 1))
    random.Random(f"{seed}:deal").shuffle(deck)
    return {
        str(seat): sorted(deck[i * hand_size : (i + 1) * hand_size]) for i, seat in enumerate(seats)
    }


def start(
    seats: Sequence[int], hand_size: int, seed: str, top: int | None = None
) -> dict[str, Any]:
    return {
        "ruleset": RULESET,
        "steps": 0,
        "hand_size": hand_size,
        "hands": deal(seats, hand_size, seed, top),
        "scores": {str(s): 0 for s in seats},
        "tricks": [],
        "defaulted": [],
        "finished": False,
        "winners": [],
    }


def next_acting(state: Mapping[str, Any]) -> tuple[str, tuple[int, ...]] | None:
    """The next step's phase and acting seats, or None when the match is over."""
    if state["finished"]:
        return None
    tricks = state["tricks"]
    if tricks and len(tricks[-1]["table"]) > 1:
        trick = tricks[-1]
        return "pick", (trick["order"][len(trick["picks"])],)
    return "play", tuple(int(s) for s in state["scores"])


def coming(state: Mapping[str, Any]) -> list[tuple[str, int, tuple[int, ...]]]:
    """The steps known now: (phase, trick number, acting seats) each. Once a
    play step has closed, every pick step of its trick is known; the next
    trick's play step only once the trick is over and the match goes on."""
    nxt = next_acting(state)
    if nxt is None:
        return []
    tricks = state["tricks"]
    if nxt[0] == "play":
        return [("play", len(tricks) + 1, nxt[1])]
    trick = tricks[-1]
    still = trick["order"][len(trick["picks"]) : len(trick["order"]) - 1]
    return [("pick", trick["number"], (seat,)) for seat in still]


def check_card(state: Mapping[str, Any], phase: str, seat: int, order: Any) -> int:
    """``seat``'s order in a ``phase`` step (a card number), or a RuleError."""
    if type(order) is not int:
        raise RuleError.single("toy/not_a_card", f"an order is a card number, not {order!r}")
    if phase == "play":
        hand = state["hands"][str(seat)]
        if order not in hand:
            raise RuleError.single(
                "toy/not_in_hand", f"card {order} is not in your hand ({_cards(hand)})"
            )
    else:
        table = state["tricks"][-1]["table"]
        if order not in table:
            raise RuleError.single(
                "toy/not_on_table", f"card {order} is not on the table ({_cards(table)})"
            )
    return order


def _cards(cards: Sequence[int]) -> str:
    return ", ".join(map(str, cards)) or "none"


def seeded_default(seed: str, step: int, seat: int, choices: Sequence[int]) -> int:
    """The card a seat without an order plays or picks."""
    return random.Random(f"{seed}:default:{step}:{seat}").choice(sorted(choices))


def apply_step(
    state: dict[str, Any],
    orders: Mapping[int, int | None],
    seed: str,
    double: bool,
) -> None:
    """Close the next step with ``orders`` (checked; None or missing: a seeded
    default), in place."""
    nxt = next_acting(state)
    assert nxt is not None
    phase, acting = nxt
    step = state["steps"] + 1
    chosen: dict[int, int] = {}
    for seat in acting:
        order = orders.get(seat)
        if order is None:
            pool = state["hands"][str(seat)] if phase == "play" else state["tricks"][-1]["table"]
            order = seeded_default(seed, step, seat, pool)
            state["defaulted"].append({"step": step, "seat": seat})
        chosen[seat] = order
    if phase == "play":
        for seat, card in chosen.items():
            state["hands"][str(seat)].remove(card)
        order_of_pick = sorted(chosen, key=lambda s: -chosen[s])
        state["tricks"].append(
            {
                "number": len(state["tricks"]) + 1,
                "played": {str(s): c for s, c in sorted(chosen.items())},
                "order": order_of_pick,
                "picks": [],
                "table": sorted(chosen.values(), reverse=True),
            }
        )
    else:
        (seat, card), *_ = chosen.items()
        _take(state, seat, card, step, double)
    trick = state["tricks"][-1]
    if len(trick["table"]) == 1:  # the last card goes to the last seat, no step
        _take(state, trick["order"][-1], trick["table"][0], None, double)
    state["steps"] = step
    if not trick["table"]:
        hands_empty = not any(state["hands"].values())
        if hands_empty or max(state["scores"].values()) >= TARGET:
            state["finished"] = True
            best = max(state["scores"].values())
            state["winners"] = [int(s) for s, v in state["scores"].items() if v == best]


def _take(state: dict[str, Any], seat: int, card: int, step: int | None, double: bool) -> None:
    trick = state["tricks"][-1]
    trick["table"].remove(card)
    trick["picks"].append({"seat": seat, "card": card, "step": step})
    highest = max(trick["played"].values())
    state["scores"][str(seat)] += card * (2 if double and card == highest else 1)


# ---- the match file ----------------------------------------------------------

FILE_KEYS = frozenset(
    {"ruleset", "players", "hand_size", "deck", "settings", "seed", "orders", "host_entered"}
    | set(EXPORT_KEYS)
)


def parse_file(doc: Any, *, stored: bool = False) -> dict[str, Any]:
    """The checked parts of a match file (see :func:`play_file`)."""
    if not isinstance(doc, Mapping) or doc.get("ruleset") != RULESET:
        raise RuleError.single("toy/bad_file", "a toy match file is an object with ruleset 'toy'")
    problems: list[Problem] = []
    unknown = sorted(set(doc) - FILE_KEYS)
    if unknown:
        problems.append(Problem("toy/bad_file", f"unknown keys: {', '.join(unknown)}"))
    players: list[dict[str, Any]] = []
    try:
        players = check_players(doc.get("players"), limits=not stored)
    except RuleError as exc:
        problems += exc.problems
    hand_size = DEFAULT_HAND_SIZE
    try:
        hand_size = check_hand_size(doc.get("hand_size"))
    except RuleError as exc:
        problems += exc.problems
    deck = None
    try:
        deck = check_deck(doc.get("deck"), hand_size, 0 if problems else len(players))
    except RuleError as exc:
        problems += exc.problems
    settings = doc.get("settings", {})
    if not isinstance(settings, Mapping) or set(settings) - {"double"}:
        problems.append(Problem("toy/bad_file", "'settings' is an object with 'double' only"))
        settings = {}
    double = settings.get("double", False)
    if not isinstance(double, bool):
        problems.append(Problem("settings/not_a_flag", "'double' must be true or false"))
    seed, seed_problems = check_seed(doc)
    problems += seed_problems
    raw_orders = doc.get("orders", [])
    steps: list[dict[int, Any]] = []
    if not isinstance(raw_orders, list):
        problems.append(Problem("toy/bad_file", "'orders' is a list of steps' orders"))
    else:
        for i, step in enumerate(raw_orders):
            if not isinstance(step, Mapping):
                problems.append(Problem("toy/bad_file", f"orders[{i}] must be an object"))
                continue
            by_seat: dict[int, Any] = {}
            for key, order in step.items():
                if not (isinstance(key, str) and key.isdigit()) or not (
                    1 <= int(key) <= max(len(players), 1)
                ):
                    problems.append(Problem("toy/bad_file", f"orders[{i}]: no seat {key!r}"))
                else:
                    by_seat[int(key)] = order
            steps.append(by_seat)
    entered = doc.get("host_entered", [])
    if not isinstance(entered, list) or not all(
        isinstance(e, Mapping) and set(e) == {"step", "seat"} for e in entered
    ):
        problems.append(Problem("toy/bad_file", "'host_entered' is a list of {step, seat}"))
    if problems:
        raise RuleError(problems)
    assert seed is not None
    return {
        "players": players,
        "hand_size": hand_size,
        "deck": deck,
        "double": double,
        "seed": seed,
        "steps": steps,
    }


def play_file(doc: Any, *, stored: bool = False) -> dict[str, Any]:
    """The state after a match file's steps (every order checked), or a RuleError."""
    parsed = parse_file(doc, stored=stored)
    seats = [p["seat"] for p in parsed["players"]]
    state = start(seats, parsed["hand_size"], parsed["seed"], parsed["deck"])
    for i, orders in enumerate(parsed["steps"]):
        nxt = next_acting(state)
        if nxt is None:
            raise RuleError.single(
                "toy/too_many_steps", f"orders[{i}]: the match was over after {i} steps"
            )
        phase, acting = nxt
        problems: list[Problem] = []
        checked: dict[int, int | None] = {}
        for seat, order in sorted(orders.items()):
            if order is None:
                continue
            if seat not in acting:
                problems.append(
                    Problem("toy/not_acting", f"orders[{i}]: seat {seat} does not act in it")
                )
                continue
            try:
                checked[seat] = check_card(state, phase, seat, order)
            except RuleError as exc:
                problems += [
                    Problem(p.code, f"orders[{i}], seat {seat}: {p.message}") for p in exc.problems
                ]
        if problems:
            raise RuleError(problems)
        apply_step(state, checked, parsed["seed"], parsed["double"])
    return state


PUBLIC_KEYS = (
    "ruleset",
    "steps",
    "hand_size",
    "scores",
    "tricks",
    "defaulted",
    "finished",
    "winners",
)


def public_result(state: Mapping[str, Any]) -> dict[str, Any]:
    """What everyone may see of a state: all but the hands."""
    return {key: state[key] for key in PUBLIC_KEYS}
