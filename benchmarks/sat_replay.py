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
question for statistics: one uninterrupted call per case, CPU time only.

    python benchmarks/sat_replay.py [--sets icga2020 ...] [--stride 10] [--chunk 4000]
        [--options '{"lucky": 0}'] [--solver cadical300] [--cap 300000]
        [--relations stored|full|both|none] [--phases on|off]

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
from benchmarks.common import SHARED  # noqa: E402

DEFAULT_SETS = ["taai2011", "icga2016", "icga2017", "icga2018", "icga2019", "icga2020", "icga2021"]
FIRST_CHUNK = 2000


class _HandOver(Exception):
    """Raised in place of building the CDCL solver: carries what it would be built from."""


def hand_overs(name, stride):
    """(puzzle index, net, root state, covered mask, relations) of every ``stride``-th puzzle of
    set ``name`` whose first-solution search reaches the CDCL hand-over."""
    from engine.kinds.plain import plainkind  # the plain kind builds the CDCL solver (``sat_new``)
    from engine.files.puzzlefile import load_puzzles
    from engine.solve.driver import solve

    def capture(net, state, covered, relations=None, phases=False):
        raise _HandOver(net, state.copy(), covered.copy(), relations)

    puzzles = load_puzzles(SHARED / "puzzles2d" / "taai-tcga-icga" / "question" / f"{name}.txt.gz")
    real = plainkind.SatSearch
    plainkind.SatSearch = capture
    out = []
    try:
        for i in range(0, len(puzzles), stride):
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
    """Solve each case from its root with the chunk schedule: (conflicts, CPU seconds) in all,
    and the cases stopped at ``cap`` conflicts without an answer. The CPU time includes
    building the relations; Kissat (one call, no statistics) counts no conflicts."""
    from engine.kinds.plain import sat
    from engine.kinds.plain.sat import SatSearch
    total, cpu, capped = 0, 0.0, 0
    for _i, net, state, covered, stored in cases:
        c0 = time.process_time()
        ss = SatSearch(net, state, covered, handed_relations(net, state, stored, relations), phases=phases)
        while not ss.feed(1 << 30):
            pass
        if sat.SOLVER_NAME.startswith("kissat"):
            ss.solver.solve()
            cpu += time.process_time() - c0
            ss.close()
            continue
        ss.chunk = FIRST_CHUNK if chunk else cap
        while True:
            r = ss.step()
            if r is not None:
                break
            if ss.conflicts >= cap:
                capped += 1
                break
            if chunk:
                ss.chunk = min(ss.chunk * 2, chunk)
        cpu += time.process_time() - c0
        total += ss.conflicts
        ss.close()
    return total, cpu, capped


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sets", nargs="+", default=DEFAULT_SETS)
    ap.add_argument("--stride", type=int, default=10)
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
    args = ap.parse_args(argv)
    from engine.kinds.plain import sat
    given = json.loads(args.options)
    sat.SOLVER_OPTIONS = {**sat.SOLVER_OPTIONS, **given}
    # (an option given here wins over the phased CNF's own: '{"stabilizeonly": 0}' undoes it)
    sat.PHASED_OPTIONS = {k: v for k, v in sat.PHASED_OPTIONS.items() if k not in given}
    if args.solver:
        sat.SOLVER_NAME = args.solver
    all_conf, all_cpu, parts = 0, 0.0, []
    for name in args.sets:
        cases = hand_overs(name, args.stride)
        conf, cpu, capped = replay(cases, args.chunk, args.cap, args.relations, args.phases == "on")
        all_conf += conf
        all_cpu += cpu
        counted = "conflicts not counted" if sat.SOLVER_NAME.startswith("kissat") else f"{conf} conflicts"
        parts.append(f"{name} {len(cases)} cases {counted} {cpu:.1f} s" + (f" ({capped} capped)" if capped else ""))
        print(parts[-1], flush=True)
    print(f"{sat.SOLVER_NAME} chunk {args.chunk or 'one call'} options {sat.SOLVER_OPTIONS} "
          f"{'+ ' + str(sat.PHASED_OPTIONS) + ' when phased ' if sat.PHASED_OPTIONS else ''}relations {args.relations} phases {args.phases}: "
          f"{all_conf} conflicts, "
          f"{all_cpu:.1f} s CPU in all")


if __name__ == "__main__":
    main()
