"""Complete line solvers for colour lines: every cell's set of possible values over all solutions.

A cell's state is a bitmask (int64): bit 0 empty, bit c colour c (1..k). A line solver takes
the states of a line's cells and returns, for each cell, the OR over every filling that fits both
the clue and the states: exactly the values some solution gives the cell, nothing less (a
complete line solver). A line with no filling gives all-zero states (a contradiction).

Both clue kinds are deterministic automata read over the line, solved by the same sparse forward/
backward reachability: forward, the set of automaton states reachable after each cell (a sorted
array per cell); backward, the states from which an accepting state is reachable; a value is
possible at cell i when it takes a state alive on both sides across i.

- 2D ordered coloured blocks: the automaton is the expanded block pattern (``dfa_2d``): state q
  means the first q symbols of the pattern are placed; empty cells loop where a gap may grow.
- 3D per-colour counts: the state is, per colour, the count placed so far and its run number
  (capped at the mark: 1 plain, 2 circle, 3 = "three or more" square), plus the previous cell's
  value (a run of c starts where the previous cell is not c). Encoded as one mixed-radix int64,
  computed on the fly (``_step3``): the product of k colours can be large, so states are never
  tabled, and states that can no longer place their remaining counts are cut forward.

``relax_3d`` is a cheaper sound (not complete) filter for 3D lines: each colour against "not this
colour" on its own; the propagation runs it before the exact product.
"""
from __future__ import annotations

import numpy as np

from ..model.cells import EMPTY, FILLED
from ..jit import njit
from .linesolve import solve_count
from ..model.puzzle import KIND_PLAIN

EMPTY_BIT = 1


def dfa_2d(blocks, k: int) -> np.ndarray:
    """Transition table (m+1, k+1) int64 of a 2D colour clue ``[(length, colour), ...]``; -1 = none
    (``dfa_2d_tables`` for one line).

    Pattern symbols p_0..p_{m-1}: each block's cells, with a mandatory empty between blocks of the
    same colour. State m accepts. Empty cells loop at the start, at the end, right after a block
    when no mandatory gap follows, and on the state after a mandatory gap, so that the automaton
    stays deterministic.
    """
    data = np.array([v for b in blocks for v in b], dtype=np.int64)
    start = np.array([0, len(data)], dtype=np.int64)
    return dfa_2d_tables(np.ones(1, np.int8), start, data, k, 1)[0]


@njit(inline="always")
def _pattern_len(clue_data, a, b) -> int:
    """Symbols of the pattern of the blocks ``clue_data[a:b]`` (length, colour pairs)."""
    m = 0
    prev = 0
    for j in range(a, b, 2):
        if prev == clue_data[j + 1]:
            m += 1
        m += clue_data[j]
        prev = clue_data[j + 1]
    return m


@njit(inline="always")
def _fill_table(clue_data, a, b, tab, r0, pat, block_end, gap):
    """Rows r0..r0+m of ``tab``: the automaton of the blocks ``clue_data[a:b]`` (``dfa_2d``)."""
    m = 0
    prev = 0
    for j in range(a, b, 2):
        c = clue_data[j + 1]
        if prev == c:
            pat[m] = 0
            block_end[m] = False
            gap[m] = True
            m += 1
        length = clue_data[j]
        for t in range(length):
            pat[m] = c
            block_end[m] = t == length - 1
            gap[m] = False
            m += 1
        prev = c
    for q in range(m + 1):
        if q < m:
            tab[r0 + q, pat[q]] = q + 1
        if q == 0 or q == m or (block_end[q - 1] and pat[q] != 0) or gap[q - 1]:
            tab[r0 + q, 0] = q


