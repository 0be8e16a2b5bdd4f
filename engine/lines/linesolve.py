"""Complete line solvers: every cell that takes one value in all fixes of a line is deduced.

Both are forward/backward reachability DPs (the fixability/painting idea of Batenburg & Kosters
and Wu et al.): a cell may be empty (filled) iff some forward-reachable prefix state, extended by
an empty (filled) cell, reaches a backward-completable suffix state. ``out`` receives, per cell,
the OR of the values that cell takes over all fixes, so it is always a subset of ``state``.

- ``solve_blocks``: exact block lists (every length > 0; ``Puzzle`` strips the 0 of an empty
  line), O(L·k) states; lines of up to 62 cells run on 64-bit words (``linebits.py``), about
  10x faster.
- ``solve_count``: 3D clues (``clue`` holds ``[total]``) (total + plain/circle/square): on
  lines of up to 64 cells a DP over (cell, filled so far, blocks so far capped at 3, inside a
  block) whose filled counts per state are one machine word (``linebits.count_words``); longer
  lines in O(n) on intervals of filled counts (``linecount.py``). ``solve_count_dp``, the same
  DP on arrays (O(n * total)), is the reference both are tested against.
"""
import numpy as np

from ..model.cells import EMPTY, FILLED
from ..jit import njit
from .linecount import count_intervals
from .linebits import COUNT_MAX_CELLS, COUNT_MAX_TOTAL, MAX_BITS, solve_blocks_bits, solve_count_bits
from ..model.puzzle import KIND_BLOCKS, KIND_CIRCLE, KIND_PLAIN, KIND_SQUARE


@njit
def solve_blocks(state, blocks, out):
    """Exact block lists: on machine words (``linebits.py``) when the line fits in one, else
    the array DP below."""
    n = state.shape[0]
    k = blocks.shape[0]
    if n <= MAX_BITS:
        return solve_blocks_bits(state, blocks, out, np.empty(2 * k + 2, np.uint64))
    return solve_blocks_dp(state, blocks, out)


@njit(shared=True, _nrt=True)
def solve_blocks_dp(state, blocks, out):
    """Exact block lists on lines of any length: forward/backward reachability over (blocks
    placed j, cells i). The split between blocks j-1 and j can only lie in a band of ``slack + 2``
    positions (slack: the line's length minus its clue's minimum length), so the tables hold
    O(k * slack) entries, not O(k * n): a 20,000-cell line with 4,800 blocks needs 15 MB instead
    of 190 MB. (Table reads are written out in place: a helper taking the arrays, even inlined,
    left atomic reference counts in the inner loops, 15x slower.)"""
    n = state.shape[0]
    k = blocks.shape[0]
    for i in range(n):
        if state[i] == 0:
            return False
    total = 0
    for j in range(k):
        total += blocks[j]
    slack = n - total - max(k - 1, 0)
    if slack < 0:
        return False
    # bad[i] = known-empty cells in [0, i): a block fits at [s, e) iff bad[e] == bad[s]
    bad = np.zeros(n + 1, np.int32)
    for i in range(n):
        bad[i + 1] = bad[i] + (1 if (state[i] & FILLED) == 0 else 0)
    # band of j: prefix lengths i with room for blocks 0..j-1 before and j..k-1 after
    lo = np.empty(k + 1, np.int64)
    hi = np.empty(k + 1, np.int64)
    before = 0
    for j in range(k + 1):
        lo[j] = before + max(j - 1, 0)
        hi[j] = n - (total - before) - max(k - j - 1, 0)
        if j < k:
            before += blocks[j]
    w = slack + 2
    # fw at (j, i): cells [0, i) can hold exactly blocks 0..j-1
    fw = np.zeros((k + 1) * w, np.uint8)
    for j in range(k + 1):
        for i in range(lo[j], hi[j] + 1):
            if i == 0:
                ok = j == 0
            else:
                ok = (state[i - 1] & EMPTY) != 0 and lo[j] <= i - 1 <= hi[j] and fw[j * w + i - 1 - lo[j]] == 1
            if not ok and j > 0:
                s = i - blocks[j - 1]
                if s >= 0 and bad[i] == bad[s]:
                    if s == 0:
                        ok = j == 1
                    elif ((state[s - 1] & EMPTY) != 0 and lo[j - 1] <= s - 1 <= hi[j - 1]
                          and fw[(j - 1) * w + s - 1 - lo[j - 1]] == 1):
                        ok = True
            if ok:
                fw[j * w + i - lo[j]] = 1
    if fw[k * w + n - lo[k]] == 0:  # (k, n) is always in the band
        return False
    # bw at (j, i): cells [i, n) can hold exactly blocks j..k-1
    bw = np.zeros((k + 1) * w, np.uint8)
    for j in range(k, -1, -1):
        for i in range(hi[j], lo[j] - 1, -1):
            if i == n:
                ok = j == k
            else:
                ok = (state[i] & EMPTY) != 0 and lo[j] <= i + 1 <= hi[j] and bw[j * w + i + 1 - lo[j]] == 1
            if not ok and j < k:
                e = i + blocks[j]
                if e <= n and bad[e] == bad[i]:
                    if e == n:
                        ok = j == k - 1
                    elif ((state[e] & EMPTY) != 0 and lo[j + 1] <= e + 1 <= hi[j + 1]
                          and bw[(j + 1) * w + e + 1 - lo[j + 1]] == 1):
                        ok = True
            if ok:
                bw[j * w + i - lo[j]] = 1
    # paint: empties directly, fills through a difference array over valid block placements
    cover = np.zeros(n + 1, np.int32)
    for i in range(n):
        out[i] = 0
    for j in range(k + 1):
        for i in range(max(lo[j], 0), min(hi[j], n - 1) + 1):
            if ((state[i] & EMPTY) != 0 and fw[j * w + i - lo[j]] == 1 and i + 1 <= hi[j]
                    and bw[j * w + i + 1 - lo[j]] == 1):
                out[i] = EMPTY
    for j in range(k):
        b = blocks[j]
        # block j at [s, s + b): s - 1 in j's band (or s == 0), s + b + 1 in j+1's band (or the end)
        for s in range(max(lo[j] + 1 if j > 0 else 0, 0), min(hi[j] + 1, n - b) + 1):
            e = s + b
            if bad[e] != bad[s]:
                continue
            if s == 0:
                left = j == 0
            else:
                left = (state[s - 1] & EMPTY) != 0 and fw[j * w + s - 1 - lo[j]] == 1  # s - 1 in the band
            if not left:
                continue
            if e == n:
                right = j == k - 1
            else:
                right = ((state[e] & EMPTY) != 0 and lo[j + 1] <= e + 1 <= hi[j + 1]
                         and bw[(j + 1) * w + e + 1 - lo[j + 1]] == 1)
            if right:
                cover[s] += 1
                cover[e] -= 1
    run = 0
    for i in range(n):
        run += cover[i]
        if run > 0:
            out[i] |= FILLED
    return True


