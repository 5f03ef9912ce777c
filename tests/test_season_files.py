"""A season's files (issue 15): the standings post, the garnet picture and the
ledger exports, made from season views of a season played through the service.

The post is rendered as forums render it (markdown-it-py, Python-Markdown and
the ``bbcode`` package, with the checks of tests/test_posts_render.py): with
hostile names it has the same elements as with plain names, every name shows
as typed, no markup is left over as text, the only picture is the season's
own, and there is no link. The picture is well-formed, accessible XML whatever
the names, its size bounded for the biggest season; the CSV cannot run in a
spreadsheet."""

from __future__ import annotations

import copy
import csv
import html
import io
import json
import re
import xml.etree.ElementTree as ET
from functools import cache
from typing import Any

import bbcode
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_posts_render import (
    HOSTILE_MATCH,
    HOSTILE_NAMES,
    LEFT_OVER,
    RENDERERS,
    Page,
    shown_name,
    source_blocks,
    source_lists,
)

from referee.db import make_engine, migrate
from referee.markup import FORUM_TAGS, to_html
from referee.ruleset import get_ruleset
from referee.seasons.ledger_files import CSV_COLUMNS, ledger_csv, ledger_json, safe_cell
from referee.seasons.picture import WIDTH, balance_series, garnets_svg
from referee.seasons.post import garnets_picture_url, standings_post
from referee.seasons.service import Seasons
from referee.seasons.views import season_view
from referee.service import Referee

BASE = "https://referee.example/"
FORMATS = ("markdown", "bbcode")
PLAIN_NAMES = ("Ana", "Bo", "Cy", "Di", "Ed", "Flo")
PLAIN_SEASON = "Genius S1"
SVG = "{http://www.w3.org/2000/svg}"


def _parts(game: str, players: int) -> dict[str, Any]:
    demo = get_ruleset(game).demo(players)
    settings = {k: v for k, v in demo.settings.items() if k != "deadline_hours"}
    return {"game": game, "setup": demo.setup, "settings": settings}


def _play(svc: Referee, match_id: str) -> None:
    while not svc.state(match_id).match.finished:
        svc.open_round(match_id)
        svc.close_round(match_id)


@cache
def played(names: tuple[str, ...], season_name: str) -> tuple[tuple[str, dict[str, Any]], ...]:
    """A season played through the service: its public view at each stage
    (the same steps whatever the names)."""
    engine = make_engine("sqlite://")
    migrate(engine)
    svc = Referee(engine)
    seasons = Seasons(svc, b"files-test")
    roster = [{"name": n, "garnets": g} for n, g in zip(names, (5, 4, 3, 2, 1, 0), strict=True)]
    roster[0]["email"] = "ana@example.org"
    sid = seasons.create_season(name=season_name, players=roster, rules={"token_bonus": 2})
    out: list[tuple[str, dict[str, Any]]] = []

    def snap(label: str) -> None:
        out.append((label, season_view(seasons.state(sid.season_id), "public")))

    s = sid.season_id
    snap("created")
    wrong = seasons.add_entry(s, player=6, change=10, reason='=HYPERLINK("x")')
    seasons.add_entry(s, player=6, change=-7, reason="+typo, should be 3", corrects=wrong.id)
    _, main = seasons.create_main_match(s, players=[1, 2, 3], **_parts("forks-2e", 3))
    snap("main under way")
    _play(svc, main.match_id)
    outcome = seasons.record_main(s, 1)
    snap("main recorded")
    opponent = seasons.opponents(s, 1)[0]
    seasons.choose_opponent(s, 1, chooser=outcome.candidate, opponent=opponent)
    snap("opponent chosen")
    death = seasons.create_death_match(s, 1, **_parts("forks-2e", 2))
    snap("death under way")
    _play(svc, death.match_id)
    seasons.record_death(s, 1)
    snap("episode 1 over")
    _, main2 = seasons.create_main_match(s, **_parts("forks-2e", 5))
    _play(svc, main2.match_id)
    outcome2 = seasons.record_main(s, 2)
    seasons.choose_opponent(s, 2, chooser=outcome2.candidate, opponent=seasons.opponents(s, 2)[-1])
    seasons.record_death(s, 2, loser=outcome2.candidate)
    snap("episode 2 over")
    return tuple(out)


