"""Regenerate every benchmark result and docs/BENCHMARKS.md in one command.

    python benchmarks/run_all.py            # the full benchmark (under 40 minutes on 2 cores)
    python benchmarks/run_all.py --quick    # development mode: small puzzles, short limits (~5 min)
    python benchmarks/run_all.py --report-only   # only rewrite the document from benchmarks/results/

Stages (each a separate process, so Blender and the solvers never share one):
1. benchmarks/make_puzzles.py  3D puzzles through the add-on's path + voxelizer timings
2. benchmarks/bench3d.py       the seed's 3D tables, `full`, CP-SAT
3. benchmarks/bench_sched.py   both counting rules, the greedy oracle, the learned scheduler
4. benchmarks/bench2d.py       webpbn survey, the seed's 2D subset, two TAAI sets
5. benchmarks/bench_design.py  puzzle design (clue hiding) per model; the seed's 6.2.1 questions
5. benchmarks/report.py        docs/BENCHMARKS.md + docs/img/*.png
"""
from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from benchmarks.common import RESULTS, ROOT, load_json, log, save_json, single_thread_env  # noqa: E402

# The tournament sets stop starting new chunks of 100 puzzles after this many seconds of the run
# (the last chunk then finishes and the design stage and the report follow), so the run up to the
# design stage stays under 30 minutes.
BUDGET_S = 26 * 60


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--report-only", action="store_true")
    ap.add_argument("--skip", nargs="*", default=[], choices=("puzzles", "3d", "sched", "2d", "design"),
                    help="reuse the existing results of these stages")
    a = ap.parse_args(argv)
    single_thread_env()
    q = ["--quick"] if a.quick else []
    t_begin = time.time()
    stages = [("puzzles", ["benchmarks/make_puzzles.py"] + q),
              ("3d", ["benchmarks/bench3d.py"] + q),
              ("sched", ["benchmarks/bench_sched.py"] + q),
              ("2d", ["benchmarks/bench2d.py"] + q),
              ("design", ["benchmarks/bench_design.py"] + q)]
    t0 = time.time()
    run = load_json(RESULTS / "run.json", {}) if a.report_only or a.skip else {}
    if not a.report_only:
        started = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
        if a.skip:  # a partial re-run: the whole run's start and wall time stay those of record
            rerun = [name for name, _cmd in stages if name not in a.skip]
            run.setdefault("partial_runs", []).append({"stages": rerun, "started_utc": started})
        else:
            run["started_utc"] = started
            run.pop("partial_runs", None)
        run.update({"quick": a.quick,
                    "commands": ["pip install -r benchmarks/requirements.txt  # ortools, matplotlib",
                                 "python benchmarks/run_all.py" + (" --quick" if a.quick else ""),
                                 "# which runs:"], "stage_s": run.get("stage_s", {})})
        for name, cmd in stages:
            run["commands"].append("python " + " ".join(cmd))
            if name in a.skip:
                log(f"== stage {name}: skipped (reusing benchmarks/results/)")
                continue
            log(f"== stage {name}: python {' '.join(cmd)}")
            ts = time.time()
            extra = []
            if name == "2d" and not a.quick:  # keep the whole run inside its budget
                extra = ["--deadline", str(t_begin + BUDGET_S)]
            rc = subprocess.call([sys.executable] + cmd + extra, cwd=str(ROOT))
            run["stage_s"][name] = time.time() - ts
            if rc != 0:
                log(f"stage {name} failed with exit code {rc}")
                save_json(run, RESULTS / "run.json")
                return rc
        run["commands"].append("python benchmarks/report.py")
        if a.skip:
            run["partial_runs"][-1]["elapsed_s"] = time.time() - t0
        else:
            run["elapsed_s"] = time.time() - t0
        save_json(run, RESULTS / "run.json")
    log("== report: python benchmarks/report.py")
    rc = subprocess.call([sys.executable, "benchmarks/report.py"], cwd=str(ROOT))
    log(f"done in {time.time() - t0:.0f} s")
    return rc


if __name__ == "__main__":
    raise SystemExit(main())
