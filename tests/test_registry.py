"""The registry of games: the built-in ones, and games from outside the
package named in REFEREE_EXTRA_RULESETS (how the tests add their toy game to
every server they start)."""

from __future__ import annotations

import os

import pytest
from toy import Toy

from referee.errors import RuleError
from referee.ruleset import EXTRA_RULESETS_ENV, get_ruleset, ruleset_names, unregister


def test_games_named_in_the_environment_are_registered(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(EXTRA_RULESETS_ENV, " toy-copy = toy.ruleset:Toy ,no-colon=toy, =x:Y,")
    try:
        assert {"rocky-river", "forks-2e", "toy-copy"} <= set(ruleset_names())
        assert isinstance(get_ruleset("toy-copy"), Toy)
        assert "no-colon" not in ruleset_names()  # not name=module:Class: left out
    finally:
        unregister("toy-copy")


def test_without_the_environment_only_the_built_in_games_are_known(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv(EXTRA_RULESETS_ENV, raising=False)
    unregister("toy")
    try:
        assert "toy" not in ruleset_names()
        with pytest.raises(RuleError) as caught:
            get_ruleset("toy")
        assert caught.value.problems[0].code == "match/unknown_ruleset"
    finally:
        monkeypatch.undo()


def test_the_toy_game_is_registered_in_every_run() -> None:
    """tests/conftest.py registers the toy game for the whole run, so every
    test over all registered games covers it (docs/adding-a-game.md)."""
    wanted = os.environ.get("REFEREE_TEST_TOY", "1") != "0"
    assert ("toy" in ruleset_names()) == wanted
