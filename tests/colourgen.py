"""Random small colour puzzles for the property tests and the verdict benchmark (shared)."""
from __future__ import annotations

import numpy as np

from engine.model.colourpuzzle import colour_puzzle_from_grid, make_colour_puzzle, with_hidden

SHAPES_2D = [(3, 3), (4, 3), (3, 5), (4, 4), (5, 5)]
SHAPES_3D = [(2, 2, 2), (2, 2, 3), (2, 3, 3), (3, 3, 3), (2, 4, 3)]


def random_colour_puzzle(rng, dim: int, k: int):
    """A random colour puzzle: a random grid's clues, sometimes mixed with another grid's (often no
    solution), sometimes with hidden lines. Its solution is not attached."""
    shapes = SHAPES_2D if dim == 2 else SHAPES_3D
    shape = shapes[int(rng.integers(len(shapes)))]
    density = float(rng.uniform(0.3, 0.9))
    grid = np.where(rng.random(shape) < density, rng.integers(1, k + 1, shape), 0)
    p = colour_puzzle_from_grid(grid, k)
    if rng.random() < 0.25:
        other = colour_puzzle_from_grid(np.where(rng.random(shape) < density, rng.integers(1, k + 1, shape), 0), k)
        mix = rng.random(p.n_lines) < 0.3
        clues = [other.clue(i) if mix[i] else p.clue(i) for i in range(p.n_lines)]
        try:
            p = make_colour_puzzle(p.shape, clues, k)
        except ValueError:
            pass
    if rng.random() < 0.4:
        p = with_hidden(p, rng.random(p.n_lines) < rng.uniform(0.1, 0.5))
    p.colour_solution = None
    return p


def line_clue_3d(line, k: int) -> list:
    """The 3D colour clue of one line of values (0 empty, 1..k): (count, mark) per colour, the
    mark 0 plain, 1 circle, 2 square (one, two, three or more runs)."""
    clue = []
    for c in range(1, k + 1):
        on = np.asarray(line) == c
        runs = int(np.count_nonzero(on & ~np.concatenate([[False], on[:-1]])))
        clue.append((int(on.sum()), min(runs, 3) - 1 if runs else 0))
    return clue
