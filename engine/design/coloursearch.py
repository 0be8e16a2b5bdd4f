"""The colour designer's search state and its line-level methods: the seeded generator and the
limits (``Search``), the informed greedy pass in both orders (``greedy``) and simulated annealing
with reveal-one / hide-several moves (``anneal``); the pass itself is ``Search.prune``
(``colourprune.py``: by halves). ``colourdesign.design_colour`` puts them together."""
from __future__ import annotations

import math
import time

import numpy as np

from .colourprune import prune_by_halves
from .colourtrials import TrialRun

# Restarts of the greedy pass before annealing (other tie-breaks; the best is annealed).
ANNEAL_RESTARTS = 4
# Annealing moves per clued line, at most ANNEAL_MAX_MOVES (the work budget; a move is one
# propagation of the puzzle from scratch).
ANNEAL_MOVES_PER_LINE = 2
ANNEAL_MAX_MOVES = 2000
# Default time limit of ``anneal`` (seconds): a safety stop, the budget is in moves.
ANNEAL_TIME_LIMIT = 120.0
# Weight of log(1 + cells a line changed) in a move's priority (beside a random number in [0, 1)).
ANNEAL_CONTRIB_WEIGHT = 0.5
# Annealing temperature (in clues): from T0 down to T1, geometric over the move budget.
ANNEAL_T0 = 0.6
ANNEAL_T1 = 0.05


class Stop(Exception):
    pass


class Search:
    """The state of one design: the trial run, the seeded generator, the limits."""

    def __init__(self, run: TrialRun, seed: int, t0: float, time_limit, progress):
        self.run = run
        self.rng = np.random.default_rng(seed)
        self.t0, self.time_limit, self.progress = t0, time_limit, progress
        self.span = (0.0, 1.0)
        self.outer = (0.0, 1.0)  # the share of the whole design this stage reports into
        self.final_grades = 0
        self.cut = ""
        self.pass_stats = {"propagations": 0, "free": 0}

    def check(self, frac: float, what: str):
        if self.time_limit is not None and time.perf_counter() - self.t0 > self.time_limit:
            raise Stop("time limit")
        lo, hi = self.span
        a, b = self.outer
        if self.progress is not None and self.progress(a + (b - a) * (lo + (hi - lo) * frac), what):
            raise Stop("cancelled")

    def prune(self, order, what="hiding clues") -> list:
        """The pass: try to hide each shown line of ``order``; the lines hidden, in order."""
        run = self.run
        if run.resume:
            stats = self.pass_stats
            hides = prune_by_halves(run.net, order, run.probe, lambda done: self.check(done, what), stats,
                                    run.propagate, run.probes_to_solution)
            run.valid = False  # the run's line counts are not of this mask
            return hides
        hides = []
        n = max(len(order), 1)
        for i, li in enumerate(order):
            self.check(i / n, what)
            if run.net.mode[li] and run.try_hide(int(li)):
                hides.append(int(li))
        return hides

    def informed_order(self, shown, most_first: bool):
        """The shown lines by the cells each changed in a run of all of them, fewest first (or
        most first), ties broken by the generator. Needs a solved run of the current mask."""
        counts = self.run.changes
        tie = self.rng.random(len(shown))
        return shown[np.lexsort((tie, -counts[shown] if most_first else counts[shown]))]


def greedy_pass(s: Search, line_level: bool, most_first: bool) -> list:
    """Hide by the informed pass from the current (solved) mask; the hides in order."""
    run = s.run
    probe = run.probe
    run.probe = probe and not line_level
    run.solve(np.arange(len(run.net.mode)))  # the counts of a run in line order
    hides = s.prune(s.informed_order(np.flatnonzero(run.net.mode > 0), most_first))
    run.probe = probe
    return hides


def greedy(s: Search, line_level: bool) -> list:
    """The informed pass in both orders from the current mask, the one hiding more kept (the
    first on a tie): measured at 16 (k = 2), fewest-first hides 49-54 % of the duck's and the
    jeep's clues where most-first hides 38-41 %, and most-first 62-63 % of the T-rex's and the
    horse's (mostly empty lines) where fewest-first hides 32-39 % (a random order: 37-46 %)."""
    net = s.run.net
    start = net.mode.copy()
    hides = greedy_pass(s, line_level, False)
    first = net.mode.copy()
    net.mode[:] = start
    other = greedy_pass(s, line_level, True)
    if np.count_nonzero(net.mode) < np.count_nonzero(first):
        return other
    net.mode[:] = first
    return hides


def anneal(s: Search, n_moves: int) -> np.ndarray:
    """Simulated annealing from the current mask (solved at the line level); the best shown
    mask found (the run's mask is left at it)."""
    run, net = s.run, s.run.net
    cur = net.mode.copy()
    best = cur.copy()
    for m in range(n_moves):
        s.check(m / max(n_moves, 1), "annealing")
        hidden = np.flatnonzero((cur == 0) & (s.clued > 0))
        if len(hidden) == 0:
            break
        r = int(hidden[s.rng.integers(len(hidden))])
        counts = run.changes if run.valid else np.zeros(len(cur), dtype=np.int64)
        pri = s.rng.random(len(cur)) + ANNEAL_CONTRIB_WEIGHT * np.log1p(counts)
        pri[r] = np.inf
        order = np.argsort(-pri, kind="stable")
        net.mode[:] = cur
        net.mode[r] = s.clued[r]
        if not run.solve(order):  # cannot happen (more clues than a solving mask); be safe
            net.mode[:] = cur
            run.valid = False
            continue
        idle = np.flatnonzero((net.mode > 0) & ~run.contributed())
        net.mode[idle] = 0  # the run never used them: it solves without them
        delta = len(idle) - 1
        temp = ANNEAL_T0 * (ANNEAL_T1 / ANNEAL_T0) ** (m / max(n_moves - 1, 1))
        if delta >= 0 or s.rng.random() < math.exp(delta / temp):
            cur = net.mode.copy()
            if np.count_nonzero(cur) < np.count_nonzero(best):
                best = cur.copy()
        else:
            net.mode[:] = cur
            run.valid = False
    net.mode[:] = best
    return best


def solves_by_lines(run: TrialRun) -> bool:
    probe = run.probe
    run.probe = False
    ok = run.solve()
    run.probe = probe
    return ok
