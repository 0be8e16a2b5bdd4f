"""Stage 3: 2D puzzles, ours (``full``) vs CP-SAT to a uniqueness verdict, and the seed's 2D subset.

- Wolter's webpbn survey puzzles (the 14 redistributable ones in ../shared/puzzles2d/webpbn-survey/):
  ``full`` with each linesolver and CP-SAT; verdicts checked against ../shared/puzzles2d/EXPECTED.csv.
- Two TAAI/TCGA tournament sets (1000 random 25x25 puzzles each): ``full`` (DP linesolver) and
  CP-SAT per puzzle: time per puzzle, totals, verdict counts, agreement.
- The seed's 2D subset (its Tables 7/8: Bucks, Cat, Dancer, Edge, Knot, Skid, Swing; Smoke is not
  redistributable): the five seed schedulers with each linesolver.

    python benchmarks/bench2d.py [--quick] [--sets taai2011 taai2021] [--limit N]
"""
from __future__ import annotations

import argparse
import csv
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from benchmarks.common import (LINESOLVERS, RESULTS, SEED_CONFIGS, SHARED, log, machine_info,  # noqa: E402
                               rel, save_json, single_thread_env)
from benchmarks.runner import run_jobs  # noqa: E402
from benchmarks.seed_published import TABLE7  # noqa: E402

P2D = SHARED / "puzzles2d"
SURVEY = P2D / "webpbn-survey"
TAAI = P2D / "taai-tcga-icga" / "question"
DEFAULT_SETS = ["taai2011", "taai2021"]
SURVEY_TL, QUICK_SURVEY_TL = 10.0, 5.0
TAAI_TL, QUICK_TAAI_TL = 1.0, 1.0
CHUNK = 100  # tournament puzzles per worker run; the deadline is checked between chunks


def expected() -> dict:
    """EXPECTED.csv rows of the survey folder: file name -> (solutions, line_solvable)."""
    out = {}
    path = P2D / "EXPECTED.csv"
    if not path.exists():
        return out
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            if row["file"].startswith("webpbn-survey/"):
                sol = row["solutions"].split()[0]
                out[Path(row["file"]).name] = (sol, row["line_solvable"])
    return out


