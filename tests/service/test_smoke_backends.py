"""The service runs a whole match the same way on every backend."""

from __future__ import annotations

import json
from pathlib import Path

from referee.rulesets.rocky_river import resolve_document
from referee.service import Referee

GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "rocky-river"


def test_whole_match_through_the_service_reproduces_the_golden_result(svc: Referee) -> None:
    doc = json.loads((GOLDEN / "03-missing-orders.match.json").read_text())
    expected = json.loads((GOLDEN / "03-missing-orders.expected.json").read_text())
    created = svc.create_match(
        name="golden 03", setup={"map": doc["map"]}, players=doc["players"], seed=doc["seed"]
    )
    for orders in [doc["draft"], doc["placements"], *doc["votes"]]:
        svc.open_round(created.match_id)
        for seat, order in (orders or {}).items():
            if order is not None:
                svc.submit_order(created.match_id, int(seat), order)
        closed = svc.close_round(created.match_id)
    assert closed.result is not None
    assert {k: closed.result[k] for k in expected} == expected
    assert svc.recheck(created.match_id) == []
    assert resolve_document(svc.export(created.match_id)) == expected
