"""Issue 14's pages over HTTP, on SQLite and PostgreSQL, with mail enabled
(``SMTP_URL`` set; nothing is delivered here, the outbox is read instead): the
create form's addresses, webhook, reminders and "open each round by itself";
the host's schedule and messages; a player's own address; "lost your private
link?" with its one-time link; unsubscribing (also RFC 8058 one-click). Each
form's good and bad input, and hostile names escaped everywhere."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from flask import Flask
from flask.testing import FlaskClient
from itsdangerous import URLSafeTimedSerializer

from referee.db import transaction
from referee.models import Message
from referee.notify.config import NotifyConfig
from referee.service import Referee
from service.conftest import make_app

from .web_kit import Clock, Links, create_match, esc, new_match_form, page

ANA = "ana@example.org"
CY = "Cy.Third@Example.ORG"
WEBHOOK = "http://127.0.0.1:9/hook"  # loopback is allowed in these tests; nothing listens
HOSTILE = '<script>alert("x")</script> & <b>bold</b>'


@pytest.fixture
def app(db_url: str, tmp_path: Path) -> Iterator[Flask]:
    """The app with mail enabled (a mail server that is never reached here)."""
    yield from make_app(db_url, SMTP_URL="smtp://127.0.0.1:9", WEBHOOK_ALLOW_LOOPBACK=True)


def with_mail(client: FlaskClient, name: str = "Notified", **extra: str) -> Links:
    """A match created through the form with addresses for seats 1 and 3 and a webhook."""
    data = {
        "players-0-email": ANA,
        "players-2-email": CY,
        "webhook_url": WEBHOOK,
        "remind_before_hours": "24, 2",
        **extra,
    }
    return create_match(client, name, **data)


def outbox(svc: Referee, match_id: str) -> list[Message]:
    return svc.messages(match_id)


def post_new(client: FlaskClient, **extra: str) -> Any:
    return client.post("/new", data=new_match_form("Refused", **extra))


def errors_of(html: str, field: str) -> str:
    """The messages shown next to a field (its ``<ul id="...-errors">``)."""
    found = re.search(
        rf'<ul class="field-errors" id="{re.escape(field)}-errors">(.*?)</ul>', html, re.S
    )
    assert found, f"no errors shown next to {field}"
    return found.group(1)


# ---- the create form -----------------------------------------------------------


def test_create_form_takes_addresses_webhook_reminders_and_auto_open(
    client: FlaskClient, svc: Referee
) -> None:
    html = page(client, "/new?game=rocky-river")
    for field in ("players-0-email", "players-2-email", "webhook_url", "remind_before_hours"):
        assert f'id="{field}"' in html
    assert 'value="24, 2"' in html  # the reminders' default
    assert "Only this seat's player gets e-mails at it" in html
    assert "Discord or Slack" in html

    r = client.post(
        "/new",
        data=new_match_form(
            "Runs itself",
            **{
                "players-0-email": ANA,
                "players-2-email": CY,
                "webhook_url": WEBHOOK,
                "remind_before_hours": "12; 1",
                "auto_open": "y",
                "deadline_hours": "36",
            },
        ),
        follow_redirects=True,
    )
    assert r.status_code == 200
    html = r.get_data(as_text=True)
    secret = re.search(r'<code class="secret-link" id="webhook-secret">([0-9a-f]{64})</code>', html)
    assert secret, "the webhook secret is shown once the match is created"
    assert "X-Referee-Signature" in html
    match_id = re.search(r'href="http://localhost/matches/([0-9a-f]+)"', html)
    assert match_id
    mid = match_id.group(1)
    settings, contacts = svc.notify_settings(mid)
    assert settings is not None and settings.webhook_url == WEBHOOK
    assert settings.webhook_secret == secret.group(1)
    assert settings.remind_before_hours == [12.0, 1.0]
    assert {s: c.email for s, c in contacts.items()} == {1: ANA, 3: "Cy.Third@example.org"}
    state = svc.state(mid)
    assert state.match.settings["auto_open"] is True
    assert state.match.settings["deadline_hours"] == 36
    assert [r.status for r in state.rounds] == ["open"]  # the first round opened by itself
    # a reload shows the secret again (kept in the session like the links)
    again = page(client, f"/new/{mid}")
    assert secret.group(1) in again
    events = {(m.event, m.seat) for m in outbox(svc, mid)}
    assert ("match_created", 1) in events and ("match_created", 3) in events
    assert ("match_created", 2) not in events
    assert ("match_created", None) in events  # the webhook


def test_create_form_refuses_bad_notification_input_next_to_each_field(
    client: FlaskClient, svc: Referee
) -> None:
    r = post_new(
        client,
        **{
            "players-1-email": "bo at example",
            "webhook_url": "http://example.org/hook",
            "remind_before_hours": "24, soon",
        },
    )
    assert r.status_code == 422
    html = r.get_data(as_text=True)
    assert "bo at example" in errors_of(html, "players-1-email")
    assert 'id="players-1-email"' in html and 'aria-invalid="true"' in html
    assert "https://" in errors_of(html, "webhook_url")
    assert "&#39;soon&#39; is not a number of hours" in errors_of(html, "remind_before_hours")
    assert "remind_before_hours' must be a list" not in html  # the service's words left out
    r = post_new(client, **{"remind_before_hours": "24, 0, 2"})
    assert r.status_code == 422
    assert "at most 5 numbers" in errors_of(r.get_data(as_text=True), "remind_before_hours")
    r = post_new(client, auto_open="y", deadline_hours="0")
    assert r.status_code == 422
    assert "need hours per round" in errors_of(r.get_data(as_text=True), "deadline_hours")
    assert svc.match_ids() == []  # nothing was created


def test_without_mail_the_form_has_no_address_fields(client: FlaskClient, svc: Referee) -> None:
    svc.notify = NotifyConfig(allow_loopback=True)  # this server sends no e-mail
    html = page(client, "/new?game=rocky-river")
    assert 'id="players-0-email"' not in html
    assert 'id="webhook_url"' in html and 'id="auto_open"' in html
    links = create_match(client, "Webhook only", webhook_url=WEBHOOK)
    settings, contacts = svc.notify_settings(links.match_id)
    assert settings is not None and settings.webhook_url == WEBHOOK and contacts == {}
    assert "Lost your private link?" not in page(client, f"/matches/{links.match_id}")
    assert "E-mail me about this match" not in page(client, links.seats[1])


# ---- the host's dashboard --------------------------------------------------------


def test_host_schedule_form(client: FlaskClient, svc: Referee) -> None:
    links = create_match(client, "Scheduled")
    html = page(client, links.host)
    assert 'id="schedule-auto"' in html and 'id="schedule-hours" ' in html
    r = client.post(f"{links.host}/schedule", data={"auto_open": "y", "hours_per_round": "soon"})
    assert r.status_code == 422
    assert "not &#39;soon&#39;" in errors_of(r.get_data(as_text=True), "schedule")
    r = client.post(f"{links.host}/schedule", data={"auto_open": "y", "hours_per_round": "0"})
    assert r.status_code == 422
    assert "need hours per round" in errors_of(r.get_data(as_text=True), "schedule")
    assert svc.state(links.match_id).rounds == []  # nothing changed
    r = client.post(
        f"{links.host}/schedule",
        data={"auto_open": "y", "hours_per_round": "12"},
        follow_redirects=True,
    )
    assert r.status_code == 200
    assert "Rounds now open by themselves; each round has 12 hours." in r.get_data(as_text=True)
    state = svc.state(links.match_id)
    assert state.match.settings["auto_open"] is True
    assert state.match.settings["deadline_hours"] == 12
    assert [x.status for x in state.rounds] == ["open"]  # between rounds: opened at once
    r = client.post(f"{links.host}/schedule", data={"hours_per_round": "6"}, follow_redirects=True)
    assert "Rounds now open only when you open them" in r.get_data(as_text=True)
    assert svc.state(links.match_id).match.settings["auto_open"] is False


def test_host_sees_who_has_an_address_and_failed_messages_never_an_address_or_body(
    client: FlaskClient, svc: Referee, clock: Clock
) -> None:
    links = with_mail(client)
    mid = links.match_id
    with transaction(svc.engine) as session:
        for status, attempts, seat, recipient in (
            ("failed", 8, 1, ANA),
            ("pending", 2, None, WEBHOOK),
            ("sent", 1, 3, "cy.third@example.org"),
        ):
            session.add(
                Message(
                    match_id=mid,
                    channel="email" if seat else "webhook",
                    event="reminder",
                    seat=seat,
                    recipient=recipient,
                    subject="subject line",
                    body="THE SECRET BODY",
                    message_id=f"m-{status}",
                    status=status,
                    attempts=attempts,
                    due_at=clock.now + timedelta(minutes=4),
                    last_error=f"the mail server said 550 <{recipient.upper()}> unknown"
                    if seat
                    else f"{recipient} answered 503",
                )
            )
    svc.unsubscribe(svc.contact(mid, 3).unsubscribe_key)  # type: ignore[union-attr]
    html = page(client, links.host)
    section = html[html.index('id="messages-h"') : html.index("<caption>Rounds</caption>")]
    assert "(seat 1): has an address" in section
    assert "(seat 2): no address" in section
    assert "(seat 3): has an address, but unsubscribed" in section
    assert "Webhook: set" in section
    assert "24 and 2 hours before each deadline" in section
    assert "1 failed" in section and "1 retrying" in section and "1 sent" in section
    assert "none: given up" in section and "in 4 min" in section
    assert "[recipient]" in section
    for secret in (ANA, ANA.upper(), "cy.third", WEBHOOK, "THE SECRET BODY", "subject line"):
        assert secret.lower() not in html.lower()


# ---- the player's own address ------------------------------------------------------


def test_player_sets_changes_and_stops_own_address(client: FlaskClient, svc: Referee) -> None:
    links = with_mail(client)
    mid = links.match_id
    html = page(client, links.seats[1])
    assert f"go to <strong>{ANA}</strong>" in html
    assert 'name="stop"' in html
    html = page(client, links.seats[2])
    assert "No e-mails about this match go to you" in html and 'name="stop"' not in html
    r = client.post(f"{links.seats[2]}/email", data={"email": "not an address", "save": "1"})
    assert r.status_code == 422
    assert "not an address" in errors_of(r.get_data(as_text=True), "email")
    r = client.post(f"{links.seats[2]}/email", data={"email": "", "save": "1"})
    assert r.status_code == 422
    assert svc.contact(mid, 2) is None
    r = client.post(
        f"{links.seats[2]}/email",
        data={"email": "bo@example.net", "save": "1"},
        follow_redirects=True,
    )
    assert r.status_code == 200
    html = r.get_data(as_text=True)
    assert "Saved: e-mails about this match go to that address now." in html
    assert "go to <strong>bo@example.net</strong>" in html
    assert svc.contact(mid, 2).email == "bo@example.net"  # type: ignore[union-attr]
    r = client.post(f"{links.seats[1]}/email", data={"stop": "1"}, follow_redirects=True)
    assert "You get no more e-mails about this match." in r.get_data(as_text=True)
    contact = svc.contact(mid, 1)
    assert contact is not None and contact.email is None and contact.unsubscribed
    # the host's page never shows the address a player typed
    assert "bo@example.net" not in page(client, links.host)


# ---- "lost your private link?" -----------------------------------------------------


def ask(client: FlaskClient, match_id: str, address: str) -> Any:
    return client.post(f"/matches/{match_id}/link", data={"email": address})


def link_of(message: Message) -> str:
    found = re.search(r"http://localhost(/link/[A-Za-z0-9_.\-]+)", message.body)
    assert found, message.body
    return found.group(1)


def test_link_requests_answer_alike_and_the_link_works_once(
    client: FlaskClient, svc: Referee
) -> None:
    links = with_mail(client)
    mid = links.match_id
    assert "Lost your private link?" in page(client, f"/matches/{mid}")
    before = len(outbox(svc, mid))
    known = ask(client, mid, "  CY.THIRD@example.org ")
    unknown = ask(client, mid, "nobody@example.org")
    assert known.status_code == unknown.status_code == 303
    assert known.headers["Location"] == unknown.headers["Location"]
    assert known.headers["Location"].endswith(f"/matches/{mid}#lost-link")
    html = page(client, f"/matches/{mid}")
    assert html.count("If that address belongs to a seat of this match") == 2  # both notices
    new = outbox(svc, mid)[: len(outbox(svc, mid)) - before]
    assert [(m.event, m.seat) for m in new] == [("link_again", 3)]
    path = link_of(new[0])

    # GET changes nothing: the page asks, the old link still works
    html = page(client, path)
    assert "Get a new private link for seat 3 of" in html and 'method="post"' in html
    assert client.get(links.seats[3]).status_code == 200
    r = client.post(path)
    assert r.status_code == 303
    new_seat = r.headers["Location"]
    assert new_seat.startswith("/play/") and new_seat != links.seats[3]
    html = page(client, new_seat)
    assert "This is your new private link: bookmark it; the old one no longer works" in html
    assert client.get(links.seats[3]).status_code == 404  # the old link no longer opens
    # used: both the page and the button say so, never a 500
    for r in (client.get(path), client.post(path)):
        assert r.status_code == 410
        assert "This link has been used" in r.get_data(as_text=True)


def test_bad_and_expired_links_and_bad_requests(
    client: FlaskClient, svc: Referee, app: Flask, monkeypatch: pytest.MonkeyPatch
) -> None:
    links = with_mail(client)
    mid = links.match_id
    r = ask(client, mid, "not an address")
    assert r.status_code == 422
    assert "not an e-mail address" in errors_of(r.get_data(as_text=True), "lost-link")
    assert ask(client, "nosuchmatch", ANA).status_code == 404
    fingerprint = svc.state(mid).seats[0].token_hash[:16]
    serializer = URLSafeTimedSerializer(app.config["SECRET_KEY"], salt="seat-link")
    real = time.time()
    monkeypatch.setattr("itsdangerous.timed.time.time", lambda: real - 3700)
    old = serializer.dumps([mid, 1, fingerprint])
    monkeypatch.undo()
    for r in (client.get(f"/link/{old}"), client.post(f"/link/{old}")):
        assert r.status_code == 410
        assert "A link sent by e-mail works for one hour" in r.get_data(as_text=True)
    forged = URLSafeTimedSerializer("another key", salt="seat-link").dumps([mid, 1, fingerprint])
    for bad in (forged, "garbage", serializer.dumps({"seat": 1})):
        r = client.get(f"/link/{bad}")
        assert r.status_code == 400, bad
        assert "not a link this server sent" in r.get_data(as_text=True)
    assert client.get(links.seats[1]).status_code == 200  # nothing changed


def test_link_requests_are_rate_limited(client: FlaskClient, svc: Referee, app: Flask) -> None:
    app.config["RATELIMIT_LINK_REQUESTS_PER_MATCH"] = "7 per hour"
    links = with_mail(client)
    mid = links.match_id
    for _ in range(5):
        assert ask(client, mid, "nobody@example.org").status_code == 303
    r = ask(client, mid, ANA)  # the sixth from one address in an hour
    assert r.status_code == 429
    assert "No e-mail was sent" in r.get_data(as_text=True)
    assert not [m for m in outbox(svc, mid) if m.event == "link_again"]
    # per match: requests from other addresses share the match's limit (7 here)
    statuses = [
        client.post(
            f"/matches/{mid}/link",
            data={"email": ANA},
            environ_base={"REMOTE_ADDR": f"10.0.0.{i}"},
        ).status_code
        for i in range(4)
    ]
    assert statuses == [303, 303, 429, 429]
    assert len([m for m in outbox(svc, mid) if m.event == "link_again"]) == 2


# ---- unsubscribing -----------------------------------------------------------------


def test_unsubscribe_asks_on_get_and_stops_on_post(
    client: FlaskClient, svc: Referee, app: Flask
) -> None:
    links = with_mail(client)
    mid = links.match_id
    key1 = svc.contact(mid, 1).unsubscribe_key  # type: ignore[union-attr]
    key3 = svc.contact(mid, 3).unsubscribe_key  # type: ignore[union-attr]
    html = page(client, f"/unsubscribe/{key1}")
    assert "Stop e-mails about" in html and 'method="post"' in html
    assert not svc.contact(mid, 1).unsubscribed  # type: ignore[union-attr]
    r = client.post(f"/unsubscribe/{key1}")
    assert r.status_code == 200
    assert "No more e-mails about" in r.get_data(as_text=True)
    assert svc.contact(mid, 1).unsubscribed  # type: ignore[union-attr]
    assert not svc.contact(mid, 3).unsubscribed  # type: ignore[union-attr]
    assert "are stopped (you unsubscribed)" in page(client, links.seats[1])
    assert client.get("/unsubscribe/nosuchkey").status_code == 404
    assert client.post("/unsubscribe/nosuchkey").status_code == 404

    # with CSRF on: the page's button needs its token, a one-click POST needs none
    app.config["WTF_CSRF_ENABLED"] = True
    strict = app.test_client()
    r = strict.post(f"/unsubscribe/{key3}")
    assert r.status_code == 400 and "The form expired" in r.get_data(as_text=True)
    assert not svc.contact(mid, 3).unsubscribed  # type: ignore[union-attr]
    r = strict.post(f"/unsubscribe/{key3}", data={"List-Unsubscribe": "One-Click"})
    assert r.status_code == 200
    assert svc.contact(mid, 3).unsubscribed  # type: ignore[union-attr]
    # the exemption is that view's alone
    assert strict.post(f"/matches/{mid}/link", data={"email": ANA}).status_code == 400


# ---- hostile names -------------------------------------------------------------------


def test_every_new_page_escapes_hostile_names(client: FlaskClient, svc: Referee) -> None:
    links = with_mail(client, HOSTILE, **{"players-0-name": HOSTILE})
    mid = links.match_id
    key = svc.contact(mid, 1).unsubscribe_key  # type: ignore[union-attr]
    ask(client, mid, ANA)
    (message,) = [m for m in outbox(svc, mid) if m.event == "link_again"]
    pages = [
        f"/new/{mid}",
        links.host,
        links.seats[1],
        f"/matches/{mid}",
        f"/unsubscribe/{key}",
        link_of(message),
    ]
    for url in pages:
        html = page(client, url)
        assert "<script>alert" not in html and "<b>bold</b>" not in html, url
        assert esc(HOSTILE) in html, url
    r = client.post(f"/unsubscribe/{key}")
    assert "<script>alert" not in r.get_data(as_text=True)
    assert esc(HOSTILE) in r.get_data(as_text=True)
