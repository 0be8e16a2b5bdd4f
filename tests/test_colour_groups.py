"""Grouping reveal colours into puzzle colours, and the colour puzzle that keeps both."""
from __future__ import annotations

import numpy as np

from engine.model.clues import puzzle_from_grid
from engine.design.colourgroups import colour_puzzle_from_reveal, group_palette
from engine.solve.coloursolve import solve_colour
from engine.files.puzzlefile import load_puzzle, save_puzzle


def test_similar_colours_group_together():
    pal = np.array([[0.9, 0.1, 0.1], [0.8, 0.15, 0.1], [0.1, 0.2, 0.9], [0.15, 0.25, 0.8], [0.95, 0.05, 0.15]])
    g = group_palette(pal, [10, 5, 8, 3, 1], 2)
    assert g[0] == g[1] == g[4] and g[2] == g[3] and g[0] != g[2]
    assert g[0] == 1  # the reds are used most
    assert np.array_equal(group_palette(pal, [10, 5, 8, 3, 1], 2), g)  # deterministic
    assert list(group_palette(pal, [1] * 5, 5)) == [1, 2, 3, 4, 5]


def test_colour_puzzle_from_reveal_round_trip(tmp_path):
    rng = np.random.default_rng(4)
    grid = rng.random((4, 5, 3)) < 0.6
    p = puzzle_from_grid(grid)
    p.palette = np.array([[1, 0, 0], [0.9, 0.1, 0], [0, 0, 1]], dtype=np.float32)
    p.colours = rng.integers(0, 3, p.n_cells).astype(np.uint8)
    q = colour_puzzle_from_reveal(p, 2)
    assert q.k == 2 and q.colour_groups[0] == q.colour_groups[1] != q.colour_groups[2]
    assert np.array_equal(q.colour_solution > 0, grid.ravel())
    save_puzzle(q, tmp_path / "q.json")
    r = load_puzzle(tmp_path / "q.json")
    assert r.colour_groups == q.colour_groups and r.clues() == q.clues()
    assert solve_colour(r).verdict in ("unique", "multiple")
