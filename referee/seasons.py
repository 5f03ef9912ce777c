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

import base64
import hashlib
import hmac
import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sqlmodel import Session, col, select

from referee.db import read, transaction
from referee.errors import Problem, RuleError
from referee.models import Episode, LedgerEntry, Season, SeasonPlayer
from referee.names import look_alikes, name_fault, shown
from referee.notify.checks import check_email
from referee.ruleset import DEFAULT_RULESET, get_ruleset
from referee.service import MAX_GARNETS, Created, Referee, new_token, token_hash
from referee.text import check_text

DEFAULT_RULES: dict[str, Any] = {"token_bonus": 0, "token_lasts": "episode"}
TOKEN_LASTS = ("episode", "until_used")
NOBODY = "nobody"  # an episode's loser_by when no one could be chosen: no Death Match
MAX_PLAYERS = 64
MAX_CHANGE = 1_000_000


# ---- pure parts -----------------------------------------------------------------


def check_rules(raw: object) -> dict[str, Any]:
    """A season's rules with defaults filled in; every problem named."""
    if raw is None:
        return dict(DEFAULT_RULES)
    if not isinstance(raw, Mapping):
        raise RuleError.single("season/bad_rules", "'rules' must be an object")
    problems: list[Problem] = []
    out = dict(DEFAULT_RULES)
    for key, value in raw.items():
        if key == "token_bonus":
            if type(value) is not int or not 0 <= value <= 100:
                problems.append(
                    Problem(
                        "season/bad_rules",
                        f"the Token of Life's bonus must be a whole number of garnets from 0 "
                        f"to 100, not {value!r}",
                        key,
                    )
                )
            else:
                out[key] = value
        elif key == "token_lasts":
            if value not in TOKEN_LASTS:
                problems.append(
                    Problem(
                        "season/bad_rules",
                        f"a Token of Life lasts 'episode' or 'until_used', not {value!r}",
                        key,
                    )
                )
            else:
                out[key] = value
        else:
            problems.append(
                Problem(
                    "season/bad_rules",
                    f"unknown season rule {str(key)[:40]!r} (known: {', '.join(DEFAULT_RULES)})",
                    "rules",
                )
            )
    if problems:
        raise RuleError(problems)
    return out


def derived_seat_token(secret: bytes, player_hash: str, match_id: str) -> str:
    """The seat link of a season player in a match made from the season: an
    HMAC (the server's secret key) of the player's season-link digest and the
    match, shaped like any link (43 URL-safe characters)."""
    mac = hmac.new(secret, f"season-seat|{player_hash}|{match_id}".encode(), hashlib.sha256)
    return base64.urlsafe_b64encode(mac.digest()).decode().rstrip("=")


def main_match_players(remaining: Sequence[int], most: int) -> tuple[list[int], list[int]]:
    """Who a Main Match of a game of at most ``most`` players is of, unless the
    host chooses (the season host page ticks them): every player still in, or,
    when the game takes fewer, the first ``most`` of them in roster order; and
    the players that leaves out (the page names them)."""
    return list(remaining[:most]), list(remaining[most:])


