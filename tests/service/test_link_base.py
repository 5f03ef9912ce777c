"""Where the links of a match's messages point (issue 22, part 1), through the
web client on SQLite and PostgreSQL, with requests carrying a hostile ``Host``
header (``base_url="https://evil.example"``).

Only the host's creation of the match (its request's address) or the
operator's ``REFEREE_PUBLIC_URL`` may choose the base of the links in e-mails;
the operator's setting always wins. A seat saving its address took the base
from its own request before: the first seat to do so chose where every later
"send me my link again" e-mail pointed, another seat's included. A match with
no recorded base (created before this rule, or while the server sent no
e-mail) uses the operator's setting, or else refuses a new address with
``notify/no_public_url``."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest
from flask.testing import FlaskClient
from sqlalchemy import Engine
from sqlmodel import Session

from referee.db import transaction
from referee.demo import create_demo
from referee.models import MatchNotify, Message
from referee.notify.config import NotifyConfig
from referee.seasons.service import Seasons
from referee.service import Referee

from .conftest import PLAYERS, AppMaker

MAIL = "smtp://127.0.0.1:9"  # mail enabled; nothing is delivered here (the outbox is read)
HOST = "https://referee.example.org"  # where the host created the match
EVIL = "https://evil.example"  # the Host header a seat's requests carry
OPERATOR = "https://operator.example.net"  # REFEREE_PUBLIC_URL
ANA, BO = "ana@example.org", "bo@example.org"


@pytest.fixture
def make_app(app_maker: Callable[[dict[str, Any]], AppMaker]) -> AppMaker:
    """Apps on the test's database (mail on unless told), CSRF off for the forms."""
    return app_maker({"WTF_CSRF_ENABLED": False, "SMTP_URL": MAIL})


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def create(client: FlaskClient, base: str = HOST, **extra: Any) -> dict[str, Any]:
    """A match created through the API at ``base`` (its request's Host)."""
    body = {"name": "Links", "map": "three-rapids", "players": PLAYERS, **extra}
    resp = client.post("/api/matches", json=body, base_url=base)
    assert resp.status_code == 201, resp.get_json()
    data: dict[str, Any] = resp.get_json()
    return data


def save_address(
    client: FlaskClient, created: dict[str, Any], seat: int, address: str, via: str
) -> Any:
    """Seat ``seat`` saves its own address from the hostile host, through the
    API or its page's form."""
    token = created["player_tokens"][str(seat)]
    if via == "api":
        return client.put(
            f"/api/matches/{created['id']}/email",
            headers=bearer(token),
            json={"email": address},
            base_url=EVIL,
        )
    return client.post(f"/play/{token}/email", data={"email": address, "save": "1"}, base_url=EVIL)


def ask_link_again(client: FlaskClient, match_id: str, address: str) -> Message:
    """ "Lost your private link?" from the hostile host; the e-mail it queued."""
    svc: Referee = client.application.extensions["referee"]
    before = {m.id for m in svc.messages(match_id)}
    r = client.post(f"/matches/{match_id}/link", data={"email": address}, base_url=EVIL)
    assert r.status_code == 303, r.get_data(as_text=True)
    (message,) = [m for m in svc.messages(match_id) if m.id not in before]
    assert message.event == "link_again"
    return message


def body_of(client: FlaskClient, message: Message) -> str:
    """The stored body of an outbox row (the host's listing never shows it)."""
    with Session(client.application.extensions["referee"].engine) as session:
        row = session.get(Message, message.id)
        assert row is not None
        return row.body


def addresses(text: str) -> list[str]:
    return re.findall(r"https?://[^\s>]+", text)


def assert_links_start_with(text: str, base: str) -> None:
    found = addresses(text)
    assert found, text
    assert all(a.startswith(base + "/") for a in found), found
    assert "evil.example" not in text