def views(names: tuple[str, ...] = PLAIN_NAMES, season: str = PLAIN_SEASON) -> list[Any]:
    return [v for _, v in played(names, season)]


def with_token_spent(view: dict[str, Any]) -> dict[str, Any]:
    """The last view with its last episode skipped by a Token of Life (as a
    season whose tokens last until used shows it)."""
    out = copy.deepcopy(view)
    last = out["episodes"][-1]
    last.update(token_used=True, opponent=None, loser=None, loser_by=None, over=True)
    for p in out["players"]:
        if p["eliminated_in"] == last["number"]:
            p.update(eliminated_in=None, status="in")
    return out


# ---- the post ----------------------------------------------------------------------


def shown_as(text: str, fmt: str) -> tuple[str, str]:
    """How a name shows: as typed (on one line), and in a BBCode list item as
    the ``bbcode`` package shows it, with its typographic replacements
    (``---`` an em dash...; forums such as phpBB make none)."""
    plain = shown_name(text, fmt)
    if fmt != "bbcode":
        return plain, plain
    cosmetic = plain
    for old, new in bbcode.Parser.REPLACE_COSMETIC:
        cosmetic = cosmetic.replace(old, html.unescape(new))
    return plain, cosmetic


def check_post(view: dict[str, Any], plain_view: dict[str, Any], fmt: str) -> None:
    post = standings_post(view, fmt, base_url=BASE)
    plain = standings_post(plain_view, fmt, base_url=BASE)
    user = [view["name"], *(p["name"] for p in view["players"])]
    if fmt == "bbcode":
        used = {t.lower() for t in re.findall(r"\[/?([a-z*]+)(?:=[^\]]*)?\]", post, re.I)}
        assert used <= set(FORUM_TAGS), used
    for name, render in RENDERERS[fmt].items():
        page, plain_page = Page(render(post)), Page(render(plain))
        assert page.tags == plain_page.tags, (name, post)
        shown = page.shown
        for text in user:
            assert any(form in shown for form in shown_as(text, fmt)), (name, text)
        rest = shown
        for text in sorted(user, key=len, reverse=True):
            for form in shown_as(text, fmt):
                rest = rest.replace(form, " ")
        assert not LEFT_OVER.findall(rest), (name, LEFT_OVER.findall(rest), post)
        assert "season standings" in "".join(page.headings)
        assert page.tags.count("h3") == (1 if fmt == "markdown" else 0)
        assert [len(items) for _, items in page.lists] == source_lists(post, fmt), post
        lists = dict(page.lists)
        assert len(lists["Players"]) == len(view["players"])
        if view["episodes"]:
            assert len(lists["Episodes"]) == len(view["episodes"])
        if fmt == "markdown":
            assert page.blocks == source_blocks(post), (page.blocks, post)
        sources = [v for tag, k, v in page.attrs if tag == "img" and k == "src"]
        assert sources == [garnets_picture_url(view, BASE)]
        assert "a" not in page.tags
        assert "ana@example.org" not in post
        head, last = view["ledger"][-1], post.rstrip().splitlines()[-1]
        assert f"{head['id']}:{view['ledger_head']}" in page.shown and head["head"] in last


