"""A player's page behind their season link (``/season/<token>``): their
matches, the Death Match coming for them, choosing an opponent and spending a
Token of Life.
"""

from __future__ import annotations

from typing import Any

from flask import flash, redirect, render_template, request, url_for
from flask.typing import ResponseReturnValue

from forms.orders import choices
from forms.season import OpponentForm, SeasonActionForm
from referee.errors import RuleError
from referee.seasons.views import player_names, season_view
from referee.web import seasons
from referee.web.common import external_url, status_for
from referee.web.pages import group_problems
from referee.web.season_pages.common import (
    bp,
    check_form,
    open_episode,
    player_of,
    read_int,
    season_state,
)

# ---- a player's page ----------------------------------------------------------


def _player_page(
    token: str, season_id: str, number: int, *, exc: RuleError | None = None
) -> ResponseReturnValue:
    state = season_state(season_id)
    view = season_view(state, "player", number)
    names = player_names(view)
    links = seasons().match_links(season_id, number)
    choice: dict[str, Any] | None = None
    e = state.episodes[-1] if state.episodes else None
    if (
        e is not None
        and e.recorded_at is not None
        and not state.done(e)
        and e.candidate == number
        and e.opponent is None
    ):
        allowed = set(seasons().opponents(season_id, e.number))
        held = state.tokens(e.number)
        rows = []
        for p in state.players:
            why: str | None
            if p.number == number:
                why = "you"
            elif p.eliminated_in is not None:
                why = "eliminated"
            elif p.number in held:
                why = "holds a Token of Life"
            else:
                why = None if p.number in allowed else "may not be chosen"
            rows.append({"number": p.number, "name": p.name, "why": why})
        choice = {
            "episode": e.number,
            "rows": rows,
            "can_spend": state.season.rules.get("token_lasts") == "until_used"
            and held.get(number, 0) > 0,
        }
    # the Death Match coming for this player (issue 23: the opponent chosen
    # learned it from nowhere): who chose whom, and its link once made
    death: dict[str, Any] | None = None
    if (
        e is not None
        and e.opponent is not None
        and e.loser is None
        and number in (e.candidate, e.opponent)
    ):
        death = {
            "episode": e.number,
            "chosen": e.opponent == number,
            "candidate": e.candidate,
            "opponent": e.opponent,
            "link": next(
                (x for x in links if x["kind"] == "death" and x["episode"] == e.number), None
            ),
        }
    problems = list(exc.problems) if exc is not None else []
    return render_template(
        "seasons/player.html",
        death=death,
        token=token,
        view=view,
        names=names,
        me=view["me"],
        mine=next(p for p in view["players"] if p["number"] == number),
        links=links,
        choice=choice,
        problems=problems,
        errors=group_problems(problems, lambda p: p.field or ""),
        opponent_form=OpponentForm(formdata=None),
        action_form=SeasonActionForm(formdata=None),
        public_url=external_url("seasons.standings", season_id=season_id),
    ), status_for(exc) if exc is not None else 200


@bp.get("/season/<token>")
def player(token: str) -> ResponseReturnValue:
    season_id, number = player_of(token)
    return _player_page(token, season_id, number)


@bp.post("/season/<token>/opponent")
def choose(token: str) -> ResponseReturnValue:
    season_id, number = player_of(token)
    form = OpponentForm()
    form.opponent.choices = choices([(request.form.get("opponent", ""), "")])
    try:
        check_form(form)
        if not form.opponent.data:
            raise RuleError.single("season/bad_opponent", "choose your opponent", "opponent")
        episode = open_episode(season_id)
        opponent = read_int(form.opponent.data)
        seasons().choose_opponent(season_id, episode, chooser=number, opponent=opponent)
    except RuleError as exc:
        return _player_page(token, season_id, number, exc=exc)
    assert isinstance(opponent, int)  # the service took it
    name = season_state(season_id).player(opponent).name
    flash(f"You chose {name} as your opponent in the Death Match.", "notice")
    return redirect(url_for("seasons.player", token=token), code=303)


@bp.post("/season/<token>/token")
def spend_token(token: str) -> ResponseReturnValue:
    season_id, number = player_of(token)
    try:
        check_form(SeasonActionForm())
        seasons().use_token(season_id, open_episode(season_id), player=number)
    except RuleError as exc:
        return _player_page(token, season_id, number, exc=exc)
    flash("You spent a Token of Life: no Death Match for you this episode.", "notice")
    return redirect(url_for("seasons.player", token=token), code=303)
