"""referee.notify.webhook: which addresses may be reached, the URL check, signing,
and real POSTs to a local receiver (tests/notify/conftest.py)."""

from __future__ import annotations

import ipaddress
import socket
import ssl
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from referee.errors import RuleError
from referee.notify import webhook
from referee.notify.errors import DeliveryError
from referee.notify.webhook import (
    GuardedBackend,
    address_allowed,
    check_webhook_url,
    post_webhook,
    sign,
)

from .conftest import WebhookReceiver

PUBLIC_V4 = "93.184.216.34"

# -- address_allowed ---------------------------------------------------------------------

ALLOWED = [
    "93.184.216.34",
    "8.8.8.8",
    "1.1.1.1",
    "2606:4700:4700::1111",
    "2a00:1450:4001:80b::200e",
    "::ffff:93.184.216.34",  # IPv4-mapped public
    "2002:5db8:d822::1",  # 6to4 around 93.184.216.34
    "64:ff9b::5db8:d822",  # NAT64 around 93.184.216.34
]
REFUSED = [
    "10.0.0.5",
    "10.255.255.255",
    "172.16.0.1",
    "172.31.255.254",
    "192.168.1.1",
    "169.254.169.254",  # cloud metadata
    "169.254.0.1",
    "100.64.0.1",  # CGNAT
    "100.127.255.254",
    "0.0.0.0",
    "0.1.2.3",
    "224.0.0.1",
    "239.255.255.250",
    "240.0.0.1",
    "255.255.255.255",
    "192.0.2.1",  # documentation
    "198.51.100.7",
    "203.0.113.9",
    "198.18.0.1",  # benchmarking
    "::",
    "fe80::1",
    "fc00::1",
    "fd12:3456:789a::1",
    "fec0::1",  # site-local (deprecated, still not public)
    "ff02::1",
    "2001:db8::1",
    "::ffff:10.0.0.5",
    "::ffff:169.254.169.254",
    "::ffff:0.0.0.0",
    "2002:a00:5::1",  # 6to4 around 10.0.0.5
    "2002:a9fe:a9fe::1",  # 6to4 around 169.254.169.254
    "64:ff9b::a00:5",  # NAT64 around 10.0.0.5
    "64:ff9b::7f00:1",  # NAT64 around 127.0.0.1
    "64:ff9b:1::a00:5",  # local-use NAT64
    "2001:0:4136:e378:8000:63bf:3fff:fdd2",  # Teredo
    "::127.0.0.1",  # deprecated IPv4-compatible
]
LOOPBACK = ["127.0.0.1", "127.1.2.3", "::1", "::ffff:127.0.0.1"]


@pytest.mark.parametrize("text", ALLOWED)
def test_public_addresses_are_allowed(text: str) -> None:
    ip = ipaddress.ip_address(text)
    assert address_allowed(ip, allow_loopback=False)
    assert address_allowed(ip, allow_loopback=True)


@pytest.mark.parametrize("text", REFUSED)
def test_other_addresses_are_refused_even_with_loopback_allowed(text: str) -> None:
    ip = ipaddress.ip_address(text)
    assert not address_allowed(ip, allow_loopback=False)
    assert not address_allowed(ip, allow_loopback=True)


@pytest.mark.parametrize("text", LOOPBACK)
def test_loopback_only_with_the_flag(text: str) -> None:
    ip = ipaddress.ip_address(text)
    assert not address_allowed(ip, allow_loopback=False)
    assert address_allowed(ip, allow_loopback=True)


# -- check_webhook_url -------------------------------------------------------------------


@pytest.fixture
def fake_dns(monkeypatch: pytest.MonkeyPatch) -> dict[str, list[list[str]]]:
    """Names -> successive answers (the last one repeats); other names do not resolve."""
    answers: dict[str, list[list[str]]] = {}

    def resolve(host: str, port: int) -> list[Any]:
        if host not in answers:
            raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
        queue = answers[host]
        now = queue.pop(0) if len(queue) > 1 else queue[0]
        return [ipaddress.ip_address(a) for a in now]

    monkeypatch.setattr(webhook, "resolve_host", resolve)
    return answers


