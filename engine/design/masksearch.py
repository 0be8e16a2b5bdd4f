"""One black-and-white design run's search over which clues are shown (``Search``): its trials
on the mask kernels of ``maskprop.py``, the pass that hides each clue the rest can do without, the
informed start and simulated annealing, with the run's limits and progress. ``hiding.py`` drives
it (``design``); ``maskband.py`` steers it into a difficulty band. See docs/SOLVER.md ("Puzzle
design").
"""
from __future__ import annotations

import math
import time

import numpy as np

from ..model.cells import state_from_bool
from ..model.puzzle import Puzzle
from ..solve import maskprop as mp
from ..solve.difficulty import Difficulty, cover_of, grade, line_costs
from ..solve.propagate import build_net

# Restarts of the informed start before annealing (ties broken anew; the best is annealed):
# measured at resolution 24, the best of 5 starts hides 0.2-3 points more than the first.
ANNEAL_RESTARTS = 4
# Annealing moves per line of the puzzle (the work budget; the time limit may stop it sooner),
# at most ANNEAL_MAX_MOVES: a move costs about the puzzle's size, so large puzzles get fewer
# moves per line (measured on a loaded 2-core machine: duck at 24, 10,480 moves in 20 s; at
# 36, 23,304 moves in 270 s)
ANNEAL_MOVES_PER_LINE = 8
ANNEAL_MAX_MOVES = 6000
# Weight of log(1 + cells a line deduced) in the priority of a move's run (beside a random
# number in [0, 1)): measured at 24, 0.5 hides 0.3 points more than random priorities alone.
ANNEAL_CONTRIB_WEIGHT = 0.5
# Annealing temperature (in clues): from T0 down to T1, geometric over the move budget.
ANNEAL_T0 = 0.6
ANNEAL_T1 = 0.05
# Line-solver applications a probing trial may spend before it counts as failed (not proven).
PROBE_TRIAL_APPS_PER_CELL = 2000
PROGRESS_INTERVAL = 0.05


class Stop(Exception):
    """The time limit or the progress callback ended the search."""


