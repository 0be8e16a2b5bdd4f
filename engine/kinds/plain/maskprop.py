"""Line propagation on one shared net with a per-line "clue enabled" mask: the plain kind's kernels
for the design pipeline (``plainkind.PlainKind``, ``design/search.py``) and the difficulty score
(``grade.py``, ``model/difficulty.py``).

Every design trial asks "with these clues shown, does logic alone determine every cell?". The
net (``propagate.build_net``) is built once from the full clue set of the solution; a trial only
flips bytes of ``enabled`` (one per line) and propagates, so no Python puzzle is built per trial.
A line whose clue is disabled is never queued and never solved.

Why a propagation from any state those lines reach is enough, and why one pass of trials is
enough: with complete line solvers propagation reaches the same fixpoint whatever the order lines
are taken in, and a fixpoint that knows every cell is the puzzle's only solution (every step was a
sound deduction, and the grid the clues were made from satisfies them all). Hiding clues only
removes deductions, so what a trial learns is monotone in the shown set: a clue that could not be
hidden once cannot be hidden later either. ``contrib[li]`` counts the cells line ``li`` deduced in
the last run: a run that solved the puzzle without a deduction by ``li`` is still a valid run once
``li`` is hidden (the annealing move hides such lines).

Probing (logic level ``probe``) is the closure of line propagation under "assume a cell, and if
propagation then contradicts, the cell takes its other value; cells both assumptions agree on
take that value" (singleton consistency). Each rule is sound and monotone, so that closure too is
the same whatever the order and only shrinks when clues are hidden.
"""
from __future__ import annotations

from collections import namedtuple

import numpy as np

from ...model.cells import EMPTY, FILLED, UNKNOWN
from ...jit import njit
from ...lines.lineheap import heap_push, heap_remove, heap_update
from ...model.difficulty import R_DEDUCED, R_PROBE, R_UNKNOWN
from .propagate import (LS_DP, N_STATS, S_LINESOLVERS, S_PROBES, S_TLEN, Work, line_ok, linesolve_arrays, new_work,
                        propagate_arrays, queue_clear_arrays, queue_line, queue_push_arrays, set_cell_arrays, sync_masks,
                        undo_arrays)

# ctl slots: propagate's stats (``propagate_arrays`` counts in them), then the design's own
M_TLEN = S_TLEN           # cells known (trail length)
M_APPS = S_LINESOLVERS    # line-solver applications, all runs since the work was made
M_PROBES = S_PROBES       # probe propagations
M_RUNS = N_STATS          # propagation runs
M_STAMP = N_STATS + 1     # probe stamp (commons of a cell's two probes)
N_MCTL = N_STATS + 2

# run results
RUN_CONTRADICTION = -1
RUN_STALLED = 0
RUN_SOLVED = 1
RUN_BUDGET = 2   # probing stopped: its budget of line-solver applications was spent

MaskWork = namedtuple("MaskWork", Work._fields + ("contrib", "pos", "seen_stamp", "seen_val", "pbuf"))


def new_mask_work(net) -> MaskWork:
    """The kernels' scratch: the solver's ``Work`` (no line cache; ``stats`` with the design's
    slots, the ``M_*`` above), cells each line deduced, heap slots, a probe's scratch."""
    n_lines, n_cells = len(net.clue_kind), len(net.cell_start) - 1
    return MaskWork(*new_work(net)._replace(stats=np.zeros(N_MCTL, np.int64)), np.zeros(n_lines, np.int64),
                    np.full(n_lines, -1, np.int64), np.zeros(n_cells, np.int64), np.zeros(n_cells, np.int8),
                    np.zeros(n_cells, np.int64))


# ---------------------------------------------------------------------------------------------
# helpers on plain arrays (propagate.py's calling convention: inlined, tuples unpacked by callers)


@njit(shared=True)
def _solve_into(li, ls, lc, kinds, cst, cd, state, buf_in, buf_out, words):
    """Line solve of li on the current state; 0 ok (result in buf_out), else a contradiction."""
    s = ls[li]
    n = ls[li + 1] - s
    for j in range(n):
        buf_in[j] = state[lc[s + j]]
    return linesolve_arrays(LS_DP, None, kinds[li], cd, cst[li], cst[li + 1], buf_in, buf_out, n, words)


