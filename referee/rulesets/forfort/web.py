"""Forfort's part of the web pages (:class:`referee.web.game.GameWeb`).

Everything shown is made from the viewer's view (FO21, :mod:`.view`), never
from stored rows:

- every fort as a picture (:func:`.picture.forts_svg`, through the ruleset's
  pictures) and, beside it, in words: each space's visible card and what it
  covers, armies and their direction, the drawbridge; each dungeon's count
  and top arrows, discard piles, supplies, points; the steps so far, newest
  first, with the armies' moves; at the end the scores, winners, Token of
  Life and Elimination Candidate;
- a seat's own hand, on its own page only (its view's ``hand``);
- the acting seat's order form: one order for the whole turn, composed by
  ``static/rulesets/forfort/turn.js`` from the seat's ``options`` with native
  radio buttons in fieldsets, a summary in words before sending, and the
  generic JSON box underneath (the order the script writes, and the form
  without JavaScript), the options listed in words beside it;
- orders and refusals in players' words (names, not seat numbers; "pair 1",
  not ``pairs[0]``; no rule ids);
- the create page's card set: the default, or a host's set uploaded or
  pasted, every problem listed beside the box.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from wtforms import FileField, SubmitField, TextAreaField

from referee.errors import Problem, RuleError
from referee.jsonio import loads_strict
from referee.web.game import GameWeb, JsonOrder, OrderForm, SetupRead, game_keys

from .cards import SYMBOLS, card_set_problems, default_card_set
from .fort import CORNERS, SPACES, army_directions

__all__ = ["ForfortOrder", "Web", "card_table", "order_text"]

TEMPLATES = "rulesets/forfort"
STATIC = "rulesets/forfort"
SYMBOL_NAMES: dict[str, str] = {
    "mason": "Mason",
    "ram": "Battering Ram",
    "trebuchet": "Trebuchet",
    "siege": "Siege Tower",
    "garrison": "Garrison",
}
MARK_NAMES: dict[str, str] = {"gate": "gate", "shield": "protected"}
OUTCOMES: dict[str, str] = {
    "moved": "moved to space {to}",
    "destroyed": "destroyed the stack on space {to} and moved in",
    "exited": "left the fort and went back to its owner's supply",
    "blocked": "stayed: another army stands on space {to}",
    "defeated": "was defeated by the protected wall on space {to}",
}
RECENT_STEPS = 8  # steps listed in full; earlier ones behind a "show" summary

Who = Callable[[Any], str]


# ---- cards --------------------------------------------------------------------------


def card_table(card_set: object) -> dict[str, dict[str, Any]]:
    """Every wall of the match's card set (from the view's ``cards``; the
    default set when the view has none) for display: ``name`` ("w03 (angled,
    Mason)"), ``full`` (with its mark and the arrows printed on its back),
    ``shape``, ``symbols``, ``mark``, ``arrows``."""
    walls: list[Mapping[str, Any]] = []
    if isinstance(card_set, Mapping) and isinstance(card_set.get("walls"), list):
        walls = [w for w in card_set["walls"] if isinstance(w, Mapping)]
    if not walls:
        walls = [w.as_json() for w in default_card_set().walls]
    out: dict[str, dict[str, Any]] = {}
    for w in walls:
        card = str(w.get("id"))
        symbols = [str(s) for s in w.get("symbols") or []]
        mark = w.get("mark")
        arrows = [int(a) for a in w.get("arrows") or []]
        what = [SYMBOL_NAMES.get(s, s) for s in symbols]
        if mark:
            what.append(MARK_NAMES.get(str(mark), str(mark)))
        name = f"{card} ({', '.join([str(w.get('shape')), *what])})"
        back = " and ".join(str(a) for a in arrows)
        out[card] = {
            "id": card,
            "name": name,
            "full": f"{name}: its back points to spaces {back} when upright",
            "shape": str(w.get("shape")),
            "symbols": symbols,
            "symbol_names": [SYMBOL_NAMES.get(s, s) for s in symbols],
            "mark": mark,
            "arrows": arrows,
        }
    return out


def _card(cards: Mapping[str, Mapping[str, Any]], card: object) -> str:
    text = str(card)
    if text == "camp":
        return "a camp"
    found = cards.get(text.lower())
    return str(found["name"]) if found else text


def _seat_names(view: Mapping[str, Any]) -> dict[int, str]:
    return {int(p["seat"]): str(p["name"]) for p in view.get("players") or []}


def _who(names: Mapping[int, str]) -> Who:
    def who(seat: Any) -> str:
        try:
            n = int(seat)
        except (TypeError, ValueError):
            return str(seat)
        return names.get(n, f"seat {n}")

    return who


def _possessive(name: str) -> str:
    return f"{name}'" if name.endswith("s") else f"{name}'s"


# ---- orders in words -------------------------------------------------------------------


def _use_text(use: Any, who: Who) -> str:
    if not isinstance(use, Mapping):
        return "a use"
    if "defeat" in use:
        return f"defeat the army on space {use['defeat']}"
    return (
        f"place an army on {_possessive(who(use.get('target')))} space {use.get('space')}, "
        f"heading {use.get('direction')}"
    )


def pair_text(pair: Any, cards: Mapping[str, Mapping[str, Any]], who: Who) -> str:
    """One pair of a build in words."""
    if not isinstance(pair, Mapping):
        return "a pair"
    symbol = str(pair.get("symbol"))
    head = f"the {SYMBOL_NAMES.get(symbol, symbol)} pair with space {pair.get('with')}"
    if symbol == "mason":
        if pair.get("from") == "dungeon":
            text = (
                f"{head}: the top card of the dungeon to corner {pair.get('corner')} "
                f"if angled, edge {pair.get('edge')} if straight"
            )
            if pair.get("card"):
                text += f" (it was {_card(cards, pair['card'])}, built on {pair.get('space')})"
            return text
        return (
            f"{head}: build {_card(cards, pair.get('card'))} from the discard pile on "
            f"space {pair.get('space')}"
        )
    if symbol in ("ram", "trebuchet"):
        return f"{head}: attack {_possessive(who(pair.get('target')))} space {pair.get('space')}"
    if symbol == "siege":
        targets = pair.get("targets") or []
        hit = [_possessive(who(t)) for t in targets] if isinstance(targets, list) else []
        return f"{head}: the top card of {', then of '.join(hit) or '?'} dungeon discarded"
    uses = pair.get("uses") or []
    shown = ", then ".join(_use_text(u, who) for u in uses) if isinstance(uses, list) else "?"
    return f"{head}: {shown}"


def effect_text(action: Mapping[str, Any], cards: Mapping[str, Mapping[str, Any]], who: Who) -> str:
    symbol = str(action.get("symbol"))
    head = f"use the {SYMBOL_NAMES.get(symbol, symbol)} of {_card(cards, action.get('effect'))}"
    if symbol == "mason":
        return (
            f"{head}: build {_card(cards, action.get('card'))} from the discard pile on "
            f"space {action.get('space')}"
        )
    if symbol in ("ram", "trebuchet"):
        return f"{head} on {_possessive(who(action.get('target')))} space {action.get('space')}"
    if symbol == "siege":
        return f"{head} on {_possessive(who(action.get('target')))} dungeon"
    return f"{head}: {_use_text(action, who)}"


def action_text(action: Any, cards: Mapping[str, Mapping[str, Any]], who: Who) -> str:
    """An action (as sent or normalised) in words."""
    if action is None:
        return "no action (the hand was empty)"
    if not isinstance(action, Mapping):
        return "an action the rules could not read"
    if "build" in action:
        text = f"build {_card(cards, action['build'])} on space {action.get('space')}"
        pairs = action.get("pairs") or []
        if isinstance(pairs, list) and pairs:
            text += "; then " + "; then ".join(pair_text(p, cards, who) for p in pairs)
        return text
    if "effect" in action:
        return effect_text(action, cards, who)
    if "camp" in action:
        return (
            f"discard {_card(cards, action['camp'])} to place a camp on space {action.get('space')}"
        )
    if "discard" in action:
        return f"discard {_card(cards, action['discard'])} (nothing else was possible)"
    return "an action the rules could not read"


def order_text(order: Any, cards: Mapping[str, Mapping[str, Any]], who: Who) -> str | None:
    """A whole turn's order in words: "first camp on space 8; build w07,
    straight, Trebuchet on space 2; drawbridge on space 6"."""
    if not isinstance(order, Mapping):
        return None
    parts = []
    if order.get("camp_start") is not None:
        parts.append(f"first camp on space {order['camp_start']}")
    parts.append(action_text(order.get("action"), cards, who))
    if order.get("drawbridge") is not None:
        parts.append(f"drawbridge on space {order['drawbridge']} (an extra turn)")
    return "; ".join(parts)


