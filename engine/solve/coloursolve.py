"""Solving colour puzzles: propagation to a fixpoint, probing, search; verdicts like black-and-white.

- ``propagate`` (numba): a queue of lines; each changed cell requeues its lines. 3D lines go
  first through the cheap per-colour filter (``colourline.relax_3d``), and only when that queue
  is empty through the complete product solver, so the exact (and costly) solver mostly sees
  lines that are already narrow. At the fixpoint every clued line has been solved exactly since
  its last change: the state is exactly what line logic can deduce.
- ``probe``: for each undecided cell, each value it may take is assumed and propagated; a
  contradiction removes the value, and the cell values every surviving assumption agrees on are
  kept (FP2-style). Repeated to a fixpoint with propagation between.
- ``search``: depth-first on the undecided cell with the fewest values (the known solution's
  value first, when the puzzle carries one), each node closed under propagation; stops at two
  solutions. Once it has spent its budget it takes turns with a CDCL solver over the puzzle's
  CNF (``coloursat.py``, python-sat), as the black-and-white search does.

Verdicts ``unique`` / ``multiple`` / ``none`` (``unknown`` when the time limit stops it), the
logic level (``line``, ``probe``, ``search``) and a difficulty score from a synchronous round
solve (``grade``), on the same scale and bands as black-and-white (``difficulty.py``).
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Optional

import numpy as np

from ..lines.colourline import dfa_2d, relax_3d, solve_automaton, solve_automaton_limited, solve_dfa_dense
from ..model.colourpuzzle import CKIND_BLOCKS, CKIND_COUNTS, ColourPuzzle, check_colour_solution
from .coloursat import HAVE_SAT, ColourSat, colour_encoding_size
from .search import SAT_CHUNK_S, SAT_MAX_LITERALS, SAT_MIN_SLICE_S, SAT_SHARE, next_chunk
from .difficulty import BAND_EDGES, BANDS
from .linecache import K_COMPLETE, K_FILTER, cache_slot, cache_store, new_cache
from ..jit import njit

ST_OK = 0
ST_CONTRADICTION = 1
ST_BUDGET = 2    # _propagate_queues / _probe: the line-solve budget ran out (the caller checks its clock)
ST_TIMEOUT = 3   # propagate: the deadline passed first (the state is sound, not at the fixpoint)


@dataclass
class ColourNet:
    """The flat arrays the kernels walk (built once per puzzle)."""
    k: int
    n_cells: int
    line_start: np.ndarray
    line_cells: np.ndarray
    mode: np.ndarray        # per line: 0 hidden, 1 2D blocks, 2 3D counts
    tab_all: np.ndarray     # (rows, k+1) concatenated 2D automata
    tab_start: np.ndarray   # per line: first row; (n_lines+1,)
    cnt: np.ndarray         # (n_lines, k)
    rmax: np.ndarray        # (n_lines, k)
    cell_start: np.ndarray  # cell -> lines (CSR)
    cell_lines: np.ndarray


def build_net(p: ColourPuzzle) -> ColourNet:
    k, n = p.k, p.n_lines
    mode = np.zeros(n, dtype=np.int64)
    tabs, tab_start = [], np.zeros(n + 1, dtype=np.int64)
    cnt = np.zeros((n, k), dtype=np.int64)
    rmax = np.zeros((n, k), dtype=np.int64)
    rows = 0
    counts = p.clue_kind == CKIND_COUNTS
    if counts.any():  # every clued 3D line holds 2k numbers: (count, mark) per colour
        idx = p.clue_start[:-1][counts][:, None] + np.arange(2 * k)[None, :]
        data = p.clue_data[idx]
        mode[counts] = 2
        cnt[counts] = data[:, 0::2]
        rmax[counts] = np.where(data[:, 0::2] > 0, data[:, 1::2] + 1, 0)
    for i in np.flatnonzero(p.clue_kind == CKIND_BLOCKS):
        mode[i] = 1
        t = dfa_2d(p.clue(i), k)
        tabs.append(t)
        tab_start[i] = rows
        rows += t.shape[0]
        tab_start[i + 1] = rows
    tab_all = np.concatenate(tabs) if tabs else np.zeros((1, k + 1), dtype=np.int64)
    cell_start, cell_lines = _cell_index(p.line_start.astype(np.int64), p.line_cells.astype(np.int64),
                                         int(p.n_cells))
    return ColourNet(k, p.n_cells, p.line_start.astype(np.int64), p.line_cells.astype(np.int64), mode,
                     np.ascontiguousarray(tab_all), tab_start, cnt, rmax, cell_start, cell_lines)


@njit(cache=True)
def _cell_index(line_start, line_cells, n_cells):
    """cell -> lines as CSR (a counting sort: an argsort was most of a 36^3 puzzle's set-up)."""
    cell_start = np.zeros(n_cells + 1, dtype=np.int64)
    for c in line_cells:
        cell_start[c + 1] += 1
    for c in range(n_cells):
        cell_start[c + 1] += cell_start[c]
    fill = cell_start[:-1].copy()
    cell_lines = np.empty(line_cells.shape[0], dtype=np.int64)
    for li in range(line_start.shape[0] - 1):
        for j in range(line_start[li], line_start[li + 1]):
            c = line_cells[j]
            cell_lines[fill[c]] = li
            fill[c] += 1
    return cell_start, cell_lines


@njit(cache=True)
def _work(exact3d, length, k, cnt, rmax):
    """A line solve's cost in budget units (about a per-colour filter's on a short line): the
    exact 3D solver walks a product of the colours' (count, runs) states per cell, which on a
    long line of three or four colours is thousands of times a filter's work."""
    if not exact3d:
        return 1
    states = 1
    for c in range(k):
        states *= (cnt[c] + 1) * (rmax[c] + 1)
        if states > (1 << 40):
            break
    return 1 + min(states * length // 2048, 1 << 40)


@njit(cache=True)
def open_to_two(masks) -> bool:
    """Whether a cell of the line may still take two colours. When none may, the colours cannot
    compete for cells and each colour's clue constrains only its own cells: the per-colour filter
    at its fixpoint is then exact, and the product solver has nothing to add."""
    for j in range(masks.shape[0]):
        col = masks[j] & ~np.int64(1)
        if col & (col - 1):
            return True
    return False


@njit(cache=True)
def filter_line(li, exact, masks, k, mode, tab_all, tab_start, cnt, rmax, no_tab, work):
    """Line ``li``'s filter on ``masks``: the 2D automaton (mode 1), the exact product solver
    (``exact``, 3D; ``work`` its step budget, see ``solve_automaton_limited``), else the
    per-colour filter. All zero states on a contradiction."""
    if mode[li] == 1:
        return solve_dfa_dense(masks, tab_all[tab_start[li]:tab_start[li + 1]])
    if exact:
        return solve_automaton_limited(masks, 2, no_tab, k, cnt[li], rmax[li], work)
    return relax_3d(masks, k, cnt[li], rmax[li])


_NO_ORDER = np.zeros(0, dtype=np.int64)
_NO_CACHE = (np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64), np.zeros((0, 0), dtype=np.int64),
             np.zeros((0, 0), dtype=np.int64))
QS_LEN = 8  # the queue state ``qs`` of ``_propagate_queues`` (qs[7]: its trail's length)


@njit(cache=True)
def _propagate_queues(state, k, line_start, line_cells, mode, tab_all, tab_start, cnt, rmax, cell_start,
                      cell_lines, queued, counters, budget, rq, xq, qs, order, changes, c_line, c_kind, c_in,
                      c_out, until_decided, t_cell, t_old):
    """Propagate ``state`` (int64 masks, changed in place) from the lines flagged in ``queued``
    (bit 1: relax queue, bit 2: exact queue) to the fixpoint. counters[0] += line solver calls,
    counters[1] += of them the exact product solver on 3D lines. ``budget[0]``: line solves
    left in cost units (``_work``; negative: no limit). Returns ST_OK, ST_CONTRADICTION or
    ST_BUDGET.

    The two queues are in the caller's arrays: ``rq``/``xq`` the relax and exact queues
    (circular FIFOs, n_lines long), ``qs`` (QS_LEN long) = [relax head, relax length, exact head,
    exact length, started, cut, undecided cells, trail length]. With qs[4] == 0 the queues are filled
    from ``queued``'s flags, the lines taken in the order of ``order`` (empty: by index); on
    ST_BUDGET they are left as they are, so a call with the same arrays goes on exactly where
    this one stopped: the same line solves in the same order as one call without a budget (the
    reported line-solve counts do not depend on the clock). With a budget, the exact product
    solver gets the budget's steps and, when they run out inside a line, the line goes back to
    the head of its queue uncounted and qs[5] is set: the caller should give the next call a
    larger budget (one such line can take seconds).

    For the designer (each off when its array is empty / the flag False): ``changes[line]`` +=
    each cell the line changes; line results cached in ``c_*`` (``linecache.py``: a design re-runs
    much of the same propagation); ``until_decided``: stop once every cell is decided (the state
    is then the puzzle's solution, a fixpoint of every line, so the pops left would change nothing;
    the counts are then not those of a run to the fixpoint).

    For probing (off when ``t_cell`` is empty): every cell change is written to the trail, the cell
    to ``t_cell`` and its value before to ``t_old``, at position qs[7] (then advanced), so that the
    caller can read what an assumption implied and undo it in O(changes), not O(cells)."""
    n_lines = mode.shape[0]
    if qs[4] == 0:
        nr = 0  # queue lengths; a line is at most once in each queue (by the flags: bit 1 relax,
        nx = 0  # bit 2 exact); FIFO batches a line's changes
        for t in range(n_lines):
            i = order[t] if order.shape[0] else t
            if mode[i] == 0:
                queued[i] = 0
                continue
            if queued[i] & 1 and mode[i] == 2:
                rq[nr] = i
                nr += 1
            else:
                queued[i] &= ~1
            if queued[i] & 2:
                xq[nx] = i
                nx += 1
        hr = 0
        hx = 0
        qs[4] = 1
        undecided = 1
        if until_decided:
            undecided = 0
            for c in range(state.shape[0]):
                if state[c] & (state[c] - 1):
                    undecided += 1
    else:
        hr, nr, hx, nx, undecided = qs[0], qs[1], qs[2], qs[3], qs[6]
    no_tab = np.zeros((1, 1), dtype=np.int64)
    work = np.zeros(2, dtype=np.int64)
    buf = np.empty(64, dtype=np.int64)  # grown to the longest line popped (a probe's call pops few)
    caching = c_line.shape[0] > 0
    counting = changes.shape[0] > 0
    trailing = t_cell.shape[0] > 0
    qs[5] = 0
    while (nr > 0 or nx > 0) and undecided > 0:
        if budget[0] == 0:
            qs[0], qs[1], qs[2], qs[3], qs[6] = hr, nr, hx, nx, undecided
            return ST_BUDGET
        if nr > 0:
            li = rq[hr]
            hr = (hr + 1) % n_lines
            nr -= 1
            queued[li] &= ~1
            exact = False
        else:
            li = xq[hx]
            hx = (hx + 1) % n_lines
            nx -= 1
            queued[li] &= ~2
            exact = True
        a = line_start[li]
        b = line_start[li + 1]
        if b - a > buf.shape[0]:
            buf = np.empty(b - a, dtype=np.int64)
        masks = buf[:b - a]
        for j in range(b - a):
            masks[j] = state[line_cells[a + j]]
        if exact and mode[li] == 2:
            # the per-colour filter is at its fixpoint for this line (the relax queue is empty)
            if not open_to_two(masks):
                continue
            counters[1] += 1
        counters[0] += 1
        exact3d = exact and mode[li] == 2
        kind = K_COMPLETE if exact else K_FILTER
        slot, hit = 0, False
        if caching:
            slot, hit = cache_slot(li, kind, masks, c_line, c_kind, c_in)
        if hit:
            res = c_out[slot, :b - a]
        else:
            # steps for the product solver: the budget's units (``_work``: ~2048 steps each)
            work[0] = min(budget[0], np.int64(1) << 40) * 2048 if budget[0] > 0 and exact3d else -1
            work[1] = 0
            res = filter_line(li, exact, masks, k, mode, tab_all, tab_start, cnt, rmax, no_tab, work)
            if work[1] == 1:
                # cut inside the line: back to the head of the exact queue, not counted
                counters[0] -= 1
                counters[1] -= 1
                hx = (hx - 1 + n_lines) % n_lines
                xq[hx] = li
                nx += 1
                queued[li] |= 2
                qs[0], qs[1], qs[2], qs[3], qs[5], qs[6] = hr, nr, hx, nx, 1, undecided
                budget[0] = 0
                return ST_BUDGET
            if caching:
                cache_store(slot, li, kind, masks, res, c_line, c_kind, c_in, c_out)
        if budget[0] > 0:
            budget[0] = max(budget[0] - _work(exact3d, b - a, k, cnt[li], rmax[li]), 0)
        if res[0] == 0:
            return ST_CONTRADICTION
        changed = False
        for j in range(b - a):
            if res[j] != masks[j]:
                changed = True
                c = line_cells[a + j]
                if counting:
                    changes[li] += 1
                if until_decided and not res[j] & (res[j] - 1):
                    undecided -= 1  # (a changed cell was undecided: only undecided cells narrow)
                if trailing:
                    t = qs[7]
                    t_cell[t] = c
                    t_old[t] = masks[j]
                    qs[7] = t + 1
                state[c] = res[j]
                for t in range(cell_start[c], cell_start[c + 1]):
                    lj = cell_lines[t]
                    if lj == li or mode[lj] == 0:
                        continue
                    if mode[lj] == 2 and queued[lj] & 1 == 0:
                        queued[lj] |= 1
                        rq[(hr + nr) % n_lines] = lj
                        nr += 1
                    if queued[lj] & 2 == 0:
                        queued[lj] |= 2
                        xq[(hx + nx) % n_lines] = lj
                        nx += 1
        if changed and not exact and queued[li] & 1 == 0:
            # one pass of the per-colour filter is not its own fixpoint (a colour forced into a
            # cell narrows the other colours' views): again, so that the fixpoint the queues reach
            # does not depend on the order lines are taken in (the exact solver is skipped on
            # lines the filter alone decides exactly only at the filter's fixpoint)
            queued[li] |= 1
            rq[(hr + nr) % n_lines] = li
            nr += 1
    return ST_OK


# A deadline is checked between slices of line solves, each sized to take about this long: one
# colour line solve on a long 3D line of three or four colours can take milliseconds, and a
# puzzle of random colours with half its clues hidden took 7-24 s to its root fixpoint.
SLICE_S = 0.02


def propagate(net: ColourNet, state: np.ndarray, lines=None, counters=None, deadline=None, *, order=None,
              changes=None, cache=None, until_decided: bool = False) -> int:
    """Propagate in place from every clued line (or from the lines ``lines``).

    ``deadline`` (perf_counter seconds): checked between slices of line solves (and inside a
    long product solve); past it, ST_TIMEOUT with the state as far as it got (sound, not at the
    fixpoint). For the designer: ``order`` the lines' queue order, ``changes`` per-line counts of
    cells changed (added to), ``cache`` a line cache, ``until_decided`` stop once every cell is
    decided (see ``_propagate_queues``)."""
    queued = np.zeros(len(net.mode), dtype=np.int64)
    if lines is None:
        queued[:] = 3
    else:
        queued[np.asarray(lines, dtype=np.int64)] = 3
    if counters is None:
        counters = np.zeros(2, dtype=np.int64)
    n_lines = len(net.mode)
    queues = (np.empty(n_lines, dtype=np.int64), np.empty(n_lines, dtype=np.int64), np.zeros(QS_LEN, dtype=np.int64))
    extra = (_NO_ORDER if order is None else np.asarray(order, dtype=np.int64),
             _NO_ORDER if changes is None else changes, *(_NO_CACHE if cache is None else cache), bool(until_decided),
             _NO_ORDER, _NO_ORDER)
    args = (state, net.k, net.line_start, net.line_cells, net.mode, net.tab_all, net.tab_start,
            net.cnt, net.rmax, net.cell_start, net.cell_lines, queued, counters)
    budget = np.full(1, -1, dtype=np.int64)
    if deadline is None:
        return int(_propagate_queues(*args, budget, *queues, *extra))
    size = 16
    while True:
        if time.perf_counter() > deadline:
            return ST_TIMEOUT
        budget[0] = size
        t = time.perf_counter()
        st = int(_propagate_queues(*args, budget, *queues, *extra))
        if st != ST_BUDGET:
            return st
        dt = time.perf_counter() - t
        # grow at most fourfold: the next slice may hold dearer lines than this one's; fourfold
        # when a line was cut inside (its work is redone: a geometric series, at most 4/3 of it)
        size = int(min(max(size * SLICE_S / max(dt, 1e-6), 1), size * 4, 1 << 40))
        if queues[2][5]:
            size = min(size * 4, 1 << 40)


def _lines_of(net, cell):
    return net.cell_lines[net.cell_start[cell]:net.cell_start[cell + 1]]


def _popcount(state):
    s = state.copy()
    n = np.zeros(len(s), dtype=np.int64)
    while s.any():
        n += s & 1
        s >>= 1
    return n


def decided(state) -> np.ndarray:
    return (state & (state - 1)) == 0


def values_of(state) -> np.ndarray:
    """The value (0..k) of each decided cell (log2 of its single bit); -1 where undecided."""
    out = np.full(len(state), -1, dtype=np.int64)
    d = decided(state) & (state > 0)
    out[d] = np.log2(state[d]).round().astype(np.int64)
    return out


@njit(cache=True)
def _undo(state, t_cell, t_old, n):
    """Undo the trail's first ``n`` changes, newest first (a cell may have changed more than once)."""
    for e in range(n - 1, -1, -1):
        state[t_cell[e]] = t_old[e]


@njit(cache=True)
def _queue_lines_of(c, cell_start, cell_lines, mode, queued, rq, xq, qs):
    """Queue cell ``c``'s lines as ``_propagate_queues`` queues flagged lines on its first call
    (both queues, in line order; a 2D line only in the exact one), without its pass over every
    line: an assumption's propagation often solves a line or two. ``queued`` must be all clear;
    qs's trail position is kept."""
    nr = 0
    nx = 0
    for t in range(cell_start[c], cell_start[c + 1]):  # a cell's lines are in line order
        li = cell_lines[t]
        if mode[li] == 0:
            continue
        if mode[li] == 2:
            rq[nr] = li
            nr += 1
            queued[li] = 3
        else:
            queued[li] = 2
        xq[nx] = li
        nx += 1
    qs[0], qs[1], qs[2], qs[3], qs[4], qs[5], qs[6] = 0, nr, 0, nx, 1, 0, 1


@njit(cache=True)
def _probe(state, k, line_start, line_cells, mode, tab_all, tab_start, cnt, rmax, cell_start, cell_lines,
           counters, c_from, c_to, flags, budget, c_line, c_kind, c_in, c_out, scratch):
    """One probing pass over cells [c_from, c_to), in place (see ``probe``); flags[0] = 1 when
    something changed. Returns ST_OK, ST_CONTRADICTION, or ST_BUDGET when the assumptions'
    line solves used up ``budget`` (as in ``_propagate_queues``): flags[1] is then the cell to go
    on from, and ``state`` is at the fixpoint of what was done before it. ``c_*``: a line cache
    (``linecache.py``; empty: none); ``scratch``: ``probe_scratch``'s arrays, kept between calls.

    Each assumption is propagated in ``state`` itself with a trail and undone after, so that it
    costs what it changes: with a copy of the state per assumption and a pass over every cell to
    intersect them, most of a 24^3 puzzle's probing was copying (2-10x slower)."""
    queued, rq, xq, qs, t_cell, t_old, agree, hits, seen, touched, probed, ids = scratch
    none = np.zeros(0, dtype=np.int64)
    no_limit = np.full(1, -1, dtype=np.int64)
    for c in range(c_from, c_to):
        m = state[c]
        if m & (m - 1) == 0:
            continue
        if probed[c] > ids[2]:
            # nothing changed since this cell was probed and found nothing: it would find nothing
            # again (mostly the pass that confirms the fixpoint)
            continue
        # an interrupted cell is probed again from its start: its partial work is not counted
        count0, count1 = counters[0], counters[1]
        ok_bits = 0
        n_ok = 0
        nt = 0
        for v in range(k + 1):
            if (m >> v) & 1 == 0:
                continue
            t_cell[0] = c
            t_old[0] = m
            qs[7] = 1
            state[c] = np.int64(1) << v
            _queue_lines_of(c, cell_start, cell_lines, mode, queued, rq, xq, qs)
            st = _propagate_queues(state, k, line_start, line_cells, mode, tab_all, tab_start, cnt, rmax,
                                   cell_start, cell_lines, queued, counters, budget, rq, xq, qs, none, none,
                                   c_line, c_kind, c_in, c_out, False, t_cell, t_old)
            tl = qs[7]
            if st == ST_OK:
                ok_bits |= np.int64(1) << v
                n_ok += 1
                ids[0] += 1
                trial_id = ids[0]
                for e in range(tl):
                    x = t_cell[e]
                    if seen[x] != trial_id:
                        seen[x] = trial_id
                        if hits[x] == 0:
                            touched[nt] = x
                            nt += 1
                        hits[x] += 1
                        agree[x] |= state[x]
            else:
                queued[:] = 0  # a propagation cut short leaves lines flagged
            _undo(state, t_cell, t_old, tl)
            if st == ST_BUDGET:
                for i in range(nt):
                    agree[touched[i]] = 0
                    hits[touched[i]] = 0
                flags[1] = c
                counters[0], counters[1] = count0, count1
                return ST_BUDGET
        if ok_bits == 0:
            return ST_CONTRADICTION
        # a cell that some surviving assumption left alone keeps its values
        any_change = False
        for i in range(nt):
            x = touched[i]
            if hits[x] == n_ok:
                nv = state[x] & agree[x]
                if nv != state[x]:
                    state[x] = nv
                    any_change = True
                    for t in range(cell_start[x], cell_start[x + 1]):
                        queued[cell_lines[t]] = 3
            agree[x] = 0
            hits[x] = 0
        ids[1] += 1
        probed[c] = ids[1]
        if any_change:
            ids[2] = ids[1]  # every cell probed so far (this one too) may find more now
            flags[0] = 1
            # to the fixpoint whatever the budget: what the assumptions agreed on is kept whole
            qs[:] = 0
            if _propagate_queues(state, k, line_start, line_cells, mode, tab_all, tab_start, cnt, rmax,
                                 cell_start, cell_lines, queued, counters, no_limit, rq, xq, qs, none, none,
                                 c_line, c_kind, c_in, c_out, False, none, none) != ST_OK:
                return ST_CONTRADICTION
    return ST_OK


def probe_scratch(state: np.ndarray, n_lines: int) -> tuple:
    """``_probe``'s working arrays for probing from ``state``, made once per probe: the line
    flags and queues of its propagations (``_propagate_queues``), the trail (a change takes at
    least one value from a cell, so an assumption makes at most as many changes as the state
    has values beyond one per cell: far fewer than k per cell once line logic has run, and a
    large puzzle's trail stays small), and per cell over a cell's
    surviving assumptions the OR of its values, how many changed it, the last assumption that
    did (numbered by ``ids[0]``) and the list of such cells; per cell when it was last probed,
    on the clock ``ids[1]`` (a cell probed after the last change, ``ids[2]``, is not probed
    again: probing is deterministic and monotone, so skipping it changes no result, only the
    work). ``queued``, ``agree`` and ``hits`` are left clear between cells."""
    n_cells = len(state)
    trail = int(np.maximum(_popcount(state) - 1, 0).sum()) + 1
    return (np.zeros(n_lines, dtype=np.int64), np.empty(n_lines, dtype=np.int64), np.empty(n_lines, dtype=np.int64),
            np.zeros(QS_LEN, dtype=np.int64), np.empty(trail, dtype=np.int64), np.empty(trail, dtype=np.int64),
            np.zeros(n_cells, dtype=np.int64), np.zeros(n_cells, dtype=np.int64), np.full(n_cells, -1, dtype=np.int64),
            np.empty(n_cells, dtype=np.int64), np.full(n_cells, -1, dtype=np.int64), np.zeros(3, dtype=np.int64))


def probe(net: ColourNet, state: np.ndarray, counters, deadline=None, cache=None) -> int:
    """Probing to a fixpoint (in place): each value of each undecided cell is assumed and
    propagated; failed values go, and what every surviving assumption agrees on is kept.
    ST_CONTRADICTION when every value of some cell fails. The kernel runs in chunks of cells so
    that ``deadline`` (perf_counter seconds) is checked between them; past it, ST_OK with the
    state as far as it got (still sound). ``cache``: a line cache (``linecache.new_cache``) its
    propagations share, as a design's do."""
    n = len(state)
    scratch = probe_scratch(state, len(net.mode))
    c_line, c_kind, c_in, c_out = _NO_CACHE if cache is None else cache
    flags = np.zeros(2, dtype=np.int64)
    budget = np.full(1, -1, dtype=np.int64)
    size = 64  # line solves per slice when there is a deadline (see propagate)
    chunk = 256
    while True:
        flags[0] = 0
        for c0 in range(0, n, chunk):
            c1 = min(n, c0 + chunk)
            while c0 < c1:
                if deadline is not None:
                    budget[0] = size
                t = time.perf_counter()
                st = _probe(state, net.k, net.line_start, net.line_cells, net.mode, net.tab_all, net.tab_start,
                            net.cnt, net.rmax, net.cell_start, net.cell_lines, counters, c0, c1, flags, budget,
                            c_line, c_kind, c_in, c_out, scratch)
                if st == ST_CONTRADICTION:
                    return ST_CONTRADICTION
                if deadline is not None and time.perf_counter() > deadline:
                    return ST_OK
                if st == ST_OK:
                    break
                size = int(min(max(size * SLICE_S / max(time.perf_counter() - t, 1e-6), 8), size * 4, 1 << 40))
                if int(flags[1]) == c0:
                    size = min(size * 4, 1 << 40)  # not one cell probed: its assumptions need more
                c0 = int(flags[1])  # the budget ran out at this cell: on from there
        if flags[0] == 0:
            return ST_OK


@dataclass
class ColourReport:
    verdict: str
    difficulty: Optional[str]
    linesolvers: int
    known_fraction: float
    time_s: float
    state: np.ndarray
    solutions: list
    nodes: int = 0
    score: Optional[float] = None
    band: Optional[str] = None
    stats: dict = field(default_factory=dict)

    @property
    def solution(self):
        return self.solutions[0] if self.solutions else None

    @property
    def differing_cells(self):
        if len(self.solutions) == 2:
            return np.flatnonzero(self.solutions[0] != self.solutions[1])
        return np.zeros(0, np.int64)

    def to_dict(self) -> dict:
        from ..files.colourfile import colour_solution_text
        return {"verdict": self.verdict, "difficulty": self.difficulty, "linesolvers": self.linesolvers,
                "known_fraction": self.known_fraction, "time_s": self.time_s, "nodes": self.nodes,
                "solution": colour_solution_text(self.solutions[0]) if len(self.solutions) == 1 else None,
                "solutions": [colour_solution_text(s) for s in self.solutions],
                "differing_cells": [int(c) for c in self.differing_cells],
                "score": self.score, "band": self.band, "stats": dict(self.stats)}


class _Stop(Exception):
    pass


# Line-solver calls the colour search spends before the CDCL solver (``coloursat.py``, when
# python-sat is installed) starts taking turns with it, each turn as long as the search's time
# since the last one (``search.SAT_SHARE``), as the black-and-white search does. Fewer than
# black-and-white's 30,000: a colour line solve costs more (30,000 were 600-1,900 nodes and
# 2-4 s of search on 8^3 three-colour puzzles with 45 % of the clues hidden). Measured on 12 such
# 7^3 / 8^3 puzzles (k = 2, 3; all with many solutions) on the loaded shared machine: 32.8 s in
# all with 10,000 against 44.5 s with 30,000 (1,000: 41.5 s; 3,000: 42.1 s; the CDCL solver
# alone after probing: 39.8 s); most of each solve is root probing, so the figures are noisy.
SAT_AFTER_STEPS = 10_000


class _Search:
    """Depth-first search below a propagated state (an explicit stack, so that the CDCL solver
    can take turns with it), the puzzle's own solution's value first when it has one. Solutions
    (value arrays) go to ``sols``; ``run`` returns once ``want`` are known or every solution is
    (the tree exhausted, or the CDCL solver found no further one), raises _Stop on the time
    limit, or on ``node_limit`` without the CDCL solver."""

    def __init__(self, puzzle, net, root, counters, want, known, deadline, use_sat, sat_after, node_limit,
                 cache=None):
        self.puzzle, self.net, self.root, self.counters, self.want = puzzle, net, root, counters, want
        self.cache = cache  # a line cache its propagations share (``linecache.py``), or None
        self.known, self.deadline, self.node_limit = known, deadline, node_limit
        self.use_sat = use_sat and HAVE_SAT
        self.sat_after = SAT_AFTER_STEPS if sat_after is None else sat_after
        self.sols: list = []
        self.stack: list = []
        self.nodes = 0
        self.cs = None
        self.sat_conflicts = -1  # -1: the CDCL solver was not used

    def _add(self, sol) -> bool:
        """Keep a new solution; True once ``want`` are known."""
        if not any(np.array_equal(sol, s) for s in self.sols):
            self.sols.append(sol)
        return len(self.sols) >= self.want

    def _expand(self, state):
        self.nodes += 1
        dec = decided(state)
        if dec.all():
            self._add(values_of(state))
            return
        und = np.flatnonzero(~dec)
        pc = _popcount(state[und])
        c = int(und[np.argmin(pc)])
        m = int(state[c])
        vals = [v for v in range(self.net.k + 1) if (m >> v) & 1]
        if self.known is not None and int(self.known[c]) in vals:
            vals.remove(int(self.known[c]))
            vals.insert(0, int(self.known[c]))
        self.stack.append([state, c, vals, 0])

    def run(self):
        try:
            # the CNF alone, from the root (False: no CDCL solver after all, the search goes on)
            if self.use_sat and self.sat_after == 0 and self._sat_turn(None):
                return
            self._expand(self.root)
            steps0 = int(self.counters[0])
            t_turn = time.perf_counter()
            while self.stack and len(self.sols) < self.want:
                now = time.perf_counter()
                if self.deadline is not None and now > self.deadline:
                    raise _Stop
                if self.node_limit is not None and self.nodes >= self.node_limit:
                    # the search's budget is spent: the CDCL solver alone, if there is one
                    if self.use_sat and self._sat_turn(None):
                        return
                    raise _Stop
                if self.use_sat and int(self.counters[0]) - steps0 >= self.sat_after:
                    # the search wanders: the CDCL solver gets as much time as the search had
                    # since its last turn; the first to finish settles the puzzle
                    done = self._sat_turn(max((now - t_turn) * SAT_SHARE, SAT_MIN_SLICE_S))
                    t_turn = time.perf_counter()
                    if done:
                        return
                frame = self.stack[-1]
                state, c, vals, i = frame
                if i >= len(vals):
                    self.stack.pop()
                    continue
                frame[3] = i + 1
                trial = state.copy()
                trial[c] = 1 << vals[i]
                st = propagate(self.net, trial, _lines_of(self.net, c), self.counters, self.deadline,
                               cache=self.cache)
                if st == ST_TIMEOUT:
                    raise _Stop
                if st == ST_OK:
                    self._expand(trial)
        finally:
            if self.cs is not None:
                self.cs.close()
                self.cs = None

    def _sat_turn(self, seconds) -> bool:
        """Run the CDCL solver from the root (so its answer is complete) for about ``seconds``
        (None: to the end), the solutions known so far excluded. True once the puzzle is
        settled (``want`` solutions, or no further one); False when the turn is over or the
        solver is unavailable (the search goes on alone)."""
        if self.cs is None:
            if self.sat_conflicts >= 0:
                return False  # the CNF was too large or python-sat did not load
            self.sat_conflicts = 0
            clues = self.puzzle.clues()  # Python lists: only now, most searches never get here
            if colour_encoding_size(self.net, self.root, clues) > SAT_MAX_LITERALS:
                self.use_sat = False
                return False
            try:
                self.cs = ColourSat(self.net, self.root, clues)
            except (ImportError, OSError):  # python-sat is there but does not load: search on
                self.use_sat = False
                return False
            self.fed, self.feed_lines, self.blocked = False, 8, 0
        cs = self.cs
        t_end = None if seconds is None else time.perf_counter() + seconds
        while True:
            t = time.perf_counter()
            if self.deadline is not None and t > self.deadline:
                raise _Stop
            if t_end is not None and t >= t_end:
                return False
            if not self.fed:
                # the CNF, line by line: a large puzzle's takes seconds to build
                self.fed = cs.feed(self.feed_lines)
                if time.perf_counter() - t < SAT_CHUNK_S / 2:
                    self.feed_lines *= 2
                continue
            while self.blocked < len(self.sols):
                cs.block(self.sols[self.blocked])
                self.blocked += 1
            c = time.process_time()
            r = cs.step()
            self.sat_conflicts = cs.conflicts
            if r is None:
                # chunks grow by CPU time, shrink by wall time (see search.SAT_CHUNK_S)
                cs.chunk = next_chunk(cs.chunk, time.process_time() - c, time.perf_counter() - t)
                continue
            if r is False:
                return True
            if check_colour_solution(self.puzzle, r):
                raise AssertionError("the SAT solver's colour solution breaks a clue")
            if self._add(r):
                return True


def full_state(net: ColourNet) -> np.ndarray:
    return np.full(net.n_cells, (1 << (net.k + 1)) - 1, dtype=np.int64)


def solve_colour(p: ColourPuzzle, *, time_limit: Optional[float] = None, want: int = 2,
                 use_known: bool = True, probing: bool = True, grade: bool = False, use_sat: bool = True,
                 sat_after: Optional[int] = None, node_limit: Optional[int] = None) -> ColourReport:
    """Solve a colour puzzle: verdict, logic level, solutions (value arrays, 0 empty, 1..k).

    Below probing's fixpoint the search takes turns with the CDCL solver (``coloursat.py``, when
    python-sat is installed and ``use_sat``) once it has spent ``sat_after`` line-solver calls
    (default ``SAT_AFTER_STEPS``; 0: the CDCL solver alone from there). ``node_limit``: the
    search's nodes, after which the CDCL solver goes on alone (or, without it, the verdict is
    ``unknown``)."""
    t0 = time.perf_counter()
    deadline = None if time_limit is None else t0 + time_limit
    net = build_net(p)
    state = full_state(net)
    counters = np.zeros(2, dtype=np.int64)
    nodes = [0]
    sols: list = []
    verdict, level = "unknown", None
    sat_conflicts = -1
    st = propagate(net, state, None, counters, deadline)
    if st == ST_TIMEOUT:
        pass  # "unknown": the time limit passed before line logic's fixpoint
    elif st != ST_OK:
        verdict, level = "none", "line"
    elif decided(state).all():
        verdict, level, sols = "unique", "line", [values_of(state)]
    else:
        # below line logic, probing and the search solve many of the same lines again (a cache
        # took a loose 8^3 puzzle's root probing from 0.5-1.7 s to 0.1-0.7 s)
        cache = new_cache(net)
        if probing:
            st = probe(net, state, counters, deadline, cache=cache)
        if st != ST_OK:
            verdict, level = "none", "probe"
        elif decided(state).all():
            verdict, level, sols = "unique", "probe", [values_of(state)]
        elif deadline is not None and time.perf_counter() > deadline:
            pass  # "unknown": probing stopped at the time limit
        else:
            known = p.colour_solution if use_known else None
            logic = state.copy()
            srch = _Search(p, net, state.copy(), counters, want, known, deadline, use_sat, sat_after, node_limit,
                           cache)
            try:
                srch.run()
                verdict = {0: "none", 1: "unique"}.get(len(srch.sols), "multiple")
                level = "search"
            except _Stop:
                verdict, level = "unknown", None
            sols, nodes[0], sat_conflicts = srch.sols[:want], srch.nodes, srch.sat_conflicts
            state = logic
    if want == 1 and verdict == "unique" and level == "search":
        verdict = "solved"
    n = max(p.n_cells, 1)
    rep = ColourReport(verdict, level, int(counters[0]), float(np.count_nonzero(decided(state) & (state > 0))) / n,
                       time.perf_counter() - t0, state, sols, nodes[0])
    rep.stats["exact_3d"] = int(counters[1])
    rep.stats["sat_conflicts"] = sat_conflicts
    if grade and verdict == "unique" and level in ("line", "probe"):
        rep.score, rep.band = grade_colour(p, net)
    return rep


# ---------------------------------------------------------------------------------------------
# difficulty: synchronous rounds, the black-and-white score's formula (difficulty.py)


def _technique(p: ColourPuzzle, i: int, length: int) -> int:
    clue = p.clue(i)
    if p.is_3d:
        total = sum(n for n, _ in clue)
        if total == 0 or total == length:
            return 0
        return 1 + max((m for n, m in clue if n), default=0)
    need = sum(n for n, _ in clue) + sum(1 for a, b in zip(clue, clue[1:]) if a[1] == b[1])
    return 0 if not clue or need == length else 1


@njit(cache=True)
def _cached_solve(li, kind, masks, k, cnt, rmax, no_tab, c_line, c_kind, c_in, c_out):
    """The per-colour filter (``kind`` K_FILTER) or the product solver (K_COMPLETE) on 3D line
    ``li``, through the line cache when it has slots (a copy: a later store may reuse the slot)."""
    caching = c_line.shape[0] > 0
    s = 0
    if caching:
        s, hit = cache_slot(li, kind, masks, c_line, c_kind, c_in)
        if hit:
            return c_out[s, :masks.shape[0]].copy()
    if kind == K_FILTER:
        res = relax_3d(masks, k, cnt, rmax)
    else:
        res = solve_automaton(masks, 2, no_tab, k, cnt, rmax)
    if caching:
        cache_store(s, li, kind, masks, res, c_line, c_kind, c_in, c_out)
    return res


@njit(cache=True)
def _complete_3d(masks, k, cnt, rmax, no_tab, li, c_line, c_kind, c_in, c_out):
    """The complete 3D line solve (``solve_automaton``'s answer), cheaper: the per-colour filter
    to its fixpoint first, and the product solver only when a cell is still open to two colours
    (else the colours cannot compete for cells and the filter's fixpoint is exact, as in
    ``_propagate_queues``; the product solver from the filtered states gives the same answer as
    from the given ones, the filter being sound). Each step through the line cache ``c_*`` (empty:
    none), where a designer's propagations left the filter's and the product solver's answers."""
    cur = masks
    while True:
        res = _cached_solve(li, K_FILTER, cur, k, cnt, rmax, no_tab, c_line, c_kind, c_in, c_out)
        if res[0] == 0:
            return res
        same = True
        for j in range(res.shape[0]):
            if res[j] != cur[j]:
                same = False
                break
        cur = res
        if same:
            break
    if open_to_two(cur):
        return _cached_solve(li, K_COMPLETE, cur, k, cnt, rmax, no_tab, c_line, c_kind, c_in, c_out)
    return cur


@njit(cache=True)
def _grade_round(snap, new, cost, dirty, tech, k, line_start, line_cells, mode, tab_all, tab_start, cnt,
                 rmax, c_line, c_kind, c_in, c_out):
    """One synchronous round of ``grade_colour``: every dirty clued line solved completely from
    ``snap``, its narrowings ANDed into ``new``; ``cost`` per changed cell: the cheapest technique
    (``tech`` per line) that changed it. False on a contradiction. ``c_*``: a line cache
    (``linecache.py``)."""
    no_tab = np.zeros((1, 1), dtype=np.int64)
    for li in range(mode.shape[0]):
        if not dirty[li] or mode[li] == 0:
            continue
        a = line_start[li]
        b = line_start[li + 1]
        masks = np.empty(b - a, dtype=np.int64)
        for j in range(b - a):
            masks[j] = snap[line_cells[a + j]]
        s, hit = cache_slot(li, K_COMPLETE, masks, c_line, c_kind, c_in)
        if hit:
            res = c_out[s, :b - a].copy()
        else:
            if mode[li] == 1:
                res = solve_dfa_dense(masks, tab_all[tab_start[li]:tab_start[li + 1]])
            else:
                res = _complete_3d(masks, k, cnt[li], rmax[li], no_tab, li, c_line, c_kind, c_in, c_out)
            # the slot again: the filter's and product solver's own entries may have taken it
            s, hit = cache_slot(li, K_COMPLETE, masks, c_line, c_kind, c_in)
            cache_store(s, li, K_COMPLETE, masks, res, c_line, c_kind, c_in, c_out)
        if res[0] == 0:
            return False
        for j in range(b - a):
            if res[j] != masks[j]:
                c = line_cells[a + j]
                new[c] &= res[j]
                cost[c] = min(cost[c], tech[li])
    return True


@njit(cache=True)
def _dirty_lines(new, snap, cell_start, cell_lines, dirty):
    """Flag the lines through every cell where ``new`` differs from ``snap`` (only those)."""
    dirty[:] = False
    for c in range(new.shape[0]):
        if new[c] != snap[c]:
            for t in range(cell_start[c], cell_start[c + 1]):
                dirty[cell_lines[t]] = True


def techniques(p: ColourPuzzle) -> np.ndarray:
    """Per line, the technique cost its deductions count at in the grade (``_technique``; 9 for a
    hidden line, which the grade never solves)."""
    return np.array([_technique(p, i, int(p.line_start[i + 1] - p.line_start[i])) if p.clue(i) is not None else 9
                     for i in range(p.n_lines)], dtype=np.int64)


def grade_colour(p: ColourPuzzle, net: Optional[ColourNet] = None, cache: Optional[tuple] = None):
    """(score, band) of a puzzle that line logic (with probing rounds) solves; (None, None) else.

    Rounds are synchronous: every line whose cells changed in the last round is solved completely
    from the round's start; a round that changes nothing probes (technique cost 4). ``cache``: a
    line cache (``linecache.new_cache``) to share between grades of puzzles whose shown lines
    have the same clues (the designer's bisection; its trials' cache)."""
    return grade_net(net or build_net(p), techniques(p), cache)


@njit(cache=True)
def _grade_rounds(state, dirty, tech, k, line_start, line_cells, mode, tab_all, tab_start, cnt, rmax, cell_start,
                  cell_lines, c_line, c_kind, c_in, c_out, acc):
    """``grade_colour``'s synchronous line rounds from ``state`` (changed in place) until every
    cell is decided (returns 0), a contradiction (1) or a round that changes nothing (2: the
    caller probes). ``acc`` += [rounds, bits of looking, technique cost, cells decided]."""
    n = state.shape[0]
    snap = np.empty(n, dtype=np.int64)
    cost = np.empty(n, dtype=np.int64)
    while True:
        unknown = 0
        for x in range(n):
            if state[x] & (state[x] - 1):
                unknown += 1
        if unknown == 0:
            return 0
        snap[:] = state
        cost[:] = 99
        if not _grade_round(snap, state, cost, dirty, tech, k, line_start, line_cells, mode, tab_all, tab_start,
                            cnt, rmax, c_line, c_kind, c_in, c_out):
            return 1
        d = 0
        spent = 0
        moved = False
        for x in range(n):
            if state[x] != snap[x]:
                moved = True
                if not state[x] & (state[x] - 1):
                    d += 1
                    spent += min(cost[x], 4)
        if not moved:
            return 2
        acc[0] += 1
        if d:
            acc[1] += d * np.log2(unknown / d)
            acc[2] += spent
            acc[3] += d
        _dirty_lines(state, snap, cell_start, cell_lines, dirty)


def grade_net(net: ColourNet, tech: np.ndarray, cache: Optional[tuple] = None):
    """``grade_colour`` of the lines shown in ``net.mode``, ``tech`` from ``techniques`` (so a
    designer grades its masks of one puzzle without building a puzzle for each)."""
    cache = cache if cache is not None else new_cache(net)
    state = full_state(net)
    acc = np.zeros(4, dtype=np.float64)  # rounds, bits of looking, technique cost, cells decided
    counters = np.zeros(2, dtype=np.int64)
    dirty = np.ones(len(net.mode), dtype=np.bool_)
    while True:
        st = _grade_rounds(state, dirty, tech, net.k, net.line_start, net.line_cells, net.mode, net.tab_all,
                           net.tab_start, net.cnt, net.rmax, net.cell_start, net.cell_lines, *cache, acc)
        if st == 0:
            break
        if st == 1:
            return None, None
        # a round of line solves changed nothing: a probing round (technique cost 4)
        snap = state.copy()
        if probe(net, state, counters, cache=cache) != ST_OK or np.array_equal(state, snap):
            return None, None
        d = int(np.count_nonzero(decided(state) & ~decided(snap)))
        unknown = int(np.count_nonzero(~decided(snap)))
        acc[0] += 1
        if d:
            acc[1] += d * math.log2(unknown / d)
            acc[2] += 4 * d
            acc[3] += d
        dirty[:] = True
    rounds, bits_sum, tech_sum, found = int(acc[0]), float(acc[1]), float(acc[2]), int(acc[3])
    if found == 0:
        return 0.0, BANDS[0]
    B, T = bits_sum / found, tech_sum / found
    score = round(10 * (B + T / 2 + math.log2(max(rounds, 1)) / 2), 1)
    band = BANDS[sum(score >= e for e in BAND_EDGES)]
    return score, band
