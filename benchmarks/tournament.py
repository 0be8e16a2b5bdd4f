"""Tournament sets, first solution, like with like: ours against nonosolve and LalaFrogKK.

The TAAI/TCGA/ICGA computer nonogram tournaments ask for any one solution of each of 1000 random
25x25 puzzles per set. This stage runs, on the same puzzles:
- ours: ``solve(p, want=1)`` (propagation, probing, search, the CDCL hand-over);
- nonosolve (hyouv/FastNonogramSolver: bit-parallel line solving, probing, DFS with restarts,
  a CaDiCaL/Kissat fallback), ``--taai`` mode, ``-n 1``; built outside the repository by
  ``benchmarks/build_nonosolve.sh``;
- LalaFrogKK (CGI-LAB/Nonogram, the LalaFrogKK paper's tournament solver), built outside the
  repository by ``benchmarks/build_lalafrogkk.sh``.

Like with like: two measures, never mixed, and every table says which (``--measure``):
- ``solve``: each solver's **own solve time**, CPU, per puzzle. Ours: ``time.process_time()``
  around ``solve`` in a worker process that first warms up on generated puzzles it does not
  measure (every kernel loaded, python-sat loaded and one hand-over to CaDiCaL made).
  LalaFrogKK: its tournament mode on the whole sample, its log's ``clock()`` per puzzle.
  nonosolve: ``--taai`` on the whole sample, its log's time per puzzle, which is its
  ``now_sec()``: steady_clock in its sources, so build it with the CPU clock on a shared machine
  (docs/BENCHMARKS.md says how) or its times are wall times.
- ``process``: the **whole process** per puzzle, CPU time from ``wait4`` (start-up, reading,
  solving, writing): ours ``python -m engine solve ONE.txt --first --json``, nonosolve
  ``--taai ONE.txt -n 1``, LalaFrogKK ``lalafrog SOLVE STRING`` (its one-puzzle mode).

One solver at a time: the solvers take turns chunk by chunk (``--chunk`` puzzles of a set, 20 by
default; their order rotating from chunk to chunk), never beside each other on the machine's
cores. Turns of a few seconds, not of a whole set: this host's speed drifts by tens of per cent
over minutes (taai2021's 100 puzzles took ours 6.35 s in two runs of every set by turns of a set,
3.8-4.0 s alone, and nonosolve 5.1 s against 3.7 s), and a drift that fell on one solver's turn
went into the ratio. Every limit is ``--limit`` CPU seconds per
puzzle (default 10; a watchdog reads /proc where the solver has no CPU limit of its own), every
solution is checked against the clues here (a wrong one counts as unsolved), and an unsolved
puzzle counts the time it used. The load average is recorded before and after each solver's
turn.

    python benchmarks/tournament.py [--sets taai2011 ...] [--stride 10] [--offset 0]
        [--measure solve process] [--process-stride 4] [--limit 10] [--chunk 20]
        [--nonosolve PATH] [--lala PATH] [--solvers ours nonosolve lala] [--unique SETS]
        [--out tournament.json] [--merge] [--peers-from tournament.json]
    python benchmarks/tournament.py --print --out tournament.json [--spread 10]

``--sets all`` runs every set in ``../shared/puzzles2d/taai-tcga-icga/question``. Writes
``benchmarks/results/<out>`` (gzip-compressed for a name ending in .gz); prints the tables
(ratios ours ÷ peer); ``benchmarks/report.py`` puts them in docs/BENCHMARKS.md. ``--print
--spread 10`` on a run over whole sets (stride 1) also prints each set's ratio on each of the
ten samples of every 10th puzzle it holds: how far a set's ratio on a sample of 100 moves with
the sample.
"""
from __future__ import annotations

import argparse
import gzip
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from benchmarks import peers  # noqa: E402
from benchmarks.common import (RESULTS, ROOT, SHARED, load_json, log, machine_info, rel,  # noqa: E402
                               save_json, single_thread_env)

