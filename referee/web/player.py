"""Web pages for the player."""

from __future__ import annotations

from flask import Blueprint

bp = Blueprint("player", __name__)
