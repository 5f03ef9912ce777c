"""Forum posts show user text as text (issue 10, Medium 5).

A finished match's public view has every user string (the match's name, the
players' names, the map's name, fork and branch ids) replaced by a payload;
the Markdown post is rendered by real renderers (CommonMark and GFM-like
markdown-it, GitHub's cmark-gfm, Python-Markdown) and the BBCode post by the
``bbcode`` package. Each rendering must have exactly the elements of the post
of a match with plain names (no link, image, heading, emphasis, list, table or
HTML from user text; with a base URL, the only images are our own pictures),
show the payload as its literal text, and no line of the post may start with
text a user wrote.

The view is built here, not through input checks: the post must be safe even
for data stored before names and ids were checked (a name holding a new line).
"""

from __future__ import annotations

import copy
import hashlib
import json
import re
from collections.abc import Callable
from html.parser import HTMLParser
from itertools import zip_longest
from pathlib import Path
from typing import Any

import bbcode
import cmarkgfm
import markdown
import pytest
from cmarkgfm.cmark import Options
from markdown_it import MarkdownIt

from referee.ruleset import GameState, Viewer
from referee.rulesets.rocky_river.post import forum_post, one_line
from referee.rulesets.rocky_river.ruleset import RockyRiver

GOLDEN = Path(__file__).resolve().parent / "golden" / "rocky-river" / "01-full-game.match.json"
BASE = "https://referee.example/"
RULES = RockyRiver()

PAYLOADS = [
    "[url=https://evil.example]x[/url]",
    "[img]https://evil.example/t.png[/img]",
    "![t](https://evil.example/t.png)",
    "[x](https://evil.example)",
    "<https://evil.example>",
    "https://evil.example",
    "www.evil.example",
    "mail@evil.example",
    "<img src=x onerror=alert(1)>",
    "<script>alert(1)</script>",
    "**bold**",
    "_em_ ~~del~~",
    "# heading",
    "&lt;b&gt; &amp; &#60;",
    "|table|",
    "- item",
    "1. item",
    "> quote",
    "`code`",
    "a\\",
    "Ana\nToken of Life: Bo",
    "Ana\r\n# Elimination Candidate: Bo",
    "Ana\u2028[b]Token of Life:[/b] Bo\u0085x",
]
PLAIN = "Plain"


def public_view(text: str) -> dict[str, Any]:
    """The public view of the golden match once finished (slot totals
    published), with every user string replaced by ``text`` plus a tag that
    keeps the strings apart, and one round shown open with orders from seats 1, 2."""
    doc = json.loads(GOLDEN.read_text())
    result = RULES.resolve(doc, details=True)
    setup = RULES.check_setup({"map": doc["map"]}, doc["players"])
    state = GameState(setup, {"publish_totals": True}, 5, result)
    visible = RULES.view(state, Viewer.public(), revealed=False, open_step=None)["result"]
    ids: dict[str, str] = {}

    def renamed(old: str) -> str:
        return ids.setdefault(old, f"{text} {len(ids)}")

    visible["branch_totals"] = {renamed(b): v for b, v in visible["branch_totals"].items()}
    for step in visible["path"]:
        step["fork"], step["branch"] = renamed(step["fork"]), renamed(step["branch"])
    map_doc = copy.deepcopy(setup.data["map"])
    map_doc["name"] = f"{text} map"
    rounds = [
        {"title": step.title, "status": "closed", "deadline": None, "submitted": []}
        for step in RULES.upcoming(GameState(setup, {}, 0, {}))
    ]
    rounds.append(
        {"title": "Extra", "status": "open", "deadline": "2030-01-01T00:00Z", "submitted": [1, 2]}
    )
    return {
        "id": "0123456789",
        "name": f"{text} match",
        "title": RULES.title,
        "map_name": "three-rapids",
        "map": map_doc,
        "players": [
            {"seat": p["seat"], "name": f"{text} p{p['seat']}", "garnets": p["garnets"]}
            for p in doc["players"]
        ],
        "seed_sha256": hashlib.sha256(doc["seed"].encode()).hexdigest(),
        "rounds": rounds,
        "paused": False,
        "closed_rounds": 5,
        "revealed": False,
        "result": visible,
        "seed": doc["seed"],
    }


