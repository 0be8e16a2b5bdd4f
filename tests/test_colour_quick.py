"""The colour kind's quick search (the driver's ``search._Driver._quick_rounds`` on the kind's
``choose`` / ``branch``, run by ``search._Driver.quick`` before root probing): against
brute-force enumeration in chunks of one line solve, the state restored after it, the full solve
with it against CP-SAT, and a noisy picture settled by it."""
from __future__ import annotations

import numpy as np
import pytest

from colourbrute import count_solutions
from colourgen import random_colour_puzzle
from engine.model.colourpuzzle import check_colour_solution, colour_puzzle_from_grid, with_hidden
from engine.kinds.colour import colourkind
from engine.kinds.colour.colourkind import ColourSolver
from engine.solve import search
from engine.solve.driver import solve
from engine.kinds.plain.quicksearch import Q_EXHAUSTED, Q_PAUSED, Q_TWO


def _quick(p, want, steps):
    """Line solving to the fixpoint, then the quick search in rounds of ``steps`` line solves:
    (status, solutions, state before, state after the undo), or None when line solving
    contradicts."""
    S = ColourSolver(p, cache=False)
    S.queue_all()
    while True:
        ok = S.line_solve(1 << 20)
        if ok is not None:
            break
    if not ok:
        return None
    before = S.state_copy()
    mark = S.mark()
    sols = []
    rounds = search._Driver(S, search.Limits(0.0, S.n_cells), want)._quick_rounds(sols, [0])
    next(rounds)
    for _ in range(100_000):
        try:
            st = rounds.send(steps)
        except StopIteration as done:
            st = done.value
        if st != Q_PAUSED:
            break
    else:
        raise AssertionError("the quick search never ended")
    S.undo(mark)
    return st, sols, before, S.state_copy()


@pytest.mark.parametrize("shape,k", [((3, 2), 2), ((3, 3), 2), ((2, 2), 3), ((2, 3), 3), ((2, 2, 2), 2),
                                     ((1, 2, 3), 3), ((2, 2, 1), 4)])
def test_quick_search_matches_enumeration(shape, k):
    """Two distinct solutions when the grid has two or more, else the tree exhausted with the
    grid's only solution (or none); every solution fits the clues; the state is the line
    solving fixpoint again afterwards."""
    rng = np.random.default_rng(900 + 10 * len(shape) + k)
    seen = {"two": 0, "one": 0, "none": 0}
    for i in range(12):
        g = np.where(rng.random(shape) < rng.uniform(0.3, 0.9), rng.integers(1, k + 1, shape), 0)
        p = colour_puzzle_from_grid(g, k)
        if i % 3 == 1:
            p = with_hidden(p, rng.random(p.n_lines) < 0.4)
        p.colour_solution = None
        n, ref = count_solutions(p, cap=2)
        for want in (1, 2):
            out = _quick(p, want, steps=1 + i % 3)
            if out is None:
                assert n == 0
                continue
            st, sols, before, after = out
            assert np.array_equal(before, after)
            for s in sols:
                assert not check_colour_solution(p, s)
            if n >= want:
                assert st == Q_TWO and len(sols) == want
                if want == 2:
                    assert not np.array_equal(sols[0], sols[1])
            else:
                assert st == Q_EXHAUSTED and len(sols) == n
                if n == 1:
                    assert np.array_equal(sols[0], ref[0])
        seen[("none", "one", "two")[min(n, 2)]] += 1
    assert seen["two"] > 0 and seen["one"] + seen["none"] > 0, seen


@pytest.mark.parametrize("dim", [2, 3])
@pytest.mark.parametrize("k", [2, 3, 4])
def test_full_solve_with_the_quick_search_matches_cpsat(dim, k, monkeypatch):
    """With a budget that lets the quick search settle every puzzle, and with none (root probing
    first, as before it), the full solve's verdicts are CP-SAT's; a unique solution is CP-SAT's."""
    cpsat = pytest.importorskip("benchmarks.cpsat_colour", reason="benchmarks/cpsat_colour.py not importable")
    if not cpsat.HAVE_ORTOOLS:
        pytest.skip("ortools is not installed (pip install -r benchmarks/requirements.txt)")
    rng = np.random.default_rng(4200 + 10 * dim + k)
    for _ in range(10):
        p = random_colour_puzzle(rng, dim, k)
        ref = cpsat.cpsat_solve_colour(p, time_limit=20)
        for per_cell in (10 ** 6, 0):
            monkeypatch.setattr(colourkind, "QUICK_COLOUR_STEPS_PER_CELL", per_cell)
            r = solve(p, time_limit=20, use_known=False)
            assert r.verdict == ref.verdict, (p.shape, per_cell)
            for s in r.solutions:
                assert not check_colour_solution(p, np.asarray(s))
            if r.verdict == "unique":
                assert np.array_equal(r.solutions[0], ref.solutions[0])
            if per_cell:
                # what line logic leaves open, the quick search settles: no cell probed
                assert r.difficulty == "line" or (r.stats["quick_nodes"] > 0 and r.stats["probes"] == 0)
            else:
                assert r.stats["quick_nodes"] == 0


