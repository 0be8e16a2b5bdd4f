"""Design for colour puzzles: hide clues so the puzzle stays unique and solvable at a logic level.

Every method ends in the same pass: the shown clues in an order drawn from ``seed``; each is
hidden when the puzzle without it is still solved by logic alone (line propagation, or with
probing for ``logic="probe"``), else kept. Logic is sound, so "solved by logic" implies a unique
solution, the puzzle's own. Hiding a clue only removes deductions, so a line kept once would be
kept again later: one pass leaves a locally minimal puzzle (no single further clue can be
hidden). The pass runs by halves (``colourprune.py``: each half of the order settled from the
fixpoint of the lines outside it), with the decisions of from-scratch trials in order
(``resume=False`` runs those). Methods, as the black-and-white designer's (``hiding.py``):

- ``random``: the pass alone, in a random order (the colour designer's only method before).
- ``greedy`` (default): the pass in two informed orders, the better kept: the lines by the cells
  each deduced in a run of every clue, fewest first, and most first (a random number per line
  breaks ties). Which order hides more depends on the model (see ``_greedy``).
- ``anneal``: ``greedy`` and ANNEAL_RESTARTS restarts (other tie-breaks; the best kept), then
  simulated annealing with reveal-one / hide-several moves: show a hidden clue, propagate taking
  it first and the other shown lines by a priority (lines that deduced little go last), and hide
  every shown line that changed no cell in that run (all at once: the same run solves without
  them). A final pass makes the best state locally minimal.

The budget is counted in trials and moves, so a seed fixes the design on any machine; the time
limit is a safety stop, and a design it cut says so (``reproducible`` False). With logic
``probe``, ``greedy`` and ``anneal`` work at the line level first and end with a pass that
probes (a start only probing solves gets only that pass).

With a band (or a score range) the hides are a sequence; every prefix of it is itself solvable
(it keeps more clues than the whole), so the designer bisects the prefix length on the score
(``coloursolve.grade_colour``), which grows, roughly, with the clues hidden.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, field, replace
from typing import Optional

import numpy as np

from ..model.colourpuzzle import CKIND_NONE, ColourPuzzle, colour_puzzle_from_grid, with_hidden
from ..solve.coloursolve import build_net, grade_net, techniques
from ..solve.difficulty import BAND_EDGES, BANDS, LOGICS
from .colourprune import prune_by_halves
from .colourtrials import TrialRun

METHODS = ("greedy", "anneal", "random")
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


class ColourDesignError(ValueError):
    pass


@dataclass
class ColourDesign:
    puzzle: ColourPuzzle
    logic: str
    seed: int
    hidden_count: int
    n_lines: int
    score: Optional[float]
    band: Optional[str]
    locally_minimal: bool
    trials: int
    time_s: float
    message: str = ""
    stats: dict = field(default_factory=dict)
    method: str = "greedy"
    # the seed alone fixed the result: no time limit or cancel cut the run short
    reproducible: bool = True

    def to_dict(self) -> dict:
        return {"logic": self.logic, "seed": self.seed, "hidden": self.hidden_count, "lines": self.n_lines,
                "hidden_fraction": self.hidden_count / max(self.n_lines, 1), "score": self.score,
                "band": self.band, "locally_minimal": self.locally_minimal, "trials": self.trials,
                "time_s": self.time_s, "message": self.message, "method": self.method,
                "reproducible": self.reproducible, "stats": dict(self.stats)}


def _band_range(band, score_range):
    if score_range is not None:
        return float(score_range[0]), float(score_range[1])
    if band is None:
        return None
    i = BANDS.index(band)
    lo = 0.0 if i == 0 else BAND_EDGES[i - 1]
    hi = BAND_EDGES[i] if i < len(BAND_EDGES) else float("inf")
    return lo, hi


class _Stop(Exception):
    pass


class _Search:
    """The state of one design: the trial run, the seeded generator, the limits."""

    def __init__(self, run: TrialRun, seed: int, t0: float, time_limit, progress):
        self.run = run
        self.rng = np.random.default_rng(seed)
        self.t0, self.time_limit, self.progress = t0, time_limit, progress
        self.span = (0.0, 1.0)
        self.cut = ""
        self.pass_stats = {"propagations": 0, "free": 0}

    def check(self, frac: float, what: str):
        if self.time_limit is not None and time.perf_counter() - self.t0 > self.time_limit:
            raise _Stop("time limit")
        lo, hi = self.span
        if self.progress is not None and self.progress(lo + (hi - lo) * frac, what):
            raise _Stop("cancelled")

    def prune(self, order, what="hiding clues") -> list:
        """The pass: try to hide each shown line of ``order``; the lines hidden, in order."""
        run = self.run
        if run.resume:
            stats = self.pass_stats
            hides = prune_by_halves(run.net, order, run.probe, lambda done: self.check(done, what), stats,
                                    run.propagate)
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


def _greedy_pass(s: _Search, line_level: bool, most_first: bool) -> list:
    """Hide by the informed pass from the current (solved) mask; the hides in order."""
    run = s.run
    probe = run.probe
    run.probe = probe and not line_level
    run.solve(np.arange(len(run.net.mode)))  # the counts of a run in line order
    hides = s.prune(s.informed_order(np.flatnonzero(run.net.mode > 0), most_first))
    run.probe = probe
    return hides


def _greedy(s: _Search, line_level: bool) -> list:
    """The informed pass in both orders from the current mask, the one hiding more kept (the
    first on a tie): measured at 16 (k = 2), fewest-first hides 49-54 % of the duck's and the
    jeep's clues where most-first hides 38-41 %, and most-first 62-63 % of the T-rex's and the
    horse's (mostly empty lines) where fewest-first hides 32-39 % (a random order: 37-46 %)."""
    net = s.run.net
    start = net.mode.copy()
    hides = _greedy_pass(s, line_level, False)
    first = net.mode.copy()
    net.mode[:] = start
    other = _greedy_pass(s, line_level, True)
    if np.count_nonzero(net.mode) < np.count_nonzero(first):
        return other
    net.mode[:] = first
    return hides