@njit(inline="always")
def _mprop(enabled, ls, lc, kinds, cst, cd, cs, cl, state, trail, unk, q, inq, buf_in, buf_out, words, contrib, ctl):
    """The dirty lines over enabled lines to a fixpoint: the solver's ``propagate_arrays`` with
    the mask and no cache; False on a contradiction."""
    return propagate_arrays(LS_DP, None, False, ls, lc, kinds, cst, cd, cs, cl, state, trail, unk, q, inq, ctl, buf_in,
                            buf_out, None, None, None, 0, words, enabled, contrib, None, None)


# ---------------------------------------------------------------------------------------------
# runs


@njit
def reset(net, mw):
    """All cells unknown, nothing queued, no line has deduced anything."""
    ls, state, unk, q, inq, contrib, ctl = net[0], mw[0], mw[2], mw[3], mw[4], mw[13], mw[7]
    state[:] = UNKNOWN
    for li in range(len(unk)):
        unk[li] = ls[li + 1] - ls[li]
    # the word lines' masks follow the state (propagate.py's ``sync_masks``)
    sync_masks(ls, net[1], net[2], net[5], net[6], net[7], state, mw[12])
    queue_clear_arrays(q, inq)
    inq[:] = 0
    contrib[:] = 0
    ctl[M_TLEN] = 0


@njit
def run_lines(net, enabled, mw):
    """Propagate every enabled line from an all-unknown grid: RUN_SOLVED (every cell known),
    RUN_STALLED or RUN_CONTRADICTION. ``mw.contrib`` then holds each line's deductions."""
    ls, lc, kinds, cst, cd, cs, cl = net[0], net[1], net[2], net[3], net[4], net[5], net[6]
    state, trail, unk, q, inq, buf_in, buf_out, words, contrib, ctl = \
        mw[0], mw[1], mw[2], mw[3], mw[4], mw[5], mw[6], mw[12], mw[13], mw[7]
    reset(net, mw)
    ctl[M_RUNS] += 1
    for li in range(len(kinds)):
        if enabled[li] and kinds[li] != 0:
            queue_push_arrays(li, q, inq)
    if not _mprop(enabled, ls, lc, kinds, cst, cd, cs, cl, state, trail, unk, q, inq, buf_in, buf_out,
                  words, contrib, ctl):
        return RUN_CONTRADICTION
    return RUN_SOLVED if ctl[M_TLEN] == len(state) else RUN_STALLED


@njit
def run_prio(net, enabled, key, mw):
    """``run_lines`` taking the dirty line of highest ``key`` first: a line of low key is only
    solved when no line of higher key can deduce anything, so the run leans on the high keys and
    low-key lines that end with ``contrib == 0`` were not needed."""
    ls, lc, kinds, cst, cd, cs, cl = net[0], net[1], net[2], net[3], net[4], net[5], net[6]
    state, trail, unk, q, inq, buf_in, buf_out, words, contrib, ctl, pos = \
        mw[0], mw[1], mw[2], mw[3], mw[4], mw[5], mw[6], mw[12], mw[13], mw[7], mw[14]
    reset(net, mw)
    ctl[M_RUNS] += 1
    for li in range(len(kinds)):
        if kinds[li] != 0:
            queue_line(li, q, inq, ctl, enabled, pos, key)
    if not propagate_arrays(LS_DP, None, False, ls, lc, kinds, cst, cd, cs, cl, state, trail, unk, q, inq, ctl, buf_in,
                            buf_out, None, None, None, 0, words, enabled, contrib, pos, key):
        return RUN_CONTRADICTION
    return RUN_SOLVED if ctl[M_TLEN] == len(state) else RUN_STALLED


