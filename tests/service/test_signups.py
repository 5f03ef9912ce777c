"""Season sign-ups (issue 23, item 7), the service layer, on SQLite and
PostgreSQL: players join by the derived sign-up link with names checked as a
roster's (length, one line, look-alikes, the same name twice), a full season
and closed sign-ups refuse, the host removes players before the first Main
Match only (the others' links keep working), and the first Main Match is
refused while sign-ups are open."""

from __future__ import annotations

import pytest
from sqlalchemy import Engine

import referee.seasons.rules as seasons_module
from referee.errors import RuleError
from referee.notify.config import NotifyConfig
from referee.seasons.links import signup_token
from referee.seasons.service import Seasons
from referee.seasons.signups import Signups
from referee.service import Referee, token_hash

from .conftest import Clock
from .test_seasons import game_parts, play_to_the_end

SECRET = b"signup-test-secret"


def services(engine: Engine, *, mail: bool = False) -> tuple[Referee, Seasons, Signups]:
    notify = NotifyConfig(smtp_url="smtp://127.0.0.1:8025" if mail else None)
    svc = Referee(engine, Clock(), notify=notify)
    seasons = Seasons(svc, SECRET)
    return svc, seasons, Signups(seasons)


def test_players_join_by_the_derived_link_and_get_ordinary_season_links(engine: Engine) -> None:
    _, seasons, signups = services(engine)
    made = seasons.create_season(name="Open S1", players=[], signups=True)
    sid = made.season_id
    status = signups.status(sid)
    assert status.open and status.players == 0 and status.room == seasons_module.MAX_PLAYERS
    # derived from the host link's digest: the same every time, never stored in clear
    assert status.token == signup_token(SECRET, token_hash(made.host_token))
    assert signups.find(status.token) == sid
    assert signups.find("x" * 43) is None and signups.find("") is None
    version = seasons.state(sid).season.version
    ana = signups.join(sid, name="  Ana  ")
    bo = signups.join(sid, name="Bo")
    assert (ana.number, ana.name, bo.number) == (1, "Ana", 2)
    assert seasons.find_token(ana.token) == (sid, 1)
    assert seasons.find_token(bo.token) == (sid, 2)
    state = seasons.state(sid)
    assert state.season.version == version + 2
    assert [p.joined_at is not None for p in state.players] == [True, True]
    assert state.balances() == {1: 0, 2: 0}
    # nothing of the link is stored in clear
    assert state.season.signup_hash == token_hash(status.token)
    assert status.token not in repr(state.season)


@pytest.mark.parametrize(
    ("name", "code"),
    [
        ("", "season/bad_name"),
        ("   ", "season/bad_name"),
        ("x" * 101, "season/bad_name"),
        ("Ana\nBo", "season/bad_name"),
        ("A\u200fna", "season/bad_name"),
        ("Ana", "season/confusable_names"),
        ("ana", "season/confusable_names"),
        ("\u0410na", "season/confusable_names"),  # a Cyrillic capital A
        ("An\u200ba", "season/confusable_names"),  # a zero-width space
        (None, "season/bad_name"),
        (7, "season/bad_name"),
    ],
)
def test_names_are_checked_as_a_rosters_are(engine: Engine, name: object, code: str) -> None:
    _, seasons, signups = services(engine)
    made = seasons.create_season(name="S", players=[{"name": "Ana"}], signups=True)
    with pytest.raises(RuleError) as refused:
        signups.join(made.season_id, name=name)
    assert refused.value.codes == [code]
    assert [p.name for p in seasons.state(made.season_id).players] == ["Ana"]
    # the roster refuses the same names, with the same rule
    if code == "season/confusable_names":
        with pytest.raises(RuleError) as roster:
            seasons.create_season(name="S", players=[{"name": "Ana"}, {"name": name}])
        assert roster.value.codes == [code]


def test_the_same_name_twice_says_so_plainly(engine: Engine) -> None:
    _, seasons, signups = services(engine)
    sid = seasons.create_season(name="S", players=[], signups=True).season_id
    signups.join(sid, name="Ana")
    with pytest.raises(RuleError) as refused:
        signups.join(sid, name="Ana")
    assert '"Ana" is a player of this season already' in refused.value.problems[0].message


def test_an_address_only_where_mail_is_sent(engine: Engine) -> None:
    _, seasons, signups = services(engine)
    sid = seasons.create_season(name="S", players=[], signups=True).season_id
    with pytest.raises(RuleError) as refused:
        signups.join(sid, name="Ana", email="ana@example.org")
    assert refused.value.codes == ["notify/no_mail"]
    _, seasons, signups = services(engine, mail=True)
    with pytest.raises(RuleError) as bad:
        signups.join(sid, name="Ana", email="not an address")
    assert bad.value.codes == ["notify/bad_email"]
    joined = signups.join(sid, name="Ana", email="Ana@Example.ORG")
    assert seasons.state(sid).player(joined.number).email == "Ana@example.org"