def derived_host_token(secret: bytes, season_host_hash: str, match_id: str, issue: int) -> str:
    """The host link of a match made from a season: an HMAC (the server's
    secret key) of the season host link's digest, the match and ``issue`` (1
    when the match is made, one more each time the season host re-issues it,
    :meth:`Seasons.reissue_match_host`), so the season host page can always
    give it and a re-issued one is never given out again."""
    mac = hmac.new(
        secret, f"season-host|{season_host_hash}|{match_id}|{issue}".encode(), hashlib.sha256
    )
    return base64.urlsafe_b64encode(mac.digest()).decode().rstrip("=")


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
        the module's rules): those won in it, and with ``until_used`` those won
        before and not yet spent."""
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


class Seasons:
    """Every change of every season goes through here."""

    def __init__(self, referee: Referee, secret: bytes) -> None:
        self.referee = referee
        self.engine = referee.engine
        self.secret = secret

    # ---- reading ------------------------------------------------------------------

    def state(self, season_id: str) -> SeasonState:
        with read(self.engine) as session:
            return self._load(session, season_id)

    def _load(self, session: Session, season_id: str, lock: bool = False) -> SeasonState:
        query = select(Season).where(Season.id == season_id)
        season = session.exec(query.with_for_update() if lock else query).first()
        if season is None:
            raise RuleError.single("season/not_found", f"there is no season '{season_id}'")
        players = list(
            session.exec(
                select(SeasonPlayer)
                .where(SeasonPlayer.season_id == season_id)
                .order_by(col(SeasonPlayer.number))
            )
        )
        ledger = list(
            session.exec(
                select(LedgerEntry)
                .where(LedgerEntry.season_id == season_id)
                .order_by(col(LedgerEntry.id))
            )
        )
        episodes = list(
            session.exec(
                select(Episode).where(Episode.season_id == season_id).order_by(col(Episode.number))
            )
        )
        return SeasonState(season, players, ledger, episodes)

    def find_token(self, token: str) -> tuple[str, int | None] | None:
        """The season a secret link belongs to, and its player (None: the host)."""
        if not token or len(token) > 200:
            return None
        digest = token_hash(token)
        with read(self.engine) as session:
            season = session.exec(select(Season).where(Season.host_token_hash == digest)).first()
            if season is not None:
                return season.id, None
            player = session.exec(
                select(SeasonPlayer).where(SeasonPlayer.token_hash == digest)
            ).first()
            return (player.season_id, player.number) if player is not None else None

    def match_links(self, season_id: str, number: int) -> list[dict[str, Any]]:
        """A player's matches of the season, each with its seat link path
        (``/play/<token>``) or None when the match's host has re-issued it."""
        state = self.state(season_id)
        me = state.player(number)
        out: list[dict[str, Any]] = []
        for episode, kind, match_id, seat in _seats_of(state, number):
            token = derived_seat_token(self.secret, me.token_hash, match_id)
            live = self.referee.find_token(token) == (match_id, seat)
            out.append(
                {
                    "episode": episode,
                    "kind": kind,
                    "match_id": match_id,
                    "seat": seat,
                    "path": f"/play/{token}" if live else None,
                }
            )
        return out

    def host_links(self, season_id: str) -> list[MatchHostLink]:
        """Every match made from the season, in episode order (Main, then
        Death), each with its host link when it is the season's."""
        state = self.state(season_id)
        out: list[MatchHostLink] = []
        for e in state.episodes:
            for kind, match_id, issue in (
                ("main", e.main_match_id, e.main_host_issue),
                ("death", e.death_match_id, e.death_host_issue),
            ):
                if match_id is None:
                    continue
                path = None
                if issue > 0:
                    token = derived_host_token(
                        self.secret, state.season.host_token_hash, match_id, issue
                    )
                    if self.referee.find_token(token) == (match_id, None):
                        path = f"/host/{token}"
                out.append(MatchHostLink(e.number, kind, match_id, path))
        return out

    def reissue_match_host(self, season_id: str, match_id: object) -> MatchHostLink:
        """A new host link for a match made from the season (the season host's
        step): the match's old host link, whoever holds it, stops working at
        once, and the new one is derived again (the next issue), so the season
        host page keeps giving it. The episode's issue is counted up first,
        under the season's lock, then the match's link is set under the
        match's: a server stopping in between leaves a link nobody was given,
        and the page offers to re-issue it again."""
        if not isinstance(match_id, str) or len(match_id) > 32:
            raise RuleError.single("season/unknown_match", "choose a match of this season", "match")
        with transaction(self.engine) as session:
            state = self._load(session, season_id, lock=True)
            for e in state.episodes:
                if e.main_match_id == match_id:
                    e.main_host_issue += 1
                    issue, kind = e.main_host_issue, "main"
                    break
                if e.death_match_id == match_id:
                    e.death_host_issue += 1
                    issue, kind = e.death_host_issue, "death"
                    break
            else:
                raise RuleError.single(
                    "season/unknown_match",
                    f"this season has no match {shown(match_id)}",
                    "match",
                )
            session.add(e)
            self._bump(session, state)
            host_hash = state.season.host_token_hash
        token = derived_host_token(self.secret, host_hash, match_id, issue)
        self.referee.reissue_token(match_id, None, token=token)
        return MatchHostLink(e.number, kind, match_id, f"/host/{token}")

    def _seat_hash(self, player_hash: str, match_id: str) -> str:
        """The digest of a player's derived seat link in a match."""
        return token_hash(derived_seat_token(self.secret, player_hash, match_id))

    def reissue_link(self, season_id: str, number: object) -> ReissuedLink:
        """A new random season link for player ``number`` (the host's step, issue
        22): the old one stops opening anything at once, and so do the seat
        links derived from it, in every match of the season where the player
        has a seat: each is derived again from the new link (compare-and-set
        under the match's lock, :meth:`Referee.replace_seat_token_hash`), except
        where the match's host re-issued the seat's link (left alone).

        The seats are moved first, each in its match's transaction, then the
        season's link in the season's, re-checking under its lock that the
        link is still the one the seats were moved from; if another re-issue
        came first, this one is refused (``season/changed``) and moves its seats
        on to the link that won. A server stopping in between leaves the moved
        seats on a link never given out (the season page says to ask their
        match's host); the old links open none of them."""
        if type(number) is not int:
            raise RuleError.single(
                "season/unknown_player", f"this season has no player {number!r}", "player"
            )
        state = self.state(season_id)
        old = state.player(number).token_hash
        token = new_token()
        new = token_hash(token)
        moved: list[tuple[str, int]] = []
        left: list[str] = []
        for _, _, match_id, seat in _seats_of(state, number):
            if self.referee.replace_seat_token_hash(
                match_id,
                seat,
                expected=self._seat_hash(old, match_id),
                new=self._seat_hash(new, match_id),
            ):
                moved.append((match_id, seat))
            else:
                left.append(match_id)
        with transaction(self.engine) as session:
            again = self._load(session, season_id, lock=True)
            player = again.player(number)
            current = player.token_hash
            if current == old:
                player.token_hash = new
                session.add(player)
                self._bump(session, again)
        if current != old:  # another re-issue came first: its link is the player's
            for match_id, seat in moved:
                self.referee.replace_seat_token_hash(
                    match_id,
                    seat,
                    expected=self._seat_hash(new, match_id),
                    new=self._seat_hash(current, match_id),
                )
            raise _changed(f"{player.name}'s season link was re-issued meanwhile")
        return ReissuedLink(number, token, tuple(m for m, _ in moved), tuple(left))

    # ---- creating -----------------------------------------------------------------

    def create_season(
        self, *, name: object, players: object, rules: object = None, signups: object = False
    ) -> CreatedSeason:
        """A season: ``players`` is a list of ``{"name", "email"?, "garnets"?}``
        (starting garnets become the first ledger entries). With ``signups``
        (issue 23, item 7: :mod:`referee.signups`) its sign-up link is open from
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
                    roster.append(_roster_entry(p, i))
                    named.append((i, roster[-1][0]))
                except RuleError as exc:
                    problems.extend(exc.problems)
            problems.extend(_look_alike_problems(named))
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
        with transaction(self.engine) as session:
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

    def _entry(
        self,
        season_id: str,
        player: int,
        change: int,
        reason: str,
        by: str,
        *,
        episode: int | None = None,
        match_id: str | None = None,
        corrects: int | None = None,
    ) -> LedgerEntry:
        return LedgerEntry(
            season_id=season_id,
            player=player,
            change=change,
            reason=reason,
            episode=episode,
            match_id=match_id,
            created_at=self.referee.clock(),
            entered_by=by,
            corrects=corrects,
        )

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
        with transaction(self.engine) as session:
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

    @staticmethod
    def _bump(session: Session, state: SeasonState) -> None:
        state.season.version += 1
        session.add(state.season)

    # ---- episodes -----------------------------------------------------------------

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
        with transaction(self.engine) as session:
            again = self._load(session, season_id, lock=True)
            if len(again.episodes) + 1 != number:
                raise _changed(f"episode {number} began meanwhile, with another Main Match")
            _signups_closed(again)
            out = [again.player(p).name for p in chosen if p not in again.remaining()]
            if out:
                raise _changed(f"{', '.join(out)} left the season meanwhile")
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
        with transaction(self.engine) as session:
            state = self._load(session, season_id, lock=True)
            e = state.episode(episode)
            if e.recorded_at is not None:
                raise RuleError.single(
                    "season/recorded", f"episode {episode}'s Main Match is recorded already"
                )
            if (e.main_match_id, e.main_seats) != (read.main_match_id, read.main_seats):
                raise _changed(f"episode {episode}'s Main Match changed meanwhile")
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
        with transaction(self.engine) as session:
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
        with transaction(self.engine) as session:
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
        with transaction(self.engine) as session:
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
        with transaction(self.engine) as session:
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
                raise _changed(f"episode {episode}'s Death Match changed meanwhile")
            e.loser, e.loser_by = loser, by
            out = again.player(loser)
            out.eliminated_in = episode
            session.add_all([e, out])
            self._bump(session, again)
        return loser


def _seats_of(state: SeasonState, number: int) -> list[tuple[int, str, str, int]]:
    """(episode, "main" or "death", match id, seat) of each match of the season
    where player ``number`` has a seat."""
    out: list[tuple[int, str, str, int]] = []
    for e in state.episodes:
        for kind, match_id, seats in (
            ("main", e.main_match_id, e.main_seats),
            ("death", e.death_match_id, e.death_seats),
        ):
            seat = next((int(s) for s, p in seats.items() if p == number), None)
            if match_id is not None and seat is not None:
                out.append((e.number, kind, match_id, seat))
    return out


def _changed(what: str) -> RuleError:
    """A step refused because what it read changed before it could lock the
    season (another request's step came first): nothing of it is recorded."""
    return RuleError.single("season/changed", f"{what}: nothing was recorded; look again and retry")


def _same_garnets(read: SeasonState, now: SeasonState, chosen: Sequence[int]) -> None:
    """A new match's seats hold the players' balances as read when it was
    made: refused (``season/changed``) if a ledger entry moved one since."""
    before, after = read.balances(), now.balances()
    moved = [now.player(p).name for p in chosen if before[p] != after[p]]
    if moved:
        raise _changed(
            f"the garnets of {', '.join(moved)} changed meanwhile (a ledger entry), so the "
            "match would hold old balances"
        )


def _opponent_changed(state: SeasonState, e: Episode, read: int) -> RuleError:
    now = state.player(e.opponent).name if e.opponent is not None else "nobody"
    return _changed(
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


def _look_alike_problems(named: Sequence[tuple[int, str]]) -> list[Problem]:
    """The roster's names that look alike (issue 22): the rule a match's players
    follow (:func:`referee.names.look_alikes`, ``match/confusable_names``), so
    that a Main Match of every player is never refused for its names."""
    return [
        Problem(
            "season/confusable_names",
            f"players {row_a} and {row_b} have names that look alike, {shown(name_a)} and "
            f"{shown(name_b)}: they differ only by case, invisible characters, compatibility "
            "forms or look-alike letters; give the players names that can be told apart",
            "players",
        )
        for (row_a, name_a), (row_b, name_b) in look_alikes(named)
    ]


def _roster_entry(raw: object, i: int) -> tuple[str, str | None, int]:
    where = f"player {i}"
    if not isinstance(raw, Mapping):
        raise RuleError.single("season/bad_players", f"{where} must be an object with a name")
    unknown = set(raw) - {"name", "email", "garnets"}
    if unknown:
        raise RuleError.single(
            "season/bad_players", f"{where}: unknown key(s) {', '.join(sorted(map(str, unknown)))}"
        )
    name = raw.get("name")
    if not isinstance(name, str) or not name.strip() or len(name) > 100:
        raise RuleError.single("season/bad_players", f"{where} needs a name of 1 to 100 characters")
    if (fault := name_fault(name)) is not None:
        raise RuleError.single("season/bad_players", f"{where}'s name: {fault}")
    email = raw.get("email")
    checked = check_email(email, where) if email not in (None, "") else None
    garnets = raw.get("garnets", 0)
    if type(garnets) is not int or not 0 <= garnets <= MAX_CHANGE:
        raise RuleError.single(
            "season/bad_players", f"{where}'s starting garnets must be 0 or more, not {garnets!r}"
        )
    return name.strip(), checked, garnets


# ---- sign-ups (issue 23, item 7; the steps are in referee.signups) -----------------


def signup_token(secret: bytes, host_hash: str) -> str:
    """A season's sign-up link (``/join/<token>``): an HMAC (the server's secret
    key) of the season host link's digest, shaped like any link. Derived, so the
    host page can always show it; the database keeps only its digest."""
    mac = hmac.new(secret, f"season-signup|{host_hash}".encode(), hashlib.sha256)
    return base64.urlsafe_b64encode(mac.digest()).decode().rstrip("=")


def _signups_closed(state: SeasonState) -> None:
    """A Main Match is of the players who have joined: refused while sign-ups are open."""
    if state.season.signups_open:
        raise RuleError.single(
            "season/signups_open",
            "sign-ups are open: close sign-ups first (on the season host page), so that "
            "the Main Match is of every player who has joined",
        )
