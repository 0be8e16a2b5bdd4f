"""Puzzle design: choose which clues to hide so that the puzzle keeps exactly one solution (the
given cells), stays solvable by logic alone, and lands at the difficulty the designer asks for.
One pipeline for every puzzle kind (plain and colour: ``solve/kinds.py``).

``design(puzzle_or_grid, ...) -> DesignResult``; the live-editing helpers (``DesignSession``,
``check_design``, ``suggest_clues``) are in ``session.py``. This module checks the input, runs the
methods below in order and checks the result; the search's own steps are ``search.py``'s
(``Search``: trials, the pass by halves, the informed start, annealing) and the steering into a
band ``band.py``'s. See docs/ENGINE_API.md for the contract and docs/SOLVER.md ("Puzzle design")
for how it works.

Every trial runs on one kind object built from the solution's full clue set, with a per-line
"clue shown" mask. Methods:

- ``random``: the baseline. Lines in a random order; each clue stays hidden when the rest still
  solves. One pass is enough (hiding is monotone), so the result is locally minimal.
- ``greedy`` (default): an informed start, then the same pass. The start shows no clue and adds,
  while line propagation leaves cells undecided, the clue of the line that changes the most
  cells right now; so every shown clue was needed when it was added, and most clues are never
  shown.
- ``anneal``: ``greedy`` and up to four restarts of it (the best kept), then simulated annealing
  with reveal-one / hide-several moves, and a final pass that makes the best state found locally
  minimal.

Logic ``probe`` adds a last pass whose trials probe when line propagation stalls (a start that
only probing solves gets only that pass). A difficulty band (or a score range) steers the same
search (``band.py``).
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Callable, Optional

import numpy as np

from .. import gate
from ..gcpause import collector_held
from ..model.clues import puzzle_from_grid
from ..model.colourpuzzle import CKIND_NONE, ColourPuzzle, check_colour_solution, colour_puzzle_from_grid, is_colour
from ..model.colourpuzzle import with_hidden as colour_with_hidden
from ..model.puzzle import KIND_NONE, Puzzle, with_hidden
from ..kinds.colour.colourprop import Deadline
from ..model.difficulty import BANDS, LOGICS, Difficulty, band_range, in_range
from ..solve.kinds import kind_for, kind_name
from .band import steer
from .search import ANNEAL_MAX_MOVES, ANNEAL_MOVES_PER_LINE, ANNEAL_RESTARTS, Search, Stop

METHODS = ("greedy", "anneal", "random")
STARTS = ("full", "current")
# Default time limit of ``anneal`` (seconds); ``greedy``/``random`` have none by default. Only
# a safety stop: the work is a budget of trials and moves, so a seed fixes the design on any
# machine; a run the limit cuts says so (``reproducible`` False).
ANNEAL_TIME_LIMIT = 120.0
# Default time limit when a band or score range is asked for (steering may anneal): a safety
# stop, as ANNEAL_TIME_LIMIT.
STEER_TIME_LIMIT = 120.0


class DesignError(ValueError):
    """Input design cannot work with: no solution, a solution breaking its clues, ..."""


@dataclass
class DesignResult:
    """A designed puzzle and how it was found (the same fields for every puzzle kind)."""
    hidden: np.ndarray            # bool per line: clue hidden
    puzzle: object                # the designed puzzle (the input's kind): hidden clues None, the solution, meta
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
    kind: str = "plain"                   # "plain" or "colour": the designed puzzle's kind
    colours: int = 1                      # puzzle colours (1: plain, or a 1-colour puzzle)

    @property
    def score(self) -> Optional[float]:
        return self.difficulty.score

    @property
    def hidden_fraction(self) -> float:
        return self.hidden_count / max(self.n_lines, 1)

    @property
    def is_colour(self) -> bool:
        """Whether the designed puzzle is a colour puzzle (of any number of colours)."""
        return is_colour(self.puzzle)

    def to_dict(self) -> dict:
        return {"hidden_count": self.hidden_count, "lines": self.n_lines,
                "hidden_fraction": round(self.hidden_fraction, 4), "score": self.score, "band": self.band,
                "target": _json_range(self.target), "in_target": self.in_target,
                "logic": self.logic, "method": self.method, "seed": self.seed, "trials": self.trials,
                "time_s": round(self.time_s, 4), "compile_s": round(self.compile_s, 4),
                "stopped_early": self.stopped_early, "reproducible": self.reproducible,
                "locally_minimal": self.locally_minimal, "message": self.message,
                "kind": self.kind, "colours": self.colours, "colour": self.is_colour,
                "difficulty": self.difficulty.to_dict(), "stats": dict(self.stats)}


def _json_range(target):
    """A score range for JSON: an open end (infinity) as None."""
    if target is None:
        return None
    return [None if math.isinf(v) else v for v in target]


# ---------------------------------------------------------------------------------------------
# input


def full_puzzle(puzzle_or_grid, time_limit=None):
    """(the puzzle with every clue of its solution, of the input's kind; hidden mask of the input
    puzzle). A colour puzzle without its solution is solved first (it must be unique)."""
    if is_colour(puzzle_or_grid):
        return _full_colour(puzzle_or_grid, time_limit)
    if isinstance(puzzle_or_grid, Puzzle):
        p = puzzle_or_grid
        if p.solution is None:
            raise DesignError("the puzzle carries no solution: design needs the grid the clues were "
                              "made from (make it from a voxel grid, or load a puzzle file with one)")
        if p.dim not in (2, 3) or p.n_cells != int(np.prod(p.shape)):
            raise DesignError(f"only 2D and 3D grid puzzles can be designed, not shape {p.shape}")
        from ..files.puzzlefile import check_solution
        _check(check_solution(p))
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


def _check(bad):
    if bad:
        more = f" and {len(bad) - 5} more" if len(bad) > 5 else ""
        raise DesignError(f"the puzzle's solution breaks its own clues ({', '.join(bad[:5])}{more})")


def _full_colour(p: ColourPuzzle, time_limit):
    if p.colour_solution is None:
        # a file without its solution (e.g. webpbn XML or Olšák .g clues): its own unique one
        from ..solve.driver import solve
        r = solve(p, time_limit=time_limit)
        if r.verdict != "unique":
            raise DesignError(f"designing needs the puzzle's solution: the file has none and the puzzle's "
                              f"verdict is {r.verdict}")
        p = colour_with_hidden(p, np.zeros(p.n_lines, bool))  # a copy
        p.colour_solution = np.asarray(r.solution).astype(np.uint8)
    _check(check_colour_solution(p))
    full = colour_puzzle_from_grid(p.colour_solution.reshape(p.grid_shape()), p.k, p.clue_colours, p.name)
    full.meta, full.colour_groups = dict(p.meta), p.colour_groups
    return full, p.clue_kind == CKIND_NONE


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
# kernels


# The kernels a design runs, per kind: its own and the solver's (the final check).
PARTS = ("solve", "design")
COLOUR_PARTS = ("colour", "colourdesign")


def parts_of(puzzle) -> tuple:
    """The warm-up parts a design of ``puzzle`` runs (``engine/warmup.py``)."""
    return COLOUR_PARTS if kind_name(puzzle) == "colour" else PARTS


def prepare(progress=None, parts=PARTS) -> float:
    """Compile (or load) the design kernels unless done: the seconds it took, which neither a
    design's ``time_s`` nor its time limit counts. ``progress(0, "preparing solver")`` first
    when there is something to compile (compiling does not poll it: Esc abandons the call)."""
    if progress is not None and not gate.ready(*parts):
        progress(0.0, "preparing solver")
    return gate.ensure(*parts)


# ---------------------------------------------------------------------------------------------
# entry point


@collector_held()  # (see solve)
def design(puzzle_or_grid, *, logic: str = "line", band: Optional[str] = None,
           score_range: Optional[tuple] = None, method: str = "greedy", seed: int = 0,
           time_limit: Optional[float] = None, progress: Optional[Callable] = None,
           start: str = "full", anneal_moves: Optional[int] = None) -> DesignResult:
    """Hide clues of a puzzle (plain or colour; or of the full clue set of a voxel grid) while it
    keeps exactly one solution and stays solvable at ``logic`` ("line" or "probe").

    ``band`` (easy/medium/hard/expert) or ``score_range`` (lo, hi) target a difficulty;
    ``method``: "greedy" (default), "anneal" (greedy, then simulated annealing) or "random" (the
    baseline order). ``seed`` fixes every random choice: same input and seed, same result on
    any machine (the work is a budget of trials and moves) unless the time limit or a cancel cut
    the run (``reproducible`` False). ``time_limit`` in seconds, a safety stop (``anneal`` and
    steering default to 120 s);
    ``progress(fraction, message) -> bool`` is called about every 0.05 s (the fraction never
    decreases) and may return True to cancel: the result then holds the best design found so
    far, with ``stopped_early``.
    ``start``: "full" designs from every clue shown; "current" keeps the clues the input puzzle
    already hides hidden (it must be solvable at ``logic``). ``anneal_moves`` overrides the
    annealing budget (default 8 moves per line, at most ANNEAL_MAX_MOVES).

    Raises DesignError on input it cannot work with (no solution, a solution that breaks its
    clues, an empty grid, a current start that logic cannot solve)."""
    compile_s = prepare(progress, parts_of(puzzle_or_grid))
    target, full, input_hidden, time_limit = _inputs(puzzle_or_grid, logic, band, score_range, method, start,
                                                     time_limit)
    s = Search(kind_for(full), logic, int(seed), time_limit, progress)
    s.compile_s = compile_s
    enabled, stopped, minimal = _hide(s, logic, input_hidden, method, start, target, anneal_moves)
    result = _result(s, full, enabled, logic, method, seed, target, stopped, minimal)
    if stopped is None:
        s.finish()
    return result


def _inputs(puzzle_or_grid, logic, band, score_range, method, start, time_limit):
    """design()'s arguments checked: (target, full puzzle, input's hidden mask, time limit)."""
    if logic not in LOGICS:
        raise ValueError(f"unknown logic level {logic!r} (choose from {', '.join(LOGICS)})")
    if method not in METHODS:
        raise ValueError(f"unknown design method {method!r} (choose from {', '.join(METHODS)})")
    if start not in STARTS:
        raise ValueError(f"unknown start {start!r} (choose from {', '.join(STARTS)})")
    target = _target(band, score_range)
    if time_limit is None and method == "anneal":
        time_limit = ANNEAL_TIME_LIMIT
    if time_limit is None and target is not None:
        time_limit = STEER_TIME_LIMIT
    full, input_hidden = full_puzzle(puzzle_or_grid, time_limit)
    if not np.asarray(full.solution).any():
        raise DesignError("the grid has no filled voxel: there is nothing to design")
    return target, full, input_hidden, time_limit


def _hide(s: Search, logic, input_hidden, method, start, target, anneal_moves):
    """The search of design(), on the kind's kernels alone: (shown mask, why it stopped early or
    None, locally minimal)."""
    n = s.n_lines
    enabled = np.ones(n, np.uint8)
    if start == "current":
        enabled[input_hidden] = 0
    try:
        solvable = s.solves(enabled)
    except Deadline:
        raise DesignError(f"the time limit passed before the puzzle with "
                          f"{'all its' if start == 'full' else 'its current'} clues was solved") from None
    if not solvable:
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
            enabled, minimal = _greedy_and_anneal(s, enabled, method, start, target, anneal_moves, end)
        if target is not None:
            s.stage("steering", end, 1.0)
            enabled, minimal = steer(s, enabled, target, minimal, method == "anneal", anneal_moves)
    except (Stop, Deadline) as why:
        stopped = str(why) or "time limit"
        minimal = False
        enabled = s.current
    return enabled, stopped, minimal


def _greedy_and_anneal(s: Search, enabled, method, start, target, anneal_moves, end):
    """``greedy`` and ``anneal`` from a mask line propagation solves: (mask, locally minimal)."""
    n = s.n_lines
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
            # restarts of the informed start break its ties differently: keep the best. Always
            # the same number (a design is reproducible by its seed); the time limit only cuts
            # them as a safety stop, and the result says so
            for i in range(ANNEAL_RESTARTS):
                s.stage("restarting", b[2] + (b[3] - b[2]) * i / ANNEAL_RESTARTS,
                        b[2] + (b[3] - b[2]) * (i + 1) / ANNEAL_RESTARTS)
                try:
                    s.check(reserve=s.reserve)
                    other = s.informed_start()
                    s.prune(other, s.rng.permutation(n), False)
                except Stop as why:
                    if str(why) != "time limit":
                        raise
                    s.cut = f"restarts cut by the time limit after {i} of {ANNEAL_RESTARTS}"
                    break
                if other.sum() < enabled.sum():
                    enabled = other
                s.current = enabled
        if target is None and not s.cut:  # (with a target, steering anneals towards it)
            s.stage("annealing", b[3], b[4])
            moves = anneal_moves if anneal_moves is not None else min(ANNEAL_MOVES_PER_LINE * n, ANNEAL_MAX_MOVES)
            enabled = s.anneal(enabled, moves)
        if target is None:
            s.stage("hiding", b[4], b[5])
            minimal = s.prune(enabled, s.rng.permutation(n), False)
    if s.probe:
        s.stage("probing", b[5], end)
        minimal = s.prune(enabled, s.rng.permutation(n), True)
    return enabled, minimal


def search_masks(puzzle_or_grid, *, logic: str = "line", band: Optional[str] = None, method: str = "greedy",
                 start: str = "full", time_limit: Optional[float] = None,
                 anneal_moves: Optional[int] = None) -> np.ndarray:
    """design()'s search and grading without compiling ahead and without the solver's final
    check: the shown-clue mask (1 = shown). For compiling the design's own kernels in a process
    that leaves the solver's kernels to another (``warmup.py``'s "masks" part)."""
    target, full, input_hidden, time_limit = _inputs(puzzle_or_grid, logic, band, None, method, start,
                                                     time_limit)
    s = Search(kind_for(full), logic, 0, time_limit, None)
    enabled, _stopped, _minimal = _hide(s, logic, input_hidden, method, start, target, anneal_moves)
    s.grade(enabled.astype(np.uint8))  # as _result grades it
    return enabled


def designed_puzzle(full, hidden):
    """The full puzzle with the ``hidden`` clues removed, in its own kind."""
    if is_colour(full):
        return colour_with_hidden(full, hidden)
    return with_hidden(full, hidden)


def _result(s: Search, full, enabled, logic, method, seed, target, stopped, minimal) -> DesignResult:
    from ..solve.driver import solve
    hidden = enabled == 0
    diff = s.grade(enabled.astype(np.uint8))
    puzzle = designed_puzzle(full, hidden)
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
        msg += ("; not locally minimal within the band (it is short of it): no shown clue can go "
                "while it stays solvable without moving the score away from the band")
    for note in (s.stats.pop("budget_note", ""), s.cut, f"stopped early ({stopped})" if stopped else ""):
        if note:
            msg = (msg + "; " if msg else "") + note
    if s.cut or stopped:
        msg += ": this design is not reproducible by its seed alone (another machine may reach " \
               "more or less; a longer time limit lets the whole budget run)"
    K = s.K
    stats = {"free_hides": s.free + s.stats.pop("free", 0), "unsure_trials": s.unsure,
             "line_solves": K.line_solves(), "applications": K.line_solves(), "probes": K.probes(),
             "check_verdict": rep.verdict, "check_difficulty": rep.difficulty}
    stats.update(s.stats)
    t = time.perf_counter() - s.t0
    res = DesignResult(hidden, puzzle, diff, int(hidden.sum()), s.n_lines, s.trials, t,
                       stopped is not None or bool(s.cut),
                       bool(minimal and stopped is None), logic, method, int(seed), diff.band,
                       tuple(target) if target is not None else None, in_target, msg, stats,
                       s.compile_s + rep.stats.get("compile_s", 0.0), not (s.cut or stopped),
                       "colour" if is_colour(full) else "plain", int(getattr(full, "k", 1)))
    puzzle.meta = dict(full.meta)
    puzzle.meta["design"] = {k: v for k, v in res.to_dict().items() if k not in ("difficulty", "stats")}
    puzzle.meta["difficulty"] = diff.to_dict()
    return res
