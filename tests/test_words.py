"""referee.words: counts in people's words, pinned on both sides of 1."""

from __future__ import annotations

import pytest

from referee.words import MINUS, counted, duration, garnets, signed


@pytest.mark.parametrize(
    ("count", "signed", "text"),
    [
        (0, False, "0 garnets"),
        (1, False, "1 garnet"),
        (2, False, "2 garnets"),
        (-1, False, "-1 garnet"),
        (-2, False, "-2 garnets"),
        (1, True, "+1 garnet"),
        (3, True, "+3 garnets"),
        (0, True, "0 garnets"),
        (-1, True, "-1 garnet"),
    ],
)
def test_garnets(count: int, signed: bool, text: str) -> None:
    assert garnets(count, signed=signed) == text


def test_counted_takes_an_irregular_plural() -> None:
    assert counted(1, "Token of Life", "Tokens of Life") == "1 Token of Life"
    assert counted(2, "Token of Life", "Tokens of Life") == "2 Tokens of Life"
    assert counted(2, "episode") == "2 episodes"


@pytest.mark.parametrize(
    ("hours", "words"),
    [
        (10 / 60, "10 minutes"),
        (1 / 60, "1 minute"),
        (0.001, "1 minute"),  # never "0 minutes": a deadline is at least a minute away
        (59 / 60, "59 minutes"),
        (1, "1 hour"),
        (1.5, "1 hour 30 minutes"),
        (48, "48 hours"),
        (24 + 1 / 60, "24 hours 1 minute"),
    ],
)
def test_a_duration_in_words(hours: float, words: str) -> None:
    assert duration(hours) == words


@pytest.mark.parametrize(
    ("number", "minus", "text"),
    [
        (3, "-", "+3"),
        (1, "-", "+1"),
        (0, "-", "0"),
        (-1, "-", "-1"),
        (-12, "-", "-12"),
        (4, MINUS, "+4"),
        (0, MINUS, "0"),
        (-4, MINUS, "\u22124"),
    ],
)
def test_signed_writes_the_sign_a_format_wants(number: int, minus: str, text: str) -> None:
    assert signed(number, minus) == text


def test_signed_keeps_the_hyphen_unless_told() -> None:
    assert signed(-2) == "-2" and MINUS == "\u2212"
