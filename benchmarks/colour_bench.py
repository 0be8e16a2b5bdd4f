"""Colour puzzle benchmarks (issues #24, #40): 2D like with like against pbnsolve, 3D from the shared models.

    python -m benchmarks.colour_bench 2d --pbnsolve PATH/pbnsolve [--g DIR] [--limit 60]
        [--repeat 3] [--cpsat-limit 60] [--only NAME ...] [--save]
    python -m benchmarks.colour_bench 3d [--res 16 24 36] [--cpsat-limit 60]

2D: 86 generated colour puzzles, 15x15 to 50x50, k = 2..4, seeded (``CLASSES``: 30 pictures of
discs and bars, 30 of them with 5-25 % of the cells given random values, 26 near-random grids),
written as webpbn XML without their solutions, and with ``--g`` the colour puzzles in Olšák's
.g format that ship with pbnsolve's source (griddlers.net tasks; triangle puzzles are skipped).
Each is solved to a uniqueness verdict by pbnsolve (``-u -b -t``) and by the engine, measured
like with like, two ways never mixed:
- own solve time: pbnsolve's "Processing Time" (its ``clock()`` around the solve), the engine's
  CPU time of ``solve_colour`` alone (warm, in process);
- whole process: the CPU time of a process per puzzle (``wait4``): pbnsolve's, and
  ``python -m engine solve FILE --json --no-known``.
A solve under 0.5 s is repeated (``--repeat`` runs in all) and the median kept, on both sides.
CP-SAT (benchmarks/cpsat_colour.py, one worker) gives its verdict too: the engine and its CLI
must say what CP-SAT says (when it has a verdict in time), and so must pbnsolve unless it fails
(an internal error or the time limit: counted apart, and left out of both sides' totals). Also printed: the engine's fixed
cost per ``solve_colour`` call (``fixed_cost``).

3D: each shared model voxelized at each resolution, coloured synthetically (Voronoi regions of
2k random seeds, colours 1..k cyclically), k = 2 and 3: the full-clue solve (warm, best of 3),
a greedy line-logic design (seed 0) and its solve, and CP-SAT (benchmarks/cpsat_colour.py, one
worker) on the full-clue puzzle. Compile time is reported apart.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time

import numpy as np

from benchmarks.common import RESULTS, ROOT, SHARED, load_json, machine_info, save_json
from engine.model.colourpuzzle import colour_puzzle_from_grid
from engine.solve.driver import solve as solve_colour  # (one solver for every kind)
from engine.files.puzzlefile import PuzzleFileError, load_puzzle, save_puzzle


def _warm() -> float:
    """Compile every kernel the runs use (solve, probe, grade, design) before anything is timed."""
    from engine.design.hiding import design as design_colour
    from engine.kinds.colour.colourprobe import probe
    from engine.kinds.colour.colourprop import build_net, full_state
    t = time.perf_counter()
    for g in (np.array([[1, 0, 2], [2, 1, 0]]), np.array([[[1, 0], [2, 1]], [[0, 2], [1, 1]]])):
        p = colour_puzzle_from_grid(g, 2)
        solve_colour(p, grade=True)
        design_colour(p)
        net = build_net(p)
        probe(net, full_state(net), np.zeros(2, dtype=np.int64))
    return time.perf_counter() - t


def _picture(rng, W, H, k):
    """A few overlapping discs and bars of colours 1..k on an empty W x H canvas."""
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
    return g


def generated_2d(n: int, seed: int = 24, lo: int = 15, hi: int = 40):
    """Colour images: a few overlapping discs and bars on a W x H canvas (lo..hi a side), k = 2..4."""
    rng = np.random.default_rng(seed)
    out = []
    for i in range(n):
        W, H = int(rng.integers(lo, hi + 1)), int(rng.integers(lo, hi + 1))
        k = int(rng.integers(2, 5))
        out.append(colour_puzzle_from_grid(_picture(rng, W, H, k), k, name=f"gen{i:02d}-{W}x{H}-k{k}"))
    return out


def noisy_pictures_2d(n: int, seed: int = 41, lo: int = 15, hi: int = 50):
    """Pictures (as ``generated_2d``) with 5-25 % of their cells given a random value (empty or a
    colour): smooth regions broken up, so line logic stalls and the solvers probe and search."""
    rng = np.random.default_rng(seed)
    out = []
    for i in range(n):
        W, H = int(rng.integers(lo, hi + 1)), int(rng.integers(lo, hi + 1))
        k = int(rng.integers(2, 5))
        g = _picture(rng, W, H, k)
        flip = rng.random((H, W)) < rng.uniform(0.05, 0.25)
        g[flip] = rng.integers(0, k + 1, int(flip.sum()))
        out.append(colour_puzzle_from_grid(g, k, name=f"noisy{i:02d}-{W}x{H}-k{k}"))
    return out


def noisy_2d(n: int, seed: int = 42, lo: int = 10, hi: int = 25, kmax: int = 3):
    """Random colour noise (each cell filled with probability 0.5-0.75, colour uniform), lo..hi
    cells a side, k = 2..kmax: no picture, often several solutions, so the solvers have to search."""
    rng = np.random.default_rng(seed)
    out = []
    for i in range(n):
        W, H = int(rng.integers(lo, hi + 1)), int(rng.integers(lo, hi + 1))
        k = int(rng.integers(2, kmax + 1))
        g = np.where(rng.random((H, W)) < rng.uniform(0.5, 0.75), rng.integers(1, k + 1, (H, W)), 0)
        out.append(colour_puzzle_from_grid(g, k, name=f"noise{i:02d}-{W}x{H}-k{k}"))
    return out


# The like-with-like set (#40): 86 puzzles, 15x15 to 50x50, k = 2..4, in three classes.
CLASSES = {"picture": lambda: generated_2d(30, seed=40, lo=15, hi=50),
           "noisy picture": lambda: noisy_pictures_2d(30, seed=41),
           "near-random": lambda: noisy_2d(26, seed=43, lo=15, hi=50, kmax=4)}


def _engine_solve(p, limit):
    """The engine's own solve time: CPU seconds of ``solve_colour`` alone (the puzzle's own
    solution not used: pbnsolve is not given it either)."""
    c = time.process_time()
    r = solve_colour(p, time_limit=limit, use_known=False)
    return r, time.process_time() - c


def _engine_process(path, limit):
    """The engine's whole process: ``python -m engine solve FILE --json --no-known``."""
    from benchmarks.peers import run_process
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # as installed: the bytecode written once
    cpu, killed, rc, out = run_process([sys.executable, "-m", "engine", "solve", str(path), "--json", "--no-known",
                                        "--time-limit", str(limit)], limit, cwd=str(ROOT), env=env)
    verdict = "timeout" if killed else json.loads(out.strip().splitlines()[-1])["verdict"] if rc == 0 else "error"
    return verdict, cpu


