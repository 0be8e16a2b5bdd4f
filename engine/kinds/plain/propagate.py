"""Line propagation: the machinery the solvers of ``engine/kinds`` share (probing, search, colour).

A puzzle is turned into a ``Net``: a tuple of flat int64 arrays (the Puzzle's line CSR and clue
CSR, plus a cell -> lines CSR index) that numba kernels walk. Lines without a clue
(``KIND_NONE``) are left out of the cell -> lines index: they can never deduce anything, so they
are never queued and never count as linesolvers.

A ``Work`` tuple holds the mutable solver state shared by the kernels:
the cell states, a trail of cells in the order they became known (used both for the ``order``
the add-on animates and to undo probes and search branches), per-line unknown counts, a FIFO
queue of dirty lines, scratch line buffers, counters and the line-result cache.

Line solvers are picked by a small integer (``LS_DP`` the complete DP of ``linesolve.py``,
``LS_SEED`` the seed study's expansion solver of ``linesolve_seed.py``) and dispatched inside the
kernels, so every scheduler works with either without recompiling per call.
"""
from __future__ import annotations

from collections import namedtuple

import numpy as np

from ...model.cells import EMPTY, FILLED, UNKNOWN
from ...jit import njit
from ...lines.linebits import (COUNT_MAX_CELLS, COUNT_MAX_TOTAL, MAX_BITS, SCRATCH_WORDS, blocks_into, count_into,
                               line_words, reverse_bits)
from ...lines.lineheap import heap_push, heap_remove
from ...lines.linecount import count_intervals, solve_plain as _solve_plain
from ...lines.linesolve import solve_blocks_dp
from ...lines.linesolve_seed import SEED_DEFAULT_BUDGET, seed_solve_line
from ...model.puzzle import KIND_BLOCKS, KIND_CIRCLE, KIND_PLAIN, Puzzle

LS_DP = 0
LS_SEED = 1
LINESOLVERS = {"dp": LS_DP, "seed": LS_SEED}

# Apply results (besides a count of new cells >= 0).
R_CONTRADICTION = -1
R_TOO_LARGE = -2

# Counter slots in Work.stats.
S_TLEN = 0          # trail length
S_LINESOLVERS = 1   # applications to lines with an unknown cell (the seed's metric)
S_BAD = 2           # ... of which deduced nothing
S_TOO_LARGE = 3     # seed linesolver refused the line (counted as a bad guess too)
S_CHECKS = 4        # applications to fully known lines (consistency checks, not linesolvers)
S_CACHE_HITS = 5
S_CACHE_LOOKUPS = 6
S_PREPASS = 7       # pre-pass applications (not counted as linesolvers)
S_PROBES = 8        # probe propagations (both values of a cell count one each)
S_EDGES = 9         # stored FP2 contrapositive implications
S_STEP_CAP = 10     # propagate_arrays pauses (lines left queued) once linesolvers + checks reach it; 0: never
S_HEAPN = 11        # lines in the heap of a priority propagation (``propagate_arrays`` with a ``key``)
N_STATS = 12

Net = namedtuple("Net", "line_start line_cells clue_kind clue_start clue_data cell_start cell_lines cell_pos")
Work = namedtuple("Work", "state trail line_unknown queue inq buf_in buf_out stats "
                          "cache_keys cache_state cache_out cache_len words")

DEFAULT_SEED_BUDGET = SEED_DEFAULT_BUDGET
DEFAULT_CACHE_SLOTS = 1 << 14
# Memory of the line-result cache at most (fewer slots on lines over 512 cells): 16k slots of two
# 20,000-cell lines took 0.65 GB and 10 s to allocate before a puzzle's first line was solved.
CACHE_BYTES = 1 << 24


@njit
def cell_index(n_cells, line_start, line_cells, kinds):
    """Counting sort of (cell, line) pairs of clued lines (``kinds`` != 0): the cell -> lines CSR,
    in O(cells), with each pair's index into line_cells (so a cell's neighbours along its lines
    are at hand). The colour kind's net too (every line: an argsort was most of a 36^3 puzzle's
    set-up)."""
    start = np.zeros(n_cells + 1, np.int64)
    for li in range(len(kinds)):
        if kinds[li] != 0:
            for j in range(line_start[li], line_start[li + 1]):
                start[line_cells[j] + 1] += 1
    for c in range(n_cells):
        start[c + 1] += start[c]
    fill = start[:-1].copy()
    lines = np.empty(start[n_cells], np.int64)
    pos = np.empty(start[n_cells], np.int64)
    for li in range(len(kinds)):
        if kinds[li] != 0:
            for j in range(line_start[li], line_start[li + 1]):
                c = line_cells[j]
                lines[fill[c]] = li
                pos[fill[c]] = j
                fill[c] += 1
    return start, lines, pos


