"""A game's part of the web pages, behind one small interface.

The pages (:mod:`referee.web.public`, ``host``, ``player``), the shared
templates and :mod:`forms` serve every game the same way; what only one game
knows is asked of its :class:`GameWeb`, found by :func:`web_for` from the
ruleset's ``web_module`` (a module with a ``Web`` class, a subclass of
:class:`GameWeb`). A game without a web module (``web_module = None``) gets
:class:`GameWeb` itself, whose defaults make any game playable in a browser:

- an order is JSON in one text box (:class:`JsonOrder`), checked against its
  phase's schema (:func:`referee.orderschema.check_against_schema`), then by
  the service (the game's rules), the seat's ``options`` shown beside it;
- results are shown as a readable list of the view's ``result``, the game's
  pictures as drawn;
- the set-up is one JSON text box per ``setup_keys`` entry, and "check only"
  runs :meth:`referee.ruleset.Ruleset.setup_report` when the game has one;
- game settings are drawn from ``rules.settings`` (a flag is a checkbox, a
  choice a select, an order one select per place, names one line per choice;
  :meth:`GameWeb.choice_label` and :meth:`GameWeb.name_placeholder` give
  their choices words).

**Templates.** Each ``*_template`` names a Jinja file defining one macro, which
the shared pages import *with context* (so it sees ``view``, ``result``,
``names``, ``pictures``, ``game`` and whatever :meth:`GameWeb.page_context`
adds) and call:

===================  ======================================================
``results_template``  ``results(where, own_seat=None)``: the results section
``sections_template`` ``sections(where)``: the game's own sections at a page's end
``order_template``    ``order_form(order, action_url, submit_label, where)``
``setup_template``    ``setup_fields(form, errors)``: the create form's set-up
``report_template``   ``setup_report(report)``: what ``setup_report`` gave
``about_template``    ``about(rules)``: the game on the home page
``audit_template``    ``audit_report(report)``: the host's audit page
===================  ======================================================

``rules_template`` is a whole page, not a macro: the game's rules in plain
words at ``/games/<game>/rules`` (rendered with ``rules``, the game's
:class:`Ruleset`, and ``web``, its :class:`GameWeb`), linked from every match
page and the create page. A game's own extends ``game/rules.html`` and fills
its ``rules`` block; the generic page lists the game's steps and settings.

``where`` is the page: ``"public"``, ``"player"``, ``"host"`` (the dashboard
and the host's order page) or ``"preview"`` (the host's preview of a close).
The generic templates are in ``templates/game/``, a game's own in
``templates/rulesets/<game>/``; its static files (``scripts``,
``stylesheets``, paths under ``static/``) in ``static/rulesets/<game>/``.
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from typing import Any, ClassVar

from wtforms import SubmitField, TextAreaField

from forms.match import setting_field_name
from forms.orders import JsonOrderForm
from referee.errors import Problem, RuleError
from referee.jsonio import loads_strict
from referee.orderschema import check_against_schema
from referee.ruleset import Phase, Ruleset, Setting
from referee.words import duration, span

__all__ = ["GameWeb", "JsonOrder", "OrderForm", "SetupRead", "read_settings", "web_for"]


@dataclass
class SetupRead:
    """The game's set-up as read from the create form: ``body`` (its
    ``setup_keys``, for :meth:`referee.service.Referee.create_match`), the
    ``problems`` of reading it (not of the rules: the service says those), the
    keys that could not be read at all, and whether the page after creating
    should show the game's set-up report."""

    body: dict[str, Any]
    problems: list[Problem] = field(default_factory=list)
    unread: frozenset[str] = frozenset()
    report: bool = False


@dataclass
class OrderForm:
    """The order form of the open round for one seat, ready to render with the
    game's ``order_template``. ``form`` is the WTForm (a subclass of
    :class:`forms.orders.OrderBaseForm`, carrying the round it was made for);
    ``errors`` are problem messages by field name ("" for the whole form)."""

    template: str
    round: dict[str, Any]
    seat: int
    form: Any
    errors: dict[str, list[str]] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)

    @property
    def phase(self) -> str:
        return str(self.round["phase"])

    def read(self) -> Any:
        """The order as the service expects it (the value of the phase's
        ``order_key``), from what was sent; a :class:`RuleError` when it cannot
        be read at all."""
        raise NotImplementedError

    def field_of(self, problem: Problem) -> str:
        """The field a problem concerns ("" for the whole form)."""
        if problem.field is not None and problem.field in self.form:
            return problem.field
        return ""

    def refuse(self, problems: list[Problem]) -> None:
        """Put each problem next to the field it concerns."""
        self.problems = list(problems)
        for p in problems:
            self.errors.setdefault(self.field_of(p), []).append(p.message)