def _median_runs(run, first, repeat):
    """``first`` (a time) and, when it is short, more runs of ``run()``: the median."""
    times = [first] + ([run() for _ in range(repeat - 1)] if first < 0.5 else [])
    return statistics.median(times)


def bench_2d(args) -> int:
    """Like with like against pbnsolve: each solver's own solve time (pbnsolve's "Processing
    Time", the engine's CPU time of ``solve_colour``) and whole processes on both sides, on the
    generated classes (and pbnsolve's ``.g`` examples with ``--g``); CP-SAT's verdict beside."""
    from benchmarks.cpsat_colour import HAVE_ORTOOLS, cpsat_solve_colour
    from benchmarks.peers import pbnsolve_run
    compile_s = _warm()
    tmp = tempfile.mkdtemp(prefix="colour2d-")
    items = []
    for cls, make in CLASSES.items():
        for p in make():
            p.colour_solution = None  # neither solver is told the answer
            path = os.path.join(tmp, p.name + ".xml")
            save_puzzle(p, path)
            items.append((cls, path))
    if args.g:
        items += [("griddlers (.g)", os.path.join(args.g, f)) for f in sorted(os.listdir(args.g)) if f.endswith(".g")]
    if args.only:
        items = [it for it in items if any(w in os.path.basename(it[1]) for w in args.only)]
    # one untimed whole process: the bytecode written, every kernel the CLI loads in numba's cache
    _engine_process(items[0][1], 600.0)
    load_start = load_now()
    print(f"engine compile (numba, before the solves): {compile_s:.2f} s; load {load_start}")
    print(f"{'puzzle':<24}{'size':>8}{'k':>3}  {'engine':>9} {'pbnsolve':>9}  {'e whole':>8} {'p whole':>8}  "
          f"{'engine':<16}{'pbnsolve':<10}{'CP-SAT':<9}")
    rows, bad = [], 0
    for cls, path in items:
        try:
            p = load_puzzle(path)
        except PuzzleFileError as e:
            print(f"{os.path.basename(path):<24} skipped: {str(e)[-60:]}")
            continue
        if not hasattr(p, "k"):
            continue  # black-and-white
        p.colour_solution = None
        r, e_first = _engine_solve(p, args.limit)
        e_own = _median_runs(lambda: _engine_solve(p, args.limit)[1], e_first, args.repeat)
        pv, p_first, p_whole, _killed = pbnsolve_run(args.pbnsolve, path, args.limit)
        p_own, p_whole_runs = p_first, [p_whole]
        if p_first is not None and max(p_first, p_whole) < 0.5:
            more = [pbnsolve_run(args.pbnsolve, path, args.limit) for _ in range(args.repeat - 1)]
            p_own = statistics.median([p_first] + [m[1] for m in more if m[1] is not None])
            p_whole_runs += [m[2] for m in more]
        ev_whole, e_whole = _engine_process(path, args.limit)
        e_whole = _median_runs(lambda: _engine_process(path, args.limit)[1], e_whole, args.repeat)
        cv = "-"
        if HAVE_ORTOOLS and args.cpsat_limit > 0:
            cv = cpsat_solve_colour(p, time_limit=args.cpsat_limit).verdict
        row = {"class": cls, "puzzle": os.path.basename(path), "shape": list(p.shape), "k": p.k,
               "engine_s": e_own, "engine_verdict": r.verdict, "engine_level": r.difficulty,
               "engine_nodes": r.stats.get("nodes", 0), "engine_sat": r.stats.get("sat_conflicts", -1) >= 0,
               "engine_whole_s": e_whole, "engine_whole_verdict": ev_whole,
               "pbnsolve_s": p_own, "pbnsolve_whole_s": statistics.median(p_whole_runs), "pbnsolve_verdict": pv,
               "cpsat_verdict": cv}
        ck = checked(row)
        bad += not ck["engine_ok"] or ck["pbnsolve_wrong"]
        rows.append(row)
        size = "x".join(map(str, p.shape))
        print(f"{os.path.basename(path)[:23]:<24}{size:>8}{p.k:>3}  {_fms(e_own)} {_fms(p_own)}  "
              f"{_fms(e_whole, 8)} {_fms(row['pbnsolve_whole_s'], 8)}  {r.verdict + '/' + str(r.difficulty):<16}"
              f"{pv[:9]:<10}{cv:<9}{'' if ck['engine_ok'] else 'ENGINE WRONG'}"
              f"{' PBNSOLVE WRONG' if ck['pbnsolve_wrong'] else ' pbnsolve failed' if ck['pbnsolve_failed'] else ''}",
              flush=True)
    print()
    print("\n".join(class_table(rows)))
    fixed = fixed_cost()
    print("engine's fixed cost per solve_colour call (CPU): " + ", ".join(f"{k} {1e6 * v:.0f} us" for k, v in fixed.items()))
    failed = sum(checked(r)["pbnsolve_failed"] for r in rows)
    print(f"wrong verdicts (the engine or its CLI against CP-SAT, pbnsolve's against CP-SAT): {bad}; "
          f"pbnsolve failed (internal error or time limit) on {failed}; load {load_now()}")
    if args.save:
        _save("2d", {"compile_s": compile_s, "rows": rows, "disagree": bad, "limit": args.limit,
                     "repeat": args.repeat, "load_start": load_start, "load_end": load_now(),
                     "fixed": fixed})
    return 1 if bad else 0


