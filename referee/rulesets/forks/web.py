"""Forks' part of the web pages (:class:`referee.web.game.GameWeb`).

Everything shown is made from the viewer's view (K11, :mod:`.view`):

- the investment board: the five companies ranked, their invested cards and
  totals, the top three and bottom two, the tiebreak order;
- whose turn it is: the open step, its current seat and receiver;
- a seat's hand, and its own turns (the cards drawn, kept, passed; received);
- for the host every closed step (the view never holds an open draw step's
  cards, nor a sealed order);
- the order form: in a draw step the card kept among the 3 drawn and, with
  the swap variant, a card given and an invested card taken, in one order;
  in an invest step the card invested; radio inputs, so it works by click,
  by keyboard and without JavaScript;
- orders and refusals in players' words, "Oxime 6" (not ``oxime-6``);
- the host's audit page in words (K12), offered once the match has finished,
  cards by their names too.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

from referee.errors import Problem, RuleError
from referee.ruleset import Setting
from referee.rulesets.cardgame import TOP
from referee.text import typed
from referee.web.game import GameWeb, OrderForm
from referee.words import MINUS, signed

from .cards import ALL_CARDS, CARDS, COMPANIES, DEFAULT_NAMES, canonical, card_name, is_card
from .forms import ForksForm
from .match import DEFAULT_TIEBREAK
from .orders import DRAW
from .view import DRAW_ROLE

__all__ = ["ForksOrder", "Web", "board_of", "company_names"]

TEMPLATES = "rulesets/forks"
_CARD_ID = re.compile(r"(?<![\w-])(?:dtv|apidae|oxime|wildrock|needle)-[3-9]x?(?![\w-])")
TAKEN = "taken"  # the keep radio "the card I take in the swap" (no card id is a word)


def number(n: int) -> str:
    """A score or total for people: +20, 0, and a real minus sign (U+2212)."""
    return signed(n, MINUS)


def company_names(given: object) -> dict[str, str]:
    """The match's company names: the defaults, with those the host chose."""
    names = dict(DEFAULT_NAMES)
    if isinstance(given, Mapping):
        for key, name in given.items():
            if key in names and isinstance(name, str) and name.strip():
                names[key] = name.strip()
    return names


def tiebreak_of(settings: Mapping[str, Any]) -> list[str]:
    given = settings.get("tiebreak")
    if isinstance(given, list) and sorted(map(str, given)) == sorted(COMPANIES):
        return [str(c) for c in given]
    return list(DEFAULT_TIEBREAK)


def card_table(names: Mapping[str, str]) -> dict[str, dict[str, Any]]:
    """Every card for display: its name, company and value."""
    return {
        c: {
            "text": card_name(c, names),
            "company": CARDS.suit(c),
            "value": CARDS.value(c),
            "twin": c.endswith("x"),
        }
        for c in ALL_CARDS
    }


def board_of(
    result: Mapping[str, Any], tiebreak: Sequence[str], names: Mapping[str, str]
) -> list[dict[str, Any]]:
    """The investment board: the companies ranked (highest total first, ties
    in tiebreak order), each with its invested cards and total, top three or
    bottom two."""
    invested = [str(c) for c in result.get("investment") or [] if is_card(c)]
    totals = CARDS.totals(invested)
    ranked = CARDS.ranking(totals, list(tiebreak))
    return [
        {
            "company": c,
            "name": names[c],
            "place": i + 1,
            "total": totals[c],
            "top": i < TOP,
            "cards": canonical(x for x in invested if CARDS.suit(x) == c),
        }
        for i, c in enumerate(ranked)
    ]


def open_turn(
    result: Mapping[str, Any], rnd: Mapping[str, Any] | None, players: Mapping[int, str]
) -> dict[str, Any] | None:
    """Whose turn it is: the open step's kind, its acting seat and, in a draw
    step, the receiver of the 2 cards passed."""
    turns = result.get("turns") or []
    if rnd is None or not turns:
        return None
    turn = turns[-1]
    draw = str(rnd["phase"]) == DRAW
    acting = int(turn["current"] if draw else turn["receiver"])
    return {
        "turn": int(turn["turn"]),
        "draw": draw,
        "acting": acting,
        "acting_name": players.get(acting, f"seat {acting}"),
        "current_seat": int(turn["current"]),
        "current_name": players.get(int(turn["current"]), ""),
        "receiver": int(turn["receiver"]),
        "receiver_name": players.get(int(turn["receiver"]), ""),
    }


