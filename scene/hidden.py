"""Hidden clues: which clues the player does not see.

The object stores the *full* puzzle (every clue its solution gives) as JSON, and which clues are
hidden as a bit per line (``Object.nonogram.hidden``, packed and base64-encoded: saved in the
.blend, undone with the object, readable in Edit Mode). The clue points' ``hidden`` attribute
mirrors it for the designer's view. The puzzle the player gets (what Solve, Compare and Export
use) is the full puzzle with those clues removed. Per-cell ``face_x/y/z`` codes for the player's
view are derived from both and rewritten on every change.
"""
from __future__ import annotations

import base64
import hashlib
import json
from typing import cast

import bpy
import numpy as np

from ..jobs import engine_access
from .attributes import object_point_attribute, set_object_point_attribute
from .common import NonogramError
from .player import line_codes, write_face_codes
from .store import is_colour_puzzle, load_full_puzzle, n_lines, props


# Keys of a puzzle file's meta that describe its hidden clues (the engine's design writes them).
DESIGN_META = ("design", "difficulty")


def split_designed(puzzle):
    """(full puzzle, hidden mask) of a puzzle whose missing clues may be hidden ones: when the
    puzzle carries a solution that satisfies its clues (the puzzle files check that on
    loading), every line's clue follows from it, and the lines without a clue are hidden.
    Without a solution the puzzle is its own full puzzle and nothing is hidden."""
    kinds = np.asarray(puzzle.clue_kind)
    if puzzle.solution is None or not puzzle.is_3d or not (kinds == 0).any():
        return puzzle, np.zeros(puzzle.n_lines, dtype=bool)
    if is_colour_puzzle(puzzle):
        return _split_colour(puzzle, kinds)
    pf, clues = engine_access.puzzlefile, engine_access.clues
    if pf.check_solution(puzzle):
        return puzzle, np.zeros(puzzle.n_lines, dtype=bool)
    full = clues.puzzle_from_grid(np.asarray(puzzle.solution).reshape(puzzle.shape), name=puzzle.name)
    # what a design says of these hidden clues is kept apart (``check.store_design``): it stops
    # being true when the designer edits them
    full.meta = {k: v for k, v in puzzle.meta.items() if k not in DESIGN_META}
    full.palette, full.colours = puzzle.palette, puzzle.colours  # the reveal's colours
    return full, kinds == 0


def _split_colour(puzzle, kinds):
    """``split_designed`` of a colour puzzle: the colour files check that a solution satisfies
    the clues, so every line's full clue follows from it."""
    cp = engine_access.colourpuzzle
    full = cp.colour_puzzle_from_grid(np.asarray(puzzle.colour_solution).reshape(puzzle.grid_shape()),
                                      puzzle.k, puzzle.clue_colours, puzzle.name)
    full.meta = {k: v for k, v in puzzle.meta.items() if k not in DESIGN_META}
    full.colour_groups = puzzle.colour_groups
    return full, kinds == 0


def designed_puzzle(full, hidden):
    """The full puzzle without the hidden clues (name and meta kept)."""
    hidden = np.asarray(hidden, dtype=bool)
    if not hidden.any():
        return full
    if is_colour_puzzle(full):
        coloured = engine_access.colourpuzzle.with_hidden(full, hidden)
        coloured.meta, coloured.colour_groups = dict(full.meta), full.colour_groups
        return coloured
    if full.solution is not None and full.is_3d:
        # Vectorized: the full clues are the solution's (split_designed/Make guarantee it).
        out = engine_access.clues.puzzle_from_grid(np.asarray(full.solution).reshape(full.shape),
                                               name=full.name, hidden=hidden)
    else:
        out = engine_access.puzzle.with_hidden(full, hidden)
    out.meta = dict(full.meta)
    out.palette, out.colours = full.palette, full.colours  # the reveal's colours
    return out


def _labels(obj) -> bpy.types.Object:
    labels = props(obj).labels
    if labels is None:
        raise NonogramError(f"'{obj.name}' has lost its clue object")
    return labels


