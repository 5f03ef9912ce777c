"""The forts picture (picture.forts_svg): drawn from every golden example's
final state and from every state of random matches, it parses as XML, has a
title, shows each player's name once and escaped, and draws exactly the view's
forts: each space's visible card and stack height, each army with its owner
and direction, each dungeon's count and top arrows, the drawbridge tokens,
the points and the front lines (FO4). It draws no hand: the picture drawn from
a seat's view is the public one, byte for byte, and no hand card of a seat
shows in its panel."""

from __future__ import annotations

import copy
import json
import random
import re
import xml.etree.ElementTree as ET
from collections.abc import Mapping
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape

import pytest

from referee.rulesets.forfort.cards import default_card_set
from referee.rulesets.forfort.fort import SPACES, front_line, step
from referee.rulesets.forfort.match import detail_json, parse_match, play
from referee.rulesets.forfort.orders import play_turn
from referee.rulesets.forfort.picture import card_set_of, forts_column_svg, forts_svg
from referee.rulesets.forfort.randomplay import random_order
from referee.rulesets.forfort.state import Table, start
from referee.rulesets.forfort.view import public_result, view

GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "forfort"
CASES = sorted(GOLDEN.glob("*.match.json"))
NS = "{http://www.w3.org/2000/svg}"
HOSTILE = "<b>&\"Ana'</script>"


def load(path: Path) -> dict[str, Any]:
    doc: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return doc


def hostile(doc: Mapping[str, Any]) -> dict[str, Any]:
    """The match file with seat 1 renamed to a name full of markup."""
    out = copy.deepcopy(dict(doc))
    out["players"][0]["name"] = HOSTILE
    return out


def service_view(
    doc: Mapping[str, Any], table: Table, details: Mapping[str, Any], viewer: Any
) -> dict[str, Any]:
    """A viewer's view as the service gives it: the game's part (view.view)
    with the match's name and players."""
    return {
        "name": "Fort <match> & co",
        "players": copy.deepcopy(doc["players"]),
        **view(table, details, viewer),
    }


def views_of(doc: Mapping[str, Any]) -> tuple[dict[str, Any], dict[int, dict[str, Any]]]:
    """The public view and each seat's view of a match file's state."""
    spec = parse_match(doc)
    table = play(spec)
    details = detail_json(table, spec)
    public = service_view(doc, table, details, "public")
    seats = {s: service_view(doc, table, details, s) for s in table.seat_numbers()}
    return public, seats


def attrs(root: ET.Element, cls: str) -> list[dict[str, str]]:
    return [dict(el.attrib) for el in root.iter() if el.get("class") == cls]


def texts(el: ET.Element) -> list[str]:
    return ["".join(t.itertext()) for t in el.iter(f"{NS}text")]


def panel(root: ET.Element, seat: int) -> ET.Element:
    found = [el for el in root.iter(f"{NS}g") if el.get("class") == "fort"]
    mine = [el for el in found if el.get("data-seat") == str(seat)]
    assert len(mine) == 1
    return mine[0]


