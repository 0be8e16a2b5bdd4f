"""Colour line propagation: the state of a colour puzzle (an int64 bitmask per cell: bit 0 empty,
bit c colour c), its line net, and propagation to line logic's fixpoint.

``propagate`` (numba, ``propagate_queues``): a queue of lines; each changed cell requeues its
lines. 3D lines go first through the cheap per-colour filter to its fixpoint
(``colourline.relax_3d_fixpoint``: one solve, where single passes requeued the line: 40 % of a
torus knot's design line solves at 64), and only when that queue is empty through the complete
product solver, so the exact (and costly) solver
mostly sees lines that are already narrow. At the fixpoint every clued line has been solved
exactly since its last change: the state is exactly what line logic can deduce. Probing
(``colourprobe.py``) and the colour kind (``colourkind.py``) build on it.
"""
from __future__ import annotations

import time
import dataclasses
from dataclasses import dataclass

import numpy as np

from ...lines.colourline import dfa_2d_tables, relax_3d_fixpoint, solve_automaton_limited, solve_dfa_dense
from ...model.colourpuzzle import CKIND_BLOCKS, CKIND_COUNTS, ColourPuzzle
from .linecache import K_COMPLETE, K_FIXPOINT, cache_slot, cache_store
from ..plain.propagate import cell_index
from ...jit import njit

ST_OK = 0
ST_CONTRADICTION = 1
ST_BUDGET = 2    # propagate_queues / _probe: the line-solve budget ran out (the caller checks its clock)
ST_TIMEOUT = 3   # propagate: the deadline passed first (the state is sound, not at the fixpoint)


class Deadline(Exception):
    """A propagation (``colourkind.ColourKind``'s) passed its deadline: the state is sound, not
    at the fixpoint; the pipeline that set the deadline stops."""


@dataclass
class ColourNet:
    """The flat arrays the kernels walk (built once per puzzle)."""
    k: int
    n_cells: int
    line_start: np.ndarray
    line_cells: np.ndarray
    mode: np.ndarray        # per line: 0 no clue, 1 2D blocks, 2 3D counts
    tab_all: np.ndarray     # (rows, k+1) concatenated 2D automata
    tab_start: np.ndarray   # per line: first row; (n_lines+1,)
    cnt: np.ndarray         # (n_lines, k)
    rmax: np.ndarray        # (n_lines, k)
    cell_start: np.ndarray  # cell -> lines (CSR)
    cell_lines: np.ndarray
    shown: np.ndarray       # uint8 per line: 1 = its clue takes part (a designer hides clues here)
    clue_id: np.ndarray     # per line: lines of one id have the same clue (length, counts and marks,
    #                         or 2D blocks): the line cache's key, as a line's results depend on no more


def build_net(p: ColourPuzzle, ids: bool = True) -> ColourNet:
    """The puzzle's lines for the kernels; ``ids``: the clue ids the line cache shares results by
    (else each line its own id, as good a key, only unshared: ``with_clue_ids`` adds them)."""
    (line_start, line_cells, mode, tab_all, tab_start, cnt, rmax, cell_start, cell_lines,
     shown) = _net_arrays(p.clue_kind, p.clue_start, p.clue_data, int(p.k), p.line_start, p.line_cells, int(p.n_cells),
                          CKIND_BLOCKS, CKIND_COUNTS)
    return ColourNet(p.k, p.n_cells, line_start, line_cells, mode, tab_all, tab_start, cnt, rmax, cell_start,
                     cell_lines, shown,
                     _clue_ids(p, mode, cnt, rmax, tab_all, tab_start) if ids else np.arange(p.n_lines, dtype=np.int64))


