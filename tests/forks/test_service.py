"""Forks through the service and the web (SQLite and PostgreSQL): the demo
played to the end, a seat's ``me`` (hand, options, can_take), the refusals
of K5 by the API, the host's audit page in words, and the forum post."""

from __future__ import annotations

import html
import re
from typing import Any

import pytest
from flask.testing import FlaskClient

from referee.demo import play_steps
from referee.errors import RuleError
from referee.ruleset import Viewer, get_ruleset
from referee.rulesets.forks.cards import CARDS, card_name
from referee.service import Referee
from referee.views import view_for


def demo_match(
    svc: Referee, steps: int, first_name: str | None = None, names: dict[str, str] | None = None
) -> Any:
    demo = get_ruleset("forks").demo(None)
    players = [dict(p) for p in demo.players]
    if first_name is not None:
        players[0]["name"] = first_name
    created = svc.create_match(
        name="Forks <b>night</b>",
        setup=demo.setup,
        players=players,
        settings={**demo.settings, **({"names": names} if names else {})},
        ruleset="forks",
        seed=demo.seed,
    )
    play_steps(svc, created.match_id, demo.steps[:steps])
    return created, demo


def test_the_demo_plays_to_the_end_without_defaults(svc: Referee) -> None:
    created, _ = demo_match(svc, 24)
    state = svc.state(created.match_id)
    assert state.match.finished
    result = view_for(state, Viewer.public())["result"]
    assert result["defaulted"] == [] and len(result["turns"]) == 12
    assert any(t["swap"] for t in result["turns"])  # the demo swaps
    assert result["turns"][0]["swap"] is None
    assert svc.recheck(created.match_id) == []


def test_a_seat_sees_its_options_and_can_take_and_only_the_acting_seat_sends(
    svc: Referee,
) -> None:
    created, _ = demo_match(svc, 2)  # turn 2's draw step is open: seat 2
    state = svc.state(created.match_id)
    me = view_for(state, Viewer.of_seat(2))
    drawn = state.game_state().data["turns"][-1]["drawn"]
    assert sorted(me["options"]) == sorted(drawn)
    assert me["can_take"] == state.game_state().data["investment"]
    assert me["hand"] == state.game_state().data["hands"]["2"]
    assert "options" not in view_for(state, Viewer.of_seat(3))
    with pytest.raises(RuleError) as exc:
        svc.submit_order(created.match_id, 3, {"keep": drawn[0]})
    assert exc.value.codes == ["step/not_acting"]
    nowhere = next(c for c in ("dtv-3", "dtv-5", "dtv-6", "dtv-7") if c not in drawn)
    with pytest.raises(RuleError) as exc:
        svc.submit_order(created.match_id, 2, {"keep": nowhere})
    assert exc.value.codes == ["keep/not_drawn"]
    svc.submit_order(created.match_id, 2, {"keep": drawn[1].upper()})
    mine = view_for(svc.state(created.match_id), Viewer.of_seat(2))["orders"]["3"]["2"]
    assert mine["order"] == {"keep": drawn[1]}


def test_the_host_audit_page_says_the_audit_in_words(web: FlaskClient, svc: Referee) -> None:
    early, _ = demo_match(svc, 23)
    r = web.get(f"/host/{early.host_token}")
    assert f"/host/{early.host_token}/audit" not in r.get_data(as_text=True)  # not yet
    created, _ = demo_match(svc, 24)
    html = web.get(f"/host/{created.host_token}").get_data(as_text=True)
    assert f"/host/{created.host_token}/audit" in html
    page = web.get(f"/host/{created.host_token}/audit").get_data(as_text=True)
    assert "Best invest choices" in page and "proved optimal" in page
    report = svc.audit(created.match_id)
    said = sentences(page)
    assert len(said) == len(report["seats"])
    changed = 0
    for seat in report["seats"].values():
        # the JSON's sentence (cards by id, the contract's words), each card by its name
        assert by_name(seat["text"]) in said
        if any(c["best"] != c["actual"] for c in seat["invest"]):
            assert seat["text"] not in said
            changed += 1
    assert changed  # the comparison is not blind
    assert re.search(r"<td>\d+</td>\s*<td>\d+</td>", page) or "<td>-" in page
    details = page.split("every invest step, actual and best", 1)[1]
    assert not CARD_ID.search(details.split("</section>", 1)[0])  # the list: names too


