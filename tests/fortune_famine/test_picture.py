"""The Fortune & Famine pictures (:mod:`referee.rulesets.fortune_famine.picture`):
drawn from every golden example's final state and from every state of random
matches (2 to 6 seats, both lengths), each picture parses as XML, keeps every
shape and text inside its viewBox with no two texts overlapping, runs nothing,
shows each player's name once and escaped, and draws exactly the view's
numbers: each seat's grain, silver, guard, stored grain, tokens, workers and
garnets and its Kingdom's cards; the Hire Board's cards with their standing
bid and bidder (checked against the engine's own reading of the hire turns)
or who hired them, each Famine's losses, each seat's place in the hire and
who acts; each seat's resources after every season (checked against the
table's own totals as the match is played).

FF21: until the end a seat's picture shows no other seat's stored grain: each
other seat's panel is the public one, byte for byte, with the "hidden" mark
(and without that seat's stored total where the number is distinctive); the
burned card only in the host's; the host's pictures show every stored total.
"""

from __future__ import annotations

import copy
import json
import random
import re
import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterator, Mapping
from itertools import combinations
from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape

import pytest

from referee import picture as shared
from referee.rulesets.fortune_famine import picture as pic
from referee.rulesets.fortune_famine.match import detail_json, parse_match, resolve, start
from referee.rulesets.fortune_famine.options import options
from referee.rulesets.fortune_famine.orders import close_step
from referee.rulesets.fortune_famine.randomplay import random_step
from referee.rulesets.fortune_famine.rebuild import hire_from_turns
from referee.rulesets.fortune_famine.state import BESELLA, DIVINA, ELBAN, RULERS, Table
from referee.rulesets.fortune_famine.view import view

GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "fortune-famine"
CASES = sorted(GOLDEN.glob("*.match.json"))
NS = "{http://www.w3.org/2000/svg}"
MATCH_NAME = "Fortune <match> & co"
LONG = "Wilhelmina " * 30
HOSTILE = ["<script>alert(1)</script>", "Bo & \"Co\" 'x'", LONG.strip(), "Dee", "Eve", "Fay"]
PICTURES: dict[str, Callable[[Mapping[str, Any]], str | None]] = {
    "kingdoms": pic.kingdoms_svg,
    "kingdoms-column": pic.kingdoms_column_svg,
    "board": pic.board_svg,
    "board-column": pic.board_column_svg,
    "resources": pic.resources_svg,
    "resources-column": pic.resources_column_svg,
}
Viewer = int | str


# ---- making views --------------------------------------------------------------------------


def load(path: Path) -> dict[str, Any]:
    doc: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return doc


def hostile(doc: Mapping[str, Any]) -> dict[str, Any]:
    """The match file with its players renamed to names full of markup (and a very long one)."""
    out = copy.deepcopy(dict(doc))
    for player, name in zip(out["players"], HOSTILE, strict=False):
        player["name"] = name
    return out


def service_view(doc: Mapping[str, Any], details: Mapping[str, Any], viewer: Any) -> dict[str, Any]:
    """A viewer's view as the service gives it, for the parts pictures read:
    the game's part (view.view) with the match's name and players."""
    return {
        "name": MATCH_NAME,
        "players": copy.deepcopy(doc["players"]),
        **view(details, viewer),
    }


def random_doc(seats: int, length: str, rng: random.Random) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "ruleset": "fortune-famine",
        "players": [
            {"seat": s, "name": f"Player {s}", "garnets": rng.randint(0, 5)}
            for s in range(1, seats + 1)
        ],
        "seed": f"picture-{seats}-{length}",
        "settings": {"length": length},
        "orders": [],
    }
    if rng.random() < 0.5:  # Besella, Divina and Elban half the time at least
        chosen = [BESELLA, DIVINA, ELBAN, *[r for r in RULERS if r not in (BESELLA, DIVINA, ELBAN)]]
        rng.shuffle(chosen)
        doc["rulers"] = {str(s): chosen[s - 1] for s in range(1, seats + 1)}
    return hostile(doc)


def rob_storage(table: Table, step: dict[int, Any]) -> None:
    """Each storage Evrathor used in an attack turn names the opponent with the
    most stored grain (random play mostly takes from the stock), so that
    ``taken`` reaches the attacker's and the victim's views."""
    assert table.next is not None
    if table.next.phase != "attack":
        return
    for seat, order in step.items():
        opts = options(table, seat)
        if order is None or opts is None:
            continue
        for use in opts["evrathor"]:
            if use["steals"] != "stored" or not use["from"]:
                continue
            victim = max(use["from"], key=lambda s: (table.seats[int(s)].stored, s))
            rest = [u for u in order.get("evrathor") or [] if u["card"] != use["card"]]
            order["evrathor"] = [*rest, {"card": use["card"], "from": {victim: use["amount"]}}]