# the keys referee.views.view_for puts in every view beside the game's own
# (tests/service/web/test_generic_game.py keeps this list up to date)
SHARED_VIEW_KEYS = frozenset(
    {
        "id",
        "name",
        "ruleset",
        "title",
        "viewer",
        "players",
        "settings",
        "seed_sha256",
        "chain_head",
        "created_at",
        "paused",
        "finished",
        "revealed",
        "rounds",
        "current_round",
        "closed_rounds",
        "seed",
        "orders",
        "version",
    }
)


def game_keys(view: Mapping[str, Any], leave_out: tuple[str, ...] = ()) -> dict[str, Any]:
    """The keys of ``view`` that its game's :meth:`Ruleset.view` added (but
    ``leave_out``), in the view's order."""
    skip = SHARED_VIEW_KEYS | set(leave_out)
    return {k: v for k, v in view.items() if k not in skip}


@dataclass
class JsonOrder(OrderForm):
    """The generic order form: the order as JSON, checked against its phase's
    schema before the service checks it by the rules."""

    phase_info: Phase | None = None
    options: Any = None  # what the seat may choose from, when the view says
    # the seat's other game keys (but ``result``): what it may need to write an
    # order (a hand, the cards it may take...), shown beside the box
    also: dict[str, Any] = field(default_factory=dict)

    @property
    def order_key(self) -> str:
        return self.phase_info.order_key if self.phase_info is not None else "order"

    @property
    def description(self) -> str:
        schema = self.phase_info.schema if self.phase_info is not None else {}
        return str(schema.get("description", ""))

    def read(self) -> Any:
        text = (self.form.order.data or "").strip()
        if not text:
            raise RuleError.single("json/invalid", "the order is empty: write it as JSON", "order")
        value = loads_strict(text, "the order")
        if self.phase_info is not None:
            check_against_schema(value, self.phase_info.schema, self.order_key)
        return value

    def field_of(self, problem: Problem) -> str:
        return "" if problem.code.startswith(("form/", "round/")) else "order"