@njit(shared=True)
def probe_cell(p, net, enabled, mw):
    """Assume cell p filled, then empty, propagating enabled lines each time; the state is
    restored. What both assumptions agree on (or the value the other one forces, when one
    contradicts) goes to ``mw.pbuf`` as 2*cell + (1 if filled); returns how many, or -1 when
    both contradict (the state itself is contradictory)."""
    ls, lc, kinds, cst, cd, cs, cl = net[0], net[1], net[2], net[3], net[4], net[5], net[6]
    state, trail, unk, q, inq, buf_in, buf_out, words, contrib, ctl = \
        mw[0], mw[1], mw[2], mw[3], mw[4], mw[5], mw[6], mw[12], mw[13], mw[7]
    seen_stamp, seen_val, pbuf = mw[15], mw[16], mw[17]
    mark = ctl[M_TLEN]
    ok1 = True
    n_common = 0
    ctl[M_STAMP] += 1
    stamp = ctl[M_STAMP]
    for side in range(2):
        v = FILLED if side == 0 else EMPTY
        ctl[M_PROBES] += 1
        set_cell_arrays(p, v, state, trail, ctl, cs, cl, unk, words)
        for k in range(cs[p], cs[p + 1]):
            if enabled[cl[k]]:
                queue_push_arrays(cl[k], q, inq)
        ok = _mprop(enabled, ls, lc, kinds, cst, cd, cs, cl, state, trail, unk, q, inq, buf_in,
                    buf_out, words, contrib, ctl)
        if side == 0:
            ok1 = ok
            if ok:
                for t in range(mark + 1, ctl[M_TLEN]):
                    c = trail[t]
                    seen_stamp[c] = stamp
                    seen_val[c] = state[c]
        elif not ok and not ok1:
            n_common = -1
        elif ok and ok1:
            for t in range(mark + 1, ctl[M_TLEN]):
                c = trail[t]
                if seen_stamp[c] == stamp and seen_val[c] == state[c]:
                    pbuf[n_common] = 2 * c + (1 if state[c] == FILLED else 0)
                    n_common += 1
        else:
            pbuf[0] = 2 * p + (1 if ok1 else 0)  # the value that did not contradict
            n_common = 1
        undo_arrays(mark, state, trail, unk, ctl, cs, cl, words)
    return n_common


@njit
def probe_closure(net, enabled, cover, mw, max_apps):
    """From a line-propagation fixpoint (``run_lines`` just returned RUN_STALLED), probe to the
    closure: RUN_SOLVED, RUN_STALLED, RUN_CONTRADICTION, or RUN_BUDGET once about ``max_apps``
    line-solver applications were spent (a trial that ran out is not a proof either way).
    Cells with no enabled line (``cover`` 0) are never probed: nothing can decide them."""
    ls, lc, kinds, cst, cd, cs, cl = net[0], net[1], net[2], net[3], net[4], net[5], net[6]
    state, trail, unk, q, inq, buf_in, buf_out, words, contrib, ctl = \
        mw[0], mw[1], mw[2], mw[3], mw[4], mw[5], mw[6], mw[12], mw[13], mw[7]
    pbuf = mw[17]
    n = len(state)
    apps0 = ctl[M_APPS]
    idle = 0
    p = 0
    while idle < n:
        if ctl[M_TLEN] == n:
            return RUN_SOLVED
        if ctl[M_APPS] - apps0 >= max_apps:
            return RUN_BUDGET
        c0 = p
        p = p + 1 if p + 1 < n else 0
        if state[c0] != UNKNOWN or cover[c0] == 0:
            idle += 1
            continue
        n_common = probe_cell(c0, net, enabled, mw)
        if n_common < 0:
            return RUN_CONTRADICTION
        if n_common == 0:
            idle += 1
            continue
        idle = 0
        for k in range(n_common):
            c = pbuf[k] >> 1
            if state[c] == UNKNOWN:
                set_cell_arrays(c, FILLED if (pbuf[k] & 1) else EMPTY, state, trail, ctl, cs, cl, unk, words)
                for kk in range(cs[c], cs[c + 1]):
                    if enabled[cl[kk]]:
                        queue_push_arrays(cl[kk], q, inq)
        if not _mprop(enabled, ls, lc, kinds, cst, cd, cs, cl, state, trail, unk, q, inq, buf_in, buf_out,
                      words, contrib, ctl):
            return RUN_CONTRADICTION
    return RUN_SOLVED if ctl[M_TLEN] == n else RUN_STALLED


