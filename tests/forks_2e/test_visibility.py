"""F11 "What is public", checked on everything a viewer can reach.

Whole Forks matches are played through the service (2 to 6 players, standard
and merge); at every state (before the first round, each round open with
orders in, after each close, at the end) every channel is fetched for every
viewer:

- the public: the API's view and forum posts (Markdown, BBCode), the match
  page, the page's post text and the SVG pictures (``board``, ``scores``);
- each seat, with its token: the API's ``/me`` and its player page;
- the host: the API's ``/me``, preview, export and audit, the dashboard, the
  order page of each seat, the post pages, the export and audit pages, the
  preview page;

and every card id found in them (as a whole token) is checked against what
that viewer may know at that moment, computed from the engine's replay of the
match (the seed and the closed rounds, taken from the service as an operator
would): no viewer but seat s sees a card private to s (its dealt cards, the
cards passed to it, its hand before the end, its sealed choice) unless it is
public by then (initial marketing, marketed, revealed, every hand at the end);
the host sees a closed step's cards but never the dealt cards of a keep step
that has not closed, nor any card still in the draw pile, nor before the end
the cards set aside (with them it could tell the last deal); nobody but the
host sees them, even at the end (until the full reveal). A select listing
every card in play (the host's order form, which cannot know the deal)
reveals nothing and is not scanned, nor is the orders' help text (its
example card).

And sealed means sealed: when a seat replaces its sealed order with another
card, nothing any other viewer can fetch changes, byte for byte, ETags and
versions included (the clock stands still, as in tests/service/web/test_sealed.py).

PNG pictures are the same SVGs rendered, so only the SVGs are scanned.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime

import pytest
from flask.testing import FlaskClient
from markupsafe import escape

from referee.rulesets.forks_2e import match as m
from referee.rulesets.forks_2e.cards import DEFAULT_NAMES, card_name, cards_in_play, read_card
from referee.rulesets.forks_2e.ruleset import Forks2e
from referee.service import Referee

from .test_api import HOST_ONLY, ApiMatch, bearer, spelled

CARD = re.compile(r"\b(?:grey|blue|yellow|green|red)-\d+x?\b", re.I)
# a card by its name (the default names: these matches keep them), as receipts,
# order lists and posts write it: "Red 4", "Red 4 (twin)"; a chip writes the
# twin's "x" in a span after the value, so "Red 4<span ...>x" is the twin too
NAMED = re.compile(
    r"\b(" + "|".join(map(re.escape, DEFAULT_NAMES.values())) + r") (\d{1,2})(?!\d)"
    r"( \(twin\)|<span aria-hidden=\"true\">x</span>)?"
)
_DEST_OF = {name: dest for dest, name in DEFAULT_NAMES.items()}
SELECT = re.compile(r"<select\b.*?</select>", re.S | re.I)
CASES = [(2, False), (2, True), (3, True), (4, False), (5, True), (6, False)]
# the quick run (README: -m "not slow") scans one whole match, the smallest, on
# SQLite: the host seeing an open keep step's deal must not wait for CI to show
QUICK = (2, False)

Answer = tuple[int, str, str | None]  # status, body, ETag


class Clock:
    def __init__(self) -> None:
        self.now = datetime(2030, 1, 1, 12, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now


@pytest.fixture
def web(client: FlaskClient) -> Iterator[FlaskClient]:
    """The client, with the service's clock standing still and forms without
    CSRF tokens, so that two fetches of a page can be compared byte for byte."""
    app = client.application
    app.config["WTF_CSRF_ENABLED"] = False
    app.extensions["referee"].clock = Clock()
    yield client


def card_ids(text: str) -> set[str]:
    """The cards ``text`` names, by id or by name."""
    found = {read_card(t) for t in CARD.findall(text)}
    for dest, number, twin in NAMED.findall(text):
        found.add(read_card(f"{_DEST_OF[dest]}-{number}{'x' if twin else ''}"))
    return {c for c in found if c is not None}


def _help_texts() -> list[str]:
    """The order schemas' help texts (``e.g. 'grey-8x'``), as written and as
    HTML shows them: static text, not a card of anyone's."""
    texts = [str(p.schema["description"]) for p in Forks2e.phases if "description" in p.schema]
    return [*texts, *(str(escape(t)) for t in texts)]


HELP_TEXTS = _help_texts()


def scanned(text: str, in_play: set[str]) -> str:
    """``text`` without the selects that list every card in play, and without
    the order schemas' help texts."""
    for help_text in HELP_TEXTS:
        text = text.replace(help_text, "")
    return SELECT.sub(lambda s: "" if card_ids(s.group(0)) >= in_play else s.group(0), text)


