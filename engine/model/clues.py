"""Clues from a solution: a boolean 2D/3D grid in, a Puzzle out.

Works on whole arrays (no Python loop over lines): Make Nonogram builds 64³ puzzles interactively.
"""
from __future__ import annotations

import numpy as np

from .puzzle import (INDEX, KIND_BLOCKS, KIND_CIRCLE, KIND_NONE, KIND_PLAIN, KIND_SQUARE, Clue3D, Puzzle,
                     grid_lines_2d, grid_lines_3d)


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


def _runs(rows: np.ndarray):
    """Per row of a 2D boolean array: the run lengths (flat, row by row) and the runs per row."""
    n, length = rows.shape
    padded = np.zeros((n, length + 2), dtype=np.int8)
    padded[:, 1:-1] = rows
    d = np.diff(padded, axis=1)
    r_start, c_start = np.nonzero(d == 1)
    _, c_end = np.nonzero(d == -1)  # row-major order pairs each start with its end
    return (c_end - c_start).astype(INDEX), np.bincount(r_start, minlength=n).astype(INDEX)


def _line_matrices(g: np.ndarray):
    """The grid's lines as 2D arrays (one row per line), in the puzzle's line order."""
    if g.ndim == 2:
        return [g, g.T]
    X, Y, Z = g.shape
    return [g.transpose(1, 2, 0).reshape(Y * Z, X), g.transpose(0, 2, 1).reshape(X * Z, Y), g.reshape(X * Y, Z)]


def puzzle_from_grid(grid, name: str = "", hidden=None) -> Puzzle:
    """The full clue set of a solution grid.

    2D: ``grid[r, c]`` with shape (H, W), clues are exact block lists.
    3D: ``grid[x, y, z]`` with shape (X, Y, Z), clues are Clue3D.
    ``hidden``: optional bool mask over lines (in the puzzle's line order) whose clue is dropped.
    """
    g = np.asarray(grid, dtype=bool)
    if g.ndim not in (2, 3) or g.size == 0:
        raise ValueError(f"a solution grid must be a non-empty 2D or 3D array, got shape {g.shape}")
    if g.ndim == 2:
        H, W = g.shape
        shape = (W, H)
        line_start, line_cells, axis = grid_lines_2d(W, H)
    else:
        shape = g.shape
        line_start, line_cells, axis = grid_lines_3d(*g.shape)
    n_lines = len(axis)
    show = np.ones(n_lines, dtype=bool) if hidden is None else ~np.asarray(hidden, dtype=bool).ravel()
    if show.size != n_lines:
        raise ValueError(f"hidden mask has {show.size} entries for {n_lines} lines")
    mats = _line_matrices(g)
    if g.ndim == 2:
        runs = [_runs(m) for m in mats]
        lengths = np.concatenate([r[0] for r in runs])
        counts = np.concatenate([r[1] for r in runs])
        kind = np.where(show, KIND_BLOCKS, KIND_NONE).astype(np.int8)
        per_line = np.where(show, counts, 0)
        keep = np.repeat(show, counts)
        data = lengths[keep]
    else:
        # a 3D clue needs only the total and the number of blocks (run starts) per line
        totals = np.concatenate([m.sum(axis=1) for m in mats]).astype(INDEX)
        counts = np.concatenate([m[:, 0] + (m[:, 1:] & ~m[:, :-1]).sum(axis=1) for m in mats])
        kind = np.select([counts <= 1, counts == 2], [KIND_PLAIN, KIND_CIRCLE], KIND_SQUARE).astype(np.int8)
        kind[~show] = KIND_NONE
        per_line = show.astype(INDEX)
        data = totals[show]
    clue_start = np.zeros(n_lines + 1, dtype=INDEX)
    np.cumsum(per_line, out=clue_start[1:])
    return Puzzle(tuple(int(s) for s in shape), int(g.size), line_start, line_cells, axis, kind,
                  clue_start, np.ascontiguousarray(data, dtype=INDEX), g.ravel().copy(), name)
