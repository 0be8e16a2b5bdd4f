"""Probing (the LalaFrogKK paper's FP2, section III-B) on top of ``propagate.py``.

For an unknown cell p, set p filled and propagate, then set p empty and propagate (each probe is
undone through the trail afterwards):
- both contradict: the current state has no solution;
- one contradicts: p takes the other value;
- otherwise every cell known with the same value after both probes is fixed.

FP2's pixel relations: a probe p=v that makes q=w proves the implication (p=v -> q=w) and so its
contrapositive (q=!w -> p=!v). The contrapositives are stored per literal (a cell and a value) and
applied whenever that literal becomes true inside a probe or in the main state, so later probes
start stronger; a cell that gains a relation is probed again. Relations are only valid for the
state they were derived in and its extensions, so ``reset_relations`` is called whenever the
search backtracks past that state. The store is bounded (``max_edges``); once full, new relations
are dropped, which only makes probing weaker, never wrong. Duplicates are filtered by a hashed set.

Each probe's outcome is kept (``_store``); with the complete DP, propagation is
confluent, so after the main state gains cells D a cell whose two outcomes already contain D,
or whose probes touched no line through a cell of D, would probe the same again and is skipped
(``mark_affected``). Cells next to known cells are
probed first: they are the likeliest to contradict.

Work is chunked: ``probe_round`` stops after about ``max_steps`` line-solver applications and
resumes from its cursor, so the Python caller can report progress and honour cancellation.
"""
from __future__ import annotations

from collections import namedtuple

import numpy as np

from ...model.cells import EMPTY, FILLED, UNKNOWN
from ...jit import njit
from .propagate import (LS_DP, S_CHECKS, S_EDGES, S_LINESOLVERS, S_PROBES, S_TLEN, queue_clear_arrays, propagate_arrays,
                        queue_push_arrays, set_cell_arrays, undo_arrays, satisfies_all)

# probe_round results
P_FIXPOINT = 0
P_PAUSED = 1
P_CONTRADICTION = 2
P_SOLVED = 3

# ctl slots
C_CURSOR = 0
C_IDLE = 1        # cells scanned in a row without finding one to probe
C_EPOCH = 2       # cells probed before this epoch must be probed again (new node, or a change
                  # when outcomes are not kept, i.e. with the seed linesolver)
C_GEN = 3         # generation of the relation store (stale entries are ignored)
C_NEDGES = 4
C_STAMP = 5
C_CHANGED = 6     # cells the probing fixed in the main state
C_NSOLS = 7       # complete solutions met inside probes (kept in Probe.sols, at most 2)
C_TIER = 8        # 0: only cells next to a known cell along a line are probed; 1: all cells
C_MAX_TIER = 9    # 1: probe to the full fixpoint; 0: stop once no cell next to a known one is left
C_POOL = 10       # entries used in Probe.pool
C_HOT = 12        # stamp of Probe.hot: cells on a line that changed in the last mark_affected
C_PGEN = 13       # times the outcome pool was emptied (a saved outcome store is stale after it)
N_CTL = 14

Probe = namedtuple("Probe", "probed_epoch needs cnt head nxt tgt hkeys hgen seen_stamp seen_val "
                            "buf ctl sols pool lit_start lit_len hot")

DEFAULT_MAX_EDGES = 1 << 21
# Probe outcomes (the cells, with values, a probe made known) are kept as runs in a pool
# of this many entries per cell (at most 1 << 24): then a change of the main state re-probes
# only the cells whose outcomes it can change, instead of all of them. When the pool fills up
# it is emptied, and cells whose outcome was dropped are probed again at the next change.
POOL_PER_CELL = 64


