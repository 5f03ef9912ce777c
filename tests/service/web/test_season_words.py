"""The season pages in the player's words (issue 23, item 5), on SQLite and
PostgreSQL: a Death Match's result in winner/loser words naming who will be
eliminated, with "I am sure" on both paths (played here, entered by hand);
"1 garnet" and "1 Token of Life"; the opponent chosen for a Death Match, and
the candidate who chose, see a banner on their season page (nobody else)."""

from __future__ import annotations

import re
from typing import Any

from flask import Flask
from flask.testing import FlaskClient

from referee.seasons.service import Seasons
from referee.service import Referee

from ..test_seasons import game_parts, play_to_the_end

NAMES = ["Ana", "Bo", "Cy", "Di"]


def html(r: Any) -> str:
    text: str = r.get_data(as_text=True)
    return text


def chosen(app: Flask, garnets: list[int] | None = None) -> tuple[Seasons, Referee, Any, Any]:
    """A season of four whose episode 1 waits for its Death Match: the made season, the episode."""
    seasons: Seasons = app.extensions["seasons"]
    svc: Referee = app.extensions["referee"]
    roster = [{"name": n, "garnets": g} for n, g in zip(NAMES, garnets or [0] * 4, strict=True)]
    made = seasons.create_season(name="Words", players=roster, rules={"token_bonus": 1})
    sid = made.season_id
    _, main = seasons.create_main_match(sid, players=[1, 2, 3, 4], **game_parts("forks-2e", 4))
    play_to_the_end(svc, main.match_id)
    seasons.record_main(sid, 1)
    e = seasons.state(sid).episodes[-1]
    assert e.candidate is not None
    opponent = seasons.opponents(sid, 1)[0]
    seasons.choose_opponent(sid, 1, chooser=e.candidate, opponent=opponent)
    return seasons, svc, made, seasons.state(sid).episodes[-1]


def banner(client: FlaskClient, token: str) -> str | None:
    text = html(client.get(f"/season/{token}"))
    found = re.search(r'<section class="warning death-banner".*?</section>', text, re.S)
    return found.group(0) if found else None


def test_the_chosen_opponent_and_the_candidate_see_a_banner(
    app: Flask, client: FlaskClient
) -> None:
    seasons, svc, made, e = chosen(app)
    sid, tokens = made.season_id, made.player_tokens
    theirs = banner(client, tokens[e.opponent])
    assert theirs is not None
    assert (
        f"<strong>{NAMES[e.candidate - 1]}</strong>, the Elimination Candidate, chose you" in theirs
    )
    assert "has not created it yet" in theirs
    mine = banner(client, tokens[e.candidate])
    assert mine is not None and f"You chose <strong>{NAMES[e.opponent - 1]}</strong>" in mine
    for other in set(tokens) - {e.candidate, e.opponent}:
        assert banner(client, tokens[other]) is None
    # the Death Match made: the banner links the seat's page in it
    seasons.create_death_match(sid, 1, **game_parts("forks-2e", 2))
    theirs = banner(client, tokens[e.opponent])
    assert theirs is not None
    link = re.search(r'<a class="secret-link" href="(/play/[^"]+)">Play it', theirs)
    assert link and client.get(link.group(1)).status_code == 200
    # decided: no banner
    death = seasons.state(sid).episodes[-1].death_match_id
    assert death is not None
    play_to_the_end(svc, death)
    seasons.record_death(sid, 1)
    assert banner(client, tokens[e.opponent]) is None
    assert banner(client, tokens[e.candidate]) is None


def test_a_played_death_match_is_recorded_in_winner_and_loser_words(
    app: Flask, client: FlaskClient
) -> None:
    seasons, svc, made, e = chosen(app)
    sid = made.season_id
    host = f"/season-host/{made.host_token}"
    seasons.create_death_match(sid, 1, **game_parts("forks-2e", 2))
    death = seasons.state(sid).episodes[-1].death_match_id
    assert death is not None
    play_to_the_end(svc, death)
    loser = seasons.death_loser(sid, 1)
    winner = e.opponent if loser == e.candidate else e.candidate
    text = html(client.get(host))
    assert (
        f'<strong class="death-winner" data-player="{winner}">{NAMES[winner - 1]}</strong> won'
        in text
    )
    assert (
        f'<strong class="death-loser" data-player="{loser}">{NAMES[loser - 1]}</strong> lost'
        in text
    )
    assert f"Record the result: {NAMES[loser - 1]} is eliminated" in text
    unsure = client.post(f"{host}/death-result")
    assert unsure.status_code == 422 and "tick “I am sure”" in html(unsure)
    assert seasons.state(sid).episodes[-1].loser is None
    r = client.post(f"{host}/death-result", data={"sure": "y"})
    assert r.status_code == 303
    assert seasons.state(sid).episodes[-1].loser == loser
    assert f"{NAMES[loser - 1]} lost the Death Match and is eliminated." in html(client.get(host))


def test_an_entered_result_offers_winner_and_loser_words(app: Flask, client: FlaskClient) -> None:
    _, _, made, e = chosen(app)
    text = html(client.get(f"/season-host/{made.host_token}"))
    c, o = NAMES[e.candidate - 1], NAMES[e.opponent - 1]
    assert re.search(
        rf'value="{e.opponent}" id="loser-{e.opponent}" required> <label for="loser-{e.opponent}">'
        rf"{c} won, {o} lost and is eliminated</label>",
        text,
    )
    assert f"{o} won, {c} lost and is eliminated" in text


def test_one_garnet_and_one_token_are_singular(app: Flask, client: FlaskClient) -> None:
    seasons: Seasons = app.extensions["seasons"]
    made = seasons.create_season(
        name="Singular",
        players=[{"name": "Ana", "garnets": 1}, {"name": "Bo", "garnets": 2}],
        rules={"token_bonus": 1},
    )
    ana = html(client.get(f"/season/{made.player_tokens[1]}"))
    assert "You have <strong>1 garnet</strong> and\n<strong>0 Tokens of Life</strong>." in ana
    assert "holder gets 1 garnet;" in ana
    bo = html(client.get(f"/season/{made.player_tokens[2]}"))
    assert "You have <strong>2 garnets</strong>" in bo
    post = html(client.get(f"/seasons/{made.season_id}/post?format=markdown"))
    assert "1 garnet," in post and "2 garnets," in post and "1 garnets" not in post