@njit(cache=True)
def dfa_2d_tables(clue_kind, clue_start, clue_data, k, blocks_kind):
    """Every 2D line's ``dfa_2d`` table at once, from a colour puzzle's flat clue arrays: (tab_all
    (rows, k+1), tab_start (n_lines+1,)), line i's table in rows tab_start[i]:tab_start[i+1] for
    each line of kind ``blocks_kind`` (other lines' entries are left as the tables before them
    set them); one zero row when there is no such line. One kernel rather than a table per line
    in Python: building those was half a median 2D benchmark puzzle's solve time."""
    n = clue_kind.shape[0]
    tab_start = np.zeros(n + 1, dtype=np.int64)
    rows = 0
    longest = 0
    for i in range(n):
        if clue_kind[i] != blocks_kind:
            continue
        m = _pattern_len(clue_data, clue_start[i], clue_start[i + 1])
        tab_start[i] = rows
        rows += m + 1
        tab_start[i + 1] = rows
        longest = max(longest, m)
    if rows == 0:
        return np.zeros((1, k + 1), dtype=np.int64), tab_start
    tab = np.full((rows, k + 1), -1, dtype=np.int64)
    pat = np.empty(longest, dtype=np.int64)
    block_end = np.empty(longest, dtype=np.bool_)
    gap = np.empty(longest, dtype=np.bool_)
    for i in range(n):
        if clue_kind[i] == blocks_kind:
            _fill_table(clue_data, clue_start[i], clue_start[i + 1], tab, tab_start[i], pat, block_end, gap)
    return tab, tab_start


