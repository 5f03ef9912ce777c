"""The host's web pages: the dashboard and every action on it, each refusal,
what the host may see (R11), the forum post, the export and CSRF."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime, timedelta

from flask import Flask
from flask.testing import FlaskClient

from referee.markup import match_post
from referee.ruleset import Viewer
from referee.rulesets.rocky_river.data import load_deck
from referee.service import Referee
from referee.views import view_for

from .web_kit import (
    EXPECTED,
    GOLDEN,
    Clock,
    Links,
    create_match,
    esc,
    form_data,
    host_post,
    page,
    play_round,
    send,
)

HANDS: dict[str, list[str]] = EXPECTED["hands"]
CANONICAL = list(load_deck().ids)


def create(client: FlaskClient, **extra: str) -> Links:
    return create_match(client, "Host test", **extra)


def csrf_token(html: str) -> str:
    found = re.search(r'name="csrf_token" type="hidden" value="([^"]+)"', html)
    assert found
    return found.group(1)


# ---- the dashboard ----------------------------------------------------------------


def test_dashboard_before_and_during_a_round(client: FlaskClient, clock: Clock) -> None:
    links = create(client)
    html = page(client, links.host)
    assert "host dashboard" in html and "Host test" in html
    assert "No round has opened yet." in html
    assert "Open Draft" in html
    assert f"http://localhost/matches/{links.match_id}" in html
    r = host_post(client, links, "open")
    assert r.status_code == 200
    html = r.get_data(as_text=True)
    assert "Draft is open for orders." in html  # the notice
    clock.now += timedelta(minutes=90)
    html = page(client, links.host)
    assert "<strong>Draft</strong> is open for orders" in html
    assert "2030-01-03T12:00:00Z" in html and "1 day 22 hours left" in html
    assert "Received from 0 of 3 players" in html
    for seat in (1, 2, 3):
        assert f"/order/{seat}" in html


def test_unknown_or_seat_token_on_host_pages_is_404(client: FlaskClient) -> None:
    links = create(client)
    seat_token = links.seats[1].rsplit("/", 1)[1]
    for url in ("/host/nope", f"/host/{seat_token}", f"/host/{seat_token}/export"):
        r = client.get(url)
        assert r.status_code == 404
        assert "Host test" not in r.get_data(as_text=True)
    assert client.post(f"/host/{seat_token}/close").status_code == 404
    assert client.post(f"/host/{seat_token}/preview").status_code == 404


def test_open_round_with_a_deadline_and_refusals(
    client: FlaskClient, svc: Referee, clock: Clock
) -> None:
    links = create(client)
    # a deadline in the past, and one that is not a date: refused, typed text kept
    for typed, message in [
        ("2020-01-01T00:00Z", "is not in the future"),
        ("next tuesday", "is not a date and time"),
    ]:
        r = host_post(client, links, "open", deadline=typed)
        assert r.status_code == 422
        html = r.get_data(as_text=True)
        assert message in html
        assert f'value="{esc(typed)}"' in html
        errors = html.split('id="open-errors"', 1)[1].split("</ul>", 1)[0]
        assert message in errors
    r = host_post(client, links, "open", deadline="2030-01-01T18:00Z", hours="3")
    assert r.status_code == 422 and "not both" in r.get_data(as_text=True)
    assert svc.state(links.match_id).rounds == []
    # a deadline without a zone is read as UTC
    r = host_post(client, links, "open", deadline="2030-01-02 18:30")
    assert r.status_code == 200
    rnd = svc.state(links.match_id).open_round
    assert rnd is not None and rnd.deadline == datetime(2030, 1, 2, 18, 30, tzinfo=UTC)
    # opening again while a round is open is refused with 409
    r = host_post(client, links, "open")
    assert r.status_code == 409
    assert "Draft is still open; close it first" in r.get_data(as_text=True)


def test_extend_deadline(client: FlaskClient, svc: Referee, clock: Clock) -> None:
    links = create(client)
    r = host_post(client, links, "deadline", hours="5")
    assert r.status_code == 409 and "no round is open" in r.get_data(as_text=True)
    host_post(client, links, "open")
    r = host_post(client, links, "deadline", hours="5")
    assert r.status_code == 200
    assert "deadline is now 2030-01-01T17:00:00Z" in r.get_data(as_text=True)
    r = host_post(client, links, "deadline", deadline="2030-02-01T09:00Z")
    assert r.status_code == 200
    rnd = svc.state(links.match_id).open_round
    assert rnd is not None and rnd.deadline == datetime(2030, 2, 1, 9, 0, tzinfo=UTC)
    r = host_post(client, links, "deadline", no_deadline="y")
    assert r.status_code == 200 and "no deadline now" in r.get_data(as_text=True)
    rnd = svc.state(links.match_id).open_round
    assert rnd is not None and rnd.deadline is None
    # refusals keep what was typed
    r = host_post(client, links, "deadline", hours="soon")
    assert r.status_code == 422
    html = r.get_data(as_text=True)
    assert "hours from now must be a number above 0, not &#39;soon&#39;" in html
    assert 'value="soon"' in html
    r = host_post(client, links, "deadline")
    assert r.status_code == 422 and "give the new deadline" in r.get_data(as_text=True)
    r = host_post(client, links, "deadline", deadline="1999-01-01T00:00Z")
    assert r.status_code == 422 and "is not in the future" in r.get_data(as_text=True)


def test_pause_and_resume(client: FlaskClient, svc: Referee, clock: Clock) -> None:
    links = create(client)
    host_post(client, links, "open")
    r = host_post(client, links, "resume")
    assert r.status_code == 409 and "the match is not paused" in r.get_data(as_text=True)
    r = host_post(client, links, "pause")
    assert r.status_code == 200
    html = r.get_data(as_text=True)
    assert "<strong>Paused:</strong>" in html and "Resume the match" in html
    assert "the clock is stopped while the match is paused" in html
    r = host_post(client, links, "pause")
    assert r.status_code == 409 and "already paused" in r.get_data(as_text=True)
    # while paused, a passed deadline does not close the round
    clock.now += timedelta(hours=50)
    assert "Draft</strong> is open" in page(client, links.host)
    r = host_post(client, links, "resume")
    assert r.status_code == 200
    rnd = svc.state(links.match_id).open_round
    assert rnd is not None and rnd.deadline == datetime(2030, 1, 5, 14, 0, tzinfo=UTC)
    assert "Pause the match" in r.get_data(as_text=True)


# ---- orders the host enters --------------------------------------------------------


def test_host_entered_order(client: FlaskClient, svc: Referee) -> None:
    links = create(client)
    host_post(client, links, "open")
    assert client.get(f"{links.host}/order/9").status_code == 404
    send(client, links, 2, 1)
    html = page(client, f"{links.host}/order/2")
    assert "Enter an order for P2 (seat 2)" in html
    assert "has already sent an order" in html
    assert html.count('name="ranking" value=') == 27
    # refused: every problem shown, text kept
    r = client.post(f"{links.host}/order/2", data={"round": "1", "ranking_text": "J, J, Q"})
    assert r.status_code == 422
    html = r.get_data(as_text=True)
    assert "card J is listed twice" in html and "missing:" in html
    assert "J, J, Q</textarea>" in html
    # accepted: recorded as host-entered, with a receipt
    r = client.post(
        f"{links.host}/order/2",
        data={"round": "1", "ranking_text": ", ".join(reversed(CANONICAL))},
        follow_redirects=True,
    )
    assert r.status_code == 200
    html = r.get_data(as_text=True)
    receipt = re.search(r"recorded as entered by the host. Receipt: ([0-9a-f]{64})", html)
    assert receipt
    assert "P2 (seat 2):\n        <strong>order received</strong> (entered by you)" in html
    order = svc.state(links.match_id).orders_of(1)[2]
    assert order.host_entered and order.receipt == receipt.group(1)
    # the player sees it as entered for them by the host
    seat_page = page(client, links.seats[2])
    assert "(entered for you by the host)" in seat_page and receipt.group(1) in seat_page
    # and once the round closes, the rounds table says so to everyone
    host_post(client, links, "close")
    assert "P2 (entered by the host)" in page(client, links.host)


def test_host_enters_placements_from_the_seats_hand(client: FlaskClient, svc: Referee) -> None:
    links = create(client)
    play_round(client, links, 1)
    host_post(client, links, "open")
    html = page(client, f"{links.host}/order/3")
    for card in HANDS["3"]:
        assert f'name="place_{card}"' in html
    for card in HANDS["1"]:
        assert f'name="place_{card}"' not in html
    r = client.post(
        f"{links.host}/order/3",
        data=form_data(2, GOLDEN["placements"]["3"]),
        follow_redirects=True,
    )
    assert r.status_code == 200
    order = svc.state(links.match_id).orders_of(2)[3]
    assert order.host_entered and order.payload == GOLDEN["placements"]["3"]


def test_host_order_after_close_is_refused(client: FlaskClient) -> None:
    links = create(client)
    host_post(client, links, "open")
    host_post(client, links, "close")
    r = client.post(f"{links.host}/order/1", data=form_data(1, CANONICAL))
    assert r.status_code == 409
    assert "no round is open for orders" in r.get_data(as_text=True)


# ---- preview, close, results -------------------------------------------------------


def test_preview_is_shown_to_the_host_only_and_nothing_is_stored(
    client: FlaskClient, svc: Referee
) -> None:
    links = create(client)
    r = host_post(client, links, "preview")
    assert r.status_code == 409 and "no round is open to preview" in r.get_data(as_text=True)
    host_post(client, links, "open")
    send(client, links, 1, 1)
    before = svc.state(links.match_id)
    r = host_post(client, links, "preview")
    assert r.status_code == 200
    html = r.get_data(as_text=True)
    assert "Preview: closing Draft now" in html and "nothing is stored" in html
    # per seat, which order closing would use; nothing computed from a sealed order
    assert "P1 (seat 1):\n    <strong>their own order</strong>" in html
    assert "P2 (seat 2):\n    <strong>no order</strong>" in html
    assert "data-hand-seat" not in html
    assert ", ".join(GOLDEN["draft"]["1"]) not in html
    after = svc.state(links.match_id)
    assert after.match.version == before.match.version
    assert [(r.number, r.status, r.result) for r in after.rounds] == [(1, "open", None)]
    # and the seat's page knows nothing of it
    assert "data-hand-card" not in page(client, links.seats[1])


def test_preview_resolves_a_round_whose_every_order_the_host_entered(
    client: FlaskClient, svc: Referee
) -> None:
    links = create(client)
    host_post(client, links, "open")
    for seat in (1, 2, 3):
        r = client.post(
            f"{links.host}/order/{seat}",
            data={"round": "1", "ranking_text": ", ".join(GOLDEN["draft"][str(seat)])},
        )
        assert r.status_code == 302
    html = host_post(client, links, "preview").get_data(as_text=True)
    assert html.count("<strong>the order you entered</strong>") == 3
    for seat in ("1", "2", "3"):  # the hands closing would deal
        assert f'data-hand-seat="{seat}"' in html
    expected = svc.preview(links.match_id).result
    assert expected is not None and expected["hands"]["1"]


def test_close_and_the_results_the_host_sees(client: FlaskClient) -> None:
    links = create(client)
    r = host_post(client, links, "close")
    assert r.status_code == 409 and "no round is open for orders" in r.get_data(as_text=True)
    play_round(client, links, 1)
    html = page(client, links.host)
    assert "closed by the host" in html and "(closed by host)" not in html
    for seat in ("1", "2", "3"):
        assert f'data-hand-seat="{seat}"' in html
        assert ", ".join(GOLDEN["draft"][seat]) in html  # closed: the host sees the lists
    assert "Draft conflicts" in html
    play_round(client, links, 2)
    html = page(client, links.host)
    for seat in ("1", "2", "3"):
        for card, branch in GOLDEN["placements"][seat].items():
            assert f'data-placement="{card}:{branch}"' in html
    assert "Slot totals" in html
    for number in (3, 4, 5):
        play_round(client, links, number)
    html = page(client, links.host)
    assert "The match has finished" in html
    assert "Token of Life" in html and "Elimination Candidate" in html
    for seat, score in EXPECTED["scores"].items():
        name = GOLDEN["players"][int(seat) - 1]["name"]
        sign = f"+{score}" if score > 0 else str(score)
        assert f'<td class="name">{name} (seat {seat})</td><td>{sign}</td>' in html
    r = host_post(client, links, "open")
    assert r.status_code == 409 and "every round of this match has closed" in r.get_data(
        as_text=True
    )


def test_dashboard_never_shows_an_open_rounds_orders(client: FlaskClient) -> None:
    links = create(client)
    host_post(client, links, "open")
    ranking = GOLDEN["draft"]["1"]
    send(client, links, 1, 1)
    html = page(client, links.host)
    assert "order received" in html
    assert ", ".join(ranking) not in html and "data-hand-card" not in html
    for seat in (2, 3):
        send(client, links, seat, 1)
    host_post(client, links, "close")
    host_post(client, links, "open")
    for seat in (1, 2, 3):
        send(client, links, seat, 2)
    html = page(client, links.host)
    assert "Received from 3 of 3 players" in html
    assert "data-placement=" not in html and " → " not in html
    host_post(client, links, "close")
    host_post(client, links, "open")
    send(client, links, 1, 3, ["R", "R", "L"])
    html = page(client, links.host)
    assert "R, R, L" not in html and "data-step=" not in html


def test_reveal(client: FlaskClient, svc: Referee) -> None:
    links = create(client)
    r = host_post(client, links, "reveal")
    assert r.status_code == 409
    assert "a full reveal is possible once every round has closed" in r.get_data(as_text=True)
    for number in range(1, 6):
        play_round(client, links, number)
    public = page(client, f"/matches/{links.match_id}")
    assert "data-hand-card" not in public and "data-placement" not in public
    assert "Reveal everything" in page(client, links.host)
    r = host_post(client, links, "reveal")
    assert r.status_code == 200
    assert "Reveal everything" not in r.get_data(as_text=True)
    public = page(client, f"/matches/{links.match_id}")
    assert "fully revealed" in public
    for seat in ("1", "2", "3"):
        assert f'data-hand-seat="{seat}"' in public
    assert svc.state(links.match_id).match.revealed


# ---- links, post, export -----------------------------------------------------------


def test_reissue_a_seat_link_and_the_host_link(client: FlaskClient) -> None:
    links = create(client)
    r = host_post(client, links, "reissue", who="2")
    assert r.status_code == 200
    html = r.get_data(as_text=True)
    assert "A new link for the link of seat 2 (P2)" in html and "only in this browser" in html
    new_seat = re.search(r'id="new-link" href="http://localhost(/play/[^"]+)"', html)
    assert new_seat
    assert client.get(links.seats[2]).status_code == 404
    assert "the page of <strong>P2</strong>" in page(client, new_seat.group(1))
    assert client.get(links.seats[1]).status_code == 200
    r = host_post(client, links, "reissue", who="7")
    assert r.status_code == 422 and "choose the host or a seat" in r.get_data(as_text=True)
    r = host_post(client, links, "reissue", who="host")
    assert r.status_code == 200
    new_host = re.search(
        r'id="new-link" href="http://localhost(/host/[^"]+)"', r.get_data(as_text=True)
    )
    assert new_host
    assert client.get(links.host).status_code == 404
    assert "host dashboard" in page(client, new_host.group(1))


def test_forum_post_page(client: FlaskClient, svc: Referee) -> None:
    links = create(client)
    play_round(client, links, 1)
    state = svc.state(links.match_id)
    for fmt in ("markdown", "bbcode"):
        html = page(client, f"{links.host}/post?format={fmt}")
        text = match_post(state.ruleset, view_for(state, Viewer.public()), fmt, "http://localhost/")
        assert f'readonly spellcheck="false">{esc(text)}</textarea>' in html
        assert f"http://localhost/matches/{links.match_id}/map.png" in text
        assert "data-hand-card" not in html
    assert "[b]Players[/b]" in page(client, f"{links.host}/post?format=bbcode")
    r = client.get(f"{links.host}/post?format=html")
    assert r.status_code == 422 and "format must be markdown or bbcode" in r.get_data(as_text=True)


def test_export_downloads_the_match_file(client: FlaskClient, svc: Referee) -> None:
    links = create(client)
    play_round(client, links, 1)
    r = client.get(f"{links.host}/export")
    assert r.status_code == 200 and r.mimetype == "application/json"
    assert r.headers["Content-Disposition"] == (
        f'attachment; filename="{links.match_id}.match.json"'
    )
    assert json.loads(r.get_data(as_text=True)) == svc.export(links.match_id)


# ---- CSRF ---------------------------------------------------------------------------


def test_posts_without_a_csrf_token_are_refused(app: Flask, clock: Clock) -> None:
    app.config["WTF_CSRF_ENABLED"] = True
    svc: Referee = app.extensions["referee"]
    client = app.test_client()
    data = {
        "name": "CSRF",
        "bundled_map": "three-rapids",
        "deadline_hours": "48",
        "players-0-name": "A",
        "players-0-garnets": "1",
        "players-1-name": "B",
        "players-1-garnets": "2",
        "players-2-name": "C",
        "players-2-garnets": "3",
        "create": "1",
    }
    r = client.post("/new", data=data)
    assert r.status_code == 400 and "The form expired" in r.get_data(as_text=True)
    assert svc.match_ids() == []
    data["csrf_token"] = csrf_token(page(client, "/new"))
    r = client.post("/new", data=data, follow_redirects=True)
    assert r.status_code == 200
    created = r.get_data(as_text=True)
    host = re.search(r'id="host-link" href="http://localhost(/host/[^"]+)"', created)
    seat = re.search(r'href="http://localhost(/play/[^"]+)"', created)
    assert host and seat
    (match_id,) = svc.match_ids()
    r = client.post(f"{host.group(1)}/pause")
    assert r.status_code == 400
    assert svc.state(match_id).match.paused_at is None
    token = csrf_token(page(client, host.group(1)))
    r = client.post(f"{host.group(1)}/pause", data={"csrf_token": token})
    assert r.status_code == 302
    assert svc.state(match_id).match.paused_at is not None
    # the player's order forms too
    for action in ("resume", "open"):
        r = client.post(f"{host.group(1)}/{action}", data={"csrf_token": token})
        assert r.status_code == 302
    order = {"round": "1", "ranking": CANONICAL}
    assert client.post(seat.group(1), data=order).status_code == 400
    assert svc.state(match_id).orders_of(1) == {}
    order["csrf_token"] = csrf_token(page(client, seat.group(1)))
    assert client.post(seat.group(1), data=order).status_code == 302
    assert svc.state(match_id).orders_of(1)[1].payload == CANONICAL
    # a fresh client (another browser) cannot reuse this one's token either
    r = app.test_client().post(f"{host.group(1)}/pause", data={"csrf_token": token})
    assert r.status_code == 400
    assert svc.state(match_id).match.paused_at is None
