"""The learned scheduler (``solve(..., method="learned")``): the seed's heuristic idea (apply the
line most likely to deduce the most) with a priority learned from puzzles, as its section 6.2.2
suggests, instead of hand-set increments.

Only *dirty* lines are candidates: lines never applied yet, and lines with a cell that changed
since their last application (with the complete DP a line applied to its current state has
nothing more to give; the seed linesolver may find more on its own output, so with it a
productive line stays dirty). The run stops when no line is dirty: the same fixpoint as the
other schedulers. Among dirty lines the one with the highest score goes first, ties to the lower
line index; the score is a weighted sum of cheap per-line counters, kept up to date as cells
become known (no line solving goes into a score):

====  ==================================================================================
 0    new filled cells in the line since its last application
 1    new empty cells in the line since its last application
 2    unknown cells, when the line's filled or empty quota is met (it completes for sure)
 3    unknown cells
 4    line length
 5    cells an all-unknown line deduces by overlap, while the line is still all unknown
      (every cell of an empty line or a line without slack, the overlap of each block
      longer than the slack; 0 for circle and square clues)
 6    bad guesses on the line so far
 7    applications of the line so far
 8    min(filled left, empty left) / unknown cells: 0 when the line completes, 0.5 at worst
 9    new cells since the last application / unknown cells
10    1 for circle and square clues (their line solver is the slowest)
11    the clue's blocks (3 for square clues)
12    a gain estimate from the counts alone: the unknown cells when the line completes; for a
      plain clue with known filled cells spanning s cells, u - 2 * (filled left) + 2 * (s -
      known filled), a lower bound on what it deduces (the block covers the span, so its gaps
      fill and every unknown cell farther from the span than the filled cells left is empty);
      otherwise 2 * (filled left + gaps between blocks) - u, the overlap the line would have
      if its unknown cells were one run
13    1 when that estimate is positive
14    for each new empty cell since the last application, the filled cells left + 1 - its
      distance from the span of known filled cells, when positive (an empty cell close to the
      span cuts a plain clue's block's room on that side)
15    cells the span of known filled cells grew by since the last application
16    an estimate from the extent of the unknown cells (first to last unknown cell, e): with no
      filled cell known, 2 * (filled left + gaps between blocks) - e, the overlap if the
      unknown cells were one run; for a plain clue with known filled cells, the cells of the
      extent farther from the span than the filled cells left, plus the span's gaps
17    1 when that estimate is positive
====  ==================================================================================

The weights (one set without the pre-pass, one with) are in ``learned_scheduler.json`` beside
this module, produced by ``scripts/train_scheduler.py`` (evolutionary search on training
puzzles; docs/BENCHMARKS.md gives the training and validation figures).
"""
from __future__ import annotations

import json
import os

import numpy as np

from ...model.cells import FILLED, UNKNOWN
from ...jit import njit
from ...lines.lineheap import heap_push, heap_remove, heap_update
from .propagate import LS_DP, R_CONTRADICTION, S_LINESOLVERS, S_TLEN
from ...model.puzzle import KIND_BLOCKS, KIND_CIRCLE, KIND_PLAIN, KIND_SQUARE
from .schedulers import ST_CONTRADICTION, apply_counted, stop_status

N_FEATURES = 18
N_GROUPS = 2  # weight sets: plain clues, the other clue kinds
WEIGHTS_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "learned_scheduler.json")

# columns of the per-line counters (new_learned_queue): one line's counters side by side, since
# a new cell updates every counter of its lines at once
_KF, _DF, _DE, _APP, _BAD, _TOTAL, _NBLK, _OV0, _LO, _HI, _PUSH, _GROW, _UF, _UL = range(14)
N_COLUMNS = 14
# ctl slots: [started, heap size]

_weights_cache: dict = {}


def load_weights(prepass: bool, path: str = WEIGHTS_FILE) -> np.ndarray:
    """The shipped weights for a run with or without the pre-pass (float64, N_GROUPS *
    N_FEATURES: the plain clues' weights, then the other kinds')."""
    key = (path, bool(prepass))
    if key not in _weights_cache:
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
        names = data["features"]
        if len(names) != N_FEATURES:
            raise ValueError(f"{os.path.basename(path)}: {len(names)} features, expected {N_FEATURES}")
        w = np.asarray(data["prepass" if prepass else "no_prepass"]["weights"], np.float64).ravel()
        if w.shape != (N_GROUPS * N_FEATURES,) or not np.all(np.isfinite(w)):
            raise ValueError(f"{os.path.basename(path)}: weights must be {N_GROUPS} x {N_FEATURES} "
                             "finite numbers")
        _weights_cache[key] = w
    return _weights_cache[key]