# ---- what each viewer may know -------------------------------------------------------


@dataclass
class Knowledge:
    """Who may know which card now (F11), from the engine's replay."""

    in_play: set[str]
    public: set[str]
    private: dict[int, set[str]]  # by seat: dealt to it, passed to it, its hand, its sealed choice
    secret: set[str]  # the removed cards and the draw pile
    host_may: set[str]  # what the host may know besides the public cards
    host_may_not: set[str]  # undealt cards and dealt cards of a keep step not closed
    why: dict[str, str]  # a card's owner, for messages
    marketing: set[str]  # the cards in marketing
    closed_deals: set[str]  # the cards dealt in game rounds whose keep step has closed

    def forbidden(self, viewer: str) -> set[str]:
        if viewer == "host":
            return self.host_may_not - self.host_may - self.public
        everyone = set().union(*self.private.values()) | self.secret
        if viewer == "public":
            return everyone - self.public
        seat = int(viewer.split()[1])
        others = set().union(*(cards for s, cards in self.private.items() if s != seat))
        return (others | self.secret) - self.private[seat] - self.public


def knowledge(g: ApiMatch, host_entered: set[str]) -> Knowledge:
    svc: Referee = g.client.application.extensions["referee"]
    table = m.play(m.parse_match(svc.document(g.id)))  # the operator's tool: with the seed
    state = svc.state(g.id)
    rnd = state.open_round
    sealed = {o.seat: o.payload for o in state.orders if rnd and o.round_number == rnd.number}
    seats = list(table.seat_numbers())
    public = {*table.initial_marketing, *table.revealed}
    for step in table.marketed_by:
        public |= set(step.values())
    if table.finished:
        public |= set().union(*(set(h) for h in table.hands.values()))
    why: dict[str, str] = {}
    private: dict[int, set[str]] = {}
    for seat in seats:
        cards = set(table.hands[seat])
        for dealt in table.dealt:
            cards |= set(dealt[seat])
        for passed in table.passed:
            cards |= set(passed[seat])
        if seat in sealed:
            cards.add(sealed[seat])
        private[seat] = cards
        for card in cards:
            why[card] = why.get(card, "private to seat") + f" {seat}"
    secret = {*table.removed, *table.pile}
    why.update({c: "removed" for c in table.removed} | {c: "in the draw pile" for c in table.pile})
    known_deals = (table.closed + 1) // 2  # game rounds whose keep step has closed
    closed_deals: set[str] = set()
    for dealt in table.dealt[:known_deals]:
        closed_deals |= set().union(*(set(c) for c in dealt.values()))
    host_may_not = set(table.pile)
    for dealt in table.dealt[known_deals:]:
        host_may_not |= set().union(*(set(c) for c in dealt.values()))
    # the cards set aside: with them the host could tell the last deal (docs/forks-2e.md)
    aside = set(table.removed)
    if not table.finished:
        host_may_not |= aside
    return Knowledge(
        in_play=set(cards_in_play(len(seats))),
        public=public,
        private=private,
        secret=secret,
        host_may={*host_entered, *closed_deals, *(aside if table.finished else ())},
        host_may_not=host_may_not,
        why=why,
        marketing=set(table.marketing()),
        closed_deals=closed_deals,
    )


# ---- every channel ---------------------------------------------------------------------


def fetch(client: FlaskClient, url: str, token: str | None = None, method: str = "GET") -> Answer:
    resp = client.open(url, method=method, headers=bearer(token) if token else {})
    return resp.status_code, resp.get_data(as_text=True), resp.headers.get("ETag")


def channels(g: ApiMatch, viewers: list[str]) -> dict[str, dict[str, Answer]]:
    """Every answer each of ``viewers`` can get about the match."""
    c, api, out = g.client, f"/api/matches/{g.id}", {}
    for viewer in viewers:
        got: dict[str, Answer] = {}
        if viewer == "public":
            got["api view"] = fetch(c, api)
            for fmt in ("markdown", "bbcode"):
                got[f"api post {fmt}"] = fetch(c, f"{api}/post?format={fmt}")
                got[f"page post {fmt}"] = fetch(c, f"/matches/{g.id}/post?format={fmt}")
            got["page"] = fetch(c, f"/matches/{g.id}")
            for picture in ("board", "scores"):
                got[f"{picture}.svg"] = fetch(c, f"/matches/{g.id}/{picture}.svg")
        elif viewer == "host":
            host = f"/host/{g.host}"
            for path in ("/me", "/preview", "/export", "/audit"):
                got[f"api {path}"] = fetch(c, api + path, g.host)
            got["page dashboard"] = fetch(c, host)
            for fmt in ("markdown", "bbcode"):
                got[f"page post {fmt}"] = fetch(c, f"{host}/post?format={fmt}")
            for path in ("/export", "/audit"):
                got[f"page {path}"] = fetch(c, host + path)
            got["page preview"] = fetch(c, f"{host}/preview", method="POST")
            for seat in g.seat_numbers:
                got[f"page order {seat}"] = fetch(c, f"{host}/order/{seat}")
        else:
            seat = int(viewer.split()[1])
            got["api /me"] = fetch(c, f"{api}/me", g.tokens[seat])
            got["page"] = fetch(c, f"/play/{g.tokens[seat]}")
        out[viewer] = got
    return out


