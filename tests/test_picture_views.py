"""The pictures of one viewer's view (the ruleset's map_svg(view) and
results_svg(view)): they show what that viewer may see (R11) and nothing more."""

from __future__ import annotations

import copy
import json
import re
import xml.etree.ElementTree as ET
from itertools import pairwise
from typing import Any

import pytest
from conftest import GOLDEN

from referee.ruleset import GameState, Setup, Viewer, get_ruleset
from referee.rulesets.rocky_river.data import load_bundled_map, load_deck
from referee.rulesets.rocky_river.picture import score_chart_svg
from referee.rulesets.rocky_river.view_pictures import decided_text, scores_by_round

SVG = "{http://www.w3.org/2000/svg}"
RULES = get_ruleset("rocky-river")
RIVER = load_bundled_map("three-rapids")
DECK = load_deck()


def golden(case: str) -> dict[str, Any]:
    doc: dict[str, Any] = json.loads((GOLDEN / f"{case}.match.json").read_text())
    return doc


def upto(doc: dict[str, Any], closed: int) -> dict[str, Any]:
    """The match file as it is once ``closed`` rounds have closed."""
    out = {k: v for k, v in doc.items() if k not in ("placements", "votes")}
    if closed >= 2:
        out["placements"] = doc["placements"]
        out["votes"] = doc["votes"][: closed - 2]
    return out


def view_of(
    doc: dict[str, Any],
    viewer: Viewer,
    *,
    closed: int = 5,
    publish_totals: bool = False,
    revealed: bool = False,
) -> dict[str, Any]:
    """A view as referee.views.view_for makes it, for the parts pictures read."""
    part = upto(doc, closed)
    result = RULES.resolve(part, details=True)
    settings = {"publish_totals": publish_totals}
    return {
        "id": "abc123",
        "name": "Picture test",
        "ruleset": "rocky-river",
        "viewer": {"kind": viewer.kind, "seat": viewer.seat},
        "map": RIVER.to_json(),
        "players": doc["players"],
        "closed_rounds": closed,
        "revealed": revealed,
        "result": RULES.view(
            GameState(Setup(doc["players"], {"map": RIVER.to_json()}), settings, closed, result),
            viewer,
            revealed=revealed,
            open_step=None,
        )["result"],
    }


def branches(svg: str) -> dict[str, ET.Element]:
    root = ET.fromstring(svg)
    return {g.attrib["data-branch"]: g for g in root.iter(f"{SVG}g") if "data-branch" in g.attrib}


def words(el: ET.Element) -> str:
    return " ".join("".join(t.itertext()) for t in el.iter(f"{SVG}text"))


def own_cards(el: ET.Element) -> list[str]:
    return [
        t.text or ""
        for g in el.iter(f"{SVG}g")
        if g.attrib.get("class") == "own-cards"
        for t in g.iter(f"{SVG}text")
    ]


# ---- the map ------------------------------------------------------------------------


@pytest.mark.parametrize("seat", [1, 2, 3])
def test_a_seat_sees_its_own_placements_as_cards_and_no_one_elses(seat: int) -> None:
    doc = golden("01-full-game")
    svg = RULES.pictures()["map"](view_of(doc, Viewer.of_seat(seat), closed=2))
    drawn = branches(svg)
    mine: dict[str, list[str]] = {}
    for card, branch in doc["placements"][str(seat)].items():
        value = DECK.by_id[card].value_for(RIVER.branches[branch].color)
        assert value is not None
        mine.setdefault(branch, []).append(f"{card} {value:+d}" if value else f"{card} 0")
    for bid, el in drawn.items():
        shown = own_cards(el)
        if bid not in mine:
            assert shown == [], (bid, shown)
            continue
        title = el.find(f"{SVG}title")
        assert title is not None and "your cards here" in (title.text or "")
        # every own card is named in the title; those that fit are drawn as cards
        for text in mine[bid]:
            assert text in (title.text or "")
        assert shown and all(s in mine[bid] or re.fullmatch(r"\+\d", s) for s in shown)
    others = {card for s in ("1", "2", "3") if s != str(seat) for card in doc["placements"][s]}
    all_cards = " ".join(t for el in drawn.values() for t in own_cards(el))
    for card in others:
        assert not re.search(rf"(^|\s){card} [+-]?\d", all_cards), card
    # nothing passed yet: every total is unknown to a seat
    assert all("total ?" in words(el) for el in drawn.values())