@njit(cache=True)
def _net_arrays(clue_kind, clue_start, clue_data, k, line_start, line_cells, n_cells, blocks_kind, counts_kind):
    """``build_net``'s arrays in one call (built with numpy and a Python loop they were most of
    a small puzzle's solve: the fixed cost per solve, #40): the lines as int64, per line its mode
    (0 none, 1 2D blocks, 2 3D counts), every 2D automaton (``dfa_2d_tables``), every 3D clue's
    counts and run caps (the mark + 1, 0 for a colour absent), the cell -> lines index and the
    shown flags."""
    n = clue_kind.shape[0]
    starts = line_start.astype(np.int64)
    cells = line_cells.astype(np.int64)
    mode = np.zeros(n, dtype=np.int64)
    cnt = np.zeros((n, k), dtype=np.int64)
    rmax = np.zeros((n, k), dtype=np.int64)
    shown = np.zeros(n, dtype=np.uint8)
    for i in range(n):
        if clue_kind[i] == counts_kind:  # 2k numbers: (count, mark) per colour
            mode[i] = 2
            a = clue_start[i]
            for c in range(k):
                cnt[i, c] = clue_data[a + 2 * c]
                rmax[i, c] = clue_data[a + 2 * c + 1] + 1 if clue_data[a + 2 * c] > 0 else 0
        elif clue_kind[i] == blocks_kind:
            mode[i] = 1
        shown[i] = mode[i] > 0
    tab_all, tab_start = dfa_2d_tables(clue_kind, clue_start, clue_data, k, blocks_kind)
    cell_start, cell_lines, _ = cell_index(n_cells, starts, cells, np.ones(n, np.int64))
    return starts, cells, mode, tab_all, tab_start, cnt, rmax, cell_start, cell_lines, shown



def with_clue_ids(p: ColourPuzzle, net: ColourNet) -> ColourNet:
    """``net`` with the shared clue ids (``build_net(p, ids=False)``'s made later)."""
    return dataclasses.replace(net, clue_id=_clue_ids(p, net.mode, net.cnt, net.rmax, net.tab_all, net.tab_start))


def _clue_ids(p, mode, cnt, rmax, tab_all, tab_start) -> np.ndarray:
    """Per line an id shared by exactly the lines of the same clue (and length): a 3D line's
    counts and marks, a 2D line's block automaton. Lines of one clue answer every input alike,
    so the line cache keyed by it serves each from the others' results (a design's grade solves
    every line from nothing known first: the torus knot's 5,337 shown lines at 64 have 851
    clues)."""
    lens = np.diff(p.line_start).astype(np.int64)
    ids = np.full(len(mode), -1, dtype=np.int64)
    three = np.flatnonzero(mode == 2)
    if len(three):
        rows = np.concatenate([lens[three, None], cnt[three], rmax[three]], axis=1)
        o = np.lexsort(rows.T[::-1])
        new = np.ones(len(o), bool)
        new[1:] = (rows[o[1:]] != rows[o[:-1]]).any(axis=1)
        ids[three[o]] = np.cumsum(new) - 1
    first = int(ids.max()) + 1 if len(three) else 0
    _table_ids(ids, mode, lens, tab_all, tab_start, first)
    return ids


@njit(cache=True)
def _table_ids(ids, mode, lens, tab_all, tab_start, first):
    """The 2D lines' ids (``_clue_ids``): one per distinct (length, automaton), numbered from
    ``first`` in the order of their first line (a dict of the tables' bytes in Python cost a
    median 2D benchmark puzzle a tenth of its solve)."""
    reps = np.empty(mode.shape[0], dtype=np.int64)  # each id's first line
    n_reps = 0
    for li in range(mode.shape[0]):
        if mode[li] != 1:
            continue
        a, b = tab_start[li], tab_start[li + 1]
        found = -1
        for r in range(n_reps):
            o = reps[r]
            if lens[o] != lens[li] or tab_start[o + 1] - tab_start[o] != b - a:
                continue
            same = True
            off = tab_start[o] - a
            for x in range(a, b):
                for c in range(tab_all.shape[1]):
                    if tab_all[x, c] != tab_all[x + off, c]:
                        same = False
                        break
                if not same:
                    break
            if same:
                found = r
                break
        if found < 0:
            reps[n_reps] = li
            found = n_reps
            n_reps += 1
        ids[li] = first + found


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