@pytest.mark.parametrize("fmt", FORMATS)
def test_every_post_renders_cleanly_with_plain_and_hostile_names(fmt: str) -> None:
    hostile = views(HOSTILE_NAMES, HOSTILE_MATCH)
    plain = views()
    assert len(hostile) == len(plain) == 7
    for view, plain_view in zip(
        [*hostile, with_token_spent(hostile[-1])],
        [*plain, with_token_spent(plain[-1])],
        strict=True,
    ):
        check_post(plain_view, plain_view, fmt)
        check_post(view, plain_view, fmt)
        # the host's preview of it runs nothing
        preview = Page(to_html(standings_post(view, fmt, base_url=BASE), fmt))
        # code: the ledger head, our own value, in the post's last line (issue 27)
        allowed = {"h3", "p", "img", "strong", "ul", "li", "b", "u", "br", "code"}
        assert set(preview.tags) <= allowed
        assert {(t, k) for t, k, _ in preview.attrs} <= {("img", "src"), ("img", "alt")}


def test_the_post_says_the_standings_and_history() -> None:
    view = views()[-1]
    names = {p["number"]: p["name"] for p in view["players"]}
    post = standings_post(view, "markdown")
    shown = Page(RENDERERS["markdown"]["commonmark"](post)).shown
    e1, e2 = view["episodes"]
    for p in view["players"]:
        garnets = f"{p['garnets']} garnet" + ("" if p["garnets"] == 1 else "s")
        status = f"eliminated in episode {p['eliminated_in']}" if p["eliminated_in"] else "still in"
        assert f"{p['name']}: {garnets}, " in shown and status in shown
    holder = names[e1["token_holder"]] if e1["token_holder"] else "nobody"
    assert (
        f"Episode 1: Main Match: Token of Life {holder}, Elimination Candidate "
        f"{names[e1['candidate']]}; Death Match: {names[e1['candidate']]} against "
        f"{names[e1['opponent']]}, {names[e1['loser']]} lost and is eliminated" in shown
    )
    assert shown.count("entered by the host") == 1 and e2["loser_by"] == "host"
    assert "the Token of Life's holder gets 2 garnets" in shown
    assert "Token of Life" in shown and "img" not in post  # no base URL: no picture
    stages = {
        label: standings_post(v, "markdown") for label, v in played(PLAIN_NAMES, PLAIN_SEASON)
    }
    assert "Episodes**: none" in stages["created"]
    assert "Main Match under way" in stages["main under way"]
    assert "has not chosen an opponent yet" in stages["main recorded"]
    assert "not made yet" in stages["opponent chosen"]
    assert ", under way" in stages["death under way"]
    spent = standings_post(with_token_spent(view), "bbcode")
    assert f"Death Match: none, token spent by {names[e2['candidate']]}" in spent
    with pytest.raises(Exception) as bad:
        standings_post(view, "html")
    assert "markdown or bbcode" in str(bad.value)


# ---- the picture ---------------------------------------------------------------------


def _parse(svg: str) -> ET.Element:
    return ET.fromstring(svg)


@pytest.mark.parametrize("names", [PLAIN_NAMES, HOSTILE_NAMES], ids=["plain", "hostile"])
def test_the_picture_is_accessible_xml_whatever_the_names(names: tuple[str, ...]) -> None:
    for view in views(names, HOSTILE_MATCH if names is HOSTILE_NAMES else PLAIN_SEASON):
        svg = garnets_svg(view)
        root = _parse(svg)
        assert root.get("role") == "img"
        ids = {el.get("id") for el in root.iter()}
        assert set(str(root.get("aria-labelledby")).split()) <= ids
        title, desc = root.find(f"{SVG}title"), root.find(f"{SVG}desc")
        assert title is not None and desc is not None
        assert "garnets over the season" in str(title.text)
        # only drawing elements, whatever the names held
        tags = {el.tag.removeprefix(SVG) for el in root.iter()}
        assert tags <= {"svg", "title", "desc", "rect", "text", "line", "g", "path", "circle"}
        texts = " ".join("".join(el.itertext()) for el in root.iter(f"{SVG}text"))
        for p in view["players"]:
            # the legend names each player (cut to its room: a start of the name)
            assert f"#{p['number']} {p['name'][:6].strip()}" in texts, p["name"]
            assert f"{p['name']} {p['garnets']}" in str(desc.text)
        groups = root.findall(f"{SVG}g")
        assert [int(str(g.get("data-player"))) for g in groups] == [
            p["number"] for p in view["players"]
        ]
        assert "ana@example.org" not in svg


