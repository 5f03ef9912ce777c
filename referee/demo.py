"""``referee demo``: a match to try the referee with, from seeds/demo."""

from __future__ import annotations

import json

from referee.rulesets.rocky_river.data import SEEDS_DIR
from referee.service import Referee

DEMO_FILE = SEEDS_DIR / "demo" / "demo.match.json"


def create_demo(svc: Referee, base_url: str, play: int = 0) -> list[tuple[str, str]]:
    """Create the demo match, play its first ``play`` rounds from the demo
    orders, open the next round, and return (label, link) pairs."""
    doc = json.loads(DEMO_FILE.read_text(encoding="utf-8"))
    created = svc.create_match(
        name="Demo: Rocky River Riding",
        map_ref=doc["map"],
        players=doc["players"],
        settings={"deadline_hours": 48, "publish_totals": False, "close_early": False},
    )
    rounds = [doc["draft"], doc["placements"], *doc["votes"]]
    for orders in rounds[:play]:
        svc.open_round(created.match_id)
        for seat, order in orders.items():
            svc.submit_order(created.match_id, int(seat), order)
        svc.close_round(created.match_id)
    if play < len(rounds):
        svc.open_round(created.match_id)
    names = {p["seat"]: p["name"] for p in doc["players"]}
    links = [
        ("host (keep private)", f"{base_url}/host/{created.host_token}"),
        *[
            (f"seat {seat} ({names[seat]})", f"{base_url}/play/{token}")
            for seat, token in sorted(created.player_tokens.items())
        ],
        ("public page", f"{base_url}/matches/{created.match_id}"),
    ]
    return links
