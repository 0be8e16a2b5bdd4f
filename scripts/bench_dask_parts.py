"""Dask's fixed cost for a catalogue, part by part (issue #26), each variant beside the one it
replaces, interleaved rep by rep (so a machine whose load changes during the run hurts both alike).

    .venv/bin/python scripts/bench_dask_parts.py [--reps 3] [--no-catalogue]

1. ``import distributed`` in a fresh Python (what the coordinator pays before it can start a cluster).
2. A LocalCluster of 2 worker processes, Dask's default (spawned: each worker imports
   ``distributed`` again) against forked from the coordinator: its start, the first task's round
   trip, its close, and the CPU time of the coordinator and of the workers.
3. What the 2 workers cost while they wait (two 3 s sleep tasks, as a worker waits on its batch
   process): Dask's defaults against ``batchjobs.QUIET_WORKERS`` (no profiler, slow monitors).
4. A 2-job catalogue (suzanne and cube at 12, designed) through ``batch.py --workers 2``: the own
   pool, Dask with spawned workers whose preload starts the batch process (as before the early
   start, and as on macOS and Windows: ``NONOGRAM_DASK_SPAWN=1``) and Dask now (the coordinator
   starts the batch processes first, the forked Dask workers take them over): the wall time, when each batch process was ready counted
   from the coordinator's start, and the jobs' time. Its first run warms the numba cache (not counted).

Prints a table per part and the figures as JSON, written to benchmarks/results/dask_parts.json
(benchmarks/report.py puts them in docs/BENCHMARKS.md, beside bench_farm.py's).
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
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "benchmarks" / "results" / "dask_parts.json"

CLUSTER = r'''
import json, os, sys, time
def main():
    t0 = time.perf_counter()
    import dask
    from dask import distributed
    t1 = time.perf_counter()
    method, quiet, sleep = sys.argv[1], sys.argv[2] == "quiet", float(sys.argv[3])
    config = {"distributed.worker.multiprocessing-method": method}
    kw = {}
    if quiet:
        config.update(json.loads(sys.argv[4]))
        kw["memory_limit"] = 0
    with dask.config.set(config):
        cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                           dashboard_address=None, silence_logs=40, **kw)
        client = distributed.Client(cluster)
        t2 = time.perf_counter()
        client.submit(lambda: 1, pure=False).result()
        t3 = time.perf_counter()
        c0 = os.times()
        if sleep:
            client.gather(client.map(lambda i: time.sleep(sleep), range(2), pure=False))
        c1 = os.times()
        t4 = time.perf_counter()
        client.close()
        cluster.close()
        t5 = time.perf_counter()
    r = os.times()
    print(json.dumps({"import_s": t1 - t0, "start_s": t2 - t1, "first_task_s": t3 - t2,
                      "close_s": t5 - t4, "coordinator_cpu_s": r.user + r.system,
                      "workers_cpu_s": r.children_user + r.children_system,
                      "coordinator_cpu_waiting_s": c1.user + c1.system - c0.user - c0.system}))
if __name__ == "__main__":
    main()
'''


def batchjobs():
    """batchjobs.py, a plain module at the repository's root (no bpy, no package)."""
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    import batchjobs as mod
    return mod


def median(values: list) -> float:
    return round(statistics.median(values), 3)


def import_distributed(reps: int) -> dict:
    code = "import time; t = time.perf_counter(); import distributed; print(time.perf_counter() - t)"
    times = [float(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout)
             for _ in range(reps)]
    return {"import_s": median(times), "all_s": [round(t, 3) for t in times]}


def cluster_parts(script: Path, reps: int, quiet: str) -> dict:
    """Part 2 and 3: each variant in a fresh Python, the variants interleaved."""
    variants = {"spawn (Dask's default)": ("spawn", "loud", "0"), "fork": ("fork", "loud", "0"),
                "waiting, Dask's defaults": ("fork", "loud", "3"), "waiting, quiet": ("fork", "quiet", "3")}
    runs: dict = {name: [] for name in variants}
    for _ in range(reps):
        for name, argv in variants.items():
            proc = subprocess.run([sys.executable, str(script), *argv, quiet], capture_output=True, text=True)
            lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("{")]
            if proc.returncode or not lines:
                raise SystemExit(f"{name}: {proc.stderr[-2000:]}")
            runs[name].append(json.loads(lines[-1]))
    return {name: {k: median([r[k] for r in rs]) for k in rs[0]} for name, rs in runs.items()}


