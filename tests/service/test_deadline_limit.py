"""The 1,440-hour limit (``MAX_DEADLINE_HOURS``, 60 days) in either direction
(issue 22, part 4d), on SQLite and PostgreSQL: 1440 hours is accepted, 1440.01
and 1441 are refused (``settings/bad_deadline``), wherever the hours of a
round's deadline are given: ``deadline_hours`` when a match is created
(service, API ``settings`` and ``schedule.hours_per_round``, the create form)
and the host's schedule hours (service ``set_schedule``, API and dashboard).
Its low end is 0 (no deadline; -0.01 refused). Reminder lead times have the
same bound (``MAX_LEAD_HOURS``).

A deadline the host sets on an open round is another bound: the dashboard's
"hours from now" take at most 366 days (8,784 hours) and an ISO time is only
bounded by the calendar (year 9999); those are pinned here as they are."""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Any

import pytest
from flask.testing import FlaskClient

from referee.errors import RuleError
from referee.notify.checks import MAX_LEAD_HOURS
from referee.service import MAX_DEADLINE_HOURS, Referee

from .conftest import PLAYERS
from .web.web_kit import Clock, create_match, new_match_form

ACCEPTED = [1440, 1440.0, 0, 0.01]
REFUSED = [1440.01, 1441, -0.01]


def test_the_limit_is_1440_hours() -> None:
    assert MAX_DEADLINE_HOURS == 1440 == MAX_LEAD_HOURS


def new(svc: Referee, **settings: Any) -> str:
    created = svc.create_match(
        name="Limit", setup={"map": "three-rapids"}, players=PLAYERS, settings=settings
    )
    return created.match_id


@pytest.mark.parametrize("hours", ACCEPTED)
def test_the_service_creates_a_match_with_deadline_hours_up_to_the_limit(
    svc: Referee, hours: float
) -> None:
    mid = new(svc, deadline_hours=hours)
    assert svc.state(mid).match.settings["deadline_hours"] == hours


@pytest.mark.parametrize("hours", REFUSED)
def test_the_service_refuses_deadline_hours_past_the_limit(svc: Referee, hours: float) -> None:
    with pytest.raises(RuleError) as refused:
        new(svc, deadline_hours=hours)
    assert refused.value.codes == ["settings/bad_deadline"]
    assert f"from 0 (no deadline) to 1440, not {hours!r}" in str(refused.value)
    assert svc.match_ids() == []


def test_a_round_of_1440_hours_is_due_60_days_after_it_opens(engine: Any) -> None:
    clock = Clock()
    svc = Referee(engine, clock=clock)
    rnd = svc.open_round(new(svc, deadline_hours=1440))
    assert rnd.deadline is not None
    assert rnd.deadline.replace(tzinfo=clock.now.tzinfo) - clock.now == timedelta(days=60)


@pytest.mark.parametrize("hours", ACCEPTED)
def test_set_schedule_takes_hours_up_to_the_limit(svc: Referee, hours: float) -> None:
    mid = new(svc)
    svc.set_schedule(mid, auto_open=False, hours_per_round=hours)
    assert svc.state(mid).match.settings["deadline_hours"] == hours


@pytest.mark.parametrize("hours", REFUSED)
def test_set_schedule_refuses_hours_past_the_limit(svc: Referee, hours: float) -> None:
    mid = new(svc, deadline_hours=48)
    with pytest.raises(RuleError) as refused:
        svc.set_schedule(mid, auto_open=False, hours_per_round=hours)
    assert refused.value.codes == ["settings/bad_deadline"]
    assert svc.state(mid).match.settings["deadline_hours"] == 48  # nothing changed


# ---- the API -----------------------------------------------------------------------


def api_create(client: FlaskClient, **extra: Any) -> Any:
    body = {"name": "Limit", "map": "three-rapids", "players": PLAYERS, **extra}
    return client.post("/api/matches", json=body)


@pytest.mark.parametrize(("hours", "status"), [(1440, 201), (1440.01, 422), (1441, 422)])
def test_the_api_creates_with_hours_up_to_the_limit(
    client: FlaskClient, hours: float, status: int
) -> None:
    for extra, field in (
        ({"settings": {"deadline_hours": hours}}, "deadline_hours"),
        ({"schedule": {"auto_open": True, "hours_per_round": hours}}, "deadline_hours"),
    ):
        r = api_create(client, **extra)
        assert r.status_code == status, (extra, r.get_json())
        if status == 422:
            (error,) = r.get_json()["errors"]
            assert error["code"] == "settings/bad_deadline" and error["field"] == field
        else:
            view = client.get(f"/api/matches/{r.get_json()['id']}").get_json()
            assert view["settings"]["deadline_hours"] == hours


