"""The greedy oracle: a reference for how few linesolvers a scheduler could need, not a product
solver (``solve(..., method="oracle")``; the benchmark's Oracle column).

At every step it applies the line that would deduce the most new cells right now, found by
trying every candidate: each unsolved clued line is solved on a copy of its current state (the
trial is undone) and the one with the largest gain is applied. A line's gain depends only on its
own cells, so after an application only that line and the lines through its new cells are tried
again; the others keep their last trial's gain, which is still exact. Trials are not linesolvers
(they are the oracle's look-ahead; the kernel's control array counts them). Every application deduces
something, so the oracle makes no bad guess, and it stops when no line can deduce anything
(the same fixpoint as the other schedulers with the complete DP). A trial that finds a
contradiction ranks first, so the next application reports it.

Greedy is not optimal (a line that deduces less now may complete more lines later), so this is
a strong reference, not a proven lower bound.
"""
from __future__ import annotations

import numpy as np

from ...jit import njit
from ...lines.lineheap import heap_push, heap_remove, heap_update
from .propagate import R_CONTRADICTION, S_LINESOLVERS, S_TLEN, apply_line, undo_to
from .schedulers import ST_CONTRADICTION, apply_counted, stop_status

# ctl slots: [started, heap size, trials]


def new_oracle_queue(n_lines):
    """The oracle's arrays, one per row: heap, pos, gain, stamp (filled in by the first call)."""
    return np.empty((4, n_lines), np.int64)


@njit
def _trial(li, ls_id, budget, big, net, w):
    """The number of cells line li would deduce now (``big`` for a contradiction); undone."""
    mark = w[7][S_TLEN]
    r = apply_line(li, ls_id, budget, False, net, w)
    undo_to(mark, net, w)
    if r == R_CONTRADICTION:
        return big
    return max(r, 0)


@njit
def _retry(li, size, ls_id, budget, big, net, w, oq, ctl):
    """Try line li again after a cell of it changed; returns the heap size."""
    heap, pos, gain = oq[0], oq[1], oq[2]
    if pos[li] < 0:
        return size
    if w[2][li] == 0:
        return heap_remove(li, size, heap, pos, gain)
    gain[li] = _trial(li, ls_id, budget, big, net, w)
    ctl[2] += 1
    heap_update(li, size, heap, pos, gain)
    return size


@njit
def greedy_oracle(ls_id, budget, step_limit, n_unknown0, max_steps, net, w, ctl, oq):
    """Apply the line of largest gain until solved or no line gains anything; resumable in
    chunks of ``max_steps`` applications like the seed's kernels (its state in ``ctl`` and
    ``oq``, ``new_oracle_queue``)."""
    heap, pos, gain, stamp = oq[0], oq[1], oq[2], oq[3]
    unk, stats, kinds, trail = w[2], w[7], net[2], w[1]
    cs, cl = net[5], net[6]
    n_lines = len(kinds)
    big = np.int64(n_unknown0 + 1)
    if ctl[0] == 0:
        size = 0
        for li in range(n_lines):
            pos[li] = -1
            stamp[li] = -1
            if kinds[li] != 0 and unk[li] > 0:
                gain[li] = _trial(li, ls_id, budget, big, net, w)
                ctl[2] += 1
                size = heap_push(li, size, heap, pos, gain)
        ctl[0] = 1
    else:
        size = ctl[1]
    end = stats[S_LINESOLVERS] + max(max_steps, 1)
    while True:
        status = stop_status(n_unknown0, stats, size == 0 or gain[heap[0]] <= 0, step_limit, end)
        if status >= 0:
            break
        li = heap[0]
        t0 = stats[S_TLEN]
        r = apply_counted(li, ls_id, budget, net, w)
        if r == R_CONTRADICTION:
            status = ST_CONTRADICTION
            break
        # li itself (the seed linesolver may find more on its own output), then every line
        # through a new cell, each once
        k_app = stats[S_LINESOLVERS]
        stamp[li] = k_app
        size = _retry(li, size, ls_id, budget, big, net, w, oq, ctl)
        for t in range(t0, stats[S_TLEN]):
            c = trail[t]
            for k in range(cs[c], cs[c + 1]):
                l2 = cl[k]
                if stamp[l2] != k_app:
                    stamp[l2] = k_app
                    size = _retry(l2, size, ls_id, budget, big, net, w, oq, ctl)
    ctl[1] = size
    return status
