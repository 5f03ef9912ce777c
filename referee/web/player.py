"""Web pages for the player: one page per private seat link.

The page shows the map, the current round with its deadline, the order form
of the phase and everything R11 lets this seat see (its own hand, placements
and orders with their receipts, and the public results). The order forms are
shared with the host, who may enter an order for a player.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from flask import Blueprint, abort, flash, redirect, render_template, request, url_for
from flask.typing import ResponseReturnValue

from forms.orders import DraftForm, mapping_form, place_field, rafting_form, vote_field
from referee.errors import Problem, RuleError
from referee.ruleset import Viewer
from referee.rulesets.rocky_river.orders import split_list
from referee.views import view_for
from referee.web import referee
from referee.web.common import status_for
from referee.web.pages import form_problems
from referee.web.rocky_river import card_info, card_value, match_context

bp = Blueprint("player", __name__, url_prefix="/play")

NOT_FOUND = (
    "This link does not open anything. If the host re-issued your link, ask them for the new one."
)


def seat_of(token: str) -> tuple[str, int]:
    """The match and seat of a seat's secret link; 404 (revealing nothing) otherwise."""
    found = referee().find_token(token)
    if found is None or found[1] is None:
        abort(404, description=NOT_FOUND)
    return found[0], found[1]


# ---- order forms (shared with the host) -------------------------------------


@dataclass
class OrderForm:
    """The order form of the open round for one seat, ready to render."""

    phase: str
    round: dict[str, Any]
    seat: int
    form: Any
    ranking: list[str] = field(default_factory=list)  # draft: the list, in order
    hand: list[str] = field(default_factory=list)  # mapping: the cards to place
    forks: list[dict[str, Any]] = field(default_factory=list)  # rafting: one per fork
    errors: dict[str, list[str]] = field(default_factory=dict)  # by field ("" = the form)
    problems: list[Problem] = field(default_factory=list)

    def read(self) -> Any:
        """The order as the service expects it, from what was sent."""
        if self.phase == "draft":
            text = (self.form.ranking_text.data or "").strip()
            return split_list(text) if text else list(self.form.ranking.data or [])
        if self.phase == "mapping":
            out: dict[str, str] = {}
            for card in self.hand:
                value = self.form[place_field(card)].data
                if value:
                    out[card] = value
            return out
        return [self.form[vote_field(k)].data or "" for k in range(len(self.forks))]

    def refuse(self, problems: list[Problem]) -> None:
        """Put each problem next to the field it concerns."""
        self.problems = problems
        from_text = self.phase == "draft" and bool((self.form.ranking_text.data or "").strip())
        for p in problems:
            key = ""
            if from_text and p.code.startswith("draft/"):
                # typed text: every draft problem (missing cards too) concerns the text box
                key = "ranking_text"
            elif p.field is not None and p.code.startswith("draft/"):
                key = f"ranking-{p.field}"
            elif p.field is not None and p.code.startswith("mapping/"):
                key = place_field(p.field) if p.field in self.hand else ""
            elif p.field is not None and p.code.startswith("rafting/"):
                key = vote_field(int(p.field)) if p.field.isdigit() else ""
            self.errors.setdefault(key, []).append(p.message)
            if p.code == "mapping/missing_card":
                for card in self.hand:
                    if not self.form[place_field(card)].data:
                        self.errors.setdefault(place_field(card), []).append(
                            f"choose a branch for card {card}"
                        )


def _hand_of(view: dict[str, Any], seat: int) -> list[str]:
    result = view.get("result") or {}
    if "hand" in result:
        return list(result["hand"])
    return list(result.get("hands", {}).get(str(seat), []))


def _raft_at(view: dict[str, Any], river: dict[str, Any]) -> str | None:
    """The fork the raft is at now (the start before any rafting round)."""
    path = (view.get("result") or {}).get("path") or []
    if not path:
        return str(river["start"])
    to = river["branches"][path[-1]["branch"]]["to"]
    return str(to) if to is not None else None


