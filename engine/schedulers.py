"""The seed study's three ways of applying a line solver (sections 3.6-3.8, Figures 28, 29, 31).

Every kernel works on a ``Net``/``Work`` pair from ``propagate.py`` with either line solver and
returns one of the ``ST_*`` statuses. Metrics follow the seed's tables: a *linesolver* is one
application to a line that still had an unknown cell (lines found solved are skipped, not
counted), a *bad guess* is such an application that deduced nothing. Lines without a clue are
never taken (they cannot deduce anything on their own), so they never count.
"""
from __future__ import annotations

import numpy as np

from .cells import FILLED
from .jit import njit
from .propagate import (LS_DP, R_CONTRADICTION, R_TOO_LARGE, S_BAD, S_LINESOLVERS, S_TLEN,
                        S_TOO_LARGE, apply_line, queue_pop, queue_push)

ST_STALLED = 0       # line solving can deduce nothing more (not line-solvable)
ST_SOLVED = 1        # every cell known
ST_CONTRADICTION = 2
ST_STOPPED = 3       # step limit reached


@njit
def _count(r, stats):
    stats[S_LINESOLVERS] += 1
    if r <= 0:
        stats[S_BAD] += 1
    if r == R_TOO_LARGE:
        stats[S_TOO_LARGE] += 1


@njit
def brute_force(ls_id, budget, max_iterations, step_limit, n_unknown0, net, w):
    """Fig. 28: sweep every line in order, ``max_iterations`` times or until solved.

    Faithful to the seed, a sweep that deduces nothing does not end the run early: the seed's
    brute force only stops at its iteration limit (its checkerboard rows cost 100 x lines).
    """
    unk, stats, kinds = w[2], w[7], net[2]
    if n_unknown0 - stats[S_TLEN] == 0:
        return ST_SOLVED
    for _it in range(max_iterations):
        for li in range(len(kinds)):
            if kinds[li] == 0 or unk[li] == 0:
                continue
            if step_limit > 0 and stats[S_LINESOLVERS] >= step_limit:
                return ST_STOPPED
            r = apply_line(li, ls_id, budget, False, net, w)
            _count(r, stats)
            if r == R_CONTRADICTION:
                return ST_CONTRADICTION
            if n_unknown0 - stats[S_TLEN] == 0:
                return ST_SOLVED
    return ST_STALLED


@njit
def _push_unsolved_perpendicular(t0, t1, li, net, w):
    trail, cs, cl, unk = w[1], net[5], net[6], w[2]
    for t in range(t0, t1):
        c = trail[t]
        for k in range(cs[c], cs[c + 1]):
            l2 = cl[k]
            if l2 != li and unk[l2] > 0:
                queue_push(l2, w)


@njit
def hierarchical(ls_id, budget, step_limit, n_unknown0, net, w):
    """Fig. 29: push each line in turn; solve the queue; every changed cell queues its unsolved
    perpendicular lines. Not line-solvable once every line was pushed and the queue ran dry.

    A line already waiting in the queue is not queued twice, and a queued line that got solved
    by its perpendicular lines before its turn is dropped (it has nothing left to deduce).
    With the seed linesolver, which may deduce more on a second pass over its own output, a
    productive line is queued again behind its perpendicular lines.
    """
    unk, stats, kinds, q = w[2], w[7], net[2], w[3]
    if n_unknown0 - stats[S_TLEN] == 0:
        return ST_SOLVED
    for l0 in range(len(kinds)):
        if kinds[l0] == 0 or unk[l0] == 0:
            continue
        queue_push(l0, w)
        while q[1] > 0:
            li = queue_pop(w)
            if unk[li] == 0:
                continue
            if step_limit > 0 and stats[S_LINESOLVERS] >= step_limit:
                return ST_STOPPED
            t0 = stats[S_TLEN]
            r = apply_line(li, ls_id, budget, False, net, w)
            _count(r, stats)
            if r == R_CONTRADICTION:
                return ST_CONTRADICTION
            if r > 0:
                _push_unsolved_perpendicular(t0, stats[S_TLEN], li, net, w)
                if ls_id != LS_DP and unk[li] > 0:
                    queue_push(li, w)
        if n_unknown0 - stats[S_TLEN] == 0:
            return ST_SOLVED
    return ST_STALLED


# --- the heuristic solver's priority queue: an indexed binary max-heap over line indices.
# Order: higher priority first, then lower line index (a deterministic stand-in for the seed's
# re-sort of its queue).


@njit
def _before(a, b, prio):
    return prio[a] > prio[b] or (prio[a] == prio[b] and a < b)


@njit
def _sift_up(i, heap, pos, prio):
    x = heap[i]
    while i > 0:
        p = (i - 1) >> 1
        if not _before(x, heap[p], prio):
            break
        heap[i] = heap[p]
        pos[heap[i]] = i
        i = p
    heap[i] = x
    pos[x] = i


