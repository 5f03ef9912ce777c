"""Fortune & Famine (ruleset id ``fortune-famine``): 2 to 6 players hire
workers and wizards, pay them, and store grain over 3 Years of seasons
(docs/contracts/fortune-famine/RULES.md).

The pure engine: :mod:`.cards` (FF3-FF4), :mod:`.state` (FF2, FF5, the
table), :mod:`.legal` (FF9, FF11, FF13-FF14, FF16-FF18 as predicates),
:mod:`.flow` (FF6-FF8, FF11-FF13: how the match moves on), :mod:`.orders`
(FF10-FF18: one order, one step), :mod:`.match` (the match file and the
result, FF19), :mod:`.options` and :mod:`.view` (what a seat may do, what
each viewer sees, FF21) and :mod:`.randomplay` (random legal orders).
"""