def order_form(
    view: dict[str, Any],
    context: dict[str, Any],
    seat: int,
    current: Any = None,
    formdata: Any = None,
) -> OrderForm | None:
    """The form for ``seat``'s order in the open round (None when no round is
    open). ``current`` is the seat's order as stored, to start from; with
    ``formdata`` (a POST) the form keeps what was sent."""
    rnd = context["open_round"]
    if rnd is None:
        return None
    phase = rnd["phase"]
    river = context["river"]
    if phase == "draft":
        form = DraftForm(formdata=formdata)
        if formdata is None:
            form.ranking.data = list(current) if current else list(card_info())
        sent = [str(c) for c in form.ranking.data or []]
        ranking = sent + [c for c in card_info() if c not in sent]
        out = OrderForm(phase, rnd, seat, form, ranking=ranking)
    elif phase == "mapping":
        hand = _hand_of(view, seat)
        rows = []
        for card in hand:
            choices = []
            for b in river["branches"].values():
                value = card_value(card, b["color"])
                if value is None:
                    continue
                choices.append(
                    (
                        b["id"],
                        f"{b['id']}: {b['side']} {b['position']}, {b['color']} slot, "
                        f"portrays {b['seat_name']}; adds {value:+d}",
                        f"fork {b['fork']} (segment {b['segment']})",
                    )
                )
            rows.append((card, f"Card {card} ({card_info()[card]['text']})", choices))
        form = mapping_form(rows)(formdata=formdata)
        if formdata is None and isinstance(current, dict):
            for card, branch in current.items():
                if card in hand:
                    form[place_field(card)].data = branch
        out = OrderForm(phase, rnd, seat, form, hand=hand)
    else:
        count = int(river["forks_per_segment"])
        segment = rnd["number"] - 2
        form = rafting_form(count)(formdata=formdata)
        if formdata is None and isinstance(current, list):
            for k, direction in enumerate(current[:count]):
                form[vote_field(k)].data = direction
        at = _raft_at(view, river)
        forks = []
        for k in range(count):
            where = f"fork {k + 1} of segment {segment}"
            if k == 0 and at is not None:
                where += f" (the raft is now at fork {at})"
            forks.append({"index": k, "field": vote_field(k), "label": where})
        out = OrderForm(phase, rnd, seat, form, forks=forks)
    if formdata is None:
        out.form.round.data = str(rnd["number"])
    return out


def submit(
    match_id: str, view: dict[str, Any], context: dict[str, Any], seat: int, *, host: bool
) -> tuple[OrderForm | None, str | None, RuleError | None]:
    """Read the posted order form and send it to the service:
    (the form, the receipt when accepted, the refusal otherwise)."""
    built = order_form(view, context, seat, formdata=request.form)
    if built is None:
        exc = RuleError.single(
            "round/closed",
            "no round is open for orders (the round you wrote this order for has closed); "
            "it was not recorded",
        )
        return None, None, exc
    if not built.form.validate():
        problems = form_problems(built.form)
        built.refuse(problems)
        return built, None, RuleError(problems)
    sent_for = (built.form.round.data or "").strip()
    if sent_for != str(built.round["number"]):
        exc = RuleError.single(
            "round/closed",
            "the round you wrote this order for has closed; it was not recorded. "
            f"The open round is now {built.round['title']}: send an order for it below.",
        )
        built.refuse(list(exc.problems))
        return built, None, exc
    try:
        receipt = referee().submit_order(match_id, seat, built.read(), host_entered=host)
    except RuleError as exc:
        built.refuse(list(exc.problems))
        return built, None, exc
    return built, receipt, None


def own_orders(view: dict[str, Any], seat: int) -> dict[int, dict[str, Any]]:
    """The seat's own orders the view carries, by round number."""
    out: dict[int, dict[str, Any]] = {}
    for number, by_seat in view.get("orders", {}).items():
        if str(seat) in by_seat:
            out[int(number)] = by_seat[str(seat)]
    return out


# ---- pages ------------------------------------------------------------------


def _page(
    token: str,
    match_id: str,
    seat: int,
    form: OrderForm | None = None,
    exc: RuleError | None = None,
) -> ResponseReturnValue:
    state = referee().state(match_id)
    view = view_for(state, Viewer.of_seat(seat))
    context = match_context(view)
    mine = own_orders(view, seat)
    if form is None:
        rnd = context["open_round"]
        current = mine.get(rnd["number"], {}).get("order") if rnd else None
        form = order_form(view, context, seat, current=current)
    status = status_for(exc) if exc is not None else 200
    return render_template(
        "player/play.html",
        token=token,
        seat=seat,
        me=context["names"][seat],
        order=form,
        my_orders=mine,
        problems=list(exc.problems) if exc is not None else [],
        **context,
    ), status


@bp.get("/<token>")
def play(token: str) -> ResponseReturnValue:
    match_id, seat = seat_of(token)
    return _page(token, match_id, seat)


@bp.post("/<token>")
def send_order(token: str) -> ResponseReturnValue:
    match_id, seat = seat_of(token)
    state = referee().state(match_id)
    view = view_for(state, Viewer.of_seat(seat))
    built, receipt, exc = submit(match_id, view, match_context(view), seat, host=False)
    if exc is not None:
        # a form for a round that has closed is not shown again: show the open one
        keep = built if built is not None and built.round["number"] == _sent_round() else None
        return _page(token, match_id, seat, keep, exc)
    assert built is not None
    flash(
        f"Your order for {built.round['title']} was accepted. Receipt: {receipt}. "
        "You can replace it until the round closes.",
        "notice",
    )
    return redirect(url_for("player.play", token=token))


def _sent_round() -> int | None:
    raw = request.form.get("round", "")
    return int(raw) if raw.strip().isdigit() else None