def test_the_public_map_shows_only_passed_totals_unless_published() -> None:
    doc = golden("01-full-game")
    for closed in (2, 3, 4, 5):
        view = view_of(doc, Viewer.public(), closed=closed)
        path = view["result"].get("path", [])
        assert len(path) == 3 * (closed - 2)
        drawn = branches(RULES.pictures()["map"](view))
        passed = {s["branch"]: s["points"] for s in path}
        for bid, el in drawn.items():
            text = words(el)
            if bid in passed:
                assert f"total {passed[bid]:+d}" in text or f"total {passed[bid]}" in text
                assert "passed" in el.attrib["class"].split()
            else:
                assert "total ?" in text, (closed, bid, text)
                assert re.search(r"total [+-]?\d", text) is None
            assert own_cards(el) == []  # the public never sees a placement
    published = view_of(doc, Viewer.public(), closed=2, publish_totals=True)
    totals = published["result"]["branch_totals"]
    drawn = branches(RULES.pictures()["map"](published))
    for bid, el in drawn.items():
        value = totals[bid]
        assert f"total {value:+d}" in words(el) or (value == 0 and "total 0" in words(el))


def test_the_host_sees_every_total_but_no_cards() -> None:
    doc = golden("01-full-game")
    view = view_of(doc, Viewer.host(), closed=3)
    drawn = branches(RULES.pictures()["map"](view))
    assert not any("total ?" in words(el) for el in drawn.values())
    assert all(own_cards(el) == [] for el in drawn.values())


def test_the_map_draws_the_path_and_every_players_directions() -> None:
    doc = golden("01-full-game")
    view = view_of(doc, Viewer.public(), closed=4)
    root = ET.fromstring(RULES.pictures()["map"](view))
    votes = [t.text or "" for t in root.iter(f"{SVG}text") if t.attrib.get("class") == "votes"]
    assert len(votes) == 6
    names = {p["seat"]: p["name"] for p in doc["players"]}
    first = doc["votes"][0]
    assert votes[0] == " · ".join(f"{names[int(s)]} {first[s][0]}" for s in sorted(first))
    assert "6 of 9 forks passed" in (root.find(f"{SVG}title").text or "")  # type: ignore[union-attr]


# ---- the results --------------------------------------------------------------------


def test_no_results_picture_before_a_rafting_round_closed() -> None:
    doc = golden("01-full-game")
    for closed in (1, 2):  # after the draft, after mapping
        assert RULES.pictures()["results"](view_of(doc, Viewer.public(), closed=closed)) is None
    nothing = view_of(doc, Viewer.public(), closed=1)
    nothing["result"] = {}  # no round closed
    assert RULES.pictures()["results"](nothing) is None
    assert "total ?" in RULES.pictures()["map"](nothing)


def test_results_in_progress_show_standings_and_the_chart_so_far() -> None:
    doc = golden("01-full-game")
    view = view_of(doc, Viewer.public(), closed=3)
    svg = RULES.pictures()["results"](view)
    assert svg is not None
    root = ET.fromstring(svg)
    assert root.attrib["data-rounds-closed"] == "1"
    text = " ".join("".join(t.itertext()) for t in root.iter(f"{SVG}text"))
    assert "Standings after rafting round 1 of 3" in text
    assert "Token of Life" not in text and "Elimination Candidate" not in text
    assert "2 rafting rounds to go" in text
    charts = [s for s in root.iter(f"{SVG}svg") if s.attrib.get("class") == "score-chart"]
    assert len(charts) == 1
    series = [g for g in charts[0].iter(f"{SVG}g") if g.attrib.get("class") == "series"]
    assert len(series) == 3