# ---- the forts and steps for display --------------------------------------------------------


def forts_of(result: Mapping[str, Any], names: Mapping[int, str], cards: Any) -> list[Any]:
    """Each fort for display, seat by seat: its spaces in words, dungeon,
    discard pile, supply, points."""
    who = _who(names)
    forts = result.get("forts") or {}
    out = []
    for seat_key in sorted(forts, key=int):
        seat = int(seat_key)
        fort = forts[seat_key] or {}
        bridge = fort.get("drawbridge")
        spaces = []
        for s in SPACES:
            space = (fort.get("spaces") or {}).get(str(s)) or {}
            stack = [str(c) for c in space.get("stack") or []]
            army = space.get("army")
            kind = "corner" if s in CORNERS else "edge"
            if isinstance(army, Mapping):
                text = f"an army of {who(army.get('seat'))}, heading {army.get('direction')}"
            elif stack:
                text = _card(cards, stack[-1])
                if len(stack) > 1:
                    under = [_card(cards, c) for c in reversed(stack[:-1])]
                    text += ", covering " + (
                        under[0] if len(under) == 1 else f"{', '.join(under[:-1])} and {under[-1]}"
                    )
            else:
                text = "empty"
            if bridge == s:
                text += "; the drawbridge is down here"
            spaces.append(
                {
                    "number": s,
                    "kind": kind,
                    "text": text,
                    "empty": not stack and not isinstance(army, Mapping),
                }
            )
        arrows = (result.get("top_arrows") or {}).get(seat_key)
        supply = (result.get("supply") or {}).get(seat_key) or {}
        out.append(
            {
                "seat": seat,
                "name": who(seat),
                "spaces": spaces,
                "dungeon": (result.get("dungeon_counts") or {}).get(seat_key, 0),
                "top_arrows": list(arrows) if isinstance(arrows, list) else None,
                "hand_count": (result.get("hand_counts") or {}).get(seat_key),
                "discards": [
                    _card(cards, c) for c in (result.get("discards") or {}).get(seat_key) or []
                ],
                "camps": supply.get("camps", 0),
                "armies": supply.get("armies", 0),
                "defeated": supply.get("defeated", 0),
                "bridge_in_supply": bridge is None,
                "points": (result.get("points") or {}).get(seat_key, 0),
            }
        )
    return out


