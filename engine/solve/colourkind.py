"""The colour puzzle kind: what the design and solve pipelines ask of a colour puzzle, on the colour
kernels (``colourprop.py``: line propagation over int64 cell masks, bit 0 empty, bit c colour c;
``colourprobe.py``: probing; ``colourline.py``: the line solvers; ``linecache.py``: their results
cached by line and input).

``ColourKind(puzzle)`` holds one puzzle's net and work arrays; the pipelines flip ``shown`` and
call the methods ``kinds.py`` describes, as they do a ``plainkind.PlainKind``'s. A 1-colour
puzzle is never given one: it is the plain puzzle (``kinds.kind_for``).

The state the design pipeline works on is kept with a trail (each change: the cell and its masks
before), so that the pass by halves undoes a propagation in what it changed rather than copying
the state; the count of undecided cells is kept with it (``propagate_queues``' qs[6]).
"""
from __future__ import annotations

import time

import numpy as np

from ..jit import njit
from ..lines.colourline import relax_3d, relax_3d_fixpoint, solve_automaton, solve_dfa_dense
from ..model.colourpuzzle import CKIND_NONE, ColourPuzzle
from .colourprobe import probe as _probe_state
from .colourprop import (QS_LEN, SLICE_S, ST_BUDGET, ST_CONTRADICTION, ST_OK, Deadline, build_net, cell_codes,
                         covered_cells, decided, fewest_values, open_to_two, propagate_queues, queue_lines, undo_trail, with_clue_ids)
from .difficulty import COST_PROBE, from_rounds
from .linecache import K_COMPLETE, K_FILTER, K_FIXPOINT, cache_slot, cache_store, new_cache
from .maskprop import (N_RSTATS, R_DEDUCED, R_PROBE, R_UNKNOWN, RUN_BUDGET, RUN_CONTRADICTION, RUN_SOLVED, RUN_STALLED,
                       pick)

_NONE = np.zeros(0, dtype=np.int64)
# Line solves a probing trial may spend (as plainkind's, per cell) before it counts as failed.
PROBE_TRIAL_SOLVES_PER_CELL = 2000


@njit(cache=True)
def prop_step(lines, undo_to, until, state, k, line_start, line_cells, mode, shown, clue_id, tab_all, tab_start,
              cnt, rmax, cell_start, cell_lines, queued, counters, budget, rq, xq, qs, changes, c_line, c_kind, c_in,
              c_out, t_cell, t_old):
    """Undo the trail back to ``undo_to`` (when >= 0), queue ``lines`` (the shown clued ones), and
    propagate until the fixpoint (or, ``until``, until every cell is decided): a
    ``colourprop.ST_*`` status (ST_BUDGET: ``budget`` ran out, call again with no lines to go
    on)."""
    if undo_to >= 0:
        undo_trail(state, t_cell, t_old, qs, undo_to)
    queue_lines(lines, mode, shown, queued, rq, xq, qs)
    return propagate_queues(state, k, line_start, line_cells, mode, shown, clue_id, tab_all, tab_start, cnt, rmax,
                            cell_start, cell_lines, queued, counters, budget, rq, xq, qs, _NONE, changes, c_line,
                            c_kind, c_in, c_out, until, t_cell, t_old)


@njit(cache=True)
def set_cell(state, c, v, t_cell, t_old, qs):
    """Cell ``c`` := masks ``v`` (narrower), on the trail; qs[6] (undecided cells) kept."""
    t = qs[7]
    t_cell[t] = c
    t_old[t] = state[c]
    qs[7] = t + 1
    if state[c] & (state[c] - 1) and not v & (v - 1):
        qs[6] -= 1
    state[c] = v


@njit(cache=True)
def _cached_solve(cid, kind, masks, k, cnt, rmax, no_tab, c_line, c_kind, c_in, c_out):
    """The per-colour filter (``kind`` K_FILTER), the filter to its fixpoint (K_FIXPOINT: one cache
    entry per input, not one per pass, as the informed start asks it of ~100 lines per step at 64^3;
    all zero on a contradiction) or the product solver (K_COMPLETE) on a 3D line of clue ``cid``,
    through the line cache when it has slots (a copy: a later store may reuse the slot)."""
    caching = c_line.shape[0] > 0
    s = 0
    if caching:
        s, hit = cache_slot(cid, kind, masks, c_line, c_kind, c_in)
        if hit:
            return c_out[s, :masks.shape[0]].copy()
    if kind == K_FILTER:
        res = relax_3d(masks, k, cnt, rmax)
    elif kind == K_FIXPOINT:
        res = relax_3d_fixpoint(masks, k, cnt, rmax)
    else:
        res = solve_automaton(masks, 2, no_tab, k, cnt, rmax)
    if caching:
        cache_store(s, cid, kind, masks, res, c_line, c_kind, c_in, c_out)
    return res


