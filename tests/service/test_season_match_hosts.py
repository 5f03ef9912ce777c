"""A season's matches' host links (issue 23, item 1), on SQLite and
PostgreSQL: derived from the season host link's digest, so the season host
page reaches every match's host dashboard in any browser, and re-issued from
there (a new derivation each time; the old link, whoever holds it, stops
working), also for a match whose link its own dashboard re-issued or that was
made before the links were derived. The season's own pages are in
``tests/service/web/test_season_match_host_pages.py``."""

from __future__ import annotations

from typing import Any

import pytest
from sqlalchemy import Engine
from sqlmodel import Session

from referee.errors import RuleError
from referee.models import Episode
from referee.seasons.links import derived_host_token
from referee.seasons.service import Seasons
from referee.service import Referee, token_hash

from .conftest import Clock
from .test_seasons import ROSTER, SECRET, game_parts, play_to_the_end


def token_of(path: str | None) -> str:
    assert path is not None and path.startswith("/host/")
    return path.removeprefix("/host/")


def a_season(engine: Engine) -> tuple[Referee, Seasons, Any]:
    svc = Referee(engine, Clock())
    seasons = Seasons(svc, SECRET)
    made = seasons.create_season(name="Hosted", players=ROSTER)
    return svc, seasons, made


def test_each_match_made_from_a_season_has_a_derived_host_link(engine: Engine) -> None:
    svc, seasons, made = a_season(engine)
    sid = made.season_id
    assert seasons.host_links(sid) == []
    _, main = seasons.create_main_match(sid, players=[1, 2, 3], **game_parts("rocky-river", 3))
    state = seasons.state(sid)
    assert main.host_token == derived_host_token(
        SECRET, state.season.host_token_hash, main.match_id, 1
    )
    (link,) = seasons.host_links(sid)
    assert (link.episode, link.kind, link.match_id) == (1, "main", main.match_id)
    assert token_of(link.path) == main.host_token
    assert svc.find_token(main.host_token) == (main.match_id, None)
    # not a seat's link, nor the season's
    assert main.host_token not in main.player_tokens.values()
    assert seasons.find_token(main.host_token) is None
    # another server key derives other links
    assert derived_host_token(b"other", state.season.host_token_hash, main.match_id, 1) != (
        main.host_token
    )
    # the Death Match too, listed after its episode's Main Match
    play_to_the_end(svc, main.match_id)
    seasons.record_main(sid, 1)
    e = seasons.state(sid).episodes[-1]
    opponent = seasons.opponents(sid, 1)[0]
    assert e.candidate is not None
    seasons.choose_opponent(sid, 1, chooser=e.candidate, opponent=opponent)
    death = seasons.create_death_match(sid, 1, **game_parts("forks-2e", 2))
    links = seasons.host_links(sid)
    assert [(x.episode, x.kind, x.match_id) for x in links] == [
        (1, "main", main.match_id),
        (1, "death", death.match_id),
    ]
    assert token_of(links[1].path) == death.host_token
    assert svc.find_token(death.host_token) == (death.match_id, None)


def test_a_reissued_match_host_link_is_a_new_derivation_each_time(engine: Engine) -> None:
    svc, seasons, made = a_season(engine)
    sid = made.season_id
    _, main = seasons.create_main_match(sid, **game_parts("forks-2e", 6))
    first = main.host_token
    again = seasons.reissue_match_host(sid, main.match_id)
    second = token_of(again.path)
    assert (again.episode, again.kind, again.match_id) == (1, "main", main.match_id)
    assert second != first
    assert svc.find_token(first) is None  # whoever held it: shut out
    assert svc.find_token(second) == (main.match_id, None)
    assert seasons.host_links(sid)[0].path == again.path
    third = token_of(seasons.reissue_match_host(sid, main.match_id).path)
    assert len({first, second, third}) == 3
    assert svc.find_token(second) is None and svc.find_token(third) == (main.match_id, None)
    assert seasons.state(sid).episodes[0].main_host_issue == 3


