"""A season as stored (:class:`SeasonState`, what its pages, posts and checks
are made from) and what the season steps give back (issue 15). Pure: no SQL,
no Flask; the rows are :mod:`referee.models`'."""

from __future__ import annotations

from dataclasses import dataclass

from referee.errors import RuleError
from referee.models import Episode, LedgerEntry, Season, SeasonPlayer

NOBODY = "nobody"  # an episode's loser_by when no one could be chosen: no Death Match


@dataclass(frozen=True)
class MatchHostLink:
    """A match made from the season, as the season host page lists it: its
    host link's path (``/host/<token>``), or None when the link is not the
    season's (re-issued from the match's own dashboard, or the match was made
    before season host links were derived): the page offers to re-issue it."""

    episode: int
    kind: str  # "main" or "death"
    match_id: str
    path: str | None


@dataclass(frozen=True)
class CreatedSeason:
    season_id: str
    host_token: str
    player_tokens: dict[int, str]


@dataclass(frozen=True)
class ReissuedLink:
    """A player's new season link (shown once) and what became of their seats:
    the matches whose seat link now derives from it, and those whose seat link
    the match's host had re-issued (left alone)."""

    player: int
    token: str
    moved: tuple[str, ...]
    left: tuple[str, ...]


@dataclass(frozen=True)
class Effect:
    """What a season rule does when an outcome is recorded."""

    player: int
    change: int
    reason: str


@dataclass(frozen=True)
class MainOutcome:
    """A finished Main Match's outcome, as the season reads it, and the rules'
    effects (shown to the host before :meth:`Seasons.record_main`)."""

    episode: int
    token_holder: int | None
    candidate: int
    effects: tuple[Effect, ...]


@dataclass
class SeasonState:
    """A season as stored: what its pages, posts and checks are made from."""

    season: Season
    players: list[SeasonPlayer]
    ledger: list[LedgerEntry]
    episodes: list[Episode]

    def balances(self) -> dict[int, int]:
        """Each player's garnets: the sum of their ledger entries."""
        out = {p.number: 0 for p in self.players}
        for entry in self.ledger:
            out[entry.player] += entry.change
        return out

    def player(self, number: int) -> SeasonPlayer:
        found = next((p for p in self.players if p.number == number), None)
        if found is None:
            raise RuleError.single("season/unknown_player", f"this season has no player {number}")
        return found

    def remaining(self) -> list[int]:
        return [p.number for p in self.players if p.eliminated_in is None]

    def episode(self, number: int) -> Episode:
        found = next((e for e in self.episodes if e.number == number), None)
        if found is None:
            raise RuleError.single("season/unknown_episode", f"there is no episode {number}")
        return found

    def tokens(self, upto: int) -> dict[int, int]:
        """The Tokens of Life each player holds during episode ``upto`` (see
        the rules, :mod:`referee.seasons.service`): those won in it, and with
        ``until_used`` those won before and not yet spent."""
        lasts = self.season.rules.get("token_lasts", "episode")
        held: dict[int, int] = {}
        for e in self.episodes:
            if e.number > upto:
                break
            if lasts == "episode" and e.number != upto:
                continue
            if e.token_holder is not None:
                held[e.token_holder] = held.get(e.token_holder, 0) + 1
            if e.token_used and e.candidate is not None:
                held[e.candidate] -= 1
        return {p: n for p, n in held.items() if n > 0}

    def done(self, e: Episode) -> bool:
        """Whether an episode is over (its Death Match decided, or skipped: a
        token spent, or no one who could be chosen)."""
        return e.loser is not None or e.token_used or e.loser_by == NOBODY
