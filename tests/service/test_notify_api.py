"""Issue 14's API (section 4 of the issue), end to end through the Flask test
client on SQLite and PostgreSQL: ``notify`` and ``schedule`` when a match is
created (each bad input refused with its code and words naming it), the host's
schedule and notifications listing, a seat's own e-mail address; and the
webhook request and e-mails as the OpenAPI document describes them, through a
real SMTP server and a real HTTP receiver on 127.0.0.1."""

from __future__ import annotations

import hashlib
import hmac
import json
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from flask.testing import FlaskClient
from jsonschema import Draft202012Validator
from notify.conftest import SmtpServer, WebhookReceiver, smtp_server, webhook_receiver  # noqa: F401
from referencing import Registry
from referencing.jsonschema import DRAFT202012
from sqlmodel import Session, select

from referee.models import Message
from referee.notify.outbox import deliver_due
from referee.web.openapi import openapi_document

from .conftest import PLAYERS, AppMaker

MAIL = "smtp://127.0.0.1:9"  # mail enabled; nothing here is delivered through it
HOOK = "http://127.0.0.1:9/hook"  # loopback: only with WEBHOOK_ALLOW_LOOPBACK
ANA, BO = "ana@example.org", "Bo.Player@Example.org"


@pytest.fixture
def make_app(app_maker: Callable[[dict[str, Any]], AppMaker]) -> AppMaker:
    """Apps on the test's database, each with its own notification settings
    (by default: mail on, loopback webhooks allowed)."""
    return app_maker({"SMTP_URL": MAIL, "WEBHOOK_ALLOW_LOOPBACK": True})


@pytest.fixture
def api(make_app: AppMaker) -> FlaskClient:
    return make_app().test_client()


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def body(**extra: Any) -> dict[str, Any]:
    return {"name": "Notified", "map": "three-rapids", "players": PLAYERS, **extra}


def create(client: FlaskClient, **extra: Any) -> dict[str, Any]:
    resp = client.post("/api/matches", json=body(**extra))
    assert resp.status_code == 201, resp.get_json()
    data: dict[str, Any] = resp.get_json()
    return data


def refusal(client: FlaskClient, **extra: Any) -> list[dict[str, str]]:
    """The problems of a refused create (422)."""
    resp = client.post("/api/matches", json=body(**extra))
    assert resp.status_code == 422, resp.get_json()
    errors: list[dict[str, str]] = resp.get_json()["errors"]
    return errors


def one(problems: list[dict[str, str]], code: str, *words: str) -> dict[str, str]:
    """The one problem with ``code``; its message names each of ``words``."""
    found = [p for p in problems if p["code"] == code]
    assert len(found) == 1, problems
    for word in words:
        assert word in found[0]["message"], (word, found[0])
    return found[0]


def host_view(client: FlaskClient, created: dict[str, Any]) -> dict[str, Any]:
    resp = client.get(f"/api/matches/{created['id']}/me", headers=bearer(created["host_token"]))
    assert resp.status_code == 200
    view: dict[str, Any] = resp.get_json()
    return view


