"""The pages showing solver results when the time budget runs out (issue 10,
High 2): the host's audit page and the map check page say the report is not
complete and show "not proven" where the solver proved nothing, never a
number it did not prove, and still answer 200."""

from __future__ import annotations

import json
import re

import pytest
from flask.testing import FlaskClient

from referee.rulesets.rocky_river import audit as audit_module
from referee.service import Referee

from .web_kit import GOLDEN_DIR


def test_the_audit_page_out_of_time_says_what_is_not_proven(
    client: FlaskClient, svc: Referee, monkeypatch: pytest.MonkeyPatch
) -> None:
    doc = json.loads((GOLDEN_DIR / "02-ties.match.json").read_text())
    created = svc.create_match(
        name="Budget", setup={"map": doc["map"]}, players=doc["players"], seed=doc["seed"]
    )
    mid = created.match_id
    for orders in [doc["draft"], doc["placements"], *doc["votes"]]:
        svc.open_round(mid)
        for seat, order in orders.items():
            svc.submit_order(mid, int(seat), order)
        svc.close_round(mid)
    budget = audit_module.AUDIT_BUDGET_SECONDS
    monkeypatch.setattr(audit_module, "AUDIT_BUDGET_SECONDS", 0.0)
    r = client.get(f"/host/{created.host_token}/audit")
    assert r.status_code == 200
    html = r.get_data(as_text=True)
    assert "Not complete" in html
    row = re.search(
        r'id="audit-1".*?<th scope="row">Score</th><td>(-?\d+)</td>'
        r"<td>([^<]*)</td>\s*<td>([^<]*)</td><td>([^<]*)</td>",
        html,
        re.S,
    )
    assert row is not None
    assert row.groups()[1:] == ("not proven", "not proven", "not proven")
    assert "the time budget ran out" in html
    # an audit cut short is not kept: with its budget back, the same state's audit
    # is proven in full
    monkeypatch.setattr(audit_module, "AUDIT_BUDGET_SECONDS", budget)
    exact = client.get(f"/host/{created.host_token}/audit").get_data(as_text=True)
    assert "not proven" not in exact and "Not complete" not in exact


def test_the_map_check_page_out_of_time_gives_no_verdict(
    client: FlaskClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = {
        "name": "x",
        "bundled_map": "three-rapids",
        "deadline_hours": "48",
        "check_map": "1",
    }
    for i in range(3):
        data[f"players-{i}-name"] = f"P{i}"
        data[f"players-{i}-garnets"] = "1"
    monkeypatch.setattr(audit_module, "FAIRNESS_BUDGET_SECONDS", 0.0)
    r = client.post("/new", data=data)
    assert r.status_code == 200
    html = r.get_data(as_text=True)
    assert "Reachable scores per seat" in html
    assert "<td>not proven</td><td>not proven</td>" in html
    assert "Not complete" in html
    assert "No seat is favoured" not in html and "clearly favoured" not in html
