"""``python -m engine design INPUT -o OUT.json [options]``: hide clues so the puzzle stays unique and
solvable by logic, at a chosen difficulty.

INPUT is a puzzle file that carries its solution (hidden clues are written as null) or a mesh
file (.obj .ply .stl .glb, voxelized with the add-on's settings at ``--resolution``). The designed
puzzle keeps its solution and records the design options and its score in its meta. Progress
goes to stderr for runs over a second. Exit status: 0 when a puzzle was written (even if the
band asked for could not be reached: the message says so), 2 on bad input.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time

from .. import warmup
from ..design.hiding import COLOUR_PARTS, METHODS, PARTS, DesignError, design
from ..model.difficulty import BANDS, LOGICS

# every mesh format engine/voxel/meshio.py reads
# the add-on's smallest resolution (scene/properties.py RESOLUTION_RANGE)
MIN_RESOLUTION = 3
MESH_EXTENSIONS = (".obj", ".ply", ".stl", ".glb")


def _parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="python -m engine design",
                                 description="Hide clues of a puzzle: unique, solvable by logic, at a difficulty.")
    ap.add_argument("input", help="puzzle file with its solution (.json ...; FILE#N picks one) or a mesh "
                                  "(.obj .ply .stl .glb)")
    ap.add_argument("-o", "--output", required=True, help="designed puzzle file (.json, .non, ...)")
    ap.add_argument("--logic", choices=LOGICS, default="line",
                    help="line: line propagation alone solves it (default); probe: with probing")
    ap.add_argument("--difficulty", choices=BANDS, default=None, metavar="BAND",
                    help="target band: " + ", ".join(BANDS))
    ap.add_argument("--score-range", type=float, nargs=2, default=None, metavar=("LO", "HI"),
                    help="target score range instead of a band")
    ap.add_argument("--method", choices=METHODS, default="greedy",
                    help="greedy (default), anneal (greedy + simulated annealing), random (baseline)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--time-limit", type=float, default=None, metavar="S",
                    help="seconds, a safety stop (anneal and band steering default to 120): the "
                         "work is a budget of moves, so a seed gives the same design on any machine "
                         "unless this limit cuts it (the result then says so)")
    ap.add_argument("--start", choices=("full", "current"), default="full",
                    help="current: keep the clues the input already hides hidden")
    ap.add_argument("--resolution", type=int, default=24, metavar="N",
                    help="voxels along the longest side when INPUT is a mesh (default 24)")
    ap.add_argument("--colours", type=int, default=None, metavar="K",
                    help="keep the model's colours for the reveal, reduced to K colours (1..256): "
                         "captured from a mesh's materials/textures/vertex colours, or a coloured "
                         "puzzle's palette reduced")
    ap.add_argument("--json", action="store_true", help="print the result as one JSON object")
    ap.add_argument("--puzzle-colours", type=int, default=1, metavar="K",
                    help="make a colour puzzle of K colours from the input's reveal colours (palette "
                         "entries grouped into K); 1 (default): black-and-white")
    return ap


def _load(path: str, resolution: int, colours=None, notes=None):
    from ..files.puzzlefile import load_puzzle
    base = path.split("#")[0].lower()
    if base.endswith(MESH_EXTENSIONS):
        from ..model.clues import puzzle_from_grid
        from ..colour.meshcolour import load_mesh_colours, reveal_colours
        from ..voxel.meshio import blender_axes, load_mesh
        from ..voxel.voxelize import MAKE_PIECE_DEFAULTS, voxelize
        if colours is not None:
            mc = load_mesh_colours(path)
            mc.vertices = blender_axes(mc.vertices, path)  # upright, as Make in Blender has it
            v, t = mc.vertices, mc.triangles
        else:
            v, t = load_mesh(path)
            v = blender_axes(v, path)
        r = voxelize(v, t, resolution=resolution, samples=1, threshold=0.5, robust=True, fit=True,
                     **MAKE_PIECE_DEFAULTS)
        if r.diagnostics.get("size_note"):
            print(r.diagnostics["size_note"], file=sys.stderr)
        if not r.grid.any():
            raise ValueError(f"{path}: no voxel is filled at resolution {resolution}")
        name = os.path.splitext(os.path.basename(path))[0]
        p = puzzle_from_grid(r.grid, name=f"{name}-{resolution}")
        if colours is not None:
            p.palette, p.colours, cap = reveal_colours(mc, r.grid, r.origin, r.voxel_size, colours)
            if notes is not None:
                notes.extend(mc.notes + cap.fallbacks)
        return p
    p = load_puzzle(path)
    if colours is not None:
        from ..colour.palette import reduce_puzzle_palette
        p.palette, p.colours = reduce_puzzle_palette(p, colours)
    return p


class _Progress:
    """Progress on stderr once a run has taken a second, at most twice a second."""

    def __init__(self):
        self.t0 = time.perf_counter()
        self.last = 0.0
        self.shown = False

    def __call__(self, fraction, message):
        now = time.perf_counter() - self.t0
        if now >= 1.0 and now - self.last >= 0.5:
            self.last = now
            self.shown = True
            sys.stderr.write(f"\r{message} {100 * fraction:5.1f}%  {now:6.1f} s ")
            sys.stderr.flush()
        return False

    def done(self):
        if self.shown:
            sys.stderr.write("\n")


def main(argv) -> int:
    ap = _parser()
    args = ap.parse_args(list(argv[1:]))
    if args.time_limit is not None and not (math.isfinite(args.time_limit) and args.time_limit > 0):
        ap.error(f"--time-limit must be a positive number of seconds, got {args.time_limit}")
    if args.resolution < MIN_RESOLUTION:
        ap.error(f"--resolution must be at least {MIN_RESOLUTION} (a smaller grid makes no puzzle), "
                 f"got {args.resolution}")
    # compile (or load) the kernels while the input is read; the design's time_s and time limit
    # do not count them
    warm = warmup.start(PARTS if args.puzzle_colours == 1 else COLOUR_PARTS)
    from ..voxel.meshio import MeshFileError
    from ..files.puzzlefile import PuzzleFileError, save_puzzle
    from ..voxel.voxelize import VoxelizeError
    notes: list = []
    try:
        src = _load(args.input, args.resolution, args.colours, notes)
    except (PuzzleFileError, MeshFileError, VoxelizeError, OSError, ValueError) as exc:
        sys.stderr.write(f"error: {exc}\n")
        return 2
    warm.join()
    from ..model.colourpuzzle import ColourPuzzle
    if args.puzzle_colours != 1 and not isinstance(src, ColourPuzzle):
        from ..colour.groups import colour_puzzle_from_reveal
        try:
            src = colour_puzzle_from_reveal(src, args.puzzle_colours, fewer=True)
        except ValueError as exc:
            sys.stderr.write(f"error: --puzzle-colours: {exc}\n")
            return 2
        if src.meta.get("grouping"):   # fewer colours, or two nearly the same: say so
            sys.stderr.write(f"note: --puzzle-colours: {src.meta['grouping']['note']}\n")
    progress = _Progress()
    try:
        r = design(src, logic=args.logic, band=args.difficulty,
                   score_range=tuple(args.score_range) if args.score_range else None, method=args.method,
                   seed=args.seed, time_limit=args.time_limit, progress=progress, start=args.start)
    except (DesignError, ValueError) as exc:
        progress.done()
        sys.stderr.write(f"error: {exc}\n")
        return 2
    progress.done()
    compile_s = warmup.status()["seconds"] + r.compile_s
    try:
        save_puzzle(r.puzzle, args.output)
    except (PuzzleFileError, OSError) as exc:
        sys.stderr.write(f"error: {exc}\n")
        return 2
    if args.json:
        d = r.to_dict()
        d["output"] = args.output
        d["compile_s"] = round(compile_s, 4)
        if getattr(r.puzzle, "palette", None) is not None:
            from ..colour.colourspace import to_hex
            d["palette"] = to_hex(r.puzzle.palette)
            d["colour_notes"] = notes
        print(json.dumps(d))
    else:
        p = r.puzzle
        shape = "x".join(str(s) for s in p.shape)
        what = f" colour puzzle, {p.k} colours," if r.is_colour else ""
        print(f"{p.name or args.input}: {shape}{what} {r.n_lines} clues, {r.hidden_count} hidden "
              f"({100 * r.hidden_fraction:.1f}%), logic {r.logic}, method {r.method}, seed {r.seed}")
        print(f"difficulty: score {r.score} ({r.band}), {r.difficulty.rounds} rounds")
        print(f"trials: {r.trials}, time: {r.time_s:.3f} s"
              + ("" if r.locally_minimal else " (not proven locally minimal)")
              + ("" if r.reproducible else " (cut short: not reproducible by its seed)"))
        if r.message:
            print(r.message)
        if getattr(r.puzzle, "palette", None) is not None:
            from ..colour.palette import describe
            print(f"palette: {describe(r.puzzle.palette)}")
            for note in notes:
                print(f"colours: {note}")
        print(f"compile (numba, before the design): {compile_s:.2f} s")
        print(f"wrote {args.output}")
    return 0