def random_states(seats: int, length: str, seed: str) -> Iterator[tuple[dict[str, Any], Table]]:
    """The match file and the table at every state of a random match."""
    rng = random.Random(seed)
    doc = random_doc(seats, length, rng)
    table = start(parse_match(doc))
    yield doc, table
    while table.next is not None:
        step = random_step(table, rng, 0.1)
        rob_storage(table, step)
        table = close_step(table, step)
        assert table.closed < 400
        yield doc, table


# ---- reading a picture ---------------------------------------------------------------------


def texts(el: ET.Element) -> list[str]:
    return ["".join(t.itertext()) for t in el.iter(f"{NS}text")]


def by_class(root: ET.Element, cls: str) -> list[ET.Element]:
    return [el for el in root.iter() if cls in (el.get("class") or "").split()]


def panels(root: ET.Element, cls: str) -> dict[int, ET.Element]:
    found = by_class(root, cls)
    out = {int(el.get("data-seat", "0")): el for el in found if el.tag == f"{NS}g"}
    assert len(out) == len([el for el in found if el.tag == f"{NS}g"])
    return out


def one(el: ET.Element, cls: str) -> str:
    found = [t for t in by_class(el, cls) if t.tag == f"{NS}text"]
    assert len(found) == 1, (cls, [texts(f) for f in found])
    return "".join(found[0].itertext())


def _box(el: ET.Element) -> tuple[float, float, float, float] | None:
    """The box an element covers (x0, y0, x1, y1); text by the shared width guess."""
    tag = el.tag.removeprefix(NS)
    f = {k: float(v) for k, v in el.attrib.items() if re.fullmatch(r"-?[0-9.]+", v)}
    if tag == "rect":
        x, y = f.get("x", 0.0), f.get("y", 0.0)
        return x, y, x + f["width"], y + f["height"]
    if tag == "line":
        return (
            min(f["x1"], f["x2"]),
            min(f["y1"], f["y2"]),
            max(f["x1"], f["x2"]),
            max(f["y1"], f["y2"]),
        )
    if tag == "circle":
        return f["cx"] - f["r"], f["cy"] - f["r"], f["cx"] + f["r"], f["cy"] + f["r"]
    if tag in ("polyline", "polygon"):
        pts = [tuple(map(float, p.split(","))) for p in el.attrib["points"].split()]
        xs, ys = [p[0] for p in pts], [p[1] for p in pts]
        return min(xs), min(ys), max(xs), max(ys)
    if tag == "text":
        size = f["font-size"]
        text = "".join(el.itertext())
        width = shared.text_width(text, size, bold=el.get("font-weight") == "bold")
        anchor = el.get("text-anchor", "start")
        x0 = {"start": f["x"], "middle": f["x"] - width / 2, "end": f["x"] - width}[anchor]
        return x0, f["y"] - 0.75 * size, x0 + width, f["y"] + 0.2 * size
    return None


def check_svg(svg: str | None, *, overlap: bool = True) -> ET.Element:
    """The checks every picture passes: valid XML, a titled image, nothing that
    runs or loads, text of 11 px or more, everything inside the viewBox, and no
    two texts overlapping."""
    assert svg is not None
    root = ET.fromstring(svg)
    assert root.tag == f"{NS}svg" and root.get("role") == "img"
    width, height = float(root.get("width", "0")), float(root.get("height", "0"))
    assert root.get("viewBox") == f"0 0 {root.get('width')} {root.get('height')}"
    assert width in (pic.WIDE, pic.NARROW) and 0 < height < 4000
    title = root.find(f"{NS}title")
    assert title is not None and title.text and root.get("aria-label") == title.text
    assert not re.search(r"<script|<image|href|url\(|<foreignObject|<style|\son[a-z]+=", svg)
    sizes = [float(s) for s in re.findall(r'font-size="([0-9.]+)"', svg)]
    assert sizes and min(sizes) >= pic.SMALL
    text_boxes = []
    for el in root.iter():
        box = _box(el)
        if box is None:
            continue
        x0, y0, x1, y1 = box
        assert min(x0, y0) >= 0 and x1 <= width and y1 <= height, (el.tag, el.attrib, box)
        if el.tag == f"{NS}text":
            text_boxes.append((box, "".join(el.itertext())))
    if overlap:
        for (a, ta), (b, tb) in combinations(text_boxes, 2):
            apart = a[2] <= b[0] or b[2] <= a[0] or a[3] <= b[1] or b[3] <= a[1]
            assert apart, (ta, a, tb, b)
    return root


