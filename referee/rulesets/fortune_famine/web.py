"""Fortune & Famine's part of the web pages (:class:`referee.web.game.GameWeb`).

Everything shown is made from the viewer's view (FF21, :mod:`.view`), never
from stored rows, and nothing is computed from data the view lacks:

- the Hire Board of the season (each card with its standing bid and bidder,
  or who took or claimed it) beside the board picture, when the ruleset draws
  one; every seat's Kingdom, grain, silver, guard and tokens, and its stored
  grain only where the view has it (its owner and the host until the end,
  everyone after); each season in words, newest first, older ones folded;
  the end (ranking, Token of Life, Elimination Candidate);
- the acting seat's order form: one order for the step, composed by
  ``static/rulesets/fortune_famine/order.js`` from the seat's ``options``
  (FORMAT's API bodies) with native radio buttons and check boxes in
  fieldsets, a running total of the seat's grain, silver and stored grain
  computed by FORMAT's rules for the chosen combination, and the order in
  words before sending; the generic JSON box underneath (what the script
  writes, and the form without JavaScript), the options listed in words;
- orders and refusals in players' words (names, not seat numbers; card
  names, not ids; no rule ids);
- the create page's deck: the default, or a host's own uploaded or pasted,
  every problem listed, the text kept; the rulers per seat or by the seed.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from wtforms import FileField, SelectField, SubmitField, TextAreaField

from referee.errors import Problem, RuleError
from referee.jsonio import loads_strict
from referee.web.game import GameWeb, JsonOrder, OrderForm, SetupRead, game_keys

from . import words as w
from .cards import deck_problems, default_deck, year_size_problems
from .match import MAX_SEATS, MIN_SEATS
from .state import RULERS

__all__ = ["FFOrder", "Web", "card_words", "order_text"]

TEMPLATES = "rulesets/fortune_famine"
STATIC = "rulesets/fortune_famine"
RECENT_SEASONS = 2  # seasons told in full; earlier ones folded
POWERS = {
    "famine": "Famine: every seat loses half its unguarded grain when it is revealed",
    "pickpocket": "Pickpocket: 2 silver in each attack, 1 from each opponent named",
    "philosopher": "Philosopher: doubles one paid Common Farmer or Merchant",
    "seer": "Seer: Evrathors cannot name you",
    "trader": "Trader: once a season, trade 1 to 3 grain for silver or back",
}

Who = Callable[[Any], str]
Card = Callable[[Any], str]


# ---- cards ------------------------------------------------------------------------------


def _types(deck: object) -> dict[str, Mapping[str, Any]]:
    if not isinstance(deck, Mapping) or not isinstance(deck.get("types"), list):
        deck = default_deck().as_json()
    return {str(t.get("id")): t for t in deck["types"] if isinstance(t, Mapping)}


def _res(values: object, keys: Sequence[str]) -> str:
    return w.resources(values if isinstance(values, Mapping) else {}, keys)


def type_text(t: Mapping[str, Any]) -> str:
    """What a card type does, in words: "pay 1 silver, earn 2 grain"."""
    kind = str(t.get("kind"))
    if kind in ("farmer", "merchant", "jester", "steward"):
        pay = _res(t.get("payment"), ("grain", "silver"))
        earn = _res(t.get("reward"), ("grain", "silver", "stored"))
        return f"earns {earn} with no payment" if pay == "nothing" else f"pay {pay}, earn {earn}"
    if kind == "chysarion":
        what = "grain into storage" if t.get("gives") == "stored" else str(t.get("gives"))
        return f"wizard: gives {t.get('amount')} {what} once"
    if kind == "evrathor":
        what = "stored grain" if t.get("steals") == "stored" else str(t.get("steals"))
        split = {
            "none": "from one opponent at most",
            "may": "may be split",
            "must": "at most half from any one opponent",
        }.get(str(t.get("split") or "none"), "")
        return f"wizard: steals {t.get('amount')} {what} once, {split}"
    return POWERS.get(kind, kind)


def card_words(deck: object) -> Callable[[Any], dict[str, str]]:
    """A card's words from the match's deck (a view's ``deck``): ``name``
    ("Common Farmer 3", "Common Farmer (start)"), ``text`` (what it does),
    ``kind``."""
    types = _types(deck)

    def card(card_id: Any) -> dict[str, str]:
        cid = str(card_id).strip().lower()
        type_id, _, copy = cid.partition(".")
        if type_id == "start-farmer":
            t = types.get("common-farmer", {})
            name = f"{t.get('name') or 'Common Farmer'} (start)"
        else:
            t = types.get(type_id, {})
            base = str(t.get("name") or type_id)
            name = f"{base} {copy}" if copy else base
        if not t:
            return {"id": cid, "name": str(card_id), "text": "", "kind": ""}
        return {"id": cid, "name": name, "text": type_text(t), "kind": str(t.get("kind"))}

    return card


def _seat_names(view: Mapping[str, Any]) -> dict[int, str]:
    return {int(p["seat"]): str(p["name"]) for p in view.get("players") or []}


def _who(names: Mapping[int, str], own: int | None = None) -> Who:
    def who(seat: Any) -> str:
        try:
            n = int(seat)
        except (TypeError, ValueError):
            return str(seat)
        if own is not None and n == own:
            return "you"
        return names.get(n, f"seat {n}")

    return who


# ---- orders in words -----------------------------------------------------------------------


def _trade(trade: Any) -> str:
    if not isinstance(trade, Mapping):
        return ""
    give = trade.get("give")
    other = "silver" if give == "grain" else "grain"
    at = {"payment": " before paying", "decision": " before the decision"}.get(
        str(trade.get("at")), ""
    )
    return f"trade {trade.get('count')} {give} for {trade.get('count')} {other}{at}"


def _guard(guard: Any) -> str:
    if not isinstance(guard, Mapping):
        return ""
    g, s = guard.get("grain") or 0, guard.get("silver") or 0
    return f"guard {g} grain and {s} silver"


def order_text(order: Any, card: Card, who: Who) -> str | None:
    """An order (hire, attack or economy, as sent) in words."""
    if not isinstance(order, Mapping):
        return None
    parts = [_trade(order.get("trade"))]
    action = order.get("action")
    if "action" in order:
        c = card(order.get("card")) if order.get("card") is not None else "?"
        main = {
            "bid": f"bid {order.get('silver')} silver on {c}",
            "take": f"take {c}",
            "claim": f"claim {c} with a token",
            "pass": "pass",
        }.get(str(action), f"{action}")
        if order.get("discard"):
            main += f", discarding {card(order['discard'])}"
        parts.append(main)
    elif "decision" in order:
        pay = order.get("pay") or []
        parts.append("pay " + ", ".join(card(c) for c in pay) if pay else "pay no worker")
        if order.get("double"):
            parts.append(f"double {card(order['double'])}")
        if order.get("chysarion"):
            parts.append("use " + ", ".join(card(c) for c in order["chysarion"]))
        decision = order.get("decision")
        if decision == "store":
            parts.append(f"store {order.get('store')} grain for 1 silver")
        else:
            parts.append(f"take 1 {decision}")
    else:
        picked = order.get("pickpocket")
        if isinstance(picked, list):
            targets = " and ".join(who(s) for s in picked)
            parts.append(
                "Pickpocket: 2 silver" + (f", 1 from {targets}" if targets else " from the stock")
            )
        for use in order.get("evrathor") or []:
            if not isinstance(use, Mapping):
                continue
            src = use.get("from") or {}
            named = ", ".join(f"{n} from {who(s)}" for s, n in src.items())
            parts.append(f"{card(use.get('card'))}: {named or 'all from the stock'}")
        if len([p for p in parts if p]) == 0:
            parts.append("attack nobody")
    parts.append(_guard(order.get("guard")))
    return "; ".join(p for p in parts if p)


# ---- the table for display -------------------------------------------------------------------


def board_of(
    record: Mapping[str, Any], card: Callable[[Any], dict[str, str]], who: Who
) -> list[Any]:
    """The season's Hire Board, card by card: the standing bid and its bidder,
    or who took or claimed it (from the season's public hire turns)."""
    status: dict[str, str] = {}
    for turn in record.get("hire_turns") or []:
        c = str(turn.get("card") or "")
        if turn.get("action") == "bid":
            status[c] = f"bid {turn.get('silver')} silver by {who(turn.get('seat'))}"
        elif turn.get("action") == "take":
            status[c] = f"taken by {who(turn.get('seat'))}"
        elif turn.get("action") == "claim":
            status[c] = f"claimed by {who(turn.get('seat'))}"
    out = []
    for cid in record.get("revealed") or []:
        found = card(cid)
        if found["kind"] == "famine":
            state = "a Famine: it cannot be hired"
        else:
            state = status.get(str(cid), "no bid yet")
        out.append({**found, "state": state})
    return out


def seats_of(
    result: Mapping[str, Any],
    names: Mapping[int, str],
    card: Callable[[Any], dict[str, str]],
    own: int | None,
) -> list[Any]:
    out = []
    for key, s in sorted((result.get("seats") or {}).items(), key=lambda kv: int(kv[0])):
        guard = s.get("guard") or {}
        out.append(
            {
                "seat": int(key),
                "name": names.get(int(key), f"seat {key}"),
                "you": own is not None and int(key) == own,
                "ruler": w.ruler(s.get("ruler")),
                "grain": s.get("grain"),
                "silver": s.get("silver"),
                "stored": s.get("stored"),
                "guard": w.resources(guard) if (guard.get("grain") or guard.get("silver")) else "",
                "tokens": s.get("tokens") or 0,
                "kingdom": [card(c) for c in s.get("kingdom") or []],
            }
        )
    return out


def seasons_of(
    result: Mapping[str, Any], card: Callable[[Any], dict[str, str]], who: Who
) -> list[Any]:
    """Every season in words, newest first."""
    name = lambda c: card(c)["name"]  # noqa: E731
    out = []
    for record in reversed(result.get("seasons") or []):
        out.append(
            {
                "season": record.get("season"),
                "year": record.get("year"),
                "leader": who(record.get("leader")),
                "rows": w.season_rows(record, who, name),
            }
        )
    return out


def end_of(result: Mapping[str, Any], who: Who) -> dict[str, Any] | None:
    if not result.get("finished") or not result.get("ranking"):
        return None
    seats = result.get("seats") or {}
    rows = []
    for place, seat in enumerate(result["ranking"], start=1):
        s = seats.get(str(seat)) or {}
        rows.append(
            {
                "place": place,
                "name": who(seat),
                "stored": s.get("stored"),
                "grain": s.get("grain"),
                "silver": s.get("silver"),
                "workers": s.get("workers"),
            }
        )
    candidate = result.get("elimination_candidate") or {}
    return {
        "rows": rows,
        "token": who(result.get("token_of_life")),
        "token_by": w.LEVEL_WORDS.get(str(result.get("token_decided_by")), ""),
        "candidate": who(candidate.get("seat")),
        "candidate_by": w.LEVEL_WORDS.get(str(candidate.get("decided_by")), ""),
    }


def next_of(result: Mapping[str, Any], who: Who) -> str | None:
    nxt = result.get("next_round")
    if not isinstance(nxt, Mapping):
        return None
    if nxt.get("phase") == "economy":
        return f"Season {nxt.get('season')}: the economy step, every player sends an order"
    acting = (nxt.get("acting") or ["?"])[0]
    name = who(acting)
    whose = "your" if name == "you" else f"{name}\u2019s"
    return f"Season {nxt.get('season')}: {whose} {nxt.get('phase')} turn"


# ---- the options in words (beside the JSON box) ---------------------------------------------


def option_words(opts: Mapping[str, Any], card: Card, who: Who) -> list[str]:
    out: list[str] = []
    phase = opts.get("phase")
    if phase == "hire":
        for c in opts.get("cards") or []:
            name = card(c.get("card"))
            if c.get("how") == "bid":
                line = f"Bid {c.get('min_silver')} to {opts.get('max_silver')} silver on {name}"
            elif c.get("how") == "take":
                line = f"Take {name}"
            else:
                line = f"Claim {name} with a token"
            if c.get("discards"):
                line += ", discarding one of " + ", ".join(card(d) for d in c["discards"])
            out.append(line + ".")
        out.append("Pass.")
    elif phase == "attack":
        if opts.get("pickpocket") is not None:
            targets = " or ".join(who(s) for s in opts["pickpocket"]) or "nobody"
            out.append(
                f"Pickpocket: take 1 silver each from up to 2 of {targets} "
                "(the rest from the stock)."
            )
        for e in opts.get("evrathor") or []:
            caps = ", ".join(f"{who(s)} up to {n}" for s, n in (e.get("from") or {}).items())
            out.append(
                f"{card(e.get('card'))}: {e.get('amount')} {e.get('steals')} from "
                + (caps or "the stock only")
                + "."
            )
    elif phase == "economy":
        for p in opts.get("pay") or []:
            out.append(
                f"Pay {card(p.get('card'))} {_res(p.get('payment'), ('grain', 'silver'))} "
                f"to earn {_res(p.get('reward'), ('grain', 'silver', 'stored'))}."
            )
        for f in opts.get("free") or []:
            earns = _res(f.get("reward"), ("grain", "silver", "stored"))
            out.append(f"{card(f.get('card'))} earns {earns} unpaid.")
        if opts.get("double"):
            out.append(
                "Philosopher: double one of "
                + ", ".join(card(c) for c in opts["double"])
                + " if paid."
            )
        for c in opts.get("chysarion") or []:
            out.append(f"Use {card(c.get('card'))}: {c.get('amount')} {c.get('gives')}.")
        out.append(
            "Decide: take 1 grain, take 1 silver, or store grain for 1 silver "
            f"(up to {opts.get('store_max')})."
        )
    trade = opts.get("trade")
    if isinstance(trade, Mapping):
        out.append(
            f"Trader: give up to {trade.get('grain')} grain or {trade.get('silver')} silver "
            "for as many of the other."
        )
    if opts.get("guard"):
        out.append("Guard up to 3 grain and silver in all.")
    return out


# ---- the order form ------------------------------------------------------------------------------


@dataclass
class FFOrder(JsonOrder):
    """The generic JSON order form with what ``order.js`` needs to compose
    the order (``turn``, rendered as a JSON block) and the options in words."""

    turn: dict[str, Any] | None = None
    words: list[str] = field(default_factory=list)
    for_seat: str = ""
    own: bool = True


# a deck that could not be read: the service refuses it (``null`` would be the
# default deck), so nothing is created, and says nothing more than the
# reading's problems (superseded)
UNREAD: dict[str, Any] = {"deck": "(not read)"}
_PATH = re.compile(r"\bdeck\.(types|cards)\[(\d+)\](\.?)")
_SEAT = re.compile(r"\bseat (\d+)('s)?")
_CARD = re.compile(r"(?<![\w-])(start-farmer|[a-z][a-z0-9-]*)\.(\d+)(?![\w-])")
_RULE = re.compile(r"\s*\(?\bFF\d+\)?")
REFUSALS: dict[str, str] = {
    "hire/bad_action": "Choose bid, take, claim or pass.",
    "hire/unknown_card": "That card is not in this match.",
    "hire/not_on_board": "{card} is not on this season's Hire Board.",
    "hire/famine": "{card} is a Famine: nobody can hire it.",
    "hire/already_taken": "{card} has already been taken or claimed this season.",
    "hire/not_a_wizard": "{card} is a worker: bid on it instead.",
    "hire/not_a_worker": "{card} is a wizard: take it instead of bidding.",
    "hire/not_elban": "Only Elban/Eltezza may claim a card.",
    "hire/no_tokens": "You have no token left to claim {card}.",
    "hire/bid_too_low": "Your bid of {silver} silver on {card} is too low.",
    "hire/not_enough_silver": "You do not have {silver} silver to bid on {card}.",
    "hire/kingdom_full": "{card} does not fit your Kingdom: choose a card to discard.",
    "hire/kingdom_limit": "{card} breaks your Kingdom's limits: choose a card to discard.",
    "hire/discard_new_card": "You cannot discard the card you are hiring.",
    "hire/discard_not_in_kingdom": "{discard} is not in your Kingdom.",
    "hire/discard_not_needed": "{card} fits your Kingdom: no discard is needed.",
    "trade/bad": "The trade is not one you can make.",
    "trade/no_trader": "You hold no Trader.",
    "trade/used": "Your Trader has already traded this season.",
    "trade/not_enough": "You do not have what the trade gives.",
    "guard/not_besella": "Only Besella/Baroso keeps a guard.",
    "guard/bad": "The guard is a number of grain and of silver.",
    "guard/too_many": "The guard holds at most 3 grain and silver in all.",
    "guard/not_enough": "You would not hold what the guard keeps.",
    "attack/no_pickpocket": "You hold no Pickpocket.",
    "attack/bad_target": "Your attack names a player it cannot.",
    "attack/repeated_target": "The Pickpocket names a player twice.",
    "attack/target_immune": "Your attack names a player who is protected.",
    "attack/unknown_card": "That card is not in this match.",
    "attack/no_evrathor": "You hold no such Evrathor.",
    "attack/repeated_card": "An Evrathor is used twice.",
    "attack/too_many": "An Evrathor takes more than it steals.",
    "attack/split": "An Evrathor is split in a way its card forbids.",
    "attack/not_enough": "An opponent has not that much unguarded to steal.",
    "pay/unknown_card": "A worker you pay is not in this match.",
    "pay/not_in_kingdom": "You pay a worker that is not in your Kingdom.",
    "pay/no_payment": "You pay a card that needs no payment.",
    "pay/repeated": "You pay a worker twice.",
    "pay/not_enough": "You cannot afford these payments.",
    "double/unknown_card": "The doubled worker is not in this match.",
    "double/no_philosopher": "You hold no Philosopher to double a worker.",
    "double/not_paid": "Only a worker you pay can be doubled.",
    "double/not_common": "Only a Common Farmer or Common Merchant can be doubled.",
    "chysarion/unknown_card": "That Chysarion is not in this match.",
    "chysarion/not_held": "You hold no such Chysarion.",
    "chysarion/repeated": "A Chysarion is used twice.",
    "decision/bad": "Choose to take grain, take silver or store.",
    "store/bad": "Store 1 grain or more.",
    "store/not_enough_silver": "Storing costs 1 silver, and you would have none.",
    "store/not_enough_grain": "You would not have {store} grain to store.",
}


def _possessive(name: str) -> str:
    return f"{name}'" if name.endswith("s") else f"{name}'s"


class Web(GameWeb):
    """Fortune & Famine's pages."""

    results_template: ClassVar[str] = f"{TEMPLATES}/results.html"
    sections_template: ClassVar[str] = f"{TEMPLATES}/sections.html"
    order_template: ClassVar[str] = f"{TEMPLATES}/order_form.html"
    setup_template: ClassVar[str] = f"{TEMPLATES}/setup_fields.html"
    report_template: ClassVar[str] = f"{TEMPLATES}/setup_report.html"
    rules_template: ClassVar[str] = f"{TEMPLATES}/rules.html"
    scripts: ClassVar[tuple[str, ...]] = (f"{STATIC}/order.js",)
    stylesheets: ClassVar[tuple[str, ...]] = (f"{STATIC}/style.css",)
    players_hint: ClassVar[str] = (
        "Garnets are a whole number, 0 or more; they break the last ties of the ranking."
    )
    reveal_what: ClassVar[str] = "every order, every stored total and every burned card"
    check_ok: ClassVar[str] = "The deck is valid."
    audit_template: ClassVar[str] = f"{TEMPLATES}/audit.html"
    audit_note: ClassVar[str] = (
        "Every best figure is proved optimal by the OR-Tools CP-SAT solver over every legal "
        "economy order of the last season (trade, payments, double, Chysarions, decision), "
        "and the order it found is played by the rules engine to check it."
    )

    def audit_offered(self, view: dict[str, Any]) -> bool:
        """The audit compares each seat's last economy step: a finished match only."""
        return bool(view.get("finished"))

    # ---- match pages -------------------------------------------------

    def page_context(self, view: dict[str, Any], context: dict[str, Any]) -> dict[str, Any]:
        result: Mapping[str, Any] = context.get("result") or view.get("result") or {}
        names = _seat_names(view)
        viewer = view.get("viewer") or {}
        own = viewer.get("seat") if viewer.get("kind") == "seat" else None
        who = _who(names)
        card = card_words(result.get("deck"))
        seasons = result.get("seasons") or []
        current = seasons[-1] if seasons else None
        hire_open = isinstance(current, Mapping) and current.get("hired") is None
        types = _types(result.get("deck"))
        return {
            "fnf_card": card,
            "fnf_seats": seats_of(result, names, card, own) if result else [],
            "fnf_board": board_of(current, card, who) if isinstance(current, Mapping) else [],
            "fnf_board_season": current.get("season") if isinstance(current, Mapping) else None,
            "fnf_hire_open": hire_open,
            "fnf_seasons": seasons_of(result, card, who) if result else [],
            "fnf_recent": RECENT_SEASONS,
            "fnf_end": end_of(result, who) if result else None,
            "fnf_next": next_of(result, _who(names, own)) if result else None,
            "fnf_total": result.get("seasons_total"),
            "fnf_types": [
                {"name": str(t.get("name") or tid), "text": type_text(t)}
                for tid, t in types.items()
            ],
            "fnf_deck_name": (result.get("deck") or {}).get("name")
            if isinstance(result.get("deck"), Mapping)
            else None,
        }

    def order_words(self, order: Any, context: Mapping[str, Any]) -> str | None:
        card = context.get("fnf_card") or card_words(None)
        return order_text(order, lambda c: card(c)["name"], _who(context.get("names") or {}))

    def player_problems(
        self, problems: list[Problem], order: Any, seat: int, context: Mapping[str, Any]
    ) -> list[Problem]:
        """Each refusal as a sentence naming the card or amount, then the
        rules' reason with names for seats and cards, no rule ids."""
        names: Mapping[int, str] = context.get("names") or {}
        card = context.get("fnf_card") or card_words(None)
        o = order if isinstance(order, Mapping) else {}

        def name_of(c: Any) -> str:
            return card(c)["name"] if c is not None else "that card"

        def seat_name(m: re.Match[str]) -> str:
            n = int(m.group(1))
            if n == seat:
                return "your" if m.group(2) else "you"
            if n not in names:
                return m.group(0)
            return _possessive(names[n]) if m.group(2) else names[n]

        out = []
        for p in problems:
            detail = _SEAT.sub(seat_name, p.message)
            detail = _CARD.sub(lambda m: name_of(m.group(0)), detail)
            detail = _RULE.sub("", detail)
            lead = REFUSALS.get(p.code)
            if lead is None:
                message = detail
            else:
                lead = lead.format(
                    card=name_of(o.get("card")),
                    silver=o.get("silver"),
                    discard=name_of(o.get("discard")),
                    store=o.get("store"),
                )
                message = f"{lead} ({detail})"
            out.append(Problem(p.code, message, p.field))
        return out

    def game_settings_summary(self, settings: Mapping[str, Any]) -> list[str]:
        length = settings.get("length", "full")
        return [
            "short: 3 Years of 2 seasons" if length == "short" else "full: 3 Years of 4 seasons"
        ]

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
        result: Mapping[str, Any] = view.get("result") or {}
        card = context.get("fnf_card") or card_words(result.get("deck"))
        opts = view.get("options")
        is_seat = (view.get("viewer") or {}).get("kind") == "seat"
        turn: dict[str, Any] | None = None
        lines: list[str] = []
        if is_seat and isinstance(opts, Mapping):
            seats = result.get("seats") or {}
            mine = seats.get(str(seat)) or {}
            named = set(re.findall(r'"([a-z][a-z0-9-]*\.\d+)"', json.dumps(opts)))
            named |= {str(c) for c in mine.get("kingdom") or []}
            record = (result.get("seasons") or [{}])[-1]
            turn = {
                "options": opts,
                "seat": seat,
                "names": {str(s): n for s, n in names.items()},
                "cards": {c: card(c) for c in sorted(named)},
                "me": {
                    "ruler": mine.get("ruler"),
                    "grain": mine.get("grain"),
                    "silver": mine.get("silver"),
                    "stored": mine.get("stored"),
                    "guard": mine.get("guard"),
                },
                # opponents' public boards: what later thefts may still take
                "boards": {
                    k: {
                        "grain": s.get("grain"),
                        "silver": s.get("silver"),
                        "guard": s.get("guard"),
                    }
                    for k, s in seats.items()
                    if int(k) != seat
                },
                "board": board_of(record, card, _who(names, seat))
                if opts.get("phase") == "hire"
                else [],
                "current": current,
            }
            lines = option_words(opts, lambda c: card(c)["name"], _who(names, seat))
        return FFOrder(
            template=self.order_template,
            round=base.round,
            seat=seat,
            form=base.form,
            phase_info=base.phase_info,
            options=opts,
            also=game_keys(view, leave_out=("result", "options")),
            turn=turn,
            words=lines,
            for_seat=names.get(seat, f"seat {seat}"),
            own=is_seat,
        )

    # ---- creating a match ---------------------------------------------

    @property
    def check_action(self) -> str | None:
        return "check_deck"

    def setup_fields(self) -> dict[str, Any]:
        choices = [("", "dealt by the seed")] + [(r, w.ruler(r)) for r in RULERS]
        fields: dict[str, Any] = {
            "deck_file": FileField("Upload a deck (JSON)"),
            "deck_json": TextAreaField("Or paste a deck (JSON)"),
            "check_deck": SubmitField("Check the deck only"),
        }
        for s in range(1, MAX_SEATS + 1):
            fields[f"ruler_{s}"] = SelectField(f"Seat {s}", choices=choices, default="")
        return fields

    def read_setup(self, form: Any) -> SetupRead:
        """The rulers (each seat's, or none: dealt by the seed; only the seats
        of the players given) and the deck: an uploaded file first, then pasted
        JSON, else the default. An uploaded file's text goes in the paste box,
        so a refused deck can be edited there."""
        body: dict[str, Any] = {}
        rulers = {
            str(s): str(form[f"ruler_{s}"].data)
            for s in range(1, MAX_SEATS + 1)
            if form[f"ruler_{s}"].data
        }
        if rulers:
            body["rulers"] = rulers
        upload: Any = form.deck_file.data
        text: str | None = None
        if upload is not None and getattr(upload, "filename", None):
            try:
                text = upload.read().decode("utf-8-sig")
            except UnicodeDecodeError:
                problem = Problem("json/invalid", "the deck file is not UTF-8 text", "deck")
                return SetupRead({**body, **UNREAD}, [problem], frozenset({"deck"}))
            form.deck_json.data = text
        elif (form.deck_json.data or "").strip():
            text = form.deck_json.data
        if text is None or not text.strip():
            return SetupRead(body)
        try:
            doc = loads_strict(text, "the deck")
        except RuleError as exc:
            problems = [Problem(p.code, p.message, "deck") for p in exc.problems]
            return SetupRead({**body, **UNREAD}, problems, frozenset({"deck"}))
        found, problems = deck_problems(doc, None)
        if found is None or problems:
            return SetupRead({**body, **UNREAD}, deck_words(problems), frozenset({"deck"}))
        return SetupRead({**body, "deck": doc}, report=True)

    def setup_report(self, body: Mapping[str, Any]) -> tuple[Any, list[Problem]]:
        """The deck in numbers (types, cards of each Year), or every problem."""
        if body.get("deck") is None:
            deck = default_deck()
        else:
            found, problems = deck_problems(body["deck"], None)
            if found is None or problems:
                return None, deck_words(problems)
            deck = found
        doc = deck.as_json()
        years = {y: 0 for y in (1, 2, 3)}
        for row in doc["cards"]:
            years[int(row["year"])] = years.get(int(row["year"]), 0) + int(row["count"])
        # FF4's Year sizes depend on the player count, which the create form
        # may not have yet: the report says, for each count, whether the deck
        # fits it, and the create itself checks the count it is given
        counts = [
            {"players": n, "problems": [p.message for p in year_size_problems(deck, n)]}
            for n in range(MIN_SEATS, MAX_SEATS + 1)
        ]
        return {
            "default": body.get("deck") is None,
            "name": doc.get("name"),
            "types": [
                {"name": str(t.get("name") or t["id"]), "text": type_text(t)} for t in doc["types"]
            ],
            "years": years,
            "counts": counts,
            "fits": [c["players"] for c in counts if not c["problems"]],
        }, []

    @property
    def default_deck_json(self) -> str:
        """The default deck as JSON, one type or row a line (for a host to copy)."""
        doc = default_deck().as_json()
        types = ",\n  ".join(json.dumps(t) for t in doc["types"])
        cards = ",\n  ".join(json.dumps(c) for c in doc["cards"])
        name = json.dumps(doc.get("name"))
        return f'{{"name": {name},\n "types": [\n  {types}\n ],\n "cards": [\n  {cards}\n ]}}'

    @property
    def ruler_choices(self) -> list[tuple[str, str]]:
        return [(r, w.ruler(r)) for r in RULERS]

    def setup_field(self, problem: Problem) -> str | None:
        where = problem.field or ""
        if problem.code.startswith(("deck/", "json/")) or where.startswith("deck"):
            return "deck"
        if problem.code.startswith("rulers/") or where == "rulers":
            return "rulers"
        return None

    def superseded(self, problem: Problem, read: SetupRead) -> bool:
        return (problem.field or "").split(".")[0] in read.unread


def deck_words(problems: Sequence[Problem]) -> list[Problem]:
    """A deck's problems as the create page says them: types and rows counted
    from 1 ("card type 3", "row 5"); each on the ``deck`` field."""
    out = []
    for p in problems:
        message = _PATH.sub(
            lambda m: (
                ("card type " if m.group(1) == "types" else "row ")
                + str(int(m.group(2)) + 1)
                + (": " if m.group(3) else "")
            ),
            p.message,
        )
        out.append(Problem(p.code, message, "deck"))
    return out