@pytest.mark.parametrize(
    "url",
    [
        "https://93.184.216.34/hook",
        "https://[2606:4700:4700::1111]:8443/x?y=1",
        "  https://93.184.216.34/api/webhooks/123/SECRET  ",
    ],
)
def test_public_https_literals_pass(url: str) -> None:
    assert check_webhook_url(url, allow_loopback=False) == url.strip()


def test_public_name_passes(fake_dns: dict[str, list[list[str]]]) -> None:
    fake_dns["hooks.example.org"] = [[PUBLIC_V4, "2606:4700::1"]]
    url = "https://hooks.example.org/services/T0/B0/XYZ"
    assert check_webhook_url(url, allow_loopback=False) == url


def test_unresolvable_name_passes(fake_dns: dict[str, list[list[str]]]) -> None:
    url = "https://not-yet.example.org/hook"
    assert check_webhook_url(url, allow_loopback=False) == url


@pytest.mark.parametrize(
    ("url", "words"),
    [
        (None, "must be text"),
        (42, "must be text"),
        ("", "empty"),
        ("https://example.org/" + "a" * 2000, "longer than 2000"),
        ("https://exa mple.org/", "spaces"),
        ("https://example.org/\x00", "control"),
        ("https://[::1/hook", "not a valid URL"),
        ("https://example.org:99999/", "not a valid URL"),
        ("ftp://example.org/", "must start with https://"),
        ("example.org/hook", "must start with https://"),
        ("javascript:alert(1)", "must start with https://"),
        ("http://93.184.216.34/hook", "must start with https://"),
        ("http://localhost:8080/hook", "must start with https://"),
        ("https://user:pass@93.184.216.34/hook", "user name or password"),
        ("https://user@93.184.216.34/hook", "user name or password"),
        ("https:///hook", "no host"),
        ("https://10.0.0.5/hook", "a private address 10.0.0.5"),
        ("https://169.254.169.254/latest/meta-data", "a link-local address 169.254.169.254"),
        ("https://[::1]/hook", "a loopback address"),
        ("https://127.0.0.1/hook", "a loopback address"),
        ("https://2130706433/hook", "a loopback address"),  # 127.0.0.1 as one number
        ("https://127.1/hook", "a loopback address"),
        ("https://0x7f.0.0.1/hook", "a loopback address"),
        ("https://[fc00::1]/hook", "a private address fc00::1"),
        ("https://[fe80::1%25eth0]/hook", "link-local"),
        ("https://0.0.0.0/hook", "0.0.0.0"),
        ("https://100.64.0.1/hook", "carrier-grade NAT"),
        ("https://[::ffff:10.0.0.5]/hook", "a private address"),
    ],
)
def test_bad_urls_are_refused(url: object, words: str) -> None:
    with pytest.raises(RuleError) as caught:
        check_webhook_url(url, allow_loopback=False, resolve=False)
    [problem] = caught.value.problems
    assert (problem.code, problem.field) == ("notify/bad_webhook", "webhook_url")
    assert words in problem.message


def test_a_name_resolving_to_a_private_address_is_refused(
    fake_dns: dict[str, list[list[str]]],
) -> None:
    fake_dns["intranet.example.org"] = [[PUBLIC_V4, "10.0.0.5"]]  # ANY bad address refuses
    with pytest.raises(RuleError) as caught:
        check_webhook_url("https://intranet.example.org/hook", allow_loopback=False)
    assert caught.value.problems[0].message == (
        "the webhook host intranet.example.org resolves to a private address 10.0.0.5"
    )
    # without resolving, the name itself is fine (the send checks again)
    assert check_webhook_url(
        "https://intranet.example.org/hook", allow_loopback=False, resolve=False
    )


def test_localhost_resolves_to_loopback_and_is_refused() -> None:
    """Real resolution (the system's resolver, no fake): localhost is this machine."""
    with pytest.raises(RuleError) as caught:
        check_webhook_url("https://localhost/hook", allow_loopback=False)
    assert "resolves to a loopback address" in caught.value.problems[0].message


