"""Puzzle statistics (engine/model/stats.py): the seed study's Table 4 columns."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra.numpy import arrays

from engine.model.clues import puzzle_from_grid
from engine.model.puzzle import make_2d
from engine.model.stats import KEYS_2D, KEYS_3D, format_range, format_table, puzzle_stats
from test_clues import hand_grid_3d


def test_hand_example_3d():
    s = puzzle_stats(puzzle_from_grid(hand_grid_3d()))
    assert tuple(s) == KEYS_3D
    # Worked out in test_clues.test_3d_hand_example: x = 4o 3s 0 3; y = 1 1 1 1 0 2 1 1 1 1;
    # z = 2 0 1 1 1 1 1 1 2 0.
    assert s == {"shape": [5, 2, 2], "cells": 20, "lines": 24, "hidden": 0,
                 "empty": {"count": 4, "min": 0, "max": 0},
                 "plain": {"count": 18, "min": 1, "max": 3},
                 "circle": {"count": 1, "min": 4, "max": 4},
                 "square": {"count": 1, "min": 3, "max": 3}}


@pytest.mark.parametrize("n,square", [(12, 6), (24, 12), (36, 18)])
def test_table4_checkerboards(n, square):
    # Table 4, rows "Check": n×n×n, n^3 cells, 3n^2 lines, 0 empty/single/double, all triple+ (n/2).
    x, y, z = np.indices((n, n, n))
    s = puzzle_stats(puzzle_from_grid((x + y + z) % 2 == 0))
    assert (s["cells"], s["lines"]) == (n ** 3, 3 * n * n)
    assert [format_range(s[k]) for k in ("empty", "plain", "circle", "square")] == \
        ["0", "0", "0", f"{3 * n * n} ({square})"]


def test_table4_dimension_formulas():
    # "A 3D puzzle with dimensions a by b by c has abc cells and ab + ac + bc lines" (Dino 12×7×3: 252, 141).
    s = puzzle_stats(puzzle_from_grid(np.zeros((12, 7, 3), dtype=bool)))
    assert (s["cells"], s["lines"]) == (252, 141)
    assert s["empty"] == {"count": 141, "min": 0, "max": 0}
    assert s["plain"] == {"count": 0, "min": None, "max": None}


def brute_stats_3d(p):
    groups = {"empty": [], "plain": [], "circle": [], "square": []}
    hidden = 0
    for c in p.clues():
        if c is None:
            hidden += 1
        elif c.kind == "plain" and c.total == 0:
            groups["empty"].append(0)
        else:
            groups[c.kind].append(c.total)
    out = {"hidden": hidden}
    for k, v in groups.items():
        out[k] = {"count": len(v), "min": min(v) if v else None, "max": max(v) if v else None}
    return out


@settings(max_examples=60, deadline=None)
@given(arrays(bool, st.tuples(st.integers(1, 6), st.integers(1, 6), st.integers(1, 6))), st.integers(0, 2 ** 40))
def test_3d_stats_match_brute_force(g, bits):
    X, Y, Z = g.shape
    n_lines = Y * Z + X * Z + X * Y
    hidden = np.array([(bits >> (i % 40)) & 1 for i in range(n_lines)], dtype=bool)
    p = puzzle_from_grid(g, hidden=hidden)
    s = puzzle_stats(p)
    assert s["cells"] == g.size and s["lines"] == n_lines and s["shape"] == list(g.shape)
    assert {k: s[k] for k in ("hidden", "empty", "plain", "circle", "square")} == brute_stats_3d(p)
    assert sum(s[k]["count"] for k in ("empty", "plain", "circle", "square")) + s["hidden"] == n_lines


@settings(max_examples=60, deadline=None)
@given(arrays(bool, st.tuples(st.integers(1, 7), st.integers(1, 7))))
def test_2d_stats_match_brute_force(g):
    p = puzzle_from_grid(g)
    s = puzzle_stats(p)
    assert tuple(s) == KEYS_2D
    clues = p.clues()
    full = [c for c in clues if c]

    def summ(v):
        return {"count": len(v), "min": min(v) if v else None, "max": max(v) if v else None}
    assert s["empty"] == summ([0 for c in clues if not c])
    assert s["filled"] == summ([sum(c) for c in full])
    assert s["blocks"] == summ([len(c) for c in full])


def test_2d_hand_example_with_hidden():
    p = make_2d([[1, 2], [], None], [[1, 1], [3], [1], [], [1]])
    assert puzzle_stats(p) == {"shape": [5, 3], "cells": 15, "lines": 8, "hidden": 1,
                               "empty": {"count": 2, "min": 0, "max": 0},
                               "filled": {"count": 5, "min": 1, "max": 3},
                               "blocks": {"count": 5, "min": 1, "max": 2}}


def test_format_range_uses_table4_notation():
    assert format_range({"count": 46, "min": 1, "max": 5}) == "46 (1-5)"
    assert format_range({"count": 1, "min": 9, "max": 9}) == "1 (9)"
    assert format_range({"count": 0, "min": None, "max": None}) == "0"


def test_format_table_groups_by_dimension():
    s3 = puzzle_stats(puzzle_from_grid(hand_grid_3d()))
    s2 = puzzle_stats(puzzle_from_grid(np.eye(3, dtype=bool)))
    text = format_table([("blob", s3), ("diag", s2)])
    lines = text.splitlines()
    assert lines[0].split() == ["Puzzle", "Size", "Cells", "Lines", "Hidden", "Empty", "Plain", "Circle", "Square"]
    assert lines[2].split() == ["blob", "5×2×2", "20", "24", "0", "4", "(0)", "18", "(1-3)", "1", "(4)", "1", "(3)"]
    assert lines[4].split()[:2] == ["Puzzle", "Size"] and "Blocks/line" in lines[4]
    assert lines[6].split() == ["diag", "3×3", "9", "6", "0", "0", "6", "(1)", "6", "(1)"]