def check_names(svg: str, root: ET.Element, v: Mapping[str, Any], cls: str) -> None:
    """Each player's name once in its own panel's head, escaped, cut to its room
    with an ellipsis when long; markup in a name never becomes markup."""
    assert escape(MATCH_NAME) in svg and MATCH_NAME not in svg
    assert "<script" not in svg
    heads = {s: one(p, "player") for s, p in panels(root, cls).items()}
    for player in v["players"]:
        name, seat = player["name"], player["seat"]
        head = heads[seat]
        assert head.startswith(f"Seat {seat} \u00b7 ")
        shown = head.removeprefix(f"Seat {seat} \u00b7 ")
        if shown.endswith("\u2026"):
            assert name.startswith(shown[:-1].rstrip()) and len(shown) < len(name)
            assert svg.count(escape(shown)) == 1
        else:
            assert shown == name
            assert svg.count(escape(name)) == 1, name
        if escape(name) != name:
            assert name not in svg


# ---- the kingdoms --------------------------------------------------------------------------


def check_kingdoms(svg: str | None, v: Mapping[str, Any]) -> ET.Element:
    assert svg is not None
    root = check_svg(svg)
    result = v["result"]
    seats = result["seats"]
    drawn = panels(root, "kingdom")
    assert sorted(drawn) == sorted(int(s) for s in seats)
    check_names(svg, root, v, "kingdom")
    garnets = {p["seat"]: p["garnets"] for p in v["players"]}
    types = {t["id"]: t for t in result["deck"]["types"]}
    for key, seat in seats.items():
        p = drawn[int(key)]
        assert p.get("data-grain") == str(seat["grain"])
        assert p.get("data-silver") == str(seat["silver"])
        assert one(p, "grain") == str(seat["grain"])
        assert one(p, "silver") == str(seat["silver"])
        words = texts(p)
        stored_box = [g for g in by_class(p, "stored") if g.tag == f"{NS}g"]
        assert len(stored_box) == 1
        if seat["stored"] is None:
            assert p.get("data-stored") == "hidden"
            assert "hidden" in (stored_box[0].get("class") or "").split()
            assert one(p, "stored") == "hidden" and "until the end" in words
        else:
            assert p.get("data-stored") == str(seat["stored"])
            assert one(p, "stored") == str(seat["stored"])
            assert "hidden" not in svg_of(p)
        guard = seat["guard"]
        if seat["ruler"] == BESELLA:
            assert f"{guard['grain']} guarded" in words and f"{guard['silver']} guarded" in words
        else:
            assert guard == {"grain": 0, "silver": 0} and not any("guarded" in w for w in words)
        facts = one(p, "facts")
        workers = seat["workers"]
        assert f"{workers} worker{'' if workers == 1 else 's'}" in facts
        g = garnets[int(key)]
        assert f"{g} garnet{'' if g == 1 else 's'}" in facts
        t = seat["tokens"]
        has_tokens = seat["ruler"] in (DIVINA, ELBAN)
        assert (f"{t} token{'' if t == 1 else 's'}" in facts) is has_tokens
        assert pic.RULER_NAMES[seat["ruler"]] in one(p, "ruler")
        # the Kingdom, in arrival order, each card with its name
        cards = [el for el in by_class(p, "card") if el.tag == f"{NS}g"]
        assert [c.get("data-card") for c in cards] == seat["kingdom"]
        for c, card in zip(cards, seat["kingdom"], strict=True):
            ctype = types[
                "common-farmer" if card.startswith("start-farmer.") else card.rsplit(".", 1)[0]
            ]
            assert c.get("data-kind") == ctype["kind"]
            assert one(c, "card-name") == ctype["name"] or one(c, "card-name").endswith("\u2026")
        size = 6 if seat["ruler"] == "felarren-fiagro" else 5
        assert one(p, "kingdom-size") == f"Kingdom: {len(seat['kingdom'])} of {size} spaces"
        assert len(by_class(p, "empty")) == size - len(seat["kingdom"])
        # roles
        status = texts(p)
        if result["finished"]:
            place = result["ranking"].index(int(key)) + 1
            assert f"ranked {pic.ordinal(place)} of {len(seats)}" in status
            role = " ".join(status)
            assert ("Token of Life" in role) is (result["token_of_life"] == int(key))
            ec = result["elimination_candidate"]["seat"] == int(key)
            assert ("Elimination Candidate" in role) is ec
        else:
            nxt = result["next_round"]
            acting = int(key) in nxt["acting"]
            assert any("acts now" in w for w in status) is acting
            leads = result["seasons"][-1]["leader"] == int(key)
            assert any("round leader" in w for w in status) is leads
            # what it gets in this season's hire
            record = result["seasons"][-1]
            hire_line = one(p, "hire")
            if record["hired"] is None:
                hire = hire_from_turns(record, len(seats))
                got = hire.got.get(int(key))
                if got is not None and got.how == "bid":
                    assert hire_line == f"Hire: bid {got.silver} silver on {got.card}"
                elif got is not None:
                    done = {"take": "took", "claim": "claimed"}[got.how]
                    assert hire_line == f"Hire: {done} {got.card}"
                else:
                    assert hire_line == (
                        "Hire: passed" if int(key) in hire.passed else "Hire: free (no card yet)"
                    )
            else:
                won = record["hired"][key]
                if won is None:
                    assert hire_line == "Hire: no card this season"
                else:
                    assert won["card"] in hire_line
                    assert (f"for {won['silver']} silver" in hire_line) is (won["how"] == "bid")
    return root


