"""Catalogue jobs: the batch's (model, resolution, band) jobs in worker processes or on Dask.

batch.py parses the arguments and hands the jobs here. Every job runs as its own batch process
(``python batch.py -- --input ONE --resolution ONE ...`` or ``blender -b --python batch.py -- ...``)
that writes into a staging folder ``<out>/.jobs/<model>-<res>.<attempt>/``; when it ends, its files are
moved into ``<out>`` and a marker ``<out>/.jobs/<model>-<res>.done.json`` records its summary rows,
its files and a signature of its inputs and options. So:

- results match a sequential run: the same file names, the same summary rows, in job order;
- a worker that dies (killed, out of memory, a crash in Blender) leaves no half-moved output and
  its job runs once more; a job that dies twice is an error row, never silently lost;
- ``--resume`` skips the jobs whose marker matches and whose files all exist.

Two drivers: a local pool (threads that each wait on one batch process; no dependency) and Dask
(``dask.distributed``, optional: a ``LocalCluster`` or an existing scheduler). A Dask task only
needs the Python standard library on the worker: this module is sent by value, and the worker
runs the batch with its own Python (or ``NONOGRAM_WORKER_PYTHON`` / ``NONOGRAM_BATCH_PY``).

This module never imports bpy: batch.py (which has it) gives it the command that starts a batch.
"""
from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import threading
import time
import uuid
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait
from dataclasses import dataclass
from typing import Any, Callable, Optional

JOBS_DIR = ".jobs"
# Files every batch process writes for the whole run; the coordinator writes its own.
RUN_FILES = ("summary.csv", "summary.json", "index.html")
MAX_ATTEMPTS = 2  # a job whose worker dies runs once more, then is reported


# The batch processes this process started (the local pool's), to stop them on Ctrl+C.
_RUNNING: set = set()
_RUNNING_LOCK = threading.Lock()


def _track(proc: Any, running: bool) -> None:
    # Passed to run_job rather than used by it: a Dask task (sent by value) cannot carry a lock.
    with _RUNNING_LOCK:
        if running:
            _RUNNING.add(proc)
        else:
            _RUNNING.discard(proc)


def stop_running() -> None:
    with _RUNNING_LOCK:
        procs = list(_RUNNING)
    for proc in procs:
        try:
            proc.kill()
        except OSError:
            pass


class JobCrashed(RuntimeError):
    """The batch process of a job ended without its summary (killed, crashed)."""


class DaskMissing(RuntimeError):
    pass


@dataclass(frozen=True)
class Job:
    index: int
    name: str       # the model's name in the file names (as the sequential batch names it)
    source: str     # file path or built-in name
    resolution: int
    band: str       # --design band ("" without --design): part of what the job makes
    given: str = ""  # the input as given (the summary's ``input`` column, as a sequential run has it)

    @property
    def key(self) -> str:
        return f"{self.name}-{self.resolution}"


def make_jobs(models: list, resolutions: list, band: Optional[str]) -> list:
    """One job per (model, resolution, band), in the sequential batch's order."""
    jobs: list = []
    for name, src in models:
        # Workers may start elsewhere (another folder, a Dask worker): give them absolute paths.
        source = os.path.abspath(src) if src and os.path.exists(src) else (src or name)
        for res in resolutions:
            jobs.append(Job(len(jobs), name, source, int(res), band or "", src))
    return jobs


def signature(job: Job, options: list) -> str:
    """What a job's outputs depend on: the model file (size, time), its resolution and options."""
    st = None
    if os.path.isfile(job.source):
        s = os.stat(job.source)
        st = [s.st_size, int(s.st_mtime)]
    text = json.dumps([job.name, job.source, st, job.resolution, job.band, options])
    return hashlib.sha1(text.encode("utf-8")).hexdigest()


def job_spec(job: Job, out: str, launcher: Optional[list], batch_py: str, options: list) -> dict:
    """Everything a worker needs for a job, as plain data (sent to Dask workers)."""
    return {"key": job.key, "name": job.name, "source": job.source, "resolution": job.resolution,
            "out": os.path.abspath(out), "launcher": launcher, "batch_py": batch_py,
            "options": list(options), "signature": signature(job, options)}


def marker_path(out: str, key: str) -> str:
    return os.path.join(out, JOBS_DIR, key + ".done.json")


def complete_rows(spec: dict) -> Optional[list]:
    """The rows of a finished job if its marker matches and its files exist, else None."""
    try:
        with open(marker_path(spec["out"], spec["key"]), encoding="utf-8") as fh:
            done = json.load(fh)
    except (OSError, ValueError):
        return None
    if done.get("signature") != spec["signature"]:
        return None
    if any(r.get("status") != "ok" for r in done.get("rows", [])) or not done.get("rows"):
        return None  # a failed job runs again
    if not all(os.path.isfile(os.path.join(spec["out"], f)) for f in done.get("files", [])):
        return None
    return done["rows"]


