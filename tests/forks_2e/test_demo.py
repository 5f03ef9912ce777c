"""``referee demo --game forks-2e [--players N] [--play K]``: a Forks demo match
of 2 to 6 players, its first K rounds played with legal orders and the match
left consistent (views, export, re-resolution); a player count outside 2..6 is
a clear error with exit status 2 that creates nothing. On SQLite and
PostgreSQL."""

from __future__ import annotations

import re

import pytest
from click.testing import CliRunner
from sqlalchemy import Engine

from referee.cli import main
from referee.ruleset import Viewer
from referee.rulesets.forks_2e import match as m
from referee.rulesets.forks_2e.demo import DEMO_SEED, demo_orders
from referee.service import Referee
from referee.views import view_for

GAME = "forks-2e"


@pytest.fixture
def cli(db_url: str, engine: Engine, monkeypatch: pytest.MonkeyPatch) -> CliRunner:
    monkeypatch.setenv("REFEREE_DATABASE_URL", db_url)
    return CliRunner()


def demo(cli: CliRunner, *args: str) -> list[tuple[str, str]]:
    out = cli.invoke(main, ["demo", "--game", GAME, *args])
    assert out.exit_code == 0, out.output
    assert "Traceback" not in out.output
    return re.findall(r"^(.+?)\s{2,}(\S+)$", out.output, re.M)


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_a_demo_of_each_player_count_opens_its_first_keep_round(
    cli: CliRunner, svc: Referee, players: int
) -> None:
    links = dict(demo(cli, "--players", str(players)))
    seats = [label for label in links if label.startswith("seat ")]
    assert len(seats) == players
    [match_id] = svc.match_ids()
    state = svc.state(match_id)
    assert state.match.ruleset == GAME and len(state.seats) == players
    assert links["public page"].endswith(f"/matches/{match_id}")
    for seat in range(1, players + 1):
        url = next(v for k, v in links.items() if k.startswith(f"seat {seat} "))
        assert svc.find_token(url.rsplit("/", 1)[1]) == (match_id, seat)
    rnd = state.open_round
    assert rnd is not None and rnd.number == 1 and rnd.phase == "keep"
    assert rnd.acting == list(range(1, players + 1))
    view = view_for(state, Viewer.of_seat(1))
    assert len(view["options"]) == 3  # its three dealt cards
    assert len(view_for(state, Viewer.public())["rounds"]) == m.rounds_of(players)


def test_the_demo_has_four_players_by_default(cli: CliRunner, svc: Referee) -> None:
    demo(cli)
    assert len(svc.state(svc.match_ids()[0]).seats) == 4


@pytest.mark.parametrize(("players", "play"), [(2, 1), (3, 2), (4, 5), (5, 3), (6, 4)])
def test_play_k_plays_k_rounds_with_legal_orders(
    cli: CliRunner, svc: Referee, players: int, play: int
) -> None:
    demo(cli, "--players", str(players), "--play", str(play))
    [match_id] = svc.match_ids()
    state = svc.state(match_id)
    closed = [r for r in state.rounds if r.status == "closed"]
    assert [r.number for r in closed] == list(range(1, play + 1))
    rnd = state.open_round
    assert rnd is not None and rnd.number == play + 1  # the next one is open
    assert rnd.phase == ("keep" if play % 2 == 0 else "market")
    assert not state.match.finished
    # every order was the demo's own and legal: none was defaulted or refused
    expected = demo_orders(players, seed=DEMO_SEED)[:play]
    for number, orders in enumerate(expected, start=1):
        stored = {o.seat: o.payload for o in state.orders if o.round_number == number}
        assert stored == orders
    result = view_for(state, Viewer.host())["result"]
    assert result["closed"] == play and result["defaulted"] == []
    # consistent: the views, the seedless export, the stored results re-resolve
    for seat in range(1, players + 1):
        view = view_for(state, Viewer.of_seat(seat))
        assert view["options"] and view["options"] == view["result"]["options"]
    exported = svc.export(match_id)
    assert exported["seed"] is None and len(exported["orders"]) == play
    assert svc.recheck(match_id) == []
    document = svc.document(match_id)
    assert document["seed"] == DEMO_SEED
    assert m.resolve(document, details=True) == closed[-1].result


def test_play_to_the_end_finishes_the_match(cli: CliRunner, svc: Referee) -> None:
    demo(cli, "--players", "3", "--play", "100")  # more than there are: all of them
    [match_id] = svc.match_ids()
    state = svc.state(match_id)
    assert state.match.finished and state.open_round is None
    assert len(state.rounds) == m.rounds_of(3)
    public = view_for(state, Viewer.public())
    exported = svc.export(match_id)
    assert exported["seed"] == public["seed"] == DEMO_SEED
    resolved = m.resolve(exported)
    for key in ("hands", "ranking", "scores", "token_of_life", "elimination_candidate"):
        assert public["result"][key] == resolved[key]
    assert svc.recheck(match_id) == []


@pytest.mark.parametrize("players", ["1", "7"])
def test_a_bad_player_count_is_a_clear_error(cli: CliRunner, svc: Referee, players: str) -> None:
    out = cli.invoke(main, ["demo", "--game", GAME, "--players", players])
    assert out.exit_code == 2
    assert "demo/bad_players" in out.output
    assert "2 to 6 players" in out.output and players in out.output
    assert "Traceback" not in out.output
    assert svc.match_ids() == []  # nothing was created


def test_a_player_count_that_is_no_number_is_refused(cli: CliRunner, svc: Referee) -> None:
    for players in ("0", "x", "-2"):
        out = cli.invoke(main, ["demo", "--game", GAME, "--players", players])
        assert out.exit_code == 2, players
        assert "Traceback" not in out.output
    assert svc.match_ids() == []
