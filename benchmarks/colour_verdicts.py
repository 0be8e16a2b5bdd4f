"""Colour puzzles: the engine's verdicts against CP-SAT on many random puzzles (the 500+ run of
tests/test_colour_cpsat.py and tests/test_colour_sat.py). Prints the counts per (dim, k), wrong
verdicts and total times of three paths: ``default`` (``solve_colour``: logic, search, the CDCL
solver's turns after the search's budget), ``sat`` (the SAT path forced: logic, then the CDCL
solver alone, ``sat_after=0``) and ``cnf`` (the colour CNF alone from the root, nothing known:
``coloursat.enumerate_colour``). A verdict is wrong when it differs from CP-SAT's, when a
solution breaks a clue, or when a unique solution differs from CP-SAT's.

    python -m benchmarks.colour_verdicts [N per (dim, k), default 100] [seed] [--save]
"""
from __future__ import annotations

import os
import sys
import time
from collections import Counter

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tests"))

from benchmarks.cpsat_colour import cpsat_solve_colour  # noqa: E402
from colourgen import random_colour_puzzle  # noqa: E402
from engine.model.colourpuzzle import check_colour_solution  # noqa: E402
from engine.kinds.colour.coloursat import HAVE_SAT, enumerate_colour  # noqa: E402
from engine.kinds.colour.colourprop import build_net, full_state  # noqa: E402
from engine.solve.driver import solve as solve_colour  # noqa: E402  (one solver for every kind)

PATHS = ("default", "sat", "cnf") if HAVE_SAT else ("default",)


def _run(path, p):
    """(verdict, solutions, sat conflicts or -1) of one path."""
    if path == "cnf":
        net = build_net(p)
        v, sols = enumerate_colour(net, full_state(net), p.clues(), time_limit=30)
        return v, sols, 0
    r = solve_colour(p, time_limit=30, **({"sat_after": 0} if path == "sat" else {}))
    return r.verdict, r.solutions, r.stats.get("sat_conflicts", -1)


def _wrong(p, verdict, sols, ref) -> bool:
    if verdict != ref.verdict or any(check_colour_solution(p, s) for s in sols):
        return True
    return verdict == "unique" and not np.array_equal(sols[0], ref.solutions[0])


def main(argv=None) -> int:
    argv = [a for a in (sys.argv[1:] if argv is None else argv) if a != "--save"]
    n = int(argv[0]) if argv else 100
    seed = int(argv[1]) if len(argv) > 1 else 2026
    t = time.perf_counter()
    for dim in (2, 3):  # compile (and load python-sat) outside the timing
        warm = random_colour_puzzle(np.random.default_rng(0), dim, 2)
        for path in PATHS:
            _run(path, warm)
    print(f"warm-up (compile, imports) {time.perf_counter() - t:.2f} s; paths {', '.join(PATHS)}")
    wrong = {path: 0 for path in PATHS}
    t_path = {path: 0.0 for path in PATHS}
    sat_used = {path: 0 for path in PATHS}
    total = 0
    per = []
    t_ref = 0.0
    for dim in (2, 3):
        for k in (2, 3, 4):
            rng = np.random.default_rng(seed * 100 + dim * 10 + k)
            verdicts = Counter()
            hidden = 0
            for _ in range(n):
                p = random_colour_puzzle(rng, dim, k)
                hidden += int(np.any(p.clue_kind == 0))
                t = time.perf_counter()
                ref = cpsat_solve_colour(p, time_limit=30)
                t_ref += time.perf_counter() - t
                total += 1
                verdicts[ref.verdict] += 1
                for path in PATHS:
                    t = time.perf_counter()
                    v, sols, conflicts = _run(path, p)
                    t_path[path] += time.perf_counter() - t
                    sat_used[path] += conflicts >= 0
                    if _wrong(p, v, sols, ref):
                        wrong[path] += 1
                        print(f"WRONG {path} dim={dim} k={k}: engine {v}, CP-SAT {ref.verdict}")
            print(f"{dim}D k={k}: {n} puzzles ({hidden} with hidden lines), CP-SAT verdicts {dict(verdicts)}")
            per.append({"dim": dim, "k": k, "n": n, "hidden": hidden, "verdicts": dict(verdicts)})
    for path in PATHS:
        print(f"{path:>8}: {total} puzzles, wrong verdicts {wrong[path]}, CDCL solver used on {sat_used[path]}, "
              f"{t_path[path]:.2f} s")
    print(f"  CP-SAT: {t_ref:.2f} s")
    t_engine = t_path["default"]
    if "--save" in sys.argv:
        from benchmarks.colour_bench import _save
        _save("verdicts", {"seed": seed, "total": total, "wrong": wrong["default"], "engine_s": t_engine,
                           "cpsat_s": t_ref, "per": per, "paths": {
                               path: {"wrong": wrong[path], "time_s": t_path[path], "sat_used": sat_used[path]}
                               for path in PATHS}})
    return 1 if any(wrong.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
