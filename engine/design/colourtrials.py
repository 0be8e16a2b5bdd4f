"""Trials of the colour designer: "is the puzzle still solved by logic with this clue hidden too?",
answered from the last solved run instead of from scratch.

A solved run records a trail (every cell change in order: the cell, its mask before, the line
that made it) and, per line, where in the trail it first changed a cell (-1: never). Two facts
make trials cheap, both from line propagation being a chain of sound, monotone line filters
whose greatest common fixpoint does not depend on the order the lines are taken in:

- **free hides**: a line that changed no cell in the run can go without a trial. The same run
  without it is a chain of the other lines' filters that ends at a fixpoint of all of them, so
  it is their fixpoint, the solution.
- **resumed trials**: the state just before a line's first change was reached by the other
  lines alone, so it lies above their fixpoint; propagating the other lines from it (every
  shown line queued) reaches the same fixpoint as propagating them from scratch, for less work.

A run that needed probing is no such chain: then (logic "probe") the next trial starts from
scratch and probes, exactly as ``coloursolve`` does, until a run solved by propagation alone
gives a trail again. The verdicts are therefore those of from-scratch trials, trial by trial
(tests/test_colour_design_methods.py compares them).
"""
from __future__ import annotations

import numpy as np

from ..jit import njit
from ..lines.colourline import relax_3d, solve_automaton, solve_dfa_dense
from ..solve.coloursolve import ST_CONTRADICTION, ST_OK, ColourNet, decided, full_state, probe
from ..solve.linecache import K_COMPLETE, K_FILTER, cache_slot, new_cache


@njit(cache=True)
def _propagate_trail(state, k, line_start, line_cells, mode, tab_all, tab_start, cnt, rmax, cell_start,
                     cell_lines, queued, order, trail_cell, trail_old, trail_line, n_trail, first,
                     trail_pop, pop_line, pop_kind, n_pop, c_line, c_kind, c_in, c_out):
    """``coloursolve._propagate`` (same queues, same line filters) recording each cell change
    at trail[n_trail[0]] and each line's first change in ``first`` (where it is -1), and each
    line taken from a queue in the pop log (line, 1 relax / 2 exact; a change's trail_pop is
    the pop that made it). The lines flagged in ``queued`` enter the queues in the order of
    ``order`` (a permutation of the lines). Returns ST_OK or ST_CONTRADICTION.

    Two things only a designer's runs can use (a run here only asks "does it solve?"):
    - it stops as soon as every cell is decided. The state is then the puzzle's solution, a
      fixpoint of every line, so the pops left would change nothing (in the duck at 24^3 they
      were 12 % of a trial's pops);
    - line results are cached by (line, filter, input masks) in ``c_*`` (``c_line`` -1: free
      slot; size a power of two): the trials re-run much of the same propagation, and 99 % of
      the filter calls of a design at 24^3 had been made before with the same input."""
    n_lines = mode.shape[0]
    undecided = 0
    for c in range(state.shape[0]):
        if state[c] & (state[c] - 1):
            undecided += 1
    rq = np.empty(n_lines, dtype=np.int64)
    xq = np.empty(n_lines, dtype=np.int64)
    nr = 0
    nx = 0
    hr = 0
    hx = 0
    for i in order:
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
    no_tab = np.zeros((1, 1), dtype=np.int64)
    longest = 0
    for li in range(n_lines):
        longest = max(longest, line_start[li + 1] - line_start[li])
    buf = np.empty(longest, dtype=np.int64)
    while (nr > 0 or nx > 0) and undecided > 0:
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
        pop = n_pop[0]
        pop_line[pop] = li
        pop_kind[pop] = 2 if exact else 1
        n_pop[0] = pop + 1
        a = line_start[li]
        b = line_start[li + 1]
        masks = buf[:b - a]
        for j in range(b - a):
            masks[j] = state[line_cells[a + j]]
        if exact and mode[li] == 2:
            # no cell open to two colours: the per-colour filter (at its fixpoint) is exact
            shared = False
            for j in range(b - a):
                col = masks[j] & ~np.int64(1)
                if col & (col - 1):
                    shared = True
                    break
            if not shared:
                continue
        kind = K_COMPLETE if exact else K_FILTER
        s, hit = cache_slot(li, kind, masks, c_line, c_kind, c_in)
        if hit:
            res = c_out[s, :b - a]
        else:
            if mode[li] == 1:
                res = solve_dfa_dense(masks, tab_all[tab_start[li]:tab_start[li + 1]])
            elif exact:
                res = solve_automaton(masks, 2, no_tab, k, cnt[li], rmax[li])
            else:
                res = relax_3d(masks, k, cnt[li], rmax[li])
            c_line[s] = li
            c_kind[s] = kind
            for j in range(b - a):
                c_in[s, j] = masks[j]
                c_out[s, j] = res[j]
        if res[0] == 0:
            return ST_CONTRADICTION
        changed = False
        for j in range(b - a):
            if res[j] != masks[j]:
                changed = True
                c = line_cells[a + j]
                t = n_trail[0]
                trail_cell[t] = c
                trail_old[t] = state[c]
                trail_line[t] = li
                trail_pop[t] = pop
                n_trail[0] = t + 1
                if first[li] < 0:
                    first[li] = t
                if not res[j] & (res[j] - 1):
                    undecided -= 1  # (a changed cell was undecided: only undecided cells narrow)
                state[c] = res[j]
                for u in range(cell_start[c], cell_start[c + 1]):
                    lj = cell_lines[u]
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


