"""The seasons' JSON API (issue 15), on SQLite and PostgreSQL: the issue's
"done when" through the API alone (a 6-player season of three episodes: Main
Matches of Rocky River and Forks 2nd Edition, a Forks 2nd Edition Death Match
played through the match API and one entered by hand, garnets from the ledger
into each match and back, a Token of Life protecting its holder, two players
eliminated, every balance the sum of the ledger); who may do what; bad input
refused by name."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask.testing import FlaskClient

from .conftest import make_app

GOLDEN = json.loads(
    (
        Path(__file__).resolve().parents[1] / "golden" / "rocky-river" / "01-full-game.match.json"
    ).read_text(encoding="utf-8")
)
RR_KIND = {"draft": "draft", "mapping": "placements", "rafting": "votes"}
# Ana to Flo; Bo, Cy and Di bring the golden game's garnets (2, 6, 7) to episode 1,
# whose golden orders give its seat 2 (Cy) the Token of Life and seat 3 (Di) the
# Elimination Candidate, whatever the seed
ROSTER: list[dict[str, Any]] = [
    {"name": "Ana", "garnets": 5, "email": "ana@example.org"},
    {"name": "Bo", "garnets": 2},
    {"name": "Cy", "garnets": 6},
    {"name": "Di", "garnets": 7},
    {"name": "Ed <b>&", "garnets": 1},
    {"name": "Flo"},
]
FORKS_SETTINGS = {"close_early": False, "merge": False}


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def ok(resp: Any, status: int = 200) -> Any:
    assert resp.status_code == status, resp.get_json()
    return resp.get_json()


def codes(resp: Any) -> list[str]:
    return [p["code"] for p in resp.get_json()["errors"]]


class Season:
    """A season made through the API, and calls as its host or a player."""

    def __init__(self, client: FlaskClient, **body: Any) -> None:
        self.client = client
        made = ok(client.post("/api/seasons", json=body), 201)
        self.id: str = made["id"]
        self.host: str = made["host_token"]
        self.players: dict[int, str] = {int(n): t for n, t in made["player_tokens"].items()}
        self.url = f"/api/seasons/{self.id}"

    def get(self, path: str = "", token: str | None = None) -> Any:
        return self.client.get(self.url + path, headers=bearer(token) if token else {})

    def post(self, path: str, body: Any = None, token: str | None = None) -> Any:
        headers = bearer(self.host if token is None else token)
        return self.client.post(self.url + path, json={} if body is None else body, headers=headers)

    def view(self) -> Any:
        return ok(self.get())


def match_garnets(client: FlaskClient, match_id: str) -> dict[str, int]:
    view = ok(client.get(f"/api/matches/{match_id}"))
    return {p["name"]: p["garnets"] for p in view["players"]}


def close_to_the_end(client: FlaskClient, match_id: str, host: str) -> None:
    """Every round opened and closed by the match's host, with no order (defaults)."""
    for _ in range(40):
        if ok(client.get(f"/api/matches/{match_id}"))["finished"]:
            return
        ok(client.post(f"/api/matches/{match_id}/rounds/open", headers=bearer(host), json={}))
        ok(client.post(f"/api/matches/{match_id}/rounds/close", headers=bearer(host), json={}))
    raise AssertionError("the match did not end")


def seat_link(season: Season, number: int, match_id: str) -> str:
    """A player's seat token in a match, from their own season answer."""
    me = ok(season.get("/me", season.players[number]))
    (link,) = [m for m in me["matches"] if m["match_id"] == match_id]
    assert link["path"].startswith("/play/")
    return str(link["path"].removeprefix("/play/"))


