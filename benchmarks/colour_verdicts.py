"""Colour puzzles: the engine's verdicts against CP-SAT on many random puzzles (the 500+ run of
tests/test_colour_cpsat.py). Prints the counts per (dim, k), wrong verdicts and total times.

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
from engine.solve.coloursolve import solve_colour  # noqa: E402


def main(argv=None) -> int:
    argv = [a for a in (sys.argv[1:] if argv is None else argv) if a != "--save"]
    n = int(argv[0]) if argv else 100
    seed = int(argv[1]) if len(argv) > 1 else 2026
    solve_colour(random_colour_puzzle(np.random.default_rng(0), 3, 2))  # compile outside the timing
    wrong, total = 0, 0
    per = []
    t_engine = t_ref = 0.0
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
                t = time.perf_counter()
                r = solve_colour(p, time_limit=30)
                t_engine += time.perf_counter() - t
                bad = r.verdict != ref.verdict or any(check_colour_solution(p, s) for s in r.solutions)
                wrong += bad
                total += 1
                verdicts[r.verdict] += 1
                if bad:
                    print(f"WRONG dim={dim} k={k}: engine {r.verdict}, CP-SAT {ref.verdict}")
            print(f"{dim}D k={k}: {n} puzzles ({hidden} with hidden lines), verdicts {dict(verdicts)}")
            per.append({"dim": dim, "k": k, "n": n, "hidden": hidden, "verdicts": dict(verdicts)})
    print(f"total {total} puzzles, wrong verdicts {wrong}; engine {t_engine:.2f} s, CP-SAT {t_ref:.2f} s")
    if "--save" in sys.argv:
        from benchmarks.colour_bench import _save
        _save("verdicts", {"seed": seed, "total": total, "wrong": wrong, "engine_s": t_engine,
                           "cpsat_s": t_ref, "per": per})
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())
