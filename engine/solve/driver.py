"""The solver entry point: ``solve(puzzle, ...) -> SolveReport`` and ``compare(puzzle)``.

Methods (see docs/SOLVER.md):
- ``brute``, ``hierarchical``, ``heuristic``: the seed study's ways of applying a line solver
  (``schedulers.py``), with its metrics. Verdict ``unique`` when line solving completes (and the
  grid passes every clue), ``none`` on a contradiction, ``unknown`` when it stalls or a limit hits.
- ``learned``: a fourth scheduler of the same kind, its line priority learned from puzzles
  (``learned.py``). ``oracle`` (a benchmark reference, not offered in the add-on): the greedy
  oracle of ``oracle.py``.
- ``full``: propagation with a line-result cache, FP2 probing, then search for up to two
  solutions (``search.py``): a final verdict for every puzzle unless a limit or the progress
  callback stops it.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Callable, Optional

import numpy as np

from .. import gate
from ..gcpause import collector_held
from ..model.cells import EMPTY, FILLED, UNKNOWN
from ..model.colourpuzzle import colour_solution_text, is_colour
from .kinds import kind_for, plain_puzzle
from ..kinds.plain.plainkind import PlainSolver
from ..kinds.plain.propagate import (CHUNK_GROWTH, DEFAULT_CACHE_SLOTS, DEFAULT_SEED_BUDGET, LINESOLVERS, LS_DP, S_BAD,
                                     S_CACHE_HITS, S_CACHE_LOOKUPS, S_CHECKS, S_EDGES, S_LINESOLVERS, S_PREPASS, S_PROBES,
                                     S_TLEN, S_TOO_LARGE, build_net, check_all, first_chunk, new_work, prepass_lines,
                                     budget_arg)
from ..model.puzzle import Puzzle
from ..kinds.plain.learned import learned, load_weights, new_learned_queue
from ..kinds.plain.oracle import greedy_oracle, new_oracle_queue
from ..kinds.plain.schedulers import (ST_CONTRADICTION, ST_PAUSED, ST_SOLVED, ST_STOPPED, brute_force,
                                      heuristic, hierarchical, new_control, new_fifo, new_heuristic_queue)
from .search import Limits, run_full
# COMPARE_CONFIGS: the add-on's Compare Solvers reads it here, beside ``compare``
from .methods import COMPARE_CONFIGS, COUNTINGS, METHODS, REFERENCE_METHODS, SEED_CONFIGS  # noqa: F401


@dataclass
class SolveReport:
    """What a solve found, for every puzzle kind. ``state`` holds what logic deduced (the
    engine's int8 cell codes: EMPTY, FILLED — for a colour puzzle, some colour —, UNKNOWN where
    the method could not decide); ``solutions`` the solution(s): bool arrays for a plain puzzle,
    values (0 empty, 1..k) for a colour puzzle, whose ``values`` gives per cell its value where
    known (-1 elsewhere)."""
    verdict: str
    difficulty: Optional[str]
    linesolvers: int
    bad_guesses: int
    bad_guess_rate: float
    known_fraction: float
    time_s: float
    state: np.ndarray
    solutions: list
    differing_cells: np.ndarray
    order: np.ndarray
    method: str
    options: dict
    stats: dict = field(default_factory=dict)
    score: Optional[float] = None   # difficulty score (``difficulty.py``), when graded and logic solves it
    band: Optional[str] = None
    kind: str = "plain"             # "plain" or "colour": the puzzle asked about
    colours: int = 1                # its puzzle colours
    values: Optional[np.ndarray] = None  # colour puzzles: per cell 0..k where known, -1 elsewhere

    @property
    def is_colour(self) -> bool:
        return self.kind == "colour"

    @property
    def solution(self):
        """The first solution (bool array), or None."""
        return self.solutions[0] if self.solutions else None

    @property
    def unknown_mask(self) -> np.ndarray:
        return self.state == UNKNOWN

    # The seed study calls a line solve that deduced nothing a "bad guess"; no guessing is
    # involved, so what users see says "idle line solves". The stored names stay for old files.
    @property
    def idle_line_solves(self) -> int:
        return self.bad_guesses

    @property
    def idle_rate(self) -> float:
        return self.bad_guess_rate

    def to_dict(self) -> dict:
        """JSON-ready summary; solutions as strings in the puzzle file's cell order (0/1; a colour
        puzzle's one character per cell, as its file writes them)."""
        text = colour_solution_text if self.is_colour else _bits
        d = {
            "verdict": self.verdict, "difficulty": self.difficulty, "method": self.method,
            "linesolvers": self.linesolvers, "bad_guesses": self.bad_guesses,
            "bad_guess_rate": self.bad_guess_rate, "idle_line_solves": self.bad_guesses,
            "idle_rate": self.bad_guess_rate, "known_fraction": self.known_fraction,
            "time_s": self.time_s,
            "solution": text(self.solutions[0]) if len(self.solutions) == 1 else None,
            "solutions": [text(s) for s in self.solutions],
            "differing_cells": [int(c) for c in self.differing_cells],
            "options": dict(self.options), "stats": dict(self.stats),
            "score": self.score, "band": self.band, "kind": self.kind, "colours": self.colours,
            "colour": self.is_colour,
        }
        return d