# ---------------------------------------------------------------------------------------------
# the informed start's gains


@njit(inline="always")
def _gain(li, ls, lc, kinds, cst, cd, state, buf_in, buf_out, words):
    """Cells line li would deduce from the current state (-1: it contradicts)."""
    if _solve_into(li, ls, lc, kinds, cst, cd, state, buf_in, buf_out, words) != 0:
        return -1
    g = 0
    for j in range(ls[li + 1] - ls[li]):
        if (buf_out[j] & buf_in[j]) != buf_in[j]:
            g += 1
    return g


# ---------------------------------------------------------------------------------------------
# steps of the design pipeline (``design/search.py``): on plain arrays, as Python calls them once
# per step of a pass or of the informed start (a kernel taking the ``net`` and ``MaskWork``
# tuples pays ~10 us per call to unpack them)


@njit
def prop_step(lines, undo_to, enabled, ls, lc, kinds, cst, cd, cs, cl, state, trail, unk, q, inq, buf_in,
              buf_out, words, contrib, ctl):
    """Undo the trail back to ``undo_to`` (when >= 0), then propagate from the state with the
    enabled ones of ``lines`` queued: the trail length (cells known), or -1 on a contradiction."""
    if undo_to >= 0:
        undo_arrays(undo_to, state, trail, unk, ctl, cs, cl, words)
    for li in lines:
        if enabled[li]:
            queue_push_arrays(li, q, inq)
    if not _mprop(enabled, ls, lc, kinds, cst, cd, cs, cl, state, trail, unk, q, inq, buf_in, buf_out,
                  words, contrib, ctl):
        return -1
    return ctl[M_TLEN]


def new_gains(n_lines: int) -> tuple:
    """The informed start's gains: per line its count (-1 = to compute), the lines to compute
    (all at first), sizes in ``ctl`` (lines to compute, heap size), and an indexed max-heap
    (``lineheap``: lines, slots, priorities count + key) of the lines with a count > 0."""
    return (np.full(n_lines, -1, np.int64), np.arange(n_lines, dtype=np.int64), np.array([n_lines, 0], np.int64),
            np.zeros(n_lines, np.int64), np.full(n_lines, -1, np.int64), np.zeros(n_lines, np.float64))


@njit(inline="always")
def mark_dirty(cells, frm, to, cs, cl, gain, dirty, gctl):
    """The gains of the lines through ``cells[frm:to]`` (a trail's changes) are to be computed
    again: each goes on ``dirty`` once (its gain -1 until then). A line already -1 is on it, or
    was passed over for good (``best_gain``)."""
    nd = gctl[0]
    for t in range(frm, to):
        c = cells[t]
        for k in range(cs[c], cs[c + 1]):
            lj = cl[k]
            if gain[lj] != -1:
                gain[lj] = -1
                dirty[nd] = lj
                nd += 1
    gctl[0] = nd


@njit(inline="always")
def top_gain(key, gain, dirty, gctl, heap, pos, prio, shown):
    """Every kind's informed start after it counted the lines of ``dirty`` again into ``gain``
    (-1: passed over for good, never counted again): their heap entries updated, the top line,
    or -1 when no line's count is > 0. The rule: the most cells, ties broken by ``key``, then by
    the lower line index (the heap's order). A line's cells change before it is decided, and the
    line shown changes its own cells, so both come back through ``dirty``; a top shown since is
    dropped all the same."""
    hn = gctl[1]
    for t in range(gctl[0]):
        li = dirty[t]
        g = gain[li]
        if g > 0:
            prio[li] = g + key[li]
            if pos[li] >= 0:
                heap_update(li, hn, heap, pos, prio)
            else:
                hn = heap_push(li, hn, heap, pos, prio)
        elif pos[li] >= 0:
            hn = heap_remove(li, hn, heap, pos, prio)
    gctl[0] = 0
    while hn > 0 and shown[heap[0]]:
        hn = heap_remove(heap[0], hn, heap, pos, prio)
    gctl[1] = hn
    return heap[0] if hn > 0 else -1


