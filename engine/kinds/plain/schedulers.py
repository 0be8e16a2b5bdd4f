"""The seed study's three ways of applying a line solver (sections 3.6-3.8, Figures 28, 29, 31).

Every kernel works on a ``Net``/``Work`` pair from ``propagate.py`` with either line solver and
returns one of the ``ST_*`` statuses. A *bad guess* is an application that deduced nothing.
Lines without a clue are never taken (they cannot deduce anything on their own), so they never
count. Two counting rules (``seed_count``):

- strict (default): a *linesolver* is one application to a line that still had an unknown cell;
  lines found solved are skipped, not counted, and the hierarchical queue holds a line once.
- the seed's (``seed_count=True``), Figs. 28 and 29 as printed: brute force applies every line in
  every sweep, solved or not (every application counts; the seed's brute force never used fewer
  linesolvers than there are lines), and the hierarchical solver's queue is a plain FIFO where a
  line may wait several times (each perpendicular deduction pushes it again). That reproduces
  the seed's Tables 5 and 6 (docs/BENCHMARKS.md); it changes no deduction, only what is spent.
  A popped line found solved is still skipped, uncounted, in both rules: applying it too would
  cost 4-5x brute force on our model puzzles, far from the seed's 1.0x with about half bad
  guesses, which the skipping FIFO matches, growing with size as the seed's did.
  The heuristic only ever applies unsolved lines, so it counts the same either way.

The kernels run in chunks: given ``max_steps`` they return ``ST_PAUSED`` after about that many
applications, and continue from their control array on the next call (``solve/driver.py`` checks the
time limit and the progress callback in between).
"""
from __future__ import annotations

import numpy as np

from ...model.cells import FILLED
from ...jit import njit
from ...lines.lineheap import heap_push, heap_remove, sift_up
from .propagate import LS_DP, R_CONTRADICTION, S_LINESOLVERS, S_TLEN, apply_line, count_apply, queue_pop, queue_push

ST_STALLED = 0       # line solving can deduce nothing more (not line-solvable)
ST_SOLVED = 1        # every cell known
ST_CONTRADICTION = 2
ST_STOPPED = 3       # step limit reached
ST_PAUSED = 4        # ``max_steps`` applications done: call again with the same arrays to go on

# Every kernel keeps where it stands in a small int64 control array (``new_control()``), so a
# run can be split into chunks of about ``max_steps`` line-solver applications: a call that
# returns ST_PAUSED continues, when called again with the same arrays, exactly where it stopped
# (same linesolvers, bad guesses, trail and grid as one call). Slot use per kernel:
# brute force: [iteration, next line]; hierarchical: [outer line, its queue is being run, seed-count
# queue head, tail];
# heuristic: [started, heap size, dirty lines, consecutive bad guesses].
N_CONTROL = 4


def new_control():
    """A fresh control array: a kernel given it starts from the beginning."""
    return np.zeros(N_CONTROL, np.int64)


@njit(shared=True)
def apply_counted(li, ls_id, budget, net, w):
    """Apply the line solver to line li and count it as the seed did: one linesolver, a bad guess
    when it deduced nothing (a contradiction or a refusal included). Returns apply_line's result."""
    r = apply_line(li, ls_id, budget, False, net, w)
    count_apply(r, w[7])
    return r


@njit
def stop_status(n_unknown0, stats, stalled, step_limit, end):
    """Why a priority scheduler stops before its next application (solved, ``stalled``, step
    limit, end of its chunk), or -1 to go on."""
    if n_unknown0 - stats[S_TLEN] == 0:
        return ST_SOLVED
    if stalled:
        return ST_STALLED
    if step_limit > 0 and stats[S_LINESOLVERS] >= step_limit:
        return ST_STOPPED
    if stats[S_LINESOLVERS] >= end:
        return ST_PAUSED
    return -1