def _bits(sol) -> str:
    return "".join("1" if v else "0" for v in np.asarray(sol, dtype=bool))


def _ls_id(linesolver: str) -> int:
    try:
        return LINESOLVERS[linesolver]
    except KeyError:
        raise ValueError(f"unknown linesolver {linesolver!r} (choose from {', '.join(LINESOLVERS)})")


@collector_held()  # a full collection of a large process could hold up the limits' checks
def solve(puzzle, *, method: str = "full", prepass: bool = False, linesolver: str = "dp",
          max_iterations: int = 100, time_limit: Optional[float] = None,
          step_limit: Optional[int] = None, progress: Optional[Callable] = None,
          seed_exit: bool = False, cache: bool = True,
          seed_budget: int = DEFAULT_SEED_BUDGET, use_known: bool = True, want: int = 2,
          sat: bool = True, grade: bool = False, counting: str = "strict",
          sat_after: Optional[int] = None, node_limit: Optional[int] = None,
          probing: bool = True) -> SolveReport:
    """Solve ``puzzle`` (plain or colour: ``kinds.py``) with ``method``; see the module docstring
    and docs/SOLVER.md. A colour puzzle takes the full method with the complete line solvers (a
    1-colour puzzle is its plain puzzle and takes any).

    ``step_limit`` bounds line-solver applications (including probes and consistency checks);
    ``time_limit`` (seconds) and ``progress`` (returning True) stop every method between chunks
    of work with verdict ``unknown``. ``cache`` toggles the line-result cache of ``full``.
    ``use_known``: when the puzzle carries its solution (``puzzle.solution``, e.g. the voxel grid
    a 3D puzzle was made from) and it satisfies every clue, ``full`` guesses its values first:
    the verdict is the same, found far sooner on puzzles with several solutions.
    ``want=1`` (``full`` only): stop at the first solution, verdict ``solved`` (or ``none``),
    instead of searching for a second one to settle uniqueness. ``sat``: let ``full``'s search
    hand over to a CDCL solver when it wanders (python-sat, if installed; ``engine/kinds/plain/sat.py``).
    ``grade``: give a puzzle that logic solves its difficulty ``score`` and ``band``
    (``difficulty.py``; one more logical solve).
    ``counting``: ``"seed"`` runs brute force and the hierarchical solver as the seed counted
    them (every line every sweep; a plain FIFO), see ``schedulers.py``; same deductions.
    ``sat_after``: the full method's search's line solves before the CDCL solver takes turns with
    it (default ``search.sat_after_steps``; 0: the CDCL solver alone after the logic);
    ``node_limit``: the search's guesses, then the CDCL solver alone (without it: ``unknown``).
    ``probing`` False: ``full`` skips probing at the root (logic is then line solving alone).
    """
    if want not in (1, 2):
        raise ValueError(f"want must be 1 (first solution) or 2 (uniqueness), not {want!r}")
    original = puzzle
    puzzle = plain_puzzle(puzzle)  # a 1-colour puzzle is its plain puzzle
    colour = is_colour(puzzle)
    if method not in METHODS + REFERENCE_METHODS:
        raise ValueError(f"unknown method {method!r} (choose from {', '.join(METHODS + REFERENCE_METHODS)})")
    if colour and (method != "full" or linesolver != "dp" or prepass):
        raise ValueError("a colour puzzle is solved by the full method with the complete line solvers "
                         "(the seed study's schedulers, pre-pass and line solver are for plain puzzles)")
    ls_id = _ls_id(linesolver)
    if counting not in COUNTINGS:
        raise ValueError(f"unknown counting {counting!r} (choose from {', '.join(COUNTINGS)})")
    options = {"prepass": bool(prepass), "linesolver": linesolver, "max_iterations": int(max_iterations),
               "time_limit": time_limit, "step_limit": step_limit, "seed_exit": bool(seed_exit),
               "cache": bool(cache), "use_known": bool(use_known), "want": int(want),
               "sat": bool(sat), "counting": counting}
    # compile (or load) the kernels first: neither time_s nor time_limit counts it
    parts = ("colour",) if colour else gate.parts_for(method, linesolver, bool(grade))
    compile_s = gate.prepare(parts, progress)
    if compile_s is None:
        return _kind_report(original, _cancelled_report(puzzle, method, options, time.perf_counter()))
    t0 = time.perf_counter()
    n = puzzle.n_cells
    if method == "full":
        limits = Limits(t0, n, time_limit, step_limit, progress)
        if progress is not None:
            limits.last_call = time.perf_counter()
            if progress(0.0, "propagating"):
                limits.cancelled = True
                return _kind_report(original, _cancelled_report(puzzle, method, options, t0, compile_s))
        if colour:
            # imported on first need, as in ``kinds.kind_for``
            from ..kinds.colour.colourkind import ColourSolver
            S = ColourSolver(puzzle, known=puzzle.colour_solution if use_known else None, cache=cache)
        else:
            S = PlainSolver(build_net(puzzle), ls_id, budget_arg(ls_id, seed_budget), cache, DEFAULT_CACHE_SLOTS,
                            known=puzzle.solution if use_known else None)
        res = run_full(S, limits, want=want, use_sat=sat, sat_after=sat_after, node_limit=node_limit,
                       probing=probing, later=() if colour else gate.later_parts(method))
        # the kernels the run loaded on the way are compile time too (``t_start`` moved past them)
        t0 = limits.t_start
        compile_s += res.compile_s
        sols = res.solutions
        differing = (np.flatnonzero(sols[0] != sols[1]) if len(sols) == 2 else np.zeros(0, np.int64))
        stats = S.stats()
        stats.update(nodes=res.nodes, max_depth=res.max_depth, probe_fixed=res.probe_fixed,
                     quick_nodes=res.quick_nodes, restarts=res.restarts, known_solution=res.known_used,
                     sat_conflicts=res.sat_conflicts,
                     cancelled=res.cancelled, compile_s=compile_s)
        ls, bad = S.counts()
        report = _report(res.verdict, res.difficulty, ls, bad, res.state, list(sols), differing, res.order, method,
                         options, t0, stats)
        if colour:
            report.values = _values(S, report)
        return _kind_report(original, _graded(puzzle, grade, report))
    net = build_net(puzzle)
    budget = budget_arg(ls_id, seed_budget)
    # the seed's schedulers
    t_call = time.perf_counter()  # progress is called about every 0.05 s from here on
    if progress is not None and progress(0.0, "line solving"):
        report = _cancelled_report(puzzle, method, options, t0, compile_s)
        report.stats["stopped"] = True
        return _kind_report(original, report)
    w = new_work(net)
    step = int(step_limit) if step_limit else 0
    # the kernels check step_limit themselves (exactly); Limits checks time and progress
    limits = None
    if time_limit is not None or progress is not None:
        limits = Limits(t0, n, time_limit, None, progress, last_call=t_call)
    status = _run_scheduler(method, bool(prepass), ls_id, budget, int(max_iterations), step,
                            bool(seed_exit), counting == "seed", n, net, w, limits)
    verdict, difficulty, sols = "unknown", None, []
    if status == ST_CONTRADICTION:
        verdict, difficulty = "none", "line"
    elif status == ST_SOLVED:
        if check_all(LS_DP, budget, net, w):
            verdict, difficulty, sols = "unique", "line", [w.state == FILLED]
        else:
            verdict, difficulty = "none", "line"
    if want == 1 and verdict == "unique":
        verdict = "solved"
    stats = _stats(w)
    stats["stopped"] = status == ST_STOPPED or status == ST_PAUSED
    stats["cancelled"] = limits is not None and limits.cancelled
    stats["compile_s"] = compile_s
    if progress is not None and not limits.cancelled:
        progress(float(np.count_nonzero(w.state != UNKNOWN)) / max(n, 1), "done")
    report = _report(verdict, difficulty, int(w.stats[S_LINESOLVERS]), int(w.stats[S_BAD]), w.state.copy(), sols,
                     np.zeros(0, np.int64), w.trail[:w.stats[S_TLEN]].copy(), method, options, t0, stats)
    return _kind_report(original, _graded(puzzle, grade, report))


