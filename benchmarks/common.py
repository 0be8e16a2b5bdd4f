"""Shared helpers of the benchmark harness: paths, machine facts (read at run time), JSON results,
single-thread set-up and JIT warm-up.

Paths are relative to the repository: the shared data is ``../shared/`` beside the checkout.
"""
from __future__ import annotations

import gzip
import json
import os
import platform
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BENCH = ROOT / "benchmarks"
SHARED = ROOT.parent / "shared"
RESULTS = BENCH / "results"        # the data of record the document is generated from
OUT = BENCH / "out"                # scratch: generated puzzle files (git-ignored)
DOC = ROOT / "docs" / "BENCHMARKS.md"
IMG = ROOT / "docs" / "img"

if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))


def single_thread_env() -> None:
    """Pin numerical libraries to one thread (call before importing numpy/numba)."""
    for k in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS",
              "NUMEXPR_NUM_THREADS"):
        os.environ.setdefault(k, "1")


def rel(p) -> str:
    """A path for printing and for the document: relative to the repository root (``../shared/...``)."""
    p = Path(p).resolve()
    try:
        return os.path.relpath(p, ROOT)
    except ValueError:  # pragma: no cover - other drive on Windows
        return p.name


def _cpu_model() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.lower().startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _mem_gb():
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemTotal:"):
                    return round(int(line.split()[1]) / 1024 / 1024, 1)
    except OSError:
        return None


def _version(mod: str) -> str:
    try:
        m = __import__(mod)
        return str(getattr(m, "__version__", "?"))
    except Exception:
        return "not installed"


def machine_info() -> dict:
    """What this run ran on, read now."""
    info = {
        "cpu": _cpu_model(),
        "logical_cpus": os.cpu_count(),
        "memory_gb": _mem_gb(),
        "os": f"{platform.system()} {platform.release()}",
        "python": platform.python_version(),
        "numpy": _version("numpy"),
        "numba": _version("numba"),
        "ortools": _version("ortools"),
        "matplotlib": _version("matplotlib"),
        "date_utc": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
    }
    try:
        info["load_average"] = [round(v, 2) for v in os.getloadavg()]
    except OSError:  # pragma: no cover
        info["load_average"] = None
    return info


def load_puzzles3d():
    """Stage 1's puzzle list (benchmarks/results/puzzles3d.json), or None with a message."""
    src = load_json(RESULTS / "puzzles3d.json")
    if not src:
        log("no benchmarks/results/puzzles3d.json: run benchmarks/make_puzzles.py first")
    return src


def _open(path, mode, gz):
    """A result file, gzip-compressed for a name ending in .gz (a run over whole sets holds tens
    of thousands of rows)."""
    return gzip.open(path, mode + "t") if gz else open(path, mode)


def save_json(obj, path) -> None:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    with _open(tmp, "w", path.name.endswith(".gz")) as f:
        json.dump(obj, f, indent=1, default=_default)
    os.replace(tmp, path)


def load_json(path, default=None):
    path = Path(path)
    if not path.exists():
        return default
    with _open(path, "r", path.name.endswith(".gz")) as f:
        return json.load(f)


def _default(o):
    import numpy as np
    if isinstance(o, np.integer):
        return int(o)
    if isinstance(o, np.floating):
        return float(o)
    if isinstance(o, np.ndarray):
        return o.tolist()
    raise TypeError(type(o))


def log(msg: str) -> None:
    print(time.strftime("%H:%M:%S"), msg, flush=True)


# ---------------------------------------------------------------------------------------------
# the engine's solvers (engine/solve/driver.py), with the seed study's five configurations

SEED_CONFIGS = [  # (label, method, prepass) in the seed's column order
    ("Brute", "brute", False),
    ("Hier", "hierarchical", False),
    ("Hier+Pre", "hierarchical", True),
    ("Heur", "heuristic", False),
    ("Heur+Pre", "heuristic", True),
]
LINESOLVERS = ("seed", "dp")
# benchmarks/bench_sched.py, DP linesolver: (label, method, prepass, counting). The seed's counting
# rule changes brute force and the hierarchical solver only (the heuristic counts the same either
# way); then the greedy oracle (a reference) and the learned scheduler.
SCHED_CONFIGS = ([(label, method, pre, "strict") for label, method, pre in SEED_CONFIGS]
                 + [(label, method, pre, "seed") for label, method, pre in SEED_CONFIGS[:3]]
                 + [("Oracle", "oracle", False, "strict"), ("Oracle+Pre", "oracle", True, "strict"),
                    ("Learned", "learned", False, "strict"), ("Learned+Pre", "learned", True, "strict")])


def engine_solve():
    """engine.solve.driver.solve, or None (with the reason) while the module is not there."""
    try:
        from engine.solve.driver import solve
        return solve, ""
    except Exception as exc:
        return None, f"{type(exc).__name__}: {exc}"


def report_dict(rep) -> dict:
    """The fields of a SolveReport the tables use."""
    keys = ("verdict", "difficulty", "linesolvers", "bad_guesses", "bad_guess_rate", "known_fraction",
            "time_s")
    d = {k: getattr(rep, k, None) for k in keys}
    for k in ("linesolvers", "bad_guesses"):
        if d[k] is not None:
            d[k] = int(d[k])
    for k in ("bad_guess_rate", "known_fraction", "time_s"):
        if d[k] is not None:
            d[k] = float(d[k])
    sols = getattr(rep, "solutions", None) or []
    d["n_solutions"] = len(sols)
    return d


def run_solver(solve, puzzle, method, prepass=False, linesolver="dp", time_limit=None,
               counting="strict") -> dict:
    """One timed engine solve; exceptions become a row with verdict 'error'."""
    t0 = time.perf_counter()
    try:
        kw = dict(method=method, prepass=prepass, linesolver=linesolver)
        if counting != "strict":
            kw["counting"] = counting
        if time_limit is not None:
            kw["time_limit"] = float(time_limit)
        rep = solve(puzzle, **kw)
        d = report_dict(rep)
        d["_solutions"] = list(getattr(rep, "solutions", None) or [])
    except Exception as exc:  # a bug to report, not a reason to lose the run
        d = {"verdict": "error", "error": f"{type(exc).__name__}: {exc}"}
    d["wall_s"] = time.perf_counter() - t0
    return d


def warm_up(solve) -> float:
    """Compile every kernel once on tiny puzzles so JIT time is not in the measurements."""
    import numpy as np
    from engine.model.clues import puzzle_from_grid
    t0 = time.perf_counter()
    rng = np.random.default_rng(0)
    puzzles = [puzzle_from_grid(rng.random((6, 5)) < 0.5),
               puzzle_from_grid(rng.random((4, 5, 3)) < 0.5)]
    for p in puzzles:
        for ls in LINESOLVERS:
            for _lab, method, pre, counting in SCHED_CONFIGS:
                run_solver(solve, p, method, pre, ls, time_limit=30, counting=counting)
            run_solver(solve, p, "full", False, ls, time_limit=30)
    return time.perf_counter() - t0
