"""Catalogue runs of the batch (batchjobs.py): --workers (a Dask LocalCluster when dask is
installed), --pool (the batch's own worker processes), a killed worker, a corrupt model, --resume. Small on purpose: Suzanne and an octahedron file at 8 and 10, no renders.

Every run is a subprocess, as in test_batch.py; each job is a batch process of its own.
"""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

pytest.importorskip("bpy", reason="needs the bpy module (pip install bpy==5.0.1, Python 3.11)")
pytestmark = pytest.mark.blender

ROOT = Path(__file__).resolve().parent.parent
PY = sys.executable
RESOLUTIONS = ["8", "10"]

OCTAHEDRON = """\
v 1 0 0
v -1 0 0
v 0 1 0
v 0 -1 0
v 0 0 1.5
v 0 0 -1.5
f 1 3 5
f 3 2 5
f 2 4 5
f 4 1 5
f 3 1 6
f 2 3 6
f 4 2 6
f 1 4 6
"""


def run(args, timeout=300, env=None) -> subprocess.CompletedProcess:
    proc = subprocess.run([PY, "batch.py", "--", *args], capture_output=True, text=True,
                          timeout=timeout, cwd=ROOT, env=env)
    print(proc.stdout[-4000:])
    print(proc.stderr[-4000:], file=sys.stderr)
    return proc


def _without_times(value):
    """Outputs with the timings (which differ between any two runs) left out."""
    if isinstance(value, dict):
        return {k: _without_times(v) for k, v in value.items()
                if not (k.endswith("_s") or k in ("time_s", "timings"))}
    if isinstance(value, list):
        return [_without_times(v) for v in value]
    return value


def outputs(out: Path) -> dict:
    """Every output file (not the job folder): JSON without timings, else the bytes."""
    files = {}
    for p in sorted(out.iterdir()):
        if p.is_file():
            if p.suffix == ".json":
                files[p.name] = _without_times(json.loads(p.read_text(encoding="utf-8")))
            elif p.name != "summary.csv":  # its time columns differ; summary.json holds the rows
                files[p.name] = p.read_bytes()
    return files


