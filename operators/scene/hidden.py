"""Hidden clues: which clues the player does not see.

The object stores the *full* puzzle (every clue its solution gives) as JSON, and the hidden
clues as the ``hidden`` attribute of its clue points (one point per clued line, saved in the
.blend and undone with the mesh). The puzzle the player gets (what Solve, Compare and Export
use) is the full puzzle with those clues removed. Per-cell ``face_x/y/z`` codes for the player's
view are derived from both and rewritten on every change.
"""
from __future__ import annotations

from typing import cast

import bpy
import numpy as np

from ..runtime import engine
from .attributes import get_point_attribute, set_point_attribute
from .common import NonogramError
from .player import line_codes, write_face_codes
from .store import load_full_puzzle, n_lines, props


def split_designed(puzzle):
    """(full puzzle, hidden mask) of a puzzle whose missing clues may be hidden ones: when the
    puzzle carries a solution that satisfies its clues (the puzzle files check that on
    loading), every line's clue follows from it, and the lines without a clue are hidden.
    Without a solution the puzzle is its own full puzzle and nothing is hidden."""
    kinds = np.asarray(puzzle.clue_kind)
    if puzzle.solution is None or not puzzle.is_3d or not (kinds == 0).any():
        return puzzle, np.zeros(puzzle.n_lines, dtype=bool)
    pf, clues = engine("puzzlefile"), engine("clues")
    if pf.check_solution(puzzle):
        return puzzle, np.zeros(puzzle.n_lines, dtype=bool)
    full = clues.puzzle_from_grid(np.asarray(puzzle.solution).reshape(puzzle.shape), name=puzzle.name)
    full.meta = dict(puzzle.meta)
    return full, kinds == 0


def designed_puzzle(full, hidden):
    """The full puzzle without the hidden clues (name and meta kept)."""
    hidden = np.asarray(hidden, dtype=bool)
    if not hidden.any():
        return full
    if full.solution is not None and full.is_3d:
        # Vectorized: the full clues are the solution's (split_designed/Make guarantee it).
        out = engine("clues").puzzle_from_grid(np.asarray(full.solution).reshape(full.shape),
                                               name=full.name, hidden=hidden)
    else:
        out = engine("puzzle").with_hidden(full, hidden)
    out.meta = dict(full.meta)
    return out


def _labels_mesh(obj) -> bpy.types.Mesh:
    labels = props(obj).labels
    if labels is None:
        raise NonogramError(f"'{obj.name}' has lost its clue object")
    if labels.mode == 'EDIT':
        labels.update_from_editmode()  # the mesh lags behind an edit session otherwise
    return cast(bpy.types.Mesh, labels.data)


def hidden_mask(obj: bpy.types.Object) -> np.ndarray:
    """Bool per line (the puzzle's line order): is its clue hidden from the player?"""
    mesh = _labels_mesh(obj)
    mask = np.zeros(n_lines(obj), dtype=bool)
    hidden = get_point_attribute(mesh, "hidden")
    line = get_point_attribute(mesh, "line")
    if hidden is not None and line is not None:
        mask[line[hidden]] = True
    return mask


def clue_lines(obj: bpy.types.Object) -> np.ndarray:
    """Per clue point, its line."""
    line = get_point_attribute(_labels_mesh(obj), "line")
    if line is None:
        raise NonogramError(f"the clue points of '{obj.name}' have lost their attributes")
    return line


def set_hidden(obj: bpy.types.Object, mask) -> int:
    """Hide exactly the clues of the lines in ``mask`` (bool per line; lines without a clue
    are ignored). Updates both views; returns the number of hidden clues."""
    mesh = _labels_mesh(obj)
    line = clue_lines(obj)
    mask = np.asarray(mask, dtype=bool).ravel()
    if mask.size != n_lines(obj):
        raise NonogramError(f"a hidden-clue mask of {mask.size} lines for a puzzle of {n_lines(obj)}")
    on_points = mask[line]
    set_point_attribute(mesh, "hidden", on_points, 'BOOLEAN')
    props(obj).labels.update_tag()
    effective = np.zeros_like(mask)
    effective[line[on_points]] = True
    write_face_codes(obj, line_codes(mesh, mask.size, effective))
    return int(on_points.sum())


def load_stored_puzzle(obj):
    """The puzzle as the player gets it: the stored full puzzle without the hidden clues."""
    return designed_puzzle(load_full_puzzle(obj), hidden_mask(obj))