TAAI = SHARED / "puzzles2d" / "taai-tcga-icga" / "question"
DEFAULT_SETS = ["taai2011", "icga2016", "icga2017", "icga2018", "icga2019", "icga2020", "icga2021"]
PEERS = ROOT.parent / "peers"
LALA_DEFAULT = PEERS / "lalafrogkk" / "lalafrog"
NONOSOLVE_DEFAULT = PEERS / "nonosolve" / "bin" / "nonosolve"
SOLVERS = ("ours", "nonosolve", "lala")
LABELS = {"ours": "ours", "nonosolve": "nonosolve", "lala": "LalaFrogKK", "ours_unique": "ours, uniqueness"}
MEASURES = {"solve": "own solve time (CPU)", "process": "whole process per puzzle (CPU)"}
WARM_SEED = 4040  # the generated warm-up puzzles (never a tournament puzzle)


# ---------------------------------------------------------------------------------------------
# puzzles and checking


def all_sets():
    return sorted(p.name[:-len(".txt.gz")] for p in TAAI.glob("*.txt.gz"))


def read_set(name):
    """The set's puzzles as (rows, cols) clue lists, in file order (the tournament format: a
    ``$N`` line, then 25 column clues, then 25 row clues, tab-separated)."""
    with gzip.open(TAAI / f"{name}.txt.gz", "rt") as f:
        text = f.read()
    out = []
    for chunk in text.split("$")[1:]:
        lines = chunk.split("\n")[1:]
        clues = [[int(x) for x in ln.split()] for ln in lines[:50]]
        out.append((clues[25:50], clues[0:25]))
    return out


def _blocks(bits):
    out, run = [], 0
    for b in list(bits) + [0]:
        if b:
            run += 1
        elif run:
            out.append(run)
            run = 0
    return out


def check(puzzle, grid) -> bool:
    """Whether ``grid`` (25 rows of 25 0/1) satisfies every clue of ``puzzle`` (rows, cols)."""
    rows, cols = puzzle
    if grid is None or len(grid) != len(rows) or any(len(r) != len(cols) for r in grid):
        return False
    if any(v not in (0, 1) for r in grid for v in r):
        return False
    if any(_blocks(grid[i]) != [b for b in rows[i] if b] for i in range(len(rows))):
        return False
    return all(_blocks([grid[i][j] for i in range(len(rows))]) == [b for b in cols[j] if b]
               for j in range(len(cols)))


# ---------------------------------------------------------------------------------------------
# ours, own solve time: a worker process per set


def _sat_clock():
    """A list whose first item accumulates the CPU seconds spent in the CDCL solver's turns
    (the search's ``sat_slice``, wrapped); [None] when the search has no such method."""
    spent = [0.0]
    try:
        from engine.solve import search
        inner = search._Driver.sat_slice
    except (ImportError, AttributeError):
        return [None]

    def timed(self, *a, **k):
        c = time.process_time()
        try:
            return inner(self, *a, **k)
        finally:
            spent[0] += time.process_time() - c
    search._Driver.sat_slice = timed
    return spent


def warm_up(want) -> dict:
    """Solve generated 25x25 puzzles (random grids, never measured) until the kernels are loaded
    and one solve has handed over to CaDiCaL (python-sat imported, its solver made)."""
    import numpy as np

    from engine.model.clues import puzzle_from_grid
    from engine.solve.driver import solve
    rng = np.random.default_rng(WARM_SEED)
    t0, c0 = time.perf_counter(), time.process_time()
    n, sat = 0, False
    while n < 40 and not (n >= 3 and sat):
        p = puzzle_from_grid(rng.random((25, 25)) < 0.5)
        r = solve(p, want=want, use_known=False, time_limit=30.0)
        sat = sat or r.stats.get("sat_conflicts", -1) >= 0
        n += 1
    return {"puzzles": n, "reached_sat": sat, "wall_s": time.perf_counter() - t0,
            "cpu_s": time.process_time() - c0}


