"""Forks 2nd Edition's part of the web pages (:class:`referee.web.game.GameWeb`).

Everything shown is made from the viewer's view (:func:`referee.views.view_for`):

- the cards for display, with the match's destination names (F2): each card
  shows its destination's name and its value in text, the ``x`` twin marked;
- the marketing board (F6-F8): the five destinations ranked, their cards,
  totals, the top three and bottom two, the tiebreak order; and the board
  after each closed market step;
- a seat's hand grouped by destination, its own game rounds (dealt, kept,
  passed on, received, marketed);
- for the host (and after the full reveal) every closed step by seat, never a
  game round's dealt cards before its keep step has closed (the view has none);
- the final result in words: the ranking, scores, hands, the Token of Life and
  the Elimination Candidate with how it was decided (F9);
- the order form: the cards the seat may name as cards to pick (one radio
  each), its value the card id the service expects (F5);
- the create form's words for the tiebreak and names settings.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from referee.errors import Problem, RuleError
from referee.ruleset import Setting
from referee.text import typed
from referee.web.game import GameWeb, OrderForm
from referee.words import MINUS, signed

from .cards import (
    ALL_CARDS,
    DEFAULT_NAMES,
    DESTINATIONS,
    canonical,
    card_name,
    cards_in_play,
    destination,
    is_card,
    read_card,
    value,
)
from .forms import CardForm
from .match import DEFAULT_TIEBREAK, next_seat, previous_seat
from .orders import KEEP, MARKET
from .scoring import TOP, marketing_totals, ranking

__all__ = [
    "CardOrder",
    "Web",
    "board_of",
    "card_table",
    "destination_names",
    "elimination_words",
    "market_history",
    "number",
    "seat_rounds",
    "token_words",
]

TEMPLATES = "rulesets/forks_2e"
STATIC = "rulesets/forks_2e"
# a canonical card id in a text of the engine's (it writes no other form)
_CARD_ID = re.compile(r"(?<![\w-])(?:grey|blue|yellow|green|red)-(?:[3-9]|1[0-2])x?(?![\w-])")


# ---- words and numbers -------------------------------------------------------------


def number(n: int) -> str:
    """A score or total for people: +20, 0, and a negative one with a real minus
    sign (U+2212), which reads better than a hyphen."""
    return signed(n, MINUS)


def listed(items: Sequence[str]) -> str:
    """'Cy', 'Cy and Di', 'Cy, Di and Ed'."""
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def destination_names(names: object) -> dict[str, str]:
    """Each destination's display name: the match's ``names`` setting, else F2's."""
    given = names if isinstance(names, Mapping) else {}
    return {d: str(given.get(d) or DEFAULT_NAMES[d]) for d in DESTINATIONS}


def card_table(names: Mapping[str, str]) -> dict[str, dict[str, Any]]:
    """Every card by id, for display: destination, its name, value, twin, and a
    text such as "Greysteel City 8 (twin)"."""
    out: dict[str, dict[str, Any]] = {}
    for card in ALL_CARDS:
        dest = destination(card)
        twin = card.endswith("x")
        out[card] = {
            "id": card,
            "dest": dest,
            "name": names[dest],
            "value": value(card),
            "twin": twin,
            "text": card_name(card, names),
        }
    return out


def grouped(cards: Iterable[str], names: Mapping[str, str]) -> list[dict[str, Any]]:
    """Cards by destination (canonical order), each group with its sum."""
    mine = canonical(c for c in cards if is_card(c))
    out = []
    for dest in DESTINATIONS:
        found = [c for c in mine if destination(c) == dest]
        if found:
            out.append(
                {
                    "dest": dest,
                    "name": names[dest],
                    "cards": found,
                    "sum": sum(value(c) for c in found),
                }
            )
    return out


# ---- the marketing board ---------------------------------------------------------------


def _marketing(
    result: Mapping[str, Any], steps: int | None = None, revealed_steps: int | None = None
) -> list[str]:
    """Every card in marketing after ``steps`` closed market steps (all: None),
    with the pile cards revealed by the first ``revealed_steps`` of them (all:
    as many as ``steps``)."""
    marketed = list(result.get("marketed") or [])
    revealed = list(result.get("revealed") or [])
    if steps is not None:
        marketed, revealed = marketed[:steps], revealed[:steps]
    if revealed_steps is not None:
        revealed = revealed[:revealed_steps]
    out = list(result.get("initial_marketing") or [])
    for step in marketed:
        out += step
    return canonical(out + revealed)


