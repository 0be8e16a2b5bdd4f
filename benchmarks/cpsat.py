"""A general-purpose reference solver: any engine ``Puzzle`` to a uniqueness verdict with OR-tools CP-SAT.

Model: one Boolean variable per cell, one ``AddAutomaton`` constraint per clued line.
- exact block list (2D, and the 3D *plain* clue = one block of ``total``): the usual DFA over the
  token string ``1^b1 0 1^b2 0 ... 1^bk`` with a 0-loop before, between and after the blocks;
- 3D *circle* / *square*: a linear constraint ``sum(line) == total`` plus a DFA whose states are
  (blocks started so far, capped at 3) x (inside a block or not); it accepts 2 blocks (circle) or
  3+ blocks (square). ``mode="count"`` instead folds the filled count into the DFA states
  ((blocks capped at 3) x (filled so far) x (inside a block)), with no separate sum.
Lines with no clue (KIND_NONE) add nothing.

Uniqueness takes two solves of the same model: find one solution; then forbid it (a clause saying that
at least one cell differs) and solve again. Both run single-threaded (``num_workers=1`` by default)
under one shared time limit.

Verdicts: ``unique`` (one solution, the second solve proved there is no other), ``multiple`` (two
distinct solutions found), ``none`` (no solution), ``unknown`` (the time limit ran out first).

This module needs ``ortools``; the add-on never imports it.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import List, Optional

import numpy as np

try:  # the engine package, whether benchmarks/ is run from the repo root or imported as a package
    from engine.model.puzzle import (KIND_BLOCKS, KIND_CIRCLE, KIND_NONE, KIND_PLAIN, Puzzle)
except ImportError:  # pragma: no cover
    import os
    import sys
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    from engine.model.puzzle import (KIND_BLOCKS, KIND_CIRCLE, KIND_NONE, KIND_PLAIN, Puzzle)

try:
    from ortools.sat.python import cp_model
    HAVE_ORTOOLS = True
    ORTOOLS_IMPORT_ERROR = ""
except Exception as exc:  # pragma: no cover - exercised only without ortools
    cp_model = None
    HAVE_ORTOOLS = False
    ORTOOLS_IMPORT_ERROR = f"{type(exc).__name__}: {exc}"


def ortools_version() -> str:
    if not HAVE_ORTOOLS:
        return "not installed"
    import ortools
    return getattr(ortools, "__version__", "?")


# ---------------------------------------------------------------------------------------------
# automata (pure Python, testable without ortools)


def blocks_dfa(blocks):
    """(start, finals, transitions) of the DFA accepting exactly the 0/1 lines with these blocks.

    States 0..n where n = len(token string ``1^b1 0 1^b2 ... 1^bk``): state i = i tokens read.
    A 0 may repeat before the first block (state 0), after a separating 0 (gap longer than one)
    and after the last block (state n).
    """
    tokens: List[int] = []
    for j, b in enumerate(int(v) for v in blocks if int(v) > 0):
        if j:
            tokens.append(0)
        tokens.extend([1] * b)
    n = len(tokens)
    trans = []
    for i in range(n + 1):
        loop0 = i == 0 or i == n or tokens[i - 1] == 0
        if loop0:
            trans.append((i, 0, i))
        if i < n:
            if tokens[i] == 1:
                trans.append((i, 1, i + 1))
            elif not loop0:  # tokens[i] == 0 and the previous token was 1: the mandatory gap
                trans.append((i, 0, i + 1))
    return 0, [n], trans


def _state_id(c, inside):
    return c * 2 + inside


def blockcount_dfa(min_blocks, max_blocks=None):
    """DFA over (blocks started so far, capped at 3) x (inside a block) accepting lines whose number
    of blocks is in [min_blocks, max_blocks] (max None = unbounded; min_blocks <= 3)."""
    trans = []
    for c in range(4):
        for inside in (0, 1):
            s = _state_id(c, inside)
            trans.append((s, 0, _state_id(c, 0)))
            if inside:
                trans.append((s, 1, s))
            else:
                c2 = min(c + 1, 3)
                trans.append((s, 1, _state_id(c2, 1)))
    finals = []
    for c in range(4):
        ok = c >= min_blocks and (max_blocks is None or c <= max_blocks)
        if c == 3 and max_blocks is not None and max_blocks < 3:
            ok = False
        if ok:
            finals += [_state_id(c, 0), _state_id(c, 1)]
    return _state_id(0, 0), finals, trans


def countblocks_dfa(total, min_blocks, max_blocks=None):
    """DFA over (blocks capped at 3, filled so far <= total, inside): total filled and the block count
    in range, with no separate sum constraint."""
    def sid(c, f, inside):
        return (c * (total + 1) + f) * 2 + inside
    trans = []
    for c in range(4):
        for f in range(total + 1):
            for inside in (0, 1):
                s = sid(c, f, inside)
                trans.append((s, 0, sid(c, f, 0)))
                if f < total:
                    c2 = c if inside else min(c + 1, 3)
                    trans.append((s, 1, sid(c2, f + 1, 1)))
    finals = []
    for c in range(4):
        ok = c >= min_blocks and (max_blocks is None or c <= max_blocks)
        if ok:
            finals += [sid(c, total, 0), sid(c, total, 1)]
    return sid(0, 0, 0), finals, trans


def dfa_accepts(dfa, values) -> bool:
    """Run a DFA (start, finals, transitions) on a 0/1 sequence."""
    start, finals, trans = dfa
    table = {(s, v): t for s, v, t in trans}
    s = start
    for v in values:
        key = (s, int(v))
        if key not in table:
            return False
        s = table[key]
    return s in set(finals)


# ---------------------------------------------------------------------------------------------
# the model


@dataclass
class CpsatResult:
    verdict: str                      # unique / multiple / none / unknown
    solutions: list = field(default_factory=list)   # bool (n_cells,) arrays, 0-2
    time_s: float = 0.0               # wall time including model building
    build_s: float = 0.0
    solve_s: List[float] = field(default_factory=list)  # wall time of each solve
    status: List[str] = field(default_factory=list)      # CP-SAT status names of each solve
    n_automata: int = 0
    options: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        return {"verdict": self.verdict, "time_s": self.time_s, "build_s": self.build_s,
                "solve_s": list(self.solve_s), "status": list(self.status),
                "n_solutions": len(self.solutions), "n_automata": self.n_automata,
                "options": dict(self.options)}


def build_model(puzzle: Puzzle, mode: str = "cap"):
    """(model, cell variables, number of automaton constraints) for a puzzle."""
    if not HAVE_ORTOOLS:
        raise RuntimeError(f"ortools is not installed ({ORTOOLS_IMPORT_ERROR})")
    if mode not in ("cap", "count"):
        raise ValueError(f"mode must be 'cap' or 'count', got {mode!r}")
    m = cp_model.CpModel()
    x = [m.NewBoolVar(f"c{i}") for i in range(puzzle.n_cells)]
    cache = {}
    n_auto = 0
    ls, lc, ck = puzzle.line_start, puzzle.line_cells, puzzle.clue_kind
    for li in range(puzzle.n_lines):
        kind = int(ck[li])
        if kind == KIND_NONE:
            continue
        cells = lc[ls[li]:ls[li + 1]]
        vars_ = [x[int(c)] for c in cells]
        nums = tuple(int(v) for v in puzzle.clue_numbers(li))
        if kind == KIND_BLOCKS or kind == KIND_PLAIN:
            blocks = nums if kind == KIND_BLOCKS else ((nums[0],) if nums[0] > 0 else ())
            if not blocks:  # an empty line: fix the cells, no automaton needed
                for v in vars_:
                    m.Add(v == 0)
                continue
            key = ("b", blocks)
            if key not in cache:
                cache[key] = blocks_dfa(blocks)
        else:
            total = nums[0]
            lo, hi = (2, 2) if kind == KIND_CIRCLE else (3, None)
            if mode == "cap":
                m.Add(sum(vars_) == total)
                key = ("c", lo, hi)
                if key not in cache:
                    cache[key] = blockcount_dfa(lo, hi)
            else:
                key = ("n", total, lo, hi)
                if key not in cache:
                    cache[key] = countblocks_dfa(total, lo, hi)
        start, finals, trans = cache[key]
        m.AddAutomaton(vars_, start, finals, trans)
        n_auto += 1
    return m, x, n_auto


_STATUS = {}


def _status_name(solver, st) -> str:
    try:
        return solver.StatusName(st)
    except Exception:  # pragma: no cover
        return str(st)


def cpsat_solve(puzzle: Puzzle, time_limit: Optional[float] = 60.0, workers: int = 1,
                mode: str = "cap", seed: int = 0) -> CpsatResult:
    """Solve to a uniqueness verdict: one solve, then the same model with the first solution forbidden."""
    t0 = time.perf_counter()
    m, x, n_auto = build_model(puzzle, mode)
    build_s = time.perf_counter() - t0
    opts = {"time_limit": time_limit, "workers": workers, "mode": mode, "seed": seed}
    res = CpsatResult(verdict="unknown", build_s=build_s, n_automata=n_auto, options=opts)

    def run():
        solver = cp_model.CpSolver()
        solver.parameters.num_workers = int(workers)
        solver.parameters.random_seed = int(seed)
        if time_limit is not None:
            left = max(0.01, time_limit - (time.perf_counter() - t0))
            solver.parameters.max_time_in_seconds = float(left)
        ts = time.perf_counter()
        st = solver.Solve(m)
        res.solve_s.append(time.perf_counter() - ts)
        res.status.append(_status_name(solver, st))
        sol = None
        if st in (cp_model.OPTIMAL, cp_model.FEASIBLE):
            sol = np.array([solver.BooleanValue(v) for v in x], dtype=bool) if x else \
                np.zeros(0, dtype=bool)
        return st, sol

    st, sol = run()
    if st == cp_model.INFEASIBLE:
        res.verdict = "none"
    elif sol is not None:
        res.solutions.append(sol)
        # forbid this solution: at least one cell differs
        m.AddBoolOr([v.Not() if bool(s) else v for v, s in zip(x, sol)])
        if time_limit is not None and time.perf_counter() - t0 >= time_limit:
            res.verdict = "unknown"
        else:
            st2, sol2 = run()
            if st2 == cp_model.INFEASIBLE:
                res.verdict = "unique"
            elif sol2 is not None:
                res.solutions.append(sol2)
                res.verdict = "multiple"
            else:
                res.verdict = "unknown"
    else:
        res.verdict = "unknown"
    res.time_s = time.perf_counter() - t0
    return res


def main(argv=None) -> int:
    """``python benchmarks/cpsat.py FILE [--time-limit S] [--workers N]``: the verdict of one puzzle file."""
    import argparse
    ap = argparse.ArgumentParser(description=main.__doc__)
    ap.add_argument("file")
    ap.add_argument("--time-limit", type=float, default=60.0)
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--mode", choices=("cap", "count"), default="cap")
    a = ap.parse_args(argv)
    from engine.files.puzzlefile import load_puzzle
    p = load_puzzle(a.file)
    r = cpsat_solve(p, time_limit=a.time_limit, workers=a.workers, mode=a.mode)
    print(f"{a.file}: {r.verdict} in {r.time_s:.3f} s (build {r.build_s:.3f} s, solves "
          f"{', '.join(f'{s:.3f}' for s in r.solve_s)} s; {', '.join(r.status)})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
