"""Colour puzzle benchmarks (issue #24): 2D side by side with pbnsolve, 3D from the shared models.

    python -m benchmarks.colour_bench 2d --pbnsolve PATH/pbnsolve [--g DIR] [--n 20] [--noise 20]
    python -m benchmarks.colour_bench 3d [--res 16 24 36] [--cpsat-limit 60]

2D: the public colour puzzles in Olšák's .g format that ship with pbnsolve's source (griddlers.net
tasks; pass its ``examples`` folder as ``--g``; triangle puzzles are skipped) and ``--n``
generated colour pictures and ``--noise`` random colour noise grids (seeded, written as webpbn
XML), each solved by pbnsolve (``-u``:
uniqueness, its default algorithms) and by the engine (``solve_colour``, warm, in process) on
the same file. pbnsolve's time is its process's CPU time (user + sys, from the OS), so process
start is included for it; the engine's is the in-process wall time of the solve. Verdicts must
agree.

3D: each shared model voxelized at each resolution, coloured synthetically (Voronoi regions of
2k random seeds, colours 1..k cyclically), k = 2 and 3: the full-clue solve (warm, best of 3),
a greedy line-logic design (seed 0) and its solve, and CP-SAT (benchmarks/cpsat_colour.py, one
worker) on the full-clue puzzle. Compile time is reported apart.
"""
from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time

import numpy as np

from benchmarks.common import RESULTS, SHARED, load_json, machine_info, save_json
from engine.model.colourpuzzle import colour_puzzle_from_grid
from engine.solve.driver import solve as solve_colour  # (one solver for every kind)
from engine.files.puzzlefile import PuzzleFileError, load_puzzle, save_puzzle


def _warm() -> float:
    """Compile every kernel the runs use (solve, probe, grade, design) before anything is timed."""
    from engine.design.hiding import design as design_colour
    from engine.solve.colourprobe import probe
    from engine.solve.colourprop import build_net, full_state
    t = time.perf_counter()
    for g in (np.array([[1, 0, 2], [2, 1, 0]]), np.array([[[1, 0], [2, 1]], [[0, 2], [1, 1]]])):
        p = colour_puzzle_from_grid(g, 2)
        solve_colour(p, grade=True)
        design_colour(p)
        net = build_net(p)
        probe(net, full_state(net), np.zeros(2, dtype=np.int64))
    return time.perf_counter() - t


def _pbnsolve(exe: str, path: str, timeout: float):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    try:
        r = subprocess.run([exe, "-u", "-b", path], capture_output=True, text=True, timeout=timeout)
        out = r.stdout.strip().splitlines()[-1] if r.stdout.strip() else r.stderr.strip()[:60]
    except subprocess.TimeoutExpired:
        out = "timeout"
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    words = out.split()
    verdict = ("unique" if "unique" in words else "multiple" if "multiple" in words
               else "none" if "contradiction" in words else out)
    return verdict, cpu, wall


def generated_2d(n: int, seed: int = 24):
    """Colour images: a few overlapping discs and bars on a W x H canvas, k = 2..4 colours."""
    rng = np.random.default_rng(seed)
    out = []
    for i in range(n):
        W, H = int(rng.integers(15, 41)), int(rng.integers(15, 41))
        k = int(rng.integers(2, 5))
        g = np.zeros((H, W), dtype=np.int64)
        yy, xx = np.mgrid[0:H, 0:W]
        for _ in range(int(rng.integers(4, 10))):
            c = int(rng.integers(1, k + 1))
            if rng.random() < 0.6:
                cy, cx, r = rng.uniform(0, H), rng.uniform(0, W), rng.uniform(2, min(W, H) / 3)
                g[(yy - cy) ** 2 + (xx - cx) ** 2 < r * r] = c
            else:
                y0, x0 = int(rng.integers(0, H)), int(rng.integers(0, W))
                g[y0:y0 + int(rng.integers(1, 6)), x0:x0 + int(rng.integers(3, W))] = c
        out.append(colour_puzzle_from_grid(g, k, name=f"gen{i:02d}-{W}x{H}-k{k}"))
    return out