@njit
def brute_force(ls_id, budget, max_iterations, step_limit, seed_count, n_unknown0, max_steps, net, w,
                ctl):
    """Fig. 28: sweep every line in order, ``max_iterations`` times or until solved; with
    ``seed_count`` solved lines are applied (and counted) too.

    Faithful to the seed, a sweep that deduces nothing does not end the run early: the seed's
    brute force only stops at its iteration limit (its checkerboard rows cost 100 x lines).
    """
    unk, stats, kinds = w[2], w[7], net[2]
    if n_unknown0 - stats[S_TLEN] == 0:
        return ST_SOLVED
    n_lines = len(kinds)
    end = stats[S_LINESOLVERS] + max(max_steps, 1)
    it, li = ctl[0], ctl[1]
    while it < max_iterations:
        while li < n_lines:
            if kinds[li] == 0 or (unk[li] == 0 and not seed_count):
                li += 1
                continue
            if step_limit > 0 and stats[S_LINESOLVERS] >= step_limit:
                ctl[0], ctl[1] = it, li
                return ST_STOPPED
            if stats[S_LINESOLVERS] >= end:
                ctl[0], ctl[1] = it, li
                return ST_PAUSED
            r = apply_counted(li, ls_id, budget, net, w)
            li += 1
            if r == R_CONTRADICTION:
                ctl[0], ctl[1] = it, li
                return ST_CONTRADICTION
            if n_unknown0 - stats[S_TLEN] == 0:
                ctl[0], ctl[1] = it, li
                return ST_SOLVED
        it += 1
        li = 0
    ctl[0], ctl[1] = it, li
    return ST_STALLED


@njit
def _queue_unsolved_perpendicular(t0, t1, li, net, w, seed_count, fifo, tail):
    """Queue the unsolved lines through the cells trailed in [t0, t1) other than li: once each
    (strict), or the seed's plain append to ``fifo`` even when the line is waiting already.
    Returns the fifo's tail."""
    trail, cs, cl, unk = w[1], net[5], net[6], w[2]
    for t in range(t0, t1):
        c = trail[t]
        for k in range(cs[c], cs[c + 1]):
            l2 = cl[k]
            if l2 != li and unk[l2] > 0:
                tail = _push(l2, seed_count, fifo, tail, w)
    return tail


@njit(inline="always")
def _push(li, seed_count, fifo, tail, w):
    """Queue line ``li``: appended to the seed count's ``fifo`` (its new tail returned), else on
    the strict queue (once)."""
    if seed_count:
        fifo[tail] = li
        return tail + 1
    queue_push(li, w)
    return tail


def new_fifo(net):
    """The seed-count hierarchical queue: room for every push one run can make (each line once
    from the outer loop, each (cell, line) pair once when its cell becomes known, and with the
    seed linesolver a productive line's own re-queue, at most once per cell), so it never wraps.
    Its head and tail are kept in the kernel's control array."""
    n_cells = len(net.cell_start) - 1
    return np.empty(len(net.clue_kind) + len(net.cell_lines) + n_cells + 1, np.int64)


@njit
def hierarchical(ls_id, budget, step_limit, seed_count, n_unknown0, max_steps, net, w, ctl, fifo):
    """Fig. 29: push each line in turn; solve the queue; every changed cell queues its unsolved
    perpendicular lines. Not line-solvable once every line was pushed and the queue ran dry.

    A queued line that got solved by its perpendicular lines before its turn is dropped (it has
    nothing left to deduce). Strict count: a line already waiting in the queue is not queued
    twice. ``seed_count``: the queue is the plain FIFO ``fifo`` (``new_fifo``), where a line
    waits once per push.
    With the seed linesolver, which may deduce more on a second pass over its own output, a
    productive line is queued again behind its perpendicular lines.
    """
    unk, stats, kinds, q = w[2], w[7], net[2], w[3]
    if n_unknown0 - stats[S_TLEN] == 0:
        return ST_SOLVED
    n_lines = len(kinds)
    end = stats[S_LINESOLVERS] + max(max_steps, 1)
    l0, running, head, tail = ctl[0], ctl[1], ctl[2], ctl[3]
    while l0 < n_lines:
        if running == 0:
            if kinds[l0] == 0 or unk[l0] == 0:
                l0 += 1
                continue
            tail = _push(l0, seed_count, fifo, tail, w)
            running = 1
        while (seed_count and tail > head) or (not seed_count and q[1] > 0):
            if stats[S_LINESOLVERS] >= end:
                # the queue lives in w (or fifo): resuming pops the same line next
                ctl[0], ctl[1], ctl[2], ctl[3] = l0, 1, head, tail
                return ST_PAUSED
            if seed_count:
                li = fifo[head]
                head += 1
            else:
                li = queue_pop(w)
            if unk[li] == 0:
                continue
            if step_limit > 0 and stats[S_LINESOLVERS] >= step_limit:
                ctl[0], ctl[1], ctl[2], ctl[3] = l0, 1, head, tail
                return ST_STOPPED
            t0 = stats[S_TLEN]
            r = apply_counted(li, ls_id, budget, net, w)
            if r == R_CONTRADICTION:
                ctl[0], ctl[1], ctl[2], ctl[3] = l0, 1, head, tail
                return ST_CONTRADICTION
            if r > 0:
                tail = _queue_unsolved_perpendicular(t0, stats[S_TLEN], li, net, w, seed_count, fifo,
                                                     tail)
                if ls_id != LS_DP and unk[li] > 0:
                    tail = _push(li, seed_count, fifo, tail, w)
        running = 0
        l0 += 1
        if n_unknown0 - stats[S_TLEN] == 0:
            ctl[0], ctl[1], ctl[2], ctl[3] = l0, 0, head, tail
            return ST_SOLVED
    ctl[0], ctl[1], ctl[2], ctl[3] = l0, 0, head, tail
    return ST_STALLED