def svg_of(el: ET.Element) -> str:
    return ET.tostring(el, encoding="unicode")


# ---- the board -----------------------------------------------------------------------------


def check_board(svg: str | None, v: Mapping[str, Any]) -> ET.Element:
    assert svg is not None
    root = check_svg(svg)
    result = v["result"]
    record = result["seasons"][-1]
    check_names(svg, root, v, "seat-status")
    assert root.get("data-season") == str(record["season"])
    tiles = [el for el in by_class(root, "board-card") if el.tag == f"{NS}g"]
    assert [t.get("data-card") for t in tiles] == record["revealed"]
    types = {t["id"]: t for t in result["deck"]["types"]}
    seats = sorted(int(s) for s in result["seats"])
    hired = record["hired"]
    hire = hire_from_turns(record, len(seats)) if hired is None else None
    famines = {f["card"]: f for f in record["famines"]}
    for tile, card in zip(tiles, record["revealed"], strict=True):
        kind = types[card.rsplit(".", 1)[0]]["kind"]
        assert tile.get("data-kind") == kind
        where = one(tile, "where")
        words = " ".join(texts(tile))
        if kind == "famine":
            famine = famines[card]
            assert where == "struck as it was revealed"
            for seat, lost in famine["loss"].items():
                if int(seat) in famine["blocked"]:
                    assert f"seat {seat} blocked it" in words
                else:
                    assert f"seat {seat} \u2212{lost}" in words
        elif hire is not None:  # the hire is open: the standing bid and its bidder
            holder = hire.holder(card)
            if holder is None:
                assert tile.get("data-holder") is None
                assert where in ("no bid yet", "not taken yet")
            else:
                got = hire.got[holder]
                assert tile.get("data-holder") == str(holder)
                assert tile.get("data-how") == got.how
                assert tile.get("data-silver") == str(got.silver)
                expected = {
                    "bid": f"bid {got.silver} silver by seat {holder}",
                    "take": f"taken by seat {holder}",
                    "claim": f"claimed by seat {holder} (a token)",
                }[got.how]
                assert where == expected
        else:  # the hire is over: who hired it for how much
            winners = [(int(s), g) for s, g in hired.items() if g and g["card"] == card]
            if not winners:
                assert card in record["unhired"] and where == "not hired: discarded"
            else:
                [(seat, got)] = winners
                expected = {
                    "bid": f"hired by seat {seat} for {got['silver']} silver",
                    "take": f"taken by seat {seat}",
                    "claim": f"claimed by seat {seat} (a token)",
                }[got["how"]]
                assert where == expected
    # the burned card: only where the view has it
    burned = record["burned"]
    if burned is None:
        hidden = [g for g in by_class(root, "burned") if g.tag == f"{NS}g"]
        assert len(hidden) == 1 and "hidden" in (hidden[0].get("class") or "")
    else:
        assert burned in one(root, "burned")
    # each seat's place in the hire and who acts
    statuses = panels(root, "seat-status")
    assert sorted(statuses) == seats
    nxt = result["next_round"]
    for seat, el in statuses.items():
        status = " ".join(t for t in texts(el) if not t.startswith(f"Seat {seat}"))
        acting = nxt is not None and seat in nxt["acting"]
        assert ("acts now" in status) is acting
        if hire is not None:
            if seat in hire.got:
                assert hire.got[seat].card in status
            elif seat in hire.passed:
                assert "passed" in status
            elif not acting:
                assert "free" in status
        else:
            got = hired.get(str(seat))
            assert (got["card"] in status) if got else ("no card" in status)
    now = " ".join(texts(root))
    if nxt is None:
        assert "The match is over." in now
    else:
        assert f"Now: {pic.acting_text(nxt['phase'], nxt['acting'])}." in now
    return root


# ---- resources over the seasons ------------------------------------------------------------


def series(el: ET.Element) -> dict[str, list[int]]:
    return {
        g.get("data-series", ""): [int(x) for x in g.get("data-values", "").split()]
        for g in by_class(el, "series")
        if g.tag == f"{NS}g"
    }