def board_of(
    result: Mapping[str, Any],
    tiebreak: Sequence[str],
    names: Mapping[str, str],
    revealed_steps: int | None = None,
) -> dict[str, Any]:
    """F6-F8: the destinations ranked by marketing total (ties in tiebreak order),
    each with its cards, total, place and whether it is in the top. With
    ``revealed_steps``, only the pile cards revealed by that many market steps
    (the host's preview: closing would reveal the next, unseen until then)."""
    cards = _marketing(result, revealed_steps=revealed_steps)
    totals = marketing_totals(cards)
    ranked = ranking(totals, tiebreak)
    rows = []
    for place, dest in enumerate(ranked, start=1):
        rows.append(
            {
                "dest": dest,
                "name": names[dest],
                "cards": [c for c in cards if destination(c) == dest],
                "total": totals[dest],
                "place": place,
                "top": place <= TOP,
                "tiebreak": tiebreak.index(dest) + 1,
                # equal totals: the tiebreak order decided this row's place against another
                "tied": sum(1 for d in ranked if totals[d] == totals[dest]) > 1,
            }
        )
    return {
        "rows": rows,
        "top": [names[d] for d in ranked[:TOP]],
        "bottom": [names[d] for d in ranked[TOP:]],
        "final": bool(result.get("ranking")),
        "count": len(cards),
    }


def market_history(
    result: Mapping[str, Any], tiebreak: Sequence[str], names: Mapping[str, str]
) -> list[dict[str, Any]]:
    """After each closed market step: the cards marketed (canonical order, not
    by seat), the pile card revealed (2 players), and the board then."""
    marketed = list(result.get("marketed") or [])
    revealed = list(result.get("revealed") or [])
    out = []
    for g, cards in enumerate(marketed, start=1):
        totals = marketing_totals(_marketing(result, g))
        ranked = ranking(totals, tiebreak)
        out.append(
            {
                "round": g,
                "marketed": list(cards),
                "revealed": revealed[g - 1] if g - 1 < len(revealed) else None,
                "ranked": [
                    {"dest": d, "name": names[d], "total": totals[d], "top": i < TOP}
                    for i, d in enumerate(ranked)
                ],
            }
        )
    return out


# ---- steps by seat (the host; everyone after the full reveal) -----------------------------


def _defaulted(result: Mapping[str, Any]) -> set[tuple[int, int]]:
    return {
        (int(d["round"]), int(d["seat"]))
        for d in result.get("defaulted") or []
        if isinstance(d, Mapping)
    }


def seat_rounds(
    result: Mapping[str, Any], seats: Sequence[int], before: int | None = None
) -> list[dict[str, Any]]:
    """Every game round whose keep step has closed, by seat: dealt, kept, passed
    on (to whom), received (from whom), marketed (once that step has closed).
    Only from a view that has ``kept`` (the host's, or after the full reveal);
    dealt cards only of closed keep steps, whatever the view holds. With
    ``before`` (a step number), only game rounds whose keep step is an earlier
    one (the host's preview of closing step ``before``: its keep step's deal is
    not the host's to see until it has closed)."""
    kept = list(result.get("kept") or [])
    passed = list(result.get("passed") or [])
    marketed = list(result.get("marketed_by") or [])
    dealt = list(result.get("dealt") or [])
    closed = int(result.get("closed") or 0)
    defaulted = _defaulted(result)
    n = len(seats)
    out = []
    known = (closed + 1) // 2 if before is None else min((closed + 1) // 2, before // 2)
    for g in range(min(len(kept), known)):
        rows = []
        for seat in seats:
            s, to, came = str(seat), next_seat(seat, n), previous_seat(seat, n)
            rows.append(
                {
                    "seat": seat,
                    "dealt": list(dealt[g].get(s, [])) if g < len(dealt) else [],
                    "kept": kept[g].get(s),
                    "kept_default": (2 * g + 1, seat) in defaulted,
                    "passed": list(passed[g].get(str(to), [])) if g < len(passed) else [],
                    "to": to,
                    "received": list(passed[g].get(s, [])) if g < len(passed) else [],
                    "from": came,
                    "marketed": marketed[g].get(s) if g < len(marketed) else None,
                    "marketed_default": (2 * g + 2, seat) in defaulted,
                }
            )
        out.append({"round": g + 1, "market_closed": g < len(marketed), "seats": rows})
    return out