def _graded(puzzle, grade, report):
    """The report with the difficulty score of a puzzle logic solved (when asked): the kind's
    synchronous round solve (``difficulty.from_rounds``, one score for every kind)."""
    if grade and report.verdict in ("unique", "solved") and report.difficulty in ("line", "probe"):
        d = kind_for(puzzle).grade(report.difficulty == "probe")
        report.score, report.band = d.score, d.band
    return report


def _values(S, report):
    """Per cell of a colour puzzle what logic decided of its value (0 empty, 1..k), -1 where it did
    not: the cells of ``state`` with their colours."""
    from ..kinds.colour.colourprop import values_of
    return values_of(S.reported)


def _kind_report(original, report):
    """The report in the terms of the puzzle asked about: a 1-colour puzzle's solutions as values
    (0 empty, 1 colour 1), like every colour puzzle's."""
    if is_colour(original):
        report.kind = "colour"
        report.colours = int(original.k)
        if original.k == 1:
            report.solutions = [np.asarray(sol, np.uint8) for sol in report.solutions]
            vals = np.full(len(report.state), -1, np.int64)
            vals[report.state == EMPTY] = 0
            vals[report.state == FILLED] = 1
            report.values = vals
    return report


# Line-solver applications in the first chunk of a seed scheduler run with limits: few, as one
# application can cost from 0.1 us to ~20 ms (the seed linesolver near its budget); later chunks
# are sized from the measured time per application (growing at most 16-fold per chunk, to at
# most CHUNK_GROWTH times the first chunk ``propagate.first_chunk`` gives the puzzle).
SEED_CHUNK = 4
_PREPASS_DONE = -1  # the pre-pass's status once it has been over every line
_ALL = 1 << 62  # max_steps of a run in one call


