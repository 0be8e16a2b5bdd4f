"""The CP-SAT reference for colour puzzles (``engine.model.colourpuzzle.ColourPuzzle``), 2D and 3D.

Model (no code in common with the engine's automata): Booleans ``b[i][v]``, cell i has value v
(0 empty, 1..k), exactly one per cell.
- 2D ordered coloured blocks: an integer start per block, ``start[j+1] >= start[j] + len[j]``
  (+1 when both blocks have the same colour); ``cover[i][j]`` reified from the start, and
  ``b[i][c] == sum of cover[i][j] over the blocks j of colour c``.
- 3D per-colour counts: ``sum b[i][c] == count``; run starts ``r[i][c] == b[i][c] and not
  b[i-1][c]``; ``sum r[.][c]`` is 1 (plain), 2 (circle) or >= 3 (square).
Uniqueness as in ``cpsat.py``: solve, forbid the solution, solve again (one shared time limit).
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Optional

import numpy as np

from engine.model.colourpuzzle import CKIND_BLOCKS, CKIND_COUNTS, MARK_CIRCLE, MARK_PLAIN, ColourPuzzle

try:
    from ortools.sat.python import cp_model
    HAVE_ORTOOLS = True
except Exception:  # pragma: no cover
    cp_model = None
    HAVE_ORTOOLS = False


@dataclass
class ColourCpsatResult:
    verdict: str
    solutions: list = field(default_factory=list)
    time_s: float = 0.0


def build_model(p: ColourPuzzle):
    m = cp_model.CpModel()
    k = p.k
    b = [[m.NewBoolVar(f"b{i}_{v}") for v in range(k + 1)] for i in range(p.n_cells)]
    for i in range(p.n_cells):
        m.AddExactlyOne(b[i])
    for li in range(p.n_lines):
        kind = int(p.clue_kind[li])
        cells = [int(c) for c in p.line(li)]
        L = len(cells)
        clue = p.clue(li)
        if kind == CKIND_COUNTS:
            for c, (n, mark) in enumerate(clue, start=1):
                col = [b[x][c] for x in cells]
                m.Add(sum(col) == n)
                if n == 0:
                    continue
                starts = []
                for i in range(L):
                    r = m.NewBoolVar("")
                    if i == 0:
                        m.Add(r == col[0])
                    else:
                        m.AddBoolAnd([col[i], col[i - 1].Not()]).OnlyEnforceIf(r)
                        m.AddBoolOr([col[i].Not(), col[i - 1], r])
                    starts.append(r)
                if mark == MARK_PLAIN:
                    m.Add(sum(starts) == 1)
                elif mark == MARK_CIRCLE:
                    m.Add(sum(starts) == 2)
                else:
                    m.Add(sum(starts) >= 3)
        elif kind == CKIND_BLOCKS:
            st = [m.NewIntVar(0, L - n, "") for n, _ in clue] if clue else []
            for j in range(len(clue) - 1):
                gap = 1 if clue[j][1] == clue[j + 1][1] else 0
                m.Add(st[j + 1] >= st[j] + clue[j][0] + gap)
            for i in range(L):
                per_colour = {c: [] for c in range(1, k + 1)}
                for j, (n, c) in enumerate(clue):
                    cov = m.NewBoolVar("")
                    before = m.NewBoolVar("")  # block j starts after cell i
                    m.Add(st[j] >= i + 1).OnlyEnforceIf(before)
                    m.Add(st[j] <= i).OnlyEnforceIf(before.Not())
                    after = m.NewBoolVar("")   # block j ends before cell i
                    m.Add(st[j] + n <= i).OnlyEnforceIf(after)
                    m.Add(st[j] + n >= i + 1).OnlyEnforceIf(after.Not())
                    m.AddBoolOr([before, after, cov])
                    m.AddImplication(cov, before.Not())
                    m.AddImplication(cov, after.Not())
                    per_colour[c].append(cov)
                for c in range(1, k + 1):
                    m.Add(b[cells[i]][c] == sum(per_colour[c]))
    return m, b


def cpsat_solve_colour(p: ColourPuzzle, time_limit: Optional[float] = 60.0, workers: int = 1):
    t0 = time.perf_counter()
    m, b = build_model(p)
    sols = []
    for _ in range(2):
        solver = cp_model.CpSolver()
        solver.parameters.num_workers = workers
        if time_limit is not None:
            solver.parameters.max_time_in_seconds = max(0.01, time_limit - (time.perf_counter() - t0))
        st = solver.Solve(m)
        if st in (cp_model.OPTIMAL, cp_model.FEASIBLE):
            sol = np.array([next(v for v in range(p.k + 1) if solver.Value(b[i][v])) for i in range(p.n_cells)])
            sols.append(sol)
            m.AddBoolOr([b[i][int(sol[i])].Not() for i in range(p.n_cells)])
            continue
        if st == cp_model.INFEASIBLE:
            break
        return ColourCpsatResult("unknown", sols, time.perf_counter() - t0)
    verdict = {0: "none", 1: "unique"}.get(len(sols), "multiple")
    return ColourCpsatResult(verdict, sols, time.perf_counter() - t0)