@njit(cache=True)
def _complete_3d(masks, k, cnt, rmax, no_tab, cid, c_line, c_kind, c_in, c_out):
    """The complete 3D line solve (``solve_automaton``'s answer), cheaper: the per-colour filter
    to its fixpoint first, and the product solver only when a cell is still open to two colours
    (else the colours cannot compete for cells and the filter's fixpoint is exact, as in
    ``propagate_queues``; the product solver from the filtered states gives the same answer as
    from the given ones, the filter being sound)."""
    cur = _cached_solve(cid, K_FIXPOINT, masks, k, cnt, rmax, no_tab, c_line, c_kind, c_in, c_out)
    if cur[0] == 0:
        return cur
    if open_to_two(cur):
        return _cached_solve(cid, K_COMPLETE, cur, k, cnt, rmax, no_tab, c_line, c_kind, c_in, c_out)
    return cur


@njit(cache=True)
def _complete(li, cid, masks, k, mode, tab_all, tab_start, cnt, rmax, c_line, c_kind, c_in, c_out):
    """Line ``li``'s complete line solve on ``masks`` (all zero on a contradiction), cached by its
    clue ``cid``."""
    caching = c_line.shape[0] > 0
    if caching:
        s, hit = cache_slot(cid, K_COMPLETE, masks, c_line, c_kind, c_in)
        if hit:
            return c_out[s, :masks.shape[0]].copy()
    if mode[li] == 1:
        res = solve_dfa_dense(masks, tab_all[tab_start[li]:tab_start[li + 1]])
    else:
        res = _complete_3d(masks, k, cnt[li], rmax[li], np.zeros((1, 1), dtype=np.int64), cid, c_line, c_kind,
                           c_in, c_out)
    if caching:
        # the slot again: the filter's and product solver's own entries may have taken it
        s, hit = cache_slot(cid, K_COMPLETE, masks, c_line, c_kind, c_in)
        cache_store(s, cid, K_COMPLETE, masks, res, c_line, c_kind, c_in, c_out)
    return res


@njit(cache=True)
def best_gain(key, gain, shown, clue_id, state, k, line_start, line_cells, mode, tab_all, tab_start, cnt, rmax,
              c_line, c_kind, c_in, c_out, counters):
    """The hidden clued line whose solve, on the current state, narrows the most cells
    (``gain``, plus ``key`` to break ties), or -1 when none narrows anything. ``gain`` caches each
    line's count: -1 = to be computed (``show_line`` resets the lines through the cells it
    changes)."""
    no_tab = np.zeros((1, 1), dtype=np.int64)
    best = -1
    best_s = 0.0
    for li in range(mode.shape[0]):
        if shown[li] or mode[li] == 0:
            continue
        if gain[li] < 0:
            a = line_start[li]
            b = line_start[li + 1]
            masks = np.empty(b - a, dtype=np.int64)
            open_cells = 0
            for j in range(b - a):
                masks[j] = state[line_cells[a + j]]
                if masks[j] & (masks[j] - 1):
                    open_cells += 1
            g = 0
            if open_cells:
                counters[0] += 1
                if mode[li] == 2:
                    # the per-colour filter's changes: the complete solve's cost 3x the design's
                    # time at 24^3 and picked the same lines nearly always (k = 2, 3: the hides
                    # differed on one model in five, by 4 of 1,310 clues)
                    res = _cached_solve(clue_id[li], K_FIXPOINT, masks, k, cnt[li], rmax[li], no_tab, c_line, c_kind,
                                        c_in, c_out)
                else:
                    res = _complete(li, clue_id[li], masks, k, mode, tab_all, tab_start, cnt, rmax, c_line, c_kind,
                                    c_in, c_out)
                if res[0] != 0:
                    for j in range(b - a):
                        if res[j] != masks[j]:
                            g += 1
            gain[li] = g
        best, best_s = pick(li, gain[li], key, best, best_s)
    return best