@pytest.fixture(scope="module")
def models(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("models")
    octa = tmp / "octa.obj"
    octa.write_text(OCTAHEDRON, encoding="utf-8")
    broken = tmp / "broken.glb"
    broken.write_bytes(b"glTF\x02\x00\x00\x00 this is not a model")
    return {"octa": str(octa), "broken": str(broken)}


@pytest.fixture(scope="module")
def sequential(models, tmp_path_factory):
    out = tmp_path_factory.mktemp("seq") / "out"
    proc = run(["--input", "suzanne", models["octa"], "--resolution", *RESOLUTIONS, "--out", str(out)])
    assert proc.returncode == 0, proc.stderr
    return out


@pytest.fixture(scope="module")
def two_workers(models, tmp_path_factory):
    """--workers 2 in the batch's own pool."""
    out = tmp_path_factory.mktemp("w2") / "out"
    proc = run(["--input", "suzanne", models["octa"], "--resolution", *RESOLUTIONS, "--out", str(out),
                "--workers", "2", "--pool"])
    assert proc.returncode == 0, proc.stderr
    assert "4 job(s) in 2 worker process(es)" in proc.stdout
    return out, proc


def test_two_workers_match_sequential(sequential, two_workers):
    out, proc = two_workers
    seq = outputs(sequential)
    par = outputs(out)
    assert sorted(par) == sorted(seq)
    assert len([n for n in seq if n.endswith(".puzzle.json")]) == 4
    for name in seq:
        assert par[name] == seq[name], name
    rows = json.loads((out / "summary.json").read_text())
    assert [(r["model"], r["resolution"]) for r in rows] == [
        ("suzanne", 8), ("suzanne", 10), ("octa", 8), ("octa", 10)]
    # one progress line per finished job, counting the whole run
    lines = [ln for ln in proc.stdout.splitlines() if "/4] " in ln]
    assert [ln.split("] ")[1].split("[")[1] for ln in lines] == ["1/4", "2/4", "3/4", "4/4"]
    assert not list((out / ".jobs").glob("*/")), "staging folders are removed"
    # each worker's start-up is recorded with its first job, apart from the job's own time
    markers = [json.loads(p.read_text()) for p in (out / ".jobs").glob("*.done.json")]
    starts = [m["worker_start_s"] for m in markers if "worker_start_s" in m]
    assert len(starts) == 2 and all(s > 0 for s in starts)
    # longest first: the resolution-10 jobs were handed out before the resolution-8 ones
    handed = [ln for ln in proc.stdout.splitlines() if "/4] " in ln]
    assert handed and " @ 10" in handed[0] + handed[1]


@pytest.mark.parametrize("start", ["early", "spawn"])
def test_dask_local_cluster_matches_sequential(sequential, models, tmp_path, start):
    """--workers 2 alone: a Dask LocalCluster, the embedded default. On Linux the coordinator
    starts the batch processes before the cluster and the forked Dask workers take them over
    ("early"); NONOGRAM_DASK_SPAWN=1 is Dask's own spawned workers, each of which starts its
    batch process (what macOS and Windows run)."""
    pytest.importorskip("distributed", reason="needs dask[distributed] (requirements-dev.txt)")
    if start == "early" and not sys.platform.startswith("linux"):
        pytest.skip("the early start forks the Dask workers: Linux only")
    out = tmp_path / "out"
    env = dict(os.environ, NONOGRAM_DASK_SPAWN="1" if start == "spawn" else "0")
    proc = run(["--input", "suzanne", models["octa"], "--resolution", *RESOLUTIONS, "--out", str(out),
                "--workers", "2"], env=env)
    assert proc.returncode == 0, proc.stderr
    assert "LocalCluster of 2 worker" in proc.stdout
    markers = [json.loads(p.read_text()) for p in (out / ".jobs").glob("*.done.json")]
    assert 1 <= sum("worker_start_s" in m for m in markers) <= 2  # started once per worker
    logs = sorted(p.name for p in (out / ".jobs").glob("dask-worker-*.log"))
    if start == "early":  # the coordinator's two, named by slot: no Dask worker started its own
        assert logs == ["dask-worker-1.log", "dask-worker-2.log"]
    else:  # each Dask worker's own, named by its process id
        assert len(logs) == 2 and "dask-worker-1.log" not in logs
    if hasattr(os, "sched_getaffinity") and len(os.sched_getaffinity(0)) >= 2:
        # each batch process on CPUs of its own, also when a spawned Dask worker started it
        kept = [_kept_to(out / ".jobs" / name) for name in logs]
        assert all(kept) and not set(kept[0]) & set(kept[1]), kept
    seq = outputs(sequential)
    assert outputs(out) == seq


def test_dask_one_worker_matches_sequential(sequential, models, tmp_path):
    """--workers 1 --dask: the 1-worker Dask baseline that scripts/bench_farm.py measures."""
    pytest.importorskip("distributed", reason="needs dask[distributed] (requirements-dev.txt)")
    out = tmp_path / "out"
    proc = run(["--input", "suzanne", models["octa"], "--resolution", *RESOLUTIONS, "--out", str(out),
                "--workers", "1", "--dask"])
    assert proc.returncode == 0, proc.stderr
    assert "LocalCluster of 1 worker" in proc.stdout
    pids = {json.loads(p.read_text())["worker_pid"] for p in (out / ".jobs").glob("*.done.json")}
    assert len(pids) == 1  # one batch process ran all four jobs
    assert outputs(out) == outputs(sequential)


def test_full_jobs_pages_and_renders_match_sequential(tmp_path):
    """A catalogue whose jobs also write the playable page and a player render (bench_farm.py
    --full-jobs): the same pages, index and images as one batch process; the coordinator loads
    the engine's page module, not bpy."""
    pytest.importorskip("distributed", reason="needs dask[distributed] (requirements-dev.txt)")
    pil = pytest.importorskip("PIL.Image")
    args = ["--input", "suzanne", "cube", "--resolution", "6", "--design", "--export-html",
            "--render", "player", "--render-size", "32", "--render-samples", "1"]
    seq = tmp_path / "seq"
    assert run(args + ["--out", str(seq)]).returncode == 0
    out = tmp_path / "dask"
    code = ("import runpy, sys\n"
            f"sys.argv = ['batch.py', '--', *{args!r}, '--out', {str(out)!r}, '--workers', '2']\n"
            "try:\n    runpy.run_path('batch.py', run_name='__main__')\n"
            "except SystemExit as e:\n    print('EXIT', e.code, 'bpy imported:', 'bpy' in sys.modules)")
    proc = subprocess.run([PY, "-c", code], capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert "EXIT 0 bpy imported: False" in proc.stdout, proc.stdout + proc.stderr
    assert "LocalCluster of 2 worker" in proc.stdout
    assert (out / "index.html").read_bytes() == (seq / "index.html").read_bytes()
    for name in ("suzanne-6", "cube-6"):
        assert (out / f"{name}.html").stat().st_size > 1000
        with pil.open(seq / f"{name}.png") as a, pil.open(out / f"{name}.png") as b:
            assert a.size == b.size == (32, 32) and a.tobytes() == b.tobytes(), name
    rows = json.loads((out / "summary.json").read_text())
    assert [(r["html_file"], r["png_file"]) for r in rows] == [
        ("suzanne-6.html", "suzanne-6.png"), ("cube-6.html", "cube-6.png")]


def test_attached_batch_process_reads_its_end_from_proc(tmp_path):
    """A Dask worker that took over a batch process the coordinator started is not its parent:
    the process's end (a signal, an exit status) is read from /proc before the parent reaps it."""
    if not sys.platform.startswith("linux"):
        pytest.skip("/proc: Linux")
    jobs_mod = _batchjobs()
    sleeper = subprocess.Popen([PY, "-c", "import time; time.sleep(60)"])
    quitter = subprocess.Popen([PY, "-c", "raise SystemExit(3)"])
    try:
        seen = jobs_mod._Attached(sleeper.pid, None, None)
        assert seen.poll() is None
        sleeper.send_signal(signal.SIGKILL)
        assert seen.wait(timeout=10) == -9
        assert jobs_mod._Attached(quitter.pid, None, None).wait(timeout=10) == 3
    finally:
        sleeper.kill()
        sleeper.wait()
        quitter.wait()
    assert jobs_mod._Attached(quitter.pid, None, None).poll() == -1  # reaped: the status is gone


def test_resume_skips_complete_jobs(two_workers, models):
    out, _ = two_workers
    before = {p.name: p.stat().st_mtime_ns for p in out.glob("*.puzzle.json")}
    args = ["--input", "suzanne", models["octa"], "--resolution", *RESOLUTIONS, "--out", str(out),
            "--workers", "2", "--resume"]
    proc = run(args)
    assert proc.returncode == 0, proc.stderr
    assert "4 of 4 job(s) complete, 0 to run" in proc.stdout
    assert {p.name: p.stat().st_mtime_ns for p in out.glob("*.puzzle.json")} == before
    assert len(json.loads((out / "summary.json").read_text())) == 4
    # an output gone: only that job runs again
    (out / "octa-10.report.json").unlink()
    proc = run(args)
    assert proc.returncode == 0, proc.stderr
    assert "3 of 4 job(s) complete, 1 to run" in proc.stdout
    assert (out / "octa-10.report.json").is_file()
    assert {p.name: p.stat().st_mtime_ns for p in out.glob("*.puzzle.json")
            if p.name != "octa-10.puzzle.json"} == {k: v for k, v in before.items() if k != "octa-10.puzzle.json"}
    # other options: nothing counts as complete
    proc = run(args[:-1] + ["--resume", "--samples", "2", "--resolution", "8"])
    assert "0 of 2 job(s) complete, 2 to run" in proc.stdout


@pytest.mark.parametrize("driver", ["--pool", "--dask"])
def test_killed_worker_loses_no_job_and_a_corrupt_model_fails_alone(models, tmp_path, driver):
    psutil = pytest.importorskip("psutil")
    if driver == "--dask":
        pytest.importorskip("distributed", reason="needs dask[distributed] (requirements-dev.txt)")
    out = tmp_path / "out"
    cmd = [PY, "batch.py", "--", "--input", "suzanne", models["broken"], models["octa"],
           "--resolution", "8", "--out", str(out), "--workers", "2", driver]
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    killed = None
    try:
        deadline = time.monotonic() + 120
        while killed is None and time.monotonic() < deadline and proc.poll() is None:
            for child in psutil.Process(proc.pid).children(recursive=True):
                try:
                    cmdline = child.cmdline()
                except psutil.Error:
                    continue
                if "--serve" not in cmdline:
                    continue
                log = out / ".jobs" / "suzanne-8.log"
                try:
                    busy = any(f.path == str(log) for f in child.open_files())
                except psutil.Error:
                    continue
                # mid-job: the worker writes the suzanne job's log and has started on the model
                if busy and "[1/1]" in log.read_text(errors="replace"):
                    child.send_signal(signal.SIGKILL)
                    killed = child.pid
                    break
            time.sleep(0.05)
        stdout, _ = proc.communicate(timeout=300)
    finally:
        if proc.poll() is None:
            proc.kill()
    print(stdout[-4000:])
    assert killed is not None, "never saw the suzanne job's worker at work"
    assert "suzanne-8: batch process ended with status -9" in stdout and "running it again" in stdout
    assert proc.returncode == 1  # the corrupt model
    rows = json.loads((out / "summary.json").read_text())
    assert [(r["model"], r["status"]) for r in rows] == [("suzanne", "ok"), ("broken", "error"), ("octa", "ok")]
    assert rows[1]["error"] and "failed 2 times" not in rows[1]["error"]  # an answer, not a crash
    assert (out / "suzanne-8.puzzle.json").is_file() and (out / "octa-8.puzzle.json").is_file()


def test_worker_options_pass_through(models):
    """Every option besides the catalogue's own reaches the jobs, spelled as the parser takes it."""
    import importlib.util
    spec = importlib.util.spec_from_file_location("nonogram_batch_options_test", ROOT / "batch.py")
    batch = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(batch)
    argv = ["--input", "a.obj", "--resolution", "8", "--workers", "3", "--solvers", "hier+pre", "brute",
            "--slice", "z=-2", "--render", "player", "--no-robust", "--time-limit", "5", "--design", "hard",
            "--resume", "--out", "x", "--thin-parts", "none", "--colours", "8", "--clue-layer", "x=3",
            "--reso=10", "--work", "2", "--pool", "--no-pin"]
    args = batch.parse_args(argv)
    opts = batch.worker_options(args)
    assert not {"--workers", "--work", "2", "--resume", "--input", "a.obj", "--out", "x", "--reso=10",
                "--pool", "--no-pin"} & set(opts)
    again = batch.parse_args(["--input", "a.obj"] + opts)
    for key in ("solvers", "slice", "render", "no_robust", "time_limit", "design", "thin_parts", "bridge",
                "colours", "clue_layer"):
        assert getattr(again, key) == getattr(args, key), key


def _job_giver(psutil, serve, coordinator: int):
    """The Dask worker that gives a batch process its jobs: the process, other than the batch
    process itself and the coordinator (which started it early and let go of its pipes), that
    holds the other end of its stdin (Linux: /proc/PID/fd), else its parent."""
    import os
    try:
        pipe = os.readlink(f"/proc/{serve.pid}/fd/0")
    except OSError:
        return serve.parent()
    for other in psutil.Process(coordinator).children(recursive=True):
        if other.pid == serve.pid:
            continue
        try:
            fds = os.listdir(f"/proc/{other.pid}/fd")
        except OSError:
            continue
        for fd in fds:
            try:
                if os.readlink(f"/proc/{other.pid}/fd/{fd}") == pipe:
                    return other
            except OSError:
                pass
    return None


def test_dask_worker_killed_mid_job_loses_no_job(models, tmp_path):
    """The Dask worker itself dies (with the batch process it kept): its task runs elsewhere."""
    pytest.importorskip("distributed", reason="needs dask[distributed] (requirements-dev.txt)")
    psutil = pytest.importorskip("psutil")
    out = tmp_path / "out"
    cmd = [PY, "batch.py", "--", "--input", "suzanne", models["octa"], "--resolution", "8",
           "--out", str(out), "--workers", "2", "--dask"]
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    killed = None
    log = out / ".jobs" / "suzanne-8.log"
    try:
        deadline = time.monotonic() + 120
        while killed is None and time.monotonic() < deadline and proc.poll() is None:
            for child in psutil.Process(proc.pid).children(recursive=True):
                try:
                    if "--serve" not in child.cmdline():
                        continue
                    busy = any(f.path == str(log) for f in child.open_files())
                    host = _job_giver(psutil, child, proc.pid)
                except psutil.Error:
                    continue
                if busy and host is not None and "[1/1]" in log.read_text(errors="replace"):
                    host.send_signal(signal.SIGKILL)  # the Dask worker, not the batch process
                    killed = host.pid
                    break
            time.sleep(0.05)
        stdout, _ = proc.communicate(timeout=300)
    finally:
        if proc.poll() is None:
            proc.kill()
    print(stdout[-4000:])
    assert killed is not None, "never saw the suzanne job's Dask worker at work"
    assert proc.returncode == 0
    rows = json.loads((out / "summary.json").read_text())
    assert [(r["model"], r["status"]) for r in rows] == [("suzanne", "ok"), ("octa", "ok")]
    assert (out / "suzanne-8.puzzle.json").is_file()


def test_dask_missing_is_a_clear_message(tmp_path):
    code = ("import runpy, sys; sys.modules['dask'] = None; "
            f"sys.argv = ['batch.py', '--', '--input', 'cube', '--dask', '--out', {str(tmp_path)!r}]; "
            "runpy.run_path('batch.py', run_name='__main__')")
    proc = subprocess.run([PY, "-c", code], capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "Dask is not installed: pip install 'dask[distributed]'" in proc.stderr
    assert not (tmp_path / "summary.csv").exists()


def test_workers_without_dask_use_the_own_pool(tmp_path):
    """--workers N without dask installed: the batch's own worker processes, and it says so. The
    coordinator (a plain Python) never imports bpy: its workers do the Blender work."""
    code = ("import runpy, sys; sys.modules['dask'] = None; sys.modules['distributed'] = None; "
            f"sys.argv = ['batch.py', '--', '--input', 'cube', '--resolution', '4', '--workers', '1', "
            f"'--out', {str(tmp_path)!r}]\n"
            "try:\n    runpy.run_path('batch.py', run_name='__main__')\n"
            "except SystemExit as e:\n    print('EXIT', e.code, 'bpy imported:', 'bpy' in sys.modules)")
    proc = subprocess.run([PY, "-c", code], capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert "EXIT 0 bpy imported: False" in proc.stdout, proc.stdout + proc.stderr
    assert "Dask is not installed (pip install 'dask[distributed]'): running the jobs in the batch's own" \
        in proc.stdout
    assert "1 job(s) in 1 worker process(es)" in proc.stdout
    assert (tmp_path / "cube-4.puzzle.json").is_file()


def _batchjobs():
    """batchjobs.py, a plain module at the repository's root (conftest puts the root on sys.path)."""
    import batchjobs
    return batchjobs


def test_jobs_are_handed_out_longest_first(tmp_path):
    """LPT by the estimate (resolution³, file size weakly); ties keep the catalogue order."""
    jobs_mod = _batchjobs()
    small, big = tmp_path / "small.obj", tmp_path / "big.obj"
    small.write_text("v 0 0 0\n" * 10)
    big.write_text("v 0 0 0\n" * 400_000)  # 3.2 MB: weighs more than a small file at the same size
    jobs = jobs_mod.make_jobs([("small", str(small)), ("big", str(big)), ("cube", "cube")], [12, 36], None)
    order = [(job.name, job.resolution) for job, _ in jobs_mod.longest_first(jobs, [None] * len(jobs))]
    assert order == [("big", 36), ("small", 36), ("cube", 36), ("big", 12), ("small", 12), ("cube", 12)]


def test_a_dask_catalogue_waits_in_the_scheduler_and_goes_out_longest_first():
    """The jobs' keys put the catalogue in one Dask task group, so the scheduler holds it back
    (worker saturation 1.0) and hands the next job, by priority, to whichever worker frees up.
    With a group per model (the keys ``nonogram-<model>-<size>-…``: 3 jobs each), Dask sent every
    job to a worker as it was submitted and none waited: the run could end on one worker's long
    jobs. Tasks that block on an event show where the jobs are while both workers are busy."""
    distributed = pytest.importorskip("distributed", reason="needs dask[distributed] (requirements-dev.txt)")
    import dask
    jobs_mod = _batchjobs()
    models = [(n, n) for n in ("duck", "horse", "jeep", "bunny", "teapot", "trex", "suzanne", "cube")]
    jobs = jobs_mod.make_jobs(models, [12, 24, 36], None)
    order = [job for job, _ in jobs_mod.longest_first(jobs, [None] * len(jobs))]
    keys = [jobs_mod.task_key(job, {"key": job.key, "signature": "0123456789abcdef"}, 1) for job in order]
    assert len(set(keys)) == len(jobs)

    def hold(name):
        distributed.Event(name).wait(30)

    def where(dask_scheduler):
        return ([ts.key for ts in dask_scheduler.queued.sorted()],
                sorted(ts.key for ws in dask_scheduler.workers.values() for ts in ws.processing))

    with dask.config.set({"distributed.scheduler.worker-saturation": 1.0}), \
            distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                     dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        futures = [client.submit(hold, "go", key=key, pure=False, priority=len(keys) - rank)
                   for rank, key in enumerate(keys)]
        end = time.monotonic() + 20
        queued, running = where_now = client.run_on_scheduler(where)
        while len(queued) + len(running) < len(keys) and time.monotonic() < end:
            time.sleep(0.05)
            queued, running = where_now = client.run_on_scheduler(where)
        distributed.Event("go").set()
        client.gather(futures)
    # The first few jobs go to the workers as they come (the group is not yet larger than twice
    # the threads), the longest of all; the rest wait in the scheduler, longest first.
    queued, running = where_now
    assert len(running) <= 4 and sorted(running) == sorted(keys[:len(running)])
    assert queued == keys[len(running):]


def test_process_cpus_reads_the_pinning_from_the_system():
    """A render's thread count follows the CPUs the process may use (however it was pinned: by
    the coordinator, or ``taskset`` from outside, with no environment variable), and none is set
    for a process that has them all."""
    if not hasattr(os, "sched_setaffinity") or len(os.sched_getaffinity(0)) < 2:
        pytest.skip("needs Linux and 2 CPUs or more")
    first = min(os.sched_getaffinity(0))
    code = ("import os, sys; sys.path.insert(0, sys.argv[1]); import batchjobs; "
            "before = batchjobs.process_cpus(); os.sched_setaffinity(0, {int(sys.argv[2])}); "
            "print(before, batchjobs.process_cpus())")
    env = {k: v for k, v in os.environ.items() if k != "NONOGRAM_WORKER_CPUS"}
    out = subprocess.run([PY, "-c", code, str(ROOT), str(first)], capture_output=True, text=True,
                         env=env, timeout=60)
    assert out.returncode == 0, out.stderr
    whole = len(os.sched_getaffinity(0)) == os.cpu_count()
    assert out.stdout.split() == [("None" if whole else str(len(os.sched_getaffinity(0)))), "1"]


def test_cpu_slots_divide_the_cpus(monkeypatch):
    """Disjoint runs of CPUs per worker, every CPU used, sizes within one; one each, shared round
    the CPUs, when there are more workers than CPUs; nothing to divide for one worker or one CPU."""
    jobs_mod = _batchjobs()
    if not hasattr(os, "sched_getaffinity"):
        pytest.skip("no sched_getaffinity here (macOS, Windows): workers are never pinned")
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1, 2, 3})
    assert jobs_mod.cpu_slots(1) == [None]
    assert jobs_mod.cpu_slots(2) == [(0, 1), (2, 3)]
    assert jobs_mod.cpu_slots(3) == [(0,), (1,), (2, 3)]
    assert jobs_mod.cpu_slots(4) == [(0,), (1,), (2,), (3,)]
    assert jobs_mod.cpu_slots(5) == [(0,), (1,), (2,), (3,), (0,)]
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {2, 3, 6, 7, 8, 9, 10, 11})
    assert jobs_mod.cpu_slots(3) == [(2, 3), (6, 7, 8), (9, 10, 11)]
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {5})
    assert jobs_mod.cpu_slots(2) == [None, None]


