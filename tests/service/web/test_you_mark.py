"""The "(you)" mark (issue 23, item 4), on SQLite and PostgreSQL: where a seat's
page lists every seat's results or standings (the players, the scores, every
hand and step at the end), the viewer's own row has class ``you`` and a visible
"(you)"; no other row has it, and the host's and the public pages never do.
Both games played to the end with seeded defaults, and a season's player page
against its public standings."""

from __future__ import annotations

import re

from flask import Flask
from flask.testing import FlaskClient

from .web_kit import Links, create_match, host_post

MARK = '<strong class="you-mark">(you)</strong>'


def page(client: FlaskClient, url: str) -> str:
    r = client.get(url)
    assert r.status_code == 200, r.status_code
    text: str = r.get_data(as_text=True)
    return text


def marked_rows(html: str) -> list[str]:
    """Each element marked as the viewer's, as the opening tag and its text up to the mark."""
    return re.findall(
        r'<(?:tr|h4)\b[^>]*class="[^"]*\byou\b[^"]*"[^>]*>.*?' + re.escape(MARK), html, re.S
    )


def play_out(client: FlaskClient, links: Links, rounds: int) -> None:
    for _ in range(rounds):
        assert host_post(client, links, "open").status_code == 200
        assert host_post(client, links, "close").status_code == 200  # every order a default


def check_match(client: FlaskClient, links: Links, names: dict[int, str], least: int) -> None:
    for seat, url in links.seats.items():
        html = page(client, url)
        rows = marked_rows(html)
        assert len(rows) >= least, (seat, len(rows))
        assert html.count(MARK) == len(rows), seat  # a mark only on the viewer's own rows
        for row in rows:
            assert names[seat] in row, (seat, row[:300])
            for other, name in names.items():
                if other != seat:
                    assert f"{name} (seat {other})" not in row.rsplit(">", 2)[-2], (seat, row[:300])
    for url in (links.host, f"/matches/{links.match_id}"):
        html = page(client, url)
        assert "(you)" not in html and not re.search(r'class="[^"]*\byou\b', html), url


def test_rocky_river_marks_the_viewer_only(client: FlaskClient) -> None:
    links = create_match(client, "Marks")
    names = dict(zip((1, 2, 3), names_of(client, links), strict=True))  # the golden file's
    before = page(client, links.seats[2])
    assert marked_rows(before) and names[2] in marked_rows(before)[0]  # the players table
    play_out(client, links, 5)
    check_match(client, links, names, 2)  # the scores table and the players table


def names_of(client: FlaskClient, links: Links) -> list[str]:
    public = page(client, f"/matches/{links.match_id}")
    table = public.split('aria-label="Players"', 1)[1].split("</table>", 1)[0]
    return re.findall(r'<td class="name">([^<]+)</td>', table)


def test_forks_marks_the_viewer_only(client: FlaskClient) -> None:
    data = {"game": "forks-2e", "name": "Forks marks", "deadline_hours": "48", "create": "1"}
    players = ["Ana", "Bo", "Cy", "Di"]
    for i, name in enumerate(players):
        data[f"players-{i}-name"] = name
        data[f"players-{i}-garnets"] = str(i + 1)
    r = client.post("/new", data=data, follow_redirects=True)
    html = r.get_data(as_text=True)
    assert r.status_code == 200, html[:2000]
    host = re.search(r'id="host-link" href="http://localhost(/host/[^"]+)"', html)
    seats = re.findall(r'href="http://localhost(/play/[^"]+)"', html)
    found = re.search(r'href="http://localhost/matches/([0-9a-f]+)"', html)
    assert host and found and len(seats) == 4
    links = Links(found.group(1), host.group(1), dict(enumerate(seats, start=1)))
    play_out(client, links, 8)
    # the scores table, the hand's heading and the players table at least
    check_match(client, links, dict(enumerate(players, start=1)), 3)
    assert 'data-score-seat="3" class="you"' in page(client, links.seats[3])
    host_post(client, links, "reveal")
    check_match(client, links, dict(enumerate(players, start=1)), 4)  # and every step by player


def test_a_season_player_sees_their_own_standing_marked(app: Flask, client: FlaskClient) -> None:
    seasons = app.extensions["seasons"]
    made = seasons.create_season(
        name="Marks", players=[{"name": n, "garnets": 2} for n in ("Ana", "Bo", "Cy")], rules={}
    )
    for number, token in made.player_tokens.items():
        html = page(client, f"/season/{token}")
        rows = marked_rows(html)
        assert len(rows) == 1 and html.count(MARK) == 1, number
        assert f'<tr data-player="{number}" class="status-in you">' in rows[0]
    public = page(client, f"/seasons/{made.season_id}")
    assert "(you)" not in public and not re.search(r'class="[^"]*\byou\b', public)
    host = page(client, f"/season-host/{made.host_token}")
    assert "(you)" not in host