def viewers_of(g: ApiMatch) -> list[str]:
    return ["public", "host", *(f"seat {s}" for s in g.seat_numbers)]


def leaks(g: ApiMatch, known: Knowledge, seen: dict[str, dict[str, Answer]]) -> list[str]:
    """Each card a viewer's channel shows that the viewer may not know."""
    found = []
    for viewer, answers in seen.items():
        forbidden = known.forbidden(viewer)
        for channel, (status, body, _) in answers.items():
            assert status < 500, (viewer, channel, body[:2000])
            shown = card_ids(scanned(body, known.in_play)) & forbidden
            found += [f"{viewer}, {channel}: {c} ({known.why.get(c, '?')})" for c in sorted(shown)]
    return found


class Scan:
    """A match played through the service, checked at every state."""

    def __init__(self, client: FlaskClient, players: int, merge: bool) -> None:
        self.g = ApiMatch(client, players, merge=merge, name=f"Seen {players} <i>")
        self.host_entered: set[str] = set()  # cards the host entered in the open round
        self.states = 0

    def check(self, when: str, extra: dict[str, dict[str, Answer]] | None = None) -> None:
        g = self.g
        seen = channels(g, viewers_of(g))
        for viewer, answers in (extra or {}).items():
            seen.setdefault(viewer, {}).update(answers)
        known = knowledge(g, self.host_entered)
        found = leaks(g, known, seen)
        assert found == [], f"{when}: " + "; ".join(found)
        self.shown(when, known, seen)
        self.structure()
        self.states += 1

    def shown(self, when: str, known: Knowledge, seen: dict[str, dict[str, Answer]]) -> None:
        """The other side: each viewer's channels do show, as card ids, what it
        may see (so the scan cannot pass by finding nothing)."""
        g = self.g

        def shows(viewer: str, channel: str, cards: set[str]) -> None:
            missing = cards - card_ids(seen[viewer][channel][1])
            assert not missing, f"{when}: {viewer}, {channel} lacks {sorted(missing)}"

        for channel in ("board.svg", "api post markdown"):
            shows("public", channel, known.marketing)
        for channel in ("api view", "page"):  # at the end, every hand too
            shows("public", channel, known.public)
        for seat in g.seat_numbers:
            options = set(json.loads(seen[f"seat {seat}"]["api /me"][1]).get("options", []))
            shows(f"seat {seat}", "page", options)
        for channel in ("api /me", "page dashboard"):
            shows("host", channel, known.closed_deals)

    def structure(self) -> None:
        """The views every page is made from: no order but one's own, no host
        key for the public or a seat (F11: who kept, passed, marketed what)."""
        g = self.g
        public = g.public()
        assert public["orders"] == {}
        assert not set(HOST_ONLY) & set(public["result"])
        for seat in g.seat_numbers:
            view = g.me(seat)
            assert {s for by in view["orders"].values() for s in by} <= {str(seat)}
            assert not set(HOST_ONLY) & set(view["result"])

    def orders(self, number: int, key: str) -> dict[int, str]:
        """Each seat's order of round ``number``: none, its own, or the host's."""
        g = self.g
        sent: dict[int, str] = {}
        for seat in g.seat_numbers:
            how = (number + seat) % 4  # 0: none; 3: the host enters it
            if how == 0:
                continue
            options = g.me(seat)["options"]
            card = options[(number * seat) % len(options)]
            g.send(seat, key, spelled(card, how - 1), host=how == 3)
            if how == 3:
                self.host_entered.add(card)
            sent[seat] = card
        return sent