@pytest.mark.parametrize("via", ["api", "form"])
def test_a_seat_saving_its_address_from_another_host_moves_no_other_seats_links(
    make_app: AppMaker, via: str
) -> None:
    client = make_app().test_client()
    created = create(client)  # no address yet: seats add their own later
    # seat 1 (the attacker) saves its address first, from evil.example
    r = save_address(client, created, 1, ANA, via)
    assert r.status_code in (200, 303), r.get_data(as_text=True)
    r = save_address(client, created, 2, BO, via)
    assert r.status_code in (200, 303), r.get_data(as_text=True)
    # seat 2 (the victim) asks for its link again: the e-mail's links are the creation's
    message = ask_link_again(client, created["id"], BO)
    assert message.seat == 2 and message.recipient == BO
    body = body_of(client, message)
    assert_links_start_with(body, HOST)
    assert re.search(rf"{re.escape(HOST)}/link/[A-Za-z0-9_.\-]+", body)


def test_the_first_address_of_a_match_without_any_gets_the_default_reminders(
    make_app: AppMaker,
) -> None:
    """The recorded base changes nothing the host sees of a match without
    e-mail (its listing and dashboard are those of a match with no news); the
    first address a seat gives brings the default reminder times."""
    client = make_app().test_client()
    created = create(client)
    plain = create(make_app(SMTP_URL=None).test_client())  # mail off: nothing recorded
    host = bearer(created["host_token"])
    url = f"/api/matches/{created['id']}/notifications"
    listing = client.get(url, headers=host).get_json()
    off = client.get(
        f"/api/matches/{plain['id']}/notifications", headers=bearer(plain["host_token"])
    ).get_json()
    assert listing == off
    assert listing["webhook"] is False and listing["remind_before_hours"] == []
    html = client.get(f"/host/{created['host_token']}").get_data(as_text=True)
    assert "Reminders: none (no address and no webhook)" in html
    assert save_address(client, created, 3, ANA, "api").status_code == 200
    listing = client.get(url, headers=host).get_json()
    assert listing["remind_before_hours"] == [24.0, 2.0]
    assert listing["seats"]["3"] == {"email": True, "unsubscribed": False}


@pytest.mark.parametrize("via", ["api", "form"])
def test_the_operators_address_wins_over_every_request(make_app: AppMaker, via: str) -> None:
    # recorded at creation from the host's request, while the operator had set nothing
    early = create(make_app().test_client(), notify={"emails": {"2": BO}})
    client = make_app(PUBLIC_URL=OPERATOR).test_client()
    created = create(client)  # created at HOST, the operator's setting recorded
    for match in (created, early):
        r = save_address(client, match, 1, ANA, via)
        assert r.status_code in (200, 303), r.get_data(as_text=True)
        if match is created:
            assert save_address(client, match, 2, BO, via).status_code in (200, 303)
        body = body_of(client, ask_link_again(client, match["id"], BO))
        assert_links_start_with(body, OPERATOR)
        assert HOST not in body


@pytest.mark.parametrize("via", ["api", "form"])
def test_a_match_with_no_recorded_base_refuses_an_address_without_the_setting(
    make_app: AppMaker, via: str
) -> None:
    """A match created while the server sent no e-mail (as every match made
    before the base was recorded for all) has no base of its own."""
    created = create(make_app(SMTP_URL=None).test_client())
    client = make_app().test_client()
    r = save_address(client, created, 1, ANA, via)
    assert r.status_code == 422
    text = r.get_data(as_text=True)
    if via == "api":
        (problem,) = r.get_json()["errors"]
        assert problem["code"] == "notify/no_public_url" and problem["field"] == "email"
        assert "REFEREE_PUBLIC_URL" in problem["message"]
    else:
        assert "REFEREE_PUBLIC_URL" in text
    svc: Referee = client.application.extensions["referee"]
    assert svc.contact(created["id"], 1) is None  # nothing saved
    assert svc.notify_settings(created["id"])[0] is None
    # stopping e-mails needs no base
    token = created["player_tokens"]["1"]
    r = client.put(
        f"/api/matches/{created['id']}/email", headers=bearer(token), json={"email": None}
    )
    assert r.status_code == 200
    # once the operator sets its address, the seat may give one; links use it
    client = make_app(PUBLIC_URL=OPERATOR).test_client()
    r = save_address(client, created, 1, ANA, via)
    assert r.status_code in (200, 303), r.get_data(as_text=True)
    assert_links_start_with(body_of(client, ask_link_again(client, created["id"], ANA)), OPERATOR)