@njit(cache=True)
def reset_gains(gain, t_cell, frm, to, cell_start, cell_lines):
    """The gains of the lines through the cells the trail changed from ``frm`` to ``to``: to be
    computed again."""
    for e in range(frm, to):
        c = t_cell[e]
        for t in range(cell_start[c], cell_start[c + 1]):
            gain[cell_lines[t]] = -1


# ---------------------------------------------------------------------------------------------
# the score: synchronous rounds, read by ``difficulty.from_rounds`` as the plain puzzles' are


@njit(cache=True)
def _grade_round(snap, new, cost, dirty, tech, k, line_start, line_cells, mode, shown, clue_id, tab_all, tab_start,
                 cnt, rmax, c_line, c_kind, c_in, c_out):
    """One synchronous round: every dirty shown line solved completely from ``snap``, its
    narrowings ANDed into ``new``; ``cost`` per changed cell: the cheapest technique (``tech`` per
    line) that changed it. False on a contradiction."""
    for li in range(mode.shape[0]):
        if not dirty[li] or mode[li] == 0 or shown[li] == 0:
            continue
        a = line_start[li]
        b = line_start[li + 1]
        masks = np.empty(b - a, dtype=np.int64)
        for j in range(b - a):
            masks[j] = snap[line_cells[a + j]]
        res = _complete(li, clue_id[li], masks, k, mode, tab_all, tab_start, cnt, rmax, c_line, c_kind, c_in, c_out)
        if res[0] == 0:
            return False
        for j in range(b - a):
            if res[j] != masks[j]:
                c = line_cells[a + j]
                new[c] &= res[j]
                cost[c] = min(cost[c], tech[li])
    return True


@njit(cache=True)
def grade_rounds(state, dirty, tech, k, line_start, line_cells, mode, shown, clue_id, tab_all, tab_start, cnt, rmax,
                 cell_start, cell_lines, c_line, c_kind, c_in, c_out, round_stats, cell_round, cell_cost, r):
    """Synchronous line rounds from ``state`` (changed in place), numbered from ``r``, until every
    cell is decided (status 0), a contradiction (1) or a round that changes nothing (2: the
    caller probes). Per round ``round_stats`` (``maskprop.R_*`` columns: undecided cells at its
    start, cells it decided); per decided cell the round and the cheapest technique that decided
    it. Returns (status, rounds so far)."""
    n = state.shape[0]
    snap = np.empty(n, dtype=np.int64)
    cost = np.empty(n, dtype=np.int64)
    while True:
        unknown = 0
        for x in range(n):
            if state[x] & (state[x] - 1):
                unknown += 1
        if unknown == 0:
            return 0, r
        snap[:] = state
        cost[:] = 99
        if not _grade_round(snap, state, cost, dirty, tech, k, line_start, line_cells, mode, shown, clue_id, tab_all,
                            tab_start, cnt, rmax, c_line, c_kind, c_in, c_out):
            return 1, r
        d = 0
        moved = False
        dirty[:] = False
        for x in range(n):
            if state[x] != snap[x]:
                moved = True
                for t in range(cell_start[x], cell_start[x + 1]):
                    dirty[cell_lines[t]] = True
                if not state[x] & (state[x] - 1):
                    d += 1
                    cell_round[x] = r
                    cell_cost[x] = min(cost[x], 4)
        if not moved:
            return 2, r
        round_stats[r, 0] = unknown
        round_stats[r, 1] = d
        round_stats[r, 2] = 0
        r += 1


def _technique(p: ColourPuzzle, i: int, length: int) -> int:
    clue = p.clue(i)
    if clue is None:
        return 9  # a hidden line: the grade never solves it
    if p.is_3d:
        total = sum(n for n, _ in clue)
        if total == 0 or total == length:
            return 0
        return 1 + max((m for n, m in clue if n), default=0)
    need = sum(n for n, _ in clue) + sum(1 for a, b in zip(clue, clue[1:]) if a[1] == b[1])
    return 0 if not clue or need == length else 1