def user_strings(text: str) -> list[str]:
    view = public_view(text)
    out = [view["name"], view["map"]["name"], *(p["name"] for p in view["players"])]
    out += list(view["result"]["branch_totals"])
    out += [step["fork"] for step in view["result"]["path"]]
    return out


# ---- renderers ------------------------------------------------------------------


def _commonmark(text: str) -> str:
    return MarkdownIt("commonmark").render(text)


def _gfm_like(text: str) -> str:
    return MarkdownIt("gfm-like").render(text)  # tables, strikethrough, linkify


def _cmark_gfm(text: str) -> str:
    # GitHub's renderer; "unsafe" lets raw HTML through, so that injected HTML shows
    return str(cmarkgfm.github_flavored_markdown_to_html(text, options=Options.CMARK_OPT_UNSAFE))


def _python_markdown(text: str) -> str:
    return markdown.markdown(text, extensions=["tables"])


MARKDOWN: dict[str, Callable[[str], str]] = {
    "commonmark": _commonmark,
    "gfm-like": _gfm_like,
    "cmark-gfm": _cmark_gfm,
    "python-markdown": _python_markdown,
}


def _bbcode(text: str) -> str:
    parser = bbcode.Parser(replace_cosmetic=False)  # no (c) -> copyright sign
    return str(parser.format(text))


class _Html(HTMLParser):
    """The tags (with their link and picture addresses) and the text of a page."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[str] = []
        self.addresses: list[str] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        for key, value in attrs:
            if key in ("href", "src"):
                self.addresses.append(value or "")

    def handle_endtag(self, tag: str) -> None:
        self.tags.append("/" + tag)

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def parse(html: str) -> _Html:
    page = _Html()
    page.feed(html)
    page.close()
    return page


def shown_text(page: _Html) -> str:
    """The page's text as a reader sees it (the invisible word joiners left out)."""
    return "".join(page.text).replace("\u2060", "")


def ours(address: str) -> bool:
    return address.startswith(BASE + "matches/0123456789/")


# ---- the checks (each fails on the posts made before this fix) ------------------


def assert_markdown_inert(post_of: Callable[..., str], text: str, base_url: str | None) -> None:
    post = post_of(public_view(text), "markdown", base_url)
    plain = post_of(public_view(PLAIN), "markdown", base_url)
    for name, render in MARKDOWN.items():
        page, expected = parse(render(post)), parse(render(plain))
        # the same elements as with plain names: no link, image, heading, emphasis,
        # list item, table, code, strikethrough or HTML element from user text
        assert page.tags == expected.tags, (name, text, post)
        # no address but our own pictures' (none at all without a base URL)
        assert all(ours(a) for a in page.addresses), (name, text, page.addresses)
        assert len(page.addresses) == (2 if base_url else 0), (name, text)
        # and the user's text shows as itself, on one line
        shown = shown_text(page)
        for s in user_strings(text):
            assert one_line(s) in shown, (name, s, shown)


def assert_bbcode_inert(post_of: Callable[..., str], text: str, base_url: str | None) -> None:
    post = post_of(public_view(text), "bbcode", base_url)
    plain = post_of(public_view(PLAIN), "bbcode", base_url)
    tag = re.compile(r"\[/?[a-z*]+(?:=[^\]]*)?\]", re.IGNORECASE)
    # the same BBCode tags as with plain names: none from user text
    assert tag.findall(post) == tag.findall(plain), (text, post)
    page, expected = parse(_bbcode(post)), parse(_bbcode(plain))
    assert page.tags == expected.tags, (text, post)
    # the renderer links nothing but our own pictures (it links bare addresses)
    assert all(ours(a) for a in page.addresses), (text, page.addresses)
    shown = shown_text(page)
    for s in user_strings(text):
        # BBCode has no escape: brackets are written as parentheses
        assert one_line(s).replace("[", "(").replace("]", ")") in shown, (s, shown)