def test_a_match_stored_before_the_rule_with_no_base_row_refuses_too(
    make_app: AppMaker,
) -> None:
    """Made with mail on, but stored before matches recorded their base: no
    ``match_notify`` row at all."""
    client = make_app().test_client()
    created = create(client)
    engine = client.application.extensions["referee"].engine
    with transaction(engine) as session:
        row = session.get(MatchNotify, created["id"])
        assert row is not None and row.base_url == HOST  # recorded at creation now
        session.delete(row)
    r = save_address(client, created, 2, BO, "api")
    assert r.status_code == 422
    assert r.get_json()["errors"][0]["code"] == "notify/no_public_url"


@pytest.mark.parametrize("operator", [None, OPERATOR], ids=["no-setting", "setting"])
@pytest.mark.parametrize("via", ["api", "page"])
def test_a_season_match_takes_its_base_from_the_season_hosts_request(
    make_app: AppMaker, operator: str | None, via: str
) -> None:
    """A season's matches are made by the season's host (its page or the API):
    that request's address is their base, as a match's host's is, unless the
    operator sets one; a seat's request from elsewhere moves nothing."""
    app = make_app(PUBLIC_URL=operator)
    client = app.test_client()
    seasons: Seasons = app.extensions["seasons"]
    made = seasons.create_season(
        name="S", players=[{"name": n} for n in ("Ana", "Bo", "Cy")], rules=None
    )
    if via == "api":
        r = client.post(
            f"/api/seasons/{made.season_id}/episodes",
            json={"game": "rocky-river", "map": "three-rapids"},
            headers=bearer(made.host_token),
            base_url=HOST,
        )
        assert r.status_code == 201, r.get_json()
    else:
        r = client.post(
            f"/season-host/{made.host_token}/main",
            data={"game": "rocky-river", "players": ["1", "2", "3"]},
            base_url=HOST,
        )
        assert r.status_code in (200, 303), r.get_data(as_text=True)[:2000]
    match_id = seasons.state(made.season_id).episodes[-1].main_match_id
    assert match_id is not None
    (link,) = [m["path"] for m in seasons.match_links(made.season_id, 1)]
    match = {"id": match_id, "player_tokens": {"1": link.removeprefix("/play/")}}
    r = save_address(client, match, 1, ANA, "api")
    assert r.status_code == 200, r.get_json()
    expected = operator or HOST
    assert_links_start_with(body_of(client, ask_link_again(client, match_id, ANA)), expected)


def test_a_demo_match_records_the_address_its_links_are_printed_for(engine: Engine) -> None:
    """``referee demo --port P`` prints links for http://127.0.0.1:P: the
    operator's own creation, so its messages' links start there too."""
    svc = Referee(engine, notify=NotifyConfig(smtp_url=MAIL))
    links = dict(create_demo(svc, "http://127.0.0.1:5123"))
    match_id = links["public page"].rsplit("/", 1)[1]
    svc.set_email(match_id, 1, ANA)
    svc.request_link(match_id, ANA, lambda seat, fingerprint: f"/link/{seat}-{fingerprint}")
    (message,) = [m for m in svc.messages(match_id) if m.event == "link_again"]
    assert addresses(message.body)
    assert all(a.startswith("http://127.0.0.1:5123/") for a in addresses(message.body))
