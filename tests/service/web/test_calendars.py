"""The calendar feeds over HTTP (referee.web.calendars), on SQLite and PostgreSQL:
the addresses the pages show, the answers' headers, the seat feed's key (a wrong
key, an unknown seat or match: one and the same 404; a re-issued link retires
the old address) and no private link in any feed."""

from __future__ import annotations

import html
import re
from datetime import timedelta

from flask import Flask
from flask.testing import FlaskClient
from icalendar import Calendar

from referee.demo import play_steps
from referee.notify.calendar import calendar_key
from referee.ruleset import get_ruleset
from referee.service import Created, Referee, token_hash

from .web_kit import Clock

FEED = re.compile(r'<code class="calendar-url">([^<]+)</code>')
WEBCAL = re.compile(r'href="(webcal://[^"]+)"')


def new_match(svc: Referee) -> Created:
    demo = get_ruleset("rocky-river").demo(None)
    return svc.create_match(
        name=demo.name,
        setup=demo.setup,
        players=demo.players,
        settings=demo.settings,
        ruleset="rocky-river",
        seed=demo.seed,
    )


def shown_feed(client: FlaskClient, page: str) -> str:
    """The feed address a page shows (its path), checking its webcal variant."""
    r = client.get(page)
    assert r.status_code == 200
    text = r.get_data(as_text=True)
    (url,) = FEED.findall(text)
    url = html.unescape(url)
    (webcal,) = WEBCAL.findall(text)
    assert html.unescape(webcal) == "webcal://" + url.removeprefix("http://")
    assert url.startswith("http://localhost/")
    return url.removeprefix("http://localhost")


def test_the_public_feed(client: FlaskClient, svc: Referee, clock: Clock) -> None:
    created = new_match(svc)
    mid = created.match_id
    svc.open_round(mid)
    path = shown_feed(client, f"/matches/{mid}")
    assert path == f"/matches/{mid}/calendar.ics"
    r = client.get(path)
    assert r.status_code == 200
    assert r.headers["Content-Type"] == "text/calendar; charset=utf-8"
    assert r.headers["Cache-Control"] == "no-cache"
    (event,) = Calendar.from_ical(r.data).walk("VEVENT")
    assert str(event["URL"]) == f"http://localhost/matches/{mid}"
    assert event.decoded("DTSTART") == clock.now + timedelta(hours=48)
    assert client.get("/matches/nosuchmatch/calendar.ics").status_code == 404


def test_the_seat_feed_and_its_key(client: FlaskClient, svc: Referee) -> None:
    created = new_match(svc)
    mid = created.match_id
    svc.open_round(mid)
    token = created.player_tokens[2]
    path = shown_feed(client, f"/play/{token}")
    key = calendar_key(token_hash(token))
    assert path == f"/matches/{mid}/seats/2/calendar/{key}.ics"
    assert token not in path
    r = client.get(path)
    assert r.status_code == 200
    assert r.headers["Content-Type"] == "text/calendar; charset=utf-8"
    assert r.headers["Cache-Control"] == "no-store"
    cal = Calendar.from_ical(r.data)
    assert "Bo" in str(cal["X-WR-CALNAME"])
    (event,) = cal.walk("VEVENT")
    assert "You have not sent an order yet." in str(event["DESCRIPTION"])
    assert len(event.subcomponents) == 1  # the reminder
    # the public page shows the public feed, never a seat's
    public = client.get(f"/matches/{mid}").get_data(as_text=True)
    assert key not in public and "/seats/" not in public

    # wrong key, another seat's key, unknown seat, unknown match: the same 404
    other = calendar_key(token_hash(created.player_tokens[1]))
    refused = [
        f"/matches/{mid}/seats/2/calendar/{'0' * 32}.ics",
        f"/matches/{mid}/seats/2/calendar/{other}.ics",
        f"/matches/{mid}/seats/2/calendar/{key[:-1]}.ics",
        f"/matches/{mid}/seats/9/calendar/{key}.ics",
        f"/matches/nosuchmatch/seats/2/calendar/{key}.ics",
        f"/matches/{mid}/seats/2/calendar/{token}.ics",
    ]
    bodies = set()
    for url in refused:
        answer = client.get(url)
        assert answer.status_code == 404, url
        bodies.add(answer.data)
    assert len(bodies) == 1

    # a re-issued link retires the old feed address; the page shows the new one
    new_token = svc.reissue_token(mid, 2)
    gone = client.get(path)
    assert gone.status_code == 404 and gone.data in bodies
    new_path = shown_feed(client, f"/play/{new_token}")
    assert new_path != path
    assert client.get(new_path).status_code == 200


def test_no_private_link_in_any_feed(client: FlaskClient, svc: Referee) -> None:
    created = new_match(svc)
    mid = created.match_id
    secrets = [created.host_token, *created.player_tokens.values()]
    secrets += [token_hash(t) for t in list(secrets)]
    feeds = [f"/matches/{mid}/calendar.ics"]
    feeds += [
        f"/matches/{mid}/seats/{seat}/calendar/{calendar_key(token_hash(t))}.ics"
        for seat, t in created.player_tokens.items()
    ]
    play_steps(svc, mid, get_ruleset("rocky-river").demo(None).steps[:2])
    for url in feeds:
        r = client.get(url)
        assert r.status_code == 200
        flat = r.data.replace(b"\r\n ", b"").decode("utf-8")
        assert len(Calendar.from_ical(r.data).walk("VEVENT")) == 3
        assert "/play/" not in flat and "/host/" not in flat
        assert not [s for s in secrets if s in flat]


def test_feeds_are_rate_limited_and_wrong_keys_count_as_wrong_links(
    app: Flask, client: FlaskClient, svc: Referee
) -> None:
    app.config.update(RATELIMIT_ENABLED=True, RATELIMIT_CALENDARS="3 per minute")
    mid = new_match(svc).match_id
    answers = [client.get(f"/matches/{mid}/calendar.ics").status_code for _ in range(4)]
    assert answers == [200, 200, 200, 429]
    app.config.update(RATELIMIT_CALENDARS="100 per minute", RATELIMIT_FAILED_TOKENS="2 per minute")
    wrong = [
        client.get(f"/matches/{mid}/seats/1/calendar/{'0' * 32}.ics").status_code for _ in range(3)
    ]
    assert wrong == [404, 404, 429]
