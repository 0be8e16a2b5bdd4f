"""Colour design speed and hidden fraction (issue #24): per shared model at 16/24, k = 2, 3.

    python -m benchmarks.bench_colour_design [--res 16 24] [--methods greedy anneal] [--band hard]

Each model voxelized as the add-on does and coloured as ``colour_bench`` colours it (Voronoi
regions). Per puzzle, in the same process (so the machine's load hits both alike):

- ``random``: the pass by halves in a random order (the one design pipeline's, ``design/search.py``);
- then each ``--methods`` (default: greedy, the default method).

With ``--band B`` only each ``--methods`` to band B: time, hidden %, score, whether locally
minimal within the band, and the band stage's time (steering; final passes and their grades).

Times are wall seconds of ``design`` after the kernels were compiled (compile printed
apart); hidden fraction = hidden clues / lines. Line logic, seed 0.
"""
from __future__ import annotations

import argparse
import json
import sys
import time


from benchmarks.colour_bench import _warm, colourize


def main(argv=None) -> int:
    from benchmarks.bench_design import grids
    from benchmarks.common import SHARED
    from engine.design.hiding import design as design_colour
    from engine.model.colourpuzzle import colour_puzzle_from_grid
    ap = argparse.ArgumentParser(prog="python -m benchmarks.bench_colour_design")
    ap.add_argument("--res", type=int, nargs="+", default=[16, 24])
    ap.add_argument("--methods", nargs="+", default=["greedy"])
    ap.add_argument("--models", nargs="*", default=None)
    ap.add_argument("--band", default=None, help="design each --methods to this difficulty band (the "
                    "steering, bisection and final passes; prints score, hidden %% and whether locally "
                    "minimal, and the band stage's seconds)")
    ap.add_argument("--json", default=None, help="also write the rows to this file")
    args = ap.parse_args(argv)
    if not (SHARED / "models").exists():
        print(f"shared models not found under {SHARED}; nothing to do")
        return 0
    t = time.perf_counter()
    _warm()
    print(f"engine compile (numba, before the designs): {time.perf_counter() - t:.2f} s", flush=True)
    runs = [("random", {"method": "random"})] + [(m, {"method": m}) for m in args.methods if m != "random"]
    if args.band:
        runs = [(f"{m}@{args.band}", {"method": m, "band": args.band}) for m in args.methods]
    rows = []
    print(f"{'model':<11}{'res':>4}{'k':>3}{'lines':>6}  " + "  ".join(f"{n:>16}" for n, _ in runs), flush=True)
    for name, res, g in grids(args.res):
        if args.models and name not in args.models:
            continue
        for k in (2, 3):
            p = colour_puzzle_from_grid(colourize(g, k), k)
            row = {"model": name, "res": res, "k": k, "lines": p.n_lines}
            cells = []
            for label, kw in runs:
                t = time.perf_counter()
                d = design_colour(p, seed=0, **kw)
                dt = time.perf_counter() - t
                row[label] = {"s": round(dt, 3), "hidden": d.hidden_count, "score": d.score,
                              "free": d.stats.get("free_hides"), "props": d.stats.get("propagations")}
                if args.band:
                    st = d.stats
                    row[label].update(minimal=d.locally_minimal, grades=st.get("grades"),
                                      restarts=st.get("steer_restarts"), steer_s=st.get("steer_s"),
                                      final_s=st.get("final_s"), final_grades=st.get("final_grades"))
                    cells.append(f"{dt:>6.2f}s {100 * d.hidden_count / p.n_lines:>4.1f}% {d.score!s:>5} "
                                 f"{'min' if d.locally_minimal else '---'} steer {st.get('steer_s', 0):.2f}s "
                                 f"final {st.get('final_s', 0):.2f}s/{st.get('final_grades', 0)}g")
                else:
                    cells.append(f"{dt:>7.2f}s {100 * d.hidden_count / p.n_lines:>5.1f}%")
            rows.append(row)
            print(f"{name:<11}{res:>4}{k:>3}{p.n_lines:>6}  " + "  ".join(f"{c:>16}" for c in cells), flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
