"""A cheap first look for two solutions: depth-first search with line propagation only.

Probing every cell (``probe.py``) is what lets the ``full`` method classify difficulty and prune
hard searches, but on loosely constrained puzzles (3D count clues, hidden lines) one root probing
pass can cost seconds while a plain depth-first search finds two solutions in milliseconds. So
``full`` first runs this search under a budget of line-solver applications: two solutions settle
``multiple`` at once, an exhausted tree settles ``unique``/``none`` (probing then only decides the
difficulty), and a spent budget hands over to probing and the guided search unchanged.

Guess: the first unknown cell of the clued line with the fewest unknown cells (the most
constrained line), valued by what that line still needs (filled if more than half of its unknown
cells must be filled). Cell order or per-cell guesses were measured to need 10-1000x more nodes.
With a *known solution* (e.g. the voxel grid a 3D puzzle was made from) the value is the
solution's: the search then walks straight to it and backtracks from there, so a second
solution near it (the usual way a puzzle has several) is met after few guesses.

The kernel is resumable: ``quick_search`` stops after ``max_steps`` line-solver applications
(``Q_PAUSED``) with its stack in ``QuickState``, so the driver can report progress and honour
limits between chunks.
"""
from __future__ import annotations

from collections import namedtuple

import numpy as np

from ...model.cells import EMPTY, FILLED, UNKNOWN
from ...jit import njit
from .propagate import S_CHECKS, S_LINESOLVERS, S_TLEN, propagate_arrays, queue_push_arrays, set_cell_arrays, undo_arrays, check_all

# quick_search results
Q_PAUSED = 0       # max_steps spent; call again to go on
Q_TWO = 1          # enough solutions found for two distinct ones (in QuickState.sols)
Q_EXHAUSTED = 2    # the whole tree was searched: ctl[K_NSOL] (0 or 1) is the number of solutions

# Budget of the quick search, in line-solver applications: this many per
# unknown cell left by line solving plus QUICK_STEPS_PER_LINE per clued line, a few percent of
# one root probing pass (which costs ~2 probes x ~60 applications per unknown cell). Measured on
# blobs with 30% of clues hidden: 4x cells settled 24^3-36^3 in 10-200 ms, but a 64^3 one needed
# 14.6k applications for 3k unknown cells, hence the per-line term; 16x or 64x settled no more
# puzzles and made failing ones slower. It runs only on puzzles with 3D clues or hidden lines:
# with exact block lists everywhere a search without probing was measured to thrash (TAAI 2011:
# 50 of 53 puzzles that probing search could not settle in 2 s gave nothing in 200k guesses).
QUICK_STEPS_PER_CELL = 4
QUICK_STEPS_PER_LINE = 2
# With a known solution the quick search walks to it and searches around it (``quicksearch.py``),
# which pays on every kind of clue, so it runs for every puzzle with a larger budget.
QUICK_STEPS_PER_CELL_KNOWN = 64
# Colour puzzles (``search._Driver._quick_rounds``: the same depth-first search, nodes closed by the
# colour propagation) get it on every puzzle: a colour probe costs (k+1) propagations per cell, so
# root probing is dear, and a noisy picture of many solutions meets two in tens of guesses. On the
# 2D colour benchmark's noisy pictures and near-random grids (54 puzzles, least of 5 CPU runs
# each, 2026-12-03) 0 / 6 / 8 / 12 steps per cell gave 527-537 / 343 / 347-353 / 352 ms and
# 125-139 / 116 / 107-111 / 110 ms; at 8, 45 of the 54 settle in the quick search (one more by
# line logic; the other 8, which need thousands of guesses, pay the budget, then probe).
QUICK_COLOUR_STEPS_PER_CELL = 8

# ctl slots
K_SP = 0           # stack depth
K_NODES = 1        # guesses made
K_NSOL = 2         # solutions found (<= 2)
K_OK = 3           # 1: the current state is consistent and needs a guess; 0: backtrack
K_STARTED = 4
N_KTL = 6

QuickState = namedtuple("QuickState", "mark cell alt ctl sols")


def new_quick(n_cells: int) -> QuickState:
    return QuickState(np.zeros(n_cells + 1, np.int64), np.zeros(n_cells + 1, np.int64),
                      np.zeros(n_cells + 1, np.int8), np.zeros(N_KTL, np.int64),
                      np.zeros((2, n_cells), np.int8))


