"""A season's links (issue 15, issue 22, issue 1): the seat and host links of
the matches made from a season are derived (HMAC with the server's secret
key), never stored, and so is the sign-up link; the steps that find a link's
season, list a player's or the host's match links and re-issue a link."""

from __future__ import annotations

import base64
import hashlib
import hmac
from typing import Any

from sqlmodel import select

from referee.db import read
from referee.errors import RuleError
from referee.models import Season, SeasonPlayer
from referee.names import shown
from referee.seasons.state import MatchHostLink, ReissuedLink, SeasonState
from referee.seasons.steps import SeasonSteps, changed
from referee.service import new_token, token_hash


def derived_seat_token(secret: bytes, player_hash: str, match_id: str) -> str:
    """The seat link of a season player in a match made from the season: an
    HMAC (the server's secret key) of the player's season-link digest and the
    match, shaped like any link (43 URL-safe characters)."""
    mac = hmac.new(secret, f"season-seat|{player_hash}|{match_id}".encode(), hashlib.sha256)
    return base64.urlsafe_b64encode(mac.digest()).decode().rstrip("=")


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


def signup_token(secret: bytes, host_hash: str) -> str:
    """A season's sign-up link (``/join/<token>``): an HMAC (the server's secret
    key) of the season host link's digest, shaped like any link. Derived, so the
    host page can always show it; the database keeps only its digest."""
    mac = hmac.new(secret, f"season-signup|{host_hash}".encode(), hashlib.sha256)
    return base64.urlsafe_b64encode(mac.digest()).decode().rstrip("=")


class LinkSteps(SeasonSteps):
    """The season service's steps about links (see :class:`referee.seasons.service.Seasons`)."""

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
        with self._transaction() as session:
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
        with self._transaction() as session:
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
            raise changed(f"{player.name}'s season link was re-issued meanwhile")
        return ReissuedLink(number, token, tuple(m for m, _ in moved), tuple(left))


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
