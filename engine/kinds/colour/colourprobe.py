"""Colour probing (the colour form of FP2): for each undecided cell, each value it may take is
assumed and propagated; a contradiction removes the value, and the cell values every surviving
assumption agrees on are kept. Repeated to a fixpoint with propagation between.

Each assumption is propagated in the state itself, its changes written to a trail and undone
from it (``propagate_queues``' trail), so that it costs what it changes; cells probed since the
state last changed are skipped; a line cache (``linecache.py``) may be shared with the caller.
"""
from __future__ import annotations

import time

import numpy as np

from .colourprop import (NO_CACHE, QS_LEN, SLICE_S, ST_BUDGET, ST_CONTRADICTION, ST_OK, ColourNet, popcount,
                         propagate_queues, undo_trail)
from ...jit import njit


@njit(cache=True)
def _queue_lines_of(c, cell_start, cell_lines, mode, shown, queued, rq, xq, qs):
    """Queue cell ``c``'s lines as ``propagate_queues`` queues flagged lines on its first call
    (both queues, in line order; a 2D line only in the exact one), without its pass over every
    line: an assumption's propagation often solves a line or two. ``queued`` must be all clear;
    qs's trail position is kept."""
    nr = 0
    nx = 0
    for t in range(cell_start[c], cell_start[c + 1]):  # a cell's lines are in line order
        li = cell_lines[t]
        if mode[li] == 0 or shown[li] == 0:
            continue
        if mode[li] == 2:
            rq[nr] = li
            nr += 1
            queued[li] = 3
        else:
            queued[li] = 2
        xq[nx] = li
        nx += 1
    qs[0], qs[1], qs[2], qs[3], qs[4], qs[5], qs[6] = 0, nr, 0, nx, 1, 0, 1


@njit(cache=True)
def probe_cells(state, k, line_start, line_cells, mode, shown, clue_id, tab_all, tab_start, cnt, rmax, cell_start,
                cell_lines, counters, c_from, c_to, flags, budget, c_line, c_kind, c_in, c_out, scratch, order):
    """One probing pass over the cells ``order[c_from:c_to]``, in place (see ``probe``); flags[0]
    = 1 when something changed. Returns ST_OK, ST_CONTRADICTION, or ST_BUDGET when the
    assumptions' line solves used up ``budget`` (as in ``propagate_queues``): flags[1] is then the
    position in ``order`` to go on from, and ``state`` is at the fixpoint of what was done before
    it. ``c_*``: a line cache (``linecache.py``; empty: none); ``scratch``: ``probe_scratch``'s
    arrays, kept between calls; the cells whose probing narrowed the state are listed in it.

    Each assumption is propagated in ``state`` itself with a trail and undone after, so that it
    costs what it changes: with a copy of the state per assumption and a pass over every cell to
    intersect them, most of a 24^3 puzzle's probing was copying (2-10x slower)."""
    queued, rq, xq, qs, t_cell, t_old, agree, hits, seen, touched, probed, ids, paid, found = scratch
    none = np.zeros(0, dtype=np.int64)
    no_limit = np.full(1, -1, dtype=np.int64)
    for pos in range(c_from, c_to):
        c = order[pos]
        m = state[c]
        if m & (m - 1) == 0:
            continue
        if probed[c] > ids[2]:
            # nothing changed since this cell was probed and found nothing: it would find nothing
            # again (mostly the pass that confirms the fixpoint)
            continue
        # an interrupted cell is probed again from its start: its partial work is not counted
        count0, count1 = counters[0], counters[1]
        ok_bits = 0
        n_ok = 0
        nt = 0
        for v in range(k + 1):
            if (m >> v) & 1 == 0:
                continue
            t_cell[0] = c
            t_old[0] = m
            qs[7] = 1
            state[c] = np.int64(1) << v
            _queue_lines_of(c, cell_start, cell_lines, mode, shown, queued, rq, xq, qs)
            st = propagate_queues(state, k, line_start, line_cells, mode, shown, clue_id, tab_all, tab_start, cnt, rmax,
                                  cell_start, cell_lines, queued, counters, budget, rq, xq, qs, none, none,
                                  c_line, c_kind, c_in, c_out, False, t_cell, t_old)
            tl = qs[7]
            if st == ST_OK:
                ok_bits |= np.int64(1) << v
                n_ok += 1
                ids[0] += 1
                trial_id = ids[0]
                for e in range(tl):
                    x = t_cell[e]
                    if seen[x] != trial_id:
                        seen[x] = trial_id
                        if hits[x] == 0:
                            touched[nt] = x
                            nt += 1
                        hits[x] += 1
                        agree[x] |= state[x]
            else:
                queued[:] = 0  # a propagation cut short leaves lines flagged
            undo_trail(state, t_cell, t_old, qs, 0)  # (qs is set afresh before its next use)
            if st == ST_BUDGET:
                for i in range(nt):
                    agree[touched[i]] = 0
                    hits[touched[i]] = 0
                flags[1] = pos
                counters[0], counters[1] = count0, count1
                return ST_BUDGET
        if ok_bits == 0:
            return ST_CONTRADICTION
        # a cell that some surviving assumption left alone keeps its values
        any_change = False
        for i in range(nt):
            x = touched[i]
            if hits[x] == n_ok:
                nv = state[x] & agree[x]
                if nv != state[x]:
                    state[x] = nv
                    any_change = True
                    for t in range(cell_start[x], cell_start[x + 1]):
                        queued[cell_lines[t]] = 3
            agree[x] = 0
            hits[x] = 0
        ids[1] += 1
        probed[c] = ids[1]
        if any_change:
            if paid[c] == 0:
                paid[c] = 1
                found[ids[3]] = c
                ids[3] += 1
            ids[2] = ids[1]  # every cell probed so far (this one too) may find more now
            flags[0] = 1
            # to the fixpoint whatever the budget: what the assumptions agreed on is kept whole
            qs[:] = 0
            if propagate_queues(state, k, line_start, line_cells, mode, shown, clue_id, tab_all, tab_start, cnt, rmax,
                                cell_start, cell_lines, queued, counters, no_limit, rq, xq, qs, none, none,
                                c_line, c_kind, c_in, c_out, False, none, none) != ST_OK:
                return ST_CONTRADICTION
    return ST_OK


