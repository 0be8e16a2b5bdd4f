"""One design and one solve pipeline for every puzzle kind (issue #38): design and solve figures for
plain puzzles and colour puzzles (k = 2, 3) on the shared models, and the design's scale cases.

    python -m benchmarks.bench_pipeline table [--res 16 24 36] [--kinds plain 2 3] [--json OUT]
    python -m benchmarks.bench_pipeline scale [--cases duck:96:plain torus_knot:64:2 ...] [--json OUT]
        (a case's model: a shared model's name or a mesh file's path, e.g. ../ogre.obj:96:plain)
    python -m benchmarks.bench_pipeline worst [--res 32 48 64] [--kinds plain]
    python -m benchmarks.bench_pipeline solve [--res 16 24] [--kinds plain 2 3] [--repeat 3]

``table``: per model, size and kind, a greedy line-logic design (seed 0) from every clue: hidden
fraction, CPU seconds of the work (``time.process_time``; compiling is done by a warm-up first and
printed apart), the design's line solves where the engine counts them; then a full solve of the
designed puzzle (verdict, score, line solves, bad-guess rate, CPU seconds). A colour puzzle is the
model's voxels coloured by Voronoi regions of 2k random seeds (``colour_bench.colourize``).

``scale``: each case in a fresh process (``model:resolution:kind``, kind ``plain`` or the number
of colours): a greedy line-logic design; CPU and wall seconds, peak memory (``ru_maxrss`` of the
child), hidden fraction, and whether the progress callback's fraction ever went backwards.

``worst``: plain (or colour) greedy designs at the given sizes of every model, with the growth
exponent of the CPU time against the line count (which shapes scale worst).

``solve``: the solver alone on the same puzzles for every engine: each model's full-clue puzzle
and the same with a seeded 40 % of its clues hidden, without the stored solution's guidance
(CPU seconds, best of ``--repeat``).

The engine is imported from ``--engine ROOT`` (default: this checkout), so the same script runs
against another worktree (the code before a change) for interleaved before/after runs. It works
with the engine before issue #38 (``design_colour``/``solve_colour``) and after (one ``design`` and
one ``solve`` for every kind).
"""
from __future__ import annotations

import argparse
import json
import math
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
MODELS = [("trex", "trex.glb"), ("duck", "duck.glb"), ("horse", "horse.ply"), ("jeep", "jeep.obj"),
          ("torus_knot", "torus_knot.obj"), ("teapot", "teapot.obj"), ("bunny", "stanford_bunny.obj")]


def _setup(engine_root):
    for k in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS"):
        os.environ.setdefault(k, "1")
    root = str(Path(engine_root).resolve())
    sys.path.insert(0, root)
    return root


def shared_models() -> Path:
    return HERE.parent.parent / "shared" / "models"


def grid_of(model: str, res: int):
    import numpy as np
    from engine.voxel.meshio import load_mesh
    from engine.voxel.voxelize import voxelize
    # a shared model's name, or the path of any mesh file (a model never seen in development)
    path = shared_models() / dict(MODELS)[model] if model in dict(MODELS) else Path(model)
    v, t = load_mesh(path)
    return np.asarray(voxelize(v, t, resolution=res, samples=1, threshold=0.5, robust=True, fit=True).grid, bool)


def puzzle_of(g, kind: str):
    """The full-clue puzzle of grid ``g``: plain, or colour with ``int(kind)`` colours."""
    if kind == "plain":
        from engine.model.clues import puzzle_from_grid
        return puzzle_from_grid(g)
    from engine.model.colourpuzzle import colour_puzzle_from_grid
    from benchmarks.colour_bench import colourize
    k = int(kind)
    return colour_puzzle_from_grid(colourize(g, k) if k > 1 else g.astype(int), k)