@njit(inline="always")
def _closes_dead(rest, c, cnt, base, mult) -> bool:
    """Whether closing a run of colour ``c`` (0-based) leaves a state no filling can accept: its
    runs are final (1 plain, 2 circle) with cells still to place, or it cannot make the runs its
    mark still needs from the cells it has left (a run takes a cell at least). Without this cut a
    plain colour whose run ended short lived on to the line's end, times every state of the other
    colours: most of a 2-colour line's product states at 64 were such dead ones."""
    n1 = cnt[c] + 1
    d = (rest // mult[c]) % base[c]
    have = d % n1
    runs = d // n1
    rmax = base[c] // n1 - 1
    left = cnt[c] - have
    if rmax < 3 and runs == rmax:
        return left > 0
    return left < rmax - runs


@njit(cache=True)
def _step3(q, s, k, cnt, base, mult):
    """Next 3D state from state q reading value s (0 empty, 1..k); -1 when the clue forbids it."""
    k1 = k + 1
    last = q % k1
    rest = q // k1
    if last != 0 and last != s and _closes_dead(rest, last - 1, cnt, base, mult):
        return -1
    if s == 0:
        return rest * k1
    c = s - 1
    d = (rest // mult[c]) % base[c]
    n1 = cnt[c] + 1
    have = d % n1
    runs = d // n1
    if have + 1 > cnt[c]:
        return -1
    rmax = base[c] // n1 - 1
    if last != s:
        runs += 1
        if runs > rmax:
            if rmax == 3:
                runs = 3
            else:
                return -1
    nd = (have + 1) + n1 * runs
    return (rest + (nd - d) * mult[c]) * k1 + s


@njit(cache=True)
def _need3(q, k, cnt, base, mult):
    """Cells the colours of 3D state q still have to place."""
    rest = q // (k + 1)
    need = 0
    for c in range(k):
        d = (rest // mult[c]) % base[c]
        need += cnt[c] - d % (cnt[c] + 1)
    return need


@njit(cache=True)
def _grow(a, n):
    if n <= a.shape[0]:
        return a
    b = np.empty(max(n, 2 * a.shape[0]), dtype=a.dtype)
    b[:a.shape[0]] = a
    return b


@njit(cache=True)
def _contains(arr, lo, hi, v):
    i = lo + np.searchsorted(arr[lo:hi], v)
    return i < hi and arr[i] == v


@njit(cache=True)
def solve_automaton(masks, mode, tab, k, cnt, rmax):
    """The complete line solver. ``mode`` 1: 2D, ``tab`` = ``dfa_2d`` table; mode 2: 3D, ``cnt``
    and ``rmax`` the per-colour counts and run caps (1 plain, 2 circle, 3 square; 0 for count 0).
    Returns the new states (all zero on a contradiction). A line whose states would pass
    STATE_CAP is left as it is (see ``solve_automaton_limited``)."""
    work = np.zeros(2, dtype=np.int64)
    work[0] = -1
    return solve_automaton_limited(masks, mode, tab, k, cnt, rmax, work)


# The product solver's states, at most (all layers together; 8 bytes each, and as many again for
# one layer's candidates): a 64-long line of four colours may need billions, and the time and
# memory with them. Past it the line is left unsolved (its states as given: sound, not complete).
STATE_CAP = 1 << 24


# 3D lines whose product space (every count, run number and last value of every colour) has at
# most this many states are solved over dense marks (``_solve_3d_dense``): int32 marks per state,
# 24 MB at most, which a 64-long line of two colours never nears (~200k states).
DENSE_STATES = 1 << 21


@njit(inline="always")
def _spent(work, a, b, k1) -> bool:
    """A layer of ``b - a`` states about to be expanded: take its steps from ``work[0]`` (when it
    counts) and say whether the budget ran out (``work[1]`` = 1) or the states would pass
    STATE_CAP (``work[1]`` = 2)."""
    if work[0] >= 0:
        work[0] -= (b - a) * k1
        if work[0] < 0:
            work[1] = 1
            return True
    if b + (b - a) * k1 > STATE_CAP:
        work[1] = 2
        return True
    return False


@njit(inline="always")
def _spent_back(work, a, b, k1) -> bool:
    """``_spent`` for a layer of the backward pass (no new states, so no cap): it costs about
    what the forward layer did, and a line that ends its forward pass inside the budget must not
    run a whole unbudgeted backward pass past its caller's clock (a 4-colour line at 36 had
    taken 3 s past a 0.3 s limit so)."""
    if work[0] >= 0:
        work[0] -= (b - a) * k1
        if work[0] < 0:
            work[1] = 1
            return True
    return False


@njit(cache=True)
def _digit_tables(k, cnt, base):
    """Per colour c and digit d (its (count, run) pair, ``_step3``'s encoding): the digit after
    placing c continuing its run (``cont``) or starting a new one (``start``), -1 where the clue
    forbids it, and whether closing a run there leaves a dead state (``dead``, ``_closes_dead``).
    ``_solve_3d_dense`` steps through these lookups instead of ``_step3``'s divisions."""
    bmax = 1
    for c in range(k):
        bmax = max(bmax, base[c])
    cont = np.full((k, bmax), -1, dtype=np.int64)
    start = np.full((k, bmax), -1, dtype=np.int64)
    dead = np.zeros((k, bmax), dtype=np.bool_)
    one = np.ones(1, dtype=np.int64)
    for c in range(k):
        n1 = cnt[c] + 1
        rmax = base[c] // n1 - 1
        for d in range(base[c]):
            have = d % n1
            runs = d // n1
            dead[c, d] = _closes_dead(d, 0, cnt[c:c + 1], base[c:c + 1], one)
            if have + 1 > cnt[c]:
                continue
            cont[c, d] = (have + 1) + n1 * runs
            r = runs + 1
            if r > rmax:
                if rmax != 3:
                    continue
                r = 3
            start[c, d] = (have + 1) + n1 * r
    return cont, start, dead


@njit(inline="always")
def _decode(q, k, cnt, base, mult, dg):
    """The digits of 3D state ``q`` into ``dg``; returns the cells its colours still have to place
    (``_need3``). Once per state, so that its steps (``_tstep``) need no division."""
    rest = q // (k + 1)
    need = 0
    for c in range(k):
        d = (rest // mult[c]) % base[c]
        dg[c] = d
        need += cnt[c] - d % (cnt[c] + 1)
    return need


@njit(inline="always")
def _tstep(q, s, last, closing, dg, cont, start, step):
    """``_step3`` of a decoded state (``_decode``; ``closing``: ``_closes_dead`` of its last
    value's colour) through ``_digit_tables``: the same next state, or -1."""
    if s != last and closing:
        return -1
    if s == 0:
        return q - last
    c = s - 1
    e = cont[c, dg[c]] if last == s else start[c, dg[c]]
    if e < 0:
        return -1
    return q - last + s + (e - dg[c]) * step[c]


@njit(cache=True)
def _solve_3d_dense(masks, k, cnt, base, mult, accept, space, work):
    """``solve_automaton_limited`` of a 3D line (mode 2) whose product space has ``space`` states,
    with the same answers, budget steps and cap: each layer's states found once through marks
    indexed by state (no sort), their cells still to place, last value and per-colour digits
    carried along and stepped through ``_digit_tables`` (no division per step: ``_step3``'s were
    most of a 2-colour line's time at 64), and the backward pass's alive states marked per layer
    (no search)."""
    L = masks.shape[0]
    k1 = k + 1
    out = np.zeros(L, dtype=np.int64)
    cont, start, dead = _digit_tables(k, cnt, base)
    step = np.empty(k, dtype=np.int64)  # a digit's weight in the state: k1 * mult
    for c in range(k):
        step[c] = k1 * mult[c]
    seen = np.full(space, -1, dtype=np.int32)       # the forward layer a state was last added to
    alive = np.full((2, space), -1, dtype=np.int32)  # the backward layer a state is alive in
    states = np.empty(64, dtype=np.int64)
    need = np.empty(64, dtype=np.int64)
    digs = np.zeros(64 * k, dtype=np.int64)  # state j's digits at j * k .. j * k + k - 1
    lstart = np.zeros(L + 2, dtype=np.int64)
    total = 0
    for c in range(k):
        total += cnt[c]
    states[0] = 0
    need[0] = total
    lstart[1] = 1
    for i in range(L):
        a, b = lstart[i], lstart[i + 1]
        if _spent(work, a, b, k1):
            return masks.copy()
        states = _grow(states, b + (b - a) * k1)
        need = _grow(need, b + (b - a) * k1)
        digs = _grow(digs, (b + (b - a) * k1) * k)
        nb = b
        left = L - i - 1
        mi = masks[i]
        for j in range(a, b):
            q = states[j]
            nd = need[j]
            last = q % k1
            closing = last > 0 and dead[last - 1, digs[j * k + last - 1]]
            for s in range(k1):
                if (mi >> s) & 1 == 0:
                    continue
                if s != last and closing:
                    continue
                if s == 0:
                    nq = q - last
                    nn = nd
                else:
                    c = s - 1
                    d = digs[j * k + c]
                    e = cont[c, d] if last == s else start[c, d]
                    if e < 0:
                        continue
                    nq = q - last + s + (e - d) * step[c]
                    nn = nd - 1
                if nn > left or seen[nq] == i:
                    continue
                seen[nq] = i
                states[nb] = nq
                need[nb] = nn
                for t in range(k):
                    digs[nb * k + t] = digs[j * k + t]
                if s > 0:
                    digs[nb * k + s - 1] = e
                nb += 1
        if nb == b:
            return out
        lstart[i + 2] = nb
    a, b = lstart[L], lstart[L + 1]
    found = False
    for j in range(a, b):
        q = states[j]
        if q // k1 == accept:
            alive[L & 1, q] = L
            found = True
    if not found:
        return out
    for i in range(L - 1, -1, -1):
        a, b = lstart[i], lstart[i + 1]
        if _spent_back(work, a, b, k1):
            return masks.copy()
        nxt = alive[(i + 1) & 1]
        now = alive[i & 1]
        mi = masks[i]
        for j in range(a, b):
            q = states[j]
            last = q % k1
            closing = last > 0 and dead[last - 1, digs[j * k + last - 1]]
            for s in range(k1):
                if (mi >> s) & 1 == 0:
                    continue
                if s != last and closing:
                    continue
                if s == 0:
                    nq = q - last
                else:
                    c = s - 1
                    d = digs[j * k + c]
                    e = cont[c, d] if last == s else start[c, d]
                    if e < 0:
                        continue
                    nq = q - last + s + (e - d) * step[c]
                if nxt[nq] == i + 1:
                    out[i] |= np.int64(1) << s
                    now[q] = i
    return out


@njit(cache=True)
def solve_automaton_limited(masks, mode, tab, k, cnt, rmax, work):
    """``solve_automaton`` that can give up: ``work[0]`` state steps allowed, forward and backward (-1: any number).
    When they run out, ``work[1]`` = 1; when the states would pass STATE_CAP, ``work[1]`` = 2;
    either way the masks are returned unchanged (a sound answer that deduces nothing). A single
    line of a long 3D line of four colours took 10-25 s: the step budget lets a caller with a
    deadline stop inside it (``colourprop.propagate_queues``)."""
    L = masks.shape[0]
    k1 = k + 1
    out = np.zeros(L, dtype=np.int64)
    base = np.ones(max(k, 1), dtype=np.int64)
    mult = np.ones(max(k, 1), dtype=np.int64)
    accept = 0
    m = 0
    if mode == 2:
        acc = 0
        for c in range(k):
            base[c] = (cnt[c] + 1) * (rmax[c] + 1)
            if c > 0:
                mult[c] = mult[c - 1] * base[c - 1]
            acc += (cnt[c] + (cnt[c] + 1) * (rmax[c] if cnt[c] > 0 else 0)) * mult[c]
        accept = acc
        space = mult[k - 1] * base[k - 1] * k1
        if space <= DENSE_STATES:
            return _solve_3d_dense(masks, k, cnt, base, mult, accept, space, work)
        cont, start, dead = _digit_tables(k, cnt, base)
    else:
        m = tab.shape[0] - 1
        cont = np.zeros((1, 1), dtype=np.int64)
        start = cont
        dead = np.zeros((1, 1), dtype=np.bool_)
    step = np.empty(max(k, 1), dtype=np.int64)
    for c in range(k):
        step[c] = k1 * mult[c]
    dg = np.zeros(max(k, 1), dtype=np.int64)
    # forward layers, flat: states[lstart[i]:lstart[i+1]] reachable before cell i
    states = np.empty(64, dtype=np.int64)
    lstart = np.zeros(L + 2, dtype=np.int64)
    states[0] = 0
    lstart[1] = 1
    cand = np.empty(64, dtype=np.int64)
    for i in range(L):
        a, b = lstart[i], lstart[i + 1]
        if _spent(work, a, b, k1):
            return masks.copy()
        cand = _grow(cand, (b - a) * k1)
        nc = 0
        left = L - i - 1
        mi = masks[i]
        for j in range(a, b):
            q = states[j]
            last = 0
            need = 0
            closing = False
            if mode == 2:
                need = _decode(q, k, cnt, base, mult, dg)
                last = q % k1
                closing = last > 0 and dead[last - 1, dg[last - 1]]
            for s in range(k1):
                if (mi >> s) & 1 == 0:
                    continue
                if mode == 2:
                    nq = _tstep(q, s, last, closing, dg, cont, start, step)
                    if nq < 0 or need - (1 if s > 0 else 0) > left:
                        continue
                else:
                    nq = tab[q, s]
                    if nq < 0 or m - nq > left:
                        continue
                cand[nc] = nq
                nc += 1
        if nc == 0:
            return out
        nxt = np.unique(cand[:nc])
        states = _grow(states, b + nxt.shape[0])
        states[b:b + nxt.shape[0]] = nxt
        lstart[i + 2] = b + nxt.shape[0]
    # backward: alive states of layer L are the accepting ones
    a, b = lstart[L], lstart[L + 1]
    alive = np.empty(b - a, dtype=np.int64)
    na = 0
    for j in range(a, b):
        q = states[j]
        if (mode == 2 and q // k1 == accept) or (mode == 1 and q == m):
            alive[na] = q
            na += 1
    if na == 0:
        return out
    alive = alive[:na]
    for i in range(L - 1, -1, -1):
        a, b = lstart[i], lstart[i + 1]
        if _spent_back(work, a, b, k1):
            return masks.copy()
        now = np.empty(b - a, dtype=np.int64)
        nn = 0
        mi = masks[i]
        for j in range(a, b):
            q = states[j]
            ok = False
            last = 0
            closing = False
            if mode == 2:
                _decode(q, k, cnt, base, mult, dg)
                last = q % k1
                closing = last > 0 and dead[last - 1, dg[last - 1]]
            for s in range(k1):
                if (mi >> s) & 1 == 0:
                    continue
                if mode == 2:
                    nq = _tstep(q, s, last, closing, dg, cont, start, step)
                else:
                    nq = tab[q, s]
                if nq >= 0 and _contains(alive, 0, alive.shape[0], nq):
                    out[i] |= np.int64(1) << s
                    ok = True
            if ok:
                now[nn] = q
                nn += 1
        alive = now[:nn]  # layers are sorted, so the alive subset is too
    return out


@njit(cache=True)
def solve_dfa_dense(masks, tab):
    """The complete 2D line solver on a dense reachability table (cells x pattern states): a 2D
    clue's automaton has m+1 states, each with at most two moves (its pattern symbol to q+1, an
    empty-cell loop), and the states reachable at a cell form a band [lo, hi], so a table beats
    the sorted sets of ``solve_automaton`` (same answer; tested against each other and against
    enumeration). All zero states on a contradiction."""
    L = masks.shape[0]
    M = tab.shape[0]
    k1 = tab.shape[1]
    m = M - 1
    out = np.zeros(L, dtype=np.int64)
    sym = np.full(M, -1, dtype=np.int64)
    loop = np.zeros(M, dtype=np.bool_)
    for q in range(M):
        loop[q] = tab[q, 0] == q
        for s in range(k1):
            if q < m and tab[q, s] == q + 1:
                sym[q] = s
    fw = np.zeros((L + 1, M), dtype=np.bool_)
    fw[0, 0] = True
    lo = 0
    hi = 0
    # each layer's band, so that the backward pass walks it alone rather than every state (the
    # line solves were most of a picture puzzle's solve once its set-up was cut, #40)
    los = np.empty(L + 1, dtype=np.int64)
    his = np.empty(L + 1, dtype=np.int64)
    los[0] = 0
    his[0] = 0
    for i in range(L):
        mi = masks[i]
        left = L - i - 1
        nlo = M
        nhi = -1
        empty_ok = mi & 1
        for q in range(lo, hi + 1):
            if not fw[i, q]:
                continue
            if empty_ok and loop[q] and m - q <= left:
                fw[i + 1, q] = True
                nlo = min(nlo, q)
                nhi = max(nhi, q)
            sq = sym[q]
            if sq >= 0 and (mi >> sq) & 1 and m - q - 1 <= left:
                fw[i + 1, q + 1] = True
                nlo = min(nlo, q + 1)
                nhi = max(nhi, q + 1)
        if nhi < 0:
            return out
        lo = nlo
        hi = nhi
        los[i + 1] = lo
        his[i + 1] = hi
    if not fw[L, m]:
        return out
    # bw: layer i+1's states from which the end is reached, exact on its band (outside it, what
    # an earlier layer left: read only within the band, where fw is False anyway outside)
    bw = np.zeros(M, dtype=np.bool_)
    nb = np.zeros(M, dtype=np.bool_)
    bw[m] = True
    for i in range(L - 1, -1, -1):
        mi = masks[i]
        lo1 = los[i + 1]
        hi1 = his[i + 1]
        v = np.int64(0)
        for q in range(los[i], his[i] + 1):
            nb[q] = False
            if not fw[i, q]:
                continue
            if mi & 1 and loop[q] and lo1 <= q <= hi1 and bw[q]:
                v |= 1
                nb[q] = True
            sq = sym[q]
            if sq >= 0 and (mi >> sq) & 1 and lo1 <= q + 1 <= hi1 and bw[q + 1]:
                v |= np.int64(1) << sq
                nb[q] = True
        out[i] = v
        bw, nb = nb, bw
    return out


@njit(cache=True)
def one_block(view, n, res) -> bool:
    """The complete black-and-white line solver of a plain 3D count (``n`` >= 1 filled cells in
    one block): ``solve_count``'s answer for KIND_PLAIN (tested against it), in O(L) and no
    scratch arrays (the per-colour filter's most common colour clue: three in four of a 2-colour
    model's non-zero counts at 64, where three arrays per call were a fifth of the filter's
    time). A block may start at p when its n cells may be filled and every other cell empty:
    the cells that cannot be empty lie inside it, which bounds p, and a sliding count of the
    cells that cannot be filled checks the rest."""
    L = view.shape[0]
    if n > L:
        return False
    first_ne = L  # the first and last cells that cannot be empty
    last_ne = -1
    for i in range(L):
        res[i] = 0
        if view[i] & EMPTY == 0:
            if first_ne == L:
                first_ne = i
            last_ne = i
    p0 = max(0, last_ne + 1 - n)
    p1 = min(L - n, first_ne)
    bad = 0  # cells of [p, p + n) that cannot be filled
    for i in range(p0, min(p0 + n, L)):
        if view[i] & FILLED == 0:
            bad += 1
    lo = L
    hi = -1
    end = 0  # cells before it are marked FILLED where a block covers them
    for p in range(p0, p1 + 1):
        if p > p0:
            bad += (1 if view[p + n - 1] & FILLED == 0 else 0) - (1 if view[p - 1] & FILLED == 0 else 0)
        if bad == 0:
            lo = min(lo, p)
            hi = p
            for i in range(max(p, end), p + n):
                res[i] |= FILLED
            end = p + n
    if hi < 0:
        return False
    for i in range(L):
        if i < hi or i >= lo + n:
            res[i] |= EMPTY
    return True


@njit(inline="always")
def _relax_colour(cur, c, cnt, rmax, view, res) -> int:
    """Colour ``c`` (1-based) of ``cur`` against "not this colour", in place: 1 when it narrowed a
    cell, 0 when not, -1 on a contradiction (``cur`` then partly narrowed)."""
    L = cur.shape[0]
    bit = np.int64(1) << c
    changed = 0
    if cnt[c - 1] == 0:
        for i in range(L):
            if cur[i] & bit:
                cur[i] &= ~bit
                changed = 1
                if cur[i] == 0:
                    return -1
        return changed
    # the loops are branch-free: on a partly known line the branches per cell were mispredicted
    # often enough to take most of the filter's time
    for i in range(L):
        view[i] = (EMPTY if cur[i] & ~bit else 0) | (FILLED if cur[i] & bit else 0)
        res[i] = 0
    # marks 0/1/2 (plain/circle/square) are the black-and-white kinds KIND_PLAIN..KIND_SQUARE
    if rmax[c - 1] == 1:
        if not one_block(view, cnt[c - 1], res):
            return -1
    elif not solve_count(view, cnt[c - 1], KIND_PLAIN + rmax[c - 1] - 1, res):
        return -1
    changed = 0
    dead = 0
    for i in range(L):
        # the colours the cell keeps: this one if it may be filled, the others if it may be empty
        keep = (bit if res[i] & FILLED else 0) | (~bit if res[i] & EMPTY else 0)
        v = cur[i] & keep
        changed |= v != cur[i]
        dead |= v == 0
        cur[i] = v
    return -1 if dead else changed


@njit(cache=True)
def relax_3d(masks, k, cnt, rmax):
    """Each colour on its own against "not this colour" (a sound filter, not complete): drops the
    colours a cell cannot take by its own colour's clue. All zero states on a contradiction.
    Each colour's view is a black-and-white 3D line (filled = this colour), solved by the
    engine's black-and-white count solver (``linesolve.solve_count``)."""
    L = masks.shape[0]
    cur = masks.copy()
    view = np.empty(L, dtype=np.int8)
    res = np.empty(L, dtype=np.int8)
    for c in range(1, k + 1):
        if _relax_colour(cur, c, cnt, rmax, view, res) < 0:
            return np.zeros(L, dtype=np.int64)
    return cur


@njit(cache=True)
def relax_3d_fixpoint(masks, k, cnt, rmax):
    """``relax_3d`` repeated to its fixpoint (the same answer: each colour's filter narrows
    monotonically, so their common fixpoint does not depend on the order), with less work: the
    colours in turn, stopping once k in a row changed nothing (a colour's own result is at its
    fixpoint, so a pass that only confirms is skipped). All zero states on a contradiction."""
    L = masks.shape[0]
    cur = masks.copy()
    view = np.empty(L, dtype=np.int8)
    res = np.empty(L, dtype=np.int8)
    quiet = 0
    need = k  # colours in a row to change nothing: k, or k - 1 after a change (its own colour is
    c = 1     # at its fixpoint)
    while quiet < need:
        st = _relax_colour(cur, c, cnt, rmax, view, res)
        if st < 0:
            return np.zeros(L, dtype=np.int64)
        if st:
            quiet = 0
            need = k - 1
        else:
            quiet += 1
        c = c + 1 if c < k else 1
    return cur


def rmax_of(mark_counts) -> tuple:
    """(cnt, rmax) int64 arrays of a 3D colour clue [(count, mark), ...]."""
    cnt = np.array([n for n, _ in mark_counts], dtype=np.int64)
    rmax = np.array([0 if n == 0 else m + 1 for n, m in mark_counts], dtype=np.int64)
    return cnt, rmax


_NO_TAB = np.zeros((1, 1), dtype=np.int64)
_NO_K = np.zeros(1, dtype=np.int64)


def solve_line(masks, clue, k: int, is_3d: bool) -> np.ndarray:
    """The complete line solver for one line: ``clue`` as ``ColourPuzzle.clue`` gives it."""
    masks = np.asarray(masks, dtype=np.int64)
    if clue is None:
        return masks.copy()
    if is_3d:
        cnt, rmax = rmax_of(clue)
        return solve_automaton(masks, 2, _NO_TAB, k, cnt, rmax)
    return solve_dfa_dense(masks, dfa_2d(clue, k))