def agree(a, b) -> str:
    done = ("unique", "multiple", "none")
    if a not in done or b not in done:
        return "n/a"
    return "agree" if a == b else "DISAGREE"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="first 50 puzzles of each set, shorter limits")
    ap.add_argument("--sets", nargs="*", default=DEFAULT_SETS)
    ap.add_argument("--limit", type=int, help="puzzles per tournament set (default all 1000; quick 50)")
    ap.add_argument("--deadline", type=float, help="unix time: stop starting tournament chunks after it")
    ap.add_argument("--stride", type=int, help="solve every s-th tournament puzzle (default 2; quick 1)")
    ap.add_argument("--cpsat-every", type=int, default=10,
                    help="CP-SAT on every k-th tournament puzzle (default 10, a multiple of the stride)")
    a = ap.parse_args(argv)
    single_thread_env()
    t_start = time.time()
    stl = QUICK_SURVEY_TL if a.quick else SURVEY_TL
    ttl = QUICK_TAAI_TL if a.quick else TAAI_TL
    limit = a.limit or (50 if a.quick else 1000)
    # About a quarter of these random 25x25 puzzles have many solutions that take our search (and
    # CP-SAT) seconds to tell apart; all 2 x 1000 at a useful time limit do not fit the 30-minute run.
    stride = a.stride or (1 if a.quick else 2)
    exp = expected()
    out = {"machine": machine_info(), "quick": a.quick, "survey_time_limit": stl, "taai_time_limit": ttl}

    # --- survey puzzles --------------------------------------------------------------------
    files = sorted(SURVEY.glob("*.nin"))
    seed_files = {v[6]: k for k, v in TABLE7.items() if v[6]}
    jobs = []
    for f in files:
        for ls in LINESOLVERS:
            jobs.append({"id": f"{f.name}|{ls}|full", "puzzle": str(f), "solver": "engine",
                         "method": "full", "linesolver": ls, "time_limit": stl, "hard_limit": stl * 1.5 + 15})
        jobs.append({"id": f"{f.name}|cpsat", "puzzle": str(f), "solver": "cpsat", "workers": 1,
                     "time_limit": stl, "hard_limit": stl * 1.5 + 30})
        if f.name in seed_files:
            for ls in LINESOLVERS:
                for label, method, pre in SEED_CONFIGS:
                    jobs.append({"id": f"{f.name}|{ls}|{label}", "puzzle": str(f), "solver": "engine",
                                 "method": method, "prepass": pre, "linesolver": ls, "time_limit": None,
                                 "hard_limit": 60.0})
    log(f"2D survey: {len(files)} puzzles, {len(jobs)} solves (time limit {stl:.0f} s)")
    res = run_jobs(jobs, log=log)
    from engine.files.puzzlefile import load_puzzle
    from engine.model.stats import puzzle_stats
    survey = []
    for f in files:
        p = load_puzzle(f)
        ours = res.get(f"{f.name}|dp|full") or {}
        theirs = res.get(f"{f.name}|cpsat") or {}
        e = exp.get(f.name)
        row = {"file": f.name, "path": rel(f), "shape": list(p.shape), "stats": puzzle_stats(p),
               "full": {ls: res.get(f"{f.name}|{ls}|full") for ls in LINESOLVERS}, "cpsat": theirs,
               "expected": e[0] if e else None, "expected_line_solvable": e[1] if e else None,
               "agreement": agree(ours.get("verdict"), theirs.get("verdict")),
               "seed_name": seed_files.get(f.name)}
        if row["agreement"] == "agree" and ours.get("verdict") == "unique" and \
                ours.get("solution_keys") != theirs.get("solution_keys"):
            row["agreement"] = "DISAGREE"
        if e and ours.get("verdict") in ("unique", "multiple"):
            row["matches_expected"] = ours.get("verdict") == e[0]
        if row["seed_name"]:
            row["schedulers"] = {ls: {label: res.get(f"{f.name}|{ls}|{label}")
                                      for label, _m, _p in SEED_CONFIGS} for ls in LINESOLVERS}
        msg = (f"  {f.name:18s} {'x'.join(map(str, p.shape)):6s} full {ours.get('verdict')} "
               f"({ours.get('difficulty')}) {ours.get('time_s') or 0:.3f} s | cpsat {theirs.get('verdict')} "
               f"{theirs.get('time_s') or 0:.3f} s | {row['agreement']} | expected {row['expected']}")
        if row["agreement"] == "DISAGREE":
            msg += "   <<<<<<<<<< DISAGREE"
        log(msg)
        survey.append(row)
    out["survey"] = survey
    save_json(out, RESULTS / "bench2d.json")

    # --- tournament sets -------------------------------------------------------------------
    from engine.files.puzzlefile import load_puzzles
    sets = []
    for name in a.sets:
        path = TAAI / f"{name}.txt.gz"
        if not path.exists():
            log(f"missing set {rel(path)}")
            continue
        n_all = min(limit, len(load_puzzles(path)))
        jobs = []
        for i in range(0, n_all, stride):
            ref = f"{path}#{i}"
            jobs.append({"id": f"{name}#{i}|full", "puzzle": ref, "solver": "engine", "method": "full",
                         "linesolver": "dp", "time_limit": ttl, "hard_limit": ttl * 1.5 + 15})
            if i % a.cpsat_every == 0:
                jobs.append({"id": f"{name}#{i}|cpsat", "puzzle": ref, "solver": "cpsat", "workers": 1,
                             "time_limit": ttl, "hard_limit": ttl * 1.5 + 30})
        log(f"{name}: every {stride}th of {n_all} puzzles, {len(jobs)} solves (time limit {ttl:.0f} s; "
            f"CP-SAT on every {a.cpsat_every}th)")
        t0 = time.time()
        res = {}
        n = 0
        stopped = None
        while n < n_all:
            if a.deadline and time.time() > a.deadline:
                stopped = f"stopped after {n} of {n_all} puzzles: the run's time budget was used up"
                log(f"  {name}: {stopped}")
                break
            hi = min(n_all, n + CHUNK)
            chunk = [j for j in jobs if n <= int(j["id"].split("#")[1].split("|")[0]) < hi]
            res.update(run_jobs(chunk, log=log))
            n = hi
        rows = []
        for i in range(0, n, stride):
            o = res.get(f"{name}#{i}|full") or {}
            c = res.get(f"{name}#{i}|cpsat") or {}
            ag = agree(o.get("verdict"), c.get("verdict"))
            if ag == "agree" and o.get("verdict") == "unique" and o.get("solution_keys") != c.get("solution_keys"):
                ag = "DISAGREE"
            rows.append({"index": i, "ours": o.get("verdict"), "difficulty": o.get("difficulty"),
                         "ours_s": o.get("time_s"), "cpsat": c.get("verdict"), "cpsat_s": c.get("time_s"),
                         "agreement": ag})
            if ag == "DISAGREE":
                log(f"  {name}#{i}: DISAGREE ours {o.get('verdict')} cpsat {c.get('verdict')}   <<<<<<<<<<")
        sets.append({"set": name, "path": rel(path), "n": len(rows), "of": n_all, "stride": stride,
                     "range": n, "stopped": stopped,
                     "cpsat_every": a.cpsat_every, "rows": rows, "wall_s": time.time() - t0})
        tot_o = sum(r["ours_s"] or 0 for r in rows)
        both = [r for r in rows if r["cpsat"] is not None]
        tot_c = sum(r["cpsat_s"] or 0 for r in both)
        tot_ob = sum(r["ours_s"] or 0 for r in both)
        log(f"  {name}: ours total {tot_o:.2f} s over {n}; on the {len(both)} CP-SAT also ran: ours "
            f"{tot_ob:.2f} s, CP-SAT {tot_c:.2f} s")
        out["taai"] = sets
        save_json(out, RESULTS / "bench2d.json")
    out["taai"] = sets
    out["elapsed_s"] = time.time() - t_start
    save_json(out, RESULTS / "bench2d.json")
    log(f"2D stage done in {time.time() - t_start:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
