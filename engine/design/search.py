"""One design run's search over which clues are shown (``Search``), for every puzzle kind: the
trials (a kind's runs, ``solve/kinds.py``), the pass by halves that hides each clue the rest can do
without, the informed start and simulated annealing, with the run's limits and progress.
``hiding.py`` drives it (``design``); ``band.py`` steers it into a difficulty band; ``session.py``
is the live check on the same kinds. See docs/SOLVER.md ("Puzzle design").

*The pass by halves* (``pass_by_halves``). A trial asks whether the shown lines without line L
solve the puzzle, i.e. whether line logic's fixpoint of those lines decides every cell; from any
state those lines reach by sound deductions, propagation ends at that same fixpoint. So the
fixpoint of every shown line *outside* a stretch S of the order (S's checkpoint) is a start for
the trial of every line in S: the pass splits the order in halves recursively; the first half's
checkpoint is S's propagated with the second half's lines (all still shown: they come later), and
once the first half is settled the second half's is S's propagated with the first half's lines
that stayed shown; a one-line stretch's checkpoint is its trial, and a checkpoint that decides
every cell hides its whole stretch at once. Every decision is the one trials in order would make
(the same shown lines, the same fixpoint), so the design is theirs; but each propagation only adds
what a half adds to a checkpoint near the solution, and the kind undoes it through its trail.
"""
from __future__ import annotations

import math
import time

import numpy as np

from ..kinds.plain.maskprop import RUN_BUDGET, RUN_SOLVED

# Restarts of the informed start before annealing (ties broken anew; the best is annealed):
# measured at resolution 24, the best of 5 starts hides 0.2-3 points more than the first.
ANNEAL_RESTARTS = 4
# Annealing moves per line of the puzzle (the work budget; the time limit may stop it sooner),
# at most ANNEAL_MAX_MOVES: a move is one run of the puzzle from nothing known, so large
# puzzles get fewer moves per line (measured on a loaded 2-core machine: duck at 24, 10,480
# moves in 20 s; at 36, 23,304 moves in 270 s)
ANNEAL_MOVES_PER_LINE = 8
ANNEAL_MAX_MOVES = 6000
# Weight of log(1 + cells a line changed) in the priority of a move's run (beside a random
# number in [0, 1)): measured at 24, 0.5 hides 0.3 points more than random priorities alone.
ANNEAL_CONTRIB_WEIGHT = 0.5
# Annealing temperature (in clues): from T0 down to T1, geometric over the move budget.
ANNEAL_T0 = 0.6
ANNEAL_T1 = 0.05
PROGRESS_INTERVAL = 0.05


class Stop(Exception):
    """The time limit or the progress callback ended the search."""