def play_golden(client: FlaskClient, season: Season, match_id: str, host: str) -> None:
    """The golden Rocky River game's orders, each sent with the seat's link that
    the player's season answer gives (seat s is the s-th player of the match)."""
    seats = ok(client.get(f"/api/matches/{match_id}"))["players"]
    numbers = {
        p["seat"]: n for p in seats for n, r in enumerate(ROSTER, 1) if r["name"] == p["name"]
    }
    tokens = {str(s): seat_link(season, n, match_id) for s, n in numbers.items()}
    for orders in [GOLDEN["draft"], GOLDEN["placements"], *GOLDEN["votes"]]:
        opened = ok(client.post(f"/api/matches/{match_id}/rounds/open", headers=bearer(host)))
        phase = next(r for r in opened["rounds"] if r["status"] == "open")["phase"]
        for seat, order in orders.items():
            sent = client.put(
                f"/api/matches/{match_id}/orders",
                headers=bearer(tokens[seat]),
                json={RR_KIND[phase]: order},
            )
            ok(sent)
        ok(client.post(f"/api/matches/{match_id}/rounds/close", headers=bearer(host), json={}))
    assert ok(client.get(f"/api/matches/{match_id}"))["finished"]


def check_the_ledger(season: Season) -> dict[int, int]:
    """Every balance (the ledger's and the season's) is the sum of the entries."""
    ledger = ok(season.get("/ledger"))
    sums = {n: 0 for n in range(1, len(ROSTER) + 1)}
    for entry in ledger["entries"]:
        sums[entry["player"]] += entry["change"]
    assert {int(k): v for k, v in ledger["balances"].items()} == sums
    assert {p["number"]: p["garnets"] for p in season.view()["players"]} == sums
    return sums


