"""Web pages for the public: the home page, creating a match, a match's public
page and its forum post.

Also the helpers the host and player pages share (reading a match's map and
cards for display, times and "time left", problems grouped by field). A
refusal no page shows on its form is answered by the app's one RuleError
handler (referee.web._error_pages). Every page about a match is rendered from
:func:`referee.views.view_for`, never from stored rows.
"""

from __future__ import annotations

import hmac
import re
from collections.abc import Callable, Iterable
from datetime import UTC, datetime
from functools import cache
from typing import Any

from flask import Blueprint, Response, current_app, render_template, request
from flask.typing import ResponseReturnValue
from markupsafe import Markup

from forms.match import CreateMatchForm
from forms.orders import choices
from referee.errors import Problem, RuleError
from referee.jsonio import loads_strict
from referee.ruleset import Viewer, get_ruleset
from referee.rulesets.rocky_river.data import DEFAULT_MAP, bundled_map_names, load_deck
from referee.rulesets.rocky_river.data import load_bundled_map as _load_bundled_map
from referee.rulesets.rocky_river.river_map import parse_map
from referee.service import DEFAULT_SETTINGS
from referee.views import view_for
from referee.web import referee
from referee.web.common import base_url, check_text, external_url, status_for

bp = Blueprint("public", __name__)

POST_FORMATS = ("markdown", "bbcode")
SIDE_NAMES = {"L": "left", "R": "right"}


# ---- shared helpers (host and player pages use them too) --------------------


def now() -> datetime:
    """The service's clock (tests may move it)."""
    return referee().clock()


def parse_iso(value: str | None) -> datetime | None:
    if not value:
        return None
    parsed = datetime.fromisoformat(value.replace("Z", "+00:00"))
    return parsed if parsed.tzinfo is not None else parsed.replace(tzinfo=UTC)


def _plural(n: int, unit: str) -> str:
    return f"{n} {unit}" if n == 1 else f"{n} {unit}s"


@bp.app_template_global()
def time_left(deadline: str | None, paused: bool = False) -> str:
    """For people: how long until ``deadline`` (an ISO time), e.g. "1 day 3 hours left"."""
    when = parse_iso(deadline)
    if when is None:
        return "no deadline"
    if paused:
        return "the clock is stopped while the match is paused"
    seconds = int((when - now()).total_seconds())
    if seconds <= 0:
        return "the deadline has passed"
    days, rest = divmod(seconds, 86400)
    hours, rest = divmod(rest, 3600)
    minutes = rest // 60
    if days:
        text = _plural(days, "day") + (f" {_plural(hours, 'hour')}" if hours else "")
    elif hours:
        text = _plural(hours, "hour") + (f" {_plural(minutes, 'minute')}" if minutes else "")
    elif minutes:
        text = _plural(minutes, "minute")
    else:
        text = "less than a minute"
    return f"{text} left"


@bp.app_template_filter("utc")
def utc(iso: str | None) -> str:
    """An ISO time as UTC to the second, e.g. 2026-12-01T18:00:00Z."""
    when = parse_iso(iso)
    return when.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ") if when else "none"


@bp.app_template_global()
def signed(value: int) -> str:
    return f"+{value}" if value > 0 else str(value)


@cache
def card_info() -> dict[str, dict[str, Any]]:
    """Each card by id: its faces, and a text such as "red 5, green 5"."""
    out: dict[str, dict[str, Any]] = {}
    for card in load_deck().cards:
        faces = [{"color": f.color, "value": f.value} for f in card.faces]
        out[card.id] = {
            "id": card.id,
            "faces": faces,
            "text": ", ".join(f"{f.color} {signed(f.value)}" for f in card.faces),
        }
    return out


def card_value(card: str, color: str) -> int | None:
    """The value ``card`` adds to a slot of ``color`` (None: it has no such face)."""
    return load_deck().by_id[card].value_for(color)