def assert_no_line_starts_with_user_text(
    post_of: Callable[..., str], text: str, fmt: str, base_url: str | None
) -> None:
    """Line by line, the post has the lines of the post for plain names: each
    the same up to where the first user string goes (a line without one, the
    same line), and no more lines."""
    lines = post_of(public_view(text), fmt, base_url).splitlines()
    plain = post_of(public_view(PLAIN), fmt, base_url).splitlines()
    for line, mine in zip_longest(lines, plain):
        assert (
            line is not None
            and mine is not None
            and (line.startswith(mine.split(PLAIN)[0]) if PLAIN in mine else line == mine)
        ), (fmt, text, line, mine)


# ---- the tests --------------------------------------------------------------------


@pytest.mark.parametrize("base_url", [None, BASE], ids=["no-pictures", "pictures"])
@pytest.mark.parametrize("text", PAYLOADS)
def test_markdown_post_shows_user_text_as_text(text: str, base_url: str | None) -> None:
    assert_markdown_inert(forum_post, text, base_url)


@pytest.mark.parametrize("base_url", [None, BASE], ids=["no-pictures", "pictures"])
@pytest.mark.parametrize("text", PAYLOADS)
def test_bbcode_post_shows_user_text_as_text(text: str, base_url: str | None) -> None:
    assert_bbcode_inert(forum_post, text, base_url)


@pytest.mark.parametrize("fmt", ["markdown", "bbcode"])
@pytest.mark.parametrize("text", PAYLOADS)
def test_no_line_of_the_post_starts_with_user_text(text: str, fmt: str) -> None:
    assert_no_line_starts_with_user_text(forum_post, text, fmt, BASE)


def test_the_server_made_parts_still_render() -> None:
    """Headings, bold labels, lists and our pictures are still markup."""
    view = public_view(PLAIN)
    md = forum_post(view, "markdown", BASE)
    for name, render in MARKDOWN.items():
        page = parse(render(md))
        assert page.tags.count("h3") == 1, name
        # Players, Rounds, Slot totals, The raft's path, Scores, Token of Life,
        # Elimination Candidate
        assert page.tags.count("strong") == 7, name
        assert page.tags.count("li") == 3 + 6 + 27 + 9 + 3, name
        assert page.tags.count("img") == 2, name
        assert page.addresses == [
            f"{BASE}matches/0123456789/map.png?v=5",
            f"{BASE}matches/0123456789/results.png?v=5",
        ], name
        assert "Plain p1 (seat 1)" in shown_text(page), name
    bb = parse(_bbcode(forum_post(view, "bbcode", BASE)))
    # the same, and the heading (bold in BBCode)
    assert bb.tags.count("strong") == 8 and bb.tags.count("li") == 3 + 6 + 27 + 9 + 3
    assert "Plain p1 (seat 1)" in shown_text(bb)


def test_a_seed_with_backticks_stays_in_its_code_span() -> None:
    view = public_view(PLAIN)
    view["seed"] = "a``b`\n<img src=x>"
    md = forum_post(view, "markdown")
    for name, render in MARKDOWN.items():
        page = parse(render(md))
        assert "img" not in page.tags, name
        assert "a``b` <img src=x>" in shown_text(page), name


def test_the_bbcode_preview_shows_list_items_as_typed() -> None:
    """The ``bbcode`` package's list tags replace "---" and "(c)" unless told not
    to: the host's preview of a post must show a name as it was typed."""
    from referee.markup import to_html

    html = to_html("[list][*]Ana --- (c) (r) ... -- 1/2[/list]", "bbcode")
    assert html == "<ul><li>Ana --- (c) (r) ... -- 1/2</li></ul>"
