"""The puzzle model: a set of cells and a list of lines, each an ordered array of cell
indices plus a clue. Everything is flat numpy arrays so that numba kernels can walk it.

Clue kinds (``clue_kind[i]``; the numbers in ``clue_data[clue_start[i]:clue_start[i+1]]``):
- ``KIND_NONE``   no clue (hidden line); no data
- ``KIND_BLOCKS`` exact block list (2D); data = the block lengths, empty for an empty line
- ``KIND_PLAIN``  3D: ``total`` filled cells in one block (0 = empty line); data = [total]
- ``KIND_CIRCLE`` 3D: ``total`` filled cells in exactly two blocks; data = [total]
- ``KIND_SQUARE`` 3D: ``total`` filled cells in three or more blocks; data = [total]

Grid conventions (shared with the puzzle files):
- 2D, ``shape == (W, H)``: cell (row r, column c) has index ``r*W + c``; lines 0..H-1 are the rows
  top to bottom (cells left to right), then W columns left to right (cells top to bottom).
- 3D, ``shape == (X, Y, Z)``: cell (x, y, z) has index ``(x*Y + y)*Z + z``; lines are first the
  x-lines ordered by (y, z), then the y-lines by (x, z), then the z-lines by (x, y), each with
  cells in increasing coordinate. This is the order of the file's ``x[y][z]``, ``y[x][z]``, ``z[x][y]``.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional, Sequence

import numpy as np

KIND_NONE = 0
KIND_BLOCKS = 1
KIND_PLAIN = 2
KIND_CIRCLE = 3
KIND_SQUARE = 4

KIND_NAMES = {KIND_NONE: "none", KIND_BLOCKS: "blocks", KIND_PLAIN: "plain",
              KIND_CIRCLE: "circle", KIND_SQUARE: "square"}
KINDS_3D = {"plain": KIND_PLAIN, "circle": KIND_CIRCLE, "square": KIND_SQUARE}

INDEX = np.int64


class PuzzleError(ValueError):
    """A puzzle that cannot exist: wrong counts, a clue that does not fit its line, ..."""


@dataclass(frozen=True)
class Clue3D:
    """A 3D clue: ``total`` filled cells grouped as ``kind`` ('plain', 'circle' or 'square')."""
    total: int
    kind: str = "plain"

    def __post_init__(self):
        if self.kind not in KINDS_3D:
            raise PuzzleError(f"unknown 3D clue kind {self.kind!r}")

    def __str__(self):
        return str(self.total) + {"plain": "", "circle": "o", "square": "s"}[self.kind]


@dataclass
class Puzzle:
    shape: tuple
    n_cells: int
    line_start: np.ndarray
    line_cells: np.ndarray
    line_axis: np.ndarray
    clue_kind: np.ndarray
    clue_start: np.ndarray
    clue_data: np.ndarray
    solution: Optional[np.ndarray] = None  # bool (n_cells,) when known
    name: str = ""
    meta: dict = field(default_factory=dict)
    # Reveal colours (optional, need ``solution``): sRGB float32 (k, 3) in 0..1, and per cell the
    # palette index (uint8 (n_cells,), meaningful where the solution is filled).
    palette: Optional[np.ndarray] = None
    colours: Optional[np.ndarray] = None

    @property
    def n_lines(self) -> int:
        return len(self.clue_kind)

    @property
    def dim(self) -> int:
        return len(self.shape)

    @property
    def is_3d(self) -> bool:
        return len(self.shape) == 3

    def line(self, i: int) -> np.ndarray:
        return self.line_cells[self.line_start[i]:self.line_start[i + 1]]

    def clue_numbers(self, i: int) -> np.ndarray:
        return self.clue_data[self.clue_start[i]:self.clue_start[i + 1]]

    def clue(self, i: int):
        """The clue of line i as a Python value: None, a list of block lengths, or a Clue3D."""
        kind = int(self.clue_kind[i])
        nums = [int(v) for v in self.clue_numbers(i)]
        if kind == KIND_NONE:
            return None
        if kind == KIND_BLOCKS:
            return nums
        return Clue3D(nums[0], KIND_NAMES[kind])

    def clues(self) -> list:
        return [self.clue(i) for i in range(self.n_lines)]

    def grid_shape(self) -> tuple:
        """numpy shape of a cell array laid out as a grid: (H, W) in 2D, (X, Y, Z) in 3D."""
        if len(self.shape) == 2:
            return (self.shape[1], self.shape[0])
        return tuple(self.shape)


def grid_lines_2d(W: int, H: int):
    """(line_start, line_cells, line_axis) of a W×H grid: rows, then columns."""
    idx = np.arange(W * H, dtype=INDEX).reshape(H, W)
    cells = np.concatenate([idx.ravel(), idx.T.ravel()])
    lengths = np.concatenate([np.full(H, W, INDEX), np.full(W, H, INDEX)])
    axis = np.concatenate([np.zeros(H, np.int8), np.ones(W, np.int8)])
    return _starts(lengths), cells, axis


def grid_lines_3d(X: int, Y: int, Z: int):
    """(line_start, line_cells, line_axis) of an X×Y×Z grid: x-lines by (y,z), y by (x,z), z by (x,y)."""
    idx = np.arange(X * Y * Z, dtype=INDEX).reshape(X, Y, Z)
    cells = np.concatenate([idx.transpose(1, 2, 0).ravel(), idx.transpose(0, 2, 1).ravel(), idx.ravel()])
    lengths = np.concatenate([np.full(Y * Z, X, INDEX), np.full(X * Z, Y, INDEX), np.full(X * Y, Z, INDEX)])
    axis = np.repeat(np.arange(3, dtype=np.int8), [Y * Z, X * Z, X * Y])
    return _starts(lengths), cells, axis


def _starts(lengths):
    out = np.zeros(len(lengths) + 1, dtype=INDEX)
    np.cumsum(lengths, out=out[1:])
    return out


def _split(start, flat):
    return [flat[start[i]:start[i + 1]] for i in range(len(start) - 1)]


def _encode_clue(clue, length: int, where: str):
    """(kind, numbers) for one clue, checked against its line length."""
    if clue is None:
        return KIND_NONE, []
    if isinstance(clue, Clue3D):
        t = int(clue.total)
        if t < 0:
            raise PuzzleError(f"{where}: negative clue {t}")
        kind = KINDS_3D[clue.kind]
        min_len = {KIND_PLAIN: t, KIND_CIRCLE: t + 1, KIND_SQUARE: t + 2}[kind]
        if kind == KIND_CIRCLE and t < 2:
            raise PuzzleError(f"{where}: a circle clue needs a total of at least 2, got {t}")
        if kind == KIND_SQUARE and t < 3:
            raise PuzzleError(f"{where}: a square clue needs a total of at least 3, got {t}")
        if min_len > length:
            raise PuzzleError(f"{where}: clue {clue} needs {min_len} cells but the line has {length}")
        return kind, [t]
    blocks = [int(b) for b in clue]
    if any(b < 0 for b in blocks):
        raise PuzzleError(f"{where}: negative block length in {blocks}")
    blocks = [b for b in blocks if b > 0]  # "0" is the usual way to write an empty line
    need = sum(blocks) + max(len(blocks) - 1, 0)
    if need > length:
        raise PuzzleError(f"{where}: clue {blocks} needs {need} cells but the line has {length}")
    return KIND_BLOCKS, blocks


def make_puzzle(shape: tuple, n_cells: int, lines: Sequence[np.ndarray], axis: Sequence[int],
                clues: Sequence, solution=None, name: str = "", names: Optional[Sequence[str]] = None) -> Puzzle:
    """Build a puzzle from explicit lines; the generic constructor (non-grid layouts too)."""
    if len(clues) != len(lines):
        raise PuzzleError(f"{len(clues)} clues for {len(lines)} lines")
    kinds, cstart, cdata = [], [0], []
    for i, (cells, clue) in enumerate(zip(lines, clues)):
        where = names[i] if names else f"line {i}"
        k, nums = _encode_clue(clue, len(cells), where)
        kinds.append(k)
        cdata.extend(nums)
        cstart.append(len(cdata))
    lstart = np.zeros(len(lines) + 1, dtype=INDEX)
    lstart[1:] = np.cumsum([len(c) for c in lines])
    flat = np.concatenate([np.asarray(c, dtype=INDEX) for c in lines]) if lines else np.zeros(0, INDEX)
    if flat.size and (flat.min() < 0 or flat.max() >= n_cells):
        raise PuzzleError("a line refers to a cell outside the puzzle")
    sol = None
    if solution is not None:
        sol = np.asarray(solution, dtype=bool).ravel()
        if sol.size != n_cells:
            raise PuzzleError(f"solution has {sol.size} cells, the puzzle {n_cells}")
    return Puzzle(tuple(int(s) for s in shape), int(n_cells), lstart, flat,
                  np.asarray(axis, dtype=np.int8), np.asarray(kinds, dtype=np.int8),
                  np.asarray(cstart, dtype=INDEX), np.asarray(cdata, dtype=INDEX), sol, name)


def line_names_2d(W, H):
    """The names of a W×H puzzle's lines, rows first (the order of its clues)."""
    return [f"row {r + 1}" for r in range(H)] + [f"column {c + 1}" for c in range(W)]


