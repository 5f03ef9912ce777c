"""Makes ``released-d7f2dda.db`` (+ ``.json``): a SQLite database written by the
referee as released before games became plug-ins (commit d7f2dda, schema
revision 0001), for tests/reliability/test_released_database.py.

Run it with the released code first on the path, from a checkout of that commit:

    git worktree add /tmp/released d7f2dda
    PYTHONPATH=/tmp/released python tests/reliability/data/make_released_db.py

It is kept to say how the file was made; today's code cannot run it (it calls the
released service's ``create_match(map_ref=...)``).
"""

from __future__ import annotations

import json
from pathlib import Path

from sqlmodel import Session, select

from referee.db import make_engine, migrate
from referee.models import Order
from referee.service import Referee

HERE = Path(__file__).resolve().parent
DB = HERE / "released-d7f2dda.db"


def main() -> None:
    DB.unlink(missing_ok=True)
    engine = make_engine(f"sqlite:///{DB}")
    migrate(engine)
    svc = Referee(engine)
    demo = json.loads((HERE.parents[2] / "seeds/demo/demo.match.json").read_text("utf-8"))
    rounds = [demo["draft"], demo["placements"], *demo["votes"]]
    out: dict[str, dict[str, object]] = {}

    def create(label: str, settings: dict[str, object], map_ref: object) -> str:
        created = svc.create_match(
            name=f"Released {label}", map_ref=map_ref, players=demo["players"], settings=settings
        )
        out[label] = {
            "id": created.match_id,
            "host_token": created.host_token,
            "player_tokens": {str(s): t for s, t in created.player_tokens.items()},
        }
        return created.match_id

    # a finished, revealed match on a bundled map
    done = create("finished", {"publish_totals": True}, demo["map"])
    for orders in rounds:
        svc.open_round(done)
        for seat, order in orders.items():
            svc.submit_order(done, int(seat), order)
        svc.close_round(done)
    svc.reveal(done)
    # a match half-way: draft and mapping closed, rafting 1 open with two orders
    # (one entered by the host) and a replaced one; an uploaded map
    uploaded = json.loads((HERE.parents[2] / "seeds/maps/three-rapids.json").read_text("utf-8"))
    uploaded["name"] = "Uploaded rapids"
    half = create("half-way", {"deadline_hours": 0}, uploaded)
    for orders in rounds[:2]:
        svc.open_round(half)
        for seat, order in orders.items():
            svc.submit_order(half, int(seat), order)
        svc.close_round(half)
    svc.open_round(half)
    svc.submit_order(half, 1, ["R", "R", "R"])
    svc.submit_order(half, 1, rounds[2]["1"])
    svc.submit_order(half, 2, rounds[2]["2"], host_entered=True)
    # a match whose draft is open, paused
    waiting = create("paused", {"close_early": True}, demo["map"])
    svc.open_round(waiting)
    svc.submit_order(waiting, 3, rounds[0]["3"])
    svc.pause(waiting)

    with Session(engine) as session:
        rows = session.exec(select(Order))
        receipts = {f"{o.match_id}/{o.round_number}/{o.seat}": o.receipt for o in rows}
    (HERE / "released-d7f2dda.json").write_text(
        json.dumps({"matches": out, "receipts": receipts}, indent=1, sort_keys=True) + "\n", "utf-8"
    )


if __name__ == "__main__":
    main()