def noisy_2d(n: int, seed: int = 42):
    """Random colour noise (each cell filled with probability 0.5-0.75, colour uniform), 10..25 cells
    a side, k = 2..3: no picture, often several solutions, so the solvers have to search."""
    rng = np.random.default_rng(seed)
    out = []
    for i in range(n):
        W, H = int(rng.integers(10, 26)), int(rng.integers(10, 26))
        k = int(rng.integers(2, 4))
        g = np.where(rng.random((H, W)) < rng.uniform(0.5, 0.75), rng.integers(1, k + 1, (H, W)), 0)
        out.append(colour_puzzle_from_grid(g, k, name=f"noise{i:02d}-{W}x{H}-k{k}"))
    return out


def bench_2d(args) -> int:
    compile_s = _warm()
    files = []
    if args.g:
        for f in sorted(os.listdir(args.g)):
            if f.endswith(".g"):
                files.append(os.path.join(args.g, f))
    tmp = tempfile.mkdtemp(prefix="colour2d-")
    for p in generated_2d(args.n) + noisy_2d(args.noise):
        path = os.path.join(tmp, p.name + ".xml")
        save_puzzle(p, path)
        files.append(path)
    print(f"engine compile (numba, before the solves): {compile_s:.2f} s")
    rows = []
    print(f"{'puzzle':<24}{'size':>8}{'k':>3}  {'engine':>10} {'verdict':<16}{'pbnsolve cpu':>13} {'wall':>8} "
          f"{'verdict':<10}")
    tot_e = tot_p = tot_pw = 0.0
    disagree = 0
    for path in files:
        try:
            p = load_puzzle(path)
        except PuzzleFileError as e:
            print(f"{os.path.basename(path):<24} skipped: {str(e)[-60:]}")
            continue
        if not hasattr(p, "k"):
            continue  # black-and-white
        best = None
        for _ in range(3):
            t = time.perf_counter()
            r = solve_colour(p, time_limit=args.limit)
            dt = time.perf_counter() - t
            best = dt if best is None else min(best, dt)
        pv, pcpu, pwall = _pbnsolve(args.pbnsolve, path, args.limit)
        tot_e += best
        tot_p += pcpu
        tot_pw += pwall
        bad = pv != r.verdict
        disagree += bad
        size = "x".join(map(str, p.shape))
        rows.append({"puzzle": os.path.basename(path), "shape": list(p.shape), "k": p.k, "engine_s": best,
                     "engine_verdict": r.verdict, "engine_level": r.difficulty, "pbnsolve_cpu_s": pcpu,
                     "pbnsolve_wall_s": pwall, "pbnsolve_verdict": pv})
        print(f"{os.path.basename(path)[:23]:<24}{size:>8}{p.k:>3}  {1000 * best:>8.1f}ms {r.verdict + '/' + str(r.difficulty):<16}"
              f"{1000 * pcpu:>11.1f}ms {1000 * pwall:>6.1f}ms {pv:<10}{'  DISAGREE' if bad else ''}")
    print(f"{'total':<24}{'':>8}{'':>3}  {1000 * tot_e:>8.1f}ms {'':<16}{1000 * tot_p:>11.1f}ms {1000 * tot_pw:>6.1f}ms")
    print(f"verdicts that differ: {disagree}")
    if args.save:
        _save("2d", {"compile_s": compile_s, "rows": rows, "disagree": disagree})
    return 1 if disagree else 0


def colourize(g, k, seed=0):
    rng = np.random.default_rng(seed)
    pts = rng.random((2 * k, 3)) * np.array(g.shape)
    idx = np.indices(g.shape).reshape(3, -1).T
    d = ((idx[:, None, :] - pts[None]) ** 2).sum(-1)
    lab = (np.argmin(d, 1) % k) + 1
    return np.where(g.ravel(), lab, 0).reshape(g.shape)