class Search:
    """One design run: the kind (``K``, its ``shown`` mask the run's trials), the seeded
    generator, limits, progress and counters. Masks are uint8 per line, 1 = shown."""

    def __init__(self, K, logic: str, seed: int, time_limit, progress):
        self.K = K
        self.n_lines = K.n_lines
        self.n_cells = K.n_cells
        self.probe = logic == "probe"
        self.rng = np.random.default_rng(seed)
        self.t0 = time.perf_counter()
        self.time_limit = time_limit
        if time_limit is not None and hasattr(K, "deadline"):
            K.deadline = self.t0 + time_limit  # (checked inside a kind's long propagations)
        self.progress = progress
        self.last_call = self.t0
        self.phase = ""
        self.frac = 0.0
        self.span = (0.0, 1.0)  # the share of the whole run the current stage fills
        self.shown = 0.0        # the largest fraction reported: progress never runs backwards
        self.trials = 0
        self.free = 0
        self.unsure = 0
        self.stats: dict = {}
        self.current = None  # a mask that solves, at every moment (what a stop returns)
        self.reserve = 0.0   # seconds kept for the final pass after annealing
        self.cut = ""        # what a limit cut short without stopping the design
        self.compile_s = 0.0
        self.grades: dict = {}  # mask bytes -> Difficulty (steering grades the same masks again)
        self.last_hides: list = []  # the lines the last pass hid, in order (every prefix solves)

    # limits ---------------------------------------------------------------------------------
    def stage(self, phase: str, lo: float, hi: float) -> None:
        """Enter a stage of the run, which fills ``lo``..``hi`` of the reported progress."""
        self.phase, self.span, self.frac = phase, (lo, hi), 0.0

    def check(self, frac=None, reserve=0.0):
        """Raise Stop when the time is up (less ``reserve`` seconds) or the callback asks to
        cancel; reports progress (never backwards) about every PROGRESS_INTERVAL seconds."""
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

    def finish(self) -> None:
        """A run that ran to its end says so: the throttled calls of ``check`` leave the bar
        wherever the last one fell (0.62 for the unseen ogre at 48), which reads as stuck."""
        if self.progress is not None:
            self.shown = 1.0
            self.progress(1.0, "done")

    # trials ---------------------------------------------------------------------------------
    def solves(self, enabled, probe=None) -> bool:
        """Whether logic (with probing when ``probe``, default the run's logic) solves the
        puzzle with the clues of ``enabled`` shown."""
        probe = self.probe if probe is None else probe
        self.K.shown[:] = enabled
        self.trials += 1
        return self.K.run(probe=probe) == RUN_SOLVED

    def grade(self, enabled):
        """The difficulty of ``enabled`` (each mask graded once per run)."""
        key = np.asarray(enabled, np.uint8).tobytes()
        found = self.grades.get(key)
        if found is None:
            self.K.shown[:] = enabled
            found = self.grades[key] = self.K.grade(self.probe)
        return found

    def prune(self, enabled, order, probe) -> bool:
        """One pass over ``order`` (by halves): hide each clue whose line can go while the rest
        still solves (with probing when ``probe``). ``enabled`` is changed in place and solves
        at every moment (a stop leaves the lines not settled yet shown). True when the pass
        proved every kept clue necessary, False when a probing trial ran out of budget."""
        self.current = enabled
        self.K.shown[:] = enabled
        try:
            self.last_hides, unsure = pass_by_halves(self.K, order, probe, self._pass_check(), self.stats)
        finally:
            enabled[:] = self.K.shown
        self.trials += len(order)
        self.unsure += unsure
        return unsure == 0

    def hideable_alone(self, enabled, lines) -> np.ndarray:
        """Per line of ``lines`` (shown in ``enabled``): whether logic still solves the puzzle with
        that line alone hidden (the pass by halves' recursion, a line found hideable shown again:
        a pass's cost, not a run per line)."""
        lines = np.asarray(lines, np.int64)
        if len(lines) == 0:
            return np.zeros(0, bool)
        self.K.shown[:] = enabled
        found, _ = pass_by_halves(self.K, lines, self.probe, self._pass_check(), self.stats, alone=True)
        return np.isin(lines, np.asarray(found, np.int64))

    def _pass_check(self):
        return lambda done: self.check(done)

    # methods --------------------------------------------------------------------------------
    def informed_start(self):
        """From no clue shown, while line propagation leaves cells undecided, show the clue of
        the line whose one application changes the most cells now (ties by a seeded key); a mask
        that solves by line propagation, or None when the full clue set does not."""
        K = self.K
        K.shown[:] = 0
        K.reset()
        key = self.rng.random(self.n_lines) * 1e-3  # ties only
        gain = K.new_gains()
        steps = 0
        while K.undecided() > 0:
            best = K.best_gain(key, gain)
            if best < 0 or not K.show(best, gain):
                return None
            steps += 1
            if steps % 16 == 0:
                self.check(1.0 - K.undecided() / max(self.n_cells, 1))
        return K.shown.copy()

    def anneal(self, enabled, moves, objective=None):
        """Simulated annealing from ``enabled`` (which must solve by line propagation); returns
        the best mask seen, which ``self.current`` also holds while it runs. A move shows one
        hidden clue, runs line logic taking it first and the other shown lines by a priority
        (lines that changed more last time go first), and hides every shown line that changed
        nothing in that run (the run is valid without them). ``objective(enabled, difficulty)
        -> float`` (higher is better) replaces the hidden count."""
        K, n = self.K, self.n_lines
        cur = enabled.copy()
        cur_val = self._value(cur, objective)
        K.shown[:] = cur
        K.run()
        contrib = np.log1p(K.contrib) * ANNEAL_CONTRIB_WEIGHT
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
                key = self.rng.random(n) + contrib
                key[reveal] = np.inf
                self.trials += 1
                K.shown[:] = cur
                K.shown[reveal] = 1
                if K.run(key) != RUN_SOLVED:
                    continue
                run_contrib = K.contrib.copy()
                new = cur.copy()
                new[reveal] = 1
                new[(K.shown > 0) & (run_contrib == 0)] = 0
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