@pytest.mark.parametrize(
    "url",
    [
        "http://localhost:8080/hook",
        "http://127.0.0.1:8080/hook",
        "http://[::1]:8080/hook",
        "https://localhost/hook",
        "https://127.0.0.1/hook",
    ],
)
def test_loopback_allowed_with_the_flag(url: str) -> None:
    assert check_webhook_url(url, allow_loopback=True) == url


@pytest.mark.parametrize("url", ["http://93.184.216.34/hook", "http://10.0.0.5/hook"])
def test_plain_http_elsewhere_refused_even_with_the_flag(url: str) -> None:
    with pytest.raises(RuleError):
        check_webhook_url(url, allow_loopback=True)


# -- sign --------------------------------------------------------------------------------


def test_sign_matches_rfc_4231_test_case_2() -> None:
    # RFC 4231 section 4.3: key "Jefe", data "what do ya want for nothing?"
    assert sign("Jefe", b"what do ya want for nothing?") == (
        "sha256=5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
    )


def test_sign_uses_utf8_secret_and_raw_body() -> None:
    body = '{"content":"Zoë"}'.encode()
    assert sign("sécret", body) != sign("sécret", body + b" ")
    assert sign("sécret", body) != sign("secret", body)
    assert sign("sécret", body).startswith("sha256=") and len(sign("s", b"")) == 7 + 64


# -- post_webhook against a real receiver ------------------------------------------------

BODY = '{"event":"round_opened","content":"Round 2 is open — Zoë","match":"m1"}'.encode()


def test_post_arrives_byte_exact(webhook_receiver: WebhookReceiver) -> None:
    signature = sign("the-secret", BODY)
    status = post_webhook(
        webhook_receiver.url,
        BODY,
        {"X-Referee-Signature": signature},
        allow_loopback=True,
    )
    assert status == 204
    [got] = webhook_receiver.wait_for(1)
    assert (got.method, got.path) == ("POST", "/hook")
    assert got.body == BODY
    assert got.headers["X-Referee-Signature"] == signature
    assert got.headers["Content-Type"] == "application/json"
    assert got.headers["User-Agent"] == "play-by-post-referee"
    assert got.headers["Host"] == f"127.0.0.1:{webhook_receiver.port}"


def test_post_by_name_with_the_flag(webhook_receiver: WebhookReceiver) -> None:
    url = f"http://localhost:{webhook_receiver.port}/hook"
    assert post_webhook(url, BODY, {}, allow_loopback=True) == 204
    assert webhook_receiver.wait_for(1)[0].body == BODY


@pytest.mark.parametrize(
    ("status", "permanent"),
    [
        (500, False),
        (502, False),
        (503, False),
        (408, False),
        (425, False),
        (429, False),
        (400, True),
        (401, True),
        (403, True),
        (404, True),
        (410, True),
        (413, True),
    ],
)
def test_status_mapping(webhook_receiver: WebhookReceiver, status: int, permanent: bool) -> None:
    webhook_receiver.status = status
    url = webhook_receiver.url + "/SECRET-TOKEN?key=SECRET-KEY"
    with pytest.raises(DeliveryError) as caught:
        post_webhook(url, BODY, {}, allow_loopback=True)
    err = caught.value
    assert err.permanent is permanent
    assert str(status) in err.message and "127.0.0.1" in err.message
    assert "SECRET" not in err.message
    assert len(webhook_receiver.requests) == 1


@pytest.mark.parametrize("status", [200, 201, 202, 204])
def test_2xx_is_success(webhook_receiver: WebhookReceiver, status: int) -> None:
    webhook_receiver.status = status
    assert post_webhook(webhook_receiver.url, BODY, {}, allow_loopback=True) == status


