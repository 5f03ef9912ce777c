"""``python -m referee.bench``: what a page weighs and what is kept
(:func:`referee.bench.pages.weight_bench`) as JSON; ``python -m referee.bench
sweep [DATABASE_URL]``: the sweep among many live matches
(:func:`referee.bench.sweep.sweep_bench`)."""

from __future__ import annotations

import json

from referee.bench.pages import weight_bench
from referee.bench.sweep import sweep_bench

if __name__ == "__main__":
    import sys

    if sys.argv[1:2] == ["sweep"]:
        print(json.dumps(sweep_bench(sys.argv[2] if len(sys.argv) > 2 else None), indent=1))
    else:
        print(json.dumps(weight_bench(), indent=1))