def _launcher(spec: dict) -> list:
    launcher = spec.get("launcher")
    if not launcher:
        python = os.environ.get("NONOGRAM_WORKER_PYTHON", sys.executable)
        launcher = [python, os.environ.get("NONOGRAM_BATCH_PY", spec["batch_py"])]
    return list(launcher)


def _job_argv(spec: dict, stage: str) -> list:
    return ["--input", spec["source"], "--job-name", spec["name"], "--resolution", str(spec["resolution"]),
            "--out", stage] + spec["options"]


class Worker:
    """One long-lived batch process (``batch.py -- --serve``) that runs the jobs it is given one
    after another: Python, bpy, the add-on and the kernels load once per worker, not per job."""

    def __init__(self, log_path: str, track: Optional[Callable[[Any, bool], None]] = None):
        self.log_path, self.track = log_path, track
        self.proc: Any = None

    def run(self, spec: dict, stage: str, log_path: str) -> int:
        """The job's exit status; negative (the signal) when the worker died under it."""
        if self.proc is None or self.proc.poll() is not None:
            with open(self.log_path, "a", encoding="utf-8") as err:
                self.proc = subprocess.Popen(_launcher(spec) + ["--", "--serve"], stdin=subprocess.PIPE,
                                             stdout=subprocess.PIPE, stderr=err, text=True,
                                             start_new_session=True)
            if self.track is not None:
                self.track(self.proc, True)
        try:
            self.proc.stdin.write(json.dumps({"argv": _job_argv(spec, stage), "log": log_path}) + "\n")
            self.proc.stdin.flush()
            answer = self.proc.stdout.readline()
        except OSError:  # the worker died before it read the job
            answer = ""
        if answer.strip():
            return int(json.loads(answer)["rc"])
        rc = self.proc.wait()
        self.close()
        return rc if rc else -1

    def close(self) -> None:
        proc, self.proc = self.proc, None
        if proc is None:
            return
        try:
            proc.stdin.close()
            proc.wait(timeout=30)
        except (OSError, subprocess.TimeoutExpired):
            proc.kill()
            proc.wait()
        for f in (proc.stdout,):
            try:
                f.close()
            except OSError:
                pass
        if self.track is not None:
            self.track(proc, False)


def _tail(path: str, lines: int = 6) -> str:
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            return " | ".join(ln.strip() for ln in fh.read().splitlines()[-lines:] if ln.strip())
    except OSError:
        return ""


def run_job(spec: dict, track: Optional[Callable[[Any, bool], None]] = None,
            worker: Optional[Worker] = None) -> dict:
    """Run one job (in ``worker``, else a batch process of its own) and move its outputs into
    place. A Dask task: needs only the standard library.

    Returns ``{"rows": [...], "seconds": s}``; raises JobCrashed when the process died.
    """
    out = spec["out"]
    jobs_dir = os.path.join(out, JOBS_DIR)
    # A folder per attempt: the batch process of a Dask worker that died may still be writing.
    stage = os.path.join(jobs_dir, f"{spec['key']}.{uuid.uuid4().hex[:12]}")
    os.makedirs(stage)
    log_path = os.path.join(jobs_dir, spec["key"] + ".log")
    t0 = time.perf_counter()
    open(log_path, "w", encoding="utf-8").close()
    if worker is not None:
        rc = worker.run(spec, stage, log_path)
    else:
        rc = _run_process(spec, stage, log_path, track)
    seconds = time.perf_counter() - t0
    return _collect(spec, stage, log_path, rc, seconds)


def _run_process(spec: dict, stage: str, log_path: str, track: Optional[Callable[[Any, bool], None]]) -> int:
    with open(log_path, "w", encoding="utf-8") as log:
        # Its own session: Esc/Ctrl+C of the coordinator is handled there, not in every worker.
        proc = subprocess.Popen(_launcher(spec) + ["--"] + _job_argv(spec, stage), stdout=log, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL, start_new_session=True)
        if track is not None:
            track(proc, True)
        try:
            rc = proc.wait()
        finally:
            if track is not None:
                track(proc, False)
    return rc


