"""Running the peer solvers of the 2D benchmarks, and measuring any process in CPU time.

The peers are built outside the repository (``build_lalafrogkk.sh``, ``build_nonosolve.sh``,
``build_pbnsolve.sh``); nothing here imports their code. Two ways to time a solver, which the
benchmarks never mix in one comparison:

- its **own solve time**: what the solver reports for the solve alone (LalaFrogKK's log,
  ``clock()`` per puzzle; nonosolve's log, its ``now_sec()`` per puzzle; pbnsolve's
  "Processing Time", ``clock()`` around its solve);
- the **whole process**: the CPU time (user + system, from ``wait4``) of a process started for
  one puzzle, from exec to exit: start-up, reading the file, the solve, writing the answer.

Every limit is CPU time (a process on a shared machine waiting for a core is not charged): a
watchdog reads the process's CPU time from /proc and kills it at the limit.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import time
from pathlib import Path

LALA_PUZZLES = 1000  # LalaFrogKK's config.h: NUM_OF_QUESTIONS, read from input.txt


def cpu_of(pid) -> float:
    """CPU seconds (user + system) a running process has used, from /proc."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            parts = f.read().rsplit(")", 1)[1].split()
        return (int(parts[11]) + int(parts[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return 0.0


def run_process(cmd, limit, cwd=None, env=None, stdin=None, errors=False):
    """Run ``cmd`` to its end or until it has used ``limit`` CPU seconds: (cpu seconds of the
    whole process from ``wait4``, killed, exit status, stdout text; with ``errors`` its stderr
    too, after it)."""
    with open(os.devnull, "rb") if stdin is None else open(stdin, "rb") as inp, \
            _Scratch() as out:
        proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdin=inp, stdout=out.f,
                                stderr=subprocess.STDOUT if errors else subprocess.DEVNULL)
        killed = False
        nap = 0.001
        while True:  # wait4 rather than poll: it gives the child's CPU time
            pid, status, ru = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            if cpu_of(proc.pid) >= limit:
                proc.kill()
                killed = True
                pid, status, ru = os.wait4(proc.pid, 0)
                break
            time.sleep(nap)
            nap = min(2 * nap, 0.02)
        proc.returncode = status  # reaped here: Popen must not wait for it again
        return ru.ru_utime + ru.ru_stime, killed, os.waitstatus_to_exitcode(status), out.text()


class _Scratch:
    """A temporary file for a child's stdout (a pipe could fill up while we poll)."""

    def __enter__(self):
        import tempfile
        self.f = tempfile.TemporaryFile()
        return self

    def text(self) -> str:
        self.f.seek(0)
        return self.f.read().decode("utf-8", "replace")

    def __exit__(self, *exc):
        self.f.close()


# ---------------------------------------------------------------------------------------------
# the tournament format


def write_taai(puzzles, path, names=None):
    """Puzzles (rows, cols) in the tournament format: ``$name``, the column clues, the row clues."""
    with open(path, "w") as f:
        for k, (rows, cols) in enumerate(puzzles):
            f.write(f"${names[k] if names else k + 1}\n")
            for clue in cols + rows:
                f.write("\t".join(str(b) for b in clue) + "\n")


def read_grids(path):
    """Solution grids of a tournament output file: {puzzle name: grid}."""
    out = {}
    if not os.path.exists(path):
        return out
    cur = None
    with open(path) as f:
        for line in f:
            line = line.strip()
            if line.startswith("$"):
                cur = line[1:]
                out[cur] = []
            elif line and cur is not None:
                out[cur].append([int(x) for x in line.split()])
    return out


def lala_string(puzzle) -> str:
    """LalaFrogKK's one-puzzle argument (``lalafrog SOLVE STRING``, what its parser builds from
    the file): per line, in file order (columns, then rows), each number as a letter ('a' = 1,
    '`' = 0) and 'z' after the line."""
    rows, cols = puzzle
    return "".join("".join(chr(ord("a") - 1 + b) for b in (clue or [0])) + "z" for clue in cols + rows)


# ---------------------------------------------------------------------------------------------
# whole files: the solver's own time per puzzle


def run_batch(cmd_for, log_name, parse_log, puzzles, names, limit, work, pad=None):
    """Run a batch solver on ``puzzles`` in order, under a CPU watchdog: {name: row}.

    ``cmd_for(input_path)`` is the command; the solver logs a line per puzzle in
    ``work/log_name`` (``parse_log(text)`` returns [(name, own seconds, extra dict)]) and writes
    its grids to ``work/solution.txt``. A puzzle that keeps it ``limit`` CPU seconds past its
    last log line is counted unsolved at the limit, and the solver restarts on the next one.
    ``pad(puzzles, names)`` pads the input (LalaFrogKK reads exactly 1000 puzzles)."""
    res = {}
    left = list(range(len(puzzles)))
    while left:
        shutil.rmtree(work, ignore_errors=True)
        work.mkdir(parents=True)
        batch = [puzzles[k] for k in left]
        batch_names = [names[k] for k in left]
        if pad is not None:
            batch, batch_names = pad(batch, batch_names)
        write_taai(batch, work / "input.txt", batch_names)
        proc = subprocess.Popen(cmd_for(work / "input.txt"), cwd=str(work), stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)
        log = work / log_name
        n_logged, cpu_mark, stuck = 0, None, None
        while True:
            exited = proc.poll() is not None
            logged = parse_log(log.read_text()) if log.exists() else []
            if len(logged) != n_logged or cpu_mark is None:
                n_logged = len(logged)
                cpu_mark = cpu_of(proc.pid)
            if n_logged >= len(left) or exited:
                break
            if cpu_of(proc.pid) - cpu_mark >= limit + 0.5:  # its own limit first, if it has one
                stuck = left[n_logged]
                break
            time.sleep(0.05)
        if proc.poll() is None:
            proc.kill()
        proc.wait()
        grids = read_grids(work / "solution.txt")
        logged = parse_log(log.read_text()) if log.exists() else []
        for k, (name, seconds, extra) in enumerate(logged[:len(left)]):
            res[names[left[k]]] = dict(extra, cpu=seconds, grid=grids.get(name))
        if stuck is not None:
            res[names[stuck]] = {"cpu": float(limit), "grid": None, "timeout": True}
        elif len(logged) < len(left) and exited:  # it ended early (a crash)
            res[names[left[len(logged)]]] = {"cpu": None, "grid": None, "crashed": True}
        left = [k for k in left if names[k] not in res]
    return res


_LALA_LOG = re.compile(r"^#(\d+)\t([0-9.]+)", re.M)
_NONO_LOG = re.compile(r"^#(\S+)\t([0-9.]+)\t(\w+)\t.*?nodes=(\d+).*?sat=(\d)", re.M)


def parse_lala_log(text):
    return [(m.group(1), float(m.group(2)), {}) for m in _LALA_LOG.finditer(text)]


def parse_nonosolve_log(text):
    return [(m.group(1), float(m.group(2)), {"status": m.group(3), "nodes": int(m.group(4)),
                                             "sat": m.group(5) == "1"}) for m in _NONO_LOG.finditer(text)]


def lala_pad(all_puzzles):
    """LalaFrogKK reads exactly 1000 puzzles: the batch, then the set's other puzzles (their
    lines come after the batch's, and the watchdog stops it once the batch is logged)."""
    def pad(batch, names):
        fill = all_puzzles * (LALA_PUZZLES // max(len(all_puzzles), 1) + 1)
        n = LALA_PUZZLES - len(batch)
        return (batch + fill[:n])[:LALA_PUZZLES], (names + [f"pad{k}" for k in range(n)])[:LALA_PUZZLES]
    return pad


def lala_batch(binary, puzzles, names, limit, work, all_puzzles):
    """LalaFrogKK's tournament mode (MODE 1: the puzzles of input.txt in order, one solution
    each; its log's ``clock()`` per puzzle). Its names are positions: renamed back here."""
    pos = [str(k + 1) for k in range(len(puzzles))]
    rows = run_batch(lambda _inp: [str(binary)], "log.txt", parse_lala_log, puzzles, pos, limit, work,
                     pad=lala_pad(all_puzzles))
    return {names[int(p) - 1]: r for p, r in rows.items()}


def nonosolve_batch(binary, puzzles, names, limit, work):
    """nonosolve's ``--taai`` mode on the whole batch, first solution (``-n 1``), its own limit
    ``--timeout``; its log's time per puzzle (``now_sec()``: the process's CPU time in a build
    with the CPU clock, see docs/BENCHMARKS.md)."""
    def cmd(inp):
        return [str(binary), "--taai", str(inp), "-o", "solution.txt", "--log", "log.txt", "-n", "1",
                "--timeout", str(limit)]
    return run_batch(cmd, "log.txt", parse_nonosolve_log, puzzles, names, limit, work)


# ---------------------------------------------------------------------------------------------
# whole processes, one per puzzle


def nonosolve_process(binary, puzzle, limit, work: Path):
    """One nonosolve process for one puzzle (``--taai``, ``-n 1``): (cpu, grid, extra)."""
    work.mkdir(parents=True, exist_ok=True)
    for f in ("input.txt", "solution.txt", "log.txt"):
        (work / f).unlink(missing_ok=True)
    write_taai([puzzle], work / "input.txt")
    cpu, killed, _rc, _out = run_process([str(binary), "--taai", "input.txt", "-o", "solution.txt", "--log",
                                          "log.txt", "-n", "1", "--timeout", str(limit)], limit + 0.5,
                                         cwd=str(work))
    logged = parse_nonosolve_log((work / "log.txt").read_text()) if (work / "log.txt").exists() else []
    extra = logged[0][2] if logged else {}
    return min(cpu, float(limit)) if killed else cpu, None if killed else read_grids(work / "solution.txt").get("1"), \
        dict(extra, timeout=killed)


def lala_process(binary, puzzle, limit, work: Path):
    """One LalaFrogKK process for one puzzle (``lalafrog SOLVE STRING``): (cpu, grid, extra)."""
    work.mkdir(parents=True, exist_ok=True)
    cpu, killed, _rc, out = run_process([str(binary), "SOLVE", lala_string(puzzle)], limit, cwd=str(work))
    lines = out.strip().splitlines()
    grid = None
    if not killed and len(lines) >= 2:
        try:
            grid = [[int(x) for x in ln.split()] for ln in lines[1:] if ln.strip()]
        except ValueError:
            grid = None
    return min(cpu, float(limit)) if killed else cpu, grid, {"timeout": killed}


# ---------------------------------------------------------------------------------------------
# pbnsolve (2D colour)

_PBN_TIME = re.compile(r"Processing Time:\s*([0-9.]+)")


def pbnsolve_run(binary, path, limit):
    """pbnsolve on one file, uniqueness (``-u``), brief output (``-b``), statistics (``-t``):
    (verdict, its own "Processing Time" (``clock()`` around the solve), the whole process's
    CPU time, killed). Verdicts: unique, multiple, none, or pbnsolve's own words."""
    cpu, killed, _rc, out = run_process([str(binary), "-u", "-b", "-t", str(path)], limit, errors=True)
    m = _PBN_TIME.search(out)
    own = float(m.group(1)) if m else None
    words = out.lower().split()
    verdict = ("timeout" if killed else "unique" if "unique" in words else "multiple" if "multiple" in words
               else "none" if "contradiction" in words else " ".join(out.split())[:80] or "?")
    return verdict, own, cpu, killed
