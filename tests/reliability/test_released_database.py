"""A database written by the released referee (before games were plug-ins,
schema revision 0001) upgrades in place and keeps working: no match, order,
receipt or link is lost, every closed round re-resolves to what was stored,
the open rounds take orders and close, and the pages answer.

The database is ``data/released-d7f2dda.db``, made by the released code itself
(``data/make_released_db.py`` says how); ``data/released-d7f2dda.json`` holds
the links it handed out and the receipts of its orders.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from sqlmodel import Session, select

from referee.backup import schema_revision
from referee.db import make_engine, migrate
from referee.models import Order
from referee.ruleset import Viewer
from referee.service import Referee
from referee.views import view_for
from referee.web import create_app

DATA = Path(__file__).resolve().parent / "data"
RELEASED: dict[str, Any] = json.loads((DATA / "released-d7f2dda.json").read_text("utf-8"))
MATCHES: dict[str, Any] = RELEASED["matches"]

# the newest schema revision (referee/migrations/versions)
HEAD = "0011"


@pytest.fixture
def upgraded(tmp_path: Path) -> Referee:
    copy = tmp_path / "released.db"
    shutil.copyfile(DATA / "released-d7f2dda.db", copy)
    engine = make_engine(f"sqlite:///{copy}")
    assert schema_revision(engine) == "0001"
    migrate(engine)
    assert schema_revision(engine) == HEAD
    return Referee(engine)


def test_every_link_order_and_receipt_survives(upgraded: Referee) -> None:
    assert sorted(upgraded.match_ids()) == sorted(m["id"] for m in MATCHES.values())
    for match in MATCHES.values():
        assert upgraded.find_token(match["host_token"]) == (match["id"], None)
        for seat, token in match["player_tokens"].items():
            assert upgraded.find_token(token) == (match["id"], int(seat))
    with Session(upgraded.engine) as session:
        rows = session.exec(select(Order))
        stored = {f"{o.match_id}/{o.round_number}/{o.seat}": o.receipt for o in rows}
    assert stored == RELEASED["receipts"]


def test_closed_rounds_re_resolve_and_the_finished_match_exports(upgraded: Referee) -> None:
    for match in MATCHES.values():
        assert upgraded.recheck(match["id"]) == []
    finished = upgraded.state(MATCHES["finished"]["id"])
    assert finished.match.finished and finished.match.revealed
    assert [r.title for r in finished.rounds] == [
        "Draft",
        "Mapping",
        "Rafting 1",
        "Rafting 2",
        "Rafting 3",
    ]
    exported = upgraded.export(finished.match.id)
    assert exported["seed"] == finished.match.seed and exported["map"] == "three-rapids"
    result = finished.ruleset.resolve(exported, details=True)
    assert result == finished.rounds[-1].result
    assert finished.match.settings["publish_totals"] is True


def test_the_open_rounds_take_orders_and_close(upgraded: Referee) -> None:
    half = MATCHES["half-way"]["id"]
    state = upgraded.state(half)
    assert state.setup.data["map"]["name"] == "Uploaded rapids"
    assert state.setup.data["map_name"] is None
    assert state.open_round is not None and state.open_round.acting == [1, 2, 3]
    # the host-entered order is still the host's, seat 1's replacement still counts
    orders = state.orders_of(state.open_round.number)
    assert orders[2].host_entered and orders[1].revision == 2
    upgraded.submit_order(half, 3, ["L", "L", "L"], kind="votes")
    upgraded.close_round(half)
    assert upgraded.recheck(half) == []

    paused = MATCHES["paused"]["id"]
    upgraded.resume(paused)
    for seat in (1, 2):  # close_early: the third order closes the draft
        upgraded.submit_order(paused, seat, list(reversed(_deck())))
    assert upgraded.state(paused).last_closed is not None


def test_pages_and_views_of_every_viewer_answer(upgraded: Referee) -> None:
    url = upgraded.engine.url.render_as_string(hide_password=False)
    app = create_app({"TESTING": True, "DATABASE_URL": url, "SECRET_KEY": "test-secret"})
    client = app.test_client()
    for match in MATCHES.values():
        state = upgraded.state(match["id"])
        for viewer in (Viewer.public(), Viewer.host(), Viewer.of_seat(1)):
            assert view_for(state, viewer)["rounds"]
        pages = [
            f"/matches/{match['id']}",
            f"/matches/{match['id']}/map.svg",
            f"/host/{match['host_token']}",
            *[f"/play/{t}" for t in match["player_tokens"].values()],
        ]
        for page in pages:
            assert client.get(page).status_code == 200, page
    app.extensions["referee"].engine.dispose()


def _deck() -> list[str]:
    return [chr(c) for c in range(ord("A"), ord("Z") + 1)] + ["AS"]