def test_the_audit_names_cards_not_ids_whatever_the_names_chosen(
    web: FlaskClient, svc: Referee
) -> None:
    """The host's audit page and the CLI say the audit in the same words, cards
    by their names ("Oxime 3"); the JSON (a contract) keeps them by id. A
    player named like a card and a company renamed like one are shown as typed."""
    created, _ = demo_match(svc, 24, first_name="oxime-3 <b>", names={"needle": "apidae-5 ltd"})
    report = svc.audit(created.match_id)
    page = web.get(f"/host/{created.host_token}/audit").get_data(as_text=True)
    cli = get_ruleset("forks").audit_text(svc.document(created.match_id), stored=True)
    assert sentences(page) == cli.splitlines()[2:]
    assert cli.splitlines()[2].startswith("oxime-3 <b> ")
    names = {"needle": "apidae-5 ltd"}
    moved = 0
    for (seat, entry), line in zip(report["seats"].items(), cli.splitlines()[2:], strict=True):
        for c in entry["invest"]:
            if c["best"] == c["actual"]:
                continue
            moved += 1
            for card in (c["best"], c["actual"]):
                assert f"{card_name(card, names)} " in line, (seat, line)
                assert re.search(rf"(?<![\w-]){card}(?![\w-])", entry["text"]), entry["text"]
                assert not re.search(rf"(?<![\w-]){card}(?![\w-])", line), line
    assert moved
    assert "apidae-5 ltd" in cli  # the renamed company, as the host typed it


def sentences(page: str) -> list[str]:
    """The audit page's sentences, one per seat, as text."""
    section = page.split('<section class="audit"', 1)[1].split("</ul>", 1)[0]
    return [html.unescape(li) for li in re.findall(r"<li>(.*?)</li>", section, re.S)]


CARD_ID = re.compile(r"(?<![\w-])(?:dtv|apidae|oxime|wildrock|needle)-[3-9]x?(?![\w-])")


def by_name(text: str) -> str:
    """``text`` with every card id in it as the card's name (default company names)."""
    return CARD_ID.sub(lambda m: card_name(m.group(0)), text)


@pytest.mark.parametrize("fmt", ["markdown", "bbcode"])
def test_the_post_holds_the_public_turns_and_no_private_card(svc: Referee, fmt: str) -> None:
    created, _ = demo_match(svc, 5)
    state = svc.state(created.match_id)
    post = get_ruleset("forks").post(view_for(state, Viewer.public()), fmt)
    data = state.game_state().data
    assert "Turn 1: Ana (seat 1) draws; Bo (seat 2) invested" in post
    assert "Forks <b>night</b>" not in post or fmt == "bbcode"  # Markdown escapes it
    taken = {t["swap"]["take"] for t in data["turns"] if t["swap"]}
    kept = [t["kept"] for t in data["turns"] if t["kept"] and t["kept"] not in taken]
    assert kept
    for card in kept:  # a kept card (not a swap's, once invested) is named by no post
        assert not re.search(re.escape(CARDS.name(card)) + r"(?! \(twin\))\b", post), card
    line = next(x for x in post.splitlines() if "Turn 3: Cy (seat 3) draws" in x)
    assert line.endswith("; Ana (seat 1) invests")  # its invest step is open
    assert "swapped" in line  # the swap is public once the draw step has closed


def test_the_generic_pages_show_a_forks_match(web: FlaskClient, svc: Referee) -> None:
    created, _ = demo_match(svc, 2)  # seat 2 draws
    state = svc.state(created.match_id)
    drawn = state.game_state().data["turns"][-1]["drawn"]
    seat2 = web.get(f"/play/{created.player_tokens[2]}")
    assert seat2.status_code == 200
    html = seat2.get_data(as_text=True)
    assert all(card in html for card in drawn)  # its options beside the order box
    seat3 = web.get(f"/play/{created.player_tokens[3]}").get_data(as_text=True)
    assert not any(card in seat3 for card in drawn)
    public = web.get(f"/matches/{created.match_id}").get_data(as_text=True)
    assert not any(card in public for card in drawn)
    host = web.get(f"/host/{created.host_token}")
    assert host.status_code == 200
    assert not any(card in host.get_data(as_text=True) for card in drawn)
    rules = web.get("/games/forks/rules")
    assert rules.status_code == 200 and "Swap variant" in rules.get_data(as_text=True)
