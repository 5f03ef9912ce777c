"""The host's page behind the season host link (``/season-host/<token>``):
the episode's next step, the ledger, the Main and Death Matches, their
results, and new links for a match's host or a player.
"""

from __future__ import annotations

from typing import Any

from flask import render_template, request, session, url_for
from flask.typing import ResponseReturnValue

from forms.orders import choices
from forms.season import (
    DeathResultForm,
    EntryForm,
    LoserForm,
    MatchHostForm,
    ReissueForm,
    SeasonActionForm,
)
from referee.errors import Problem, RuleError
from referee.names import shown
from referee.seasons.state import SeasonState
from referee.seasons.views import player_names, season_view
from referee.web import seasons
from referee.web.common import base_url, external_url, status_for
from referee.web.pages import form_problems, group_problems
from referee.web.season_pages.common import (
    bp,
    check_form,
    done,
    host_season,
    match_finished,
    open_episode,
    read_int,
    season_state,
    too_many_rows,
)
from referee.web.season_pages.match_form import MatchForm

# ---- the host's page ----------------------------------------------------------


def _next_step(state: SeasonState) -> dict[str, Any]:
    """What the episode waits for, and what the host page offers for it."""
    svc = seasons()
    if not state.episodes or state.done(state.episodes[-1]):
        remaining = state.remaining()
        if len(remaining) < 2 and state.episodes:  # before any: players may still join
            return {"kind": "season_over", "remaining": remaining}
        return {"kind": "main", "number": len(state.episodes) + 1, "remaining": remaining}
    e = state.episodes[-1]
    if e.recorded_at is None:
        if not match_finished(e.main_match_id):
            return {"kind": "main_running", "episode": e.number, "match_id": e.main_match_id}
        try:
            outcome = svc.main_outcome(state.season.id, e.number)
        except RuleError as exc:
            return {"kind": "no_outcome", "episode": e.number, "problems": exc.problems}
        return {"kind": "record_main", "episode": e.number, "outcome": outcome}
    step: dict[str, Any] = {"episode": e.number, "candidate": e.candidate, "opponent": e.opponent}
    if e.opponent is None:
        step.update(kind="choice", opponents=svc.opponents(state.season.id, e.number))
        return step
    if e.death_match_id is None:
        step.update(kind="death")
        return step
    if not match_finished(e.death_match_id):
        step.update(kind="death_running", match_id=e.death_match_id)
        return step
    step.update(kind="record_death", match_id=e.death_match_id)
    try:
        loser = svc.death_loser(state.season.id, e.number)
    except RuleError as exc:
        step.update(kind="no_outcome", problems=exc.problems)
        return step
    step.update(loser=loser, winner=e.opponent if loser == e.candidate else e.candidate)
    return step


def host_page(
    token: str,
    season_id: str,
    *,
    action: str | None = None,
    exc: RuleError | None = None,
    forms: dict[str, Any] | None = None,
) -> ResponseReturnValue:
    state = season_state(season_id)
    view = season_view(state, "host")
    names = player_names(view)
    forms = forms or {}
    step = _next_step(state)
    matches = seasons().host_links(season_id)
    session.pop("season_matches", None)  # kept there before issue 23: derived now
    remaining = state.remaining()
    entry_form = forms.get("entry") or EntryForm(formdata=None)
    entry_form.player.choices = choices((str(n), f"{n}: {name}") for n, name in names.items())
    match_form = forms.get("match")
    if match_form is None and step["kind"] in ("main", "death"):
        match_form = MatchForm(step["kind"], request.args.get("game"), remaining)
    loser_form = forms.get("loser") or LoserForm(formdata=None)
    if step.get("candidate") and step.get("opponent"):
        pair = (step["candidate"], step["opponent"])
        loser_form.loser.choices = choices(
            (str(lost), f"{names[won]} won, {names[lost]} lost and is eliminated")
            for won, lost in (pair, pair[::-1])
        )
    reissue_form = forms.get("link") or ReissueForm(formdata=None)
    reissue_form.player.choices = entry_form.player.choices
    problems = list(exc.problems) if exc is not None else []
    return render_template(
        "seasons/host.html",
        token=token,
        view=view,
        names=names,
        step=step,
        problems=problems,
        action=action,
        errors=group_problems(problems, lambda p: p.field or ""),
        entry_form=entry_form,
        match_form=match_form,
        game=match_form.web if match_form is not None else None,  # its style sheets and scripts
        rules=match_form.rules if match_form is not None else None,  # its set-up fields' context
        match_errors=match_form.errors(problems)
        if match_form is not None and action in ("main", "death")
        else {},
        loser_form=loser_form,
        reissue_form=reissue_form,
        action_form=SeasonActionForm(formdata=None),
        death_result_form=forms.get("death_result") or DeathResultForm(formdata=None),
        matches=matches,
        host_paths={x.match_id: x.path for x in matches if x.path},
        match_host_form=forms.get("match_host") or MatchHostForm(formdata=None),
        public_url=external_url("seasons.standings", season_id=season_id),
    ), status_for(exc) if exc is not None else 200