def test_worker_cpus_from_the_environment(monkeypatch):
    jobs_mod = _batchjobs()
    monkeypatch.setenv(jobs_mod.CPUS_ENV, "1,3")
    assert jobs_mod.worker_cpus() == (1, 3)
    monkeypatch.setenv(jobs_mod.CPUS_ENV, "one")
    assert jobs_mod.worker_cpus() is None
    monkeypatch.delenv(jobs_mod.CPUS_ENV)
    assert jobs_mod.worker_cpus() is None
    assert jobs_mod.pin_this_process() is None


def _kept_to(log: Path):
    for line in log.read_text().splitlines():
        if line.startswith("[nonogram worker] kept to CPU(s) "):
            return tuple(int(c) for c in line.rsplit(" ", 1)[1].split(","))
    return None


@pytest.mark.skipif(not hasattr(os, "sched_getaffinity") or len(os.sched_getaffinity(0)) < 2,
                    reason="pinning needs sched_setaffinity and 2 CPUs or more")
def test_two_workers_keep_to_cpus_of_their_own(two_workers):
    """As the system reports it from inside each batch process, after it pinned itself."""
    out, _ = two_workers
    kept = [_kept_to(out / ".jobs" / f"worker-{i}.log") for i in (1, 2)]
    assert all(kept), kept
    assert not set(kept[0]) & set(kept[1])
    assert set(kept[0]) | set(kept[1]) <= os.sched_getaffinity(0)


@pytest.mark.skipif(not hasattr(os, "sched_getaffinity") or len(os.sched_getaffinity(0)) < 2,
                    reason="pinning needs sched_setaffinity and 2 CPUs or more")
def test_no_pin_leaves_the_workers_every_cpu(tmp_path):
    out = tmp_path / "out"
    proc = run(["--input", "cube", "--resolution", "4", "5", "--out", str(out), "--workers", "2", "--pool",
                "--no-pin"])
    assert proc.returncode == 0, proc.stderr
    logs = sorted((out / ".jobs").glob("worker-*.log"))
    assert len(logs) == 2 and not any(_kept_to(log) for log in logs)
