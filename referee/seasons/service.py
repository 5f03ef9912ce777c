"""Seasons (issue 15): the elimination game around the matches. The service
layer of a season, like :class:`referee.service.Referee` for a match: every
change in one transaction, the season row locked first.

A season has a roster (each player with a private link for the whole season),
a **garnet ledger** (append-only: a balance is the sum of a player's entries; a
mistake is put right by a new entry that names the one it corrects) and
**episodes**: a Main Match of any game for the remaining players (or a subset
the game takes), whose Token of Life and Elimination Candidate are recorded
once it has ended, then a Death Match between the Elimination Candidate and an
opponent they choose, whose loser is eliminated.

Decisions (where the issue leaves a choice):

- **Garnets into a match**: each seat's garnets are the player's balance when
  the match is created (a negative balance is refused by the game, which
  needs 0 or more). Matches never change garnets; the season's rules do, when
  an outcome is recorded (entries by the referee).
- **Season rules** (:func:`check_rules`): ``token_bonus`` (garnets the Token of
  Life's holder gets when a Main Match's outcome is recorded; default 0) and
  ``token_lasts``: ``"episode"`` (default: a Token of Life protects its holder
  from being chosen as the opponent in that episode's Death Match) or
  ``"until_used"`` (it protects in every later episode too, until its holder,
  become an Elimination Candidate, spends it to skip that episode's Death
  Match; a player may hold several). If every other player still in holds a
  token and the candidate has none to spend, no one can be chosen: the episode
  ends with no Death Match (``loser_by`` ``"nobody"``), and no one is
  eliminated. :meth:`Seasons.main_outcome` shows what
  the rules will do before :meth:`Seasons.record_main` does it.
- **Links**: a season player's link opens their season page. The seat links of
  the matches made from the season are not random but derived (HMAC with the
  server's secret key) from the player's season link digest and the match, so
  the season page can link each of its player's matches without any link
  being stored; a database alone gives none of them. If a match's host
  re-issues a seat's link, the season page can no longer open that seat (it
  says so) until the player has the new link. The host can give a player a
  new season link (:meth:`Seasons.reissue_link`): the seat links derived from
  the old one are derived again from the new one.
- **Matches first, then the season**: a match is created in its own
  transaction, then recorded in the season's; a season step refused after the
  match was made (two hosts racing) leaves that match unused.
- **Re-checked under the lock** (issue 22): a step that reads the season, then
  works (makes a match, reads a match's outcome), then writes, checks again
  with the season locked that what it acts on is unchanged (the Death Match's
  candidate and opponent, an entered loser still one of them and no Death
  Match made here meanwhile, the Main Match's players still in and its episode
  number, the Main Match recorded from the match and seats it was read from);
  otherwise it is refused with ``season/changed`` and records nothing.
"""

from __future__ import annotations

import secrets
from typing import Any

from referee.errors import Problem, RuleError
from referee.models import LedgerEntry, Season, SeasonPlayer
from referee.names import name_fault
from referee.seasons.episodes import EpisodeSteps
from referee.seasons.links import LinkSteps, signup_token
from referee.seasons.rules import (
    MAX_CHANGE,
    MAX_PLAYERS,
    check_rules,
    look_alike_problems,
    roster_entry,
)
from referee.seasons.state import CreatedSeason
from referee.service import new_token, token_hash
from referee.text import check_text