def worker(name, indices, limit, want, out_path) -> int:
    """Solve the set's puzzles ``indices`` one by one, appending one JSON line per puzzle."""
    single_thread_env()
    import numpy as np

    from engine.files.puzzlefile import load_puzzles
    from engine.solve.driver import solve
    puzzles = load_puzzles(TAAI / f"{name}.txt.gz")
    clues = read_set(name)
    warm = warm_up(want)
    sat_spent = _sat_clock()
    with open(out_path, "a") as out:
        out.write(json.dumps({"warm_up": warm}) + "\n")
        for i in indices:
            p = puzzles[i]
            s0 = sat_spent[0]
            c0 = time.process_time()

            def over(_f, _m, c0=c0):
                return time.process_time() - c0 >= limit
            # the CPU limit through the progress callback (on a shared machine wall time runs
            # many times faster than a busy process's CPU time, so no wall limit)
            r = solve(p, want=want, progress=over)
            cpu = time.process_time() - c0
            ok = None
            if r.solutions:
                g = np.asarray(r.solutions[0], bool).reshape(p.grid_shape()).astype(int).tolist()
                ok = check(clues[i], g)
            sat_c = r.stats.get("sat_conflicts")
            out.write(json.dumps({
                "i": i, "cpu": cpu, "verdict": r.verdict, "ok": ok, "nodes": r.stats.get("nodes"),
                "probes": r.stats.get("probes"), "sat": sat_c is not None and sat_c >= 0, "sat_conflicts": sat_c,
                "sat_cpu": None if s0 is None else sat_spent[0] - s0}) + "\n")
            out.flush()
    return 0


def ours_solve(name, indices, limit, want, tmp):
    """Our own solve times {index: row}; a worker that dies or hangs is restarted after its puzzle."""
    res, warm = {}, None
    left = list(indices)
    k = 0
    while left:
        k += 1
        path = Path(tmp) / f"ours-{name}-{want}-{k}.jsonl"
        path.touch()
        cmd = [sys.executable, str(Path(__file__).resolve()), "--worker", name, str(limit), str(want),
               ",".join(map(str, left)), str(path)]
        proc = subprocess.Popen(cmd, cwd=str(ROOT))
        last, seen = time.time(), 0
        while proc.poll() is None:
            time.sleep(0.5)
            n = sum(1 for _ in open(path))
            if n != seen:
                seen, last = n, time.time()
            elif time.time() - last > max(1800.0, 60 * limit):  # includes the warm-up
                proc.kill()
                proc.wait()
        for line in open(path):
            d = json.loads(line)
            if "warm_up" in d:
                warm = warm or d["warm_up"]
            else:
                res[d["i"]] = d
        if not any(i in res for i in left) and proc.returncode != 0:
            res[left[0]] = {"i": left[0], "cpu": None, "verdict": "crashed", "ok": None}
        left = [i for i in left if i not in res]
    return res, warm


def ours_process(name, puzzles, indices, limit, tmp):
    """One ``python -m engine solve ONE.txt --first --json`` per puzzle: the whole process's
    CPU time (the interpreter, imports, loading the kernels, reading, the solve)."""
    res = {}
    work = Path(tmp) / f"ours-process-{name}"
    work.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    # as installed: Python writes the modules' bytecode on their first import (a sandbox may say
    # not to, and then every process compiles the engine's sources again, ~0.1 s each)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    # one process first, not measured: the bytecode written, numba's disk cache holding every
    # kernel the CLI loads, the files in the OS's page cache, as for the peers' binaries
    peers.write_taai([puzzles[indices[0]]], work / "one.txt")
    peers.run_process([sys.executable, "-m", "engine", "solve", str(work / "one.txt"), "--first"], 600.0,
                      cwd=str(ROOT), env=env)
    for i in indices:
        one = work / "one.txt"
        peers.write_taai([puzzles[i]], one)
        cpu, killed, rc, out = peers.run_process(
            [sys.executable, "-m", "engine", "solve", str(one), "--first", "--json", "--time-limit",
             str(100 * limit)], limit, cwd=str(ROOT), env=env)
        row = {"i": i, "cpu": min(cpu, float(limit)) if killed else cpu, "ok": None, "timeout": killed}
        if not killed and rc == 0:
            d = json.loads(out.strip().splitlines()[-1])
            if d.get("solution"):
                s = d["solution"]
                grid = [[int(c) for c in s[r * 25:(r + 1) * 25]] for r in range(25)]
                row["ok"] = check(puzzles[i], grid) or None
            sat_c = (d.get("stats") or {}).get("sat_conflicts")
            row.update(verdict=d.get("verdict"), sat=sat_c is not None and sat_c >= 0)
        res[i] = row
    return res


# ---------------------------------------------------------------------------------------------
# the peers (benchmarks/peers.py runs them)