def test_noisy_pictures_are_settled_by_the_quick_search():
    """Three of the 2D colour benchmark's noisy pictures (benchmarks/colour_bench.py: 45 x 40,
    k = 4 and 50 x 20, k = 3, and 40 x 48, k = 2): two solutions from the quick search, no cell probed."""
    bench = pytest.importorskip("benchmarks.colour_bench", reason="benchmarks/colour_bench.py not importable")
    pictures = bench.noisy_pictures_2d(30, seed=41)
    for i in (19, 20, 22):
        p = pictures[i]
        p.colour_solution = None
        r = solve(p, use_known=False)
        assert r.verdict == "multiple" and r.difficulty == "search", p.name
        assert r.stats["quick_nodes"] > 0 and r.stats["probes"] == 0, p.name


# the CDCL solver's turn before root probing (``search._Driver.sat_turn_before_probing``) ------------

@pytest.fixture
def long_turn(monkeypatch):
    """A turn long enough to end with the solver's answer on a loaded machine."""
    from engine.solve import search
    if not search.HAVE_SAT:
        pytest.skip("python-sat is not available")
    monkeypatch.setattr(search, "SAT_MIN_SLICE_S", 30.0)


@pytest.mark.parametrize("dim", [2, 3])
@pytest.mark.parametrize("k", [2, 3, 4])
def test_a_sat_turn_before_probing_keeps_verdicts_and_difficulty(dim, k, monkeypatch, long_turn):
    """With no quick search, the CDCL solver's turn comes straight after line solving: the
    verdicts are CP-SAT's, and the difficulty is the one without the turn (probing still decides
    it when the solver has settled the verdict)."""
    cpsat = pytest.importorskip("benchmarks.cpsat_colour", reason="benchmarks/cpsat_colour.py not importable")
    if not cpsat.HAVE_ORTOOLS:
        pytest.skip("ortools is not installed (pip install -r benchmarks/requirements.txt)")
    monkeypatch.setattr(colourkind, "QUICK_COLOUR_STEPS_PER_CELL", 0)
    rng = np.random.default_rng(6100 + 10 * dim + k)
    turns = 0
    for _ in range(10):
        p = random_colour_puzzle(rng, dim, k)
        ref = cpsat.cpsat_solve_colour(p, time_limit=20)
        monkeypatch.setattr(ColourSolver, "sat_before_probing", True)
        r = solve(p, time_limit=20, use_known=False)
        monkeypatch.setattr(ColourSolver, "sat_before_probing", False)
        without = solve(p, time_limit=20, use_known=False)
        assert r.verdict == without.verdict == ref.verdict, p.shape
        assert r.difficulty == without.difficulty, (p.shape, r.verdict)
        for s in r.solutions:
            assert not check_colour_solution(p, np.asarray(s))
        if r.verdict == "unique":
            assert np.array_equal(r.solutions[0], ref.solutions[0])
        turns += r.difficulty != "line"
        if r.difficulty != "line":
            assert r.stats["sat_conflicts"] >= 0  # the turn was taken
    assert turns > 0


def test_noisy_pictures_the_quick_search_leaves_are_settled_by_the_sat_turn(long_turn):
    """Two of the benchmark's noisy pictures the quick search does not settle (35 x 33, k = 2;
    38 x 49, k = 4): the CDCL solver's turn finds two solutions, no cell probed."""
    bench = pytest.importorskip("benchmarks.colour_bench", reason="benchmarks/colour_bench.py not importable")
    pictures = bench.noisy_pictures_2d(30, seed=41)
    for i in (7, 0):
        p = pictures[i]
        p.colour_solution = None
        r = solve(p, use_known=False)
        assert r.verdict == "multiple" and r.difficulty == "search", p.name
        assert r.stats["quick_nodes"] > 0 and r.stats["sat_conflicts"] >= 0 and r.stats["probes"] == 0, p.name