def test_the_lines_go_by_episode_from_the_starting_garnets() -> None:
    """Point 0 is each player's starting garnets (with the host's entries made
    before any episode's results: player 6's entry and its correction), then
    one point after each recorded episode; not a staircase from 0 by entry."""
    stages = dict(played(PLAIN_NAMES, PLAIN_SEASON))
    start_garnets = {1: 5, 2: 4, 3: 3, 4: 2, 5: 1, 6: 0}
    start = {**start_garnets, 6: 0 + 10 - 7}
    # no episode recorded yet: one point, the starting garnets (then with the entries)
    assert balance_series(stages["created"]) == {n: [(0, g)] for n, g in start_garnets.items()}
    assert balance_series(stages["main under way"]) == {n: [(0, g)] for n, g in start.items()}
    after_one = balance_series(stages["main recorded"])
    assert {n: points[0] for n, points in after_one.items()} == {
        n: (0, g) for n, g in start.items()
    }
    assert all([i for i, _ in points] == [0, 1] for points in after_one.values())
    final = stages["episode 2 over"]
    series = balance_series(final)
    assert set(series) == {p["number"] for p in final["players"]}
    for p in final["players"]:
        points = series[p["number"]]
        assert [i for i, _ in points] == [0, 1, 2]
        assert points[0] == (0, start[p["number"]]) and points[-1] == (2, p["garnets"])
        # episode 1's point is the balance after episode 1 (the later entries are episode 2's)
        assert points[1][1] == balance_series(stages["episode 1 over"])[p["number"]][1][1]
    # the referee's entries of episode 1 moved someone: the lines are not flat
    assert any(points[0][1] != points[1][1] for points in series.values())


def test_the_picture_has_a_point_per_episode_and_an_episode_axis() -> None:
    final = views()[-1]
    root = _parse(garnets_svg(final))
    for group in root.findall(f"{SVG}g"):
        d = str(group.find(f"{SVG}path").get("d"))  # type: ignore[union-attr]
        assert d.startswith("M") and len(d.split(" L")) == 3, d  # start, episode 1, 2
    ticks = [t.text for t in root.iter(f"{SVG}text") if t.get("class") == "episode-tick"]
    assert ticks == ["start", "1", "2"]
    texts = [t.text for t in root.iter(f"{SVG}text")]
    assert "episode (garnets after it)" in texts and "ledger entries, in order" not in texts
    assert "after each of the season's 2 episodes" in str(root.find(f"{SVG}desc").text)  # type: ignore[union-attr]
    first = _parse(garnets_svg(views()[0]))
    assert [t.text for t in first.iter(f"{SVG}text") if t.get("class") == "episode-tick"] == [
        "start"
    ]


def test_an_entry_without_an_episode_counts_at_the_last_episode_before_it() -> None:
    view = {
        "players": [{"number": 1, "name": "A", "garnets": 0}],
        "episodes": [{"number": 1, "recorded": True}, {"number": 2, "recorded": False}],
        "ledger": [
            {"player": 1, "change": 5, "episode": None},  # starting garnets
            {"player": 1, "change": 2, "episode": None},  # a host's entry before episode 1
            {"player": 1, "change": 3, "episode": 1},
            {"player": 1, "change": -1, "episode": None},  # a correction during episode 2
        ],
    }
    assert balance_series(view) == {1: [(0, 7), (1, 9)]}


def test_the_picture_draws_as_png() -> None:
    from referee.web.pictures import svg_to_png

    png = svg_to_png(garnets_svg(views(HOSTILE_NAMES, HOSTILE_MATCH)[-1]))
    assert png.startswith(b"\x89PNG")


