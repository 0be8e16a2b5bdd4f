"""The colour designer's pass ("hide each line of an order when the rest still solves") by divide
and conquer over the order, with the verdicts of trial-by-trial propagation.

A trial asks whether the shown lines without line ``l`` solve the puzzle, i.e. whether the
fixpoint of their line filters is fully decided. Propagation from any state that those lines'
filters reach from the top (everything possible) ends at that same fixpoint: their deductions are
sound, so no state they reach lies below it (``colourtrials.py`` uses the same fact). So, for a
stretch ``S`` of the order, the fixpoint of every shown line *outside* ``S`` (a *checkpoint*) is a
start for the trials of every line of ``S``:

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

from ..solve.coloursolve import ST_OK, ColourNet, decided, full_state, probe, propagate


def prune_by_halves(net: ColourNet, order, use_probe: bool = False, check=None, stats=None) -> list:
    """Hide each line of ``order`` (shown lines of ``net.mode``, changed in place) when the other
    shown lines still solve the puzzle, in order; the lines hidden, in order. ``check(done)`` is
    called with the share of the order settled; it may raise to stop (time limit, cancel): the
    mask is then the lines hidden so far with every line not settled yet shown, a solved mask.
    The mask must be solved at the logic level before the pass. ``stats`` (a dict): adds the
    propagations run ("propagations") and the lines hidden by a solved checkpoint ("free")."""
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
        _settle(net, clued, order, 0, n, _checkpoint(net, state, None, stats), use_probe, hidden,
                check or (lambda done: None), stats)
        restore = False
    finally:
        if restore:  # stopped: every line not settled yet is shown again (a solved mask)
            done = set(hidden)
            for li in order:
                if li not in done and net.mode[li] == 0:
                    net.mode[li] = clued[li]
    return hidden


def _checkpoint(net: ColourNet, state, lines, stats):
    """``state`` propagated by the shown lines from ``lines`` (None: all), in place."""
    stats["propagations"] += 1
    st = propagate(net, state, lines)
    if st != ST_OK:  # the shown lines are the solution's own clues: cannot happen
        raise AssertionError("a design pass met a contradiction: the puzzle's clues do not fit its solution")
    return state


def _settle(net, clued, order, lo, hi, state, use_probe, hidden, check, stats):
    """Settle ``order[lo:hi]`` (hidden in ``net.mode`` on entry), ``state`` the fixpoint of the
    shown lines outside it; on return each of its lines is hidden or shown again."""
    check(lo / len(order))
    if decided(state).all():
        hidden.extend(int(li) for li in order[lo:hi])
        stats["free"] += hi - lo if hi - lo > 1 else 0
        return
    if hi - lo == 1:
        li = int(order[lo])
        if use_probe:
            trial = state.copy()
            if probe(net, trial, np.zeros(2, dtype=np.int64)) == ST_OK and decided(trial).all():
                hidden.append(li)
                return
        net.mode[li] = clued[li]
        return
    mid = (lo + hi) // 2
    second = order[mid:hi]
    net.mode[second] = clued[second]
    _settle(net, clued, order, lo, mid, _checkpoint(net, state.copy(), second, stats), use_probe, hidden,
            check, stats)
    kept = order[lo:mid][net.mode[order[lo:mid]] > 0]
    net.mode[second] = 0
    _settle(net, clued, order, mid, hi, _checkpoint(net, state, kept, stats), use_probe, hidden, check, stats)
