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

import numpy as np

from ...jit import njit
from ...lines.colourline import relax_3d, relax_3d_fixpoint, solve_automaton, solve_dfa_dense
from ...model.colourpuzzle import CKIND_NONE, ColourPuzzle
from .colourprobe import probe as _probe_state
from .colourprop import (QS_LEN, ST_BUDGET, ST_CONTRADICTION, ST_OK, ST_TIMEOUT, Deadline, build_net, cell_codes,
                         decided, fewest_values, open_to_two, propagate_queues, queue_lines, sliced, undo_trail,
                         with_clue_ids)
from ..plain.quicksearch import QUICK_COLOUR_STEPS_PER_CELL, QUICK_STEPS_PER_CELL_KNOWN
from ...model.difficulty import COST_PROBE, N_RSTATS, R_DEDUCED, from_rounds
from .linecache import K_COMPLETE, K_FILTER, K_FIXPOINT, cache_slot, cache_store, new_cache
from ..plain.maskprop import (RUN_BUDGET, RUN_CONTRADICTION, RUN_SOLVED, RUN_STALLED, cover_of, end_round,
                              mark_dirty, narrow, new_gains, top_gain)

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
def best_gain(key, gain, dirty, gctl, heap, pos, prio, shown, clue_id, state, k, line_start, line_cells, mode,
              tab_all, tab_start, cnt, rmax, c_line, c_kind, c_in, c_out, counters):
    """The hidden clued line whose solve, on the current state, narrows the most cells
    (``gain``, plus ``key`` to break ties), or -1 when none narrows anything: the lines of
    ``dirty`` counted again (``maskprop.new_gains``; ``reset_gains`` puts the lines through the
    cells a step changed there), the rest is the plain kind's ``maskprop.top_gain`` (a look at
    every line per step was most of the start's time at 64^3). A shown line, an unclued one or
    one with every cell decided is passed over for good (-1)."""
    no_tab = np.zeros((1, 1), dtype=np.int64)
    buf = np.empty(64, dtype=np.int64)  # grown to the longest line counted
    for t in range(gctl[0]):
        li = dirty[t]
        if shown[li] or mode[li] == 0:
            continue
        a = line_start[li]
        b = line_start[li + 1]
        if b - a > buf.shape[0]:
            buf = np.empty(b - a, dtype=np.int64)
        masks = buf[:b - a]
        open_cells = 0
        for j in range(b - a):
            masks[j] = state[line_cells[a + j]]
            if masks[j] & (masks[j] - 1):
                open_cells += 1
        if open_cells == 0:
            continue
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
        g = 0
        if res[0] != 0:
            for j in range(b - a):
                if res[j] != masks[j]:
                    g += 1
        gain[li] = g
    return top_gain(key, gain, dirty, gctl, heap, pos, prio, shown)


@njit(cache=True)
def reset_gains(gain, dirty, gctl, t_cell, frm, to, cell_start, cell_lines):
    """The gains of the lines through the cells the trail changed from ``frm`` to ``to``: to be
    computed again (``maskprop.mark_dirty``)."""
    mark_dirty(t_cell, frm, to, cell_start, cell_lines, gain, dirty, gctl)


@njit(cache=True)
def breaks_2d_clue(sol, line_start, line_cells, clue_kind, clue_start, clue_data):
    """Whether the values ``sol`` (0..k per cell) break a shown 2D block-list clue (kind 1,
    data: length, colour, ...): ``check_colour_solution``'s test of a 2D solution, run on every
    solution the CDCL solver returns (a Python pass over the lines took ~1-2 ms on a 35x35)."""
    for li in range(line_start.shape[0] - 1):
        if clue_kind[li] != 1:
            continue
        q = clue_start[li]
        e = clue_start[li + 1]
        prev = 0
        run = 0
        for t in range(line_start[li], line_start[li + 1] + 1):
            v = sol[line_cells[t]] if t < line_start[li + 1] else 0
            if v == prev and v:
                run += 1
                continue
            if prev:
                if q >= e or clue_data[q] != run or clue_data[q + 1] != prev:
                    return True
                q += 2
            prev = v
            run = 1
        if q != e:
            return True
    return False


# ---------------------------------------------------------------------------------------------
# the score: synchronous rounds, read by ``model.difficulty.from_rounds`` as the plain puzzles' are