@pytest.mark.parametrize(("hours", "status"), [(1440, 200), (1440.01, 422), (1441, 422)])
def test_the_api_schedule_takes_hours_up_to_the_limit(
    client: FlaskClient, hours: float, status: int
) -> None:
    created = api_create(client).get_json()
    url = f"/api/matches/{created['id']}/schedule"
    host = {"Authorization": f"Bearer {created['host_token']}"}
    r = client.put(url, headers=host, json={"hours_per_round": hours})
    assert r.status_code == status, r.get_json()
    if status == 422:
        (error,) = r.get_json()["errors"]
        assert error["code"] == "settings/bad_deadline" and error["field"] == "hours_per_round"
    else:
        assert r.get_json() == {"auto_open": False, "hours_per_round": hours}


@pytest.mark.parametrize(("hours", "status"), [(1440, 201), (1440.01, 422)])
def test_reminder_lead_times_have_the_same_bound(
    client: FlaskClient, hours: float, status: int
) -> None:
    r = api_create(client, notify={"webhook_url": "", "remind_before_hours": [hours]})
    assert r.status_code == status, r.get_json()
    if status == 422:
        assert [e["code"] for e in r.get_json()["errors"]] == ["notify/bad_reminders"]


# ---- the pages -----------------------------------------------------------------------


@pytest.fixture
def form(client: FlaskClient) -> FlaskClient:
    client.application.config["WTF_CSRF_ENABLED"] = False
    return client


def field_errors(html: str, field: str) -> str:
    found = re.search(rf'<ul class="field-errors" id="{field}-errors">(.*?)</ul>', html, re.S)
    assert found, f"no errors shown next to {field}"
    return found.group(1)


@pytest.mark.parametrize(("typed", "status"), [("1440", 303), ("1440.01", 422), ("1441", 422)])
def test_the_create_form_takes_hours_up_to_the_limit(
    form: FlaskClient, svc: Referee, typed: str, status: int
) -> None:
    r = form.post("/new", data=new_match_form("Limit", deadline_hours=typed))
    assert r.status_code == status
    if status == 422:
        near = field_errors(r.get_data(as_text=True), "deadline_hours")
        assert f"to 1440, not {typed}" in near
        assert svc.match_ids() == []
    else:
        (mid,) = svc.match_ids()
        assert svc.state(mid).match.settings["deadline_hours"] == 1440


@pytest.mark.parametrize(("typed", "status"), [("1440", 303), ("1440.01", 422), ("1441", 422)])
def test_the_host_schedule_form_takes_hours_up_to_the_limit(
    form: FlaskClient, svc: Referee, typed: str, status: int
) -> None:
    links = create_match(form, "Limit")
    r = form.post(f"{links.host}/schedule", data={"hours_per_round": typed})
    assert r.status_code == (302 if status == 303 else status)
    settings = svc.state(links.match_id).match.settings
    if status == 422:
        assert f"to 1440, not {typed}" in field_errors(r.get_data(as_text=True), "schedule")
        assert settings["deadline_hours"] == 48  # as created
    else:
        assert settings["deadline_hours"] == 1440


@pytest.mark.parametrize(("typed", "ok"), [("8784", True), ("8784.01", False)])
@pytest.mark.parametrize("action", ["open", "deadline"])
def test_the_hours_from_now_of_a_rounds_deadline_go_up_to_366_days(
    form: FlaskClient, svc: Referee, typed: str, ok: bool, action: str
) -> None:
    links = create_match(form, "Limit")
    if action == "deadline":
        svc.open_round(links.match_id)
    r = form.post(f"{links.host}/{action}", data={"hours": typed})
    rounds = svc.state(links.match_id).rounds
    if ok:
        assert r.status_code == 302
        assert rounds[0].deadline is not None and rounds[0].opened_at is not None
        left = rounds[0].deadline - rounds[0].opened_at
        assert left >= timedelta(days=366) - timedelta(minutes=1)
    else:
        assert r.status_code == 422
        assert "hours from now must be a number above 0, not &#39;8784.01&#39;" in r.get_data(
            as_text=True
        )
        if action == "open":
            assert rounds == []  # nothing opened
        else:
            assert rounds[0].deadline_changes == 0  # nor moved
