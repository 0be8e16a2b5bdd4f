"""``python -m benchmarks.bench_probe [--sets icga2021 ...] [--stride 10] [--nodes 20] [--repeats 3]``:
probing speed on tournament puzzles, the CDCL solver left out.

Solves every ``stride``-th puzzle of the sets in first-solution mode with ``sat=False`` and a
node limit (so the search's own work alone: root probing, then nodes closed by probing), after
a warm-up on generated puzzles it does not measure. Prints the solve CPU time in all, the probes
(``S_PROBES``: both values of a cell count one each) and line solves, probes per second, and a
digest of every result (verdict, nodes, probes, line solves, relations, final state,
solutions): a change meant to make probing faster and nothing else keeps the digest. The least
time of ``repeats`` runs is reported (the machine may be shared).
"""
from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from benchmarks.common import single_thread_env  # noqa: E402
from benchmarks.tournament import TAAI, warm_up  # noqa: E402


def run(sets, stride, nodes):
    from engine.files.puzzlefile import load_puzzles
    from engine.solve.driver import solve
    cpu, probes, solves, rows = 0.0, 0, 0, []
    for name in sets:
        puzzles = load_puzzles(TAAI / f"{name}.txt.gz")
        for i in range(0, len(puzzles), stride):
            c0 = time.process_time()
            r = solve(puzzles[i], want=1, sat=False, node_limit=nodes)
            cpu += time.process_time() - c0
            probes += r.stats.get("probes", 0)
            solves += r.linesolvers + r.stats.get("checks", 0)
            rows.append((name, i, r.verdict, r.stats.get("nodes"), r.stats.get("probes"), r.linesolvers,
                         r.stats.get("relations"), "".join(map(str, np.asarray(r.state).ravel().tolist())),
                         ["".join("1" if v else "0" for v in np.asarray(s).ravel()) for s in r.solutions]))
    return cpu, probes, solves, hashlib.md5(json.dumps(rows).encode()).hexdigest()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sets", nargs="+", default=["icga2021"])
    ap.add_argument("--stride", type=int, default=10)
    ap.add_argument("--nodes", type=int, default=20)
    ap.add_argument("--repeats", type=int, default=3)
    a = ap.parse_args(argv)
    single_thread_env()
    warm_up(1)
    best = None
    for _ in range(a.repeats):
        cpu, probes, solves, digest = run(a.sets, a.stride, a.nodes)
        if best is not None and digest != best[3]:
            print("results differ between runs")
            return 1
        best = min(best or (cpu, probes, solves, digest), (cpu, probes, solves, digest))
    cpu, probes, solves, digest = best
    print(f"{' '.join(a.sets)} every {a.stride}th, {a.nodes} nodes, SAT off: {cpu:.3f} CPU s, {probes} probes, "
          f"{solves} line solves: {probes / cpu / 1e3:.1f} k probes/s ({cpu / probes * 1e6:.2f} us a probe, "
          f"least of {a.repeats}); results digest {digest}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
