"""The iCalendar feeds (referee.notify.calendar), built from real matches'
views and read back with the ``icalendar`` package's parser: which rounds
become events, in every state of a match; a seat's feed lists only the rounds
it acts in and reminds it only while it has not sent; a moved deadline updates
the same event; hostile names survive escaping exactly; no private link ever
appears in a feed."""

from __future__ import annotations

import hashlib
import hmac
import re
from collections.abc import Iterator
from datetime import timedelta
from typing import Any

import pytest
from icalendar import Calendar
from service.conftest import Clock
from toy import registered

from referee.db import make_engine, migrate
from referee.demo import play_steps
from referee.notify.calendar import (
    calendar_key,
    event_uid,
    key_matches,
    match_calendar,
    seat_calendar,
)
from referee.ruleset import Viewer, get_ruleset
from referee.service import Created, Referee, token_hash
from referee.views import view_for

URL = "https://referee.example.org/matches/"
HOSTILE_MATCH = 'Ana\'s, "Match"; C:\\temp\\ <script>alert(1)</script>'
HOSTILE_PLAYER = 'Bo; "the\\one", <b>'


@pytest.fixture
def svc(tmp_path: Any) -> Iterator[Referee]:
    engine = make_engine(f"sqlite:///{tmp_path / 'cal.db'}")
    migrate(engine)
    service = Referee(engine)
    service.clock = Clock()
    yield service
    engine.dispose()


def rocky(svc: Referee, name: str | None = None, players: Any = None) -> Created:
    demo = get_ruleset("rocky-river").demo(None)
    return svc.create_match(
        name=name or demo.name,
        setup=demo.setup,
        players=players or demo.players,
        settings=demo.settings,
        ruleset="rocky-river",
        seed=demo.seed,
    )


def public_feed(svc: Referee, mid: str) -> bytes:
    view = view_for(svc.state(mid), Viewer.public())
    return match_calendar(view, URL + mid, svc.clock())


def seat_feed(svc: Referee, mid: str, seat: int) -> bytes:
    view = view_for(svc.state(mid), Viewer.of_seat(seat))
    return seat_calendar(view, seat, URL + mid, svc.clock())


def events(feed: bytes) -> list[Any]:
    cal = Calendar.from_ical(feed)
    assert str(cal["VERSION"]) == "2.0" and str(cal["PRODID"])
    return list(cal.walk("VEVENT"))


def unescape(raw: str) -> str:
    """RFC 5545 TEXT unescaping (icalendar reads NAME and X- properties raw)."""
    return re.sub(r"\\([\\;,nN])", lambda m: "\n" if m[1] in "nN" else m[1], raw)


def by_uid(feed: bytes) -> dict[str, Any]:
    return {str(e["UID"]): e for e in events(feed)}


def alarms(event: Any) -> list[Any]:
    return [c for c in event.subcomponents if c.name == "VALARM"]


# ---- the key ----------------------------------------------------------------


def test_calendar_key_is_an_hmac_of_the_link_hash_and_changes_with_it() -> None:
    digest = token_hash("some seat link")
    expected = hmac.new(bytes.fromhex(digest), b"referee seat calendar", hashlib.sha256)
    key = calendar_key(digest)
    assert key == expected.hexdigest()[:32]
    assert key_matches(key, digest)
    other = token_hash("the re-issued link")
    assert calendar_key(other) != key and not key_matches(key, other)
    assert not key_matches(key[:-1], digest) and not key_matches("", digest)
    assert not key_matches(key.upper(), digest)


# ---- events through a match -------------------------------------------------