def _checked(puzzles, rows_by_index):
    out = {}
    for i, r in rows_by_index.items():
        r = dict(r)
        grid = r.pop("grid", None)
        r["i"] = i
        r["ok"] = check(puzzles[i], grid) or None if r.get("cpu") is not None else None
        out[i] = r
    return out


def peer_solve(solver, binary, name, puzzles, indices, limit, tmp):
    """A peer's own solve times {index: row}: its batch mode on the whole sample."""
    names = [str(i + 1) for i in indices]
    batch = [puzzles[i] for i in indices]
    work = Path(tmp) / f"{solver}-{name}"
    if solver == "lala":
        rows = peers.lala_batch(binary, batch, names, limit, work, puzzles)
    else:
        rows = peers.nonosolve_batch(binary, batch, names, limit, work)
    return _checked(puzzles, {int(n) - 1: r for n, r in rows.items()})


def peer_process(solver, binary, name, puzzles, indices, limit, tmp):
    """A peer's whole process per puzzle {index: row}."""
    run = peers.lala_process if solver == "lala" else peers.nonosolve_process
    work = Path(tmp) / f"{solver}-process-{name}"
    rows = {}
    for i in indices:
        cpu, grid, extra = run(binary, puzzles[i], limit, work)
        rows[i] = dict(extra, cpu=cpu, grid=grid)
    return _checked(puzzles, rows)


# ---------------------------------------------------------------------------------------------
# summaries and tables


def _cpu(r, limit):
    """A row's CPU time, at most the limit (a solver that checks its clock now and then may end
    past it)."""
    return r["cpu"] if limit is None else min(r["cpu"], limit)


