"""The colour difficulty grade (``coloursolve.grade_colour``): its numba rounds against the plain
Python rounds it replaced (every dirty line solved by the complete line solver from the round's
start), on random colour puzzles, 2D and 3D, with and without hidden clues."""
from __future__ import annotations

import math

import numpy as np

from engine.lines.colourline import solve_line
from engine.model.colourpuzzle import colour_puzzle_from_grid, with_hidden
from engine.solve.coloursolve import (BAND_EDGES, BANDS, ST_OK, _complete_3d, _lines_of, _technique, build_net,
                                      decided, full_state, grade_colour, probe)
from engine.lines.colourline import rmax_of, solve_automaton


def _reference(p):
    net = build_net(p)
    state = full_state(net)
    tech = [_technique(p, i, int(p.line_start[i + 1] - p.line_start[i])) if net.mode[i] else 9
            for i in range(p.n_lines)]
    rounds, bits_sum, tech_sum, found = 0, 0.0, 0.0, 0
    dirty = np.ones(p.n_lines, dtype=bool)
    while not decided(state).all():
        snap, new = state.copy(), state.copy()
        cost = np.full(p.n_cells, 99, dtype=np.int64)
        for i in np.flatnonzero(dirty & (net.mode > 0)):
            cells = p.line(i)
            res = solve_line(snap[cells], p.clue(i), p.k, p.is_3d)
            if res[0] == 0:
                return None, None
            ch = res != snap[cells]
            new[cells] &= res
            cost[cells[ch]] = np.minimum(cost[cells[ch]], tech[i])
        level_cost = None
        if np.array_equal(new, snap):
            if probe(net, new, np.zeros(2, dtype=np.int64)) != ST_OK or np.array_equal(new, snap):
                return None, None
            level_cost = 4
        changed = np.flatnonzero(decided(new) & ~decided(snap))
        unknown = int(np.count_nonzero(~decided(snap)))
        d = len(changed)
        rounds += 1
        if d:
            bits_sum += d * math.log2(unknown / d)
            c = cost[changed] if level_cost is None else np.full(d, level_cost)
            tech_sum += float(np.minimum(c, 4).sum())
            found += d
        dirty[:] = False
        for x in np.flatnonzero(new != snap):
            dirty[_lines_of(net, int(x))] = True
        if level_cost is not None:
            dirty[:] = True
        state = new
    if found == 0:
        return 0.0, BANDS[0]
    score = round(10 * (bits_sum / found + tech_sum / found / 2 + math.log2(max(rounds, 1)) / 2), 1)
    return score, BANDS[sum(score >= e for e in BAND_EDGES)]


def test_grade_matches_the_python_rounds():
    rng = np.random.default_rng(11)
    graded = 0
    for trial in range(40):
        k = 2 + trial % 3
        shape = (5, 4, 4) if trial % 2 else (7, 8)
        g = np.where(rng.random(shape) < 0.65, rng.integers(1, k + 1, shape), 0)
        p = colour_puzzle_from_grid(g, k)
        if trial % 4 >= 2:
            p = with_hidden(p, rng.random(p.n_lines) < 0.3)
        want = _reference(p)
        assert grade_colour(p) == want, trial
        graded += want[0] is not None
    assert graded >= 10


def test_the_filtered_3d_solve_is_the_complete_one():
    """``_complete_3d`` (filter to its fixpoint, the product solver only where a cell is open to
    two colours) against the product solver alone, on random 3D lines and states."""
    rng = np.random.default_rng(5)
    no_tab = np.zeros((1, 1), dtype=np.int64)
    for trial in range(400):
        k = 2 + trial % 3
        n = int(rng.integers(1, 11))
        line = np.where(rng.random(n) < 0.7, rng.integers(1, k + 1, n), 0)
        clue = []
        for c in range(1, k + 1):
            on = line == c
            runs = int(np.count_nonzero(on & ~np.concatenate([[False], on[:-1]])))
            clue.append((int(on.sum()), min(runs, 3) - 1 if runs else 0))
        cnt, rmax = rmax_of(clue)
        full = (1 << (k + 1)) - 1
        masks = np.where(rng.random(n) < 0.4, np.int64(1) << line, full).astype(np.int64)
        if trial % 5 == 0:  # sometimes a state no filling fits
            masks[int(rng.integers(n))] = 1 << int(rng.integers(k + 1))
        want = solve_automaton(masks, 2, no_tab, k, cnt, rmax)
        got = _complete_3d(masks, k, cnt, rmax, no_tab)
        assert np.array_equal(got, want) or (want[0] == 0 and got[0] == 0), (trial, masks, clue)