def replace_sealed(scan: Scan, number: int, key: str, seat: int, card: str) -> None:
    """``seat`` replaces its sealed order by ``card``: nothing any other viewer
    can fetch changes; the seat itself sees its new order."""
    g = scan.g
    others = [v for v in viewers_of(g) if v != f"seat {seat}"]
    before = channels(g, others)
    receipt = g.send(seat, key, card)
    after = channels(g, others)
    changed = [
        f"{viewer}: {channel}"
        for viewer in others
        for channel in before[viewer]
        if before[viewer][channel] != after[viewer][channel]
    ]
    assert changed == [], f"round {number}: seat {seat}'s replaced order changed {changed}"
    mine = g.standing(number, seat, g.tokens[seat])
    assert mine is not None and mine["order"] == card and mine["receipt"] == receipt


def play_and_scan(client: FlaskClient, players: int, merge: bool) -> Scan:
    scan = Scan(client, players, merge)
    g = scan.g
    scan.check("before the first round")
    for number in range(1, m.rounds_of(players) + 1):
        key = "keep" if number % 2 else "market"
        scan.host_entered = set()
        opened = g.open()
        scan.check(f"round {number} open", {"host": {"open answer": (200, str(opened), None)}})
        sent = scan.orders(number, key)
        scan.check(f"round {number} with orders in")
        own = [s for s in sent if (number + s) % 4 != 3]  # orders the seats sent themselves
        entered = [s for s in sent if s not in own]
        if entered and number % 4 == 1:  # a seat replaces what the host entered for it
            seat = entered[0]
            card = next(c for c in g.me(seat)["options"] if c != sent[seat])
            g.send(seat, key, card)
            sent[seat] = card
            own.append(seat)
            scan.check(f"round {number}, seat {seat} replaced the host's order")
        if own:
            seat = own[0]
            card = next(c for c in g.me(seat)["options"] if c != sent[seat])
            replace_sealed(scan, number, key, seat, card)
            sent[seat] = card
            scan.check(f"round {number}, seat {seat} replaced its order")
        closed = g.close()
        scan.check(f"round {number} closed", {"public": {"close answer": (200, str(closed), None)}})
    assert g.public()["finished"] is True
    return scan


@pytest.mark.parametrize(
    ("players", "merge"),
    [pytest.param(n, x, marks=() if (n, x) == QUICK else pytest.mark.slow) for n, x in CASES],
    ids=[f"{n}p-{'merge' if x else 'standard'}" for n, x in CASES],
)
def test_no_viewer_sees_a_card_it_may_not_know(web: FlaskClient, players: int, merge: bool) -> None:
    scan = play_and_scan(web, players, merge)
    assert scan.states >= 3 * m.rounds_of(players)
    g = scan.g
    # at the end every hand is public, the orders are not (until the full reveal)
    public = g.public()
    assert set(public["result"]["hands"]) == {str(s) for s in g.seat_numbers}
    assert public["orders"] == {}
    reveal = g.api("POST", "/reveal", g.host)
    assert reveal.status_code == 200
    revealed = g.public()
    assert revealed["revealed"] is True and len(revealed["orders"]) == m.rounds_of(players)
    assert revealed["result"]["dealt"] == g.host_view()["result"]["dealt"]


# ---- the host's own ways in: refusals and the preview ----------------------------------


def dealt_to(g: ApiMatch, seat: int) -> list[str]:
    """What the seat sees of its current deal (its own view)."""
    dealt: list[str] = g.me(seat)["result"]["mine"][-1]["dealt"]
    return dealt


def test_a_seats_own_refusal_names_only_the_card_it_sent(web: FlaskClient) -> None:
    """A seat's refused keep order names its card, never the three it was
    dealt (a refusal's words may reach others: a player quoting it)."""
    g = ApiMatch(web, 3)
    g.open()
    wrong = next(c for c in sorted(cards_in_play(3)) if c not in dealt_to(g, 1))
    own = g.refused({"keep": wrong}, g.tokens[1], "keep/not_dealt")
    assert card_ids(own) == {wrong}


def host_channels(g: ApiMatch, seat: int) -> dict[str, str]:
    """What the host can fetch while a step is open: the API's view and preview,
    the dashboard, the preview page and the order page of ``seat``."""
    host = f"/host/{g.host}"
    got = {
        "api /me": fetch(g.client, f"/api/matches/{g.id}/me", g.host),
        "api /preview": fetch(g.client, f"/api/matches/{g.id}/preview", g.host),
        "page dashboard": fetch(g.client, host),
        "page preview": fetch(g.client, f"{host}/preview", method="POST"),
        f"page order {seat}": fetch(g.client, f"{host}/order/{seat}"),
    }
    return {name: f"{status} {body}" for name, (status, body, _) in got.items()}


