"""The player's words (issue 23, item 5): each refusal a player or host can meet
on an order form, worded as the page shows the order (the form's labels: "Fork
1", left or right, the ranking's places, a Forks card's name), naming what was
sent quoted and bounded; one case per check, each refused by that check alone
where the rules allow it. The codes stay; so do the API's and match files'
Forks messages, which name cards by id."""

from __future__ import annotations

from typing import Any

import pytest

from referee.errors import Problem, RuleError
from referee.ruleset import Setting, check_game_settings, get_ruleset
from referee.rulesets.forks_2e.cards import card_name
from referee.rulesets.forks_2e.orders import check_keep, check_market, read_order_card
from referee.rulesets.rocky_river.cards import Deck
from referee.rulesets.rocky_river.orders import check_draft, check_placements, check_votes
from referee.rulesets.rocky_river.river_map import RiverMap
from referee.text import typed
from referee.web.game import PageWords, web_for

IDS = [*"ABCDEFGHIJKLMNOPQRSTUVWXYZ", "AS"]
HAND = ["A", "B", "C", "D", "E", "F", "G", "H", "I"]


def refusals(call: Any) -> list[tuple[str, str]]:
    with pytest.raises(RuleError) as exc:
        call()
    return [(p.code, p.message) for p in exc.value.problems]


# ---- Rocky River: the rules' own messages are the page's -----------------------


def test_a_card_that_is_not_one_names_its_place_in_the_ranking(deck: Deck) -> None:
    order = [*IDS[:-1], "Joker"]  # AS written as something that is no card
    assert refusals(lambda: check_draft(order, deck)) == [
        (
            "draft/unknown_card",
            "place 27 of the ranking is “Joker”, which is not a card: the cards are A to Z and AS",
        ),
        ("draft/missing_card", "the ranking must list all 27 cards; missing: AS"),
    ]


def test_an_empty_place_in_the_ranking_is_said_so_not_quoted(deck: Deck) -> None:
    order = [*IDS[:-1], " "]
    assert refusals(lambda: check_draft(order, deck))[0] == (
        "draft/unknown_card",
        "place 27 of the ranking is empty: the cards are A to Z and AS",
    )


@pytest.mark.parametrize(
    ("second", "message"),
    [
        ("J", "card J is listed twice in the ranking, at places 10 and 27"),
        ("j", "card J is listed twice in the ranking, at places 10 and 27 (written “j” there)"),
    ],
)
def test_a_card_listed_twice_names_both_places(deck: Deck, second: str, message: str) -> None:
    order = [*IDS[:-1], second]
    assert refusals(lambda: check_draft(order, deck)) == [
        ("draft/duplicate_card", message),
        ("draft/missing_card", "the ranking must list all 27 cards; missing: AS"),
    ]


def test_a_ranking_that_leaves_out_cards_says_which(deck: Deck) -> None:
    assert refusals(lambda: check_draft(IDS[:-2], deck)) == [
        ("draft/missing_card", "the ranking must list all 27 cards; missing: Z, AS")
    ]


def legal(deck: Deck, river: RiverMap) -> dict[str, str]:
    """HAND placed, each card on the first branch it has a face for."""
    out = {}
    for card in HAND:
        out[card] = next(
            b.id for b in river.branches.values() if deck.by_id[card].value_for(b.color) is not None
        )
    check_placements(out, HAND, deck, river)  # accepted as it is
    return out


def test_a_placement_on_no_branch_says_choose_one(deck: Deck, river: RiverMap) -> None:
    placements = {**legal(deck, river), "A": "nowhere"}
    assert refusals(lambda: check_placements(placements, HAND, deck, river)) == [
        (
            "mapping/unknown_branch",
            f"card A: “nowhere” is not a branch of the map {typed(river.name)}: "
            "choose one of its branches",
        )
    ]


def test_a_placed_key_that_is_not_a_card_says_which_cards_are(deck: Deck, river: RiverMap) -> None:
    placements = {**legal(deck, river), "Joker": "1LL"}
    assert refusals(lambda: check_placements(placements, HAND, deck, river)) == [
        ("mapping/unknown_card", "“Joker” is not a card: the cards are A to Z and AS")
    ]


