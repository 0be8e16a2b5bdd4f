"""Make's engine half, bpy-free so it runs in a worker thread: voxels, clues and colours for a
source mesh the scene layer read on the main thread (``scene.read_source``); the scene layer
then builds the nonogram from the ``Made`` this returns (``scene.build_made``)."""
from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from . import engine_access, runtime
from .errors import NonogramError


@dataclass
class SourceMesh:
    """A source mesh read on the main thread: all the voxelizer needs, and no bpy data.
    Several source objects are one mesh, their union (named after the first)."""
    name: str
    verts: np.ndarray
    tris: np.ndarray
    times: dict
    names: list
    colour: Any = None  # colours.gather's arrays, when Make keeps the model's colours


@dataclass
class Made:
    """What ``voxelize_source`` hands to ``build_made``: the voxels and their puzzle."""
    name: str
    result: Any  # engine.voxel.voxelize.VoxelResult
    puzzle: Any  # engine.model.puzzle.Puzzle
    options: dict
    times: dict
    colour_notes: list = field(default_factory=list)  # where a colour source fell back
    colour_info: list = field(default_factory=list)  # documented sources worth a mention
    # what ``scene.build_made`` stored as the object's ``make_info`` (its JSON), for the report
    info: dict = field(default_factory=dict)


def load_engine(colours: int = 1) -> None:
    """Import the engine modules Make uses (the first import sets numba's cache folder, so the
    scene layer calls this on the main thread)."""
    runtime.load(engine_access.voxelize)
    runtime.load(engine_access.clues)
    if colours > 1:
        runtime.load(engine_access.colour)
        runtime.load(engine_access.palette)
        runtime.load(engine_access.colourgroups)


def check_colour_options(colours, puzzle_colours=1) -> None:
    """Make's Colours and Puzzle Colours, refused with a message when out of range (the
    properties have no hard limits, so Blender never clamps them silently)."""
    most = engine_access.palette.MAX_COLOURS
    if not 1 <= int(colours) <= most:
        raise NonogramError(f"Colours must be 1 (plain) to {most}, got {int(colours)}")
    most = engine_access.colourpuzzle.MAX_COLOURS
    if not 1 <= int(puzzle_colours) <= most:
        raise NonogramError(f"Puzzle Colours must be 1 (black-and-white) to {most}, got {int(puzzle_colours)}")
    if int(puzzle_colours) > 1 and int(colours) < int(puzzle_colours):
        raise NonogramError(f"Puzzle Colours {puzzle_colours} groups the reveal's colours: set "
                            f"Colours to {puzzle_colours} or more")


def voxelize_source(src: SourceMesh, *, resolution=12, samples=1, threshold=0.5, robust=True,
                    progress=None, bridge=False, thin_parts=False, min_piece=0,
                    keep_largest=False, colours=1, puzzle_colours=1) -> Made:
    """Voxels and clues for a source read by ``read_source``. Touches no bpy, so it may run in
    a worker thread. ``progress(fraction) -> bool`` is passed to the voxelizer (True cancels
    it: NonogramError("cancelled")); so are the piece options ``bridge``, ``thin_parts``,
    ``min_piece`` and ``keep_largest``. ``puzzle_colours`` > 1 makes a colour puzzle of that
    many colours, grouping the reveal's ``colours`` (at least as many)."""
    check_colour_options(colours, puzzle_colours)
    vox = engine_access.voxelize
    engine_access.kernels_warmup.ensure("make")  # compiled, or compiling ahead elsewhere: wait, do not redo
    t1 = time.perf_counter()
    try:
        result = vox.voxelize(src.verts, src.tris, resolution=int(resolution), samples=int(samples),
                              threshold=float(threshold), robust=bool(robust), fit=True,
                              progress=progress, bridge=bool(bridge), thin_parts=bool(thin_parts),
                              min_piece=int(min_piece), keep_largest=bool(keep_largest))
    except vox.VoxelizeError as e:
        raise NonogramError(str(e)) from None
    except MemoryError:
        raise NonogramError(f"Resolution {resolution} needs more memory than is available") from None
    t2 = time.perf_counter()
    if not result.grid.any():
        what = f"'{src.name}'" if len(src.names) == 1 else f"the {len(src.names)} selected meshes"
        raise NonogramError(f"{what} gave no filled voxels at resolution {resolution} "
                            "(is it flat, or too thin for the grid?)")
    puzzle = engine_access.clues.puzzle_from_grid(result.grid, name=src.name)
    t3 = time.perf_counter()
    options = {"resolution": int(resolution), "samples": int(samples),
               "threshold": float(threshold), "robust": bool(robust), "bridge": bool(bridge),
               "thin_parts": bool(thin_parts), "min_piece": int(min_piece),
               "keep_largest": bool(keep_largest), "sources": list(src.names),
               "colours": int(colours)}
    times = dict(src.times, voxelize=t2 - t1, puzzle=t3 - t2)
    notes: list = []
    info: list = []
    if int(colours) > 1 and src.colour is not None:
        col = engine_access.colour
        arrays = {k: v for k, v in src.colour.items() if k not in ("notes", "info")}
        try:
            cap = col.capture_colours(result.grid, result.origin, result.voxel_size, src.verts,
                                      src.tris, **arrays)
            t4 = time.perf_counter()
            puzzle.palette, puzzle.colours = engine_access.palette.grid_palette(
                result.grid, cap.colours, int(colours))
        except (col.ColourError, ValueError) as e:
            raise NonogramError(f"Colours: {e}") from None
        notes = list(src.colour["notes"]) + list(cap.fallbacks)
        info = list(src.colour.get("info", []))
        times.update(colour_capture=t4 - t3, palette=time.perf_counter() - t4)
    if int(puzzle_colours) > 1:
        puzzle = colour_puzzle(src.name, puzzle, int(puzzle_colours))
        options["puzzle_colours"] = int(puzzle.k)
        if puzzle.meta.get("grouping"):   # fewer colours, or two nearly the same: say so
            notes.append(f"Puzzle Colours: {puzzle.meta['grouping']['note']}")
    return Made(src.name, result, puzzle, options, times, notes, colour_info=info)


def colour_puzzle(name: str, puzzle, k: int):
    """The colour puzzle of ``k`` colours grouping ``puzzle``'s reveal palette; NonogramError
    when the model shows fewer colours than that."""
    palette = getattr(puzzle, "palette", None)
    n = 0 if palette is None else len(palette)
    if n < k:
        raise NonogramError(f"Puzzle Colours {k}: '{name}' shows {n} colour{'' if n == 1 else 's'} "
                            f"(after reducing to Colours); a colour puzzle of {k} needs {k}")
    try:
        return engine_access.colourgroups.colour_puzzle_from_reveal(puzzle, k, name=name, fewer=True)
    except ValueError as e:
        raise NonogramError(f"Puzzle Colours: {e}") from None
