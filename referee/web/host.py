"""Web pages for the host."""

from __future__ import annotations

from flask import Blueprint

bp = Blueprint("host", __name__)