@njit(cache=True)
def _pending(mode, cell_start, cell_lines, trail_cell, trail_pop, pop_line, pop_kind, upto, queued):
    """The queue flags (bit 1 relax, bit 2 exact) just before pop ``upto`` of the logged run,
    replayed from the log: every line starts queued, a pop clears its flag, a change flags the
    other lines through its cell (and a relax pop that changed something its own line again)."""
    for i in range(mode.shape[0]):
        queued[i] = 0 if mode[i] == 0 else (3 if mode[i] == 2 else 2)
    t = 0
    for s in range(upto):
        li = pop_line[s]
        queued[li] &= ~pop_kind[s]
        changed = False
        while trail_pop[t] == s:
            changed = True
            c = trail_cell[t]
            for u in range(cell_start[c], cell_start[c + 1]):
                lj = cell_lines[u]
                if lj == li:
                    continue
                queued[lj] |= 3 if mode[lj] == 2 else 2
            t += 1
        if changed and pop_kind[s] == 1:
            queued[li] |= 1
    for i in range(mode.shape[0]):
        if mode[i] == 0:
            queued[i] = 0


@njit(cache=True)
def _undo(state, trail_cell, trail_old, trail_line, n_trail, first, to):
    """Take the trail back to length ``to`` (the state as it was then; first changes after it
    forgotten)."""
    for t in range(n_trail[0] - 1, to - 1, -1):
        state[trail_cell[t]] = trail_old[t]
        if first[trail_line[t]] == t:
            first[trail_line[t]] = -1
    n_trail[0] = to