def test_a_season_of_three_episodes_through_the_api(client: FlaskClient) -> None:
    s = Season(
        client,
        name="Genius <S1>",
        players=ROSTER,
        rules={"token_bonus": 2, "token_lasts": "episode"},
    )
    view = s.view()
    assert view["name"] == "Genius <S1>" and view["rules"]["token_bonus"] == 2
    assert [p["garnets"] for p in view["players"]] == [5, 2, 6, 7, 1, 0]
    assert "ledger" not in view and "ana@example.org" not in json.dumps(view)
    assert check_the_ledger(s) == {1: 5, 2: 2, 3: 6, 4: 7, 5: 1, 6: 0}

    # episode 1: a Rocky River Main Match of Bo, Cy and Di, garnets from the ledger
    main1 = ok(
        s.post("/episodes", {"game": "rocky-river", "map": "three-rapids", "players": [2, 3, 4]}),
        201,
    )
    assert main1["episode"] == 1 and len(main1["host_token"]) >= 40
    assert match_garnets(client, main1["match_id"]) == {"Bo": 2, "Cy": 6, "Di": 7}
    early = s.get("/episodes/1/outcome", s.host)
    assert early.status_code == 409 and codes(early) == ["season/match_not_finished"]
    play_golden(client, s, main1["match_id"], main1["host_token"])
    preview = ok(s.get("/episodes/1/outcome", s.host))  # shown before it is applied
    assert preview == {
        "episode": 1,
        "token_holder": 3,
        "candidate": 4,
        "effects": [
            {"player": 3, "change": 2, "reason": "Token of Life in episode 1 (+2 garnets)"}
        ],
    }
    assert check_the_ledger(s)[3] == 6  # nothing applied yet
    assert ok(s.post("/episodes/1/outcome")) == preview
    assert check_the_ledger(s)[3] == 8
    again = s.post("/episodes/1/outcome")
    assert again.status_code == 409 and codes(again) == ["season/recorded"]
    assert s.view()["players"][2]["tokens"] == 1

    # the Token of Life protects Cy; only Di, the candidate, chooses
    choosable = ok(s.get("/episodes/1/opponents", s.players[1]))
    assert choosable == {"episode": 1, "candidate": 4, "opponents": [1, 2, 5, 6]}
    protected = s.post("/episodes/1/opponent", {"opponent": 3}, s.players[4])
    assert protected.status_code == 422 and codes(protected) == ["season/bad_opponent"]
    assert "holds a Token of Life" in protected.get_json()["errors"][0]["message"]
    assert protected.get_json()["errors"][0]["field"] == "opponent"
    not_theirs = s.post("/episodes/1/opponent", {"opponent": 5}, s.players[1])
    assert not_theirs.status_code == 403 and codes(not_theirs) == ["season/not_candidate"]
    by_host = s.post("/episodes/1/opponent", {"opponent": 5})
    assert by_host.status_code == 403 and codes(by_host) == ["auth/forbidden"]
    chosen = ok(s.post("/episodes/1/opponent", {"opponent": 5}, s.players[4]))
    assert chosen["candidate"] == 4 and chosen["opponent"] == 5
    too_soon = s.post("/episodes", {"game": "forks-2e"})
    assert too_soon.status_code == 409 and codes(too_soon) == ["season/episode_open"]

    # its Death Match: Forks 2nd Edition for 2, played through the match API
    balances = check_the_ledger(s)
    death = ok(
        s.post("/episodes/1/death-match", {"game": "forks-2e", "settings": FORKS_SETTINGS}), 201
    )
    assert match_garnets(client, death["match_id"]) == {"Di": balances[4], "Ed <b>&": balances[5]}
    close_to_the_end(client, death["match_id"], death["host_token"])
    entered = s.post("/episodes/1/death-result", {"loser": 5})
    assert entered.status_code == 409 and codes(entered) == ["season/played_here"]
    decided = ok(s.post("/episodes/1/death-result"))
    assert decided["loser_by"] == "match" and decided["over"] is True
    first_out = decided["loser"]
    assert first_out in (4, 5)

    # episode 2: Forks 2nd Edition for the five still in; the Death Match entered by hand
    main2 = ok(s.post("/episodes", {"game": "forks-2e", "settings": FORKS_SETTINGS}), 201)
    assert main2["episode"] == 2
    balances = check_the_ledger(s)
    names = {n: r["name"] for n, r in enumerate(ROSTER, 1)}
    assert match_garnets(client, main2["match_id"]) == {
        names[n]: balances[n] for n in range(1, 7) if n != first_out
    }
    close_to_the_end(client, main2["match_id"], main2["host_token"])
    outcome2 = ok(s.post("/episodes/2/outcome"))
    candidate2 = outcome2["candidate"]
    gone = s.post("/episodes/2/opponent", {"opponent": first_out}, s.players[candidate2])
    assert gone.status_code == 422 and "eliminated" in gone.get_json()["errors"][0]["message"]
    opponent2 = ok(s.get("/episodes/2/opponents", s.players[candidate2]))["opponents"][-1]
    ok(s.post("/episodes/2/opponent", {"opponent": opponent2}, s.players[candidate2]))
    bad_loser = s.post("/episodes/2/death-result", {"loser": first_out})
    assert bad_loser.status_code == 422 and codes(bad_loser) == ["season/bad_loser"]
    decided2 = ok(s.post("/episodes/2/death-result", {"loser": opponent2}))
    assert (decided2["loser"], decided2["loser_by"]) == (opponent2, "host")

    # episode 3: Rocky River for three of the four left, after a correcting entry
    left = [p["number"] for p in s.view()["players"] if p["status"] == "in"]
    assert len(left) == 4
    wrong = ok(s.post("/ledger", {"player": left[0], "change": 10, "reason": "typo"}), 201)
    assert wrong["entered_by"] == "host" and wrong["corrects"] is None
    fix = {"player": left[0], "change": -9, "reason": "should be +1", "corrects": wrong["id"]}
    assert ok(s.post("/ledger", fix), 201)["corrects"] == wrong["id"]
    bad_fix = s.post("/ledger", {**fix, "player": left[1]})
    assert bad_fix.status_code == 422 and codes(bad_fix) == ["ledger/bad_correction"]
    main3 = ok(s.post("/episodes", {"map": "three-rapids", "players": left[:3]}), 201)
    balances = check_the_ledger(s)
    assert match_garnets(client, main3["match_id"]) == {names[n]: balances[n] for n in left[:3]}
    close_to_the_end(client, main3["match_id"], main3["host_token"])
    ok(s.post("/episodes/3/outcome"))

    # every balance is the sum of the ledger; two players out, each in their episode
    check_the_ledger(s)
    final = s.view()
    out = {p["number"]: p["eliminated_in"] for p in final["players"] if p["status"] == "eliminated"}
    assert out == {first_out: 1, opponent2: 2}
    assert [e["loser_by"] for e in final["episodes"]] == ["match", "host", None]
    assert [e["main_match_id"] for e in final["episodes"]] == [
        main1["match_id"],
        main2["match_id"],
        main3["match_id"],
    ]

    # each player's own answer: their number and their matches, nobody else's link
    secrets = [
        s.host,
        *s.players.values(),
        *(m["host_token"] for m in (main1, main2, main3, death)),
    ]
    for number, token in s.players.items():
        me = ok(s.get("/me", token))
        assert me["number"] == number and me["name"] == ROSTER[number - 1]["name"]
        assert me["email"] == ROSTER[number - 1].get("email")
        text = json.dumps(me)
        assert not any(t in text for t in secrets)
        for other, other_token in s.players.items():
            if other != number:
                their = ok(s.get("/me", other_token))["matches"]
                assert not any(m["path"] and m["path"] in text for m in their)
        played = {m["match_id"] for m in me["matches"]}
        assert (main1["match_id"] in played) == (number in (2, 3, 4))
        assert (death["match_id"] in played) == (number in (4, 5))


