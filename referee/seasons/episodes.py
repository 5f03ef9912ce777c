"""A season's episodes (issue 15): the Main Match, its outcome recorded and the
season's rules applied, the Elimination Candidate's choice (or spent Token of
Life), the Death Match and its loser eliminated. Each step re-checks under the
season's lock what it read (``season/changed``, issue 22)."""

from __future__ import annotations

import secrets
from collections.abc import Mapping, Sequence
from typing import Any

from referee.errors import RuleError
from referee.models import Episode
from referee.ruleset import DEFAULT_RULESET, get_ruleset
from referee.seasons.links import derived_host_token, derived_seat_token
from referee.seasons.rules import main_match_players
from referee.seasons.state import NOBODY, Effect, MainOutcome, SeasonState
from referee.seasons.steps import SeasonSteps, changed
from referee.service import MAX_GARNETS, Created


class EpisodeSteps(SeasonSteps):
    """The season service's steps of episodes (see :class:`referee.seasons.service.Seasons`)."""

    def _make_match(
        self,
        state: SeasonState,
        chosen: Sequence[int],
        *,
        name: str,
        game: object,
        setup: Mapping[str, Any] | None,
        settings: object,
        seed: str | None,
        base_url: str | None,
    ) -> Created:
        """A match of the chosen players, garnets read from the ledger now,
        each seat's link derived from the player's season link and its host
        link from the season's (issue 1, see :func:`derived_host_token`). ``base_url``:
        the season host's creating request's address, the base of the match's
        e-mail links where the operator sets none (as a match's host's, see
        :meth:`referee.service.Referee.create_match`)."""
        match_id_hint = secrets.token_hex(5)
        balances = state.balances()
        for p in chosen:
            balance = balances[p]
            if not 0 <= balance <= MAX_GARNETS:
                raise RuleError.single(
                    "season/bad_garnets",
                    f"{state.player(p).name} has {balance} garnets; a match needs 0 or more",
                )
        tokens = {
            seat: derived_seat_token(self.secret, state.player(p).token_hash, match_id_hint)
            for seat, p in enumerate(chosen, start=1)
        }
        return self.referee.create_match(
            name=name,
            host_token=derived_host_token(
                self.secret, state.season.host_token_hash, match_id_hint, 1
            ),
            players=[
                {"seat": seat, "name": state.player(p).name, "garnets": balances[p]}
                for seat, p in enumerate(chosen, start=1)
            ],
            setup=setup,
            settings=settings,
            ruleset=game,
            seed=seed,
            seat_tokens=tokens,
            match_id=match_id_hint,
            base_url=base_url,
        )

    def create_main_match(
        self,
        season_id: str,
        *,
        game: object = DEFAULT_RULESET,
        players: Sequence[int] | None = None,
        setup: Mapping[str, Any] | None = None,
        settings: object = None,
        seed: str | None = None,
        base_url: str | None = None,
    ) -> tuple[int, Created]:
        """The next episode's Main Match: every remaining player, or the chosen
        remaining ones (for a game that takes fewer). The episode number and the match.

        ``seed`` is for tests only: no page or API call passes one (issue 22: a
        host who chose the seed would know every sealed deal, default and draw
        before any step closes); left out, the referee draws it. ``base_url``:
        the address the season host's request came to (see :meth:`_make_match`)."""
        state = self.state(season_id)
        _signups_closed(state)
        if state.episodes and not state.done(state.episodes[-1]):
            last = state.episodes[-1].number
            raise RuleError.single(
                "season/episode_open", f"episode {last} has not ended: its Death Match comes first"
            )
        remaining = state.remaining()
        if players is None:
            rules = get_ruleset(game)
            chosen, left_out = main_match_players(remaining, rules.max_players)
            if left_out:  # the host chooses who plays; the message says whom to leave out
                out_names = ", ".join(state.player(p).name for p in left_out)
                raise RuleError.single(
                    "season/bad_players",
                    f"{rules.title} takes at most {rules.max_players} players and "
                    f"{len(remaining)} are still in: choose the players (for example "
                    f"leave out {out_names})",
                    "players",
                )
        chosen = list(players) if players is not None else remaining
        outside = [p for p in chosen if p not in remaining]
        if outside or len(set(chosen)) != len(chosen) or len(chosen) < 2:
            raise RuleError.single(
                "season/bad_players",
                "a Main Match is of 2 or more different players still in the season "
                f"(still in: {', '.join(state.player(p).name for p in remaining)})",
                "players",
            )
        number = len(state.episodes) + 1
        name = f"{state.season.name}: episode {number}, Main Match"
        created = self._make_match(
            state,
            chosen,
            name=name,
            game=game,
            setup=setup,
            settings=settings,
            seed=seed,
            base_url=base_url,
        )
        with self._transaction() as session:
            again = self._load(session, season_id, lock=True)
            if len(again.episodes) + 1 != number:
                raise changed(f"episode {number} began meanwhile, with another Main Match")
            _signups_closed(again)
            out = [again.player(p).name for p in chosen if p not in again.remaining()]
            if out:
                raise changed(f"{', '.join(out)} left the season meanwhile")
            _same_garnets(state, again, chosen)
            session.add(
                Episode(
                    season_id=season_id,
                    number=number,
                    main_match_id=created.match_id,
                    main_host_issue=1,
                    main_seats={str(seat): p for seat, p in enumerate(chosen, start=1)},
                    created_at=self.referee.clock(),
                )
            )
            self._bump(session, again)
        return number, created

    def _outcome(self, match_id: str) -> tuple[int | None, int]:
        """A finished match's Token of Life and Elimination Candidate (seats)."""
        state = self.referee.state(match_id)
        last = state.last_closed
        if not state.match.finished or last is None or not isinstance(last.result, dict):
            raise RuleError.single(
                "season/match_not_finished", f"match {match_id} has not ended yet"
            )
        token = last.result.get("token_of_life")
        candidate = (last.result.get("elimination_candidate") or {}).get("seat")
        if not isinstance(candidate, int):
            raise RuleError.single(
                "season/no_outcome", f"match {match_id} names no Elimination Candidate"
            )
        return (token if isinstance(token, int) else None), candidate

    def main_outcome(self, season_id: str, episode: int) -> MainOutcome:
        """What recording the episode's Main Match would do (nothing is stored)."""
        state = self.state(season_id)
        return self._main_outcome(state, state.episode(episode))

    def _main_outcome(self, state: SeasonState, e: Episode) -> MainOutcome:
        episode = e.number
        assert e.main_match_id is not None
        token_seat, candidate_seat = self._outcome(e.main_match_id)
        holder = e.main_seats[str(token_seat)] if token_seat is not None else None
        candidate = e.main_seats[str(candidate_seat)]
        effects: list[Effect] = []
        bonus = int(state.season.rules.get("token_bonus", 0))
        if holder is not None and bonus:
            effects.append(
                Effect(holder, bonus, f"Token of Life in episode {episode} (+{bonus} garnets)")
            )
        return MainOutcome(episode, holder, candidate, tuple(effects))

    def record_main(self, season_id: str, episode: int) -> MainOutcome:
        """Record the Main Match's Token of Life and Elimination Candidate and
        apply the season's rules (ledger entries by the referee)."""
        before = self.state(season_id)
        read = before.episode(episode)
        outcome = self._main_outcome(before, read)
        with self._transaction() as session:
            state = self._load(session, season_id, lock=True)
            e = state.episode(episode)
            if e.recorded_at is not None:
                raise RuleError.single(
                    "season/recorded", f"episode {episode}'s Main Match is recorded already"
                )
            if (e.main_match_id, e.main_seats) != (read.main_match_id, read.main_seats):
                raise changed(f"episode {episode}'s Main Match changed meanwhile")
            e.token_holder, e.candidate = outcome.token_holder, outcome.candidate
            e.recorded_at = self.referee.clock()
            if not self._choosable(state, e) and not state.tokens(episode).get(e.candidate):
                # every other player still in holds a Token of Life, and the
                # candidate none to spend: no one can be chosen, so no Death Match
                e.loser_by = NOBODY
            session.add(e)
            for effect in outcome.effects:
                session.add(
                    self._entry(
                        season_id,
                        effect.player,
                        effect.change,
                        effect.reason,
                        "referee",
                        episode=episode,
                        match_id=e.main_match_id,
                    )
                )
            self._bump(session, state)
        return outcome

    def _recorded(self, state: SeasonState, episode: int) -> Episode:
        e = state.episode(episode)
        if e.recorded_at is None or e.candidate is None:
            raise RuleError.single(
                "season/not_recorded", f"episode {episode}'s Main Match is not recorded yet"
            )
        if state.done(e):
            raise RuleError.single("season/episode_over", f"episode {episode} is over")
        return e

    def opponents(self, season_id: str, episode: int) -> list[int]:
        """Whom the Elimination Candidate may choose: players still in, not the
        candidate, holding no Token of Life."""
        state = self.state(season_id)
        e = self._recorded(state, episode)
        return self._choosable(state, e)

    @staticmethod
    def _choosable(state: SeasonState, e: Episode) -> list[int]:
        protected = state.tokens(e.number)
        return [p for p in state.remaining() if p != e.candidate and p not in protected]

    def choose_opponent(
        self, season_id: str, episode: int, *, chooser: int, opponent: object
    ) -> None:
        """The Elimination Candidate (``chooser``) names their opponent."""
        with self._transaction() as session:
            state = self._load(session, season_id, lock=True)
            e = self._recorded(state, episode)
            if chooser != e.candidate:
                raise RuleError.single(
                    "season/not_candidate", "only the Elimination Candidate chooses the opponent"
                )
            if e.death_match_id is not None:
                raise RuleError.single(
                    "season/already_chosen", "the Death Match has begun; the choice is made"
                )
            choosable = self._choosable(state, e)
            if type(opponent) is not int or opponent not in choosable:
                raise RuleError.single(
                    "season/bad_opponent",
                    _why_not(state, e, opponent)
                    + f" (you may choose: {', '.join(state.player(p).name for p in choosable)})",
                    "opponent",
                )
            e.opponent = opponent
            session.add(e)
            self._bump(session, state)

    def use_token(self, season_id: str, episode: int, *, player: int) -> None:
        """The Elimination Candidate spends a Token of Life won in an earlier
        episode (``token_lasts`` ``until_used``): no Death Match this episode."""
        with self._transaction() as session:
            state = self._load(session, season_id, lock=True)
            e = self._recorded(state, episode)
            if player != e.candidate:
                raise RuleError.single(
                    "season/not_candidate", "only the Elimination Candidate can spend a token"
                )
            if e.death_match_id is not None or e.opponent is not None:
                raise RuleError.single(
                    "season/already_chosen", "the opponent is chosen; the Death Match goes ahead"
                )
            if state.tokens(episode).get(player, 0) < 1:
                raise RuleError.single(
                    "season/no_token", f"{state.player(player).name} holds no Token of Life"
                )
            e.token_used = True
            session.add(e)
            self._bump(session, state)

    def create_death_match(
        self,
        season_id: str,
        episode: int,
        *,
        game: object,
        setup: Mapping[str, Any] | None = None,
        settings: object = None,
        seed: str | None = None,
        base_url: str | None = None,
    ) -> Created:
        """The episode's Death Match: the candidate (seat 1) against the chosen
        opponent (seat 2), of a game that takes 2 players. ``seed``: tests only,
        as for :meth:`create_main_match`."""
        state = self.state(season_id)
        e = self._recorded(state, episode)
        if e.opponent is None or e.candidate is None:
            raise RuleError.single(
                "season/no_opponent", "the Elimination Candidate has not chosen an opponent yet"
            )
        if e.death_match_id is not None:
            raise RuleError.single("season/already_chosen", "the Death Match exists already")
        chosen = [e.candidate, e.opponent]
        name = f"{state.season.name}: episode {episode}, Death Match"
        created = self._make_match(
            state,
            chosen,
            name=name,
            game=game,
            setup=setup,
            settings=settings,
            seed=seed,
            base_url=base_url,
        )
        with self._transaction() as session:
            again = self._load(session, season_id, lock=True)
            e = self._recorded(again, episode)
            if e.death_match_id is not None:
                raise RuleError.single("season/already_chosen", "the Death Match exists already")
            if [e.candidate, e.opponent] != chosen:
                raise _opponent_changed(again, e, chosen[1])
            _same_garnets(state, again, chosen)
            e.death_match_id = created.match_id
            e.death_host_issue = 1
            e.death_seats = {"1": chosen[0], "2": chosen[1]}
            session.add(e)
            self._bump(session, again)
        return created

    def death_loser(self, season_id: str, episode: int) -> int:
        """Who lost the episode's Death Match played here, once it has ended
        (its Elimination Candidate): the player recording it will eliminate."""
        state = self.state(season_id)
        e = self._recorded(state, episode)
        if e.death_match_id is None:
            raise RuleError.single("season/not_played_here", "the Death Match is not played here")
        _, seat = self._outcome(e.death_match_id)
        return e.death_seats[str(seat)]

    def record_death(self, season_id: str, episode: int, *, loser: object = None) -> int:
        """Decide the Death Match: from its match once ended (its Elimination
        Candidate loses), or as the host enters it (``loser``: the candidate or
        the opponent) when it was not played here. The loser is eliminated."""
        state = self.state(season_id)
        e = self._recorded(state, episode)
        if e.opponent is None or e.candidate is None:
            raise RuleError.single(
                "season/no_opponent", "the Elimination Candidate has not chosen an opponent yet"
            )
        by = "host"
        # what this reads, checked again under the lock (another step may come first)
        opponent, read = e.opponent, (e.candidate, e.death_match_id, dict(e.death_seats))
        if e.death_match_id is not None:
            if loser is not None:
                raise RuleError.single(
                    "season/played_here",
                    "the Death Match is played here: its result decides, not an entered one",
                )
            _, seat = self._outcome(e.death_match_id)
            loser, by = e.death_seats[str(seat)], "match"
        elif loser not in (e.candidate, e.opponent):
            raise RuleError.single(
                "season/bad_loser",
                f"the loser is {state.player(e.candidate).name} or "
                f"{state.player(e.opponent).name}, not {loser!r}",
                "loser",
            )
        assert isinstance(loser, int)
        with self._transaction() as session:
            again = self._load(session, season_id, lock=True)
            e = self._recorded(again, episode)
            if by == "host" and e.death_match_id is not None:
                raise RuleError.single(
                    "season/played_here",
                    "the Death Match was made here meanwhile: its result decides, not an "
                    "entered one; nothing was recorded",
                )
            if e.opponent != opponent:
                raise _opponent_changed(again, e, opponent)
            if (e.candidate, e.death_match_id, e.death_seats) != read:
                raise changed(f"episode {episode}'s Death Match changed meanwhile")
            e.loser, e.loser_by = loser, by
            out = again.player(loser)
            out.eliminated_in = episode
            session.add_all([e, out])
            self._bump(session, again)
        return loser


