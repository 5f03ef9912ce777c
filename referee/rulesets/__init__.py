"""Rulesets: each game the referee can run lives in its own subpackage."""