def check_resources(svg: str | None, v: Mapping[str, Any]) -> ET.Element:
    assert svg is not None
    root = check_svg(svg)
    result = v["result"]
    check_names(svg, root, v, "resources")
    drawn = panels(root, "resources")
    assert sorted(drawn) == sorted(int(s) for s in result["seats"])
    done = sum(1 for r in result["seasons"] if r["economy"] is not None)
    points = 1 + done + (0 if result["finished"] else 1)
    for key, seat in result["seats"].items():
        p = drawn[int(key)]
        lines = series(p)
        # the last point is the seat's resources now: the record adds up
        assert one(p, "grain") == f"grain {seat['grain']}"
        assert one(p, "silver") == f"silver {seat['silver']}"
        assert lines["grain"][-1] == seat["grain"] and len(lines["grain"]) == points
        assert lines["silver"][-1] == seat["silver"] and len(lines["silver"]) == points
        assert lines["grain"][0] == 1 and lines["silver"][0] == 3
        if seat["stored"] is None:
            assert "stored" not in lines
            hidden = [g for g in by_class(p, "stored") if g.tag == f"{NS}g"]
            assert len(hidden) == 1 and "hidden" in (hidden[0].get("class") or "")
            assert "stored hidden" in texts(p)
        else:
            assert one(p, "stored") == f"stored {seat['stored']}"
            assert lines["stored"][-1] == seat["stored"] and lines["stored"][0] == 0
            assert "hidden" not in svg_of(p)
    return root


CHECKS: dict[str, Callable[[str | None, Mapping[str, Any]], ET.Element]] = {
    "kingdoms": check_kingdoms,
    "kingdoms-column": check_kingdoms,
    "board": check_board,
    "board-column": check_board,
    "resources": check_resources,
    "resources-column": check_resources,
}


def check_all(v: Mapping[str, Any], *, names: tuple[str, ...] = tuple(PICTURES)) -> dict[str, str]:
    out = {}
    for name in names:
        svg = PICTURES[name](v)
        root = CHECKS[name](svg, v)
        wide = not name.endswith("-column")
        assert root.get("width") == str(pic.WIDE if wide else pic.NARROW), name
        assert svg is not None
        out[name] = svg
    return out


# ---- FF21 ----------------------------------------------------------------------------------


PANEL_CLASS = {"kingdoms": "kingdom", "resources": "resources"}


def check_private(
    public: Mapping[str, str], mine: Mapping[str, str], seat: int, details: Mapping[str, Any]
) -> None:
    """A seat's pictures before the end: every other seat's panel is the public
    one (the "hidden" mark, no stored total where it is distinctive), its own
    shows its stored grain; its board is the public board."""
    assert mine["board"] == public["board"]
    assert mine["board-column"] == public["board-column"]
    stored = {int(s): raw["stored"] for s, raw in details["seats"].items()}
    for name, cls in PANEL_CLASS.items():
        for variant in (name, f"{name}-column"):
            theirs = panels(ET.fromstring(public[variant]), cls)
            ours = panels(ET.fromstring(mine[variant]), cls)
            for other, el in ours.items():
                if other == seat:
                    assert "hidden" not in svg_of(el)
                    continue
                assert svg_of(el) == svg_of(theirs[other]), (variant, other)
                assert len([g for g in by_class(el, "hidden") if g.tag == f"{NS}g"]) == 1
                numbers = set(re.findall(r"\d+", " ".join(texts(theirs[other]))))
                if str(stored[other]) not in numbers:  # distinctive: never drawn
                    assert str(stored[other]) not in re.findall(r"\d+", " ".join(texts(el)))


def check_state(doc: Mapping[str, Any], details: Mapping[str, Any], *, all_seats: bool) -> None:
    """Every picture of the public view, the host's and the seats' (all, or the
    first and the last) at one state, and FF21 between them."""
    public_view = service_view(doc, details, "public")
    public = check_all(public_view)
    host_view = service_view(doc, details, "host")
    host = check_all(host_view)
    seats = sorted(int(s) for s in details["seats"])
    finished = details["finished"]
    if finished or details["closed"] > 0:  # the host sees every stored total
        assert all(s["stored"] is not None for s in host_view["result"]["seats"].values())
    if finished:
        assert host == public
        return
    assert all(s["stored"] is None for s in public_view["result"]["seats"].values())
    if details["closed"] > 0:
        assert details["seasons"][-1]["burned"] in host["board"]
    assert details["seasons"][-1]["burned"] not in public["board"]
    for seat in seats if all_seats else sorted({seats[0], seats[-1]}):
        mine_view = service_view(doc, details, seat)
        mine = check_all(mine_view)
        check_private(public, mine, seat, details)


# ---- the tests -----------------------------------------------------------------------------