def puzzles(args, by_model: bool = False):
    """(model, res, kind, grid, puzzle) for the models, resolutions and kinds asked: by resolution
    first, or (``by_model``) by model first."""
    models = [m for m, _ in MODELS if not args.models or m in args.models]
    pairs = ([(m, r) for m in models for r in args.res] if by_model else
             [(m, r) for r in args.res for m in models])
    for model, res in pairs:
        g = grid_of(model, res)
        for kind in args.kinds:
            yield model, res, kind, g, puzzle_of(g, kind)


class Api:
    """The engine's design and solve calls, before issue #38 (a colour twin of each) or after."""

    def __init__(self):
        import importlib.util
        self.old = importlib.util.find_spec("engine.design.colourdesign") is not None and \
            importlib.util.find_spec("engine.solve.kinds") is None
        from engine.design.hiding import design
        from engine.solve.driver import solve
        self._design, self._solve = design, solve
        if self.old:
            from engine.design.colourdesign import design_colour
            from engine.solve.coloursolve import solve_colour
            self._design_colour, self._solve_colour = design_colour, solve_colour

    @staticmethod
    def is_colour(p) -> bool:
        return getattr(p, "clue_colours", None) is not None

    def design(self, p, **kw):
        if self.old and self.is_colour(p):
            return self._design_colour(p, **kw)
        return self._design(p, **kw)

    def solve(self, p, **kw):
        if self.old and self.is_colour(p):
            kw.pop("progress", None)
            return self._solve_colour(p, **kw)
        return self._solve(p, **kw)

    def design_row(self, d) -> dict:
        st = d.stats or {}
        hidden = d.hidden_count
        apps = st.get("applications", st.get("line_solves"))
        return {"hidden": int(hidden), "lines": int(d.n_lines), "frac": hidden / max(d.n_lines, 1),
                "score": d.score, "band": d.band, "apps": apps, "minimal": bool(d.locally_minimal)}

    def solve_row(self, r) -> dict:
        rate = getattr(r, "bad_guess_rate", None)
        return {"verdict": r.verdict, "level": r.difficulty, "score": r.score, "band": r.band,
                "linesolvers": int(r.linesolvers), "bad_rate": rate}


def warm(api) -> float:
    """Compile (or load) every kernel the runs use before anything is timed; CPU seconds."""
    import numpy as np
    t = time.process_time()
    g = np.zeros((4, 4, 4), bool)
    g[1:3, :, 1:] = True
    g[0, 0, 0] = True
    for kind in ("plain", "2", "3"):
        p = puzzle_of(g, kind)
        d = api.design(p, logic="line", method="greedy", seed=0)
        api.solve(d.puzzle, grade=True)
        api.solve(p, grade=True)
    return time.process_time() - t


def _save(args, rows) -> int:
    """The rows to ``--json`` (with the load and the engine measured), when asked."""
    if args.json:
        Path(args.json).write_text(json.dumps({"load": os.getloadavg(), "engine": args.engine, "rows": rows},
                                              indent=1))
    return 0


def _start(args):
    """The engine of ``--engine`` on the path, its calls, its kernels compiled or loaded."""
    _setup(args.engine)
    api = Api()
    print(f"engine {'before' if api.old else 'after'} #38 at {args.engine}; load {os.getloadavg()}", flush=True)
    print(f"warm-up (compile or load kernels): {warm(api):.2f} CPU s", flush=True)
    return api


