"""The tournament run's slowest puzzles, measured again one by one: ours, and CP-SAT as a
conflict-driven solver with lazy clause generation.

A full tournament run (``tournament.py --sets all --stride 1 ...``, stored as
``results/tournament_all.json.gz``) shows which puzzles took ours or nonosolve over ``--over``
seconds. This script takes those puzzles and, for each, measures in this process (CPU time, one
at a time, after a warm-up):

- ours, first solution: CPU time and CaDiCaL's conflicts;
- ours, uniqueness: the verdict (a puzzle with several solutions has no forced cells to find,
  which is why probing leaves its root near blank) and its CPU time;
- CP-SAT (``cpsat.py``'s model: a cell variable each, an automaton constraint per line; one
  worker), first solution, per ``--seeds`` seed: CPU time and conflicts. CP-SAT propagates each
  line's automaton and learns clauses from the propagators' explanations (lazy clause
  generation): whether these puzzles are hard for a conflict-driven solver that sees the lines
  as lines, or only for our CNF.

    python benchmarks/tail.py [--results results/tournament_all.json.gz] [--over 2.0]
        [--seeds 0 1] [--limit 30] [--out results/tail.json]
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from benchmarks.common import RESULTS, load_json, machine_info, rel, save_json, single_thread_env  # noqa: E402
from benchmarks.tournament import TAAI, warm_up  # noqa: E402

RUN = RESULTS / "tournament_all.json.gz"


def slow_puzzles(doc, over, solvers=("ours", "nonosolve")):
    """[(set, index, {solver: CPU seconds in the run})] of every puzzle some solver of ``solvers``
    took over ``over`` seconds on, in set and index order; each with every one of ``solvers``'
    times (None where a solver has no row for it)."""
    out = []
    for entry in doc["sets"]:
        runs = {s: {r["i"]: r.get("cpu") for r in entry["solve"][s]["rows"]}
                for s in solvers if s in entry["solve"]}
        slow = {i for rows in runs.values() for i, cpu in rows.items() if cpu is not None and cpu > over}
        for i in sorted(slow):
            out.append((entry["set"], i, {s: runs.get(s, {}).get(i) for s in solvers}))
    return out


def ours(puzzle, want, limit):
    """Our solve to ``want`` solutions (1: the first, verdict ``solved``; 2: uniqueness, verdict
    unique / multiple / none): its verdict, CPU seconds and CaDiCaL's conflicts (-1: never
    handed over)."""
    from engine.solve.driver import solve
    c0 = time.process_time()
    r = solve(puzzle, want=want, time_limit=limit)
    return {"cpu": time.process_time() - c0, "sat_conflicts": r.stats.get("sat_conflicts", -1),
            "verdict": r.verdict}


def cpsat_first(puzzle, seed, limit):
    """CP-SAT's first solution with one worker: CPU seconds, conflicts, its status."""
    from ortools.sat.python import cp_model

    from benchmarks.cpsat import build_model
    model, _, _ = build_model(puzzle, "cap")
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = 1
    solver.parameters.random_seed = int(seed)
    solver.parameters.max_time_in_seconds = float(limit)
    c0 = time.process_time()
    status = solver.Solve(model)
    return {"cpu": time.process_time() - c0, "conflicts": int(solver.NumConflicts()),
            "status": solver.StatusName(status)}


def measure(slow, seeds, limit, use_cpsat):
    """A row per slow puzzle: the run's times and this process's measurements."""
    from engine.files.puzzlefile import load_puzzles
    sets = {}
    rows = []
    for name, i, run in slow:
        if name not in sets:
            sets[name] = load_puzzles(TAAI / f"{name}.txt.gz")
        p = sets[name][i]
        row = {"set": name, "i": i, "run": run, "ours": ours(p, 1, limit), "unique": ours(p, 2, limit)}
        if use_cpsat:
            row["cpsat"] = [cpsat_first(p, s, limit) for s in seeds]
        rows.append(row)
        print(row_line(row), flush=True)
    return rows


def _t(v):
    return "-" if v is None else f"{v:.2f}"


def row_line(row):
    """A table line: the run's times, ours now (conflicts), the verdict, CP-SAT per seed."""
    run = " | ".join(_t(v) for v in row["run"].values())
    first = row["ours"]
    cells = [f"{row['set']} #{row['i']}", run, f"{first['cpu']:.2f} ({first['sat_conflicts']:,})",
             f"{row['unique']['verdict']} {row['unique']['cpu']:.2f}"]
    for c in row.get("cpsat", []):
        cells.append(f"{c['cpu']:.2f} ({c['conflicts']:,})" + ("" if c["status"] in ("OPTIMAL", "FEASIBLE")
                                                                 else f" {c['status']}"))
    return "| " + " | ".join(cells) + " |"


def header(solvers, seeds, use_cpsat):
    cols = ["puzzle"] + [f"{s} in the run, s" for s in solvers] + ["ours now, s (conflicts)", "verdict, s"]
    if use_cpsat:
        cols += [f"CP-SAT seed {s}, s (conflicts)" for s in seeds]
    return "| " + " | ".join(cols) + " |\n|" + "---|" * len(cols)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--results", default=str(RUN), help="a full tournament run's results (.json or .json.gz)")
    ap.add_argument("--over", type=float, default=2.0, help="seconds over which a puzzle is slow")
    ap.add_argument("--seeds", type=int, nargs="*", default=[0, 1], help="CP-SAT's seeds")
    ap.add_argument("--limit", type=float, default=30.0, help="CPU seconds per solve")
    ap.add_argument("--no-cpsat", action="store_true", help="ours only")
    ap.add_argument("--out", default=str(RESULTS / "tail.json"))
    args = ap.parse_args(argv)
    single_thread_env()
    use_cpsat = not args.no_cpsat
    if use_cpsat:
        from benchmarks.cpsat import HAVE_ORTOOLS, ORTOOLS_IMPORT_ERROR
        if not HAVE_ORTOOLS:
            sys.exit("tail.py: CP-SAT needs ortools (pip install -r benchmarks/requirements.txt; or --no-cpsat): "
                     + ORTOOLS_IMPORT_ERROR)
    doc = load_json(Path(args.results))
    if doc is None or "sets" not in doc:
        sys.exit(f"tail.py: no tournament results in {args.results}")
    solvers = ("ours", "nonosolve")
    slow = slow_puzzles(doc, args.over, solvers)
    print(f"{len(slow)} puzzles over {args.over} s in {rel(Path(args.results))} ({doc['machine'].get('date_utc')})")
    warm = warm_up(1)
    print(f"warm-up: {warm['puzzles']} puzzles, {warm['cpu_s']:.2f} s CPU")
    print(header(solvers, args.seeds, use_cpsat))
    rows = measure(slow, args.seeds, args.limit, use_cpsat)
    save_json({"machine": machine_info(), "results": rel(Path(args.results)), "over": args.over,
               "seeds": args.seeds if use_cpsat else [], "limit": args.limit, "rows": rows}, args.out)
    print(f"wrote {rel(Path(args.out))}")


if __name__ == "__main__":
    main()