@njit(inline="always")
def _two_colours(m) -> bool:
    col = m & ~np.int64(1)
    return col & (col - 1) != 0


@njit(cache=True)
def open_to_two(masks) -> bool:
    """Whether a cell of the line may still take two colours. When none may, the colours cannot
    compete for cells and each colour's clue constrains only its own cells: the per-colour filter
    at its fixpoint is then exact, and the product solver has nothing to add."""
    for j in range(masks.shape[0]):
        if _two_colours(masks[j]):
            return True
    return False


@njit(cache=True)
def filter_line(li, exact, masks, k, mode, tab_all, tab_start, cnt, rmax, no_tab, work):
    """Line ``li``'s filter on ``masks``: the 2D automaton (mode 1), the exact product solver
    (``exact``, 3D; ``work`` its step budget, see ``solve_automaton_limited``), else the
    per-colour filter to its fixpoint. All zero states on a contradiction."""
    if mode[li] == 1:
        return solve_dfa_dense(masks, tab_all[tab_start[li]:tab_start[li + 1]])
    if exact:
        return solve_automaton_limited(masks, 2, no_tab, k, cnt[li], rmax[li], work)
    return relax_3d_fixpoint(masks, k, cnt[li], rmax[li])


_NO_ORDER = np.zeros(0, dtype=np.int64)
NO_CACHE = (np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64), np.zeros((0, 0), dtype=np.int64),
            np.zeros((0, 0), dtype=np.int64))
QS_LEN = 8  # the queue state ``qs`` of ``propagate_queues`` (qs[7]: its trail's length)


