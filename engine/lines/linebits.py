"""Complete line solving on 64-bit words: exact block lists on lines of up to ``MAX_BITS`` cells,
and 3D count clues (``count_words``, at the end).

The same forward/backward reachability as ``linesolve.solve_blocks``, but each DP layer (one
block) is a set of positions held in one machine word, so a layer costs a handful of word
operations instead of a pass over the cells. Every 2D puzzle line of a tournament (25 cells) and
most real puzzles fit; longer lines use the array DP.

Positions p = 0..n are the gaps before cell p (n: after the last cell). Masks:
- ``ce``/``cf``: cells that may be empty / filled (bits 0..n-1);
- ``fw[j]``: positions p where cells [0, p) can hold exactly blocks 0..j-1 and (j == 0 or cell
  p-1 is empty), i.e. block j may start at p;
- ``bw[j]``: positions p where cells [p, n) can hold exactly blocks j..k-1 and (j == k or cell p
  is empty); computed as ``fw`` of the reversed line.

Going through empties from a set of positions Y: a position p reaches p+1 iff cell p may be
empty, so from p every position up to the first cell q >= p that cannot be empty is reached,
q included. Adding Y's seeds to the run mask ``ce`` carries exactly through those runs, so the
reached set is ``Y | ((ce + (Y & ce)) ^ ce)`` (a carry ends at the first zero bit, q; two seeds in
one run only re-set a bit already in Y).
"""
import numpy as np

from ..model.cells import EMPTY, FILLED
from ..jit import njit
from ..model.puzzle import KIND_CIRCLE, KIND_PLAIN

# positions 0..n must fit below the top bit, which a carry may reach
MAX_BITS = 62

_ONE = np.uint64(1)
_ZERO = np.uint64(0)


@njit
def _reverse(x, n):
    """The n+1 low bits of x in reverse order (bit p -> bit n - p)."""
    x = ((x >> np.uint64(1)) & np.uint64(0x5555555555555555)) | ((x & np.uint64(0x5555555555555555)) << np.uint64(1))
    x = ((x >> np.uint64(2)) & np.uint64(0x3333333333333333)) | ((x & np.uint64(0x3333333333333333)) << np.uint64(2))
    x = ((x >> np.uint64(4)) & np.uint64(0x0F0F0F0F0F0F0F0F)) | ((x & np.uint64(0x0F0F0F0F0F0F0F0F)) << np.uint64(4))
    x = ((x >> np.uint64(8)) & np.uint64(0x00FF00FF00FF00FF)) | ((x & np.uint64(0x00FF00FF00FF00FF)) << np.uint64(8))
    x = ((x >> np.uint64(16)) & np.uint64(0x0000FFFF0000FFFF)) | ((x & np.uint64(0x0000FFFF0000FFFF)) << np.uint64(16))
    x = (x >> np.uint64(32)) | (x << np.uint64(32))
    return x >> np.uint64(63 - n)


@njit(inline="always")
def reverse_bits(x, n):
    """The n low bits of x (a line's cell mask) in reverse order (bit i -> bit n - 1 - i)."""
    return _reverse(x, n - 1)


@njit
def _windows(cf, b):
    """Starts s whose window [s, s+b) lies in cf (b >= 1): an AND of shifts, by doubling."""
    acc = cf
    span = 1
    while 2 * span <= b:
        acc &= acc >> np.uint64(span)
        span *= 2
    return acc & (acc >> np.uint64(b - span))


@njit
def _spread(v, b):
    """Cells [s, s+b) for every start s in v (b >= 1): an OR of shifts, by doubling."""
    acc = v
    span = 1
    while 2 * span <= b:
        acc |= acc << np.uint64(span)
        span *= 2
    return acc | (acc << np.uint64(b - span))


@njit
def _through_empties(y, ce):
    return y | ((ce + (y & ce)) ^ ce)


@njit
def _forward(ce, cf, cd, c0, k, rev, fw, at):
    """fw[at..at+k] for the blocks cd[c0:c0+k] (in reverse order when ``rev``)."""
    y = _through_empties(_ONE, ce)
    fw[at] = y
    for j in range(k):
        b = cd[c0 + k - 1 - j] if rev else cd[c0 + j]
        ends = (y & _windows(cf, b)) << np.uint64(b)
        y = _through_empties((ends & ce) << np.uint64(1), ce)
        fw[at + j + 1] = y