def map_info(map_doc: dict[str, Any], names: dict[int, str]) -> dict[str, Any]:
    """The map for display: forks in river order, each branch with its fork, side,
    inner/outer position, slot colour, portrayed seat (and name) and segment."""
    river = parse_map(map_doc, limits=False)  # a stored match's map, admitted at creation
    branches: dict[str, dict[str, Any]] = {}
    forks: list[dict[str, Any]] = []
    order = {fid: i for i, fid in enumerate(river.forks)}
    for fork in sorted(river.forks.values(), key=lambda f: (river.depth[f.id], order[f.id])):
        rows = []
        for side in ("L", "R"):
            for b in fork.side(side):
                info = {
                    "id": b.id,
                    "color": b.color,
                    "seat": b.seat,
                    "seat_name": names.get(b.seat, f"seat {b.seat}"),
                    "fork": fork.id,
                    "side": SIDE_NAMES[side],
                    "position": "outer" if b.outer else "inner",
                    "to": b.to,
                    "segment": river.segment_of(fork.id),
                }
                branches[b.id] = info
                rows.append(info)
        forks.append(
            {
                "id": fork.id,
                "number": river.depth[fork.id],
                "segment": river.segment_of(fork.id),
                "branches": rows,
            }
        )
    return {
        "name": river.name,
        "segments": river.segments,
        "forks_per_segment": river.forks_per_segment,
        "start": river.start,
        "forks": forks,
        "branches": branches,
    }


def match_context(view: dict[str, Any]) -> dict[str, Any]:
    """What every match page needs besides the view: names, the map, the cards,
    the current and open rounds, and the totals of branches the viewer may know."""
    names = {int(p["seat"]): p["name"] for p in view["players"]}
    rounds = view["rounds"]
    current = rounds[view["current_round"] - 1] if view["current_round"] else None
    open_round = current if current is not None and current["status"] == "open" else None
    next_round = None
    if open_round is None and not view["finished"]:
        next_round = next((r for r in rounds if r["status"] == "pending"), None)
    result = view.get("result") or {}
    known_totals: dict[str, int] = {}
    for step in result.get("path", []):
        known_totals[step["branch"]] = step["points"]
    passed = set(known_totals)
    known_totals.update(result.get("branch_totals", {}))
    river = map_info(view["map"], names)
    rules = get_ruleset(view["ruleset"])
    results_svg = rules.results_svg(view)
    return {
        "view": view,
        "names": names,
        "river": river,
        "cards": card_info(),
        "result": result,
        "current": current,
        "open_round": open_round,
        "next_round": next_round,
        "known_totals": known_totals,
        "passed": passed,
        "segments": list(range(1, river["segments"] + 1)),
        # pictures drawn from this view only; the ruleset escapes every text in them
        "map_picture": Markup(rules.map_svg(view)),
        "results_picture": Markup(results_svg) if results_svg is not None else None,
    }


def group_problems(
    problems: Iterable[Problem], where: Callable[[Problem], str]
) -> dict[str, list[str]]:
    """Problem messages by the form field each concerns ("" for the whole form)."""
    out: dict[str, list[str]] = {}
    for p in problems:
        out.setdefault(where(p), []).append(p.message)
    return out


def form_problems(form: Any) -> list[Problem]:
    """A form's own errors (the CSRF token, mostly) as problems."""
    out = []
    for name, messages in form.errors.items():
        for message in messages if isinstance(messages, list) else [messages]:
            out.append(Problem(f"form/{name}", f"{name}: {message}", name))
    return out


# ---- pages ------------------------------------------------------------------


@bp.get("/")
def index() -> str:
    return render_template("public/index.html")


def _number(text: str | None, default: int | float | str) -> int | float | str:
    """A number typed in a form; what was typed when it is not one (so the
    service names it in its message)."""
    text = (text or "").strip()
    if not text:
        return default
    if re.fullmatch(r"[+-]?\d+", text):
        return int(text)
    try:
        return float(text)
    except ValueError:
        return text


def _create_field(p: Problem) -> str:
    """The create form's field a problem concerns."""
    field = p.field or ""
    index = re.fullmatch(r"players\[(\d)\]", field)
    if index:
        return f"players-{index.group(1)}"
    if p.code.startswith(("map/", "json/")) or p.code == "match/bad_map":
        return "map"
    if field in DEFAULT_SETTINGS or field in ("name", "admin_key"):
        return field
    return ""


def _read_map(form: Any) -> tuple[Any, list[Problem], str]:
    """The map the host chose: (map_ref or None, problems reading it, source).
    An uploaded file comes first, then pasted JSON, else the bundled map. An
    uploaded file's text is put in the paste box, so a refused map can be edited."""
    upload: Any = form.map_file.data
    text: str | None = None
    source = "bundled"
    if upload is not None and upload.filename:
        source = "upload"
        raw = upload.read()
        try:
            text = raw.decode("utf-8-sig")
        except UnicodeDecodeError:
            return None, [Problem("json/invalid", "the map file is not UTF-8 text", "map")], source
        form.map_json.data = text
    elif (form.map_json.data or "").strip():
        source = "paste"
        text = form.map_json.data
    if text is None:
        return form.bundled_map.data or DEFAULT_MAP, [], source
    try:
        doc = loads_strict(text, "the map")
        check_text(doc, "the map", "map/bad_text")
        return doc, [], source
    except RuleError as exc:
        return None, list(exc.problems), source