def _fms(s, width=9):
    return f"{'-':>{width}}" if s is None else f"{1000 * s:>{width - 2}.1f}ms"


def load_now():
    return [round(x, 2) for x in os.getloadavg()]


VERDICTS = ("unique", "multiple", "none")


def checked(row) -> dict:
    """The row's verdict checks: ``engine_ok`` (the engine and its CLI say what CP-SAT says, or
    CP-SAT ran out of time), ``pbnsolve_failed`` (an internal error or its time limit: no
    verdict), ``pbnsolve_wrong`` (a verdict other than CP-SAT's, or than the engine's when CP-SAT
    has none)."""
    ev, cv, pv = row["engine_verdict"], row["cpsat_verdict"], row["pbnsolve_verdict"]
    ref = cv if cv in VERDICTS else ev
    failed = pv not in VERDICTS
    return {"engine_ok": ev == row.get("engine_whole_verdict", ev) and cv in ("-", "unknown", ev),
            "pbnsolve_failed": failed, "pbnsolve_wrong": not failed and pv != ref}


def class_table(rows):
    """Markdown rows per class (and all): puzzles, pbnsolve's failures, each side's total and
    median (own solve time, then whole process) over the puzzles both settled, engine ÷
    pbnsolve, the engine's verdicts against CP-SAT."""
    head = ("class", "n", "pbnsolve failed", "engine own: total", "median", "pbnsolve own: total", "median",
            "engine ÷ pbnsolve (total)", "(median)", "engine whole: total", "median", "pbnsolve whole: total",
            "median", "engine ÷ pbnsolve (total)", "(median)", "engine = CP-SAT")
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    classes = list(dict.fromkeys(r["class"] for r in rows)) + ["**all**"]
    for cls in classes:
        rs = [r for r in rows if cls == "**all**" or r["class"] == cls]
        both = [r for r in rs if not checked(r)["pbnsolve_failed"]]
        cells = [cls, str(len(rs)), str(len(rs) - len(both))]
        for a, b in (("engine_s", "pbnsolve_s"), ("engine_whole_s", "pbnsolve_whole_s")):
            ea = [r[a] for r in both]
            pb = [r[b] for r in both]
            te, tp = sum(ea), sum(pb)
            me, mp = statistics.median(ea) if ea else None, statistics.median(pb) if pb else None
            cells += [_t(te), _t(me), _t(tp), _t(mp), _r(te, tp), _r(me, mp)]
        cells.append(f"{sum(checked(r)['engine_ok'] for r in rs)}/{len(rs)}")
        out.append("| " + " | ".join(cells) + " |")
    return out


