"""The Forks pictures (the ruleset's ``board`` and ``scores``) of public views
made through the service (see test_post.played): what each shows, that it
shows nothing but what the view holds, and that user text can neither break
the XML nor overflow the picture."""

from __future__ import annotations

import copy
import struct
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from referee.picture import clean
from referee.ruleset import get_ruleset
from referee.rulesets.forks_2e.cards import DEFAULT_NAMES, DESTINATIONS, destination, value
from referee.rulesets.forks_2e.picture import (
    BOARD_W,
    CARDS_X,
    NAME_PX,
    SCORES_W,
    board_svg,
    scores_svg,
)
from referee.web.pictures import svg_to_png

from .test_post import NAMES, SIZE_IDS, SIZES, played, public_cards

SVG = "{http://www.w3.org/2000/svg}"
MINUS = "\u2212"
FONTS = Path("/usr/share/fonts/truetype/dejavu")


def root_of(svg: str | None) -> ET.Element:
    assert svg is not None
    root = ET.fromstring(svg)  # well-formed XML
    assert root.tag == f"{SVG}svg"
    assert root.attrib["role"] == "img" and root.attrib["aria-label"]
    title = root.find(f"{SVG}title")
    assert title is not None and title.text
    return root


def words(el: ET.Element) -> str:
    return " ".join("".join(t.itertext()) for t in el.iter(f"{SVG}text"))


def groups(root: ET.Element, cls: str) -> list[ET.Element]:
    return [g for g in root.iter(f"{SVG}g") if g.attrib.get("class") == cls]


def texts(root: ET.Element, cls: str) -> list[str]:
    return ["".join(t.itertext()) for t in root.iter(f"{SVG}text") if t.attrib.get("class") == cls]


def png_size(png: bytes) -> tuple[int, int]:
    assert png.startswith(b"\x89PNG\r\n\x1a\n")
    width, height = struct.unpack(">II", png[16:24])
    return width, height


# ---- the marketing board ---------------------------------------------------------


@pytest.mark.parametrize(("seats", "merge"), SIZES, ids=SIZE_IDS)
def test_the_board_shows_every_destination_its_cards_and_total_in_ranking_order(
    seats: int, merge: bool
) -> None:
    for snap in played(seats, merge):
        view, result = snap.public, snap.public["result"]
        root = root_of(board_svg(view))
        assert root.attrib["width"] == str(BOARD_W)
        rows = groups(root, "destination")
        ranking = result.get("ranking") or result["ranking_so_far"]
        assert [g.attrib["data-destination"] for g in rows] == ranking, snap.label
        in_marketing = public_cards(result)
        for rank, (g, dest) in enumerate(zip(rows, ranking, strict=True), start=1):
            total = result["marketing_totals"][dest]
            assert g.attrib["data-rank"] == str(rank)
            assert g.attrib["data-part"] == ("top" if rank <= 3 else "bottom")
            assert texts(g, "total") == [str(total)]
            assert texts(g, "sign") == ["+" if rank <= 3 else MINUS]
            assert texts(g, "name") == [DEFAULT_NAMES[dest]]
            assert f"{dest}, " in words(g)  # the colour in words, not only in colour
            # exactly this destination's cards in marketing, each showing its value
            cards = [c for c in g.iter(f"{SVG}g") if c.attrib.get("class") == "card"]
            shown = sorted(c.attrib["data-card"] for c in cards)
            assert shown == sorted(c for c in in_marketing if destination(c) == dest), snap.label
            for c in cards:
                assert str(value(c.attrib["data-card"])) in words(c).split()
            assert sum(value(c) for c in shown) == total
            if not shown:
                assert "no cards yet" in words(g)
        assert len(groups(root, "card")) == len(in_marketing)
        # nothing but marketing: no hand's card (they are not in the view before the end)
        for hand in (snap.host["result"].get("hands") or {}).values():
            assert not set(hand) & {c.attrib["data-card"] for c in groups(root, "card")}


def _row_y(g: ET.Element) -> float:
    rect = g.find(f"{SVG}rect")
    assert rect is not None
    return float(rect.attrib["y"])


def test_the_line_between_top_and_bottom_sits_between_the_third_and_fourth() -> None:
    for snap in played(4):
        root = root_of(board_svg(snap.public))
        (line_group,) = groups(root, "top-bottom-line")
        assert "top three: score +" in words(line_group)
        assert f"bottom two: score {MINUS}" in words(line_group)
        line = line_group.find(f"{SVG}line")
        assert line is not None
        y = float(line.attrib["y1"])
        rows = groups(root, "destination")
        assert all(_row_y(g) + 50 < y for g in rows[:3])
        assert all(_row_y(g) > y for g in rows[3:])


