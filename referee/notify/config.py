"""The notification settings of one deployment, from the environment:

- ``REFEREE_PUBLIC_URL``: the base of every link in a message
  (``https://referee.example.org``), whatever a match recorded; unset: the
  address the host created the match at (none for a match created while mail
  was off, or a season's: its seats then cannot give an address);
- ``REFEREE_SMTP_URL``: the mail server (``smtp://127.0.0.1:8025``,
  ``smtp+starttls://user:password@mail.example.org``, ``smtps://...``); unset:
  this server sends no e-mail, and refuses addresses when a match is created;
- ``REFEREE_MAIL_FROM``: the e-mails' sender (default ``referee@localhost``);
- ``REFEREE_WEBHOOK_ALLOW_LOOPBACK=1``: webhooks may go to this machine (tests only).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

TRUE = ("1", "true", "yes", "on")


@dataclass(frozen=True)
class NotifyConfig:
    public_url: str | None = None
    smtp_url: str | None = None
    mail_from: str = "referee@localhost"
    allow_loopback: bool = False

    @property
    def mail_enabled(self) -> bool:
        return bool(self.smtp_url)

    @classmethod
    def from_mapping(cls, values: Mapping[str, Any], prefix: str = "") -> NotifyConfig:
        """From a Flask config (no prefix) or the environment (``REFEREE_``)."""

        def get(key: str) -> Any:
            return values.get(prefix + key)

        public = get("PUBLIC_URL") or get("PUBLIC_BASE_URL")
        loopback = get("WEBHOOK_ALLOW_LOOPBACK")
        return cls(
            public_url=str(public).rstrip("/") if public else None,
            smtp_url=str(get("SMTP_URL")) if get("SMTP_URL") else None,
            mail_from=str(get("MAIL_FROM") or "referee@localhost"),
            allow_loopback=loopback is True or str(loopback).lower() in TRUE,
        )

    @classmethod
    def from_env(cls) -> NotifyConfig:
        return cls.from_mapping(os.environ, "REFEREE_")
