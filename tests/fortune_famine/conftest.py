"""Fixtures of the Fortune & Famine tests that need a database: those of
tests/service/conftest.py, so each such test runs on SQLite and on PostgreSQL."""

from __future__ import annotations

from service.conftest import app, client, db_url, engine, svc, web

__all__ = ["app", "client", "db_url", "engine", "svc", "web"]