def test_the_board_writes_out_the_tiebreak_and_the_state() -> None:
    snapshots = played(5)
    labels = []
    for snap in snapshots:
        root = root_of(board_svg(snap.public))
        tiebreak = texts(root, "tiebreak")[0]
        order = snap.public["settings"]["tiebreak"]
        places = [tiebreak.index(f"{i}. {DEFAULT_NAMES[d]} ({d})") for i, d in enumerate(order, 1)]
        assert places == sorted(places)
        labels.append(root.attrib["aria-label"])
    assert "at the start: the initial marketing" in labels[0]
    assert "after market step 1 of 3" in labels[4]
    assert "final" in labels[-1]
    assert "The top three destinations score plus, the bottom two score minus." in labels[0]


def test_the_newest_cards_are_marked_in_words() -> None:
    snapshots = played(2)
    assert not [
        c
        for c in groups(root_of(board_svg(snapshots[0].public)), "card")
        if c.attrib["data-new"] == "1"
    ]
    after = snapshots[4].public  # the second market step has closed
    result = after["result"]
    root = root_of(board_svg(after))
    new = {c.attrib["data-card"] for c in groups(root, "card") if c.attrib["data-new"] == "1"}
    assert new == {*result["marketed"][-1], result["revealed"][-1]}
    for card in groups(root, "card"):
        assert ("new" in words(card).split()) == (card.attrib["data-card"] in new)
    assert "joined marketing in the last market step" in " ".join(texts(root, "legend"))


def test_renamed_destinations_are_drawn_with_their_names_and_ids() -> None:
    names = (("blue", "Harbour"), ("red", "Rouge Town"))
    root = root_of(board_svg(played(3, destination_names=names)[-1].public))
    by_dest = {g.attrib["data-destination"]: g for g in groups(root, "destination")}
    assert texts(by_dest["blue"], "name") == ["Harbour"]
    assert texts(by_dest["red"], "name") == ["Rouge Town"]
    assert texts(by_dest["grey"], "name") == ["Greysteel City"]
    assert "blue, " in words(by_dest["blue"])


def test_the_pictures_are_the_same_for_the_same_view() -> None:
    """Deterministic: two matches played alike (different ids) draw alike."""
    one = played(4)[-1].public
    two = played.__wrapped__(4)[-1].public  # a second match, not the cached one
    assert one["id"] != two["id"]
    assert board_svg(one) == board_svg(copy.deepcopy(one)) == board_svg(two)
    assert scores_svg(one) == scores_svg(two)


# ---- the score chart -----------------------------------------------------------


@pytest.mark.parametrize(("seats", "merge"), SIZES, ids=SIZE_IDS)
def test_the_score_chart_waits_for_the_end_then_shows_every_score(seats: int, merge: bool) -> None:
    snapshots = played(seats, merge)
    for snap in snapshots[:-1]:
        assert scores_svg(snap.public) is None, snap.label
    view = snapshots[-1].public
    result = view["result"]
    root = root_of(scores_svg(view))
    assert root.attrib["width"] == str(SCORES_W)
    rows = groups(root, "player")
    assert sorted(int(g.attrib["data-seat"]) for g in rows) == list(range(1, seats + 1))
    zero = next(el for el in root.iter(f"{SVG}line") if el.attrib.get("class") == "zero-line")
    zero_x = float(zero.attrib["x1"])
    scores = [int(g.attrib["data-score"]) for g in rows]
    assert scores == sorted(scores, reverse=True)  # highest first
    for g in rows:
        seat = int(g.attrib["data-seat"])
        score = result["scores"][str(seat)]
        assert int(g.attrib["data-score"]) == score
        assert texts(g, "name") == [NAMES[seat - 1]]
        shown = f"+{score}" if score > 0 else (f"{MINUS}{-score}" if score < 0 else "0")
        assert texts(g, "score") == [shown]
        bars = [r for r in g.iter(f"{SVG}rect") if r.attrib.get("height") == "22"]
        if score == 0:
            assert not bars
        else:
            (bar,) = bars
            left, width = float(bar.attrib["x"]), float(bar.attrib["width"])
            if score > 0:  # positive bars go right of the zero line, negative ones left
                assert abs(left - zero_x) < 0.2
            else:
                assert abs(left + width - zero_x) < 0.2
        badge = texts(g, "badge")
        if seat == result["token_of_life"]:
            assert badge == ["\u2605 Token of Life"]
        elif seat == result["elimination_candidate"]["seat"]:
            assert badge == ["\u2715 Elimination Candidate"]
        else:
            assert badge == []
    ec = result["elimination_candidate"]
    (ec_text,) = texts(root, "elimination-candidate")
    assert ec_text.startswith(f"Elimination Candidate: {NAMES[ec['seat'] - 1]} (seat {ec['seat']})")
    assert f"decided by {ec['decided_by']}" in ec_text
    (tol_text,) = texts(root, "token-of-life")
    tol = result["token_of_life"]
    if tol is not None:
        assert tol_text.startswith(f"Token of Life: {NAMES[tol - 1]} (seat {tol})")