def check_picture(svg: str | None, v: Mapping[str, Any]) -> ET.Element:
    """Every check of the picture ``svg`` against the view ``v`` it was drawn from."""
    assert svg is not None
    root = ET.fromstring(svg)
    assert root.tag == f"{NS}svg" and root.get("role") == "img"
    assert root.get("viewBox") == f"0 0 {root.get('width')} {root.get('height')}"
    title = root.find(f"{NS}title")
    assert title is not None and (title.text or "").startswith("Forts of ")
    assert root.get("aria-label") == title.text
    # nothing from outside, nothing that runs
    assert not re.search(r"<script|<image|href|url\(|<foreignObject", svg)
    sizes = [float(s) for s in re.findall(r'font-size="([0-9.]+)"', svg)]
    assert sizes and min(sizes) >= 11
    result = v["result"]
    seats = sorted(int(s) for s in result["forts"])
    n = len(seats)
    # each name once, escaped; markup in a name never becomes markup
    for player in v["players"]:
        name = player["name"]
        assert svg.count(escape(name)) == 1, name
        if escape(name) != name:
            assert name not in svg
        own = texts(panel(root, player["seat"]))
        assert any(t.endswith(f"Seat {player['seat']} \u00b7 {name}") for t in own)
    # every space: its visible card and its stack height; every army, with its direction
    spaces = attrs(root, "space")
    drawn = {(int(a["data-seat"]), int(a["data-space"])): a for a in spaces}
    assert len(spaces) == len(drawn) == 8 * n
    armies_drawn: list[tuple[int, int, int, str, str]] = []
    for el in root.iter(f"{NS}g"):
        if el.get("class") == "space":
            for army in el.iter(f"{NS}g"):
                if army.get("class") == "army":
                    seat_, space_ = int(el.get("data-seat", "0")), int(el.get("data-space", "0"))
                    armies_drawn.append(
                        (
                            seat_,
                            space_,
                            int(army.get("data-army", "0")),
                            army.get("data-direction", ""),
                            army.get("data-to", ""),
                        )
                    )
    armies_view: list[tuple[int, int, int, str, str]] = []
    covered = 0
    heights = 0
    for seat in seats:
        fort = result["forts"][str(seat)]
        for space in SPACES:
            stack = fort["spaces"][str(space)]["stack"]
            a = drawn[(seat, space)]
            assert int(a["data-stack"]) == len(stack)
            assert int(a["data-covered"]) == max(0, len(stack) - 1)
            assert a.get("data-card") == (stack[-1] if stack else None)
            covered += max(0, len(stack) - 1)
            heights += len(stack) > 1
            army = fort["spaces"][str(space)]["army"]
            if army is not None:
                to = step(space, army["direction"])
                armies_view.append(
                    (seat, space, army["seat"], army["direction"], "" if to is None else str(to))
                )
    assert sum(int(a["data-covered"]) for a in spaces) == covered
    badges = attrs(root, "stack-height")
    assert len(badges) == heights
    assert sum(int(b["data-height"]) - 1 for b in badges) == covered
    assert sorted(armies_drawn) == sorted(armies_view)
    assert len(attrs(root, "army")) == len(armies_view)
    # the dungeons: counts and top arrows
    dungeons = {int(d["data-seat"]): d for d in attrs(root, "dungeon")}
    assert sorted(dungeons) == seats
    for seat in seats:
        d = dungeons[seat]
        assert int(d["data-count"]) == result["dungeon_counts"][str(seat)]
        arrows = result["top_arrows"][str(seat)] or []
        assert d["data-arrows"] == " ".join(map(str, sorted(arrows)))
    assert len(attrs(root, "top-arrow")) == sum(len(a or []) for a in result["top_arrows"].values())
    # drawbridge tokens, points, front lines
    bridges = sum(1 for s in seats if result["forts"][str(s)]["drawbridge"] is not None)
    assert len(attrs(root, "drawbridge")) == bridges
    for seat in seats:
        p = panel(root, seat)
        assert p.get("data-points") == str(result["points"][str(seat)])
        own = texts(p)
        assert f"{result['points'][str(seat)]} points" in own
        bridge = result["forts"][str(seat)]["drawbridge"]
        assert (
            "Drawbridge token: " + ("in supply" if bridge is None else f"on space {bridge}")
        ) in own
        faces = {
            (el.get("data-side"), el.get("data-faces"))
            for el in p.iter(f"{NS}g")
            if el.get("class") == "front-line" and el.get("data-side") != "bottom"
        }
        assert faces == {(front_line(n, seat, o), str(o)) for o in seats if o != seat}
    return root


def check_no_hand(svg: str, hands: Mapping[str, list[str]]) -> None:
    """No card of a seat's hand is named in that seat's panel."""
    root = ET.fromstring(svg)
    for seat, hand in hands.items():
        words = set(re.findall(r"[a-z][a-z0-9-]*", " ".join(texts(panel(root, int(seat))))))
        assert hand and not words & set(hand), (seat, hand)


@pytest.mark.parametrize("match_file", CASES, ids=lambda p: p.name.removesuffix(".match.json"))
def test_every_golden_example_is_drawn_exactly(match_file: Path) -> None:
    doc = hostile(load(match_file))
    public, seats = views_of(doc)
    svg = forts_svg(public)
    root = check_picture(svg, public)
    assert svg is not None and escape(HOSTILE) in svg and "<b>" not in svg
    assert "Fort &lt;match&gt; &amp; co" in svg
    assert int(root.get("width", "0")) == 744  # two panels to a row, whatever the seats
    # the same picture from every seat's view: nothing of its hand is drawn
    for seat, mine in seats.items():
        assert mine["hand"]  # the seat's view has a hand the picture could have shown
        assert forts_svg(mine) == svg, seat
    check_no_hand(svg, {str(s): v["hand"] for s, v in seats.items()})
    # one column: the same content, a narrower picture
    narrow = forts_column_svg(public)
    check_picture(narrow, public)
    assert narrow is not None and ET.fromstring(narrow).get("width") == "376"


