"""A match's notification and schedule settings as a host sends them, checked:
every problem named, with stable codes (``notify/bad_email``,
``notify/bad_webhook``, ``notify/bad_reminders``, ``schedule/...``)."""

from __future__ import annotations

import re
import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from email_validator import EmailNotValidError, validate_email

from referee.errors import Problem, RuleError
from referee.markup import one_line

DEFAULT_REMINDERS: tuple[float, ...] = (24.0, 2.0)
MAX_REMINDERS = 5
MAX_LEAD_HOURS = 24 * 60
_SEAT_KEY = re.compile(r"[1-9][0-9]{0,2}")  # "1", never "01" nor other scripts' digits
NOTIFY_KEYS = ("emails", "webhook_url", "remind_before_hours")
SCHEDULE_KEYS = ("auto_open", "hours_per_round")


@dataclass(frozen=True)
class NotifyRequest:
    """Checked: seat -> address, the webhook (or None), reminder lead times."""

    emails: dict[int, str] = field(default_factory=dict)
    webhook_url: str | None = None
    remind_before_hours: tuple[float, ...] = DEFAULT_REMINDERS

    @property
    def wanted(self) -> bool:
        return bool(self.emails or self.webhook_url)


def check_email(value: object, where: str) -> str:
    """One address, normalised (domain lower-cased, IDNA); refused with a message
    naming ``where`` (``seat 2``). No DNS look-up: a host may type an address of
    a domain this machine cannot resolve."""
    if not isinstance(value, str) or not value.strip():
        raise RuleError.single("notify/bad_email", f"{where}: the e-mail address is empty")
    if len(value) > 254:
        raise RuleError.single("notify/bad_email", f"{where}: the e-mail address is too long")
    try:
        checked = validate_email(value.strip(), check_deliverability=False)
    except EmailNotValidError as exc:
        raise RuleError.single(
            "notify/bad_email",
            f"{where}: '{one_line(value)[:80]}' is not an e-mail address ({exc})",
        ) from None
    return str(checked.normalized)


def check_notify(
    raw: object, seats: Sequence[int], *, mail_enabled: bool, allow_loopback: bool
) -> NotifyRequest:
    """The ``notify`` object of a new match (None: nothing)."""
    if raw is None:
        return NotifyRequest()
    if not isinstance(raw, Mapping):
        raise RuleError.single("notify/not_an_object", "'notify' must be an object")
    problems: list[Problem] = []
    for key in raw:
        if key not in NOTIFY_KEYS:
            problems.append(
                Problem(
                    "notify/unknown",
                    f"unknown key '{one_line(key)[:40]}' in 'notify' "
                    f"(known: {', '.join(NOTIFY_KEYS)})",
                    "notify",
                )
            )
    emails: dict[int, str] = {}
    given = raw.get("emails")
    given = {} if given is None else given
    if not isinstance(given, Mapping):
        problems.append(
            Problem("notify/bad_email", "'emails' must map seat numbers to addresses", "emails")
        )
        given = {}
    for key, value in given.items():
        seat = int(key) if isinstance(key, str) and _SEAT_KEY.fullmatch(key) else None
        if seat is None or seat not in seats:
            problems.append(
                Problem(
                    "notify/bad_email",
                    f"'emails' names seat '{one_line(key)[:20]}', but the seats are "
                    f"{', '.join(str(s) for s in seats)}",
                    "emails",
                )
            )
            continue
        if value is None or value == "":
            continue
        try:
            emails[seat] = check_email(value, f"seat {seat}")
        except RuleError as exc:
            problems.extend(Problem(p.code, p.message, f"email_{seat}") for p in exc.problems)
    if emails and not mail_enabled:
        problems.append(
            Problem(
                "notify/no_mail",
                "this server sends no e-mail (its operator has set no REFEREE_SMTP_URL), "
                "so it cannot take e-mail addresses",
                "emails",
            )
        )
    webhook: str | None = None
    url = raw.get("webhook_url")
    if url not in (None, ""):
        from referee.notify.webhook import check_webhook_url

        try:
            webhook = check_webhook_url(url, allow_loopback=allow_loopback)
        except RuleError as exc:
            problems.extend(exc.problems)
    reminders = DEFAULT_REMINDERS
    if "remind_before_hours" in raw:
        try:
            reminders = check_reminders(raw["remind_before_hours"])
        except RuleError as exc:
            problems.extend(exc.problems)
    if problems:
        raise RuleError(problems)
    return NotifyRequest(emails, webhook, reminders)


def check_reminders(value: object) -> tuple[float, ...]:
    """Lead times in hours before a deadline, each above 0 and at most 60 days;
    at most five; [] for none. Sorted longest first, without repeats."""
    bad = RuleError.single(
        "notify/bad_reminders",
        f"'remind_before_hours' must be a list of at most {MAX_REMINDERS} numbers of hours, "
        f"each above 0 and at most {MAX_LEAD_HOURS}, not {one_line(repr(value))[:80]}",
        "remind_before_hours",
    )
    if not isinstance(value, list | tuple) or len(value) > MAX_REMINDERS:
        raise bad
    out: set[float] = set()
    for hours in value:
        ok = isinstance(hours, int | float) and not isinstance(hours, bool)
        if not ok or not 0 < hours <= MAX_LEAD_HOURS:
            raise bad
        out.add(float(hours))
    return tuple(sorted(out, reverse=True))


def schedule_settings(raw: object) -> dict[str, Any]:
    """The ``schedule`` object of a new match as the match settings it stands
    for: ``auto_open`` and ``hours_per_round`` (the rounds' ``deadline_hours``)."""
    if raw is None:
        return {}
    if not isinstance(raw, Mapping):
        raise RuleError.single("schedule/not_an_object", "'schedule' must be an object")
    problems: list[Problem] = []
    out: dict[str, Any] = {}
    for key, value in raw.items():
        if key == "auto_open":
            out["auto_open"] = value
        elif key == "hours_per_round":
            out["deadline_hours"] = value
        else:
            problems.append(
                Problem(
                    "schedule/unknown",
                    f"unknown key '{one_line(key)[:40]}' in 'schedule' "
                    f"(known: {', '.join(SCHEDULE_KEYS)})",
                    "schedule",
                )
            )
    if problems:
        raise RuleError(problems)
    return out


def new_secret() -> str:
    return secrets.token_hex(32)