@pytest.mark.parametrize(
    ("seed", "garnets", "by"), [("tie-18", (2, 1, 5), "garnets"), ("tie-67", (1, 1, 1), "draw")]
)
def test_the_score_chart_says_how_a_tie_was_decided(
    seed: str, garnets: tuple[int, int, int], by: str
) -> None:
    view = played(3, seed=seed, garnets=garnets, default_last=False)[-1].public
    result = view["result"]
    assert result["elimination_candidate"]["decided_by"] == by
    root = root_of(scores_svg(view))
    ec_text = " ".join(texts(root, "elimination-candidate"))
    seat = result["elimination_candidate"]["seat"]
    if by == "garnets":
        assert "decided by garnets:" in ec_text and "tied on the lowest score" in ec_text
        assert (
            f"{NAMES[seat - 1]} (seat {seat}) has the fewest garnets ({garnets[seat - 1]})"
            in ec_text
        )
    else:
        assert "decided by draw:" in ec_text
        assert f"a seeded draw chose {NAMES[seat - 1]} (seat {seat})" in ec_text
        assert "nobody" in " ".join(texts(root, "token-of-life"))
        assert not [t for t in texts(root, "badge") if "Token" in t]


def test_the_ruleset_draws_both_pictures_and_the_pngs_have_their_size() -> None:
    view = played(4)[-1].public
    pictures = get_ruleset("forks-2e").pictures()
    for name, width in (("board", BOARD_W), ("scores", SCORES_W)):
        svg = pictures[name](view)
        assert svg is not None
        w, h = png_size(svg_to_png(svg))
        assert w == width and h == int(float(root_of(svg).attrib["height"])) and 300 < h < 700


# ---- hostile names -----------------------------------------------------------------

HOSTILE = [
    "<script>alert(1)</script>",
    "Tom & Jerry &amp; &#60;",
    "]]> <![CDATA[x]]>",
    "\u200fRTL mark\u200f \u05e9\u05dc\u05d5\u05dd \u202eoverride",
    "W" * 100,
    "M@W%" * 25,
    "Line\nbreak\rand\ttab\x00nul\x85",
    "Z\u0301\u0302\u0303\u0304\u0305\u0306\u0307\u0308algo",
    "\ud800lone surrogate \uffff",
]


def hostile_view(text: str) -> dict[str, Any]:
    """The finished public view of a 6-player match with every user string (the
    match's, the players' and the destinations' names) replaced by ``text``:
    made past the input checks, as data stored before them may be."""
    view = copy.deepcopy(played(6, True)[-1].public)
    view["name"] = text * 3
    for p in view["players"]:
        p["name"] = text
    view["settings"]["names"] = dict.fromkeys(DESTINATIONS, text)
    return view


def _text_ok(s: str) -> bool:
    return all(
        c >= " " and not "\ud800" <= c <= "\udfff" and c not in "\ufffe\uffff\x85" for c in s
    )


@pytest.mark.parametrize("text", HOSTILE)
def test_hostile_names_are_escaped_on_one_line_and_cut_to_their_room(text: str) -> None:
    view = hostile_view(text)
    expected = clean(text)
    for draw, width in ((board_svg, BOARD_W), (scores_svg, SCORES_W)):
        svg = draw(view)
        root = root_of(svg)  # parses: nothing broke out of its text
        assert svg is not None and "<script" not in svg and "<![CDATA" not in svg
        assert root.attrib["width"] == str(width) and float(root.attrib["height"]) < 800
        assert len(svg) < 40_000 and len(root.attrib["aria-label"]) < 1200
        for el in root.iter(f"{SVG}text"):
            shown = "".join(el.itertext())
            assert _text_ok(shown), repr(shown)
            assert "\u202e" not in shown
        names = texts(root, "name")
        assert names and len(set(names)) == 1
        (name,) = set(names)
        # a start of the cleaned name, with an ellipsis when it was cut
        assert name == expected or (
            name.endswith("\u2026") and expected.startswith(name[:-1].rstrip())
        ), (name, expected)
        assert len(name) <= 40
    if len(text) > 30:
        (name,) = set(texts(root_of(board_svg(view)), "name"))
        assert name.endswith("\u2026")


def test_names_cut_to_their_column_fit_it_when_drawn() -> None:
    """Measured with the font the pictures name first (DejaVu Sans), the cut
    names fit their column: the board's before the cards, the chart's before
    the bars."""
    image_font = pytest.importorskip("PIL.ImageFont")
    bold = FONTS / "DejaVuSans-Bold.ttf"
    if not bold.exists():
        pytest.skip("DejaVu Sans Bold is not installed")
    for text in ["W" * 100, "M@W%" * 25, "mmmmwwww" * 12, "Ab1 " * 30]:
        view = hostile_view(text)
        board = root_of(board_svg(view))
        (name,) = set(texts(board, "name"))
        width = image_font.truetype(str(bold), 15).getlength(name)
        assert width <= NAME_PX and 66 + width < CARDS_X, (text, width)
        chart = root_of(scores_svg(view))
        (player,) = set(texts(chart, "name"))
        assert image_font.truetype(str(bold), 14).getlength(player) <= 226, text
        title = "".join(next(board.iter(f"{SVG}text")).itertext())
        assert 20 + image_font.truetype(str(bold), 20).getlength(title) <= BOARD_W - 12