def test_the_biggest_season_draws_a_bounded_picture() -> None:
    """64 players, 63 episodes and 20,000 ledger entries: the picture stays
    small (a point per episode on each line), its height grows with the players."""
    players = [
        {"number": n, "name": "W" * 100, "garnets": 0, "tokens": 0, "eliminated_in": None}
        for n in range(1, 65)
    ]
    ledger = []
    totals = dict.fromkeys(range(1, 65), 0)
    for i in range(20_000):
        player, change = i % 64 + 1, (1 if i % 3 else -2) * (i % 7 + 1)
        totals[player] += change
        ledger.append({"id": i + 1, "player": player, "change": change, "episode": i // 317})
    for p in players:
        p["garnets"] = totals[p["number"]]
    view = {"id": "big", "name": "W" * 200, "version": 1, "players": players, "ledger": ledger}
    svg = garnets_svg(view)
    root = _parse(svg)
    assert int(str(root.get("width"))) == WIDTH and int(str(root.get("height"))) < 1600
    assert len(svg) < 3_000_000
    for group in root.findall(f"{SVG}g"):  # a point per episode (63 of them) and the start
        d = str(group.find(f"{SVG}path").get("d"))  # type: ignore[union-attr]
        assert len(d.split(" L")) == 64


# ---- the ledger -----------------------------------------------------------------------


def test_safe_cells() -> None:
    for text in ("=1+1", "+1", "-1+2", "@SUM(A1)", "\t=1", "\rx"):
        assert safe_cell(text) == "'" + text
    assert safe_cell("\r=1") == "'\r'=1"  # a line break may start a cell too
    assert safe_cell("x;=1,+2; @3") == "x;'=1,'+2; '@3"
    assert safe_cell('x;"=1') == "x;\"'=1" and safe_cell("x\n-1") == "x\n'-1"
    assert safe_cell(-9) == "-9" and safe_cell(0) == "0" and safe_cell(None) == ""
    assert safe_cell("Ana =1") == "Ana =1" and safe_cell("'x") == "'x"


def test_the_ledger_as_csv() -> None:
    view = views(("=cmd|' /C calc'!A0", "+Bo", "-Cy", "@Di", "Ed", "Flo"), "S")[-1]
    rows = list(csv.reader(io.StringIO(ledger_csv(view))))
    assert tuple(rows[0]) == CSV_COLUMNS
    assert len(rows) == len(view["ledger"]) + 1
    body = [dict(zip(CSV_COLUMNS, r, strict=True)) for r in rows[1:]]
    for cell in (c for r in body for c in r.values()):
        assert not cell.startswith(("=", "+", "@", "\t", "\r")), cell
        assert not cell.startswith("-") or re.fullmatch(r"-\d+", cell), cell
    names = {str(p["number"]): p["name"] for p in view["players"]}
    running: dict[str, int] = {}
    for row, entry in zip(body, view["ledger"], strict=True):
        running[row["player"]] = running.get(row["player"], 0) + int(row["change"])
        assert int(row["balance"]) == running[row["player"]]
        assert row["name"] == "'" + names[row["player"]] or names[row["player"]] in ("Ed", "Flo")
        assert row["id"] == str(entry["id"]) and row["created_at"] == entry["created_at"]
        assert row["corrects"] == ("" if entry["corrects"] is None else str(entry["corrects"]))
    assert {r["reason"] for r in body} >= {'\'=HYPERLINK("x")', "'+typo, should be 3"}
    assert any(r["change"] == "-7" for r in body)  # a negative number stays a number
    assert any(r["entered_by"] == "referee" for r in body)


def test_the_ledger_as_json() -> None:
    view = views()[-1]
    data = json.loads(json.dumps(ledger_json(view)))
    assert data["season"] == view["id"] and data["version"] == view["version"]
    assert data["balances"] == {str(p["number"]): p["garnets"] for p in view["players"]}
    assert [e["id"] for e in data["entries"]] == [e["id"] for e in view["ledger"]]
    assert data["entries"][-1]["balance"] == data["balances"][str(view["ledger"][-1]["player"])]
    assert data["entries"][0]["name"] == "Ana"
    fix = next(e for e in data["entries"] if e["corrects"] is not None)
    assert fix["change"] == -7 and fix["reason"] == "+typo, should be 3"  # data, as typed
    assert "ana@example.org" not in json.dumps(data)


# ---- CSV injection under either separator (issue 22) ---------------------------------

FORMULA_CHARS = ("=", "+", "-", "@", "\t", "\r")
HOSTILE_CELLS = (
    'x;=HYPERLINK("http://evil","y")',
    "a,+1+1",
    "b; @SUM(A1)",
    'c;"=1+1"',
    'd,  "-2+3',
    "e;\t=1",
    "f;\r=1",
    "g\n=1",
    "h\r\n@x",
    ";=;+;-;@",
    '","=1',
    "=;=,=",
)


def parsed_cells(text: str, delimiter: str) -> list[str]:
    """Every cell of ``text`` as a spreadsheet splitting on ``delimiter`` reads it."""
    rows = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
    return [cell for row in rows for cell in row]


def assert_runs_nowhere(text: str) -> None:
    """No cell, split on ``,`` or on ``;``, starts with a formula character
    (a whole integer, written by us, is a number: ``-7`` cannot run)."""
    for delimiter in (",", ";"):
        for cell in parsed_cells(text, delimiter):
            assert not cell.startswith(FORMULA_CHARS) or re.fullmatch(r"-\d+", cell), (
                delimiter,
                cell,
                text,
            )


def with_entries(view: dict[str, Any], reasons: tuple[str, ...]) -> dict[str, Any]:
    """``view`` with one more ledger entry per reason (player 1, -7 garnets)."""
    out = copy.deepcopy(view)
    last = out["ledger"][-1]
    for i, reason in enumerate(reasons, start=1):
        out["ledger"].append(
            {
                **last,
                "id": last["id"] + i,
                "player": 1,
                "change": -7,
                "reason": reason,
                "corrects": None,
            }
        )
    return out


def test_no_cell_starts_a_formula_under_either_separator() -> None:
    """Issue 22: ``x;=HYPERLINK(...)`` became a cell starting with ``=`` in a
    spreadsheet splitting on ``;``. Hostile reasons and names, through the
    service's season, split on ``,`` and on ``;``."""
    names = ("Ana;=1+1", "Bo,@SUM(A1)", 'Cy;"+1', "Di; -2+3", "Ed", "Flo")
    view = with_entries(views(names, "S;=1")[-1], HOSTILE_CELLS)
    text = ledger_csv(view)
    assert_runs_nowhere(text)
    rows = list(csv.reader(io.StringIO(text, newline="")))
    assert len(rows) == len(view["ledger"]) + 1  # still one row per entry
    reasons = [dict(zip(CSV_COLUMNS, r, strict=True))["reason"] for r in rows[1:]]
    assert 'x;\'=HYPERLINK("http://evil","y")' in reasons  # the text itself is kept


@given(
    name=st.text(alphabet="=+-@\t\r\n;,\"' xA1", min_size=1, max_size=12),
    reason=st.text(alphabet="=+-@\t\r\n;,\"' xA1", min_size=1, max_size=12),
)
@settings(max_examples=300, deadline=None)
def test_no_text_makes_a_cell_that_runs(name: str, reason: str) -> None:
    view = {
        "id": "s",
        "name": "S",
        "version": 1,
        "players": [{"number": 1, "name": name, "garnets": -7}],
        "ledger": [
            {
                "id": 1,
                "player": 1,
                "change": -7,
                "reason": reason,
                "episode": None,
                "match_id": None,
                "created_at": "2026-11-01T12:00:00Z",
                "entered_by": "host",
                "corrects": None,
            }
        ],
    }
    assert_runs_nowhere(ledger_csv(view))