@pytest.mark.parametrize(
    ("sent", "message"),
    [
        ("", "fork 2: choose left or right"),
        (None, "fork 2: choose left or right"),
        ("X", "fork 2: choose left or right (“X” is not a direction)"),
        (3, "fork 2: choose left or right (3 is not a direction)"),
    ],
)
def test_a_fork_without_left_or_right_says_choose_one(sent: object, message: str) -> None:
    assert refusals(lambda: check_votes(["L", sent, "R"], 3)) == [
        ("rafting/bad_direction", message)
    ]


def test_what_was_sent_is_quoted_bounded_and_its_controls_written_out() -> None:
    sent = "\u202eevil" + "x" * 100
    [(code, message)] = refusals(lambda: check_votes([sent], 1))
    assert code == "rafting/bad_direction"
    assert "\u202e" not in message and "<U+202E>evil" in message
    assert f"“<U+202E>evil{'x' * 34}…”" in message
    assert typed("") == "“”" and typed("a" * 40) == f"“{'a' * 40}”"


# ---- Forks 2nd Edition: the rules name cards by id, the pages by name ---------------


def _context(viewer: str) -> dict[str, Any]:
    return {
        "view": {"viewer": {"kind": viewer, "seat": 2 if viewer == "seat" else None}},
        "names": {1: "Ana", 2: "Bo", 3: "Cy"},
        "dest_names": {
            "grey": "Steelton",
            "blue": "Bluecrest Harbour",
            "yellow": "Yellow",
            "green": "Green Acres",
            "red": "Red",
        },
    }


def _shown(call: Any, order: Any, viewer: str) -> str:
    with pytest.raises(RuleError) as exc:
        call()
    game = web_for(get_ruleset("forks-2e"))
    [problem] = game.player_problems(list(exc.value.problems), order, 2, _context(viewer))
    assert problem.code == exc.value.problems[0].code  # the code stays
    return problem.message


FORKS_CASES = {
    # case: (the check, the card sent, the seat's words, the host's words)
    "keep not dealt": (
        lambda: check_keep("grey-8", ["red-3", "red-4", "blue-5"]),
        "grey-8",
        "Steelton 8 was not dealt to you this round: keep one of the three cards dealt to you",
        "Steelton 8 was not dealt to Bo this round: keep one of the three cards dealt to them",
    ),
    "market not passed": (
        lambda: check_market("grey-8x", ["red-3", "red-4"], merge=False),
        "GREY 8X",
        "Steelton 8 (twin) was not passed to you this round: market one of the two cards "
        "passed to you",
        "Steelton 8 (twin) was not passed to Bo this round: market one of the two cards "
        "passed to them",
    ),
    "market not in hand": (
        lambda: check_market("blue-7", ["red-3", "red-4", "green-5"], merge=True),
        "blue-7",
        "Bluecrest Harbour 7 is not in your hand, nor one of the two cards passed to you: "
        "market one of those",
        "Bluecrest Harbour 7 is not in Bo's hand, nor one of the two cards passed to them: "
        "market one of those",
    ),
    "not a card": (
        lambda: read_order_card("red-99"),
        " red-99 ",
        "“red-99” is not a card of this game: choose one of the cards offered",
        "“red-99” is not a card of this game: choose one of the cards offered",
    ),
}


@pytest.mark.parametrize("case", sorted(FORKS_CASES))
def test_forks_refusals_on_a_page_name_the_card_as_players_know_it(case: str) -> None:
    check, order, seat_words, host_words = FORKS_CASES[case]
    assert _shown(check, order, "seat") == seat_words
    assert _shown(check, order, "host") == host_words


def test_forks_rules_keep_naming_cards_by_id_for_the_api() -> None:
    [(code, message)] = refusals(lambda: check_keep("grey-8", ["red-3", "red-4", "blue-5"]))
    assert code == "keep/not_dealt" and message.startswith("grey-8 was not dealt")


def test_a_stored_refusal_is_told_in_the_same_words() -> None:
    """A host-entered order refused at its close: its stored problem, on a page."""
    game = web_for(get_ruleset("forks-2e"))
    words = PageWords(game, _context("seat"))
    stored = {"code": "keep/not_dealt", "message": "grey-8 was not dealt to this seat"}
    assert words.problem(stored, "grey-8", 2).startswith("Steelton 8 was not dealt to you")
    other = {"code": "order/missing_key", "message": "has no 'keep'"}
    assert words.problem(other, None, 2) == "has no 'keep'"  # nothing to translate


