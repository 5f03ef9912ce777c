"""Field filters shared by the forms."""

from __future__ import annotations


def strip(value: object) -> object:
    """Text without the spaces around it (people paste them); anything else as it is."""
    return value.strip() if isinstance(value, str) else value