@njit
def _sift_down(i, n, heap, pos, prio):
    x = heap[i]
    while True:
        c = 2 * i + 1
        if c >= n:
            break
        if c + 1 < n and _before(heap[c + 1], heap[c], prio):
            c += 1
        if not _before(heap[c], x, prio):
            break
        heap[i] = heap[c]
        pos[heap[i]] = i
        i = c
    heap[i] = x
    pos[x] = i


@njit
def _heap_remove(li, size, heap, pos, prio):
    """Remove line li; returns the new size."""
    i = pos[li]
    pos[li] = -1
    size -= 1
    if i != size:
        moved = heap[size]
        heap[i] = moved
        pos[moved] = i
        # the moved line may belong above or below its new slot
        _sift_down(i, size, heap, pos, prio)
        _sift_up(pos[moved], heap, pos, prio)
    return size


@njit
def heuristic(ls_id, budget, step_limit, seed_exit, n_unknown0, net, w, prio, bad):
    """Fig. 31 with the seed's priorities: all unsolved lines start at 0; a productive line drops
    by 2*(new solids) + (new empties), lines through its new cells rise by 2 per new solid and 1
    per new empty; a bad guess increments the line's bad-guess count and drops it by that count;
    solved lines leave the queue.

    Exit: with ``seed_exit`` the seed's clause (consecutive bad guesses >= lines left in the
    queue), which can stop while some line could still deduce something (its Dancer and Knot
    runs). Otherwise a sound clause: every line remembers whether a cell of it changed since
    its last application (``dirty``); the run stops when no queued line is dirty, i.e. when every
    line left has already been solved against its current state. With the complete DP a line
    is idempotent, so it is clean right after its own application; the seed linesolver is not,
    so a productive line stays dirty.
    """
    unk, stats, kinds, state, trail = w[2], w[7], net[2], w[0], w[1]
    cs, cl = net[5], net[6]
    n_lines = len(kinds)
    heap = np.empty(n_lines, np.int64)
    pos = np.full(n_lines, -1, np.int64)
    dirty = np.zeros(n_lines, np.uint8)
    size = 0
    n_dirty = 0
    for li in range(n_lines):
        if kinds[li] != 0 and unk[li] > 0:
            prio[li] = 0
            heap[size] = li
            pos[li] = size
            size += 1
            dirty[li] = 1
            n_dirty += 1
    # all priorities are equal, so line order is already a valid heap
    consecutive_bad = 0
    while size > 0:
        if n_unknown0 - stats[S_TLEN] == 0:
            return ST_SOLVED
        if not seed_exit and n_dirty == 0:
            return ST_STALLED
        if step_limit > 0 and stats[S_LINESOLVERS] >= step_limit:
            return ST_STOPPED
        li = heap[0]
        size = _heap_remove(li, size, heap, pos, prio)
        if dirty[li]:
            dirty[li] = 0
            n_dirty -= 1
        t0 = stats[S_TLEN]
        r = apply_line(li, ls_id, budget, False, net, w)
        _count(r, stats)
        if r == R_CONTRADICTION:
            return ST_CONTRADICTION
        if r > 0:
            n_solid = 0
            n_empty = 0
            for t in range(t0, stats[S_TLEN]):
                c = trail[t]
                inc = 1
                if state[c] == FILLED:
                    inc = 2
                    n_solid += 1
                else:
                    n_empty += 1
                for k in range(cs[c], cs[c + 1]):
                    l2 = cl[k]
                    if l2 == li or pos[l2] < 0:
                        continue
                    if unk[l2] == 0:
                        if dirty[l2]:
                            dirty[l2] = 0
                            n_dirty -= 1
                        size = _heap_remove(l2, size, heap, pos, prio)
                        continue
                    prio[l2] += inc
                    _sift_up(pos[l2], heap, pos, prio)
                    if not dirty[l2]:
                        dirty[l2] = 1
                        n_dirty += 1
            if unk[li] > 0:
                prio[li] -= 2 * n_solid + n_empty
                heap[size] = li
                pos[li] = size
                size += 1
                _sift_up(size - 1, heap, pos, prio)
                if ls_id != LS_DP:
                    dirty[li] = 1
                    n_dirty += 1
            consecutive_bad = 0
        else:
            consecutive_bad += 1
            if seed_exit and consecutive_bad >= size:
                return ST_STALLED
            bad[li] += 1
            prio[li] -= bad[li]
            heap[size] = li
            pos[li] = size
            size += 1
            _sift_up(size - 1, heap, pos, prio)
    if n_unknown0 - stats[S_TLEN] == 0:
        return ST_SOLVED
    return ST_STALLED
