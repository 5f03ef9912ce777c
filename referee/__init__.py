"""Rocky River referee: a play-by-post referee for elimination matches.

The package is split so that the rules never depend on the web or the database:

- ``referee.errors`` and ``referee.ruleset``: game-agnostic domain errors and the
  small interface every ruleset implements.
- ``referee.rulesets.rocky_river``: the pure rules engine of Rocky River Riding
  (no Flask, SQL or click imports).
- ``referee.cli``: the ``referee`` command line, a thin layer over the engine.
"""

__version__ = "0.1.0"