@dataclass
class ForksOrder(OrderForm):
    """A seat's order in the open step. ``cards``: what the seat may name (the
    3 drawn, or the cards it may invest); empty when the viewer may not know
    them (the host in an open draw step: K11), and then ``any_cards`` lists
    every card to name it from. ``can_take``: the invested cards a swap may
    take (empty without the swap variant)."""

    cards: list[str] = field(default_factory=list)
    any_cards: list[str] = field(default_factory=list)
    can_take: list[str] = field(default_factory=list)
    swap: bool = False
    merge: bool = False
    current: Any = None
    for_seat: str = ""
    receiver: str = ""

    @property
    def draw(self) -> bool:
        return self.phase == DRAW

    def value(self, name: str) -> str:
        return str(self.form[name].data or "").strip()

    def read(self) -> Any:
        card = self.value("card")
        if not self.draw:
            if not card:
                raise RuleError.single(
                    "card/not_chosen", "no card was chosen: pick the card to invest", "card"
                )
            return card
        give, take = self.value("give"), self.value("take")
        problems: list[Problem] = []
        if card == TAKEN:  # "keep the card I take in the swap"
            card = take
            if not take:
                problems.append(
                    Problem(
                        "swap/incomplete",
                        "you chose to keep the card taken in the swap: choose the card to "
                        "take (and the card to give)",
                        "take",
                    )
                )
                card = "-"
        if not card:
            problems.append(
                Problem("card/not_chosen", "no card was chosen: pick the card to keep", "card")
            )
        if bool(give) != bool(take) and not problems:
            missing = "take" if give else "give"
            problems.append(
                Problem(
                    "swap/incomplete",
                    "a swap gives one drawn card and takes one invested card: "
                    f"choose the card to {missing}, or neither",
                    missing,
                )
            )
        if problems:
            raise RuleError(problems)
        order: dict[str, Any] = {"keep": card}
        if give and take:
            order["swap"] = {"give": give, "take": take}
        return order

    def field_of(self, problem: Problem) -> str:
        if problem.code.startswith(("form/", "round/", "step/")):
            return ""
        if problem.code.startswith("swap/"):
            if problem.field in ("give", "take"):
                return problem.field
            return "take" if problem.code == "swap/take_not_invested" else "give"
        return "card"


