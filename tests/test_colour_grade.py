"""The colour difficulty grade (``coloursolve.grade_colour``): its numba rounds against the plain
Python rounds it replaced (every dirty line solved by the complete line solver from the round's
start), on random colour puzzles, 2D and 3D, with and without hidden clues."""
from __future__ import annotations

import numpy as np

from engine.lines.colourline import rmax_of, solve_automaton, solve_line
from engine.model.colourpuzzle import colour_puzzle_from_grid, with_hidden
from colourgen import line_clue_3d
from engine.solve import coloursolve
from engine.solve.colourprop import NO_CACHE
from engine.solve.coloursolve import _complete_3d, grade_colour


def _python_rounds(p):
    """``_grade_round`` and ``_dirty_lines`` as the plain Python they replaced: every dirty clued
    line solved by the complete line solver (``solve_line``, from the clue) from the round's start."""
    def grade_round(snap, new, cost, dirty, tech, k, line_start, line_cells, mode, *rest):
        for i in np.flatnonzero(dirty & (mode > 0)):
            cells = p.line(i)
            res = solve_line(snap[cells], p.clue(i), p.k, p.is_3d)
            if res[0] == 0:
                return False
            ch = res != snap[cells]
            new[cells] &= res
            cost[cells[ch]] = np.minimum(cost[cells[ch]], tech[i])
        return True

    def dirty_lines(new, snap, cell_start, cell_lines, dirty):
        dirty[:] = False
        for x in np.flatnonzero(new != snap):
            dirty[cell_lines[cell_start[x]:cell_start[x + 1]]] = True
    return grade_round, dirty_lines


def test_grade_matches_the_python_rounds(monkeypatch):
    rng = np.random.default_rng(11)
    graded = 0
    for trial in range(40):
        k = 2 + trial % 3
        shape = (5, 4, 4) if trial % 2 else (7, 8)
        g = np.where(rng.random(shape) < 0.65, rng.integers(1, k + 1, shape), 0)
        p = colour_puzzle_from_grid(g, k)
        if trial % 4 >= 2:
            p = with_hidden(p, rng.random(p.n_lines) < 0.3)
        got = grade_colour(p)
        with monkeypatch.context() as m:
            grade_round, dirty_lines = _python_rounds(p)
            m.setattr(coloursolve, "_grade_round", grade_round)
            m.setattr(coloursolve, "_dirty_lines", dirty_lines)
            # the rounds' loop as plain Python, so that it calls the two above
            m.setattr(coloursolve, "_grade_rounds", getattr(coloursolve._grade_rounds, "py_func",
                                                            coloursolve._grade_rounds))
            want = grade_colour(p)
        assert got == want, trial
        graded += want[0] is not None
    assert graded >= 10


def test_the_filtered_3d_solve_is_the_complete_one():
    """``_complete_3d`` (filter to its fixpoint, the product solver only where a cell is open to
    two colours) against the product solver alone, on random 3D lines and states."""
    rng = np.random.default_rng(5)
    no_tab = np.zeros((1, 1), dtype=np.int64)
    cache = (np.full(16, -1, dtype=np.int64), np.zeros(16, dtype=np.int64), np.zeros((16, 12), dtype=np.int64),
             np.zeros((16, 12), dtype=np.int64))  # 16 slots: collisions and replacements
    for trial in range(400):
        k = 2 + trial % 3
        n = int(rng.integers(1, 11))
        line = np.where(rng.random(n) < 0.7, rng.integers(1, k + 1, n), 0)
        clue = line_clue_3d(line, k)
        cnt, rmax = rmax_of(clue)
        full = (1 << (k + 1)) - 1
        masks = np.where(rng.random(n) < 0.4, np.int64(1) << line, full).astype(np.int64)
        if trial % 5 == 0:  # sometimes a state no filling fits
            masks[int(rng.integers(n))] = 1 << int(rng.integers(k + 1))
        want = solve_automaton(masks, 2, no_tab, k, cnt, rmax)
        got = _complete_3d(masks, k, cnt, rmax, no_tab, 0, *NO_CACHE)
        # the cache is keyed by line (one clue per line): this line is ``trial``
        again = _complete_3d(masks, k, cnt, rmax, no_tab, trial, *cache)
        again = _complete_3d(masks, k, cnt, rmax, no_tab, trial, *cache)  # now from the cache
        assert np.array_equal(got, again)
        assert np.array_equal(got, want) or (want[0] == 0 and got[0] == 0), (trial, masks, clue)
