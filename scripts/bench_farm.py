"""Catalogue throughput (issue #26): one batch process vs 1 and 2 local workers vs a Dask
LocalCluster of 2 workers, and a model predicting 8/32/128 workers from the measured figures.

    .venv/bin/python scripts/bench_farm.py [--sizes 12 24 36] [--models DIR] [--extra suzanne]
                                           [--dry-run]

The catalogue: every model in ../shared/models plus the built-ins given by --extra (7 + 1), at
three sizes: 24 jobs, each designed (clues hidden), no renders. The numba cache is warmed first (its compile time is reported
apart) in a private temporary folder, so the runs time work, not compilation.

Model of throughput: each job costs its time measured in the 1-worker run (in a long-lived
worker: import, voxelize, solve, write; the worker's start counts in its first job) plus the dispatch overhead per task measured on
the Dask LocalCluster (no-op tasks); N workers take jobs in catalogue order as they free up (list
scheduling), and the scheduler hands out one task at a time. Checked against the measured 2-worker
runs, then predicted for 8/32/128 workers, for this catalogue and for one 100 times as long.
Figures go to benchmarks/results/farm.json (benchmarks/report.py puts them in docs/BENCHMARKS.md).
"""
from __future__ import annotations

import argparse
import datetime
import heapq
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "benchmarks" / "results" / "farm.json"
MODEL_EXTENSIONS = (".obj", ".ply", ".stl", ".glb", ".gltf", ".fbx")


def load() -> list:
    return [round(x, 2) for x in os.getloadavg()]


def batch(args: list, env: dict) -> tuple:
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, str(ROOT / "batch.py"), "--", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True)
    wall = time.perf_counter() - t0
    if proc.returncode not in (0, 1):
        sys.stderr.write(proc.stdout[-3000:] + proc.stderr[-3000:])
        raise SystemExit(f"batch failed ({proc.returncode}): {' '.join(args)}")
    return wall, proc


def job_seconds(out: Path) -> list:
    """Each job's time in its worker (from the markers), in catalogue order of the summary."""
    rows = json.loads((out / "summary.json").read_text())
    secs = []
    for r in rows:
        done = json.loads((out / ".jobs" / f"{r['model']}-{r['resolution']}.done.json").read_text())
        secs.append(done["seconds"])
    return secs


def dask_overhead(n_tasks: int = 200) -> dict:
    """LocalCluster start-up and the per-task round trip of no-op tasks on 2 worker processes."""
    from dask import distributed
    t0 = time.perf_counter()
    cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                       dashboard_address=None, silence_logs=40)
    client = distributed.Client(cluster)
    startup = time.perf_counter() - t0
    try:
        noop = lambda i: i
        client.gather(client.map(noop, range(10), pure=False))  # warm the connections
        t0 = time.perf_counter()
        client.gather(client.map(noop, range(n_tasks), pure=False))
        per_task = (time.perf_counter() - t0) / n_tasks
    finally:
        client.close()
        cluster.close()
    return {"startup_s": startup, "per_task_s": per_task, "tasks": n_tasks}


