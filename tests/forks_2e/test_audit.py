"""F12's audit (CP-SAT) checked against brute force on random finished matches.

The brute force shares nothing with the model: for one seat it replays the
whole match with the engine's own :func:`~match.start`, :func:`~match.close_keep`
and :func:`~match.close_market`, every other order exactly as in the file
(missing ones left missing, so the engine works out each default again), and
branches at each of the seat's market steps over every card the engine offers
it there (:meth:`~match.Table.options`: in merge, whatever the hand holds after
that combination's earlier choices). Each finished branch is scored by the
engine's F6-F8.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import Result
from conftest import GOLDEN_ROOT
from jinja2 import Environment, FileSystemLoader, select_autoescape
from ortools.sat.python import cp_model

from referee.errors import RuleError
from referee.ruleset import get_ruleset
from referee.rulesets.forks_2e import audit as audit_mod
from referee.rulesets.forks_2e import match as m
from referee.rulesets.forks_2e.audit import MatchAudit, audit_document, audit_text
from referee.rulesets.forks_2e.cards import DESTINATIONS, card_name
from referee.rulesets.forks_2e.scoring import marketing_totals, ranking, score

GOLDEN = GOLDEN_ROOT / "forks-2e"
CARD_ID = re.compile(r"(?<![\w-])(?:grey|blue|yellow|green|red)-(?:[3-9]|1[0-2])x?(?![\w-])")
FINISHED = ("01-three-players", "02-two-players", "03-merge-four-players-missing-orders")
NAMES = ("Ana", "Bo", "Cy", "Di", "Ed", "Flo")
REPO = Path(__file__).resolve().parents[2]

Combo = tuple[str, ...]  # the seat's marketed card in each game round


# ---- random finished matches ------------------------------------------------------


def random_match(
    rng: random.Random, seats: int, merge: bool, *, missing: float = 0.15, rounds: int | None = None
) -> dict[str, Any]:
    """A match file of random legal play (``missing``: the chance an order is left
    out); ``rounds`` closed rounds (default: all)."""
    seed = f"audit-{rng.random()}"
    tiebreak = list(DESTINATIONS)
    rng.shuffle(tiebreak)
    table = m.start(seed, seats, merge=merge)
    orders: list[dict[int, str | None]] = []
    for _ in range(m.rounds_of(seats) if rounds is None else rounds):
        chosen: dict[int, str | None] = {
            seat: None if rng.random() < missing else rng.choice(table.options(seat))
            for seat in table.seat_numbers()
        }
        orders.append(chosen)
        (m.close_keep if table.closed % 2 == 0 else m.close_market)(table, chosen)
    players = [
        {"seat": s, "name": NAMES[s - 1], "garnets": rng.randint(0, 9)} for s in range(1, seats + 1)
    ]
    return m.match_json(players, {"merge": merge, "tiebreak": tiebreak}, seed, orders)


# ---- the brute force -------------------------------------------------------------


def every_combination(doc: dict[str, Any], seat: int) -> dict[Combo, int]:
    """Every combination of ``seat``'s own market choices -> its final score,
    replayed by the engine from the match file's orders."""
    spec = m.parse_match(doc)
    out: dict[Combo, int] = {}

    def walk(table: m.Table, combo: Combo) -> None:
        while not table.finished:
            orders = dict(spec.orders[table.closed])
            chosen: dict[int, str | None] = {s: orders.get(s) for s in table.seat_numbers()}
            if m.step_kind(table.closed + 1) == "keep":
                m.close_keep(table, chosen)
                continue
            for card in table.options(seat):
                branch = table.copy()
                m.close_market(branch, {**chosen, seat: card})
                walk(branch, (*combo, card))
            return
        ranked = ranking(marketing_totals(table.marketing()), spec.tiebreak)
        out[combo] = score(table.hands[seat], ranked)

    walk(m.start(spec.seed, spec.seats, merge=spec.merge), ())
    return out


def check_against_brute_force(doc: dict[str, Any]) -> MatchAudit:
    report = audit_document(doc)
    table = m.play(m.parse_match(doc))
    scores = m.final(table, m.parse_match(doc).tiebreak, m.parse_match(doc).garnets).scores
    assert sorted(report.seats) == list(table.seat_numbers())
    for seat, a in report.seats.items():
        combos = every_combination(doc, seat)
        actual = tuple(step[seat] for step in table.marketed_by)
        best = max(combos.values())
        assert a.actual == scores[seat] == combos[actual]
        assert a.best_market == best
        assert a.gain == best - a.actual >= 0
        assert tuple(c.actual for c in a.choices) == actual
        assert [c.round for c in a.choices] == [2 * g for g in range(1, len(actual) + 1)]
        reported = tuple(c.best for c in a.choices)
        assert combos[reported] == best  # the reported combination reaches it, replayed
        # ... and changes as few of the actual choices as any best combination does
        fewest = min(
            sum(x != y for x, y in zip(c, actual, strict=True)) for c in combos if combos[c] == best
        )
        assert len(a.changes) == fewest
        assert (a.gain == 0) == (a.changes == ())
    return report


