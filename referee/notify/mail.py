"""Sending one e-mail through SMTP (issue 14).

The server is configured as one URL (``REFEREE_SMTP_URL``), parsed once by
:func:`parse_smtp_url`; :func:`send_mail` hands one finished
:class:`email.message.EmailMessage` to that server with :mod:`smtplib` and
either returns (the server took it) or raises
:class:`~referee.notify.errors.DeliveryError` saying what went wrong and whether
trying again can help. Composing messages and deciding when to send are the
outbox's business, not this module's. Nothing here logs: the caller shows the
error to the host, and a password never appears in any message.
"""

from __future__ import annotations

import contextlib
import smtplib
import ssl
from dataclasses import dataclass, field
from email.message import EmailMessage
from email.utils import getaddresses
from typing import Literal
from urllib.parse import unquote, urlsplit

from referee.errors import RuleError
from referee.notify.errors import DeliveryError

Security = Literal["plain", "starttls", "tls"]

# scheme -> (how the connection is protected, the port when none is given)
_SCHEMES: dict[str, tuple[Security, int]] = {
    "smtp": ("plain", 25),
    "smtp+starttls": ("starttls", 587),
    "smtps": ("tls", 465),
}

_URL_CODE = "notify/bad_smtp_url"


@dataclass(frozen=True)
class SmtpTarget:
    """Where and how to hand mail over; ``password`` is kept out of ``repr``
    so that a target printed in a traceback or a log does not leak it."""

    host: str
    port: int
    security: Security
    username: str | None
    password: str | None = field(repr=False)


def parse_smtp_url(url: str) -> SmtpTarget:
    """Read ``smtp://``, ``smtp+starttls://`` or ``smtps://`` ``[user:password@]host[:port]``.

    Refusals name the part that is wrong but never repeat the URL, since it may
    hold a password.
    """
    if not isinstance(url, str) or not url.strip():
        raise RuleError.single(_URL_CODE, "the SMTP URL is empty")
    text = url.strip()
    if any(ch.isspace() or ord(ch) < 32 or ord(ch) == 127 for ch in text):
        raise RuleError.single(_URL_CODE, "the SMTP URL contains spaces or control characters")
    try:
        parts = urlsplit(text)
        port_given = parts.port
    except ValueError:
        raise RuleError.single(
            _URL_CODE, "the SMTP URL's port is not a number from 1 to 65535"
        ) from None
    scheme = parts.scheme.lower()
    if scheme not in _SCHEMES:
        shown = f"'{scheme}://'" if scheme else "no scheme"
        raise RuleError.single(
            _URL_CODE,
            f"the SMTP URL must start with smtp://, smtp+starttls:// or smtps:// (it has {shown})",
        )
    if parts.path not in ("", "/") or parts.query or parts.fragment:
        raise RuleError.single(
            _URL_CODE, "the SMTP URL must be only [user:password@]host[:port], with nothing after"
        )
    host = parts.hostname
    if not host:
        raise RuleError.single(_URL_CODE, "the SMTP URL has no host name")
    if port_given == 0:
        raise RuleError.single(_URL_CODE, "the SMTP URL's port is not a number from 1 to 65535")
    username = unquote(parts.username) if parts.username is not None else None
    password = unquote(parts.password) if parts.password is not None else None
    if (username is None) != (password is None) or username == "":
        raise RuleError.single(
            _URL_CODE,
            "the SMTP URL must give both a user name and a password (user:password@host), "
            "or neither",
        )
    if not (username or "").isascii() or not (password or "").isascii():
        raise RuleError.single(
            _URL_CODE,
            "the SMTP URL's user name and password must be ASCII (SMTP logins send them so)",
        )
    security, default_port = _SCHEMES[scheme]
    return SmtpTarget(
        host=host,
        port=port_given if port_given is not None else default_port,
        security=security,
        username=username,
        password=password,
    )


