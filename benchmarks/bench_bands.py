"""Which difficulty bands each shared model can reach at each size (issue #22 item 9).

Per model and resolution: the score with every clue shown (the lowest any design has: showing
clues only shortens the deduction chains), and the highest score the design reaches when asked
for ``expert`` (band steering, its default budget, seed 0) with logic ``line`` and ``probe``.
A band is reachable at a logic level when its range meets [lowest, highest]; lower bands are
reached by showing clues again (the steering's bisection). Prints a table (markdown) and writes
``benchmarks/results/bands.json``.

    python benchmarks/bench_bands.py [--resolutions 12 16 24 36] [--models trex duck ...]
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from benchmarks.make_puzzles import MODELS  # noqa: E402
from engine.model.clues import puzzle_from_grid  # noqa: E402
from engine.design.hiding import design, prepare
from engine.design.session import DesignSession  # noqa: E402
from engine.model.difficulty import BANDS, band_range  # noqa: E402
from engine.voxel.meshio import load_mesh  # noqa: E402
from engine.voxel.voxelize import voxelize  # noqa: E402

SHARED = Path(__file__).resolve().parent.parent.parent / "shared" / "models"
RESULTS = Path(__file__).resolve().parent / "results"


def reachable(lo, hi):
    """The bands whose range meets [lo, hi]."""
    return [b for b in BANDS if band_range(b)[0] <= hi and lo < band_range(b)[1]]


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--resolutions", type=int, nargs="+", default=[12, 16, 24, 36])
    ap.add_argument("--models", nargs="+", default=[m[0] for m in MODELS])
    args = ap.parse_args(argv)
    prepare()
    rows = []
    for res in args.resolutions:
        for key, fname, _ in MODELS:
            if key not in args.models:
                continue
            v, t = load_mesh(SHARED / fname)
            grid = voxelize(v, t, resolution=res, samples=1, threshold=0.5, robust=True, fit=True).grid
            p = puzzle_from_grid(grid, name=key)
            row = {"model": key, "resolution": res, "shape": list(grid.shape), "lines": p.n_lines}
            full = DesignSession(p).check(None, "line")
            row["full_score"] = full.score
            for logic in ("line", "probe"):
                t0 = time.perf_counter()
                r = design(p, logic=logic, band="expert", seed=0)
                row[f"{logic}_max"] = r.score
                row[f"{logic}_time_s"] = round(time.perf_counter() - t0, 1)
                row[f"{logic}_reproducible"] = r.reproducible
                row[f"{logic}_bands"] = reachable(full.score if full.score is not None else 0.0,
                                                  r.score) if r.score is not None else []
            rows.append(row)
            print(json.dumps(row), flush=True)
    RESULTS.mkdir(exist_ok=True)
    (RESULTS / "bands.json").write_text(json.dumps(rows, indent=1))
    print("\n| model | res | shape | all clues shown | highest, line | highest, probe | bands (line / probe) |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['model']} | {r['resolution']} | {'×'.join(map(str, r['shape']))} | {r['full_score']} | "
              f"{r['line_max']} | {r['probe_max']} | {', '.join(r['line_bands'])} / "
              f"{', '.join(r['probe_bands'])} |")


if __name__ == "__main__":
    main()