def build_net(puzzle: Puzzle) -> Net:
    """The puzzle's arrays for the kernels, with a cell -> clued-lines CSR index (in line order).

    No Python loop over cells or lines, so a designer calling the solver thousands of times pays
    little per call.
    """
    ls = np.ascontiguousarray(puzzle.line_start, dtype=np.int64)
    lc = np.ascontiguousarray(puzzle.line_cells, dtype=np.int64)
    kind = np.ascontiguousarray(puzzle.clue_kind, dtype=np.int64)
    cell_start, cell_lines, cell_pos = cell_index(int(puzzle.n_cells), ls, lc, kind)
    return Net(ls, lc, kind, np.ascontiguousarray(puzzle.clue_start, dtype=np.int64),
               np.ascontiguousarray(puzzle.clue_data, dtype=np.int64), cell_start, cell_lines, cell_pos)


@njit
def _line_unknowns(line_start, line_cells, state):
    out = np.zeros(len(line_start) - 1, np.int64)
    for li in range(len(out)):
        k = 0
        for j in range(line_start[li], line_start[li + 1]):
            if state[line_cells[j]] == UNKNOWN:
                k += 1
        out[li] = k
    return out


# Line-solver applications per kernel call of the drivers (probing, search) at first, before
# they adapt it to the measured time: enough that a call costs far more than the Python around
# it on ordinary lines, few enough that one call stays well under the ~0.05 s between limit
# checks on long ones.
FIRST_CHUNK = 2000
# Chunks grow (on cheap steps) up to this multiple of the first one and no further, as the next
# steps may be the costly ones (a 20,000-cell row after its one-cell columns).
CHUNK_GROWTH = 4


