"""Real servers for the notification tests, on 127.0.0.1 only.

``smtp_server``
    An aiosmtpd SMTP server on a free port, collecting every message it accepts.
    Attributes and methods of the yielded :class:`SmtpServer`:

    - ``url``: ``"smtp://127.0.0.1:PORT"`` (give it to ``parse_smtp_url`` or
      ``REFEREE_SMTP_URL``);
    - ``messages``: a list of :class:`ReceivedMail` (``mail_from``, ``rcpt_tos``,
      ``message`` an :class:`email.message.EmailMessage` parsed with
      ``email.policy.default``, ``login`` the user name it logged in with or None);
    - ``wait_for(n, timeout=5)``: blocks until at least ``n`` messages arrived and
      returns the list (fails the test after ``timeout`` seconds);
    - ``refuse``: a set of addresses; RCPT TO one of them is answered
      ``550 5.1.1 no such user`` (``smtp_server.refuse.add("x@example.org")``);
    - ``logins``: user name -> password accepted by AUTH PLAIN/LOGIN (default
      ``{"referee": "s3cret-password"}``); logging in is optional.

``webhook_receiver``
    A real HTTP server (``http.server.ThreadingHTTPServer``) on a free port,
    recording every request. Attributes and methods of the yielded
    :class:`WebhookReceiver`:

    - ``url``: ``"http://127.0.0.1:PORT/hook"``; ``port``;
    - ``requests``: a list of :class:`ReceivedRequest` (``method``, ``path``,
      ``headers`` (an ``httpx.Headers``: a case-insensitive mapping), ``body``
      the raw bytes);
    - ``status``: the status every answer has (settable, default 204); a 3xx
      answer carries ``Location: /elsewhere``;
    - ``delay``: seconds to wait before answering (settable, default 0);
    - ``wait_for(n, timeout=5)``: as for ``smtp_server``.

Both are shut down after the test.
"""

from __future__ import annotations

import email.policy
import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from email.message import EmailMessage
from email.parser import BytesParser
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, TypeVar

import httpx
import pytest
from aiosmtpd.controller import Controller
from aiosmtpd.smtp import SMTP as SMTPServer
from aiosmtpd.smtp import AuthResult, Envelope, LoginPassword, Session

T = TypeVar("T")


def _wait(lock: threading.Condition, items: list[T], n: int, timeout: float, what: str) -> list[T]:
    with lock:
        if not lock.wait_for(lambda: len(items) >= n, timeout=timeout):
            raise AssertionError(f"expected {n} {what} within {timeout} s, got {len(items)}")
        return list(items)


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


# -- SMTP ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class ReceivedMail:
    mail_from: str
    rcpt_tos: list[str]
    message: EmailMessage
    login: str | None


@dataclass
class SmtpServer:
    url: str
    messages: list[ReceivedMail] = field(default_factory=list)
    refuse: set[str] = field(default_factory=set)
    logins: dict[str, str] = field(default_factory=lambda: {"referee": "s3cret-password"})
    lock: threading.Condition = field(default_factory=threading.Condition)

    def wait_for(self, n: int, timeout: float = 5) -> list[ReceivedMail]:
        return _wait(self.lock, self.messages, n, timeout, "e-mails")

    # aiosmtpd handler hooks ---------------------------------------------------------------

    async def handle_RCPT(
        self,
        server: SMTPServer,
        session: Session,
        envelope: Envelope,
        address: str,
        rcpt_options: list[str],
    ) -> str:
        if address.lower() in {a.lower() for a in self.refuse}:
            return "550 5.1.1 no such user"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server: SMTPServer, session: Session, envelope: Envelope) -> str:
        raw = envelope.original_content or b""
        parsed = BytesParser(policy=email.policy.default).parsebytes(raw)
        assert isinstance(parsed, EmailMessage)
        name = session.auth_data if isinstance(session.auth_data, str) else None
        with self.lock:
            self.messages.append(
                ReceivedMail(str(envelope.mail_from), list(envelope.rcpt_tos), parsed, name)
            )
            self.lock.notify_all()
        return "250 Message accepted for delivery"

    def authenticate(
        self, server: SMTPServer, session: Session, envelope: Envelope, mechanism: str, data: Any
    ) -> AuthResult:
        if isinstance(data, LoginPassword):
            user, password = data.login.decode(), data.password.decode()
            if self.logins.get(user) == password:
                return AuthResult(success=True, auth_data=user)
        return AuthResult(success=False, handled=False)


@pytest.fixture
def smtp_server() -> Iterator[SmtpServer]:
    port = _free_port()
    server = SmtpServer(url=f"smtp://127.0.0.1:{port}")
    controller = Controller(
        server,
        hostname="127.0.0.1",
        port=port,
        authenticator=server.authenticate,
        auth_require_tls=False,
        enable_SMTPUTF8=True,
    )
    controller.start()
    try:
        yield server
    finally:
        controller.stop()


# -- HTTP ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class ReceivedRequest:
    method: str
    path: str
    headers: httpx.Headers
    body: bytes


@dataclass
class WebhookReceiver:
    url: str
    port: int
    requests: list[ReceivedRequest] = field(default_factory=list)
    status: int = 204
    delay: float = 0.0
    lock: threading.Condition = field(default_factory=threading.Condition)

    def wait_for(self, n: int, timeout: float = 5) -> list[ReceivedRequest]:
        return _wait(self.lock, self.requests, n, timeout, "webhook requests")

    def record(self, request: ReceivedRequest) -> None:
        with self.lock:
            self.requests.append(request)
            self.lock.notify_all()


def _handler(receiver: WebhookReceiver) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def _any(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else b""
            receiver.record(
                ReceivedRequest(
                    self.command, self.path, httpx.Headers(list(self.headers.items())), body
                )
            )
            if receiver.delay:
                time.sleep(receiver.delay)
            status = receiver.status
            self.send_response(status)
            if 300 <= status < 400:
                self.send_header("Location", "/elsewhere")
            self.send_header("Content-Length", "0")
            self.end_headers()

        do_POST = do_GET = do_PUT = _any

        def log_message(self, format: str, *args: Any) -> None:
            pass  # keep pytest's output clean

    return Handler


@pytest.fixture
def webhook_receiver() -> Iterator[WebhookReceiver]:
    receiver = WebhookReceiver(url="", port=0)
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler(receiver))
    httpd.daemon_threads = True
    receiver.port = httpd.server_address[1]
    receiver.url = f"http://127.0.0.1:{receiver.port}/hook"
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05})
    thread.start()
    try:
        yield receiver
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(timeout=5)
