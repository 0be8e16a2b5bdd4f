"""Colour probing (``colourprobe.probe``): the kernel propagates each assumption in the state itself
with a trail and undoes it, skips cells probed since the state last changed, and may share a
design's line cache. It must give exactly what probing by copies gives (the plain-Python reference
below: a copy of the state per assumption, the values every surviving assumption agrees on kept),
with the line-solve counts of the same skipping, and stay sound against brute-force enumeration."""
from __future__ import annotations

import numpy as np

from colourbrute import count_solutions
from colourgen import random_colour_puzzle
from engine.model.colourpuzzle import colour_puzzle_from_grid, with_hidden
from engine.kinds.colour import colourprobe, colourprop
from engine.kinds.colour.colourprobe import probe
from engine.kinds.colour.colourprop import ST_CONTRADICTION, ST_OK, build_net, full_state, propagate
from engine.kinds.colour.linecache import new_cache


def probe_by_copies(net, state, counters, skip_unchanged: bool = False, order=None, found=None) -> int:
    """Probing as defined: each value of each undecided cell (in cell order, passes repeated to a
    fixpoint) assumed on a copy of the state and propagated from the cell's lines; no surviving
    value is a contradiction; what all surviving copies agree on is kept and propagated.
    ``skip_unchanged``: a cell probed since the state last changed is not probed again (the
    kernel's saving: the same fixpoint, fewer line solves). ``order``: the cells in that order
    instead; ``found`` (a list) gets the cells whose probing narrowed the state, once each, in
    the order they did."""
    n = len(state)
    probed = np.full(n, -1)
    clock = last_change = 0
    while True:
        changed = False
        for c in (range(n) if order is None else order):
            m = int(state[c])
            if m & (m - 1) == 0 or (skip_unchanged and probed[c] > last_change):
                continue
            lines = net.cell_lines[net.cell_start[c]:net.cell_start[c + 1]]
            agree = np.zeros(n, dtype=np.int64)
            survived = 0
            for v in range(net.k + 1):
                if not (m >> v) & 1:
                    continue
                trial = state.copy()
                trial[c] = 1 << v
                if propagate(net, trial, lines=lines, counters=counters) == ST_OK:
                    survived += 1
                    agree |= trial
            if survived == 0:
                return ST_CONTRADICTION
            narrowed = np.flatnonzero((state & agree) != state)
            clock += 1
            probed[c] = clock
            if len(narrowed):
                if found is not None and c not in found:
                    found.append(int(c))
                changed = True
                last_change = clock
                state &= agree
                lines = np.unique(np.concatenate([net.cell_lines[net.cell_start[x]:net.cell_start[x + 1]]
                                                  for x in narrowed]))
                if propagate(net, state, lines=lines, counters=counters) != ST_OK:
                    return ST_CONTRADICTION
        if not changed:
            return ST_OK


def _starts(rng, net):
    """The propagation fixpoint, and the same with a few cells fixed to one of their values at
    random (deeper probing, and contradictions), each propagated again."""
    state = full_state(net)
    if propagate(net, state) != ST_OK:
        return
    yield state
    for _ in range(2):
        s = state.copy()
        open_cells = np.flatnonzero(s & (s - 1))
        if len(open_cells) == 0:
            return
        for c in rng.choice(open_cells, size=min(3, len(open_cells)), replace=False):
            bits = [v for v in range(net.k + 1) if (int(s[c]) >> v) & 1]
            s[c] = 1 << int(rng.choice(bits))
        if propagate(net, s) == ST_OK:
            yield s


