"""Every game's forum posts paste cleanly (issue 13): rendered as forums render them.

For every registered game (the games are plug-ins: the loop is over
:func:`referee.ruleset.ruleset_names`), its demo match is played through the
service and read for the public at every state: created, each step open (with
the orders of all seats but one in, the first step's first order entered by
the host, and once paused), each step closed (a seeded default in the last),
finished, and after the full reveal. Each state's post, in Markdown and BBCode,
with plain and with hostile names, is rendered by markdown-it-py (CommonMark),
Python-Markdown and the ``bbcode`` package, and the HTML must show:

- no markup left over as text (``**``, ``__``, ``[b]``-style tags, backslash
  escapes, character references) and, in BBCode, only the tags most forums have;
- each list as a ``<ul>`` with one item per row (Players: one per seat,
  Rounds: one per step) and the block after a list as a block of its own (the
  HTML's top-level blocks are the post's blocks, one for one);
- one heading, naming the game once;
- every name as the text typed, never markup (the same elements as the post of
  the same state with plain names);
- times to the second (the open step's deadline), without microseconds;
- pictures only at the match's own picture addresses, each a picture the
  server draws for that state; no link at all.

The host page's preview (:func:`referee.markup.to_html`) is checked here too:
whatever the names, its HTML runs nothing.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from functools import cache
from html.parser import HTMLParser
from typing import Any

import bbcode
import markdown
import pytest
from markdown_it import MarkdownIt

from referee.db import make_engine, migrate
from referee.markup import FORUM_TAGS, one_line, picture_url, to_html
from referee.ruleset import Viewer, get_ruleset, ruleset_names
from referee.service import Referee
from referee.views import view_for

BASE = "https://referee.example/"
GAMES = ruleset_names()
FORMATS = ("markdown", "bbcode")

# names the service accepts (one line each), every one hostile in both formats
HOSTILE_NAMES = (
    "*_[]()<>&#!|\\ `tick` ``x``",
    "[b]Bold[/b] [/url] **star** __under__ [*]",
    "https://evil.example/x?a=1&b=2 www.evil.example mail@evil.example",
    "<script>alert(1)</script> <img src=x onerror=alert(1)> &amp; &#60;",
    "[url=javascript:alert(1)]c[/url] [x](javascript:alert(2)) ![i](https://evil.example/i.png)",
    "# Heading | table | > quote - item 1. item +++ ---",
)
HOSTILE_MATCH = "**Cup** [b]x[/b] <i>y</i> _z_ [url]https://evil.example[/url]"
PLAIN_NAMES = ("Ana", "Bo", "Cy", "Di", "Ed", "Flo")
PLAIN_MATCH = "Spring cup"
# what only a user may have typed: the names, given one line each, past the
# input checks (data stored before them), put into a copy of a view
NEWLINE_NAMES = (
    "Ana\n- item\n**Token of Life**: Bo",
    "Bo\r\n# Elimination Candidate: Cy",
    "Cy\u2028[b]Token of Life[/b]: Di\u0085x",
    "Di\n\n[list]\n[*]x\n[/list]",
    "Ed\n```\ncode",
    "Flo\n> quote",
)


# ---- matches played through the service ------------------------------------------


@dataclass(frozen=True)
class State:
    label: str
    view: dict[str, Any]


@cache
def played(game: str, names: tuple[str, ...], match_name: str) -> tuple[State, ...]:
    """The game's demo match played through the service: its public view at
    every state. The same seed and orders whatever the names."""
    engine = make_engine("sqlite://")
    migrate(engine)
    svc = Referee(engine)
    demo = get_ruleset(game).demo(None)
    players = [{**p, "name": names[i]} for i, p in enumerate(demo.players)]
    created = svc.create_match(
        name=match_name,
        setup=demo.setup,
        players=players,
        settings=demo.settings,
        ruleset=game,
        seed=demo.seed,
    )
    mid = created.match_id
    out: list[State] = []

    def snap(label: str) -> None:
        out.append(State(label, view_for(svc.state(mid), Viewer.public())))

    snap("created")
    for number, orders in enumerate(demo.steps, start=1):
        if number == 2:
            # a deadline on the whole minute (the others have seconds and microseconds)
            soon = (svc.clock() + timedelta(days=2)).replace(second=0, microsecond=0)
            svc.open_round(mid, deadline=soon)
        else:
            svc.open_round(mid)
        chosen = sorted(orders.items())
        for seat, order in chosen[:-1]:
            svc.submit_order(mid, seat, order, host_entered=(number == 1 and seat == chosen[0][0]))
        snap(f"open {number}")
        if number == 1:
            svc.pause(mid)
            snap("open 1, paused")
            svc.resume(mid)
        if number < len(demo.steps):  # the last seat of the last step gets a default
            svc.submit_order(mid, *chosen[-1])
        svc.close_round(mid)
        snap(f"closed {number}")
    assert svc.state(mid).match.finished
    svc.reveal(mid)
    snap("revealed")
    return tuple(out)


def labels(game: str) -> list[str]:
    return [s.label for s in played(game, PLAIN_NAMES, PLAIN_MATCH)]


def state_of(game: str, label: str, names: tuple[str, ...], match_name: str) -> State:
    return next(s for s in played(game, names, match_name) if s.label == label)


# ---- renderers ------------------------------------------------------------------


def _commonmark(text: str) -> str:
    # raw HTML on (CommonMark's default), so that any HTML a name forms would show
    return str(MarkdownIt("commonmark").render(text))


def _python_markdown(text: str) -> str:
    return markdown.markdown(text)


def _bbcode(text: str) -> str:
    # the package's own tags (more than forums have: [color], [center]...),
    # with [img] as forums have it
    parser = bbcode.Parser(replace_cosmetic=False)
    parser.add_simple_formatter(
        "img", '<img src="%(value)s" alt="">', render_embedded=False, replace_links=False
    )
    return str(parser.format(text))


RENDERERS: dict[str, dict[str, Callable[[str], str]]] = {
    "markdown": {"commonmark": _commonmark, "python-markdown": _python_markdown},
    "bbcode": {"bbcode": _bbcode},
}


class Page(HTMLParser):
    """What a rendering shows: its elements, top-level blocks, lists, text."""

    def __init__(self, html: str) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[str] = []
        self.attrs: list[tuple[str, str, str]] = []  # (tag, attribute, value)
        self.blocks: list[str] = []  # the top-level elements
        self.lists: list[tuple[str, list[str]]] = []  # (the bold text before it, items)
        self.headings: list[str] = []
        self.text: list[str] = []
        self._depth = 0
        self._strong = ""
        self._in: list[str] = []
        self._item: list[str] | None = None
        self.feed(html)
        self.close()

    VOID = frozenset({"img", "br", "hr"})

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        self.attrs += [(tag, k, v or "") for k, v in attrs]
        if self._depth == 0 and tag not in ("br",):
            self.blocks.append(tag)
        if tag == "ul" or tag == "ol":
            self.lists.append((self._strong.strip(), []))
        elif tag == "li":
            self._item = []
        elif tag == "strong":
            self._strong = ""
        if tag not in self.VOID:
            self._depth += 1
            self._in.append(tag)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        self.attrs += [(tag, k, v or "") for k, v in attrs]
        if self._depth == 0 and tag not in ("br",):
            self.blocks.append(tag)

    def handle_endtag(self, tag: str) -> None:
        if tag in self.VOID:
            return
        self._depth -= 1
        if self._in:
            self._in.pop()
        if tag == "li" and self._item is not None:
            self.lists[-1][1].append("".join(self._item).strip())
            self._item = None

    def handle_data(self, data: str) -> None:
        self.text.append(data)
        if "strong" in self._in:
            self._strong += data
        if self._item is not None:
            self._item.append(data)
        if any(h in self._in for h in ("h1", "h2", "h3", "h4", "h5", "h6", "u")):
            self.headings.append(data)

    @property
    def shown(self) -> str:
        """The text as a reader sees it (the invisible word joiners left out)."""
        return "".join(self.text).replace("\u2060", "")


def shown_name(text: str, fmt: str) -> str:
    """How a user's text shows: on one line; BBCode writes brackets as parentheses."""
    line = one_line(text)
    return line.replace("[", "(").replace("]", ")") if fmt == "bbcode" else line


