"""Fixtures of the web page tests: the app's own service, driven by a clock the
tests move, and a test client without CSRF tokens (tests/service/test_security.py
checks CSRF with the plain ``client`` of tests/service/conftest.py)."""

from __future__ import annotations

import pytest
from flask import Flask
from flask.testing import FlaskClient

from referee.service import Referee

from .web_kit import Clock


@pytest.fixture
def clock(app: Flask) -> Clock:
    c = Clock()
    app.extensions["referee"].clock = c
    return c


@pytest.fixture
def client(app: Flask, clock: Clock) -> FlaskClient:
    app.config["WTF_CSRF_ENABLED"] = False
    return app.test_client()


@pytest.fixture
def svc(app: Flask) -> Referee:
    service: Referee = app.extensions["referee"]
    return service