def _anneal(s: _Search, n_moves: int) -> np.ndarray:
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


def design_colour(p: ColourPuzzle, *, logic: str = "line", seed: int = 0, band: Optional[str] = None,
                  score_range=None, start: str = "full", time_limit: Optional[float] = None,
                  progress=None, method: str = "greedy", anneal_moves: Optional[int] = None,
                  resume: bool = True) -> ColourDesign:
    """A designed copy of ``p`` (which must carry its solution); see the module docstring.
    ``resume`` False runs every trial from scratch (the reference: same design, slower)."""
    t0 = time.perf_counter()
    if logic not in LOGICS:
        raise ColourDesignError(f"unknown logic {logic!r} (choose from {', '.join(LOGICS)})")
    if band is not None and band not in BANDS:
        raise ColourDesignError(f"unknown band {band!r} (choose from {', '.join(BANDS)})")
    if method not in METHODS:
        raise ColourDesignError(f"unknown design method {method!r} (choose from {', '.join(METHODS)})")
    if time_limit is None and method == "anneal":
        time_limit = ANNEAL_TIME_LIMIT
    if p.colour_solution is None:
        # a file without its solution (e.g. webpbn XML or Olšák .g clues): its own unique one
        from ..solve.coloursolve import solve_colour
        r = solve_colour(p, time_limit=time_limit)
        if r.verdict != "unique":
            raise ColourDesignError(f"designing needs the puzzle's solution: the file has none and the "
                                    f"puzzle's verdict is {r.verdict}")
        p = with_hidden(p, np.zeros(p.n_lines, dtype=bool))  # a copy
        p.colour_solution = r.solution.astype(np.uint8)
    full = colour_puzzle_from_grid(p.colour_solution.reshape(p.grid_shape()), p.k, p.clue_colours, p.name)
    base = full if start == "full" else with_hidden(full, p.clue_kind == CKIND_NONE)
    net = build_net(base)
    run = TrialRun(net, np.asarray(full.colour_solution, dtype=np.int64).ravel(), logic, resume=resume)
    if not run.solve():
        raise ColourDesignError(f"the puzzle with {'all its' if start == 'full' else 'its current'} clues is "
                                f"not solved by {logic} logic" + ("; try --logic probe" if logic == "line" else ""))
    s = _Search(run, seed, t0, time_limit, progress)
    s.clued = net.mode.copy()
    stopped = ""
    minimal = False
    hides: list = []
    try:
        if method == "random":
            hides = s.prune(s.rng.permutation(np.flatnonzero(net.mode > 0)))
        else:
            # greedy and annealing work at the line level; logic "probe" then probes every kept
            # clue once more (monotone: that pass leaves it locally minimal at probe level)
            line_level = logic == "line" or _solves_by_lines(run)
            if method == "anneal":
                s.span = (0.0, 0.3)
            hides = _greedy(s, line_level) if line_level else []
            if method == "anneal" and line_level:
                first = net.mode.copy()
                best = first
                for i in range(ANNEAL_RESTARTS):
                    s.span = (0.3 * (i + 1) / (ANNEAL_RESTARTS + 1), 0.3 * (i + 2) / (ANNEAL_RESTARTS + 1))
                    net.mode[:] = s.clued
                    _greedy(s, True)
                    if np.count_nonzero(net.mode) < np.count_nonzero(best):
                        best = net.mode.copy()
                net.mode[:] = best
                s.span = (0.3, 0.9)
                moves = anneal_moves if anneal_moves is not None else \
                    min(ANNEAL_MOVES_PER_LINE * int(np.count_nonzero(s.clued)), ANNEAL_MAX_MOVES)
                _anneal(s, moves)
                s.span = (0.9, 1.0)
                probe = run.probe
                run.probe = False
                run.solve()
                s.prune(s.rng.permutation(np.flatnonzero(net.mode > 0)))
                run.probe = probe
            if logic == "probe":
                run.solve()
                s.prune(s.rng.permutation(np.flatnonzero(net.mode > 0)), "probing")
            if method == "anneal" or logic == "probe":
                # the hides as a sequence for the band's bisection: the hidden lines, seeded order
                hidden = np.flatnonzero((net.mode == 0) & (s.clued > 0))
                hides = [int(x) for x in hidden[s.rng.permutation(len(hidden))]]
        minimal = True
    except _Stop as why:
        # the mask is a solved one between trials or moves: its hidden lines are the hides
        stopped = str(why)
        hides = [int(x) for x in np.flatnonzero((net.mode == 0) & (s.clued > 0))]
    target = _band_range(band, score_range)
    use = len(hides)
    message = ""

    # grades of prefixes of the hides: the shown lines of one net (no puzzle built per grade),
    # the trials' line cache, each prefix graded once
    gnet = replace(net, mode=s.clued.copy())
    tech = techniques(base)
    graded: dict = {}

    def scored(j):
        if j not in graded:
            gnet.mode[:] = s.clued
            gnet.mode[np.asarray(hides[:j], dtype=np.int64)] = 0
            graded[j] = grade_net(gnet, tech, run.cache)
        return graded[j]

    score, got = scored(use)
    if target is not None:
        lo_s, hi_s = target
        if score is not None and score > hi_s:
            lo, hi = 0, use  # score(lo) <= hi_s presumably; bisect the last prefix at most hi_s
            while hi - lo > 1:
                mid = (lo + hi) // 2
                s_mid, _ = scored(mid)
                if s_mid is not None and s_mid <= hi_s:
                    lo = mid
                else:
                    hi = mid
            use = lo
            score, got = scored(use)
    q = with_hidden(base, np.asarray(hides[:use], dtype=np.int64)) if use else base
    if target is not None:
        if score is None or not lo_s <= score <= hi_s:
            message = (f"could not reach the score range {lo_s:g}..{hi_s:g} (got {score}); "
                       f"the closest design is written")
    if stopped:
        message = (message + "; " if message else "") + (
            f"stopped early ({stopped}): this design is not reproducible by its seed alone")
    q.meta = dict(p.meta)
    q.colour_groups = p.colour_groups
    q.meta["design"] = {"logic": logic, "seed": int(seed), "method": method, "hidden": len(hides[:use]),
                        "score": score, "band": got}
    stats = {"free_hides": s.pass_stats["free"], "propagations": run.trials + s.pass_stats["propagations"]}
    return ColourDesign(q, logic, int(seed), int(np.count_nonzero(q.clue_kind == CKIND_NONE)), q.n_lines, score, got,
                        minimal and not stopped and use == len(hides),
                        run.trials + s.pass_stats["propagations"] + s.pass_stats["free"],
                        time.perf_counter() - t0, message, stats, method, not stopped)


def _solves_by_lines(run: TrialRun) -> bool:
    probe = run.probe
    run.probe = False
    ok = run.solve()
    run.probe = probe
    return ok
