"""The shared layers name no game's concepts (issue item 2): nothing in
referee/service.py, referee/matches/, referee/views.py, referee/cli.py, referee/demo.py,
referee/web/, forms/, the shared templates or the shared stylesheet speaks of
Rocky River's draft, placements, votes, rafting, map, branches, totals or
garnet conflicts, nor of Forks' marketing, destinations or tiebreak. A game's
own words live in its web module
(referee/rulesets/<game>/web.py), its templates (templates/rulesets/<game>/)
and its static files (static/rulesets/<game>/), behind referee.web.game.

This is the grep of the issue, kept true by a test:

    grep -rniE "draft|placement|votes|rafting|\\bmap\\b|map_|branch|publish_totals|\\
    river|garnet conflict" referee/web forms templates/host templates/player \\
    templates/public templates/base.html
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
WORDS = re.compile(
    # Rocky River's ("a replacement" order is every game's, so not a placement)
    r"draft|(?<!re)placement|votes|rafting|\bmap\b|map_|branch|publish_totals|river|garnet conflict"
    # Forks 2nd Edition's
    r"|forks|marketing|tiebreak|destination|greysteel|bluecrest",
    re.IGNORECASE,
)
SHARED = [
    "referee/service.py",
    "referee/matches",
    "referee/views.py",
    "referee/cli.py",
    "referee/demo.py",
    "referee/web",
    "forms",
    "templates/host",
    "templates/player",
    "templates/public",
    "templates/base.html",
    "templates/error.html",
    "templates/game",  # the generic pages of a game without web parts
    "static/style.css",
]
# the OpenAPI document holds examples of requests and answers (docs/contracts/rocky-river/API.md's,
# of the
# default game); it is the API's, not a page's
NOT_SCANNED = {"referee/web/openapi.json"}
# words that are not a game's concept here, by file: (a part of the line, why)
ALLOWED: dict[str, list[tuple[str, str]]] = {
    "referee/web/openapi.py": [
        ("``rocky-river`` gives ``RockyRiver``", "an example of a schema name's prefix"),
    ],
}


def shared_files() -> list[Path]:
    out: list[Path] = []
    for name in SHARED:
        path = ROOT / name
        found = [path] if path.is_file() else sorted(p for p in path.rglob("*") if p.is_file())
        out += [p for p in found if "__pycache__" not in p.parts]
    return [p for p in out if p.relative_to(ROOT).as_posix() not in NOT_SCANNED]


def test_the_shared_web_layer_names_no_game_concept() -> None:
    files = shared_files()
    assert len(files) > 20  # the paths are right
    found = []
    for path in files:
        rel = path.relative_to(ROOT).as_posix()
        allowed = [part for part, _why in ALLOWED.get(rel, [])]
        text = path.read_text(encoding="utf-8")
        for number, line in enumerate(text.splitlines(), start=1):
            if WORDS.search(line) and not any(part in line for part in allowed):
                found.append(f"{rel}:{number}: {line.strip()}")
    assert not found, "a game's concept in the shared web layer:\n" + "\n".join(found)


def test_the_words_catch_a_placement_but_not_a_replacement() -> None:
    assert WORDS.search("the seat's placement of a raft")
    assert WORDS.search("Placements")
    assert not WORDS.search("a replacement order keeps its first time")
