"""Clues from a solution grid (engine/model/clues.py): hand-worked examples and brute-force properties."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from hypothesis.extra.numpy import arrays

from engine.model.clues import blocks_of, clue3d_of, puzzle_from_grid
from engine.model.puzzle import Clue3D, line_names
from engine.files.puzzlefile import check_solution, puzzle_to_dict


def test_2d_hand_example():
    # #.##.
    # .....
    # ###.#
    grid = np.array([[1, 0, 1, 1, 0],
                     [0, 0, 0, 0, 0],
                     [1, 1, 1, 0, 1]], dtype=bool)
    p = puzzle_from_grid(grid, name="hand")
    assert p.shape == (5, 3)
    assert p.clues() == [[1, 2], [], [3, 1],            # rows top to bottom
                         [1, 1], [1], [1, 1], [1], [1]]  # columns left to right
    d = puzzle_to_dict(p)
    assert d["rows"] == [[1, 2], [], [3, 1]]
    assert d["columns"] == [[1, 1], [1], [1, 1], [1], [1]]
    assert d["solution"] == "10110" "00000" "11101"


def hand_grid_3d():
    """X=5, Y=2, Z=2, written as the four x-lines grid[:, y, z]."""
    g = np.zeros((5, 2, 2), dtype=bool)
    g[:, 0, 0] = [1, 1, 0, 1, 1]  # 4 cells in 2 blocks: circle "4o"
    g[:, 0, 1] = [1, 0, 1, 0, 1]  # 3 cells in 3 blocks: square "3s"
    g[:, 1, 0] = [0, 0, 0, 0, 0]  # empty "0"
    g[:, 1, 1] = [0, 1, 1, 1, 0]  # one block: plain "3"
    return g


def test_3d_hand_example():
    p = puzzle_from_grid(hand_grid_3d())
    d = puzzle_to_dict(p)
    # x[y][z]: the lines along x, worked out in hand_grid_3d.
    assert d["x"] == [["4o", "3s"], ["0", "3"]]
    # y[x][z]: grid[x, :, z]; e.g. x=2: z=0 is [0,0] (empty), z=1 is [1,1] (plain 2).
    assert d["y"] == [["1", "1"], ["1", "1"], ["0", "2"], ["1", "1"], ["1", "1"]]
    # z[x][y]: grid[x, y, :]; e.g. x=0: y=0 is [1,1], y=1 is [0,0].
    assert d["z"] == [["2", "0"], ["1", "1"], ["1", "1"], ["1", "1"], ["2", "0"]]
    assert p.n_lines == 2 * 2 + 5 * 2 + 5 * 2
    assert p.clue(0) == Clue3D(4, "circle") and p.clue(1) == Clue3D(3, "square")
    assert p.clue(2) == Clue3D(0, "plain")
    assert check_solution(p) == []


def test_hidden_mask_drops_clues():
    g = hand_grid_3d()
    hidden = np.zeros(24, dtype=bool)
    hidden[[1, 5, 23]] = True
    p = puzzle_from_grid(g, hidden=hidden)
    clues = p.clues()
    assert [i for i, c in enumerate(clues) if c is None] == [1, 5, 23]
    assert puzzle_to_dict(p)["x"][0][1] is None


def brute_blocks(line):
    out, run = [], 0
    for v in list(line) + [False]:
        if v:
            run += 1
        elif run:
            out.append(run)
            run = 0
    return out


@settings(max_examples=200, deadline=None)
@given(arrays(bool, st.integers(0, 12)))
def test_blocks_of_matches_brute_force(line):
    assert blocks_of(line) == brute_blocks(line)
    c = clue3d_of(line)
    b = brute_blocks(line)
    assert c.total == sum(b)
    assert c.kind == ("plain" if len(b) <= 1 else "circle" if len(b) == 2 else "square")


@settings(max_examples=60, deadline=None)
@given(arrays(bool, st.tuples(st.integers(1, 4), st.integers(1, 4), st.integers(1, 4))))
def test_3d_clues_match_brute_force(g):
    p = puzzle_from_grid(g)
    X, Y, Z = g.shape
    names = line_names(p)
    expect = {}
    for y in range(Y):
        for z in range(Z):
            expect[f"x[{y}][{z}]"] = clue3d_of([g[x, y, z] for x in range(X)])
    for x in range(X):
        for z in range(Z):
            expect[f"y[{x}][{z}]"] = clue3d_of([g[x, y, z] for y in range(Y)])
        for y in range(Y):
            expect[f"z[{x}][{y}]"] = clue3d_of([g[x, y, z] for z in range(Z)])
    assert {n: p.clue(i) for i, n in enumerate(names)} == expect


@settings(max_examples=60, deadline=None)
@given(arrays(bool, st.tuples(st.integers(1, 5), st.integers(1, 5))))
def test_flipping_a_cell_breaks_exactly_its_row_and_column(g):
    p = puzzle_from_grid(g)
    H, W = g.shape
    r, c = H // 2, W // 2
    flipped = g.copy()
    flipped[r, c] = not flipped[r, c]
    p.solution = flipped.ravel()
    assert check_solution(p) == [f"row {r + 1}", f"column {c + 1}"]


def test_flipping_a_3d_cell_breaks_its_three_lines():
    p = puzzle_from_grid(hand_grid_3d())
    g = hand_grid_3d()
    g[2, 1, 0] = True
    p.solution = g.ravel()
    assert check_solution(p) == ["x[1][0]", "y[2][0]", "z[2][1]"]


def test_grid_must_be_2d_or_3d():
    with pytest.raises(ValueError, match="2D or 3D"):
        puzzle_from_grid(np.zeros(4, dtype=bool))


def brute_violations(p):
    """The reference: regenerate every clue from the solution and compare line by line."""
    truth = puzzle_from_grid(np.asarray(p.solution).reshape(p.grid_shape())).clues()
    names = line_names(p)
    return [names[i] for i, c in enumerate(p.clues()) if c is not None and c != truth[i]]


@settings(max_examples=150, deadline=None)
@given(st.data())
def test_check_solution_matches_brute_force(data):
    dims = data.draw(st.sampled_from([2, 3]))
    shape = tuple(data.draw(st.lists(st.integers(1, 5), min_size=dims, max_size=dims)))
    clue_grid = data.draw(arrays(bool, shape))
    sol_grid = data.draw(arrays(bool, shape))
    hidden = data.draw(st.integers(0, 2 ** 30))
    p = puzzle_from_grid(clue_grid)
    mask = np.array([(hidden >> (i % 30)) & 1 for i in range(p.n_lines)], dtype=bool)
    p = puzzle_from_grid(clue_grid, hidden=mask)
    p.solution = sol_grid.ravel()
    assert check_solution(p) == brute_violations(p)