def send_mail(target: SmtpTarget, message: EmailMessage, *, timeout: float = 15.0) -> None:
    """Hand ``message`` to the server for every address in its ``To`` header.

    Returns once the server has accepted it for every recipient. Raises
    :class:`DeliveryError`: permanent for a 5xx answer (a refused address, a
    refused sender, a failed login), temporary for a 4xx answer, a refused or
    dropped connection, a timeout or a TLS failure.
    """
    recipients = [addr for _name, addr in getaddresses(message.get_all("To", [])) if addr]
    if not recipients:
        raise DeliveryError("the message has no address in its To header", permanent=True)
    where = f"{target.host}:{target.port}"
    try:
        _send(target, message, recipients, timeout)
    except DeliveryError:
        raise
    except smtplib.SMTPRecipientsRefused as exc:
        raise _refused(exc.recipients, target, everyone=True) from None
    except smtplib.SMTPResponseException as exc:
        raise _answered(exc, target) from None
    except smtplib.SMTPNotSupportedError as exc:
        raise DeliveryError(
            f"the mail server {where} does not support what the SMTP URL asks for: "
            f"{_clean(str(exc), target)}"
        ) from None
    except ssl.SSLError as exc:
        raise DeliveryError(
            f"could not set up TLS with the mail server {where}: {_clean(_ssl_reason(exc), target)}"
        ) from None
    except TimeoutError:
        raise DeliveryError(
            f"the mail server {where} did not answer within {timeout:g} seconds"
        ) from None
    except ConnectionRefusedError:
        raise DeliveryError(
            f"could not connect to the mail server {where}: the connection was refused "
            "(nothing listening there?)"
        ) from None
    except smtplib.SMTPServerDisconnected as exc:
        if isinstance(exc.__cause__ or exc.__context__, TimeoutError):  # smtplib wraps it so
            raise DeliveryError(
                f"the mail server {where} did not answer within {timeout:g} seconds"
            ) from None
        raise DeliveryError(
            f"the mail server {where} closed the connection: {_clean(str(exc), target)}"
        ) from None
    except UnicodeError:
        raise DeliveryError(
            f"the message cannot be sent through the mail server {where}: an address or "
            "header is not ASCII and the server does not accept UTF-8",
            permanent=True,
        ) from None
    except (smtplib.SMTPException, OSError) as exc:
        raise DeliveryError(
            f"could not deliver through the mail server {where}: {_clean(str(exc), target)}"
        ) from None


def _send(target: SmtpTarget, message: EmailMessage, recipients: list[str], timeout: float) -> None:
    """One SMTP session: connect, protect, log in, send, then quit politely.

    A failure after the server accepted the message (at QUIT) is ignored: the
    mail is on its way, and reporting it as failed would send it twice.
    """
    context = ssl.create_default_context()
    smtp: smtplib.SMTP
    if target.security == "tls":
        smtp = smtplib.SMTP_SSL(target.host, target.port, timeout=timeout, context=context)
    else:
        smtp = smtplib.SMTP(target.host, target.port, timeout=timeout)
    try:
        smtp.ehlo_or_helo_if_needed()
        if target.security == "starttls":
            smtp.starttls(context=context)
            smtp.ehlo()
        if target.username is not None and target.password is not None:
            smtp.login(target.username, target.password)
        refused = smtp.send_message(message, to_addrs=recipients)
        with contextlib.suppress(smtplib.SMTPException, OSError):
            smtp.quit()
    finally:
        smtp.close()
    if refused:
        raise _refused(refused, target, everyone=False)


def _refused(
    refused: dict[str, tuple[int, bytes]], target: SmtpTarget, *, everyone: bool
) -> DeliveryError:
    """Words for addresses the server would not take; permanent only when every
    refusal is a 5xx (a 4xx, e.g. greylisting, may pass later)."""
    listed = "; ".join(
        f"{addr}: {code} {_clean(_text(reply), target)}".rstrip()
        for addr, (code, reply) in refused.items()
    )
    plural = "addresses" if len(refused) > 1 else "address"
    lead = f"the mail server refused the {plural}: {listed}"
    if not everyone:
        lead += " (the message went to the other recipients)"
    permanent = all(500 <= code < 600 for code, _reply in refused.values())
    return DeliveryError(lead, permanent=permanent)


def _answered(exc: smtplib.SMTPResponseException, target: SmtpTarget) -> DeliveryError:
    """Words for an SMTP error answer: 5xx permanent, anything else temporary."""
    code = exc.smtp_code
    reply = _clean(_text(exc.smtp_error), target)
    what = {
        smtplib.SMTPAuthenticationError: "did not accept the SMTP URL's user name and password",
        smtplib.SMTPSenderRefused: "refused the sender address",
        smtplib.SMTPDataError: "refused the message",
        smtplib.SMTPConnectError: "refused the connection",
        smtplib.SMTPHeloError: "refused the greeting",
    }.get(type(exc), "answered with an error")
    shown = f"{code} {reply}".strip() if code > 0 else reply
    return DeliveryError(
        f"the mail server {target.host}:{target.port} {what}: {shown}",
        permanent=500 <= code < 600,
    )


def _text(reply: bytes | str) -> str:
    return reply.decode("utf-8", "replace") if isinstance(reply, bytes) else str(reply)


def _ssl_reason(exc: ssl.SSLError) -> str:
    return str(exc.reason or exc.strerror or exc)


def _clean(text: str, target: SmtpTarget) -> str:
    """Strip a password out of text that came from elsewhere (a server's reply
    could in principle echo it) and fold it onto one line."""
    if target.password:
        text = text.replace(target.password, "***")
    return " ".join(text.split())