@njit
def _accepts(kind, total, f, c):
    if f != total:
        return False
    if kind == KIND_PLAIN:
        return c == (1 if total > 0 else 0)
    if kind == KIND_CIRCLE:
        return c == 2
    return c == 3  # KIND_SQUARE: three or more blocks, counted up to 3


@njit
def solve_count(state, total, kind, out):
    """3D clues: on machine words (``linebits.count_words``) when the line and total fit, else
    on intervals (``linecount.count_intervals``, O(n))."""
    n = state.shape[0]
    if n <= COUNT_MAX_CELLS and 0 <= total <= COUNT_MAX_TOTAL:
        return solve_count_bits(state, total, kind, out, np.empty(8 * (n + 1), np.uint64))
    return count_intervals(state, total, kind, out)


@njit
def solve_count_dp(state, total, kind, out):
    """The reachability DP of ``solve_count`` on arrays, O(n * total) time and memory: the
    reference the word and interval solvers are tested against (no solver path uses it)."""
    n = state.shape[0]
    for i in range(n):
        if state[i] == 0:
            return False
    if total < 0 or total > n:
        return False
    t1 = total + 1
    # index of (i, f, c, s): cells so far, filled so far, blocks so far (cap 3), last cell filled
    fw = np.zeros((n + 1) * t1 * 8, np.uint8)
    bw = np.zeros((n + 1) * t1 * 8, np.uint8)
    fw[0] = 1
    for i in range(n):
        can_e = (state[i] & EMPTY) != 0
        can_f = (state[i] & FILLED) != 0
        lo = max(0, total - (n - i))
        hi = min(i, total)
        for f in range(lo, hi + 1):
            for c in range(4):
                for s in range(2):
                    if fw[((i * t1 + f) * 4 + c) * 2 + s] == 0:
                        continue
                    if can_e:
                        fw[(((i + 1) * t1 + f) * 4 + c) * 2] = 1
                    if can_f and f < total:
                        c2 = c if s == 1 else min(c + 1, 3)
                        fw[(((i + 1) * t1 + f + 1) * 4 + c2) * 2 + 1] = 1
    ok = False
    for c in range(4):
        for s in range(2):
            if fw[((n * t1 + total) * 4 + c) * 2 + s] == 1 and _accepts(kind, total, total, c):
                ok = True
                bw[((n * t1 + total) * 4 + c) * 2 + s] = 1
    if not ok:
        return False
    for i in range(n):
        out[i] = 0
    for i in range(n - 1, -1, -1):
        can_e = (state[i] & EMPTY) != 0
        can_f = (state[i] & FILLED) != 0
        lo = max(0, total - (n - i))
        hi = min(i, total)
        for f in range(lo, hi + 1):
            for c in range(4):
                for s in range(2):
                    here = ((i * t1 + f) * 4 + c) * 2 + s
                    reach = fw[here] == 1
                    good = False
                    if can_e and bw[(((i + 1) * t1 + f) * 4 + c) * 2] == 1:
                        good = True
                        if reach:
                            out[i] |= EMPTY
                    if can_f and f < total:
                        c2 = c if s == 1 else min(c + 1, 3)
                        if bw[(((i + 1) * t1 + f + 1) * 4 + c2) * 2 + 1] == 1:
                            good = True
                            if reach:
                                out[i] |= FILLED
                    if good:
                        bw[here] = 1
    return True


@njit
def solve_line(state, kind, clue, out):
    """Dispatch on the clue kind; a line with no clue deduces nothing."""
    if kind == KIND_BLOCKS:
        return solve_blocks(state, clue, out)
    if kind == KIND_PLAIN or kind == KIND_CIRCLE or kind == KIND_SQUARE:
        return solve_count(state, clue[0], kind, out)
    for i in range(state.shape[0]):
        if state[i] == 0:
            return False
        out[i] = state[i]
    return True
