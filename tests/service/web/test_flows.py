"""The host's and players' flows through the pages (issue 13): creating a match
is POST/redirect/GET and its links are shown to the creating browser only; Enter
in the create form creates the match; the actions that cannot be undone need
"I am sure"; rounds say in plain words how they closed; the result comes first
after the end; after the full reveal every order is published with its salt, and
every receipt can be recomputed from the page alone."""

from __future__ import annotations

import hashlib
import json
import re
import subprocess
from datetime import timedelta
from html import unescape
from html.parser import HTMLParser

import pytest
from flask import Flask
from flask.testing import FlaskClient

from referee.service import Referee, canonical_json
from referee.web import pages

from .web_kit import Clock, Links, create_match, host_post, new_match_form, page, play_round, send

# ---- creating a match: POST/redirect/GET ------------------------------------


def secret_links(html: str) -> list[str]:
    return re.findall(r'href="http://localhost(/(?:host|play)/[^"]+)"', html)


def test_creating_redirects_and_a_reload_creates_nothing(
    app: Flask, client: FlaskClient, svc: Referee
) -> None:
    r = client.post("/new", data=new_match_form("Reload me"))
    assert r.status_code == 303 and r.headers["Cache-Control"] == "no-store"
    (match_id,) = svc.match_ids()
    assert r.headers["Location"] == f"/new/{match_id}"
    first = page(client, f"/new/{match_id}")
    links = secret_links(first)
    assert len(links) == 4 and "“Reload me” is ready" in first
    # a reload is a GET: the same links, no second match
    again = client.get(f"/new/{match_id}")
    assert again.status_code == 200 and again.headers["Cache-Control"] == "no-store"
    assert secret_links(again.get_data(as_text=True)) == links
    assert svc.match_ids() == [match_id]
    # the links work
    assert "host dashboard" in page(client, links[0])
    assert "the page of <strong>P1</strong>" in page(client, links[1])
    # another browser (no session) sees none of them, nor does it learn the match exists
    other = app.test_client().get(f"/new/{match_id}")
    html = other.get_data(as_text=True)
    assert other.status_code == 404 and "/host/" not in html and "/play/" not in html
    assert "only to the browser that created it" in html


def test_the_links_are_kept_for_an_hour_and_for_the_last_three_matches(
    client: FlaskClient, clock: Clock, svc: Referee
) -> None:
    ids = []
    for n in range(4):
        client.post("/new", data=new_match_form(f"Match {n}"))
        ids.append(next(m for m in svc.match_ids() if m not in ids))
    assert client.get(f"/new/{ids[0]}").status_code == 404  # the oldest of four is dropped
    for match_id in ids[1:]:
        assert len(secret_links(page(client, f"/new/{match_id}"))) == 4
    clock.now += timedelta(minutes=59)
    assert "1 more minute" in page(client, f"/new/{ids[3]}")
    clock.now += timedelta(minutes=2)
    r = client.get(f"/new/{ids[3]}")
    assert r.status_code == 404 and "/play/" not in r.get_data(as_text=True)


def test_the_links_can_be_forgotten_by_their_browser(client: FlaskClient, svc: Referee) -> None:
    client.post("/new", data=new_match_form("Forget me"))
    (match_id,) = svc.match_ids()
    r = client.post(f"/new/{match_id}/forget")
    assert r.status_code == 303 and r.headers["Location"] == f"/matches/{match_id}"
    assert client.get(f"/new/{match_id}").status_code == 404
    assert svc.match_ids() == [match_id]  # the match stays


def test_the_links_page_is_not_in_the_database_or_the_redirect(
    client: FlaskClient, svc: Referee
) -> None:
    r = client.post("/new", data=new_match_form("Hashed"))
    (match_id,) = svc.match_ids()
    links = secret_links(page(client, f"/new/{match_id}"))
    tokens = [link.rsplit("/", 1)[1] for link in links]
    assert not any(t in r.headers["Location"] for t in tokens)
    stored = json.dumps(svc.export(match_id))
    assert not any(t in stored for t in tokens)


