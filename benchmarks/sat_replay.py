"""The CDCL fallback replayed from the hand-over, with conflict counts that do not depend on timing.

In the search (``engine/solve/search.py``) CaDiCaL runs in chunks sized by CPU time, so on a shared
machine the chunk boundaries, and with them CaDiCaL's path and conflicts, change from run to
run (set totals vary by +-20 %). This stage separates the solver from the timing: it runs
first-solution mode on every ``--stride``-th puzzle of the tournament sets until the search
hands over, keeps what the CDCL solver is given there (the root's probed state and its probing
relations), and then solves each of those from scratch with a fixed chunk schedule (``--chunk
N``: 2000 conflicts, then doubling up to N; ``--chunk 0``: one uninterrupted call) and the
CaDiCaL options given (``--options '{"name": value}'``, on top of ``sat.SOLVER_OPTIONS``).
The conflicts are then the same in every run of a setting; the CPU time is printed too.
``--relations`` chooses the binary clauses handed over beside the lines: the search's stored
probing relations (``stored``, what the engine does), every single-cell implication of
propagating each unknown cell's two values from the root (``full``, as nonosolve hands over),
both, or ``none``. ``--phases off`` leaves CaDiCaL its own phases instead of the engine's
(``engine/kinds/plain/satphase.py``). ``--solver kissat404`` runs Kissat, which python-sat cannot resume or
question for statistics: one uninterrupted call per case, CPU time only. ``--tail`` prints
how many cases took over TAIL_OVER conflicts and the largest (how a setting moves the slowest
puzzles, which a set's total hides), ``--cases`` writes every case's figures, one JSON line each.
With ``--chunk 8000`` the schedule is the search's on a 25x25 puzzle: the five slowest of the
whole tournament run replay with the very conflicts they took there.

    python benchmarks/sat_replay.py [--sets all | icga2020 ...] [--stride 10] [--offset 0]
        [--chunk 4000] [--options '{"lucky": 0}'] [--solver cadical300] [--cap 300000]
        [--relations stored|full|both|none] [--phases on|off] [--tail] [--cases rows.jsonl]

Run each setting in its own process (python-sat keeps no state between solvers, but CPU times
are comparable only between processes of the same run).
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from benchmarks.tournament import TAAI, all_sets  # noqa: E402

DEFAULT_SETS = ["taai2011", "icga2016", "icga2017", "icga2018", "icga2019", "icga2020", "icga2021"]
FIRST_CHUNK = 2000
# conflicts (~1.2 s and ~1.6 s at ~40 us a conflict) over which ``--tail`` counts a case
TAIL_OVER = (30_000, 40_000)


class _HandOver(Exception):
    """Raised in place of building the CDCL solver: carries what it would be built from."""


def hand_overs(name, stride, offset=0):
    """(puzzle index, net, root state, covered mask, relations) of every ``stride``-th puzzle of
    set ``name`` from puzzle ``offset`` whose first-solution search reaches the CDCL hand-over."""
    from engine.files.puzzlefile import load_puzzles
    puzzles = load_puzzles(TAAI / f"{name}.txt.gz")
    return captured_hand_overs(puzzles, range(offset, len(puzzles), stride))


def captured_hand_overs(puzzles, indices):
    """``hand_overs`` of the given puzzles: what the search hands the CDCL solver, captured in
    place of building it (the search stops there)."""
    from engine import gate
    from engine.kinds.plain import plainkind  # the plain kind builds the CDCL solver (``sat_new``)
    from engine.solve.driver import solve

    # the kernels first: loading them solves tiny puzzles, whose hand-over would be captured too
    gate.ensure(*gate.parts_for("full", "dp"), *gate.later_parts("full"))

    def capture(net, state, covered, relations=None, phases=False):
        raise _HandOver(net, state.copy(), covered.copy(), relations)

    real = plainkind.SatSearch
    plainkind.SatSearch = capture
    out = []
    try:
        for i in indices:
            try:
                solve(puzzles[i], want=1)
            except _HandOver as h:
                out.append((i, *h.args))
    finally:
        plainkind.SatSearch = real
    return out


def root_implications(net, state):
    """(src, dst) literals (2 * cell + 1 for filled) of every cell that line propagation fixes
    when one unknown cell of ``state`` takes one value, for each unknown cell and value (a
    value that contradicts gives none: the root's probing has fixed such cells already)."""
    import numpy as np
    from engine.kinds.plain.propagate import LS_DP, S_TLEN, new_work, propagate, queue_push, set_cell, undo_to
    from engine.model.cells import EMPTY, FILLED, UNKNOWN
    w = new_work(net, state)
    cs, cl = net[5], net[6]
    src, dst = [np.zeros(0, np.int64)], [np.zeros(0, np.int64)]
    for c in np.flatnonzero(state == UNKNOWN).tolist():
        for v in (EMPTY, FILLED):
            mark = int(w[7][S_TLEN])
            set_cell(c, v, net, w)
            for k in range(cs[c], cs[c + 1]):
                queue_push(int(cl[k]), w)
            if propagate(LS_DP, None, False, net, w):
                fixed = w[1][mark + 1:int(w[7][S_TLEN])].copy()  # the trail after the cell itself
                src.append(np.full(len(fixed), 2 * c + (v == FILLED), np.int64))
                dst.append(2 * fixed + (w[0][fixed] == FILLED))
            undo_to(mark, net, w)
    return np.concatenate(src), np.concatenate(dst)


def handed_relations(net, state, stored, kind):
    """The relations handed to the CDCL solver under ``--relations kind``."""
    import numpy as np
    if kind == "stored":
        return stored
    if kind == "none":
        return None
    full = root_implications(net, state)
    if kind == "full" or stored is None:
        return full
    return np.concatenate([full[0], stored[0]]), np.concatenate([full[1], stored[1]])


def replay(cases, chunk, cap, relations="stored", phases=True):
    """Solve each case from its root with the chunk schedule: a row per case (``i``, its
    ``conflicts``, its ``cpu_s``, whether it was ``capped``: stopped at ``cap`` conflicts without
    an answer). The CPU time includes building the relations; Kissat (one call, no statistics)
    counts no conflicts."""
    from engine.kinds.plain import sat
    from engine.kinds.plain.sat import SatSearch
    rows = []
    for i, net, state, covered, stored in cases:
        c0 = time.process_time()
        ss = SatSearch(net, state, covered, handed_relations(net, state, stored, relations), phases=phases)
        while not ss.feed(1 << 30):
            pass
        capped = False
        if sat.SOLVER_NAME.startswith("kissat"):
            ss.solver.solve()
        else:
            ss.chunk = FIRST_CHUNK if chunk else cap
            while ss.step() is None:
                if ss.conflicts >= cap:
                    capped = True
                    break
                if chunk:
                    ss.chunk = min(ss.chunk * 2, chunk)
        rows.append({"i": i, "conflicts": ss.conflicts, "cpu_s": time.process_time() - c0, "capped": capped})
        ss.close()
    return rows


def tail(rows, over=TAIL_OVER, top=5):
    """The tail of a replay's rows (each with ``set`` and ``i``): how many cases took over each
    of ``over`` conflicts, and the ``top`` largest as (conflicts, "set #i")."""
    counts = {t: sum(r["conflicts"] > t for r in rows) for t in over}
    largest = sorted(((r["conflicts"], f"{r['set']} #{r['i']}") for r in rows), reverse=True)[:top]
    return counts, largest


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sets", nargs="+", default=DEFAULT_SETS, help="tournament sets, or all")
    ap.add_argument("--stride", type=int, default=10)
    ap.add_argument("--offset", type=int, default=0, help="the first puzzle of each set's stride")
    ap.add_argument("--chunk", type=int, default=4000,
                    help="largest chunk in conflicts (from 2000, doubling); 0: one uninterrupted call")
    ap.add_argument("--options", default="{}", help="CaDiCaL options as JSON, on top of sat.SOLVER_OPTIONS")
    ap.add_argument("--solver", default=None, help="python-sat's name of the solver to use (default: sat.SOLVER_NAME); "
                    "kissat404: one call a case, no conflict counts")
    ap.add_argument("--cap", type=int, default=300_000, help="conflicts after which a case is given up")
    ap.add_argument("--relations", choices=["stored", "full", "both", "none"], default="stored",
                    help="binary clauses handed over beside the lines (see above)")
    ap.add_argument("--phases", choices=["on", "off"], default="on",
                    help="the engine's phases (satphase.py, as the search sets them), or CaDiCaL's own")
    ap.add_argument("--cases", default=None, help="write a JSON line per case (set, i, conflicts, cpu_s, capped)")
    ap.add_argument("--tail", action="store_true", help="print the cases over TAIL_OVER conflicts and the largest")
    args = ap.parse_args(argv)
    from engine.kinds.plain import sat
    given = json.loads(args.options)
    sat.SOLVER_OPTIONS = {**sat.SOLVER_OPTIONS, **given}
    # (an option given here wins over the phased CNF's own: '{"stabilizeonly": 0}' undoes it)
    sat.PHASED_OPTIONS = {k: v for k, v in sat.PHASED_OPTIONS.items() if k not in given}
    if args.solver:
        sat.SOLVER_NAME = args.solver
    kissat = sat.SOLVER_NAME.startswith("kissat")
    every = []
    for name in all_sets() if args.sets == ["all"] else args.sets:
        rows = replay(hand_overs(name, args.stride, args.offset), args.chunk, args.cap, args.relations,
                      args.phases == "on")
        for r in rows:
            r["set"] = name
        every += rows
        conf, cpu, capped = (sum(r[k] for r in rows) for k in ("conflicts", "cpu_s", "capped"))
        counted = "conflicts not counted" if kissat else f"{conf} conflicts"
        print(f"{name} {len(rows)} cases {counted} {cpu:.1f} s" + (f" ({capped} capped)" if capped else ""),
              flush=True)
    if args.cases:
        with open(args.cases, "w") as f:
            f.writelines(json.dumps(r) + "\n" for r in every)
    print(f"{sat.SOLVER_NAME} chunk {args.chunk or 'one call'} options {sat.SOLVER_OPTIONS} "
          f"{'+ ' + str(sat.PHASED_OPTIONS) + ' when phased ' if sat.PHASED_OPTIONS else ''}relations {args.relations} phases {args.phases}: "
          f"{sum(r['conflicts'] for r in every)} conflicts, "
          f"{sum(r['cpu_s'] for r in every):.1f} s CPU in all")
    if args.tail and not kissat:
        counts, largest = tail(every)
        print("tail: " + ", ".join(f"{n} over {t // 1000}k conflicts" for t, n in counts.items())
              + "; largest " + ", ".join(f"{where} {c}" for c, where in largest))


if __name__ == "__main__":
    main()