@njit(cache=True)
def grade_rounds(state, unknown, dirty, nd, dflag, tech, k, line_start, line_cells, mode, shown, clue_id, tab_all,
                 tab_start, cnt, rmax, cell_start, cell_lines, c_line, c_kind, c_in, c_out, round_stats, cell_round,
                 cell_cost, r):
    """Synchronous line rounds (``maskprop.rounds``' for the colour kernels) from ``state``
    (changed in place, ``unknown`` cells undecided), numbered from ``r``, the lines ``dirty[:nd]``
    first: every dirty shown line solved completely from the round's snapshot, its narrowings
    ANDed in (``maskprop.narrow``, ``end_round``), until every cell is decided (status 0), a
    contradiction (1) or a round that changes nothing (2: the caller probes). Returns (status,
    rounds so far)."""
    n = state.shape[0]
    snap = np.empty(n, dtype=np.int64)
    changed = np.empty(n, dtype=np.int64)
    longest = 0
    for li in range(line_start.shape[0] - 1):
        longest = max(longest, line_start[li + 1] - line_start[li])
    buf = np.empty(longest, dtype=np.int64)  # every line's input in turn (the cache copies what it keeps)
    while unknown > 0:
        snap[:] = state
        nch = 0
        for d in range(nd):
            li = dirty[d]
            dflag[li] = 0
            a = line_start[li]
            masks = buf[:line_start[li + 1] - a]
            for j in range(masks.shape[0]):
                masks[j] = snap[line_cells[a + j]]
            res = _complete(li, clue_id[li], masks, k, mode, tab_all, tab_start, cnt, rmax, c_line, c_kind, c_in, c_out)
            if res[0] == 0:
                return 1, r
            for j in range(masks.shape[0]):
                if res[j] != masks[j]:
                    nch = narrow(line_cells[a + j], res[j], tech[li], snap, state, cell_cost, changed, nch)
                    if nch < 0:
                        return 1, r
        if nch == 0:
            return 2, r
        nd = end_round(r, nch, 0, unknown, state, changed, shown, cell_start, cell_lines, dirty, dflag,
                       cell_round, round_stats)
        unknown -= round_stats[r, R_DEDUCED]
        r += 1
    return 0, r


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
    plain puzzles' costs, ``grade.line_costs``); 9 for a hidden line."""
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
        return cover_of(self.net, self.shown)

    # logic ----------------------------------------------------------------------------------
    def _propagate(self, lines, undo_to, changes) -> int:
        """``prop_step``, in slices (``colourprop.sliced``) when there is a deadline."""
        todo = [np.asarray(lines, np.int64), undo_to]

        def step():
            st = prop_step(*todo, self.until_decided, *self._args(), changes, *self.cache, self.t_cell, self.t_old)
            todo[:] = [_NONE, -1]  # the next slices go on from the queues
            return int(st)
        if self.deadline is None:
            self.budget[0] = -1
            return step()
        st = sliced(step, self.budget, self.qs, self.deadline)
        if st == ST_TIMEOUT:
            raise Deadline()
        return st

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
    def new_gains(self) -> tuple:
        """The informed start's gain bookkeeping (the plain kind's: ``maskprop.new_gains``)."""
        return new_gains(self.n_lines)

    def best_gain(self, key, gains) -> int:
        net = self.net
        return int(best_gain(key, *gains, net.shown, net.clue_id, self.state, net.k, net.line_start, net.line_cells,
                             net.mode, net.tab_all, net.tab_start, net.cnt, net.rmax, *self.cache, self.counters))

    def show(self, li: int, gains) -> bool:
        mark = self.mark()
        self.shown[li] = 1
        ok = self._propagate(np.array([li], np.int64), -1, _NONE) != ST_CONTRADICTION
        reset_gains(*gains[:3], self.t_cell, mark, int(self.qs[7]), self.net.cell_start, self.net.cell_lines)
        return ok

    def grade(self, probe: bool):
        """The difficulty (``model.difficulty.Difficulty``) of the shown clues: synchronous rounds of
        complete line solves, a probing round (to the probing's fixpoint) when one changes
        nothing (with ``probe``)."""
        net, n = self.net, self.n_cells
        state = np.full(n, self.full, dtype=np.int64)
        first = np.flatnonzero((net.shown > 0) & (net.mode > 0))
        dirty, nd = np.zeros(self.n_lines, np.int64), len(first)
        dirty[:nd] = first
        dflag = np.zeros(self.n_lines, np.uint8)
        stats = np.zeros((n + 1, N_RSTATS), np.int64)
        cell_round = np.full(n, -1, np.int32)
        cell_cost = np.zeros(n, np.int8)
        r, unknown = 0, int(np.count_nonzero(~decided(state)))
        while True:
            st, r = grade_rounds(state, unknown, dirty, nd, dflag, self.costs, net.k, net.line_start, net.line_cells,
                                    net.mode, net.shown, net.clue_id, net.tab_all, net.tab_start, net.cnt, net.rmax,
                                    net.cell_start, net.cell_lines, *self.cache, stats, cell_round, cell_cost, r)
            if st != 2 or not probe:
                break
            snap = state.copy()
            if _probe_state(net, state, np.zeros(2, np.int64), cache=self.cache) != ST_OK:
                st = 1
                break
            changed = np.flatnonzero(state != snap)
            if len(changed) == 0:
                break
            cell_cost[changed] = COST_PROBE
            unknown = int(np.count_nonzero(~decided(snap)))
            nd = end_round(r, len(changed), 1, unknown, state, changed, net.shown, net.cell_start, net.cell_lines,
                           dirty, dflag, cell_round, stats)
            unknown -= int(stats[r, R_DEDUCED])
            r += 1
        status = {0: RUN_SOLVED, 1: RUN_CONTRADICTION}.get(st, RUN_STALLED)
        return from_rounds(status == RUN_SOLVED, r, stats[:r], cell_round, cell_cost, n)



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
    sat_before_probing = True  # (``search._Driver.sat_turn_before_probing``)

    def __init__(self, puzzle: ColourPuzzle, known=None, cache: bool = True):
        self.puzzle = puzzle
        # a line cache when probing starts (line logic alone seldom solves a line twice alike; a
        # puzzle that line logic solves pays no 10-30 MB table)
        self.K = K = ColourKind(puzzle, cache=False)
        K.until_decided = False
        self.use_cache = cache
        self.n_cells = K.n_cells
        self.covered = cover_of(K.net, K.clued) > 0
        self.free = np.flatnonzero(~self.covered)
        self.n_target = self.n_cells
        self.known_values = None
        if known is not None:
            from ...model.colourpuzzle import check_colour_solution
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
        from ...model.cells import EMPTY, FILLED, UNKNOWN
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
        from .colourprobe import probe_passes, probe_scratch
        from ..plain.probe import P_CONTRADICTION, P_FIXPOINT, P_PAUSED, P_SOLVED
        K, state = self.K, self.K.state
        scratch = probe_scratch(state, len(K.net.mode))
        budget = np.full(1, -1, np.int64)
        before = int(np.count_nonzero(decided(state)))
        steps = probe_passes(K.net, state, K.counters, K.cache, K.probe_order, scratch, budget)
        boost = 1  # x4 while a slice probes no whole cell (its assumptions need more; it starts again)
        try:
            while True:
                budget[0] = min(max(self._slice, 8) * boost, 1 << 40)
                try:
                    stuck = next(steps)
                except StopIteration as done:
                    if done.value == ST_CONTRADICTION:
                        return P_CONTRADICTION
                    break
                boost = boost * 4 if stuck else 1
                if stuck is not None:
                    yield P_PAUSED
        finally:
            steps.close()  # (its cells that paid off to the front of the order first)
            K.qs[6] = int(np.count_nonzero(~decided(state)))
            self.probed_cells += int(scratch[11][1])
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

    def choose(self, mode: int, noise: float = 0.0, salt: int = 0) -> tuple:
        """(cell, value): the undecided cell with the fewest values left, its known solution's
        value first (else its lowest). ``mode``, ``noise`` and ``salt`` are the plain kind's
        branching rules and are not used: the colour search does not restart (``restarts``)."""
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

    # the quick search (``search._Driver.quick``: the driver's, on ``choose`` / ``branch``) ------------
    def quick_budget(self, want: int) -> int:
        """Line solves for a depth-first search before root probing: colour probes cost (k+1)
        propagations per cell, and a puzzle of many solutions (a noisy picture) meets two of them
        in a few hundred guesses. The budget is in plain line solves per unknown cell, as the
        plain kind's (``quicksearch.py``), a colour line solve weighed by ``solve_weight``."""
        per_cell = QUICK_STEPS_PER_CELL_KNOWN if self.known else QUICK_COLOUR_STEPS_PER_CELL
        return int(per_cell * (self.n_target - self.n_known()) / self.solve_weight)

    # plain puzzles' extras ------------------------------------------------------------------------

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
        p = self.puzzle
        if not p.is_3d:
            return not breaks_2d_clue(np.asarray(sol, np.int64), p.line_start, p.line_cells, p.clue_kind,
                                      p.clue_start, p.clue_data)
        from ...model.colourpuzzle import check_colour_solution
        return not check_colour_solution(p, sol)


NO_LINE_CACHE = (np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros((0, 0), np.int64),
                 np.zeros((0, 0), np.int64))