def _make_season_match(token: str, season_id: str, kind: str) -> ResponseReturnValue:
    """The Main Match (``kind`` "main") or Death Match form posted."""
    state = season_state(season_id)
    game = request.form.get("game") or ""
    match_form = MatchForm(kind, game, state.remaining(), formdata=True)
    action = kind
    sent: list[str] = request.form.getlist("players") if kind == "main" else []
    if kind == "main":
        match_form.tick([n for n in (read_int(p) for p in sent) if isinstance(n, int)])
    try:
        if game != match_form.rules.name:  # not one of the form's games: made of no other
            offered = ", ".join(title for _, title in match_form.games)
            raise RuleError.single(
                "season/bad_game",
                f"choose one of the games offered ({offered}), not {shown(game[:40])}",
                "game",
            )
        if not match_form.form.validate():
            raise RuleError(form_problems(match_form.form))
        checked = match_form.check_only()
        if checked is not None:
            if checked:
                raise RuleError(checked)
            return host_page(token, season_id, action=action, forms={"match": match_form})
        parts, unread = match_form.parts()
        if unread:
            raise RuleError(unread)
        if kind == "main":
            chosen = _player_numbers(sent)
            rules = match_form.rules
            ticked = [p for p in state.remaining() if p in chosen]
            if len(ticked) > rules.max_players:
                names = [state.player(p).name for p in ticked[rules.max_players :]]
                raise RuleError.single(
                    "season/bad_players",
                    f"{rules.title} takes at most {rules.max_players} players and "
                    f"{len(ticked)} are ticked: untick {len(ticked) - rules.max_players} "
                    f"(for example {', '.join(names)})",
                    "players",
                )
            number, _ = seasons().create_main_match(
                season_id, players=chosen, base_url=base_url(), **parts
            )
            what = f"Episode {number}'s Main Match"
        else:
            number = open_episode(season_id)
            seasons().create_death_match(season_id, number, base_url=base_url(), **parts)
            what = f"Episode {number}'s Death Match"
    except RuleError as exc:
        return host_page(token, season_id, action=action, exc=exc, forms={"match": match_form})
    return done(
        token,
        f"{what} is created: open its host dashboard from “Matches of this season” below "
        "(this page always links it).",
    )


@bp.get("/season-host/<token>")
def host(token: str) -> ResponseReturnValue:
    return host_page(token, host_season(token))


@bp.post("/season-host/<token>/entry")
def add_entry(token: str) -> ResponseReturnValue:
    season_id = host_season(token)
    form = EntryForm()
    try:
        check_form(form)
        corrects = read_int(form.corrects.data) if form.corrects.data else None
        if corrects is not None and not isinstance(corrects, int):
            raise RuleError.single(
                "ledger/bad_correction",
                f"'corrects entry #' is the number of an entry, not '{form.corrects.data}'",
                "corrects",
            )
        entry = seasons().add_entry(
            season_id,
            player=read_int(form.player.data),
            change=read_int(form.change.data),
            reason=form.reason.data or "",
            corrects=corrects,
        )
    except RuleError as exc:
        return host_page(token, season_id, action="entry", exc=exc, forms={"entry": form})
    return done(token, f"Entry #{entry.id} is in the ledger.")


@bp.post("/season-host/<token>/main")
def main_match(token: str) -> ResponseReturnValue:
    season_id = host_season(token)
    too_many = too_many_rows(len(request.form.getlist("players")), "chosen players")
    if too_many is not None:  # before the form is built
        return host_page(token, season_id, action="main", exc=too_many)
    return _make_season_match(token, season_id, "main")


def _player_numbers(sent: list[str]) -> list[int]:
    """The players chosen on the Main Match form, each a number in ASCII digits."""
    numbers = [read_int(p) for p in sent]
    bad = [p for p, n in zip(sent, numbers, strict=True) if not isinstance(n, int)]
    if bad:
        raise RuleError.single(
            "season/bad_players",
            f"{bad[0][:20]!r} is not a player number: choose the players from the list",
            "players",
        )
    return [n for n in numbers if isinstance(n, int)]