@pytest.fixture
def roomy(db_url: str) -> Iterator[FlaskClient]:
    """A client far from the limit of failed token attempts (sent here on purpose)."""
    for app in make_app(db_url, RATELIMIT_FAILED_TOKENS="10000 per minute"):
        yield app.test_client()


def test_tokens_and_who_may_do_what(roomy: FlaskClient) -> None:
    client = roomy
    s = Season(client, name="Auth", players=ROSTER[:4])
    other = Season(client, name="Other", players=ROSTER[:2])
    match = ok(
        client.post(
            "/api/matches",
            json={
                "name": "m",
                "map": "three-rapids",
                "players": [{"seat": i, "name": f"P{i}", "garnets": 1} for i in (1, 2, 3)],
            },
        ),
        201,
    )
    host_calls = [
        ("post", "/ledger", {"player": 1, "change": 1, "reason": "r"}),
        ("post", "/episodes", {"map": "three-rapids", "players": [1, 2, 3]}),
        ("get", "/episodes/1/outcome", None),
        ("post", "/episodes/1/outcome", {}),
        ("post", "/episodes/1/death-match", {"game": "forks-2e"}),
        ("post", "/episodes/1/death-result", {"loser": 1}),
    ]
    player_calls = [
        ("get", "/me", None),
        ("get", "/episodes/1/opponents", None),
        ("post", "/episodes/1/opponent", {"opponent": 2}),
        ("post", "/episodes/1/token", {}),
    ]
    wrong = [
        "x" * 43,
        other.host,
        other.players[1],
        match["host_token"],
        match["player_tokens"]["1"],
    ]
    for method, path, body in host_calls + player_calls:
        url = s.url + path
        none = client.open(url, method=method.upper(), json=body)
        assert none.status_code == 401 and codes(none) == ["auth/unauthorized"], url
        assert none.headers["WWW-Authenticate"].startswith("Bearer")
        for token in wrong:
            resp = client.open(url, method=method.upper(), json=body, headers=bearer(token))
            assert resp.status_code == 403 and codes(resp) == ["auth/forbidden"], (url, token)
    for method, path, body in host_calls:  # a player does no host things
        resp = client.open(
            s.url + path, method=method.upper(), json=body, headers=bearer(s.players[1])
        )
        assert resp.status_code == 403 and codes(resp) == ["auth/forbidden"], path
    for method, path, body in player_calls:
        if path == "/episodes/1/opponents":
            continue  # anyone with a season token, the host too
        resp = client.open(s.url + path, method=method.upper(), json=body, headers=bearer(s.host))
        assert resp.status_code == 403 and codes(resp) == ["auth/forbidden"], path
    # nothing was done by any of them (the ledger holds the starting garnets only)
    assert s.view()["episodes"] == []
    assert [e["reason"] for e in ok(s.get("/ledger"))["entries"]] == ["starting garnets"] * 4
    # the public reads need no token; an unknown season is 404
    for path in ("", "/ledger"):
        assert client.get(f"/api/seasons/nope{path}").status_code == 404
        assert codes(client.get(f"/api/seasons/nope{path}")) == ["season/not_found"]
    # the tokens of one season open nothing of another
    assert other.get("/me", s.players[1]).status_code == 403
    # the answers carrying tokens are kept by no cache
    made = client.post("/api/seasons", json={"name": "C", "players": ROSTER[:2]})
    assert made.headers["Cache-Control"] == "no-store"
    assert s.get("/me", s.players[1]).headers["Cache-Control"] == "no-store"


