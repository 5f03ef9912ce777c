"""Database tables (SQLModel). Game-agnostic: a match stores its ruleset's name,
its setup as JSON and each round's sealed orders; the ruleset interprets them.

Schema changes go through Alembic (``referee/migrations``); never create tables
with ``SQLModel.metadata.create_all`` outside tests of the migrations.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import JSON, Column, Index, UniqueConstraint
from sqlmodel import Field, SQLModel


def utcnow() -> datetime:
    """Now, as an aware UTC datetime (SQLModel stores and returns UTC)."""
    return datetime.now(UTC)


class Match(SQLModel, table=True):
    id: str = Field(primary_key=True, max_length=32)
    name: str = Field(max_length=200)
    ruleset: str = Field(max_length=40)
    # the ruleset's own part of the set-up (Rocky River: its map), as checked at
    # creation; the ruleset alone reads it
    setup: dict[str, Any] = Field(sa_column=Column(JSON, nullable=False))
    settings: dict[str, Any] = Field(sa_column=Column(JSON, nullable=False))
    seed: str = Field(max_length=200)
    seed_sha256: str = Field(max_length=64)
    host_token_hash: str = Field(max_length=64, unique=True, index=True)
    created_at: datetime = Field(default_factory=utcnow)
    rounds_opened: int = 0  # the number of the latest round opened (0: none yet)
    finished: bool = False
    paused_at: datetime | None = None
    revealed: bool = False
    version: int = 0  # bumped by every state change, so pages can tell something moved


class Seat(SQLModel, table=True):
    match_id: str = Field(foreign_key="match.id", primary_key=True, max_length=32)
    seat: int = Field(primary_key=True)
    name: str = Field(max_length=100)
    garnets: int
    # the ruleset's own per-seat set-up data (none for Rocky River), as checked
    data: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    token_hash: str = Field(max_length=64, unique=True, index=True)
    # a match with a clock per seat (issue 24, referee.clocks): the seat's time bank
    # in seconds after its last closed step (None: no clock)
    clock_bank: float | None = None


class Round(SQLModel, table=True):
    # the sweep's two questions, index-backed (issue 24): which open rounds are past
    # their deadline, and which are due a reminder
    __table_args__ = (
        Index("ix_round_status_deadline", "status", "deadline"),
        Index("ix_round_status_remind_at", "status", "remind_at"),
    )

    match_id: str = Field(foreign_key="match.id", primary_key=True, max_length=32)
    number: int = Field(primary_key=True)
    phase: str = Field(max_length=40)
    title: str = Field(default="", max_length=100)  # for people, e.g. "Rafting 2"
    # the seats that act in this step (all of them in a simultaneous step)
    acting: list[int] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    status: str = Field(default="open", max_length=10)  # "open" or "closed"
    opened_at: datetime = Field(default_factory=utcnow)
    deadline: datetime | None = Field(default=None, index=True)
    closed_at: datetime | None = None
    closed_by: str | None = Field(default=None, max_length=20)  # host, deadline, early
    # how often the deadline moved once the round opened (the host, a resume): calendar
    # events' SEQUENCE (issue 14); public, like the deadline itself
    deadline_changes: int = Field(default=0, sa_column_kwargs={"server_default": "0"})
    # when the next reminder of this open round is due (None: none; always None once
    # closed or while paused): referee.notify.reminders. Whatever sets ``deadline``
    # sets this too (Referee._set_deadline)
    remind_at: datetime | None = None
    # a match with a clock per seat (issue 24): this step's clocks (referee.clocks,
    # its fixed deadline and each acting seat's); ``deadline`` is the one they give
    clocks: dict[str, Any] | None = Field(default=None, sa_column=Column(JSON))
    # the ruleset's full result after this round (all closed rounds); views filter it
    result: dict[str, Any] | None = Field(default=None, sa_column=Column(JSON))


class Order(SQLModel, table=True):
    """The current sealed order of one seat in one round (the last accepted one)."""

    __table_args__ = (UniqueConstraint("match_id", "round_number", "seat"),)

    id: int | None = Field(default=None, primary_key=True)
    match_id: str = Field(foreign_key="match.id", index=True, max_length=32)
    round_number: int
    seat: int
    payload: Any = Field(sa_column=Column(JSON, nullable=False))
    salt: str = Field(max_length=64)
    receipt: str = Field(max_length=64)
    host_entered: bool = False
    submitted_at: datetime = Field(default_factory=utcnow)
    # when the seat first had an order in this round (a replacement keeps it): all the
    # host may know of the timing of a sealed order (issue 24; None: stored before 0010)
    first_sent_at: datetime | None = None
    revision: int = 1  # how many times the seat sent an order this round
    # a host-entered order is checked against the seat's private data only at the
    # close (the host must learn nothing from its acceptance): one that breaks the
    # rules there is not used, and this holds why ([{"code", "message"}, ...]);
    # None for every order that was used (see Referee._check_entered)
    refused: list[dict[str, str]] | None = Field(default=None, sa_column=Column(JSON))


class ChainEntry(SQLModel, table=True):
    """One entry of a match's hash chain (issue 27, :mod:`referee.chain`): the
    start, written with the match, then one per closed round, written by the
    close. Append-only: never updated nor deleted; a fix of a stored round is a
    new entry (a ``correction``). A match stored before 0011 has none."""

    __tablename__ = "chain_entry"

    match_id: str = Field(foreign_key="match.id", primary_key=True, max_length=32)
    position: int = Field(primary_key=True)  # 0 (the start), 1, 2... in the order written
    kind: str = Field(max_length=20)  # "start", "round" (later "correction")
    round_number: int | None = None  # the round a round (or correction) entry is of
    body: dict[str, Any] = Field(sa_column=Column(JSON, nullable=False))
    head: str = Field(max_length=64)  # SHA-256 of the body's canonical JSON
    created_at: datetime = Field(default_factory=utcnow)


# ---- notifications (issue 14) -------------------------------------------------


class MatchNotify(SQLModel, table=True):
    """Where a match's news goes besides its pages: its webhook and reminder lead
    times. One row per match that has any e-mail address or a webhook."""

    __tablename__ = "match_notify"

    match_id: str = Field(foreign_key="match.id", primary_key=True, max_length=32)
    # the base of every link in a message (REFEREE_PUBLIC_URL, else the creating
    # request's), kept so `referee notify` on another machine writes the same links
    base_url: str = Field(max_length=500)
    # a Discord- or Slack-compatible URL: host-only (such URLs carry a secret)
    webhook_url: str | None = Field(default=None, max_length=2000)
    webhook_secret: str | None = Field(default=None, max_length=64)  # signs each request
    remind_before_hours: list[float] = Field(
        default_factory=list, sa_column=Column(JSON, nullable=False)
    )


class Contact(SQLModel, table=True):
    """A seat's e-mail address (entered by the host at creation or by the player
    on its own page) and its unsubscribe key (in every e-mail's unsubscribe link)."""

    match_id: str = Field(foreign_key="match.id", primary_key=True, max_length=32)
    seat: int = Field(primary_key=True)
    email: str | None = Field(default=None, max_length=254)
    unsubscribe_key: str = Field(max_length=64, unique=True, index=True)
    unsubscribed: bool = False
    updated_at: datetime = Field(default_factory=utcnow)


class Message(SQLModel, table=True):
    """The transactional outbox: one e-mail or webhook request, written in the
    same transaction as the state change it tells of, delivered by
    ``referee notify`` (see :mod:`referee.notify.outbox`)."""

    __tablename__ = "outbox"
    # a sender's question (referee.notify.outbox._claim_one): pending and due
    __table_args__ = (Index("ix_outbox_status_due_at", "status", "due_at"),)

    id: int | None = Field(default=None, primary_key=True)
    match_id: str = Field(foreign_key="match.id", index=True, max_length=32)
    channel: str = Field(max_length=10)  # "email" or "webhook"
    event: str = Field(max_length=20)  # match_created, round_opened, reminder, ...
    seat: int | None = None  # the seat an e-mail is for (None: the webhook)
    recipient: str = Field(max_length=2000)  # the address or the webhook URL
    subject: str = Field(max_length=300)
    body: str  # the e-mail's text, or the webhook's JSON
    # stable across retries: the e-mail's Message-ID, the webhook's X-Referee-Delivery
    message_id: str = Field(max_length=80, unique=True)
    # one reminder per (round, deadline, lead time, seat): a second run adds none
    dedup_key: str | None = Field(default=None, max_length=200, unique=True)
    status: str = Field(default="pending", max_length=10)  # pending, sent, failed, skipped
    attempts: int = 0
    due_at: datetime = Field(default_factory=utcnow, index=True)
    claimed_until: datetime | None = None  # a sender's lease on it
    claimed_by: str | None = Field(default=None, max_length=80)
    last_error: str | None = Field(default=None, max_length=500)
    created_at: datetime = Field(default_factory=utcnow)
    sent_at: datetime | None = None


# ---- seasons (issue 15) ------------------------------------------------------------


class Season(SQLModel, table=True):
    """An elimination season: its roster, its garnet ledger and its episodes
    (a Main Match, then a Death Match) around ordinary matches."""

    id: str = Field(primary_key=True, max_length=32)
    name: str = Field(max_length=200)
    host_token_hash: str = Field(max_length=64, unique=True, index=True)
    # the host's season rules (referee.seasons.rules.check_rules): token_bonus, token_lasts
    rules: dict[str, Any] = Field(sa_column=Column(JSON, nullable=False))
    created_at: datetime = Field(default_factory=utcnow)
    version: int = 0  # bumped by every change, as a match's
    # sign-ups (issue 23, item 7; referee.seasons.signups): whether the sign-up link takes new
    # players now, and the SHA-256 of that derived link once it was first opened
    signups_open: bool = Field(default=False, sa_column_kwargs={"server_default": "0"})
    signup_hash: str | None = Field(default=None, max_length=64, unique=True, index=True)


class SeasonPlayer(SQLModel, table=True):
    """One player of a season, with a private link for the whole season."""

    __tablename__ = "season_player"

    season_id: str = Field(foreign_key="season.id", primary_key=True, max_length=32)
    # 1..n in roster order, then in join order; a player removed before the first Main
    # Match leaves a gap (referee.seasons.signups.Signups.remove): numbers are never reused while
    # a higher one exists, and nothing assumes 1..n
    number: int = Field(primary_key=True)
    name: str = Field(max_length=100)
    email: str | None = Field(default=None, max_length=254)
    token_hash: str = Field(max_length=64, unique=True, index=True)
    eliminated_in: int | None = None  # the episode whose Death Match they lost
    joined_at: datetime | None = None  # when they joined by the sign-up link (None: the host's)


class LedgerEntry(SQLModel, table=True):
    """One change of one player's garnets. Append-only: a mistake is put right by
    a new entry that names the one it corrects, never by editing or deleting."""

    __tablename__ = "ledger_entry"

    id: int | None = Field(default=None, primary_key=True)
    season_id: str = Field(foreign_key="season.id", index=True, max_length=32)
    player: int
    change: int
    reason: str = Field(max_length=200)
    episode: int | None = None
    match_id: str | None = Field(default=None, max_length=32)
    created_at: datetime = Field(default_factory=utcnow)
    entered_by: str = Field(max_length=10)  # "host" or "referee" (a season rule)
    corrects: int | None = None  # the entry this one puts right


class Episode(SQLModel, table=True):
    """One episode: its Main Match and what came of it, then its Death Match."""

    season_id: str = Field(foreign_key="season.id", primary_key=True, max_length=32)
    number: int = Field(primary_key=True)
    main_match_id: str | None = Field(default=None, max_length=32)
    # which derivation of the Main Match's host link is live
    # (referee.seasons.links.derived_host_token)
    main_host_issue: int = Field(default=0, sa_column_kwargs={"server_default": "0"})
    # seat -> player number, of the Main Match and of the Death Match
    main_seats: dict[str, int] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    token_holder: int | None = None  # the Main Match's Token of Life
    candidate: int | None = None  # its Elimination Candidate
    recorded_at: datetime | None = None  # when the Main Match's outcome was recorded
    token_used: bool = False  # the candidate spent a Token of Life: no Death Match
    opponent: int | None = None  # chosen by the candidate
    death_match_id: str | None = Field(default=None, max_length=32)
    death_host_issue: int = Field(default=0, sa_column_kwargs={"server_default": "0"})
    death_seats: dict[str, int] = Field(
        default_factory=dict, sa_column=Column(JSON, nullable=False)
    )
    loser: int | None = None  # of the Death Match: eliminated
    loser_by: str | None = Field(default=None, max_length=10)  # "match" or "host"
    created_at: datetime = Field(default_factory=utcnow)
