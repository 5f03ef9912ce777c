"""Sending one webhook request, to public addresses only (issue 14).

A match's webhook URL is chosen by its host, so the referee must not become a
way to reach what only the server can reach: private networks, a cloud's
metadata address (169.254.169.254), the machine itself. The URL is checked when
the match is created (:func:`check_webhook_url`), and checked again where it
matters, at connect time: :class:`GuardedBackend` resolves the name itself,
refuses unless every address is allowed (:func:`address_allowed`) and connects
to the address it checked, so a name that changes its answer between check and
connect (DNS rebinding) gains nothing. TLS still verifies the certificate for
the URL's host name, since httpcore sends that name (SNI), not the address.

Error messages name the host and the status but never the URL's path: Discord
and Slack put the webhook's secret there.
"""

from __future__ import annotations

import hashlib
import hmac
import ipaddress
import socket
import ssl
import time
from collections.abc import Iterable, Iterator, Mapping
from typing import Any, cast
from urllib.parse import urlsplit

import httpcore
import httpx

from referee.errors import RuleError
from referee.notify.errors import DeliveryError

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

MAX_URL_LENGTH = 2000
MAX_RESPONSE_BYTES = 64 * 1024
USER_AGENT = "play-by-post-referee"

_CODE = "notify/bad_webhook"
_FIELD = "webhook_url"
_LOCALHOST_NAMES = ("localhost", "localhost.")
# NAT64 prefixes (RFC 6052 well-known, RFC 8215 local-use): the last 32 bits are an IPv4 address
_NAT64 = (ipaddress.ip_network("64:ff9b::/96"), ipaddress.ip_network("64:ff9b:1::/48"))


# -- which addresses may be reached ------------------------------------------------------


def address_allowed(ip: IPAddress, *, allow_loopback: bool) -> bool:
    """True for a global unicast address, or a loopback one when ``allow_loopback``.

    IPv6 forms that carry an IPv4 address (IPv4-mapped ``::ffff:a.b.c.d``, 6to4
    ``2002::/16``, Teredo, NAT64 ``64:ff9b::/96``) are judged by that IPv4
    address too, since a packet to them may end up there.
    """
    if ip.is_loopback:
        return allow_loopback
    if isinstance(ip, ipaddress.IPv6Address):
        inner = _embedded_ipv4(ip)
        if inner is not None:
            if ip.ipv4_mapped is not None:
                return address_allowed(inner, allow_loopback=allow_loopback)
            if not address_allowed(inner, allow_loopback=False):
                return False
            # the wrapper itself must be routable too (6to4 and NAT64 well-known are;
            # NAT64 local-use and Teredo fall to the checks below)
            if ip in _NAT64[0] or ip.sixtofour is not None:
                return True
        if ip.is_site_local or ip.scope_id:
            return False
    return bool(
        ip.is_global
        and not ip.is_private
        and not ip.is_multicast
        and not ip.is_reserved
        and not ip.is_unspecified
        and not ip.is_link_local
    )


