"""``referee bench``: speed measured on this machine.

- ``submit_rps`` / ``baseline_rps``: order submissions per second through a
  real ``referee serve`` (gunicorn) on 127.0.0.1, and its home page (no
  database) measured the same way in the same run (:func:`server_bench`).
- ``page_render_ms_median``: a finished match's public page with 10,000 other
  matches in the database (:func:`page_bench`).
- ``resolve_matches_per_s``: whole random matches (all five rounds) parsed,
  checked and resolved by the engine per second, on one core.
- ``audit_seconds_max`` / ``audit_seconds_median``: a full audit (all seats, all
  goals, CP-SAT) of a finished random match.
- ``forks_resolve_4p_merge_per_s`` / ``forks_resolve_6p_merge_per_s``: whole
  random Forks 2nd Edition match files (4 or 6 players, merge variant) parsed,
  checked and resolved per second, on one core (:func:`forks_engine_bench`).
- ``sweep_ms_<N>`` (``python -m referee.bench sweep [DATABASE_URL]``): one
  sweep of ``referee notify`` (close due rounds, queue reminders, deliver the
  outbox) with nothing due, among N live matches (:func:`sweep_bench`).
- ``forks_audit_seconds_max`` / ``forks_audit_seconds_median``: a full Forks
  audit (F12, every seat, CP-SAT) of a finished random 6-player merge match
  file, parsing and replaying it included (:func:`forks_audit_bench`).
- ``forks1_audit_seconds_max`` / ``forks1_audit_seconds_median``: the same
  for Forks (1st edition), 5 players with swap and merge
  (:func:`forks1_audit_bench`).
- ``forfort_resolve_3p_per_s`` / ``forfort_resolve_4p_per_s``: whole random
  Forfort match files (3 or 4 players) resolved per second, on one core, and
  ``forfort_audit_seconds_max`` / ``forfort_audit_seconds_median``: a full
  FO22 audit of a finished random 4-player match
  (:func:`referee.bench.engines.forfort_audit_bench`).
- ``fortune_famine_resolve_4p_short_per_s`` /
  ``fortune_famine_resolve_6p_full_per_s``: whole random Fortune & Famine
  match files (4 players short, 6 players full) resolved per second, on one
  core (:func:`fortune_famine_engine_bench`).

Rocky River's figures keep their original names (``resolve_*``, ``audit_*``).

Where each concern lives: :mod:`referee.bench.engines` (each game's engine and
audit, on one core), :mod:`referee.bench.server` (a real ``referee serve`` and
its clients: order submissions, pulses), :mod:`referee.bench.pages` (a match
page among many matches, what a page weighs), :mod:`referee.bench.sweep` (the
sweep among many live matches) and ``python -m referee.bench``
(:mod:`referee.bench.__main__`).
"""

from __future__ import annotations

from referee.bench.engines import (
    FORKS_RESOLVED,
    FORTUNE_FAMINE_RESOLVED,
    audit_bench,
    audit_figures,
    engine_bench,
    forfort_audit_bench,
    forfort_engine_bench,
    forfort_random_document,
    forks1_audit_bench,
    forks_audit_bench,
    forks_engine_bench,
    forks_random_document,
    fortune_famine_audit_bench,
    fortune_famine_engine_bench,
    fortune_famine_random_document,
)
from referee.bench.pages import fill_matches, page_bench, weight_bench
from referee.bench.server import BENCH_PLAYERS, etag_of, pulse_bench, server_bench
from referee.bench.sweep import SWEEP_SIZES, fill_live, sweep_bench

__all__ = [
    "BENCH_PLAYERS",
    "FORKS_RESOLVED",
    "FORTUNE_FAMINE_RESOLVED",
    "SWEEP_SIZES",
    "audit_bench",
    "audit_figures",
    "engine_bench",
    "etag_of",
    "fill_live",
    "fill_matches",
    "forfort_audit_bench",
    "forfort_engine_bench",
    "forfort_random_document",
    "forks1_audit_bench",
    "forks_audit_bench",
    "forks_engine_bench",
    "forks_random_document",
    "fortune_famine_audit_bench",
    "fortune_famine_engine_bench",
    "fortune_famine_random_document",
    "page_bench",
    "pulse_bench",
    "server_bench",
    "sweep_bench",
    "weight_bench",
]