def new_learned_queue(n_lines):
    """The scheduler's arrays: the heap and each line's heap slot (rows of one int64 array), the
    per-line counters (int64, a row per line, see ``_KF``...) and the scores (float64); filled in
    by the kernel's first call."""
    return (np.empty((2, n_lines), np.int64), np.empty((n_lines, N_COLUMNS), np.int64),
            np.empty(n_lines, np.float64))


@njit
def _static(li, n, kind, cd, c0, c1, lq):
    """Clue total, blocks and the all-unknown overlap of line li."""
    total = 0
    nblk = 0
    big = 0
    if kind == KIND_BLOCKS:
        for j in range(c0, c1):
            if cd[j] > 0:
                total += cd[j]
                nblk += 1
                big = max(big, cd[j])
    else:
        total = cd[c0]
        if kind == KIND_PLAIN:
            nblk = 1 if total > 0 else 0
            big = total
        elif kind == KIND_CIRCLE:
            nblk = 2
        else:
            nblk = 3
    slack = n - total - max(nblk - 1, 0)
    ov = 0
    if total == 0 or slack <= 0:
        ov = n
    elif kind == KIND_BLOCKS:
        for j in range(c0, c1):
            if cd[j] > slack:
                ov += cd[j] - slack
    elif kind == KIND_PLAIN and big > slack:
        ov = big - slack
    lq[li, _TOTAL] = total
    lq[li, _NBLK] = nblk
    lq[li, _OV0] = ov


@njit
def _score(li, n, u, kind, lq, wts):
    kf = lq[li, _KF]
    df = lq[li, _DF]
    de = lq[li, _DE]
    total = lq[li, _TOTAL]
    rf = total - kf
    re = u - rf
    uu = max(u, 1)
    # plain clues (one block) have their own weights, every other clue kind the second set
    o = 0 if kind == KIND_PLAIN else N_FEATURES
    s = wts[o + 0] * df + wts[o + 1] * de + wts[o + 3] * u + wts[o + 4] * n
    if rf == 0 or re == 0:
        s += wts[o + 2] * u
    if u == n:
        s += wts[o + 5] * lq[li, _OV0]
    s += wts[o + 6] * lq[li, _BAD] + wts[o + 7] * lq[li, _APP]
    s += wts[o + 8] * min(rf, re) / uu + wts[o + 9] * (df + de) / uu
    if kind == KIND_CIRCLE or kind == KIND_SQUARE:
        s += wts[o + 10]
    s += wts[o + 11] * lq[li, _NBLK]
    s += wts[o + 14] * lq[li, _PUSH] + wts[o + 15] * lq[li, _GROW]
    lo, hi = lq[li, _LO], lq[li, _HI]
    if kf == 0:
        ext = 2 * (rf + max(lq[li, _NBLK] - 1, 0)) - (lq[li, _UL] - lq[li, _UF] + 1)
    elif kind == KIND_PLAIN:
        # the block lies within [hi - total + 1, lo + total - 1]
        ext = (max(hi - total + 1 - lq[li, _UF], 0) + max(lq[li, _UL] - lo - total + 1, 0)
               + hi - lo + 1 - kf)
    else:
        ext = 0
    if ext > 0:
        s += wts[o + 16] * ext + wts[o + 17]
    if rf == 0 or re == 0:
        est = u
    elif kind == KIND_PLAIN and kf > 0:
        est = u - 2 * rf + 2 * (lq[li, _HI] - lq[li, _LO] + 1 - kf)
    else:
        est = 2 * (rf + max(lq[li, _NBLK] - 1, 0)) - u
    if est > 0:
        s += wts[o + 12] * est + wts[o + 13]
    return s


@njit(inline="always")
def _news(l2, other, filled, q, lq, state, lc, s0):
    """Cell q of line l2 (its cells ``lc[s0:]``) became known: update the line's counters
    (``other``: by another line's application, so it is news to l2). The unknown extent's ends
    only move inwards, past known cells, so keeping them costs each line its length once."""
    if q == lq[l2, _UF]:
        f = q
        while f <= lq[l2, _UL] and state[lc[s0 + f]] != UNKNOWN:
            f += 1
        lq[l2, _UF] = f
    if q == lq[l2, _UL]:
        e = q
        while e >= lq[l2, _UF] and state[lc[s0 + e]] != UNKNOWN:
            e -= 1
        lq[l2, _UL] = e
    lo, hi = lq[l2, _LO], lq[l2, _HI]
    if filled:
        lq[l2, _KF] += 1
        if other:
            lq[l2, _DF] += 1
            if hi >= 0:
                lq[l2, _GROW] += max(lo - q, 0) + max(q - hi, 0)
        lq[l2, _LO] = min(lo, q)
        lq[l2, _HI] = max(hi, q)
    elif other:
        lq[l2, _DE] += 1
        if hi >= 0:
            d = lo - q if q < lo else q - hi
            lq[l2, _PUSH] += max(lq[l2, _TOTAL] - lq[l2, _KF] + 1 - d, 0)


