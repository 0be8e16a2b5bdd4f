"""Stage 3: the schedulers side by side, DP linesolver: both counting rules, the greedy oracle and
the learned scheduler, on the 3D model puzzles of stage 1 and the learned scheduler's training,
validation and test blobs (benchmarks/train_scheduler.py states the split).

For every puzzle, the configurations of ``benchmarks.common.SCHED_CONFIGS``: the seed's five
with the strict count, Brute / Hier / Hier+Pre counted the seed's way (the heuristic counts the
same either way), Oracle, Oracle+Pre, Learned, Learned+Pre. Each solve runs single-threaded in a
worker process with a hard limit (benchmarks/runner.py); solves under 0.2 s are repeated and the
fastest time kept.

    python benchmarks/bench_sched.py [--quick]
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from benchmarks.common import (OUT, RESULTS, ROOT, SCHED_CONFIGS, load_puzzles3d, log,  # noqa: E402
                               machine_info, save_json, single_thread_env)
from benchmarks.runner import run_jobs  # noqa: E402

HARD_LIMIT = {12: 30.0, 24: 60.0, 36: 90.0, 64: 120.0}
BLOB_HARD_LIMIT = 60.0


def job_id(key, label, counting):
    return f"{key}|{label}|{counting}"


def jobs_for(key, ref, hard):
    return [{"id": job_id(key, label, counting), "puzzle": ref, "solver": "engine", "method": method,
             "prepass": pre, "linesolver": "dp", "counting": counting, "time_limit": None,
             "hard_limit": hard} for label, method, pre, counting in SCHED_CONFIGS]


def blob_rows(quick):
    """The training, validation and test blobs, saved as puzzle files for the workers."""
    from benchmarks import train_scheduler as T
    from engine.files.puzzlefile import save_puzzle
    rows = []
    for split, specs in (("training", T.TRAIN_BLOBS), ("validation", T.VALIDATION_BLOBS),
                         ("test", T.TEST_BLOBS)):
        if quick:
            specs = specs[:2]
        for (name, p), spec in zip(T.blob_puzzles(specs), specs):
            path = OUT / "puzzles" / (name.replace(" ", "_").replace("×", "x") + ".json")
            path.parent.mkdir(parents=True, exist_ok=True)
            save_puzzle(p, path)
            rows.append({"name": name, "kind": "blob", "split": split, "spec": list(spec),
                         "ref": str(path), "lines": int(p.n_lines), "cells": int(p.n_cells),
                         "hard": BLOB_HARD_LIMIT})
    return rows


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true")
    a = ap.parse_args(argv)
    single_thread_env()
    from benchmarks import train_scheduler as T
    src = load_puzzles3d()
    if not src:
        return 1
    rows = []
    for r in src["puzzles"]:
        res = r["resolution"]
        split = ("training" if res in T.TRAIN_RESOLUTIONS else
                 "validation" if res in T.VALIDATION_RESOLUTIONS else None)
        if r["model"] == "checkerboard":
            split = None  # never line-solvable: no ratio to brute force
        rows.append({"name": f"{r['model']} {res}³", "kind": "model", "model": r["model"], "resolution": res,
                     "split": split, "ref": str(ROOT / r["puzzle_file"]), "lines": r["stats"]["lines"],
                     "cells": r["stats"]["cells"], "hard": HARD_LIMIT.get(res, max(HARD_LIMIT.values()))})
    rows += blob_rows(a.quick)
    machine = machine_info()
    t0 = time.time()
    out = []
    for row in rows:
        key = row["name"]
        results = run_jobs(jobs_for(key, row["ref"], row["hard"]), log=log)
        entry = {k: v for k, v in row.items() if k not in ("ref", "hard")}
        entry["runs"] = {f"{label}|{counting}": results.get(job_id(key, label, counting))
                         for label, _m, _p, counting in SCHED_CONFIGS}
        b = entry["runs"].get("Brute|strict") or {}
        parts = []
        for label, _m, _p, counting in SCHED_CONFIGS:
            r = entry["runs"][f"{label}|{counting}"] or {}
            parts.append(f"{label}{'·seed' if counting == 'seed' else ''} {r.get('linesolvers')}")
        log(f"{key}: {row['lines']} lines, Brute {b.get('verdict')}; " + ", ".join(parts))
        out.append(entry)
        save_json({"machine": machine, "quick": a.quick, "split": T.split_text(), "rows": out,
                   "elapsed_s": time.time() - t0}, RESULTS / "bench_sched.json")
    log(f"scheduler stage done in {time.time() - t0:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
