"""What every season step stands on (issue 15): reading a season, locking it,
one transaction per change, the season's version bumped, a ledger entry's row,
and the refusal of a step whose reading changed before its lock
(``season/changed``, issue 22). :class:`referee.seasons.service.Seasons` is
made of these steps and those of :mod:`referee.seasons.links` and
:mod:`referee.seasons.episodes`."""

from __future__ import annotations

from contextlib import AbstractContextManager

from sqlmodel import Session, col, select

from referee.db import read, transaction
from referee.errors import RuleError
from referee.models import Episode, LedgerEntry, Season, SeasonPlayer
from referee.seasons.state import SeasonState
from referee.service import Referee


class SeasonSteps:
    """The season service's common ground (see :class:`referee.seasons.service.Seasons`)."""

    def __init__(self, referee: Referee, secret: bytes) -> None:
        self.referee = referee
        self.engine = referee.engine
        self.secret = secret

    def _transaction(self) -> AbstractContextManager[Session]:
        """One change's transaction (every season step's, lock the season first)."""
        return transaction(self.engine)

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

    @staticmethod
    def _bump(session: Session, state: SeasonState) -> None:
        state.season.version += 1
        session.add(state.season)


def changed(what: str) -> RuleError:
    """A step refused because what it read changed before it could lock the
    season (another request's step came first): nothing of it is recorded."""
    return RuleError.single("season/changed", f"{what}: nothing was recorded; look again and retry")