@njit(cache=True)
def propagate_queues(state, k, line_start, line_cells, mode, shown, clue_id, tab_all, tab_start, cnt, rmax,
                     cell_start, cell_lines, queued, counters, budget, rq, xq, qs, order, changes, c_line, c_kind,
                     c_in, c_out, until_decided, t_cell, t_old):
    """Propagate ``state`` (int64 masks, changed in place) from the lines flagged in ``queued``
    (bit 1: relax queue, bit 2: exact queue) to the fixpoint. counters[0] += line solver calls,
    counters[1] += of them the exact product solver on 3D lines. ``budget[0]``: line solves
    left in cost units (``_work``; negative: no limit). Returns ST_OK, ST_CONTRADICTION or
    ST_BUDGET.

    The two queues are in the caller's arrays: ``rq``/``xq`` the relax and exact queues
    (circular FIFOs, n_lines long), ``qs`` (QS_LEN long) = [relax head, relax length, exact head,
    exact length, started, cut, undecided cells, trail length]. counters[2] (when there is one) +=
    the line solves that changed nothing (or found a contradiction). With qs[4] == 0 the queues are filled
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
            if mode[i] == 0 or shown[i] == 0:
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
        if until_decided:  # (a caller that queues with ``queue_lines`` keeps the count in qs[6])
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
    while (nr > 0 or nx > 0) and (undecided > 0 or not until_decided):
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
        if exact and mode[li] == 2:
            # the per-colour filter is at its fixpoint for this line (the relax queue is empty):
            # ``open_to_two`` read off the state, as most exact pops end here
            two = False
            for j in range(a, b):
                if _two_colours(state[line_cells[j]]):
                    two = True
                    break
            if not two:
                continue
            counters[1] += 1
        if b - a > buf.shape[0]:
            buf = np.empty(b - a, dtype=np.int64)
        masks = buf[:b - a]
        for j in range(b - a):
            masks[j] = state[line_cells[a + j]]
        counters[0] += 1
        exact3d = exact and mode[li] == 2
        kind = K_COMPLETE if exact else K_FIXPOINT
        slot, hit = 0, False
        if caching:
            slot, hit = cache_slot(clue_id[li], kind, masks, c_line, c_kind, c_in)
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
                cache_store(slot, clue_id[li], kind, masks, res, c_line, c_kind, c_in, c_out)
        if budget[0] > 0:
            budget[0] = max(budget[0] - _work(exact3d, b - a, k, cnt[li], rmax[li]), 0)
        if res[0] == 0:
            if counters.shape[0] > 2:
                counters[2] += 1  # a contradiction deduces nothing either (as the plain counts)
            _drain(queued, rq, xq, qs, hr, nr, hx, nx, undecided)
            return ST_CONTRADICTION
        changed = False
        for j in range(b - a):
            if res[j] != masks[j]:
                changed = True
                c = line_cells[a + j]
                if counting:
                    changes[li] += 1
                if not res[j] & (res[j] - 1):
                    undecided -= 1  # (a changed cell was undecided: only undecided cells narrow)
                if trailing:
                    t = qs[7]
                    t_cell[t] = c
                    t_old[t] = masks[j]
                    qs[7] = t + 1
                state[c] = res[j]
                for t in range(cell_start[c], cell_start[c + 1]):
                    lj = cell_lines[t]
                    if lj == li or mode[lj] == 0 or shown[lj] == 0:
                        continue
                    if mode[lj] == 2 and queued[lj] & 1 == 0:
                        queued[lj] |= 1
                        rq[(hr + nr) % n_lines] = lj
                        nr += 1
                    if queued[lj] & 2 == 0:
                        queued[lj] |= 2
                        xq[(hx + nx) % n_lines] = lj
                        nx += 1
        if not changed and counters.shape[0] > 2:
            counters[2] += 1  # an idle line solve: it deduced nothing
    _drain(queued, rq, xq, qs, hr, nr, hx, nx, undecided)
    return ST_OK


@njit(cache=True)
def _drain(queued, rq, xq, qs, hr, nr, hx, nx, undecided):
    """Leave the queues empty (a stop once every cell is decided, or a contradiction, leaves
    lines in them) with their flags clear, and their positions in ``qs``: a caller that keeps the
    arrays queues the next lines behind them (``queue_lines``)."""
    n_lines = queued.shape[0]
    for i in range(nr):
        queued[rq[(hr + i) % n_lines]] = 0
    for i in range(nx):
        queued[xq[(hx + i) % n_lines]] = 0
    qs[0], qs[1], qs[2], qs[3], qs[6] = hr, 0, hx, 0, undecided


@njit(cache=True)
def queue_lines(lines, mode, shown, queued, rq, xq, qs):
    """Queue ``lines`` (the shown clued ones) behind what the queues of ``propagate_queues`` hold,
    3D lines in both queues, 2D lines in the exact one, as its first call queues flagged lines;
    marks the queues started (qs[4])."""
    n_lines = mode.shape[0]
    for li in lines:
        if mode[li] == 0 or shown[li] == 0:
            continue
        if mode[li] == 2 and queued[li] & 1 == 0:
            queued[li] |= 1
            rq[(qs[0] + qs[1]) % n_lines] = li
            qs[1] += 1
        if queued[li] & 2 == 0:
            queued[li] |= 2
            xq[(qs[2] + qs[3]) % n_lines] = li
            qs[3] += 1
    qs[4] = 1


@njit(cache=True)
def undo_trail(state, t_cell, t_old, qs, mark):
    """Undo the trail of ``propagate_queues`` back to position ``mark``, newest first (a cell may
    have changed more than once), keeping qs[6], the count of undecided cells, in step."""
    und = qs[6]
    for e in range(qs[7] - 1, mark - 1, -1):
        c = t_cell[e]
        if not state[c] & (state[c] - 1) and t_old[e] & (t_old[e] - 1):
            und += 1
        state[c] = t_old[e]
    qs[6] = und
    qs[7] = mark


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
    decided (see ``propagate_queues``)."""
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
             _NO_ORDER if changes is None else changes, *(NO_CACHE if cache is None else cache), bool(until_decided),
             _NO_ORDER, _NO_ORDER)
    args = (state, net.k, net.line_start, net.line_cells, net.mode, net.shown, net.clue_id, net.tab_all,
            net.tab_start, net.cnt, net.rmax, net.cell_start, net.cell_lines, queued, counters)
    budget = np.full(1, -1, dtype=np.int64)
    step = lambda: int(propagate_queues(*args, budget, *queues, *extra))  # noqa: E731
    return step() if deadline is None else sliced(step, budget, queues[2], deadline)


