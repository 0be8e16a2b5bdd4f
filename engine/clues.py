"""Clues from a solution: a boolean 2D/3D grid in, a Puzzle out."""
from __future__ import annotations

import numpy as np

from .puzzle import Clue3D, Puzzle, _grid_lines_2d, _grid_lines_3d, make_puzzle, _line_names_2d, _line_names_3d


def blocks_of(line) -> list:
    """Lengths of the runs of True in a boolean line."""
    v = np.concatenate(([0], np.asarray(line, dtype=np.int8), [0]))
    d = np.diff(v)
    starts, ends = np.flatnonzero(d == 1), np.flatnonzero(d == -1)
    return [int(e - s) for s, e in zip(starts, ends)]


def clue3d_of(line) -> Clue3D:
    """The 3D clue of a boolean line: its filled count, plain/circle/square by block count."""
    b = blocks_of(line)
    kind = "plain" if len(b) <= 1 else "circle" if len(b) == 2 else "square"
    return Clue3D(sum(b), kind)


def puzzle_from_grid(grid, name: str = "", hidden=None) -> Puzzle:
    """The full clue set of a solution grid.

    2D: ``grid[r, c]`` with shape (H, W), clues are exact block lists.
    3D: ``grid[x, y, z]`` with shape (X, Y, Z), clues are Clue3D.
    ``hidden``: optional bool mask over lines (in the puzzle's line order) whose clue is dropped.
    """
    g = np.asarray(grid, dtype=bool)
    flat = g.ravel()
    if g.ndim == 2:
        H, W = g.shape
        lines, axis = _grid_lines_2d(W, H)
        clues = [blocks_of(flat[c]) for c in lines]
        shape, names = (W, H), _line_names_2d(W, H)
    elif g.ndim == 3:
        lines, axis = _grid_lines_3d(*g.shape)
        clues = [clue3d_of(flat[c]) for c in lines]
        shape, names = g.shape, _line_names_3d(*g.shape)
    else:
        raise ValueError(f"a solution grid must be 2D or 3D, got {g.ndim} dimensions")
    if hidden is not None:
        hidden = np.asarray(hidden, dtype=bool)
        clues = [None if hidden[i] else c for i, c in enumerate(clues)]
    return make_puzzle(shape, flat.size, lines, axis, clues, flat, name, names)
