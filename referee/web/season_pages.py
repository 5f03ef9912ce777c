"""The season pages (issue 15), blueprint ``seasons``: creating a season, its
public standings, the host's page behind the season's host link and each
player's page behind their season link.

Every page is rendered from :func:`referee.seasons.views.season_view` (the one
gate of what a viewer may see); the episode's next step is read from the
service (:class:`referee.seasons.service.Seasons`). Every action is a CSRF-protected
POST, then a redirect (POST/redirect/GET); a refusal shows the page again with
every problem. Secret links are shown once, to the browser that made them, kept
in its signed session for an hour (:func:`referee.web.pages.kept_in_session`):
the season's links after creating it. The host page always links each match
made from the season to its host dashboard (issue 23: a host who lost the link
could never open the next round): those links are derived from the season
host link's digest (:func:`referee.seasons.links.derived_host_token`), like the
players' seat links from theirs. A player's new season link, which the host
asks for, is shown once by the answer to that POST alone (``no-store``), not kept.
"""

from __future__ import annotations

import hmac
import re
from datetime import timedelta
from typing import Any

from flask import (
    Blueprint,
    abort,
    current_app,
    flash,
    redirect,
    render_template,
    request,
    session,
    url_for,
)
from flask.typing import ResponseReturnValue
from werkzeug.datastructures import MultiDict

from forms.orders import choices
from forms.season import (
    MAX_ROSTER_ROWS,
    ROSTER_ROWS,
    DeathResultForm,
    EntryForm,
    LoserForm,
    MatchHostForm,
    NewSeasonForm,
    OpponentForm,
    ReissueForm,
    SeasonActionForm,
)
from referee.errors import Problem, RuleError
from referee.names import shown
from referee.ruleset import DEFAULT_RULESET, get_ruleset, ruleset_names
from referee.seasons.rules import main_match_players
from referee.seasons.state import SeasonState
from referee.seasons.views import player_names, season_view
from referee.web import referee, seasons
from referee.web.common import base_url, external_url, status_for
from referee.web.game import SetupRead, read_settings
from referee.web.pages import (
    clock_of,
    deadline_hours_of,
    form_problems,
    group_problems,
    keep_in_session,
    kept_in_session,
    now,
)
from referee.web.public.create import CreatePage

bp = Blueprint("seasons", __name__)

NOT_FOUND = "This link does not open anything here. Ask the season's host for your link."
LINKS_KEPT_FOR = timedelta(hours=1)
SEASON_KEY = "new_seasons"
# the whole session cookie is bounded by referee.web.pages.SESSION_BUDGET
# ---- reading ------------------------------------------------------------------


def _host_season(token: str) -> str:
    """The season of a host's season link; 404 (revealing nothing) otherwise."""
    found = seasons().find_token(token)
    if found is None or found[1] is not None:
        abort(404, description=NOT_FOUND)
    return found[0]


def _player_of(token: str) -> tuple[str, int]:
    found = seasons().find_token(token)
    if found is None or found[1] is None:
        abort(404, description=NOT_FOUND)
    return found[0], found[1]


def _state(season_id: str) -> SeasonState:
    try:
        return seasons().state(season_id)
    except RuleError:
        abort(404, description="There is no such season.")


def _games(players: int | None = None) -> list[tuple[str, str]]:
    """(name, title) of every registered game, those taking ``players`` when given."""
    out = []
    for name in ruleset_names():
        rules = get_ruleset(name)
        if players is None or rules.min_players <= players <= rules.max_players:
            out.append((name, rules.title))
    return out


def _int(text: str | None) -> object:
    """A whole number typed in a form, in ASCII digits (issue 22: ``²`` passes
    ``isdigit()`` and then fails ``int()``; an Arabic-Indic one, U+0661, is
    read by ``int()`` as 1), or what was typed (the service names it)."""
    text = (text or "").strip()
    if re.fullmatch(r"[+-]?[0-9]{1,9}", text):
        return int(text)
    return text


def _match_finished(match_id: str | None) -> bool:
    return match_id is not None and referee().state(match_id).match.finished


# ---- creating a season --------------------------------------------------------


def _rows() -> int:
    asked = _int(request.args.get("rows"))
    return min(max(asked, ROSTER_ROWS), MAX_ROSTER_ROWS) if isinstance(asked, int) else ROSTER_ROWS


