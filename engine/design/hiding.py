"""Puzzle design: choose which clues to hide so that the puzzle keeps exactly one solution (the
given voxels), stays solvable by logic alone, and lands at the difficulty the designer asks for.

``design(puzzle_or_grid, ...) -> DesignResult``; the live-editing helpers (``DesignSession``,
``check_design``, ``suggest_clues``) are in ``session.py``. See docs/ENGINE_API.md for the
contract and docs/SOLVER.md ("Puzzle design") for how it works.

Every trial runs in the kernels of ``maskprop.py`` on one net built from the solution's full
clue set, with a per-line "clue shown" mask. Methods:

- ``random``: the baseline. Lines in a random order; each clue stays hidden when the rest still
  solves. One pass is enough (hiding is monotone, see maskprop), so the result is locally minimal.
- ``greedy`` (default): an informed start, then the same pass. The start shows no clue and adds,
  while line propagation leaves cells unknown, the clue of the line that deduces the most cells
  right now; so every shown clue was needed when it was added, and most clues are never shown.
  Measured on the shared models at resolution 24 it hides 41-72 % of the clues (median 61 %)
  where the random order hides 30-47 % (median 37 %).
- ``anneal``: ``greedy`` and up to four restarts of it (the best kept), then simulated annealing
  with reveal-one / hide-several moves: show a hidden clue, propagate taking it first and the
  other shown lines by a priority (lines that deduced little go last), and hide every shown line
  that deduced nothing in that run (all at once: the run is valid without them). Worse states
  are accepted with probability exp(delta / temperature). A final pass makes the best state
  found locally minimal.

Logic ``probe`` adds a last pass whose trials probe when line propagation stalls (a start that
only probing solves gets only that pass). A difficulty band (or a score range) steers the same
search: a design that is too hard shows clues again (a bisection along the hidden clues), one
that is too easy is annealed with the distance to the range as the objective, and final passes
hide what stays solvable and in range.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Callable, Optional

import numpy as np

from ..solve import maskprop as mp
from .. import gate
from ..model.cells import state_from_bool
from ..model.clues import puzzle_from_grid
from ..solve.difficulty import (BANDS, LOGICS, Difficulty, band_range, cover_of, grade, in_range, line_costs,
                                range_miss)
from ..solve.propagate import build_net
from ..model.puzzle import KIND_NONE, Puzzle, with_hidden

METHODS = ("greedy", "anneal", "random")
STARTS = ("full", "current")
# Default time limit of ``anneal`` (seconds); ``greedy``/``random`` have none by default. Only
# a safety stop: the work is a budget of trials and moves, so a seed fixes the design on any
# machine; a run the limit cuts says so (``reproducible`` False).
ANNEAL_TIME_LIMIT = 120.0
# Restarts of the informed start before annealing (ties broken anew; the best is annealed):
# measured at resolution 24, the best of 5 starts hides 0.2-3 points more than the first.
ANNEAL_RESTARTS = 4
# ... as long as they end within this share of the time limit (the rest is for annealing).
RESTART_SHARE = 0.4
# Annealing moves per line of the puzzle (the work budget; the time limit may stop it sooner),
# at most ANNEAL_MAX_MOVES: a move costs about the puzzle's size, so large puzzles get fewer
# moves per line (measured on a loaded 2-core machine: duck at 24, 10,480 moves in 20 s; at
# 36, 23,304 moves in 270 s)
ANNEAL_MOVES_PER_LINE = 8
ANNEAL_MAX_MOVES = 6000
# Annealing moves per line when steering a too easy design towards a harder band.
STEER_MOVES_PER_LINE = 2
# Annealing runs at most, when one ends short of the band (each from the best so far,
# reheated): each of STEER_MOVES_PER_LINE moves per line (at most ANNEAL_MAX_MOVES)
STEER_ROUNDS = 6
# Default time limit when a band or score range is asked for (steering may anneal): a safety
# stop, as ANNEAL_TIME_LIMIT.
STEER_TIME_LIMIT = 120.0
# Weight of log(1 + cells a line deduced) in the priority of a move's run (beside a random
# number in [0, 1)): measured at 24, 0.5 hides 0.3 points more than random priorities alone.
ANNEAL_CONTRIB_WEIGHT = 0.5
# Annealing temperature (in clues): from T0 down to T1, geometric over the move budget.
ANNEAL_T0 = 0.6
ANNEAL_T1 = 0.05
# Line-solver applications a probing trial may spend before it counts as failed (not proven).
PROBE_TRIAL_APPS_PER_CELL = 2000
PROGRESS_INTERVAL = 0.05


class DesignError(ValueError):
    """Input design cannot work with: no solution, a solution breaking its clues, ..."""


@dataclass
class DesignResult:
    """A designed puzzle and how it was found."""
    hidden: np.ndarray            # bool per line: clue hidden
    puzzle: Puzzle                # the designed puzzle: hidden clues None, the solution, meta
    difficulty: Difficulty
    hidden_count: int
    n_lines: int
    trials: int
    time_s: float
    stopped_early: bool
    locally_minimal: bool
    logic: str
    method: str
    seed: int
    band: Optional[str] = None            # band of the designed puzzle's score
    target: Optional[tuple] = None        # (lo, hi) score range asked for, or None
    in_target: bool = True                # score within the target (True when none was asked)
    message: str = ""
    stats: dict = field(default_factory=dict)
    compile_s: float = 0.0                # compiling (or loading) kernels before the timed run
    # the seed alone fixed the result: no time limit or cancel cut the run short (the budget
    # is counted in trials and moves, so then any machine gives the same design)
    reproducible: bool = True

    @property
    def score(self) -> Optional[float]:
        return self.difficulty.score

    @property
    def hidden_fraction(self) -> float:
        return self.hidden_count / max(self.n_lines, 1)

    def to_dict(self) -> dict:
        return {"hidden_count": self.hidden_count, "lines": self.n_lines,
                "hidden_fraction": round(self.hidden_fraction, 4), "score": self.score, "band": self.band,
                "target": _json_range(self.target), "in_target": self.in_target,
                "logic": self.logic, "method": self.method, "seed": self.seed, "trials": self.trials,
                "time_s": round(self.time_s, 4), "compile_s": round(self.compile_s, 4),
                "stopped_early": self.stopped_early, "reproducible": self.reproducible,
                "locally_minimal": self.locally_minimal, "message": self.message,
                "difficulty": self.difficulty.to_dict(), "stats": dict(self.stats)}


def _json_range(target):
    """A score range for JSON: an open end (infinity) as None."""
    if target is None:
        return None
    return [None if math.isinf(v) else v for v in target]


# ---------------------------------------------------------------------------------------------
# input


def full_puzzle(puzzle_or_grid):
    """(puzzle with every clue of its solution, hidden mask of the input puzzle)."""
    if isinstance(puzzle_or_grid, Puzzle):
        p = puzzle_or_grid
        if p.solution is None:
            raise DesignError("the puzzle carries no solution: design needs the grid the clues were "
                              "made from (make it from a voxel grid, or load a puzzle file with one)")
        if p.dim not in (2, 3) or p.n_cells != int(np.prod(p.shape)):
            raise DesignError(f"only 2D and 3D grid puzzles can be designed, not shape {p.shape}")
        from ..files.puzzlefile import check_solution
        bad = check_solution(p)
        if bad:
            more = f" and {len(bad) - 5} more" if len(bad) > 5 else ""
            raise DesignError(f"the puzzle's solution breaks its own clues ({', '.join(bad[:5])}{more})")
        grid = np.asarray(p.solution, bool).reshape(p.grid_shape())
        full = puzzle_from_grid(grid, name=p.name)
        full.meta = dict(p.meta)
        full.palette, full.colours = p.palette, p.colours  # the reveal's colours stay
        return full, p.clue_kind == KIND_NONE
    grid = np.asarray(puzzle_or_grid)
    if grid.ndim not in (2, 3) or grid.size == 0:
        raise DesignError(f"a voxel grid must be a non-empty 2D or 3D array, got shape {grid.shape}")
    grid = grid.astype(bool)
    full = puzzle_from_grid(grid)
    return full, np.zeros(full.n_lines, bool)


def _target(band, score_range):
    if band is not None and score_range is not None:
        raise ValueError("give a difficulty band or a score range, not both")
    if band is not None:
        return band_range(band)
    if score_range is not None:
        lo, hi = (float(v) for v in score_range)
        if not lo <= hi:
            raise ValueError(f"score range {score_range} is empty")
        return lo, hi
    return None


# ---------------------------------------------------------------------------------------------
# the search


# The kernels a design runs: its own and the solver's (the final check).
PARTS = ("solve", "design")


def prepare(progress=None) -> float:
    """Compile (or load) the design kernels unless done: the seconds it took, which neither a
    design's ``time_s`` nor its time limit counts. ``progress(0, "preparing solver")`` first
    when there is something to compile (compiling does not poll it: Esc abandons the call)."""
    if progress is not None and not gate.ready(*PARTS):
        progress(0.0, "preparing solver")
    return gate.ensure(*PARTS)


class _Stop(Exception):
    """The time limit or the progress callback ended the search."""


class _Search:
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
        """Raise _Stop when the time is up (less ``reserve`` seconds) or the callback asks to
        cancel."""
        if frac is not None:
            self.frac = frac
        now = time.perf_counter()
        if self.time_limit is not None and now - self.t0 >= self.time_limit - reserve:
            raise _Stop("time limit")
        if self.progress is not None and now - self.last_call >= PROGRESS_INTERVAL:
            self.last_call = now
            lo, hi = self.span
            self.shown = max(self.shown, lo + (hi - lo) * min(max(float(self.frac), 0.0), 1.0))
            if self.progress(self.shown, self.phase):
                raise _Stop("cancelled")

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
                    chunk = _resize(chunk, time.perf_counter() - t)
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
            steps = _resize(steps, time.perf_counter() - t)
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
                except _Stop as why:
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


def _resize(chunk, dt, target=PROGRESS_INTERVAL / 2):
    """The next chunk size for a kernel loop, aiming at ``target`` seconds per call."""
    if dt < target / 2:
        return min(chunk * 2, 1 << 40)
    if dt > target * 2:
        return max(chunk // 2, 1)
    return chunk


def _band_value(target, n_lines):
    """Objective for annealing towards a score range: the distance to the range dominates,
    then (inside it) the hidden count."""
    def value(enabled, diff: Difficulty):
        hidden = n_lines - int(enabled.sum())
        if diff.score is None:
            return -1e9
        return -100.0 * range_miss(target, diff.score) + hidden / max(n_lines, 1)
    return value


# ---------------------------------------------------------------------------------------------
# entry point


def design(puzzle_or_grid, *, logic: str = "line", band: Optional[str] = None,
           score_range: Optional[tuple] = None, method: str = "greedy", seed: int = 0,
           time_limit: Optional[float] = None, progress: Optional[Callable] = None,
           start: str = "full", anneal_moves: Optional[int] = None) -> DesignResult:
    """Hide clues of a puzzle (or of the full clue set of a voxel grid) while it keeps exactly
    one solution and stays solvable at ``logic`` ("line" or "probe").

    ``band`` (easy/medium/hard/expert) or ``score_range`` (lo, hi) target a difficulty;
    ``method``: "greedy" (default), "anneal" (greedy, then simulated annealing) or "random" (the
    baseline order). ``seed`` fixes every random choice: same input and seed, same result on
    any machine (the work is a budget of trials and moves) unless the time limit or a cancel cut
    the run (``reproducible`` False). ``time_limit`` in seconds, a safety stop (``anneal`` and
    steering default to 120 s);
    ``progress(fraction, message) -> bool`` is called about every 0.05 s and may return True to
    cancel: the result then holds the best design found so far, with ``stopped_early``.
    ``start``: "full" designs from every clue shown; "current" keeps the clues the input puzzle
    already hides hidden (it must be solvable at ``logic``). ``anneal_moves`` overrides the
    annealing budget (default 8 moves per line, at most ANNEAL_MAX_MOVES).

    Raises DesignError on input it cannot work with (no solution, a solution that breaks its
    clues, an empty grid, a current start that logic cannot solve)."""
    target, full, input_hidden, time_limit = _inputs(puzzle_or_grid, logic, band, score_range, method, start,
                                                     time_limit)
    compile_s = prepare(progress)
    s = _Search(full, logic, int(seed), time_limit, progress)
    s.compile_s = compile_s
    enabled, stopped, minimal = _hide(s, logic, input_hidden, method, start, target, anneal_moves)
    return _result(s, enabled, logic, method, seed, target, stopped, minimal)


def _inputs(puzzle_or_grid, logic, band, score_range, method, start, time_limit):
    """design()'s arguments checked: (target, full puzzle, input's hidden mask, time limit)."""
    if logic not in LOGICS:
        raise ValueError(f"unknown logic level {logic!r} (choose from {', '.join(LOGICS)})")
    if method not in METHODS:
        raise ValueError(f"unknown design method {method!r} (choose from {', '.join(METHODS)})")
    if start not in STARTS:
        raise ValueError(f"unknown start {start!r} (choose from {', '.join(STARTS)})")
    target = _target(band, score_range)
    full, input_hidden = full_puzzle(puzzle_or_grid)
    if not full.solution.any():
        raise DesignError("the grid has no filled voxel: there is nothing to design")
    if time_limit is None and method == "anneal":
        time_limit = ANNEAL_TIME_LIMIT
    if time_limit is None and target is not None:
        time_limit = STEER_TIME_LIMIT
    return target, full, input_hidden, time_limit


def _hide(s: _Search, logic, input_hidden, method, start, target, anneal_moves):
    """The search of design(), on the mask kernels alone: (shown mask, why it stopped early or
    None, locally minimal)."""
    n = s.n_lines
    enabled = np.ones(n, np.uint8)
    if start == "current":
        enabled[input_hidden] = 0
    if not s.solves(enabled):
        if start == "current":
            raise DesignError(f"the puzzle as it is cannot be solved by {logic} logic alone; show more clues "
                              f"or start from the full clue set")
        raise DesignError(f"even with every clue shown this puzzle is not solvable by {logic} logic "
                          f"(it needs search, or has several solutions)")
    s.current = enabled
    stopped = None
    minimal = False
    # the share of the progress bar before steering (which fills the rest)
    end = 0.5 if target is not None else 1.0
    try:
        # the greedy and annealing phases work at the line level (a mask line propagation
        # solves, probing solves too); logic ``probe`` then tries every kept clue once more with
        # probing. A start only probing solves goes straight to that pass.
        by_lines = not s.probe or s.solves(enabled, probe=False)
        if method == "random" or not by_lines:
            s.stage("hiding", 0.0, end)
            minimal = s.prune(enabled, s.rng.permutation(n), s.probe)
        else:
            annealing = method == "anneal"
            # stage bounds (fractions of ``end``): building, hiding, restarts, annealing, hiding
            b = (0.0, 0.05, 0.1, 0.3, 0.9, 0.95) if annealing else (0.0, 0.4, 0.9, 0.9, 0.9, 0.9)
            if not s.probe:
                b = tuple(min(v / b[-1], 1.0) for v in b) if not annealing else b[:5] + (1.0,)
            b = tuple(end * v for v in b)
            if start == "full":
                s.stage("building", b[0], b[1])
                built = s.informed_start()
                if built is not None:
                    enabled = built
            s.stage("hiding", b[1], b[2])
            t = time.perf_counter()
            minimal = s.prune(enabled, s.rng.permutation(n), False)
            s.reserve = 2.0 * (time.perf_counter() - t) + 0.05
            if annealing:
                if start == "full":
                    # restarts of the informed start break its ties differently: keep the best.
                    # Always the same number (a design is reproducible by its seed); the time
                    # limit only cuts them as a safety stop, and the result says so
                    for i in range(ANNEAL_RESTARTS):
                        s.stage("restarting", b[2] + (b[3] - b[2]) * i / ANNEAL_RESTARTS,
                                b[2] + (b[3] - b[2]) * (i + 1) / ANNEAL_RESTARTS)
                        try:
                            s.check(reserve=s.reserve)
                            other = s.informed_start()
                            s.prune(other, s.rng.permutation(n), False)
                        except _Stop as why:
                            if str(why) != "time limit":
                                raise
                            s.cut = f"restarts cut by the time limit after {i} of {ANNEAL_RESTARTS}"
                            break
                        if other.sum() < enabled.sum():
                            enabled = other
                        s.current = enabled
                if target is None and not s.cut:  # (with a target, steering anneals towards it)
                    s.stage("annealing", b[3], b[4])
                    moves = anneal_moves if anneal_moves is not None else \
                        min(ANNEAL_MOVES_PER_LINE * n, ANNEAL_MAX_MOVES)
                    enabled = s.anneal(enabled, moves)
                if target is None:
                    s.stage("hiding", b[4], b[5])
                    minimal = s.prune(enabled, s.rng.permutation(n), False)
            if s.probe:
                s.stage("probing", b[5], end)
                minimal = s.prune(enabled, s.rng.permutation(n), True)
        if target is not None:
            s.stage("steering", end, 1.0)
            enabled, minimal = _steer(s, enabled, target, minimal, method == "anneal", anneal_moves)
    except _Stop as why:
        stopped = str(why)
        minimal = False
        enabled = s.current
    return enabled, stopped, minimal


def search_masks(puzzle_or_grid, *, logic: str = "line", band: Optional[str] = None, method: str = "greedy",
                 start: str = "full", time_limit: Optional[float] = None,
                 anneal_moves: Optional[int] = None) -> np.ndarray:
    """design()'s search and grading without compiling ahead and without the solver's final
    check: the shown-clue mask (1 = shown). For compiling the design's own kernels (maskprop)
    in a process that leaves the solver's kernels to another (``warmup.py``'s "masks" part)."""
    target, full, input_hidden, time_limit = _inputs(puzzle_or_grid, logic, band, None, method, start,
                                                     time_limit)
    s = _Search(full, logic, 0, time_limit, None)
    enabled, _stopped, _minimal = _hide(s, logic, input_hidden, method, start, target, anneal_moves)
    s.grade(enabled.astype(np.uint8))  # as _result grades it
    return enabled


def _steer(s: _Search, enabled, target, minimal, anneal=False, anneal_moves=None):
    """Bring a solving mask into the score range ``target``; returns (mask, locally minimal:
    in range and no shown clue can go while it stays solvable and in range).
    ``anneal``: also anneal a mask already in range (hiding more while it stays in range)."""
    lo, hi = target
    diff = s.grade(enabled)
    if in_range(target, diff.score) and not anneal:
        return enabled, minimal
    if diff.score is not None and diff.score >= hi:
        # too hard: show clues again. Every subset of a solving hidden set solves (monotone), so
        # hide only a prefix of the hidden clues in a seeded order; the score grows (almost
        # monotonically) with the prefix, so bisect for the longest prefix still below ``hi``
        hidden = np.flatnonzero(enabled == 0)
        hidden = hidden[s.rng.permutation(len(hidden))]

        def mask(k):
            m = np.ones(s.n_lines, np.uint8)
            m[hidden[:k]] = 0
            return m
        a, b = 0, len(hidden)  # prefix a is below hi (k=0: the full clue set may be too hard too)
        while b - a > 1:
            s.check()
            mid = (a + b) // 2
            sc = s.grade(mask(mid)).score
            if sc is not None and sc < hi:
                a = mid
            else:
                b = mid
        enabled = mask(a)
        s.current = enabled
    if anneal or not in_range(target, s.grade(enabled).score):
        # too easy (the score grows as the deduction chains do), or annealing asked for: anneal
        # with the distance to the range first, then the hidden count, as the objective. A run
        # that ends outside the range anneals again from its best (reheated), up to
        # STEER_ROUNDS runs: the budget is counted in moves, so the seed alone fixes the result
        per_line = ANNEAL_MOVES_PER_LINE if anneal else STEER_MOVES_PER_LINE
        moves = anneal_moves if anneal_moves is not None else min(per_line * s.n_lines, ANNEAL_MAX_MOVES)
        # the final passes grade every trial: keep them a quarter of the time
        s.reserve = max(s.reserve, 0.25 * s.time_limit) if s.time_limit is not None else s.reserve
        lo_frac, hi_frac = s.span
        objective = _band_value(target, s.n_lines)
        for r in range(STEER_ROUNDS):
            s.span = (lo_frac + (hi_frac - lo_frac) * 0.8 * r / STEER_ROUNDS,
                      lo_frac + (hi_frac - lo_frac) * 0.8 * (r + 1) / STEER_ROUNDS)
            enabled = s.anneal(enabled, moves, objective)
            if s.cut or in_range(target, s.grade(enabled).score):
                break
        s.stats["steer_rounds"] = r + 1
        s.span = (lo_frac + (hi_frac - lo_frac) * 0.8, hi_frac)
    # final passes: hide what stays solvable and no farther from the range (in range: stays in
    # it; short of it: the score does not move away). The score is not monotone, so a hide can
    # let a clue rejected earlier in the pass go after all: repeat until a pass hides nothing,
    # then every kept clue was tried against the final mask
    miss = [range_miss(target, s.grade(enabled).score)]

    def closer(m):
        d = range_miss(target, s.grade(m).score)
        if d <= miss[0]:
            miss[0] = d
            return True
        return False
    while True:
        before = int(enabled.sum())
        finished = s.prune(enabled, s.rng.permutation(s.n_lines), s.probe, accept=closer)
        if int(enabled.sum()) == before:
            return enabled, finished and miss[0] == 0.0


def _result(s: _Search, enabled, logic, method, seed, target, stopped, minimal) -> DesignResult:
    from ..solve.driver import solve
    hidden = enabled == 0
    diff = s.grade(enabled.astype(np.uint8))
    puzzle = with_hidden(s.full, hidden)
    # checked, not assumed: the engine's own solver must find the grid as the only solution
    rep = solve(puzzle, time_limit=max(10.0, 2.0 * (time.perf_counter() - s.t0)))
    levels = ("line",) if logic == "line" else ("line", "probe")
    if rep.verdict != "unique" or rep.difficulty not in levels or not diff.solved:
        if rep.verdict != "unknown":
            raise RuntimeError(f"internal error: designed puzzle checked {rep.verdict}/{rep.difficulty}")
    in_target = in_range(target, diff.score)
    msg = ""
    if target is not None and not in_target:
        want = next((b for b in BANDS if band_range(b) == tuple(target)), None)
        what = f"band {want!r}" if want else f"score range [{target[0]}, {target[1]})"
        msg = (f"could not reach {what}: the design scores {diff.score} ({diff.band})")
    if target is not None and not in_target:
        msg += ("; not locally minimal within the band (it is short of it): no shown clue can go "
                "while it stays solvable without moving the score away from the band")
    if s.cut:
        msg = (msg + "; " if msg else "") + s.cut
    if stopped:
        msg = (msg + "; " if msg else "") + f"stopped early ({stopped})"
    if s.cut or stopped:
        msg += ": this design is not reproducible by its seed alone (another machine may reach " \
               "more or less; a longer time limit lets the whole budget run)"
    stats = {"free_hides": s.free, "unsure_trials": s.unsure, "applications": int(s.mw.ctl[mp.M_APPS]),
             "probes": int(s.mw.ctl[mp.M_PROBES]), "check_verdict": rep.verdict,
             "check_difficulty": rep.difficulty}
    stats.update(s.stats)
    t = time.perf_counter() - s.t0
    res = DesignResult(hidden, puzzle, diff, int(hidden.sum()), s.n_lines, s.trials, t,
                       stopped is not None or bool(s.cut),
                       bool(minimal and stopped is None), logic, method, int(seed), diff.band,
                       tuple(target) if target is not None else None, in_target, msg, stats,
                       s.compile_s + rep.stats.get("compile_s", 0.0), not (s.cut or stopped))
    puzzle.meta = dict(s.full.meta)
    puzzle.meta["design"] = {k: v for k, v in res.to_dict().items() if k not in ("difficulty", "stats")}
    puzzle.meta["difficulty"] = diff.to_dict()
    return res