def army_text(move: Mapping[str, Any], who: Who) -> str:
    outcome = str(move.get("outcome"))
    where = f"the army on space {move.get('from')} of {_possessive(who(move.get('fort')))} fort"
    return f"{where} " + OUTCOMES.get(outcome, outcome).format(to=move.get("to"))


def steps_of(result: Mapping[str, Any], names: Mapping[int, str], cards: Any) -> list[Any]:
    """The closed steps in words, newest first."""
    who = _who(names)
    out = []
    for step in reversed(result.get("steps") or []):
        seat = int(step.get("seat"))
        out.append(
            {
                "step": step.get("step"),
                "round": step.get("round"),
                "seat": seat,
                "name": who(seat),
                "extra": bool(step.get("extra")),
                "defaulted": bool(step.get("defaulted")),
                "armies": [army_text(a, who) for a in step.get("armies") or []],
                "order": order_text(step.get("order"), cards, who) or "",
                "drew": _card(cards, step["drew"]) if step.get("drew") else None,
            }
        )
    return out


def end_of(result: Mapping[str, Any], names: Mapping[int, str]) -> dict[str, Any] | None:
    """The end of the match in words: why, scores, winners, the season keys."""
    end = result.get("end")
    if not isinstance(end, Mapping):
        return None
    who = _who(names)
    scores = result.get("scores") or {}
    bonus = result.get("bonus") or {}
    points = result.get("points") or {}
    if end.get("reason") == "completed":
        completer = next((int(w) for w in result.get("winners") or []), None)
        why = f"{who(completer)} completed their fort at step {end.get('step')}"
    else:
        why = (
            f"A dungeon ran out at step {end.get('triggered_at')}; the round was played "
            f"to its end (step {end.get('step')})"
        )
    rows = [
        {
            "seat": int(s),
            "name": who(s),
            "points": points.get(s, 0),
            "bonus": bonus.get(s, 0),
            "score": scores.get(s, 0),
        }
        for s in sorted(scores, key=int)
    ]
    token = result.get("token_of_life")
    candidate = result.get("elimination_candidate")
    decided = {
        "score": "the lowest score",
        "garnets": "the fewest garnets among the lowest scores",
        "draw": "the seeded draw among those tied",
    }
    return {
        "why": why,
        "rows": rows,
        "winners": [who(w) for w in result.get("winners") or []],
        "token": who(token) if token is not None else None,
        "candidate": who(candidate["seat"]) if isinstance(candidate, Mapping) else None,
        "decided_by": decided.get(str((candidate or {}).get("decided_by")), "")
        if isinstance(candidate, Mapping)
        else "",
    }