class TrialRun:
    """The colour designer's trials on one net, hiding lines one at a time (``net.mode`` is the
    shown mask and is changed in place: 0 = hidden). ``solution``: the puzzle's values (0..k)."""

    def __init__(self, net: ColourNet, solution, logic: str, resume: bool = True):
        self.net = net
        self.probe = logic == "probe"
        self.resume = resume  # False: every trial from scratch (the reference the tests compare)
        self.solved_state = np.left_shift(np.int64(1), np.asarray(solution, dtype=np.int64))
        cap = net.n_cells * (net.k + 1) + 1
        self.trail_cell = np.zeros(cap, dtype=np.int64)
        self.trail_old = np.zeros(cap, dtype=np.int64)
        self.trail_line = np.zeros(cap, dtype=np.int64)
        self.trail_pop = np.zeros(cap, dtype=np.int64)
        self.n_trail = np.zeros(1, dtype=np.int64)
        # pops: each queue entry is a line's first queuing or follows a change of one of its cells
        degree = int(np.diff(net.cell_start).max()) if net.n_cells else 0
        pops = 2 * len(net.mode) + cap * (2 * degree + 1)
        self.pop_line = np.zeros(pops, dtype=np.int64)
        self.pop_kind = np.zeros(pops, dtype=np.int64)
        self.n_pop = np.zeros(1, dtype=np.int64)
        self.first = np.full(len(net.mode), -1, dtype=np.int64)
        self.cache = new_cache(net)
        self.state = full_state(net)
        # the order lines enter the queues in (runs reach the same fixpoint in any order; the
        # order decides which lines change cells first, and so how far back a trial resumes)
        self.queue_order = np.arange(len(net.mode), dtype=np.int64)
        self.valid = False  # the trail is a propagation-only run that solved the current mask
        self.trials = 0     # trials that propagated (free hides are not counted)
        self.free = 0       # hides without a trial

    def _run(self, start: int, order=None) -> bool:
        """Propagate from the trail's state at ``start``: every shown line (queued in ``order``,
        default by index) from scratch (``start`` 0), else the lines the logged run still had
        queued at the change ``start`` (the others were at their fixpoint then, and their
        fixpoint does not depend on the hidden line). Then probe (logic "probe") when that
        stalls. True when every cell is decided."""
        net = self.net
        if order is None:
            order = self.queue_order
        queued = np.empty(len(net.mode), dtype=np.int64)
        if start == 0:
            self.n_pop[0] = 0
            queued[:] = np.where(net.mode > 0, 3, 0)
        else:
            upto = int(self.trail_pop[start])
            _pending(net.mode, net.cell_start, net.cell_lines, self.trail_cell, self.trail_pop, self.pop_line,
                     self.pop_kind, upto, queued)
            self.n_pop[0] = upto
        _undo(self.state, self.trail_cell, self.trail_old, self.trail_line, self.n_trail, self.first, start)
        st = _propagate_trail(self.state, net.k, net.line_start, net.line_cells, net.mode, net.tab_all,
                              net.tab_start, net.cnt, net.rmax, net.cell_start, net.cell_lines, queued,
                              np.asarray(order, dtype=np.int64), self.trail_cell, self.trail_old,
                              self.trail_line, self.n_trail, self.first, self.trail_pop, self.pop_line,
                              self.pop_kind, self.n_pop, *self.cache)
        if st != ST_OK:
            self.valid = False
            return False
        if decided(self.state).all():
            self.valid = True
            return True
        self.valid = False
        if not self.probe:
            return False
        state = self.state.copy()
        return probe(net, state, np.zeros(2, dtype=np.int64)) == ST_OK and bool(decided(state).all())

    def solve(self, order=None) -> bool:
        """Whether the shown lines solve the puzzle at the logic level (from scratch; the lines
        queued in ``order``, which decides which of them the run uses)."""
        self.trials += 1
        self.state = full_state(self.net)
        self.n_trail[0] = 0
        self.first[:] = -1
        return self._run(0, order)

    def propagate(self, state, lines=None) -> int:
        """``coloursolve.propagate`` (in place, from ``lines``, default every shown line) with this
        run's line cache, stopping once every cell is decided (the state is then the solution:
        enough for a designer's question). Uses the trail as scratch: the run is no longer valid."""
        net = self.net
        queued = np.zeros(len(net.mode), dtype=np.int64)
        if lines is None:
            queued[:] = 3
        else:
            queued[np.asarray(lines, dtype=np.int64)] = 3
        self.valid = False
        self.n_trail[0] = 0
        self.n_pop[0] = 0
        self.first[:] = -1
        return int(_propagate_trail(state, net.k, net.line_start, net.line_cells, net.mode, net.tab_all,
                                    net.tab_start, net.cnt, net.rmax, net.cell_start, net.cell_lines, queued,
                                    self.queue_order, self.trail_cell, self.trail_old, self.trail_line,
                                    self.n_trail, self.first, self.trail_pop, self.pop_line, self.pop_kind,
                                    self.n_pop, *self.cache))

    def contributed(self) -> np.ndarray:
        """Per line: it changed a cell in the last solved run (valid runs only)."""
        return self.first >= 0

    def try_hide(self, li: int) -> bool:
        """Hide line ``li`` when the rest still solves the puzzle; else leave it shown.
        Must follow a solved run (``solve`` True, or an accepted ``try_hide``)."""
        net = self.net
        keep = net.mode[li]
        if keep == 0:
            return True
        if self.valid and self.resume and self.first[li] < 0:
            net.mode[li] = 0  # the run never used it: the same run solves without it
            self.free += 1
            return True
        net.mode[li] = 0
        if not (self.valid and self.resume):
            if self.solve():
                return True
            net.mode[li] = keep
            self.valid = False  # the next trial starts from scratch again
            return False
        self.trials += 1
        start = int(self.first[li])
        n, upto, n_pop = int(self.n_trail[0]), int(self.trail_pop[start]), int(self.n_pop[0])
        trail = (self.trail_cell, self.trail_old, self.trail_line, self.trail_pop)
        pops = (self.pop_line, self.pop_kind)
        saved = ([a[start:n].copy() for a in trail], [a[upto:n_pop].copy() for a in pops], self.first.copy())
        if self._run(start):
            return True
        net.mode[li] = keep
        # back to the kept mask's solved run: its trail and pop log, and its final state (the
        # solution)
        for a, b in zip(trail, saved[0]):
            a[start:n] = b
        for a, b in zip(pops, saved[1]):
            a[upto:n_pop] = b
        self.n_trail[0], self.n_pop[0] = n, n_pop
        self.first[:] = saved[2]
        self.state[:] = self.solved_state
        self.valid = True
        return False


__all__ = ["TrialRun", "ST_OK", "ST_CONTRADICTION"]