def aware(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


# ---- creating with notify and schedule --------------------------------------------


def test_create_with_notify_and_schedule_answers_a_secret_and_opens_round_one(
    api: FlaskClient,
) -> None:
    before = datetime.now(UTC)
    created = create(
        api,
        notify={"emails": {"1": ANA, "2": None}, "webhook_url": HOOK, "remind_before_hours": [6]},
        schedule={"auto_open": True, "hours_per_round": 30},
    )
    secret = created["webhook_secret"]
    assert isinstance(secret, str) and len(secret) == 64 and int(secret, 16) >= 0
    view = host_view(api, created)
    assert view["settings"]["auto_open"] is True and view["settings"]["deadline_hours"] == 30
    assert view["current_round"] == 1 and view["rounds"][0]["status"] == "open"
    deadline = aware(view["rounds"][0]["deadline"])
    assert before + timedelta(hours=30) <= deadline <= datetime.now(UTC) + timedelta(hours=30)
    # a match without a webhook has no secret; without schedule nothing opens
    plain = create(api, notify={"emails": {"3": ANA}})
    assert plain["webhook_secret"] is None
    assert host_view(api, plain)["current_round"] is None


@pytest.mark.parametrize(
    ("extra", "code", "words"),
    [
        ({"notify": {"emails": {"1": "not an address"}}}, "notify/bad_email", ["seat 1"]),
        ({"notify": {"emails": {"9": ANA}}}, "notify/bad_email", ["'9'", "1, 2, 3"]),
        ({"notify": {"emails": ["x"]}}, "notify/bad_email", ["'emails'"]),
        ({"notify": {"webhook_url": "ftp://example.org/x"}}, "notify/bad_webhook", ["https://"]),
        (
            {"notify": {"webhook_url": "https://10.0.0.1/hook"}},
            "notify/bad_webhook",
            ["private address"],
        ),
        (
            {"notify": {"webhook_url": "http://10.0.0.1/hook"}},
            "notify/bad_webhook",
            ["https://"],
        ),
        (
            {"notify": {"webhook_url": "https://169.254.169.254/latest"}},
            "notify/bad_webhook",
            ["link-local"],
        ),
        (
            {"notify": {"remind_before_hours": [0]}},
            "notify/bad_reminders",
            ["remind_before_hours"],
        ),
        (
            {"notify": {"remind_before_hours": "24"}},
            "notify/bad_reminders",
            ["remind_before_hours"],
        ),
        ({"notify": {"emails": {}, "webhok_url": HOOK}}, "notify/unknown", ["'webhok_url'"]),
        ({"schedule": {"auto_opn": True}}, "schedule/unknown", ["'auto_opn'"]),
        (
            {"schedule": {"hours_per_round": 24}, "settings": {"deadline_hours": 48}},
            "schedule/conflict",
            ["deadline_hours", "24", "48"],
        ),
        (
            {"schedule": {"auto_open": True, "hours_per_round": 0}},
            "schedule/no_deadline",
            ["hours per round"],
        ),
        ({"schedule": {"auto_open": "yes"}}, "settings/not_a_flag", ["auto_open", "yes"]),
    ],
)
def test_each_bad_notify_or_schedule_is_refused_by_name(
    api: FlaskClient, extra: dict[str, Any], code: str, words: list[str]
) -> None:
    one(refusal(api, **extra), code, *words)


def test_several_problems_are_listed_together(api: FlaskClient) -> None:
    problems = refusal(
        api,
        name="",
        notify={
            "emails": {"2": "@"},
            "webhook_url": "https://10.1.2.3/",
            "remind_before_hours": [-1],
        },
    )
    codes = sorted(p["code"] for p in problems)
    assert codes == [
        "match/bad_name",
        "notify/bad_email",
        "notify/bad_reminders",
        "notify/bad_webhook",
    ]
    assert one(problems, "notify/bad_email", "seat 2")["field"] == "email_2"


def test_loopback_webhooks_only_with_the_flag_and_addresses_only_with_mail(
    make_app: AppMaker,
) -> None:
    strict = make_app(SMTP_URL=None, WEBHOOK_ALLOW_LOOPBACK=None).test_client()
    one(refusal(strict, notify={"webhook_url": HOOK}), "notify/bad_webhook", "https://")
    one(
        refusal(strict, notify={"webhook_url": "https://127.0.0.1:9/hook"}),
        "notify/bad_webhook",
        "loopback",
    )
    one(refusal(strict, notify={"emails": {"1": ANA}}), "notify/no_mail", "REFEREE_SMTP_URL")
    # an unset webhook and no addresses is no notification at all
    assert (
        create(strict, notify={"emails": {"1": None}, "webhook_url": ""})["webhook_secret"] is None
    )
    loose = make_app().test_client()
    assert create(loose, notify={"webhook_url": HOOK})["webhook_secret"]
    assert create(loose, notify={"webhook_url": "http://localhost:9/"})["webhook_secret"]
    # even with the flag, only loopback may be plain http or not public
    one(refusal(loose, notify={"webhook_url": "http://192.168.1.5/"}), "notify/bad_webhook")


# ---- the schedule ---------------------------------------------------------------------


def test_auto_open_turned_on_between_rounds_opens_the_next(api: FlaskClient) -> None:
    created = create(api)
    host = bearer(created["host_token"])
    mid = created["id"]
    assert api.post(f"/api/matches/{mid}/rounds/open", headers=host, json={}).status_code == 200
    assert api.post(f"/api/matches/{mid}/rounds/close", headers=host, json={}).status_code == 200
    rounds = host_view(api, created)["rounds"]
    assert [r["status"] for r in rounds[:2]] == ["closed", "pending"]

    resp = api.put(f"/api/matches/{mid}/schedule", headers=host, json={"hours_per_round": 12})
    assert resp.status_code == 200, resp.get_json()
    assert resp.get_json() == {"auto_open": False, "hours_per_round": 12}
    view = host_view(api, created)
    assert view["rounds"][1]["status"] == "pending"  # off: nothing opened

    before = datetime.now(UTC)
    resp = api.put(f"/api/matches/{mid}/schedule", headers=host, json={"auto_open": True})
    assert resp.get_json() == {"auto_open": True, "hours_per_round": 12}
    view = host_view(api, created)
    assert view["current_round"] == 2 and view["rounds"][1]["status"] == "open"
    assert aware(view["rounds"][1]["deadline"]) >= before + timedelta(hours=12)
    assert view["settings"]["auto_open"] is True and view["settings"]["deadline_hours"] == 12

    # closing it now opens round 3 by itself
    assert api.post(f"/api/matches/{mid}/rounds/close", headers=host, json={}).status_code == 200
    assert host_view(api, created)["current_round"] == 3


def test_schedule_refusals(api: FlaskClient) -> None:
    created = create(api)
    mid, host = created["id"], bearer(created["host_token"])
    url = f"/api/matches/{mid}/schedule"
    seat = bearer(created["player_tokens"]["1"])
    assert api.put(url, headers=seat, json={"auto_open": True}).status_code == 403
    assert api.put(url, json={"auto_open": True}).status_code == 401
    resp = api.put(url, headers=host, json={"auto_open": True, "hours_per_round": 0})
    assert resp.status_code == 422
    one(resp.get_json()["errors"], "schedule/no_deadline", "hours per round")
    resp = api.put(url, headers=host, json={"hours_per_round": "two days"})
    assert resp.status_code == 422
    problem = one(resp.get_json()["errors"], "settings/bad_deadline", "two days")
    assert problem["field"] == "hours_per_round"
    resp = api.put(url, headers=host, json={"deadline_hours": 5})
    one(resp.get_json()["errors"], "request/unknown_field", "deadline_hours", "hours_per_round")
    # nothing changed, nothing opened
    view = host_view(api, created)
    assert view["settings"]["auto_open"] is False and view["current_round"] is None


# ---- a seat's own address -------------------------------------------------------------


def test_a_seat_sets_and_stops_its_own_email_only(api: FlaskClient) -> None:
    created = create(api)
    other = create(api)
    mid = created["id"]
    url = f"/api/matches/{mid}/email"
    bo = bearer(created["player_tokens"]["2"])
    host = bearer(created["host_token"])

    resp = api.put(url, headers=bo, json={"email": BO})
    assert resp.status_code == 200, resp.get_json()
    assert resp.get_json() == {"seat": 2, "email": "Bo.Player@example.org", "unsubscribed": False}
    # the host may not set (or read) a seat's address, nor may another match's seat
    resp = api.put(url, headers=host, json={"email": "host@example.org"})
    assert resp.status_code == 403 and resp.get_json()["errors"][0]["code"] == "auth/forbidden"
    stranger = bearer(other["player_tokens"]["2"])
    assert api.put(url, headers=stranger, json={"email": "x@example.org"}).status_code == 403
    assert api.put(url, json={"email": "x@example.org"}).status_code == 401
    # a seat names no other seat
    resp = api.put(url, headers=bo, json={"seat": 1, "email": "x@example.org"})
    assert resp.status_code == 422
    assert resp.get_json()["errors"][0]["code"] == "request/unknown_field"

    seats = api.get(f"/api/matches/{mid}/notifications", headers=host).get_json()["seats"]
    assert seats == {
        "1": {"email": False, "unsubscribed": False},
        "2": {"email": True, "unsubscribed": False},
        "3": {"email": False, "unsubscribed": False},
    }
    resp = api.put(url, headers=bo, json={"email": None})
    assert resp.get_json() == {"seat": 2, "email": None, "unsubscribed": True}
    seats = api.get(f"/api/matches/{mid}/notifications", headers=host).get_json()["seats"]
    assert seats["2"] == {"email": False, "unsubscribed": True}


@pytest.mark.parametrize(
    ("sent", "code", "words"),
    [
        ({"email": "nobody"}, "notify/bad_email", ["your address", "nobody"]),
        ({"email": ""}, "notify/bad_email", ["empty"]),
        ({"email": 5}, "notify/bad_email", ["email", "5"]),
        ({}, "notify/bad_email", ['"email"']),
    ],
)
def test_a_bad_own_address_is_refused_by_name(
    api: FlaskClient, sent: dict[str, Any], code: str, words: list[str]
) -> None:
    created = create(api)
    resp = api.put(
        f"/api/matches/{created['id']}/email",
        headers=bearer(created["player_tokens"]["1"]),
        json=sent,
    )
    assert resp.status_code == 422
    problem = one(resp.get_json()["errors"], code, *words)
    assert problem["field"] == "email"


def test_without_mail_a_seat_may_only_stop_emails(make_app: AppMaker) -> None:
    client = make_app(SMTP_URL=None).test_client()
    created = create(client)
    url = f"/api/matches/{created['id']}/email"
    seat = bearer(created["player_tokens"]["3"])
    resp = client.put(url, headers=seat, json={"email": ANA})
    assert resp.status_code == 422
    one(resp.get_json()["errors"], "notify/no_mail", "REFEREE_SMTP_URL")
    assert client.put(url, headers=seat, json={"email": None}).status_code == 200


# ---- the host's listing -----------------------------------------------------------


def test_notifications_listing_shows_no_address_url_or_body(api: FlaskClient) -> None:
    created = create(
        api,
        notify={"emails": {"1": ANA, "3": BO}, "webhook_url": HOOK + "/s3cr3t-path"},
        schedule={"auto_open": True, "hours_per_round": 48},
    )
    mid, host = created["id"], bearer(created["host_token"])
    url = f"/api/matches/{mid}/notifications"
    assert api.get(url).status_code == 401
    assert api.get(url, headers=bearer(created["player_tokens"]["1"])).status_code == 403

    # a mail server's refusal that repeats the address, a webhook error with its URL
    engine = api.application.extensions["referee"].engine
    with Session(engine) as session:
        rows = list(session.exec(select(Message).where(Message.match_id == mid)))
        for row in rows:
            row.attempts = 1
            row.last_error = (
                f"the mail server refused {row.recipient}: 550 <someone.else@example.net> unknown"
                if row.channel == "email"
                else f"could not reach {row.recipient} (https://other.example/x?key=1)"
            )
            session.add(row)
        session.commit()

    resp = api.get(url, headers=host)
    assert resp.status_code == 200
    listing = resp.get_json()
    text = resp.get_data(as_text=True)
    secrets = (ANA, "Bo.Player", "bo.player", "someone.else", "s3cr3t-path", "127.0.0.1:9")
    for secret in (*secrets, "other.example"):
        assert secret not in text, secret
    for token in (created["host_token"], *created["player_tokens"].values()):
        assert token not in text
    assert "Hello" not in text and "/play/" not in text  # no message body
    assert listing["webhook"] is True and listing["remind_before_hours"] == [24.0, 2.0]
    assert listing["seats"]["1"] == {"email": True, "unsubscribed": False}
    assert listing["seats"]["2"] == {"email": False, "unsubscribed": False}
    events = sorted((m["channel"], m["event"], m["seat"]) for m in listing["messages"])
    assert events == [
        ("email", "match_created", 1),
        ("email", "match_created", 3),
        ("email", "round_opened", 1),
        ("email", "round_opened", 3),
        ("webhook", "match_created", None),
        ("webhook", "round_opened", None),
    ]
    ids = [m["id"] for m in listing["messages"]]
    assert ids == sorted(ids, reverse=True)  # newest first
    for m in listing["messages"]:
        assert set(m) == {
            "id",
            "channel",
            "event",
            "seat",
            "status",
            "attempts",
            "last_error",
            "created_at",
            "due_at",
            "sent_at",
        }
        assert m["status"] == "pending" and m["attempts"] == 1 and m["sent_at"] is None
        assert m["created_at"].endswith("Z") and m["due_at"].endswith("Z")
        assert "[recipient]" in m["last_error"]
        if m["channel"] == "email":
            assert "[address]" in m["last_error"] and "550" in m["last_error"]
        else:
            assert "[URL]" in m["last_error"]

    # a match with no notifications lists nothing, every seat without an address
    plain = create(api)
    empty = api.get(
        f"/api/matches/{plain['id']}/notifications", headers=bearer(plain["host_token"])
    ).get_json()
    assert (
        empty["webhook"] is False and empty["messages"] == [] and empty["remind_before_hours"] == []
    )


# ---- what is sent, as the OpenAPI document says ------------------------------------


def schema_validator(name: str) -> Draft202012Validator:
    doc = openapi_document()
    registry: Registry[Any] = Registry().with_resource(
        "urn:referee", DRAFT202012.create_resource(doc)
    )
    ref = {"$ref": f"urn:referee#/components/schemas/{name}"}
    return Draft202012Validator(ref, registry=registry)


def test_webhook_requests_and_emails_are_as_documented(
    make_app: AppMaker,
    smtp_server: SmtpServer,  # noqa: F811
    webhook_receiver: WebhookReceiver,  # noqa: F811
) -> None:
    app = make_app(SMTP_URL=smtp_server.url, PUBLIC_URL="https://referee.example.org")
    client = app.test_client()
    created = create(
        client,
        notify={"emails": {"2": ANA}, "webhook_url": webhook_receiver.url},
        schedule={"auto_open": True, "hours_per_round": 48},
    )
    svc = app.extensions["referee"]
    report = deliver_due(svc.engine, svc.notify)
    assert report.failed == 0 and report.retrying == 0

    requests = webhook_receiver.wait_for(2)
    payload = schema_validator("WebhookEvent")
    events = []
    for request in requests:
        expected = (
            "sha256="
            + hmac.new(created["webhook_secret"].encode(), request.body, hashlib.sha256).hexdigest()
        )
        assert request.headers["X-Referee-Signature"] == expected
        sent = json.loads(request.body)
        payload.validate(sent)
        assert request.headers["X-Referee-Event"] == sent["event"]
        assert request.headers["X-Referee-Delivery"] == sent["delivery"]
        assert sent["match_id"] == created["id"]
        events.append(sent["event"])
    assert sorted(events) == ["match_created", "round_opened"]
    opened = next(json.loads(r.body) for r in requests if b"round_opened" in r.body)
    assert opened["round"]["number"] == 1 and opened["round"]["status"] == "open"

    mails = smtp_server.wait_for(2)
    assert sorted(m.message["X-Referee-Event"] for m in mails) == ["match_created", "round_opened"]
    assert {m.rcpt_tos[0] for m in mails} == {ANA}

    # the listing now shows them sent
    listing = client.get(
        f"/api/matches/{created['id']}/notifications", headers=bearer(created["host_token"])
    ).get_json()
    schema_validator("Notifications").validate(listing)
    assert {m["status"] for m in listing["messages"]} == {"sent"}
    assert all(m["sent_at"] and m["last_error"] is None for m in listing["messages"])
