"""Colour puzzles: the engine's verdicts against the CP-SAT reference (benchmarks/cpsat_colour.py),
and the reference against brute-force enumeration on the tiniest grids.

CI runs 160 random puzzles (2D and 3D, k = 2..4, some with hidden lines, some with mixed clues that
have no solution); ``benchmarks/colour_verdicts.py`` runs the 500+ version.
"""
from __future__ import annotations

import numpy as np
import pytest

from colourbrute import count_solutions
from colourgen import random_colour_puzzle
from stopwatch import Stopwatch
from engine.model.colourpuzzle import check_colour_solution, colour_puzzle_from_grid, with_hidden
from engine.solve.driver import solve

cpsat = pytest.importorskip("benchmarks.cpsat_colour", reason="benchmarks/cpsat_colour.py not importable")
if not cpsat.HAVE_ORTOOLS:
    pytest.skip("ortools is not installed (pip install -r benchmarks/requirements.txt)", allow_module_level=True)


def _expected(n):
    return {0: "none", 1: "unique"}.get(n, "multiple")


@pytest.mark.parametrize("shape,k", [((2, 3), 2), ((3, 3), 2), ((2, 2), 3), ((2, 2, 2), 2), ((1, 2, 3), 3)])
def test_reference_agrees_with_enumeration(shape, k):
    rng = np.random.default_rng(len(shape) * 10 + k)
    for _ in range(4):
        g = rng.integers(0, k + 1, shape)
        p = colour_puzzle_from_grid(g, k)
        if rng.random() < 0.5:
            p = with_hidden(p, rng.random(p.n_lines) < 0.4)
        n, _ = count_solutions(p)
        r = cpsat.cpsat_solve_colour(p, time_limit=20)
        assert r.verdict == _expected(n)
        for s in r.solutions:
            assert not check_colour_solution(p, s)


@pytest.mark.parametrize("dim", [2, 3])
@pytest.mark.parametrize("k", [2, 3, 4])
def test_engine_verdicts_match_cpsat(dim, k):
    rng = np.random.default_rng(1000 * dim + k)
    seen = set()
    for i in range(27):
        p = random_colour_puzzle(rng, dim, k)
        ref = cpsat.cpsat_solve_colour(p, time_limit=20)
        r = solve(p, time_limit=20)
        assert r.verdict == ref.verdict, (dim, k, i, r.verdict, ref.verdict)
        for s in r.solutions:
            assert not check_colour_solution(p, s)
        if r.verdict == "multiple":
            assert not np.array_equal(r.solutions[0], r.solutions[1])
        seen.add(r.verdict)
    assert {"unique", "none"} <= seen


def test_time_limit_holds_on_a_hard_colour_puzzle():
    from engine.model.colourpuzzle import colour_puzzle_from_grid, with_hidden
    rng = np.random.default_rng(5)
    g = np.where(rng.random((9, 9, 9)) < 0.6, rng.integers(1, 4, (9, 9, 9)), 0)
    p = with_hidden(colour_puzzle_from_grid(g, 3), rng.random(243) < 0.8)
    p.colour_solution = None
    with Stopwatch() as sw:
        r = solve(p, time_limit=0.3)
    assert sw.working < 1.5, sw
    assert r.verdict in ("unknown", "multiple")