@njit(inline="always")
def _guess(ls, lc, kinds, cst, cd, state, unk):
    """(cell, value) to try next, or (-1, 0) when no clued line has an unknown cell."""
    best = -1
    best_u = 1 << 62
    for li in range(len(kinds)):
        u = unk[li]
        if kinds[li] != 0 and 0 < u < best_u:
            best_u = u
            best = li
            if u == 1:
                break
    if best < 0:
        return -1, np.int8(0)
    total = 0
    for k in range(cst[best], cst[best + 1]):
        total += cd[k]
    n_filled = 0
    c0 = -1
    for j in range(ls[best], ls[best + 1]):
        s = state[lc[j]]
        if s == FILLED:
            n_filled += 1
        elif s == UNKNOWN and c0 < 0:
            c0 = lc[j]
    v = FILLED if 2 * (total - n_filled) > best_u else EMPTY
    return c0, np.int8(v)


@njit(_nrt=False)
def quick_search(ls_id, budget, use_cache, n_target, want, max_steps, net, w, qs, known):
    """Search from the current (propagated, consistent) state; see the module docstring.

    Stops with Q_TWO once ``want`` (1 or 2) distinct solutions are found (the driver asks for 2:
    two solutions that differ on constrained cells prove difficulty ``search``). Solutions found
    are copied to ``qs.sols``. ``known``: int8 cell states of a known solution whose values are
    guessed first, or an empty array. The caller undoes the state to its own mark
    afterwards (the search leaves its last branch in place)."""
    mark, cell, alt, ctl, sols = qs[0], qs[1], qs[2], qs[3], qs[4]
    # propagate.py's calling convention: tuples unpacked once, helpers inlined
    ls, lc, kinds, cst, cd, cs, cl = net[0], net[1], net[2], net[3], net[4], net[5], net[6]
    state, trail, unk, q, inq, buf_in, buf_out, stats = w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7]
    ckeys, cstate, cout, slots, words = w[8], w[9], w[10], w[11][0], w[12]
    steps0 = stats[S_LINESOLVERS] + stats[S_CHECKS]
    if ctl[K_STARTED] == 0:
        ctl[K_STARTED] = 1
        ctl[K_OK] = 1
    while True:
        if stats[S_LINESOLVERS] + stats[S_CHECKS] - steps0 >= max_steps:
            return Q_PAUSED
        if ctl[K_OK] == 1 and stats[S_TLEN] == n_target:
            # every constrained cell is known: a solution when every line agrees
            if check_all(ls_id, budget, net, w):
                k = ctl[K_NSOL]
                for c in range(len(state)):
                    sols[k, c] = state[c]
                ctl[K_NSOL] = k + 1
                if k + 1 >= want:
                    return Q_TWO
            ctl[K_OK] = 0
        if ctl[K_OK] == 0:
            # backtrack to the deepest guess with a value left to try
            c = -1
            v = np.int8(0)
            while ctl[K_SP] > 0:
                sp = ctl[K_SP] - 1
                undo_arrays(mark[sp], state, trail, unk, stats, cs, cl, words)
                if alt[sp] != 0:
                    c = cell[sp]
                    v = alt[sp]
                    alt[sp] = 0
                    break
                ctl[K_SP] = sp
            if c < 0:
                return Q_EXHAUSTED
        else:
            c, v = _guess(ls, lc, kinds, cst, cd, state, unk)
            if c < 0:
                # no clued line has an unknown cell, yet constrained cells are unknown: cannot
                # happen (a constrained cell lies on a clued line); treat as a dead end
                ctl[K_OK] = 0
                continue
            if len(known) > 0:
                v = known[c]
            sp = ctl[K_SP]
            mark[sp] = stats[S_TLEN]
            cell[sp] = c
            alt[sp] = 3 - v
            ctl[K_SP] = sp + 1
            ctl[K_NODES] += 1
        set_cell_arrays(c, v, state, trail, stats, cs, cl, unk, words)
        for k in range(cs[c], cs[c + 1]):
            queue_push_arrays(cl[k], q, inq)
        ok = propagate_arrays(ls_id, budget, use_cache, ls, lc, kinds, cst, cd, cs, cl, state, trail, unk, q, inq,
                              stats, buf_in, buf_out, ckeys, cstate, cout, slots, words, None, None, None, None)
        ctl[K_OK] = 1 if ok else 0
