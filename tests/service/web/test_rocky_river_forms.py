"""Rocky River's order forms as the server sends them (no JavaScript): the draft's
rank boxes move cards, and the direction form says where each choice leads with
only what the seat's view holds (slot totals when published or passed, else the
seat's own cards there; never another seat's cards)."""

from __future__ import annotations

import re

from flask.testing import FlaskClient

from referee.ruleset import Viewer
from referee.rulesets.rocky_river.data import load_bundled_map, load_deck
from referee.service import Referee
from referee.views import view_for

from .web_kit import GOLDEN, create_match, host_post, page, play_round

CARDS = list(load_deck().ids)
RIVER = load_bundled_map("three-rapids")


def leads_of(html: str, field: str) -> str:
    """The text of what the choices of fork ``field`` (vote_0 ...) lead to."""
    part = html.split(f'id="{field}-leads"', 1)[1].split('<ul class="field-errors"', 1)[0]
    part = part.split("</fieldset>", 1)[0]
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", part))


def test_rank_boxes_move_cards_without_javascript(client: FlaskClient, svc: Referee) -> None:
    links = create_match(client, "Rank Cup")
    host_post(client, links, "open")
    html = page(client, links.seats[1])
    assert html.count('name="rank"') == 27
    assert re.findall(r'name="rank" value="(\d+)"', html) == [str(i) for i in range(1, 28)]
    ranks = [str(i) for i in range(1, 28)]
    ranks[CARDS.index("Q")] = "1"  # Q to the top
    r = client.post(
        links.seats[1], data={"round": "1", "ranking": CARDS, "rank": ranks}, follow_redirects=True
    )
    assert r.status_code == 200 and "was accepted" in r.get_data(as_text=True)
    expected = ["Q", *[c for c in CARDS if c != "Q"]]
    assert svc.state(links.match_id).orders_of(1)[1].payload == expected
    # a bad box is refused next to its card; nothing is stored
    ranks = [str(i) for i in range(1, 28)]
    ranks[CARDS.index("B")] = "<b>"
    r = client.post(links.seats[2], data={"round": "1", "ranking": CARDS, "rank": ranks})
    assert r.status_code == 422
    near = r.get_data(as_text=True).split('id="ranking-1-errors"', 1)[1].split("</ul>", 1)[0]
    assert "the rank of card B must be a whole number from 1 to 27" in near
    assert "&lt;b&gt;" in near and "<b>" not in near
    assert 2 not in svc.state(links.match_id).orders_of(1)


def test_each_direction_says_where_it_leads_with_secret_totals(client: FlaskClient) -> None:
    links = create_match(client, "Lead Cup")
    play_round(client, links, 1)
    play_round(client, links, 2)
    host_post(client, links, "open")
    html = page(client, links.seats[1])
    text = leads_of(html, "vote_0")
    fork = RIVER.forks[RIVER.start]
    mine = GOLDEN["placements"]["1"]
    for b in fork.branches():
        assert f"{b.id} ({'outer' if b.outer else 'inner'})" in text
        assert f"{b.color} slot" in text
    assert "total secret" in text and "total +" not in text.replace("total secret", "")
    # the seat's own cards on the first fork's branches, and nobody else's
    for card, branch in mine.items():
        if branch in {b.id for b in fork.branches()}:
            assert re.search(rf"your cards there: [^)]*\b{card} [+-]?\d", text), card
    for seat in ("2", "3"):
        for card in GOLDEN["placements"][seat]:
            assert not re.search(rf"\b{card} [+-]\d", leads_of(html, "vote_0")), card
    # later forks: the fork each one is at (one fork per row on this map)
    second = leads_of(html, "vote_1")
    assert "then fork" in second or "the end" in second


def test_published_totals_are_shown_with_each_direction(client: FlaskClient, svc: Referee) -> None:
    links = create_match(client, "Open Cup", publish_totals="y")
    play_round(client, links, 1)
    play_round(client, links, 2)
    host_post(client, links, "open")
    view = view_for(svc.state(links.match_id), Viewer.of_seat(2))
    published = view["result"]["branch_totals"]
    html = page(client, links.seats[2])
    text = leads_of(html, "vote_0")
    assert "total secret" not in text
    for b in RIVER.forks[RIVER.start].branches():
        total = re.search(
            rf"{b.id} \(\w+\) · {b.color} slot · portrays [^·]+ · total ([+-]?\d+)", text
        )
        assert total is not None, (b.id, text)
        assert int(total.group(1)) == published[b.id]