# ---- the options in words (beside the JSON box; what the script offers) ---------------------


def option_words(opts: Mapping[str, Any], cards: Any, who: Who) -> list[str]:
    """One option set (FORMAT's API bodies) in words, one line per choice."""
    out: list[str] = []
    if opts.get("forced_discard"):
        out.append("You can do nothing else: discard one card of your hand.")
    for card, builds in (opts.get("build") or {}).items():
        spaces = []
        for b in builds:
            text = f"space {b['space']}"
            pairs = b.get("pairs") or []
            if pairs:
                made = ", ".join(
                    f"{SYMBOL_NAMES.get(p['symbol'], p['symbol'])} with space {p['with']}"
                    for p in pairs
                )
                text += f" (makes the pair{'s' if len(pairs) > 1 else ''} {made})"
            spaces.append(text)
        out.append(f"Build {_card(cards, card)} on {' or '.join(spaces)}.")
    for card, symbols in (opts.get("effects") or {}).items():
        for symbol, choices in symbols.items():
            out.append(
                f"Use the {SYMBOL_NAMES.get(symbol, symbol)} of {_card(cards, card)}: "
                f"{_choices_text(symbol, choices, cards, who)}."
            )
    camps = opts.get("camp_spaces") or []
    if camps:
        out.append(
            "Discard any card of your hand to place a camp on space "
            + " or ".join(str(s) for s in camps)
            + "."
        )
    bridge = opts.get("drawbridge")
    if bridge is None:
        out.append("Drawbridge: your token is not in your supply.")
    elif bridge:
        out.append(
            "Drawbridge (after the action): space "
            + " or ".join(str(s) for s in bridge)
            + ", or a gate wall the action builds."
        )
    else:
        out.append("Drawbridge: only on a gate wall the action builds.")
    return out