def run_table(args) -> int:
    api = _start(args)
    head = (f"{'model':<11}{'res':>4}{'kind':>6}{'lines':>7} | {'hidden%':>7}{'design s':>9}{'apps':>9} "
            f"{'score':>6} | {'verdict':>8}{'level':>7}{'score':>6}{'solves':>8}{'bad%':>6}{'solve s':>8}")
    print(head, flush=True)
    rows = []
    for model, res, kind, g, p in puzzles(args):
        t = time.process_time()
        d = api.design(p, logic="line", method=args.method, seed=0)
        dt = time.process_time() - t
        row = {"model": model, "res": res, "kind": kind, "design_cpu_s": round(dt, 4),
               "design_compile_s": round(float(getattr(d, "compile_s", 0.0) or 0.0), 4)}
        row.update(api.design_row(d))
        t = time.process_time()
        r = api.solve(d.puzzle, grade=True)
        st = time.process_time() - t
        row.update({f"solve_{k}": v for k, v in api.solve_row(r).items()})
        row["solve_cpu_s"] = round(st, 4)
        rows.append(row)
        bad = row["solve_bad_rate"]
        print(f"{model:<11}{res:>4}{kind:>6}{row['lines']:>7} | {100 * row['frac']:>7.1f}{dt:>9.3f}"
              f"{row['apps'] if row['apps'] is not None else '-':>9} {row['score']!s:>6} | "
              f"{r.verdict:>8}{r.difficulty!s:>7}{r.score!s:>6}{r.linesolvers:>8}"
              f"{'-' if bad is None else f'{100 * bad:.1f}':>6}{st:>8.3f}", flush=True)
    return _save(args, rows)


def run_solve(args) -> int:
    """The solver alone on fixed puzzles (the same for both engines): each model's full-clue
    puzzle and the same with a seeded 40 % of its clues hidden (needs probing or search), plain and
    colour: verdict, level, line solves, CPU seconds (best of ``--repeat``)."""
    import numpy as np
    api = _start(args)
    rows = []
    for model, res, kind, g, full in puzzles(args):
        hide = np.random.default_rng(res).random(full.n_lines) < 0.4
        if api.is_colour(full):
            from engine.model.colourpuzzle import with_hidden as colour_hidden
            hidden = colour_hidden(full, hide)
        else:
            from engine.model.puzzle import with_hidden
            hidden = with_hidden(full, hide)
        for label, p in (("full", full), ("hidden40", hidden)):
            best = None
            for _ in range(args.repeat):
                t = time.process_time()
                r = api.solve(p, time_limit=args.limit, use_known=False)
                dt = time.process_time() - t
                best = dt if best is None else min(best, dt)
            row = {"model": model, "res": res, "kind": kind, "puzzle": label, "cpu_s": round(best, 4),
                   "verdict": r.verdict, "level": r.difficulty, "linesolvers": int(r.linesolvers)}
            rows.append(row)
            print(f"{model:<11}{res:>4}{kind:>6} {label:<9} {r.verdict:>9} {r.difficulty!s:>7} "
                  f"{r.linesolvers:>9} {best:>9.4f}s", flush=True)
    return _save(args, rows)


def one_case(args) -> int:
    """A scale case in this process (the child of ``scale``): one JSON line on stdout."""
    _setup(args.engine)
    api = Api()
    model, res, kind = args.case.rsplit(":", 2)
    g = grid_of(model, int(res))
    p = puzzle_of(g, kind)
    warm_s = warm(api)
    seen = []

    def progress(frac, phase):
        seen.append(float(frac))
        return False
    rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    t, w = time.process_time(), time.perf_counter()
    d = api.design(p, logic="line", method=args.method, seed=0, progress=progress,
                   time_limit=args.limit)
    cpu, wall = time.process_time() - t, time.perf_counter() - w
    back = sum(1 for a, b in zip(seen, seen[1:]) if b < a - 1e-12)
    out = {"case": args.case, "shape": list(g.shape), "lines": int(p.n_lines), "cells": int(g.size),
           "cpu_s": round(cpu, 3), "wall_s": round(wall, 3), "warm_s": round(warm_s, 2),
           "compile_s": round(float(getattr(d, "compile_s", 0.0) or 0.0), 3),
           "peak_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
           "peak_mb_before": round(rss0 / 1024, 1), "progress_calls": len(seen),
           "progress_backwards": back, "progress_last": seen[-1] if seen else None,
           "stopped": bool(getattr(d, "stopped_early", False)) or not getattr(d, "reproducible", True)}
    out.update(api.design_row(d))
    print(json.dumps(out), flush=True)
    return 0


