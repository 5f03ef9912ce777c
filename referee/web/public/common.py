"""What the public pages share: the blueprint (``public``; every page's
endpoint is ``public.*``), the registered games, whether this server sends
e-mail, and a match's public page (shown again, with its refusal, when the
"lost your private link?" form is refused)."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, render_template

from forms.notify import LinkRequestForm
from referee.errors import Problem
from referee.ruleset import Viewer, get_ruleset, ruleset_names
from referee.views import revealed_orders, view_for
from referee.web import referee
from referee.web.calendars import feed_links
from referee.web.game import web_for
from referee.web.pages import view_context

bp = Blueprint("public", __name__)


def registered_games() -> list[dict[str, Any]]:
    """Every registered game, for people: name, title, players and web parts."""
    out = []
    for name in ruleset_names():
        rules = get_ruleset(name)
        out.append({"name": name, "rules": rules, "web": web_for(rules)})
    return out


def mail_enabled() -> bool:
    """Whether this server sends e-mail (its operator set REFEREE_SMTP_URL)."""
    return referee().notify.mail_enabled


def render_match_page(
    match_id: str, link_form: LinkRequestForm | None = None, problems: list[Problem] | None = None
) -> str:
    """A match's public page (``link_form`` and ``problems``: the "lost your
    private link?" form as sent, and its refusal)."""
    state = referee().state(match_id)
    view = view_for(state, Viewer.public())
    return render_template(
        "public/match.html",
        mail_enabled=mail_enabled(),
        link_form=link_form or LinkRequestForm(formdata=None),
        link_errors=[p.message for p in problems or []],
        **view_context(view),
        revealed_orders=revealed_orders(view),
        calendar=feed_links(state),
    )