def _run_scheduler(method, prepass, ls_id, budget, max_iterations, step, seed_exit, seed_count, n,
                   net, w, limits):
    """Run the pre-pass (if asked) and a seed scheduler in chunks; between chunks check
    ``limits`` (time, progress). Returns the kernel's final status, or ST_PAUSED when a limit or
    the callback stopped the run. Without ``limits`` (no time limit, no callback) each runs in
    one call."""
    chunk = min(SEED_CHUNK, first_chunk(net))
    cap = CHUNK_GROWTH * first_chunk(net)
    if prepass:
        n_lines = len(net.clue_kind)
        at = [0]

        def pre(k):
            a = at[0]
            at[0] = b = min(a + k, n_lines)
            if not prepass_lines(ls_id, budget, net, w, a, b):
                return ST_CONTRADICTION
            return ST_PAUSED if b < n_lines else _PREPASS_DONE
        status, chunk = _in_chunks(pre, chunk, cap, w, limits)
        if status != _PREPASS_DONE:
            return status
    ctl = new_control()
    if method == "brute":
        if limits is None:  # one call, no closure: a tiny puzzle pays nothing for chunking
            return brute_force(ls_id, budget, max_iterations, step, seed_count, n, _ALL, net, w, ctl)

        def run(k):
            return brute_force(ls_id, budget, max_iterations, step, seed_count, n, k, net, w, ctl)
    elif method in ("learned", "oracle"):
        if method == "learned":
            hp, lq, score = new_learned_queue(len(net.clue_kind))
            wts = load_weights(prepass)

            def run(k):
                return learned(ls_id, budget, step, n, k, net, w, ctl, hp, lq, score, wts)
        else:
            oq = new_oracle_queue(len(net.clue_kind))

            def run(k):
                return greedy_oracle(ls_id, budget, step, n, k, net, w, ctl, oq)
        if limits is None:
            return run(_ALL)
    elif method == "hierarchical":
        fifo = new_fifo(net) if seed_count else np.zeros(1, np.int64)
        if limits is None:
            return hierarchical(ls_id, budget, step, seed_count, n, _ALL, net, w, ctl, fifo)

        def run(k):
            return hierarchical(ls_id, budget, step, seed_count, n, k, net, w, ctl, fifo)
    else:
        hq = new_heuristic_queue(len(net.clue_kind))
        if limits is None:
            return heuristic(ls_id, budget, step, seed_exit, n, _ALL, net, w, ctl, hq)

        def run(k):
            return heuristic(ls_id, budget, step, seed_exit, n, k, net, w, ctl, hq)
    return _in_chunks(run, chunk, cap, w, limits)[0]