@pytest.mark.parametrize("match_file", CASES, ids=lambda p: p.name.removesuffix(".match.json"))
def test_every_golden_example_is_drawn_exactly(match_file: Path) -> None:
    doc = hostile(load(match_file))
    details = resolve(doc, details=True)
    check_state(doc, details, all_seats=True)


def test_the_examples_show_what_the_checks_look_for() -> None:
    """Between them the golden states hold a finished and an unfinished match,
    a Famine, an open hire with a standing bid, a Besella/Baroso guard, tokens
    and a full Felarren/Fiagro Kingdom, so the checks above check something."""
    seen: set[str] = set()
    for match_file in CASES:
        details = resolve(load(match_file), details=True)
        record = details["seasons"][-1]
        seen.add("finished" if details["finished"] else "unfinished")
        if record["famines"]:
            seen.add("famine")
        if record["hired"] is None and any(t["action"] == "bid" for t in record["hire_turns"]):
            seen.add("standing bid")
        for seat in details["seats"].values():
            if seat["ruler"] == BESELLA and seat["guard"] != {"grain": 0, "silver": 0}:
                seen.add("guard")
            if seat["tokens"]:
                seen.add("tokens")
            if len(seat["kingdom"]) == 6:
                seen.add("six cards")
    assert seen >= {"finished", "unfinished", "famine", "standing bid", "tokens", "six cards"}


# with the quick test's 3 seats (short), every seat count and both lengths;
# all ten pairs took 145 s of the CI run, these four about a third of it
GAMES = [(2, "full"), (4, "full"), (5, "short"), (6, "short")]


def test_a_short_random_match_is_drawn_exactly_at_every_state() -> None:
    """Quick: every state of a 3-seat short match, every viewer."""
    for doc, table in random_states(3, "short", "picture-quick"):
        check_state(doc, detail_json(table), all_seats=True)


def test_a_storage_theft_adds_up_in_the_attackers_and_the_victims_charts() -> None:
    """Quick: the state right after an Evrathor took stored grain from a seat
    (its ``taken`` only in the attacker's and the victim's views) and the next
    state, every viewer."""
    states = random_states(4, "full", "picture-4-full")
    for state in states:
        doc, table = state
        thefts = [
            (attack["seat"], use)
            for attack in table.seasons[-1]["attacks"]
            for use in attack["evrathor"]
            if use["card"].startswith("evrathor-stored") and use["from"]
        ]
        if thefts:
            break
    else:
        pytest.fail("no storage theft")
    [(attacker, use)] = thefts
    victim = int(next(iter(use["from"])))
    assert use["taken"][str(victim)] > 0
    details = detail_json(table)
    check_state(doc, details, all_seats=True)
    for seat in (attacker, victim):
        chart = series(
            panels(
                ET.fromstring(pic.resources_svg(service_view(doc, details, seat)) or ""),
                "resources",
            )[seat]
        )
        assert chart["stored"][-1] == table.seats[seat].stored
    doc, table = next(states)
    check_state(doc, detail_json(table), all_seats=True)


@pytest.mark.slow
@pytest.mark.parametrize(("seats", "length"), GAMES, ids=[f"{s}-{n}" for s, n in GAMES])
def test_every_state_of_random_matches_is_drawn_exactly(seats: int, length: str) -> None:
    for doc, table in random_states(seats, length, f"picture-{seats}-{length}"):
        check_state(doc, detail_json(table), all_seats=seats <= 3)


@pytest.mark.parametrize(("seats", "length"), [(2, "full"), (4, "short"), (6, "full")])
def test_each_season_adds_up_to_the_tables_totals(seats: int, length: str) -> None:
    """The chart's point after each season is the table's grain, silver and
    stored grain once that season's economy step closed (the next season's
    Famines given back), and its last point is the table now."""
    previous: Table | None = None
    for doc, table in random_states(seats, length, f"sums-{seats}-{length}"):
        details = detail_json(table)
        if details["closed"] == 0:  # the host's view is the public one until then
            previous = table
            continue
        v = service_view(doc, details, "host")
        points = pic.history(v)
        for seat in table.seat_numbers():
            now = points[seat][-1]
            s = table.seats[seat]
            assert (now.grain, now.silver, now.stored) == (s.grain, s.silver, s.stored)
        records = details["seasons"]
        if previous is not None and len(records) == len(previous.seasons) + 1 and len(records) > 1:
            # the economy step of the season before has just closed
            season = records[-2]["season"]
            for seat in table.seat_numbers():
                lost = sum(f["loss"][str(seat)] for f in records[-1]["famines"])
                end = next(p for p in points[seat] if p.x == season)
                s = table.seats[seat]
                assert (end.grain, end.silver, end.stored) == (s.grain + lost, s.silver, s.stored)
        previous = table