class SubmitButtons(HTMLParser):
    """The submit buttons of the create form (method post), in tree order."""

    def __init__(self) -> None:
        super().__init__()
        self.in_form = False
        self.buttons: list[dict[str, str | None]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "form":
            self.in_form = a.get("method") == "post"
        elif self.in_form and a.get("type", "submit" if tag == "button" else "") == "submit":
            self.buttons.append(a)

    def handle_endtag(self, tag: str) -> None:
        if tag == "form":
            self.in_form = False


def test_enter_in_a_field_creates_the_match(client: FlaskClient, svc: Referee) -> None:
    """Implicit submission (Enter in a text field) uses the form's first submit
    button in tree order: it must be "create", not the set-up's "check only"."""
    for url in ("/new", "/new?game=rocky-river", "/new?game=forks-2e"):
        parser = SubmitButtons()
        parser.feed(page(client, url))
        names = [b.get("name") for b in parser.buttons]
        assert names[0] == "create", (url, names)
        assert names[-1] == "create"  # and the visible one at the end
    parser = SubmitButtons()
    parser.feed(page(client, "/new?game=rocky-river"))
    assert "check_map" in [b.get("name") for b in parser.buttons]
    # what the browser sends on Enter: the first button's name, and the match is made
    r = client.post("/new", data=new_match_form("Entered"))
    assert r.status_code == 303 and len(svc.match_ids()) == 1


# ---- confirming what cannot be undone ------------------------------------------


def test_close_and_reveal_need_i_am_sure(client: FlaskClient, svc: Referee) -> None:
    links = create_match(client, "Sure")
    host_post(client, links, "open")
    for seat in (1, 2, 3):
        send(client, links, seat, 1)
    board = page(client, links.host)
    assert 'id="close-sure"' in board and 'name="sure"' in board
    assert re.search(r'<input[^>]*id="close-sure"[^>]*required', board)
    r = client.post(f"{links.host}/close", data={}, follow_redirects=True)
    html = r.get_data(as_text=True)
    assert r.status_code == 422 and "tick “I am sure”" in html and "Nothing was done" in html
    assert 'id="close-sure-errors"' in html
    assert svc.state(links.match_id).open_round is not None
    r = client.post(f"{links.host}/close", data={"sure": "y"}, follow_redirects=True)
    assert r.status_code == 200 and svc.state(links.match_id).open_round is None
    for number in range(2, 6):
        play_round(client, links, number)
    assert 'id="reveal-sure"' in page(client, links.host)
    r = client.post(f"{links.host}/reveal", data={}, follow_redirects=True)
    assert r.status_code == 422 and "tick “I am sure”" in r.get_data(as_text=True)
    assert not svc.state(links.match_id).match.revealed
    assert host_post(client, links, "reveal").status_code == 200
    assert svc.state(links.match_id).match.revealed


def test_reissue_starts_on_choose_and_needs_a_choice_and_i_am_sure(client: FlaskClient) -> None:
    links = create_match(client, "Reissue")
    board = page(client, links.host)
    select = board.split('id="reissue-who"', 1)[1].split("</select>", 1)[0]
    options = re.findall(r"<option[^>]*>", select)
    assert 'value=""' in options[0] and "selected" in options[0]
    assert not any("selected" in o for o in options[1:])
    assert "Choose a link…" in select
    r = client.post(f"{links.host}/reissue", data={"sure": "y"})
    assert r.status_code == 422 and "choose the link to re-issue" in r.get_data(as_text=True)
    r = client.post(f"{links.host}/reissue", data={"who": "", "sure": "y"})
    assert r.status_code == 422
    r = client.post(f"{links.host}/reissue", data={"who": "host"})
    assert r.status_code == 422 and "tick “I am sure”" in r.get_data(as_text=True)
    # nothing was re-issued
    assert client.get(links.host).status_code == 200
    assert client.get(links.seats[1]).status_code == 200
    r = host_post(client, links, "reissue", who="1")
    assert r.status_code == 200 and client.get(links.seats[1]).status_code == 404


# ---- plain words on how a round closed, and on the order that closed it ---------


def rounds_row(html: str, title: str) -> str:
    return html.split(f'<th scope="row">{title}</th>', 1)[1].split("</tr>", 1)[0]


def test_rounds_say_how_they_closed_and_keep_their_planned_deadline(
    client: FlaskClient, clock: Clock
) -> None:
    links = create_match(client, "Closing", close_early="y")
    host_post(client, links, "open")  # deadline 48 hours from 2030-01-01T12:00Z
    for seat in (1, 2):
        r = send(client, links, seat, 1)
        assert "You can replace it until the round closes." in r.get_data(as_text=True)
    clock.now += timedelta(minutes=30)
    r = send(client, links, 3, 1)  # the last order: the round closes early
    notice = r.get_data(as_text=True)
    assert "was accepted" in notice and "yours was the last order it was waiting for" in notice
    assert "until the round closes" not in notice
    for url in (f"/matches/{links.match_id}", links.host, links.seats[1]):
        html = page(client, url)
        row = rounds_row(html, "Draft")
        assert "closed early: every order was in" in row and "closed by early" not in html
        assert "2030-01-03T12:00:00Z" in row  # the planned deadline
        assert "2030-01-01T12:30:00Z" in row  # and when it closed
    host_post(client, links, "open")
    host_post(client, links, "close")
    assert "closed by the host" in rounds_row(page(client, links.host), "Mapping")
    host_post(client, links, "open")
    clock.now += timedelta(hours=49)
    assert "closed at its deadline" in rounds_row(page(client, links.seats[2]), "Rafting 1")


# ---- the result first, after the end ---------------------------------------------


def h2s(html: str) -> list[str]:
    return [re.sub(r"<[^>]+>", "", h) for h in re.findall(r"<h2[^>]*>(.*?)</h2>", html, re.S)]


def finished_match(client: FlaskClient) -> Links:
    links = create_match(client, "Finished")
    for number in range(1, 6):
        play_round(client, links, number)
    return links


def test_after_the_end_the_result_comes_first_on_every_page(client: FlaskClient) -> None:
    links = create_match(client, "Finished")
    play_round(client, links, 1)
    during = page(client, f"/matches/{links.match_id}")
    assert "Results so far" in h2s(during) and h2s(during)[0] != "Results so far"
    for number in range(2, 6):
        play_round(client, links, number)
    for url in (f"/matches/{links.match_id}", links.host, *links.seats.values()):
        html = page(client, url)
        assert h2s(html)[0] == "The result", (url, h2s(html)[:3])
        assert "Results so far" not in html
        # right after the title and its line, before the current round and the tables
        top = html.split("</h1>", 1)[1]
        assert top.index('id="results-h"') < top.index('id="current-h"')


# ---- the full reveal: every order with its salt, every receipt checkable ----------


class RevealedOrders(HTMLParser):
    """The published orders of a page: per order, the text of its code elements by class."""

    def __init__(self) -> None:
        super().__init__()
        self.orders: list[dict[str, str]] = []
        self.code: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        classes = (dict(attrs).get("class") or "").split()
        if tag == "li" and "revealed-order" in classes:
            self.orders.append({})
        elif tag == "code" and self.orders:
            kind = [c for c in classes if c in ("salt", "canonical", "published", "command")]
            self.code = kind[0] if kind else None

    def handle_endtag(self, tag: str) -> None:
        if tag == "code":
            self.code = None

    def handle_data(self, data: str) -> None:
        if self.code is not None:
            self.orders[-1][self.code] = self.orders[-1].get(self.code, "") + data


def published(html: str) -> list[dict[str, str]]:
    parser = RevealedOrders()
    parser.convert_charrefs = True
    parser.feed(html)
    return parser.orders


def test_no_salt_anywhere_before_the_reveal(client: FlaskClient, svc: Referee) -> None:
    links = finished_match(client)
    salts = [o.salt for o in svc.state(links.match_id).orders]
    assert salts
    for url in (f"/matches/{links.match_id}", links.host, *links.seats.values()):
        html = page(client, url)
        assert not any(salt in html for salt in salts), url
        assert published(html) == []
    assert not any(
        s in client.get(f"/matches/{links.match_id}/post").get_data(as_text=True) for s in salts
    )


def test_every_published_receipt_is_recomputed_from_the_page(
    client: FlaskClient, svc: Referee
) -> None:
    links = finished_match(client)
    host_post(client, links, "reveal")
    stored = {(o.round_number, o.seat): o for o in svc.state(links.match_id).orders}
    for url in (f"/matches/{links.match_id}", links.host, links.seats[2]):
        html = page(client, url)
        orders = published(html)
        assert len(orders) == len(stored) == 15, url  # 3 seats, 5 rounds: every order
        for o in orders:
            salt, canonical, receipt = o["salt"], o["canonical"], o["published"]
            # the receipt, from the page alone: SHA-256 of "salt:canonical JSON"
            assert hashlib.sha256(f"{salt}:{canonical}".encode()).hexdigest() == receipt
            # the JSON shown is canonical, and is the order as stored
            assert canonical_json(json.loads(canonical)) == canonical
            assert any(
                s.receipt == receipt and s.salt == salt and s.payload == json.loads(canonical)
                for s in stored.values()
            )
    # the line the page gives for one order, run as given, prints its receipt
    first = published(page(client, f"/matches/{links.match_id}"))[0]
    out = subprocess.run(["sh", "-c", first["command"]], capture_output=True, text=True, check=True)
    assert out.stdout.split()[0] == first["published"]
    assert unescape(first["command"]) == first["command"]  # already plain text


def test_a_receipt_check_line_survives_quotes_in_an_order() -> None:
    """An order whose JSON holds a single quote still gives a line that runs."""
    from referee.views import revealed_orders

    order = {"note": 'it\'s "quoted" ünïcode'}
    salt = "ab" * 16
    receipt = hashlib.sha256(f"{salt}:{canonical_json(order)}".encode()).hexdigest()
    view = {
        "revealed": True,
        "rounds": [{"number": 1, "title": "Guess 1"}],
        "orders": {"1": {"1": {"order": order, "salt": salt, "receipt": receipt}}},
    }
    (row,) = revealed_orders(view)
    out = subprocess.run(
        ["sh", "-c", row["command"]],
        capture_output=True,
        text=True,
        check=True,
        env={"LC_ALL": "C.UTF-8", "PATH": "/usr/bin:/bin"},
    )
    assert out.stdout.split()[0] == receipt
    assert revealed_orders({**view, "revealed": False}) == []


def test_a_reissued_link_page_reloads_without_reissuing(
    app: Flask, client: FlaskClient, clock: Clock
) -> None:
    links = create_match(client, "Reissue twice")
    r = client.post(f"{links.host}/reissue", data={"who": "2", "sure": "y"})
    assert r.status_code == 303 and r.headers["Location"] == f"{links.host}/reissued/2"
    first = page(client, f"{links.host}/reissued/2")
    (new_link,) = re.findall(r'id="new-link" href="http://localhost(/play/[^"]+)"', first)
    again = page(client, f"{links.host}/reissued/2")  # a reload: same link, still valid
    assert new_link in again
    assert "the page of <strong>P2</strong>" in page(client, new_link)
    # another browser with the host link sees no link there, only the dashboard
    other = app.test_client().get(f"{links.host}/reissued/2", follow_redirects=True)
    assert other.status_code == 200 and new_link not in other.get_data(as_text=True)
    assert "shown only to the browser that re-issued it" in other.get_data(as_text=True)
    clock.now += timedelta(minutes=61)
    late = client.get(f"{links.host}/reissued/2", follow_redirects=True)
    assert new_link not in late.get_data(as_text=True)
    # the host's own link: the page is under the new host link, the old one is gone
    r = client.post(f"{links.host}/reissue", data={"who": "host", "sure": "y"})
    assert r.status_code == 303 and r.headers["Location"].endswith("/reissued/host")
    new_host = r.headers["Location"].rsplit("/reissued/", 1)[0]
    assert new_host != links.host and client.get(links.host).status_code == 404
    assert f'href="http://localhost{new_host}"' in page(client, r.headers["Location"])


def test_links_too_many_for_a_cookie_are_shown_once_by_the_post(
    client: FlaskClient, svc: Referee, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(pages, "SESSION_BUDGET", 100)  # as if the game had 100 seats
    r = client.post("/new", data=new_match_form("Crowded"))
    html = r.get_data(as_text=True)
    assert r.status_code == 200 and r.headers["Cache-Control"] == "no-store"
    assert len(secret_links(html)) == 4 and "shown only once" in html
    (match_id,) = svc.match_ids()
    assert client.get(f"/new/{match_id}").status_code == 404


def test_three_matches_of_six_seats_fit_in_the_session(client: FlaskClient, svc: Referee) -> None:
    """Forks has up to six seats: the last three such matches keep their links."""
    ids: list[str] = []
    for n in range(3):
        data = {"game": "forks-2e", "name": f"Six {n}", "deadline_hours": "48", "create": "1"}
        for i in range(6):
            data[f"players-{i}-name"] = f"P{i + 1}"
            data[f"players-{i}-garnets"] = "1"
        r = client.post("/new", data=data)
        assert r.status_code == 303, r.get_data(as_text=True)[:3000]
        ids.append(next(m for m in svc.match_ids() if m not in ids))
    for match_id in ids:
        assert len(secret_links(page(client, f"/new/{match_id}"))) == 7