def _collect(spec: dict, stage: str, log_path: str, rc: int, seconds: float) -> dict:
    out = spec["out"]
    try:
        with open(os.path.join(stage, "summary.json"), encoding="utf-8") as fh:
            rows = json.load(fh)
    except (OSError, ValueError):
        rows = None
    # 0: all rows ok, 1: a row failed (bad model: an answer, not a crash); anything else died.
    if rc not in (0, 1) or not rows:
        raise JobCrashed(f"{spec['key']}: batch process ended with status {rc}"
                         + (f": {_tail(log_path)}" if _tail(log_path) else ""))
    files = []
    for entry in sorted(os.listdir(stage)):
        src = os.path.join(stage, entry)
        if entry in RUN_FILES or not os.path.isfile(src):
            continue
        os.replace(src, os.path.join(out, entry))
        files.append(entry)
    done = {"signature": spec["signature"], "rows": rows, "files": files, "seconds": seconds}
    tmp = marker_path(out, spec["key"]) + ".tmp"
    with open(tmp, "w", encoding="utf-8") as fh:
        json.dump(done, fh, indent=1)
    os.replace(tmp, marker_path(out, spec["key"]))  # the marker appears only once all is in place
    shutil.rmtree(stage, ignore_errors=True)
    return {"rows": rows, "seconds": seconds}


def failed_rows(job: Job, error: str) -> list:
    return [{"model": job.name, "input": job.source, "resolution": job.resolution,
             "status": "error", "error": error}]


class Progress:
    """One progress line for the whole run (printed as jobs finish)."""

    def __init__(self, total: int, log: Callable[[str], None]):
        self.total, self.log = total, log
        self.done = self.failed = 0
        self.t0 = time.perf_counter()
        self.lock = threading.Lock()

    def finished(self, job: Job, rows: list, note: str = "") -> None:
        with self.lock:
            self.done += 1
            bad = [r for r in rows if r.get("status") != "ok"]
            self.failed += bool(bad)
            what = "FAILED: " + str(bad[0].get("error", "")) if bad else "ok"
            self.log(f"[{self.done}/{self.total}] {job.name} @ {job.resolution}: {what}{note}"
                     f"  ({self.failed} failed, {time.perf_counter() - self.t0:.1f} s)")


def _as_given(job: Job, rows: list) -> list:
    """The worker saw an absolute path; the summary names the input as it was given."""
    return [dict(r, input=job.given) if "input" in r else r for r in rows]


def _ordered(results: dict) -> list:
    rows: list = []
    for index in sorted(results):
        rows += results[index]
    return rows


def run_local(jobs: list, specs: list, workers: int, progress: Progress, results: dict,
              on_rows: Callable[[list], None]) -> None:
    """Jobs in ``workers`` batch processes at once on this machine, into {job index: rows}.

    Each pool thread keeps one worker process (``Worker``) and gives it job after job; a worker
    that dies is replaced by a new one for the thread's next job.
    """
    attempts = {job.index: 0 for job in jobs}
    local = threading.local()
    made: list = []
    made_lock = threading.Lock()

    def in_worker(spec: dict) -> dict:
        worker = getattr(local, "worker", None)
        if worker is None:
            with made_lock:
                worker = Worker(os.path.join(spec["out"], JOBS_DIR, f"worker-{len(made) + 1}.log"), _track)
                made.append(worker)
            local.worker = worker
        return run_job(spec, worker=worker)

    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        pending = {}
        for job, spec in zip(jobs, specs):
            attempts[job.index] += 1
            pending[pool.submit(in_worker, spec)] = (job, spec)
        try:
            while pending:
                finished, _ = wait(list(pending), return_when=FIRST_COMPLETED)
                for fut in finished:
                    job, spec = pending.pop(fut)
                    try:
                        res = fut.result()
                    except Exception as e:  # the process died, or the output folder failed us
                        if attempts[job.index] < MAX_ATTEMPTS:
                            attempts[job.index] += 1
                            progress.log(f"  {job.key}: {e}; running it again")
                            pending[pool.submit(in_worker, spec)] = (job, spec)
                            continue
                        res = {"rows": failed_rows(job, f"failed {MAX_ATTEMPTS} times: {e}")}
                    results[job.index] = _as_given(job, res["rows"])
                    progress.finished(job, res["rows"])
                    on_rows(_ordered(results))
        except BaseException:  # Ctrl+C: stop the workers now, not after their jobs
            for fut in pending:
                fut.cancel()
            stop_running()
            raise
        finally:
            for worker in made:
                worker.close()  # end of stdin: the worker process ends


def _dask():
    try:
        import dask
        from dask import distributed
    except ImportError as e:
        raise DaskMissing("Dask is not installed: pip install 'dask[distributed]' "
                          f"(or run without --dask/--scheduler) ({e})") from e
    return dask, distributed