def _embedded_ipv4(ip: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    if ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    if ip.sixtofour is not None:
        return ip.sixtofour
    if ip.teredo is not None:
        return ip.teredo[1]
    if any(ip in net for net in _NAT64):
        return ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
    return None


def describe(ip: IPAddress) -> str:
    """What kind of address ``ip`` is, in words for a refusal ("a private address 10.0.0.5")."""
    inner = _embedded_ipv4(ip) if isinstance(ip, ipaddress.IPv6Address) else None
    probe: IPAddress = (
        inner if inner is not None and not address_allowed(inner, allow_loopback=False) else ip
    )
    if probe.is_loopback:
        kind = "a loopback address (this machine)"
    elif probe.is_unspecified:
        kind = "an unspecified address"
    elif probe.is_link_local:
        kind = "a link-local address"
    elif probe.is_multicast:
        kind = "a multicast address"
    elif isinstance(probe, ipaddress.IPv4Address) and probe in ipaddress.ip_network(
        "100.64.0.0/10"
    ):
        kind = "a shared (carrier-grade NAT) address"
    elif probe.is_reserved:
        kind = "a reserved address"
    elif isinstance(probe, ipaddress.IPv6Address) and probe.is_site_local:
        kind = "a site-local address"
    elif probe.is_private:
        kind = "a private address"
    else:
        kind = "an address that is not public"
    return f"{kind} {ip}"


def resolve_host(host: str, port: int) -> list[IPAddress]:
    """Every address ``host`` resolves to, in the resolver's order (duplicates dropped).

    Raises :class:`socket.gaierror` when the name does not resolve. One
    function so that the creation-time check and the connect-time check ask
    the same question (and tests can stand in for DNS).
    """
    found: list[IPAddress] = []
    for _family, _type, _proto, _canon, sockaddr in socket.getaddrinfo(
        host, port, type=socket.SOCK_STREAM
    ):
        ip = ipaddress.ip_address(str(sockaddr[0]).split("%", 1)[0])
        if ip not in found:
            found.append(ip)
    return found


# -- the URL a host gives ----------------------------------------------------------------


def check_webhook_url(url: object, *, allow_loopback: bool, resolve: bool = True) -> str:
    """The webhook URL, stripped, once it is safe to store; otherwise a
    ``notify/bad_webhook`` :class:`RuleError` on ``webhook_url``.

    With ``resolve`` the name is looked up and every address must be allowed; a
    name that does not resolve at all is accepted, since the send checks again.
    """
    if not isinstance(url, str):
        raise _bad("the webhook address must be text")
    text = url.strip()
    if not text:
        raise _bad("the webhook address is empty")
    if len(text) > MAX_URL_LENGTH:
        raise _bad(f"the webhook address is longer than {MAX_URL_LENGTH} characters")
    if any(ch.isspace() or ord(ch) < 32 or 127 <= ord(ch) < 160 for ch in text):
        raise _bad("the webhook address contains spaces or control characters")
    try:
        parts = urlsplit(text)
        port = parts.port
    except ValueError:
        raise _bad("the webhook address is not a valid URL (check the host and port)") from None
    scheme = parts.scheme.lower()
    if scheme not in ("https", "http"):
        raise _bad("the webhook address must start with https://")
    if "@" in parts.netloc:
        raise _bad("the webhook address must not contain a user name or password (user:pass@)")
    host = parts.hostname
    if not host:
        raise _bad("the webhook address has no host name")
    if port == 0:
        raise _bad("the webhook address has port 0, which cannot be reached")
    if not host.strip("."):
        raise _bad("the webhook address has no host name")
    literal = ip_literal(host)
    try:
        httpx.URL(text)
        if literal is None:
            host.encode("idna")
    except (httpx.InvalidURL, UnicodeError):
        raise _bad("the webhook address's host name is not valid") from None
    if scheme == "http":
        loopback = host in _LOCALHOST_NAMES or (literal is not None and literal.is_loopback)
        if not (allow_loopback and loopback):
            raise _bad("the webhook address must start with https:// (http:// is not encrypted)")
    if literal is not None:
        if not address_allowed(literal, allow_loopback=allow_loopback):
            raise _bad(f"the webhook host is {describe(literal)}, not a public address")
        return text
    if resolve:
        try:
            addresses = resolve_host(host, port or (443 if scheme == "https" else 80))
        except (OSError, UnicodeError):
            return text  # does not resolve now; the send checks again
        for ip in addresses:
            if not address_allowed(ip, allow_loopback=allow_loopback):
                raise _bad(f"the webhook host {host} resolves to {describe(ip)}")
    return text


def ip_literal(host: str) -> IPAddress | None:
    """The address a host part names directly, or None for a name.

    Beyond what :mod:`ipaddress` reads, this accepts the old numeric IPv4 forms
    that the C resolver also takes ("127.1", "2130706433", "0x7f000001"), so
    they cannot pass as names. A zone ("fe80::1%eth0") is dropped.
    """
    bare = host.strip("[]").split("%", 1)[0]
    try:
        return ipaddress.ip_address(bare)
    except ValueError:
        pass
    if ":" in bare or not bare:
        return None
    try:
        return ipaddress.IPv4Address(socket.inet_aton(bare))
    except OSError:
        return None


def _bad(message: str) -> RuleError:
    return RuleError.single(_CODE, message, _FIELD)


# -- signing -----------------------------------------------------------------------------


def sign(secret: str, body: bytes) -> str:
    """The ``X-Referee-Signature`` value: ``sha256=`` and the HMAC-SHA256 of the raw body."""
    return "sha256=" + hmac.new(secret.encode("utf-8"), body, hashlib.sha256).hexdigest()


# -- sending -----------------------------------------------------------------------------


class AddressRefused(Exception):
    """Raised by :class:`GuardedBackend` instead of connecting to an address
    that is not allowed; ``message`` says which, in words."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class GuardedBackend(httpcore.NetworkBackend):
    """An httpcore network backend that connects only to allowed addresses.

    It resolves the name itself, refuses (:class:`AddressRefused`) when any
    address is not allowed, and otherwise connects to the checked addresses in
    turn through httpcore's own :class:`httpcore.SyncBackend`. With
    ``loopback_only`` (a plain-http URL, allowed for tests) every address must
    be a loopback one.
    """

    def __init__(self, *, allow_loopback: bool, loopback_only: bool = False) -> None:
        self.allow_loopback = allow_loopback
        self.loopback_only = loopback_only
        self._inner = httpcore.SyncBackend()

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.NetworkStream:
        literal = ip_literal(host)
        if literal is not None:
            addresses = [literal]
        else:
            try:
                addresses = resolve_host(host, port)
            except (OSError, UnicodeError) as exc:
                raise httpcore.ConnectError(f"the name {host} does not resolve ({exc})") from exc
        for ip in addresses:
            if not address_allowed(ip, allow_loopback=self.allow_loopback):
                raise AddressRefused(f"{host} resolves to {describe(ip)}, which is not allowed")
            if self.loopback_only and not ip.is_loopback:
                raise AddressRefused(
                    f"{host} resolves to {ip}, and plain http:// is allowed to loopback only"
                )
        last: Exception | None = None
        for ip in addresses:
            try:
                return self._inner.connect_tcp(
                    str(ip),
                    port,
                    timeout=timeout,
                    local_address=local_address,
                    socket_options=socket_options,
                )
            except httpcore.ConnectTimeout:
                raise
            except httpcore.ConnectError as exc:
                last = exc
        assert last is not None  # resolve_host never returns an empty list without raising
        raise last

    def sleep(self, seconds: float) -> None:
        self._inner.sleep(seconds)


class _ResponseStream(httpx.SyncByteStream):
    def __init__(self, response: httpcore.Response) -> None:
        self._response = response

    def __iter__(self) -> Iterator[bytes]:
        yield from self._response.iter_stream()

    def close(self) -> None:
        self._response.close()


class GuardedTransport(httpx.BaseTransport):
    """An httpx transport over an :class:`httpcore.ConnectionPool` whose every
    connection goes through a :class:`GuardedBackend` (public APIs of both)."""

    def __init__(self, backend: GuardedBackend, *, ssl_context: ssl.SSLContext) -> None:
        self._pool = httpcore.ConnectionPool(
            ssl_context=ssl_context, network_backend=backend, max_connections=1, retries=0
        )

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        core = httpcore.Request(
            method=request.method,
            url=httpcore.URL(
                scheme=request.url.raw_scheme,
                host=request.url.raw_host,
                port=request.url.port,
                target=request.url.raw_path,
            ),
            headers=request.headers.raw,
            content=cast(Iterable[bytes], request.stream),
            extensions=request.extensions,
        )
        response = self._pool.handle_request(core)
        return httpx.Response(
            status_code=response.status,
            headers=response.headers,
            stream=_ResponseStream(response),
            extensions=response.extensions,
        )

    def close(self) -> None:
        self._pool.close()


def post_webhook(
    url: str,
    body: bytes,
    headers: Mapping[str, str],
    *,
    allow_loopback: bool,
    timeout: float = 10.0,
) -> int:
    """POST ``body`` as JSON to ``url`` and return the status when it is 2xx.

    The address is checked at connect time (:class:`GuardedBackend`); redirects
    are not followed, proxies from the environment are not used, and at most
    64 KiB of the answer is read. Raises :class:`DeliveryError`: permanent for a
    refused address, a redirect or a 4xx other than 408/425/429; temporary for
    those, a 5xx, a connection failure or a timeout.
    """
    try:
        checked = check_webhook_url(url, allow_loopback=allow_loopback, resolve=False)
    except RuleError as exc:
        raise DeliveryError(str(exc), permanent=True) from None
    parts = urlsplit(checked)
    host = parts.hostname or "?"
    backend = GuardedBackend(
        allow_loopback=allow_loopback, loopback_only=parts.scheme.lower() == "http"
    )
    transport = GuardedTransport(backend, ssl_context=httpx.create_ssl_context())
    sent_headers = {"Content-Type": "application/json", "User-Agent": USER_AGENT, **headers}
    deadline = time.monotonic() + timeout
    try:
        with (
            httpx.Client(
                transport=transport,
                trust_env=False,
                follow_redirects=False,
                timeout=httpx.Timeout(timeout),
            ) as client,
            client.stream("POST", checked, content=body, headers=sent_headers) as response,
        ):
            status = response.status_code
            _drain(response, deadline)
    except AddressRefused as exc:
        raise DeliveryError(
            f"refused to connect to the webhook host: {exc.message}", permanent=True
        ) from None
    except (httpx.TimeoutException, httpcore.TimeoutException):
        raise DeliveryError(
            f"the webhook host {host} did not answer within {timeout:g} seconds"
        ) from None
    except (
        httpx.HTTPError,
        httpcore.NetworkError,
        httpcore.ProtocolError,
        httpcore.UnsupportedProtocol,
        OSError,
    ) as exc:
        raise DeliveryError(
            f"could not reach the webhook host {host}: {_reason(exc, parts.path, parts.query)}"
        ) from None
    return _judge(status, host)


def _drain(response: httpx.Response, deadline: float) -> None:
    """Read and drop at most :data:`MAX_RESPONSE_BYTES` of the answer (raw,
    not decompressed), within the overall time limit, so that a huge or endless
    answer cannot hold the sender."""
    seen = 0
    try:
        for chunk in response.iter_raw():
            seen += len(chunk)
            if seen >= MAX_RESPONSE_BYTES or time.monotonic() > deadline:
                break
    except (httpx.HTTPError, httpcore.NetworkError, httpcore.ProtocolError, OSError):
        pass  # the status has arrived; a body cut short changes nothing


def _judge(status: int, host: str) -> int:
    if 200 <= status < 300:
        return status
    if 300 <= status < 400:
        raise DeliveryError(
            f"the webhook at {host} answered with a redirect ({status}), which is not followed",
            permanent=True,
        )
    if status in (408, 425, 429) or 500 <= status < 600:
        raise DeliveryError(f"the webhook at {host} answered {status}; it will be tried again")
    if 400 <= status < 500:
        hint = " (the webhook was probably deleted)" if status in (404, 410) else ""
        raise DeliveryError(
            f"the webhook at {host} refused the message: {status}{hint}", permanent=True
        )
    raise DeliveryError(
        f"the webhook at {host} answered with an unexpected status {status}", permanent=True
    )


def _reason(exc: BaseException, *secrets: str) -> str:
    """The underlying reason in words (a TLS failure says so), with the URL's
    path and query taken out in case a library put the URL in its message."""
    cause: BaseException | None = exc
    while cause is not None and not isinstance(cause, ssl.SSLError):
        cause = cause.__cause__ or cause.__context__
    if isinstance(cause, ssl.SSLError):
        text = f"TLS failed ({cause.reason or cause})"
    else:
        text = str(exc) or type(exc).__name__
    for secret in secrets:
        if secret and secret != "/":
            text = text.replace(secret, "/…")
    return " ".join(text.split())
