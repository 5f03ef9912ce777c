"""Rocky River Riding: the pure rules engine (RULES.md R1-R11).

One module per rule: ``cards`` (R2), ``river_map`` (R3), ``draft`` (R1, R5,
R6), ``mapping`` (R7), ``rafting`` (R8), ``result`` (R9), ``seeded`` (R10);
``orders`` checks orders and ``match`` reads a match file and resolves it.
Nothing here imports Flask, SQL or click.
"""

from .match import MatchSpec, Resolution, parse_match, resolve, resolve_document, result_json

__all__ = ["MatchSpec", "Resolution", "parse_match", "resolve", "resolve_document", "result_json"]
