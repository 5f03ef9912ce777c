"""Each game's rules in plain words at /games/<game>/rules (GameWeb.rules_template):
a page for players with an accessible diagram, no rule ids, linked from the
home page, the create page and every match page of the game; the generic page
for a game without its own; an unknown game is a 404."""

from __future__ import annotations

import re
from collections.abc import Iterator
from html.parser import HTMLParser

import pytest
from flask.testing import FlaskClient
from toy import Toy, registered

from referee.ruleset import get_ruleset, ruleset_names
from referee.service import Referee

from .web_kit import create_match, page

RULE_ID = re.compile(r"\b[RF]\d+(\.\d+)*\b")


class _Page(HTMLParser):
    """The page's text (outside scripts and styles), its ids and the SVGs' accessible parts."""

    def __init__(self) -> None:
        super().__init__()
        self.text: list[str] = []
        self.ids: set[str] = set()
        self.svgs: list[dict[str, str]] = []
        self.svg_titles: list[str] = []
        self._in: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        if "id" in a:
            self.ids.add(a["id"])
        if tag == "svg":
            self.svgs.append(a)
        self._in.append(tag)

    def handle_endtag(self, tag: str) -> None:
        if tag in self._in:
            while self._in.pop() != tag:
                pass

    def handle_data(self, data: str) -> None:
        if not set(self._in) & {"script", "style"}:
            self.text.append(data)
        if self._in and self._in[-1] == "title" and "svg" in self._in:
            self.svg_titles.append(data.strip())


def parsed(html: str) -> _Page:
    p = _Page()
    p.feed(html)
    return p


@pytest.mark.parametrize(
    ("game", "words"),
    [
        (
            "rocky-river",
            ["Draft", "Mapping", "Rafting", "garnet cycle", "Token of Life", "control"],
        ),
        ("forks-2e", ["Keep step", "Market step", "marketing total", "top", "merge"]),
    ],
)
def test_each_game_has_a_rules_page_in_plain_words_with_a_diagram(
    client: FlaskClient, game: str, words: list[str]
) -> None:
    rules = get_ruleset(game)
    html = page(client, f"/games/{game}/rules")
    p = parsed(html)
    text = " ".join(" ".join(p.text).split())
    assert f"How to play {rules.title}" in text
    for heading in ("The goal", "How the match ends", "What the referee keeps sealed"):
        assert heading in text
    for word in words:
        assert word in text, word
    assert "Elimination Candidate" in text and "seeded" in text
    assert not RULE_ID.search(text), RULE_ID.search(text)
    # one inline SVG, named and described for screen readers by ids on the page
    assert len(p.svgs) == 1
    svg = p.svgs[0]
    assert svg["role"] == "img"
    labels = svg["aria-labelledby"].split()
    assert len(labels) == 2 and all(label in p.ids for label in labels)
    assert p.svg_titles and p.svg_titles[0]
    assert "<desc id=" in html
    # no user text is drawn: the page is the same whatever match exists
    assert f'href="/new?game={game}"' in html


def test_the_rocky_river_page_follows_the_rules_contract(client: FlaskClient) -> None:
    text = " ".join(" ".join(parsed(page(client, "/games/rocky-river/rules")).text).split())
    # the garnet cycle (R6), unanimous and 2-1 forks (R8), the tie-breaks (R9)
    assert "The 1st conflict favours the player with the most garnets" in text
    assert "Chosen 2 to 1, it takes the inner branch" in text
    assert "Chosen by all three, it takes the outer branch" in text
    assert "lowest control, then the fewest garnets, then a seeded draw" in text


def test_the_forks_page_follows_the_rules_contract(client: FlaskClient) -> None:
    text = " ".join(" ".join(parsed(page(client, "/games/forks-2e/rules")).text).split())
    assert "4 game rounds with 2 to 4 players and 3 with 5 or 6" in text  # F3
    assert "The other two are passed to the next player" in text  # F4
    assert "A tie goes to the fewest garnets, then a seeded draw" in text  # F9
    assert "listed in card order, not by player" in text  # F11


def test_an_unknown_game_has_no_rules_page(client: FlaskClient) -> None:
    for name in ("nope", "<script>", "rocky_river"):
        r = client.get(f"/games/{name}/rules")
        assert r.status_code == 404
        assert "<script>" not in r.get_data(as_text=True).split("<main", 1)[1]


@pytest.fixture
def _toy() -> Iterator[None]:
    with registered():
        yield


@pytest.mark.usefixtures("_toy")
def test_a_game_without_its_own_page_gets_the_generic_one(client: FlaskClient) -> None:
    rules = get_ruleset(Toy.name)  # the test-only toy (tests/toy): no web module, no page
    assert rules.web_module is None
    html = page(client, f"/games/{Toy.name}/rules")
    text = " ".join(" ".join(parsed(html).text).split())
    assert f"How to play {rules.title}" in text
    assert "The steps of a match" in text and "What the host may choose" in text
    for phase in rules.phases:
        assert phase.name.capitalize() in text
    for setting in rules.settings:
        assert setting.label in text
    assert "Orders, deadlines and what stays sealed" in text


def test_the_rules_are_linked_from_the_home_page_and_the_create_page(
    client: FlaskClient,
) -> None:
    home = page(client, "/")
    for game in ruleset_names():
        assert f'href="/games/{game}/rules"' in home
        assert f'href="/games/{game}/rules"' in page(client, f"/new?game={game}")


def test_the_rules_are_linked_from_every_match_page(client: FlaskClient, svc: Referee) -> None:
    links = create_match(client, "Rules links")  # through the create form
    pages = [f"/matches/{links.match_id}", *links.seats.values()]
    for url in pages:
        assert 'href="/games/rocky-river/rules"' in page(client, url), url
    for game in ruleset_names():  # every registered game's demo match
        demo = get_ruleset(game).demo(None)
        created = svc.create_match(
            name=f"{game} links",
            setup=demo.setup,
            players=demo.players,
            settings=demo.settings,
            ruleset=game,
            seed=demo.seed,
        )
        pages = [f"/matches/{created.match_id}"]
        pages += [f"/play/{token}" for token in created.player_tokens.values()]
        for url in pages:
            assert f'href="/games/{game}/rules"' in page(client, url), url


def test_the_favicon_is_linked_and_served_where_browsers_ask(client: FlaskClient) -> None:
    home = page(client, "/")
    assert '<link rel="icon" href="/static/favicon.svg' in home
    for url in ("/favicon.ico", "/static/favicon.svg"):
        r = client.get(url)
        assert r.status_code == 200, url
        assert r.mimetype == "image/svg+xml"
        assert r.get_data(as_text=True).startswith("<svg ")