def _new_field(p: Problem) -> str:
    if p.field in ("name", "token_bonus", "token_lasts", "admin_key"):
        return p.field
    if p.field == "rules":
        return "token_bonus"
    return ""


def _too_many_rows(sent: int, what: str) -> RuleError | None:
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


def _bad_roster_rows() -> RuleError | None:
    """The refusal of a posted roster the page cannot read, before any form is
    built: more than :data:`MAX_ROSTER_ROWS` rows, counted as the roster's
    FieldList would build them (its distinct ``players-N-`` numbers), or a row
    numbered in other than ASCII digits (which the FieldList would take for
    a number, then fail to read: a 500)."""
    numbers = set()
    for key in request.form:
        if key.startswith("players"):
            part = key[len("players-") :].split("-", 1)[0]
            if part.isdigit() and not part.isascii():
                return RuleError.single(
                    "season/bad_rows",
                    f"the form sent a row numbered {part[:10]!r}: the page's rows are "
                    "numbered 0, 1, 2... Nothing was created.",
                    "players",
                )
            if part.isdigit():
                numbers.add(int(part))
    return _too_many_rows(len(numbers), "roster rows")


@bp.route("/seasons/new", methods=["GET", "POST"])
def new() -> ResponseReturnValue:
    admin_key = current_app.config.get("ADMIN_KEY")
    bad_rows = _bad_roster_rows() if request.method == "POST" else None
    if bad_rows is not None:  # the page again with its normal rows, what else was typed kept
        rest = [(k, v) for k, v in request.form.items(multi=True) if not k.startswith("players")]
        form = NewSeasonForm(formdata=MultiDict(rest))
    else:
        form = NewSeasonForm()
    if request.method == "GET":
        while len(form.players.entries) < _rows():
            form.players.append_entry()

    def page(problems: list[Problem]) -> str:
        return render_template(
            "seasons/new.html",
            form=form,
            problems=problems,
            errors=group_problems(problems, _new_field),
            more_rows=min(len(form.players.entries) + 8, MAX_ROSTER_ROWS),
            need_admin_key=bool(admin_key),
        )

    if not form.is_submitted():
        return page([])
    if not form.validate():
        invalid = form_problems(form)
        return page(invalid), status_for(RuleError(invalid))
    # the key first, before any work; a wrong one counts as a failed attempt, as on
    # /new and the API (referee.web.ratelimit)
    if admin_key and not hmac.compare_digest(
        (form.admin_key.data or "").encode(), str(admin_key).encode()
    ):
        refusal = Problem(
            "auth/unauthorized",
            "creating seasons on this server needs its admin key",
            "admin_key",
        )
        return page([refusal]), 401
    if bad_rows is not None:
        return page(list(bad_rows.problems)), status_for(bad_rows)
    roster: list[dict[str, Any]] = []
    for entry in form.players.entries:
        name = entry.form.name.data or ""
        garnets = entry.form.garnets.data or ""
        email = entry.form.email.data or ""
        if not name and garnets in ("", "0") and not email:
            continue  # a blank row
        row: dict[str, Any] = {"name": name, "garnets": _int(garnets) if garnets else 0}
        if email:
            row["email"] = email
        roster.append(row)
    rules = {
        "token_bonus": _int(form.token_bonus.data or "0"),
        "token_lasts": form.token_lasts.data,
    }
    try:
        made = seasons().create_season(
            name=form.name.data or "", players=roster, rules=rules, signups=bool(form.signups.data)
        )
    except RuleError as exc:
        return page(list(exc.problems)), status_for(exc)
    entry = {
        "id": made.season_id,
        "at": now().timestamp(),
        "host": made.host_token,
        "players": [[n, t] for n, t in sorted(made.player_tokens.items())],
    }
    kept = keep_in_session(
        SEASON_KEY, entry, keep_for=LINKS_KEPT_FOR, most=1, replaces=lambda e: True
    )
    if not kept:  # too many for a cookie: shown once, by this answer
        return _links_page(entry, kept=False)
    return redirect(url_for("seasons.created", season_id=made.season_id), code=303)


@bp.get("/seasons/<season_id>/links")
def created(season_id: str) -> ResponseReturnValue:
    """A new season's secret links, to the browser that created it, for an hour."""
    entry = next(
        (e for e in kept_in_session(SEASON_KEY, LINKS_KEPT_FOR) if e.get("id") == season_id), None
    )
    if entry is None:
        abort(
            404,
            description="A new season's links are shown only to the browser that created it, "
            "for one hour after creating it.",
        )
    return _links_page(entry, kept=True)


