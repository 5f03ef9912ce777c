"""High Card, a test-only game: what a real game needs (a hidden deal from the
seed, a simultaneous step, one-seat turns, a number of steps that depends on
play, seeded defaults), small. Not registered at import: a test registers it
with :func:`registered` (see docs/adding-a-game.md)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from referee.ruleset import register, unregister

from .ruleset import Toy

__all__ = ["Toy", "registered"]


@contextmanager
def registered() -> Iterator[type[Toy]]:
    """The toy game known to the referee as "toy" for the ``with`` block."""
    register(Toy.name, Toy)
    try:
        yield Toy
    finally:
        unregister(Toy.name)
