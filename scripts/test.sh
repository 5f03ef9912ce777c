#!/usr/bin/env bash
# Install everything the tests need and run every test: lint, types, the suite
# (engine, service on SQLite and PostgreSQL, web, API, browser).
# PostgreSQL is expected at 127.0.0.1:5432 (user postgres, database test), or at
# REFEREE_TEST_POSTGRES_URL; without one, the PostgreSQL variants are skipped
# with a message (CI sets REFEREE_REQUIRE_POSTGRES=1 to make that a failure).
set -euo pipefail
cd "$(dirname "$0")/.."

if [ ! -x /usr/bin/chromium ]; then
  echo "== installing Debian's chromium for the browser tests"
  if [ "$(id -u)" = 0 ]; then
    apt-get update -q && apt-get install -y -q chromium
  else
    sudo apt-get update -q && sudo apt-get install -y -q chromium
  fi
fi

echo "== installing the project"
python3 -m venv .venv
.venv/bin/pip install -q --upgrade pip
.venv/bin/pip install -q -e '.[dev]'

echo "== ruff and mypy"
.venv/bin/ruff check .
.venv/bin/ruff format --check .
.venv/bin/mypy

echo "== tests"
.venv/bin/pytest -q "$@"