@pytest.mark.parametrize("case", ["01-full-game", "02-ties"])
def test_final_results_show_token_of_life_and_elimination_candidate(case: str) -> None:
    doc = golden(case)
    expected = json.loads((GOLDEN / f"{case}.expected.json").read_text())
    view = view_of(doc, Viewer.public())
    svg = RULES.pictures()["results"](view)
    assert svg is not None
    root = ET.fromstring(svg)
    by_class = {
        t.attrib["class"]: "".join(t.itertext())
        for t in root.iter(f"{SVG}text")
        if "class" in t.attrib
    }
    names = {p["seat"]: p["name"] for p in doc["players"]}
    tol = expected["token_of_life"]
    if tol is None:
        assert by_class["token-of-life"] == "Token of Life: nobody (the highest score is shared)"
    else:
        assert by_class["token-of-life"] == f"Token of Life: {names[tol]} (seat {tol})"
    ec = expected["elimination_candidate"]
    assert by_class["elimination-candidate"] == (
        f"Elimination Candidate: {names[ec['seat']]} (seat {ec['seat']})"
    )
    assert by_class["decided-by"].startswith(f"decided by {ec['decided_by']}")
    standings = {
        g.attrib["data-seat"]: g
        for g in root.iter(f"{SVG}g")
        if g.attrib.get("class") == "standing"
    }
    assert set(standings) == {"1", "2", "3"}
    for seat, g in standings.items():
        assert f"{names[int(seat)]} (seat {seat})" in words(g)
        score = expected["scores"][seat]
        assert (f"+{score}" if score > 0 else str(score)) in words(g)
        assert str(expected["control"][seat]) in words(g)
    assert ("Elimination Candidate" in words(standings[str(ec["seat"])])) is True
    if tol is not None:
        assert "Token of Life" in words(standings[str(tol)])


def test_scores_by_round_add_up_to_the_final_scores() -> None:
    doc = golden("01-full-game")
    expected = json.loads((GOLDEN / "01-full-game.expected.json").read_text())
    rounds = scores_by_round(expected["path"], [1, 2, 3])
    assert len(rounds) == 3
    assert {str(s): v for s, v in rounds[-1].items()} == expected["scores"]
    first = {1: 0, 2: 0, 3: 0}
    for step in expected["path"]:
        if step["segment"] == 1:
            first[step["seat"]] += step["points"]
    assert rounds[0] == first
    assert doc["votes"]  # the golden file is a full match


def test_how_the_elimination_candidate_was_decided_reads_well() -> None:
    names = {1: "Ana", 2: "Bo", 3: "Cy"}
    assert decided_text("score", 3, [3], names) == "decided by score: the single lowest score"
    assert "tied on the lowest score with Bo, lowest control" in decided_text(
        "control", 1, [1, 2], names
    )
    assert "fewest garnets" in decided_text("garnets", 1, [1, 2], names)
    assert "seeded draw" in decided_text("draw", 1, [1, 2, 3], names)


def test_player_names_are_escaped_in_both_pictures() -> None:
    doc = copy.deepcopy(golden("01-full-game"))
    doc["players"][0]["name"] = "<script>x</script>"
    view = view_of(doc, Viewer.public())
    for svg in (RULES.pictures()["map"](view), RULES.pictures()["results"](view)):
        assert svg is not None
        assert "<script>" not in svg
        ET.fromstring(svg)


def test_chart_labels_of_equal_scores_do_not_overlap() -> None:
    names = {1: "Ana", 2: "Bo", 3: "Cy"}
    svg = score_chart_svg(names, [{1: 1, 2: 4, 3: 0}, {1: 1, 2: 1, 3: 1}], rounds=2)
    root = ET.fromstring(svg)
    ys = []
    for g in root.iter(f"{SVG}g"):
        if g.attrib.get("class") == "series":
            label = [t for t in g.iter(f"{SVG}text")][-1]
            assert (label.text or "").endswith("+1")
            ys.append(float(label.attrib["y"]))
    ys.sort()
    assert len(ys) == 3 and all(b - a >= 16 for a, b in pairwise(ys))
    assert ys[-1] <= float(root.attrib["height"])