def first_chunk(net: Net) -> int:
    """``FIRST_CHUNK`` scaled down by the cost of the puzzle's costliest line application: a
    20,000-cell line takes ~2 ms where a 25-cell one takes ~0.2 us, and 2000 of them in one
    uninterruptible call overran a 1 s limit by 13 s."""
    lens = np.diff(net.line_start)
    clued = net.clue_kind != 0
    if not clued.any():
        return FIRST_CHUNK
    n = lens[clued].astype(np.float64)
    blocks = np.diff(net.clue_start)[clued]
    # word solvers up to 64 cells; long count clues O(n); long block lists O(n * blocks)
    cost = np.where(n <= 64, 64.0, np.where(net.clue_kind[clued] == KIND_BLOCKS, n * np.maximum(blocks, 1) / 4, n))
    return int(max(1, min(FIRST_CHUNK, FIRST_CHUNK * 64 // cost.max())))


def new_work(net: Net, state=None, cache_slots: int = 0) -> Work:
    """Fresh solver state; ``cache_slots`` > 0 enables the line-result cache (power of two)."""
    n_lines = len(net.clue_kind)
    n_cells = len(net.cell_start) - 1
    lens = np.diff(net.line_start)
    max_len = int(lens.max()) if len(lens) else 1
    st = np.full(n_cells, UNKNOWN, np.int8) if state is None else np.array(state, np.int8)
    unknown = _line_unknowns(net.line_start, net.line_cells, st)
    slots = int(cache_slots)
    if slots:
        slots = 1 << max(4, int(slots - 1).bit_length())
        # each slot stores two copies of the longest line: keep the table within CACHE_BYTES
        while slots > 16 and 2 * slots * max_len > CACHE_BYTES:
            slots >>= 1
    # with the cache, ``words`` carries the word cache of block lines after its scratch
    # (``_apply_words``): WORD_SLOT_WORDS words per slot, as many slots as the line cache; then,
    # always, the word lines' masks (``sync_masks``), last so that their place follows from the
    # array's length
    n_words = SCRATCH_WORDS + (WORD_SLOT_WORDS * slots if slots else 0) + mask_words(n_lines, len(net.cell_lines))
    w = Work(st, np.zeros(n_cells, np.int64), unknown, np.zeros(n_lines + 2, np.int64),
             np.zeros(n_lines, np.uint8), np.zeros(max_len, np.int8), np.zeros(max_len, np.int8),
             np.zeros(N_STATS, np.int64),
             np.full(max(slots, 1), -1, np.int64), np.zeros((max(slots, 1), max_len), np.int8),
             np.zeros((max(slots, 1), max_len), np.int8), np.zeros(1, np.int64) + slots,
             np.zeros(n_words, np.uint64))
    sync_masks(net[0], net[1], net[2], net[5], net[6], net[7], st, w[12])
    return w


# ---------------------------------------------------------------------------------------------
# kernels


# Calling convention of the hot path. numba counts references to arrays atomically, and every
# array reached through a tuple argument (``net``, ``w``, a probe's ``pr``) is counted again at
# each call of a kernel that takes the tuple, inlined or not: measured, ~120 ns per call with
# ``net`` and ``w`` against ~1 ns for an inlined helper taking plain arrays, which was most of
# a probe's time. So the per-cell and per-line helpers below take plain arrays and are inlined
# at numba level, and each kernel entry unpacks its tuples once (``_unpack``).
# Inlining at numba level copies the callee's IR into every call site, which costs compile time
# (seconds for the large ones): ``propagate_arrays`` and ``probe._close`` are compiled once and called
# (measured on TAAI and survey puzzles: no difference within the noise, for a third of the
# compile time), and the Python-facing wrappers ``propagate`` and ``probe.close`` are plain
# Python (before the two were shared kernels, a kernel wrapper compiled the line solvers once more:
# numba links a callee's code into each caller and optimizes it there). ``probe.assume``, which a
# search node calls, is a kernel over the shared ``_close``: one dispatch instead of four.
# The hot kernels (``propagate_arrays``, ``probe._close``, ``probe.probe_round``,
# ``quicksearch.quick_search``) run without numba's reference counting (``_nrt=False``): even
# with plain arrays, every inlined helper call counted each array it took up and down again (17
# atomic pairs per line application in ``_apply``), about a third of a probe's time; they
# allocate nothing, and the non-inlined kernels they reach return no arrays. numba compiles a
# callee under its caller's setting unless the callee says otherwise, so the line solvers
# that allocate (``solve_blocks_dp``, ``count_intervals``, ...) say ``_nrt=True``.


@njit(inline="always")
def _hash_line(kind, n, cd, c0, c1, buf):
    h = np.uint64(1469598103934665603) ^ np.uint64(kind * 31 + n)
    for j in range(c0, c1):
        h = (h ^ np.uint64(cd[j] + 7)) * np.uint64(1099511628211)
    for j in range(n):
        h = (h ^ np.uint64(buf[j])) * np.uint64(1099511628211)
    return h


@njit(inline="always")
def _same_key(li, other, ls, kinds, cs, cd, buf, stored, slot, n):
    """Whether cache entry ``other`` (a line index + stored state) matches line ``li``'s key."""
    if ls[other + 1] - ls[other] != n or kinds[other] != kinds[li]:
        return False
    a0, a1, b0 = cs[li], cs[li + 1], cs[other]
    if cs[other + 1] - b0 != a1 - a0:
        return False
    for j in range(a1 - a0):
        if cd[a0 + j] != cd[b0 + j]:
            return False
    for j in range(n):
        if stored[slot, j] != buf[j]:
            return False
    return True


@njit
def _count_shortcut(state, n, total, kind, out):
    """Count clues whose filled (or empty) quota is already met have one completion: fill the
    rest and check it. Returns 1 solved, 0 not applicable, -1 contradiction."""
    nf = 0
    ne = 0
    for i in range(n):
        if state[i] == FILLED:
            nf += 1
        elif state[i] == EMPTY:
            ne += 1
        elif state[i] == 0:
            return -1
    if nf + ne == n:
        return 0
    if nf == total:
        fill = EMPTY
    elif ne == n - total:
        fill = FILLED
    else:
        return 0
    nb = 0
    prev = False
    for i in range(n):
        v = state[i] if state[i] != UNKNOWN else fill
        out[i] = v
        f = v == FILLED
        if f and not prev:
            nb += 1
        prev = f
    if kind == KIND_CIRCLE:
        ok = nb == 2
    elif kind == KIND_PLAIN:
        ok = nb <= 1
    else:
        ok = nb >= 3
    return 1 if ok else -1


@njit(inline="always")
def _linesolve_dp(kind, cd, c0, c1, buf_in, buf_out, n, words):
    """The complete line solvers, each on its best representation of the line."""
    if kind == KIND_PLAIN:
        return 0 if _solve_plain(buf_in, n, cd[c0], buf_out) else R_CONTRADICTION
    if kind == KIND_BLOCKS:
        if n <= MAX_BITS:
            return 0 if blocks_into(buf_in, n, cd, c0, c1 - c0, buf_out, words) else R_CONTRADICTION
        return 0 if solve_blocks_dp(buf_in[:n], cd[c0:c1], buf_out[:n]) else R_CONTRADICTION
    r = _count_shortcut(buf_in, n, cd[c0], kind, buf_out)
    if r == 1:
        return 0
    if r == -1:
        return R_CONTRADICTION
    if n <= COUNT_MAX_CELLS and cd[c0] <= COUNT_MAX_TOTAL:
        return 0 if count_into(buf_in, n, cd[c0], kind, buf_out, words) else R_CONTRADICTION
    return 0 if count_intervals(buf_in[:n], cd[c0], kind, buf_out[:n]) else R_CONTRADICTION


@njit(inline="always")
def linesolve_arrays(ls_id, budget, kind, cd, c0, c1, buf_in, buf_out, n, words):
    """0 ok, R_CONTRADICTION, R_TOO_LARGE; the new line state is in buf_out[:n].

    ``budget`` is None when the session uses the DP only (``budget_arg``): numba then prunes
    the seed linesolver's branch before typing it, so it is never compiled (numba prunes
    branches on the type of an argument again after inlining, in the kernel whose argument
    budget is). Inlined: a call per line application measured 2.4% slower on TAAI and
    survey puzzles, for 3 s less compile time."""
    if budget is None or ls_id == LS_DP:
        return _linesolve_dp(kind, cd, c0, c1, buf_in, buf_out, n, words)
    status, _exp = seed_solve_line(buf_in[:n], kind, cd[c0:c1], buf_out[:n], budget)
    if status == 0:
        return 0
    if status == 1:
        return R_CONTRADICTION
    return R_TOO_LARGE


def budget_arg(ls_id: int, budget: int):
    """The ``budget`` argument of the kernels: the seed linesolver's expansion budget (int64), or
    None when ``ls_id`` is the DP, so that no kernel of a DP session compiles the seed linesolver."""
    return np.int64(budget) if ls_id == LS_SEED else None


# The word lines' masks. Block lines of 1..MAX_BITS cells go through the word solver
# (``_apply_words``), which takes the line as two masks: bit j of ``ce`` (``cf``) set when the
# line's cell j may still be empty (filled). Gathering them cell by cell through the cell index
# at every application was ~15 % of a probe, so they are kept up to date instead as cells are
# set and undone (a cell lies on two lines in 2D, and is set once per many applications). They
# live at the end of ``words`` (``mask_words`` of them): ce, cf of line li at ``base + 2 li``,
# then per (cell, line) pair of the cell index the cell's bit in its line's masks (0 where the
# line is not a word line: the count lines of 3D cost a load and a test). A flag word that
# skipped all of it for puzzles without word lines was tried: 2D probes measured slower with it
# (an early return in the inlined helpers; within the 10-15 % spread seen between checkouts of
# the same kernels) and 3D no faster, so there is none.
# Every write to ``state`` goes through ``set_cell_arrays`` / ``undo_arrays``, or is followed
# by ``sync_masks`` (``maskprop.reset``).


@njit(inline="always")
def _is_word_line(kind, n):
    """A line the word solver takes: a block list of 1..MAX_BITS cells."""
    return kind == KIND_BLOCKS and 0 < n <= MAX_BITS


def mask_words(n_lines: int, n_pairs: int) -> int:
    """Words at the end of ``words`` for the word lines' masks and the pairs' bits."""
    return 2 * n_lines + n_pairs


@njit(inline="always")
def _mask_base(words, unk, cl):
    """Where the masks start in ``words`` (the pairs' bits follow at ``+ 2 * len(unk)``)."""
    return len(words) - 2 * len(unk) - len(cl)


@njit
def sync_masks(ls, lc, kinds, cs, cl, cp, state, words):
    """The word lines' masks and the pairs' bits in ``words``, computed afresh from ``state``."""
    n_lines = len(kinds)
    base = len(words) - 2 * n_lines - len(cl)
    any_word = False
    for li in range(n_lines):
        if _is_word_line(kinds[li], ls[li + 1] - ls[li]):
            any_word = True
            break
    if not any_word:
        # no word line: every mask and bit is 0 as allocated and stays so (sets and undos change
        # only the lines of nonzero bits), so no pass over every pair per solve (3D count clues,
        # whose solves take about a millisecond)
        return
    for li in range(n_lines):
        ce = np.uint64(0)
        cf = np.uint64(0)
        s = ls[li]
        n = ls[li + 1] - s
        if _is_word_line(kinds[li], n):
            for j in range(n):
                v = state[lc[s + j]]
                bit = np.uint64(1) << np.uint64(j)
                if v & EMPTY:
                    ce |= bit
                if v & FILLED:
                    cf |= bit
        words[base + 2 * li] = ce
        words[base + 2 * li + 1] = cf
    for c in range(len(cs) - 1):
        for k in range(cs[c], cs[c + 1]):
            li = cl[k]
            n = ls[li + 1] - ls[li]
            bit = np.uint64(0)
            if _is_word_line(kinds[li], n):
                bit = np.uint64(1) << np.uint64(cp[k] - ls[li])
            words[base + 2 * n_lines + k] = bit


@njit(inline="always")
def set_cell_arrays(c, v, state, trail, stats, cs, cl, unk, words):
    """``set_cell`` on plain arrays: cell ``c`` := ``v``, on the trail, its lines' unknowns
    counted down, the value it lost cleared from its word lines' masks."""
    state[c] = v
    t = stats[S_TLEN]
    trail[t] = c
    stats[S_TLEN] = t + 1
    base = _mask_base(words, unk, cl)
    pairs = base + 2 * len(unk)
    for k in range(cs[c], cs[c + 1]):
        li = cl[k]
        unk[li] -= 1
        bit = words[pairs + k]
        if bit:
            if (v & EMPTY) == 0:
                words[base + 2 * li] &= ~bit
            if (v & FILLED) == 0:
                words[base + 2 * li + 1] &= ~bit


@njit
def set_cell(c, v, net, w):
    """Make cell c known as v (FILLED/EMPTY): trail it and update per-line unknown counts."""
    set_cell_arrays(c, v, w[0], w[1], w[7], net[5], net[6], w[2], w[12])


@njit(inline="always")
def undo_arrays(mark, state, trail, unk, stats, cs, cl, words):
    """``undo_to`` on plain arrays: the cells set since trail position ``mark`` back to unknown
    (both values again in their word lines' masks)."""
    base = _mask_base(words, unk, cl)
    pairs = base + 2 * len(unk)
    for t in range(mark, stats[S_TLEN]):
        c = trail[t]
        state[c] = UNKNOWN
        for k in range(cs[c], cs[c + 1]):
            li = cl[k]
            unk[li] += 1
            bit = words[pairs + k]
            if bit:
                words[base + 2 * li] |= bit
                words[base + 2 * li + 1] |= bit
    stats[S_TLEN] = mark


@njit
def undo_to(mark, net, w):
    """Forget every cell trailed after ``mark``."""
    undo_arrays(mark, w[0], w[1], w[2], w[7], net[5], net[6], w[12])


@njit(inline="always")
def line_ok(li, ls, lc, kinds, cs, cd, state):
    """Whether line ``li``, fully decided in ``state``, satisfies its clue."""
    kind = kinds[li]
    if kind == 0:
        return True
    s, e = ls[li], ls[li + 1]
    c0, c1 = cs[li], cs[li + 1]
    nb = 0
    run = 0
    total = 0
    for j in range(s, e + 1):
        if j < e and state[lc[j]] == FILLED:
            run += 1
            continue
        if run > 0:
            if kind == KIND_BLOCKS:
                # block lists may carry written zeros; skip them
                while c0 + nb < c1 and cd[c0 + nb] == 0:
                    c0 += 1
                if c0 + nb >= c1 or cd[c0 + nb] != run:
                    return False
            nb += 1
            total += run
            run = 0
    if kind == KIND_BLOCKS:
        while c0 + nb < c1 and cd[c0 + nb] == 0:
            c0 += 1
        return c0 + nb == c1
    if total != cd[c0]:
        return False
    if kind == KIND_PLAIN:
        return nb <= 1
    if kind == KIND_CIRCLE:
        return nb == 2
    return nb >= 3


@njit
def known_line_ok(li, net, state):
    """Whether fully known line li satisfies its clue: a block count, far cheaper than a solve."""
    return line_ok(li, net[0], net[1], net[2], net[3], net[4], state)


@njit
def satisfies_all(net, state):
    """Whether a fully known state satisfies every clued line."""
    for li in range(len(net[2])):
        if not line_ok(li, net[0], net[1], net[2], net[3], net[4], state):
            return False
    return True


# The word path of block lines of up to MAX_BITS cells (``_apply_words``): the line's cells go
# straight into the word solver's masks and its answer comes back as words, so an application
# makes no byte copies of the line, and its cache (in ``words`` after the scratch, slots of
# WORD_SLOT_WORDS: line + 1, the two masks, the two answers) keys on three words instead of a
# hash of the line's bytes and its clue. A key is compared in full (line, masks), so a hit is
# the solver's own answer; a contradiction is stored as two empty answers.
WORD_SLOT_WORDS = 5


@njit(inline="always")
def _apply_words(li, use_cache, ls, lc, cst, cd, cs, cl, state, trail, unk, stats, slots, words):
    """``_apply`` for a block line of 1..MAX_BITS cells with the complete solver: the same
    result, the same cells trailed in the same order (the line's order)."""
    s = ls[li]
    n = ls[li + 1] - s
    # the line's masks as set_cell_arrays / undo_arrays keep them; a cell with no value left
    # (state 0) is a hole in both, a contradiction as the cell-by-cell gather found it
    m = _mask_base(words, unk, cl) + 2 * li
    ce = words[m]
    cf = words[m + 1]
    full = (np.uint64(1) << np.uint64(n)) - np.uint64(1)
    if (ce | cf) != full:
        return R_CONTRADICTION
    at = -1
    hit = False
    can_e = np.uint64(0)
    can_f = np.uint64(0)
    if use_cache and slots > 0 and len(words) >= SCRATCH_WORDS + WORD_SLOT_WORDS * slots:
        stats[S_CACHE_LOOKUPS] += 1
        h = (ce * np.uint64(0x9E3779B97F4A7C15)) ^ (cf * np.uint64(0xC2B2AE3D27D4EB4F)) ^ np.uint64(li)
        h = h * np.uint64(0xD6E8FEB86659FD93)
        at = SCRATCH_WORDS + WORD_SLOT_WORDS * (np.int64(h >> np.uint64(32)) & (slots - 1))
        if words[at] == np.uint64(li + 1) and words[at + 1] == ce and words[at + 2] == cf:
            hit = True
            stats[S_CACHE_HITS] += 1
            can_e = words[at + 3]
            can_f = words[at + 4]
    if not hit:
        ok, can_e, can_f = line_words(ce, cf, reverse_bits(ce, n), reverse_bits(cf, n), n, cd, cst[li],
                                      cst[li + 1] - cst[li], words)
        if not ok:
            can_e = np.uint64(0)
            can_f = np.uint64(0)
        if at >= 0:
            words[at] = np.uint64(li + 1)
            words[at + 1] = ce
            words[at + 2] = cf
            words[at + 3] = can_e
            words[at + 4] = can_f
    can_e &= ce
    can_f &= cf
    if (can_e | can_f) != full:
        return R_CONTRADICTION
    # cells with one value left that had two: filled where they cannot be empty, and so on
    newc = ce & cf & ~(can_e & can_f)
    new = 0
    j = 0
    while newc:
        if newc & np.uint64(1):
            set_cell_arrays(lc[s + j], FILLED if (can_f >> np.uint64(j)) & np.uint64(1) else EMPTY, state, trail,
                            stats, cs, cl, unk, words)
            new += 1
        newc >>= np.uint64(1)
        j += 1
    return new


@njit(inline="always")
def _apply(li, ls_id, budget, use_cache, ls, lc, kinds, cst, cd, cs, cl, state, trail, unk, stats,
           buf_in, buf_out, ckeys, cstate, cout, slots, words):
    """``apply_line`` on plain arrays (see the calling convention above)."""
    s = ls[li]
    n = ls[li + 1] - s
    kind = kinds[li]
    c0, c1 = cst[li], cst[li + 1]
    if ckeys is not None:
        if (budget is None or ls_id == LS_DP) and _is_word_line(kind, n):
            return _apply_words(li, use_cache, ls, lc, cst, cd, cs, cl, state, trail, unk, stats, slots, words)
    for j in range(n):
        buf_in[j] = state[lc[s + j]]
    r = 0
    hit = False
    slot = -1
    # plain 3D clues are solved in O(n) (cheaper than a lookup), so only other kinds are cached;
    # ``ckeys`` None (the design's trials): no cache code compiled
    if ckeys is not None:
        if use_cache and slots > 0 and kind != KIND_PLAIN:
            stats[S_CACHE_LOOKUPS] += 1
            h = _hash_line(kind, n, cd, c0, c1, buf_in)
            slot = np.int64(h & np.uint64(slots - 1))
            other = ckeys[slot]
            if other >= 0 and _same_key(li, other, ls, kinds, cst, cd, buf_in, cstate, slot, n):
                hit = True
                stats[S_CACHE_HITS] += 1
                if n > 0 and cout[slot, 0] == 0:
                    r = R_CONTRADICTION
                for j in range(n):
                    buf_out[j] = cout[slot, j]
    if not hit:
        r = linesolve_arrays(ls_id, budget, kind, cd, c0, c1, buf_in, buf_out, n, words)
        if ckeys is not None:
            if slot >= 0 and r != R_TOO_LARGE:
                ckeys[slot] = li
                for j in range(n):
                    cstate[slot, j] = buf_in[j]
                    # a contradiction is cached as an all-zero line (no valid state has a 0 cell)
                    cout[slot, j] = buf_out[j] if r == 0 else 0
    if r != 0:
        return r
    new = 0
    for j in range(n):
        v = buf_out[j] & buf_in[j]
        if v != buf_in[j]:
            if v == 0:
                return R_CONTRADICTION
            set_cell_arrays(lc[s + j], v, state, trail, stats, cs, cl, unk, words)
            new += 1
    return new


@njit(shared=True)
def apply_line(li, ls_id, budget, use_cache, net, w):
    """Run the line solver on line li and write its deductions into the state.

    Returns the number of newly known cells (>= 0), R_CONTRADICTION or R_TOO_LARGE. Does not
    count metrics: the schedulers do, because they define them differently.
    """
    return _apply(li, ls_id, budget, use_cache, net[0], net[1], net[2], net[3], net[4], net[5], net[6],
                  w[0], w[1], w[2], w[7], w[5], w[6], w[8], w[9], w[10], w[11][0], w[12])


@njit(inline="always")
def queue_clear_arrays(q, inq):
    """Empty the dirty-line queue: q[0] is the head, q[1] the count, q[2:] a ring of n_lines."""
    cap = len(q) - 2
    for k in range(q[1]):
        inq[q[2 + (q[0] + k) % cap]] = 0
    q[0] = 0
    q[1] = 0


@njit(inline="always")
def queue_push_arrays(li, q, inq):
    """``queue_push`` on plain arrays: line ``li`` into the dirty-line queue unless it is in it."""
    if inq[li]:
        return
    inq[li] = 1
    cap = len(q) - 2
    # the ring's wrap by a compare, not ``%``: an integer division per push and pop was a
    # measurable part of a line application
    at = q[0] + q[1]
    if at >= cap:
        at -= cap
    q[2 + at] = li
    q[1] += 1


@njit(inline="always")
def queue_pop_arrays(q, inq):
    """``queue_pop`` on plain arrays: the next dirty line, out of the queue."""
    cap = len(q) - 2
    li = q[2 + q[0]]
    q[0] = q[0] + 1 if q[0] + 1 < cap else 0
    q[1] -= 1
    inq[li] = 0
    return li


@njit
def queue_push(li, w):
    """Append line li unless it is queued already (so the ring never holds more than n_lines)."""
    queue_push_arrays(li, w[3], w[4])


@njit
def queue_pop(w):
    return queue_pop_arrays(w[3], w[4])


@njit(inline="always")
def count_apply(r, stats):
    """Count an application (``_apply``'s result ``r``) as the seed did: one linesolver, a bad
    guess when it deduced nothing (a contradiction or a refusal included)."""
    stats[S_LINESOLVERS] += 1
    if r <= 0:
        stats[S_BAD] += 1
    if r == R_TOO_LARGE:
        stats[S_TOO_LARGE] += 1


@njit(inline="always")
def _clear(q, inq, stats, pos, key):
    """Empty the dirty lines: the FIFO ring, or with ``key`` the heap in ``q[2:]``."""
    if key is None:
        queue_clear_arrays(q, inq)
    else:
        for i in range(stats[S_HEAPN]):
            pos[q[2 + i]] = -1
        stats[S_HEAPN] = 0


@njit(inline="always")
def queue_line(li, q, inq, stats, enabled, pos, key):
    """Line ``li`` dirty (unless ``enabled`` is given and says no): into the FIFO ring, or with
    ``key`` into the heap in ``q[2:]`` (``lineheap``, slots ``pos``, size ``stats[S_HEAPN]``)."""
    ok = True
    if enabled is not None:
        ok = enabled[li] != 0
    if ok:
        if key is None:
            queue_push_arrays(li, q, inq)
        elif pos[li] < 0:
            stats[S_HEAPN] = heap_push(li, stats[S_HEAPN], q[2:], pos, key)


@njit(shared=True, _nrt=False)
def propagate_arrays(ls_id, budget, use_cache, ls, lc, kinds, cst, cd, cs, cl, state, trail, unk, q, inq,
                     stats, buf_in, buf_out, ckeys, cstate, cout, slots, words, enabled, contrib, pos, key):
    """``propagate`` on plain arrays (see the calling convention above). The solver passes None
    for the last four. The design's trials (``maskprop``) pass ``enabled`` (uint8 per line: only
    those lines are ever queued) and ``contrib`` (cells each line deduced, counted up), and for
    a priority run ``key``: the dirty line of highest key goes first (``queue_line``'s heap)."""
    cap = stats[S_STEP_CAP]
    while (q[1] > 0) if key is None else (stats[S_HEAPN] > 0):
        if cap > 0 and stats[S_LINESOLVERS] + stats[S_CHECKS] >= cap:
            return True
        if key is None:
            li = queue_pop_arrays(q, inq)
        else:
            li = q[2]
            stats[S_HEAPN] = heap_remove(li, stats[S_HEAPN], q[2:], pos, key)
        if unk[li] == 0:
            stats[S_CHECKS] += 1
            if not line_ok(li, ls, lc, kinds, cst, cd, state):
                _clear(q, inq, stats, pos, key)
                return False
            continue
        t0 = stats[S_TLEN]
        r = _apply(li, ls_id, budget, use_cache, ls, lc, kinds, cst, cd, cs, cl, state, trail, unk, stats,
                   buf_in, buf_out, ckeys, cstate, cout, slots, words)
        count_apply(r, stats)
        if r == R_CONTRADICTION:
            _clear(q, inq, stats, pos, key)
            return False
        if r > 0:
            if contrib is not None:
                contrib[li] += r
            # the seed linesolver may find more on its own output, so its line is re-queued
            skip = li if ls_id == LS_DP else -1
            for t in range(t0, stats[S_TLEN]):
                c = trail[t]
                for k in range(cs[c], cs[c + 1]):
                    if cl[k] != skip:
                        queue_line(cl[k], q, inq, stats, enabled, pos, key)
    return True


def propagate(ls_id, budget, use_cache, net, w):
    """Run the dirty-line FIFO to a fixpoint. Returns False on a contradiction (queue cleared).
    Plain Python over the compiled ``propagate_arrays``: a kernel wrapper would compile the whole
    line-solver tree once more."""
    return propagate_arrays(ls_id, budget, use_cache, net[0], net[1], net[2], net[3], net[4], net[5], net[6],
                            w[0], w[1], w[2], w[3], w[4], w[7], w[5], w[6], w[8], w[9], w[10], w[11][0], w[12],
                            None, None, None, None)


@njit
def queue_all(net, w):
    """Queue every clued line (in line order)."""
    kinds = net[2]
    for li in range(len(kinds)):
        if kinds[li] != 0:
            queue_push(li, w)


@njit
def check_all(ls_id, budget, net, w):
    """Whether every clued line accepts the current state, which must be known on every clued
    line (a line with an unknown cell fails); one check counted per clued line. Block counts
    only, no line solving (``ls_id`` and ``budget`` are unused), so that this kernel does not
    compile the line solvers once more."""
    ls, lc, kinds, cs, cd, state, unk, stats = net[0], net[1], net[2], net[3], net[4], w[0], w[2], w[7]
    for li in range(len(kinds)):
        if kinds[li] != 0:
            stats[S_CHECKS] += 1
            if unk[li] != 0 or not line_ok(li, ls, lc, kinds, cs, cd, state):
                return False
    return True


@njit
def prepass(ls_id, budget, net, w):
    """The seed's pre-pass: every empty line and every line with a complete description (its clue
    admits one arrangement) is filled in once, without counting linesolvers. A line qualifies
    when the line solver fully determines it from an all-unknown line, which is exactly that.
    Returns False on a contradiction (two such lines disagree on a cell).
    """
    return prepass_lines(ls_id, budget, net, w, 0, len(net[2]))


@njit
def prepass_lines(ls_id, budget, net, w, start, stop):
    """The pre-pass over lines [start, stop) only: consecutive ranges covering every line do the
    same as ``prepass`` (so it can run in chunks)."""
    ls, lc, kinds, state = net[0], net[1], net[2], w[0]
    buf_in, buf_out = w[5], w[6]
    for li in range(start, min(stop, len(kinds))):
        if kinds[li] == 0 or w[2][li] == 0:
            continue
        s = ls[li]
        n = ls[li + 1] - s
        for j in range(n):
            buf_in[j] = UNKNOWN
        w[7][S_PREPASS] += 1
        r = linesolve_arrays(ls_id, budget, kinds[li], net[4], net[3][li], net[3][li + 1], buf_in, buf_out, n, w[12])
        if r == R_CONTRADICTION:
            return False
        if r != 0:
            continue
        complete = True
        for j in range(n):
            if buf_out[j] == UNKNOWN:
                complete = False
                break
        if not complete:
            continue
        for j in range(n):
            c = lc[s + j]
            v = state[c] & buf_out[j]
            if v == 0:
                return False
            if v != state[c]:
                set_cell(c, np.int8(v), net, w)  # int8 as search's assume passes it: one signature
    return True