def source_lists(post: str, fmt: str) -> list[int]:
    """The rows of each list of the post's source, in order."""
    if fmt == "markdown":
        return [
            len(block.splitlines())
            for block in post.split("\n\n")
            if all(line.startswith("- ") for line in block.splitlines())
        ]
    return [body.count("[*]") for body in re.findall(r"\[list\](.*?)\[/list\]", post, re.S)]


def source_blocks(post: str) -> list[str]:
    """The HTML block each Markdown block of the post should be."""
    out = []
    for block in post.strip().split("\n\n"):
        lines = block.splitlines()
        if lines[0].startswith("### "):
            out.append("h3")
        elif all(line.startswith("- ") for line in lines):
            out.append("ul")
        else:
            out.append("p")
    return out


def expected_deadline(iso: str) -> str:
    moment = datetime.fromisoformat(iso).astimezone(UTC)
    return moment.strftime("%Y-%m-%d %H:%M" + (":%S" if moment.second else "")) + " UTC"


LEFT_OVER = re.compile(
    r"\*\*|__|\[/?(?:b|i|u|s|url|img|list|\*|quote|code|size|font|color|center)\b[^\]]*\]"
    r"|\\[\\`*_{}\[\]()>#+\-.!]|&#?\w+;|^#+ ",
    re.IGNORECASE | re.MULTILINE,
)


