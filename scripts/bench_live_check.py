"""The live check of hand-edited clues, timed the way the designer meets it.

    .venv/bin/python scripts/bench_live_check.py [--models horse.ply duck.glb ...] [--res 24]
                                                  [--edits 20]

For each shared model (Blender as the bpy module, the add-on loaded from this checkout): Make at
the resolution, Hide Clues (greedy, seed 0), then ``--edits`` random clues, each toggled and
toggled back. Every toggle is what Pick Clues does on a click: store the hidden clues, update both
views' attributes, check the puzzle (the engine's DesignSession, run in place here), write the
result. Printed per model (milliseconds, warm: numba kernels cached and the session built):
- ``first``: the first check after Hide Clues (builds the session: parse the stored puzzle, net);
- ``hide``: hiding a shown clue (mostly leaves cells undecided; a search may decide uniqueness);
- ``show``: showing it again (unique and solvable again: includes grading the difficulty);
- ``toggle`` median/max over all of them, the figure to compare with the 0.2 s target.
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
MODELS = ROOT.parent / "shared" / "models"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--models", nargs="+", default=["horse.ply", "duck.glb", "stanford_bunny.obj",
                                                    "teapot.obj", "trex.glb"])
    ap.add_argument("--res", type=int, default=24)
    ap.add_argument("--edits", type=int, default=20)
    args = ap.parse_args()

    import bpy
    sys.path.insert(0, str(ROOT))
    import batch
    addon = batch.addon_package()  # this checkout as the package nonogram3d, registered
    from nonogram3d.operators import design, live_check, scene

    bpy.ops.wm.read_factory_settings(use_empty=True)
    print(f"resolution {args.res}, {args.edits} clues toggled and back per model (ms)")
    print(f"{'model':16} {'grid':10} {'clues':>6} {'hidden':>7} {'first':>7} {'hide med':>9} "
          f"{'show med':>9} {'toggle med':>11} {'max':>7}")
    for m in args.models:
        name = os.path.splitext(m)[0]
        src = batch.load_model(name, str(MODELS / m))
        obj, _ = scene.make_nonogram(bpy.context, src, resolution=args.res)
        res = addon.operators.runtime.engine("design.hiding").design(scene.load_full_puzzle(obj), seed=0)
        scene.set_hidden(obj, res.hidden)
        t = time.perf_counter()
        live_check.request(obj, wait=True)
        first = time.perf_counter() - t
        rng = np.random.default_rng(0)
        hide, show = [], []
        for line in rng.choice(res.n_lines, size=args.edits, replace=False):
            for out in ((hide, show) if not res.hidden[line] else (show, hide)):
                t = time.perf_counter()
                design.toggle_line(obj, int(line))
                out.append(time.perf_counter() - t)
        both = hide + show
        X, Y, Z = obj.nonogram.shape
        print(f"{name:16} {f'{X}x{Y}x{Z}':10} {res.n_lines:6d} {res.hidden_count:7d} "
              f"{1000 * first:7.1f} {1000 * statistics.median(hide):9.1f} "
              f"{1000 * statistics.median(show):9.1f} {1000 * statistics.median(both):11.1f} "
              f"{1000 * max(both):7.1f}")
        scene.clear_nonogram(obj)
        bpy.data.objects.remove(src)


if __name__ == "__main__":
    main()