class GameWeb:
    """A game's web parts. Its defaults are the generic pages of a game without
    a web module; a game's ``Web`` overrides what it shows its own way."""

    results_template: ClassVar[str] = "game/results.html"
    sections_template: ClassVar[str] = "game/sections.html"
    order_template: ClassVar[str] = "game/order_form.html"
    setup_template: ClassVar[str] = "game/setup_fields.html"
    report_template: ClassVar[str] = "game/setup_report.html"
    about_template: ClassVar[str] = "game/about.html"
    audit_template: ClassVar[str] = "game/audit.html"
    rules_template: ClassVar[str] = "game/rules.html"  # a whole page, see above
    scripts: ClassVar[tuple[str, ...]] = ()  # under static/, loaded by match pages
    stylesheets: ClassVar[tuple[str, ...]] = ()  # under static/, after style.css

    # words of the shared pages that depend on the game
    players_hint: ClassVar[str] = "Garnets are a whole number, 0 or more."
    service_labels: ClassVar[Mapping[str, str]] = {}  # other labels for shared create fields
    close_early_text: ClassVar[str] = (
        "rounds close early once every player who acts in them has sent an order"
    )
    reveal_what: ClassVar[str] = "every order and everything the game kept hidden"
    audit_note: ClassVar[str] = ""
    check_ok: ClassVar[str] = "The set-up is valid."

    def __init__(self, rules: Ruleset) -> None:
        self.rules = rules

    # ---- match pages -------------------------------------------------

    def page_context(self, view: dict[str, Any], context: dict[str, Any]) -> dict[str, Any]:
        """Extra template context of a match page, from the viewer's ``view``
        and the shared ``context`` (:func:`referee.web.pages.view_context`)."""
        return {}

    def order_words(self, order: Any, context: Mapping[str, Any]) -> str | None:
        """An order as a page tells it to a person (a receipt's "Your order:",
        the host's and the reveal's lists of orders), from the page ``context``;
        None: the generic text of its values (``order_text`` of
        ``templates/public/_macros.html``). Machine outputs (the API, the
        canonical JSON a receipt hashes) keep the order as stored."""
        return None

    def player_problems(
        self, problems: list[Problem], order: Any, seat: int, context: Mapping[str, Any]
    ) -> list[Problem]:
        """The rules' refusals of ``seat``'s ``order`` as a page tells them (the
        same codes and fields): where the rules name a thing by its id and the
        page by another name. The API and the match files keep the rules' words."""
        return problems

    def settings_summary(self, view: dict[str, Any]) -> list[str]:
        """The match's settings in words, one clause each."""
        settings = view.get("settings") or {}
        hours = settings.get("deadline_hours")
        clauses = [f"deadline {duration(hours)} per round" if hours else "no deadline"]
        clock = settings.get("clock")
        if clock:
            clauses.append(
                f"a clock per player: {span(clock['bank_minutes'] * 60)} in the bank, "
                f"{span(clock['add_minutes'] * 60)} added at each of its steps"
            )
        clauses += self.game_settings_summary(settings)
        if settings.get("close_early"):
            clauses.append(self.close_early_text)
        else:
            clauses.append("rounds close at the deadline or by the host")
        return clauses

    def game_settings_summary(self, settings: Mapping[str, Any]) -> list[str]:
        """The game's own settings in words."""
        return [
            f"{s.label.lower()}: {_setting_text(s, settings.get(s.key, s.default))}"
            for s in self.rules.settings
        ]

    def audit_offered(self, view: dict[str, Any]) -> bool:
        """Whether the dashboard links to the audit page now."""
        has_audit = type(self.rules).audit is not Ruleset.audit
        return has_audit and int(view.get("closed_rounds") or 0) >= 1

    # ---- orders ------------------------------------------------------

    def order_form(
        self,
        view: dict[str, Any],
        context: dict[str, Any],
        seat: int,
        current: Any = None,
        formdata: Any = None,
    ) -> OrderForm | None:
        """The form of ``seat``'s order in the open round (called only when a
        round is open and ``seat`` acts in it; None: the game has no form for
        it). ``current`` is the seat's order as stored, to start from; with
        ``formdata`` (a POST) the form keeps what was sent."""
        rnd = context["open_round"]
        form = JsonOrderForm(formdata=formdata)
        if formdata is None:
            form.round.data = str(rnd["number"])
            if current is not None:
                form.order.data = json.dumps(current, indent=1, ensure_ascii=False)
        return JsonOrder(
            template=self.order_template,
            round=rnd,
            seat=seat,
            form=form,
            phase_info=self.rules.phase(rnd["phase"]),
            options=view.get("options"),
            also=game_keys(view, leave_out=("result", "options")),
        )

    # ---- creating a match ---------------------------------------------

    def choice_label(self, setting: Setting, choice: str) -> str:
        """A setting's choice for people: its text in the create form's selects
        and the label of its line in a names setting (by default the choice)."""
        return choice

    def name_placeholder(self, setting: Setting, choice: str) -> str:
        """The grey text of a names setting's empty line (the name the choice
        keeps when the line is left empty; none by default)."""
        return ""

    @property
    def check_action(self) -> str | None:
        """The name of the create form's "check the set-up only" button (None:
        none); by default there is one when the game has a set-up report."""
        has_report = type(self.rules).setup_report is not Ruleset.setup_report
        return "check_setup" if has_report else None

    def setup_fields(self) -> dict[str, Any]:
        """The create form's fields of the game's set-up, by name (unbound
        WTForms fields; the check button among them)."""
        fields: dict[str, Any] = {
            f"setup_{key}": TextAreaField(f"{key} (JSON)") for key in self.rules.setup_keys
        }
        if self.check_action is not None:
            fields[self.check_action] = SubmitField("Check the set-up only")
        return fields

    def read_setup(self, form: Any) -> SetupRead:
        """The game's set-up from the submitted create form."""
        body: dict[str, Any] = {}
        problems: list[Problem] = []
        unread: set[str] = set()
        for key in self.rules.setup_keys:
            name = f"setup_{key}"
            text = (form[name].data or "").strip()
            if not text:
                continue  # the game says whether it may be left out
            try:
                body[key] = loads_strict(text, f"the {key}")
            except RuleError as exc:
                unread.add(key)
                problems += [Problem(p.code, p.message, name) for p in exc.problems]
        return SetupRead(body, problems, frozenset(unread))

    def setup_report(self, body: Mapping[str, Any]) -> tuple[Any, list[Problem]]:
        """The game's report on a set-up (what "check only" shows): (the report,
        or None; the set-up's problems)."""
        try:
            return self.rules.setup_report(body), []
        except RuleError as exc:
            return None, list(exc.problems)

    def setup_field(self, problem: Problem) -> str | None:
        """The create form's set-up field a problem concerns (None: not one)."""
        where = problem.field
        if where is None:
            return None
        if where.startswith("setup_"):
            return where
        return f"setup_{where}" if where in self.rules.setup_keys else None

    def superseded(self, problem: Problem, read: SetupRead) -> bool:
        """Whether a problem of creating the match only repeats that the set-up
        could not be read (``read.problems`` say why): it is then not shown."""
        return problem.field in read.unread