@pytest.mark.parametrize("status", [301, 302, 307, 308])
def test_redirect_is_permanent_and_not_followed(
    webhook_receiver: WebhookReceiver, status: int
) -> None:
    webhook_receiver.status = status
    with pytest.raises(DeliveryError) as caught:
        post_webhook(webhook_receiver.url, BODY, {}, allow_loopback=True)
    assert caught.value.permanent
    assert "redirect" in caught.value.message and "not followed" in caught.value.message
    assert [r.path for r in webhook_receiver.wait_for(1)] == ["/hook"]  # /elsewhere never asked


@pytest.fixture
def connect_calls(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, str]]:
    """Spy on GuardedBackend.connect_tcp: (host, "refused" | "connected") per call."""
    calls: list[tuple[str, str]] = []
    original = GuardedBackend.connect_tcp

    def spy(self: GuardedBackend, host: str, port: int, *args: Any, **kwargs: Any) -> Any:
        try:
            stream = original(self, host, port, *args, **kwargs)
        except webhook.AddressRefused:
            calls.append((host, "refused"))
            raise
        calls.append((host, "connected"))
        return stream

    monkeypatch.setattr(GuardedBackend, "connect_tcp", spy)
    return calls


def test_loopback_refused_at_connect_time(
    webhook_receiver: WebhookReceiver, connect_calls: list[tuple[str, str]]
) -> None:
    """The URL passes the creation check (a name, not resolved), but the name is
    this machine: the connect step refuses it and nothing reaches the receiver."""
    url = f"https://localhost:{webhook_receiver.port}/hook"
    assert check_webhook_url(url, allow_loopback=False, resolve=False) == url
    with pytest.raises(DeliveryError) as caught:
        post_webhook(url, BODY, {}, allow_loopback=False)
    assert caught.value.permanent
    assert caught.value.message == (
        "refused to connect to the webhook host: localhost resolves to "
        "a loopback address (this machine) 127.0.0.1, which is not allowed"
    )
    assert connect_calls == [("localhost", "refused")]
    assert webhook_receiver.requests == []


def test_dns_rebinding_refused_at_connect_time(
    webhook_receiver: WebhookReceiver,
    fake_dns: dict[str, list[list[str]]],
    connect_calls: list[tuple[str, str]],
) -> None:
    """The name is public when checked and this machine when connecting."""
    fake_dns["rebind.example.org"] = [[PUBLIC_V4], ["127.0.0.1"]]
    url = f"https://rebind.example.org:{webhook_receiver.port}/hook"
    assert check_webhook_url(url, allow_loopback=False) == url
    with pytest.raises(DeliveryError) as caught:
        post_webhook(url, BODY, {}, allow_loopback=False)
    assert caught.value.permanent
    assert "rebind.example.org resolves to a loopback address" in caught.value.message
    assert connect_calls == [("rebind.example.org", "refused")]
    assert webhook_receiver.requests == []


def test_connect_goes_to_the_checked_address(
    webhook_receiver: WebhookReceiver,
    fake_dns: dict[str, list[list[str]]],
    connect_calls: list[tuple[str, str]],
) -> None:
    """The guard resolves the name and connects to the very address it checked,
    not to whatever the system resolver says later: "localhost" made to mean
    127.0.0.2 (where nothing listens) fails, though the system says 127.0.0.1."""
    url = f"http://localhost:{webhook_receiver.port}/hook"
    fake_dns["localhost"] = [["127.0.0.2"], ["127.0.0.1"]]
    with pytest.raises(DeliveryError) as caught:
        post_webhook(url, BODY, {}, allow_loopback=True)
    assert not caught.value.permanent
    assert webhook_receiver.requests == []
    assert post_webhook(url, BODY, {}, allow_loopback=True) == 204
    assert connect_calls == [("localhost", "connected")]
    assert webhook_receiver.wait_for(1)[0].headers["Host"] == f"localhost:{webhook_receiver.port}"


def test_plain_http_name_must_stay_on_loopback(
    webhook_receiver: WebhookReceiver, fake_dns: dict[str, list[list[str]]]
) -> None:
    fake_dns["localhost"] = [[PUBLIC_V4]]
    with pytest.raises(DeliveryError) as caught:
        post_webhook(
            f"http://localhost:{webhook_receiver.port}/hook", BODY, {}, allow_loopback=True
        )
    assert caught.value.permanent
    assert "loopback only" in caught.value.message