def masked(text: str, card: str, receipt: str) -> str:
    """``text`` with the card the host entered, its receipt and the view
    versions (digests of a view holding that card) written alike, and without
    the selects listing every card in play (see :func:`scanned`)."""
    text = scanned(text, set(cards_in_play(3)))
    text = re.sub(rf"\b{re.escape(card)}\b", "CARD", text, flags=re.I)
    twin = "" if card.endswith("x") else r"(?! \(twin\)|<span aria-hidden=\"true\">x)"
    text = re.sub(rf"\b{re.escape(card_name(card))}(?!\d){twin}", "CARD", text)
    text = text.replace(receipt, "RECEIPT")
    return re.sub(r"\b[0-9a-f]{16}\b", "VERSION", text)


@pytest.mark.parametrize("how", ["api", "page"])
def test_a_host_entering_a_keep_order_learns_nothing_from_its_answer(
    web: FlaskClient, how: str
) -> None:
    """F11 and issue 22: the host never sees an open keep step's dealt cards,
    and may enter a seat's order (sent to it by private message). Whether the
    card it names was dealt to that seat must not show in any answer: entering
    a dealt card and an undealt one gives the same answer and the same pages
    (but for the card itself and its receipt). The order is checked at the
    close: the undealt one is not used, the seat gets the default, and the
    host and the seat are told then (the seat, which sees its cards, at once)."""
    g = ApiMatch(web, 3)
    g.open()
    dealt = dealt_to(g, 1)
    undealt = dealt_to(g, 2)[0]  # not seat 1's, and not public (not in marketing)
    answers: dict[str, dict[str, str]] = {}
    receipts: dict[str, str] = {}
    for card in (dealt[0], undealt):
        if how == "api":
            resp = g.put({"keep": card, "seat": 1}, g.host)
            answer = resp.get_json()
            receipts[card] = answer["receipt"]
            text = f"{resp.status_code} {json.dumps(answer, sort_keys=True)}"
        else:
            resp = g.client.post(f"/host/{g.host}/order/1", data={"round": "1", "card": card})
            assert resp.status_code == 302, resp.get_data(as_text=True)
            page = g.client.get(resp.headers["Location"])  # the dashboard with its notice
            text = f"{resp.status_code} {page.status_code} {page.get_data(as_text=True)}"
            receipts[card] = g.host_view()["orders"]["1"]["1"]["receipt"]
        seen = {"answer": text, **host_channels(g, 1)}
        answers[card] = {k: masked(v, card, receipts[card]) for k, v in seen.items()}
    assert answers[dealt[0]] == answers[undealt]
    assert "problems" not in g.host_view()["orders"]["1"]["1"]
    # the seat, which sees its own cards, is told at once
    mine = g.me(1)["orders"]["1"]["1"]
    assert [p["code"] for p in mine["problems"]] == ["keep/not_dealt"]
    g.close()
    host = g.host_view()
    order = host["orders"]["1"]["1"]
    assert order["refused_at_close"] is True and "problems" not in order
    assert {"round": 1, "seat": 1} in host["result"]["defaulted"]
    assert undealt not in host["result"]["hands"]["1"]
    mine = g.me(1)["orders"]["1"]["1"]
    assert mine["refused_at_close"] is True
    assert [p["code"] for p in mine["problems"]] == ["keep/not_dealt"]
    assert g.public()["orders"] == {}


@pytest.mark.parametrize("number", [1, 2])
def test_the_host_preview_shows_no_card_the_host_may_not_know(
    web: FlaskClient, number: int
) -> None:
    """The preview resolves the open round when the host entered every order of
    it and the game checks such orders in full on entry: a market step, whose
    options (the cards passed) the host sees, but not a keep step (whether a
    card was dealt is checked at the close). For Forks a market step's
    resolution holds what F11 keeps from the host (closing it deals the next
    game round). The host's preview (API and page) must show no card the host
    may not know."""
    scan = Scan(web, 3, False)
    g = scan.g
    for current in range(1, number + 1):
        key = "keep" if current % 2 else "market"
        g.open()
        scan.host_entered = set()
        for seat in g.seat_numbers:
            card = g.me(seat)["options"][0]
            g.send(seat, key, card, host=True)
            scan.host_entered.add(card)
        if current < number:
            g.close()
    preview = g.api("GET", "/preview", g.host).get_json()["preview"]
    assert preview["resolved"] is (number == 2)
    seen = {
        "host": {
            "api /preview": fetch(g.client, f"/api/matches/{g.id}/preview", g.host),
            "page preview": fetch(g.client, f"/host/{g.host}/preview", method="POST"),
        }
    }
    found = leaks(g, knowledge(g, scan.host_entered), seen)
    assert found == [], "; ".join(found)
