"""The Forks forum post (Markdown and BBCode) from the public view (F11).

Views are made the way the server makes them: a match created and played
through the service (:class:`referee.service.Referee`), each state read with
:func:`referee.views.view_for` for the public. For 2 to 6 players, standard and
merge, the post of every state (before the first round, each step open with
all orders but one in, each step closed) holds what that state makes public
and nothing sealed: no card but those in marketing before the end, the same
post whatever a sealed order says. Posts with hostile names are rendered by
real renderers (CommonMark and GFM-like markdown-it, GitHub's cmark-gfm,
Python-Markdown; the ``bbcode`` package) and must have exactly the elements of
the same post with plain names.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from functools import cache
from html.parser import HTMLParser
from itertools import zip_longest
from typing import Any

import bbcode
import cmarkgfm
import markdown
import pytest
from cmarkgfm.cmark import Options
from markdown_it import MarkdownIt

from referee.db import make_engine, migrate
from referee.errors import RuleError
from referee.markup import one_line
from referee.ruleset import Viewer, get_ruleset
from referee.rulesets.forks_2e.cards import DEFAULT_NAMES, card_name
from referee.rulesets.forks_2e.demo import DEMO_SEED, demo_orders
from referee.rulesets.forks_2e.post import forum_post
from referee.service import Referee
from referee.views import view_for
from referee.words import garnets

BASE = "https://referee.example/"
NAMES = ("Ana", "Bo", "Cy", "Di", "Ed", "Flo")
GARNETS = (3, 5, 2, 4, 1, 6)
SIZES = [(n, merge) for n in range(2, 7) for merge in (False, True)]
SIZE_IDS = [f"{n}p-{'merge' if merge else 'standard'}" for n, merge in SIZES]
CARD = re.compile(r"\b(?:grey|blue|yellow|green|red)-\d{1,2}x?\b")
NAMED = re.compile(
    r"\b(" + "|".join(map(re.escape, DEFAULT_NAMES.values())) + r") (\d{1,2})( \(twin\))?"
)
_DEST_OF = {name: dest for dest, name in DEFAULT_NAMES.items()}


def named(cards: list[str]) -> str:
    """Cards as the post names them (the default destination names)."""
    return ", ".join(card_name(c) for c in cards) or "none"


def cards_named(post: str) -> set[str]:
    """The ids of the cards a post names (by their default names); a post names
    no card by its id."""
    assert CARD.findall(post) == []
    return {f"{_DEST_OF[d]}-{v}{'x' if twin else ''}" for d, v, twin in NAMED.findall(post)}


# ---- matches played through the service ------------------------------------------


@dataclass(frozen=True)
class Snapshot:
    """One state of a match: ``label`` is ``start``, ``open N`` (step N open,
    every acting seat's order in but the last one's) or ``closed N``."""

    label: str
    public: dict[str, Any]
    host: dict[str, Any]


@cache
def played(
    seats: int,
    merge: bool = False,
    *,
    seed: str = DEMO_SEED,
    names: tuple[str, ...] = NAMES,
    garnets: tuple[int, ...] = GARNETS,
    match_name: str = "Forks test",
    destination_names: tuple[tuple[str, str], ...] = (),
    default_last: bool = True,
) -> tuple[Snapshot, ...]:
    """A whole match through the service (the demo's legal orders for ``seed``),
    its public and host views at every state. The first keep step's orders are
    entered by the host for seat 1; with ``default_last`` the last seat sends
    nothing in the last step, so it gets a seeded default."""
    engine = make_engine("sqlite://")
    migrate(engine)
    svc = Referee(engine)
    players = [
        {"seat": s, "name": names[s - 1], "garnets": garnets[s - 1]} for s in range(1, seats + 1)
    ]
    settings: dict[str, Any] = {"merge": merge}
    if destination_names:
        settings["names"] = dict(destination_names)
    mid = svc.create_match(
        name=match_name, players=players, settings=settings, ruleset="forks-2e", seed=seed
    ).match_id

    def snap(label: str) -> Snapshot:
        state = svc.state(mid)
        return Snapshot(label, view_for(state, Viewer.public()), view_for(state, Viewer.host()))

    out = [snap("start")]
    steps = demo_orders(seats, merge=merge, seed=seed)
    for number, orders in enumerate(steps, start=1):
        svc.open_round(mid)
        chosen = sorted(orders.items())
        for seat, card in chosen[:-1]:
            svc.submit_order(mid, seat, card, host_entered=(number == 1 and seat == 1))
        out.append(snap(f"open {number}"))
        if number < len(steps) or not default_last:
            svc.submit_order(mid, *chosen[-1])
        svc.close_round(mid)
        out.append(snap(f"closed {number}"))
    assert out[-1].public["finished"]
    return tuple(out)


def public_cards(result: dict[str, Any]) -> set[str]:
    """The cards F11 makes public before the end: those in marketing."""
    cards = set(result.get("initial_marketing") or [])
    for step in result.get("marketed") or []:
        cards.update(step)
    cards.update(result.get("revealed") or [])
    return cards


def who(seat: int, name: str | None = None) -> str:
    return f"{name or NAMES[seat - 1]} (seat {seat})"


# ---- what each state's post holds -----------------------------------------------


@pytest.mark.parametrize("fmt", ["markdown", "bbcode"])
@pytest.mark.parametrize(("seats", "merge"), SIZES, ids=SIZE_IDS)
def test_every_state_of_the_match_is_posted_with_what_it_makes_public(
    seats: int, merge: bool, fmt: str
) -> None:
    snapshots = played(seats, merge)
    for snap in snapshots:
        view, result = snap.public, snap.public["result"]
        post = forum_post(view, fmt)
        where = (snap.label, fmt)
        # from the start: players, garnets, settings, initial marketing, the seed's digest
        for seat in range(1, seats + 1):
            assert f"{who(seat)}: {garnets(GARNETS[seat - 1])}" in post, where
        assert ("Variant: merge" if merge else "Variant: standard") in post, where
        tiebreak = ", ".join(f"{DEFAULT_NAMES[d]} ({d})" for d in view["settings"]["tiebreak"])
        assert f"wins a tie on totals): {tiebreak}" in post, where
        initial = named(result["initial_marketing"])
        assert f"Initial marketing: {initial}" in post, where
        assert view["seed_sha256"] in post, where
        # after each market step: its marketed cards, the pile card with 2 players
        for k, cards in enumerate(result["marketed"], start=1):
            line = f"Market step {k}: {named(cards)}"
            if seats == 2:
                line += f"; revealed from the draw pile: {named([result['revealed'][k - 1]])}"
            assert line in post, where
        assert f"Market step {len(result['marketed']) + 1}:" not in post, where
        # every total, in ranking order
        ranking = result.get("ranking") or result["ranking_so_far"]
        totals = result["marketing_totals"]
        places = [post.index(f"{DEFAULT_NAMES[d]} ({d}), total {totals[d]} (") for d in ranking]
        assert places == sorted(places), where
        assert post.count("(top three, scores +)") == 3, where
        assert post.count("(bottom two, scores -)") == 2, where
        # the open step: its deadline to the second and how many orders are in
        if snap.label.startswith("open"):
            number = int(snap.label.split()[1])
            rnd = next(r for r in view["rounds"] if r["number"] == number)
            deadline = datetime.fromisoformat(rnd["deadline"]).astimezone(UTC)
            shown = deadline.strftime("%Y-%m-%d %H:%M" + (":%S" if deadline.second else ""))
            line = f"{rnd['title']}: open, deadline {shown} UTC; {seats - 1} of {seats} orders in"
            assert line in post, where
        assert not re.search(r"\d\d:\d\d[:.]\d\d[.,]\d", post), where  # no microseconds
        assert not re.search(r"\dT\d", post), where  # no ISO time, for people
        if number_closed(snap) >= 1:
            assert "orders entered by the host for Ana (seat 1)" in post, where
        if not view["finished"]:
            # nothing sealed: no card but those in marketing, no hand, no seed
            assert cards_named(post) <= public_cards(result), where
            for word in ("Hands and scores", "Token of Life", "Elimination Candidate", "Final"):
                assert word not in post, where
            assert DEMO_SEED not in post, where
        else:
            assert "Final ranking" in post and "Totals and ranking so far" not in post
            for seat in range(1, seats + 1):
                hand = named(result["hands"][str(seat)])
                points = result["scores"][str(seat)]
                shown = f"+{points}" if points > 0 else str(points)
                assert f"{who(seat)}: {shown} point" in post, where
                assert f"hand: {hand}" in post, where
            tol = result["token_of_life"]
            if tol is not None:
                assert f"Token of Life{'[/b]' if fmt == 'bbcode' else '**'}: {who(tol)}" in post
            ec = result["elimination_candidate"]
            assert f"{who(ec['seat'])}, decided by {ec['decided_by']}" in post, where
            last = view["rounds"][-1]["title"]
            assert f"{last}: {who(seats)}" in post, where  # the seeded default
            assert "Seed (check it against the digest above): " in post
            assert DEMO_SEED in post, where


def number_closed(snap: Snapshot) -> int:
    return int(snap.public["closed_rounds"])


def test_a_sealed_order_changes_nothing_in_the_post() -> None:
    """While a step is open, the post is the same whichever legal card a seat
    has sent (and whether it has replaced it)."""
    engine = make_engine("sqlite://")
    migrate(engine)
    svc = Referee(engine)
    players = [{"seat": s, "name": NAMES[s - 1], "garnets": 1} for s in (1, 2, 3)]
    mid = svc.create_match(
        name="Sealed", players=players, settings={}, ruleset="forks-2e", seed=DEMO_SEED
    ).match_id
    steps = demo_orders(3)
    for number in (1, 2):
        svc.open_round(mid)
        options = view_for(svc.state(mid), Viewer.of_seat(1))["options"]
        assert len(options) >= 2
        posts = set()
        for card in options:
            svc.submit_order(mid, 1, card)
            public = view_for(svc.state(mid), Viewer.public())
            md = forum_post(public, "markdown")
            posts.add((md, forum_post(public, "bbcode", BASE)))
            assert cards_named(md) <= public_cards(public["result"])
        assert len(posts) == 1, number
        for seat, card in steps[number - 1].items():
            svc.submit_order(mid, seat, card)
        svc.close_round(mid)


def test_the_post_embeds_the_board_from_the_start_and_the_scores_at_the_end() -> None:
    for snap in played(4):
        view = snap.public
        html = MarkdownIt("commonmark").render(forum_post(view, "markdown", BASE))
        page = parse(html)
        base = f"{BASE}matches/{view['id']}/"
        expected = [f"{base}board.png?v={view['closed_rounds']}"]
        if view["finished"]:
            expected.append(f"{base}scores.png?v={view['closed_rounds']}")
        assert page.addresses == expected, snap.label
        bb = forum_post(view, "bbcode", BASE)
        assert re.findall(r"\[img\](.*?)\[/img\]", bb) == expected, snap.label
        assert (
            "img" not in parse(MarkdownIt("commonmark").render(forum_post(view, "markdown"))).tags
        )


@pytest.mark.parametrize("fmt", ["html", "", "Markdown", "bb"])
def test_an_unknown_format_is_refused(fmt: str) -> None:
    view = played(2)[0].public
    with pytest.raises(RuleError) as exc:
        forum_post(view, fmt)
    assert exc.value.codes == ["post/bad_format"]
    with pytest.raises(RuleError) as through_ruleset:
        get_ruleset("forks-2e").post(view, fmt)
    assert through_ruleset.value.codes == ["post/bad_format"]


@pytest.mark.parametrize(
    ("seed", "garnets", "by", "tol"),
    [("tie-18", (2, 1, 5), "garnets", 3), ("tie-67", (1, 1, 1), "draw", None)],
)
def test_the_post_says_how_a_tied_elimination_was_decided(
    seed: str, garnets: tuple[int, int, int], by: str, tol: int | None
) -> None:
    view = played(3, seed=seed, garnets=garnets, default_last=False)[-1].public
    result = view["result"]
    ec = result["elimination_candidate"]
    assert ec["decided_by"] == by  # the seeds were chosen for these ties
    post = forum_post(view, "markdown")
    tied = result["elimination_ties"]["score"]
    listed = " and ".join(who(s) for s in tied) if len(tied) == 2 else None
    if by == "garnets":
        assert f"decided by garnets: {listed} tied on the lowest score" in post
        assert f"{who(ec['seat'])} has the fewest garnets ({garnets[ec['seat'] - 1]})" in post
    else:
        assert "decided by draw: Ana (seat 1), Bo (seat 2) and Cy (seat 3) tied" in post
        assert f"a seeded draw chose {who(ec['seat'])}" in post
    if tol is None:
        assert "**Token of Life**: nobody (the highest score is shared)" in post
    else:
        assert f"**Token of Life**: {who(tol)}, the single highest score" in post


def test_renamed_destinations_are_named_in_the_post() -> None:
    names = (("blue", "Harbour"), ("red", "Rouge Town"))
    view = played(3, destination_names=names)[-1].public
    post = forum_post(view, "markdown")
    assert "Harbour (blue)" in post and "Rouge Town (red)" in post
    assert "Bluecrest" not in post and "Red (red)" not in post
    assert "Greysteel City (grey)" in post  # the others keep their default names
    # the cards too: by the match's names, never by id
    renamed = dict(names)
    hand = view["result"]["hands"]["1"]
    shown = ", ".join(card_name(c, renamed) for c in hand)
    assert f"hand: {shown}" in post
    assert CARD.findall(post) == []


# ---- renderers ------------------------------------------------------------------------


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


@pytest.mark.parametrize("snap_index", [0, 1, 4, -1], ids=["start", "open", "closed", "end"])
def test_the_markdown_reads_the_same_in_commonmark_and_python_markdown(snap_index: int) -> None:
    view = played(2)[snap_index].public
    post = forum_post(view, "markdown", BASE)
    pages = {name: parse(render(post)) for name, render in MARKDOWN.items()}
    expected = pages["commonmark"].tags
    for name, page in pages.items():
        assert page.tags == expected, name
        assert shown_text(page).split() == shown_text(pages["commonmark"]).split(), name
    # players, settings, rounds, marketing, totals; at the end hands and defaults
    assert expected.count("ul") == (7 if view["finished"] else 5)
    assert expected.count("h3") == 1
    # no bold label with a space before its closing ** (it would show the stars)
    assert not re.search(r"\*\*[^*\n]*\s\*\*", post)


@pytest.mark.parametrize("snap_index", [0, 1, 4, -1], ids=["start", "open", "closed", "end"])
def test_the_bbcode_uses_only_tags_forums_have(snap_index: int) -> None:
    post = forum_post(played(5, True)[snap_index].public, "bbcode", BASE)
    tags = {t.lower() for t in re.findall(r"\[/?([a-z*]+)(?:=[^\]]*)?\]", post, re.IGNORECASE)}
    assert tags <= {"b", "i", "u", "url", "img", "list", "*", "quote", "code"}
    page = parse(_bbcode(post))
    assert page.tags.count("strong") >= 6 and "li" in page.tags


# ---- hostile names -----------------------------------------------------------------

PAYLOADS = [
    "<script>alert(1)</script>",
    "&amp; & &#60;",
    "]]> <![CDATA[x]]>",
    "\u202eevil\u202c \u200fRTL mark\u200f \u05e9\u05dc\u05d5\u05dd",
    "W" * 100,
    "[url=https://evil.example]x[/url]",
    "[img]https://evil.example/t.png[/img]",
    "![t](https://evil.example/t.png)",
    "[x](https://evil.example)",
    "<https://evil.example>",
    "https://evil.example",
    "www.evil.example",
    "mail@evil.example",
    "<img src=x onerror=alert(1)>",
    "**bold** _em_ ~~del~~",
    "# heading",
    "|table|",
    "- item",
    "1. item",
    "> quote",
    "`code`",
    "a\\",
    "Ana\nToken of Life: Bo",
    "Ana\u2028[b]Token of Life:[/b] Bo\u0085x",
]
PLAIN = "Plain"


def hostile_view(text: str) -> dict[str, Any]:
    """The finished public view of a 2-player match (a seeded default in it),
    with every user string (the match's, the players' and the destinations'
    names) replaced by ``text`` plus a tag that keeps them apart. Made here,
    past the input checks: the post must be safe even for data stored before
    them (a name holding a new line)."""
    view = copy.deepcopy(played(2)[-1].public)
    view["name"] = f"{text} match"
    for p in view["players"]:
        p["name"] = f"{text} p{p['seat']}"
    view["settings"]["names"] = {
        d: f"{text} {d}" for d in ("grey", "blue", "yellow", "green", "red")
    }
    # one round shown open with an order in, as before the end
    view["rounds"][-1] = {**view["rounds"][-1], "status": "open", "submitted": [1]}
    return view


def user_strings(text: str) -> list[str]:
    view = hostile_view(text)
    return [
        view["name"],
        *(p["name"] for p in view["players"]),
        *view["settings"]["names"].values(),
    ]


def ours(address: str) -> bool:
    return address.startswith(f"{BASE}matches/{played(2)[-1].public['id']}/")


@pytest.mark.parametrize("base_url", [None, BASE], ids=["no-pictures", "pictures"])
@pytest.mark.parametrize("text", PAYLOADS)
def test_markdown_post_shows_user_text_as_text(text: str, base_url: str | None) -> None:
    post = forum_post(hostile_view(text), "markdown", base_url)
    plain = forum_post(hostile_view(PLAIN), "markdown", base_url)
    for name, render in MARKDOWN.items():
        page, expected = parse(render(post)), parse(render(plain))
        # the same elements as with plain names: nothing formed from user text
        assert page.tags == expected.tags, (name, text, post)
        assert all(ours(a) for a in page.addresses), (name, text, page.addresses)
        assert len(page.addresses) == (2 if base_url else 0), (name, text)
        shown = shown_text(page)
        for s in user_strings(text):
            assert one_line(s) in shown, (name, s, shown)


@pytest.mark.parametrize("base_url", [None, BASE], ids=["no-pictures", "pictures"])
@pytest.mark.parametrize("text", PAYLOADS)
def test_bbcode_post_shows_user_text_as_text(text: str, base_url: str | None) -> None:
    post = forum_post(hostile_view(text), "bbcode", base_url)
    plain = forum_post(hostile_view(PLAIN), "bbcode", base_url)
    tag = re.compile(r"\[/?[a-z*]+(?:=[^\]]*)?\]", re.IGNORECASE)
    assert tag.findall(post) == tag.findall(plain), (text, post)  # no stray tag
    page, expected = parse(_bbcode(post)), parse(_bbcode(plain))
    assert page.tags == expected.tags, (text, post)
    assert all(ours(a) for a in page.addresses), (text, page.addresses)
    shown = shown_text(page)
    for s in user_strings(text):
        # BBCode has no escape: brackets are written as parentheses
        assert one_line(s).replace("[", "(").replace("]", ")") in shown, (s, shown)


@pytest.mark.parametrize("fmt", ["markdown", "bbcode"])
@pytest.mark.parametrize("text", PAYLOADS)
def test_no_line_of_the_post_starts_with_user_text(text: str, fmt: str) -> None:
    """Line by line, the post has the lines of the post for plain names: each
    the same up to where the first user string goes, and no more lines."""
    lines = forum_post(hostile_view(text), fmt, BASE).splitlines()
    plain = forum_post(hostile_view(PLAIN), fmt, BASE).splitlines()
    for line, mine in zip_longest(lines, plain):
        assert (
            line is not None
            and mine is not None
            and (line.startswith(mine.split(PLAIN)[0]) if PLAIN in mine else line == mine)
        ), (fmt, text, line, mine)


def test_hostile_names_through_the_service_do_not_break_out() -> None:
    """Names the service accepts, in a whole match: the post shows them as text."""
    # (right-to-left text, but no direction marks: names refuse those since issue 22)
    names = (
        "<script>x</script> & ]]>",
        "[b]y[/b] **z** www.evil.example",
        "\u05e9\u05dc\u05d5\u05dd RTL",
    )
    snapshots = played(
        3,
        names=names,
        match_name="<b>*x*</b> [url=https://evil.example]y[/url]",
        destination_names=(("grey", "<i>G</i>"), ("red", "[u]R[/u] _r_")),
    )
    for snap in (snapshots[0], snapshots[-1]):
        md = forum_post(snap.public, "markdown", BASE)
        bb = forum_post(snap.public, "bbcode", BASE)
        for raw in ("<script>", "<b>", "<i>", "www.evil.example", "_r_", "**z**"):
            assert raw not in md, raw
        for raw in ("[b]y", "[url=", "[u]R", "www.evil.example"):
            assert raw not in bb, raw
        page = parse(_commonmark(md))
        assert not {"script", "a", "em", "i"} & set(page.tags)
        assert "<script>x</script> & ]]>" in shown_text(page)