def probe_scratch(state: np.ndarray, n_lines: int) -> tuple:
    """``probe_cells``'s working arrays for probing from ``state``, made once per probe: the line
    flags and queues of its propagations (``propagate_queues``), the trail (a change takes at
    least one value from a cell, so an assumption makes at most as many changes as the state
    has values beyond one per cell: far fewer than k per cell once line logic has run, and a
    large puzzle's trail stays small), and per cell over a cell's
    surviving assumptions the OR of its values, how many changed it, the last assumption that
    did (numbered by ``ids[0]``) and the list of such cells; per cell when it was last probed,
    on the clock ``ids[1]`` (a cell probed after the last change, ``ids[2]``, is not probed
    again: probing is deterministic and monotone, so skipping it changes no result, only the
    work); the cells whose probing narrowed the state (``paid`` marks them, ``found`` lists them
    in the order found, ``ids[3]`` long). ``queued``, ``agree`` and ``hits`` are left clear
    between cells."""
    n_cells = len(state)
    trail = int(np.maximum(popcount(state) - 1, 0).sum()) + 1
    return (np.zeros(n_lines, dtype=np.int64), np.empty(n_lines, dtype=np.int64), np.empty(n_lines, dtype=np.int64),
            np.zeros(QS_LEN, dtype=np.int64), np.empty(trail, dtype=np.int64), np.empty(trail, dtype=np.int64),
            np.zeros(n_cells, dtype=np.int64), np.zeros(n_cells, dtype=np.int64), np.full(n_cells, -1, dtype=np.int64),
            np.empty(n_cells, dtype=np.int64), np.full(n_cells, -1, dtype=np.int64), np.zeros(4, dtype=np.int64),
            np.zeros(n_cells, dtype=np.int8), np.empty(n_cells, dtype=np.int64))