def _hide_main_file() -> Optional[str]:
    """Keep multiprocessing's spawned Dask workers from running ``__main__`` (batch.py) again.

    A spawned process re-imports the main script by its ``__file__``; batch.py imports bpy, which
    fails there (and would cost seconds per worker). The workers need nothing from it: their tasks
    arrive by value. Returns the path to put back afterwards, or None.
    """
    main = sys.modules.get("__main__")
    if main is None or getattr(main, "__spec__", None) is not None:
        return None
    path = getattr(main, "__file__", None)
    if path is not None:
        del main.__file__
    return path


def _dask_task(spec: dict) -> dict:
    """A job on a Dask worker, in a batch process that the Dask worker keeps for its next jobs."""
    try:
        from distributed import get_worker
        host = get_worker()
    except (ImportError, ValueError):
        return run_job(spec)
    worker = getattr(host, "_nonogram_batch_worker", None)
    if worker is None:
        worker = Worker(os.path.join(spec["out"], JOBS_DIR, f"dask-worker-{os.getpid()}.log"))
        setattr(host, "_nonogram_batch_worker", worker)  # the Dask worker outlives this task
    return run_job(spec, worker=worker)


def run_dask(jobs: list, specs: list, workers: int, scheduler: Optional[str], progress: Progress,
             results: dict, on_rows: Callable[[list], None]) -> None:
    """Jobs as Dask tasks on an existing scheduler, or on a LocalCluster of ``workers`` processes."""
    dask, distributed = _dask()
    import cloudpickle  # type: ignore[import-untyped]
    # Workers need not have this module (nor the add-on) installed: the task travels by value.
    cloudpickle.register_pickle_by_value(sys.modules[__name__])
    # A worker that dies under a task counts once; the second death reports the task (KilledWorker).
    with dask.config.set({"distributed.scheduler.allowed-failures": 1}):
        cluster: Any = None
        hidden_main = _hide_main_file() if not scheduler else None
        if scheduler:
            client = distributed.Client(scheduler, timeout=30)
        else:
            cluster = distributed.LocalCluster(n_workers=max(1, workers), threads_per_worker=1,
                                               processes=True, dashboard_address=None,
                                               silence_logs=40)
            client = distributed.Client(cluster)
        try:
            # A local function: Dask's plain pickle would send run_job by name (not importable there).
            task = lambda spec: _dask_task(spec)
            futures = {}
            for job, spec in zip(jobs, specs):
                # retries=1: a task that raised (its batch process died) runs once more.
                fut = client.submit(task, spec, key=f"nonogram-{spec['key']}-{spec['signature'][:10]}",
                                    retries=MAX_ATTEMPTS - 1, pure=False)
                futures[fut] = job
            for fut in distributed.as_completed(list(futures)):
                job = futures[fut]
                try:
                    rows = fut.result()["rows"]
                except Exception as e:
                    rows = failed_rows(job, f"failed {MAX_ATTEMPTS} times: {type(e).__name__}: {e}")
                results[job.index] = _as_given(job, rows)
                progress.finished(job, rows)
                on_rows(_ordered(results))
        finally:
            client.close()
            if cluster is not None:
                cluster.close()
            if hidden_main is not None:
                sys.modules["__main__"].__file__ = hidden_main


def run_catalogue(jobs: list, *, out: str, launcher: Optional[list], batch_py: str, options: list,
                  workers: int, use_dask: bool, scheduler: Optional[str], resume: bool,
                  log: Callable[[str], None], on_rows: Callable[[list], None]) -> list:
    """Run the jobs (skipping complete ones with ``resume``) and return all rows in job order."""
    os.makedirs(os.path.join(out, JOBS_DIR), exist_ok=True)
    specs = [job_spec(job, out, launcher, batch_py, options) for job in jobs]
    results: dict = {}
    todo_jobs, todo_specs = [], []
    for job, spec in zip(jobs, specs):
        rows = complete_rows(spec) if resume else None
        if rows is not None:
            results[job.index] = _as_given(job, rows)
        else:
            todo_jobs.append(job)
            todo_specs.append(spec)
    if resume:
        log(f"--resume: {len(results)} of {len(jobs)} job(s) complete, {len(todo_jobs)} to run")
    progress = Progress(len(todo_jobs), log)
    if todo_jobs:
        if use_dask or scheduler:
            where = scheduler or f"a LocalCluster of {workers} worker process(es)"
            log(f"{len(todo_jobs)} job(s) on Dask: {where}")
            run_dask(todo_jobs, todo_specs, workers, scheduler, progress, results, on_rows)
        else:
            log(f"{len(todo_jobs)} job(s) in {workers} worker process(es)")
            run_local(todo_jobs, todo_specs, workers, progress, results, on_rows)
    return _ordered(results)

