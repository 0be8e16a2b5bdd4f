"""Random smooth blobs: voxel-like test puzzles for the solver benchmarks and tests.

White noise is blurred (repeated box filters along each axis approximate a Gaussian) and
thresholded at the quantile that gives the wanted fill fraction, so shapes are lumpy solids with
holes and overhangs, much like a voxelized mesh, and reproducible from a seed.
"""
from __future__ import annotations

import numpy as np

from ..model.clues import puzzle_from_grid
from ..model.puzzle import Puzzle


def _box_blur(a: np.ndarray, radius: int, axis: int) -> np.ndarray:
    """Mean over a window of 2*radius+1 along ``axis`` (edges clamped)."""
    if radius <= 0:
        return a
    pad = [(0, 0)] * a.ndim
    pad[axis] = (radius + 1, radius)
    c = np.cumsum(np.pad(a, pad, mode="edge"), axis=axis)
    n = a.shape[axis]
    hi = np.take(c, np.arange(2 * radius + 1, 2 * radius + 1 + n), axis=axis)
    lo = np.take(c, np.arange(0, n), axis=axis)
    return (hi - lo) / (2 * radius + 1)


def blob_grid(shape, seed: int = 0, fill: float = 0.35, scale: float = None) -> np.ndarray:
    """A bool grid of the given shape (2D or 3D): smooth random blobs filling ``fill`` of it.

    ``scale`` is the blur radius in cells (default: a sixth of the smallest side, at least 1).
    """
    shape = tuple(int(s) for s in shape)
    rng = np.random.default_rng(seed)
    a = rng.random(shape)
    r = int(round(scale if scale is not None else max(1.0, min(shape) / 6.0)))
    for _ in range(3):  # three box passes ~ a Gaussian of sigma ~ r
        for ax in range(len(shape)):
            a = _box_blur(a, r, ax)
    t = np.quantile(a, 1.0 - fill)
    return a > t


def blob_puzzle(shape, seed: int = 0, fill: float = 0.35, scale: float = None,
                hidden_fraction: float = 0.0) -> Puzzle:
    """The full-clue puzzle of ``blob_grid``; optionally hide a random fraction of the clues."""
    g = blob_grid(shape, seed, fill, scale)
    hidden = None
    if hidden_fraction > 0:
        n_lines = puzzle_from_grid(g).n_lines
        hidden = np.random.default_rng(seed + 7919).random(n_lines) < hidden_fraction
    name = "blob" + "x".join(str(s) for s in g.shape) + f"-s{seed}"
    return puzzle_from_grid(g, name=name, hidden=hidden)