def _encode(mask) -> str:
    return base64.b64encode(np.packbits(np.asarray(mask, dtype=bool)).tobytes()).decode("ascii")


def _decode(text: str, n: int) -> np.ndarray:
    bits = np.unpackbits(np.frombuffer(base64.b64decode(text), dtype=np.uint8), count=n)
    return bits.astype(bool)


def hidden_mask(obj: bpy.types.Object) -> np.ndarray:
    """Bool per line (the puzzle's line order): is its clue hidden from the player?"""
    n = n_lines(obj)
    text = props(obj).hidden
    if not text:
        return np.zeros(n, dtype=bool)
    try:
        return _decode(text, n)
    except (ValueError, TypeError):
        raise NonogramError(f"the hidden clues stored on '{obj.name}' are damaged") from None


def clue_lines(obj: bpy.types.Object) -> np.ndarray:
    """Per clue point, its line."""
    line = object_point_attribute(_labels(obj), "line")
    if line is None:
        raise NonogramError(f"the clue points of '{obj.name}' have lost their attributes")
    return line


def set_hidden(obj: bpy.types.Object, mask) -> int:
    """Hide exactly the clues of the lines in ``mask`` (bool per line; lines without a clue
    are ignored). Updates both views; returns the number of hidden clues."""
    labels = _labels(obj)
    line = clue_lines(obj)
    mask = np.asarray(mask, dtype=bool).ravel()
    if mask.size != n_lines(obj):
        raise NonogramError(f"a hidden-clue mask of {mask.size} lines for a puzzle of {n_lines(obj)}")
    on_points = mask[line]
    effective = np.zeros_like(mask)
    effective[line[on_points]] = True
    props(obj).hidden = _encode(effective) if effective.any() else ""
    set_object_point_attribute(labels, "hidden", on_points, 'BOOLEAN')
    labels.update_tag()
    codes = line_codes(mask.size, line, object_point_attribute(labels, "glyph"),
                       object_point_attribute(labels, "clue_kind"), effective)
    write_face_codes(obj, codes)
    return int(on_points.sum())


def mask_key(mask) -> str:
    """A short fingerprint of a hidden-clue mask: what a design result or a check was for."""
    return hashlib.blake2b(np.packbits(np.asarray(mask, dtype=bool)).tobytes(),
                           digest_size=8).hexdigest()


def load_stored_puzzle(obj):
    """The puzzle as the player gets it: the stored full puzzle without the hidden clues, with
    the Hide Clues result in its meta while the hidden clues are still the designed ones."""
    mask = hidden_mask(obj)
    puzzle = designed_puzzle(load_full_puzzle(obj), mask)
    puzzle.meta = {k: v for k, v in puzzle.meta.items() if k not in DESIGN_META}
    text = props(obj).design
    if text:
        info = json.loads(text)
        if info.get("mask") == mask_key(mask) and not info.get("stale"):
            puzzle.meta = dict(puzzle.meta, design={k: v for k, v in info.items()
                                                    if k not in ("mask", "difficulty")})
    return puzzle


def line_name(obj, line: int) -> str:
    """The puzzle file's name of a line: ``x[y][z]``, ``y[x][z]`` or ``z[x][y]``."""
    X, Y, Z = props(obj).shape
    line = int(line)
    for axis, inner, count in (("x", Z, Y * Z), ("y", Z, X * Z), ("z", Y, X * Y)):
        if line < count:
            return f"{axis}[{line // inner}][{line % inner}]"
        line -= count
    raise IndexError(line)


def select_clue(obj, line: int) -> None:
    """Select exactly the clue point of ``line`` (what Edit Mode of the clue labels shows)."""
    labels = _labels(obj)
    mesh = cast(bpy.types.Mesh, labels.data)
    sel = clue_lines(obj) == int(line)
    if labels.mode == 'EDIT':
        import bmesh
        bm = bmesh.from_edit_mesh(mesh)
        for v, s in zip(bm.verts, sel.tolist()):
            v.select_set(s)
        bmesh.update_edit_mesh(mesh, loop_triangles=False, destructive=False)
        return
    mesh.vertices.foreach_set("select", sel)
    mesh.update()