# ---- the checks ---------------------------------------------------------------------


def check_post(game: str, label: str, fmt: str, names: tuple[str, ...], match: str) -> None:
    rules = get_ruleset(game)
    view = state_of(game, label, names, match).view
    plain_view = state_of(game, label, PLAIN_NAMES, PLAIN_MATCH).view
    post = rules.post(view, fmt, base_url=BASE)
    plain = rules.post(plain_view, fmt, base_url=BASE)
    players = view["players"]
    user = [view["name"], *(p["name"] for p in players)]
    if fmt == "bbcode":
        used = {t.lower() for t in re.findall(r"\[/?([a-z*]+)(?:=[^\]]*)?\]", post, re.I)}
        assert used <= set(FORUM_TAGS), (game, label, used)
    pictures = {picture_url(view, BASE, n): n for n in rules.pictures()}
    for name, render in RENDERERS[fmt].items():
        where = (game, label, fmt, name)
        page, plain_page = Page(render(post)), Page(render(plain))
        # names are text: the same elements as with plain names, each name shown as typed
        assert page.tags == plain_page.tags, (*where, post)
        shown = page.shown
        for text in user:
            assert shown_name(text, fmt) in shown, (*where, text)
        # nothing of the markup is left as text (once the names are taken out)
        rest = shown
        for text in sorted(user, key=len, reverse=True):
            rest = rest.replace(shown_name(text, fmt), " ")
        assert not LEFT_OVER.findall(rest), (*where, LEFT_OVER.findall(rest), post)
        # one heading, the game named once
        title = rules.title
        assert "".join(page.headings).count(title) == 1, where
        assert rest.count(title) == 1, where
        assert page.tags.count("h3") == (1 if fmt == "markdown" else 0), where
        # lists: one item per row, and the block after a list is a block of its own
        assert [len(items) for _, items in page.lists] == source_lists(post, fmt), (*where, post)
        by_label = dict(page.lists)
        assert len(by_label["Players"]) == len(players), where
        assert len(by_label["Rounds"]) == len(view["rounds"]), where
        assert all(items for _, items in page.lists), where
        if fmt == "markdown":
            assert page.blocks == source_blocks(post), (*where, page.blocks, post)
        # times: the open step's deadline to the second, no microseconds, no ISO
        for r in view["rounds"]:
            if r["status"] == "open" and r["deadline"]:
                assert f"deadline {expected_deadline(r['deadline'])}" in shown, where
        assert not re.search(r"\d:\d\d[:.]\d\d[.,]\d|\dT\d\d:", rest), where
        # pictures: our own, each drawn for this state; no link
        sources = [v for tag, k, v in page.attrs if tag == "img" and k == "src"]
        assert bool(sources) is bool(rules.pictures()), where  # a game without pictures: none
        assert len(set(sources)) == len(sources), where
        for src in sources:
            assert src in pictures, (*where, src)
            assert rules.pictures()[pictures[src]](view) is not None, (*where, src)
        assert "a" not in page.tags, where


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("game", GAMES)
def test_every_post_renders_cleanly_with_plain_names(game: str, fmt: str) -> None:
    for label in labels(game):
        check_post(game, label, fmt, PLAIN_NAMES, PLAIN_MATCH)


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("game", GAMES)
def test_every_post_renders_cleanly_with_hostile_names(game: str, fmt: str) -> None:
    for label in labels(game):
        check_post(game, label, fmt, HOSTILE_NAMES, HOSTILE_MATCH)