def new_probe(n_cells: int, max_edges: int = DEFAULT_MAX_EDGES,
              pool_per_cell: int = POOL_PER_CELL) -> Probe:
    max_edges = max(int(max_edges), 16)
    hslots = 1 << (2 * max_edges - 1).bit_length()
    pool = int(min(max(pool_per_cell * n_cells, 1 << 12), 1 << 24))
    return Probe(np.full(n_cells, -1, np.int64), np.zeros(n_cells, np.uint8),
                 np.full(2 * n_cells, -1, np.int64), np.full(2 * n_cells, -1, np.int32),
                 np.zeros(max_edges, np.int32), np.zeros(max_edges, np.int32),
                 np.zeros(hslots, np.int64), np.zeros(hslots, np.int32),
                 np.zeros(n_cells, np.int64), np.zeros(n_cells, np.int8),
                 np.zeros(n_cells, np.int64), np.zeros(N_CTL, np.int64),
                 np.zeros((2, n_cells), np.int8), np.zeros(pool, np.int64),
                 np.zeros(2 * n_cells, np.int64), np.full(2 * n_cells, -1, np.int64),
                 np.zeros(n_cells, np.int64))


@njit
def _lit(c, v):
    return 2 * c + (1 if v == FILLED else 0)


@njit
def reset_relations(pr, new_epoch):
    """Forget every stored relation; with ``new_epoch`` forget the probe outcomes too (both were
    derived under assumptions now withdrawn). A child node of the search keeps the outcomes:
    they stay true in every extension of the state they were found in."""
    head = pr[3]
    for i in range(len(head)):  # a loop: slice assignment costs seconds of compile time
        head[i] = -1
    pr[11][C_GEN] += 1
    pr[11][C_NEDGES] = 0
    if new_epoch:
        pr[11][C_EPOCH] += 1


@njit(inline="always")
def _add_rel(src, dst, ctl, head, nxt, tgt, hkeys, hgen):
    """Store src -> dst (literals) unless known or the store is full. True when stored."""
    ne = ctl[C_NEDGES]
    if ne >= len(nxt):
        return False
    gen = np.int32(ctl[C_GEN] & 0x7FFFFFFF)
    key = src * 4294967296 + dst + 1
    mask = len(hkeys) - 1
    h = np.uint64(key) * np.uint64(11400714819323198485)
    i = np.int64(h >> np.uint64(40)) & mask
    while True:
        if hgen[i] != gen or hkeys[i] == 0:
            break
        if hkeys[i] == key:
            return False
        i = (i + 1) & mask
    hkeys[i] = key
    hgen[i] = gen
    nxt[ne] = head[src]
    tgt[ne] = dst
    head[src] = ne
    ctl[C_NEDGES] = ne + 1
    return True


def relation_literals(pr):
    """The relations stored now, as arrays (src, dst) of literals (2 * cell + 1 for filled, 2 *
    cell for empty): src true implies dst true in the state they were derived in and in every
    extension of it. Read from the store's hashed set (the entries of the current generation)."""
    gen = int(pr.ctl[C_GEN]) & 0x7FFFFFFF
    keys = pr.hkeys[(pr.hgen == gen) & (pr.hkeys != 0)]
    return keys >> 32, (keys & 0xFFFFFFFF) - 1


# The kernels below follow propagate.py's calling convention: plain arrays, inlined helpers,
# tuples unpacked once per entry. ``_close`` and ``_assume`` take propagate's arrays in
# ``propagate_arrays``'s order, then the relation store's.


@njit(shared=True, _nrt=False)
def _close(ls_id, budget, use_cache, t0, ls, lc, kinds, cst, cd, cs, cl, state, trail, unk, q, inq, stats,
           buf_in, buf_out, ckeys, cstate, cout, slots, words, head, nxt, tgt, ctl):
    t = t0
    while True:
        if not propagate_arrays(ls_id, budget, use_cache, ls, lc, kinds, cst, cd, cs, cl, state, trail, unk, q,
                                inq, stats, buf_in, buf_out, ckeys, cstate, cout, slots, words, None, None, None, None):
            return False
        t1 = stats[S_TLEN]
        if t == t1 or ctl[C_NEDGES] == 0:
            return True
        added = False
        while t < t1:
            c = trail[t]
            e = head[_lit(c, state[c])]
            while e >= 0:
                d = tgt[e]
                x = d >> 1
                v = FILLED if (d & 1) else EMPTY
                s = state[x]
                if s != v:
                    if s != UNKNOWN:
                        queue_clear_arrays(q, inq)
                        return False
                    set_cell_arrays(x, v, state, trail, stats, cs, cl, unk, words)
                    for k in range(cs[x], cs[x + 1]):
                        queue_push_arrays(cl[k], q, inq)
                    added = True
                e = nxt[e]
            t += 1
        if not added:
            return True
        t = t1


