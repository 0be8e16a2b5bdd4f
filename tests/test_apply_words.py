"""The word path of block lines (``propagate._apply_words``) and its word cache against plain
Python: the same new cells, trailed in the line's order, the same contradictions, on a first
solve (a cache miss) and on the same input again (a hit)."""
from __future__ import annotations

import numpy as np

from engine.model.cells import EMPTY, FILLED, UNKNOWN
from engine.model.clues import puzzle_from_grid
from engine.kinds.plain.propagate import (LS_DP, R_CONTRADICTION, S_CACHE_HITS, S_TLEN, apply_line, build_net,
                                          mask_words, new_work)

from linebrute import reference_solve
from engine.model.puzzle import KIND_BLOCKS


def _expected(state, net, li):
    """(result, cells trailed in order, new state) as the byte path computes them."""
    cells = net.line_cells[net.line_start[li]:net.line_start[li + 1]]
    line = state[cells]
    blocks = [int(b) for b in net.clue_data[net.clue_start[li]:net.clue_start[li + 1]] if b > 0]
    out = reference_solve(line.copy(), KIND_BLOCKS, blocks)
    if out is None:
        return R_CONTRADICTION, [], None
    new_state = state.copy()
    order = []
    for j, c in enumerate(cells):
        v = int(out[j]) & int(line[j])
        if v != line[j]:
            new_state[c] = v
            order.append(int(c))
    return len(order), order, new_state


def test_word_path_matches_reference():
    rng = np.random.default_rng(40)
    checked = hits = 0
    for shape in [(5, 62), (7, 25), (3, 1), (9, 40)]:
        for _ in range(6):
            grid = rng.random(shape) < rng.uniform(0.3, 0.8)
            net = build_net(puzzle_from_grid(grid))
            for _ in range(25):
                # a state partly from the grid (consistent) or partly at random (often not)
                sol = np.where(grid.ravel(), FILLED, EMPTY).astype(np.int8)
                rnd = rng.choice([EMPTY, FILLED], size=sol.shape).astype(np.int8)
                pick = sol if rng.random() < 0.6 else np.where(rng.random(sol.shape) < 0.9, sol, rnd)
                state = np.where(rng.random(sol.shape) < rng.uniform(0.0, 0.7), pick, UNKNOWN).astype(np.int8)
                w = new_work(net, state, cache_slots=16)
                cache_end = len(w.words) - mask_words(len(net.clue_kind), len(net.cell_lines))
                li = int(rng.integers(len(net.clue_kind)))
                if net.clue_kind[li] != KIND_BLOCKS:
                    continue
                want_r, want_order, want_state = _expected(state, net, li)
                for again in range(2):  # a miss, then (usually) a hit on the same input
                    w2 = new_work(net, state, cache_slots=16)
                    # the cache of the first work, the state of a fresh one (not the word lines'
                    # masks at the end of ``words``: they belong to the state)
                    w2.words[:cache_end] = w.words[:cache_end]
                    w2.cache_keys[:] = w.cache_keys
                    r = apply_line(li, LS_DP, None, True, net, w2)
                    assert r == want_r, (shape, li, again)
                    if r >= 0:
                        assert w2.trail[:w2.stats[S_TLEN]].tolist() == want_order
                        assert (w2.state == want_state).all()
                    hits += int(w2.stats[S_CACHE_HITS])
                    w.words[:cache_end] = w2.words[:cache_end]
                # without the cache: the same
                w3 = new_work(net, state)
                r = apply_line(li, LS_DP, None, False, net, w3)
                assert r == want_r
                if r >= 0:
                    assert w3.trail[:w3.stats[S_TLEN]].tolist() == want_order
                checked += 1
    assert checked > 200 and hits > 100
