"""Web pages for the player: one page per private seat link.

The page shows the current round with its deadline, the order form of the
open step (the game's, see :mod:`referee.web.game`), the seat's own orders
with their receipts and everything the game lets this seat see. The order
forms are shared with the host, who may enter an order for a player.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, abort, flash, redirect, render_template, request, url_for
from flask.typing import ResponseReturnValue

from forms.notify import EmailForm
from referee.errors import Problem, RuleError
from referee.ruleset import Viewer
from referee.views import revealed_orders, view_for
from referee.web import referee
from referee.web.calendars import feed_links
from referee.web.common import status_for
from referee.web.game import OrderForm
from referee.web.pages import form_problems, view_context

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


def order_form(
    view: dict[str, Any],
    context: dict[str, Any],
    seat: int,
    current: Any = None,
    formdata: Any = None,
) -> OrderForm | None:
    """The game's form for ``seat``'s order in the open round (None when no
    round is open or ``seat`` does not act in it). ``current`` is the seat's
    order as stored, to start from; with ``formdata`` (a POST) the form keeps
    what was sent."""
    rnd = context["open_round"]
    if rnd is None or seat not in rnd.get("acting", ()):
        return None
    built: OrderForm | None = context["game"].order_form(view, context, seat, current, formdata)
    return built


def submit(
    match_id: str, view: dict[str, Any], context: dict[str, Any], seat: int, *, host: bool
) -> tuple[OrderForm | None, str | None, RuleError | None]:
    """Read the posted order form and send it to the service:
    (the form, the receipt when accepted, the refusal otherwise)."""
    built = order_form(view, context, seat, formdata=request.form)
    rnd = context["open_round"]
    if built is None and rnd is not None and seat not in rnd.get("acting", ()):
        exc = RuleError.single(
            "step/not_acting",
            f"seat {seat} does not act in {rnd['title']}; the order was not recorded",
        )
        return None, None, exc
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
    sent: Any = None
    try:
        sent = built.read()
        # the round it was written for goes to the service too: a round that
        # closed between this page's look and the service's lock is refused there
        receipt = referee().submit_order(
            match_id, seat, sent, host_entered=host, round_number=built.round["number"]
        )
    except RuleError as exc:
        # the rules' refusal as the page tells it (the same codes)
        game = context["game"]
        shown = RuleError(game.player_problems(list(exc.problems), sent, seat, context))
        built.refuse(list(shown.problems))
        return built, None, shown
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
    email_form: EmailForm | None = None,
    email_problems: list[Problem] | None = None,
) -> ResponseReturnValue:
    state = referee().state(match_id)
    view = view_for(state, Viewer.of_seat(seat))
    context = view_context(view)
    mine = own_orders(view, seat)
    if form is None:
        rnd = context["open_round"]
        current = mine.get(rnd["number"], {}).get("order") if rnd else None
        form = order_form(view, context, seat, current=current)
    status = status_for(exc) if exc is not None else 200
    if email_problems:
        status = status_for(RuleError(email_problems))
    return render_template(
        "player/play.html",
        mail=_mail_context(match_id, seat, email_form, email_problems or []),
        token=token,
        seat=seat,
        me=context["names"][seat],
        order=form,
        my_orders=mine,
        problems=list(exc.problems) if exc is not None else [],
        revealed_orders=revealed_orders(view),
        calendar=feed_links(state, seat),
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
    built, receipt, exc = submit(match_id, view, view_context(view), seat, host=False)
    if exc is not None:
        # a form for a round that has closed is not shown again: show the open one
        keep = built if built is not None and built.round["number"] == _sent_round() else None
        return _page(token, match_id, seat, keep, exc)
    assert built is not None
    flash(_accepted(match_id, built.round, receipt), "notice")
    return redirect(url_for("player.play", token=token))


# ---- the player's own e-mail address (issue 14) -------------------------------


def _mail_context(
    match_id: str, seat: int, form: EmailForm | None, problems: list[Problem]
) -> dict[str, Any] | None:
    """The "E-mail me about this match" form (None: this server sends no e-mail)."""
    if not referee().notify.mail_enabled:
        return None
    contact = referee().contact(match_id, seat)
    address = contact.email if contact is not None else None
    if form is None:
        form = EmailForm(formdata=None, data={"email": address or ""})
    return {
        "form": form,
        "address": address,
        "unsubscribed": bool(contact is not None and contact.unsubscribed),
        "errors": [p.message for p in problems],
    }


@bp.post("/<token>/email")
def email(token: str) -> ResponseReturnValue:
    """Save the seat's address (a new one, or again after unsubscribing), or stop e-mails."""
    match_id, seat = seat_of(token)
    form = EmailForm()
    if not form.validate():
        return _page(token, match_id, seat, email_form=form, email_problems=form_problems(form))
    stop = bool(form.stop.data)
    try:
        address = None if stop else (form.email.data or "")
        referee().set_email(match_id, seat, address)
    except RuleError as exc:
        problems = [Problem(p.code, p.message, "email") for p in exc.problems]
        return _page(token, match_id, seat, email_form=form, email_problems=problems)
    if stop:
        flash("You get no more e-mails about this match.", "notice")
    else:
        flash("Saved: e-mails about this match go to that address now.", "notice")
    return redirect(url_for("player.play", token=token) + "#email-h", code=303)


def _accepted(match_id: str, sent_for: dict[str, Any], receipt: str | None) -> str:
    """The notice of an accepted order: it may be replaced while its round is
    open; the order that completed the round (close early) closed it at once."""
    title = sent_for["title"]
    said = f"Your order for {title} was accepted. Receipt: {receipt}."
    state = referee().state(match_id)
    stored = next((r for r in state.rounds if r.number == sent_for["number"]), None)
    if stored is None or stored.status == "open":
        return f"{said} You can replace it until the round closes."
    if stored.closed_by == "early":
        closed = f"{title} has closed: yours was the last order it was waiting for."
    else:
        closed = f"{title} has closed."
    after = " The match has finished: the result is at the top of the page."
    return f"{said} {closed}{after if state.match.finished else ''}"


def _sent_round() -> int | None:
    raw = request.form.get("round", "")
    return int(raw) if raw.strip().isdigit() else None