# The heuristic's queue is an indexed max-heap (lineheap.py): higher priority first, then lower
# line index (a deterministic stand-in for the seed's re-sort of its queue).
def new_heuristic_queue(n_lines):
    """The heuristic's queue arrays, one per row: heap, pos, dirty, prio, bad (one allocation, one
    argument: a call costs less). Filled in by the kernel's first call."""
    return np.empty((5, n_lines), np.int64)


@njit
def heuristic(ls_id, budget, step_limit, seed_exit, n_unknown0, max_steps, net, w, ctl, hq):
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

    The queue lives in the caller's ``hq`` (``new_heuristic_queue``), rows ``heap``, ``pos``
    (a line's heap slot or -1), ``dirty``, ``prio``, ``bad`` (a line's bad guesses); the first call
    (``ctl[0] == 0``) fills them in, so they need no initial values.
    """
    heap, pos, dirty, prio, bad = hq[0], hq[1], hq[2], hq[3], hq[4]
    unk, stats, kinds, state, trail = w[2], w[7], net[2], w[0], w[1]
    cs, cl = net[5], net[6]
    n_lines = len(kinds)
    if ctl[0] == 0:
        size = 0
        n_dirty = 0
        for li in range(n_lines):
            bad[li] = 0
            prio[li] = 0
            if kinds[li] != 0 and unk[li] > 0:
                heap[size] = li
                pos[li] = size
                size += 1
                dirty[li] = 1
                n_dirty += 1
            else:
                pos[li] = -1
                dirty[li] = 0
        # all priorities are equal, so line order is already a valid heap
        consecutive_bad = 0
        ctl[0] = 1
    else:
        size, n_dirty, consecutive_bad = ctl[1], ctl[2], ctl[3]
    end = stats[S_LINESOLVERS] + max(max_steps, 1)
    status = -1
    while size > 0:
        status = stop_status(n_unknown0, stats, not seed_exit and n_dirty == 0, step_limit, end)
        if status >= 0:
            break
        li = heap[0]
        size = heap_remove(li, size, heap, pos, prio)
        if dirty[li]:
            dirty[li] = 0
            n_dirty -= 1
        t0 = stats[S_TLEN]
        r = apply_counted(li, ls_id, budget, net, w)
        if r == R_CONTRADICTION:
            status = ST_CONTRADICTION
            break
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
                        size = heap_remove(l2, size, heap, pos, prio)
                        continue
                    prio[l2] += inc
                    sift_up(pos[l2], heap, pos, prio)
                    if not dirty[l2]:
                        dirty[l2] = 1
                        n_dirty += 1
            if unk[li] > 0:
                prio[li] -= 2 * n_solid + n_empty
                size = heap_push(li, size, heap, pos, prio)
                if ls_id != LS_DP:
                    dirty[li] = 1
                    n_dirty += 1
            consecutive_bad = 0
        else:
            consecutive_bad += 1
            if seed_exit and consecutive_bad >= size:
                status = ST_STALLED
                break
            bad[li] += 1
            prio[li] -= bad[li]
            size = heap_push(li, size, heap, pos, prio)
    ctl[1], ctl[2], ctl[3] = size, n_dirty, consecutive_bad
    if status >= 0:
        return status
    if n_unknown0 - stats[S_TLEN] == 0:
        return ST_SOLVED
    return ST_STALLED
