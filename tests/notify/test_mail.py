"""referee.notify.mail against a real SMTP server (aiosmtpd, tests/notify/conftest.py)."""

from __future__ import annotations

import socket
from email.message import EmailMessage

import pytest

from referee.errors import RuleError
from referee.notify.errors import DeliveryError
from referee.notify.mail import SmtpTarget, parse_smtp_url, send_mail

from .conftest import SmtpServer

PASSWORD = "s3cret-password"


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("smtp://mail.example.org", SmtpTarget("mail.example.org", 25, "plain", None, None)),
        ("smtp://127.0.0.1:8025", SmtpTarget("127.0.0.1", 8025, "plain", None, None)),
        (
            "SMTP://Mail.Example.org:2525/",
            SmtpTarget("mail.example.org", 2525, "plain", None, None),
        ),
        (
            "smtp+starttls://mx.example.org",
            SmtpTarget("mx.example.org", 587, "starttls", None, None),
        ),
        ("smtps://mx.example.org", SmtpTarget("mx.example.org", 465, "tls", None, None)),
        ("smtps://[::1]:4650", SmtpTarget("::1", 4650, "tls", None, None)),
        (
            "smtp+starttls://me%40example.org:p%40ss%3Aw%2Frd@mx.example.org:2587",
            SmtpTarget("mx.example.org", 2587, "starttls", "me@example.org", "p@ss:w/rd"),
        ),
        ("  smtp://u:p@h  ", SmtpTarget("h", 25, "plain", "u", "p")),
    ],
)
def test_parse_good_urls(url: str, expected: SmtpTarget) -> None:
    got = parse_smtp_url(url)
    assert got == expected
    assert got.password == expected.password  # compare=True, but make the decoding explicit


@pytest.mark.parametrize(
    ("url", "words"),
    [
        ("", "empty"),
        ("http://u:hunter2@mail.example.org", "must start with smtp://"),
        ("mail.example.org", "no scheme"),
        ("smtp://u:hunter2@", "no host"),
        ("smtp://u:hunter2@mail.example.org:99999", "port"),
        ("smtp://u:hunter2@mail.example.org:abc", "port"),
        ("smtp://u:hunter2@mail.example.org:0", "port"),
        ("smtp://u:hunter2@mail.example.org/inbox", "nothing after"),
        ("smtp://u:hunter2@mail.example.org?x=1", "nothing after"),
        ("smtp://u@mail.example.org", "both a user name and a password"),
        ("smtp://:hunter2@mail.example.org", "both a user name and a password"),
        ("smtp://u:hunter2@mail.example.org\n", "n"),  # stripped: fine, see below
        ("smtp://u:hun ter2@mail.example.org", "spaces"),
        ("smtp://u:hunter2%C3%A4@mail.example.org", "ASCII"),
        ("smtp://u:hunter2ä@mail.example.org", "ASCII"),
    ],
)
def test_parse_bad_urls_never_echo_the_password(url: str, words: str) -> None:
    if url.endswith("\n"):  # trailing whitespace is stripped like the rest of the input
        assert parse_smtp_url(url).password == "hunter2"
        return
    with pytest.raises(RuleError) as caught:
        parse_smtp_url(url)
    assert caught.value.codes == ["notify/bad_smtp_url"]
    message = caught.value.problems[0].message
    assert words in message
    assert "hunter" not in message and "ter2" not in message


def test_target_repr_hides_the_password() -> None:
    target = parse_smtp_url("smtp://u:hunter2@mail.example.org")
    assert "hunter2" not in repr(target)


def _message(
    to: str, *, subject: str = "Round 3 is open", body: str = "Send your order.\n"
) -> EmailMessage:
    msg = EmailMessage()
    msg["From"] = "Referee <referee@example.org>"
    msg["To"] = to
    msg["Subject"] = subject
    msg["X-Referee-Event"] = "round_opened"
    msg["Message-ID"] = "<m-1@referee.example.org>"
    msg.set_content(body)
    return msg


def test_send_arrives_intact_with_non_ascii(smtp_server: SmtpServer) -> None:
    subject = "Manche 3 ouverte — Zoë's 🐎 river"
    body = "Envoyez votre ordre avant jeudi. Ärger? 川を渡れ\nSecond line.\n"
    send_mail(
        parse_smtp_url(smtp_server.url),
        _message("Zoë <zoe@example.org>", subject=subject, body=body),
    )
    [got] = smtp_server.wait_for(1)
    assert got.mail_from == "referee@example.org"
    assert got.rcpt_tos == ["zoe@example.org"]
    assert got.login is None
    assert got.message["Subject"] == subject
    assert got.message["X-Referee-Event"] == "round_opened"
    assert got.message["Message-ID"] == "<m-1@referee.example.org>"
    assert got.message["To"].addresses[0].display_name == "Zoë"
    content = got.message.get_content()
    assert content.replace("\r\n", "\n") == body


