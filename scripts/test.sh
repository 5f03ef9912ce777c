#!/usr/bin/env bash
# Install everything the tests need and run every test: lint, types, the suite
# (engine, service on SQLite and PostgreSQL, web, API, browser).
# PostgreSQL is expected at 127.0.0.1:5432 (user postgres, database test), or at
# REFEREE_TEST_POSTGRES_URL; without one, the PostgreSQL variants are skipped
# with a message (CI sets REFEREE_REQUIRE_POSTGRES=1 to make that a failure).
set -euo pipefail
cd "$(dirname "$0")/.."

apt_install() {
  if [ "$(id -u)" = 0 ]; then
    apt-get update -q && apt-get install -y -q "$@"
  else
    sudo apt-get update -q && sudo apt-get install -y -q "$@"
  fi
}

if [ ! -x /usr/bin/chromium ]; then
  echo "== installing Debian's chromium for the browser tests"
  apt_install chromium
fi
if ! ldconfig -p | grep 'libcairo\.so\.2' >/dev/null; then
  echo "== installing libcairo2 and fonts for the PNG pictures (cairosvg)"
  apt_install libcairo2 fonts-dejavu-core
fi

if ! command -v java >/dev/null; then
  echo "== installing a Java runtime for the W3C HTML checker (vnu-jar)"
  apt_install default-jre-headless
fi
echo "== installing the page checkers (package.json: vnu-jar, axe-core)"
# --ignore-scripts: vnu-jar's postinstall would download a Java runtime of its own
npm ci --no-audit --no-fund --ignore-scripts

echo "== installing the project"
python3 -m venv .venv
.venv/bin/pip install -q --upgrade pip
# the distribution was called rocky-river-referee before issue 24: a virtualenv
# that still has it would lose the shared `referee` command if it were removed later
if .venv/bin/pip show -q rocky-river-referee 2>/dev/null; then
  .venv/bin/pip uninstall -q -y rocky-river-referee
fi
.venv/bin/pip install -q -e '.[dev]'

echo "== ruff and mypy"
.venv/bin/ruff check .
.venv/bin/ruff format --check .
.venv/bin/mypy

echo "== tests"
# On every core (pytest-xdist), each test module whole on one worker, the slow
# modules first (tests/conftest.py says why); each worker is a process of its own,
# with its own data folder, SQLite files, PostgreSQL schemas and free ports.
# Arguments given to this script go to pytest after these (`-n 0`: one process).
.venv/bin/pytest -q -n auto --dist loadfile --no-loadscope-reorder "$@"