def close(ls_id, budget, use_cache, t0, net, w, pr):
    """Propagate lines and stored relations to a joint fixpoint, starting from the cells trailed
    since ``t0`` (their lines must already be queued). False on a contradiction.
    Plain Python over the compiled ``_close`` (a kernel wrapper would compile the line solvers
    once more)."""
    return _close(ls_id, budget, use_cache, t0, net[0], net[1], net[2], net[3], net[4], net[5], net[6],
                  w[0], w[1], w[2], w[3], w[4], w[7], w[5], w[6], w[8], w[9], w[10], w[11][0], w[12],
                  pr[3], pr[4], pr[5], pr[11])


@njit(inline="always")
def _assume(c, v, ls_id, budget, use_cache, ls, lc, kinds, cst, cd, cs, cl, state, trail, unk, q, inq,
            stats, buf_in, buf_out, ckeys, cstate, cout, slots, words, head, nxt, tgt, ctl):
    t0 = stats[S_TLEN]
    set_cell_arrays(c, v, state, trail, stats, cs, cl, unk, words)
    for k in range(cs[c], cs[c + 1]):
        queue_push_arrays(cl[k], q, inq)
    return _close(ls_id, budget, use_cache, t0, ls, lc, kinds, cst, cd, cs, cl, state, trail, unk, q, inq,
                  stats, buf_in, buf_out, ckeys, cstate, cout, slots, words, head, nxt, tgt, ctl)


@njit(_nrt=False)
def assume(c, v, ls_id, budget, use_cache, net, w, pr):
    """Set cell c to v and close; False on a contradiction (the cell stays trailed). One kernel
    (``_close`` is shared: the line solvers are not compiled into it again), so that a search
    node pays numba's dispatch once for it, not once for each of its steps."""
    return _assume(c, v, ls_id, budget, use_cache, net[0], net[1], net[2], net[3], net[4], net[5], net[6],
                   w[0], w[1], w[2], w[3], w[4], w[7], w[5], w[6], w[8], w[9], w[10], w[11][0], w[12],
                   pr[3], pr[4], pr[5], pr[11])


@njit
def _record_solution(net, w, pr):
    """A probe that leaves no constrained cell unknown is a solution (when every line agrees):
    keep up to two distinct ones, so a puzzle with several can be settled without search."""
    state, sols, ctl = w[0], pr[12], pr[11]
    if not satisfies_all(net, state):
        return
    k = ctl[C_NSOLS]
    if k >= 2:
        return
    if k == 1:
        same = True
        for c in range(len(state)):
            if state[c] != sols[0, c]:
                same = False
                break
        if same:
            return
    for c in range(len(state)):
        sols[k, c] = state[c]
    ctl[C_NSOLS] = k + 1


@njit(inline="always")
def _store(lit, mark, state, trail, tlen, pool, start, length, ctl):
    """Remember the cells (with values) a probe of ``lit`` made known: trail[mark:tlen], as a
    run of 2*cell+value codes in the pool, in trail order (``mark_affected`` counts a run's
    codes against the new cells, so no order is needed: sorting them cost ~15 % of a probe)."""
    m = tlen - mark
    if ctl[C_POOL] + m > len(pool):
        for i in range(len(length)):
            length[i] = -1
        ctl[C_POOL] = 0
        ctl[C_PGEN] += 1
        if m > len(pool):
            return
    a = ctl[C_POOL]
    for k in range(m):
        c = trail[mark + k]
        pool[a + k] = 2 * c + (1 if state[c] == FILLED else 0)
    start[lit] = a
    length[lit] = m
    ctl[C_POOL] = a + m


