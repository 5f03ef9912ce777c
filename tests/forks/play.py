"""Match files of random legal Forks play, for the tests (the package's own)."""

from __future__ import annotations

from referee.rulesets.forks.randomplay import document, entry, random_match, random_order

__all__ = ["document", "entry", "random_match", "random_order"]
