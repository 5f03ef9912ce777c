"""A season's ledger to download (issue 15), as CSV and JSON, made from a
season view (:func:`referee.seasons.views.season_view`), never rows; the web
routes pass the public view. Pure: no Flask, no SQL.

User text (the players' names, an entry's reason) is made safe for where it
goes:

- the CSV neutralises a text cell a spreadsheet would run as a formula, split
  on ``,`` or on ``;`` (a ``= + - @``, tab or carriage return at the start of
  a text, or after a ``,``, ``;`` or line break inside it, gets a ``'`` before
  it: CSV injection); the numbers we write ourselves stay numbers;
- the JSON is data: the reader escapes it for where it shows it.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Mapping
from typing import Any

from referee.seasons.views import player_names

CSV_COLUMNS = (
    "id",
    "player",
    "name",
    "change",
    "balance",
    "reason",
    "episode",
    "match_id",
    "created_at",
    "entered_by",
    "corrects",
)
# the first characters that make a spreadsheet cell a formula (OWASP's list)
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
# where a spreadsheet may begin a cell inside a text: its start, or just after a
# separator (",", or ";" where it splits on that) or a line break, past any spaces
# and double quotes; a formula character there gets a "'" before it (OWASP)
_CELL_START = re.compile(r"(^|[,;\r\n])([ \"]*)(?=[=+\-@\t\r])")


def running_balances(view: Mapping[str, Any]) -> list[int]:
    """Each ledger entry's player's balance just after it (the ledger in order:
    a balance is the sum of a player's entries)."""
    totals: dict[int, int] = {}
    out: list[int] = []
    for entry in view.get("ledger") or []:
        player = int(entry["player"])
        totals[player] = totals.get(player, 0) + int(entry["change"])
        out.append(totals[player])
    return out


def safe_cell(value: object) -> str:
    """A CSV cell no spreadsheet runs, whether it splits on ``,`` or ``;``
    (CSV injection, OWASP): a ``= + - @``, tab or carriage return that starts
    the text, or follows a ``,``, a ``;`` or a line break inside it (past any
    spaces and double quotes, where a spreadsheet splitting there would start
    a cell), gets a ``'`` before it. An integer is written as itself (a number
    cannot run, and a quote would make it text)."""
    if value is None:
        return ""
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    return _CELL_START.sub(r"\1\2'", str(value))


def ledger_rows(view: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The ledger's entries in order, each with its player's name and their
    balance after it."""
    names = player_names(view)
    return [
        {
            "id": e["id"],
            "player": e["player"],
            "name": names.get(int(e["player"]), ""),
            "change": e["change"],
            "balance": balance,
            "reason": e["reason"],
            "episode": e["episode"],
            "match_id": e["match_id"],
            "created_at": e["created_at"],
            "entered_by": e["entered_by"],
            "corrects": e["corrects"],
            "head": e.get("head"),
        }
        for e, balance in zip(view.get("ledger") or [], running_balances(view), strict=True)
    ]


def ledger_csv(view: Mapping[str, Any]) -> str:
    """The ledger as CSV (a header row, then one row per entry in order), every
    cell safe to open in a spreadsheet."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\r\n")
    writer.writerow(CSV_COLUMNS)
    for row in ledger_rows(view):
        writer.writerow([safe_cell(row[c]) for c in CSV_COLUMNS])
    return buffer.getvalue()


def ledger_json(view: Mapping[str, Any]) -> dict[str, Any]:
    """The ledger as data: the season, its entries in order (each with the
    player's name and balance after it) and every player's balance now."""
    return {
        "season": view["id"],
        "name": view.get("name"),
        "version": view.get("version"),
        "entries": ledger_rows(view),
        "ledger_head": view.get("ledger_head"),
        "balances": {str(p["number"]): p["garnets"] for p in view.get("players") or []},
    }
