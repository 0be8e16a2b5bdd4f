"""Tournament sets side by side: our first-solution mode against LalaFrogKK (and nonosolve).

The TAAI/TCGA/ICGA computer nonogram tournaments ask for any one solution of each of 1000 random
25x25 puzzles. This stage runs, on the same puzzles in the same run:
- ours: ``solve(p, want=1)`` (``full``: propagation, probing, search, CDCL fallback), one
  worker process per set, single-threaded;
- LalaFrogKK (CGI-LAB/Nonogram, the LalaFrogKK paper's tournament solver), built outside the
  repository by ``benchmarks/build_lalafrogkk.sh``, in its own tournament mode (MODE 1: the
  puzzles of a set in order, one solution each);
- nonosolve (hyouv/FastNonogramSolver: bit-parallel line solving, probing, DFS with restarts,
  Kissat/CaDiCaL fallback) in its ``--taai`` mode, one process per puzzle, when a binary is
  given (``--nonosolve``; built outside the repository: it needs Kissat and CaDiCaL).

Every solver gets the same limit per puzzle in **CPU seconds** (``--limit``, default 10), and
every time is the CPU time of the solve (LalaFrogKK's own ``clock()`` per puzzle; ours
``time.process_time()`` around ``solve``; nonosolve's process, from ``wait4``). CPU time rather than wall time
because the machine is shared: a solver waiting for a core is not charged for it. Every
solution is checked against the clues here; a wrong one counts as unsolved.
LalaFrogKK has no time limit of its own: a watchdog reads its log as it goes, kills it when
a puzzle has used the limit (CPU time read from /proc) and restarts it on the next puzzle.

    python benchmarks/tournament.py [--sets taai2011 icga2016 ...] [--limit 10] [--stride 1]
        [--lala PATH] [--nonosolve PATH] [--unique taai2011]

``--unique SETS`` also runs our uniqueness mode (``want=2``) on those sets (no peer: the
tournament solvers stop at one solution). Writes ``benchmarks/results/tournament.json``;
``benchmarks/report.py`` turns it into the tables of docs/BENCHMARKS.md.
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
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from benchmarks.common import (RESULTS, ROOT, SHARED, load_json, log, machine_info, rel,  # noqa: E402
                               save_json, single_thread_env)

TAAI = SHARED / "puzzles2d" / "taai-tcga-icga" / "question"
DEFAULT_SETS = ["taai2011", "icga2016", "icga2017", "icga2018", "icga2019", "icga2020", "icga2021"]
PEERS = ROOT.parent / "peers"
LALA_DEFAULT = PEERS / "lalafrogkk" / "lalafrog"
LALA_PUZZLES = 1000  # its config.h: NUM_OF_QUESTIONS, read from input.txt


# ---------------------------------------------------------------------------------------------
# puzzles and checking


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


def read_grids(path):
    """Solution grids of a tournament output file: {puzzle number: grid}."""
    out = {}
    if not os.path.exists(path):
        return out
    cur = None
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line.startswith("$"):
                cur = int(line[1:])
                out[cur] = []
            elif line and cur is not None:
                out[cur].append([int(x) for x in line.split()])
    return out


def write_set(puzzles, path):
    with open(path, "w") as f:
        for k, (rows, cols) in enumerate(puzzles):
            f.write(f"${k + 1}\n")
            for clue in cols + rows:
                f.write("\t".join(str(b) for b in clue) + "\n")


# ---------------------------------------------------------------------------------------------
# ours


def worker(name, indices, limit, want, out_path) -> int:
    """Solve the set's puzzles ``indices`` one by one, appending one JSON line per puzzle."""
    single_thread_env()
    import numpy as np

    from engine.files.puzzlefile import load_puzzles
    from engine.solve.driver import solve
    puzzles = load_puzzles(TAAI / f"{name}.txt.gz")
    clues = read_set(name)
    # compile / load every stage's kernels before timing: line solving, probing, search, SAT
    for p in puzzles[:3]:
        solve(p, want=want)
    solve(puzzles[indices[0]], want=want, step_limit=300_000)
    with open(out_path, "a") as out:
        for i in indices:
            p = puzzles[i]
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
            out.write(json.dumps({"i": i, "cpu": cpu, "wall": r.time_s, "verdict": r.verdict, "ok": ok,
                                  "nodes": r.stats.get("nodes"), "sat": r.stats.get("sat_conflicts")}) + "\n")
            out.flush()
    return 0


