"""The colour kind's difficulty grade (``colourkind.ColourKind.grade``): its numba rounds against
plain Python rounds (every dirty line solved by the complete line solver from the round's start, a
probing round when one changes nothing), read by the one score (``difficulty.from_rounds``), on
random colour puzzles, 2D and 3D, with and without hidden clues."""
from __future__ import annotations

import numpy as np

from engine.lines.colourline import rmax_of, solve_automaton, solve_line
from engine.model.colourpuzzle import colour_puzzle_from_grid, with_hidden
from colourgen import line_clue_3d
from engine.kinds.colour.colourkind import ColourKind, _complete_3d, techniques
from engine.kinds.colour.colourprobe import probe
from engine.kinds.colour.colourprop import NO_CACHE, ST_OK, build_net, decided, full_state
from engine.model.difficulty import from_rounds
from engine.model.difficulty import N_RSTATS


def _python_grade(p):
    """The synchronous rounds in plain Python: every dirty clued line solved by ``solve_line``
    (from its clue) on the round's start, its narrowings applied together; a probing round
    (``colourprobe.probe``) when a round changes nothing."""
    net, n, tech = build_net(p), p.n_cells, techniques(p)
    state = full_state(net)
    dirty = np.ones(p.n_lines, bool)
    stats = np.zeros((n + 1, N_RSTATS), np.int64)
    cell_round = np.full(n, -1, np.int32)
    cell_cost = np.zeros(n, np.int8)
    r, solved = 0, False
    while True:
        und = ~decided(state)
        if not und.any():
            solved = True
            break
        snap, cost = state.copy(), np.full(n, 99)
        for i in np.flatnonzero(dirty & (net.mode > 0)):
            cells = p.line(i)
            res = solve_line(snap[cells], p.clue(i), p.k, p.is_3d)
            if res[0] == 0:
                return from_rounds(False, r, stats[:r], cell_round, cell_cost, n)
            ch = res != snap[cells]
            state[cells] &= res
            cost[cells[ch]] = np.minimum(cost[cells[ch]], tech[i])
        changed = state != snap
        probing = not changed.any()
        if probing:
            if probe(net, state, np.zeros(2, np.int64)) != ST_OK:
                return from_rounds(False, r, stats[:r], cell_round, cell_cost, n)
            changed = state != snap
            if not changed.any():
                break
            cost[:] = 4
        new = changed & decided(state)
        stats[r, :3] = (int(und.sum()), int(new.sum()), int(probing))
        cell_round[new] = r
        cell_cost[new] = np.minimum(cost[new], 4)
        dirty[:] = False
        for x in np.flatnonzero(changed):
            dirty[net.cell_lines[net.cell_start[x]:net.cell_start[x + 1]]] = True
        r += 1
    return from_rounds(solved, r, stats[:r], cell_round, cell_cost, n)


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
        got = ColourKind(p).grade(True)
        want = _python_grade(p)
        assert got.to_dict() == want.to_dict(), trial
        graded += want.score is not None
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
