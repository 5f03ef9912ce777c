"""The season host page's Main or Death Match form (issue 23): a game's own
create form, without the players, who come from the season.
"""

from __future__ import annotations

from typing import Any

from referee.errors import Problem
from referee.ruleset import DEFAULT_RULESET, get_ruleset
from referee.seasons.rules import main_match_players
from referee.web.game import SetupRead, read_settings
from referee.web.pages import clock_of, deadline_hours_of, group_problems
from referee.web.public.create import CreatePage
from referee.web.season_pages.common import games


class MatchForm:
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
        self.games = games(2 if kind == "death" else None)
        offered = [name for name, _ in self.games]
        if game not in offered:  # the default: a game that takes every player still in
            fits = [n for n, _ in games(len(remaining))] if kind == "main" else offered
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