def _t(s):
    return "—" if s is None else f"{1000 * s:.1f} ms" if s < 1 else f"{s:.2f} s"


def _r(a, b):
    return "—" if not a or not b else f"{a / b:.2f}×"


def fixed_cost(n: int = 400) -> dict:
    """The engine's cost per ``solve_colour`` call that does not depend on the puzzle: CPU per
    call on a 1x1 and a 2x2 puzzle that line logic settles at once (median of 5 batches)."""
    out = {}
    for name, g in (("1x1", np.array([[1]])), ("2x2", np.array([[1, 0], [2, 1]]))):
        p = colour_puzzle_from_grid(g, 2)
        p.colour_solution = None
        solve_colour(p)
        batches = []
        for _ in range(5):
            c = time.process_time()
            for _ in range(n):
                solve_colour(p)
            batches.append((time.process_time() - c) / n)
        out[name] = statistics.median(batches)
    return out


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
    a2.add_argument("--limit", type=float, default=60.0, help="CPU seconds per solve (default 60)")
    a2.add_argument("--repeat", type=int, default=3, help="runs of a solve under 0.5 s (median; default 3)")
    a2.add_argument("--cpsat-limit", type=float, default=60.0, help="CP-SAT's seconds (0: no CP-SAT)")
    a2.add_argument("--only", nargs="*", default=None, help="only puzzles whose file name has one of these")
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