def test_wrong_season_tokens_are_failed_attempts(client: FlaskClient) -> None:
    """They count with the match API's (20 a minute by default), then 429 even
    for a right token."""
    s = Season(client, name="Limited", players=ROSTER[:2])
    for _ in range(20):
        assert s.get("/me", "wrong-" + "x" * 40).status_code == 403
    assert s.view()["name"] == "Limited"  # no token, nothing guessed: not counted
    limited = s.get("/me", s.players[1])
    assert limited.status_code == 429 and codes(limited) == ["auth/rate_limited"]


def test_creating_seasons_may_need_the_admin_key(db_url: str) -> None:
    for app in make_app(db_url, ADMIN_KEY="the-key"):
        web = app.test_client()
        body = {"name": "Keyed", "players": ROSTER[:2]}
        assert web.post("/api/seasons", json=body).status_code == 401
        assert web.post("/api/seasons", json=body, headers=bearer("wrong")).status_code == 401
        assert web.post("/api/seasons", json=body, headers=bearer("the-key")).status_code == 201


@pytest.mark.parametrize(
    ("body", "code", "field"),
    [
        ({"name": "", "players": ROSTER}, "season/bad_name", "name"),
        ({"name": "S", "players": ROSTER[:1]}, "season/bad_players", "players"),
        (
            {"name": "S", "players": [{"name": "Ana"}, {"name": "\u0410na"}]},
            "season/confusable_names",
            "players",
        ),
        (
            {"name": "S", "players": ROSTER, "rules": {"token_bonus": -1}},
            "season/bad_rules",
            "token_bonus",
        ),
        (
            {"name": "S", "players": ROSTER, "rules": {"token_lasts": "ever"}},
            "season/bad_rules",
            "token_lasts",
        ),
        ({"name": "S", "players": ROSTER, "rules": []}, "season/bad_rules", None),
        ({"name": "S", "players": ROSTER, "host": "me"}, "request/unknown_field", "host"),
        ([1, 2], "request/not_an_object", None),
    ],
)
def test_bad_seasons_are_refused_by_name(
    client: FlaskClient, body: Any, code: str, field: str | None
) -> None:
    resp = client.post("/api/seasons", json=body)
    assert resp.status_code == 422, resp.get_json()
    problems = resp.get_json()["errors"]
    assert code in [p["code"] for p in problems]
    assert field in [p.get("field") for p in problems if p["code"] == code]