def pass_by_halves(K, order, probe: bool, check, stats: dict, alone: bool = False):
    """Hide each line of ``order`` (the shown ones of ``K.shown``, changed in place) when the
    other shown lines still solve the puzzle, in order (see the module docstring); (the lines
    hidden in order, probing trials that ran out of budget). ``check(done)`` may raise to stop:
    the mask is then the lines hidden so far with every line not settled yet shown, a solving
    mask. ``probe``: a one-line stretch whose checkpoint line logic leaves undecided is decided
    by probing from it. ``alone``: hide nothing; the lines whose hiding *alone* (every other
    shown line kept) still solves (a line found hideable is shown again). ``stats`` counts the
    propagations (``"propagations"``) and the lines a decided checkpoint hid at once (``"free"``)."""
    order = np.asarray(order, np.int64)
    order = order[K.shown[order] > 0]
    # a line that is the only shown line through a cell is never hidden (nothing could decide
    # the cell without it; covers only shrink as lines go): it is left out of the recursion,
    # shown throughout, which changes no decision and saves two propagations per such line (two
    # thirds of the shown lines after the informed start)
    lens = np.diff(K.line_start)
    cover = K.cover()
    sole = np.zeros(K.n_lines, bool)
    some = lens > 0
    sole[some] = np.minimum.reduceat(cover[K.line_cells], K.line_start[:-1][some]) <= 1
    order = order[~sole[order]]
    hidden: list = []
    unsure = [0]
    n = len(order)
    if n == 0:
        return hidden, 0
    shown = K.shown
    stats.setdefault("propagations", 0)
    stats.setdefault("free", 0)
    settled = False
    shown[order] = 0  # invariant: the stretch being settled is hidden, the rest as it stands

    def propagate(lines, undo_to=-1):
        stats["propagations"] += 1
        if not K.propagate(lines, undo_to):
            raise AssertionError("a design pass met a contradiction: the clues do not fit the solution")

    def settle(lo, hi, pending):
        """Settle ``order[lo:hi]``: the state is the fixpoint of the shown lines outside it but
        ``pending`` (shown, not propagated yet: the top's, see below)."""
        check(lo / n)
        if len(pending) and (hi - lo == 1 or K.undecided() == 0):
            propagate(pending)
            pending = pending[:0]
        if K.undecided() == 0:
            hidden.extend(int(li) for li in order[lo:hi])
            if alone:
                shown[order[lo:hi]] = 1
            elif hi - lo > 1:
                stats["free"] += hi - lo
            return
        if hi - lo == 1:
            li = int(order[lo])
            if probe:
                st = K.probe_solves()
                if st == RUN_SOLVED:
                    hidden.append(li)
                    if not alone:
                        return
                elif st == RUN_BUDGET:
                    unsure[0] += 1
            shown[li] = 1
            return
        mid = (lo + hi) // 2
        second = order[mid:hi]
        shown[second] = 1
        mark = K.mark()
        propagate(np.concatenate((pending, second)))
        settle(lo, mid, pending[:0])
        first = order[lo:mid]
        kept = first[shown[first] > 0]
        shown[second] = 0
        propagate(np.concatenate((pending, kept)), undo_to=mark)
        settle(mid, hi, pending[:0])

    try:
        K.reset()
        # the shown lines outside the order are not propagated alone (lines of one axis, say,
        # with nothing across them: a colour line's product solve is dearest with nothing known),
        # but with the first half's, and again with the second's
        settle(0, n, np.flatnonzero(shown).astype(np.int64))
        settled = True
    finally:
        if alone:
            shown[order] = 1
        elif not settled:  # stopped: every line not settled yet is shown again (a solving mask)
            done = np.zeros(K.n_lines, bool)
            done[np.asarray(hidden, np.int64)] = True
            back = order[~done[order] & (shown[order] == 0)]
            shown[back] = 1
    return hidden, unsure[0]