class Web(GameWeb):
    """Forks' pages."""

    results_template: ClassVar[str] = f"{TEMPLATES}/results.html"
    order_template: ClassVar[str] = f"{TEMPLATES}/order_form.html"
    sections_template: ClassVar[str] = f"{TEMPLATES}/sections.html"
    audit_template: ClassVar[str] = f"{TEMPLATES}/audit.html"
    stylesheets: ClassVar[tuple[str, ...]] = ("rulesets/forks/style.css",)
    players_hint: ClassVar[str] = (
        "Garnets are a whole number, 0 or more; on a tie for the lowest score, "
        "the fewest garnets decide the Elimination Candidate."
    )
    reveal_what: ClassVar[str] = "the cards each player drew, kept, passed and was passed"
    audit_note: ClassVar[str] = "Every best score is proved optimal by the OR-Tools CP-SAT solver."

    def audit_offered(self, view: dict[str, Any]) -> bool:
        return bool(view.get("finished"))

    # ---- match pages -------------------------------------------------

    def page_context(self, view: dict[str, Any], context: dict[str, Any]) -> dict[str, Any]:
        settings = view.get("settings") or {}
        names = company_names(settings.get("names"))
        result: dict[str, Any] = context["result"] or {}
        players: dict[int, str] = context["names"]
        viewer = view.get("viewer") or {}
        own = viewer.get("seat") if viewer.get("kind") == "seat" else None
        hands = result.get("hands") or {}
        return {
            "company_names": names,
            "cards": card_table(names),
            "tiebreak_names": [names[c] for c in tiebreak_of(settings)],
            "board": board_of(result, tiebreak_of(settings), names) if result else [],
            "turn_now": open_turn(result, context.get("open_round"), players),
            "own_hand": canonical(result.get("hand") or []) if own is not None else None,
            "own_turns": list(result.get("mine") or []) if own is not None else [],
            "draw_role": DRAW_ROLE,
            "hands_sorted": {int(s): canonical(h) for s, h in hands.items()},
            "number": number,
            "taken": TAKEN,
        }

    def order_words(self, order: Any, context: Mapping[str, Any]) -> str | None:
        """An order by the cards' names: "keeps Oxime 6, swapping Needle &
        Green Solicitors 3 for dtv Plumbing 9", "invests Oxime 6"."""
        names = context.get("company_names")

        def name(card: str) -> str:
            return card_name(card, names)

        if is_card(order):
            return f"invest {name(order)}"
        if isinstance(order, Mapping) and is_card(order.get("keep")):
            text = f"keep {name(order['keep'])}"
            swap = order.get("swap")
            given = isinstance(swap, Mapping) and is_card(swap.get("give"))
            if given and isinstance(swap, Mapping) and is_card(swap.get("take")):
                text += f", after giving {name(swap['give'])} for {name(swap['take'])}"
            return text
        return None

    def card_words(self, text: object, view: Mapping[str, Any]) -> str:
        """``text`` (an audit sentence) with every card id as the card's name.
        Not for text holding names people chose."""
        names = company_names((view.get("settings") or {}).get("names"))
        return _CARD_ID.sub(lambda m: card_name(m.group(0), names), str(text))

    def audit_sentences(self, report: Mapping[str, Any], view: Mapping[str, Any]) -> dict[str, str]:
        """Each seat's audit sentence (K12) as the host's audit page says it,
        its cards by their names ("Oxime 3"), from the audit JSON and the
        match's view; the JSON's own ``text`` (cards by id) where the view lacks
        what the sentence needs."""
        from .audit import seat_words  # loads OR-Tools: only for the audit page

        names = company_names((view.get("settings") or {}).get("names"))
        players = {str(p["seat"]): str(p["name"]) for p in view.get("players") or []}
        ranking = [str(c) for c in (view.get("result") or {}).get("ranking") or []]
        out: dict[str, str] = {}
        for seat, entry in (report.get("seats") or {}).items():
            out[seat] = str(entry.get("text", ""))
            if len(ranking) == len(COMPANIES) and seat in players:
                out[seat] = seat_words(entry, players[seat], ranking, names)
        return out

    def player_problems(
        self, problems: list[Problem], order: Any, seat: int, context: Mapping[str, Any]
    ) -> list[Problem]:
        """The rules name a card by its id, the page by its name ("Oxime 6").
        Never the cards the seat could name (K11)."""
        names = context.get("company_names")
        own = (context["view"].get("viewer") or {}).get("kind") == "seat"
        player = str(context["names"].get(seat, f"seat {seat}"))
        to, them, whose = ("you", "you", "your") if own else (player, "them", f"{player}'s")
        card = CARDS.read(order.strip()) if isinstance(order, str) else None
        name = card_name(card, names) if card is not None else ""
        said: dict[str, str] = {
            "invest/not_passed": f"{name} was not passed to {to} this turn: invest one of "
            f"the 2 cards passed to {them}",
            "invest/not_in_hand": f"{name} is not in {whose} hand, nor one of the 2 cards "
            f"passed to {them}: invest one of those",
        }
        out = []
        for p in problems:
            message = _CARD_ID.sub(lambda m: card_name(m.group(0), names), p.message)
            if card is not None and p.code in said:
                message = said[p.code]
            # a form sends text only: text refused by its shape (over 40
            # characters) is, to the player, no card either
            if p.code in ("card/unknown", "card/not_a_string"):
                sent = _sent_cards(order)
                bad = next((c for c in sent if CARDS.read(c) is None), None)
                shown = typed(bad) if bad is not None else "that"
                message = f"{shown} is not a card of this game: choose one of the cards offered"
            out.append(Problem(p.code, message, p.field))
        return out

    def game_settings_summary(self, settings: Mapping[str, Any]) -> list[str]:
        names = company_names(settings.get("names"))
        order = ", ".join(names[c] for c in tiebreak_of(settings))
        out = [
            "swap variant: "
            + ("yes (give a drawn card for an invested one)" if settings.get("swap") else "no"),
            "merge variant: "
            + ("yes (invest any card of your hand)" if settings.get("merge") else "no"),
            f"tiebreak order (an earlier company wins a tie): {order}",
        ]
        renamed = [f"{c} is {names[c]}" for c in COMPANIES if names[c] != DEFAULT_NAMES[c]]
        if renamed:
            out.append("companies renamed: " + ", ".join(renamed))
        return out

    # ---- orders ------------------------------------------------------

    def order_form(
        self,
        view: dict[str, Any],
        context: dict[str, Any],
        seat: int,
        current: Any = None,
        formdata: Any = None,
    ) -> OrderForm | None:
        rnd = context["open_round"]
        result: dict[str, Any] = context["result"] or {}
        players: dict[int, str] = context["names"]
        settings = view.get("settings") or {}
        draw = str(rnd["phase"]) == DRAW
        is_seat = (view.get("viewer") or {}).get("kind") == "seat"
        if is_seat:
            cards = [str(c) for c in view.get("options") or []]
        elif draw:  # the host never sees an open draw step's cards (K11)
            cards = []
        else:
            cards = _host_invest_options(result, seat)
        swap = bool(settings.get("swap")) and draw
        form = ForksForm(formdata=formdata)
        if formdata is None:
            form.round.data = str(rnd["number"])
            if isinstance(current, str):
                form.card.data = current
            elif isinstance(current, Mapping):
                form.card.data = str(current.get("keep") or "")
                sw = current.get("swap")
                if isinstance(sw, Mapping):
                    form.give.data = str(sw.get("give") or "")
                    form.take.data = str(sw.get("take") or "")
                    if swap and cards and form.card.data == form.take.data:
                        form.card.data = TAKEN
        turns = result.get("turns") or []
        receiver = int(turns[-1]["receiver"]) if turns else 0
        return ForksOrder(
            template=self.order_template,
            round=rnd,
            seat=seat,
            form=form,
            cards=cards,
            any_cards=list(ALL_CARDS) if not cards else [],
            can_take=[str(c) for c in result.get("investment") or []] if swap else [],
            swap=swap,
            merge=bool(settings.get("merge")),
            current=current,
            for_seat=players.get(seat, f"seat {seat}"),
            receiver=players.get(receiver, ""),
        )

    # ---- creating a match ---------------------------------------------

    def choice_label(self, setting: Setting, choice: str) -> str:
        if choice not in DEFAULT_NAMES:
            return choice
        name = DEFAULT_NAMES[choice]
        if setting.kind == "names":
            return f"{choice} (by default {name})"
        return name if name.lower() == choice else f"{name} ({choice})"

    def name_placeholder(self, setting: Setting, choice: str) -> str:
        return DEFAULT_NAMES.get(choice, "")


def _sent_cards(order: Any) -> list[str]:
    if isinstance(order, str):
        return [order.strip()]
    if isinstance(order, Mapping):
        out = [str(order.get("keep") or "").strip()]
        swap = order.get("swap")
        if isinstance(swap, Mapping):
            out += [str(swap.get(k) or "").strip() for k in ("give", "take")]
        return [c for c in out if c]
    return []


def _host_invest_options(result: Mapping[str, Any], seat: int) -> list[str]:
    """The host's view of an open invest step's options: the 2 cards passed
    (the draw step has closed), with merge also the receiver's hand."""
    turns = result.get("turns") or []
    if not turns:
        return []
    passed = turns[-1].get("passed")
    if not passed:
        return []
    if result.get("merge"):
        return canonical([*((result.get("hands") or {}).get(str(seat)) or []), *passed])
    return [str(c) for c in passed]
