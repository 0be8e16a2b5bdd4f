"""Complete line solving of 3D count clues in O(n), for lines of any length.

A plain, circle or square clue asks for ``total`` filled cells in exactly one, exactly two, or
three or more blocks. The reachability DP of ``linesolve.solve_count_dp`` tracks every filled
count f of every prefix state, O(n * total) time and memory (a 20,000-cell line with half its
cells filled: 3 s and 1.6 GB per line solve). Here each state holds an interval of f instead:

- *Exactly one block*: the f of prefixes [0, j) holding one block (the rest empty) form an
  interval: the blocks must cover the prefix's known filled cells and avoid its known empty ones,
  so they are the runs inside one gap between known empty cells, any length between the span
  of the known filled cells (or 1) and the gap's length.
- *At least k blocks* (k = 0..3, k = 3 standing for "three or more") and last cell filled or
  not: f forms an interval too. (Exact block counts do not: "#?#x?" has 2 blocks with 2 or 4
  filled cells, never 3. Checked exhaustively against the DP for every state of every line of up
  to 10 cells, and by tests/test_linecount.py.) Both recurrences are exact set equations, so the
  hull of the union of two intervals is the set.

Plain clues use ``solve_plain`` (one block, O(n)). Circles are two one-block parts split by the
gap between the blocks: for every end e of the first block, the first block's lengths P[e] and
the second part's U[e+1] must add up to the total. Squares combine prefix sets G[i][k][s] ("at
least k blocks, last cell s") with the same sets of the reversed line for the suffix. Each cell
is then decided in O(1) from the intervals around it.

Same contract as the other line solvers: False on a contradiction, else ``out`` holds per cell
the OR of its values over every fix (a subset of ``state``).
"""
import numpy as np

from ..model.cells import EMPTY, FILLED, UNKNOWN
from ..jit import njit
from ..model.puzzle import KIND_CIRCLE, KIND_PLAIN

_BIG = 1 << 60  # empty interval: lo = _BIG, hi = -_BIG


@njit(shared=True, _nrt=True)
def solve_plain(state, n, t, out):
    """Exact line solving for a plain 3D clue (one block of t cells) in O(n): the same result as
    the DP. Cell i is filled in every fix iff every feasible block start covers it, and possibly
    filled iff some feasible start does."""
    first = -1
    last = -1
    for i in range(n):
        if state[i] == 0:
            return False
        if state[i] == FILLED:
            if first < 0:
                first = i
            last = i
    if t == 0:
        if first >= 0:
            return False
        for i in range(n):
            out[i] = EMPTY
        return True
    # feasible starts: [s, s+t) has no known empty and covers [first, last]
    lo = 0 if first < 0 else max(0, last - t + 1)
    hi = n - t if first < 0 else min(first, n - t)
    s_min = -1
    s_max = -1
    run = 0  # cells without a known empty ending at i
    for i in range(n):
        if state[i] == EMPTY:
            run = 0
        else:
            run += 1
        s = i - t + 1
        if run >= t and lo <= s <= hi:
            if s_min < 0:
                s_min = s
            s_max = s
    if s_min < 0:
        return False
    # union of the feasible intervals: cells reachable by some feasible start
    for i in range(n):
        out[i] = EMPTY
    run = 0
    reach = -1  # furthest cell covered by a feasible start seen so far
    for i in range(n):
        if state[i] == EMPTY:
            run = 0
        else:
            run += 1
        s = i - t + 1
        if run >= t and lo <= s <= hi:
            for j in range(max(s, reach + 1), i + 1):
                out[j] = UNKNOWN
            reach = i
    for i in range(s_max, s_min + t):
        out[i] = FILLED
    for i in range(n):
        out[i] &= state[i]
    return True


@njit
def _reversed(state, n):
    """The line backwards (a copy: one kernel signature serves both directions)."""
    r = np.empty(n, np.int8)
    for i in range(n):
        r[i] = state[n - 1 - i]
    return r


@njit
def _one_block(state, n, p, q):
    """Prefix intervals of the line, for j = 0..n (cells [0, j)):
    p[2j], p[2j+1]: lengths of a single block ending at cell j-1 with every other cell of the
    prefix empty; q[2j], q[2j+1]: filled counts of prefixes holding exactly one block."""
    first_f = n  # first known filled cell of the whole line
    for i in range(n):
        if state[i] == FILLED:
            first_f = i
            break
    last_e = -1  # last known empty cell before j
    p[0] = _BIG
    p[1] = -_BIG
    q[0] = _BIG
    q[1] = -_BIG
    for j in range(1, n + 1):
        v = state[j - 1]
        if v == EMPTY:
            last_e = j - 1
        lo = _BIG
        hi = -_BIG
        if v & FILLED:
            a_hi = min(first_f, j - 1)
            if last_e + 1 <= a_hi:
                lo = j - a_hi
                hi = j - last_e - 1
        p[2 * j] = lo
        p[2 * j + 1] = hi
        if v & EMPTY:
            lo = min(lo, q[2 * j - 2])
            hi = max(hi, q[2 * j - 1])
        q[2 * j] = lo
        q[2 * j + 1] = hi


@njit(inline="always")
def _meets(alo, ahi, blo, bhi, t):
    """Whether some a in [alo, ahi] and b in [blo, bhi] add up to t."""
    return alo <= ahi and blo <= bhi and alo + blo <= t <= ahi + bhi


