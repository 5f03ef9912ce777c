"""``referee serve``: the app under gunicorn, configured from the command line.

By default one worker process serves requests on several threads, so the
in-memory rate-limit counts (``referee.web.ratelimit``) are the server's one
count and the documented limits hold exactly. Several worker processes each
keep their own counts unless they share a storage (Redis): :func:`serve`
refuses that mix rather than quietly multiply the limits.

The access log never holds a secret link: a token in a ``/host/...`` or
``/play/...`` path (or in a Referer) is written as ``<token>``, and the
``Authorization`` header is never logged.
"""

from __future__ import annotations

import re
from typing import Any

from flask import Config
from gunicorn.app.base import BaseApplication
from gunicorn.glogging import Logger

# secret links, one-time link e-mails' links, unsubscribe keys and seat calendar keys
_SECRET_PATH = re.compile(r"/(host|play|link|unsubscribe|season-host|season)/[^/?#\s]+")
_CALENDAR_KEY = re.compile(r"(/seats/\d+/calendar/)[^/?#\s]+")


def redact(text: str) -> str:
    """``text`` (a path, request line or URL) with secret-link tokens replaced."""
    return _CALENDAR_KEY.sub(r"\1<key>", _SECRET_PATH.sub(r"/\1/<token>", text))


class RedactingLogger(Logger):  # type: ignore[misc]  # gunicorn is untyped
    """gunicorn's logger, with secret links taken out of every access-log atom
    that can carry a URL."""

    def atoms(self, resp: Any, req: Any, environ: Any, request_time: Any) -> dict[str, Any]:
        atoms: dict[str, Any] = super().atoms(resp, req, environ, request_time)
        for key in list(atoms):
            if key == "{authorization}i":
                atoms[key] = "<hidden>"
            elif isinstance(atoms[key], str) and "/" in atoms[key]:
                atoms[key] = redact(atoms[key])
        return atoms


class _Server(BaseApplication):  # type: ignore[misc]  # gunicorn is untyped
    def __init__(self, options: dict[str, Any], notify_every: int = 0) -> None:
        self.options = options
        self.notify_every = notify_every
        super().__init__()

    def load_config(self) -> None:
        for key, value in self.options.items():
            self.cfg.set(key, value)

    def load(self) -> Any:
        from referee.web import create_app

        # the database was migrated by `referee serve` before the workers started
        # each worker process runs the background sender (issue 14), if asked to
        return create_app({"AUTO_MIGRATE": False, "NOTIFY_EVERY": self.notify_every})


def shared_counts_problem(workers: int) -> str | None:
    """Why ``workers`` processes would not enforce the rate limits as documented
    (None when they would): the counts live in each process's memory."""
    if workers <= 1:
        return None
    # the settings as the app will read them (referee.web.create_app)
    config = Config("")
    config.from_prefixed_env("REFEREE")
    if not config.get("RATELIMIT_ENABLED", True):
        return None
    if not str(config.get("RATELIMIT_STORAGE_URI") or "memory://").startswith("memory://"):
        return None
    return (
        f"{workers} worker processes would each keep their own rate-limit counts, "
        f"allowing {workers} times the documented limits. Serve with one worker and "
        "more --threads (the default), or share the counts: "
        "REFEREE_RATELIMIT_STORAGE_URI=redis://127.0.0.1:6379"
    )


def serve(host: str, port: int, workers: int, threads: int = 8, notify_every: int = 0) -> None:
    options: dict[str, Any] = {
        "bind": f"{host}:{port}",
        "workers": workers,
        "threads": threads,
        "accesslog": "-",
        "logger_class": RedactingLogger,
        "timeout": 60,
        # several servers may run on one machine (tests, benchmarks): no shared
        # control socket in the home folder
        "control_socket_disable": True,
    }
    if threads > 1:
        options["worker_class"] = "gthread"
    _Server(options, notify_every).run()
