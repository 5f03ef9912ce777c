"""Season sign-ups (issue 23, item 7): a link the host posts once, on a forum
thread, through which players join the season themselves, each seeing their own
season link once. The service part, next to :class:`referee.seasons.service.Seasons`
and through its helpers: every change in one transaction, the season row locked
first, the season's version bumped.

Decisions (where the issue leaves a choice):

- **The link is derived, not stored in clear**: ``/join/<token>`` with the token
  an HMAC of the server's secret key and the season host link's digest
  (:func:`referee.seasons.links.signup_token`), so the host page can always show it;
  the database keeps only its SHA-256 (``season.signup_hash``, to find the
  season by it), as it does of every link. A database alone gives no link.
- **Before the first Main Match only**: sign-ups open and close as often as the
  host likes until the first Main Match is made; then they can no longer be
  opened (a player joining later would have missed an episode). The first Main
  Match is refused while sign-ups are open (``season/signups_open``: "close
  sign-ups first"), and a Main Match needs 2 players or more, as always.
- **A joined player is an ordinary season player**, numbered after the highest
  number so far (join order), with 0 garnets (the host may add a ledger entry),
  ``joined_at`` set. Names are checked as a roster's are: 1 to 100 characters,
  one line (:func:`referee.names.name_fault`), and none that looks like a name
  already in the season (:func:`referee.names.look_alikes`, which also catches
  the same name twice). An e-mail address is taken only where the server sends
  mail; a season has at most :data:`referee.seasons.rules.MAX_PLAYERS` players, and
  joining stops there (``season/full``).
- **Removing a player** (any player, joined or typed by the host) is the
  host's, before the first Main Match only; after it, it is refused
  (``season/started``): players leave a season by elimination. The row goes,
  with the player's ledger entries (only starting garnets or the host's entries
  can exist before the first match, and they changed no match); the other
  players keep their numbers, so every other link keeps working, and the
  numbers have a gap (nothing assumes 1..n: :meth:`SeasonState.player` looks a
  number up).
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlmodel import col, delete, select

from referee.db import read, transaction
from referee.errors import Problem, RuleError
from referee.models import LedgerEntry, Season, SeasonPlayer
from referee.names import look_alikes, name_fault, shown
from referee.notify.checks import check_email
from referee.seasons.links import signup_token
from referee.seasons.rules import MAX_PLAYERS
from referee.seasons.service import Seasons
from referee.seasons.state import SeasonState
from referee.service import new_token, token_hash
from referee.text import check_text

NAME_MAX = 100  # a roster name's most characters (referee.seasons.rules.roster_entry)


@dataclass(frozen=True)
class Joined:
    """A player who joined by the sign-up link: their season link, shown once."""

    season_id: str
    number: int
    name: str
    token: str


@dataclass(frozen=True)
class SignupStatus:
    """What the host sees of a season's sign-ups."""

    open: bool
    token: str  # the sign-up link's token (``/join/<token>``)
    can_open: bool  # before the first Main Match only
    can_remove: bool  # the same
    players: int
    room: int  # how many more may join (MAX_PLAYERS in all)


def _started(state: SeasonState) -> bool:
    return bool(state.episodes)