def techniques(p: ColourPuzzle) -> np.ndarray:
    """Per line, the technique cost its deductions count at in the score: 0 a line its clue alone
    fills, 1 a 2D block list or a 3D clue of plain counts, 2 with a circle, 3 with a square (the
    plain puzzles' costs, ``difficulty.line_costs``); 9 for a hidden line."""
    if not p.is_3d:
        return np.array([_technique(p, i, int(p.line_start[i + 1] - p.line_start[i])) for i in range(p.n_lines)],
                        dtype=np.int64)
    # 3D clues hold (count, mark) per colour: counted with numpy (a Python loop per line was a
    # tenth of a 64^3 design's set-up)
    out = np.full(p.n_lines, 9, dtype=np.int64)
    shown = np.flatnonzero(p.clue_kind != CKIND_NONE)
    data = p.clue_data[p.clue_start[:-1][shown][:, None] + np.arange(2 * p.k)[None, :]]
    counts, marks = data[:, 0::2], data[:, 1::2]
    total = counts.sum(axis=1)
    lens = np.diff(p.line_start)[shown]
    cost = 1 + np.where(counts > 0, marks, 0).max(axis=1)
    out[shown] = np.where((total == 0) | (total == lens), 0, cost)
    return out


class ColourKind:
    """One colour puzzle's kernels for the pipelines (see ``kinds.py`` for the interface)."""
    name = "colour"

    def __init__(self, puzzle: ColourPuzzle, cache: bool = True):
        self.puzzle = puzzle
        self.net = net = build_net(puzzle, ids=cache)
        self.colours = net.k
        self.n_lines = puzzle.n_lines
        self.n_cells = puzzle.n_cells
        self.line_start, self.line_cells = net.line_start, net.line_cells
        self.clued = net.shown.astype(np.bool_)  # (mode > 0: a ufunc costs 2-4 us a call on a busy machine)
        self.shown = net.shown  # the kernels read the net's: one array
        self._costs = None
        # designs and grades of one puzzle solve the same lines often (a solver's comes with its
        # probing: ``ensure_cache``)
        self.cache = new_cache(net) if cache else NO_LINE_CACHE
        self.full = np.int64((1 << (net.k + 1)) - 1)
        self.state = np.empty(self.n_cells, dtype=np.int64)  # (``reset`` fills it; np.full costs 2 us a call)
        n = self.n_lines
        self.queued = np.zeros(n, np.int64)
        self.rq = np.zeros(max(n, 1), np.int64)
        self.xq = np.zeros(max(n, 1), np.int64)
        self.qs = np.zeros(QS_LEN, np.int64)
        self.counters = np.zeros(3, np.int64)  # line solves, of them exact 3D products, idle ones
        self.budget = np.array([-1], np.int64)
        self.changes = np.zeros(n, np.int64)
        trail = self.n_cells * (net.k + 1) + 16  # a change takes at least one value from a cell
        self.t_cell = np.zeros(trail, np.int64)
        self.t_old = np.zeros(trail, np.int64)
        self.probe_order = np.arange(self.n_cells, dtype=np.int64)  # cells that paid off first
        self.probe_budget = PROBE_TRIAL_SOLVES_PER_CELL * max(self.n_cells, 1)
        self.deadline = None  # perf_counter seconds: a propagation checks it between slices
        # a designer's propagations stop once every cell is decided (the state is then the
        # solution the clues were made from); a solver's go on to the fixpoint, checking every
        # line it queued
        self.until_decided = True
        self.n_probes = 0
        self.reset()

    def ensure_cache(self) -> None:
        """A line cache from now on (keyed by the shared clue ids), if there is none yet."""
        if self.cache[0].shape[0] == 0:
            self.net = with_clue_ids(self.puzzle, self.net)
            self.cache = new_cache(self.net)

    @property
    def costs(self) -> np.ndarray:
        """Per line the technique cost of its clue (``techniques``; the grade's)."""
        if self._costs is None:
            self._costs = techniques(self.puzzle)
        return self._costs

    def _args(self):
        net = self.net
        return (self.state, net.k, net.line_start, net.line_cells, net.mode, net.shown, net.clue_id, net.tab_all,
                net.tab_start, net.cnt, net.rmax, net.cell_start, net.cell_lines, self.queued, self.counters,
                self.budget, self.rq, self.xq, self.qs)

    # state ----------------------------------------------------------------------------------
    def reset(self) -> None:
        self.state.fill(self.full)
        self.qs.fill(0)
        self.qs[4] = 1
        self.qs[6] = self.n_cells

    def mark(self) -> int:
        return int(self.qs[7])

    def undo(self, mark: int) -> None:
        undo_trail(self.state, self.t_cell, self.t_old, self.qs, mark)

    def undecided(self) -> int:
        return int(self.qs[6])

    def undecided_cells(self) -> np.ndarray:
        return ~decided(self.state)

    @property
    def contrib(self) -> np.ndarray:
        """Cells each line changed in the last ``run``."""
        return self.changes

    def line_solves(self) -> int:
        return int(self.counters[0])

    def probes(self) -> int:
        return self.n_probes

    def cover(self) -> np.ndarray:
        on = np.repeat(self.shown > 0, np.diff(self.line_start))
        return np.bincount(self.line_cells[on], minlength=self.n_cells).astype(np.int64)

    # logic ----------------------------------------------------------------------------------
    def _propagate(self, lines, undo_to, changes) -> int:
        """``prop_step`` in slices of the deadline's (``colourprop.propagate``'s sizing)."""
        lines = np.asarray(lines, np.int64)
        c = self.cache
        if self.deadline is None:
            self.budget[0] = -1
            return int(prop_step(lines, undo_to, self.until_decided, *self._args(), changes, *c, self.t_cell,
                                 self.t_old))
        size = 16
        while True:
            if time.perf_counter() > self.deadline:
                raise Deadline()
            self.budget[0] = size
            t = time.perf_counter()
            st = int(prop_step(lines, undo_to, self.until_decided, *self._args(), changes, *c, self.t_cell,
                               self.t_old))
            if st != ST_BUDGET:
                return st
            lines, undo_to = _NONE, -1
            dt = time.perf_counter() - t
            size = int(min(max(size * SLICE_S / max(dt, 1e-6), 1), size * 4, 1 << 40))
            if self.qs[5]:
                size = min(size * 4, 1 << 40)

    def run(self, key=None, probe: bool = False) -> int:
        """From every cell open, the shown lines to line logic's fixpoint or until every cell is
        decided (queued by ``key``, highest first, when given), then probing when it stalls and
        ``probe``: a ``maskprop.RUN_*`` status; ``contrib`` holds each line's changes."""
        self.reset()
        self.changes[:] = 0
        order = np.flatnonzero(self.shown) if key is None else np.argsort(-np.asarray(key), kind="stable")
        st = self._propagate(order, -1, self.changes)
        if st == ST_CONTRADICTION:
            return RUN_CONTRADICTION
        if self.undecided() == 0:
            return RUN_SOLVED
        if not probe:
            return RUN_STALLED
        return self.probe()

    def propagate(self, lines=None, undo_to: int = -1) -> bool:
        """Undo back to ``undo_to`` (a ``mark``) when given, then propagate from the state with
        ``lines`` (default: every shown line) queued; False on a contradiction."""
        if lines is None:
            lines = np.flatnonzero(self.shown)
        return self._propagate(lines, undo_to, _NONE) != ST_CONTRADICTION

    def probe(self) -> int:
        """Probing from the current state to its closure, in place (not on the trail: ``undo``
        cannot take it back): a RUN_* status."""
        if self.undecided() == 0:
            return RUN_SOLVED
        c0 = int(self.counters[0])
        st = _probe_state(self.net, self.state, self.counters, self.deadline, cache=self.cache,
                          order=self.probe_order, budget=self.probe_budget)
        self.n_probes += int(self.counters[0]) - c0
        self.qs[6] = int(np.count_nonzero(~decided(self.state)))
        if st == ST_CONTRADICTION:
            return RUN_CONTRADICTION
        if st == ST_BUDGET:
            return RUN_BUDGET
        return RUN_SOLVED if self.qs[6] == 0 else RUN_STALLED

    def probe_solves(self) -> int:
        """Whether probing from the current state decides every cell (a RUN_* status); the state
        is left as it was."""
        keep, und = self.state.copy(), int(self.qs[6])
        st = self.probe()
        self.state[:] = keep
        self.qs[6] = und
        return st

    # the informed start and Suggest Clue ---------------------------------------------------
    def new_gains(self) -> np.ndarray:
        """The informed start's gain counts per line (-1 = to compute)."""
        return np.full(self.n_lines, -1, np.int64)

    def best_gain(self, key, gain) -> int:
        net = self.net
        return int(best_gain(key, gain, net.shown, net.clue_id, self.state, net.k, net.line_start, net.line_cells,
                             net.mode, net.tab_all, net.tab_start, net.cnt, net.rmax, *self.cache, self.counters))

    def show(self, li: int, gain) -> bool:
        mark = self.mark()
        self.shown[li] = 1
        ok = self._propagate(np.array([li], np.int64), -1, _NONE) != ST_CONTRADICTION
        reset_gains(gain, self.t_cell, mark, int(self.qs[7]), self.net.cell_start, self.net.cell_lines)
        return ok

    def reveal_gains(self, cands) -> np.ndarray:
        cands = np.asarray(cands, np.int64)
        out = np.zeros(len(cands), np.int64)
        before = self.undecided()
        for i, li in enumerate(cands):
            mark = self.mark()
            was = self.shown[li]
            self.shown[li] = 1
            ok = self._propagate(np.array([li], np.int64), -1, _NONE) != ST_CONTRADICTION
            out[i] = before - self.undecided() if ok else -1
            self.undo(mark)
            self.shown[li] = was
        return out

    def grade(self, probe: bool):
        """The difficulty (``difficulty.Difficulty``) of the shown clues: synchronous rounds of
        complete line solves, a probing round when one changes nothing (with ``probe``)."""
        net, n = self.net, self.n_cells
        state = np.full(n, self.full, dtype=np.int64)
        dirty = np.ones(self.n_lines, dtype=np.bool_)
        stats = np.zeros((n + 1, N_RSTATS), np.int64)
        cell_round = np.full(n, -1, np.int32)
        cell_cost = np.zeros(n, np.int8)
        r = 0
        while True:
            st, r = grade_rounds(state, dirty, self.costs, net.k, net.line_start, net.line_cells, net.mode, net.shown,
                                 net.clue_id, net.tab_all, net.tab_start, net.cnt, net.rmax, net.cell_start, net.cell_lines,
                                 *self.cache, stats, cell_round, cell_cost, r)
            if st != 2 or not probe:
                break
            # a round of line solves changed nothing: a probing round (technique cost 4)
            snap = state.copy()
            if _probe_state(net, state, np.zeros(2, np.int64), cache=self.cache) != ST_OK:
                st = 1
                break
            if np.array_equal(state, snap):
                break
            new = decided(state) & ~decided(snap)
            stats[r, R_UNKNOWN] = int(np.count_nonzero(~decided(snap)))
            stats[r, R_DEDUCED] = int(np.count_nonzero(new))
            stats[r, R_PROBE] = 1
            cell_round[new] = r
            cell_cost[new] = COST_PROBE
            r += 1
            dirty[:] = True
        status = {0: RUN_SOLVED, 1: RUN_CONTRADICTION}.get(st, RUN_STALLED)
        return from_rounds(status, r, stats[:r], cell_round, cell_cost, n)



