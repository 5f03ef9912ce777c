"""Shared fixtures: the deck, the default map, a match-file builder and a CLI runner."""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from referee.cli import main
from referee.rulesets.rocky_river.cards import Deck
from referee.rulesets.rocky_river.data import load_bundled_map, load_deck
from referee.rulesets.rocky_river.river_map import RiverMap

REPO = Path(__file__).resolve().parents[1]

# The tests never touch the user's own data folder (the default database and
# secret key, referee.db.data_dir): every process of the run, the servers and
# commands started as subprocesses too, sees a data folder of its own. Tests
# name their databases anyway; this guards the ones that would fall back.
TEST_DATA_HOME = Path(tempfile.mkdtemp(prefix="referee-test-data-"))
os.environ["XDG_DATA_HOME"] = str(TEST_DATA_HOME)
atexit.register(shutil.rmtree, TEST_DATA_HOME, ignore_errors=True)

# Every run plays as if a game had just been added: the test-only toy game
# (tests/toy/, High Card) is registered beside the built-in ones, in this
# process and in every server or command the tests start (through
# referee.ruleset's REFEREE_EXTRA_RULESETS), so each test that runs over all
# registered games runs over it too (docs/adding-a-game.md lists them).
# REFEREE_TEST_TOY=0 runs without it.
TOY_ENTRY = "toy=toy.ruleset:Toy"
if os.environ.get("REFEREE_TEST_TOY", "1") != "0":
    os.environ["REFEREE_EXTRA_RULESETS"] = TOY_ENTRY
    os.environ["PYTHONPATH"] = os.pathsep.join(
        [str(REPO / "tests"), *filter(None, [os.environ.get("PYTHONPATH")])]
    )

# The quick local run (`pytest -m "not slow"`, README) leaves these out; CI runs all.
# A whole folder or module is slow when its tests start servers, browsers or
# fuzzers, or walk whole matches at every state; the PostgreSQL variant of every
# database test is slow too (the SQLite one stays in the quick run).
SLOW_FOLDERS = ("browser", "reliability")
SLOW_MODULES = (
    "test_audit.py",  # the audits against brute force
    "test_openapi.py",  # Schemathesis over every operation
    "test_posts_render.py",  # every post of both games at every state, three renderers
    "test_properties.py",  # hypothesis: whole random matches
)
# tests/forks_2e/test_visibility.py (every channel at every state of a Forks
# match) marks its own: all but one player count are slow


# On several cores (scripts/test.sh: pytest-xdist's `-n auto --dist loadfile
# --no-loadscope-reorder`) each test module runs whole on one worker, so what a
# module sets up once (a browser and a server, the pages of test_page_checks.py,
# a built wheel) is set up once; modules go to the workers in the order the
# workers collected them, which puts the slow folders and modules above first,
# so that no long module starts last while the other workers have run out of
# work. (Not `--dist loadgroup`: pytest-xdist 3.8 groups nothing under pytest 9.2.)
# Each worker is a process of its own: its own data folder (above), SQLite files
# (tmp_path), PostgreSQL schemas (tests/service/conftest.py makes a fresh one per
# test) and free ports.


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark the tests the quick local run leaves out (``slow``, see above); in an
    xdist worker, put the slow modules first."""
    slow = pytest.mark.slow
    for item in items:
        if _in_slow_module(item) or _on_postgresql(item):
            item.add_marker(slow)
    if os.environ.get("PYTEST_XDIST_WORKER"):
        items.sort(key=lambda item: not _in_slow_module(item))  # stable: the order otherwise kept


def _in_slow_module(item: pytest.Item) -> bool:
    parts = item.path.relative_to(REPO / "tests").parts
    return parts[0] in SLOW_FOLDERS or item.path.name in SLOW_MODULES


def _on_postgresql(item: pytest.Item) -> bool:
    callspec = getattr(item, "callspec", None)
    return callspec is not None and any(
        isinstance(v, str) and v == "postgresql" for v in callspec.params.values()
    )


GOLDEN_ROOT = REPO / "tests" / "golden"  # one folder per game, named as its ruleset
GOLDEN = GOLDEN_ROOT / "rocky-river"
# games whose pure engine is built but not yet registered as a ruleset: `referee
# resolve` does not know them yet, so their cases run through the engine in their
# own tests (tests/<game>/test_golden.py) until the registry line is added; then
# the name leaves this set (test_golden.test_engine_only_games_are_not_registered
# says when)
ENGINE_ONLY: set[str] = set()
SHARED_ROOT = REPO.parent / "shared"  # the rules contracts, when beside the checkout
SHARED = SHARED_ROOT / "rocky-river"


def _by_seat(orders: Mapping[int, Any]) -> dict[str, Any]:
    return {str(seat): order for seat, order in orders.items()}


def build_match(
    *,
    draft: Mapping[int, Any] | None = None,
    placements: Mapping[int, Any] | None = None,
    votes: Sequence[Mapping[int, Any] | None] | None = None,
    garnets: Sequence[int] = (5, 5, 5),
    seed: str = "test-seed",
    river: Any = "three-rapids",
) -> dict[str, Any]:
    """A match file dict (docs/contracts/rocky-river/FORMAT.md). Orders are keyed by int seat; a
    seat left out of
    ``draft`` (default: all) has no order. ``placements``/``votes`` None = round not closed."""
    doc: dict[str, Any] = {
        "ruleset": "rocky-river",
        "map": river,
        "players": [
            {"seat": seat, "name": f"P{seat}", "garnets": g}
            for seat, g in zip((1, 2, 3), garnets, strict=True)
        ],
        "seed": seed,
        "draft": _by_seat(draft or {}),
    }
    if placements is not None:
        doc["placements"] = _by_seat(placements)
    if votes is not None:
        doc["votes"] = [None if r is None else _by_seat(r) for r in votes]
    return doc


def invoke_cli(args: Sequence[str]) -> Result:
    """Run ``referee ARGS`` in-process; stdout and stderr are kept apart."""
    return CliRunner().invoke(main, list(args))


@pytest.fixture(scope="session")
def deck() -> Deck:
    return load_deck()


@pytest.fixture(scope="session")
def river() -> RiverMap:
    return load_bundled_map("three-rapids")


@pytest.fixture
def lopsided_map_doc() -> dict[str, Any]:
    """The default map rewritten so that seat 1 portrays every branch but one of
    each other seat's: a map the fairness audit must flag (a fresh copy)."""
    doc = load_bundled_map("three-rapids").to_json()
    kept = {2: False, 3: False}
    for fork in doc["forks"]:
        for side in ("left", "right"):
            for branch in fork[side]:
                if branch["seat"] in kept and not kept[branch["seat"]]:
                    kept[branch["seat"]] = True
                else:
                    branch["seat"] = 1
    return doc


@pytest.fixture(scope="session")
def make_match() -> Callable[..., dict[str, Any]]:
    return build_match


@pytest.fixture(scope="session")
def run_cli() -> Callable[[Sequence[str]], Result]:
    return invoke_cli
