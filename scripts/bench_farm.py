"""Catalogue throughput (issue #26): one batch process, 1 and 2 workers of the batch's own pool, a
Dask LocalCluster of 1 and of 2 worker processes (2: the default of ``--workers 2``), and a model
predicting 8/32/128 workers from the measured figures.

    .venv/bin/python scripts/bench_farm.py [--sizes 24 36 48] [--models DIR] [--extra suzanne]
                                           [--dry-run] [--no-sequential] [--full-jobs]

The catalogue: every model in ../shared/models plus the built-ins given by --extra (7 + 1), at
three sizes: 24 jobs, each designed (clues hidden), no renders. The sizes are 24, 36 and 48: at
12, 24 and 36 (the default until 2026-11-27; ``--sizes 12 24 36``) the jobs add up to about 10 s,
eight times one worker's start-up, so that catalogue measures mostly the start-up that every
worker pays at once (docs/BATCH.md, "Throughput"), not how the jobs spread over the workers. ``--full-jobs`` runs it a second
time with every job also writing its playable page (and the run its index.html) and a small Cycles
render of the player's view (``FULL_OPTIONS``), and reports both. Dask's 2 workers are compared with
the own pool's 1 worker and with Dask's own 1 worker. The numba cache is warmed first (its
compile time is reported apart) in a private temporary folder, and the add-on's bytecode written
(``warm_bytecode``: where PYTHONDONTWRITEBYTECODE is set, Python never writes it), so the runs
time work, not compilation. ``--dry-run``: 2 models x 2 sizes (4 jobs), to see that everything works; no results
file. The figures need an otherwise idle machine: the load average is printed before and after
every run.

What is measured, per run: the wall time; per job its time in its worker (from its marker in
``.jobs/``); per worker its start-up (Python, bpy, the add-on, the voxelizer's and solver's
kernels: from its start to its "ready") and its jobs; and the rest, the run's *overhead*: wall
minus the busiest worker's start-up + jobs (the coordinator's own start, handing out jobs and
collecting results, a LocalCluster's start, the workers' end).

Model of throughput: ``overhead + start-up + makespan`` where the makespan is list scheduling of
the per-job times (measured with one worker) in the order the batch hands jobs out (longest first,
by its estimate), plus Dask's dispatch overhead per task (no-op tasks on the LocalCluster, one task
dispatched at a time). Checked against the measured 2-worker runs, then predicted for 8/32/128
workers, for this catalogue and for one 100 times as long. Figures go to
benchmarks/results/farm.json (benchmarks/report.py puts them in docs/BENCHMARKS.md).
"""
from __future__ import annotations

import argparse
import datetime
import heapq
import importlib.util
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "benchmarks" / "results" / "farm.json"
MODEL_EXTENSIONS = (".obj", ".ply", ".stl", ".glb", ".gltf", ".fbx")
PREDICT = (1, 2, 8, 32, 128)


def batchjobs():
    """batchjobs.py (no bpy, a plain module at the repository's root): the batch's own job order,
    to model it."""
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    import batchjobs as mod
    return mod


# What a worker imports from this checkout: the add-on's packages and modules (the extension's
# contents, blender_manifest.toml), not the development folders.
NOT_IMPORTED = {".venv", "venv", "tests", "scripts", "docs", "benchmarks", "web", "dist", "build", "wheels", "out"}


def _bytecode_current(path: Path, cached: Path) -> bool:
    """Whether Python would use ``cached`` for ``path``: its header holds this Python's magic
    number and the source's modification time and size (a timestamp pyc, as ``py_compile``
    writes by default)."""
    try:
        head = cached.read_bytes()[:16]
    except OSError:
        return False
    st = path.stat()
    return (len(head) == 16 and head[:4] == importlib.util.MAGIC_NUMBER
            and int.from_bytes(head[4:8], "little") == 0
            and int.from_bytes(head[8:12], "little") == int(st.st_mtime) & 0xFFFFFFFF
            and int.from_bytes(head[12:16], "little") == st.st_size & 0xFFFFFFFF)