def test_the_biggest_pictures_make_a_png_at_full_size() -> None:
    """Six seats, every picture: the shared code makes its PNG without scaling
    it down, and a column picture on a 375 px phone keeps its text at 11 px."""
    from referee.web.pictures import png_scale, svg_to_png

    doc, table = next(s for s in random_states(6, "full", "picture-png") if s[1].closed >= 40)
    v = service_view(doc, detail_json(table), "public")
    for name, fn in PICTURES.items():
        svg = fn(v)
        root = check_svg(svg)
        assert svg is not None and png_scale(svg) == 1.0, name
        png = svg_to_png(svg)
        assert png.startswith(b"\x89PNG") and int.from_bytes(png[16:20], "big") == int(
            root.get("width", "0")
        )
        if name.endswith("-column"):
            assert 375 / int(root.get("width", "0")) * pic.SMALL > 10.9


def test_no_picture_without_what_it_needs() -> None:
    for fn in PICTURES.values():
        assert fn({}) is None
        assert fn({"result": None}) is None
        assert fn({"result": {}}) is None
        assert fn({"result": {"seats": {}, "seasons": []}}) is None
        assert fn({"result": []}) is None  # type: ignore[dict-item]


def test_the_start_is_drawn() -> None:
    """From the deal on (the first season starts with the match) every picture exists."""
    doc = hostile(load(CASES[0]))
    doc["orders"] = []
    details = resolve(doc, details=True)
    v = service_view(doc, details, "public")
    svgs = check_all(v)
    assert "Burned card: hidden until the end" in svgs["board"]
    assert "at the start" in svgs["kingdoms"]
    # the host sees no more than the public before the first step closes (view.py)
    assert check_all(service_view(doc, details, "host")) == svgs


def test_the_pictures_are_a_pure_function_of_the_view() -> None:
    doc = hostile(load(CASES[3]))
    details = resolve(doc, details=True)
    v = service_view(doc, details, 2)
    before = copy.deepcopy(v)
    svgs = {name: fn(v) for name, fn in PICTURES.items()}
    assert v == before
    shuffled = copy.deepcopy(v)
    shuffled["result"]["seats"] = dict(reversed(list(shuffled["result"]["seats"].items())))
    for name, fn in PICTURES.items():
        assert fn(copy.deepcopy(v)) == svgs[name]
        assert fn(shuffled) == svgs[name]


def test_a_view_without_names_or_a_deck_shows_seats_and_the_default_cards() -> None:
    doc = load(CASES[1])
    details = resolve(doc, details=True)
    v = {"result": service_view(doc, details, "public")["result"]}
    del v["result"]["deck"]
    for name, fn in PICTURES.items():
        svg = fn(v)
        root = check_svg(svg)
        assert svg is not None and "Fortune &amp; Famine match" in svg, name
        if name.startswith("kingdoms"):
            assert one(panels(root, "kingdom")[1], "player") == "Seat 1"
            assert "Common Farmer" in svg


def test_a_host_deck_names_its_cards_escaped() -> None:
    doc = load(CASES[0])
    details = resolve(doc, details=True)
    v = service_view(doc, details, "public")
    for t in v["result"]["deck"]["types"]:
        if t["id"] == "common-farmer":
            t["name"] = '<b>Farmer</b> & "sons" ' + "x" * 60
    for name, fn in PICTURES.items():
        svg = fn(v)
        check_svg(svg)
        assert svg is not None and "<b>" not in svg, name
    svg = pic.kingdoms_svg(v) or ""
    assert '&lt;b&gt;Farmer&lt;/b&gt; &amp; "sons"' in svg


def test_the_checks_fail_on_a_picture_of_another_state() -> None:
    doc = hostile(load(CASES[3]))  # unfinished, an open hire with a standing bid
    details = resolve(doc, details=True)
    v = service_view(doc, details, 1)
    svgs = check_all(v)
    changes: list[tuple[str, dict[str, Any]]] = []
    more = copy.deepcopy(v)
    more["result"]["seats"]["2"]["grain"] += 1
    changes += [("kingdoms", more), ("resources", more)]
    hidden = copy.deepcopy(v)
    hidden["result"]["seats"]["1"]["stored"] = None
    changes += [("kingdoms", hidden), ("resources", hidden)]
    shown = copy.deepcopy(v)
    shown["result"]["seats"]["3"]["stored"] = 4
    changes += [("kingdoms", shown), ("resources", shown)]
    bid = copy.deepcopy(v)
    turn = next(t for t in bid["result"]["seasons"][-1]["hire_turns"] if t["action"] == "bid")
    turn["silver"] += 1
    changes.append(("board", bid))
    burned = copy.deepcopy(v)
    burned["result"]["seasons"][-1]["burned"] = "common-merchant.6"
    changes.append(("board", burned))
    renamed = copy.deepcopy(v)
    renamed["players"][1]["name"] = "Someone else"
    changes += [("kingdoms", renamed), ("board", renamed), ("resources", renamed)]
    for name, changed in changes:
        with pytest.raises(AssertionError):
            CHECKS[name](svgs[name], changed)
    # and the FF21 check catches a seat's panel that shows another's storage
    public = check_all(service_view(doc, details, "public"))
    leaky = dict(svgs)
    other = details["seats"]["2"]["stored"]
    leaky["kingdoms"] = svgs["kingdoms"].replace(
        'data-seat="2" data-grain', f'data-stored-leak="{other}" data-seat="2" data-grain', 1
    )
    assert leaky["kingdoms"] != svgs["kingdoms"]
    check_private(public, svgs, 1, details)
    with pytest.raises(AssertionError):
        check_private(public, leaky, 1, details)