class Seasons(EpisodeSteps, LinkSteps):
    """Every change of every season goes through here: the season's creation
    and its ledger here, its links' steps (:class:`referee.seasons.links.LinkSteps`)
    and its episodes' (:class:`referee.seasons.episodes.EpisodeSteps`)."""

    # ---- creating -----------------------------------------------------------------

    def create_season(
        self, *, name: object, players: object, rules: object = None, signups: object = False
    ) -> CreatedSeason:
        """A season: ``players`` is a list of ``{"name", "email"?, "garnets"?}``
        (starting garnets become the first ledger entries). With ``signups``
        (issue 23, item 7: :mod:`referee.seasons.signups`) its sign-up link is open from
        the start, and the roster may have fewer than 2 players, even none."""
        if type(signups) is not bool:
            raise RuleError.single(
                "season/bad_signups", f"'signups' is true or false, not {signups!r}", "signups"
            )
        check_text({"name": name, "players": players}, "the season")
        problems: list[Problem] = []
        if not isinstance(name, str) or not name.strip() or len(name) > 200:
            problems.append(
                Problem("season/bad_name", "the season needs a name of 1 to 200 characters", "name")
            )
        elif (fault := name_fault(name)) is not None:
            problems.append(Problem("season/bad_name", f"the season name: {fault}", "name"))
        checked_rules: dict[str, Any] = {}
        try:
            checked_rules = check_rules(rules)
        except RuleError as exc:
            problems.extend(exc.problems)
        roster: list[tuple[str, str | None, int]] = []
        fewest = 0 if signups else 2  # players who join come later
        if not isinstance(players, list) or not fewest <= len(players) <= MAX_PLAYERS:
            problems.append(
                Problem(
                    "season/bad_players",
                    f"a season needs a list of {fewest} to {MAX_PLAYERS} players"
                    + ("" if signups else " (or sign-ups open, for players to join themselves)"),
                    "players",
                )
            )
        else:
            named: list[tuple[int, str]] = []  # (row, name) of each row read
            for i, p in enumerate(players, start=1):
                try:
                    roster.append(roster_entry(p, i))
                    named.append((i, roster[-1][0]))
                except RuleError as exc:
                    problems.extend(exc.problems)
            problems.extend(look_alike_problems(named))
        if problems:
            raise RuleError(problems)
        assert isinstance(name, str)
        host_token = new_token()
        tokens = {i: new_token() for i in range(1, len(roster) + 1)}
        season = Season(
            id=secrets.token_hex(5),
            name=name.strip(),
            host_token_hash=token_hash(host_token),
            rules=checked_rules,
            created_at=self.referee.clock(),
            signups_open=signups,
            signup_hash=token_hash(signup_token(self.secret, token_hash(host_token))),
        )
        with self._transaction() as session:
            session.add(season)
            session.flush()
            for i, (player_name, email, garnets) in enumerate(roster, start=1):
                session.add(
                    SeasonPlayer(
                        season_id=season.id,
                        number=i,
                        name=player_name,
                        email=email,
                        token_hash=token_hash(tokens[i]),
                    )
                )
                if garnets:
                    session.add(self._entry(season.id, i, garnets, "starting garnets", "host"))
        return CreatedSeason(season.id, host_token, tokens)

    # ---- the ledger ---------------------------------------------------------------

    def add_entry(
        self,
        season_id: str,
        *,
        player: object,
        change: object,
        reason: object,
        corrects: object = None,
    ) -> LedgerEntry:
        """The host's entry (or correcting entry: ``corrects`` names the entry it
        puts right, of the same player). Entries are never edited or deleted."""
        check_text({"reason": reason}, "the entry")
        problems: list[Problem] = []
        if type(change) is not int or change == 0 or abs(change) > MAX_CHANGE:
            problems.append(
                Problem(
                    "ledger/bad_change",
                    f"the change must be a whole number of garnets other than 0 (at most "
                    f"{MAX_CHANGE} either way), not {change!r}",
                    "change",
                )
            )
        if not isinstance(reason, str) or not reason.strip() or len(reason) > 200:
            problems.append(
                Problem("ledger/bad_reason", "say why, in 1 to 200 characters", "reason")
            )
        elif (fault := name_fault(reason)) is not None:
            problems.append(Problem("ledger/bad_reason", f"the reason: {fault}", "reason"))
        if problems:
            raise RuleError(problems)
        assert isinstance(change, int) and isinstance(reason, str)
        with self._transaction() as session:
            state = self._load(session, season_id, lock=True)
            if type(player) is not int:
                raise RuleError.single(
                    "season/unknown_player", f"no player {player!r} in this season", "player"
                )
            state.player(player)
            if corrects is not None:
                fixed = next((e for e in state.ledger if e.id == corrects), None)
                if fixed is None or fixed.player != player:
                    raise RuleError.single(
                        "ledger/bad_correction",
                        f"entry {corrects!r} is not one of player {player}'s entries",
                        "corrects",
                    )
            entry = self._entry(
                season_id,
                player,
                change,
                reason.strip(),
                "host",
                corrects=corrects if isinstance(corrects, int) else None,
            )
            session.add(entry)
            self._bump(session, state)
        return entry