def test_the_examples_show_what_the_checks_look_for() -> None:
    """The golden states hold armies, covered cards, a drawbridge and 2 to 4 seats,
    so the checks above check something."""
    armies = covered = bridges = 0
    counts = set()
    for match_file in CASES:
        public, _ = views_of(load(match_file))
        svg = forts_svg(public)
        assert svg is not None
        armies += svg.count('class="army"')
        covered += sum(int(c) for c in re.findall(r'data-covered="([0-9]+)"', svg))
        bridges += svg.count('class="drawbridge"')
        counts.add(len(public["result"]["forts"]))
    assert armies >= 2 and covered >= 10 and bridges >= 2 and counts == {2, 3, 4}


def test_the_checks_fail_on_a_picture_of_another_state() -> None:
    doc = load(CASES[2])  # four players, an army and covered cards
    public, _ = views_of(doc)
    svg = forts_svg(public)
    assert svg is not None
    check_picture(svg, public)  # the view it was drawn from passes
    changes = []
    more = copy.deepcopy(public)  # one card more under a top card
    fort = more["result"]["forts"]["1"]["spaces"]
    full = next(s for s in SPACES if fort[str(s)]["stack"])
    fort[str(full)]["stack"].insert(0, "w01")
    changes.append(more)
    no_army = copy.deepcopy(public)  # the armies gone
    gone = 0
    for seat_fort in no_army["result"]["forts"].values():
        for space in seat_fort["spaces"].values():
            gone += space["army"] is not None
            space["army"] = None
    assert gone
    changes.append(no_army)
    arrows = copy.deepcopy(public)  # another top card
    arrows["result"]["top_arrows"]["1"] = [1, 2]
    changes.append(arrows)
    renamed = copy.deepcopy(public)
    renamed["players"][1]["name"] = "Someone else"
    changes.append(renamed)
    for changed in changes:
        with pytest.raises(AssertionError):
            check_picture(svg, changed)
    with pytest.raises(AssertionError):
        check_no_hand(
            svg, {"1": [public["result"]["forts"]["1"]["spaces"][str(full)]["stack"][-1]]}
        )


def test_a_picture_that_drew_a_hand_would_be_caught() -> None:
    doc = load(CASES[3])  # unfinished: hands are private
    public, seats = views_of(doc)
    svg = forts_svg(public)
    assert svg is not None
    hand = seats[1]["hand"]
    leaky = svg.replace("Hand: ", "Hand: " + " ".join(hand) + " ", 1)
    with pytest.raises(AssertionError):
        check_no_hand(leaky, {"1": hand})
    assert "hands" not in public["result"] and leaky != svg


@pytest.mark.parametrize("seats", [2, 3, 4])
def test_every_state_of_a_random_match_is_drawn_exactly(seats: int) -> None:
    rng = random.Random(1000 + seats)
    doc = hostile(
        {
            "ruleset": "forfort",
            "players": [
                {"seat": s, "name": f"Player {s}", "garnets": s} for s in range(1, seats + 1)
            ],
            "seed": f"picture-{seats}",
            "orders": [],
        }
    )
    spec = parse_match(doc)
    table = start(spec.seed, default_card_set(), seats)
    seen = {"armies": 0, "covered": 0, "bridges": 0}
    while True:
        details = detail_json(table, spec)
        public = service_view(doc, table, details, "public")
        svg = forts_svg(public)
        check_picture(svg, public)
        assert svg is not None
        seen["armies"] += svg.count('class="army"')
        seen["covered"] += svg.count('class="stack-height"')
        seen["bridges"] += svg.count('class="drawbridge"')
        hands = {str(s): list(table.seats[s].hand) for s in table.seat_numbers()}
        if table.next is not None:
            assert "hands" not in public["result"]
            for s in table.seat_numbers():
                mine = service_view(doc, table, details, s)
                assert mine["hand"] == hands[str(s)]
                assert forts_svg(mine) == svg
        check_no_hand(svg, {s: h for s, h in hands.items() if h})
        if table.next is None:
            break
        table = play_turn(table, random_order(table, rng))
        assert table.closed < 200
    assert min(seen.values()) > 0, seen


def test_nothing_to_draw() -> None:
    assert forts_svg({}) is None
    assert forts_svg({"result": None}) is None
    assert forts_svg({"result": {}}) is None
    assert forts_svg({"result": {"forts": {}}}) is None


def test_the_picture_is_a_pure_function_of_the_view() -> None:
    public, _ = views_of(load(CASES[1]))
    before = copy.deepcopy(public)
    svg = forts_svg(public)
    assert public == before
    assert forts_svg(copy.deepcopy(public)) == svg
    shuffled = copy.deepcopy(public)
    shuffled["result"]["forts"] = dict(reversed(list(shuffled["result"]["forts"].items())))
    assert forts_svg(shuffled) == svg


