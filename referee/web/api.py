"""The JSON API of the shared API contract (in docs/contracts/): for bots,
scripts and tests. Thin: every call goes through :class:`referee.service.Referee`
and every response about a match is made by :func:`referee.views.view_for`."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

from flask import Blueprint, Response, current_app, jsonify, request

from referee.errors import Problem, RuleError
from referee.markup import match_post
from referee.models import Message
from referee.notify.checks import SCHEDULE_KEYS
from referee.notify.outbox import error_for_host
from referee.ruleset import Viewer, ruleset_named_in
from referee.views import preview_for, pulse_for, view_for
from referee.web import referee
from referee.web.api_common import bearer, check_admin_key, json_body, object_body
from referee.web.common import base_url, check_post_format, parse_deadline
from referee.web.openapi import openapi_document

bp = Blueprint("api", __name__, url_prefix="/api")

MAX_ROUND = 2**31 - 1


@bp.get("/openapi.json")
def openapi() -> Response:
    return jsonify(openapi_document())


def _viewer(match_id: str) -> Viewer:
    """The caller, from its token; 401 without one, 403 with one for another match."""
    token = bearer()
    if token is None:
        raise RuleError.single(
            "auth/unauthorized", "this needs a host or seat token: Authorization: Bearer TOKEN"
        )
    found = referee().find_token(token)
    if found is None or found[0] != match_id:
        raise RuleError.single("auth/forbidden", "this token does not give access to this match")
    return Viewer.host() if found[1] is None else Viewer.of_seat(found[1])


def _host(match_id: str) -> None:
    if _viewer(match_id).kind != "host":
        raise RuleError.single("auth/forbidden", "only the host may do this")


@bp.post("/matches")
def create_match() -> tuple[Response, int]:
    check_admin_key("matches")
    rules = ruleset_named_in(json_body())
    body = object_body(
        ("name", *rules.setup_keys, "players", "settings", "ruleset", "notify", "schedule")
    )
    created = referee().create_match(
        name=body.get("name"),
        setup={key: body[key] for key in rules.setup_keys if key in body},
        players=body.get("players"),
        settings=body.get("settings"),
        ruleset=rules.name,
        notify=body.get("notify"),
        schedule=body.get("schedule"),
        base_url=base_url(),
    )
    return jsonify(
        {
            "id": created.match_id,
            "host_token": created.host_token,
            "player_tokens": {str(s): t for s, t in created.player_tokens.items()},
            "seed_sha256": created.seed_sha256,
            "webhook_secret": created.webhook_secret,
        }
    ), 201


@bp.get("/matches/<match_id>")
def public_view(match_id: str) -> Response:
    return jsonify(view_for(referee().state(match_id), Viewer.public()))


@bp.get("/matches/<match_id>/pulse")
def pulse(match_id: str) -> Response:
    """The match's pulse (issue 24): a few hundred bytes of public facts that
    pages poll every few seconds to follow the match live, with a strong ETag
    (answered 304 to If-None-Match) and ``Cache-Control: no-cache``. See
    :func:`referee.views.pulse_for`; counted by ``RATELIMIT_PULSE``."""
    body = pulse_for(referee().pulse(match_id))
    resp = current_app.response_class(
        json.dumps(body, separators=(",", ":")) + "\n", mimetype="application/json"
    )
    resp.set_etag(body["pulse"])
    resp.headers["Cache-Control"] = "no-cache"
    resp.make_conditional(request)
    return resp


@bp.get("/matches/<match_id>/me")
def my_view(match_id: str) -> Response:
    viewer = _viewer(match_id)
    return jsonify(view_for(referee().state(match_id), viewer))


@bp.post("/matches/<match_id>/rounds/open")
def open_round(match_id: str) -> Response:
    _host(match_id)
    body = object_body(("deadline",))
    deadline = parse_deadline(body["deadline"]) if body.get("deadline") is not None else None
    referee().open_round(match_id, deadline)
    return jsonify(view_for(referee().state(match_id), Viewer.host()))


def _whole_number(body: dict[str, Any], key: str, code: str, what: str) -> int | None:
    """``body[key]`` as a whole number from 1 (None when absent or null): a
    JSON integer, not ``1.0``, ``true`` or a string."""
    value = body.get(key)
    if value is None:
        return None
    if type(value) is not int or not 1 <= value <= MAX_ROUND:
        raise RuleError.single(code, f"{key} must be {what}, not {value!r}", key)
    return value


@bp.put("/matches/<match_id>/orders")
def put_order(match_id: str) -> Response:
    # the hot path: a seat link this process has seen for this match is not looked
    # up again here; the service's guarded statement checks it while storing, and
    # any refusal first checks it as every request does (403 for a stale link)
    token = bearer()
    hint = referee().seat_link_hint(token) if token else None
    if hint is None or hint[0] != match_id:
        return _put_order(match_id, _viewer(match_id), None)
    try:
        return _put_order(match_id, Viewer.of_seat(hint[1]), token)
    except RuleError:
        _viewer(match_id)
        raise


def _put_order(match_id: str, viewer: Viewer, unchecked: str | None) -> Response:
    """PUT /orders once the caller is known (``unchecked``: its seat link, when
    only :meth:`Referee.seat_link_hint` vouches for it)."""
    rules = referee().ruleset_of(match_id)
    keys = list(dict.fromkeys(p.order_key for p in rules.phases))
    body = object_body(("seat", "round", *keys))
    host_entered = viewer.kind == "host"
    meant = _whole_number(body, "round", "round/bad_number", "the round number (1, 2, ...)")
    if host_entered:
        if "seat" not in body or body["seat"] is None:
            raise RuleError.single(
                "order/no_seat", 'the host enters an order for a player with {"seat": n, ...}'
            )
        seat = _whole_number(body, "seat", "order/no_seat", "a seat number (1, 2, ...)")
    else:
        seat = viewer.seat
        mine = f"your seat number ({seat}) or left out"
        sent = _whole_number(body, "seat", "order/no_seat", mine)
        if sent is not None and sent != seat:
            raise RuleError.single(
                "auth/forbidden", "a seat's token sends orders for its own seat only", "seat"
            )
    kinds = [k for k in keys if k in body]
    if len(kinds) != 1:
        raise RuleError.single(
            "order/bad_body",
            f"send exactly one of {', '.join(keys)} (the open round's kind of order)",
        )
    assert seat is not None
    # the service checks the order's shape (its phase's schema), then the rules
    receipt = referee().submit_order(
        match_id,
        seat,
        body[kinds[0]],
        host_entered=host_entered,
        kind=kinds[0],
        round_number=meant,
        token=unchecked,
    )
    return jsonify({"accepted": True, "receipt": receipt})


@bp.post("/matches/<match_id>/rounds/close")
def close_round(match_id: str) -> Response:
    _host(match_id)
    body = object_body(("round",))
    number = _whole_number(body, "round", "round/bad_number", "a round number (1, 2, ...)")
    rnd = referee().close_round(match_id, number)
    view = view_for(referee().state(match_id), Viewer.public())
    return jsonify({"round": rnd.number, "closed_by": rnd.closed_by, "result": view["result"]})


@bp.post("/matches/<match_id>/rounds/deadline")
def set_deadline(match_id: str) -> Response:
    _host(match_id)
    body = object_body(("deadline",))
    raw = body.get("deadline")
    referee().extend_deadline(match_id, parse_deadline(raw) if raw is not None else None)
    return jsonify(view_for(referee().state(match_id), Viewer.host()))


@bp.post("/matches/<match_id>/pause")
def pause(match_id: str) -> Response:
    _host(match_id)
    referee().pause(match_id)
    return jsonify(view_for(referee().state(match_id), Viewer.host()))


@bp.post("/matches/<match_id>/resume")
def resume(match_id: str) -> Response:
    _host(match_id)
    referee().resume(match_id)
    return jsonify(view_for(referee().state(match_id), Viewer.host()))


@bp.get("/matches/<match_id>/preview")
def preview(match_id: str) -> Response:
    _host(match_id)
    # a view: nothing a sealed order's content could change (views.preview_for)
    return jsonify({"preview": preview_for(referee().preview(match_id))})


@bp.post("/matches/<match_id>/reveal")
def reveal(match_id: str) -> Response:
    _host(match_id)
    referee().reveal(match_id)
    return jsonify(view_for(referee().state(match_id), Viewer.public()))


@bp.post("/matches/<match_id>/tokens")
def reissue(match_id: str) -> Response:
    _host(match_id)
    body = object_body(("seat",))
    who = body.get("seat")
    seats = referee().state(match_id).setup.seats
    if who is not None and (type(who) is not int or who not in seats):
        shown = ", ".join(str(s) for s in seats)
        raise RuleError.single(
            "seat/unknown", f"seat must be one of {shown} (or null for the host), not {who!r}"
        )
    token = referee().reissue_token(match_id, who)
    return jsonify({"seat": who, "token": token})


@bp.get("/matches/<match_id>/audit")
def audit(match_id: str) -> Response:
    _host(match_id)
    return jsonify(referee().audit(match_id))


@bp.get("/matches/<match_id>/export")
def export(match_id: str) -> Response:
    _host(match_id)
    return jsonify(referee().export(match_id))


@bp.get("/matches/<match_id>/post")
def post(match_id: str) -> Response:
    fmt = request.args.get("format", "markdown")
    check_post_format(fmt)
    state = referee().state(match_id)
    text = match_post(state.ruleset, view_for(state, Viewer.public()), fmt, base_url=base_url())
    return jsonify({"format": fmt, "post": text})


# ---- notifications and schedule (issue 14) --------------------------------------


def _time(value: datetime | None) -> str | None:
    """ISO-8601 in UTC with ``Z`` (SQLite gives back naive UTC datetimes)."""
    if value is None:
        return None
    aware = value.replace(tzinfo=value.tzinfo or UTC).astimezone(UTC)
    return aware.isoformat().replace("+00:00", "Z")


def _message_row(message: Message) -> dict[str, Any]:
    """One outbox row as the host sees it: what, when and how it went, never
    to whom or what it said."""
    return {
        "id": message.id,
        "channel": message.channel,
        "event": message.event,
        "seat": message.seat,
        "status": message.status,
        "attempts": message.attempts,
        "last_error": error_for_host(message),
        "created_at": _time(message.created_at),
        "due_at": _time(message.due_at),
        "sent_at": _time(message.sent_at),
    }


@bp.get("/matches/<match_id>/notifications")
def notifications(match_id: str) -> Response:
    _host(match_id)
    settings, contacts = referee().notify_settings(match_id)
    seats: dict[str, dict[str, bool]] = {}
    for seat in referee().state(match_id).setup.seats:
        contact = contacts.get(seat)
        seats[str(seat)] = {
            "email": contact is not None and bool(contact.email),
            "unsubscribed": contact is not None and contact.unsubscribed,
        }
    return jsonify(
        {
            "webhook": settings is not None and bool(settings.webhook_url),
            "remind_before_hours": list(settings.remind_before_hours) if settings else [],
            "seats": seats,
            "messages": [_message_row(m) for m in referee().messages(match_id)],
        }
    )


def _schedule_of(match_id: str) -> dict[str, Any]:
    settings = referee().state(match_id).match.settings
    return {
        "auto_open": bool(settings.get("auto_open", False)),
        "hours_per_round": settings.get("deadline_hours", 0),
    }


@bp.put("/matches/<match_id>/schedule")
def set_schedule(match_id: str) -> Response:
    _host(match_id)
    body = object_body(SCHEDULE_KEYS)
    now = _schedule_of(match_id)
    try:
        referee().set_schedule(
            match_id,
            auto_open=body.get("auto_open", now["auto_open"]),
            hours_per_round=body.get("hours_per_round", now["hours_per_round"]),
        )
    except RuleError as exc:
        # the service names the stored setting; this call's caller sent hours_per_round
        renamed = {"deadline_hours": "hours_per_round"}
        raise RuleError(
            Problem(p.code, p.message, renamed.get(p.field or "", p.field)) for p in exc.problems
        ) from None
    return jsonify(_schedule_of(match_id))


@bp.put("/matches/<match_id>/email")
def set_email(match_id: str) -> Response:
    viewer = _viewer(match_id)
    if viewer.kind != "seat" or viewer.seat is None:
        raise RuleError.single(
            "auth/forbidden", "only the seat itself may set its e-mail address (its own token)"
        )
    body = object_body(("email",))
    if "email" not in body:
        raise RuleError.single(
            "notify/bad_email",
            'send {"email": "you@example.org"}, or {"email": null} to get no more e-mails',
            "email",
        )
    address = body["email"]
    if address is not None and not isinstance(address, str):
        raise RuleError.single(
            "notify/bad_email", f"email must be an address or null, not {address!r}", "email"
        )
    try:
        referee().set_email(match_id, viewer.seat, address)
    except RuleError as exc:  # the service's words name the address; the field is this one
        raise RuleError(
            Problem(p.code, p.message, p.field or "email") for p in exc.problems
        ) from None
    contact = referee().contact(match_id, viewer.seat)
    return jsonify(
        {
            "seat": viewer.seat,
            "email": contact.email if contact else None,
            "unsubscribed": contact.unsubscribed if contact else address is None,
        }
    )
