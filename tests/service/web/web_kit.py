"""Helpers the host and player page tests share: a clock the tests move,
creating a match through the "/new" form, the host's buttons, and sending the
golden match's orders through the player's forms. (The fixtures that use them
are in conftest.py beside this file.)"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from flask.testing import FlaskClient
from markupsafe import escape

GOLDEN_DIR = Path(__file__).resolve().parents[2] / "golden" / "rocky-river"
GOLDEN = json.loads((GOLDEN_DIR / "01-full-game.match.json").read_text())
EXPECTED = json.loads((GOLDEN_DIR / "01-full-game.expected.json").read_text())


class Clock:
    def __init__(self) -> None:
        self.now = datetime(2030, 1, 1, 12, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now


@dataclass
class Links:
    match_id: str
    host: str
    seats: dict[int, str]


def new_match_form(name: str, /, **extra: Any) -> dict[str, Any]:
    """What the "/new" form sends for a match with the golden file's players,
    on the default map, changed by ``extra``."""
    data: dict[str, Any] = {
        "name": name,
        "bundled_map": "three-rapids",
        "deadline_hours": "48",
        "create": "1",
    }
    for i, p in enumerate(GOLDEN["players"]):
        data[f"players-{i}-name"] = p["name"]
        data[f"players-{i}-garnets"] = str(p["garnets"])
    data.update(extra)
    return data


def create_match(client: FlaskClient, name: str, **extra: str) -> Links:
    """Create a match with the golden file's players through the form (which
    redirects to the page of its links); its links."""
    r = client.post("/new", data=new_match_form(name, **extra), follow_redirects=True)
    assert r.status_code == 200, r.get_data(as_text=True)
    html = r.get_data(as_text=True)
    host = re.search(r'id="host-link" href="http://localhost(/host/[^"]+)"', html)
    seats = re.findall(r'href="http://localhost(/play/[^"]+)"', html)
    match_id = re.search(r'href="http://localhost/matches/([0-9a-f]+)"', html)
    assert host and match_id and len(seats) == 3
    return Links(match_id.group(1), host.group(1), dict(enumerate(seats, start=1)))


# the host's actions that cannot be undone: their form needs "I am sure" ticked
CONFIRMED = frozenset({"close", "reveal", "reissue"})


def host_post(client: FlaskClient, links: Links, action: str, **data: Any) -> Any:
    """A host's button, "I am sure" ticked where the form has it."""
    if action in CONFIRMED:
        data.setdefault("sure", "y")
    return client.post(f"{links.host}/{action}", data=data, follow_redirects=True)


def golden_order(number: int, seat: int) -> Any:
    if number == 1:
        return GOLDEN["draft"][str(seat)]
    if number == 2:
        return GOLDEN["placements"][str(seat)]
    return GOLDEN["votes"][number - 3][str(seat)]


def form_data(number: int, order: Any) -> dict[str, Any]:
    """What the page's form sends for ``order`` in round ``number``."""
    data: dict[str, Any] = {"round": str(number)}
    if number == 1:
        data["ranking"] = list(order)
    elif number == 2:
        data.update({f"place_{card}": branch for card, branch in order.items()})
    else:
        data.update({f"vote_{k}": d for k, d in enumerate(order)})
    return data


def send(client: FlaskClient, links: Links, seat: int, number: int, order: Any = None) -> Any:
    order = golden_order(number, seat) if order is None else order
    return client.post(links.seats[seat], data=form_data(number, order), follow_redirects=True)


def play_round(client: FlaskClient, links: Links, number: int) -> None:
    assert host_post(client, links, "open").status_code == 200
    for seat in (1, 2, 3):
        r = send(client, links, seat, number)
        assert r.status_code == 200 and "was accepted" in r.get_data(as_text=True)
    assert host_post(client, links, "close").status_code == 200


def page(client: FlaskClient, url: str) -> str:
    r = client.get(url)
    assert r.status_code == 200, r.status_code
    return r.get_data(as_text=True)


def esc(text: str) -> str:
    return str(escape(text))