def _choices_text(symbol: str, choices: Any, cards: Any, who: Who) -> str:
    if symbol == "mason":
        found = [
            f"{_card(cards, c)} on space {' or '.join(map(str, spaces))}"
            for c, spaces in (choices.get("discard") or {}).items()
        ]
        return "build from your discard pile " + "; ".join(found)
    if symbol in ("ram", "trebuchet"):
        return "; ".join(
            f"{_possessive(who(t))} space {' or '.join(map(str, spaces))}"
            for t, spaces in choices.items()
        )
    if symbol == "siege":
        return "the dungeon of " + " or ".join(f"{who(t)} ({n} cards)" for t, n in choices.items())
    parts = []
    if choices.get("defeat"):
        parts.append("defeat the army on space " + " or ".join(map(str, choices["defeat"])))
    for t, spaces in (choices.get("place") or {}).items():
        parts.append(
            f"an army on {_possessive(who(t))} space " + " or ".join(str(s) for s in spaces)
        )
    return "; ".join(parts)


# ---- the order form ------------------------------------------------------------------------


@dataclass
class ForfortOrder(JsonOrder):
    """The generic JSON order form (``read`` gives the order, the phase's
    schema checked), with what ``turn.js`` needs to compose the order: the
    seat's options, the cards, the seats' names (``turn``, rendered as a JSON
    block), and the options in words for the page without JavaScript."""

    turn: dict[str, Any] | None = None
    words: list[dict[str, Any]] = field(default_factory=list)
    for_seat: str = ""
    own: bool = True


# a set-up that could not be read: the service refuses it (so nothing is
# created), and says nothing more than the reading's problems (superseded)
UNREAD: dict[str, Any] = {"cards": None}
_INDEX = re.compile(r"\bpairs\[(\d+)\]")
_SUB = re.compile(r"\.(uses|targets)\[(\d+)\]")
_SEAT = re.compile(r"\bseat (\d+)('s)?")
_NONE = re.compile(r",? not None\b")
_RULE = re.compile(r"\s*\(?\bFO\d+\)?")


