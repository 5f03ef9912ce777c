"""Forfort (ruleset id ``forfort``): 2 to 4 players each build a fort of 8
walls round a dungeon, one turn at a time (docs/contracts/forfort/RULES.md).

The pure engine: :mod:`.cards` (FO2, FO5), :mod:`.fort` (FO3-FO4),
:mod:`.state` (FO6, FO15-FO19), :mod:`.legal` and :mod:`.orders` (FO8-FO16,
FO20), :mod:`.match` (the match file and the result), :mod:`.options` and
:mod:`.view` (what a seat may do, what each viewer sees, FO21).
"""