def own_rounds(result: Mapping[str, Any], seat: int) -> list[dict[str, Any]]:
    """A seat's own game rounds (its view's ``mine``), with its defaults marked."""
    defaulted = _defaulted(result)
    out = []
    for entry in result.get("mine") or []:
        g = int(entry["round"])
        out.append(
            {
                **entry,
                "kept_default": (2 * g - 1, seat) in defaulted,
                "marketed_default": (2 * g, seat) in defaulted,
            }
        )
    return out


# ---- the final result in words ------------------------------------------------------------


def token_words(result: Mapping[str, Any], players: Mapping[int, str]) -> str:
    """F9's Token of Life in words."""
    scores = {int(s): int(v) for s, v in (result.get("scores") or {}).items()}
    if not scores:
        return ""
    best = max(scores.values())
    token = result.get("token_of_life")
    if token is None:
        leaders = [players[s] for s in sorted(scores) if scores[s] == best]
        return f"nobody: {listed(leaders)} share the highest score, {number(best)}"
    return f"{players[int(token)]}, with the single highest score, {number(best)}"


def elimination_words(
    result: Mapping[str, Any], players: Mapping[int, str], garnets: Mapping[int, int]
) -> str:
    """F9's Elimination Candidate and how it was decided, in words."""
    found = result.get("elimination_candidate")
    scores = {int(s): int(v) for s, v in (result.get("scores") or {}).items()}
    if not isinstance(found, Mapping) or not scores:
        return ""
    seat = int(found["seat"])
    how = found.get("decided_by")
    low = min(scores.values())
    ties = result.get("elimination_ties") or {}
    on_score = [int(s) for s in ties.get("score") or [] if int(s) in scores]
    on_score = on_score or sorted(s for s in scores if scores[s] == low)
    on_garnets = [int(s) for s in ties.get("garnets") or []] or [seat]
    who = players[seat]
    if how == "score" or len(on_score) == 1:
        return f"{who} had the single lowest score, {number(low)}"
    tied = listed([players[s] for s in on_score])
    text = f"{tied} tied on the lowest score, {number(low)}; "
    if how == "garnets":
        others = [s for s in on_score if s != seat]
        theirs = listed([str(garnets.get(s, 0)) for s in others])
        fewer = "fewer" if len(on_score) == 2 else "the fewest"
        return text + f"{who} has {fewer} garnets ({garnets.get(seat, 0)} against {theirs})"
    fewest = garnets.get(on_garnets[0], 0)
    drawn = listed([players[s] for s in on_garnets])
    if len(on_garnets) == len(on_score):
        same = "both have" if len(on_garnets) == 2 else "all have"
        text += f"they {same} {fewest} garnet{'s' if fewest != 1 else ''}; "
    else:
        rest = [s for s in on_score if s not in on_garnets]
        richer = listed([f"{players[s]} {garnets.get(s, 0)}" for s in rest])
        text += f"{drawn} have the fewest garnets, {fewest} (against {richer}); "
    return text + f"a seeded draw among {drawn} chose {who}"


# ---- the order form -------------------------------------------------------------------------


@dataclass
class CardOrder(OrderForm):
    """The card a seat keeps or markets. ``cards``: the cards to pick from
    (drawn as cards, one radio each); empty when the viewer may not know them
    (the host in a keep step), and then ``any_cards`` lists every card in play
    to name it from. ``passed_in``: the cards passed to the seat this game
    round (marked in a merge market step); ``current``: the order standing."""

    cards: list[str] = field(default_factory=list)
    any_cards: list[dict[str, Any]] = field(default_factory=list)
    passed_in: list[str] = field(default_factory=list)
    current: str | None = None
    merge: bool = False
    for_seat: str = ""  # the seat's player
    pass_to: str = ""  # the player the seat passes to (F1)

    @property
    def chosen(self) -> str:
        """The card checked in the form (what was sent, else the standing order)."""
        return str(self.form.card.data or "").strip()

    def read(self) -> Any:
        card = self.chosen
        if not card:
            verb = "keep" if self.phase == KEEP else "market"
            raise RuleError.single(
                "card/not_chosen", f"no card was chosen: pick the card to {verb}", "card"
            )
        return card

    def field_of(self, problem: Problem) -> str:
        return "" if problem.code.startswith(("form/", "round/", "step/")) else "card"


def _open_game_round(result: Mapping[str, Any]) -> int:
    """The 0-based game round of the next step."""
    return int(result.get("closed") or 0) // 2