def run_ours(name, indices, limit, want, tmp):
    """Our results {index: row}; a worker that dies or hangs is restarted after its puzzle."""
    res = {}
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
            elif time.time() - last > max(1800.0, 60 * limit):  # includes the first compile
                proc.kill()
                proc.wait()
        for line in open(path):
            d = json.loads(line)
            res[d["i"]] = d
        done = [i for i in left if i in res]
        if not done and proc.returncode != 0 and not any(i in res for i in left[:1]):
            res[left[0]] = {"i": left[0], "cpu": None, "verdict": "crashed", "ok": None}
        left = [i for i in left if i not in res]
    return res


# ---------------------------------------------------------------------------------------------
# LalaFrogKK


def _cpu_of(pid) -> float:
    """CPU seconds (user + system) of a running process, from /proc."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            parts = f.read().rsplit(")", 1)[1].split()
        return (int(parts[11]) + int(parts[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return 0.0


def run_lala(binary, name, indices, limit, tmp):
    """LalaFrogKK's tournament mode on ``indices`` in order: {index: row}. It reads exactly
    1000 puzzles, so each run gets the puzzles still to do followed by the others."""
    puzzles = read_set(name)
    res = {}
    left = list(indices)
    work = Path(tmp) / f"lala-{name}"
    while left:
        shutil.rmtree(work, ignore_errors=True)
        work.mkdir(parents=True)
        order = left + [i for i in range(len(puzzles)) if i not in set(left)]
        order = (order * (LALA_PUZZLES // len(order) + 1))[:LALA_PUZZLES]
        write_set([puzzles[i] for i in order], work / "input.txt")
        proc = subprocess.Popen([str(binary)], cwd=str(work), stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)
        n_logged = 0
        cpu_mark = None
        stuck = None
        while True:
            exited = proc.poll() is not None
            lines = [ln for ln in open(work / "log.txt")] if (work / "log.txt").exists() else []
            logged = [ln for ln in lines if ln.startswith("#")]
            if len(logged) != n_logged or cpu_mark is None:
                n_logged = len(logged)
                cpu_mark = _cpu_of(proc.pid)
            if n_logged >= len(left) or exited:
                break
            if _cpu_of(proc.pid) - cpu_mark >= limit:
                stuck = left[n_logged]
                break
            time.sleep(0.05)
        if proc.poll() is None:
            proc.kill()
        proc.wait()
        grids = read_grids(work / "solution.txt")
        logged = [ln.split() for ln in open(work / "log.txt") if ln.startswith("#")] \
            if (work / "log.txt").exists() else []
        for k, parts in enumerate(logged[:len(left)]):
            i = left[k]
            cpu = float(parts[1])
            ok = check(puzzles[i], grids.get(k + 1))
            res[i] = {"i": i, "cpu": cpu, "ok": ok}
        if stuck is not None:
            res[stuck] = {"i": stuck, "cpu": float(limit), "ok": None, "timeout": True}
        elif len(logged) < len(left) and exited:
            # it ended early (a crash): count the puzzle it was on as unsolved
            i = left[len(logged)]
            res[i] = {"i": i, "cpu": None, "ok": None, "crashed": True}
        left = [i for i in left if i not in res]
    return res


# ---------------------------------------------------------------------------------------------
# nonosolve


def run_nonosolve(binary, name, indices, limit, tmp):
    """nonosolve's ``--taai`` mode with ``-n 1``, one process per puzzle: its own ``--timeout``
    is wall time, so a watchdog stops it at ``limit`` CPU seconds instead, and its CPU time is
    the process's (``wait4``; the process start, a few ms, included)."""
    puzzles = read_set(name)
    work = Path(tmp) / f"nonosolve-{name}"
    work.mkdir(parents=True, exist_ok=True)
    res = {}
    for i in indices:
        for f in ("input.txt", "solution.txt", "log.txt"):
            (work / f).unlink(missing_ok=True)
        write_set([puzzles[i]], work / "input.txt")
        proc = subprocess.Popen([str(binary), "--taai", "input.txt", "-o", "solution.txt", "--log", "log.txt",
                                 "-n", "1", "--timeout", str(100 * limit)], cwd=str(work),
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        killed = False
        while True:  # wait4 rather than poll: it gives the child's CPU time
            pid, status, ru = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            if _cpu_of(proc.pid) >= limit:
                proc.kill()
                killed = True
                pid, status, ru = os.wait4(proc.pid, 0)
                break
            time.sleep(0.02)
        proc.returncode = status  # reaped here: Popen must not wait for it again
        cpu = ru.ru_utime + ru.ru_stime
        grid = read_grids(work / "solution.txt").get(1)
        ok = None if killed else check(puzzles[i], grid)
        res[i] = {"i": i, "cpu": min(cpu, float(limit)) if killed else cpu, "ok": ok or None,
                  "timeout": killed}
    return res


# ---------------------------------------------------------------------------------------------


def summary(rows, n) -> dict:
    """solved, total, median, max (CPU s; an unsolved puzzle counts its time, at most the limit)."""
    times = sorted(r["cpu"] for r in rows.values() if r.get("cpu") is not None)
    solved = sum(1 for r in rows.values() if r.get("ok"))
    return {"n": n, "solved": solved, "total": sum(times),
            "median": times[len(times) // 2] if times else None, "max": times[-1] if times else None}


def main(argv=None) -> int:
    if argv is None:
        argv = sys.argv[1:]
    if argv and argv[0] == "--worker":
        _, name, limit, want, idx, out = argv
        return worker(name, [int(x) for x in idx.split(",")], float(limit), int(want), out)
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sets", nargs="*", default=DEFAULT_SETS)
    ap.add_argument("--limit", type=float, default=10.0, help="CPU seconds per puzzle (default 10)")
    ap.add_argument("--stride", type=int, default=1, help="every s-th puzzle of each set (default 1: all)")
    ap.add_argument("--count", type=int, default=1000, help="the first N puzzles of each set")
    ap.add_argument("--lala", default=str(LALA_DEFAULT), help="LalaFrogKK binary (build_lalafrogkk.sh)")
    ap.add_argument("--nonosolve", default=None, help="nonosolve binary, if built")
    ap.add_argument("--unique", nargs="*", default=[], help="sets to run our uniqueness mode on too")
    ap.add_argument("--merge", action="store_true",
                    help="keep what an earlier result file holds (other sets, and other solvers' rows of these)")
    ap.add_argument("--peers-only", action="store_true",
                    help="run only the peers (with --merge: add them to an earlier run of ours)")
    ap.add_argument("--out", default="tournament.json",
                    help="result file in benchmarks/results/ (tournament_full.json: the whole sets)")
    a = ap.parse_args(argv)
    single_thread_env()
    path = RESULTS / a.out
    out = load_json(path, {}) if a.merge else {}
    out.update({"machine": machine_info(), "limit": a.limit, "stride": a.stride, "count": a.count})
    sets = {s["set"]: s for s in out.get("sets", [])} if a.merge else {}
    lala = Path(a.lala) if a.lala and Path(a.lala).exists() else None
    nono = Path(a.nonosolve) if a.nonosolve and Path(a.nonosolve).exists() else None
    if lala is None:
        log(f"LalaFrogKK not found at {a.lala}: run benchmarks/build_lalafrogkk.sh")
    tmp = tempfile.mkdtemp(prefix="nono-tournament-")
    t_all = time.time()
    for name in a.sets:
        if not (TAAI / f"{name}.txt.gz").exists():
            log(f"missing set {rel(TAAI / (name + '.txt.gz'))}")
            continue
        indices = list(range(0, a.count, a.stride))
        log(f"{name}: {len(indices)} puzzles, {a.limit:g} CPU s each")
        t0 = time.time()
        entry = dict(sets.get(name, {}))  # empty unless --merge
        if entry.get("indices", indices) != indices:
            log(f"{name}: the earlier result holds other puzzles; its rows are dropped")
            entry = {}
        entry.update({"set": name, "indices": indices})
        peers = {}
        threads = []
        # the peers run beside ours (one process each; the machine has two cores)
        if lala is not None:
            threads.append(threading.Thread(target=lambda: peers.update(
                lala=run_lala(lala, name, indices, a.limit, tmp))))
        if nono is not None:
            threads.append(threading.Thread(target=lambda: peers.update(
                nonosolve=run_nonosolve(nono, name, indices, a.limit, tmp))))
        for t in threads:
            t.start()
        runs = {} if a.peers_only else {"ours": run_ours(name, indices, a.limit, 1, tmp)}
        if name in a.unique and not a.peers_only:
            runs["ours_unique"] = run_ours(name, indices, a.limit, 2, tmp)
        for t in threads:
            t.join()
        runs.update(peers)
        for solver, rows in runs.items():
            entry[solver] = {"rows": [rows.get(i) for i in indices], "summary": summary(rows, len(indices))}
            s = entry[solver]["summary"]
            log(f"  {solver:12s} solved {s['solved']}/{s['n']}  total {s['total']:.1f} s  "
                f"median {s['median'] or 0:.3f} s  max {s['max'] or 0:.2f} s")
        entry["wall_s"] = time.time() - t0
        sets[name] = entry
        out["sets"] = list(sets.values())
        save_json(out, path)
    out["elapsed_s"] = time.time() - t_all
    save_json(out, path)
    shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