def test_bad_steps_are_refused_by_name(client: FlaskClient) -> None:
    s = Season(client, name="Bad steps", players=ROSTER[:4])
    cases: list[tuple[str, Any, str, str | None]] = [
        ("/ledger", {"player": 9, "change": 1, "reason": "r"}, "season/unknown_player", "player"),
        ("/ledger", {"player": 1, "change": 0, "reason": "r"}, "ledger/bad_change", "change"),
        ("/ledger", {"player": 1, "change": 1.0, "reason": "r"}, "ledger/bad_change", "change"),
        ("/ledger", {"player": 1, "change": 1, "reason": " "}, "ledger/bad_reason", "reason"),
        (
            "/ledger",
            {"player": 1, "change": 1, "reason": "r", "corrects": "1"},
            "ledger/bad_correction",
            "corrects",
        ),
        ("/ledger", {"player": 1, "change": 1, "why": "r"}, "request/unknown_field", "why"),
        ("/episodes", {"game": "chess"}, "match/unknown_ruleset", "game"),
        ("/episodes", {"game": "forks-2e", "players": "all"}, "season/bad_players", "players"),
        ("/episodes", {"game": "forks-2e", "players": [1, 9]}, "season/bad_players", "players"),
        ("/episodes", {"game": "forks-2e", "map": "three-rapids"}, "request/unknown_field", "map"),
        # the host chooses no seed (issue 22): the referee draws every match's
        ("/episodes", {"game": "forks-2e", "seed": "mine"}, "request/unknown_field", "seed"),
        ("/episodes", {"map": "nowhere", "players": [1, 2, 3]}, "map/unknown", None),
        ("/episodes/1/outcome", {}, "season/unknown_episode", None),
    ]
    for path, body, code, field in cases:
        resp = s.post(path, body)
        assert resp.status_code == 422, (path, body, resp.get_json())
        problems = resp.get_json()["errors"]
        assert code in [p["code"] for p in problems], (path, body, problems)
        if field is not None:
            assert field in [p.get("field") for p in problems if p["code"] == code], problems
    assert len(ok(s.get("/ledger"))["entries"]) == 4 and s.view()["episodes"] == []
    # a Death Match before its opponent is chosen, or a result before the Main Match's end
    main = ok(s.post("/episodes", {"game": "forks-2e", "settings": FORKS_SETTINGS}), 201)
    for path, body in (
        ("/episodes/1/death-match", {"game": "forks-2e"}),
        ("/episodes/1/death-result", {"loser": 1}),
    ):
        resp = s.post(path, body)
        assert resp.status_code == 409 and codes(resp) == ["season/not_recorded"], path
    close_to_the_end(client, main["match_id"], main["host_token"])
    candidate = ok(s.post("/episodes/1/outcome"))["candidate"]
    nobody = s.post("/episodes/1/death-match", {"game": "forks-2e"})
    assert nobody.status_code == 409 and codes(nobody) == ["season/no_opponent"]
    # Rocky River takes 3: no Death Match of it
    pick = ok(s.get("/episodes/1/opponents", s.host))["opponents"][0]
    ok(s.post("/episodes/1/opponent", {"opponent": pick}, s.players[candidate]))
    three = s.post("/episodes/1/death-match", {"map": "three-rapids"})
    assert three.status_code == 422, three.get_json()
    seeded = s.post("/episodes/1/death-match", {"game": "forks-2e", "seed": "mine"})
    assert seeded.status_code == 422 and codes(seeded) == ["request/unknown_field"]
    no_token = s.post("/episodes/1/token", {}, s.players[candidate])
    assert no_token.status_code == 409 and codes(no_token) == ["season/already_chosen"]