def test_the_states_walked() -> None:
    """The walk covers every state of both games (not a subset by accident)."""
    assert {"rocky-river", "forks-2e"} <= set(GAMES)
    for game in GAMES:
        steps = len(get_ruleset(game).demo(None).steps)
        got = labels(game)
        assert got[0] == "created" and got[-1] == "revealed"
        assert sum(x.startswith("open ") for x in got) == steps + 1  # one paused
        assert sum(x.startswith("closed ") for x in got) == steps


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("game", GAMES)
def test_names_with_line_breaks_stay_on_their_line(game: str, fmt: str) -> None:
    """Names stored before the input checks (line breaks in them): the post of
    the finished match has the same elements as with plain names."""
    rules = get_ruleset(game)
    plain_state = state_of(game, "revealed", PLAIN_NAMES, PLAIN_MATCH)
    view = {
        **plain_state.view,
        "name": "Cup\n### Token of Life",
        "players": [
            {**p, "name": NEWLINE_NAMES[i]} for i, p in enumerate(plain_state.view["players"])
        ],
    }
    post = rules.post(view, fmt, base_url=BASE)
    plain = rules.post(plain_state.view, fmt, base_url=BASE)
    assert len(post.splitlines()) == len(plain.splitlines())
    for name, render in RENDERERS[fmt].items():
        page, plain_page = Page(render(post)), Page(render(plain))
        assert page.tags == plain_page.tags, (game, name, post)
        for p in view["players"]:
            assert shown_name(p["name"], fmt) in page.shown, (game, name, p["name"])


@pytest.mark.parametrize("game", GAMES)
def test_the_title_names_the_game_once(game: str) -> None:
    rules = get_ruleset(game)
    title = rules.title
    view = state_of(game, "created", PLAIN_NAMES, PLAIN_MATCH).view
    words = title.split()
    cases = {
        f"Demo: {title}": f"Demo: {title}",
        title.upper(): title,  # the title itself, in any case: the title once
        " ".join(words[:2]): title,  # a part of the title: the title alone
        "Spring cup": f"Spring cup \u2014 {title}",
    }
    for name, heading in cases.items():
        for fmt in FORMATS:
            post = rules.post({**view, "name": name}, fmt)
            render = next(iter(RENDERERS[fmt].values()))
            page = Page(render(post))
            assert "".join(page.headings).replace("\u2060", "") == heading, (name, fmt, post)
            assert page.shown.casefold().count(title.casefold()) == 1, (name, fmt)


# ---- the host page's preview ----------------------------------------------------------

ACTIVE = frozenset({"script", "iframe", "object", "embed", "style", "form", "link", "meta", "base"})


def assert_runs_nothing(html: str) -> None:
    """No element that runs or loads anything, no event attribute, and the only
    addresses our own (so no ``javascript:`` one)."""
    page = Page(html)
    assert not ACTIVE & set(page.tags), html
    for tag, key, value in page.attrs:
        assert not key.lower().startswith("on"), (tag, key, html)
        if key in ("href", "src"):
            assert value.startswith(BASE), (tag, key, value)
    assert not re.search(r"<[a-z]+\s[^>]*\bon\w+=", re.sub(r'"[^"]*"', '""', html), re.I)


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("game", GAMES)
def test_the_preview_runs_nothing_a_player_typed(game: str, fmt: str) -> None:
    rules = get_ruleset(game)
    for state in played(game, HOSTILE_NAMES, HOSTILE_MATCH):
        html = to_html(rules.post(state.view, fmt, base_url=BASE), fmt)
        assert_runs_nothing(html)
        page = Page(html)
        assert ("img" in page.tags) is bool(rules.pictures())
        assert "h3" in page.tags or "u" in page.tags
        for p in state.view["players"]:
            assert shown_name(p["name"], fmt) in page.shown


@pytest.mark.parametrize(
    "text",
    [
        "<script>alert(1)</script>",
        "<img src=x onerror=alert(1)>",
        "[x](javascript:alert(1)) ![y](javascript:alert(1)) <javascript:alert(1)>",
        "[url=javascript:alert(1)]x[/url] [url]javascript:alert(1)[/url]",
        "[img]javascript:alert(1)[/img] [img]data:text/html,x[/img]",
        '[img]https://referee.example/a.png" onerror="alert(1)[/img]',
        "[color=red]x[/color] [size=200]y[/size] [center]z[/center]",
        "[quote]q[/quote] [code]<b>[/code] [list][*]a[/list]",
    ],
)
@pytest.mark.parametrize("fmt", FORMATS)
def test_the_preview_of_any_text_runs_nothing(text: str, fmt: str) -> None:
    """A game's post may hold anything (a plug-in need not escape): the preview
    still runs nothing, and BBCode beyond the forum tags stays text."""
    html = to_html(text, fmt)
    assert_runs_nothing(html)
    if fmt == "bbcode" and "[color" in text:
        assert "[color=red]x[/color]" in Page(html).shown