def _same_garnets(read: SeasonState, now: SeasonState, chosen: Sequence[int]) -> None:
    """A new match's seats hold the players' balances as read when it was
    made: refused (``season/changed``) if a ledger entry moved one since."""
    before, after = read.balances(), now.balances()
    moved = [now.player(p).name for p in chosen if before[p] != after[p]]
    if moved:
        raise changed(
            f"the garnets of {', '.join(moved)} changed meanwhile (a ledger entry), so the "
            "match would hold old balances"
        )


def _opponent_changed(state: SeasonState, e: Episode, read: int) -> RuleError:
    now = state.player(e.opponent).name if e.opponent is not None else "nobody"
    return changed(
        f"the opponent changed meanwhile: {state.player(read).name} was chosen when this began, "
        f"{now} is now"
    )


def _why_not(state: SeasonState, e: Episode, opponent: object) -> str:
    """Why ``opponent`` may not be chosen, in plain words."""
    if type(opponent) is not int or opponent not in {p.number for p in state.players}:
        return f"there is no player {opponent!r} in this season"
    who = state.player(opponent).name
    if opponent == e.candidate:
        return "you cannot choose yourself"
    if state.player(opponent).eliminated_in is not None:
        return f"{who} has been eliminated"
    return f"{who} holds a Token of Life"


def _signups_closed(state: SeasonState) -> None:
    """A Main Match is of the players who have joined: refused while sign-ups are open."""
    if state.season.signups_open:
        raise RuleError.single(
            "season/signups_open",
            "sign-ups are open: close sign-ups first (on the season host page), so that "
            "the Main Match is of every player who has joined",
        )
