"""The colour designer's pass ("hide each line of an order when the rest still solves") by divide
and conquer over the order, with the verdicts of trial-by-trial propagation.

A trial asks whether the shown lines without line ``l`` solve the puzzle, i.e. whether the
fixpoint of their line filters is fully decided. Propagation from any state that those lines'
filters reach from the top (everything possible) ends at that same fixpoint: their deductions are
sound, so no state they reach lies below it. So, for a stretch ``S`` of the order, the fixpoint
of every shown line *outside* ``S`` (a *checkpoint*) is a start for the trials of every line of
``S``:

- the first half's checkpoint is the stretch's, propagated with the second half's lines (all
  still shown: they come later in the order); then the first half is settled, recursively;
- the second half's checkpoint is the stretch's, propagated with the first half's lines that
  stayed shown; then the second half is settled;
- a one-line stretch's checkpoint is its trial: decided everywhere, the line is hidden
  (with logic ``probe``, probing decides when propagation stalls);
- a checkpoint decided everywhere settles its whole stretch at once: each of its lines would be
  hidden in turn, since the lines outside the stretch already solve the puzzle.

Every decision is the one the trials in order would make (the same shown lines, the same
fixpoint), so the design is the same; but a trial only propagates what its half added to a
checkpoint near the solution instead of most of the puzzle: at 24^3 a pass costs a few dozen full
propagations' work where trial by trial cost one per line.
"""
from __future__ import annotations

import numpy as np

from ..solve.colourprobe import probe
from ..solve.colourprop import ST_OK, ColourNet, decided, full_state, propagate


def prune_by_halves(net: ColourNet, order, use_probe: bool = False, check=None, stats=None,
                    propagate_fn=None, probe_fn=None, alone: bool = False) -> list:
    """Hide each line of ``order`` (shown lines of ``net.mode``, changed in place) when the other
    shown lines still solve the puzzle, in order; the lines hidden, in order. ``check(done)`` is
    called with the share of the order settled; it may raise to stop (time limit, cancel): the
    mask is then the lines hidden so far with every line not settled yet shown, a solved mask.
    The mask must be solved at the logic level before the pass. ``stats`` (a dict): adds the
    propagations run ("propagations") and the lines hidden by a solved checkpoint ("free").
    ``propagate_fn(state, lines)``: the propagation (default ``coloursolve.propagate`` on ``net``;
    one that stops once every cell is decided will do, e.g. ``TrialRun.propagate``);
    ``probe_fn(state)``: whether probing from a stalled state decides every cell (default
    ``coloursolve.probe``; ``TrialRun.probes_to_solution`` keeps the design's deadline).
    ``alone``: hide nothing; the lines of ``order`` whose hiding *alone* (every other shown line
    kept) still solves, in order (the same recursion: a line found hideable is shown again, so
    each half's checkpoint takes all of its sibling's lines); ``net.mode`` is left as it was."""
    order = np.asarray([li for li in order if net.mode[li]], dtype=np.int64)
    clued = net.mode.copy()
    hidden: list = []
    n = len(order)
    if n == 0:
        return hidden
    net.mode[order] = 0  # invariant: the stretch being settled is hidden, the rest as it stands
    state = full_state(net)
    stats = {} if stats is None else stats
    stats.setdefault("propagations", 0)
    stats.setdefault("free", 0)
    restore = True
    try:
        run = _Pass(net, clued, order, use_probe, alone, hidden, check or (lambda done: None), stats,
                    propagate_fn or (lambda st, lines: propagate(net, st, lines)),
                    probe_fn or (lambda st: probe(net, st, np.zeros(2, dtype=np.int64)) == ST_OK
                                 and bool(decided(st).all())))
        run.settle(0, n, run.checkpoint(state, None))
        restore = alone
    finally:
        if alone:
            net.mode[order] = clued[order]
        elif restore:  # stopped: every line not settled yet is shown again (a solved mask)
            done = set(hidden)
            for li in order:
                if li not in done and net.mode[li] == 0:
                    net.mode[li] = clued[li]
    return hidden


class _Pass:
    """One pass's fixed parts (what every level of the recursion reads)."""

    def __init__(self, net, clued, order, use_probe, alone, hidden, check, stats, propagate_fn, probe_fn):
        self.net, self.clued, self.order, self.use_probe, self.alone = net, clued, order, use_probe, alone
        self.hidden, self.check, self.stats, self.propagate = hidden, check, stats, propagate_fn
        self.probe_solves = probe_fn

    def checkpoint(self, state, lines):
        """``state`` propagated by the shown lines from ``lines`` (None: all), in place."""
        self.stats["propagations"] += 1
        if self.propagate(state, lines) != ST_OK:
            # the shown lines are the solution's own clues: cannot happen
            raise AssertionError("a design pass met a contradiction: the puzzle's clues do not fit its solution")
        return state

    def settle(self, lo, hi, state):
        """Settle ``order[lo:hi]`` (hidden in ``net.mode`` on entry), ``state`` the fixpoint of the
        shown lines outside it; on return each of its lines is hidden or shown again."""
        net, clued, order = self.net, self.clued, self.order
        self.check(lo / len(order))
        if decided(state).all():
            self.hidden.extend(int(li) for li in order[lo:hi])
            if self.alone:
                net.mode[order[lo:hi]] = clued[order[lo:hi]]
            else:
                self.stats["free"] += hi - lo if hi - lo > 1 else 0
            return
        if hi - lo == 1:
            li = int(order[lo])
            if self.use_probe and self.probe_solves(state.copy()):
                self.hidden.append(li)
                if not self.alone:
                    return
            net.mode[li] = clued[li]
            return
        mid = (lo + hi) // 2
        second = order[mid:hi]
        net.mode[second] = clued[second]
        self.settle(lo, mid, self.checkpoint(state.copy(), second))
        kept = order[lo:mid][net.mode[order[lo:mid]] > 0]
        net.mode[second] = 0
        self.settle(mid, hi, self.checkpoint(state, kept))
