"""The rules contracts shipped in docs/contracts/ (RULES.md, FORMAT.md, API.md of
each game): they exist, every mention of a format or of the API names its copy,
and each copy is the shared contract's file byte for byte (``../shared/<game>/``,
when that folder is beside the checkout; tests/test_golden.py does the same for
the examples)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from conftest import REPO, SHARED_ROOT

CONTRACTS = REPO / "docs" / "contracts"
SHIPPED = {
    "rocky-river": ("API.md", "FORMAT.md", "RULES.md"),
    "forks-2e": ("FORMAT.md", "RULES.md"),
    "forks": ("FORMAT.md", "RULES.md"),
    "forfort": ("FORMAT.md", "RULES.md"),
    "fortune-famine": ("FORMAT.md", "RULES.md"),
}
# what may name a format or the API: its copy's path (or <game>'s, for every game)
NAMED = re.compile(r"(?P<before>[\w./<>-]*)\b(?:FORMAT|API)\.md")
ALLOWED_BEFORE = re.compile(
    r"(?:docs/)?contracts/(?:rocky-river|forks-2e|forks|forfort|fortune-famine|<game>)/$"
)
SKIPPED_PARTS = {".git", ".venv", "node_modules", "contracts", "golden", "__pycache__"}
SEARCHED_SUFFIXES = {".py", ".md", ".json", ".html", ".js", ".toml", ".sh", ".txt"}


def test_every_contract_is_shipped() -> None:
    assert sorted(p.name for p in CONTRACTS.iterdir() if p.is_dir()) == sorted(SHIPPED)
    for game, names in SHIPPED.items():
        folder = CONTRACTS / game
        assert sorted(p.name for p in folder.iterdir()) == sorted(names), game
        for name in names:
            text = (folder / name).read_text(encoding="utf-8")
            assert text.startswith("# "), f"{game}/{name} is not the contract's text"


@pytest.mark.parametrize("game", sorted(SHIPPED))
def test_contracts_match_the_shared_folder(game: str) -> None:
    shared = SHARED_ROOT / game
    if not shared.is_dir():
        pytest.skip(f"the shared rules folder {shared} does not exist beside the repository")
    theirs = sorted(p.name for p in shared.glob("*.md"))
    assert theirs == sorted(SHIPPED[game]), f"{shared} holds other contracts: {theirs}"
    differing = [
        name
        for name in SHIPPED[game]
        if (CONTRACTS / game / name).read_bytes() != (shared / name).read_bytes()
    ]
    assert differing == [], f"copy these from {shared} to docs/contracts/{game}/: {differing}"


def _searched() -> list[Path]:
    return [
        p
        for p in REPO.rglob("*")
        if p.is_file()
        and p.suffix in SEARCHED_SUFFIXES
        and not SKIPPED_PARTS & set(p.relative_to(REPO).parts)
        and p.name not in {"PKG-INFO", "test_contracts.py"}
    ]


def test_every_mention_of_a_format_names_its_copy() -> None:
    """README, docs, docstrings, help texts and API descriptions say where the
    file is (``docs/contracts/<game>/FORMAT.md``), not a bare ``FORMAT.md`` the
    repository does not have."""
    bare = []
    for path in _searched():
        text = path.read_text(encoding="utf-8", errors="replace")
        for m in NAMED.finditer(text):
            if not ALLOWED_BEFORE.search(m.group("before")):
                line = text.count("\n", 0, m.start()) + 1
                bare.append(f"{path.relative_to(REPO)}:{line}: {m.group(0)}")
    assert bare == []


def test_the_mention_check_sees_a_bare_name() -> None:
    """The check above is not vacuous: a bare name and a wrong folder are caught."""
    caught = [
        m.group(0)
        for text in ("a match file (FORMAT.md)", "see ../rocky-river/API.md", "docs/FORMAT.md")
        for m in NAMED.finditer(text)
        if not ALLOWED_BEFORE.search(m.group("before"))
    ]
    assert caught == ["FORMAT.md", "../rocky-river/API.md", "docs/FORMAT.md"]
    fine = "docs/contracts/forks-2e/FORMAT.md and `contracts/<game>/FORMAT.md`"
    assert all(ALLOWED_BEFORE.search(m.group("before")) for m in NAMED.finditer(fine))
