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

With a band (or a score range ``lo <= score < hi``, as the black-and-white designer's
``difficulty.band_range``), the design is steered to it (``_to_band``), on the score of
``coloursolve.grade_net`` (``grade_colour`` of a mask):

- too hard (score >= hi): the hides are a sequence; every prefix of it is itself solvable (it
  keeps more clues than the whole), so the designer bisects the prefix length on the score,
  which grows, roughly, with the clues hidden (the longest prefix found below ``hi``).
- too easy (score < lo): STEER_RESTARTS restarts of the pass from every clue, in other seeded
  orders (random, and the informed orders with other tie-breaks); each restart's design is
  brought below ``hi`` by the bisection when it overshoots, and the design closest to the range
  is kept (distance first, then more hides). Then, while still short, up to STEER_MOVES moves
  from the closest design: show one hidden clue, run the pass over the other shown clues (with
  it shown, some of them can go), grade; the move is kept when it comes no farther from the
  range (more hides at the same distance). The first design in the range ends the restarts and
  moves. A design still short of the range says so in its message.
- then final passes within the range: each shown clue, in a seeded order, is hidden when the
  puzzle still solves at the logic level and the score stays in the range (or, short of it,
  moves no farther away). The score is not monotone in the hides, so passes repeat until one
  hides nothing: then no single shown clue can go while the puzzle stays solvable and in the
  range, which is what ``locally_minimal`` means with a band (it is False for a design outside
  the range). Each pass screens its clues by halves (``_hideable_alone``: the clues the puzzle
  solves without, one at a time; one that does not never will again, the mask only shrinks),
  hides at once the longest prefix of their pass that keeps the score, and grades the rest one
  by one; at most FINAL_CELL_GRADES / cells grades (FINAL_GRADES_MIN at least), after which the
  design says it is not locally minimal.

Every budget is a count (restarts, moves, grades), so a seed fixes the design on any machine;
with a band the default time limit is STEER_TIME_LIMIT, a safety stop like ANNEAL_TIME_LIMIT.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, field, replace
from typing import Optional

import numpy as np

from ..model.colourpuzzle import CKIND_NONE, ColourPuzzle, colour_puzzle_from_grid, with_hidden
from ..solve.coloursolve import ST_OK, build_net, decided, full_state, grade_net, probe, techniques
from ..solve.difficulty import BANDS, LOGICS, band_range, in_range, range_miss
from .colourprune import prune_by_halves
from .colourtrials import RunTimeout, TrialRun

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
# Restarts of the pass from every clue, in other seeded orders, when a design is short of the
# band asked for (each a pass, a grade and, when it overshoots, a bisection of ~log2(hides)
# grades): at 24^3 a pass costs 0.1-0.6 s and a grade 0.03-0.7 s; measured, the four restarts
# of the duck and the bunny (k = 3, "expert") took 0.7-1.0 s.
STEER_RESTARTS = 4
# Then reveal-one / hide-several moves from the closest design (each a pass and a grade, about
# 0.15-0.2 s at 24^3), kept when they come no farther from the band. Measured at 24^3 ("expert",
# k = 2, 3, duck, horse, teapot, bunny): 48 moves raised the restarts' best by 0.1-1.6 points
# (at 16: ~2 points); 12 keep a band design to a few seconds there.
STEER_MOVES = 12
# The grades the final passes within the band may spend: FINAL_CELL_GRADES / cells (a grade's
# work grows with the cells), at least FINAL_GRADES_MIN: 244 for 16^3 cells, 72 for 24^3 (a grade costs
# 0.03-0.15 s there: a few seconds), thousands on small puzzles. A pass grades each shown clue
# that still solves without it, and passes repeat until one hides nothing, so a too hard design
# of a dense model can need hundreds (every hide after the bisection's prefix still solves); a
# design that runs out is not locally minimal and says so.
FINAL_CELL_GRADES = 1_000_000
FINAL_GRADES_MIN = 16
# Default time limit when a band or a score range is asked for: a safety stop, the budget is
# counted in restarts and grades.
STEER_TIME_LIMIT = 120.0


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


def _target(band, score_range):
    """The score range asked for, ``lo <= score < hi`` (a band's from ``difficulty.band_range``,
    the black-and-white designer's semantics), or None. A score range wins over a band."""
    if score_range is not None:
        lo, hi = (float(v) for v in score_range)
        if not lo <= hi:
            raise ColourDesignError(f"score range {tuple(score_range)} is empty")
        return lo, hi
    if band is not None:
        return band_range(band)
    return None