class Signups:
    """A season's sign-ups, through :class:`Seasons` (its engine, secret, clock)."""

    def __init__(self, seasons: Seasons) -> None:
        self.seasons = seasons
        self.engine = seasons.engine

    # ---- reading ------------------------------------------------------------------

    def token(self, state: SeasonState) -> str:
        return signup_token(self.seasons.secret, state.season.host_token_hash)

    def status(self, season_id: str) -> SignupStatus:
        state = self.seasons.state(season_id)
        started = _started(state)
        return SignupStatus(
            open=state.season.signups_open,
            token=self.token(state),
            can_open=not started,
            can_remove=not started,
            players=len(state.players),
            room=max(0, MAX_PLAYERS - len(state.players)),
        )

    def find(self, token: str) -> str | None:
        """The season whose sign-up link this is (open or closed), or None."""
        if not token or len(token) > 200:
            return None
        with read(self.engine) as session:
            season = session.exec(
                select(Season).where(Season.signup_hash == token_hash(token))
            ).first()
            if season is None:
                return None
            # the stored digest is of the link derived now (a changed secret key or
            # host link gives another): only that one opens it
            if token_hash(signup_token(self.seasons.secret, season.host_token_hash)) != (
                season.signup_hash
            ):
                return None
            return season.id

    # ---- the host's steps ---------------------------------------------------------

    def set_open(self, season_id: str, open_: object) -> SignupStatus:
        """Open (``True``) or close (``False``) the season's sign-ups; opening is
        refused once the first Main Match is made. Closing closed ones, or opening
        open ones, changes nothing."""
        if type(open_) is not bool:
            raise RuleError.single(
                "season/bad_signups", f"'open' is true or false, not {open_!r}", "open"
            )
        with transaction(self.engine) as session:
            state = self.seasons._load(session, season_id, lock=True)
            season = state.season
            if open_ and _started(state):
                raise RuleError.single(
                    "season/started",
                    "sign-ups open only before the first Main Match: episode 1 has begun, "
                    "so no one can join this season now",
                    "open",
                )
            digest = token_hash(self.token(state))
            if season.signups_open != open_ or season.signup_hash != digest:
                season.signups_open = open_
                season.signup_hash = digest
                self.seasons._bump(session, state)  # adds the season row
        return self.status(season_id)

    def remove(self, season_id: str, number: object) -> str:
        """Remove player ``number`` before the first Main Match (their name)."""
        if type(number) is not int:
            raise RuleError.single(
                "season/unknown_player", f"this season has no player {number!r}", "player"
            )
        with transaction(self.engine) as session:
            state = self.seasons._load(session, season_id, lock=True)
            player = state.player(number)
            if _started(state):
                raise RuleError.single(
                    "season/started",
                    f"{player.name} cannot be removed: the season's first Main Match has been "
                    "made, and from then on players leave a season only by elimination",
                    "player",
                )
            name = player.name
            session.execute(
                delete(LedgerEntry).where(
                    col(LedgerEntry.season_id) == season_id, col(LedgerEntry.player) == number
                )
            )
            session.delete(player)
            self.seasons._bump(session, state)
        return name

    # ---- a player's step ----------------------------------------------------------

    def join(self, season_id: str, *, name: object, email: object = None) -> Joined:
        """A new player of ``season_id`` (found by :meth:`find`), with ``name`` and
        an optional ``email`` (only where the server sends mail)."""
        check_text({"name": name, "email": email}, "your sign-up")
        problems: list[Problem] = []
        checked_name = ""
        if not isinstance(name, str) or not name.strip() or len(name) > NAME_MAX:
            problems.append(
                Problem("season/bad_name", f"give a name of 1 to {NAME_MAX} characters", "name")
            )
        elif (fault := name_fault(name)) is not None:
            problems.append(Problem("season/bad_name", f"your name: {fault}", "name"))
        else:
            checked_name = name.strip()
        checked_email: str | None = None
        if email not in (None, ""):
            if not self.seasons.referee.notify.mail_enabled:
                problems.append(
                    Problem(
                        "notify/no_mail",
                        "this server sends no e-mail: leave the address out",
                        "email",
                    )
                )
            else:
                try:
                    checked_email = check_email(email, "your address")
                except RuleError as exc:
                    problems.extend(Problem(p.code, p.message, "email") for p in exc.problems)
        if problems:
            raise RuleError(problems)
        token = new_token()
        with transaction(self.engine) as session:
            state = self.seasons._load(session, season_id, lock=True)
            if not state.season.signups_open or _started(state):
                raise RuleError.single(
                    "season/signups_closed",
                    f"sign-ups for “{state.season.name}” are closed: ask its host",
                )
            if len(state.players) >= MAX_PLAYERS:
                raise RuleError.single(
                    "season/full",
                    f"“{state.season.name}” is full: a season has at most {MAX_PLAYERS} players",
                )
            number = max((p.number for p in state.players), default=0) + 1
            named = [(p.number, p.name) for p in state.players] + [(number, checked_name)]
            for (a, name_a), (b, name_b) in look_alikes(named):
                if number in (a, b):
                    other = name_b if a == number else name_a
                    same = other == checked_name
                    raise RuleError.single(
                        "season/confusable_names",
                        f"{shown(other)} is a player of this season already: choose another "
                        "name (if that is you, your link was on the page after joining; the "
                        "host can give you a new one)"
                        if same
                        else f"your name {shown(checked_name)} looks like {shown(other)}, a "
                        "player's name in this season: they differ only by case, invisible "
                        "characters, compatibility forms or look-alike letters; choose a name "
                        "that can be told apart",
                        "name",
                    )
            session.add(
                SeasonPlayer(
                    season_id=season_id,
                    number=number,
                    name=checked_name,
                    email=checked_email,
                    token_hash=token_hash(token),
                    joined_at=self.seasons.referee.clock(),
                )
            )
            self.seasons._bump(session, state)
        return Joined(season_id, number, checked_name, token)
