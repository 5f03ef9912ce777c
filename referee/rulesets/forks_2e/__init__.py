"""Forks 2nd Edition (ruleset ``forks-2e``): the rules contract of
``tests/golden/forks-2e/`` and ``docs/forks-2e.md`` (RULES.md F1-F12).

The engine (``cards``, ``deck``, ``orders``, ``scoring``, ``seeded``,
``match``, ``audit``) is pure: no Flask, SQL or click imports."""