def _links_page(entry: dict[str, Any], *, kept: bool) -> ResponseReturnValue:
    view = season_view(_state(entry["id"]), "host")
    names = {p["number"]: p["name"] for p in view["players"]}
    links = [
        {"number": n, "name": names[n], "url": external_url("seasons.player", token=t)}
        for n, t in entry["players"]
    ]
    left = max(1, int((LINKS_KEPT_FOR.total_seconds() - (now().timestamp() - entry["at"])) // 60))
    response = current_app.make_response(
        render_template(
            "seasons/created.html",
            view=view,
            kept=kept,
            minutes_left=left,
            host_url=external_url("seasons.host", token=entry["host"]),
            player_links=links,
            public_url=external_url("seasons.standings", season_id=entry["id"]),
        )
    )
    response.headers["Cache-Control"] = "no-store"  # it shows secret links
    return response


# ---- the public standings -----------------------------------------------------


@bp.get("/seasons/<season_id>")
def standings(season_id: str) -> ResponseReturnValue:
    view = season_view(_state(season_id), "public")
    return render_template("seasons/standings.html", view=view, names=player_names(view))


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
        if not _match_finished(e.main_match_id):
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
    if not _match_finished(e.death_match_id):
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


def _host_page(
    token: str,
    season_id: str,
    *,
    action: str | None = None,
    exc: RuleError | None = None,
    forms: dict[str, Any] | None = None,
) -> ResponseReturnValue:
    state = _state(season_id)
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
        match_form = _MatchForm(step["kind"], request.args.get("game"), remaining)
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


def _done(token: str, message: str) -> ResponseReturnValue:
    flash(message, "notice")
    return redirect(url_for("seasons.host", token=token), code=303)


def _checked(form: Any) -> None:
    if not form.validate():
        raise RuleError(form_problems(form))


class _MatchForm:
    """The season host page's Main or Death Match form for one game (issue 23):
    the game's own create form (its set-up fields and settings, the deadline,
    "close early" and "open each round by itself", as on /new) without the
    players, who come from the season, and, for a Main Match, which players
    still in play (ticked: every one, unless the game takes fewer)."""

    def __init__(
        self,
        kind: str,
        game: str | None,
        remaining: list[int],
        *,
        formdata: bool = False,
    ) -> None:
        self.kind = kind
        self.games = _games(2 if kind == "death" else None)
        offered = [name for name, _ in self.games]
        if game not in offered:  # the default: a game that takes every player still in
            fits = [n for n, _ in _games(len(remaining))] if kind == "main" else offered
            game = next((n for n in (DEFAULT_RULESET, *fits) if n in fits), offered[0])
        assert game is not None
        self.page = CreatePage(get_ruleset(game))
        self.rules = self.page.rules
        self.web = self.page.web
        self.form = self.page.form_class() if formdata else self.page.form_class(formdata=None)
        self.form.game.data = self.rules.name
        self.remaining = remaining
        if kind == "main":
            self.ticked, self.left_out = main_match_players(remaining, self.rules.max_players)
        else:
            self.ticked, self.left_out = list(remaining), []
        self.report: Any = None
        self.checked = False

    def tick(self, sent: list[int]) -> None:
        """The players the host ticked (a refused form shows them again)."""
        self.ticked = [p for p in self.remaining if p in sent]
        self.left_out = [p for p in self.remaining if p not in sent]

    def errors(self, problems: list[Problem]) -> dict[str, list[str]]:
        return group_problems(
            problems, lambda p: "players" if p.field == "players" else self.page.field_of(p)
        )

    def parts(self) -> tuple[dict[str, Any], list[Problem]]:
        """The game, set-up and settings of the match to make, and the problems
        of reading them from the form (the service checks the rest)."""
        form = self.form
        read: SetupRead = self.web.read_setup(form)
        settings: dict[str, Any] = {
            "deadline_hours": deadline_hours_of(form.deadline_hours.data, form.deadline_unit.data),
            "close_early": bool(form.close_early.data),
            "auto_open": bool(form.auto_open.data),
            "clock": clock_of(form.clock.data, form.clock_bank.data, form.clock_add.data),
        }
        game_settings, unread = read_settings(self.rules, form)
        settings.update(game_settings)
        problems = list(read.problems) + [p for bad in unread.values() for p in bad]
        return {"game": self.rules.name, "setup": read.body, "settings": settings}, problems

    def check_only(self) -> list[Problem] | None:
        """The set-up's "check only" button (a game with a check action): its problems,
        the report kept for the page; None when the host asked to create."""
        action = self.web.check_action
        if action is None or not self.form[action].data:
            return None
        read = self.web.read_setup(self.form)
        if read.problems:
            return list(read.problems)
        self.report, problems = self.web.setup_report(read.body)
        self.checked = not problems
        return problems


def _make_season_match(token: str, season_id: str, kind: str) -> ResponseReturnValue:
    """The Main Match (``kind`` "main") or Death Match form posted."""
    state = _state(season_id)
    game = request.form.get("game") or ""
    match_form = _MatchForm(kind, game, state.remaining(), formdata=True)
    action = kind
    sent: list[str] = request.form.getlist("players") if kind == "main" else []
    if kind == "main":
        match_form.tick([n for n in (_int(p) for p in sent) if isinstance(n, int)])
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
            return _host_page(token, season_id, action=action, forms={"match": match_form})
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
            number = _open_episode(season_id)
            seasons().create_death_match(season_id, number, base_url=base_url(), **parts)
            what = f"Episode {number}'s Death Match"
    except RuleError as exc:
        return _host_page(token, season_id, action=action, exc=exc, forms={"match": match_form})
    return _done(
        token,
        f"{what} is created: open its host dashboard from “Matches of this season” below "
        "(this page always links it).",
    )


@bp.get("/season-host/<token>")
def host(token: str) -> ResponseReturnValue:
    return _host_page(token, _host_season(token))


@bp.post("/season-host/<token>/entry")
def add_entry(token: str) -> ResponseReturnValue:
    season_id = _host_season(token)
    form = EntryForm()
    try:
        _checked(form)
        corrects = _int(form.corrects.data) if form.corrects.data else None
        if corrects is not None and not isinstance(corrects, int):
            raise RuleError.single(
                "ledger/bad_correction",
                f"'corrects entry #' is the number of an entry, not '{form.corrects.data}'",
                "corrects",
            )
        entry = seasons().add_entry(
            season_id,
            player=_int(form.player.data),
            change=_int(form.change.data),
            reason=form.reason.data or "",
            corrects=corrects,
        )
    except RuleError as exc:
        return _host_page(token, season_id, action="entry", exc=exc, forms={"entry": form})
    return _done(token, f"Entry #{entry.id} is in the ledger.")


@bp.post("/season-host/<token>/main")
def main_match(token: str) -> ResponseReturnValue:
    season_id = _host_season(token)
    too_many = _too_many_rows(len(request.form.getlist("players")), "chosen players")
    if too_many is not None:  # before the form is built
        return _host_page(token, season_id, action="main", exc=too_many)
    return _make_season_match(token, season_id, "main")


def _player_numbers(sent: list[str]) -> list[int]:
    """The players chosen on the Main Match form, each a number in ASCII digits."""
    numbers = [_int(p) for p in sent]
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
    season_id = _host_season(token)
    try:
        _checked(SeasonActionForm())
        outcome = seasons().record_main(season_id, _open_episode(season_id))
    except RuleError as exc:
        return _host_page(token, season_id, action="record", exc=exc)
    return _done(
        token,
        f"Episode {outcome.episode}'s outcome is recorded: the Elimination Candidate chooses "
        "an opponent from their season page.",
    )


def _open_episode(season_id: str) -> int:
    state = _state(season_id)
    if not state.episodes:
        raise RuleError.single("season/unknown_episode", "no episode has begun")
    return state.episodes[-1].number


@bp.post("/season-host/<token>/death")
def death_match(token: str) -> ResponseReturnValue:
    return _make_season_match(token, _host_season(token), "death")


@bp.post("/season-host/<token>/result")
def enter_result(token: str) -> ResponseReturnValue:
    season_id = _host_season(token)
    form = LoserForm()
    form.loser.choices = choices([(request.form.get("loser", ""), "")])
    try:
        _checked(form)
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
        episode = _open_episode(season_id)
        loser = seasons().record_death(season_id, episode, loser=_int(form.loser.data))
    except RuleError as exc:
        return _host_page(token, season_id, action="result", exc=exc, forms={"loser": form})
    name = _state(season_id).player(loser).name
    return _done(token, f"{name} lost the Death Match and is eliminated.")


@bp.post("/season-host/<token>/death-result")
def record_death(token: str) -> ResponseReturnValue:
    season_id = _host_season(token)
    form = DeathResultForm()
    try:
        _checked(form)
        if not form.sure.data:
            raise RuleError.single(
                "form/not_confirmed",
                "Recording the result cannot be undone: tick “I am sure” beside the "
                "button to confirm. Nothing was done.",
                "sure",
            )
        loser = seasons().record_death(season_id, _open_episode(season_id))
    except RuleError as exc:
        return _host_page(
            token, season_id, action="record_death", exc=exc, forms={"death_result": form}
        )
    name = _state(season_id).player(loser).name
    return _done(token, f"{name} lost the Death Match and is eliminated.")


@bp.post("/season-host/<token>/match-host")
def reissue_match_host(token: str) -> ResponseReturnValue:
    """A season match's new host link (derived again, so this page keeps
    linking it): whoever holds the old one can no longer open or close rounds."""
    season_id = _host_season(token)
    form = MatchHostForm()
    try:
        _checked(form)
        if not form.sure.data:
            raise RuleError.single(
                "form/not_confirmed",
                "A new host link cannot be undone: the match's old host link stops working. "
                "Tick “I am sure” beside the button to confirm. Nothing was done.",
                "sure",
            )
        made = seasons().reissue_match_host(season_id, form.match.data or "")
    except RuleError as exc:
        return _host_page(
            token, season_id, action="match_host", exc=exc, forms={"match_host": form}
        )
    kind = "Main Match" if made.kind == "main" else "Death Match"
    return _done(
        token,
        f"Episode {made.episode}'s {kind} has a new host link (below); its old one stops working.",
    )


@bp.post("/season-host/<token>/link")
def reissue_link(token: str) -> ResponseReturnValue:
    """A player's new season link, shown once by this answer itself (not kept in
    the session): the old link, and the match links it gave, stop working."""
    season_id = _host_season(token)
    form = ReissueForm()
    try:
        _checked(form)
        if not form.sure.data:
            raise RuleError.single(
                "form/not_confirmed",
                "A new link cannot be undone: the player's old season link and the match "
                "links it gave stop working. Tick “I am sure” beside the button to "
                "confirm. Nothing was done.",
                "sure",
            )
        made = seasons().reissue_link(season_id, _int(form.player.data))
    except RuleError as exc:
        if "season/unknown_player" in exc.codes:
            exc = RuleError.single(
                "season/unknown_player", "choose a player of the season", "player"
            )
        return _host_page(token, season_id, action="link", exc=exc, forms={"link": form})
    state = _state(season_id)
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


# ---- a player's page ----------------------------------------------------------


def _player_page(
    token: str, season_id: str, number: int, *, exc: RuleError | None = None
) -> ResponseReturnValue:
    state = _state(season_id)
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
    season_id, number = _player_of(token)
    return _player_page(token, season_id, number)


@bp.post("/season/<token>/opponent")
def choose(token: str) -> ResponseReturnValue:
    season_id, number = _player_of(token)
    form = OpponentForm()
    form.opponent.choices = choices([(request.form.get("opponent", ""), "")])
    try:
        _checked(form)
        if not form.opponent.data:
            raise RuleError.single("season/bad_opponent", "choose your opponent", "opponent")
        episode = _open_episode(season_id)
        opponent = _int(form.opponent.data)
        seasons().choose_opponent(season_id, episode, chooser=number, opponent=opponent)
    except RuleError as exc:
        return _player_page(token, season_id, number, exc=exc)
    assert isinstance(opponent, int)  # the service took it
    name = _state(season_id).player(opponent).name
    flash(f"You chose {name} as your opponent in the Death Match.", "notice")
    return redirect(url_for("seasons.player", token=token), code=303)


@bp.post("/season/<token>/token")
def spend_token(token: str) -> ResponseReturnValue:
    season_id, number = _player_of(token)
    try:
        _checked(SeasonActionForm())
        seasons().use_token(season_id, _open_episode(season_id), player=number)
    except RuleError as exc:
        return _player_page(token, season_id, number, exc=exc)
    flash("You spent a Token of Life: no Death Match for you this episode.", "notice")
    return redirect(url_for("seasons.player", token=token), code=303)