def warm_bytecode(root: Path = ROOT) -> dict:
    """Write the bytecode of the add-on's modules that lack an up-to-date one, as any Python does
    on their first import, so the runs time a warm start. Where PYTHONDONTWRITEBYTECODE is set
    (this machine's sandbox sets it) Python never writes it, and every worker would compile the
    add-on's sources again at its start: about 0.2 s of each worker's 1.3-1.5 s here (A/B, median
    of 6 pairs). ``py_compile`` writes it whatever that setting says."""
    import py_compile
    t0 = time.perf_counter()
    written = 0
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root).parts
        if rel[0] in NOT_IMPORTED or any(p.startswith(".") or p == "__pycache__" for p in rel):
            continue
        cached = Path(importlib.util.cache_from_source(str(path)))
        if _bytecode_current(path, cached):
            continue
        py_compile.compile(str(path), cfile=str(cached), doraise=True)
        written += 1
    return {"written": written, "seconds": round(time.perf_counter() - t0, 2),
            "python_writes_bytecode": not (sys.flags.dont_write_bytecode
                                           or bool(os.environ.get("PYTHONDONTWRITEBYTECODE")))}


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


def markers(out: Path) -> list:
    """Each job's marker, in the summary's (catalogue) order."""
    rows = json.loads((out / "summary.json").read_text())
    return [json.loads((out / ".jobs" / f"{r['model']}-{r['resolution']}.done.json").read_text()) for r in rows]


def per_worker(marks: list, wall: float) -> dict:
    """Each worker's start-up and jobs, and the run's overhead (wall minus the busiest worker)."""
    workers: dict = {}
    for m in marks:
        w = workers.setdefault(str(m.get("worker_pid", "?")), {"start_s": 0.0, "jobs": 0, "job_s": 0.0})
        w["start_s"] += m.get("worker_start_s", 0.0)
        w["jobs"] += 1
        w["job_s"] += m["seconds"]
    for w in workers.values():
        w["busy_s"] = w["start_s"] + w["job_s"]
        for k in ("start_s", "job_s", "busy_s"):
            w[k] = round(w[k], 2)
    busiest = max(w["busy_s"] for w in workers.values())
    return {"workers": list(workers.values()), "busiest_s": busiest, "overhead_s": round(wall - busiest, 2)}


def dask_overhead(n_tasks: int = 200) -> dict:
    """LocalCluster start-up and the per-task round trip of no-op tasks on 2 worker processes."""
    import dask
    from dask import distributed
    jobs_mod = batchjobs()
    # The batch's own LocalCluster settings (forked workers on Linux, Dask's monitoring quiet).
    config = dict(jobs_mod.QUIET_WORKERS)
    if jobs_mod.fork_workers():
        config["distributed.worker.multiprocessing-method"] = "fork"
    t0 = time.perf_counter()
    with dask.config.set(config):
        cluster = distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                           dashboard_address=None, silence_logs=40, memory_limit=0)
    client = distributed.Client(cluster)
    startup = time.perf_counter() - t0
    try:
        noop = lambda i: i  # noqa: E731
        client.gather(client.map(noop, range(10), pure=False))  # warm the connections
        t0 = time.perf_counter()
        client.gather(client.map(noop, range(n_tasks), pure=False))
        per_task = (time.perf_counter() - t0) / n_tasks
    finally:
        client.close()
        cluster.close()
    return {"startup_s": startup, "per_task_s": per_task, "tasks": n_tasks}


_BURN = "import time\nt = time.perf_counter()\nx = 0\nfor i in range(25_000_000):\n    x += i * i\nprint(time.perf_counter() - t)"


def cpu_ceiling(trials: int = 3) -> dict:
    """What this machine's cores give two CPU-bound processes at once: a pure-Python loop (no
    I/O, no memory traffic, nothing shared) run alone and then twice side by side. On a virtual
    machine whose two CPUs share a physical core, or whose host is busy, two processes each run
    slower than one alone, and no catalogue can beat that ratio (``ceiling``)."""
    def run(n: int) -> list:
        procs = [subprocess.Popen([sys.executable, "-c", _BURN], stdout=subprocess.PIPE, text=True)
                 for _ in range(n)]
        return [float(pr.communicate()[0]) for pr in procs]
    alone, pair = [], []
    for _ in range(trials):
        alone += run(1)
        pair += run(2)
    one, two = statistics.median(alone), statistics.median(pair)
    return {"alone_s": round(one, 3), "side_by_side_s": round(two, 3), "ceiling": round(2 * one / two, 2),
            "alone_all_s": [round(t, 3) for t in alone], "side_by_side_all_s": [round(t, 3) for t in pair]}