def test_events_through_a_whole_match(svc: Referee) -> None:
    created = rocky(svc)
    mid = created.match_id
    steps = get_ruleset("rocky-river").demo(None).steps

    # before round 1: every round is pending, with no deadline yet
    assert events(public_feed(svc, mid)) == []
    assert all(events(seat_feed(svc, mid, s)) == [] for s in (1, 2, 3))

    # round 1 open: one event at its deadline; every seat is reminded
    rnd = svc.open_round(mid)
    assert rnd.deadline == svc.clock() + timedelta(hours=48)
    (public,) = events(public_feed(svc, mid))
    assert str(public["UID"]) == event_uid(mid, 1, None)
    assert public.decoded("DTSTART") == rnd.deadline
    assert str(public["SUMMARY"]) == "Demo: Rocky River Riding: Draft closes"
    assert str(public["URL"]) == URL + mid
    assert "0 of 3 sent so far" in str(public["DESCRIPTION"])
    assert alarms(public) == []  # the public feed reminds no one
    for seat in (1, 2, 3):
        (mine,) = events(seat_feed(svc, mid, seat))
        assert str(mine["UID"]) == event_uid(mid, 1, seat) != str(public["UID"])
        assert mine.decoded("DTSTART") == rnd.deadline
        assert "You have not sent an order yet." in str(mine["DESCRIPTION"])
        (alarm,) = alarms(mine)
        assert alarm.decoded("TRIGGER") == -timedelta(hours=2)
        assert str(alarm["ACTION"]) == "DISPLAY"

    # seat 1 sends: its reminder goes, the others' stay
    svc.submit_order(mid, 1, steps[0][1])
    (mine,) = events(seat_feed(svc, mid, 1))
    assert alarms(mine) == [] and "You have sent an order" in str(mine["DESCRIPTION"])
    assert len(alarms(events(seat_feed(svc, mid, 2))[0])) == 1
    assert "1 of 3 sent so far" in str(events(public_feed(svc, mid))[0]["DESCRIPTION"])

    for seat in (2, 3):
        svc.submit_order(mid, seat, steps[0][seat])

    # closed: the same event, now saying when it closed, a higher SEQUENCE, no alarm
    opened_sequence = int(public["SEQUENCE"])
    svc.clock.now += timedelta(hours=3)  # type: ignore[attr-defined]
    svc.close_round(mid)
    (closed,) = events(public_feed(svc, mid))
    assert str(closed["UID"]) == str(public["UID"])
    assert int(closed["SEQUENCE"]) > opened_sequence
    assert str(closed["SUMMARY"]).endswith("Draft closed")
    assert "Draft closed at 2026-11-01 15:00 UTC." in str(closed["DESCRIPTION"])
    for seat in (1, 2, 3):
        (mine,) = events(seat_feed(svc, mid, seat))
        assert alarms(mine) == [] and "closed at" in str(mine["DESCRIPTION"])

    # to the end: one event per round, all closed, none reminding anyone
    play_steps(svc, mid, steps[1:])
    assert svc.state(mid).match.finished
    every = events(public_feed(svc, mid))
    assert [str(e["UID"]) for e in every] == [event_uid(mid, n, None) for n in range(1, 6)]
    assert all(str(e["SUMMARY"]).endswith(" closed") for e in every)
    for seat in (1, 2, 3):
        mine = events(seat_feed(svc, mid, seat))
        assert len(mine) == 5 and all(alarms(e) == [] for e in mine)


def test_a_seat_feed_lists_only_the_rounds_the_seat_acts_in(svc: Referee) -> None:
    with registered():
        players = [{"seat": s, "name": n} for s, n in enumerate(("Ana", "Bo", "Cy"), 1)]
        mid = svc.create_match(name="turns", players=players, ruleset="toy", seed="s").match_id
        svc.open_round(mid)
        for seat in (1, 2, 3):
            options = view_for(svc.state(mid), Viewer.of_seat(seat))["options"]
            svc.submit_order(mid, seat, options[0])
        svc.close_round(mid)
        turn = svc.open_round(mid)  # one seat picks
        (picker,) = turn.acting
        assert len(events(public_feed(svc, mid))) == 2
        for seat in (1, 2, 3):
            uids = set(by_uid(seat_feed(svc, mid, seat)))
            expected = {event_uid(mid, 1, seat)}
            if seat == picker:
                expected.add(event_uid(mid, 2, seat))
            assert uids == expected, seat
        (reminded,) = [e for e in events(seat_feed(svc, mid, picker)) if alarms(e)]
        assert str(reminded["UID"]) == event_uid(mid, 2, picker)


def test_a_moved_deadline_updates_the_same_event(svc: Referee) -> None:
    mid = rocky(svc).match_id
    svc.open_round(mid)
    before = by_uid(public_feed(svc, mid))
    before_seat = by_uid(seat_feed(svc, mid, 2))
    later = svc.clock() + timedelta(hours=72)
    svc.extend_deadline(mid, later)
    after = by_uid(public_feed(svc, mid))
    after_seat = by_uid(seat_feed(svc, mid, 2))
    for old, new in ((before, after), (before_seat, after_seat)):
        assert old.keys() == new.keys() and len(new) == 1
        (uid,) = new
        assert new[uid].decoded("DTSTART") == later != old[uid].decoded("DTSTART")
        assert int(new[uid]["SEQUENCE"]) > int(old[uid]["SEQUENCE"])
    svc.extend_deadline(mid, None)  # no deadline any more: no event
    assert events(public_feed(svc, mid)) == []