@njit
def best_gain(key, gain, dirty, gctl, heap, pos, prio, enabled, ls, lc, kinds, cst, cd, state, unk, buf_in,
              buf_out, words, ctl):
    """The hidden clued line one application of which, on the current state, deduces the most
    cells (``gain``, plus ``key`` to break ties), or -1 when none deduces anything (a
    contradiction counts as nothing). The lines of ``dirty`` (``new_gains``) are counted again
    and ``top_gain`` keeps the heap: a step costs the lines its cells touched, not a look at
    every line (the informed start's time at 96^3 was mostly that look). A hidden line stays
    hidden-or-shown and decided cells stay decided through the start, so a line passed over
    (shown, fully known, unclued) is passed over for good."""
    for t in range(gctl[0]):
        li = dirty[t]
        if not (enabled[li] or unk[li] == 0 or kinds[li] == 0):  # else passed over (-1) for good
            ctl[M_APPS] += 1
            gain[li] = max(_gain(li, ls, lc, kinds, cst, cd, state, buf_in, buf_out, words), 0)
    return top_gain(key, gain, dirty, gctl, heap, pos, prio, enabled)


@njit
def show_line(li, gain, dirty, gctl, enabled, ls, lc, kinds, cst, cd, cs, cl, state, trail, unk, q, inq, buf_in,
              buf_out, words, contrib, ctl):
    """Show line ``li`` and propagate from the state; the gains of the lines through the cells it
    changed are to be computed again (-1, on ``dirty``). False on a contradiction."""
    mark = ctl[M_TLEN]
    enabled[li] = 1
    queue_push_arrays(li, q, inq)
    if not _mprop(enabled, ls, lc, kinds, cst, cd, cs, cl, state, trail, unk, q, inq, buf_in, buf_out,
                  words, contrib, ctl):
        return False
    mark_dirty(trail, mark, ctl[M_TLEN], cs, cl, gain, dirty, gctl)
    return True


# ---------------------------------------------------------------------------------------------
# rounds: the order-independent logical solve the difficulty score is read from

# round_stats columns: ``model.difficulty.R_*``


@njit(inline="always")
def narrow(c, v, t, snap, new, cost, changed, nch):
    """One deduction of a synchronous round, for every kind (cells as masks: the plain codes are
    the 1-colour masks): cell ``c`` narrowed to ``v`` against the round's snapshot ``snap``, the
    result ANDed into ``new``, by a technique of cost ``t``. ``changed`` lists the cells the round
    changed (``nch`` so far), ``cost`` their cheapest technique in it. Returns the new ``nch``,
    or -1 when the cell has no value left."""
    nv = new[c] & v
    if nv == 0:
        return -1
    if new[c] == snap[c]:
        changed[nch] = c
        nch += 1
        cost[c] = t
    elif t < cost[c]:
        cost[c] = t
    new[c] = nv
    return nch


@njit
def end_round(r, nch, is_probe, unknown, new, changed, enabled, cs, cl, dirty, dflag, cell_round,
              round_stats):
    """After round ``r`` changed the cells ``changed[:nch]`` (to ``new``), for every kind: the round
    of each cell it decided, its ``round_stats`` row (``unknown``: undecided cells at its start),
    and the enabled lines through a changed cell (``dirty``, flagged in ``dflag``: the next round's
    lines, which clears the flags); returns how many."""
    nd = 0
    d = 0
    for k in range(nch):
        c = changed[k]
        if new[c] & (new[c] - 1) == 0:
            cell_round[c] = r
            d += 1
        for kk in range(cs[c], cs[c + 1]):
            li = cl[kk]
            if enabled[li] and not dflag[li]:
                dflag[li] = 1
                dirty[nd] = li
                nd += 1
    round_stats[r, R_UNKNOWN] = unknown
    round_stats[r, R_DEDUCED] = d
    round_stats[r, R_PROBE] = is_probe
    return nd