CASES = [(seats, merge) for seats in range(2, 7) for merge in (False, True)]


@pytest.mark.parametrize(("seats", "merge"), CASES)
def test_the_audit_is_the_brute_force_best_on_random_matches(seats: int, merge: bool) -> None:
    rng = random.Random(1000 * seats + merge)
    gains = []
    for _ in range(6 if merge and seats <= 4 else 12):  # merge, 4 game rounds: 945 combinations
        report = check_against_brute_force(random_match(rng, seats, merge))
        gains += [a.gain for a in report.seats.values()]
    assert max(gains) > 0  # random play leaves something to find


def test_every_market_step_defaulted_is_still_a_choice() -> None:
    rng = random.Random(7)
    for merge in (False, True):
        doc = random_match(rng, 3, merge, missing=1.0)
        report = check_against_brute_force(doc)
        assert all(c.defaulted for a in report.seats.values() for c in a.choices)


@pytest.mark.parametrize("name", FINISHED)
def test_the_golden_matches(name: str) -> None:
    doc = json.loads((GOLDEN / f"{name}.match.json").read_text())
    expected = json.loads((GOLDEN / f"{name}.expected.json").read_text())
    report = check_against_brute_force(doc)
    assert {str(s): a.actual for s, a in report.seats.items()} == expected["scores"]
    defaulted = {(d["round"], d["seat"]) for d in expected["defaulted"]}
    for seat, a in report.seats.items():
        assert {c.round for c in a.choices if c.defaulted} == {
            r for r, s in defaulted if s == seat and r % 2 == 0
        }


def test_playing_the_best_choices_gives_the_best_score() -> None:
    """Put a seat's reported best choices into the file as its market orders:
    it then scores best_market and the audit finds nothing more for it."""
    rng = random.Random(11)
    for seats, merge in ((3, False), (4, True), (6, True)):
        doc = random_match(rng, seats, merge)
        report = audit_document(doc)
        seat, a = max(report.seats.items(), key=lambda item: item[1].gain)
        assert a.gain > 0
        for c in a.choices:
            doc["orders"][c.round - 1][str(seat)] = {"market": c.best}
        report_again = audit_document(doc)
        again = report_again.seats[seat]
        assert again.actual == again.best_market == a.best_market
        assert again.gain == 0 and again.changes == ()
        text = report_again.as_dict()["seats"][str(seat)]["text"]
        best = a.actual + a.gain
        assert text == f"{a.name}'s market choices were the best they could make (score {best})."


# ---- the report ----------------------------------------------------------------------


def test_the_json_has_format_md_keys() -> None:
    doc = json.loads((GOLDEN / "03-merge-four-players-missing-orders.match.json").read_text())
    data = get_ruleset("forks-2e").audit(doc)
    assert json.loads(json.dumps(data)) == data
    assert list(data) == ["seats"]
    assert list(data["seats"]) == ["1", "2", "3", "4"]
    for s in data["seats"].values():
        assert s["gain"] == s["best_market"] - s["actual"] >= 0
        assert {"actual", "best_market", "gain"} <= set(s)
        assert [c["round"] for c in s["market"]] == [2, 4, 6, 8]
        assert sorted(s["ranking"]) == sorted(DESTINATIONS)


def test_the_words_name_players_cards_and_changes() -> None:
    doc = json.loads((GOLDEN / "01-three-players.match.json").read_text())
    for p, name in zip(doc["players"], ("Ana", "Bo", "Cy <b>&"), strict=True):
        p["name"] = name
    report = audit_document(doc)
    text = audit_text(report, doc)
    lines = text.splitlines()
    assert len(lines) == 2 + len(report.seats)
    changed = 0
    for seat, a in report.seats.items():
        line = lines[1 + seat]
        # the JSON's sentence (a contract: cards by id), each card by its name
        json_text = report.as_dict()["seats"][str(seat)]["text"]
        assert line == CARD_ID.sub(lambda found: card_name(found.group(0)), json_text)
        assert line.startswith(a.name)
        if a.gain:
            assert f"could have scored {a.best_market} instead of {a.actual}" in line
            for c in a.changes:
                assert f"{card_name(c.best)} instead of {card_name(c.actual)}" in line
                assert f"{c.best} instead of {c.actual}" in json_text
                assert f"round {c.game_round}'s market step" in line
                changed += 1
        else:
            assert "were the best they could make" in line
    assert changed and not CARD_ID.search(text)
    assert "Cy <b>&" in text  # plain text: the page escapes it


