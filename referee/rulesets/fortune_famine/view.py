"""FF21: what each viewer may see of a match after its closed steps
(docs/contracts/fortune-famine/FORMAT.md, "Result").

- public: the result (and the deck, public from the start) with, until the
  end, every seat's ``stored`` and every season's ``burned`` null, and the
  ``taken`` of every storage theft null (grain and silver thefts keep it);
- a seat: that, plus its own stored total, the whole ``taken`` of its own
  storage thefts and, in another seat's storage theft that named it, its own
  part of ``taken``; read from its own copy (``own``), never another's, so
  that no private datum reaches two seats; when it acts in the open step,
  its ``options`` (:mod:`.options`);
- the host: the full record once a step has closed (nothing the seed decides
  is shown to it before: season 1's burned card waits for the first close);
- everyone, once the match has finished: the full record;
- after the host's full reveal (``revealed``): the full record, the Year
  decks' order too.

Pure: no Flask, SQL or click imports.
"""

from __future__ import annotations

import pickle
from collections.abc import Mapping
from typing import Any, Literal

from .options import options
from .rebuild import table_from_details
from .state import Table

Viewer = int | Literal["public", "host"]

# the result's keys (FORMAT, "Result"), every viewer's
RESULT_KEYS = (
    "finished",
    "seasons_total",
    "rounds",
    "next_round",
    "seasons",
    "seats",
    "defaulted",
    "ranking",
    "token_of_life",
    "token_decided_by",
    "elimination_candidate",
)


def _copy(value: Any) -> Any:
    """A deep copy of the record's JSON data, as :func:`copy.deepcopy` makes
    it but about five times faster (every view copies the whole record): a
    pickle round trip in memory of data the engine made, never of bytes
    read from outside."""
    return pickle.loads(pickle.dumps(value, pickle.HIGHEST_PROTOCOL))


def _storage_types(details: Mapping[str, Any]) -> set[str]:
    """The deck's Evrathor types that steal from storage (FF14)."""
    return {
        t["id"]
        for t in details["deck"]["types"]
        if t["kind"] == "evrathor" and t.get("steals") == "stored"
    }


def _full(details: Mapping[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = _copy({**{k: details[k] for k in RESULT_KEYS}, "deck": details["deck"]})
    return out


def public_result(details: Mapping[str, Any]) -> dict[str, Any]:
    """FF21's public part of a detailed result (:func:`.match.detail_json`)."""
    out = _full(details)
    if details["finished"]:
        return out
    for seat in out["seats"].values():
        seat["stored"] = None
    storage = _storage_types(details)
    for record in out["seasons"]:
        record["burned"] = None
        for attack in record["attacks"]:
            for use in attack["evrathor"]:
                if use["card"].rsplit(".", 1)[0] in storage:
                    use["taken"] = None
    return out


def result_for(
    details: Mapping[str, Any], viewer: Viewer, *, revealed: bool = False
) -> dict[str, Any]:
    """The part of a detailed result ``viewer`` may see (FF21)."""
    if revealed:
        out = _full(details)
        out["years"] = _copy(details["years"])
        return out
    if details["finished"] or (viewer == "host" and details["closed"] > 0):
        return _full(details)
    out = public_result(details)
    if viewer in ("public", "host"):
        return out
    own = details["own"][str(viewer)]
    out["seats"][str(viewer)]["stored"] = own["stored"]
    records = {record["season"]: record for record in out["seasons"]}
    for theft in own["thefts"]:
        uses = records[theft["season"]]["attacks"][theft["attack"]]["evrathor"]
        uses[theft["use"]]["taken"] = _copy(theft["taken"])
    return out


def view(
    details: Mapping[str, Any],
    viewer: Viewer,
    *,
    revealed: bool = False,
    table: Table | None = None,
) -> dict[str, Any]:
    """The game's part of a viewer's view: ``result``, and for a seat acting
    in the open step its ``options`` (``table``: the details' table, when
    the caller has it already)."""
    out: dict[str, Any] = {"result": result_for(details, viewer, revealed=revealed)}
    nxt = details["next_round"]
    if isinstance(viewer, int) and nxt is not None and viewer in nxt["acting"]:
        out["options"] = options(table or table_from_details(details), viewer)
    return out