def summary(rows, n, limit=None) -> dict:
    """solved, total, median, max (CPU s; an unsolved puzzle counts its time, at most the limit),
    puzzles over 1 s and 2 s, and how many used a SAT solver (and its CPU share, ours). A solve
    that ended past ``limit`` counts as unsolved at the limit, whoever it is."""
    times = sorted(_cpu(r, limit) for r in rows.values() if r.get("cpu") is not None)
    solved = sum(1 for r in rows.values() if r.get("ok") and (limit is None or r["cpu"] <= limit))
    sat = [r for r in rows.values() if r.get("sat") is not None]
    sat_cpu = [r["sat_cpu"] for r in rows.values() if r.get("sat_cpu") is not None]
    out = {"n": n, "solved": solved, "total": sum(times),
           "median": times[len(times) // 2] if times else None, "max": times[-1] if times else None,
           "over_1s": sum(t > 1.0 for t in times), "over_2s": sum(t > 2.0 for t in times),
           "sat": sum(1 for r in sat if r["sat"]) if sat else None}
    if sat_cpu:
        out["sat_cpu"] = sum(sat_cpu)
    return out


def resummarize(doc):
    """Every summary of a result file again from its rows (after a change of ``summary``)."""
    for st in doc.get("sets", []):
        for m in MEASURES:
            for e in (st.get(m) or {}).values():
                rows = {k: r for k, r in enumerate(e["rows"]) if r is not None}
                e["summary"] = summary(rows, len(e["rows"]), doc.get("limit"))


def load_now():
    return [round(x, 2) for x in os.getloadavg()]


def _pooled(entries, limit=None):
    """One summary of several sets' rows."""
    rows, n = {}, 0
    for k, e in enumerate(entries):
        for j, r in enumerate(e["rows"]):
            if r is not None:
                rows[(k, j)] = r
        n += e["summary"]["n"]
    return summary(rows, n, limit)


def table_lines(doc, measure, solvers=SOLVERS):
    """Markdown rows, one per set and solver (and all sets pooled): solved, total, median, max,
    puzzles over 1 s and 2 s, puzzles handed to a SAT solver, and ours ÷ that solver (total,
    median)."""
    sets = [s for s in doc.get("sets", []) if measure in s]
    present = [x for x in solvers if any(x in s[measure] for s in sets)]
    groups = [(s["set"], {x: s[measure][x] for x in present if x in s[measure]}) for s in sets]
    if len(groups) > 1:
        groups.append(("**all**", {x: {"summary": _pooled([s[measure][x] for s in sets if x in s[measure]],
                                                          doc.get("limit"))}
                                   for x in present}))
    head = ("set", "solver", "solved", "total CPU", "median", "max", "> 1 s", "> 2 s", "to SAT",
            "ours ÷ it (total)", "ours ÷ it (median)")
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for name, by in groups:
        o = by.get("ours", {}).get("summary")
        for x in present:
            s = by.get(x, {}).get("summary")
            if not s:
                continue
            sat = "—" if s.get("sat") is None else f"{s['sat']} ({100 * s['sat'] / max(s['n'], 1):.0f} %)"
            rt = rm = "—"
            if o and x != "ours":
                rt = _x(o["total"] / s["total"] if s["total"] else None)
                rm = _x(o["median"] / s["median"] if s["median"] and o["median"] else None)
            out.append("| " + " | ".join([name, LABELS[x], f"{s['solved']}/{s['n']}", _s(s["total"]),
                                          _ms(s["median"]), _s(s["max"]), str(s["over_1s"]),
                                          str(s["over_2s"]), sat, rt, rm]) + " |")
    return out


def _s(v):
    return "—" if v is None else f"{v:.2f} s"


def _ms(v):
    return "—" if v is None else f"{1000 * v:.1f} ms"


def _x(v):
    return "—" if not v else f"{v:.2f}×"


def sample_spread(doc, stride, peer="nonosolve", measure="solve"):
    """How far a set's ratio moves with the sample: for a run over whole sets, ours ÷ ``peer``
    (total CPU) on the whole set and on each of the ``stride`` samples it holds (every
    ``stride``-th puzzle from puzzle k, k = 0 .. stride-1; the tables' samples are such ones).
    [(set, whole-set ratio, [ratio of sample k])], sets where both solvers have rows only."""
    out = []
    for st in doc.get("sets", []):
        by = st.get(measure) or {}
        if "ours" not in by or peer not in by:
            continue
        sums = [[0.0, 0.0] for _ in range(stride)]
        for side, name in enumerate(("ours", peer)):
            for r in by[name]["rows"]:
                if r is not None and r.get("cpu") is not None:
                    sums[r["i"] % stride][side] += _cpu(r, doc.get("limit"))
        whole = [sum(x[k] for x in sums) for k in (0, 1)]
        out.append((st["set"], whole[0] / whole[1] if whole[1] else None,
                    [o / p if p else None for o, p in sums]))
    return out


def spread_lines(doc, stride, peer="nonosolve"):
    """Markdown rows of ``sample_spread``, and a last row: how many sets are over 1× in each sample."""
    rows = sample_spread(doc, stride, peer)
    head = ["set", "whole set"] + [f"from {k + 1}" for k in range(stride)] + ["spread"]
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for name, whole, parts in rows:
        got = [x for x in parts if x is not None]
        out.append("| " + " | ".join([name, _x(whole)] + [_x(x) for x in parts]
                                     + [f"{min(got):.2f}–{max(got):.2f}×" if got else "—"]) + " |")
    over = [sum(1 for _, _, parts in rows if parts[k] is not None and parts[k] > 1) for k in range(stride)]
    whole_over = sum(1 for _, w, _ in rows if w is not None and w > 1)
    out.append("| " + " | ".join(["sets over 1×", str(whole_over)] + [str(n) for n in over] + [""]) + " |")
    return out


def print_tables(doc):
    if doc.get("peers_from"):
        print(f"\nthe peers' rows are from another run ({doc['peers_from'].get('date_utc')}): not the same run as ours")
    for m, label in MEASURES.items():
        lines = table_lines(doc, m)
        if len(lines) > 2:
            print(f"\n{label} — limit {doc.get('limit')} CPU s per puzzle; ours ÷ peer > 1: ours slower")
            print("\n".join(lines))


# ---------------------------------------------------------------------------------------------


def turns(indices, chunk, order, turn):
    """The solvers' turns on a set: (solver, chunk of ``indices``) in the order they run, chunks
    of ``chunk`` puzzles (0: the whole set in one), each chunk run by every solver of ``order``
    in turn, the order rotated by one from chunk to chunk (``turn``: the first chunk's)."""
    size = chunk if chunk > 0 else max(len(indices), 1)
    out = []
    for k, start in enumerate(range(0, len(indices), size)):
        r = (turn + k) % len(order)
        out += [(solver, indices[start:start + size]) for solver in order[r:] + order[:r]]
    return out


def _run_turn(a, solver, m, name, puzzles, idx, binaries, entry, tmp):
    """One solver's rows on the puzzles ``idx`` for measure ``m``."""
    if solver == "ours":
        if m == "solve":
            rows, warm = ours_solve(name, idx, a.limit, 1, tmp)
            entry.setdefault("warm_up", warm)
            return rows
        return ours_process(name, puzzles, idx, a.limit, tmp)
    if m == "solve":
        return peer_solve(solver, binaries[solver], name, puzzles, idx, a.limit, tmp)
    return peer_process(solver, binaries[solver], name, puzzles, idx, a.limit, tmp)


def _run_set(a, name, turn, binaries, entry, tmp):
    puzzles = read_set(name)
    indices = list(range(a.offset, min(a.count, len(puzzles)), a.stride))
    proc_idx = indices[::a.process_stride]
    entry.update({"set": name, "indices": indices, "process_indices": proc_idx})
    order = [x for x in SOLVERS if x in a.solvers and (x == "ours" or x in binaries)]
    for m in a.measure:
        idx = indices if m == "solve" else proc_idx
        rows = {solver: {} for solver in order}
        load0 = {}
        wall = dict.fromkeys(order, 0.0)
        for solver, part in turns(idx, a.chunk, order, turn):
            load0.setdefault(solver, load_now())
            t0 = time.time()
            rows[solver].update(_run_turn(a, solver, m, name, puzzles, part, binaries, entry, tmp))
            wall[solver] += time.time() - t0
        for solver in order:
            e = {"rows": [rows[solver].get(i) for i in idx], "summary": summary(rows[solver], len(idx), a.limit),
                 "load": [load0.get(solver), load_now()], "wall_s": wall[solver]}
            entry.setdefault(m, {})[solver] = e
            s = e["summary"]
            log(f"  {m:7s} {solver:9s} solved {s['solved']}/{s['n']}  total {s['total']:.2f} s  "
                f"median {1000 * (s['median'] or 0):.1f} ms  max {s['max'] or 0:.2f} s  sat {s['sat']}  "
                f"load {e['load'][0]} -> {e['load'][1]}")
    if name in a.unique and "ours" in a.solvers:
        rows, _ = ours_solve(name, indices, a.limit, 2, tmp)
        entry.setdefault("solve", {})["ours_unique"] = {"rows": [rows.get(i) for i in indices],
                                                        "summary": summary(rows, len(indices), a.limit)}


def _peers_from(entry, peers, doc):
    """Copy into ``entry`` the rows of the solvers it lacks from the same set of the stored run
    ``peers``, per measure, only where that run timed the same puzzles; the document says where
    they came from (``peers_from``), as they are not of the same run."""
    old = next((s for s in peers.get("sets", []) if s.get("set") == entry["set"]), None)
    if old is None:
        return
    copied = []
    for m, key in (("solve", "indices"), ("process", "process_indices")):
        if m not in entry or old.get(key) != entry.get(key):
            continue
        for solver, e in old.get(m, {}).items():
            if solver in SOLVERS and solver not in entry[m]:
                entry[m][solver] = e
                copied.append(f"{m}/{solver}")
    if copied:
        entry["peers_from"] = copied
        machine = peers.get("machine", {})
        doc["peers_from"] = {"date_utc": machine.get("date_utc"), "command": peers.get("command"),
                             "load_average": machine.get("load_average"), "note": peers.get("note")}


def command_text(argv) -> str:
    """The command as run, for the document: a path outside the repository (a peer's binary)
    shows as its file name in angle brackets, the note as NOTE."""
    out, skip = ["tournament.py"], False
    for arg in argv:
        if skip:
            out.append("NOTE")
            skip = False
            continue
        skip = arg == "--note"
        out.append(f"<{Path(arg).name}>" if os.path.isabs(arg) else arg)
    return " ".join(out)


def main(argv=None) -> int:
    if argv is None:
        argv = sys.argv[1:]
    if argv and argv[0] == "--worker":
        _, name, limit, want, idx, out = argv
        return worker(name, [int(x) for x in idx.split(",")], float(limit), int(want), out)
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sets", nargs="*", default=DEFAULT_SETS, help="set names, or 'all'")
    ap.add_argument("--limit", type=float, default=10.0, help="CPU seconds per puzzle (default 10)")
    ap.add_argument("--stride", type=int, default=1, help="every s-th puzzle of each set (default 1: all)")
    ap.add_argument("--offset", type=int, default=0, help="the first puzzle of the sample (0-based)")
    ap.add_argument("--count", type=int, default=1000, help="the first N puzzles of each set")
    ap.add_argument("--measure", nargs="+", choices=tuple(MEASURES), default=["solve"])
    ap.add_argument("--process-stride", type=int, default=4,
                    help="whole processes on every k-th puzzle of the sample (default 4)")
    ap.add_argument("--solvers", nargs="+", choices=SOLVERS, default=list(SOLVERS))
    ap.add_argument("--chunk", type=int, default=20,
                    help="puzzles a solver takes in a row before the next one's turn (default 20; 0: a whole set)")
    ap.add_argument("--lala", default=str(LALA_DEFAULT), help="LalaFrogKK binary (build_lalafrogkk.sh)")
    ap.add_argument("--nonosolve", default=str(NONOSOLVE_DEFAULT), help="nonosolve binary (build_nonosolve.sh)")
    ap.add_argument("--unique", nargs="*", default=[], help="sets to run our uniqueness mode on too")
    ap.add_argument("--merge", action="store_true", help="keep the other sets of an earlier result file")
    ap.add_argument("--out", default="tournament.json", help="result file in benchmarks/results/")
    ap.add_argument("--note", default=None, help="a sentence for the document (e.g. how the peers were built)")
    ap.add_argument("--peers-from", default=None,
                    help="a result file in benchmarks/results/ whose peers' rows (same sets and puzzles) are "
                         "set beside ours, for a machine where the peers cannot be built: not the same run")
    ap.add_argument("--print", dest="print_only", action="store_true", help="print the tables of --out and stop")
    ap.add_argument("--spread", type=int, default=0, metavar="S",
                    help="with --print: also ours ÷ nonosolve on each of the S samples of every S-th puzzle that "
                         "a run over whole sets holds (how far a set's ratio moves with the sample)")
    a = ap.parse_args(argv)
    path = RESULTS / a.out
    if a.print_only:
        doc = load_json(path, {})
        resummarize(doc)
        print_tables(doc)
        if a.spread > 1:
            print(f"\nours ÷ nonosolve (total CPU) on the whole set and on every {a.spread}th puzzle from puzzle k")
            print("\n".join(spread_lines(doc, a.spread)))
        return 0
    single_thread_env()
    sets_arg = all_sets() if a.sets == ["all"] else a.sets
    binaries = {}
    for solver, p in (("lala", a.lala), ("nonosolve", a.nonosolve)):
        if solver in a.solvers:
            if p and Path(p).exists():
                binaries[solver] = Path(p)
            else:
                log(f"{LABELS[solver]} not found at {p}: build it (benchmarks/build_*.sh) or pass its path")
    doc = load_json(path, {}) if a.merge else {}
    doc.update({"machine": machine_info(), "limit": a.limit, "stride": a.stride, "offset": a.offset,
                "count": a.count, "process_stride": a.process_stride, "chunk": a.chunk,
                "command": command_text(argv),
                "binaries": {k: v.name for k, v in binaries.items()}})
    if a.note:
        doc["note"] = a.note
    sets = {s["set"]: s for s in doc.get("sets", [])}
    peers = load_json(RESULTS / a.peers_from, None) if a.peers_from else None
    if a.peers_from and not peers:
        log(f"no result file {a.peers_from} in {rel(RESULTS)}")
        return 2
    tmp = tempfile.mkdtemp(prefix="nono-tournament-")
    t_all = time.time()
    for turn, name in enumerate(sets_arg):
        if not (TAAI / f"{name}.txt.gz").exists():
            log(f"missing set {rel(TAAI / (name + '.txt.gz'))}")
            continue
        log(f"{name}: every {a.stride} from {a.offset}, {a.limit:g} CPU s each, measures {' '.join(a.measure)}")
        entry = {}
        _run_set(a, name, turn, binaries, entry, tmp)
        if a.peers_from:
            _peers_from(entry, peers, doc)
        sets[name] = entry
        doc["sets"] = list(sets.values())
        save_json(doc, path)
    doc["elapsed_s"] = time.time() - t_all
    save_json(doc, path)
    shutil.rmtree(tmp, ignore_errors=True)
    print_tables(doc)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