def probe(net: ColourNet, state: np.ndarray, counters, deadline=None, cache=None, order=None, budget=None) -> int:
    """Probing to a fixpoint (in place): each value of each undecided cell is assumed and
    propagated; failed values go, and what every surviving assumption agrees on is kept.
    ST_CONTRADICTION when every value of some cell fails. The kernel runs in chunks of cells so
    that ``deadline`` (perf_counter seconds) is checked between them; past it, ST_OK with the
    state as far as it got (still sound). ``cache``: a line cache (``linecache.new_cache``) its
    propagations share, as a design's do.

    ``order`` (int64, a permutation of the cells; default: cell order) is the order the cells
    are probed in, and is changed in place: the cells whose probing narrowed the state move to
    its front, in the order they did. The fixpoint is the same in any order (probing only
    removes values, and a deduction stays valid in any narrower state), but the work is not:
    most probes find nothing, and a cell that paid off in one state usually pays off in the
    next, similar one, whose probing then reaches the fixpoint sooner (a designer's trials).

    ``budget``: line solves (``counters[0]``) the probing may spend, checked between chunks of
    cells; past it, ST_BUDGET with the state sound but not at the fixpoint."""
    if order is None:
        order = np.arange(len(state), dtype=np.int64)
    scratch = probe_scratch(state, len(net.mode))
    limit = np.full(1, -1, dtype=np.int64)
    steps = probe_passes(net, state, counters, cache, order, scratch, limit,
                         None if budget is None else int(counters[0]) + int(budget))
    size = 64  # line solves per slice when there is a deadline (see propagate)
    while True:
        if deadline is not None:
            limit[0] = size
        t = time.perf_counter()
        try:
            stuck = next(steps)
        except StopIteration as done:
            return done.value
        if deadline is not None and time.perf_counter() > deadline:
            steps.close()
            return ST_OK
        if stuck is not None:
            size = int(min(max(size * SLICE_S / max(time.perf_counter() - t, 1e-6), 8), size * 4, 1 << 40))
            if stuck:
                size = min(size * 4, 1 << 40)  # not one cell probed: its assumptions need more


def probe_passes(net, state, counters, cache, order, scratch, budget, stop_at=None):
    """Passes of ``probe_cells`` over ``order`` in chunks of cells until one changes nothing, as a
    generator that returns ST_OK, ST_CONTRADICTION or ST_BUDGET (``counters[0]`` past ``stop_at``,
    checked between chunks). It yields after each kernel call, which ``budget[0]`` (line solves,
    -1 none: the caller's to size) bounds: None when the call probed its cells, else whether it
    was cut short before one whole cell (the next call goes on from where it stopped). However it
    ends, the cells whose probing narrowed the state go to the front of ``order`` (see ``probe``)."""
    n = len(state)
    c_line, c_kind, c_in, c_out = NO_CACHE if cache is None else cache
    flags = np.zeros(2, dtype=np.int64)
    chunk = 256
    try:
        while True:
            flags[0] = 0
            for c0 in range(0, n, chunk):
                if stop_at is not None and counters[0] > stop_at:
                    return ST_BUDGET
                c1 = min(n, c0 + chunk)
                while c0 < c1:
                    st = probe_cells(state, net.k, net.line_start, net.line_cells, net.mode, net.shown, net.clue_id,
                                     net.tab_all, net.tab_start, net.cnt, net.rmax, net.cell_start, net.cell_lines,
                                     counters, c0, c1, flags, budget, c_line, c_kind, c_in, c_out, scratch, order)
                    if st == ST_CONTRADICTION:
                        return ST_CONTRADICTION
                    if st == ST_OK:
                        yield None
                        break
                    stuck = int(flags[1]) == c0
                    c0 = int(flags[1])  # the budget ran out at this position: on from there
                    yield stuck
            if flags[0] == 0:
                return ST_OK
    finally:
        ids, paid, found = scratch[11], scratch[12], scratch[13]
        if ids[3]:
            rest = order[paid[order] == 0]
            order[:ids[3]] = found[:ids[3]]
            order[ids[3]:] = rest