@njit
def line_words(ce, cf, rce, rcf, n, cd, c0, k, scratch):
    """The word solver's core: the line's masks (``rce``/``rcf`` the reversed line's), its k
    blocks in place at cd[c0:c0+k] (so no slice is made), ``scratch`` uint64 of at least
    2k+2. Returns (ok, can_e, can_f): per cell bit, whether some fix has it empty / filled.
    Taking and giving words keeps the hot path free of array views and allocations."""
    need = k - 1
    for j in range(k):
        need += cd[c0 + j]
    if need > n:
        return False, _ZERO, _ZERO
    fw = scratch  # fw[j] at j, the reversed line's at k+1+j
    bw = k + 1
    _forward(ce, cf, cd, c0, k, False, fw, 0)
    last = (fw[k] >> np.uint64(n)) & _ONE
    if k > 0:
        b = cd[c0 + k - 1]
        last |= ((fw[k - 1] & _windows(cf, b)) >> np.uint64(n - b)) & _ONE
    if last == _ZERO:
        return False, _ZERO, _ZERO
    _forward(rce, rcf, cd, c0, k, True, fw, bw)  # fw[bw+m]: the reversed line holds the last m blocks
    can_e = _ZERO
    can_f = _ZERO
    # the suffix side of gap j is the reversed line's fw[k-j], read in the line's order: each is
    # reversed once, as gap j's "after" and block j-1's "next"
    after = _reverse(fw[bw + k], n)
    for j in range(k + 1):
        # cell i empty between blocks j-1 and j: fw[j] holds i+1, the suffix side holds i
        can_e |= (fw[j] >> _ONE) & after
        if j < k:
            b = cd[c0 + j]
            nxt = _reverse(fw[bw + k - j - 1], n)
            starts = fw[j] & _windows(cf, b) & (nxt >> np.uint64(b))
            can_f |= _spread(starts, b)
            after = nxt
    return True, can_e, can_f


@njit(inline="always")
def line_masks(state, n):
    """(ok, ce, cf, rce, rcf): which cells may be empty / filled, and the same for the reversed
    line; ok is False when a cell has no value left."""
    ce = _ZERO
    cf = _ZERO
    rce = _ZERO
    rcf = _ZERO
    for i in range(n):
        s = state[i]
        if s == 0:
            return False, ce, cf, rce, rcf
        if s & EMPTY:
            ce |= _ONE << np.uint64(i)
            rce |= _ONE << np.uint64(n - 1 - i)
        if s & FILLED:
            cf |= _ONE << np.uint64(i)
            rcf |= _ONE << np.uint64(n - 1 - i)
    return True, ce, cf, rce, rcf


@njit(inline="always")
def write_cells(can_e, can_f, out, n):
    for i in range(n):
        bit = _ONE << np.uint64(i)
        v = 0
        if can_e & bit:
            v |= EMPTY
        if can_f & bit:
            v |= FILLED
        out[i] = v


# ``blocks_into`` and ``count_into`` are shared kernels (engine/jit.py): compiled once and
# called, not compiled again into every kernel that solves lines (propagate.propagate_arrays,
# maskprop's runs, the seed's schedulers), at 1-3 CPU s of compile time each; the call measured
# no slower (scripts/compile_times.py; docs/ADDON.md, "Compiling ahead").
@njit(shared=True)
def blocks_into(state, n, cd, c0, k, out, scratch):
    """Exact block list cd[c0:c0+k] on state[:n] into out[:n]; False on a contradiction.
    Takes the clue in place, so the propagation kernels make no array views."""
    ok, ce, cf, rce, rcf = line_masks(state, n)
    if not ok:
        return False
    ok, can_e, can_f = line_words(ce, cf, rce, rcf, n, cd, c0, k, scratch)
    if ok:
        write_cells(can_e, can_f, out, n)
    return ok


@njit
def solve_blocks_bits(state, blocks, out, scratch):
    """Complete line solving for an exact block list (every block > 0) on a line of at most
    MAX_BITS cells; ``scratch``: uint64 of at least 2*len(blocks)+2 entries.
    Same contract as ``linesolve.solve_blocks``: False on a contradiction, else ``out`` holds
    per cell the OR of its values over every fix."""
    return blocks_into(state, state.shape[0], blocks, 0, blocks.shape[0], out, scratch)


