"""The host's forum post page (issue 13): the text to paste, the post as a
forum shows it, and a button that copies it, for every game and both formats;
whatever the players are called, the preview runs nothing they typed."""

from __future__ import annotations

import re
from html.parser import HTMLParser

import pytest
from flask import Flask
from flask.testing import FlaskClient
from markupsafe import escape

from referee.demo import play_steps
from referee.markup import match_post, to_html
from referee.ruleset import Viewer, get_ruleset, ruleset_names
from referee.service import Referee
from referee.views import view_for

from .web_kit import Clock

GAMES = ruleset_names()
FORMATS = ("markdown", "bbcode")
HOSTILE = (
    '<script>alert("p1")</script> <img src=x onerror=alert(1)>',
    "[url=javascript:alert(1)]x[/url] [img]javascript:alert(2)[/img] [/url]",
    "[x](javascript:alert(3)) ![i](https://evil.example/i.png) **b** __u__ `c`",
    "*_[]()<>&#!|\\ www.evil.example <javascript:alert(4)>",
    '" onmouseover="alert(5)',
    "# h | t | > q",
)
HOSTILE_MATCH = "<b onclick=alert(6)>Cup</b> [b]x[/b] javascript:alert(7)"


class Tags(HTMLParser):
    def __init__(self, html: str) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[str] = []
        self.attrs: list[tuple[str, str, str]] = []
        self.text: list[str] = []
        self.feed(html)
        self.close()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        self.attrs += [(tag, k, v or "") for k, v in attrs]

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def play(svc: Referee, game: str, names: tuple[str, ...], match_name: str, steps: int) -> str:
    """A demo match of ``game`` with its first ``steps`` steps played (then the
    next one opened, unless finished); its host token."""
    demo = get_ruleset(game).demo(None)
    created = svc.create_match(
        name=match_name,
        setup=demo.setup,
        players=[{**p, "name": names[i]} for i, p in enumerate(demo.players)],
        settings=demo.settings,
        ruleset=game,
        seed=demo.seed,
    )
    play_steps(svc, created.match_id, demo.steps[:steps])
    return created.host_token


def preview_of(html: str) -> str:
    found = re.search(r'<div class="post-rendered" id="post-rendered">(.*?)</div>', html, re.S)
    assert found, html
    return found.group(1)


def post_text(svc: Referee, token: str, fmt: str) -> str:
    found = svc.find_token(token)
    assert found is not None
    state = svc.state(found[0])
    view = view_for(state, Viewer.public())
    text = match_post(state.ruleset, view, fmt, base_url="http://localhost/")
    # the game's post, then the chain head to keep (issue 27), short and whole
    head, number = view["chain_head"], max(r["number"] for r in view["rounds"] if r["head"])
    assert text.startswith(state.ruleset.post(view, fmt, base_url="http://localhost/").rstrip())
    assert text.rstrip().endswith(f"{number}:{head}" + ("`" if fmt == "markdown" else "[/code]"))
    assert f"{head[:12]} (after round {number})" in text
    return text


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("finished", [False, True], ids=["open", "finished"])
def test_the_page_shows_the_post_rendered_and_a_copy_button(
    client: FlaskClient, svc: Referee, clock: Clock, game: str, fmt: str, finished: bool
) -> None:
    steps = len(get_ruleset(game).demo(None).steps) if finished else 1
    token = play(svc, game, ("Ana", "Bo", "Cy", "Di", "Ed", "Flo"), "Spring cup", steps)
    r = client.get(f"/host/{token}/post?format={fmt}")
    assert r.status_code == 200
    html = r.get_data(as_text=True)
    text = post_text(svc, token, fmt)
    # the raw text to paste, in the box the button copies
    assert f'readonly spellcheck="false">{escape(text)}</textarea>' in html
    assert 'id="post-copy" data-copies="post-text"' in html
    assert re.search(r'<span id="post-copy-status"[^>]*role="status" aria-live="polite"', html)
    # the post rendered, as the server's renderer makes it, beside it
    preview = preview_of(html)
    assert preview == to_html(text, fmt)
    page = Tags(preview)
    assert ("h3" if fmt == "markdown" else "u") in page.tags
    assert page.tags.count("ul") >= 2 and "li" in page.tags
    shown = "".join(page.text)
    assert "Ana (seat 1)" in shown and "Spring cup" in shown
    assert "**" not in shown and "[b]" not in shown and "[list]" not in shown
    if not finished:  # the open step's deadline, to the minute on this clock
        assert "deadline 2030-01-03 12:00 UTC" in shown
    sources = [v for tag, k, v in page.attrs if tag == "img" and k == "src"]
    if get_ruleset(game).pictures():  # a game without pictures embeds none
        assert sources and all(s.startswith("http://localhost/matches/") for s in sources)
    else:
        assert sources == []
    # the copy button's script is a file of our own (the CSP allows no inline script)
    scripts = re.findall(r"<script\b[^>]*>", html)
    assert scripts and all(" src=" in s for s in scripts)
    assert not re.search(r"<script\b[^>]*>(?!</script>)", html)  # nothing inside
    src = re.search(r'<script src="([^"]*/post\.js[^"]*)"', html)
    assert src
    js = client.get(src.group(1))
    assert js.status_code == 200
    body = js.get_data(as_text=True)
    assert "navigator.clipboard" in body and 'execCommand("copy")' in body
    assert "script-src" not in r.headers["Content-Security-Policy"] or (
        "'unsafe-inline'" not in r.headers["Content-Security-Policy"].split("script-src")[1]
    )


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("game", GAMES)
def test_the_preview_runs_nothing_a_player_typed(
    client: FlaskClient, svc: Referee, clock: Clock, game: str, fmt: str
) -> None:
    steps = len(get_ruleset(game).demo(None).steps)
    token = play(svc, game, HOSTILE, HOSTILE_MATCH, steps)
    r = client.get(f"/host/{token}/post?format={fmt}")
    assert r.status_code == 200
    html = r.get_data(as_text=True)
    preview = preview_of(html)
    page = Tags(preview)
    assert not {"script", "iframe", "object", "embed", "a", "b", "style"} & set(page.tags)
    for tag, key, value in page.attrs:
        assert not key.startswith("on"), (tag, key)
        if key in ("href", "src"):
            assert value.startswith("http://localhost/matches/"), (tag, key, value)
    # the whole page: one script, ours; no event attribute anywhere
    whole = Tags(html)
    assert all(k != "src" or v.startswith("/static/") for t, k, v in whole.attrs if t == "script")
    assert not [k for _, k, _ in whole.attrs if k.startswith("on")]
    shown = "".join(page.text).replace("\u2060", "")
    for name in HOSTILE[:3]:
        assert (name if fmt == "markdown" else name.replace("[", "(").replace("]", ")")) in shown


def test_an_unknown_format_shows_the_dashboard_with_the_problem(
    client: FlaskClient, svc: Referee, app: Flask
) -> None:
    token = play(svc, "rocky-river", ("Ana", "Bo", "Cy"), "Cup", 0)
    r = client.get(f"/host/{token}/post?format=html")
    assert r.status_code == 400 or r.status_code == 422
    assert "post-rendered" not in r.get_data(as_text=True)