def catalogue(out: Path, variant: str, env: dict) -> dict:
    extra = {"own pool": ["--pool"], "Dask, spawned workers (each starts its batch process)": ["--dask"],
             "Dask, early start, forked workers": ["--dask"]}[variant]
    env = dict(env)
    if variant.startswith("Dask, spawned"):
        env["NONOGRAM_DASK_SPAWN"] = "1"
    t_wall = time.time()
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, str(ROOT / "batch.py"), "--", "--input", "suzanne", "cube",
                           "--resolution", "12", "--design", "--out", str(out), "--workers", "2", *extra],
                          cwd=ROOT, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    if proc.returncode:
        raise SystemExit(f"{variant}: {proc.stdout[-2000:]}{proc.stderr[-2000:]}")
    marks = [json.loads(p.read_text()) for p in (out / ".jobs").glob("*.done.json")]
    ready = sorted(m["worker_ready_at"] - t_wall for m in marks if "worker_ready_at" in m)
    jobs = sum(m["seconds"] for m in marks)
    return {"wall_s": wall, "ready_s": max(ready) if ready else float("nan"), "jobs_s": jobs,
            "rest_s": wall - (max(ready) if ready else 0.0) - max(m["seconds"] for m in marks)}


def catalogue_parts(reps: int) -> dict:
    tmp = Path(tempfile.mkdtemp(prefix="bench_dask_parts_"))
    env = dict(os.environ, TMPDIR=str(tmp / "tmp"))  # a private numba cache (see bench_farm.py)
    os.makedirs(env["TMPDIR"])
    variants = ["own pool", "Dask, spawned workers (each starts its batch process)", "Dask, early start, forked workers"]
    runs: dict = {v: [] for v in variants}
    try:
        t0 = time.perf_counter()
        catalogue(tmp / "warm", "own pool", env)
        print(f"  (warm-up, compiles the kernels: {time.perf_counter() - t0:.1f} s)", flush=True)
        for rep in range(reps):
            for i, v in enumerate(variants):
                runs[v].append(catalogue(tmp / f"{rep}-{i}", v, env))
    finally:
        import shutil
        shutil.rmtree(tmp, ignore_errors=True)
    return {v: {k: median([r[k] for r in rs]) for k in rs[0]} for v, rs in runs.items()}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--no-catalogue", action="store_true", help="leave out part 4 (the batch runs)")
    a = ap.parse_args()
    try:
        import distributed  # noqa: F401
    except ImportError:
        sys.stderr.write("dask[distributed] is not installed; nothing measured\n")
        return 2
    import datetime
    res: dict = {"date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
                 "load_start": [round(x, 2) for x in os.getloadavg()], "reps": a.reps}
    quiet = json.dumps(batchjobs().QUIET_WORKERS)
    res["import"] = import_distributed(a.reps)
    print(f"1. import distributed: {res['import']['import_s']:.3f} s (median of {a.reps})", flush=True)
    with tempfile.TemporaryDirectory() as d:
        script = Path(d) / "cluster_parts.py"
        script.write_text(CLUSTER, encoding="utf-8")
        res["cluster"] = cluster_parts(script, a.reps, quiet)
    print(f"2./3. LocalCluster of 2 worker processes (medians of {a.reps}):")
    print(f"{'variant':28s} {'start':>7s} {'1st task':>9s} {'close':>7s} {'coord. CPU':>11s} {'workers CPU':>12s}")
    for name, r in res["cluster"].items():
        print(f"{name:28s} {r['start_s']:6.2f}s {r['first_task_s'] * 1000:7.1f}ms {r['close_s']:6.2f}s "
              f"{r['coordinator_cpu_s']:10.2f}s {r['workers_cpu_s']:11.2f}s")
    if not a.no_catalogue:
        res["catalogue"] = catalogue_parts(a.reps)
        print(f"4. a 2-job catalogue, --workers 2 (medians of {a.reps}):")
        print(f"{'variant':54s} {'wall':>7s} {'ready at':>9s} {'jobs':>7s} {'rest':>7s}")
        for name, r in res["catalogue"].items():
            print(f"{name:54s} {r['wall_s']:6.2f}s {r['ready_s']:8.2f}s {r['jobs_s']:6.2f}s {r['rest_s']:6.2f}s")
    res["load_end"] = [round(x, 2) for x in os.getloadavg()]
    print(json.dumps(res, indent=1))
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(res, indent=1) + "\n", encoding="utf-8")
    print(f"-> {RESULTS}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