@njit
def learned(ls_id, budget, step_limit, n_unknown0, max_steps, net, w, ctl, hp, lq, score, wts):
    """Apply the dirty line of highest score until solved or no line is dirty. Resumable in
    chunks of ``max_steps`` applications like the seed's kernels (state in ``ctl``, ``hp``, ``lq``
    and ``score``, see ``new_learned_queue``)."""
    ls, lc, kinds, cst, cd = net[0], net[1], net[2], net[3], net[4]
    cs, cl, cpos = net[5], net[6], net[7]
    state, trail, unk, stats = w[0], w[1], w[2], w[7]
    heap, pos = hp[0], hp[1]
    n_lines = len(kinds)
    if ctl[0] == 0:
        size = 0
        for li in range(n_lines):
            pos[li] = -1
            lq[li, _KF] = 0
            lq[li, _DF] = 0
            lq[li, _DE] = 0
            lq[li, _APP] = 0
            lq[li, _BAD] = 0
            lq[li, _PUSH] = 0
            lq[li, _GROW] = 0
            lq[li, _LO] = 1 << 30
            lq[li, _HI] = -1
            if kinds[li] == 0:
                continue
            n = ls[li + 1] - ls[li]
            _static(li, n, kinds[li], cd, cst[li], cst[li + 1], lq)
            kf = 0
            lq[li, _UF] = n
            lq[li, _UL] = -1
            for j in range(ls[li], ls[li + 1]):
                if state[lc[j]] == FILLED:
                    kf += 1
                    lq[li, _LO] = min(lq[li, _LO], j - ls[li])
                    lq[li, _HI] = j - ls[li]
                elif state[lc[j]] == UNKNOWN:
                    lq[li, _UF] = min(lq[li, _UF], j - ls[li])
                    lq[li, _UL] = j - ls[li]
            lq[li, _KF] = kf
            if unk[li] > 0:
                score[li] = _score(li, n, unk[li], kinds[li], lq, wts)
                size = heap_push(li, size, heap, pos, score)
        ctl[0] = 1
    else:
        size = ctl[1]
    end = stats[S_LINESOLVERS] + max(max_steps, 1)
    while True:
        status = stop_status(n_unknown0, stats, size == 0, step_limit, end)
        if status >= 0:
            break
        li = heap[0]
        t0 = stats[S_TLEN]
        r = apply_counted(li, ls_id, budget, net, w)
        if r == R_CONTRADICTION:
            status = ST_CONTRADICTION
            break
        lq[li, _APP] += 1
        if r <= 0:
            lq[li, _BAD] += 1
        lq[li, _DF] = 0
        lq[li, _DE] = 0
        lq[li, _PUSH] = 0
        lq[li, _GROW] = 0
        for t in range(t0, stats[S_TLEN]):
            c = trail[t]
            filled = state[c] == FILLED
            for k in range(cs[c], cs[c + 1]):
                l2 = cl[k]
                _news(l2, l2 != li, filled, cpos[k] - ls[l2], lq, state, lc, ls[l2])
                if l2 == li:
                    continue
                if unk[l2] == 0:
                    if pos[l2] >= 0:
                        size = heap_remove(l2, size, heap, pos, score)
                    continue
                score[l2] = _score(l2, ls[l2 + 1] - ls[l2], unk[l2], kinds[l2], lq, wts)
                if pos[l2] >= 0:
                    heap_update(l2, size, heap, pos, score)
                else:
                    size = heap_push(l2, size, heap, pos, score)
        # li is clean now, unless the seed linesolver may still find more on its own output
        if unk[li] > 0 and ls_id != LS_DP and r > 0:
            score[li] = _score(li, ls[li + 1] - ls[li], unk[li], kinds[li], lq, wts)
            heap_update(li, size, heap, pos, score)
        elif pos[li] >= 0:
            size = heap_remove(li, size, heap, pos, score)
    ctl[1] = size
    return status
