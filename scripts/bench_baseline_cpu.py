"""Run time of kernels compiled for a baseline CPU (what the zip's prebuilt kernels are) against
kernels compiled for this machine's CPU (what numba compiles on first use).

    .venv/bin/python scripts/bench_baseline_cpu.py [--pairs 6] [--cpu x86-64-v2] [--taai 150]

Each run is a fresh process on a filled cache of its own (one per variant, filled by an untimed
first run), the variants alternating host, baseline, host, ...; inside it, CPU seconds of each
workload: solves (16 3D blobs, 24³ and 36³, all clues and 30% hidden; the first ``--taai``
TAAI 2011 puzzles from ../shared/puzzles2d) and designs (Hide Clues greedy at 36³ with line
logic, greedy at 24³ with probing, three live checks and suggestions at 36³). Printed: the
pairwise ratio baseline/host per workload, median [min–max], and how many results (verdicts,
states, counters, masks) are identical in every run, differ between runs of the same code (a time
limit reached), or differ between the two variants' code. The baseline variant sets
numba's NUMBA_CPU_NAME / NUMBA_CPU_FEATURES (``engine.jit.baseline_env``) in its process only.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TAAI = ROOT.parent / "shared" / "puzzles2d" / "taai-tcga-icga" / "question" / "taai2011.txt.gz"


def child(taai: int) -> None:
    import hashlib
    import time

    import numpy as np
    sys.path.insert(0, str(ROOT))
    from engine import warmup
    from engine.voxel.blobs import blob_grid, blob_puzzle
    from engine.design.hiding import design
    from engine.design.session import DesignSession
    from engine.files.puzzlefile import load_puzzles
    from engine.solve.driver import solve
    warmup.ensure("make", "solve", "design")
    notes: list = []  # one digest per solve, design, check

    def note(*items):
        h = hashlib.sha256()
        for x in items:
            h.update(np.ascontiguousarray(x).tobytes() if isinstance(x, np.ndarray) else repr(x).encode())
        notes.append(h.hexdigest()[:12])

    def solves():
        for n in (24, 36):
            for seed in range(4):
                for hidden in (0.0, 0.3):
                    r = solve(blob_puzzle((n, n, n), seed=seed, hidden_fraction=hidden), time_limit=30)
                    note(r.verdict, r.state, r.linesolvers, r.bad_guesses)
        if TAAI.exists():
            for p in load_puzzles(TAAI)[:taai]:
                r = solve(p, time_limit=30)
                note(r.verdict, r.state, r.linesolvers)

    def designs():
        g36 = blob_grid((36, 36, 36), seed=5)
        d = design(g36, time_limit=60)
        note(d.hidden, d.trials, d.score)
        g24 = blob_grid((24, 24, 24), seed=6)
        d = design(g24, logic="probe", time_limit=60)
        note(d.hidden, d.trials, d.score)
        s = DesignSession(g36)
        rng = np.random.default_rng(0)
        for logic in ("line", "probe", "line"):
            hidden = rng.random(s.n_lines) < 0.5
            c = s.check(hidden, logic, search_time=5.0)
            note(c.verdict, c.undecided, c.score)
            note(s.suggest(hidden, logic, k=2))

    out = {}
    for name, work in (("solves", solves), ("designs", designs)):
        t = time.process_time()
        work()
        out[name] = time.process_time() - t
    from engine import jit
    from numba.core.registry import cpu_target
    out["magic"] = list(cpu_target.target_context.codegen().magic_tuple()[:2])
    out["digests"] = notes
    out["cache"] = jit.cache_folder()
    print("RESULT " + json.dumps(out))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--pairs", type=int, default=6)
    ap.add_argument("--cpu", default="x86-64-v2")
    ap.add_argument("--taai", type=int, default=150)
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        child(args.taai)
        return 0
    sys.path.insert(0, str(ROOT))
    from engine.jit import baseline_env
    with tempfile.TemporaryDirectory(prefix="nonogram-baseline-") as tmp:
        base = {k: v for k, v in os.environ.items() if not k.startswith("NUMBA_")}
        envs = {"host": dict(base, NUMBA_CACHE_DIR=os.path.join(tmp, "host")),
                "baseline": dict(base, NUMBA_CACHE_DIR=os.path.join(tmp, "baseline"), **baseline_env(args.cpu))}

        def run(variant):
            p = subprocess.run([sys.executable, __file__, "--child", "--taai", str(args.taai)], env=envs[variant],
                               capture_output=True, text=True, timeout=3600)
            line = next((ln for ln in p.stdout.splitlines() if ln.startswith("RESULT ")), None)
            if line is None:
                raise SystemExit(p.stderr[-3000:])
            return json.loads(line[7:])

        first = {v: run(v) for v in envs}  # fills each cache (timed but not counted)
        print(f"host CPU {first['host']['magic'][1]}, baseline {first['baseline']['magic'][1]}", flush=True)
        ratios: dict = {"solves": [], "designs": []}
        digests = {v: [first[v]["digests"]] for v in envs}
        for i in range(args.pairs):
            a, b = run("host"), run("baseline")
            digests["host"].append(a["digests"])
            digests["baseline"].append(b["digests"])
            for k in ratios:
                ratios[k].append(b[k] / a[k])
            print(f"pair {i + 1}: solves {a['solves']:.2f} / {b['solves']:.2f} CPU s, designs "
                  f"{a['designs']:.2f} / {b['designs']:.2f} (host / baseline)", flush=True)
    for k, r in ratios.items():
        print(f"{k}: baseline/host {statistics.median(r):.3f} [{min(r):.3f}–{max(r):.3f}] ({len(r)} pairs)")
    # a result that differs between runs of the same code (a time limit reached on a busy
    # machine) says nothing about the CPU; one that is stable in each variant and differs between
    # them does
    runs = digests["host"] + digests["baseline"]
    unstable = {i for i in range(len(runs[0])) if len({r[i] for r in digests["host"]}) > 1
                or len({r[i] for r in digests["baseline"]}) > 1}
    differ = [i for i in range(len(runs[0])) if i not in unstable
              and digests["host"][0][i] != digests["baseline"][0][i]]
    print(f"{len(runs[0])} results: {len(runs[0]) - len(unstable) - len(differ)} identical in every run, "
          f"{len(unstable)} differing between runs of the same code {sorted(unstable)[:10]}, "
          f"{len(differ)} differing only between host and baseline code {differ[:10]}")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