def makespan(times: list, workers: int, per_task: float) -> float:
    """List scheduling in catalogue order: a free worker takes the next job; the scheduler
    dispatches one task per ``per_task`` seconds."""
    free = [0.0] * workers
    heapq.heapify(free)
    dispatch = 0.0
    end = 0.0
    for t in times:
        start = max(heapq.heappop(free), dispatch)
        dispatch = start + per_task
        finish = start + per_task + t
        end = max(end, finish)
        heapq.heappush(free, finish)
    return end


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--models", default=str(ROOT.parent / "shared" / "models"))
    ap.add_argument("--extra", nargs="*", default=["suzanne"], help="built-in models added")
    ap.add_argument("--sizes", nargs="+", default=["12", "24", "36"])
    ap.add_argument("--batch-options", default="--design --time-limit 20",
                    help="the batch's options for every job (default: '--design --time-limit 20': design "
                         "is single-threaded work, as a catalogue does; Cycles renders use every core)")
    ap.add_argument("--dry-run", action="store_true", help="2 models x 1 size, no results file")
    a = ap.parse_args()
    if not os.path.isdir(a.models):
        sys.stderr.write(f"no models folder {a.models} (the shared test data); nothing measured\n")
        return 2
    files = sorted(str(Path(a.models) / f) for f in os.listdir(a.models) if f.lower().endswith(MODEL_EXTENSIONS))
    inputs = files + list(a.extra)
    sizes = a.sizes
    if a.dry_run:
        inputs, sizes = inputs[:1] + list(a.extra)[:1], sizes[:1]
    n_jobs = len(inputs) * len(sizes)
    tmp = Path(tempfile.mkdtemp(prefix="bench_farm_"))
    env = dict(os.environ)
    # A private temp folder: the engine's numba cache lives there when not installed, and another
    # checkout of different engine sources would otherwise clear it between our runs.
    env["TMPDIR"] = str(tmp / "tmp")
    os.makedirs(env["TMPDIR"])
    res: dict = {"date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
                 "cpus": os.cpu_count(), "python": platform.python_version(), "jobs": n_jobs,
                 "inputs": [os.path.basename(i) for i in inputs], "sizes": [int(s) for s in sizes],
                 "load_start": load()}
    base = ["--input", *inputs, "--resolution", *sizes] + a.batch_options.split()
    res["batch_options"] = a.batch_options
    try:
        print(f"{n_jobs} jobs; warming the numba cache ...", flush=True)
        wall, _ = batch(["--input", "cube", "--resolution", "8", "--out", str(tmp / "warm")], env)
        res["warmup_compile_s"] = round(wall, 1)
        runs = {}
        for label, extra in (("sequential", []), ("workers1", ["--workers", "1"]),
                             ("workers2", ["--workers", "2"]), ("dask2", ["--workers", "2", "--dask"])):
            out = tmp / label
            l0 = load()
            wall, proc = batch(base + ["--out", str(out)] + extra, env)
            rows = json.loads((out / "summary.json").read_text())
            runs[label] = {"wall_s": round(wall, 2), "ok": sum(r["status"] == "ok" for r in rows),
                           "rows": len(rows), "load_before": l0, "load_after": load()}
            if label != "sequential":
                runs[label]["job_s"] = [round(s, 3) for s in job_seconds(out)]
            print(f"{label}: {wall:.1f} s, {runs[label]['ok']}/{len(rows)} ok, load {load()}", flush=True)
        res["runs"] = runs
        over = dask_overhead()
        res["dask"] = {k: round(v, 5) if isinstance(v, float) else v for k, v in over.items()}
        times = runs["workers1"]["job_s"]
        w1 = runs["workers1"]["wall_s"]
        res["speedup_workers2"] = round(w1 / runs["workers2"]["wall_s"], 2)
        res["speedup_dask2"] = round(w1 / runs["dask2"]["wall_s"], 2)
        res["speedup_workers2_vs_sequential"] = round(runs["sequential"]["wall_s"] / runs["workers2"]["wall_s"], 2)
        per_task = over["per_task_s"]
        model = {"check_workers2_s": round(makespan(times, 2, 0.0), 2),
                 "check_dask2_s": round(makespan(times, 2, per_task) + over["startup_s"], 2)}
        for n in (1, 2, 8, 32, 128):
            model[f"catalogue_{n}"] = round(makespan(times, n, per_task), 2)
            model[f"x100_{n}"] = round(makespan(times * 100, n, per_task), 1)
        model["longest_job_s"] = round(max(times), 2)
        model["sum_job_s"] = round(sum(times), 2)
        res["model"] = model
        res["load_end"] = load()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(json.dumps(res, indent=1))
    if not a.dry_run:
        RESULTS.parent.mkdir(parents=True, exist_ok=True)
        RESULTS.write_text(json.dumps(res, indent=1) + "\n", encoding="utf-8")
        print(f"-> {RESULTS}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
