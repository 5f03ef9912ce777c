"""A season's rules and roster as the host enters them (issue 15), checked;
and who a Main Match is of by default. Pure: no SQL, no Flask."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from referee.errors import Problem, RuleError
from referee.names import look_alikes, name_fault, shown
from referee.notify.checks import check_email

DEFAULT_RULES: dict[str, Any] = {"token_bonus": 0, "token_lasts": "episode"}
TOKEN_LASTS = ("episode", "until_used")
MAX_PLAYERS = 64
MAX_CHANGE = 1_000_000


def check_rules(raw: object) -> dict[str, Any]:
    """A season's rules with defaults filled in; every problem named."""
    if raw is None:
        return dict(DEFAULT_RULES)
    if not isinstance(raw, Mapping):
        raise RuleError.single("season/bad_rules", "'rules' must be an object")
    problems: list[Problem] = []
    out = dict(DEFAULT_RULES)
    for key, value in raw.items():
        if key == "token_bonus":
            if type(value) is not int or not 0 <= value <= 100:
                problems.append(
                    Problem(
                        "season/bad_rules",
                        f"the Token of Life's bonus must be a whole number of garnets from 0 "
                        f"to 100, not {value!r}",
                        key,
                    )
                )
            else:
                out[key] = value
        elif key == "token_lasts":
            if value not in TOKEN_LASTS:
                problems.append(
                    Problem(
                        "season/bad_rules",
                        f"a Token of Life lasts 'episode' or 'until_used', not {value!r}",
                        key,
                    )
                )
            else:
                out[key] = value
        else:
            problems.append(
                Problem(
                    "season/bad_rules",
                    f"unknown season rule {str(key)[:40]!r} (known: {', '.join(DEFAULT_RULES)})",
                    "rules",
                )
            )
    if problems:
        raise RuleError(problems)
    return out


def main_match_players(remaining: Sequence[int], most: int) -> tuple[list[int], list[int]]:
    """Who a Main Match of a game of at most ``most`` players is of, unless the
    host chooses (the season host page ticks them): every player still in, or,
    when the game takes fewer, the first ``most`` of them in roster order; and
    the players that leaves out (the page names them)."""
    return list(remaining[:most]), list(remaining[most:])


def look_alike_problems(named: Sequence[tuple[int, str]]) -> list[Problem]:
    """The roster's names that look alike (issue 22): the rule a match's players
    follow (:func:`referee.names.look_alikes`, ``match/confusable_names``), so
    that a Main Match of every player is never refused for its names."""
    return [
        Problem(
            "season/confusable_names",
            f"players {row_a} and {row_b} have names that look alike, {shown(name_a)} and "
            f"{shown(name_b)}: they differ only by case, invisible characters, compatibility "
            "forms or look-alike letters; give the players names that can be told apart",
            "players",
        )
        for (row_a, name_a), (row_b, name_b) in look_alikes(named)
    ]


def roster_entry(raw: object, i: int) -> tuple[str, str | None, int]:
    where = f"player {i}"
    if not isinstance(raw, Mapping):
        raise RuleError.single("season/bad_players", f"{where} must be an object with a name")
    unknown = set(raw) - {"name", "email", "garnets"}
    if unknown:
        raise RuleError.single(
            "season/bad_players", f"{where}: unknown key(s) {', '.join(sorted(map(str, unknown)))}"
        )
    name = raw.get("name")
    if not isinstance(name, str) or not name.strip() or len(name) > 100:
        raise RuleError.single("season/bad_players", f"{where} needs a name of 1 to 100 characters")
    if (fault := name_fault(name)) is not None:
        raise RuleError.single("season/bad_players", f"{where}'s name: {fault}")
    email = raw.get("email")
    checked = check_email(email, where) if email not in (None, "") else None
    garnets = raw.get("garnets", 0)
    if type(garnets) is not int or not 0 <= garnets <= MAX_CHANGE:
        raise RuleError.single(
            "season/bad_players", f"{where}'s starting garnets must be 0 or more, not {garnets!r}"
        )
    return name.strip(), checked, garnets
