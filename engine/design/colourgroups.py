"""Puzzle colours from reveal colours: group a puzzle's reveal palette into k puzzle colours.

The reveal palette (issue #23's ``Puzzle.palette``, float32 (n, 3) sRGB, with ``Puzzle.colours``,
the palette index of each filled cell) can have many entries; a colour puzzle has few (2-4).
``group_palette`` clusters the palette entries into k groups (k-means in a rough perceptual
space, weighted by how many cells use each entry, seeded deterministically by farthest-point
choice from the most used entry), ``colour_puzzle_from_reveal`` builds the full-clue colour
puzzle whose cell colours are the groups, keeping the palette and the grouping
(``colour_groups``: the puzzle colour 1..k of each palette entry). The designer may instead pass
its own grouping.
"""
from __future__ import annotations

from typing import Optional, Sequence

import numpy as np

from ..model.colourpuzzle import MAX_COLOURS, ColourPuzzle, colour_puzzle_from_grid, colour_text


def _space(rgb: np.ndarray) -> np.ndarray:
    """sRGB -> linear -> a cheap opponent space where distances roughly follow perceived ones."""
    c = np.asarray(rgb, dtype=np.float64)
    lin = np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)
    y = lin @ np.array([0.2126, 0.7152, 0.0722])
    light = np.cbrt(y)
    return np.stack([light, (lin[:, 0] - lin[:, 1]) * 0.8, (lin[:, 1] - lin[:, 2]) * 0.6], axis=1)


def group_palette(palette, counts, k: int, iterations: int = 50) -> np.ndarray:
    """The group (1..k) of each palette entry; deterministic."""
    pal = np.asarray(palette, dtype=np.float32).reshape(-1, 3)
    n = len(pal)
    if not 1 <= k <= MAX_COLOURS:
        raise ValueError(f"puzzle colours must be between 1 and {MAX_COLOURS}, got {k}")
    w = np.asarray(counts, dtype=np.float64).reshape(n) + 1e-9
    if k >= n:
        return np.arange(1, n + 1, dtype=np.int64)
    x = _space(pal)
    centres = [int(np.argmax(w))]
    for _ in range(1, k):
        d = np.min(((x[:, None, :] - x[centres][None]) ** 2).sum(-1), axis=1)
        centres.append(int(np.argmax(d * np.sqrt(w))))
    c = x[centres].copy()
    label = np.zeros(n, dtype=np.int64)
    for _ in range(iterations):
        new = np.argmin(((x[:, None, :] - c[None]) ** 2).sum(-1), axis=1)
        for j in range(k):
            if np.any(new == j):
                c[j] = np.average(x[new == j], axis=0, weights=w[new == j])
        if np.array_equal(new, label):
            break
        label = new
    # number the groups by use, most used first (colour 1 is the commonest)
    use = np.array([w[label == j].sum() for j in range(k)])
    rank = np.empty(k, dtype=np.int64)
    rank[np.argsort(-use, kind="stable")] = np.arange(k)
    return rank[label] + 1


def colour_puzzle_from_reveal(puzzle, k: int, groups: Optional[Sequence[int]] = None,
                              name: str = "") -> ColourPuzzle:
    """The full-clue colour puzzle of a black-and-white puzzle that carries reveal colours."""
    palette = getattr(puzzle, "palette", None)
    colours = getattr(puzzle, "colours", None)
    if palette is None or colours is None or puzzle.solution is None:
        raise ValueError("puzzle colours need a puzzle with its solution and reveal colours "
                         "(palette and colours: --colours K from a mesh, or a file that has them)")
    palette = np.asarray(palette, dtype=np.float32).reshape(-1, 3)
    colours = np.asarray(colours).ravel().astype(np.int64)
    filled = np.asarray(puzzle.solution, dtype=bool).ravel()
    counts = np.bincount(colours[filled], minlength=len(palette))[:len(palette)]
    g = (np.asarray(groups, dtype=np.int64) if groups is not None else group_palette(palette, counts, k))
    if len(g) != len(palette) or g.min() < 1 or g.max() > k:
        raise ValueError(f"colour groups must give each of the {len(palette)} palette entries a puzzle "
                         f"colour 1..{k}")
    cell = np.where(filled, g[np.clip(colours, 0, len(palette) - 1)], 0)
    # each puzzle colour shown as the use-weighted mean of its palette entries
    shown = np.zeros((k, 3), dtype=np.float32)
    for j in range(1, k + 1):
        sel = g == j
        if sel.any():
            shown[j - 1] = np.average(palette[sel], axis=0, weights=counts[sel] + 1e-9)
    p = colour_puzzle_from_grid(cell.reshape(puzzle.grid_shape()), k, shown, name or puzzle.name)
    p.colour_groups = [int(v) for v in g]
    p.meta["_reveal"] = {"palette": [colour_text(c) for c in palette],
                         "colours": "".join(".." if not f else f"{int(v):02x}" for f, v in zip(filled, colours))}
    return p