def bench_3d(args) -> int:
    from benchmarks.bench_design import grids
    from benchmarks.cpsat_colour import HAVE_ORTOOLS, cpsat_solve_colour
    from engine.design.hiding import design as design_colour
    if not (SHARED / "models").exists():
        print(f"shared models not found under {SHARED}; nothing to do")
        return 0
    compile_s = _warm()
    print(f"engine compile (numba, before the solves): {compile_s:.2f} s")
    rows = []
    print(f"{'model':<12}{'res':>4}{'shape':>11}{'k':>3}{'filled':>7}  {'full':>9} {'verdict':<12}"
          f"{'design':>8}{'hidden':>7} {'score':>6}  {'designed':>9}  {'CP-SAT':>9} {'verdict':<8}")
    for name, res, g in grids(args.res):
        for k in (2, 3):
            p = colour_puzzle_from_grid(colourize(g, k), k, name=f"{name}-{res}-k{k}")
            best = None
            for _ in range(3):
                t = time.perf_counter()
                r = solve_colour(p, use_known=False)
                dt = time.perf_counter() - t
                best = dt if best is None else min(best, dt)
            design_t, hidden, score, dsolve = float("nan"), 0, None, float("nan")
            if r.difficulty == "line" and res <= args.design_max:
                t = time.perf_counter()
                d = design_colour(p, seed=0)
                design_t = time.perf_counter() - t
                hidden, score = d.hidden_count, d.score
                dsolve = None
                for _ in range(3):
                    t = time.perf_counter()
                    rd = solve_colour(d.puzzle, use_known=False)
                    dt = time.perf_counter() - t
                    dsolve = dt if dsolve is None else min(dsolve, dt)
                assert rd.verdict == "unique"
            cp_t, cp_v = float("nan"), "-"
            if HAVE_ORTOOLS and res <= args.cpsat_max:
                q = colour_puzzle_from_grid(colourize(g, k), k)
                q.colour_solution = None
                c = cpsat_solve_colour(q, time_limit=args.cpsat_limit)
                cp_t, cp_v = c.time_s, c.verdict
            shape = "x".join(map(str, g.shape))
            rows.append({"model": name, "res": res, "shape": list(g.shape), "k": k, "filled": int(g.sum()),
                         "full_s": best, "verdict": r.verdict, "level": r.difficulty,
                         "design_s": None if design_t != design_t else design_t, "hidden": hidden,
                         "lines": p.n_lines, "score": score,
                         "designed_s": None if dsolve != dsolve else dsolve,
                         "cpsat_s": None if cp_t != cp_t else cp_t, "cpsat_verdict": cp_v})
            print(f"{name:<12}{res:>4}{shape:>11}{k:>3}{int(g.sum()):>7}  {1000 * best:>7.1f}ms "
                  f"{r.verdict + '/' + str(r.difficulty):<12}{design_t:>7.1f}s{hidden:>7} {str(score):>6}  "
                  f"{1000 * dsolve:>7.1f}ms  {cp_t:>8.2f}s {cp_v:<8}", flush=True)
    if args.save:
        _save("3d", {"compile_s": compile_s, "rows": rows})
    return 0


def _save(part: str, data: dict) -> None:
    """Into benchmarks/results/colour.json (report.py's "Colour puzzles" section)."""
    path = RESULTS / "colour.json"
    doc = load_json(path, {}) or {}
    data["machine"] = machine_info()
    data["when"] = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    doc[part] = data
    save_json(doc, path)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.colour_bench")
    sub = ap.add_subparsers(dest="part", required=True)
    a2 = sub.add_parser("2d")
    a2.add_argument("--pbnsolve", required=True)
    a2.add_argument("--g", default=None, help="folder of Olšák .g puzzles (pbnsolve's examples)")
    a2.add_argument("--n", type=int, default=20)
    a2.add_argument("--noise", type=int, default=20)
    a2.add_argument("--limit", type=float, default=60.0)
    a3 = sub.add_parser("3d")
    a3.add_argument("--res", type=int, nargs="+", default=[16, 24, 36])
    a3.add_argument("--cpsat-limit", type=float, default=60.0)
    a3.add_argument("--cpsat-max", type=int, default=36)
    a3.add_argument("--design-max", type=int, default=36)
    for a in (a2, a3):
        a.add_argument("--save", action="store_true", help="write benchmarks/results/colour.json")
    args = ap.parse_args(argv)
    return bench_2d(args) if args.part == "2d" else bench_3d(args)


if __name__ == "__main__":
    sys.exit(main())
