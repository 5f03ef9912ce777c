"""A one-time "send me my link again" link works once (issue 22, part 4c), on
SQLite and PostgreSQL: redeemed twice through the service, the second is
refused ``link/used``; two requests at once redeeming the same e-mailed link
give exactly one new private link, the other refused, both having passed the
page's own check first (so it is the service's check, under the match's lock,
that refuses the second)."""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator
from typing import Any

import pytest
from flask import Flask
from sqlalchemy import Engine

from referee.errors import RuleError
from referee.notify.config import NotifyConfig
from referee.service import Referee

from .conftest import PLAYERS, make_app

ANA = "ana@example.org"


def with_address(svc: Referee) -> tuple[str, dict[int, str]]:
    created = svc.create_match(
        name="Links",
        setup={"map": "three-rapids"},
        players=PLAYERS,
        notify={"emails": {"3": ANA}},
        base_url="http://localhost",
    )
    return created.match_id, created.player_tokens


def test_the_service_redeems_a_link_once(engine: Engine) -> None:
    svc = Referee(engine, notify=NotifyConfig(smtp_url="smtp://127.0.0.1:9"))
    mid, tokens = with_address(svc)
    asked: list[tuple[int, str]] = []

    def make_link(seat: int, fingerprint: str) -> str:
        asked.append((seat, fingerprint))
        return f"/link/{seat}/{fingerprint}"

    svc.request_link(mid, ANA, make_link)
    ((seat, fingerprint),) = asked
    assert seat == 3
    new = svc.redeem_link(mid, 3, fingerprint)
    assert svc.find_token(new) == (mid, 3) and svc.find_token(tokens[3]) is None
    with pytest.raises(RuleError) as again:
        svc.redeem_link(mid, 3, fingerprint)
    assert again.value.codes == ["link/used"]
    assert svc.find_token(new) == (mid, 3)  # the second changed nothing
    # a fingerprint of another seat's link, or of no length, is refused alike
    with pytest.raises(RuleError) as other:
        svc.redeem_link(mid, 2, fingerprint)
    assert other.value.codes == ["link/used"]
    with pytest.raises(RuleError) as short:
        svc.redeem_link(mid, 3, "")
    assert short.value.codes == ["link/used"]


@pytest.fixture
def app(db_url: str) -> Iterator[Flask]:
    yield from make_app(db_url, SMTP_URL="smtp://127.0.0.1:9", WTF_CSRF_ENABLED=False)


def test_two_requests_redeeming_one_link_at_once_give_one_new_link(
    app: Flask, monkeypatch: pytest.MonkeyPatch
) -> None:
    svc: Referee = app.extensions["referee"]
    mid, tokens = with_address(svc)
    client = app.test_client()
    assert client.post(f"/matches/{mid}/link", data={"email": ANA}).status_code == 303
    (message,) = [m for m in svc.messages(mid) if m.event == "link_again"]
    found = re.search(r"(/link/[A-Za-z0-9_.\-]+)", message.body)
    assert found
    path = found.group(1)

    # both requests pass the page's own check of the link, then meet here
    met = threading.Barrier(2, timeout=20)
    entered: list[int] = []
    real = svc.redeem_link

    def redeem(*args: Any) -> str:
        entered.append(1)
        met.wait()
        return real(*args)

    monkeypatch.setattr(svc, "redeem_link", redeem)
    answers: list[Any] = []
    errors: list[BaseException] = []

    def post() -> None:
        try:
            answers.append(app.test_client().post(path))
        except BaseException as exc:  # reported below, not lost in the thread
            errors.append(exc)

    threads = [threading.Thread(target=post) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert not errors, errors
    assert len(entered) == 2  # the service was asked twice: its check decided
    statuses = sorted(r.status_code for r in answers)
    assert statuses == [303, 410], [r.get_data(as_text=True)[:300] for r in answers]
    won = next(r for r in answers if r.status_code == 303)
    lost = next(r for r in answers if r.status_code == 410)
    assert "This link has been used" in lost.get_data(as_text=True)
    new = won.headers["Location"].rsplit("/", 1)[1]
    assert svc.find_token(new) == (mid, 3)  # the one new link is the seat's link
    assert svc.find_token(tokens[3]) is None
    assert client.post(path).status_code == 410  # and used now
