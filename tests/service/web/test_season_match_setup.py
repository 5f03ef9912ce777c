"""Season matches are set up like any match (issue 23, item 2), from the
season host page's forms alone, on SQLite and PostgreSQL: the game's own
set-up fields and settings (a Rocky River map, Forks variants), the deadline,
"close as soon as all have sent" and "open each round by itself"; the Main
Match's players ticked as a valid set for the chosen game, naming who sits
out, and a refusal that says whom to untick."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from flask import Flask
from flask.testing import FlaskClient

from referee.ruleset import get_ruleset, ruleset_names
from referee.seasons.service import Seasons
from referee.service import Referee
from referee.web.game import web_for

from ..test_seasons import play_to_the_end
from .test_season_pages import ROSTER, create_season, html

THREE_RAPIDS = Path(__file__).resolve().parents[3] / "seeds" / "maps" / "three-rapids.json"


def ticked(text: str) -> list[int]:
    return [
        int(n)
        for n in re.findall(
            r'<input type="checkbox" name="players" value="(\d+)" id="[^"]+" checked>', text
        )
    ]


def chosen_game(text: str, kind: str) -> str:
    found = re.search(
        rf'<select id="{kind}-game" name="game">.*?<option value="([^"]+)" selected>', text, re.S
    )
    assert found, text
    return found.group(1)


def season(app: Flask, client: FlaskClient) -> tuple[str, str, Seasons]:
    links = create_season(client)
    seasons: Seasons = app.extensions["seasons"]
    return links["host"], links["id"], seasons


def test_the_main_match_form_is_the_games_own(app: Flask, client: FlaskClient) -> None:
    host, _, _ = season(app, client)
    text = html(client.get(host))
    # six still in: the game offered first is one that takes them all, every one ticked
    assert chosen_game(text, "main") == "forks-2e"
    assert ticked(text) == [1, 2, 3, 4, 5, 6]
    assert 'name="merge"' in text and 'name="tiebreak-0"' in text  # Forks variants
    assert 'name="deadline_hours"' in text
    assert re.search(r'<input [^>]*\bchecked id="close_early" name="close_early"', text)
    assert re.search(r'<input [^>]*\bchecked id="auto_open" name="auto_open"', text)
    assert 'id="main-match-fields" data-game-fields' in text and "game_choice.js" in text
    # the game chosen without JavaScript: Rocky River's map, three players ticked
    text = html(client.get(f"{host}?game=rocky-river"))
    assert chosen_game(text, "main") == "rocky-river"
    assert 'name="bundled_map"' in text and 'name="map_file"' in text
    assert 'enctype="multipart/form-data"' in text
    assert ticked(text) == [1, 2, 3]
    left_out = re.search(r'<strong class="left-out">(.*?)</strong>', text, re.S)
    assert left_out and left_out.group(1) == "Di, Ed, Flo"
    assert "takes at most 3 players" in text
    # a game that is not offered falls back to the default
    assert chosen_game(html(client.get(f"{host}?game=<b>")), "main") == "forks-2e"


def test_a_main_match_takes_the_set_up_and_the_automation_of_the_form(
    app: Flask, client: FlaskClient, svc: Referee
) -> None:
    host, sid, seasons = season(app, client)
    data: dict[str, Any] = {
        "game": "rocky-river",
        "players": ["2", "4", "6"],
        "bundled_map": "three-rapids",
        "map_json": THREE_RAPIDS.read_text("utf-8"),
        "deadline_hours": "6",
        "auto_open": "y",  # close_early left unticked
        "publish_totals": "y",
    }
    r = client.post(f"{host}/main", data=data)
    assert r.status_code == 303, html(r)
    match_id = seasons.state(sid).episodes[-1].main_match_id
    assert match_id is not None
    state = svc.state(match_id)
    settings = state.match.settings
    assert settings["deadline_hours"] == 6 and settings["auto_open"] is True
    assert settings["close_early"] is False and settings["publish_totals"] is True
    assert state.match.setup["map"] == json.loads(THREE_RAPIDS.read_text("utf-8"))
    assert [r.number for r in state.rounds] == [1]  # opened by itself
    assert [s.name for s in state.seats] == [ROSTER[1][0], ROSTER[3][0], ROSTER[5][0]]


def test_forks_variants_and_no_automation(app: Flask, client: FlaskClient, svc: Referee) -> None:
    host, sid, seasons = season(app, client)
    order = ["red", "green", "yellow", "grey", "blue"]
    data: dict[str, Any] = {"game": "forks-2e", "players": ["1", "2", "3", "5"]}
    data.update({f"tiebreak-{i}": c for i, c in enumerate(order)})
    data.update({"merge": "y", "deadline_hours": "0"})
    r = client.post(f"{host}/main", data=data)
    assert r.status_code == 303, html(r)
    match_id = seasons.state(sid).episodes[-1].main_match_id
    assert match_id is not None
    state = svc.state(match_id)
    settings = state.match.settings
    assert settings["merge"] is True and settings["tiebreak"] == order
    assert settings["close_early"] is False and settings["auto_open"] is False
    assert state.rounds == []  # the host opens each round


def test_too_many_players_ticked_names_whom_to_untick(app: Flask, client: FlaskClient) -> None:
    host, sid, seasons = season(app, client)
    r = client.post(f"{host}/main", data={"game": "rocky-river", "players": ["1", "3", "4", "6"]})
    text = html(r)
    assert r.status_code == 422, text
    assert "Rocky River Riding takes at most 3 players and 4 are ticked: untick 1" in text
    assert "(for example Flo)" in text
    assert ticked(text) == [1, 3, 4, 6]  # as sent, to correct
    assert chosen_game(text, "main") == "rocky-river"
    assert seasons.state(sid).episodes == []
    # a bad deadline is named, nothing made, the game's fields kept
    r = client.post(
        f"{host}/main",
        data={"game": "forks-2e", "players": ["1", "2"], "deadline_hours": "soon"},
    )
    assert r.status_code == 422 and "soon" in html(r) and 'name="merge"' in html(r)
    assert seasons.state(sid).episodes == []


def test_checking_the_map_only_makes_nothing(app: Flask, client: FlaskClient) -> None:
    host, sid, seasons = season(app, client)
    data = {"game": "rocky-river", "players": ["1", "2", "3"], "check_map": "1"}
    r = client.post(f"{host}/main", data=data)
    assert r.status_code == 200, html(r)
    assert '<p class="notice" role="status">The map is valid.</p>' in html(r)
    assert seasons.state(sid).episodes == []
    r = client.post(f"{host}/main", data={**data, "map_json": "{not json"})
    assert r.status_code == 422 and seasons.state(sid).episodes == []


def test_the_death_match_form_is_the_games_own(
    app: Flask, client: FlaskClient, svc: Referee
) -> None:
    host, sid, seasons = season(app, client)
    assert (
        client.post(
            f"{host}/main",
            data={"game": "forks-2e", "players": ["1", "2", "3"], "deadline_hours": "0"},
        ).status_code
        == 303
    )
    e = seasons.state(sid).episodes[-1]
    assert e.main_match_id is not None
    play_to_the_end(svc, e.main_match_id)
    seasons.record_main(sid, e.number)
    e = seasons.state(sid).episodes[-1]
    assert e.candidate is not None
    seasons.choose_opponent(
        sid, e.number, chooser=e.candidate, opponent=seasons.opponents(sid, e.number)[0]
    )
    text = html(client.get(host))
    of_two = {n for n in ruleset_names() if get_ruleset(n).min_players <= 2}
    assert chosen_game(text, "death") in of_two  # the games of 2 only
    assert 'value="rocky-river"' not in text.split('id="death-game"')[1].split("</select>")[0]
    assert 'id="death-match-fields" data-game-fields' in text
    # the fields of the game chosen (the first game of 2, whichever it is): its
    # settings and its set-up fields, none of another game's
    fields = text.split('id="death-match-fields"')[1].split("</form>")[0]
    rules = get_ruleset(chosen_game(text, "death"))
    own = [s.key for s in rules.settings] + list(web_for(rules).setup_fields())
    assert own, rules.name
    for name in own:
        assert f'name="{name}"' in fields, name
    if not any(s.key == "merge" for s in rules.settings):
        assert 'name="merge"' not in fields
    three = client.post(f"{host}/death", data={"game": "rocky-river"})  # a game of 3
    assert three.status_code == 422 and 'data-code="season/bad_game"' in html(three)
    assert seasons.state(sid).episodes[-1].death_match_id is None
    r = client.post(
        f"{host}/death",
        data={"game": "forks-2e", "deadline_hours": "2", "close_early": "y", "auto_open": "y"},
    )
    assert r.status_code == 303, html(r)
    death = seasons.state(sid).episodes[-1].death_match_id
    assert death is not None
    state = svc.state(death)
    assert state.match.settings["deadline_hours"] == 2 and state.match.settings["auto_open"]
    assert state.match.settings["close_early"] is True and len(state.rounds) == 1
    # made once only
    assert "Death Match exists already" in html(
        client.post(f"{host}/death", data={"game": "forks-2e"})
    )


def test_only_a_game_offered_makes_a_season_match(app: Flask, client: FlaskClient) -> None:
    host, sid, seasons = season(app, client)
    for game in ("", "chess", "<b>x</b>"):
        r = client.post(f"{host}/main", data={"game": game, "players": ["1", "2"]})
        text = html(r)
        assert r.status_code == 422 and 'data-code="season/bad_game"' in text, text
        assert "choose one of the games offered" in text and "<b>x</b>" not in text
    assert seasons.state(sid).episodes == []


def test_a_season_match_takes_a_clock_per_player_from_its_form(
    app: Flask, client: FlaskClient, svc: Referee
) -> None:
    """Issue 24: the season's Main Match form is the create form, clock included."""
    host, sid, seasons = season(app, client)
    assert 'id="clock"' in html(client.get(f"{host}?game=forks"))
    data: dict[str, Any] = {"game": "forks", "players": ["1", "2", "3"], "deadline_hours": "0"}
    data.update({"clock": "custom", "clock_bank": "3", "clock_add": "0.5", "auto_open": "y"})
    r = client.post(f"{host}/main", data=data)
    assert r.status_code == 303, html(r)
    match_id = seasons.state(sid).episodes[-1].main_match_id
    assert match_id is not None
    state = svc.state(match_id)
    assert state.match.settings["clock"] == {"bank_minutes": 3, "add_minutes": 0.5}
    (rnd,) = state.rounds  # opened by itself: the clock bounds it, with no fixed deadline
    assert rnd.deadline is not None
    assert (rnd.deadline - rnd.opened_at).total_seconds() == 210
