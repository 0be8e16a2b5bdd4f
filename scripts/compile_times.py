"""What each numba kernel costs to compile, with numba's cache empty.

    .venv/bin/python scripts/compile_times.py [--repeat 3] [--workload real|warmup] [--top 40]

Each repeat runs the workload in a fresh process whose numba cache folder is a new empty temp
folder, listening to numba's compile events: per kernel (dispatcher and signature) the time its
own compilation took (``excl``: nested compilations of the kernels it calls are subtracted),
then per module, then the split by compiler pass (type inference, lowering, ...) and the time
under the LLVM lock. A second process then runs the same workload on the filled cache: that is
the cost of loading every kernel from disk in a fresh session.

Workloads: ``real`` does what a session does (Make on a small mesh, full solves that probe and
search, 2D puzzles, long lines, the seed schedulers with both line solvers, the CLI's warm-up);
``warmup`` runs ``engine.warmup``'s parts (``--parts``; the add-on warms up
make,solve,design), then the real workload's stages, and lists any kernel the real workload still had
to compile (the warm-up missed it).
Figures are wall times on whatever else the machine runs: repeat, and read the spread.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
_clock = time.process_time


# ---------------------------------------------------------------------------------------------
# child process


def _cube():
    import numpy as np
    v = np.array([[x, y, z] for x in (0, 1) for y in (0, 1) for z in (0, 1)], np.float64)
    quads = [(0, 1, 3, 2), (4, 6, 7, 5), (0, 4, 5, 1), (2, 3, 7, 6), (0, 2, 6, 4), (1, 5, 7, 3)]
    t = []
    for a, b, c, d in quads:
        t += [(a, b, c), (a, c, d)]
    return v, np.array(t, np.int64)


def _make():
    from engine.model.clues import puzzle_from_grid
    from engine.voxel.voxelize import voxelize
    v, t = _cube()
    r = voxelize(v, t, resolution=8)
    voxelize(v, t, resolution=6, samples=2, robust=False)
    puzzle_from_grid(r.grid)


def _full_3d():
    from engine.voxel.blobs import blob_puzzle
    from engine.solve.driver import solve
    solve(blob_puzzle((8, 8, 8), seed=1))
    solve(blob_puzzle((8, 8, 8), seed=2, hidden_fraction=0.3), time_limit=5)
    solve(blob_puzzle((8, 8, 8), seed=3, hidden_fraction=0.3), use_known=False, time_limit=5)


def _full_2d():
    import numpy as np

    from engine.model.clues import puzzle_from_grid
    from engine.model.puzzle import make_2d
    from engine.solve.driver import solve
    solve(make_2d([[1], [1]], [[1], [1]]))  # no solution attached: probing and search
    solve(puzzle_from_grid(np.eye(3, dtype=bool)), time_limit=5, progress=lambda f, m: False)


def _long_lines():
    import numpy as np

    from engine.model.clues import puzzle_from_grid
    from engine.solve.driver import solve
    g = np.zeros((1, 1, 100), bool)
    g[0, 0, ::3] = True
    solve(puzzle_from_grid(g))  # a count clue on 100 cells
    solve(puzzle_from_grid(g[0]), time_limit=5)  # a block list on 100 cells


def _seed():
    from engine.voxel.blobs import blob_puzzle
    from engine.solve.driver import compare, solve
    bp = blob_puzzle((6, 6, 6), seed=4)
    for ls in ("dp", "seed"):
        compare(bp, linesolver=ls)
        compare(bp, linesolver=ls, time_limit=5)
        solve(bp, linesolver=ls, time_limit=5)


def _design():
    import numpy as np

    from engine.voxel.blobs import blob_grid
    from engine.design.hiding import design
    g = blob_grid((8, 8, 8), seed=5)
    design(g)  # Hide Clues' defaults
    design(g, logic="probe", band="medium", time_limit=5)
    design(g, method="anneal", time_limit=2)
    line = np.zeros((1, 1, 200), bool)
    line[0, 0, ::3] = True
    design(line, time_limit=5)


def _live_check():
    import numpy as np

    from engine.voxel.blobs import blob_grid
    from engine.design.session import DesignSession
    s = DesignSession(blob_grid((8, 8, 8), seed=6))
    rng = np.random.default_rng(0)
    for logic in ("line", "probe"):
        hidden = rng.random(s.n_lines) < 0.6
        s.check(hidden, logic, search_time=1.0)
        s.suggest(hidden, logic, k=1)


# A session's uses of the engine: Make on a small mesh, full solves that probe and search (3D and
# 2D), lines longer than a machine word, the seed schedulers with both line solvers, Hide Clues
# and the live check of hand-edited clues.
STAGES = {"make": _make, "full-3d": _full_3d, "full-2d": _full_2d, "long-lines": _long_lines,
          "seed": _seed, "design": _design, "live-check": _live_check}


def real_workload(stage, only=tuple(STAGES)):
    for name, fn in STAGES.items():
        if name in only:
            with stage(name):
                fn()


def child(workload, only, parts):
    """Run the workload; per-kernel figures in CPU seconds of this process (compilation is
    single-threaded, and CPU time is far less disturbed than wall time by other work on a shared
    machine); stage and process figures in wall seconds."""
    sys.path.insert(0, str(ROOT))
    from numba.core import event as ev

    events = []  # (stage, kernel, sig, incl, excl)
    passes = defaultdict(float)
    cur = {"stage": "import"}

    class Nested(ev.Listener):
        """Times events that nest (a compile inside a compile): ``record(event, incl, own)``."""

        def __init__(self, record):
            self.stack, self.record = [], record

        def on_start(self, event):
            self.stack.append([_clock(), 0.0])

        def on_end(self, event):
            t0, nested = self.stack.pop()
            incl = _clock() - t0
            if self.stack:
                self.stack[-1][1] += incl
            self.record(event, incl, incl - nested)

    def compiled(event, incl, own):
        d = event.data["dispatcher"].py_func
        events.append((cur["stage"], f"{d.__module__}.{d.__qualname__}", str(tuple(event.data["args"])),
                       incl, own))

    def passed(event, incl, own):
        passes[event.data["name"].split(" [")[0]] += own

    def llvm(event, incl, own):
        passes["(llvm lock)"] += own

    ev.register("numba:compile", Nested(compiled))
    ev.register("numba:run_pass", Nested(passed))
    ev.register("numba:llvm_lock", Nested(llvm))
    stages = {}

    class stage:
        def __init__(self, name):
            self.name = name

        def __enter__(self):
            cur["stage"] = self.name
            self.t = time.perf_counter()

        def __exit__(self, *exc):
            stages[self.name] = stages.get(self.name, 0.0) + time.perf_counter() - self.t
            cur["stage"] = "-"

    t0 = time.perf_counter()
    with stage("import"):
        import engine.solve.driver  # noqa: F401
        import engine.voxel.voxelize  # noqa: F401
    missed_after_warmup = []
    if workload == "warmup":
        from engine import warmup
        for part in parts:
            with stage("warm-up " + part):
                warmup.ensure(part)
        n0 = len(events)
        real_workload(stage, only)
        missed_after_warmup = sorted({(k, s) for _, k, s, _, _ in events[n0:]})
    else:
        real_workload(stage, only)
    print("RESULT " + json.dumps({"events": events, "passes": passes, "stages": stages,
                                  "total": time.perf_counter() - t0, "missed": missed_after_warmup}))


# ---------------------------------------------------------------------------------------------
# parent


def run_child(workload, only, parts, cache_dir):
    env = dict(os.environ, NUMBA_CACHE_DIR=cache_dir)
    env.pop("NUMBA_DISABLE_JIT", None)
    p = subprocess.run([sys.executable, __file__, "--child", workload, "--stages", ",".join(only),
                        "--parts", ",".join(parts)], env=env, capture_output=True,
                       text=True, timeout=1800)
    for line in p.stdout.splitlines():
        if line.startswith("RESULT "):
            return json.loads(line[7:])
    raise SystemExit(f"child failed ({p.returncode}):\n{p.stdout[-2000:]}\n{p.stderr[-4000:]}")


def _spread(xs):
    if len(xs) == 1:
        return f"{xs[0]:7.2f}"
    return f"{statistics.median(xs):7.2f} [{min(xs):.2f}-{max(xs):.2f}]"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--workload", choices=("real", "warmup"), default="real")
    ap.add_argument("--top", type=int, default=60, help="kernels listed (by compile time)")
    ap.add_argument("--json", help="also write the raw figures to this file")
    ap.add_argument("--stages", default=",".join(STAGES), help="workload stages to run (comma-separated)")
    ap.add_argument("--parts", default="make,solve,design",
                    help="warm-up parts (engine/warmup.py PARTS) for --workload warmup; the add-on "
                         "warms up make,solve,design, the CLI's solve its own parts")
    ap.add_argument("--child", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    only = [s for s in args.stages.split(",") if s]
    parts = [p for p in args.parts.split(",") if p]
    if args.child:
        child(args.child, only, parts)
        return 0
    cold, cached = [], []
    for _ in range(args.repeat):
        with tempfile.TemporaryDirectory(prefix="nonogram-compile-") as d:
            cold.append(run_child(args.workload, only, parts, d))
            cached.append(run_child(args.workload, only, parts, d))
    if args.json:
        Path(args.json).write_text(json.dumps({"cold": cold, "cached": cached}))
    per_kernel = defaultdict(list)
    sigs = defaultdict(set)
    for run in cold:
        acc = defaultdict(float)
        for _stage, k, s, _incl, excl in run["events"]:
            acc[k] += excl
            sigs[k].add(s)
        for k in acc:
            per_kernel[k].append(acc[k])
    print(f"workload {args.workload}; {args.repeat} cold run(s), each in a fresh process with an "
          f"empty numba cache; kernels: CPU seconds, stages: wall seconds; median [min-max]")
    print(f"\n{'kernel':<52}{'sigs':>5}  compile (own)")
    rows = sorted(per_kernel.items(), key=lambda kv: -statistics.median(kv[1]))
    for k, xs in rows[:args.top]:
        print(f"{k[len('engine.'):] if k.startswith('engine.') else k:<52}{len(sigs[k]):>5}  {_spread(xs)}")
    if len(rows) > args.top:
        rest = [sum(statistics.median(xs) for _, xs in rows[args.top:])]
        print(f"{'(' + str(len(rows) - args.top) + ' more)':<52}{'':>5}  {_spread(rest)}")
    print(f"\n{'module':<30}{'kernels':>8}  compile")
    mods = defaultdict(lambda: [0.0] * len(cold))
    nk = defaultdict(set)
    for i, run in enumerate(cold):
        for _stage, k, s, _incl, excl in run["events"]:
            m = k.rsplit(".", 1)[0]
            mods[m][i] += excl
            nk[m].add(k)
    for m, xs in sorted(mods.items(), key=lambda kv: -statistics.median(kv[1])):
        print(f"{m:<30}{len(nk[m]):>8}  {_spread(xs)}")
    print(f"\n{'stage':<30}{'compile (CPU)':>22}{'wall, cold':>24}{'wall, cached':>24}")
    for name in cold[0]["stages"]:
        comp_stage = [sum(e[4] for e in r["events"] if e[0] == name) for r in cold]
        print(f"{name:<30}{_spread(comp_stage):>22}{_spread([r['stages'][name] for r in cold]):>24}"
              f"{_spread([r['stages'].get(name, 0.0) for r in cached]):>24}")
    comp = [sum(e[4] for e in r["events"]) for r in cold]
    print(f"\n{'compile total (CPU)':<30}{_spread(comp)}   ({len(per_kernel)} kernels, "
          f"{sum(len(s) for s in sigs.values())} signatures)")
    print(f"{'process total, cold':<30}{_spread([r['total'] for r in cold])}")
    print(f"{'process total, cached':<30}{_spread([r['total'] for r in cached])}"
          f"   (compiles left: {max(len(r['events']) for r in cached)})")
    print("\ncompiler passes (own time, summed over kernels)")
    names = set().union(*(r["passes"] for r in cold))
    for name in sorted(names, key=lambda n: -statistics.median([r["passes"].get(n, 0.0) for r in cold]))[:8]:
        print(f"  {name:<40}{_spread([r['passes'].get(name, 0.0) for r in cold])}")
    if args.workload == "warmup":
        missed = sorted({tuple(m) for r in cold for m in r["missed"]})
        print(f"\ncompiled by the real workload after the warm-up: {len(missed)}")
        for k, s in missed:
            print(f"  {k} {s[:150]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