def test_url_refused_at_send_time_too() -> None:
    with pytest.raises(DeliveryError) as caught:
        post_webhook("https://10.0.0.5/SECRET", BODY, {}, allow_loopback=False)
    assert caught.value.permanent
    assert "10.0.0.5" in caught.value.message and "SECRET" not in caught.value.message


def test_timeout_is_temporary(webhook_receiver: WebhookReceiver) -> None:
    webhook_receiver.delay = 2
    with pytest.raises(DeliveryError) as caught:
        post_webhook(webhook_receiver.url, BODY, {}, allow_loopback=True, timeout=0.3)
    assert not caught.value.permanent
    assert caught.value.message == "the webhook host 127.0.0.1 did not answer within 0.3 seconds"


def test_nothing_listening_is_temporary() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    with pytest.raises(DeliveryError) as caught:
        post_webhook(f"http://127.0.0.1:{port}/SECRET", BODY, {}, allow_loopback=True)
    assert not caught.value.permanent
    assert "could not reach the webhook host 127.0.0.1" in caught.value.message
    assert "SECRET" not in caught.value.message


@pytest.fixture
def endless_server() -> Iterator[tuple[int, list[int]]]:
    """Answers 200 with a body that never ends; records how many bytes it got out."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)
    sent: list[int] = []

    def serve() -> None:
        conn, _ = listener.accept()
        with conn:
            conn.recv(65536)
            conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\n")
            total = 0
            try:
                while total < 50 * 1024 * 1024:
                    conn.sendall(b"x" * 16384)
                    total += 16384
            except OSError:
                pass
            sent.append(total)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield listener.getsockname()[1], sent
    thread.join(timeout=10)
    listener.close()


def test_endless_answer_is_cut_short(endless_server: tuple[int, list[int]]) -> None:
    port, sent = endless_server
    assert post_webhook(f"http://127.0.0.1:{port}/hook", BODY, {}, allow_loopback=True) == 200
    # the client hung up after 64 KiB; the server could only push what socket buffers hold
    for _ in range(100):
        if sent:
            break
        threading.Event().wait(0.05)
    assert sent and sent[0] < 20 * 1024 * 1024


@pytest.fixture
def tls_server(tmp_path: Path) -> Iterator[tuple[int, list[str | None]]]:
    """A TLS server with a self-signed certificate for localhost (not trusted by the
    client); records the SNI name each handshake asks for."""
    key, cert = tmp_path / "key.pem", tmp_path / "cert.pem"
    subprocess.run(
        [
            *("openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1"),
            *("-subj", "/CN=localhost", "-keyout", str(key), "-out", str(cert)),
        ],
        check=True,
        capture_output=True,
    )
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.load_cert_chain(cert, key)
    names: list[str | None] = []

    def record_sni(_sock: ssl.SSLObject, name: str | None, _ctx: ssl.SSLContext) -> None:
        names.append(name)

    context.sni_callback = record_sni  # type: ignore[assignment]
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(1)

    def serve() -> None:
        conn, _ = listener.accept()
        with conn:
            try:
                with context.wrap_socket(conn, server_side=True) as tls:
                    tls.recv(1)
            except (ssl.SSLError, OSError):
                pass

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield listener.getsockname()[1], names
    thread.join(timeout=10)
    listener.close()


def test_tls_verifies_the_host_name_not_the_address(
    tls_server: tuple[int, list[str | None]],
) -> None:
    """The guard connects to 127.0.0.1, yet TLS asks for "localhost" (SNI) and the
    untrusted certificate is refused: a temporary failure that says TLS."""
    port, names = tls_server
    with pytest.raises(DeliveryError) as caught:
        post_webhook(f"https://localhost:{port}/hook", BODY, {}, allow_loopback=True, timeout=5)
    assert not caught.value.permanent
    assert "TLS failed" in caught.value.message
    assert "CERTIFICATE_VERIFY_FAILED" in caught.value.message
    assert names == ["localhost"]
