"""User text in ready-to-paste forum posts (Markdown or BBCode), for every game.

Every string a user wrote (a match's name, players' names, a game's own names)
goes through :meth:`Markup.esc`, so that it shows as the text it is and never
becomes markup:

- it stays on its line: line breaks and other control characters become a
  space, bidirectional-text controls are left out (names are refused with them
  at input; this covers data stored before);
- Markdown: every ASCII punctuation character is neutralised. Those that
  Python-Markdown also honours as backslash escapes (``\\ ` * _ { } [ ] ( )
  > # + - . !``) get a backslash; the others become a numeric character
  reference (``:`` is ``&#58;``, ``<`` is ``&#60;``), which CommonMark, GFM and
  Python-Markdown all show as the character and never read as syntax (a
  backslash before them would show in Python-Markdown). So no link, image,
  autolink, emphasis, heading, list, table, HTML tag or entity can form from
  user text;
- BBCode has no escape character: ``[`` and ``]`` become ``(`` and ``)``, so no
  tag can form;
- both: an invisible WORD JOINER (U+2060) goes before every ``.``, ``:`` and
  ``@``, so that no forum's automatic linking (GFM's bare ``www.``, ``https:``
  and e-mail links, which GitHub makes even from escaped text; phpBB's "magic
  URLs") turns user text into a link.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import UTC, datetime
from functools import cache
from typing import TYPE_CHECKING, Any
from urllib.parse import quote, urlsplit

import bbcode  # type: ignore[import-untyped]
from markdown_it import MarkdownIt

from referee.chain import HEX64, SHORT

if TYPE_CHECKING:
    from referee.ruleset import Ruleset

# what one line of user text may not hold: line breaks, other control characters
# and the line/paragraph separators become a space; bidi controls are dropped
_OFF_LINE: dict[int, str | None] = {
    c: " " for c in [*range(0x00, 0x20), *range(0x7F, 0xA0), 0x2028, 0x2029]
}
_OFF_LINE.update({c: None for c in [*range(0x202A, 0x202F), *range(0x2066, 0x206A)]})
_NO_AUTOLINK = re.compile(r"([.:@])")
_WORD_JOINER = "\u2060"
# the ASCII punctuation Python-Markdown also takes backslash escapes for
_MD_BACKSLASH = frozenset("\\`*_{}[]()>#+-.!")
_MD_ESCAPES = {
    ord(c): (f"\\{c}" if c in _MD_BACKSLASH else f"&#{ord(c)};")
    for c in map(chr, range(0x21, 0x7F))
    if not c.isalnum()
}
_BB_ESCAPES = {ord("["): "(", ord("]"): ")"}


def one_line(text: object) -> str:
    """``text`` as a string on one line: no line break or control character
    (each becomes a space), no bidirectional-text control."""
    return str(text).translate(_OFF_LINE)


class Markup:
    """The few pieces of markup a post is made of, in one format.

    A post is a list of blocks (:meth:`document` joins them with a blank line):
    a paragraph, a heading, a picture, or a labelled list (:meth:`section`).
    Markdown needs the blank lines: Python-Markdown makes no list of lines that
    follow a paragraph's line, CommonMark adds a line that follows a list to its
    last item, and both join consecutive lines into one paragraph. BBCode uses
    only the tags most forums have: ``[b] [i] [u] [url] [img] [list] [*]
    [quote] [code]`` (no ``[size]``, ``[font]`` or ``[color]``)."""

    def __init__(self, fmt: str) -> None:
        if fmt not in ("markdown", "bbcode"):
            raise ValueError(fmt)
        self.fmt = fmt

    def esc(self, text: object) -> str:
        """User text, shown as itself in this format (see the module's text)."""
        s = _NO_AUTOLINK.sub(_WORD_JOINER + r"\1", one_line(text))
        return s.translate(_MD_ESCAPES if self.fmt == "markdown" else _BB_ESCAPES)

    def bold(self, text: str) -> str:
        """``text`` in bold; spaces at either end stay outside the markers (in
        Markdown, ``**a: **`` is no emphasis: it shows its stars)."""
        core = text.strip()
        if not core:
            return text
        before, after = text[: len(text) - len(text.lstrip())], text[len(text.rstrip()) :]
        marked = f"**{core}**" if self.fmt == "markdown" else f"[b]{core}[/b]"
        return before + marked + after

    def field(self, label: str, value: str) -> str:
        """A bold label, then its value: ``**Token of Life**: Ana`` (the colon
        outside the markers, so that every renderer closes them)."""
        return f"{self.bold(label)}: {value}"

    def heading(self, text: str) -> str:
        return f"### {text}" if self.fmt == "markdown" else f"[b][u]{text}[/u][/b]"

    def title(self, name: object, game: str) -> str:
        """The post's heading: the match's name (user text) and the game's title,
        the game named once: "Spring cup — Rocky River Riding", but "Demo: Rocky
        River Riding" for a match so named, and the title alone for a match
        named like a part of it ("Rocky River")."""
        match = one_line(name).strip()
        if not match or match.casefold() in game.casefold():
            text = self.esc(game)
        elif game.casefold() in match.casefold():
            text = self.esc(match)
        else:
            text = f"{self.esc(match)} \u2014 {self.esc(game)}"
        return self.heading(text)

    def code(self, text: str) -> str:
        text = one_line(text)
        if self.fmt == "markdown":
            # a fence longer than any run of backticks inside; spaces keep an
            # inner backtick at either end off the fence
            longest = max((len(run) for run in re.findall("`+", text)), default=0)
            fence = "`" * (longest + 1)
            return f"{fence} {text} {fence}" if longest else f"{fence}{text}{fence}"
        return f"[code]{self.esc(text)}[/code]"

    def image(self, alt: str, url: str) -> str:
        # our own address; quoted so that no character of it can end the markup
        url = quote(url, safe=":/?&=#%@!$'*+,;~.-_")
        if self.fmt == "markdown":
            return f"![{alt}]({url})"
        return f"[img]{url}[/img]"

    def items(self, rows: list[str]) -> str:
        """A list (one block); each row stays on one line."""
        if self.fmt == "markdown":
            return "\n".join(f"- {one_line(r)}" for r in rows)
        return "\n".join(["[list]", *[f"[*]{one_line(r)}" for r in rows], "[/list]"])

    def section(self, label: str, rows: list[str]) -> str:
        """A bold label over a list (one block); a label alone with no rows."""
        if not rows:
            return self.field(label, "none")
        gap = "\n\n" if self.fmt == "markdown" else "\n"
        return self.bold(label) + gap + self.items(rows)

    def document(self, blocks: list[str]) -> str:
        """The post: its blocks (empty ones left out), a blank line between two."""
        return "\n\n".join(b.strip("\n") for b in blocks if b.strip()) + "\n"


def chain_block(view: Mapping[str, Any], fmt: str) -> str | None:
    """A post's last block (issue 27): the match's latest chain head, short and
    whole (``ROUND:HEX``, as ``referee verify --head`` takes it), so that every
    post is a witness of the record as it stood (docs/verify.md); None for a
    match stored before chains."""
    head = view.get("chain_head")
    if not isinstance(head, str) or not HEX64.match(head):
        return None
    rounds = view.get("rounds") or []
    closed = [r for r in rounds if r.get("head") == head]
    fixed = [r for r in rounds if any(c.get("head") == head for c in r.get("corrections") or [])]
    label = str((closed or fixed)[-1]["number"]) if closed or fixed else "start"
    where = f"after round {label}" if closed else "at the start"
    if fixed and not closed:  # the latest entry is a fix of a closed round's result
        where = f"round {label}'s result corrected"
    m = Markup(fmt)
    # our own value (digits, hex, "start"), put in code as itself: escaping
    # would slip an invisible joiner before its colon into what people copy
    whole = f"`{label}:{head}`" if fmt == "markdown" else f"[code]{label}:{head}[/code]"
    return m.field("Chain head", f"{head[:SHORT]} ({where}), to keep: {whole}")


def match_post(
    ruleset: Ruleset, view: dict[str, Any], fmt: str, base_url: str | None = None
) -> str:
    """The forum post of a public view: the game's post, then the chain head."""
    post = ruleset.post(view, fmt, base_url=base_url)
    block = chain_block(view, fmt)
    return post if block is None else Markup(fmt).document([post, block])


def when(stamp: object) -> str | None:
    """A time for people, in UTC to the second (seconds left out when zero),
    never with microseconds: ``2026-12-01 18:00 UTC``, ``2026-12-01 18:00:42
    UTC``. ``stamp`` is a datetime or an ISO time (a time without a zone is
    UTC); None for anything else."""
    if isinstance(stamp, str):
        try:
            moment = datetime.fromisoformat(stamp.strip())
        except ValueError:
            return None
    elif isinstance(stamp, datetime):
        moment = stamp
    else:
        return None
    moment = moment.astimezone(UTC) if moment.tzinfo else moment.replace(tzinfo=UTC)
    return moment.strftime("%Y-%m-%d %H:%M:%S UTC" if moment.second else "%Y-%m-%d %H:%M UTC")


def picture_url(view: dict[str, Any], base_url: str, name: str) -> str:
    """The absolute address of the public picture ``name`` of ``view``'s match,
    for a post. The query names the state drawn (closed rounds, full reveal),
    so a forum that keeps a copy of one image shows the next post's new picture."""
    state = f"{view.get('closed_rounds', 0)}{'r' if view.get('revealed') else ''}"
    return f"{base_url.rstrip('/')}/matches/{view['id']}/{name}.png?v={state}"


# ---- how a forum shows a post (the host's preview) ---------------------------------

# the BBCode tags most forums have, the only ones a post uses and the preview renders
FORUM_TAGS = ("b", "i", "u", "url", "img", "list", "*", "quote", "code")


@cache
def _markdown() -> MarkdownIt:
    # CommonMark with raw HTML off (shown as text); its link check refuses
    # javascript:, vbscript:, file: and data: addresses
    return MarkdownIt("commonmark", {"html": False})


def _bb_image(
    tag_name: str, value: str, options: dict[str, str], parent: object, context: object
) -> str:
    # ``value`` is already HTML-escaped (the tag's escape_html); only web addresses
    if urlsplit(value.replace("&amp;", "&")).scheme.lower() not in ("http", "https"):
        return value
    return f'<img src="{value}" alt="">'


@cache
def _bbcode() -> Any:
    parser = bbcode.Parser(replace_cosmetic=False, escape_html=True)
    for name in list(parser.recognized_tags):
        if name not in FORUM_TAGS:
            del parser.recognized_tags[name]
        else:  # the list tags' own options turned "---" into a dash and "(c)" into ©
            parser.recognized_tags[name][1].replace_cosmetic = False
    parser.add_formatter(
        "img", _bb_image, render_embedded=False, replace_links=False, replace_cosmetic=False
    )
    return parser


def to_html(post: str, fmt: str) -> str:
    """``post`` as a forum shows it, in HTML: Markdown through markdown-it-py
    (CommonMark, raw HTML shown as text), BBCode through the ``bbcode`` package
    (HTML escaped, only :data:`FORUM_TAGS`, pictures only from http(s)
    addresses). Whatever the post holds, the HTML runs nothing: no script, no
    event attribute, no ``javascript:`` address."""
    if fmt == "markdown":
        return str(_markdown().render(post))
    if fmt == "bbcode":
        return str(_bbcode().format(post))
    raise ValueError(fmt)