def _host_options(result: Mapping[str, Any], seat: int, phase: str) -> list[str]:
    """What the host may know of a seat's options: none in a keep step (the dealt
    cards are the seat's alone until it closes), the passed cards (and, with
    merge, the hand) in a market step."""
    if phase != MARKET:
        return []
    g = _open_game_round(result)
    passed = list(result.get("passed") or [])
    received = list(passed[g].get(str(seat), [])) if g < len(passed) else []
    if not received:
        return []
    if result.get("merge"):
        hand = list((result.get("hands") or {}).get(str(seat), []))
        return canonical([*hand, *received])
    return received


def _passed_in(result: Mapping[str, Any], seat: int) -> list[str]:
    g = _open_game_round(result)
    for entry in result.get("mine") or []:
        if int(entry["round"]) == g + 1:
            return list(entry.get("received") or [])
    passed = list(result.get("passed") or [])
    return list(passed[g].get(str(seat), [])) if g < len(passed) else []


# ---- the game's web parts -----------------------------------------------------------------


class Web(GameWeb):
    """Forks 2nd Edition's pages."""

    results_template = f"{TEMPLATES}/results.html"
    sections_template = f"{TEMPLATES}/sections.html"
    order_template = f"{TEMPLATES}/order_form.html"
    about_template = f"{TEMPLATES}/about.html"
    rules_template = f"{TEMPLATES}/rules.html"
    audit_template = f"{TEMPLATES}/audit.html"
    scripts = (f"{STATIC}/forks.js",)
    stylesheets = (f"{STATIC}/style.css",)

    players_hint = (
        "Garnets are a whole number, 0 or more; on a tie for the lowest score, "
        "the fewest garnets decide the Elimination Candidate."
    )
    close_early_text = "rounds close early once every player has sent an order"
    reveal_what = "who kept, passed and marketed which card"
    audit_note = "Every best score is proved optimal by the OR-Tools CP-SAT solver."

    # ---- match pages -------------------------------------------------

    def page_context(self, view: dict[str, Any], context: dict[str, Any]) -> dict[str, Any]:
        settings = view.get("settings") or {}
        names = destination_names(settings.get("names"))
        tiebreak = _tiebreak(settings)
        result: dict[str, Any] = context["result"]
        players: dict[int, str] = context["names"]
        garnets = {int(p["seat"]): int(p["garnets"]) for p in view["players"]}
        seats = sorted(players)
        viewer = view.get("viewer") or {}
        own = viewer.get("seat") if viewer.get("kind") == "seat" else None
        hands = result.get("hands") or {}
        # the host's preview: the result already holds the open step closed, with
        # what closing it would reveal; only what the host may know is shown
        rnd = context.get("open_round")
        ahead = None
        if rnd is not None and int(result.get("closed") or 0) >= int(rnd["number"]):
            ahead = int(rnd["number"])
        return {
            "dest_names": names,
            "cards": card_table(names),
            "tiebreak": [{"dest": d, "name": names[d]} for d in tiebreak],
            "board": board_of(result, tiebreak, names, None if ahead is None else (ahead - 1) // 2),
            "history": market_history(result, tiebreak, names),
            "by_seat": seat_rounds(result, seats, ahead) if "kept" in result else [],
            "own_rounds": own_rounds(result, int(own)) if own is not None else [],
            "own_hand": grouped(result.get("hand") or [], names) if "hand" in result else None,
            "hands_grouped": {int(s): grouped(h, names) for s, h in hands.items()},
            "top_dests": set((result.get("ranking") or [])[:TOP]),
            "token_text": token_words(result, players),
            "elimination_text": elimination_words(result, players, garnets),
            "number": number,
        }

    def order_words(self, order: Any, context: Mapping[str, Any]) -> str | None:
        """A card order by the card's name, "Greysteel City 8" (not ``grey-8``)."""
        if is_card(order):
            return card_name(order, context.get("dest_names"))
        return None

    def card_words(self, text: object, view: Mapping[str, Any]) -> str:
        """``text`` (a card id of the audit's report) with every card id in it
        written as the card's name in ``view``'s match: the host's audit page.
        Not for text holding names people chose (a player may be called red-5)."""
        names = destination_names((view.get("settings") or {}).get("names"))
        return _CARD_ID.sub(lambda m: card_name(m.group(0), names), str(text))

    def audit_sentences(self, report: Mapping[str, Any], view: Mapping[str, Any]) -> dict[str, str]:
        """Each seat's audit sentence (F12) as the host's audit page says it,
        its cards by their names ("Greysteel City 8"), from the audit JSON and
        the match's view; the JSON's own ``text`` (cards by id) where the view
        lacks what the sentence needs."""
        from .audit import seat_words  # loads OR-Tools: only for the audit page

        names = destination_names((view.get("settings") or {}).get("names"))
        players = {str(p["seat"]): str(p["name"]) for p in view.get("players") or []}
        ranked = [str(d) for d in (view.get("result") or {}).get("ranking") or []]
        out: dict[str, str] = {}
        for seat, entry in (report.get("seats") or {}).items():
            out[seat] = str(entry.get("text", ""))
            if len(ranked) == len(DESTINATIONS) and seat in players:
                out[seat] = seat_words(entry, players[seat], ranked, names)
        return out

    def player_problems(
        self, problems: list[Problem], order: Any, seat: int, context: Mapping[str, Any]
    ) -> list[Problem]:
        """The rules name a card by its id (the API's words); the page by its name,
        "Greysteel City 8", and the seat as "you" on its own page, else by its
        player's name. Never the cards the seat could name (F11)."""
        own = (context["view"].get("viewer") or {}).get("kind") == "seat"
        player = str(context["names"].get(seat, f"seat {seat}"))
        to, them, whose = ("you", "you", "your") if own else (player, "them", f"{player}'s")
        card = read_card(order) if isinstance(order, str) else None
        name = card_name(card, context.get("dest_names")) if card is not None else ""
        said: dict[str, str] = {
            "keep/not_dealt": f"{name} was not dealt to {to} this round: keep one of the "
            f"three cards dealt to {them}",
            "market/not_passed": f"{name} was not passed to {to} this round: market one of "
            f"the two cards passed to {them}",
            "market/not_in_hand": f"{name} is not in {whose} hand, nor one of the two cards "
            f"passed to {them}: market one of those",
        }
        out = []
        for p in problems:
            message = p.message
            # a form sends text only: text refused by its shape (over 40
            # characters) is, to the player, no card either
            if p.code in ("card/unknown", "card/not_a_string") and isinstance(order, str):
                shown = typed(order.strip())
                message = f"{shown} is not a card of this game: choose one of the cards offered"
            elif card is not None and p.code in said:
                message = said[p.code]
            out.append(Problem(p.code, message, p.field))
        return out

    def audit_offered(self, view: dict[str, Any]) -> bool:
        return bool(view.get("finished"))  # F12 audits a finished match

    def game_settings_summary(self, settings: Mapping[str, Any]) -> list[str]:
        names = destination_names(settings.get("names"))
        order = ", ".join(names[d] for d in _tiebreak(settings))
        renamed = [f"{d} is {names[d]}" for d in DESTINATIONS if names[d] != DEFAULT_NAMES[d]]
        out = [
            "merge variant: "
            + ("yes (market any card of your hand)" if settings.get("merge") else "no"),
            f"tiebreak order (an earlier destination wins a tie): {order}",
        ]
        if renamed:
            out.append("destinations renamed: " + ", ".join(renamed))
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
        phase = str(rnd["phase"])
        result: dict[str, Any] = context["result"]
        players: dict[int, str] = context["names"]
        any_cards: list[dict[str, Any]] = []
        if (view.get("viewer") or {}).get("kind") == "seat":
            cards = [str(c) for c in view.get("options") or []]
        else:  # the host: never the open keep step's dealt cards (F11)
            cards = _host_options(result, seat, phase)
            if not cards:
                any_cards = grouped(cards_in_play(len(players)), context["dest_names"])
        form = CardForm(formdata=formdata)
        standing = current if isinstance(current, str) else None
        if formdata is None:
            form.round.data = str(rnd["number"])
            form.card.data = standing or ""
        return CardOrder(
            template=self.order_template,
            round=rnd,
            seat=seat,
            form=form,
            cards=cards,
            any_cards=any_cards,
            passed_in=_passed_in(result, seat) if phase == MARKET else [],
            current=standing,
            merge=bool(result.get("merge")),
            for_seat=players.get(seat, f"seat {seat}"),
            pass_to=players.get(next_seat(seat, len(players)), ""),
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


def _tiebreak(settings: Mapping[str, Any]) -> list[str]:
    given = settings.get("tiebreak")
    if isinstance(given, list) and sorted(map(str, given)) == sorted(DESTINATIONS):
        return [str(d) for d in given]
    return list(DEFAULT_TIEBREAK)