def _loose_puzzle(rng, i):
    """Random puzzles, 2D and 3D, k = 2..4 (random_colour_puzzle: some hidden lines, some mixed
    clues), and every other one a larger 2D picture with a fifth to a third of its lines hidden,
    where line logic stalls more often and probing deduces more (about one in ten)."""
    k = 2 + (i // 2) % 3
    if i % 2 == 0:
        return random_colour_puzzle(rng, 2 + (i // 2) % 2, k)
    shape = [(5, 5), (6, 6), (7, 6)][int(rng.integers(3))]
    grid = np.where(rng.random(shape) < rng.uniform(0.4, 0.8), rng.integers(1, k + 1, shape), 0)
    p = colour_puzzle_from_grid(grid, k)
    return with_hidden(p, rng.random(p.n_lines) < rng.uniform(0.2, 0.35))


def test_probe_is_probing_by_copies():
    rng = np.random.default_rng(500)
    narrowed = 0
    for i in range(300):
        p = _loose_puzzle(rng, i)
        net = build_net(p)
        cache = new_cache(net)
        for start in _starts(rng, net):
            want, want_counts = start.copy(), np.zeros(2, dtype=np.int64)
            want_st = probe_by_copies(net, want, want_counts, skip_unchanged=True)
            # skipping the cells probed since the last change leaves the same fixpoint
            plain, plain_counts = start.copy(), np.zeros(2, dtype=np.int64)
            assert probe_by_copies(net, plain, plain_counts) == want_st
            assert want_st != ST_OK or (np.array_equal(plain, want) and want_counts[0] <= plain_counts[0])
            for shared in (None, cache):  # the cache, when given, is reused from start to start
                got, got_counts = start.copy(), np.zeros(2, dtype=np.int64)
                assert probe(net, got, got_counts, cache=shared) == want_st
                if want_st == ST_OK:
                    assert np.array_equal(got, want)
                    assert np.array_equal(got_counts, want_counts)
            narrowed += int(want_st == ST_OK and not np.array_equal(want, start))
    # real deductions (each needs a value whose assumption failed: the trail undone after a
    # contradiction, the line flags cleared)
    assert narrowed >= 10, narrowed


def test_probing_in_any_order_reaches_the_same_fixpoint():
    """``probe(..., order=...)`` probes the cells in that order (the reference in the same order:
    the same states and line-solve counts, also when a deadline cuts the kernel into slices that
    resume mid-order) and reaches the fixpoint of cell order; the order comes back with the cells
    that narrowed the state first, in the order they did, then the others as they were."""
    import time

    rng = np.random.default_rng(901)
    reordered = 0
    for i in range(200):
        p = _loose_puzzle(rng, i)
        net = build_net(p)
        for start in _starts(rng, net):
            want = start.copy()
            want_st = probe(net, want, np.zeros(2, dtype=np.int64))
            order = rng.permutation(len(start)).astype(np.int64)
            ref, ref_counts, found = start.copy(), np.zeros(2, dtype=np.int64), []
            assert probe_by_copies(net, ref, ref_counts, skip_unchanged=True, order=order, found=found) == want_st
            for deadline in (None, time.perf_counter() + 3600):
                got, got_counts, got_order = start.copy(), np.zeros(2, dtype=np.int64), order.copy()
                assert probe(net, got, got_counts, deadline, order=got_order) == want_st
                if want_st != ST_OK:
                    continue
                assert np.array_equal(got, want) and np.array_equal(ref, want)
                assert np.array_equal(got_counts, ref_counts)
                assert got_order[:len(found)].tolist() == found
                assert got_order[len(found):].tolist() == [c for c in order.tolist() if c not in found]
            reordered += int(want_st == ST_OK and len(found) > 0)
    assert reordered >= 10, reordered  # deductions, each moving cells to the front


def test_probe_keeps_every_solution():
    """Sound against brute force: every solution that fits the start still fits the probed state;
    a contradiction only where none fits."""
    rng = np.random.default_rng(77)
    checked = 0
    for i in range(60):
        k, shape = ((2, (3, 3)), (2, (2, 2, 2)), (3, (2, 2, 2)))[i % 3]  # at most 4^8 grids to enumerate
        grid = np.where(rng.random(shape) < 0.6, rng.integers(1, k + 1, shape), 0)
        p = colour_puzzle_from_grid(grid, k)
        p = with_hidden(p, rng.random(p.n_lines) < 0.4)
        _, sols = count_solutions(p, cap=10 ** 6)
        net = build_net(p)
        for start in _starts(rng, net):
            fits = [g for g in sols if all((int(start[c]) >> int(v)) & 1 for c, v in enumerate(g.ravel()))]
            state = start.copy()
            st = probe(net, state, np.zeros(2, dtype=np.int64))
            if st == ST_CONTRADICTION:
                assert not fits
                continue
            for g in fits:
                assert all((int(state[c]) >> int(v)) & 1 for c, v in enumerate(g.ravel()))
            checked += 1
    assert checked >= 30


def test_the_trail_undoes_a_propagation():
    """``propagate_queues`` with a trail: its entries are the cells it changed (each with the value
    it had), and undoing them restores the state exactly."""
    rng = np.random.default_rng(3)
    recorded = 0
    for _ in range(30):
        p = random_colour_puzzle(rng, 3, 3)
        net = build_net(p)
        start = full_state(net)
        state = start.copy()
        n_lines = len(net.mode)
        queued = np.full(n_lines, 3, dtype=np.int64)
        qs = np.zeros(colourprop.QS_LEN, dtype=np.int64)
        trail = len(state) * net.k + 1
        t_cell, t_old = np.zeros(trail, dtype=np.int64), np.zeros(trail, dtype=np.int64)
        none, no_rows = np.zeros(0, dtype=np.int64), np.zeros((0, 0), dtype=np.int64)
        st = colourprop.propagate_queues(state, net.k, net.line_start, net.line_cells, net.mode, net.shown, net.clue_id, net.tab_all,
                                         net.tab_start, net.cnt, net.rmax, net.cell_start, net.cell_lines,
                                         queued, np.zeros(2, dtype=np.int64), np.full(1, -1, dtype=np.int64),
                                         np.empty(n_lines, dtype=np.int64), np.empty(n_lines, dtype=np.int64),
                                         qs, none, none, none, none, no_rows, no_rows, False, t_cell, t_old)
        n = int(qs[7])
        if st == ST_OK:
            assert set(t_cell[:n].tolist()) == set(np.flatnonzero(state != start).tolist())
        recorded += n
        colourprop.undo_trail(state, t_cell, t_old, qs, 0)
        assert np.array_equal(state, start)
    assert recorded > 0
