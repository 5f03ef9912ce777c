"""Forks' pictures through the web (SQLite and PostgreSQL): the investment
board and the score chart as SVG and PNG, from the public view only (no drawn
or kept card), with an ETag that answers 304 and changes with the state; the
score chart only once the match has finished; the post embeds both."""

from __future__ import annotations

import re

import pytest
from flask.testing import FlaskClient

from referee.ruleset import Viewer, get_ruleset
from referee.rulesets.forks.picture import board_svg, scores_svg
from referee.service import Referee
from referee.views import view_for

from .test_service import demo_match


def cards_in(svg: str) -> set[str]:
    return set(re.findall(r'data-card="([^"]+)"', svg))


def test_the_board_picture_shows_the_investment_and_nothing_private(
    web: FlaskClient, svc: Referee
) -> None:
    created, _ = demo_match(svc, 4)  # turn 3's draw step is open
    data = svc.state(created.match_id).game_state().data
    r = web.get(f"/matches/{created.match_id}/board.svg")
    assert r.status_code == 200 and r.mimetype == "image/svg+xml"
    svg = r.get_data(as_text=True)
    assert cards_in(svg) == set(data["investment"])
    private = {c for t in data["turns"] for c in [*t["drawn"], t["kept"]] if c}
    private -= set(data["investment"])
    assert private and not cards_in(svg) & private
    assert "Oxime" in svg and "Tiebreak" in svg
    etag = r.headers["ETag"]
    again = web.get(f"/matches/{created.match_id}/board.svg", headers={"If-None-Match": etag})
    assert again.status_code == 304
    png = web.get(f"/matches/{created.match_id}/board.png")
    assert png.status_code == 200 and png.data[:8] == b"\x89PNG\r\n\x1a\n"
    # the score chart waits for the end
    r = web.get(f"/matches/{created.match_id}/scores.svg")
    assert r.status_code == 404 and "last invest step" in r.get_data(as_text=True)
    # a seat's page draws the board from its own view: the same public cards
    seat = web.get(f"/play/{created.player_tokens[1]}").get_data(as_text=True)
    assert 'class="forks-board"' in seat


def test_the_score_chart_and_the_post_at_the_end(web: FlaskClient, svc: Referee) -> None:
    created, _ = demo_match(svc, 23)
    before = web.get(f"/matches/{created.match_id}/board.svg").headers["ETag"]
    created2, _ = demo_match(svc, 24)
    r = web.get(f"/matches/{created2.match_id}/scores.svg")
    assert r.status_code == 200
    svg = r.get_data(as_text=True)
    view = view_for(svc.state(created2.match_id), Viewer.public())
    for seat, score in view["result"]["scores"].items():
        assert f'data-seat="{seat}" data-score="{score}"' in svg
    assert "Token of Life" in svg and "Elimination Candidate" in svg
    assert web.get(f"/matches/{created2.match_id}/scores.png").status_code == 200
    board = web.get(f"/matches/{created2.match_id}/board.svg")
    assert board.headers["ETag"] != before and "Final investment board" in board.get_data(
        as_text=True
    )
    public = web.get(f"/matches/{created2.match_id}").get_data(as_text=True)
    assert 'class="forks-scores"' in public and 'class="forks-board"' in public
    for fmt in ("markdown", "bbcode"):
        post = get_ruleset("forks").post(view, fmt, base_url="https://ref.example")
        assert f"https://ref.example/matches/{created2.match_id}/board.png?v=" in post
        assert f"https://ref.example/matches/{created2.match_id}/scores.png?v=" in post
        assert "/scores.png" not in get_ruleset("forks").post(
            view_for(svc.state(created.match_id), Viewer.public()), fmt, "https://r.example"
        )


def test_pictures_escape_user_text_and_draw_from_the_view_alone() -> None:
    view = {
        "name": "<script>x</script>",
        "settings": {"names": {"oxime": "O&<b>"}},
        "players": [
            {"seat": 1, "name": "<i>A", "garnets": 1},
            {"seat": 2, "name": "B", "garnets": 0},
        ],
        "result": {
            "investment": ["oxime-6", "dtv-4x"],
            "ranking": ["oxime", "dtv", "apidae", "needle", "wildrock"],
            "scores": {"1": 5, "2": -3},
            "token_of_life": 1,
            "elimination_candidate": {"seat": 2, "decided_by": "score"},
        },
    }
    board = board_svg(view)
    assert board is not None and "<script>" not in board and "&lt;script&gt;" in board
    assert "O&amp;&lt;b&gt;" in board and cards_in(board) == {"oxime-6", "dtv-4x"}
    scores = scores_svg(view)
    assert scores is not None and "&lt;i&gt;A" in scores and "<i>A" not in scores
    assert "O&amp;&lt;b&gt;" in scores  # the ranking by the companies' names
    assert scores_svg({**view, "result": {"investment": []}}) is None


HOSTILE_COMPANIES = {
    "dtv": "*_[]()<>&#!|\\ `t` ``x``",
    "apidae": "[b]B[/b] [/url] **s** __u__ [*]",
    "oxime": "https://e.example/x www.e.example",
    "wildrock": "<script>alert(1)</script>",
    "needle": "[url=javascript:a]c[/url] [x](j:b)",
}


@pytest.mark.parametrize("fmt", ["markdown", "bbcode"])
def test_the_post_shows_hostile_company_and_player_names_as_text(svc: Referee, fmt: str) -> None:
    """The host names the companies (settings ``names``, one line of at most
    40 characters each): in a finished match's post, those names and a
    player's, full of Markdown, BBCode and HTML, make no element or link
    (tests/test_posts_render.py renders every game's posts with hostile player
    names; Forks' company names are its own)."""
    from test_posts_render import RENDERERS, Page, shown_name

    hostile, _ = demo_match(svc, 24, first_name="<b>*x*</b> [b]y[/b]", names=HOSTILE_COMPANIES)
    plain, _ = demo_match(svc, 24)
    rules = get_ruleset("forks")
    views = [view_for(svc.state(c.match_id), Viewer.public()) for c in (hostile, plain)]
    post, plain_post = (rules.post(v, fmt, "https://ref.example/") for v in views)
    for name, render in RENDERERS[fmt].items():
        page, expected = Page(render(post)), Page(render(plain_post))
        assert page.tags == expected.tags, (name, post)
        assert "a" not in page.tags, name
        for text in [*HOSTILE_COMPANIES.values(), "<b>*x*</b> [b]y[/b]"]:
            assert shown_name(text, fmt) in page.shown, (name, text)
