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


# Each local worker keeps to CPUs of its own (Linux), so N workers on N cores do not take each
# other's time. Blender's thread pool (TBB) keeps idle threads spinning: unpinned, one batch process
# used 1.25-1.45 cores on 2 (user + sys against wall), and two workers side by side ran every job
# 1.18x slower than one alone; held to one core, a batch process ran the same 24 jobs 7-13 %
# faster than unpinned (docs/BENCHMARKS.md, "Workers on CPUs of their own").
CPUS_ENV = "NONOGRAM_WORKER_CPUS"


def cpu_slots(n: int) -> list:
    """The CPUs each of ``n`` local workers keeps to: this process's CPUs cut into ``n``
    disjoint runs whose sizes differ by one at most (every CPU used), one each shared round the
    CPUs when there are more workers than CPUs, or ``None`` for every worker where there is
    nothing to divide (one worker, one CPU, no ``sched_setaffinity``: macOS, Windows)."""
    if n < 2 or not hasattr(os, "sched_getaffinity"):
        return [None] * n
    cpus = sorted(os.sched_getaffinity(0))
    if len(cpus) < 2:
        return [None] * n
    if n >= len(cpus):
        return [(cpus[i % len(cpus)],) for i in range(n)]
    cuts = [len(cpus) * i // n for i in range(n + 1)]
    return [tuple(cpus[cuts[i]:cuts[i + 1]]) for i in range(n)]


def pin(pid: int, cpus: Optional[tuple]) -> bool:
    """Keep process (or thread) ``pid`` to ``cpus``; False where the system refuses or cannot."""
    if not cpus or not hasattr(os, "sched_setaffinity"):
        return False
    try:
        os.sched_setaffinity(pid, cpus)
        return True
    except (OSError, ValueError):
        return False


def worker_cpus() -> Optional[tuple]:
    """The CPUs this batch process was given (``CPUS_ENV``), or None."""
    text = os.environ.get(CPUS_ENV, "")
    try:
        cpus = tuple(int(c) for c in text.split(",") if c.strip())
    except ValueError:
        return None
    return cpus or None


def process_cpus() -> Optional[int]:
    """How many CPUs this process may run on when that is fewer than the machine has (kept to
    CPUs of its own: a catalogue's worker, ``taskset``, a farm's CPU set), else None. Read from
    the system, not from ``CPUS_ENV``: a process pinned from outside counts too."""
    try:
        mine = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # macOS, Windows: a worker there is not pinned (``pin``)
        return None
    return mine if 0 < mine < (os.cpu_count() or mine + 1) else None


def pin_this_process() -> Optional[tuple]:
    """A batch process's first step: all its threads to the CPUs it was given (the coordinator
    also pins it as it starts; this covers a process started by a Blender binary, whose threads may
    exist by then). Returns the CPUs, or None when not pinned."""
    cpus = worker_cpus()
    if cpus is None:
        return None
    try:
        threads = [int(t) for t in os.listdir("/proc/self/task")]
    except OSError:
        threads = [0]
    done = [pin(t, cpus) for t in threads]
    return cpus if any(done) else None


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
    after another: Python, bpy, the add-on and the kernels load once per worker, not per job.

    The process loads them as soon as it starts (``start``), before it is given a job, and says
    when it is ready (``{"ready": time}`` on stdout): ``start_s`` is that start-up in seconds, which
    the first job's marker records apart from the job's own time."""

    def __init__(self, log_path: str, track: Optional[Callable[[Any, bool], None]] = None,
                 cpus: Optional[tuple] = None):
        self.log_path, self.track = log_path, track
        self.cpus = cpus     # the CPUs the process keeps to (``cpu_slots``), or None
        self.proc: Any = None
        self.started = 0.0   # wall clock (time.time) of the process's start
        self.start_s: Optional[float] = None
        self.jobs = 0        # jobs given to the running process

    def start(self, launcher: list) -> None:
        """Start the process (unless it runs): it loads bpy, the add-on and the kernels now."""
        if self.proc is not None and self.proc.poll() is None:
            return
        self.started, self.start_s, self.jobs = time.time(), None, 0
        env = None
        if self.cpus:
            env = dict(os.environ, **{CPUS_ENV: ",".join(str(c) for c in self.cpus)})
        with open(self.log_path, "a", encoding="utf-8") as err:
            self.proc = subprocess.Popen(launcher + ["--", "--serve"], stdin=subprocess.PIPE,
                                         stdout=subprocess.PIPE, stderr=err, text=True,
                                         start_new_session=True, env=env)
        # Now, while the new process is still starting Python: the threads it makes inherit it.
        pin(self.proc.pid, self.cpus)
        if self.track is not None:
            self.track(self.proc, True)

    def _answer(self) -> Optional[dict]:
        """The process's answer to a job (None: it died), noting its ready line on the way."""
        while True:
            line = self.proc.stdout.readline()
            if not line:
                return None
            try:
                msg = json.loads(line)
            except ValueError:  # not ours (a library printing before the worker took stdout)
                continue
            if isinstance(msg, dict) and "ready" in msg:
                self.start_s = max(0.0, float(msg["ready"]) - self.started)
            elif isinstance(msg, dict) and "rc" in msg:
                return msg

    def run(self, spec: dict, stage: str, log_path: str) -> int:
        """The job's exit status; negative (the signal) when the worker died under it."""
        self.start(_launcher(spec))
        self.jobs += 1
        try:
            self.proc.stdin.write(json.dumps({"argv": _job_argv(spec, stage), "log": log_path}) + "\n")
            self.proc.stdin.flush()
            answer = self._answer()
        except OSError:  # the worker died before it read the job
            answer = None
        if answer is not None:
            return int(answer["rc"])
        rc = self.proc.wait()
        self.close()
        return rc if rc else -1

    def end_input(self) -> None:
        """No more jobs: the process ends (several workers end at once, then ``close`` each)."""
        if self.proc is not None:
            try:
                self.proc.stdin.close()
            except OSError:
                pass

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
    open(log_path, "w", encoding="utf-8").close()
    start_s = ready_at = None
    pid = None
    if worker is not None:
        worker.start(_launcher(spec))
        pid = worker.proc.pid
        first = worker.jobs == 0
        t0 = time.perf_counter()
        rc = worker.run(spec, stage, log_path)
        # The job's time counts from when it was handed over; the worker's start-up (still
        # going on then, for a first job) is recorded apart.
        if first and worker.start_s is not None:
            start_s = worker.start_s
            ready_at = worker.started + start_s
            seconds = max(0.0, time.perf_counter() - max(t0, _perf_of(worker.started + start_s)))
        else:
            seconds = time.perf_counter() - t0
    else:
        t0 = time.perf_counter()
        rc = _run_process(spec, stage, log_path, track)
        seconds = time.perf_counter() - t0
    return _collect(spec, stage, log_path, rc, seconds, start_s, pid, ready_at)


def _perf_of(wall: float) -> float:
    """A wall-clock time (time.time) on the perf_counter's scale."""
    return time.perf_counter() - (time.time() - wall)


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


def _collect(spec: dict, stage: str, log_path: str, rc: int, seconds: float,
             start_s: Optional[float] = None, pid: Optional[int] = None,
             ready_at: Optional[float] = None) -> dict:
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
    if pid is not None:
        done["worker_pid"] = pid  # which worker ran it (scripts/bench_farm.py: each worker's load)
    if start_s is not None:
        done["worker_start_s"] = start_s  # this job's worker started for it (bpy, add-on, kernels)
    if ready_at is not None:
        done["worker_ready_at"] = ready_at  # wall clock (time.time): when that worker was ready
    tmp = marker_path(out, spec["key"]) + ".tmp"
    with open(tmp, "w", encoding="utf-8") as fh:
        json.dump(done, fh, indent=1)
    os.replace(tmp, marker_path(out, spec["key"]))  # the marker appears only once all is in place
    shutil.rmtree(stage, ignore_errors=True)
    return {"rows": rows, "seconds": seconds, "worker_start_s": start_s}


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


def longest_first(jobs: list, specs: list) -> list:
    """The (job, spec) pairs in the order to hand them out: the longest first (LPT), so that the
    last jobs to finish are short ones and the workers end together.

    A job's cost is estimated as resolution³ (the grid, which voxelizing, solving and designing
    grow with) times the model file's size, whose effect is much weaker (a larger mesh takes
    longer to import and voxelize): its cube root. Ties keep the catalogue order."""
    def cost(pair: tuple) -> float:
        job = pair[0]
        size = os.path.getsize(job.source) if os.path.isfile(job.source) else 50_000
        return float(job.resolution) ** 3 * max(1.0, size / 50_000) ** (1 / 3)
    return sorted(zip(jobs, specs), key=lambda pair: (-cost(pair), pair[0].index))


def run_local(jobs: list, specs: list, workers: int, progress: Progress, results: dict,
              on_rows: Callable[[list], None], pin_cpus: bool = True) -> None:
    """Jobs in ``workers`` batch processes at once on this machine, into {job index: rows}.

    Each pool thread keeps one worker process (``Worker``) and gives it job after job; a worker
    that dies is replaced by a new one for the thread's next job. The processes all start at
    once, before the first job is handed out, and end at once. With ``pin_cpus`` each keeps to
    CPUs of its own (``cpu_slots``).
    """
    attempts = {job.index: 0 for job in jobs}
    order = longest_first(jobs, specs)
    n = max(1, min(workers, len(order)))
    slots = cpu_slots(n) if pin_cpus else [None] * n
    idle = [Worker(os.path.join(specs[0]["out"], JOBS_DIR, f"worker-{i + 1}.log"), _track, slots[i])
            for i in range(n)]
    made = list(idle)
    for worker in made:
        worker.start(_launcher(specs[0]))  # bpy, the add-on and the kernels load from now on
    local = threading.local()
    idle_lock = threading.Lock()

    def in_worker(spec: dict) -> dict:
        worker = getattr(local, "worker", None)
        if worker is None:
            with idle_lock:
                worker = local.worker = idle.pop()
        return run_job(spec, worker=worker)

    with ThreadPoolExecutor(max_workers=n) as pool:
        pending = {}
        for job, spec in order:
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
                worker.end_input()  # all end at once (each unloads Blender), then wait for each
            for worker in made:
                worker.close()


DASK_MISSING = "Dask is not installed: pip install 'dask[distributed]' (or run without --dask/--scheduler)"


def _dask():
    try:
        import dask
        from dask import distributed
    except ImportError as e:
        raise DaskMissing(f"{DASK_MISSING} ({e})") from e
    return dask, distributed


def dask_available() -> bool:
    """Whether ``dask.distributed`` imports (without importing it: the check is cheap)."""
    import importlib.util
    try:
        return all(importlib.util.find_spec(m) is not None for m in ("dask", "distributed"))
    except (ImportError, ValueError):  # a module set to None (tests hide dask that way)
        return False


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


_HOST_ATTR = "_nonogram_batch_worker"


def _host_worker(host: Any, spec: dict) -> Worker:
    """The batch process a Dask worker keeps for its tasks (made on first need)."""
    worker = getattr(host, _HOST_ATTR, None)
    if worker is None:
        worker = Worker(os.path.join(spec["out"], JOBS_DIR, f"dask-worker-{os.getpid()}.log"),
                        cpus=_slot_of(host, spec))
        setattr(host, _HOST_ATTR, worker)  # the Dask worker outlives this task
    return worker


def _dask_task(spec: dict) -> dict:
    """A job on a Dask worker, in a batch process that the Dask worker keeps for its next jobs."""
    try:
        from distributed import get_worker
        host = get_worker()
    except (ImportError, ValueError):
        return run_job(spec)
    return run_job(spec, worker=_host_worker(host, spec))


def _start_plugin(distributed: Any, spec: dict, slots: Optional[list] = None) -> Any:
    """A Dask worker plugin that starts the worker's batch process as soon as the worker joins
    (also a worker the nanny restarts), so bpy, the add-on and the kernels load while the
    cluster forms and the tasks are sent, once per worker, not per task; it ends with the worker."""

    class StartBatchWorker(distributed.WorkerPlugin):
        name = "nonogram-batch-worker"

        def __init__(self, spec: dict):
            self.spec = spec

        def setup(self, worker: Any) -> None:
            os.makedirs(os.path.join(self.spec["out"], JOBS_DIR), exist_ok=True)
            _host_worker(worker, self.spec).start(_launcher(self.spec))

        def teardown(self, worker: Any) -> None:
            batch_worker = getattr(worker, _HOST_ATTR, None)
            if batch_worker is not None:
                batch_worker.close()

    return StartBatchWorker(_worker_spec(spec, slots))


def _worker_spec(spec: dict, slots: Optional[list] = None) -> dict:
    """What starting a worker's batch process needs (no job); ``slots``: a LocalCluster's CPUs
    per worker name (``cpu_slots``)."""
    found = {k: spec[k] for k in ("out", "launcher", "batch_py")}
    if slots and any(slots):
        found["cpu_slots"] = [list(c) if c else None for c in slots]
    return found


def _slot_of(host: Any, spec: dict) -> Optional[tuple]:
    """The CPUs of the LocalCluster worker ``host`` (named 0..n-1), or None."""
    slots = spec.get("cpu_slots") or []
    name = getattr(host, "name", None)
    if isinstance(name, int) and 0 <= name < len(slots) and slots[name]:
        return tuple(slots[name])
    return None


# The coordinator puts the plugin's spec here while it starts a LocalCluster: the workers' preload.
PRELOAD_ENV = "NONOGRAM_BATCH_WORKER"
# ... and, when it started the batch processes itself (``start_early``), where each one's pipes are.
EARLY_ENV = "NONOGRAM_BATCH_EARLY"


def dask_setup(worker: Any) -> None:
    """Dask's preload hook (``LocalCluster(preload=[this file])``): the worker takes over the batch
    process the coordinator started for it (``start_early``; a forked worker inherits its pipes),
    or else starts its batch process as it starts, before it registers with the scheduler, so that
    process loads while the other workers and the scheduler are still starting (the plugin would
    start it only once the whole cluster is up); a worker the nanny restarts starts its own."""
    early = os.environ.get(EARLY_ENV)
    if early:
        slots = json.loads(early)
        mine = slots.get(str(worker.name))
        for slot in slots.values():  # a forked worker holds every slot's pipes: keep its own only
            if slot is mine:
                setattr(worker, _HOST_ATTR, _attach(slot))
            for fd in (slot["stdin"], slot["stdout"]):
                try:
                    os.close(fd)
                except OSError:
                    pass
        if mine is not None:
            return
    text = os.environ.get(PRELOAD_ENV)
    if text:
        spec = json.loads(text)
        os.makedirs(os.path.join(spec["out"], JOBS_DIR), exist_ok=True)
        _host_worker(worker, spec).start(_launcher(spec))


class _Attached:
    """A batch process that another process (the coordinator) started, seen from the Dask worker
    that took over its pipes: the ``subprocess.Popen`` calls ``Worker`` uses. Not this process's
    child, so its end is read from /proc (Linux: a dead child stays a zombie, with its exit
    status, until its parent, the coordinator, reaps it at the end of the run)."""

    def __init__(self, pid: int, stdin: Any, stdout: Any):
        self.pid, self.stdin, self.stdout = pid, stdin, stdout
        self.returncode: Optional[int] = None

    def poll(self) -> Optional[int]:
        if self.returncode is not None:
            return self.returncode
        try:
            with open(f"/proc/{self.pid}/stat", encoding="ascii", errors="replace") as fh:
                text = fh.read()
        except OSError:
            self.returncode = -1  # reaped already: its status is gone
            return self.returncode
        fields = text[text.rindex(")") + 2:].split()  # from field 3 (the state) on
        if fields[0] not in ("Z", "X"):
            return None
        status = int(fields[49]) if len(fields) > 49 else 0  # field 52: the wait status
        self.returncode = -(status & 0x7F) if status & 0x7F else (status >> 8) & 0xFF
        return self.returncode

    def wait(self, timeout: Optional[float] = None) -> int:
        end = None if timeout is None else time.monotonic() + timeout
        while self.poll() is None:
            if end is not None and time.monotonic() > end:
                raise subprocess.TimeoutExpired(str(self.pid), timeout or 0)
            time.sleep(0.02)
        return int(self.returncode or 0)

    def kill(self) -> None:
        try:
            os.kill(self.pid, 9)
        except OSError:
            pass


def _attach(slot: dict) -> Worker:
    worker = Worker(slot["log"])
    # Duplicates: the inherited descriptors are closed by the caller (every slot's, in one place).
    worker.proc = _Attached(slot["pid"], os.fdopen(os.dup(slot["stdin"]), "w", encoding="utf-8"),
                            os.fdopen(os.dup(slot["stdout"]), "r", encoding="utf-8"))
    worker.started = slot["started"]
    return worker


def fork_workers() -> bool:
    """Whether a LocalCluster's worker processes are forked from the coordinator (Linux): they
    start in a tenth of the time of spawned ones, which import ``distributed`` again, and inherit
    the pipes of the batch processes the coordinator started before the cluster (``start_early``).
    macOS and Windows keep Dask's default (spawn), and so does a coordinator that is Blender
    (``blender -b --python batch.py``): a copy of Blender's process is no place for a Dask worker."""
    return (sys.platform.startswith("linux") and "bpy" not in sys.modules
            and os.environ.get("NONOGRAM_DASK_SPAWN", "") in ("", "0"))


def start_early(spec: dict, n: int, slots: Optional[list] = None) -> list:
    """The LocalCluster's batch processes, started by the coordinator before it even imports
    ``distributed``: they load bpy, the add-on and the kernels while Dask starts (the own pool's
    head start). Each forked Dask worker takes over one (``dask_setup``, by its name 0..n-1)."""
    os.makedirs(os.path.join(spec["out"], JOBS_DIR), exist_ok=True)
    early = []
    for i in range(n):
        worker = Worker(os.path.join(spec["out"], JOBS_DIR, f"dask-worker-{i + 1}.log"), _track,
                        slots[i] if slots else None)
        worker.start(_launcher(spec))
        early.append(worker)
    return early


def _early_slots(early: list) -> str:
    return json.dumps({str(i): {"pid": w.proc.pid, "stdin": w.proc.stdin.fileno(), "stdout": w.proc.stdout.fileno(),
                                "started": w.started, "log": w.log_path} for i, w in enumerate(early)})


def _release_early(early: list, ok: bool) -> None:
    """The coordinator's end of the early batch processes: its copies of their pipes go once the
    Dask workers hold theirs (a batch process then ends when its Dask worker closes or dies); at
    the end of the run it reaps them (killed if the run failed)."""
    for worker in early:
        proc = worker.proc
        if proc is None:
            continue
        for f in (proc.stdin, proc.stdout):
            try:
                f.close()
            except OSError:
                pass
        if not ok:
            proc.kill()


def _reap_early(early: list) -> None:
    for worker in early:
        proc, worker.proc = worker.proc, None
        if proc is None:
            continue
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        _track(proc, False)


def run_dask(jobs: list, specs: list, workers: int, scheduler: Optional[str], progress: Progress,
             results: dict, on_rows: Callable[[list], None], pin_cpus: bool = True) -> None:
    """Jobs as Dask tasks on an existing scheduler, or on a LocalCluster of ``workers`` processes
    (one thread each, with a nanny that restarts a worker that dies; with ``pin_cpus`` each one's
    batch process keeps to CPUs of its own, as the own pool's)."""
    fork = not scheduler and fork_workers()
    n = max(1, min(workers, len(jobs)))
    slots = cpu_slots(n) if pin_cpus and not scheduler else [None] * n
    # Before importing distributed (0.4-0.5 s): the batch processes load while Dask starts.
    early = start_early(specs[0], n, slots) if fork else []
    try:
        dask, distributed = _dask()
    except BaseException:
        _release_early(early, ok=False)
        _reap_early(early)
        raise
    import cloudpickle  # type: ignore[import-untyped]
    # Workers need not have this module (nor the add-on) installed: the task travels by value.
    cloudpickle.register_pickle_by_value(sys.modules[__name__])
    # A worker that dies under a task counts once; the second death reports the task (KilledWorker).
    # Saturation 1.0: a worker holds one task at a time, the rest wait on the scheduler (in priority
    # order, longest first) for whichever worker frees up first, none queued behind a long job
    # (for a catalogue larger than twice the cluster's threads, in one task group: ``task_key``).
    config: dict = {"distributed.scheduler.allowed-failures": 1}
    if "DASK_DISTRIBUTED__SCHEDULER__WORKER_SATURATION" not in os.environ:  # unless asked for another
        config["distributed.scheduler.worker-saturation"] = 1.0
    if not scheduler:
        config.update(QUIET_WORKERS)
        if fork:
            config["distributed.worker.multiprocessing-method"] = "fork"
    ok = False
    with dask.config.set(config):
        cluster: Any = None
        client: Any = None
        hidden_main = _hide_main_file() if not scheduler else None
        try:
            if scheduler:
                client = distributed.Client(scheduler, timeout=30)
            else:
                # processes=True: a worker process each, with a nanny that restarts a dead one.
                os.environ[PRELOAD_ENV] = json.dumps(_worker_spec(specs[0], slots))  # the nannies inherit it
                if early:
                    os.environ[EARLY_ENV] = _early_slots(early)  # the first n workers only
                try:
                    # memory_limit 0: no memory monitor (the work is in the batch process, which a
                    # Dask worker's monitor does not see anyway).
                    cluster = distributed.LocalCluster(n_workers=n, threads_per_worker=1, processes=True,
                                                       dashboard_address=None, memory_limit=0,
                                                       silence_logs=40, preload=[os.path.abspath(__file__)])
                finally:
                    os.environ.pop(PRELOAD_ENV, None)
                    os.environ.pop(EARLY_ENV, None)
                    _release_early(early, ok=True)
                client = distributed.Client(cluster)
            _run_on_dask(distributed, client, jobs, specs, progress, results, on_rows, slots)
            ok = True
        finally:
            if client is not None:
                client.close()
            if cluster is not None:
                cluster.close()
            if not ok:
                _release_early(early, ok=False)
            _reap_early(early)
            if hidden_main is not None:
                sys.modules["__main__"].__file__ = hidden_main


# A LocalCluster's workers only wait on their batch process: Dask's own monitoring of them (a
# stack sample every 10 ms, memory every 100 ms, system and event-loop checks) cost ~0.1 s of CPU
# per second on this 2-core machine, taken from the jobs (scripts/bench_dask_parts.py).
QUIET_WORKERS = {"distributed.worker.profile.enabled": False,
                 "distributed.worker.memory.monitor-interval": "5s",
                 "distributed.admin.system-monitor.interval": "5s",
                 "distributed.admin.system-monitor.gil.enabled": False,
                 "distributed.admin.tick.interval": "1s"}


def task_key(job: Job, spec: dict, attempt: int) -> str:
    """The Dask key of a job's ``attempt``. Dask groups tasks by the key's leading words
    (``nonogram-duck-12-...`` would make a group per model): the job's number right after
    ``nonogram`` puts the whole catalogue in one group, and a group larger than twice the
    cluster's threads is what the scheduler holds back in its queue (worker saturation 1.0),
    handing the next job, by priority, to whichever worker frees up. In groups of a model's few
    sizes, the jobs went to the workers as they were submitted, alternately, and a worker could
    end the run on long jobs while the other sat idle."""
    return f"nonogram-{job.index}-{spec['key']}-{spec['signature'][:10]}-{attempt}"


def _run_on_dask(distributed: Any, client: Any, jobs: list, specs: list, progress: Progress, results: dict,
                 on_rows: Callable[[list], None], slots: Optional[list] = None) -> None:
    """The jobs as Dask tasks, longest first, each retried once by us when it fails."""
    client.register_plugin(_start_plugin(distributed, specs[0], slots))
    # A local function: Dask's plain pickle would send run_job by name (not importable there).
    task = lambda spec: _dask_task(spec)
    order = longest_first(jobs, specs)
    attempts = {job.index: 0 for job in jobs}
    futures = {}

    def submit(job: Job, spec: dict, priority: int) -> Any:
        attempts[job.index] += 1
        # The retry is ours (below), not Dask's ``retries``, so that it shows in the log.
        fut = client.submit(task, spec, key=task_key(job, spec, attempts[job.index]), pure=False,
                            priority=priority)
        futures[fut] = (job, spec, priority)
        return fut

    # Longest first: the scheduler runs the higher priority first.
    running = distributed.as_completed([submit(job, spec, len(order) - rank)
                                        for rank, (job, spec) in enumerate(order)])
    for fut in running:
        job, spec, priority = futures.pop(fut)
        try:
            rows = fut.result()["rows"]
        except distributed.KilledWorker as e:  # its worker died twice: the scheduler retried
            rows = failed_rows(job, f"failed {MAX_ATTEMPTS} times: its Dask worker died ({e})")
        except Exception as e:
            if attempts[job.index] < MAX_ATTEMPTS:
                progress.log(f"  {job.key}: {e}; running it again")
                running.add(submit(job, spec, priority))
                continue
            rows = failed_rows(job, f"failed {MAX_ATTEMPTS} times: {type(e).__name__}: {e}")
        results[job.index] = _as_given(job, rows)
        progress.finished(job, rows)
        on_rows(_ordered(results))


class _Throttled:
    """``on_rows`` at most once a second while jobs finish: with thousands of jobs, rewriting the
    whole summary after each would cost more than the jobs. The markers hold every finished job's
    rows meanwhile (``--resume`` rebuilds from them), and the caller writes the final summary."""

    def __init__(self, on_rows: Callable[[list], None], every_s: float = 1.0):
        self.on_rows, self.every_s, self.last = on_rows, every_s, -1e9

    def __call__(self, rows: list) -> None:
        now = time.perf_counter()
        if now - self.last >= self.every_s:
            self.last = now
            self.on_rows(rows)


def run_catalogue(jobs: list, *, out: str, launcher: Optional[list], batch_py: str, options: list,
                  workers: int, use_dask: bool, scheduler: Optional[str], resume: bool,
                  log: Callable[[str], None], on_rows: Callable[[list], None],
                  pin_cpus: bool = True) -> list:
    """Run the jobs (skipping complete ones with ``resume``) and return all rows in job order;
    ``pin_cpus``: each local worker keeps to CPUs of its own (``cpu_slots``)."""
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
    throttled = _Throttled(on_rows)
    if todo_jobs:
        if use_dask or scheduler:
            where = scheduler or f"a LocalCluster of {workers} worker process(es)"
            log(f"{len(todo_jobs)} job(s) on Dask: {where}")
            run_dask(todo_jobs, todo_specs, workers, scheduler, progress, results, throttled, pin_cpus)
        else:
            log(f"{len(todo_jobs)} job(s) in {workers} worker process(es)")
            run_local(todo_jobs, todo_specs, workers, progress, results, throttled, pin_cpus)
    return _ordered(results)
