"""Complete line solving of exact block lists on 64-bit words, for lines of up to ``MAX_BITS`` cells.

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

from .cells import EMPTY, FILLED
from .jit import njit

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
    for j in range(k + 1):
        # cell i empty between blocks j-1 and j: fw[j] holds i+1, the suffix side holds i
        after = _reverse(fw[bw + k - j], n)
        can_e |= (fw[j] >> _ONE) & after
        if j < k:
            b = cd[c0 + j]
            nxt = _reverse(fw[bw + k - j - 1], n)
            starts = fw[j] & _windows(cf, b) & (nxt >> np.uint64(b))
            can_f |= _spread(starts, b)
    return True, can_e, can_f


@njit
def solve_blocks_bits(state, blocks, out, scratch):
    """Complete line solving for an exact block list (every block > 0) on a line of at most
    MAX_BITS cells; ``scratch``: uint64 of at least 2*len(blocks)+2 entries.
    Same contract as ``linesolve.solve_blocks``: False on a contradiction, else ``out`` holds
    per cell the OR of its values over every fix."""
    n = state.shape[0]
    ce = _ZERO
    cf = _ZERO
    rce = _ZERO  # the reversed line's masks, built in the same pass
    rcf = _ZERO
    for i in range(n):
        s = state[i]
        if s == 0:
            return False
        if s & EMPTY:
            ce |= _ONE << np.uint64(i)
            rce |= _ONE << np.uint64(n - 1 - i)
        if s & FILLED:
            cf |= _ONE << np.uint64(i)
            rcf |= _ONE << np.uint64(n - 1 - i)
    ok, can_e, can_f = line_words(ce, cf, rce, rcf, n, blocks, 0, blocks.shape[0], scratch)
    if not ok:
        return False
    for i in range(n):
        bit = _ONE << np.uint64(i)
        v = 0
        if can_e & bit:
            v |= EMPTY
        if can_f & bit:
            v |= FILLED
        out[i] = v
    return True