@njit
def mark_affected(t0, net, w, pr):
    """After the main state gained trail[t0:], flag the probed cells whose outcome may change.

    With a complete line solver propagation is confluent, so a probe of q is skipped when it
    would run the same again: either both of its outcomes already contain every new cell (with
    its value), or no line it touched (the lines through q and through the cells its outcomes
    hold, the only lines its propagation solved) gained a cell.
    """
    ls, lc, cs, cl = net[0], net[1], net[5], net[6]
    state, trail, t1 = w[0], w[1], w[7][S_TLEN]
    probed, needs, ctl = pr[0], pr[1], pr[11]
    seen_stamp, seen_val = pr[8], pr[9]
    pool, start, length, hot = pr[13], pr[14], pr[15], pr[16]
    epoch = ctl[C_EPOCH]
    ctl[C_HOT] += 1
    h = ctl[C_HOT]
    # the new cells and their values, stamped: an outcome holds them all when as many of its
    # codes match (a run's cells are distinct)
    ctl[C_STAMP] += 1
    stamp = ctl[C_STAMP]
    for t in range(t0, t1):
        c = trail[t]
        seen_stamp[c] = stamp
        seen_val[c] = state[c]
        for k in range(cs[c], cs[c + 1]):
            li = cl[k]
            for j in range(ls[li], ls[li + 1]):
                hot[lc[j]] = h
    for q in range(len(state)):
        if state[q] != UNKNOWN or needs[q] or probed[q] != epoch:
            continue
        if hot[q] != h:
            cold = True
            for lit in (2 * q, 2 * q + 1):
                m = length[lit]
                if m < 0:
                    cold = False
                    break
                a = start[lit]
                for i in range(a, a + m):
                    if hot[pool[i] >> 1] == h:
                        cold = False
                        break
                if not cold:
                    break
            if cold:
                continue
        for lit in (2 * q, 2 * q + 1):
            m = length[lit]
            if m < 0:
                needs[q] = 1
                break
            a = start[lit]
            held = 0
            for i in range(a, a + m):
                c = pool[i] >> 1
                if seen_stamp[c] == stamp and (seen_val[c] == FILLED) == ((pool[i] & 1) == 1):
                    held += 1
            if held < t1 - t0:
                needs[q] = 1
                break


@njit(inline="always")
def _near_known(c, ls, lc, cs, cl, cp, state):
    """Whether cell c has a known neighbour along one of its lines (or ends a line): probes
    there are the likeliest to contradict, so they go first."""
    for k in range(cs[c], cs[c + 1]):
        j = cp[k]
        li = cl[k]
        if j == ls[li] or j + 1 == ls[li + 1]:
            return True
        if state[lc[j - 1]] != UNKNOWN or state[lc[j + 1]] != UNKNOWN:
            return True
    return False