def test_a_host_renamed_destination_is_named_in_the_words() -> None:
    doc = json.loads((GOLDEN / "01-three-players.match.json").read_text())
    base = audit_document(doc)
    moved = [a for a in base.seats.values() if set(a.best_ranking[:3]) != set(a.actual_ranking[:3])]
    assert moved
    top = moved[0].best_ranking[:3]
    doc.setdefault("settings", {})["names"] = {top[0]: "Port Zed"}
    assert "Port Zed" in audit_text(audit_document(doc), doc)


# ---- refusals -------------------------------------------------------------------------


def test_an_unfinished_match_is_refused() -> None:
    partial = json.loads((GOLDEN / "04-partial-after-round-3.match.json").read_text())
    rng = random.Random(5)
    for doc in (
        partial,
        random_match(rng, 4, True, rounds=0),
        random_match(rng, 5, False, rounds=5),  # 6 rounds in all: one market step short
    ):
        with pytest.raises(RuleError) as caught:
            audit_document(doc)
        assert caught.value.codes == ["audit/unfinished"]
        with pytest.raises(RuleError):
            get_ruleset("forks-2e").audit_text(doc)


def test_a_solver_status_other_than_optimal_is_an_error(monkeypatch: pytest.MonkeyPatch) -> None:
    doc = json.loads((GOLDEN / "02-two-players.match.json").read_text())
    monkeypatch.setattr(cp_model.CpSolver, "solve", lambda self, model, *a: cp_model.FEASIBLE)
    with pytest.raises(RuleError) as caught:
        audit_document(doc)
    assert caught.value.codes == ["audit/solver"]
    assert "FEASIBLE" in str(caught.value)


def test_no_solve_starts_after_the_budget() -> None:
    doc = json.loads((GOLDEN / "02-two-players.match.json").read_text())
    with pytest.raises(RuleError) as caught:
        audit_document(doc, budget=0)
    assert caught.value.codes == ["audit/solver"]
    assert audit_mod.AUDIT_BUDGET_SECONDS > 0


# ---- the host's page macro -----------------------------------------------------------


def test_the_page_macro_shows_words_and_table_escaped() -> None:
    doc = json.loads((GOLDEN / "01-three-players.match.json").read_text())
    doc["players"][1]["name"] = "<script>Bo</script>"
    data = audit_document(doc).as_dict()
    env = Environment(
        loader=FileSystemLoader(REPO / "templates"), autoescape=select_autoescape(["html"])
    )
    macro = env.get_template("rulesets/forks_2e/audit.html").module.audit_report  # type: ignore[attr-defined]
    names = {str(p["seat"]): p["name"] for p in doc["players"]}
    html = str(macro(data, names))
    assert "<script>" not in html
    assert "&lt;script&gt;Bo&lt;/script&gt;" in html
    for seat, s in data["seats"].items():
        assert f"<td>{s['actual']}</td>" in html
        assert f"<td>{s['best_market']}</td>" in html
        assert f"<td>{s['gain']}</td>" in html
        assert seat in html
    assert "could have scored" in html


# ---- the CLI --------------------------------------------------------------------------


def _write(tmp_path: Path, doc: dict[str, Any]) -> str:
    path = tmp_path / "match.json"
    path.write_text(json.dumps(doc))
    return str(path)


def test_cli_json_and_text(run_cli: Callable[[list[str]], Result]) -> None:
    path = GOLDEN / "03-merge-four-players-missing-orders.match.json"
    result = run_cli(["audit", "--file", str(path), "--json"])
    assert result.exit_code == 0, result.stderr
    doc = json.loads(path.read_text())
    assert json.loads(result.stdout) == audit_document(doc).as_dict()
    text = run_cli(["audit", "--file", str(path)])
    assert text.exit_code == 0, text.stderr
    assert text.stdout == audit_text(audit_document(doc), doc)


@pytest.mark.parametrize("as_json", [False, True])
def test_cli_refuses_unfinished_and_bad_files(
    tmp_path: Path, run_cli: Callable[[list[str]], Result], as_json: bool
) -> None:
    flag = ["--json"] if as_json else []
    partial = GOLDEN / "04-partial-after-round-3.match.json"
    result = run_cli(["audit", "--file", str(partial), *flag])
    assert result.exit_code == 2
    assert "[audit/unfinished]" in result.stderr
    assert "Traceback" not in result.stderr and result.stdout == ""
    bad = json.loads((GOLDEN / "01-three-players.match.json").read_text())
    bad["orders"][0]["1"] = {"keep": "grey-12"}  # not dealt (and out of a 3-player game)
    result = run_cli(["audit", "--file", _write(tmp_path, bad), *flag])
    assert result.exit_code == 2
    assert "[keep/not_dealt]" in result.stderr
    assert "Traceback" not in result.stderr and result.stdout == ""
