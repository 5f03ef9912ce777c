"""`referee bench`'s server and page figures, measured briefly (the figures
themselves are in BENCHMARKS.md; here only that they are measured right)."""

from __future__ import annotations

from referee.bench import page_bench, server_bench


def test_server_bench_measures_submissions_and_the_baseline(db_url: str) -> None:
    figures = server_bench(db_url, workers=2, clients=4, seconds=0.6, matches=2)
    assert figures["submit_rps"] > 0 and figures["baseline_rps"] > 0
    assert figures["submit_errors"] == 0 and figures["baseline_errors"] == 0
    assert figures["submit_vs_baseline"] == round(
        figures["submit_rps"] / figures["baseline_rps"], 2
    )


def test_page_bench_measures_a_match_page_among_many() -> None:
    figures = page_bench(matches=300, requests=5)
    assert figures["page_matches_in_db"] == 302  # the crowd, the template and the demo match
    assert 0 < figures["page_render_ms_median"] <= figures["page_render_ms_max"]
