"""``python -m benchmarks.bench_linesolve [--json] [--budget N] [--repeats N]``: line solver micro-benchmark.

Times the complete DP (``linesolve.solve_line``) and the seed study's linesolver
(``linesolve_seed.seed_solve_line``) on three lines, each all-unknown and partially known:
a 25-cell exact line with 5 blocks, a 36-cell line with a square 27, a 64-cell line with a
circle 40. Figures are microseconds per call, warm (compiled before timing), best of several
repeats of many calls made from inside a compiled loop, so Python's call overhead is left out;
the DP's cost per call from Python is printed beside it for comparison.
"""
from __future__ import annotations

import argparse
import json
import sys
import time

import numpy as np

from engine.jit import HAVE_NUMBA, njit
from engine.lines.linesolve import solve_line
from engine.lines.linesolve_seed import SEED_DEFAULT_BUDGET, SEED_OK, SEED_STATUS_NAMES, SEED_TOO_LARGE, seed_solve_line
from engine.model.puzzle import KIND_BLOCKS, KIND_CIRCLE, KIND_SQUARE

UNKNOWN = np.int8(3)


@njit
def _loop_dp(state, kind, clue, out, calls):
    # The checksum keeps the calls observable so the loop cannot be optimised away.
    acc = 0
    for _ in range(calls):
        if solve_line(state, kind, clue, out):
            acc += 1
        acc += out[0]
    return acc


@njit
def _loop_seed(state, kind, clue, out, budget, calls):
    acc = 0
    for _ in range(calls):
        status, expansions = seed_solve_line(state, kind, clue, out, budget)
        acc += status + expansions + out[0]
    return acc


def _line(length, blocks, starts):
    line = np.zeros(length, bool)
    for b, s in zip(blocks, starts):
        line[s:s + b] = True
    return line


def cases():
    """(name, kind, clue, solution line): the solution is the source of the partial states."""
    return [
        ("exact25x5", KIND_BLOCKS, np.array([4, 2, 6, 1, 3], np.int64),
         _line(25, [4, 2, 6, 1, 3], [1, 7, 11, 19, 22])),
        ("square27x36", KIND_SQUARE, np.array([27], np.int64),
         _line(36, [9, 8, 10], [2, 13, 24])),
        ("circle40x64", KIND_CIRCLE, np.array([40], np.int64),
         _line(64, [22, 18], [5, 35])),
    ]


def states_for(solution, rng):
    """All-unknown, and a third of the cells revealed from the solution."""
    unknown = np.full(solution.shape[0], UNKNOWN, np.int8)
    partial = unknown.copy()
    shown = rng.random(solution.shape[0]) < 1 / 3
    partial[shown] = np.where(solution[shown], 2, 1)
    return [("unknown", unknown), ("partial", partial)]


def _best_us(run, repeats, min_seconds=0.05, max_calls=1_000_000):
    """Best µs per call over `repeats`, with calls per repeat grown until one takes min_seconds."""
    calls = 1
    while True:
        t0 = time.perf_counter()
        run(calls)
        dt = time.perf_counter() - t0
        if dt >= min_seconds or calls >= max_calls:
            break
        calls = min(max_calls, max(calls * 2, int(calls * min_seconds / max(dt, 1e-9) * 1.2)))
    best = dt / calls
    for _ in range(repeats - 1):
        t0 = time.perf_counter()
        run(calls)
        best = min(best, (time.perf_counter() - t0) / calls)
    return best * 1e6


def _known(state):
    return int(np.count_nonzero((state == 1) | (state == 2)))


def run_bench(budget=SEED_DEFAULT_BUDGET, repeats=5):
    rng = np.random.default_rng(2016)
    rows = []
    for name, kind, clue, solution in cases():
        for label, state in states_for(solution, rng):
            case = f"{name}/{label}"
            k = np.int64(kind)
            out = np.empty_like(state)
            ok = bool(solve_line(state, k, clue, out))
            dp_known = _known(out)
            _loop_dp(state, k, clue, out, 1)  # compile outside the timing
            dp_us = _best_us(lambda c: _loop_dp(state, k, clue, out, c), repeats)
            py_us = _best_us(lambda c: [solve_line(state, k, clue, out) for _ in range(c)], repeats,
                             max_calls=200_000)
            rows.append({"case": case, "solver": "dp", "us_per_call": dp_us, "py_us_per_call": py_us,
                         "ok": ok, "known_before": _known(state), "known_after": dp_known})
            status, expansions = seed_solve_line(state, k, clue, out, np.int64(budget))
            row = {"case": case, "solver": "seed", "expansions": int(expansions),
                   "status": SEED_STATUS_NAMES[int(status)], "us_per_call": None}
            if status != SEED_TOO_LARGE:
                row["known_after"] = _known(out)
                b = np.int64(budget)
                row["us_per_call"] = _best_us(lambda c: _loop_seed(state, k, clue, out, b, c), repeats)
                if status == SEED_OK and not ok:
                    raise AssertionError(f"{case}: the seed solved a line the DP says has no fix")
            rows.append(row)
    return rows


def format_table(rows):
    lines = [f"{'case':<22}{'DP µs':>10}{'DP µs (Python call)':>22}{'seed µs':>12}{'expansions':>12}"
             f"{'seed/DP':>10}{'known: given->DP/seed':>24}"]
    by_case = {}
    for r in rows:
        by_case.setdefault(r["case"], {})[r["solver"]] = r
    for case, d in by_case.items():
        dp, seed = d["dp"], d["seed"]
        if seed["us_per_call"] is None:
            seed_txt, ratio, known = seed["status"], "-", "-"
        else:
            seed_txt = f"{seed['us_per_call']:.2f}"
            ratio = f"{seed['us_per_call'] / dp['us_per_call']:.1f}x"
            known = seed['known_after']
        known = f"{dp['known_before']}->{dp['known_after']}/{known}"
        lines.append(f"{case:<22}{dp['us_per_call']:>10.2f}{dp['py_us_per_call']:>22.2f}{seed_txt:>12}"
                     f"{seed['expansions']:>12}{ratio:>10}{known:>24}")
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.bench_linesolve", description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    parser.add_argument("--budget", type=int, default=SEED_DEFAULT_BUDGET,
                        help=f"seed linesolver expansion budget (default {SEED_DEFAULT_BUDGET})")
    parser.add_argument("--repeats", type=int, default=5, help="timing repeats; the best is kept")
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse has already written the message to stderr
        return int(exc.code or 0)
    if args.repeats < 1 or args.budget < 0:
        sys.stderr.write("--repeats must be at least 1 and --budget not negative\n")
        return 2
    rows = run_bench(args.budget, args.repeats)
    if args.json:
        sys.stdout.write(json.dumps(rows, indent=1) + "\n")
    else:
        note = "" if HAVE_NUMBA else "  (numba not active: interpreted kernels)"
        sys.stdout.write(f"line solvers, µs per call, warm, best of {args.repeats}{note}\n")
        sys.stdout.write(format_table(rows) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