@njit
def _circle(state, n, t, out):
    p = np.empty(2 * (n + 1), np.int64)
    q = np.empty(2 * (n + 1), np.int64)
    rp = np.empty(2 * (n + 1), np.int64)  # the reversed line's: blocks starting at cell n - j
    rq = np.empty(2 * (n + 1), np.int64)
    _one_block(state, n, p, q)
    _one_block(_reversed(state, n), n, rp, rq)
    cover = np.zeros(n + 1, np.int64)
    a_max = -1  # latest start of a first block over all fixes
    b_min = n + 1  # earliest end of a second block
    for e in range(1, n):
        if not (state[e] & EMPTY):
            continue
        # first block [e - len, e), cell e empty, exactly one block in [e + 1, n)
        u = n - e - 1
        lo = max(p[2 * e], t - rq[2 * u + 1])
        hi = min(p[2 * e + 1], t - rq[2 * u])
        if lo <= hi and rq[2 * u] <= rq[2 * u + 1]:
            cover[e - hi] += 1
            cover[e] -= 1
            a_max = max(a_max, e - lo)
        # second block [e + 1, e + 1 + len), cell e empty, exactly one block in [0, e)
        s = n - e - 1  # the reversed line's prefix [0, s) is [e + 1, n)
        lo = max(rp[2 * s], t - q[2 * e + 1])
        hi = min(rp[2 * s + 1], t - q[2 * e])
        if lo <= hi and q[2 * e] <= q[2 * e + 1]:
            cover[e + 1] += 1
            cover[e + 1 + hi] -= 1
            b_min = min(b_min, e + 1 + lo)
    if a_max < 0:
        return False
    run = 0
    for i in range(n):
        run += cover[i]
        v = 0
        if run > 0:
            v = FILLED
        if state[i] & EMPTY:
            u = n - i - 1
            if i < a_max or i >= b_min or _meets(q[2 * i], q[2 * i + 1], rq[2 * u], rq[2 * u + 1], t):
                v |= EMPTY
        out[i] = v
    return True


@njit
def _at_least(state, n, g):
    """g[((j*4 + k)*2 + s)*2 + (0 lo | 1 hi)]: the filled counts of prefixes [0, j) of the line
    with at least k blocks (k = 3: three or more) whose last cell is filled iff s."""
    for x in range(16):
        g[x] = _BIG if x % 2 == 0 else -_BIG
    g[0] = 0  # j = 0, k = 0, s = 0: the empty prefix
    g[1] = 0
    for j in range(n):
        v = state[j]
        a = 16 * j
        b = 16 * (j + 1)
        for k in range(4):
            lo = _BIG
            hi = -_BIG
            if v & EMPTY:  # (k, any s) -> (k, 0)
                lo = min(g[a + 4 * k], g[a + 4 * k + 2])
                hi = max(g[a + 4 * k + 1], g[a + 4 * k + 3])
            g[b + 4 * k] = lo
            g[b + 4 * k + 1] = hi
            lo = _BIG
            hi = -_BIG
            if v & FILLED:  # (k - 1, 0) starts a block, (k, 1) extends one; f + 1
                kk = max(k - 1, 0)
                lo = min(g[a + 4 * kk], g[a + 4 * max(k, 1) + 2])
                hi = max(g[a + 4 * kk + 1], g[a + 4 * max(k, 1) + 3])
                if lo <= hi:
                    lo += 1
                    hi += 1
            g[b + 4 * k + 2] = lo
            g[b + 4 * k + 3] = hi


@njit
def _square(state, n, t, out):
    g = np.empty(16 * (n + 1), np.int64)
    h = np.empty(16 * (n + 1), np.int64)  # the reversed line's: suffixes
    _at_least(state, n, g)
    _at_least(_reversed(state, n), n, h)
    ok = False
    for s in range(2):
        if g[16 * n + 12 + 2 * s] <= t <= g[16 * n + 13 + 2 * s]:
            ok = True
    if not ok:
        return False
    for i in range(n):
        a = 16 * i
        b = 16 * (n - i - 1)  # suffix [i + 1, n)
        v = 0
        for s in range(2):
            for s2 in range(2):
                for k in range(4):
                    ga = a + 4 * k + 2 * s
                    if g[ga] > g[ga + 1]:
                        continue
                    if (state[i] & EMPTY) and not (v & EMPTY):
                        hb = b + 4 * (3 - k) + 2 * s2
                        if _meets(g[ga], g[ga + 1], h[hb], h[hb + 1], t):
                            v |= EMPTY
                    need = max(0, 2 + s + s2 - k)
                    if (state[i] & FILLED) and not (v & FILLED) and need <= 3:
                        # cell i filled: blocks = prefix + suffix + 1 - s - s2 >= 3
                        hb = b + 4 * need + 2 * s2
                        if _meets(g[ga], g[ga + 1], h[hb], h[hb + 1], t - 1):
                            v |= FILLED
        out[i] = v
    return True


@njit(shared=True, _nrt=True)
def count_intervals(state, total, kind, out):
    """Complete line solving of a plain/circle/square clue with ``total`` filled cells, O(n)."""
    n = state.shape[0]
    for i in range(n):
        if state[i] == 0:
            return False
    if total < 0 or total > n:
        return False
    if kind == KIND_PLAIN:
        return solve_plain(state, n, total, out)
    if kind == KIND_CIRCLE:
        return _circle(state, n, total, out)
    return _square(state, n, total, out)