def test_a_full_season_and_closed_sign_ups_refuse(
    engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("referee.seasons.signups.MAX_PLAYERS", 3)
    _, seasons, signups = services(engine)
    sid = seasons.create_season(name="S", players=[{"name": "Ana"}], signups=True).season_id
    signups.join(sid, name="Bo")
    signups.join(sid, name="Cy")
    with pytest.raises(RuleError) as full:
        signups.join(sid, name="Di")
    assert full.value.codes == ["season/full"]
    assert signups.status(sid).room == 0
    signups.set_open(sid, False)
    with pytest.raises(RuleError) as closed:
        signups.join(sid, name="Di")
    assert closed.value.codes == ["season/signups_closed"]
    # the link still finds the season (its page says the sign-ups are closed)
    assert signups.find(signups.status(sid).token) == sid
    with pytest.raises(RuleError) as bad:
        signups.set_open(sid, "yes")
    assert bad.value.codes == ["season/bad_signups"]


def test_a_season_made_without_sign_ups_opens_them_later(engine: Engine) -> None:
    _, seasons, signups = services(engine)
    made = seasons.create_season(name="S", players=[{"name": "Ana"}, {"name": "Bo"}])
    sid = made.season_id
    assert not signups.status(sid).open
    with pytest.raises(RuleError) as closed:
        signups.join(sid, name="Cy")
    assert closed.value.codes == ["season/signups_closed"]
    version = seasons.state(sid).season.version
    assert signups.set_open(sid, True).open
    assert seasons.state(sid).season.version == version + 1
    signups.set_open(sid, True)  # again: nothing changes
    assert seasons.state(sid).season.version == version + 1
    assert signups.join(sid, name="Cy").number == 3
    # without sign-ups a season still needs 2 players
    with pytest.raises(RuleError) as few:
        seasons.create_season(name="S", players=[{"name": "Ana"}])
    assert few.value.codes == ["season/bad_players"]


def test_removing_before_the_first_main_match_keeps_every_other_link(engine: Engine) -> None:
    svc, seasons, signups = services(engine)
    made = seasons.create_season(
        name="S", players=[{"name": "Ana", "garnets": 5}], rules=None, signups=True
    )
    sid = made.season_id
    bo, cy, di = (signups.join(sid, name=n) for n in ("Bo", "Cy", "Di"))
    assert signups.remove(sid, 1) == "Ana"  # a roster player, with starting garnets
    assert signups.remove(sid, cy.number) == "Cy"
    state = seasons.state(sid)
    assert [(p.number, p.name) for p in state.players] == [(2, "Bo"), (4, "Di")]
    assert state.balances() == {2: 0, 4: 0} and state.remaining() == [2, 4]
    assert seasons.find_token(made.player_tokens[1]) is None
    assert seasons.find_token(cy.token) is None
    assert seasons.find_token(bo.token) == (sid, 2)
    assert seasons.find_token(di.token) == (sid, 4)
    eve = signups.join(sid, name="Eve")
    assert eve.number == 5  # after the highest number
    with pytest.raises(RuleError) as unknown:
        signups.remove(sid, 3)
    assert unknown.value.codes == ["season/unknown_player"]

    # the first Main Match: refused while sign-ups are open
    with pytest.raises(RuleError) as still_open:
        seasons.create_main_match(sid, **game_parts("rocky-river", 3))
    assert still_open.value.codes == ["season/signups_open"]
    assert "close sign-ups first" in still_open.value.problems[0].message
    signups.set_open(sid, False)
    number, main = seasons.create_main_match(sid, **game_parts("rocky-river", 3))
    assert number == 1
    assert seasons.state(sid).episode(1).main_seats == {"1": 2, "2": 4, "3": 5}
    # after it: no removing, no opening
    with pytest.raises(RuleError) as started:
        signups.remove(sid, 2)
    assert started.value.codes == ["season/started"]
    assert "first Main Match has been made" in started.value.problems[0].message
    with pytest.raises(RuleError) as reopen:
        signups.set_open(sid, True)
    assert reopen.value.codes == ["season/started"]
    status = signups.status(sid)
    assert not status.can_open and not status.can_remove
    # the gap in the numbers breaks nothing: the episode runs to its outcome
    play_to_the_end(svc, main.match_id)
    outcome = seasons.record_main(sid, 1)
    assert outcome.candidate in (2, 4, 5)
    links = seasons.match_links(sid, 4)
    assert links and links[0]["path"] is not None


def test_the_first_main_match_needs_two_players(engine: Engine) -> None:
    _, seasons, signups = services(engine)
    sid = seasons.create_season(name="S", players=[], signups=True).season_id
    signups.join(sid, name="Ana")
    signups.set_open(sid, False)
    with pytest.raises(RuleError) as few:
        seasons.create_main_match(sid, **game_parts("forks-2e", 2))
    assert few.value.codes == ["season/bad_players"]