@bp.post("/season-host/<token>/record")
def record_main(token: str) -> ResponseReturnValue:
    season_id = host_season(token)
    try:
        check_form(SeasonActionForm())
        outcome = seasons().record_main(season_id, open_episode(season_id))
    except RuleError as exc:
        return host_page(token, season_id, action="record", exc=exc)
    return done(
        token,
        f"Episode {outcome.episode}'s outcome is recorded: the Elimination Candidate chooses "
        "an opponent from their season page.",
    )


@bp.post("/season-host/<token>/death")
def death_match(token: str) -> ResponseReturnValue:
    return _make_season_match(token, host_season(token), "death")


@bp.post("/season-host/<token>/result")
def enter_result(token: str) -> ResponseReturnValue:
    season_id = host_season(token)
    form = LoserForm()
    form.loser.choices = choices([(request.form.get("loser", ""), "")])
    try:
        check_form(form)
        problems: list[Problem] = []
        if not form.loser.data:
            problems.append(Problem("season/bad_loser", "choose who lost", "loser"))
        if not form.sure.data:
            problems.append(
                Problem(
                    "form/not_confirmed",
                    "Entering the result cannot be undone: tick “I am sure” beside the "
                    "button to confirm. Nothing was done.",
                    "sure",
                )
            )
        if problems:
            raise RuleError(problems)
        episode = open_episode(season_id)
        loser = seasons().record_death(season_id, episode, loser=read_int(form.loser.data))
    except RuleError as exc:
        return host_page(token, season_id, action="result", exc=exc, forms={"loser": form})
    name = season_state(season_id).player(loser).name
    return done(token, f"{name} lost the Death Match and is eliminated.")


@bp.post("/season-host/<token>/death-result")
def record_death(token: str) -> ResponseReturnValue:
    season_id = host_season(token)
    form = DeathResultForm()
    try:
        check_form(form)
        if not form.sure.data:
            raise RuleError.single(
                "form/not_confirmed",
                "Recording the result cannot be undone: tick “I am sure” beside the "
                "button to confirm. Nothing was done.",
                "sure",
            )
        loser = seasons().record_death(season_id, open_episode(season_id))
    except RuleError as exc:
        return host_page(
            token, season_id, action="record_death", exc=exc, forms={"death_result": form}
        )
    name = season_state(season_id).player(loser).name
    return done(token, f"{name} lost the Death Match and is eliminated.")


@bp.post("/season-host/<token>/match-host")
def reissue_match_host(token: str) -> ResponseReturnValue:
    """A season match's new host link (derived again, so this page keeps
    linking it): whoever holds the old one can no longer open or close rounds."""
    season_id = host_season(token)
    form = MatchHostForm()
    try:
        check_form(form)
        if not form.sure.data:
            raise RuleError.single(
                "form/not_confirmed",
                "A new host link cannot be undone: the match's old host link stops working. "
                "Tick “I am sure” beside the button to confirm. Nothing was done.",
                "sure",
            )
        made = seasons().reissue_match_host(season_id, form.match.data or "")
    except RuleError as exc:
        return host_page(token, season_id, action="match_host", exc=exc, forms={"match_host": form})
    kind = "Main Match" if made.kind == "main" else "Death Match"
    return done(
        token,
        f"Episode {made.episode}'s {kind} has a new host link (below); its old one stops working.",
    )


@bp.post("/season-host/<token>/link")
def reissue_link(token: str) -> ResponseReturnValue:
    """A player's new season link, shown once by this answer itself (not kept in
    the session): the old link, and the match links it gave, stop working."""
    season_id = host_season(token)
    form = ReissueForm()
    try:
        check_form(form)
        if not form.sure.data:
            raise RuleError.single(
                "form/not_confirmed",
                "A new link cannot be undone: the player's old season link and the match "
                "links it gave stop working. Tick “I am sure” beside the button to "
                "confirm. Nothing was done.",
                "sure",
            )
        made = seasons().reissue_link(season_id, read_int(form.player.data))
    except RuleError as exc:
        if "season/unknown_player" in exc.codes:
            exc = RuleError.single(
                "season/unknown_player", "choose a player of the season", "player"
            )
        return host_page(token, season_id, action="link", exc=exc, forms={"link": form})
    state = season_state(season_id)
    # kept by no cache: the app's one rule for every /season-host/ answer (referee.web)
    return render_template(
        "seasons/reissued.html",
        view=season_view(state, "host"),
        name=state.player(made.player).name,
        number=made.player,
        url=external_url("seasons.player", token=made.token),
        moved=len(made.moved),
        left=len(made.left),
        host_url=url_for("seasons.host", token=token),
    )