def test_send_to_every_to_address_and_log_in(smtp_server: SmtpServer) -> None:
    from urllib.parse import quote

    url = smtp_server.url.replace("smtp://", f"smtp://referee:{quote(PASSWORD)}@")
    send_mail(parse_smtp_url(url), _message("a@example.org, B <b@example.org>"))
    [got] = smtp_server.wait_for(1)
    assert got.rcpt_tos == ["a@example.org", "b@example.org"]
    assert got.login == "referee"


def test_wrong_password_is_permanent_and_not_echoed(smtp_server: SmtpServer) -> None:
    url = smtp_server.url.replace("smtp://", "smtp://referee:hunter2@")
    with pytest.raises(DeliveryError) as caught:
        send_mail(parse_smtp_url(url), _message("a@example.org"))
    assert caught.value.permanent
    assert "user name and password" in caught.value.message
    assert "535" in caught.value.message
    assert "hunter2" not in caught.value.message
    assert smtp_server.messages == []


def test_refused_recipient_is_permanent(smtp_server: SmtpServer) -> None:
    smtp_server.refuse.add("ghost@example.org")
    with pytest.raises(DeliveryError) as caught:
        send_mail(parse_smtp_url(smtp_server.url), _message("ghost@example.org"))
    err = caught.value
    assert err.permanent
    assert err.message == (
        "the mail server refused the address: ghost@example.org: 550 5.1.1 no such user"
    )
    assert smtp_server.messages == []


def test_partly_refused_is_permanent_and_says_the_rest_went(smtp_server: SmtpServer) -> None:
    smtp_server.refuse.add("ghost@example.org")
    with pytest.raises(DeliveryError) as caught:
        send_mail(parse_smtp_url(smtp_server.url), _message("ghost@example.org, a@example.org"))
    assert caught.value.permanent
    assert "ghost@example.org: 550" in caught.value.message
    assert "went to the other recipients" in caught.value.message
    [got] = smtp_server.wait_for(1)
    assert got.rcpt_tos == ["a@example.org"]


def test_no_to_address_is_permanent(smtp_server: SmtpServer) -> None:
    msg = _message("a@example.org")
    del msg["To"]
    with pytest.raises(DeliveryError) as caught:
        send_mail(parse_smtp_url(smtp_server.url), msg)
    assert caught.value.permanent


def _unused_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port  # closed again: nothing listens there


def test_nothing_listening_is_temporary() -> None:
    target = parse_smtp_url(f"smtp://u:hunter2@127.0.0.1:{_unused_port()}")
    with pytest.raises(DeliveryError) as caught:
        send_mail(target, _message("a@example.org"), timeout=2)
    assert not caught.value.permanent
    assert "connection was refused" in caught.value.message
    assert "hunter2" not in caught.value.message


def test_silent_server_times_out_temporarily() -> None:
    with socket.socket() as listener:  # accepts connections (backlog) but never greets
        listener.bind(("127.0.0.1", 0))
        listener.listen(1)
        port = listener.getsockname()[1]
        with pytest.raises(DeliveryError) as caught:
            send_mail(
                parse_smtp_url(f"smtp://127.0.0.1:{port}"), _message("a@example.org"), timeout=0.5
            )
    assert not caught.value.permanent
    assert "did not answer within 0.5 seconds" in caught.value.message


def test_tls_to_a_plain_server_is_temporary(smtp_server: SmtpServer) -> None:
    port = smtp_server.url.rsplit(":", 1)[1]
    with pytest.raises(DeliveryError) as caught:
        send_mail(parse_smtp_url(f"smtps://127.0.0.1:{port}"), _message("a@example.org"), timeout=3)
    assert not caught.value.permanent
    assert "TLS" in caught.value.message


def test_starttls_not_offered_is_temporary(smtp_server: SmtpServer) -> None:
    port = smtp_server.url.rsplit(":", 1)[1]
    with pytest.raises(DeliveryError) as caught:
        send_mail(parse_smtp_url(f"smtp+starttls://127.0.0.1:{port}"), _message("a@example.org"))
    assert not caught.value.permanent
    assert "STARTTLS" in caught.value.message
    assert smtp_server.messages == []