# 3D count clues (``linesolve.solve_count``): the DP over (cell, filled so far f, blocks so far c
# capped at 3, last cell filled s), with the set of reachable f for each (c, s) held in a word,
# so a cell costs a few word operations instead of a pass over every f. Lines of up to
# COUNT_MAX_CELLS cells with totals up to COUNT_MAX_TOTAL (f and f+1 fit below the top bit).
COUNT_MAX_CELLS = 64
COUNT_MAX_TOTAL = 62


@njit
def _accepted(kind, total, c):
    if kind == KIND_PLAIN:
        return c == (1 if total > 0 else 0)
    if kind == KIND_CIRCLE:
        return c == 2
    return c == 3


@njit
def count_words(ce, cf, n, total, kind, back):
    """Complete line solving of a plain/circle/square clue with ``total`` filled cells on a line
    with masks ``ce``/``cf``; ``back``: uint64 scratch of at least 8*(n+1). Returns
    (ok, can_e, can_f) like ``line_words``.

    ``back[8*i + 2*c + s]``: the f from which cells [i, n) complete the line (total and block
    count accepted) after c blocks with cell i-1 filled iff s; the forward sweep keeps only the
    current cell's eight reachable sets and paints as it goes."""
    if total < 0 or total > n:
        return False, _ZERO, _ZERO
    full = _ONE << np.uint64(total)
    for c in range(4):
        ok_c = full if _accepted(kind, total, c) else _ZERO
        back[8 * n + 2 * c] = ok_c
        back[8 * n + 2 * c + 1] = ok_c
    for i in range(n - 1, -1, -1):
        bit = _ONE << np.uint64(i)
        e = (ce & bit) != 0
        f = (cf & bit) != 0
        for c in range(4):
            for s in range(2):
                x = _ZERO
                if e:
                    x = back[8 * (i + 1) + 2 * c]
                if f:
                    c2 = c if s == 1 else min(c + 1, 3)
                    x |= back[8 * (i + 1) + 2 * c2 + 1] >> _ONE
                back[8 * i + 2 * c + s] = x
    if (back[0] & _ONE) == _ZERO:
        return False, _ZERO, _ZERO
    # forward: reachable f per (c, s), painting cell i from the sets before it
    r0 = _ONE  # (c=0, s=0) holds f = 0
    r1 = r2 = r3 = r4 = r5 = r6 = r7 = _ZERO
    can_e = _ZERO
    can_f = _ZERO
    for i in range(n):
        bit = _ONE << np.uint64(i)
        e = (ce & bit) != 0
        f = (cf & bit) != 0
        nb = 8 * (i + 1)
        # r[2c+s]. Empty: (c, s) -> (c, 0). Filled, f+1: (c, 0) -> (c+1 capped at 3, 1) and
        # (c, 1) -> (c, 1); (0, 1) is never reached.
        n0 = n2 = n4 = n6 = _ZERO
        n1 = n3 = n5 = n7 = _ZERO
        if e:
            n0 = r0 | r1
            n2 = r2 | r3
            n4 = r4 | r5
            n6 = r6 | r7
            if (n0 & back[nb]) | (n2 & back[nb + 2]) | (n4 & back[nb + 4]) | (n6 & back[nb + 6]):
                can_e |= bit
        if f:
            n3 = (r0 | r3) << _ONE
            n5 = (r2 | r5) << _ONE
            n7 = (r4 | r6 | r7) << _ONE
            if (n3 & back[nb + 3]) | (n5 & back[nb + 5]) | (n7 & back[nb + 7]):
                can_f |= bit
        r0, r1, r2, r3, r4, r5, r6, r7 = n0, n1, n2, n3, n4, n5, n6, n7
    return True, can_e, can_f


@njit(shared=True)
def count_into(state, n, total, kind, out, scratch):
    """A plain/circle/square clue on state[:n] into out[:n]; False on a contradiction."""
    ok, ce, cf, _rce, _rcf = line_masks(state, n)
    if not ok:
        return False
    ok, can_e, can_f = count_words(ce, cf, n, total, kind, scratch)
    if ok:
        write_cells(can_e, can_f, out, n)
    return ok


@njit
def solve_count_bits(state, total, kind, out, scratch):
    """``linesolve.solve_count`` for lines of up to COUNT_MAX_CELLS cells and totals up to
    COUNT_MAX_TOTAL; ``scratch``: uint64 of at least 8*(len(state)+1) entries."""
    return count_into(state, state.shape[0], total, kind, out, scratch)


# scratch that serves every word solver on every line they take
SCRATCH_WORDS = max(2 * MAX_BITS + 2, 8 * (COUNT_MAX_CELLS + 1))
