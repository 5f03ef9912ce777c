"""What the messages say, for people: plain e-mail text (no Markdown escapes),
webhook text that cannot ping or link, and nothing but the public view."""

from __future__ import annotations

import json
from typing import Any

from service.conftest import Clock, db_url, engine  # noqa: F401  (fixtures)
from sqlalchemy import Engine

from referee.notify.compose import plain
from referee.notify.config import NotifyConfig
from referee.rulesets.rocky_river.ruleset import DEMO_FILE
from referee.service import Referee

DEMO: dict[str, Any] = json.loads(DEMO_FILE.read_text(encoding="utf-8"))
HOSTILE = "Friday *river* <b>@everyone</b> [x](https://evil.example)"


def test_plain_undoes_the_post_escapes() -> None:
    assert plain(r"\*a\* &#64;b &#60;c&#62; \[d\]\(e\) \\") == "*a* @b <c> [d](e) \\"


def test_hostile_names_read_as_typed_in_e_mail_and_cannot_ping_or_link_in_webhooks(
    engine: Engine,  # noqa: F811
) -> None:
    svc = Referee(
        engine,
        Clock(),
        notify=NotifyConfig(
            public_url="https://referee.example.org", smtp_url="smtp://127.0.0.1:9"
        ),
    )
    players = [
        {**p, "name": n} for p, n in zip(DEMO["players"], ("<!channel>", "Bo", "Cy"), strict=True)
    ]
    created = svc.create_match(
        name=HOSTILE,
        setup={"map": DEMO["map"]},
        players=players,
        notify={"emails": {"1": "ana@example.org"}, "webhook_url": "https://93.184.216.34/h"},
        schedule={"auto_open": True, "hours_per_round": 24},
    )
    svc.close_round(created.match_id)
    messages = {(m.channel, m.event): m for m in svc.messages(created.match_id)}
    closed = messages[("email", "round_closed")]
    assert HOSTILE in closed.body  # the name as typed, in plain text
    assert "\\*" not in closed.body and "&#" not in closed.body
    assert closed.subject.startswith(HOSTILE[:20])
    for event in ("match_created", "round_opened", "round_closed"):
        payload = json.loads(messages[("webhook", event)].body)
        assert payload["allowed_mentions"] == {"parse": []}
        assert "@everyone" not in payload["content"]  # escaped: no ping even if parsed
        assert "](https://evil" not in payload["content"]  # no Markdown link
        assert "<!channel>" not in payload["text"]  # Slack's escaping
        for token in (created.host_token, *created.player_tokens.values()):
            assert token not in json.dumps(payload)
    created_text = json.loads(messages[("webhook", "match_created")].body)["text"]
    assert "&lt;!channel&gt;" in created_text
