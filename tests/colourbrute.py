"""Brute-force enumeration for colour lines and small colour puzzles: the ground truth of the
colour line solvers and of the CP-SAT reference (shared by tests; no engine solver code)."""
from __future__ import annotations

import itertools

import numpy as np

from engine.model.colourpuzzle import clue_of_line


def line_fillings(length: int, k: int):
    return itertools.product(range(k + 1), repeat=length)


def brute_line(masks, clue, k: int, is_3d: bool) -> np.ndarray:
    """OR of the value bits over every filling that fits the clue and the masks (zeros if none)."""
    out = np.zeros(len(masks), dtype=np.int64)
    for f in line_fillings(len(masks), k):
        if any(not (int(m) >> v) & 1 for m, v in zip(masks, f)):
            continue
        if clue is not None and clue_of_line(f, k, is_3d) != clue:
            continue
        for i, v in enumerate(f):
            out[i] |= 1 << v
    if (out == 0).any():
        out[:] = 0
    return out


def count_solutions(p, cap: int = 2):
    """(count up to cap, solutions) of a small colour puzzle by enumerating every grid."""
    sols = []
    clues = p.clues()
    lines = [p.line(i) for i in range(p.n_lines)]
    for f in itertools.product(range(p.k + 1), repeat=p.n_cells):
        g = np.asarray(f)
        if all(c is None or clue_of_line(g[ln], p.k, p.is_3d) == c for ln, c in zip(lines, clues)):
            sols.append(g)
            if len(sols) >= cap:
                break
    return len(sols), sols