class Search:
    """One design run: the net, the work arrays, limits and counters."""

    def __init__(self, full: Puzzle, logic: str, seed: int, time_limit, progress):
        self.full = full
        self.net = build_net(full)
        self.mw = mp.new_mask_work(self.net)
        self.inc = mp.new_incr(full.n_cells, state_from_bool(full.solution))
        self.costs = line_costs(full)
        self.n_lines = full.n_lines
        self.n_cells = full.n_cells
        self.probe = logic == "probe"
        self.trial_apps = PROBE_TRIAL_APPS_PER_CELL * max(self.n_cells, 1)
        self.rng = np.random.default_rng(seed)
        self.t0 = time.perf_counter()
        self.time_limit = time_limit
        self.progress = progress
        self.last_call = self.t0
        self.phase = ""
        self.frac = 0.0
        self.span = (0.0, 1.0)  # the share of the whole run the current stage fills
        self.shown = 0.0        # the largest fraction reported: progress never runs backwards
        self.trials = 0
        self.free = 0
        self.unsure = 0
        self.stats = {}
        self.current = None  # a mask that solves, at every moment (what a stop returns)
        self.reserve = 0.0   # seconds kept for the final pass after annealing
        self.cut = ""        # what a limit cut short without stopping the design
        self.compile_s = 0.0

    # limits -----------------------------------------------------------------------------
    def stage(self, phase: str, lo: float, hi: float) -> None:
        """Enter a stage of the run, which fills ``lo``..``hi`` of the reported progress."""
        self.phase, self.span, self.frac = phase, (lo, hi), 0.0

    def check(self, frac=None, reserve=0.0):
        """Raise Stop when the time is up (less ``reserve`` seconds) or the callback asks to
        cancel."""
        if frac is not None:
            self.frac = frac
        now = time.perf_counter()
        if self.time_limit is not None and now - self.t0 >= self.time_limit - reserve:
            raise Stop("time limit")
        if self.progress is not None and now - self.last_call >= PROGRESS_INTERVAL:
            self.last_call = now
            lo, hi = self.span
            self.shown = max(self.shown, lo + (hi - lo) * min(max(float(self.frac), 0.0), 1.0))
            if self.progress(self.shown, self.phase):
                raise Stop("cancelled")

    # trials -----------------------------------------------------------------------------
    def solves(self, enabled, probe=None) -> bool:
        probe = self.probe if probe is None else probe
        cover = cover_of(self.net, enabled)
        self.trials += 1
        st = mp.run_logic(self.net, enabled, cover, self.mw, probe, self.trial_apps)
        return st == mp.RUN_SOLVED

    def grade(self, enabled) -> Difficulty:
        return grade(self.net, enabled, self.costs, self.mw, self.probe)

    def prune(self, enabled, order, probe, accept=None):
        """One pass of trials over ``order``: hide each clue whose line can go while the rest
        still solves (with probing when ``probe``) and, when given, ``accept(mask)`` approves.
        ``enabled`` is changed in place and solves at every moment. Returns True when the pass
        proved every kept clue necessary, False when a probing trial ran out of budget."""
        net, mw, inc = self.net, self.mw, self.inc
        cover = cover_of(net, enabled)
        self.current = enabled
        order = np.ascontiguousarray(order, np.int64)
        gst = np.zeros(mp.N_GSTATS, np.int64)
        if accept is None:
            self.trials += 1
            cur = np.ones(self.n_lines, np.int64)
            if probe:
                if mp.run_lines(net, enabled, mw) == mp.RUN_SOLVED:
                    cur = mw.contrib.copy()
            elif mp.incr_init(net, enabled, mw, inc) != mp.RUN_SOLVED:
                raise RuntimeError("internal error: a design mask stopped solving")
            chunk = 20000
            try:
                while True:
                    t = time.perf_counter()
                    done = mp.greedy_chunk(net, enabled, order, mw, inc, cur, cover, gst, probe, self.trial_apps,
                                           chunk)
                    if done:
                        break
                    self.check(gst[mp.G_NEXT] / max(len(order), 1))
                    chunk = resize(chunk, time.perf_counter() - t)
            finally:
                self.trials += int(gst[mp.G_TRIALS])
                self.free += int(gst[mp.G_FREE])
                self.unsure += int(gst[mp.G_UNSURE])
            return gst[mp.G_UNSURE] == 0
        finished = True
        base = False  # whether mw/inc hold a solving run of ``enabled`` (line logic)
        for i, li in enumerate(order):
            if not enabled[li] or mp.sole_cover(li, net.line_start, net.line_cells, cover):
                continue
            self.check(i / max(len(order), 1))
            self.trials += 1
            if probe:
                enabled[li] = 0
                st = mp.run_logic(net, enabled, cover, mw, True, self.trial_apps)
                finished = finished and st != mp.RUN_BUDGET
                ok = st == mp.RUN_SOLVED
            else:
                if not base:
                    mp.incr_init(net, enabled, mw, inc)
                    base = True
                ok = mp.incr_try_hide(net, enabled, li, mw, inc)
            if ok and accept(enabled):  # (grading leaves mw as it likes: the base is gone)
                enabled[li] = 1
                mp.set_enabled(li, False, net, enabled, cover)
            else:
                enabled[li] = 1
            base = False
        return finished

    # methods ----------------------------------------------------------------------------
    def informed_start(self):
        """The informed start (``maskprop.build_chunk``): a mask that solves by line propagation,
        or None when the full clue set does not."""
        net, mw = self.net, self.mw
        enabled = np.zeros(self.n_lines, np.uint8)
        key = self.rng.random(self.n_lines) * 1e-3  # ties only
        gain = np.full(self.n_lines, -1, np.int64)
        bctl = np.zeros(2, np.int64)
        shown = np.zeros(self.n_lines, np.int64)
        mp.reset(net, mw)
        steps = 16
        while True:
            t = time.perf_counter()
            st = mp.build_chunk(net, enabled, key, mw, gain, bctl, shown, steps)
            if st != mp.RUN_STALLED:
                break
            self.check(mw.ctl[mp.M_TLEN] / max(self.n_cells, 1))
            steps = resize(steps, time.perf_counter() - t)
        return enabled if st == mp.RUN_SOLVED else None

    def anneal(self, enabled, moves, objective=None):
        """Simulated annealing from ``enabled`` (which must solve by line propagation); returns
        the best mask seen, which ``self.current`` also holds while it runs.
        ``objective(enabled, difficulty) -> float`` (higher is better) replaces the hidden count."""
        net, mw = self.net, self.mw
        n = self.n_lines
        out = np.zeros(n, np.int64)
        cur = enabled.copy()
        cur_val = self._value(cur, objective)
        mp.run_lines(net, cur, mw)
        contrib = np.log1p(mw.contrib) * ANNEAL_CONTRIB_WEIGHT
        best, best_val = cur.copy(), cur_val
        self.current = best
        accepted = 0
        done = 0
        try:
            for k in range(moves):
                try:
                    # keep time for the final pass, so a timed-out design still ends minimal
                    self.check(k / max(moves, 1), reserve=self.reserve)
                except Stop as why:
                    if str(why) != "time limit":
                        raise
                    self.cut = f"annealing stopped by the time limit after {k} of {moves} moves"
                    break
                done = k + 1
                hidden = np.flatnonzero(cur == 0)
                if len(hidden) == 0:
                    break
                temp = ANNEAL_T0 * (ANNEAL_T1 / ANNEAL_T0) ** (k / max(moves - 1, 1))
                reveal = int(hidden[self.rng.integers(len(hidden))])
                # lines that deduced more go first, so the run leans on them and drops the others
                key = self.rng.random(n) + contrib
                self.trials += 1
                m = mp.redundant_after_reveal(net, cur, key, reveal, mw, out)
                if m < 0:
                    continue
                run_contrib = mw.contrib  # (grading below reuses mw)
                if objective is not None:
                    run_contrib = run_contrib.copy()
                new = cur.copy()
                new[reveal] = 1
                new[out[:m]] = 0
                val = self._value(new, objective)
                delta = val - cur_val
                if delta >= 0 or self.rng.random() < math.exp(delta / temp):
                    cur, cur_val = new, val
                    contrib = np.log1p(run_contrib) * ANNEAL_CONTRIB_WEIGHT
                    accepted += 1
                    if val > best_val:
                        best, best_val = new.copy(), val
                        self.current = best
        finally:
            self.stats["anneal_moves"] = self.stats.get("anneal_moves", 0) + done
            self.stats["anneal_accepted"] = self.stats.get("anneal_accepted", 0) + accepted
        return best

    def _value(self, enabled, objective):
        hidden = float(self.n_lines - int(enabled.sum()))
        if objective is None:
            return hidden
        return objective(enabled, self.grade(enabled))


def resize(chunk, dt, target=PROGRESS_INTERVAL / 2):
    """The next chunk size for a kernel loop, aiming at ``target`` seconds per call."""
    if dt < target / 2:
        return min(chunk * 2, 1 << 40)
    if dt > target * 2:
        return max(chunk // 2, 1)
    return chunk
