"""A wheel built from the checkout works on its own (issue 11): it carries the
templates, static files and bundled data, so a server installed from it (not
an editable install) renders its pages, serves its files and draws its maps.

The test builds the wheel as ``pip install .`` would (``pip wheel``, from a
copy of the checkout so the checkout gets no ``build/`` folder), installs it
with ``--no-deps`` into a fresh virtualenv in a temporary folder, and lends
that virtualenv this environment's site-packages through a ``.pth`` file for
the dependencies only: the referee itself is imported from the wheel, never
from the checkout (checked). It takes about half a minute.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import urllib.error
import urllib.request
from pathlib import Path
from typing import NamedTuple

import pytest

from referee.loadtest.server import serving

pytestmark = pytest.mark.wheel

REPO = Path(__file__).resolve().parents[2]
GOLDEN = REPO / "tests" / "golden" / "rocky-river"

# what a copy of the checkout leaves out: caches, environments, build output, tests
NOT_COPIED = shutil.ignore_patterns(
    ".git",
    ".venv*",
    "venv",
    "build",
    "dist",
    "*.egg-info",
    "__pycache__",
    ".*_cache",
    ".hypothesis",
    "instance",
    "test-artifacts",
    "tests",
    "*.db",
)


class Installed(NamedTuple):
    bin: Path  # the fresh virtualenv's bin folder
    env: dict[str, str]  # the environment to run its commands in
    work: Path  # an empty working folder: the checkout is not importable from it

    def referee(self, *args: str) -> str:
        return run([str(self.bin / "referee"), *args], self.work, self.env)


def run(args: list[str], cwd: Path, env: dict[str, str], timeout: float = 300) -> str:
    done = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, f"{args} exited {done.returncode}:\n{done.stdout}\n{done.stderr}"
    return done.stdout


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Installed:
    """A fresh virtualenv holding the wheel of this checkout."""
    tmp = tmp_path_factory.mktemp("wheel")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "REFEREE_"))}
    env.pop("VIRTUAL_ENV", None)
    env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"

    source = tmp / "source"
    shutil.copytree(REPO, source, ignore=NOT_COPIED)
    run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-w", str(tmp / "dist"), str(source)],
        tmp,
        env,
    )
    (wheel,) = (tmp / "dist").glob("play_by_post_referee-*.whl")

    venv = tmp / "venv"
    run([sys.executable, "-m", "venv", "--without-pip", str(venv)], tmp, env)
    python = venv / "bin" / "python"
    pip = [sys.executable, "-m", "pip", "--python", str(python)]
    run([*pip, "install", "-q", "--no-deps", str(wheel)], tmp, env)
    # the dependencies come from this environment, after the venv's own folder
    # (a folder named in a .pth file has its own .pth files ignored, so this
    # environment's editable install of the checkout stays out)
    site = Path(
        run(
            [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            tmp,
            env,
        ).strip()
    )
    ours = dict.fromkeys(sysconfig.get_paths()[key] for key in ("purelib", "platlib"))
    (site / "_referee_test_dependencies.pth").write_text("".join(f"{p}\n" for p in ours))

    work = tmp / "work"
    work.mkdir()
    env["REFEREE_DATABASE_URL"] = f"sqlite:///{tmp / 'referee.db'}"
    return Installed(venv / "bin", env, work)


def test_the_wheel_is_imported_from_the_venv_with_its_bundled_folders(
    installed: Installed,
) -> None:
    code = (
        "import json, referee, referee.resources as r; print(json.dumps([referee.__file__, "
        "*(str(r.bundled_dir(n)) for n in ('templates', 'static', 'seeds', 'scripts'))]))"
    )
    paths = json.loads(
        run([str(installed.bin / "python"), "-c", code], installed.work, installed.env)
    )
    venv = installed.bin.parent
    for path in paths:
        assert Path(path).is_relative_to(venv), path
        assert not Path(path).is_relative_to(REPO), path
    assert paths[1:] == [
        str(Path(paths[0]).parent / "_bundled" / n)
        for n in ("templates", "static", "seeds", "scripts")
    ]
    # the standalone check a match page offers (issue 27), and nothing else of scripts/
    scripts = Path(paths[4])
    assert (scripts / "check_match.py").read_text(encoding="utf-8") == (
        REPO / "scripts" / "check_match.py"
    ).read_text(encoding="utf-8")
    assert not (scripts / "test.sh").exists()


def test_the_wheel_resolves_a_match_file_and_checks_a_bundled_map(
    installed: Installed,
) -> None:
    match = GOLDEN / "01-full-game.match.json"
    result = json.loads(installed.referee("resolve", "--file", str(match), "--json"))
    expected = json.loads((GOLDEN / "01-full-game.expected.json").read_text(encoding="utf-8"))
    assert result == expected
    assert "is valid" in installed.referee("map", "check", "three-rapids")


def test_the_wheel_serves_pages_static_files_and_pictures(
    installed: Installed,
) -> None:
    links = dict(
        line.rsplit(None, 1) for line in installed.referee("demo").splitlines() if line.strip()
    )
    paths = {label.strip(): link.split(":5000", 1)[1] for label, link in links.items()}
    public = paths["public page"]
    seat = next(path for label, path in paths.items() if label.startswith("seat 1"))

    with serving([str(installed.bin / "referee")], installed.env, cwd=installed.work) as base:
        for path, kind in [
            ("/", "text/html"),
            (public, "text/html"),
            (seat, "text/html"),
            ("/static/style.css", "text/css"),
            (f"{public}/map.png", "image/png"),
            (f"{public}/check", "text/html"),  # how to check the match (issue 27)
            ("/check_match.py", "text/x-python"),
        ]:
            with urllib.request.urlopen(base + path, timeout=60) as resp:
                body = resp.read()
                assert resp.status == 200, path
                assert resp.headers["Content-Type"].startswith(kind), path
            if kind == "image/png":
                assert body.startswith(b"\x89PNG\r\n\x1a\n")
            if kind == "text/html":
                assert b"/static/style.css" in body, path