class _Stop(Exception):
    pass


class _Search:
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
            raise _Stop("time limit")
        lo, hi = self.span
        a, b = self.outer
        if self.progress is not None and self.progress(a + (b - a) * (lo + (hi - lo) * frac), what):
            raise _Stop("cancelled")

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
    ``resume`` False runs every trial from scratch (the reference: same design, slower).

    ``band`` / ``score_range`` (the range wins when both are given): the target ``lo <= score <
    hi``. Too hard: the bisection along the hides; too easy: restarts in other orders and moves,
    the design closest to the range kept, a message when it stays short; then final passes that
    hide each clue that keeps the puzzle solvable and in range. ``locally_minimal`` is then True
    when the design is in the range and no single shown clue can go while it stays solvable and
    in range (False outside the range, or when the passes ran out of their grades: the
    message says which). Without a target it means: no single shown clue can go while solvable."""
    t0 = time.perf_counter()
    if logic not in LOGICS:
        raise ColourDesignError(f"unknown logic {logic!r} (choose from {', '.join(LOGICS)})")
    if band is not None and band not in BANDS:
        raise ColourDesignError(f"unknown band {band!r} (choose from {', '.join(BANDS)})")
    if method not in METHODS:
        raise ColourDesignError(f"unknown design method {method!r} (choose from {', '.join(METHODS)})")
    target = _target(band, score_range)
    if time_limit is None and method == "anneal":
        time_limit = ANNEAL_TIME_LIMIT
    elif time_limit is None and target is not None:
        time_limit = STEER_TIME_LIMIT
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
    if time_limit is not None:
        run.deadline = t0 + time_limit
    try:
        solved = run.solve()
    except RunTimeout:
        raise ColourDesignError(f"the time limit ({time_limit:g} s) passed before the puzzle with "
                                f"{'all its' if start == 'full' else 'its current'} clues was solved") from None
    if not solved:
        raise ColourDesignError(f"the puzzle with {'all its' if start == 'full' else 'its current'} clues is "
                                f"not solved by {logic} logic" + ("; try --logic probe" if logic == "line" else ""))
    s = _Search(run, seed, t0, time_limit, progress)
    s.clued = net.mode.copy()
    stopped = ""
    minimal = False
    hides: list = []
    line_level = logic == "line"
    if target is not None:
        s.outer = (0.0, 0.6)
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
    except (_Stop, RunTimeout) as why:
        # the mask is a solved one between trials or moves: its hidden lines are the hides
        stopped = str(why)
        hides = [int(x) for x in np.flatnonzero((net.mode == 0) & (s.clued > 0))]
    gnet = replace(net, mode=s.clued.copy())
    grader = _Grader(gnet, techniques(base), run.cache)
    message = ""
    steer: dict = {}
    if target is None or stopped:
        mask = s.clued.copy()
        mask[np.asarray(hides, dtype=np.int64)] = 0
        if target is not None:  # stopped: only the bisection (no steering, no final pass)
            mask = _fit(s, grader, hides, target, check=False)[0]
        score, got = grader(mask)
    else:
        s.outer = (0.6, 1.0)
        mask, score, got, in_band_minimal, steer = _to_band(s, grader, hides, target, line_level, logic)
        if steer.get("stopped"):
            stopped = steer["stopped"]
        minimal = in_band_minimal
    if target is not None and not in_range(target, score):
        lo_s, hi_s = target
        want = next((b for b in BANDS if band_range(b) == (lo_s, hi_s)), None)
        what = f"band {want!r} (score {lo_s:g} <= s < {hi_s:g})" if want else f"score range {lo_s:g} <= s < {hi_s:g}"
        message = (f"could not reach the {what}: the design scores {score} ({got}); the closest design found "
                   f"is written (not locally minimal within the band)")
    if steer.get("budget"):
        message = (message + "; " if message else "") + (
            f"the final pass within the band ran out of its {steer['budget']} grades: not locally minimal within "
            f"the band")
    if stopped:
        message = (message + "; " if message else "") + (
            f"stopped early ({stopped}): this design is not reproducible by its seed alone")
    hidden_lines = np.flatnonzero((mask == 0) & (s.clued > 0))
    q = with_hidden(base, hidden_lines) if len(hidden_lines) else base
    q.meta = dict(p.meta)
    q.colour_groups = p.colour_groups
    q.meta["design"] = {"logic": logic, "seed": int(seed), "method": method, "hidden": int(len(hidden_lines)),
                        "score": score, "band": got}
    stats = {"free_hides": s.pass_stats["free"], "propagations": run.trials + s.pass_stats["propagations"],
             "grades": grader.count}
    stats.update({k: v for k, v in steer.items() if k not in ("stopped", "budget")})
    if target is None:
        minimal = minimal and not stopped
    else:
        minimal = bool(minimal and not stopped and not steer.get("budget") and in_range(target, score))
    return ColourDesign(q, logic, int(seed), int(np.count_nonzero(q.clue_kind == CKIND_NONE)), q.n_lines, score, got,
                        minimal, run.trials + s.pass_stats["propagations"] + s.pass_stats["free"],
                        time.perf_counter() - t0, message, stats, method, not stopped)


class _Grader:
    """``grade_net`` of shown masks of one puzzle, each mask graded once (the trials' line
    cache shared); ``count``: the grades run."""

    def __init__(self, gnet, tech, cache):
        self.gnet, self.tech, self.cache = gnet, tech, cache
        self.memo: dict = {}
        self.count = 0

    def __call__(self, mask):
        key = np.asarray(mask).tobytes()
        if key not in self.memo:
            self.gnet.mode[:] = mask
            self.memo[key] = grade_net(self.gnet, self.tech, self.cache)
            self.count += 1
        return self.memo[key]


def _fit(s: _Search, grader: _Grader, hides, target, check=True):
    """The design of a sequence of hides from every clue (``s.clued``), brought below the
    range's top when it scores at or above it: the longest prefix found by bisection that scores
    below ``hi`` (every prefix solves; the score grows, roughly, with the prefix). (mask, score,
    band, the shown lines whose hiding may still solve: all of them after a cut, none when the
    mask is a whole pass's, which leaves no single clue that can go)."""
    hides = np.asarray(hides, dtype=np.int64)

    def mask(j):
        m = s.clued.copy()
        m[hides[:j]] = 0
        return m
    use = len(hides)
    score, got = grader(mask(use))
    if score is not None and score >= target[1]:
        lo, hi = 0, use  # prefix lo scores below the top (presumably: 0 is every clue)
        while hi - lo > 1:
            if check:
                s.check(0.0, "bisecting to the band")
            mid = (lo + hi) // 2
            s_mid, _ = grader(mask(mid))
            if s_mid is not None and s_mid < target[1]:
                lo = mid
            else:
                hi = mid
        use = lo
        score, got = grader(mask(use))
    m = mask(use)
    return m, score, got, (m > 0) if use < len(hides) else np.zeros(len(m), dtype=bool)


def _restart(s: _Search, r: int, line_level: bool, logic: str) -> list:
    """Restart ``r`` of the pass from every clue, in another seeded order: a random one (r % 3
    == 0, or when only probing solves the full puzzle), else the informed order fewest first
    (r % 3 == 1) or most first, ties broken anew. The hides, as a sequence whose every prefix
    solves."""
    run, net = s.run, s.run.net
    net.mode[:] = s.clued
    run.valid = False
    if r % 3 == 0 or not line_level:
        probe = run.probe
        run.probe = probe and not line_level
        run.solve()
        hides = s.prune(s.rng.permutation(np.flatnonzero(net.mode > 0)), "steering to the band")
        run.probe = probe
    else:
        hides = _greedy_pass(s, True, r % 3 == 2)
    if logic == "probe" and line_level:
        # as the design: a last pass that probes; its hides come after the line level's
        run.solve()
        hides = hides + s.prune(s.rng.permutation(np.flatnonzero(net.mode > 0)), "probing")
    return hides


def _hideable_alone(s: _Search, lines) -> np.ndarray:
    """Per line of ``lines`` (shown): whether the puzzle still solves at the logic level with that
    line alone hidden, by halves as ``colourprune``'s pass (the fixpoint of the shown lines
    outside a stretch is a start for every line of it; a stretch whose start is decided is
    hideable line by line) but hiding nothing: a pass's cost instead of a propagation per line.
    ``net.mode`` is left as it was."""
    run, net = s.run, s.run.net
    lines = np.asarray(lines, dtype=np.int64)
    out = np.zeros(len(lines), dtype=bool)
    if len(lines) == 0:
        return out
    keep = net.mode.copy()

    def settle(lo, hi, state):  # lines[lo:hi] hidden on entry and on return
        s.check(lo / len(lines), "final pass within the band")
        if decided(state).all():
            out[lo:hi] = True
            return
        if hi - lo == 1:
            if run.probe:
                trial = state.copy()
                out[lo] = probe(net, trial, np.zeros(2, dtype=np.int64)) == ST_OK and bool(decided(trial).all())
            return
        mid = (lo + hi) // 2
        first, second = lines[lo:mid], lines[mid:hi]
        net.mode[second] = keep[second]
        sub = state.copy()
        run.propagate(sub, second)
        settle(lo, mid, sub)
        net.mode[second] = 0
        net.mode[first] = keep[first]
        run.propagate(state, first)
        settle(mid, hi, state)
        net.mode[first] = 0

    try:
        net.mode[lines] = 0
        state = full_state(net)
        run.propagate(state)
        settle(0, len(lines), state)
    finally:
        net.mode[:] = keep
    return out


def _final_pass(s: _Search, grader: _Grader, mask, target, unsure, budget: int):
    """Hide each shown clue, in seeded orders, while the puzzle solves at the logic level and
    the score stays in the range (short of it: moves no farther away), until a pass hides
    nothing or ``budget`` grades are spent. ``unsure``: the shown clues whose hiding may
    still solve (the others are known not to). Each pass screens its clues by halves
    (``_hideable_alone``), hides at once the longest prefix of their pass (``_fit``'s bisection:
    every prefix solves) that keeps the score, then tries and grades the rest one by one.
    (mask, finished); ``s.final_mask`` is the last mask accepted (for a stop)."""
    run, net = s.run, s.run.net
    net.mode[:] = mask
    s.final_mask = mask.copy()
    miss = range_miss(target, grader(mask)[0])
    # hiding it does not solve: with fewer clues shown it never will (logic is monotone)
    stuck = (mask > 0) & ~unsure
    spent = [0]

    def within(m) -> bool:
        spent[0] += 1
        return range_miss(target, grader(m)[0]) <= miss

    while True:
        s.final_grades = spent[0]
        if spent[0] >= budget:
            return net.mode.copy(), False
        hid = 0
        cands = np.flatnonzero((net.mode > 0) & ~stuck)
        alone = _hideable_alone(s, cands)
        stuck[cands[~alone]] = True
        order = s.rng.permutation(cands[alone])
        if len(order) > 1:
            # a batch: the pass over the candidates gives hides whose every prefix solves; the
            # longest prefix found by bisection that keeps the score goes at once
            start = net.mode.copy()
            seq = np.asarray(s.prune(order, "final pass within the band"), dtype=np.int64)
            net.mode[:] = start

            def prefix(j):
                m = start.copy()
                m[seq[:j]] = 0
                return m
            lo, hi = 0, len(seq)
            if hi and not within(prefix(hi)):
                while hi - lo > 1 and spent[0] < budget:
                    mid = (lo + hi) // 2
                    if within(prefix(mid)):
                        lo = mid
                    else:
                        hi = mid
            else:
                lo = hi
            if lo:
                net.mode[:] = prefix(lo)
                miss = range_miss(target, grader(net.mode)[0])
                s.final_mask = net.mode.copy()
                hid += lo
        for i, li in enumerate(order):
            s.check(i / max(len(order), 1), "final pass within the band")
            if net.mode[li] == 0:
                continue
            if spent[0] >= budget:
                s.final_grades = spent[0]
                return net.mode.copy(), False
            keep = net.mode[li]
            if hid == 0:
                net.mode[li] = 0  # the screen's answer holds: nothing was hidden since
            elif not run.try_hide(int(li)):
                stuck[li] = True
                continue
            if within(net.mode):
                miss = range_miss(target, grader(net.mode)[0])
                s.final_mask = net.mode.copy()
                hid += 1
            else:
                net.mode[li] = keep
        if hid == 0:
            s.final_grades = spent[0]
            return net.mode.copy(), True


def _steer_moves(s: _Search, grader: _Grader, best, target, n_moves: int):
    """Up to ``n_moves`` reveal-one / hide-several moves from the best design: show a hidden
    clue (seeded), run the pass over the other shown clues in a seeded order, grade; a move is
    kept when it is no farther from the range and hides no fewer clues at the same distance,
    else undone (a hill climb: too few graded moves to anneal). The best (mask, score, band).
    ``_anneal``'s move (hide only the lines a run did not use) hid nothing more from these
    locally minimal designs and left the score where it was (measured at 16 on the duck and
    T-rex, k = 3); the pass after the reveal moved them 28.0 -> 30.2 and 27.9 -> 29.2."""
    run, net = s.run, s.run.net
    cur = best
    net.mode[:] = cur[0]
    run.solve()
    for m in range(n_moves):
        s.check(m / max(n_moves, 1), "steering to the band")
        hidden = np.flatnonzero((cur[0] == 0) & (s.clued > 0))
        if len(hidden) == 0 or range_miss(target, cur[1]) == 0:
            break
        r = int(hidden[s.rng.integers(len(hidden))])
        net.mode[:] = cur[0]
        net.mode[r] = s.clued[r]
        if not run.solve():
            continue
        # with r shown, the other shown clues in a seeded order: each hidden when the rest solves
        others = np.flatnonzero(net.mode > 0)
        s.prune(others[others != r][s.rng.permutation(len(others) - 1)], "steering to the band")
        score, got = grader(net.mode)
        unsure = np.zeros(len(net.mode), dtype=bool)
        unsure[r] = True  # the pass left every other shown clue needed; r was not tried
        cand = (net.mode.copy(), score, got, unsure)
        if (range_miss(target, score), -np.count_nonzero(cand[0] == 0)) <= \
                (range_miss(target, cur[1]), -np.count_nonzero(cur[0] == 0)):
            cur = cand
    net.mode[:] = cur[0]
    return cur


def _to_band(s: _Search, grader: _Grader, hides, target, line_level: bool, logic: str):
    """Steer the design (its hides, a sequence) into the score range ``target``: too hard, the
    bisection (``_fit``); too easy, up to STEER_RESTARTS restarts in other seeded orders, the
    design closest to the range kept (distance, then more hides); then the final passes.
    (mask, score, band, locally minimal within the range, stats)."""
    info: dict = {"steer_restarts": 0, "final_grades": 0}

    def key(c):
        return range_miss(target, c[1]), int(np.count_nonzero(c[0] == 0))
    best = None
    final = False
    t = time.perf_counter()
    try:
        s.span = (0.0, 0.1)
        best = _fit(s, grader, hides, target)
        if range_miss(target, best[1]) > 0 and best[1] is not None and best[1] < target[0]:
            # too easy (a too hard one the bisection could not bring into the range too)
            for r in range(STEER_RESTARTS):
                s.span = (0.1 + 0.5 * r / STEER_RESTARTS, 0.1 + 0.5 * (r + 1) / STEER_RESTARTS)
                info["steer_restarts"] = r + 1
                cand = _fit(s, grader, _restart(s, r, line_level, logic), target)
                if key(cand) < key(best):
                    best = cand
                if key(best)[0] == 0:
                    break
            if key(best)[0] > 0 and STEER_MOVES:
                s.span = (0.6, 0.7)
                best = _steer_moves(s, grader, best, target, STEER_MOVES)
        info["steer_s"] = round(time.perf_counter() - t, 3)  # wall time: for benchmarks only
        t = time.perf_counter()
        s.span = (0.7, 1.0)
        s.final_grades = 0
        final = True
        budget = max(FINAL_GRADES_MIN, FINAL_CELL_GRADES // max(s.run.net.n_cells, 1))
        mask, finished = _final_pass(s, grader, best[0], target, best[3], budget)
        info["final_grades"] = s.final_grades
        info["final_s"] = round(time.perf_counter() - t, 3)
        if not finished:
            info["budget"] = budget
        score, got = grader(mask)
        return mask, score, got, finished and in_range(target, score), info
    except _Stop as why:
        info["stopped"] = str(why)
        info["final_grades"] = getattr(s, "final_grades", 0)
        if best is None:
            mask = s.clued.copy()
            mask[np.asarray(hides, dtype=np.int64)] = 0
        else:
            # the best design so far, or the final pass's mask (a solved one between trials)
            mask = s.final_mask if final else best[0]
        score, got = grader(mask)
        return mask, score, got, False, info


def _solves_by_lines(run: TrialRun) -> bool:
    probe = run.probe
    run.probe = False
    ok = run.solve()
    run.probe = probe
    return ok