def test_a_link_reissued_from_the_match_dashboard_is_taken_back_from_the_season(
    engine: Engine,
) -> None:
    svc, seasons, made = a_season(engine)
    sid = made.season_id
    _, main = seasons.create_main_match(sid, players=[4, 5, 6], **game_parts("rocky-river", 3))
    theirs = svc.reissue_token(main.match_id, None)  # the match's own dashboard
    (link,) = seasons.host_links(sid)
    assert link.path is None  # the season does not know it, and says so
    back = seasons.reissue_match_host(sid, main.match_id)
    assert svc.find_token(theirs) is None
    assert svc.find_token(main.host_token) is None  # issue 1 is never live again
    assert svc.find_token(token_of(back.path)) == (main.match_id, None)
    assert seasons.host_links(sid)[0].path == back.path


def test_a_match_made_before_derived_host_links_gets_one_from_the_season(
    engine: Engine,
) -> None:
    """As migration 0006 leaves it: issue 0, a random host link."""
    svc, seasons, made = a_season(engine)
    sid = made.season_id
    _, main = seasons.create_main_match(sid, players=[1, 2], **game_parts("forks-2e", 2))
    old = svc.reissue_token(main.match_id, None)
    with Session(engine) as session:
        row = session.get(Episode, (sid, 1))
        assert row is not None
        row.main_host_issue = 0
        session.add(row)
        session.commit()
    assert seasons.host_links(sid)[0].path is None
    back = seasons.reissue_match_host(sid, main.match_id)
    state = seasons.state(sid)
    assert state.episodes[0].main_host_issue == 1
    assert token_of(back.path) == derived_host_token(
        SECRET, state.season.host_token_hash, main.match_id, 1
    )
    assert svc.find_token(old) is None


def test_reissuing_changes_nothing_else_of_the_match(engine: Engine) -> None:
    svc, seasons, made = a_season(engine)
    sid = made.season_id
    _, main = seasons.create_main_match(sid, players=[1, 2, 3], **game_parts("rocky-river", 3))
    svc.open_round(main.match_id)
    before = svc.state(main.match_id)
    seasons.reissue_match_host(sid, main.match_id)
    after = svc.state(main.match_id)
    assert [s.token_hash for s in after.seats] == [s.token_hash for s in before.seats]
    assert [r.number for r in after.rounds] == [r.number for r in before.rounds]
    assert after.match.host_token_hash != before.match.host_token_hash
    for seat, token in main.player_tokens.items():
        assert svc.find_token(token) == (main.match_id, seat)


@pytest.mark.parametrize("match", [None, 7, "", "x" * 33, "0123456789"])
def test_only_a_match_of_the_season_gets_a_new_host_link(engine: Engine, match: Any) -> None:
    _, seasons, made = a_season(engine)
    sid = made.season_id
    seasons.create_main_match(sid, players=[1, 2, 3], **game_parts("rocky-river", 3))
    with pytest.raises(RuleError) as refused:
        seasons.reissue_match_host(sid, match)
    assert refused.value.codes == ["season/unknown_match"]
    assert seasons.state(sid).episodes[0].main_host_issue == 1


def test_a_match_of_another_season_is_not_this_seasons(engine: Engine) -> None:
    svc, seasons, made = a_season(engine)
    other = seasons.create_season(name="Other", players=ROSTER[:3])
    _, theirs = seasons.create_main_match(other.season_id, **game_parts("rocky-river", 3))
    with pytest.raises(RuleError) as refused:
        seasons.reissue_match_host(made.season_id, theirs.match_id)
    assert refused.value.codes == ["season/unknown_match"]
    assert theirs.match_id in refused.value.problems[0].message
    assert svc.state(theirs.match_id).match.host_token_hash == token_hash(theirs.host_token)