def makespan(times: list, workers: int, per_task: float) -> float:
    """List scheduling in the given order: a free worker takes the next job; the scheduler
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


# --full-jobs: every job also writes its playable page (index.html over them all) and a small
# Cycles render of the player's view, as a catalogue for a book or a game does.
FULL_OPTIONS = "--export-html --render player --render-size 128 --render-samples 8"
# (label, the batch's catalogue options): own pool and Dask, each with 1 and 2 worker processes.
# workers2_nopin: the own pool's 2 workers sharing every CPU, as before each kept to its own.
PLAN = [("workers1", ["--workers", "1", "--pool"]), ("workers2", ["--workers", "2", "--pool"]),
        ("workers2_nopin", ["--workers", "2", "--pool", "--no-pin"]),
        ("dask1", ["--workers", "1", "--dask"]), ("dask2", ["--workers", "2"])]


def run_plan(base: list, root: Path, env: dict, sequential: bool) -> dict:
    """The catalogue ``base`` once per run of PLAN (and in one batch process), each into its own
    folder: wall time, rows, load, and from the markers each job's and each worker's time."""
    runs = {}
    plan = ([("sequential", [])] if sequential else []) + PLAN
    for label, extra in plan:
        out = root / label
        l0 = load()
        wall, proc = batch(base + ["--out", str(out)] + extra, env)
        rows = json.loads((out / "summary.json").read_text())
        run = {"wall_s": round(wall, 2), "ok": sum(r["status"] == "ok" for r in rows),
               "rows": len(rows), "load_before": l0, "load_after": load(), "args": extra}
        if label.startswith("dask") and "LocalCluster" not in proc.stdout:
            raise SystemExit(f"{' '.join(extra)} did not run on a Dask LocalCluster (is dask installed?)")
        if label != "sequential":
            marks = markers(out)
            run["job_s"] = [round(m["seconds"], 3) for m in marks]
            run.update(per_worker(marks, wall))
        runs[label] = run
        more = (f"; per worker start-up {[w['start_s'] for w in run['workers']]} s, jobs "
                f"{[w['job_s'] for w in run['workers']]} s, overhead {run['overhead_s']} s"
                if "workers" in run else "")
        print(f"{label}: {wall:.1f} s, {run['ok']}/{len(rows)} ok, load {l0} -> {load()}{more}", flush=True)
    return runs


def speedups(runs: dict) -> dict:
    """2 workers against one: the own pool's 1 worker, and for Dask also Dask's 1 worker (both are
    honest readings of "the throughput of one")."""
    w1 = runs["workers1"]["wall_s"]
    out = {"speedup_workers2": round(w1 / runs["workers2"]["wall_s"], 2),
           "speedup_dask2": round(w1 / runs["dask2"]["wall_s"], 2),
           "speedup_dask2_vs_dask1": round(runs["dask1"]["wall_s"] / runs["dask2"]["wall_s"], 2)}
    if "workers2_nopin" in runs:
        out["speedup_workers2_nopin"] = round(w1 / runs["workers2_nopin"]["wall_s"], 2)
    if "sequential" in runs:
        out["speedup_workers2_vs_sequential"] = round(runs["sequential"]["wall_s"] / runs["workers2"]["wall_s"], 2)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--models", default=str(ROOT.parent / "shared" / "models"))
    ap.add_argument("--extra", nargs="*", default=["suzanne"], help="built-in models added")
    ap.add_argument("--sizes", nargs="+", default=["24", "36", "48"])
    ap.add_argument("--batch-options", default="--design --time-limit 20",
                    help="the batch's options for every job (default: '--design --time-limit 20': design "
                         "is single-threaded work, as a catalogue does; Cycles renders use every core)")
    ap.add_argument("--no-sequential", action="store_true", help="leave out the one-batch-process run")
    ap.add_argument("--dry-run", action="store_true", help="2 models x 2 sizes, no results file")
    ap.add_argument("--repeat", type=int, default=1, metavar="N",
                    help="run the plan N times, the rounds interleaved, and report each round's speed-ups "
                         "and their medians (this VM's runs vary by +-15%%: one run says little)")
    ap.add_argument("--full-jobs", action="store_true",
                    help=f"also run the catalogue whose jobs write the playable page and a small player "
                         f"render ({FULL_OPTIONS}) and report both")
    a = ap.parse_args()
    if not os.path.isdir(a.models):
        sys.stderr.write(f"no models folder {a.models} (the shared test data); nothing measured\n")
        return 2
    files = sorted(str(Path(a.models) / f) for f in os.listdir(a.models) if f.lower().endswith(MODEL_EXTENSIONS))
    inputs = files + list(a.extra)
    sizes = a.sizes
    if a.dry_run:
        inputs, sizes = inputs[:1] + list(a.extra)[:1], sizes[:2]
    n_jobs = len(inputs) * len(sizes)
    jobs_mod = batchjobs()
    # The batch's hand-out order (longest first by its estimate), as indices into the catalogue.
    jobs = jobs_mod.make_jobs([(Path(i).stem if os.path.exists(i) else i, i) for i in inputs],
                              [int(s) for s in sizes], None)
    order = [job.index for job, _ in jobs_mod.longest_first(jobs, [None] * len(jobs))]
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
    t_bench = time.perf_counter()
    try:
        print(f"{n_jobs} jobs; warming the numba cache ...", flush=True)
        # With the catalogue's options: every kernel its jobs use compiles here (--design's too),
        # not in the first run measured.
        wall, _ = batch(["--input", "cube", "--resolution", "8", "--out", str(tmp / "warm")]
                        + a.batch_options.split(), env)
        res["warmup_compile_s"] = round(wall, 1)
        print(f"warm-up (compiles the kernels, not counted): {wall:.1f} s", flush=True)
        res["bytecode"] = warm_bytecode()
        print(f"bytecode of the add-on's modules: {res['bytecode']['written']} written "
              f"({'Python writes it itself here' if res['bytecode']['python_writes_bytecode'] else 'PYTHONDONTWRITEBYTECODE is set: Python would not'})",
              flush=True)
        if a.full_jobs:  # the full catalogue's options once too (the render and page code load)
            batch(["--input", "cube", "--resolution", "8", "--out", str(tmp / "warm-full")]
                  + a.batch_options.split() + FULL_OPTIONS.split(), env)
        runs = run_plan(base, tmp / "designed", env, sequential=not a.no_sequential)
        res["runs"] = runs
        if a.repeat > 1:
            rounds = [runs] + [run_plan(base, tmp / f"designed{r}", env, sequential=False)
                               for r in range(1, a.repeat)]
            res["rounds"] = [{"walls": {k: r["wall_s"] for k, r in rr.items()}, **speedups(rr)}
                             for rr in rounds]
            # the speed-ups every round has (only the first runs the one-process batch)
            keys = [k for k in res["rounds"][0] if k.startswith("speedup") and all(k in r for r in res["rounds"])]
            res["median"] = {k: round(statistics.median(r[k] for r in res["rounds"]), 2) for k in keys}
        if a.full_jobs:
            print(f"the full catalogue: {a.batch_options} {FULL_OPTIONS}", flush=True)
            full = run_plan(base + FULL_OPTIONS.split(), tmp / "full", env, sequential=False)
            res["full"] = {"batch_options": f"{a.batch_options} {FULL_OPTIONS}", "runs": full,
                           **speedups(full)}
        res["cpu"] = cpu_ceiling()
        print(f"CPU ceiling: a CPU-bound process alone {res['cpu']['alone_s']} s, two side by side "
              f"{res['cpu']['side_by_side_s']} s each: 2 processes give {res['cpu']['ceiling']}x one", flush=True)
        over = dask_overhead()
        res["dask"] = {k: round(v, 5) if isinstance(v, float) else v for k, v in over.items()}
        w1 = runs["workers1"]
        times = w1["job_s"]
        start = w1["workers"][0]["start_s"]
        handed = [times[i] for i in order]  # the batch's order: longest first
        res.update(speedups(runs))
        per_task = over["per_task_s"]
        model: dict = {"sum_job_s": round(sum(times), 2), "longest_job_s": round(max(times), 2),
                       "median_job_s": round(statistics.median(times), 3), "worker_start_s": start,
                       "overhead_pool_s": w1["overhead_s"], "overhead_dask_s": runs["dask2"]["overhead_s"],
                       "per_task_s": round(per_task, 5)}
        # The 2-worker runs from the 1-worker figures: the same start-up and overhead, the jobs shared.
        model["check_workers2_s"] = round(w1["overhead_s"] + start + makespan(handed, 2, 0.0), 2)
        model["check_dask2_s"] = round(runs["dask2"]["overhead_s"] + start + makespan(handed, 2, per_task), 2)
        # The same with no start-up or overhead: what the jobs alone allow (the steady state).
        model["jobs_only_speedup_2"] = round(sum(times) / makespan(handed, 2, 0.0), 2)
        # measured: how much slower each job ran beside another worker than alone
        model["job_slowdown_2"] = round(sum(runs["workers2"]["job_s"]) / sum(times), 2)
        fixed = runs["dask2"]["overhead_s"] + start
        for n in PREDICT:
            model[f"catalogue_{n}"] = round(fixed + makespan(handed, n, per_task), 2)
            model[f"x100_{n}"] = round(fixed + makespan(handed * 100, n, per_task), 1)
        res["model"] = model
        res["load_end"] = load()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    res["bench_s"] = round(time.perf_counter() - t_bench, 1)
    print(json.dumps(res, indent=1))
    print_table(res)
    if not a.dry_run:
        RESULTS.parent.mkdir(parents=True, exist_ok=True)
        RESULTS.write_text(json.dumps(res, indent=1) + "\n", encoding="utf-8")
        print(f"-> {RESULTS}")
    return 0


def print_runs(runs: dict) -> None:
    w1 = runs["workers1"]["wall_s"]
    d1 = runs.get("dask1", {}).get("wall_s")
    print(f"{'run':12s} {'wall':>8s} {'vs pool 1':>10s} {'vs Dask 1':>10s} {'start-up per worker':>22s} "
          f"{'overhead':>9s}  load")
    for label, r in runs.items():
        starts = ", ".join(f"{w['start_s']:.2f}" for w in r.get("workers", []))
        over = f"{r['overhead_s']:.2f} s" if "overhead_s" in r else ""
        vs_d1 = f"{d1 / r['wall_s']:9.2f}x" if d1 and label.startswith("dask") else " " * 10
        print(f"{label:12s} {r['wall_s']:7.2f}s {w1 / r['wall_s']:9.2f}x {vs_d1} {starts:>22s} {over:>9s}  "
              f"{r['load_before']} -> {r['load_after']}")


def print_table(res: dict) -> None:
    runs, m = res["runs"], res["model"]
    print(f"\n{res['jobs']} jobs, {res['cpus']} CPUs, load {res['load_start']} -> {res['load_end']}, "
          f"bench {res['bench_s']} s (warm-up compile {res['warmup_compile_s']} s)")
    print(f"the designed catalogue ({res['batch_options']}): Dask 2 vs own pool 1 {res['speedup_dask2']}x, "
          f"vs Dask 1 {res['speedup_dask2_vs_dask1']}x; own pool 2 vs 1 {res['speedup_workers2']}x")
    print_runs(runs)
    for i, r in enumerate(res.get("rounds", [])):
        walls = ", ".join(f"{k} {v:.2f}s" for k, v in r["walls"].items())
        print(f"round {i + 1}: own pool 2 vs 1 {r['speedup_workers2']}x, Dask 2 vs own pool 1 "
              f"{r['speedup_dask2']}x, vs Dask 1 {r['speedup_dask2_vs_dask1']}x ({walls})")
    if "median" in res:
        print("median of the rounds: " + ", ".join(f"{k} {v}x" for k, v in res["median"].items()))
    if "full" in res:
        f = res["full"]
        print(f"the full catalogue ({f['batch_options']}): Dask 2 vs own pool 1 {f['speedup_dask2']}x, "
              f"vs Dask 1 {f['speedup_dask2_vs_dask1']}x; own pool 2 vs 1 {f['speedup_workers2']}x")
        print_runs(f["runs"])
    print(f"per job (1 worker): sum {m['sum_job_s']} s, median {m['median_job_s']} s, longest "
          f"{m['longest_job_s']} s; jobs alone on 2 workers: {m['jobs_only_speedup_2']}x")
    if "cpu" in res:
        c = res["cpu"]
        print(f"CPU ceiling: 2 CPU-bound processes give {c['ceiling']}x one (alone {c['alone_s']} s, side by "
              f"side {c['side_by_side_s']} s); the jobs ran {m.get('job_slowdown_2', '?')}x slower beside "
              f"another worker; 2 workers reached {res['speedup_workers2']}x, Dask {res['speedup_dask2']}x, "
              f"that is {res['speedup_workers2'] / c['ceiling']:.0%} / {res['speedup_dask2'] / c['ceiling']:.0%} "
              "of what the machine allows")
    print(f"model check: 2 workers {m['check_workers2_s']} s (measured {runs['workers2']['wall_s']} s), "
          f"Dask 2 {m['check_dask2_s']} s (measured {runs['dask2']['wall_s']} s); Dask per task "
          f"{1000 * m['per_task_s']:.2f} ms, LocalCluster start {res['dask']['startup_s']:.2f} s")
    print(f"{'workers':>8s} {'this catalogue':>15s} {'speed-up':>9s} {'100x as long':>13s} {'speed-up':>9s}")
    for n in PREDICT:
        c, x = m[f"catalogue_{n}"], m[f"x100_{n}"]
        print(f"{n:8d} {c:14.2f}s {m['catalogue_1'] / c:8.2f}x {x:12.1f}s {m['x100_1'] / x:8.2f}x")


if __name__ == "__main__":
    sys.exit(main())