def test_a_view_without_names_shows_seats() -> None:
    public, _ = views_of(load(CASES[0]))
    del public["players"]
    svg = forts_svg(public)
    assert svg is not None
    root = ET.fromstring(svg)
    assert "Seat 1" in texts(panel(root, 1)) and "Seat 2" in texts(panel(root, 2))


def test_the_match_card_set_is_read_from_the_view() -> None:
    """A host's card set carried by the view (top level or in the result) is the
    one the walls are drawn with; without one, the default set (FO2)."""
    public, _ = views_of(load(CASES[0]))
    top = next(
        (seat, space, sp["stack"][-1])
        for seat, fort in sorted(public["result"]["forts"].items())
        for space, sp in sorted(fort["spaces"].items())
        if sp["stack"] and sp["stack"][-1] != "camp"
    )
    seat, space, card = top
    cards = default_card_set().as_json()
    wall = next(w for w in cards["walls"] if w["id"] == card)
    wall["symbols"] = ["garrison"] if wall["symbols"] != ["garrison"] else ["mason"]
    wall["mark"] = None
    assert card_set_of(public) == default_card_set()
    for where in ("top", "result"):
        given = copy.deepcopy(public)
        (given if where == "top" else given["result"])["cards"] = cards
        assert card_set_of(given).wall(card).symbols == tuple(wall["symbols"])
        root = ET.fromstring(forts_svg(given) or "")
        el = next(
            e
            for e in root.iter(f"{NS}g")
            if e.get("class") == "space"
            and e.get("data-seat") == seat
            and e.get("data-space") == space
        )
        symbols = [t.get("data-symbol") for t in el.iter(f"{NS}text") if t.get("data-symbol")]
        assert symbols == wall["symbols"]
    broken = copy.deepcopy(public)
    broken["cards"] = {"walls": []}
    assert card_set_of(broken) == default_card_set()


def test_public_result_alone_is_enough() -> None:
    """The brief's way of making a view: the public result under ``result``."""
    doc = load(CASES[1])
    from referee.rulesets.forfort.match import resolve

    v = {"players": doc["players"], "result": public_result(resolve(doc, details=True))}
    check_picture(forts_svg(v), v)


def test_a_view_with_odd_values_still_gives_a_picture() -> None:
    """Values the service never sends (a damaged stored result) draw what they
    can: no exception, a picture that parses, odd text escaped."""
    public, _ = views_of(load(CASES[1]))
    odd = copy.deepcopy(public)
    result = odd["result"]
    result["forts"]["1"] = ["not", "a", "fort"]
    result["forts"]["2"]["spaces"]["1"] = {
        "stack": [7, "<x>"],
        "army": {"seat": "²", "direction": 3},
    }
    result["forts"]["2"]["spaces"]["2"] = {"stack": [], "army": {"seat": 3, "direction": "north"}}
    result["forts"]["3"]["drawbridge"] = "x"
    result["winners"] = 3
    result["top_arrows"] = {"1": "no", "2": [9, "1"], "3": None}
    result["supply"]["1"] = None
    odd["players"] = [{"seat": 1, "name": 5}, "someone", {"seat": "x", "name": "Bo"}]
    svg = forts_svg(odd)
    assert svg is not None
    root = ET.fromstring(svg)
    assert "&lt;x&gt;" in svg and "<x>" not in svg
    assert len(attrs(root, "space")) == 24
    assert [a["data-direction"] for a in attrs(root, "army")] == [""]
    assert {d["data-seat"]: d["data-arrows"] for d in attrs(root, "dungeon")}["2"] == "1"


def _luminance(color: str) -> float:
    channels = [int(color[i : i + 2], 16) / 255 for i in (1, 3, 5)]
    linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def contrast(a: str, b: str) -> float:
    high, low = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def test_text_colours_have_enough_contrast() -> None:
    """WCAG AA (4.5:1) for every text colour on every face it is written on."""
    from referee.rulesets.forfort import picture as p

    faces = [p.WHITE, "#f9fafb"] + [tint for _s, tint in p.SEAT_COLORS.values()]
    faces += [fill for _s, fill in p.SHAPE_COLORS.values()] + [p.CAMP_COLORS[1]]
    pairs = [(text, face) for text in (p.INK, p.MUTED) for face in faces]
    pairs += [
        (mark, fill) for mark in p.MARK_COLORS.values() for _s, fill in p.SHAPE_COLORS.values()
    ]
    pairs += [(p.WHITE, p.BRIDGE_FILL), (p.WHITE, p.DUNGEON_FILL), (p.WHITE, p.INK)]
    low = [(a, b, round(contrast(a, b), 2)) for a, b in pairs if contrast(a, b) < 4.5]
    assert not low
    assert contrast("#9ca3af", p.WHITE) < 4.5  # the check can fail: a light grey on white