def line_names_3d(X, Y, Z):
    """The names of an X×Y×Z puzzle's lines, x lines first (the order of its clues)."""
    return ([f"x[{y}][{z}]" for y in range(Y) for z in range(Z)]
            + [f"y[{x}][{z}]" for x in range(X) for z in range(Z)]
            + [f"z[{x}][{y}]" for x in range(X) for y in range(Y)])


def make_2d(rows: Sequence, columns: Sequence, solution=None, name: str = "") -> Puzzle:
    """A W×H puzzle from H row clues (top to bottom) and W column clues (left to right).

    A clue is a list of block lengths ([] or [0] for an empty line) or None for no clue.
    """
    H, W = len(rows), len(columns)
    if W < 1 or H < 1:
        raise PuzzleError(f"a 2D puzzle needs at least one row and one column (got {W}x{H})")
    start, cells, axis = grid_lines_2d(W, H)
    return make_puzzle((W, H), W * H, _split(start, cells), axis, list(rows) + list(columns), solution, name,
                       line_names_2d(W, H))


def make_3d(shape: Sequence[int], x, y, z, solution=None, name: str = "") -> Puzzle:
    """A 3D puzzle from clue tables ``x[y][z]``, ``y[x][z]``, ``z[x][y]`` of Clue3D or None."""
    X, Y, Z = (int(s) for s in shape)
    if min(X, Y, Z) < 1:
        raise PuzzleError(f"a 3D puzzle needs every dimension ≥ 1 (got {X}x{Y}x{Z})")

    def table(t, a, b, label):
        if len(t) != a or any(len(row) != b for row in t):
            raise PuzzleError(f"'{label}' must be a {a}×{b} table of clues")
        return [t[i][j] for i in range(a) for j in range(b)]

    clues = table(x, Y, Z, "x") + table(y, X, Z, "y") + table(z, X, Y, "z")
    start, cells, axis = grid_lines_3d(X, Y, Z)
    return make_puzzle((X, Y, Z), X * Y * Z, _split(start, cells), axis, clues, solution, name,
                       line_names_3d(X, Y, Z))


def line_names(puzzle: Puzzle) -> list:
    """Human names of the lines, for error messages and reports."""
    if len(puzzle.shape) == 2:
        return line_names_2d(*puzzle.shape)
    if len(puzzle.shape) == 3:
        return line_names_3d(*puzzle.shape)
    return [f"line {i}" for i in range(puzzle.n_lines)]


def with_hidden(puzzle: Puzzle, hidden) -> Puzzle:
    """A copy of the puzzle with the clues of the given lines removed (bool mask or indices)."""
    mask = np.zeros(puzzle.n_lines, dtype=bool)
    mask[np.asarray(hidden)] = True
    clues = [None if mask[i] else puzzle.clue(i) for i in range(puzzle.n_lines)]
    lines = [puzzle.line(i) for i in range(puzzle.n_lines)]
    out = make_puzzle(puzzle.shape, puzzle.n_cells, lines, puzzle.line_axis, clues,
                      puzzle.solution, puzzle.name)
    out.palette, out.colours = puzzle.palette, puzzle.colours
    return out
