"""The one deadline parser (referee.web.common.parse_deadline): the API's
(a time zone is required) and the host form's (a time without a zone is UTC),
with the same codes, messages and fields the API and the host's page show."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from referee.errors import RuleError
from referee.web.common import parse_deadline

AT = datetime(2026, 12, 1, 18, 0, tzinfo=UTC)


def refusal(raw: object, *, from_form: bool) -> tuple[str, str, str | None]:
    with pytest.raises(RuleError) as refused:
        parse_deadline(raw, from_form=from_form)
    (problem,) = refused.value.problems
    return problem.code, problem.message, problem.field


@pytest.mark.parametrize("from_form", [False, True])
@pytest.mark.parametrize(
    "raw",
    [
        "2026-12-01T18:00Z",
        "2026-12-01T18:00z",
        "2026-12-01T18:00:00+00:00",
        "2026-12-01T19:00+01:00",
        "2026-12-01T13:00-05:00",
        "2026-12-01 18:00Z",  # a space instead of T
        "2026-12-01 19:00+01:00",
        "  2026-12-01T18:00Z  ",
    ],
)
def test_a_time_with_its_zone_is_read_the_same_by_both(raw: str, from_form: bool) -> None:
    parsed = parse_deadline(raw, from_form=from_form)
    assert parsed == AT and parsed.tzinfo is UTC


@pytest.mark.parametrize("raw", ["2026-12-01T18:00", "2026-12-01 18:00", "2026-12-01T18:00:00"])
def test_the_form_reads_a_time_without_a_zone_as_utc(raw: str) -> None:
    parsed = parse_deadline(raw, from_form=True)
    assert parsed == AT and parsed.tzinfo is UTC


@pytest.mark.parametrize("raw", ["2026-12-01T18:00", "2026-12-01 18:00"])
def test_the_api_needs_a_time_zone(raw: str) -> None:
    assert refusal(raw, from_form=False) == (
        "round/bad_deadline",
        f"the deadline '{raw}' needs a time zone, e.g. 2026-12-01T18:00Z",
        None,
    )


@pytest.mark.parametrize(
    "raw",
    [
        "9999-12-31T23:59:59-23:59",  # past year 9999 in UTC
        "9999-12-31T23:30-01:00",
        "0001-01-01T00:00:00+01:00",  # before year 1 in UTC
        "0001-01-01T00:30+00:31",
        "tomorrow",
        "",
        "2026-13-01T18:00Z",
        "2026-12-01T18:00Zz",
    ],
)
def test_what_is_not_a_time_in_range_is_a_bad_deadline_not_a_crash(raw: str) -> None:
    assert refusal(raw, from_form=False) == (
        "round/bad_deadline",
        f"'{raw}' is not an ISO-8601 date-time such as 2026-12-01T18:00Z",
        None,
    )
    assert refusal(raw, from_form=True) == (
        "round/bad_deadline",
        f"'{raw}' is not a date and time such as 2026-12-01T18:00Z",
        "deadline",
    )


def test_the_last_and_first_times_in_range_are_read() -> None:
    assert parse_deadline("9999-12-31T23:59:59Z") == datetime(9999, 12, 31, 23, 59, 59, tzinfo=UTC)
    assert parse_deadline("9999-12-31T23:59", from_form=True).year == 9999
    assert parse_deadline("0001-01-01T00:00:00+00:00") == datetime(1, 1, 1, tzinfo=UTC)


@pytest.mark.parametrize("raw", [5, None, ["2026-12-01T18:00Z"], {"at": 1}])
def test_the_api_refuses_a_deadline_that_is_not_a_string(raw: object) -> None:
    assert refusal(raw, from_form=False) == (
        "round/bad_deadline",
        f"a deadline is an ISO-8601 date-time string, not {raw!r}",
        None,
    )
