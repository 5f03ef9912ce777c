"""Every Python package under referee/ is listed in pyproject.toml's
``[tool.setuptools] packages``, so the wheel carries it.

The list is explicit (templates, static files and seeds are mapped in as
``referee._bundled.*``), so a new package left out of it builds a wheel whose
``referee`` command fails to import. The wheel test finds that too, but only
in the slow run, after building and installing a wheel; this finds it in a
second.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def listed_packages() -> set[str]:
    with (ROOT / "pyproject.toml").open("rb") as fh:
        data = tomllib.load(fh)
    return set(data["tool"]["setuptools"]["packages"])


def source_packages() -> set[str]:
    found = set()
    for init in (ROOT / "referee").rglob("__init__.py"):
        if "__pycache__" in init.parts:
            continue
        found.add(".".join(init.parent.relative_to(ROOT).parts))
    return found


def test_every_referee_package_is_in_the_wheel_list() -> None:
    missing = sorted(source_packages() - listed_packages())
    assert missing == [], f"add these to [tool.setuptools] packages in pyproject.toml: {missing}"


def test_the_wheel_list_names_no_package_that_is_gone() -> None:
    # referee.migrations is Alembic's folder: listed, with no __init__.py
    bundled = {name for name in listed_packages() if name.startswith("referee._bundled.")}
    stale = sorted(
        name
        for name in listed_packages() - bundled
        if name.startswith("referee") and not (ROOT / name.replace(".", "/")).is_dir()
    )
    assert stale == [], f"pyproject.toml lists packages that no longer exist: {stale}"


# issue 28: "no module in the core is over ~600 lines". The core is everything
# shared (not a game's own package under referee/rulesets/); a module that grows
# past this is split by concern (docs/architecture.md says where each lives).
CORE_MODULE_LINES = 650


def test_no_core_module_outgrows_one_concern() -> None:
    core = [
        p
        for folder in ("referee", "forms")
        for p in (ROOT / folder).rglob("*.py")
        if "rulesets" not in p.relative_to(ROOT).parts[:2] and "__pycache__" not in p.parts
    ]
    assert len(core) > 50  # the walk found the core
    long = {
        str(p.relative_to(ROOT)): n
        for p in core
        if (n := len(p.read_text(encoding="utf-8").splitlines())) > CORE_MODULE_LINES
    }
    assert long == {}, f"split these by concern (at most {CORE_MODULE_LINES} lines): {long}"