def _in_chunks(run, chunk, cap, w, limits):
    """Call ``run(max_steps)`` until it returns something else than ST_PAUSED, checking
    ``limits`` in between and sizing each chunk from the measured time per step to ~1/4 of the
    progress interval, as the full method does. Returns (status, chunk size reached), status
    ST_PAUSED when a limit or the callback stopped it."""
    if limits is None:
        return run(_ALL), chunk
    target = limits.interval / 4
    while True:
        t = time.perf_counter()
        status = run(chunk)
        if status != ST_PAUSED:
            return status, chunk
        dt = time.perf_counter() - t
        chunk = max(1, min(int(chunk * target / max(dt, 1e-6)), 16 * chunk, cap))
        if limits.stop_at(int(w.stats[S_LINESOLVERS] + w.stats[S_CHECKS]), int(w.stats[S_TLEN]), "line solving"):
            return ST_PAUSED, chunk


def _stats(w) -> dict:
    s = w.stats
    return {"checks": int(s[S_CHECKS]), "prepass_lines": int(s[S_PREPASS]), "too_large": int(s[S_TOO_LARGE]),
            "probes": int(s[S_PROBES]), "relations": int(s[S_EDGES]),
            "cache_hits": int(s[S_CACHE_HITS]), "cache_lookups": int(s[S_CACHE_LOOKUPS])}


def _report(verdict, difficulty, ls, bad, state, sols, differing, order, method, options, t0, stats):
    n = len(state)
    return SolveReport(verdict, difficulty, ls, bad, (bad / ls) if ls else 0.0,
                       float(np.count_nonzero(state != UNKNOWN)) / max(n, 1),
                       time.perf_counter() - t0, state, sols, np.asarray(differing, np.int64),
                       np.asarray(order, np.int64), method, options, stats)


def _cancelled_report(puzzle, method, options, t0, compile_s=0.0):
    n = puzzle.n_cells
    return SolveReport("unknown", None, 0, 0, 0.0, 0.0, time.perf_counter() - t0,
                       np.full(n, UNKNOWN, np.int8), [], np.zeros(0, np.int64), np.zeros(0, np.int64),
                       method, options, {"cancelled": True, "compile_s": compile_s})


def compare(puzzle: Puzzle, linesolver: str = "dp", configs=SEED_CONFIGS, **kwargs) -> list:
    """The seed's five configurations (Table 5: Brute, Hier, Hier+Pre, Heur, Heur+Pre), or the
    ``configs`` given (``COMPARE_CONFIGS`` adds the learned scheduler), on one puzzle: a list of
    dicts with ``config``, ``linesolvers``, ``bad_guesses``, ``bad_guess_rate``,
    ``known_fraction``, ``verdict``, ``time_s``."""
    rows = []
    for label, method, pre in configs:
        r = solve(puzzle, method=method, prepass=pre, linesolver=linesolver, **kwargs)
        rows.append({"config": label, "method": method, "prepass": pre, "linesolvers": r.linesolvers,
                     "bad_guesses": r.bad_guesses, "bad_guess_rate": r.bad_guess_rate,
                     "known_fraction": r.known_fraction, "verdict": r.verdict, "time_s": r.time_s})
    return rows