def run_scale(args) -> int:
    rows = []
    print(f"load {os.getloadavg()}", flush=True)
    for case in args.cases:
        cmd = [sys.executable, "-m", "benchmarks.bench_pipeline", "_case", case, "--engine", args.engine,
               "--limit", str(args.limit), "--method", args.method]
        r = subprocess.run(cmd, capture_output=True, text=True, cwd=str(HERE.parent))
        line = r.stdout.strip().splitlines()[-1] if r.stdout.strip() else ""
        try:
            row = json.loads(line)
        except json.JSONDecodeError:
            print(f"{case}: failed: {r.stderr.strip()[-400:]}", flush=True)
            continue
        rows.append(row)
        print(f"{case:<22} {'x'.join(map(str, row['shape'])):>10} lines {row['lines']:>6}  cpu {row['cpu_s']:>8.2f}s "
              f"wall {row['wall_s']:>8.2f}s  peak {row['peak_mb']:>7.1f} MB  hidden {100 * row['frac']:>5.1f}%  "
              f"progress back {row['progress_backwards']} last {row['progress_last']}"
              + ("  (cut by the limit)" if row["stopped"] else ""), flush=True)
    return _save(args, rows)


def run_worst(args) -> int:
    """Growth of the greedy design's CPU time with the line count, per model."""
    api = _start(args)
    pts = {}

    def growth(model):
        got = pts.get(model, [])
        if len(got) >= 2 and got[0][1] > 0 and got[-1][1] > 0:
            e = math.log(got[-1][1] / got[0][1]) / math.log(got[-1][0] / got[0][0])
            print(f"{model:<11} time ~ lines^{e:.2f} ({got[0][0]} -> {got[-1][0]} lines)", flush=True)
    last = None
    for model, res, kind, g, p in puzzles(args, by_model=True):
        if model != last and last is not None:
            growth(last)
        last = model
        t = time.process_time()
        d = api.design(p, logic="line", method="greedy", seed=0, time_limit=args.limit)
        dt = time.process_time() - t
        pts.setdefault(model, []).append((p.n_lines, dt))
        print(f"{model:<11}{res:>4}{kind:>6} {'x'.join(map(str, g.shape)):>10} lines {p.n_lines:>6} "
              f"cpu {dt:>8.2f}s hidden {100 * d.hidden_count / p.n_lines:>5.1f}%", flush=True)
    if last is not None:
        growth(last)
    return 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks.bench_pipeline")
    sub = ap.add_subparsers(dest="cmd", required=True)
    for name in ("table", "scale", "worst", "solve", "_case"):
        s = sub.add_parser(name)
        s.add_argument("--engine", default=str(HERE.parent), help="the checkout whose engine is measured")
        s.add_argument("--method", default="greedy")
        s.add_argument("--limit", type=float, default=600.0, help="design time limit (a safety stop), s")
        s.add_argument("--json", default=None)
        s.add_argument("--models", nargs="*", default=None)
        if name in ("table", "solve"):
            s.add_argument("--res", type=int, nargs="+", default=[16, 24, 36])
            s.add_argument("--kinds", nargs="+", default=["plain", "2", "3"])
            s.add_argument("--repeat", type=int, default=3)
        if name == "worst":
            s.add_argument("--res", type=int, nargs="+", default=[32, 48, 64])
            s.add_argument("--kinds", nargs="+", default=["plain"])
        if name == "scale":
            s.add_argument("--cases", nargs="+", default=["duck:64:plain", "duck:64:2"])
        if name == "_case":
            s.add_argument("case")
    args = ap.parse_args(argv)
    return {"table": run_table, "scale": run_scale, "worst": run_worst, "solve": run_solve,
            "_case": one_case}[args.cmd](args)


if __name__ == "__main__":
    sys.exit(main())