def test_the_bounds_check_catches_text_outside_or_overlapping() -> None:
    svg = pic.kingdoms_column_svg(
        service_view(load(CASES[0]), resolve(load(CASES[0]), details=True), "public")
    )
    assert svg is not None
    check_svg(svg)
    outside = svg.replace("</svg>", '<text x="370" y="20" font-size="12">far too wide</text></svg>')
    with pytest.raises(AssertionError):
        check_svg(outside)
    over = svg.replace("</svg>", '<text x="8" y="28" font-size="12">on the title</text></svg>')
    with pytest.raises(AssertionError):
        check_svg(over)


def test_a_view_with_odd_values_still_gives_a_picture() -> None:
    """Values the service never sends (a damaged stored result) draw what they
    can: no exception, a picture that parses and stays in its box, odd text
    escaped."""
    doc = load(CASES[3])
    details = resolve(doc, details=True)
    odd = service_view(doc, details, "host")
    result = odd["result"]
    result["seats"]["1"] = ["not", "a", "seat"]
    result["seats"]["2"].update(
        {"grain": "<x>", "silver": None, "stored": -3, "guard": 7, "kingdom": ["<y>", 5, None]}
    )
    result["seats"]["3"]["kingdom"] = [f"common-farmer.{i}" for i in range(1, 12)]
    result["seats"]["3"]["ruler"] = "<ruler>"
    result["seats"]["x"] = {}
    record = result["seasons"][-1]
    record["revealed"].append("<z>")
    record["famines"].append({"card": "<z>", "loss": {"1": "many", "x": 2}, "blocked": "no"})
    record["hire_turns"].append({"seat": "2", "action": "bid", "card": 9, "silver": "x"})
    record["hire_turns"].append("not a turn")
    record["hire_turns"].append(
        {"seat": 4, "action": "bid", "card": "<w>" + "w" * 500, "silver": 2}
    )
    result["seats"]["4"]["kingdom"].append("v" * 500)
    result["seasons"][0]["economy"] = {"1": {"paid": "x", "decision": "store", "store": "y"}}
    result["seasons"].insert(1, "not a season")
    result["next_round"] = {"round": "x", "phase": "dance", "acting": "all"}
    result["seasons_total"] = 10**9
    odd["players"] = [{"seat": 1, "name": 5}, "someone", {"seat": "x", "name": "Bo"}]
    for name, fn in PICTURES.items():
        svg = fn(odd)
        check_svg(svg, overlap=False)
        assert svg is not None and "<x>" not in svg and "<y>" not in svg and "<z>" not in svg, name
        assert "<w>" not in svg and "w" * 100 not in svg and "v" * 100 not in svg
    assert "&lt;y&gt;" in (pic.kingdoms_svg(odd) or "")
    assert "and 4 more cards" in (pic.kingdoms_svg(odd) or "")


def _luminance(color: str) -> float:
    channels = [int(color[i : i + 2], 16) / 255 for i in (1, 3, 5)]
    linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]


def contrast(a: str, b: str) -> float:
    high, low = sorted((_luminance(a), _luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def test_text_colours_have_enough_contrast() -> None:
    """WCAG AA (4.5:1) for every text colour on every face it is written on,
    and 3:1 for the lines and edges that tell things apart."""
    faces = [pic.WHITE, pic.PANEL_FILL, pic.FAMINE_BAND]
    faces += [tint for _s, tint in pic.KIND_COLORS.values()] + [pic.UNKNOWN_KIND[1]]
    low = [
        (text, face, round(contrast(text, face), 2))
        for text in (pic.INK, pic.MUTED)
        for face in faces
        if contrast(text, face) < 4.5
    ]
    assert not low
    strokes = [s for s, _t in pic.SEAT_COLORS.values()] + [c for c, _d, _m in pic.SERIES.values()]
    assert all(contrast(s, pic.WHITE) >= 3 for s in strokes)
    assert all(contrast(c, pic.FAMINE_BAND) >= 3 for c, _d, _m in pic.SERIES.values())
