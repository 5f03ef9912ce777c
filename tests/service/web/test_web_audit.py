"""The host's audit page and the fairness report of the map check page (issue 5)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from flask.testing import FlaskClient

from referee.rulesets.rocky_river import parse_match, resolve
from referee.rulesets.rocky_river.audit import audit
from referee.rulesets.rocky_river.data import load_deck
from referee.service import Referee

from .web_kit import GOLDEN_DIR

MAPS = Path(__file__).resolve().parents[3] / "seeds" / "maps"


def play(svc: Referee, doc: dict[str, Any], rounds: int) -> tuple[str, str, dict[int, str]]:
    created = svc.create_match(
        name="Audit", setup={"map": doc["map"]}, players=doc["players"], seed=doc["seed"]
    )
    mid = created.match_id
    for orders in [doc["draft"], doc["placements"], *doc["votes"]][:rounds]:
        svc.open_round(mid)
        for seat, order in orders.items():
            svc.submit_order(mid, int(seat), order)
        svc.close_round(mid)
    return mid, created.host_token, created.player_tokens


def test_audit_page_shows_every_seat_and_goal(client: FlaskClient, svc: Referee) -> None:
    doc = json.loads((GOLDEN_DIR / "02-ties.match.json").read_text())
    _, host, seats = play(svc, doc, 5)
    dashboard = client.get(f"/host/{host}").get_data(as_text=True)
    assert f"/host/{host}/audit" in dashboard
    r = client.get(f"/host/{host}/audit")
    assert r.status_code == 200
    html = r.get_data(as_text=True)
    expected = audit(resolve(parse_match(doc)), load_deck()).as_dict()
    for seat, name in (("1", "P1"), ("2", "P2"), ("3", "P3")):
        assert f"{name} (seat {seat})" in html
        s = expected["seats"][seat]
        row = re.search(
            rf'id="audit-{seat}".*?<th scope="row">Score</th><td>(-?\d+)</td><td>(-?\d+)</td>'
            r"\s*<td>(-?\d+)</td><td>(-?\d+)</td>",
            html,
            re.S,
        )
        assert row is not None
        assert [int(v) for v in row.groups()] == [
            s["actual"],
            s["best_votes"],
            s["best_placement"],
            s["best_joint"],
        ]
    assert "Lead over the worst opponent" in html
    # a player's link cannot open it
    assert client.get(f"/host/{seats[1]}/audit").status_code == 404


def test_audit_page_before_mapping_explains_why(client: FlaskClient, svc: Referee) -> None:
    doc = json.loads((GOLDEN_DIR / "01-full-game.match.json").read_text())
    _, host, _ = play(svc, doc, 1)
    r = client.get(f"/host/{host}/audit")
    assert r.status_code == 422
    assert "needs the mapping round to have closed" in r.get_data(as_text=True)
    assert f"/host/{host}/audit" not in client.get(f"/host/{host}").get_data(as_text=True)


def test_service_audit_covers_closed_rounds_only(svc: Referee) -> None:
    doc = json.loads((GOLDEN_DIR / "01-full-game.match.json").read_text())
    mid, _, _ = play(svc, doc, 3)
    svc.open_round(mid)  # rafting 2 open: not counted
    report = svc.audit(mid)
    assert report["rafting_rounds"] == 1
    partial = {**doc, "votes": doc["votes"][:1]}
    assert report == audit(resolve(parse_match(partial)), load_deck()).as_dict()


def test_map_check_page_reports_fairness(
    client: FlaskClient, lopsided_map_doc: dict[str, Any]
) -> None:
    doc = json.loads((MAPS / "three-rapids.json").read_text())
    data: dict[str, Any] = {
        "name": "x",
        "bundled_map": "three-rapids",
        "deadline_hours": "48",
        "check_map": "1",
        "map_json": json.dumps(doc),
    }
    for i in range(3):
        data[f"players-{i}-name"] = f"P{i}"
        data[f"players-{i}-garnets"] = "1"
    html = client.post("/new", data=data).get_data(as_text=True)
    assert "Reachable scores per seat" in html
    assert "<td>-45</td><td>78</td>" in html
    assert "No seat is favoured" in html
    data["map_json"] = json.dumps(lopsided_map_doc)
    html = client.post("/new", data=data).get_data(as_text=True)
    assert "Warning: seat 1 is clearly favoured" in html