# ---------------------------------------------------------------------------------------------
# the solve face: what the full method's driver (``search.py``) asks of a colour puzzle


class ColourSolver:
    """The full method's kernels on one colour puzzle: the operations ``search._Driver`` calls
    (``kinds.py``), on a ``ColourKind`` that propagates to the fixpoint. A search node is closed
    under propagation (probing runs at the root only: colour probes cost (k+1) propagations per
    cell); a guess takes the cell with the fewest values left (its known solution's value first,
    else the lowest), its sibling rules that value out."""
    solve_weight = 3.0   # (``search.sat_after_steps``: a colour line solve costs ~3 plain ones)
    probe_nodes = False
    restarts = False

    def __init__(self, puzzle: ColourPuzzle, known=None, cache: bool = True):
        self.puzzle = puzzle
        # a line cache when probing starts (line logic alone seldom solves a line twice alike; a
        # puzzle that line logic solves pays no 10-30 MB table)
        self.K = K = ColourKind(puzzle, cache=False)
        K.until_decided = False
        self.use_cache = cache
        self.n_cells = K.n_cells
        self.covered = covered_cells(K.line_start, K.line_cells, K.net.mode, self.n_cells)
        self.free = np.flatnonzero(~self.covered)
        self.n_target = self.n_cells
        self.known_values = None
        if known is not None:
            from ..model.colourpuzzle import check_colour_solution
            kv = np.asarray(known, np.int64).ravel()
            if len(kv) == self.n_cells and not check_colour_solution(puzzle, kv):
                self.known_values = kv
        self.known = self.known_values is not None
        self.first_chunk = 4096  # cost units (``colourprop._work``: ~a filter solve of a short line each)
        self.boost = 1  # (``line_solve``)
        self.trailing = True
        self._pg = None
        self.probed_cells = 0

    # counters and state ---------------------------------------------------------------------
    def steps(self) -> int:
        return int(self.K.counters[0])

    def n_known(self) -> int:
        return self.n_cells - self.K.undecided()

    def mark(self) -> int:
        return self.K.mark()

    def undo(self, mark: int) -> None:
        self.K.undo(mark)

    def state_copy(self):
        return self.K.state.copy()

    def codes_of(self, state):
        """The engine's cell codes of colour masks: EMPTY where only bit 0 is left, FILLED where bit 0
        is gone (a colour, maybe not yet which), else UNKNOWN. The masks are kept as the report's
        (``values``: what logic decided of each cell's colour)."""
        from ..model.cells import EMPTY, FILLED, UNKNOWN
        self.reported = state.copy()
        return cell_codes(self.reported, EMPTY, FILLED, UNKNOWN)

    def state_codes(self):
        return self.codes_of(self.K.state)

    def order(self, n: int):
        return np.zeros(0, np.int64)  # (no deduction order is recorded for colour puzzles)

    def counts(self) -> tuple:
        return int(self.K.counters[0]), int(self.K.counters[2])

    def stats(self) -> dict:
        return {"checks": 0, "prepass_lines": 0, "too_large": 0, "probes": self.probed_cells, "relations": 0,
                "cache_hits": 0, "cache_lookups": 0, "exact_3d": int(self.K.counters[1])}

    # logic ------------------------------------------------------------------------------------
    def queue_all(self) -> None:
        K = self.K
        K.reset()
        queue_lines(np.flatnonzero(K.shown), K.net.mode, K.shown, K.queued, K.rq, K.xq, K.qs)
        self.trailing = False  # the root's line solving is never undone: no trail until a node

    def line_solve(self, chunk):
        """Propagation from the queued lines for about ``chunk`` cost units: True at the fixpoint,
        False on a contradiction, None when paused."""
        K = self.K
        K.budget[0] = min(chunk * self.boost, 1 << 40)
        trail = (K.t_cell, K.t_old) if self.trailing else (_NONE, _NONE)
        st = int(prop_step(_NONE, -1, False, *K._args(), _NONE, *K.cache, *trail))
        K.budget[0] = -1
        if st == ST_BUDGET:
            # a product solve ran out inside its line (qs[5]): the line starts again on the next
            # call, which gets four times the steps until one ends without a cut (else a line
            # dearer than the driver's chunk would never end)
            self.boost = self.boost * 4 if K.qs[5] else self.boost
            return None
        self.boost = 1
        return st == ST_OK

    def new_node(self, child: bool) -> None:
        self.trailing = True

    def probe_start(self, root: bool) -> None:
        if self.use_cache:
            self.K.ensure_cache()
        self._pg = self._probing()

    def probe_round(self, steps: int) -> int:
        """Probing from the state, for about ``steps`` cost units: P_PAUSED, P_FIXPOINT,
        P_SOLVED or P_CONTRADICTION (``probe.py``'s statuses)."""
        self._slice = steps
        try:
            return next(self._pg)
        except StopIteration as done:
            self._pg = None
            return done.value

    def _probing(self):
        """``colourprobe.probe`` as a generator that pauses between slices of its budget."""
        from .colourprobe import probe_cells, probe_scratch
        from .probe import P_CONTRADICTION, P_FIXPOINT, P_PAUSED, P_SOLVED
        K, net = self.K, self.K.net
        state, n = K.state, self.n_cells
        scratch = probe_scratch(state, len(net.mode))
        flags = np.zeros(2, np.int64)
        budget = np.full(1, -1, np.int64)
        before = int(np.count_nonzero(decided(state)))
        chunk = 256
        boost = 1  # x4 while a slice probes no whole cell (its assumptions need more; it starts again)
        try:
            while True:
                flags[0] = 0
                for c0 in range(0, n, chunk):
                    c1 = min(n, c0 + chunk)
                    while c0 < c1:
                        budget[0] = min(max(self._slice, 8) * boost, 1 << 40)
                        st = probe_cells(state, net.k, net.line_start, net.line_cells, net.mode, net.shown,
                                         net.clue_id, net.tab_all,
                                    net.tab_start, net.cnt, net.rmax, net.cell_start, net.cell_lines, K.counters,
                                    c0, c1, flags, budget, *K.cache, scratch, K.probe_order)
                        if st == ST_CONTRADICTION:
                            return P_CONTRADICTION
                        if st == ST_OK:
                            boost = 1
                            break
                        boost = boost * 4 if int(flags[1]) == c0 else 1
                        c0 = int(flags[1])
                        yield P_PAUSED
                if flags[0] == 0:
                    break
        finally:
            ids, paid, found = scratch[11], scratch[12], scratch[13]
            if ids[3]:
                order = K.probe_order
                rest = order[paid[order] == 0]
                order[:ids[3]] = found[:ids[3]]
                order[ids[3]:] = rest
            K.qs[6] = int(np.count_nonzero(~decided(state)))
            self.probed_cells += int(ids[1])
            self.changed = int(np.count_nonzero(decided(state))) - before
        return P_SOLVED if K.undecided() == 0 else P_FIXPOINT

    def probe_changed(self) -> int:
        return getattr(self, "changed", 0)

    def harvest(self) -> list:
        return []

    def solution_ok(self) -> bool:
        # every cell decided at a fixpoint of complete line solvers: every clued line was solved
        # (and found consistent) since its last change
        return True

    def solution(self):
        from .colourprop import values_of
        return values_of(self.K.state)

    def flip_free(self, sol):
        other = sol.copy()
        other[self.free] = np.where(sol[self.free] == 0, 1, 0)
        return other

    # the search -------------------------------------------------------------------------------
    def keep_root(self) -> None:
        pass

    def restore_root(self) -> None:
        pass

    def choose(self, mode: int) -> tuple:
        """(cell, value): the undecided cell with the fewest values left, its known solution's
        value first (else its lowest)."""
        state = self.K.state
        c = int(fewest_values(state))
        m = int(state[c])
        if self.known and (m >> int(self.known_values[c])) & 1:
            return c, int(self.known_values[c])
        return c, int((m & -m).bit_length() - 1)

    def branch(self, p: int, v: int, take: bool, child: bool) -> bool:
        K = self.K
        m = int(K.state[p])
        new = (1 << v) if take else m & ~(1 << v)
        if new == 0:
            return False
        set_cell(K.state, p, np.int64(new), K.t_cell, K.t_old, K.qs)
        lines = K.net.cell_lines[K.net.cell_start[p]:K.net.cell_start[p + 1]]
        st = int(prop_step(lines, -1, False, *K._args(), _NONE, *K.cache, K.t_cell, K.t_old))
        return st == ST_OK

    # plain puzzles' extras ------------------------------------------------------------------------
    def quick_budget(self, want: int) -> int:
        return 0

    def walkable(self) -> bool:
        return False

    # the CDCL solver --------------------------------------------------------------------------
    def _clues(self):
        if not hasattr(self, "clues"):
            self.clues = self.puzzle.clues()  # Python lists: only now, most searches never get here
        return self.clues

    def sat_size(self, state) -> int:
        from .coloursat import colour_encoding_size
        return colour_encoding_size(self.K.net, state, self._clues())

    def relations(self):
        return None

    def sat_new(self, state, relations):
        from .coloursat import ColourSat
        return ColourSat(self.K.net, state, self._clues())

    def sat_solution_ok(self, sol) -> bool:
        from ..model.colourpuzzle import check_colour_solution
        return not check_colour_solution(self.puzzle, sol)


NO_LINE_CACHE = (np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros((0, 0), np.int64),
                 np.zeros((0, 0), np.int64))
