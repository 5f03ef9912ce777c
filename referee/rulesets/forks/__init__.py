"""Forks, 1st edition (ruleset ``forks``): the rules contract of
``docs/contracts/forks/`` (RULES.md K1-K12), its examples in
``tests/golden/forks/``, for players ``docs/forks.md``.

The engine (``cards``, ``orders``, ``match``, ``view``, ``audit``) is pure:
no Flask, SQL or click imports; what it shares with Forks 2nd Edition is in
:mod:`referee.rulesets.cardgame`."""
