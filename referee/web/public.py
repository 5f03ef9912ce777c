"""Web pages for the public."""

from __future__ import annotations

from flask import Blueprint

bp = Blueprint("public", __name__)