def test_the_sequence_only_ever_increases(svc: Referee) -> None:
    """RFC 5545: each change of an event raises its SEQUENCE, a deadline moved
    earlier as much as one moved later, a resume, and the round's close."""
    mid = rocky(svc).match_id
    svc.open_round(mid)

    def sequence() -> int:
        (event,) = events(public_feed(svc, mid))
        return int(event["SEQUENCE"])

    seen = [sequence()]
    svc.extend_deadline(mid, svc.clock() + timedelta(hours=72))
    seen.append(sequence())
    svc.extend_deadline(mid, svc.clock() + timedelta(hours=1))  # earlier
    seen.append(sequence())
    svc.pause(mid)
    svc.clock.now += timedelta(minutes=5)  # type: ignore[attr-defined]
    svc.resume(mid)  # the deadline moves by the time paused
    seen.append(sequence())
    svc.close_round(mid)
    seen.append(sequence())
    assert seen == sorted(seen) and len(set(seen)) == len(seen), seen


def test_a_paused_match_says_the_deadline_may_move(svc: Referee) -> None:
    mid = rocky(svc).match_id
    svc.open_round(mid)
    svc.pause(mid)
    (event,) = events(seat_feed(svc, mid, 1))
    assert "The match is paused" in str(event["DESCRIPTION"])


def test_hostile_names_round_trip_exactly(svc: Referee) -> None:
    demo = get_ruleset("rocky-river").demo(None)
    players = [dict(p) for p in demo.players]
    players[1]["name"] = HOSTILE_PLAYER
    mid = rocky(svc, HOSTILE_MATCH, players).match_id
    svc.open_round(mid)
    for feed, title in (
        (public_feed(svc, mid), HOSTILE_MATCH),
        (seat_feed(svc, mid, 2), f"{HOSTILE_MATCH} — {HOSTILE_PLAYER}"),
    ):
        cal = Calendar.from_ical(feed)
        assert unescape(str(cal["X-WR-CALNAME"])) == title
        assert unescape(str(cal["NAME"])) == title
        (event,) = cal.walk("VEVENT")
        assert str(event["SUMMARY"]) == f"{HOSTILE_MATCH}: Draft closes"
        assert str(event["DESCRIPTION"]).endswith(f"Match page: {URL}{mid}")
        for alarm in alarms(event):
            assert str(alarm["DESCRIPTION"]) == f"{HOSTILE_MATCH}: send your order for Draft"
        # no line of the feed was split open by the names
        assert len(cal.walk("VEVENT")) == 1 and len(cal.walk("VCALENDAR")) == 1


def test_no_private_link_in_any_feed(svc: Referee) -> None:
    created = rocky(svc)
    mid = created.match_id
    secrets = [created.host_token, *created.player_tokens.values()]
    secrets += [token_hash(t) for t in list(secrets)]
    secrets += [calendar_key(token_hash(t)) for t in created.player_tokens.values()]
    steps = get_ruleset("rocky-river").demo(None).steps

    def check() -> None:
        for feed in [public_feed(svc, mid), *(seat_feed(svc, mid, s) for s in (1, 2, 3))]:
            flat = feed.replace(b"\r\n ", b"").decode("utf-8")  # unfolded
            assert "/play/" not in flat and "/host/" not in flat
            assert not [s for s in secrets if s in flat]

    check()
    for orders in steps:
        svc.open_round(mid)
        check()
        for seat, order in orders.items():
            svc.submit_order(mid, seat, order)
        check()
        svc.close_round(mid)
        check()


def test_a_seat_feed_needs_that_seat_s_own_view(svc: Referee) -> None:
    mid = rocky(svc).match_id
    with pytest.raises(ValueError):
        seat_calendar(view_for(svc.state(mid), Viewer.public()), 1, URL, svc.clock())
    with pytest.raises(ValueError):
        seat_calendar(view_for(svc.state(mid), Viewer.of_seat(2)), 1, URL, svc.clock())
