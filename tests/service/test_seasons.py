"""Seasons (issue 15), the service layer, on SQLite and PostgreSQL: a 6-player
season of three episodes (Main Matches of Rocky River and Forks 2nd Edition, a
Death Match of Forks 2nd Edition for 2 and one entered by hand), garnets read
from the ledger into each match and back through the season's rules, a Token
of Life protecting its holder from being chosen, two players eliminated, and
every balance the sum of the ledger."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sqlalchemy import Engine
from sqlmodel import Session

import referee.seasons.steps as seasons_module
from referee.db import make_engine, migrate
from referee.errors import RuleError
from referee.models import Episode, SeasonPlayer
from referee.names import shown
from referee.ruleset import get_ruleset
from referee.seasons.links import derived_seat_token
from referee.seasons.post import standings_post
from referee.seasons.rules import check_rules
from referee.seasons.service import Seasons
from referee.seasons.state import MainOutcome
from referee.seasons.views import season_view
from referee.service import Referee, token_hash

from .conftest import Clock

SECRET = b"season-test-secret"
ROSTER = [
    {"name": "Ana", "garnets": 5, "email": "ana@example.org"},
    {"name": "Bo", "garnets": 4},
    {"name": "Cy", "garnets": 3},
    {"name": "Di", "garnets": 2},
    {"name": "Ed", "garnets": 1},
    {"name": "Flo"},
]


def game_parts(game: str, players: int) -> dict[str, Any]:
    demo = get_ruleset(game).demo(players)
    settings = {k: v for k, v in demo.settings.items() if k not in ("deadline_hours",)}
    return {"game": game, "setup": demo.setup, "settings": settings}


def play_to_the_end(svc: Referee, match_id: str) -> None:
    """Every round opened and closed with no order (the rules' defaults)."""
    while not svc.state(match_id).match.finished:
        svc.open_round(match_id)
        svc.close_round(match_id)


def seat_garnets(svc: Referee, match_id: str) -> dict[str, int]:
    return {s.name: s.garnets for s in svc.state(match_id).seats}


def test_a_season_of_three_episodes(engine: Engine) -> None:
    svc = Referee(engine, Clock())
    seasons = Seasons(svc, SECRET)
    made = seasons.create_season(
        name="Genius S1", players=ROSTER, rules={"token_bonus": 2, "token_lasts": "episode"}
    )
    sid = made.season_id
    state = seasons.state(sid)
    assert state.balances() == {1: 5, 2: 4, 3: 3, 4: 2, 5: 1, 6: 0}
    assert seasons.find_token(made.host_token) == (sid, None)
    assert seasons.find_token(made.player_tokens[4]) == (sid, 4)

    # episode 1: a Rocky River Main Match of three players, garnets from the ledger
    seasons.add_entry(sid, player=6, change=3, reason="won the opening game")
    number, main = seasons.create_main_match(sid, players=[2, 4, 6], **game_parts("rocky-river", 3))
    assert number == 1
    assert seat_garnets(svc, main.match_id) == {"Bo": 4, "Di": 2, "Flo": 3}
    with pytest.raises(RuleError) as early:
        seasons.record_main(sid, 1)
    assert early.value.codes == ["season/match_not_finished"]
    play_to_the_end(svc, main.match_id)
    outcome = seasons.main_outcome(sid, 1)  # shown before it is applied
    assert outcome.candidate in (2, 4, 6)
    assert seasons.state(sid).balances()[outcome.token_holder or 2] in (4, 2, 3)  # nothing yet
    assert seasons.record_main(sid, 1) == outcome
    e1 = seasons.state(sid).episode(1)
    if outcome.token_holder is not None:
        bonus = [x for x in seasons.state(sid).ledger if x.entered_by == "referee"]
        assert [(x.player, x.change, x.episode) for x in bonus] == [(outcome.token_holder, 2, 1)]
        # the Token of Life protects its holder from being chosen
        with pytest.raises(RuleError) as protected:
            seasons.choose_opponent(
                sid, 1, chooser=outcome.candidate, opponent=outcome.token_holder
            )
        assert protected.value.codes == ["season/bad_opponent"]
        assert "holds a Token of Life" in str(protected.value)
        assert outcome.token_holder not in seasons.opponents(sid, 1)
    with pytest.raises(RuleError) as self_pick:
        seasons.choose_opponent(sid, 1, chooser=outcome.candidate, opponent=outcome.candidate)
    assert "yourself" in str(self_pick.value)
    someone_else = next(p for p in (1, 2, 3, 4, 5, 6) if p != e1.candidate)
    with pytest.raises(RuleError) as not_theirs:
        seasons.choose_opponent(sid, 1, chooser=someone_else, opponent=5)
    assert not_theirs.value.codes == ["season/not_candidate"]
    opponent = seasons.opponents(sid, 1)[0]
    seasons.choose_opponent(sid, 1, chooser=outcome.candidate, opponent=opponent)
    with pytest.raises(RuleError) as next_too_soon:
        seasons.create_main_match(sid, **game_parts("forks-2e", 5))
    assert next_too_soon.value.codes == ["season/episode_open"]

    # its Death Match: Forks 2nd Edition for 2, played here
    death = seasons.create_death_match(sid, 1, **game_parts("forks-2e", 2))
    balances = seasons.state(sid).balances()
    names = {p.number: p.name for p in seasons.state(sid).players}
    assert seat_garnets(svc, death.match_id) == {
        names[outcome.candidate]: balances[outcome.candidate],
        names[opponent]: balances[opponent],
    }
    play_to_the_end(svc, death.match_id)
    with pytest.raises(RuleError) as entered:
        seasons.record_death(sid, 1, loser=opponent)
    assert entered.value.codes == ["season/played_here"]
    first_out = seasons.record_death(sid, 1)
    assert first_out in (outcome.candidate, opponent)

    # episode 2: Forks 2nd Edition for the five still in; the Death Match entered by hand
    still_in = seasons.state(sid).remaining()
    assert len(still_in) == 5 and first_out not in still_in
    number, main2 = seasons.create_main_match(sid, **game_parts("forks-2e", 5))
    assert number == 2
    play_to_the_end(svc, main2.match_id)
    outcome2 = seasons.record_main(sid, 2)
    with pytest.raises(RuleError) as gone:
        seasons.choose_opponent(sid, 2, chooser=outcome2.candidate, opponent=first_out)
    assert "eliminated" in str(gone.value)
    opponent2 = seasons.opponents(sid, 2)[-1]
    seasons.choose_opponent(sid, 2, chooser=outcome2.candidate, opponent=opponent2)
    with pytest.raises(RuleError) as bad_loser:
        seasons.record_death(sid, 2, loser=first_out)
    assert bad_loser.value.codes == ["season/bad_loser"]
    assert seasons.record_death(sid, 2, loser=opponent2) == opponent2

    # episode 3: Rocky River for three of the four left; a correcting entry
    left = seasons.state(sid).remaining()
    assert len(left) == 4
    wrong = seasons.add_entry(sid, player=left[0], change=10, reason="typo")
    seasons.add_entry(sid, player=left[0], change=-9, reason="should be +1", corrects=wrong.id)
    with pytest.raises(RuleError) as bad_fix:
        seasons.add_entry(sid, player=left[1], change=1, reason="x", corrects=wrong.id)
    assert bad_fix.value.codes == ["ledger/bad_correction"]
    number, main3 = seasons.create_main_match(sid, players=left[:3], **game_parts("rocky-river", 3))
    expected = seasons.state(sid).balances()
    assert seat_garnets(svc, main3.match_id) == {names[p]: expected[p] for p in left[:3]}
    play_to_the_end(svc, main3.match_id)
    seasons.record_main(sid, 3)

    # every balance is the sum of the ledger; two players out
    final = seasons.state(sid)
    sums: dict[int, int] = {p.number: 0 for p in final.players}
    for entry in final.ledger:
        sums[entry.player] += entry.change
    assert final.balances() == sums
    assert sorted(p.number for p in final.players if p.eliminated_in is not None) == sorted(
        [first_out, opponent2]
    )
    assert [e.loser_by for e in final.episodes] == ["match", "host", None]


def test_each_player_reaches_their_own_matches_only(engine: Engine) -> None:
    svc = Referee(engine, Clock())
    seasons = Seasons(svc, SECRET)
    made = seasons.create_season(name="Links", players=ROSTER[:4])
    sid = made.season_id
    _, main = seasons.create_main_match(sid, players=[1, 3, 4], **game_parts("rocky-river", 3))
    for number in (1, 3, 4):
        (link,) = seasons.match_links(sid, number)
        assert link["match_id"] == main.match_id and link["path"] is not None
        token = link["path"].removeprefix("/play/")
        assert svc.find_token(token) == (main.match_id, link["seat"])
        assert main.player_tokens[link["seat"]] == token
    assert seasons.match_links(sid, 2) == []  # not in it
    # a re-issued seat link: the season page can no longer open it, and says so
    svc.reissue_token(main.match_id, 1)
    assert seasons.match_links(sid, 1)[0]["path"] is None
    # another server secret derives other links: the database alone gives none
    hashes = {p.number: p.token_hash for p in seasons.state(sid).players}
    other = derived_seat_token(b"another secret", hashes[3], main.match_id)
    assert svc.find_token(other) is None


@pytest.mark.parametrize(
    ("rules", "players", "code"),
    [
        ({"token_bonus": -1}, ROSTER, "season/bad_rules"),
        ({"token_lasts": "forever"}, ROSTER, "season/bad_rules"),
        ({"bonus": 1}, ROSTER, "season/bad_rules"),
        (None, ROSTER[:1], "season/bad_players"),
        (None, [{"name": "Ana"}, {"name": "ana"}], "season/confusable_names"),
        (None, [{"name": "Ana"}, {"name": "Bo", "garnets": -2}], "season/bad_players"),
        (None, [{"name": "Ana"}, {"name": "Bo", "email": "nope"}], "notify/bad_email"),
        (None, [{"name": "Ana"}, {"name": "Bo", "role": "x"}], "season/bad_players"),
    ],
)
def test_bad_seasons_are_refused_by_name(
    engine: Engine, rules: Any, players: Any, code: str
) -> None:
    seasons = Seasons(Referee(engine, Clock()), SECRET)
    with pytest.raises(RuleError) as refused:
        seasons.create_season(name="Bad", players=players, rules=rules)
    assert code in refused.value.codes


def at_balances(seasons: Seasons, season_id: str, numbers: list[int]) -> list[dict[str, Any]]:
    """A match's players of the season's ``numbers``, at their balances now."""
    balances = seasons.state(season_id).balances()
    return [{"seat": i, "name": f"P{p}", "garnets": balances[p]} for i, p in enumerate(numbers, 1)]


def seed_where(svc: Referee, players: list[dict[str, Any]], want: Any) -> str:
    """A seed whose Rocky River match of ``players`` (every order defaulted)
    ends as ``want(token_seat, candidate_seat)`` asks: found by playing probes."""
    parts = game_parts("rocky-river", 3)
    for i in range(300):
        seed = f"probe-{i}"
        probe = svc.create_match(
            name="probe",
            players=players,
            setup=parts["setup"],
            settings=parts["settings"],
            seed=seed,
        )
        play_to_the_end(svc, probe.match_id)
        result = svc.state(probe.match_id).rounds[-1].result or {}
        if want(result.get("token_of_life"), result["elimination_candidate"]["seat"]):
            return seed
    raise AssertionError("no seed found")


def test_tokens_that_last_until_used(engine: Engine) -> None:
    """``until_used``: a token protects its holder in later episodes too (even
    one they do not play in), until, become the Elimination Candidate, they
    spend it: no Death Match that episode."""
    assert check_rules(None) == {"token_bonus": 0, "token_lasts": "episode"}
    svc = Referee(engine, Clock())
    seasons = Seasons(svc, SECRET)
    sid = seasons.create_season(
        name="Until used", players=ROSTER, rules={"token_lasts": "until_used"}
    ).season_id

    rr = game_parts("rocky-river", 3)
    # episode 1: players 1, 2, 3; someone wins the token
    seed = seed_where(
        svc, at_balances(seasons, sid, [1, 2, 3]), lambda token, _c: token is not None
    )
    seasons.create_main_match(sid, players=[1, 2, 3], seed=seed, **rr)
    play_to_the_end(svc, seasons.state(sid).episode(1).main_match_id or "")
    first = seasons.record_main(sid, 1)
    holder = first.token_holder
    assert holder is not None and seasons.state(sid).tokens(1) == {holder: 1}
    seasons.choose_opponent(sid, 1, chooser=first.candidate, opponent=seasons.opponents(sid, 1)[0])
    seasons.record_death(sid, 1, loser=first.candidate)

    # episode 2: the holder does not play, and is still protected
    others = [p for p in seasons.state(sid).remaining() if p != holder][:3]
    seasons.create_main_match(sid, players=others, seed="e2", **rr)
    play_to_the_end(svc, seasons.state(sid).episode(2).main_match_id or "")
    second = seasons.record_main(sid, 2)
    assert holder not in seasons.opponents(sid, 2)
    assert seasons.state(sid).tokens(2).get(holder) == 1
    with pytest.raises(RuleError) as none:
        seasons.use_token(sid, 2, player=second.candidate)
    assert none.value.codes == ["season/no_token"]  # a token won now is not spendable now
    seasons.choose_opponent(sid, 2, chooser=second.candidate, opponent=seasons.opponents(sid, 2)[0])
    seasons.record_death(sid, 2, loser=second.candidate)

    # episode 3: the holder plays and is the Elimination Candidate: spends it
    left = seasons.state(sid).remaining()
    players = [holder, *[p for p in left if p != holder][:2]]
    seed = seed_where(svc, at_balances(seasons, sid, players), lambda _t, candidate: candidate == 1)
    seasons.create_main_match(sid, players=players, seed=seed, **rr)
    play_to_the_end(svc, seasons.state(sid).episode(3).main_match_id or "")
    third = seasons.record_main(sid, 3)
    assert third.candidate == holder
    seasons.use_token(sid, 3, player=holder)
    state = seasons.state(sid)
    assert state.tokens(3).get(holder, 0) == 0  # spent
    assert state.episode(3).token_used and state.done(state.episode(3))
    assert state.player(holder).eliminated_in is None
    with pytest.raises(RuleError) as over:
        seasons.choose_opponent(sid, 3, chooser=holder, opponent=left[-1])
    assert over.value.codes == ["season/episode_over"]


def test_the_season_view_shows_no_address_or_link_but_ones_own(engine: Engine) -> None:
    seasons = Seasons(Referee(engine, Clock()), SECRET)
    made = seasons.create_season(name="Views", players=ROSTER)
    state = seasons.state(made.season_id)
    hashes = [p.token_hash for p in state.players]
    for viewer, player in (("public", None), ("host", None), ("player", 2), ("player", 1)):
        view = season_view(state, viewer, player)  # type: ignore[arg-type]
        text = json.dumps(view)
        assert not any(h in text for h in hashes)
        assert not any(t in text for t in (made.host_token, *made.player_tokens.values()))
        assert ("ana@example.org" in text) == (viewer == "player" and player == 1)
        assert [p["garnets"] for p in view["players"]] == [5, 4, 3, 2, 1, 0]
    assert season_view(state, "host")["players"][0]["has_email"] is True
    assert "has_email" not in season_view(state)["players"][0]


def test_when_no_one_can_be_chosen_the_episode_ends_without_a_death_match(
    engine: Engine,
) -> None:
    """``until_used``: every other player still in holds a token and the candidate
    none: no one can be chosen, so the episode ends, no one eliminated."""
    svc = Referee(engine, Clock())
    seasons = Seasons(svc, SECRET)
    sid = seasons.create_season(
        name="Nobody", players=ROSTER[:4], rules={"token_lasts": "until_used"}
    ).season_id
    rr = game_parts("rocky-river", 3)

    seed = seed_where(
        svc, at_balances(seasons, sid, [1, 2, 3]), lambda token, _c: token is not None
    )
    seasons.create_main_match(sid, players=[1, 2, 3], seed=seed, **rr)
    play_to_the_end(svc, seasons.state(sid).episode(1).main_match_id or "")
    first = seasons.record_main(sid, 1)
    assert first.token_holder is not None
    seasons.choose_opponent(sid, 1, chooser=first.candidate, opponent=4)
    seasons.record_death(sid, 1, loser=4)
    # episode 2: the first holder is neither the new holder nor the candidate
    holder = first.token_holder
    players = [holder, *[p for p in (1, 2, 3) if p != holder]]
    seed = seed_where(
        svc,
        at_balances(seasons, sid, players),
        lambda token, candidate: token not in (None, 1) and candidate != 1,
    )
    seasons.create_main_match(sid, players=players, seed=seed, **rr)
    play_to_the_end(svc, seasons.state(sid).episode(2).main_match_id or "")
    second = seasons.record_main(sid, 2)
    state = seasons.state(sid)
    e2 = state.episode(2)
    assert e2.loser_by == "nobody" and state.done(e2)
    assert sorted(state.tokens(2)) == sorted([holder, second.token_holder])
    assert state.remaining() == [1, 2, 3]
    assert "no one could be chosen" in standings_post(season_view(state), "markdown")
    with pytest.raises(RuleError) as over:
        seasons.choose_opponent(sid, 2, chooser=second.candidate, opponent=holder)
    assert over.value.codes == ["season/episode_over"]
    # and the season goes on
    number, _ = seasons.create_main_match(sid, players=[1, 2, 3], **rr)
    assert number == 3


# ---- a change between a step's read and its lock (issue 22) -----------------------------


def meanwhile(monkeypatch: pytest.MonkeyPatch, change: Callable[[], object]) -> None:
    """Make ``change`` happen once between a season step's read and its lock:
    just before the next transaction of :mod:`referee.seasons` begins (the
    competing step, which runs its own transaction, is not hooked again)."""
    real = seasons_module.transaction
    pending = [change]

    def hooked(engine: Engine) -> Any:
        if pending:
            pending.pop()()
        return real(engine)

    monkeypatch.setattr(seasons_module, "transaction", hooked)


def tamper(
    engine: Engine, row: type[Any], key: tuple[Any, ...], **values: Any
) -> Callable[[], None]:
    """A change no season step makes (a row edited under the service's feet):
    what only a re-check under the lock can see."""

    def change() -> None:
        with Session(engine) as session:
            found = session.get(row, key)
            assert found is not None
            for name, value in values.items():
                setattr(found, name, value)
            session.add(found)
            session.commit()

    return change


def recorded_episode(engine: Engine) -> tuple[Referee, Seasons, str, MainOutcome]:
    """A 6-player season whose episode 1 (Rocky River of players 1, 2 and 3) is recorded."""
    svc = Referee(engine, Clock())
    seasons = Seasons(svc, SECRET)
    sid = seasons.create_season(name="Races", players=ROSTER).season_id
    _, main = seasons.create_main_match(sid, players=[1, 2, 3], **game_parts("rocky-river", 3))
    play_to_the_end(svc, main.match_id)
    return svc, seasons, sid, seasons.record_main(sid, 1)


def rechoosing(
    engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> tuple[Referee, Seasons, str, int, int, int]:
    """An episode whose candidate chose ``first`` and re-chooses ``second``
    meanwhile (between the next step's read and its lock): (service, seasons,
    season id, candidate, first, second)."""
    svc, seasons, sid, outcome = recorded_episode(engine)
    first, second = seasons.opponents(sid, 1)[:2]
    candidate = outcome.candidate
    seasons.choose_opponent(sid, 1, chooser=candidate, opponent=first)
    meanwhile(
        monkeypatch, lambda: seasons.choose_opponent(sid, 1, chooser=candidate, opponent=second)
    )
    return svc, seasons, sid, candidate, first, second


def test_a_death_match_is_made_against_the_opponent_chosen_now(
    engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The candidate re-chooses while the host creates the Death Match: refused,
    nothing recorded; made again, it is against the new opponent."""
    svc, seasons, sid, candidate, _, second = rechoosing(engine, monkeypatch)
    with pytest.raises(RuleError) as changed:
        seasons.create_death_match(sid, 1, **game_parts("forks-2e", 2))
    assert changed.value.codes == ["season/changed"]
    assert "the opponent changed meanwhile" in str(changed.value)
    assert "nothing was recorded" in str(changed.value)
    e = seasons.state(sid).episode(1)
    assert e.opponent == second and e.death_match_id is None and e.death_seats == {}
    monkeypatch.undo()
    death = seasons.create_death_match(sid, 1, **game_parts("forks-2e", 2))
    assert seasons.state(sid).episode(1).death_seats == {"1": candidate, "2": second}
    names = {p.number: p.name for p in seasons.state(sid).players}
    assert [s.name for s in svc.state(death.match_id).seats] == [names[candidate], names[second]]


def test_an_entered_loser_is_one_of_the_death_match_as_it_is_now(
    engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The host enters the old opponent as the loser while the candidate re-chooses:
    refused, no one eliminated (else a player no longer in the Death Match would be)."""
    _, seasons, sid, _, first, second = rechoosing(engine, monkeypatch)
    with pytest.raises(RuleError) as changed:
        seasons.record_death(sid, 1, loser=first)
    assert changed.value.codes == ["season/changed"]
    assert "the opponent changed meanwhile" in str(changed.value)
    state = seasons.state(sid)
    assert state.episode(1).loser is None and state.remaining() == [1, 2, 3, 4, 5, 6]
    monkeypatch.undo()
    assert seasons.record_death(sid, 1, loser=second) == second


def test_an_entered_result_is_refused_once_the_death_match_is_made(
    engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The host enters a result while the Death Match is made here: the match decides."""
    _, seasons, sid, outcome = recorded_episode(engine)
    opponent = seasons.opponents(sid, 1)[0]
    seasons.choose_opponent(sid, 1, chooser=outcome.candidate, opponent=opponent)
    meanwhile(monkeypatch, lambda: seasons.create_death_match(sid, 1, **game_parts("forks-2e", 2)))
    with pytest.raises(RuleError) as here:
        seasons.record_death(sid, 1, loser=opponent)
    assert here.value.codes == ["season/played_here"]
    e = seasons.state(sid).episode(1)
    assert e.death_match_id is not None and e.loser is None and e.loser_by is None


def test_a_played_death_match_is_decided_by_its_seats_as_recorded_now(
    engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    svc, seasons, sid, outcome = recorded_episode(engine)
    opponent = seasons.opponents(sid, 1)[0]
    seasons.choose_opponent(sid, 1, chooser=outcome.candidate, opponent=opponent)
    death = seasons.create_death_match(sid, 1, **game_parts("forks-2e", 2))
    play_to_the_end(svc, death.match_id)
    swapped = {"1": opponent, "2": outcome.candidate}
    meanwhile(monkeypatch, tamper(engine, Episode, (sid, 1), death_seats=swapped))
    with pytest.raises(RuleError) as changed:
        seasons.record_death(sid, 1)
    assert changed.value.codes == ["season/changed"]
    state = seasons.state(sid)
    assert state.episode(1).loser is None and len(state.remaining()) == 6


def test_a_main_match_is_of_players_still_in_when_it_is_recorded(
    engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    svc = Referee(engine, Clock())
    seasons = Seasons(svc, SECRET)
    sid = seasons.create_season(name="Races", players=ROSTER).season_id
    meanwhile(monkeypatch, tamper(engine, SeasonPlayer, (sid, 3), eliminated_in=1))
    with pytest.raises(RuleError) as changed:
        seasons.create_main_match(sid, players=[1, 2, 3], **game_parts("rocky-river", 3))
    assert changed.value.codes == ["season/changed"]
    assert "Cy" in str(changed.value) and "nothing was recorded" in str(changed.value)
    assert seasons.state(sid).episodes == []


def test_a_new_match_holds_the_balances_of_when_it_is_recorded(
    engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A ledger entry between reading the balances (the match's seats are made
    with them) and locking the season: the match would hold old garnets, so
    the step is refused and nothing recorded; for a Main and a Death Match."""
    _, seasons, sid, outcome = recorded_episode(engine)
    opponent = seasons.opponents(sid, 1)[0]
    seasons.choose_opponent(sid, 1, chooser=outcome.candidate, opponent=opponent)
    entry = lambda: seasons.add_entry(sid, player=opponent, change=3, reason="bonus")  # noqa: E731
    meanwhile(monkeypatch, entry)
    with pytest.raises(RuleError) as changed:
        seasons.create_death_match(sid, 1, **game_parts("forks-2e", 2))
    assert changed.value.codes == ["season/changed"]
    assert "garnets" in str(changed.value) and "nothing was recorded" in str(changed.value)
    assert seasons.state(sid).episode(1).death_match_id is None
    fresh = Seasons(Referee(engine, Clock()), SECRET)
    other = fresh.create_season(name="Ledger", players=ROSTER).season_id
    meanwhile(monkeypatch, lambda: fresh.add_entry(other, player=2, change=-1, reason="fine"))
    with pytest.raises(RuleError) as moved:
        fresh.create_main_match(other, players=[1, 2, 3], **game_parts("rocky-river", 3))
    assert moved.value.codes == ["season/changed"]
    assert fresh.state(other).episodes == []


def test_a_main_match_begins_the_episode_it_was_made_for(
    engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two hosts create the next Main Match at once: one episode begins, the other is refused."""
    svc = Referee(engine, Clock())
    seasons = Seasons(svc, SECRET)
    sid = seasons.create_season(name="Races", players=ROSTER).season_id
    rr = game_parts("rocky-river", 3)
    meanwhile(monkeypatch, lambda: seasons.create_main_match(sid, players=[4, 5, 6], **rr))
    with pytest.raises(RuleError) as changed:
        seasons.create_main_match(sid, players=[1, 2, 3], **rr)
    assert changed.value.codes == ["season/changed"]
    assert "episode 1 began meanwhile" in str(changed.value)
    (e,) = seasons.state(sid).episodes
    assert sorted(e.main_seats.values()) == [4, 5, 6]


def test_a_main_match_is_recorded_once_from_the_match_it_was_read_from(
    engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    svc = Referee(engine, Clock())
    seasons = Seasons(svc, SECRET)
    sid = seasons.create_season(name="Races", players=ROSTER, rules={"token_bonus": 3}).season_id
    rr = game_parts("rocky-river", 3)
    _, main = seasons.create_main_match(sid, players=[1, 2, 3], **rr)
    play_to_the_end(svc, main.match_id)
    # another match put in its place under the service's feet
    other = svc.create_match(
        name="other",
        players=at_balances(seasons, sid, [1, 2, 3]),
        **{"setup": rr["setup"], "settings": rr["settings"]},
    )
    meanwhile(monkeypatch, tamper(engine, Episode, (sid, 1), main_match_id=other.match_id))
    with pytest.raises(RuleError) as changed:
        seasons.record_main(sid, 1)
    assert changed.value.codes == ["season/changed"]
    assert seasons.state(sid).episode(1).recorded_at is None
    monkeypatch.undo()
    tamper(engine, Episode, (sid, 1), main_match_id=main.match_id)()
    # recorded meanwhile by another request: refused, its bonus given once
    meanwhile(monkeypatch, lambda: seasons.record_main(sid, 1))
    with pytest.raises(RuleError) as twice:
        seasons.record_main(sid, 1)
    assert twice.value.codes == ["season/recorded"]
    bonuses = [x for x in seasons.state(sid).ledger if x.entered_by == "referee"]
    assert len(bonuses) == (1 if seasons.state(sid).episode(1).token_holder else 0)


# ---- look-alike names (issue 22) ------------------------------------------------------


@pytest.mark.parametrize(
    "alike",
    ["\u0410na", "A\u200bna", "ana", "\uff21na", " Ana  "],
    ids=["cyrillic-A", "zero-width-space", "case", "fullwidth-A", "spaces"],
)
def test_look_alike_names_are_refused_in_a_roster(engine: Engine, alike: str) -> None:
    """Issue 22: the roster refused only names equal once case-folded, while a
    match refuses look-alikes, so a Main Match of all the players was refused."""
    seasons = Seasons(Referee(engine, Clock()), SECRET)
    players = [{"name": "Ana"}, {"name": "Bo"}, {"name": alike}]
    with pytest.raises(RuleError) as refused:
        seasons.create_season(name="Alike", players=players)
    assert refused.value.codes == ["season/confusable_names"]
    message = str(refused.value)
    assert "players 1 and 3" in message and f'"Ana" and {shown(alike.strip())}' in message
    # names that can be told apart are taken
    made = seasons.create_season(name="Apart", players=[{"name": "Ana"}, {"name": "Anna"}])
    assert [p.name for p in seasons.state(made.season_id).players] == ["Ana", "Anna"]


CONFUSING = "Aa\u0410\u0391\uff21\u200b\u00ad 0Oo\u03bf1lIrnm"


@given(names=st.lists(st.text(alphabet=CONFUSING, min_size=1, max_size=4), min_size=2, max_size=6))
@settings(max_examples=150, deadline=None, database=None)
def test_any_roster_taken_gives_a_main_match_of_everyone(names: list[str]) -> None:
    """Whatever names a season takes, a Main Match of all its players is taken
    by the match service (its name checks are the season's)."""
    engine = make_engine("sqlite://")
    migrate(engine)
    seasons = Seasons(Referee(engine, Clock()), SECRET)
    try:
        try:
            made = seasons.create_season(name="Any", players=[{"name": n} for n in names])
        except RuleError as exc:
            assert set(exc.codes) <= {"season/bad_players", "season/confusable_names"}, exc
            return
        parts = game_parts("forks-2e", len(names))
        number, _ = seasons.create_main_match(made.season_id, **parts)
        assert number == 1
    finally:
        engine.dispose()


# ---- re-issuing a player's season link (issue 22) -----------------------------------------


def seat_token(seasons: Seasons, sid: str, number: int, match_id: str) -> str | None:
    """The seat link of a player's match as their season page offers it (None: none)."""
    (link,) = [m for m in seasons.match_links(sid, number) if m["match_id"] == match_id]
    path = link["path"]
    return None if path is None else str(path).removeprefix("/play/")


def two_matches_of_player_1(engine: Engine) -> tuple[Referee, Seasons, Any, str, str]:
    """A season whose player 1 is the Elimination Candidate of episode 1 (seat 1
    of its Main Match) and seat 1 of its Death Match (against player 4)."""
    svc = Referee(engine, Clock())
    seasons = Seasons(svc, SECRET)
    made = seasons.create_season(name="Links", players=ROSTER)
    sid = made.season_id
    rr = game_parts("rocky-river", 3)
    seed = seed_where(svc, at_balances(seasons, sid, [1, 2, 3]), lambda _t, cand: cand == 1)
    _, main = seasons.create_main_match(sid, players=[1, 2, 3], seed=seed, **rr)
    play_to_the_end(svc, main.match_id)
    assert seasons.record_main(sid, 1).candidate == 1
    seasons.choose_opponent(sid, 1, chooser=1, opponent=4)
    death = seasons.create_death_match(sid, 1, **game_parts("forks-2e", 2))
    return svc, seasons, made, main.match_id, death.match_id


def test_a_reissued_season_link_retires_the_old_one_and_the_match_links_from_it(
    engine: Engine,
) -> None:
    svc, seasons, made, main, death = two_matches_of_player_1(engine)
    sid, old = made.season_id, made.player_tokens[1]
    old_main, old_death = seat_token(seasons, sid, 1, main), seat_token(seasons, sid, 1, death)
    assert old_main and old_death and svc.find_token(old_main) == (main, 1)
    # the Death Match's host re-issued player 1's seat there: that link is theirs now
    by_host = svc.reissue_token(death, 1)
    others = {n: seat_token(seasons, sid, n, main) for n in (2, 3)}
    versions = {m: svc.state(m).match.version for m in (main, death)}

    new = seasons.reissue_link(sid, 1)
    assert new.player == 1 and new.token != old
    assert new.moved == (main,) and new.left == (death,)
    assert seasons.find_token(old) is None and seasons.find_token(new.token) == (sid, 1)
    assert svc.find_token(old_main) is None  # the old derived link opens nothing
    fresh = seat_token(seasons, sid, 1, main)
    assert fresh is not None and fresh != old_main and svc.find_token(fresh) == (main, 1)
    assert fresh == derived_seat_token(SECRET, seasons.state(sid).player(1).token_hash, main)
    # the seat its host re-issued is left alone: its link works, the season offers none
    assert svc.find_token(by_host) == (death, 1) and seat_token(seasons, sid, 1, death) is None
    assert svc.state(main).match.version == versions[main] + 1
    assert svc.state(death).match.version == versions[death]
    # nobody else's links changed
    assert {n: seat_token(seasons, sid, n, main) for n in (2, 3)} == others
    assert seasons.find_token(made.player_tokens[2]) == (sid, 2)
    assert seasons.find_token(made.host_token) == (sid, None)


def test_a_seat_token_hash_is_replaced_only_where_it_is_still_the_expected_one(
    engine: Engine,
) -> None:
    svc = Referee(engine, Clock())
    parts = game_parts("forks-2e", 2)
    made = svc.create_match(
        name="CAS",
        players=[{"seat": 1, "name": "A", "garnets": 0}, {"seat": 2, "name": "B", "garnets": 0}],
        setup=parts["setup"],
        settings=parts["settings"],
        ruleset="forks-2e",
    )
    match_id, token = made.match_id, made.player_tokens[1]
    version = svc.state(match_id).match.version
    assert not svc.replace_seat_token_hash(match_id, 1, expected="x" * 64, new="y" * 64)
    assert svc.find_token(token) == (match_id, 1) and svc.state(match_id).match.version == version
    assert svc.replace_seat_token_hash(match_id, 1, expected=token_hash(token), new="y" * 64)
    assert svc.find_token(token) is None and svc.state(match_id).match.version == version + 1
    with pytest.raises(RuleError) as unknown:
        svc.replace_seat_token_hash(match_id, 3, expected="y" * 64, new="z" * 64)
    assert unknown.value.codes == ["seat/unknown"]


def test_two_reissues_of_one_link_at_once_leave_one_link_working(
    engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The host re-issues a player's link twice at once: the one that locks the
    season first wins; the other is refused and puts back the seats it moved."""
    svc, seasons, made, main, death = two_matches_of_player_1(engine)
    sid = made.season_id
    won: list[Any] = []
    meanwhile(monkeypatch, lambda: won.append(seasons.reissue_link(sid, 1)))
    with pytest.raises(RuleError) as changed:
        seasons.reissue_link(sid, 1)
    assert changed.value.codes == ["season/changed"]
    assert "re-issued meanwhile" in str(changed.value)
    (winner,) = won
    assert seasons.find_token(winner.token) == (sid, 1)
    for match_id in (main, death):  # each seat's link derives from the winner's link
        token = seat_token(seasons, sid, 1, match_id)
        assert token is not None and svc.find_token(token) == (match_id, 1)


@pytest.mark.parametrize("number", [0, 7, "1", None, True])
def test_only_a_player_of_the_season_gets_a_new_link(engine: Engine, number: Any) -> None:
    seasons = Seasons(Referee(engine, Clock()), SECRET)
    made = seasons.create_season(name="Who", players=ROSTER[:2])
    with pytest.raises(RuleError) as unknown:
        seasons.reissue_link(made.season_id, number)
    assert unknown.value.codes == ["season/unknown_player"]
    assert seasons.find_token(made.player_tokens[1]) == (made.season_id, 1)
