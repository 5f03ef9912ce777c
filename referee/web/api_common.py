"""Reading a JSON API request, for the match API (:mod:`referee.web.api`) and
the season API (:mod:`referee.web.season_api`): the bearer token, the JSON
body (strictly parsed, plain text only) and the server's admin key."""

from __future__ import annotations

import hmac
from collections.abc import Iterable
from typing import Any

from flask import current_app, request

from referee.errors import Problem, RuleError
from referee.jsonio import loads_strict
from referee.web.common import check_text


def json_body() -> Any:
    """The request's JSON body, strictly parsed (repeated keys are refused), with
    plain text only in its strings."""
    data = request.get_data(cache=True)
    if not data.strip():
        return {}
    body = loads_strict(data, "the request body")
    check_text(body, "the request body")
    return body


def object_body(known: Iterable[str]) -> dict[str, Any]:
    """The body as a JSON object with only ``known`` keys (a misspelt key is
    refused rather than silently ignored)."""
    body = json_body()
    if not isinstance(body, dict):
        raise RuleError.single("request/not_an_object", "the request body must be a JSON object")
    allowed = list(known)
    unknown = [k for k in body if k not in allowed]
    if unknown:
        expected = ", ".join(allowed) if allowed else "nothing"
        raise RuleError(
            Problem("request/unknown_field", f"unknown key '{k}' (this call takes {expected})", k)
            for k in unknown
        )
    return body


def bearer() -> str | None:
    header = request.headers.get("Authorization", "")
    scheme, _, token = header.partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        return None
    return token.strip()


def check_admin_key(what: str) -> None:
    """On a server with an admin key, only its holders create ``what`` (matches,
    seasons): ``auth/unauthorized`` for anyone else."""
    admin_key = current_app.config.get("ADMIN_KEY")
    if admin_key:
        token = bearer() or ""
        if not hmac.compare_digest(token.encode(), str(admin_key).encode()):
            raise RuleError.single(
                "auth/unauthorized", f"creating {what} on this server needs the admin key"
            )