def sliced(step, budget, qs, deadline) -> int:
    """``step()``, a ``propagate_queues`` call that goes on from the last one's queues ``qs``, in
    slices of ``budget[0]`` units sized to take about SLICE_S each, until it ends: its status, or
    ST_TIMEOUT once ``deadline`` (perf_counter seconds, checked between slices) has passed."""
    size = 16
    while True:
        if time.perf_counter() > deadline:
            return ST_TIMEOUT
        budget[0] = size
        t = time.perf_counter()
        st = int(step())
        if st != ST_BUDGET:
            return st
        dt = time.perf_counter() - t
        # grow at most fourfold: the next slice may hold dearer lines than this one's; fourfold
        # when a line was cut inside (its work is redone: a geometric series, at most 4/3 of it)
        size = int(min(max(size * SLICE_S / max(dt, 1e-6), 1), size * 4, 1 << 40))
        if qs[5]:
            size = min(size * 4, 1 << 40)


def popcount(state) -> np.ndarray:
    """How many values each cell (bitmask) may still take, in the shape of ``state``."""
    s = np.asarray(state, np.int64)
    return _popcounts(s.ravel()).reshape(s.shape)


@njit(cache=True)
def _popcounts(flat):
    out = np.empty(flat.shape[0], dtype=np.int64)
    for i in range(flat.shape[0]):
        s = flat[i]
        n = 0
        while s:
            s &= s - 1
            n += 1
        out[i] = n
    return out


@njit(cache=True)
def fewest_values(state) -> int:
    """The first undecided cell (two values or more) with the fewest values left; -1 when every
    cell is decided. (A numpy popcount of every undecided cell was most of a colour search
    node's Python time.)"""
    best, best_n = -1, 1 << 62
    for c in range(state.shape[0]):
        s = state[c]
        if s & (s - 1):
            n = 0
            while s:
                s &= s - 1
                n += 1
            if n < best_n:
                best, best_n = c, n
    return best


def decided(state) -> np.ndarray:
    return (state & (state - 1)) == 0


def values_of(state) -> np.ndarray:
    """The value (0..k) of each decided cell (log2 of its single bit); -1 where undecided."""
    return _values_of(np.asarray(state, np.int64))


@njit(cache=True)
def _values_of(state):
    out = np.full(state.shape[0], -1, dtype=np.int64)
    for c in range(state.shape[0]):
        s = state[c]
        if s > 0 and not s & (s - 1):
            v = 0
            while s > 1:
                s >>= 1
                v += 1
            out[c] = v
    return out


@njit(cache=True)
def cell_codes(state, empty, filled, unknown):
    """The engine's cell codes of colour masks: ``empty`` where only bit 0 is left, ``filled``
    where bit 0 is gone (a colour, maybe not yet which; also a contradiction's 0), else
    ``unknown``."""
    out = np.empty(state.shape[0], dtype=np.int8)
    for c in range(state.shape[0]):
        s = state[c]
        out[c] = empty if s == 1 else filled if s & 1 == 0 else unknown
    return out


def full_state(net: ColourNet) -> np.ndarray:
    return np.full(net.n_cells, (1 << (net.k + 1)) - 1, dtype=np.int64)
