"""Runs of the colour designer: propagations that answer "is the puzzle solved by logic with these
clues shown?" and record which lines deduced what.

- ``TrialRun.solve``: a run from scratch, with each line's count of cell changes (the greedy
  pass orders lines by it, the anneal hides the lines that changed nothing);
- ``TrialRun.propagate``: the propagation of the pass by halves (``colourprune.py``);
- ``TrialRun.try_hide``: one trial from scratch, the reference the pass by halves is tested
  against (``design_colour(..., resume=False)`` runs the pass with it).

Their kernel is ``coloursolve._propagate``'s queues with two things only a designer can use: it
stops as soon as every cell is decided (the state is then the puzzle's solution, a fixpoint of
every line, so the pops left would change nothing: 12 % of a trial's pops in the duck at 24^3),
and line results are cached (``solve/linecache.py``): a design re-runs much of the same
propagation, and 99 % of its filter calls at 24^3 had been made before with the same input.
A run that stalls probes (logic "probe") as ``coloursolve`` does.
"""
from __future__ import annotations

import numpy as np

from ..jit import njit
from ..solve.coloursolve import ST_CONTRADICTION, ST_OK, ColourNet, decided, filter_line, full_state, open_to_two, probe
from ..solve.linecache import K_COMPLETE, K_FILTER, cache_slot, cache_store, new_cache


@njit(cache=True)
def _propagate_counted(state, k, line_start, line_cells, mode, tab_all, tab_start, cnt, rmax, cell_start,
                       cell_lines, queued, order, changes, c_line, c_kind, c_in, c_out):
    """``coloursolve._propagate`` (same queues, same line filters; the lines flagged in
    ``queued`` enter the queues in the order of ``order``, a permutation of the lines), adding
    to ``changes[line]`` each cell the line changes, stopping once every cell is decided, line
    results cached in ``c_*`` (``linecache.py``). Returns ST_OK or ST_CONTRADICTION."""
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
    work = np.zeros(2, dtype=np.int64)  # the product solver without a step budget
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
        a = line_start[li]
        b = line_start[li + 1]
        masks = buf[:b - a]
        for j in range(b - a):
            masks[j] = state[line_cells[a + j]]
        if exact and mode[li] == 2 and not open_to_two(masks):
            continue  # the per-colour filter (at its fixpoint) is exact
        kind = K_COMPLETE if exact else K_FILTER
        s, hit = cache_slot(li, kind, masks, c_line, c_kind, c_in)
        if hit:
            res = c_out[s, :b - a]
        else:
            work[0] = -1
            res = filter_line(li, exact, masks, k, mode, tab_all, tab_start, cnt, rmax, no_tab, work)
            cache_store(s, li, kind, masks, res, c_line, c_kind, c_in, c_out)
        if res[0] == 0:
            return ST_CONTRADICTION
        changed = False
        for j in range(b - a):
            if res[j] != masks[j]:
                changed = True
                c = line_cells[a + j]
                changes[li] += 1
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


class TrialRun:
    """The colour designer's runs on one net (``net.mode`` is the shown mask, changed in place by
    ``try_hide``: 0 = hidden). ``solution``: the puzzle's values (0..k)."""

    def __init__(self, net: ColourNet, solution, logic: str, resume: bool = True):
        self.net = net
        self.probe = logic == "probe"
        self.resume = resume  # False: the designer's pass runs trials in order (the reference)
        self.changes = np.zeros(len(net.mode), dtype=np.int64)
        self.cache = new_cache(net)
        self.state = full_state(net)
        # the order lines enter the queues in (runs reach the same fixpoint in any order; the
        # order decides which lines change cells first)
        self.queue_order = np.arange(len(net.mode), dtype=np.int64)
        self.valid = False  # ``changes`` is a propagation-only run that solved the current mask
        self.trials = 0     # runs from scratch

    def propagate(self, state, lines=None, order=None) -> int:
        """``coloursolve.propagate`` (in place, from ``lines``, default every shown line; queued in
        ``order``) with the line cache, stopping once every cell is decided (the state is then the
        solution: enough for a designer's question). The line counts are of this propagation."""
        net = self.net
        queued = np.zeros(len(net.mode), dtype=np.int64)
        if lines is None:
            queued[:] = 3
        else:
            queued[np.asarray(lines, dtype=np.int64)] = 3
        self.valid = False
        self.changes[:] = 0
        order = self.queue_order if order is None else np.asarray(order, dtype=np.int64)
        return int(_propagate_counted(state, net.k, net.line_start, net.line_cells, net.mode, net.tab_all,
                                      net.tab_start, net.cnt, net.rmax, net.cell_start, net.cell_lines, queued,
                                      order, self.changes, *self.cache))

    def solve(self, order=None) -> bool:
        """Whether the shown lines solve the puzzle at the logic level, from scratch (the lines
        queued in ``order``, which decides which of them change cells first). Then probes (logic
        "probe") when propagation stalls."""
        self.trials += 1
        self.state = full_state(self.net)
        if self.propagate(self.state, None, order) != ST_OK:
            return False
        if decided(self.state).all():
            self.valid = True
            return True
        if not self.probe:
            return False
        state = self.state.copy()
        return probe(self.net, state, np.zeros(2, dtype=np.int64)) == ST_OK and bool(decided(state).all())

    def contributed(self) -> np.ndarray:
        """Per line: it changed a cell in the last solved run (valid runs only)."""
        return self.changes > 0

    def try_hide(self, li: int) -> bool:
        """Hide line ``li`` when the rest still solves the puzzle (a run from scratch); else leave
        it shown."""
        net = self.net
        keep = net.mode[li]
        if keep == 0:
            return True
        net.mode[li] = 0
        if self.solve():
            return True
        net.mode[li] = keep
        return False


__all__ = ["TrialRun", "ST_OK", "ST_CONTRADICTION"]