@njit
def rounds(net, enabled, cover, mw, probe, line_cost, probe_cost, cell_round, cell_cost, round_stats):
    """Synchronous (Jacobi) rounds: in each, every line whose cells changed in the previous round
    is solved against the same snapshot, and their deductions are applied together; when no line
    deduces anything and ``probe`` is set, a probing round does the same with every unknown cell
    probed against the snapshot. Nothing depends on the order lines are stored in.

    Writes per cell the round it was deduced in (-1 never) and the cheapest technique cost that
    deduced it (``line_cost`` of a line, or ``probe_cost``), and per round ``round_stats``.
    Returns (RUN_* status, number of rounds)."""
    ls, lc, kinds, cst, cd, cs, cl = net[0], net[1], net[2], net[3], net[4], net[5], net[6]
    state, trail, unk, _q, _inq, buf_in, buf_out, words, _contrib, ctl = \
        mw[0], mw[1], mw[2], mw[3], mw[4], mw[5], mw[6], mw[12], mw[13], mw[7]
    pbuf = mw[17]
    n = len(state)
    n_lines = len(kinds)
    reset(net, mw)
    cell_round[:] = -1
    cell_cost[:] = 0
    newv = state.copy()
    changed = np.empty(n, np.int64)
    dirty = np.empty(n_lines, np.int64)
    dflag = np.zeros(n_lines, np.uint8)
    nd = 0
    for li in range(n_lines):
        if enabled[li] and kinds[li] != 0:
            dirty[nd] = li
            nd += 1
    r = 0
    while ctl[M_TLEN] < n:
        nch = 0
        for d in range(nd):
            li = dirty[d]
            dflag[li] = 0
            if unk[li] == 0:
                if not line_ok(li, ls, lc, kinds, cst, cd, state):
                    return RUN_CONTRADICTION, r
                continue
            ctl[M_APPS] += 1
            if _solve_into(li, ls, lc, kinds, cst, cd, state, buf_in, buf_out, words) != 0:
                return RUN_CONTRADICTION, r
            s = ls[li]
            for j in range(ls[li + 1] - s):
                v = buf_out[j] & buf_in[j]
                if v != buf_in[j]:
                    nch = narrow(lc[s + j], v, line_cost[li], state, newv, cell_cost, changed, nch)
                    if nch < 0:
                        return RUN_CONTRADICTION, r
        is_probe = 0
        if nch == 0:
            if not probe:
                break
            is_probe = 1
            for p in range(n):
                if state[p] != UNKNOWN or cover[p] == 0:
                    continue
                m = probe_cell(p, net, enabled, mw)
                if m < 0:
                    return RUN_CONTRADICTION, r
                for k in range(m):
                    nch = narrow(pbuf[k] >> 1, FILLED if (pbuf[k] & 1) else EMPTY, probe_cost, state, newv, cell_cost,
                                 changed, nch)
                    if nch < 0:
                        return RUN_CONTRADICTION, r
            if nch == 0:
                break
        unknown = n - ctl[M_TLEN]
        for k in range(nch):
            set_cell_arrays(changed[k], newv[changed[k]], state, trail, ctl, cs, cl, unk, words)
        nd = end_round(r, nch, is_probe, unknown, newv, changed, enabled, cs, cl, dirty, dflag, cell_round,
                       round_stats)
        r += 1
    return (RUN_SOLVED if ctl[M_TLEN] == n else RUN_STALLED), r


def cover_of(net, enabled) -> np.ndarray:
    """Number of enabled lines through each cell (int64), for any kind's net."""
    return _cover(np.asarray(net.line_start, np.int64), np.asarray(net.line_cells, np.int64),
                  np.asarray(enabled, np.uint8), len(net.cell_start) - 1)


@njit(cache=True)
def _cover(line_start, line_cells, enabled, n_cells):
    # a kernel: numpy's repeat and bincount cost a tenth of a small colour puzzle's solve (#40)
    out = np.zeros(n_cells, np.int64)
    for li in range(enabled.shape[0]):
        if enabled[li]:
            for j in range(line_start[li], line_start[li + 1]):
                out[line_cells[j]] += 1
    return out