@njit(_nrt=False)
def probe_round(ls_id, budget, use_cache, n_unknown0, max_steps, net, w, pr):
    """Probe cells until no cell is worth probing (P_FIXPOINT), the state is contradictory,
    solved, or about ``max_steps`` line solver applications were spent (P_PAUSED)."""
    ls, lc, kinds, cst, cd, cs, cl, cp = net[0], net[1], net[2], net[3], net[4], net[5], net[6], net[7]
    state, trail, unk, q, inq, buf_in, buf_out, stats = w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7]
    ckeys, cstate, cout, slots, words = w[8], w[9], w[10], w[11][0], w[12]
    probed, needs, cnt, head, nxt, tgt, hkeys, hgen = pr[0], pr[1], pr[2], pr[3], pr[4], pr[5], pr[6], pr[7]
    seen_stamp, seen_val, buf, ctl = pr[8], pr[9], pr[10], pr[11]
    pool, start, length = pr[13], pr[14], pr[15]
    n = len(state)
    keep_outcomes = ls_id == LS_DP
    steps0 = stats[S_LINESOLVERS] + stats[S_CHECKS]
    while True:
        if n_unknown0 - stats[S_TLEN] == 0:
            return P_SOLVED
        if stats[S_LINESOLVERS] + stats[S_CHECKS] - steps0 >= max_steps:
            return P_PAUSED
        # next cell worth probing: first those near known cells, then any
        p = -1
        while True:
            while ctl[C_IDLE] < n:
                c = ctl[C_CURSOR]
                ctl[C_CURSOR] = c + 1 if c + 1 < n else 0
                if state[c] == UNKNOWN and (probed[c] < ctl[C_EPOCH] or needs[c]) \
                        and cs[c + 1] > cs[c] \
                        and (ctl[C_TIER] == 1 or _near_known(c, ls, lc, cs, cl, cp, state)):
                    p = c
                    ctl[C_IDLE] = 0
                    break
                ctl[C_IDLE] += 1
            if p >= 0 or ctl[C_TIER] >= ctl[C_MAX_TIER]:
                break
            ctl[C_TIER] = 1
            ctl[C_IDLE] = 0
        if p < 0:
            return P_FIXPOINT
        probed[p] = ctl[C_EPOCH]
        needs[p] = 0
        mark = stats[S_TLEN]
        ok1 = ok0 = False
        n1 = n0 = 0
        n_common = 0
        stamp = 0
        for side in range(2):  # p filled, then p empty
            v = FILLED if side == 0 else EMPTY
            stats[S_PROBES] += 1
            ok = _assume(p, v, ls_id, budget, use_cache, ls, lc, kinds, cst, cd, cs, cl, state, trail, unk,
                         q, inq, stats, buf_in, buf_out, ckeys, cstate, cout, slots, words, head, nxt, tgt,
                         ctl)
            if ok and n_unknown0 - stats[S_TLEN] == 0:
                _record_solution(net, w, pr)
            if side == 0:
                ok1 = ok
                n1 = stats[S_TLEN] - mark
                ctl[C_STAMP] += 1
                stamp = ctl[C_STAMP]
            else:
                ok0 = ok
                n0 = stats[S_TLEN] - mark
            if ok:
                if keep_outcomes:
                    _store(2 * p + (1 - side), mark, state, trail, stats[S_TLEN], pool, start, length, ctl)
                # contrapositive of (p=v -> c=x): (c=!x -> p=!v)
                not_p = _lit(p, EMPTY if side == 0 else FILLED)
                for t in range(mark + 1, stats[S_TLEN]):
                    c = trail[t]
                    if side == 0:
                        seen_stamp[c] = stamp
                        seen_val[c] = state[c]
                    elif ok1 and seen_stamp[c] == stamp and seen_val[c] == state[c]:
                        buf[n_common] = c
                        n_common += 1
                    # int8 as the other calls pass it: one signature of _lit
                    if _add_rel(_lit(c, np.int8(3 - state[c])), not_p, ctl, head, nxt, tgt, hkeys, hgen):
                        needs[c] = 1
                        stats[S_EDGES] += 1
                # the common cells' values: still in the state until the undo below
                for k in range(n_common):
                    c = buf[k]
                    buf[k] = 2 * c + (1 if state[c] == FILLED else 0)
            undo_arrays(mark, state, trail, unk, stats, cs, cl, words)
        cnt[2 * p + 1] = n1 if ok1 else -1
        cnt[2 * p] = n0 if ok0 else -1
        if not ok1 and not ok0:
            return P_CONTRADICTION
        if not ok1 or not ok0:
            # one value contradicts: p takes the other
            buf[0] = 2 * p + (0 if not ok1 else 1)
            n_common = 1
        if n_common > 0:
            t0 = stats[S_TLEN]
            ctl[C_CHANGED] += n_common
            for k in range(n_common):
                c = buf[k] >> 1
                if state[c] == UNKNOWN:
                    set_cell_arrays(c, FILLED if (buf[k] & 1) else EMPTY, state, trail, stats, cs, cl, unk, words)
                    for kk in range(cs[c], cs[c + 1]):
                        queue_push_arrays(cl[kk], q, inq)
            if not _close(ls_id, budget, use_cache, t0, ls, lc, kinds, cst, cd, cs, cl, state, trail, unk,
                          q, inq, stats, buf_in, buf_out, ckeys, cstate, cout, slots, words, head, nxt,
                          tgt, ctl):
                return P_CONTRADICTION
            if keep_outcomes:
                mark_affected(t0, net, w, pr)
            else:
                ctl[C_EPOCH] += 1
            ctl[C_TIER] = 0
            ctl[C_IDLE] = 0