def test_forks_orders_on_pages_are_named_cards() -> None:
    words = PageWords(web_for(get_ruleset("forks-2e")), _context("seat"))
    assert words.order("grey-8") == "Steelton 8"
    assert words.order("red-4x") == "Red 4 (twin)"
    assert card_name("green-5x") == "Green Acres 5 (twin)"  # the default names
    assert words.order("not-a-card") is None  # the generic text then


def test_rocky_river_votes_on_pages_are_left_and_right() -> None:
    game = web_for(get_ruleset("rocky-river"))
    words = PageWords(game, {"river": {"forks_per_segment": 3}})
    assert words.order(["L", "R", "L"]) == "left, right, left"
    assert words.order([*IDS]) is None  # a draft list: its cards as they are
    assert words.order({"A": "1LL"}) is None


def test_problem_type_is_unchanged_by_translation() -> None:
    game = web_for(get_ruleset("rocky-river"))
    problems = [Problem("rafting/bad_direction", "fork 1: choose left or right", "0")]
    assert game.player_problems(problems, ["X"], 1, {}) == problems


# ---- a game's settings on the create form: by the form's labels ------------------------

FORKS_SETTINGS = get_ruleset("forks-2e").settings
LABELS = {s.key: s.label for s in FORKS_SETTINGS}
SETTING_CASES: dict[str, tuple[dict[str, Any], str, str]] = {
    # case: (settings sent, code, message)
    "tiebreak twice": (
        {"tiebreak": ["red", "red", "grey", "blue", "yellow"]},
        "settings/bad_order",
        "Tiebreak order of the destinations: choose each of grey, blue, yellow, green, red "
        "once, in any order",
    ),
    "name too long": (
        {"names": {"grey": "x" * 41}},
        "settings/bad_names",
        f"Destination names: the name for grey, “{'x' * 39}…”, is not 1 to 40 characters "
        "on one line",
    ),
    "name empty": (
        {"names": {"grey": " "}},
        "settings/bad_names",
        "Destination names: the name for grey is empty: a name is 1 to 40 characters on one line",
    ),
    "name with a control": (
        {"names": {"grey": "Steel\u202eton"}},
        "settings/bad_names",
        "Destination names: the name for grey holds ",
    ),
    "names alike": (
        {"names": {"grey": "Port", "blue": "port"}},
        "settings/bad_names",
        "Destination names: grey and blue have the same name, “port”: each needs its own",
    ),
    "no such destination": (
        {"names": {"purple": "Port"}},
        "settings/bad_names",
        "Destination names: “purple” is not one of grey, blue, yellow, green, red",
    ),
    "merge not a flag": (
        {"merge": "yes"},
        "settings/not_a_flag",
        f"{LABELS['merge']}: must be true or false, not “yes”",
    ),
}


@pytest.mark.parametrize("case", sorted(SETTING_CASES))
def test_a_setting_is_refused_by_its_label(case: str) -> None:
    sent, code, message = SETTING_CASES[case]
    [(got_code, got)] = refusals(lambda: check_game_settings(FORKS_SETTINGS, sent))
    assert got_code == code
    assert got.startswith(message) if message.endswith(" ") else got == message
    assert "\u202e" not in got


def test_a_choice_setting_is_refused_by_its_label() -> None:
    spec = Setting("size", "Board size", "choice", "small", choices=("small", "large"))
    assert refusals(lambda: check_game_settings([spec], {"size": ""})) == [
        ("settings/bad_choice", "Board size: choose one of small, large, not “”")
    ]


def test_the_audit_page_names_cards_by_the_matchs_names() -> None:
    game = web_for(get_ruleset("forks-2e"))
    view = {"settings": {"names": {"grey": "Steelton"}}}
    assert game.card_words("grey-8x", view) == "Steelton 8 (twin)"  # type: ignore[attr-defined]
    assert game.card_words("red-12", {}) == "Red 12"  # type: ignore[attr-defined]
    assert game.card_words("grey-13", view) == "grey-13"  # type: ignore[attr-defined]