def test_the_host_gives_a_player_a_new_season_token(roomy: FlaskClient) -> None:
    """Issue 22: ``POST /players/{number}/link``: the old token and the seat
    links derived from it stop working; the new token's answers link working
    seats; a seat its match's host re-issued is left alone."""
    client = roomy
    s = Season(client, name="New links", players=ROSTER[:4])
    main = ok(s.post("/episodes", {"game": "forks-2e", "players": [1, 2, 3]}), 201)
    old = s.players[2]
    old_seat = seat_link(s, 2, main["match_id"])
    assert ok(client.get(f"/api/matches/{main['match_id']}/me", headers=bearer(old_seat)))

    for token in (s.players[2], s.players[1], "x" * 43):  # only the host
        refused = s.post("/players/2/link", {}, token)
        assert refused.status_code == 403 and codes(refused) == ["auth/forbidden"]
    assert client.post(f"{s.url}/players/2/link", json={}).status_code == 401
    assert codes(s.post("/players/9/link")) == ["season/unknown_player"]
    assert codes(s.post("/players/2/link", {"seat": 2})) == ["request/unknown_field"]
    assert s.get("/me", old).status_code == 200  # none of those changed anything

    answer = s.post("/players/2/link")
    made = ok(answer)
    assert answer.headers["Cache-Control"] == "no-store"
    assert made["player"] == 2 and made["token"] != old
    assert made["moved_matches"] == [main["match_id"]] and made["left_matches"] == []
    assert s.get("/me", old).status_code == 403
    assert (
        client.get(f"/api/matches/{main['match_id']}/me", headers=bearer(old_seat)).status_code
        == 403
    )
    s.players[2] = made["token"]
    new_seat = seat_link(s, 2, main["match_id"])
    me = ok(client.get(f"/api/matches/{main['match_id']}/me", headers=bearer(new_seat)))
    assert me["viewer"] == {"kind": "seat", "seat": 2}
    # the match's host re-issues player 3's seat there: a new season token leaves it
    by_host = ok(
        client.post(
            f"/api/matches/{main['match_id']}/tokens",
            json={"seat": 3},
            headers=bearer(main["host_token"]),
        )
    )["token"]
    made3 = ok(s.post("/players/3/link"))
    assert made3["moved_matches"] == [] and made3["left_matches"] == [main["match_id"]]
    assert ok(client.get(f"/api/matches/{main['match_id']}/me", headers=bearer(by_host)))
    (link,) = ok(s.get("/me", made3["token"]))["matches"]
    assert link["path"] is None


def test_wrong_tokens_giving_new_season_tokens_are_failed_attempts(client: FlaskClient) -> None:
    s = Season(client, name="Limited links", players=ROSTER[:2])
    for _ in range(20):
        assert s.post("/players/1/link", {}, "wrong-" + "x" * 40).status_code == 403
    limited = s.post("/players/1/link")
    assert limited.status_code == 429 and codes(limited) == ["auth/rate_limited"]


def test_the_host_finds_and_reissues_each_matchs_host_token(roomy: FlaskClient) -> None:
    """Issue 23: ``GET /matches`` gives every season match's host token again
    (derived from the season's); ``POST /matches/{id}/host-link`` re-issues it."""
    client = roomy
    s = Season(client, name="Host links", players=ROSTER[:4])
    assert ok(s.get("/matches", s.host)) == {"matches": []}
    main = ok(s.post("/episodes", {"game": "forks-2e", "players": [1, 2, 3]}), 201)
    listed = ok(s.get("/matches", s.host))["matches"]
    assert listed == [
        {
            "episode": 1,
            "kind": "main",
            "match_id": main["match_id"],
            "host_token": main["host_token"],
        }
    ]
    m = f"/matches/{main['match_id']}"
    for token in (s.players[1], "x" * 43):  # only the host
        assert s.get("/matches", token).status_code == 403
        assert s.post(f"{m}/host-link", {}, token).status_code == 403
    assert client.get(f"{s.url}/matches").status_code == 401
    assert codes(s.post("/matches/0123456789/host-link")) == ["season/unknown_match"]
    assert codes(s.post(f"{m}/host-link", {"sure": True})) == ["request/unknown_field"]
    old = main["host_token"]
    assert client.get(f"/api/matches/{main['match_id']}", headers=bearer(old)).status_code == 200
    answer = s.post(f"{m}/host-link")
    new = ok(answer)
    assert answer.headers["Cache-Control"] == "no-store"
    assert new["match_id"] == main["match_id"] and new["host_token"] not in (None, old)
    assert ok(s.get("/matches", s.host))["matches"] == [new]
    tokens = f"/api/matches/{main['match_id']}/tokens"
    assert client.post(tokens, json={"seat": 1}, headers=bearer(old)).status_code == 403
    # the match's own API re-issues it: the season no longer knows it, and says so
    theirs = ok(client.post(tokens, json={}, headers=bearer(new["host_token"])))["token"]
    assert ok(s.get("/matches", s.host))["matches"][0]["host_token"] is None
    back = ok(s.post(f"{m}/host-link"))
    assert client.post(tokens, json={"seat": 1}, headers=bearer(theirs)).status_code == 403
    assert ok(client.post(tokens, json={"seat": 1}, headers=bearer(back["host_token"])))