def _balance(map_ref: Any) -> dict[str, Any] | None:
    """The map's balance and fairness report, or None for a map with problems
    (those are shown by the form's own check)."""
    try:
        report: dict[str, Any] = get_ruleset("rocky-river").map_report(map_ref)
    except RuleError:
        return None
    return report


def _map_problems(map_ref: Any) -> list[Problem]:
    try:
        if isinstance(map_ref, str):
            _load_bundled_map(map_ref)
        else:
            parse_map(map_ref)
    except RuleError as exc:
        return list(exc.problems)
    return []


@bp.route("/new", methods=["GET", "POST"])
def new_match() -> ResponseReturnValue:
    form = CreateMatchForm()
    names = bundled_map_names()
    form.bundled_map.choices = choices((n, n) for n in names)
    admin_key = current_app.config.get("ADMIN_KEY")

    def page(problems: list[Problem], balance: Any = None, checked: bool = False) -> str:
        return render_template(
            "public/new.html",
            form=form,
            problems=problems,
            errors=group_problems(problems, _create_field),
            balance=balance,
            map_checked=checked,
            need_admin_key=bool(admin_key),
        )

    if not form.is_submitted():
        form.bundled_map.data = DEFAULT_MAP if DEFAULT_MAP in names else (names or [""])[0]
        return page([])

    if not form.validate():
        invalid = form_problems(form)
        return page(invalid), status_for(RuleError(invalid))
    # the key first, before any work (reading a map, its fairness solves); a wrong
    # key counts as a failed attempt, as on the API (referee.web.ratelimit)
    if admin_key and not hmac.compare_digest(
        (form.admin_key.data or "").encode(), str(admin_key).encode()
    ):
        refusal = [
            Problem(
                "auth/unauthorized",
                "creating matches or checking maps on this server needs its admin key",
                "admin_key",
            )
        ]
        return page(refusal), 401
    problems: list[Problem] = []
    map_ref, read_problems, source = _read_map(form)
    if form.check_map.data:
        problems += read_problems or (_map_problems(map_ref) if map_ref is not None else [])
        balance = _balance(map_ref) if map_ref is not None else None
        status = status_for(RuleError(problems)) if problems else 200
        return page(problems, balance, checked=not problems), status
    players = [
        {
            "seat": i + 1,
            "name": entry.form.name.data or "",
            "garnets": _number(entry.form.garnets.data, ""),
        }
        for i, entry in enumerate(form.players.entries)
    ]
    settings = {
        "deadline_hours": _number(form.deadline_hours.data, 0),
        "publish_totals": bool(form.publish_totals.data),
        "close_early": bool(form.close_early.data),
    }
    balance = _balance(map_ref) if map_ref is not None and source != "bundled" else None
    created = None
    try:
        created = referee().create_match(
            name=form.name.data or "",
            map_ref=map_ref,
            players=players,
            settings=settings,
        )
    except RuleError as exc:
        found = list(exc.problems)
        if read_problems:  # the map could not be read: say why, not "no map"
            found = [p for p in found if p.code != "match/bad_map"]
        problems += read_problems + found
    if created is None:
        return page(problems, balance), status_for(RuleError(problems))

    state = referee().state(created.match_id)
    view = view_for(state, Viewer.host())
    seat_links = [
        {
            "seat": seat,
            "name": next(p["name"] for p in view["players"] if p["seat"] == seat),
            "url": external_url("player.play", token=token),
        }
        for seat, token in sorted(created.player_tokens.items())
    ]
    return render_template(
        "public/created.html",
        view=view,
        host_url=external_url("host.dashboard", token=created.host_token),
        seat_links=seat_links,
        public_url=external_url("public.match_page", match_id=created.match_id),
        balance=balance,
    )


@bp.get("/matches/<match_id>")
def match_page(match_id: str) -> ResponseReturnValue:
    state = referee().state(match_id)
    view = view_for(state, Viewer.public())
    return render_template("public/match.html", **match_context(view))


@bp.get("/matches/<match_id>/post")
def post(match_id: str) -> ResponseReturnValue:
    fmt = request.args.get("format", "markdown")
    if fmt not in POST_FORMATS:
        raise RuleError.single(
            "post/bad_format", f"format must be markdown or bbcode, not '{fmt}'", "format"
        )
    state = referee().state(match_id)
    text = state.ruleset.post(view_for(state, Viewer.public()), fmt, base_url=base_url())
    return Response(text, mimetype="text/plain")