def _setting_text(setting: Setting, value: Any) -> str:
    if setting.kind == "flag":
        return "yes" if value else "no"
    if setting.kind == "order" and isinstance(value, list | tuple):
        return ", ".join(str(v) for v in value)
    if setting.kind == "names" and isinstance(value, Mapping):
        return ", ".join(f"{k} = {v}" for k, v in value.items()) or "none"
    return str(value)


def read_settings(rules: Ruleset, form: Any) -> tuple[dict[str, Any], dict[str, list[Problem]]]:
    """The game's settings from a create form (those left empty are left out:
    their defaults apply), and the problems of the settings that could not be
    read, by key (none now: an order is read from its places and names from
    their lines; the service checks the values). An order whose places were
    all left empty is left out; one with some empty is passed on as it is, so
    the service refuses it. Names left empty keep their defaults."""
    out: dict[str, Any] = {}
    unread: dict[str, list[Problem]] = {}
    for setting in rules.settings:
        data = form[setting_field_name(setting)].data
        if setting.kind == "flag":
            out[setting.key] = bool(data)
            continue
        if setting.kind in ("order", "names"):  # one value per place or choice: "0", "1", ...
            values = [
                str((data or {}).get(str(i)) or "").strip() for i in range(len(setting.choices))
            ]
            if setting.kind == "order" and any(values):
                out[setting.key] = values
            named = {c: name for c, name in zip(setting.choices, values, strict=True) if name}
            if setting.kind == "names" and named:
                out[setting.key] = named
            continue
        text = str(data or "").strip()
        if text:
            out[setting.key] = text
    return out, unread


class PageWords:
    """What a match page's templates call (as ``words``) to tell an order or a
    refusal of one in the player's words (:meth:`GameWeb.order_words`,
    :meth:`GameWeb.player_problems`), with the page's context."""

    def __init__(self, game: GameWeb, context: Mapping[str, Any]) -> None:
        self.game = game
        self.context = context

    def order(self, order: Any) -> str | None:
        return self.game.order_words(order, self.context)

    def problem(self, problem: Any, order: Any, seat: Any) -> str:
        """A stored refusal (``{"code", "message"}``) of ``seat``'s ``order``."""
        found = Problem(str(problem["code"]), str(problem["message"]))
        return self.game.player_problems([found], order, int(seat), self.context)[0].message


def web_for(rules: Ruleset) -> GameWeb:
    """The web parts of ``rules``'s game: its web module's ``Web``, or the
    generic :class:`GameWeb` when it has none."""
    return _web_class(rules.web_module)(rules)


@cache
def _web_class(module: str | None) -> type[GameWeb]:
    if module is None:
        return GameWeb
    found = getattr(importlib.import_module(module), "Web", None)
    if not (isinstance(found, type) and issubclass(found, GameWeb)):
        raise TypeError(f"{module} has no Web class (a subclass of referee.web.game.GameWeb)")
    return found
