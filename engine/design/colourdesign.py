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
  breaks ties). Which order hides more depends on the model (see ``greedy``).
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
``difficulty.band_range``), the design is steered to it (``to_band``), on the score of
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
  the range). Each pass screens its clues by halves (``hideable_alone``: the clues the puzzle
  solves without, one at a time; one that does not never will again, the mask only shrinks),
  hides at once the longest prefix of their pass that keeps the score, and grades the rest one
  by one; at most FINAL_CELL_GRADES / cells grades (FINAL_GRADES_MIN at least), after which the
  design says it is not locally minimal.

Every budget is a count (restarts, moves, grades), so a seed fixes the design on any machine;
with a band the default time limit is STEER_TIME_LIMIT, a safety stop like ANNEAL_TIME_LIMIT.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from typing import Optional

import numpy as np

from .. import gate
from ..model.colourpuzzle import CKIND_NONE, ColourPuzzle, colour_puzzle_from_grid, with_hidden
from ..solve.coloursolve import build_net, techniques
from ..solve.difficulty import BANDS, LOGICS, band_range, in_range
from .colourband import Grader, fit, to_band
from .coloursearch import (ANNEAL_MAX_MOVES, ANNEAL_MOVES_PER_LINE, ANNEAL_RESTARTS, ANNEAL_TIME_LIMIT, Search, Stop,
                           anneal, greedy, solves_by_lines)
from .colourtrials import RunTimeout, TrialRun

METHODS = ("greedy", "anneal", "random")
# Default time limit when a band or a score range is asked for: a safety stop, the budget is
# counted in restarts and grades.
STEER_TIME_LIMIT = 120.0




# The kernels a colour design runs: the solver's and its own (``engine/warmup.py``).
COLOUR_PARTS = ("colour", "colourdesign")


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
    the black-and-white designer's semantics), or None. Both at once are refused, as the
    black-and-white designer refuses them (which one was meant is a guess)."""
    if band is not None and score_range is not None:
        raise ColourDesignError("give a difficulty band or a score range, not both")
    if score_range is not None:
        lo, hi = (float(v) for v in score_range)
        if not lo <= hi:
            raise ColourDesignError(f"score range {tuple(score_range)} is empty")
        return lo, hi
    if band is not None:
        return band_range(band)
    return None


def design_colour(p: ColourPuzzle, *, logic: str = "line", seed: int = 0, band: Optional[str] = None,
                  score_range=None, start: str = "full", time_limit: Optional[float] = None,
                  progress=None, method: str = "greedy", anneal_moves: Optional[int] = None,
                  resume: bool = True) -> ColourDesign:
    """A designed copy of ``p`` (which must carry its solution); see the module docstring.
    ``resume`` False runs every trial from scratch (the reference: same design, slower).

    ``band`` / ``score_range`` (one of them, not both): the target ``lo <= score <
    hi``. Too hard: the bisection along the hides; too easy: restarts in other orders and moves,
    the design closest to the range kept, a message when it stays short; then final passes that
    hide each clue that keeps the puzzle solvable and in range. ``locally_minimal`` is then True
    when the design is in the range and no single shown clue can go while it stays solvable and
    in range (False outside the range, or when the passes ran out of their grades: the
    message says which). Without a target it means: no single shown clue can go while solvable."""
    # compile (or load) the colour kernels first: neither time_s nor the time limit counts it
    # (a cold cache's compile took the whole 120 s limit of a design once)
    if progress is not None and not gate.ready(*COLOUR_PARTS):
        progress(0.0, "preparing solver")
    gate.ensure(*COLOUR_PARTS)
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
    s = Search(run, seed, t0, time_limit, progress)
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
            line_level = logic == "line" or solves_by_lines(run)
            if method == "anneal":
                s.span = (0.0, 0.3)
            hides = greedy(s, line_level) if line_level else []
            if method == "anneal" and line_level:
                first = net.mode.copy()
                best = first
                for i in range(ANNEAL_RESTARTS):
                    s.span = (0.3 * (i + 1) / (ANNEAL_RESTARTS + 1), 0.3 * (i + 2) / (ANNEAL_RESTARTS + 1))
                    net.mode[:] = s.clued
                    greedy(s, True)
                    if np.count_nonzero(net.mode) < np.count_nonzero(best):
                        best = net.mode.copy()
                net.mode[:] = best
                s.span = (0.3, 0.9)
                moves = anneal_moves if anneal_moves is not None else \
                    min(ANNEAL_MOVES_PER_LINE * int(np.count_nonzero(s.clued)), ANNEAL_MAX_MOVES)
                anneal(s, moves)
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
    except (Stop, RunTimeout) as why:
        # the mask is a solved one between trials or moves: its hidden lines are the hides
        stopped = str(why)
        hides = [int(x) for x in np.flatnonzero((net.mode == 0) & (s.clued > 0))]
    gnet = replace(net, mode=s.clued.copy())
    grader = Grader(gnet, techniques(base), run.cache)
    message = ""
    steer: dict = {}
    if target is None or stopped:
        mask = s.clued.copy()
        mask[np.asarray(hides, dtype=np.int64)] = 0
        if target is not None:  # stopped: only the bisection (no steering, no final pass)
            mask = fit(s, grader, hides, target, check=False)[0]
        score, got = grader(mask)
    else:
        s.outer = (0.6, 1.0)
        mask, score, got, in_band_minimal, steer = to_band(s, grader, hides, target, line_level, logic)
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


