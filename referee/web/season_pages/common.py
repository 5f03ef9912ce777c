"""What the season pages share: the blueprint ``seasons`` (every route module
of :mod:`referee.web.season_pages` adds its routes to it), its constants, and
the helpers that read a season link, a season and a posted form, refuse a
post of too many rows, and answer a host's step.
"""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Any

from flask import Blueprint, abort, flash, redirect, url_for
from flask.typing import ResponseReturnValue

from forms.season import MAX_ROSTER_ROWS
from referee.errors import RuleError
from referee.ruleset import get_ruleset, ruleset_names
from referee.seasons.state import SeasonState
from referee.web import referee, seasons
from referee.web.pages import form_problems

bp = Blueprint("seasons", __name__)

NOT_FOUND = "This link does not open anything here. Ask the season's host for your link."
LINKS_KEPT_FOR = timedelta(hours=1)
SEASON_KEY = "new_seasons"
# the whole session cookie is bounded by referee.web.pages.SESSION_BUDGET
# ---- reading ------------------------------------------------------------------


def host_season(token: str) -> str:
    """The season of a host's season link; 404 (revealing nothing) otherwise."""
    found = seasons().find_token(token)
    if found is None or found[1] is not None:
        abort(404, description=NOT_FOUND)
    return found[0]


def player_of(token: str) -> tuple[str, int]:
    found = seasons().find_token(token)
    if found is None or found[1] is None:
        abort(404, description=NOT_FOUND)
    return found[0], found[1]


def season_state(season_id: str) -> SeasonState:
    try:
        return seasons().state(season_id)
    except RuleError:
        abort(404, description="There is no such season.")


def games(players: int | None = None) -> list[tuple[str, str]]:
    """(name, title) of every registered game, those taking ``players`` when given."""
    out = []
    for name in ruleset_names():
        rules = get_ruleset(name)
        if players is None or rules.min_players <= players <= rules.max_players:
            out.append((name, rules.title))
    return out


def read_int(text: str | None) -> object:
    """A whole number typed in a form, in ASCII digits (issue 22: ``²`` passes
    ``isdigit()`` and then fails ``int()``; an Arabic-Indic one, U+0661, is
    read by ``int()`` as 1), or what was typed (the service names it)."""
    text = (text or "").strip()
    if re.fullmatch(r"[+-]?[0-9]{1,9}", text):
        return int(text)
    return text


def match_finished(match_id: str | None) -> bool:
    return match_id is not None and referee().state(match_id).match.finished


# ---- shared by the forms -----------------------------------------------------


def too_many_rows(sent: int, what: str) -> RuleError | None:
    """The refusal of a post of more than :data:`MAX_ROSTER_ROWS` ``what``
    (issue 22: 20,000 rows built 20,000 form rows and a 12.7 MB page)."""
    if sent <= MAX_ROSTER_ROWS:
        return None
    return RuleError.single(
        "season/too_many_rows",
        f"a season has at most {MAX_ROSTER_ROWS} players, so at most {MAX_ROSTER_ROWS} "
        f"{what} can be sent; this form sent {sent}. Nothing was created.",
        "players",
    )


def done(token: str, message: str) -> ResponseReturnValue:
    flash(message, "notice")
    return redirect(url_for("seasons.host", token=token), code=303)


def check_form(form: Any) -> None:
    if not form.validate():
        raise RuleError(form_problems(form))


def open_episode(season_id: str) -> int:
    state = season_state(season_id)
    if not state.episodes:
        raise RuleError.single("season/unknown_episode", "no episode has begun")
    return state.episodes[-1].number