class Web(GameWeb):
    """Forfort's pages."""

    results_template: ClassVar[str] = f"{TEMPLATES}/results.html"
    sections_template: ClassVar[str] = f"{TEMPLATES}/sections.html"
    order_template: ClassVar[str] = f"{TEMPLATES}/order_form.html"
    setup_template: ClassVar[str] = f"{TEMPLATES}/setup_fields.html"
    report_template: ClassVar[str] = f"{TEMPLATES}/setup_report.html"
    rules_template: ClassVar[str] = f"{TEMPLATES}/rules.html"
    scripts: ClassVar[tuple[str, ...]] = (f"{STATIC}/turn.js",)
    stylesheets: ClassVar[tuple[str, ...]] = (f"{STATIC}/style.css",)
    players_hint: ClassVar[str] = (
        "Garnets are a whole number, 0 or more; on a tie for the lowest score, "
        "the fewest garnets decide the Elimination Candidate."
    )
    close_early_text: ClassVar[str] = "a turn closes as soon as its player has sent an order"
    reveal_what: ClassVar[str] = "every hand and the order of every dungeon"
    check_ok: ClassVar[str] = "The card set is valid."
    audit_template: ClassVar[str] = f"{TEMPLATES}/audit.html"
    audit_note: ClassVar[str] = (
        "Every best score is proved optimal by the OR-Tools CP-SAT solver over every legal "
        "turn (first camp, action and pairs)."
    )

    def audit_offered(self, view: dict[str, Any]) -> bool:
        """The audit compares each seat's last turn: a finished match only."""
        return bool(view.get("finished"))

    # ---- match pages -------------------------------------------------

    def page_context(self, view: dict[str, Any], context: dict[str, Any]) -> dict[str, Any]:
        result: Mapping[str, Any] = context.get("result") or {}
        names = _seat_names(view)
        cards = card_table(result.get("cards"))
        viewer = view.get("viewer") or {}
        own = viewer.get("seat") if viewer.get("kind") == "seat" else None
        hand: list[str] | None = None
        if own is not None:
            hand = [str(c) for c in view.get("hand") or result.get("hand") or []]
        hands = result.get("hands") or {}
        nxt = result.get("next")
        return {
            "ff_cards": cards,
            "ff_forts": forts_of(result, names, cards) if result else [],
            "ff_steps": steps_of(result, names, cards) if result else [],
            "ff_recent": RECENT_STEPS,
            "ff_end": end_of(result, names) if result else None,
            "ff_hand": [cards.get(c, {"full": c, "id": c}) for c in hand]
            if hand is not None
            else None,
            "ff_hands": {
                int(s): [_card(cards, c) for c in h]
                for s, h in sorted(hands.items(), key=lambda kv: int(kv[0]))
                if own is None or int(s) != own
            },
            "ff_next": dict(nxt) if isinstance(nxt, Mapping) else None,
            "ff_final_round": result.get("final_round"),
        }

    def order_words(self, order: Any, context: Mapping[str, Any]) -> str | None:
        cards = context.get("ff_cards") or card_table(None)
        return order_text(order, cards, _who(context.get("names") or {}))

    def player_problems(
        self, problems: list[Problem], order: Any, seat: int, context: Mapping[str, Any]
    ) -> list[Problem]:
        """Seats by their players' names, pairs counted from 1, no rule ids."""
        names: Mapping[int, str] = context.get("names") or {}
        view = context.get("view") or {}
        own = (view.get("viewer") or {}).get("seat")

        def seat_name(m: re.Match[str]) -> str:
            n = int(m.group(1))
            if n not in names:
                return m.group(0)
            name = "you" if n == own else names[n]
            if m.group(2):
                return "your" if n == own else _possessive(name)
            return name

        out = []
        for p in problems:
            message = _INDEX.sub(lambda m: f"pair {int(m.group(1)) + 1}", p.message)
            message = _SUB.sub(lambda m: f", {m.group(1)[:-1]} {int(m.group(2)) + 1}", message)
            message = _SEAT.sub(seat_name, message)
            message = _RULE.sub("", message)
            message = _NONE.sub(": none was chosen", message)
            out.append(Problem(p.code, message, p.field))
        return out

    def game_settings_summary(self, settings: Mapping[str, Any]) -> list[str]:
        return []

    # ---- orders ------------------------------------------------------

    def order_form(
        self,
        view: dict[str, Any],
        context: dict[str, Any],
        seat: int,
        current: Any = None,
        formdata: Any = None,
    ) -> OrderForm | None:
        base = super().order_form(view, context, seat, current, formdata)
        assert isinstance(base, JsonOrder)
        names = _seat_names(view)
        who = _who(names)
        cards = context.get("ff_cards") or card_table(None)
        opts = view.get("options")
        is_seat = (view.get("viewer") or {}).get("kind") == "seat"
        turn: dict[str, Any] | None = None
        words: list[dict[str, Any]] = []
        if is_seat and isinstance(opts, Mapping):
            hand = [str(c) for c in view.get("hand") or []]
            named = json.dumps(opts)
            turn = {
                "options": opts,
                "hand": hand,
                # the cards the options or the hand name (not the whole set)
                "cards": {
                    c: {"name": v["name"], "shape": v["shape"], "mark": v["mark"]}
                    for c, v in cards.items()
                    if c in hand or f'"{c}"' in named
                },
                "names": {str(s): n for s, n in names.items()},
                "seat": seat,
                "directions": {str(s): army_directions(s) for s in SPACES},
                "symbols": {s: SYMBOL_NAMES[s] for s in SYMBOLS},
                "current": current,
            }
            by_camp = opts.get("by_camp_start")
            if isinstance(by_camp, Mapping):
                for space, option_set in by_camp.items():
                    words.append(
                        {
                            "title": f"With your first camp on space {space}",
                            "lines": option_words(option_set, cards, who),
                        }
                    )
            else:
                words.append({"title": "", "lines": option_words(opts, cards, who)})
        return ForfortOrder(
            template=self.order_template,
            round=base.round,
            seat=seat,
            form=base.form,
            phase_info=base.phase_info,
            options=opts,
            also=game_keys(view, leave_out=("result", "options")),
            turn=turn,
            words=words,
            for_seat=names.get(seat, f"seat {seat}"),
            own=is_seat,
        )

    # ---- creating a match ---------------------------------------------

    @property
    def check_action(self) -> str | None:
        return "check_cards"

    def setup_fields(self) -> dict[str, Any]:
        return {
            "cards_file": FileField("Upload a card set (JSON)"),
            "cards_json": TextAreaField("Or paste a card set (JSON)"),
            "check_cards": SubmitField("Check the card set only"),
        }

    def read_setup(self, form: Any) -> SetupRead:
        """The card set the host chose: an uploaded file first, then pasted
        JSON, else the default set (nothing sent: the rules' default). An
        uploaded file's text is put in the paste box, so a refused set can be
        edited there."""
        upload: Any = form.cards_file.data
        text: str | None = None
        if upload is not None and getattr(upload, "filename", None):
            try:
                text = upload.read().decode("utf-8-sig")
            except UnicodeDecodeError:
                problem = Problem("json/invalid", "the card set file is not UTF-8 text", "cards")
                return SetupRead(dict(UNREAD), [problem], frozenset({"cards"}))
            form.cards_json.data = text
        elif (form.cards_json.data or "").strip():
            text = form.cards_json.data
        if text is None or not text.strip():
            return SetupRead({})
        try:
            doc = loads_strict(text, "the card set")
        except RuleError as exc:
            problems = [Problem(p.code, p.message, "cards") for p in exc.problems]
            return SetupRead(dict(UNREAD), problems, frozenset({"cards"}))
        found, problems = card_set_problems(doc)
        if found is None or problems:
            # every problem, in the host's words; the service's own are the same
            return SetupRead(dict(UNREAD), set_problems(problems), frozenset({"cards"}))
        return SetupRead({"cards": doc}, report=True)

    def setup_report(self, body: Mapping[str, Any]) -> tuple[Any, list[Problem]]:
        """The card set in numbers (walls of each shape, symbols, marks,
        camps, armies), or every problem of it."""
        if "cards" not in body:
            cards = default_card_set()
        else:
            found, problems = card_set_problems(body["cards"])
            if found is None or problems:
                return None, set_problems(problems)
            cards = found
        walls = cards.walls
        return {
            "default": "cards" not in body,
            "walls": len(walls),
            "angled": sum(1 for w in walls if w.shape == "angled"),
            "straight": sum(1 for w in walls if w.shape == "straight"),
            "symbols": {SYMBOL_NAMES[s]: sum(1 for w in walls if s in w.symbols) for s in SYMBOLS},
            "gates": sum(1 for w in walls if w.mark == "gate"),
            "shields": sum(1 for w in walls if w.mark == "shield"),
            "camps": cards.camps,
            "armies": cards.armies,
        }, []

    @property
    def default_set_json(self) -> str:
        """The default card set as JSON, one wall a line (for a host to copy)."""
        doc = default_card_set().as_json()
        walls = ",\n  ".join(json.dumps(w) for w in doc["walls"])
        return f'{{"walls": [\n  {walls}\n], "camps": {doc["camps"]}, "armies": {doc["armies"]}}}'

    def setup_field(self, problem: Problem) -> str | None:
        if problem.code.startswith(("cards/", "json/")) or problem.field == "cards":
            return "cards"
        return None

    def superseded(self, problem: Problem, read: SetupRead) -> bool:
        return problem.field in read.unread


_WALL_AT = re.compile(r"\bcards\.walls\[(\d+)\]")


def set_problems(problems: Sequence[Problem]) -> list[Problem]:
    """A card set's problems as the create page says them: walls counted from
    1 ("wall 3"), the set itself "the card set"; each on the ``cards`` field."""
    out = []
    for p in problems:
        message = _WALL_AT.sub(lambda m: f"wall {int(m.group(1)) + 1}", p.message)
        message = re.sub(r"^cards: ", "the card set: ", message)
        out.append(Problem(p.code, message, "cards"))
    return out
