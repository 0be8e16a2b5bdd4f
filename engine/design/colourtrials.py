"""Runs of the colour designer: propagations that answer "is the puzzle solved by logic with these
clues shown?" and record which lines deduced what.

- ``TrialRun.solve``: a run from scratch, with each line's count of cell changes (the greedy
  pass orders lines by it, the anneal hides the lines that changed nothing);
- ``TrialRun.propagate``: the propagation of the pass by halves (``colourprune.py``);
- ``TrialRun.try_hide``: one trial from scratch, the reference the pass by halves is tested
  against (``design_colour(..., resume=False)`` runs the pass with it).

They are ``coloursolve.propagate`` with the options only a designer uses: it stops as soon as
every cell is decided (the state is then the puzzle's solution, a fixpoint of every line, so the
pops left would change nothing: 12 % of a trial's pops in the duck at 24^3), and line results
are cached (``solve/linecache.py``): a design re-runs much of the same propagation, and 99 % of
its filter calls at 24^3 had been made before with the same input. ``deadline`` (the design's
time limit) holds inside a propagation, as the solver's does. A run that stalls probes (logic
"probe") as ``coloursolve`` does.
"""
from __future__ import annotations

import time

import numpy as np

from ..solve.colourprobe import probe
from ..solve.colourprop import ST_CONTRADICTION, ST_OK, ST_TIMEOUT, ColourNet, decided, full_state, propagate
from ..solve.linecache import new_cache


class RunTimeout(Exception):
    """A run passed the design's deadline (``TrialRun.deadline``)."""


class TrialRun:
    """The colour designer's runs on one net (``net.mode`` is the shown mask, changed in place by
    ``try_hide``: 0 = hidden). ``solution``: the puzzle's values (0..k)."""

    def __init__(self, net: ColourNet, solution, logic: str, resume: bool = True):
        self.net = net
        self.probe = logic == "probe"
        self.resume = resume  # False: the designer's pass runs trials in order (the reference)
        self.changes = np.zeros(len(net.mode), dtype=np.int64)
        self.cache = new_cache(net)
        # the order probing takes the cells in, the cells that paid off first: a design probes
        # many similar states, and most of a probe's work is the cells that find nothing
        self.probe_order = np.arange(net.n_cells, dtype=np.int64)
        self.state = full_state(net)
        self.valid = False  # ``changes`` is a propagation-only run that solved the current mask
        self.trials = 0     # runs from scratch
        self.deadline = None  # perf_counter seconds: a propagation past it raises RunTimeout

    def propagate(self, state, lines=None, order=None) -> int:
        """``coloursolve.propagate`` (in place, from ``lines``, default every shown line; queued in
        ``order``) with the line cache, stopping once every cell is decided (the state is then the
        solution: enough for a designer's question). The line counts are of this propagation.
        Raises RunTimeout past ``deadline``."""
        self.valid = False
        self.changes[:] = 0
        st = propagate(self.net, state, lines, deadline=self.deadline,
                       order=order, changes=self.changes,
                       cache=self.cache, until_decided=True)
        if st == ST_TIMEOUT:
            raise RunTimeout("time limit")
        return st

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
        return self.probes_to_solution(self.state.copy())

    def probes_to_solution(self, state) -> bool:
        """Whether probing from ``state`` (a propagation's fixpoint; changed) decides every cell.
        Raises RunTimeout past ``deadline``."""
        st = probe(self.net, state, np.zeros(2, dtype=np.int64), self.deadline, cache=self.cache,
                   order=self.probe_order)
        if self.deadline is not None and time.perf_counter() > self.deadline:
            raise RunTimeout("time limit")
        return st == ST_OK and bool(decided(state).all())

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


__all__ = ["TrialRun", "RunTimeout", "ST_OK", "ST_CONTRADICTION"]
