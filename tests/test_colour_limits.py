"""The colour search honours the time limit without the CDCL solver: its nodes are closed by
propagation alone, so no probing checks the limits (before 2026-12-03 a noisy picture with
``sat=False`` ran on for minutes past a 1 s limit)."""
from __future__ import annotations

import time

import pytest

from engine.solve.driver import solve


def test_colour_search_without_sat_stops_at_the_time_limit():
    bench = pytest.importorskip("benchmarks.colour_bench", reason="benchmarks/colour_bench.py not importable")
    p = [q for q in bench.noisy_pictures_2d(30, seed=41) if q.name.startswith("noisy07")][0]
    p.colour_solution = None
    solve(p, use_known=False, sat=False, time_limit=0.05)  # (the kernels compiled)
    t = time.perf_counter()
    r = solve(p, use_known=False, sat=False, time_limit=0.5)
    assert time.perf_counter() - t < 5.0
    assert r.verdict == "unknown" and r.stats["nodes"] > 0
