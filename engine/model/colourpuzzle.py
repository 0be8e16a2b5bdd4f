"""The colour puzzle model: cells that are empty or one of k puzzle colours, lines with colour clues.

A colour puzzle shares the grid layout and line order of ``puzzle.Puzzle`` (``grid_lines_2d`` /
``grid_lines_3d``: the same ``line_start``/``line_cells``/``line_axis`` arrays), but its clues
and solution carry colours, so it is a class of its own: the black-and-white model and its fast
paths stay untouched. Cell values: 0 empty, 1..k the puzzle colours (``clue_colours[c-1]``).

Clue kinds (``clue_kind[i]``; numbers in ``clue_data[clue_start[i]:clue_start[i+1]]``):
- ``CKIND_NONE``   hidden line; no data
- ``CKIND_BLOCKS`` 2D: ordered coloured blocks; data = length, colour, length, colour, ...
  Consecutive blocks of the same colour need at least one empty cell between them; blocks of
  different colours may touch.
- ``CKIND_COUNTS`` 3D: for each colour c = 1..k, two numbers: the count of cells of colour c and
  the mark of their runs (``MARK_PLAIN`` one run, ``MARK_CIRCLE`` two, ``MARK_SQUARE`` three or
  more; count 0 has mark plain). A run of c is a maximal stretch of consecutive cells of colour
  c: an empty cell or a cell of another colour ends it (Picross 3D Round 2's rule, see
  docs/PUZZLE_FORMAT.md). The clue says nothing about the order of the colours.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Optional, Sequence

import numpy as np

from .puzzle import INDEX, PuzzleError, line_names_2d, line_names_3d, grid_lines_2d, grid_lines_3d

CKIND_NONE = 0
CKIND_BLOCKS = 1
CKIND_COUNTS = 2

MARK_PLAIN = 0
MARK_CIRCLE = 1
MARK_SQUARE = 2
MARK_SUFFIX = {MARK_PLAIN: "", MARK_CIRCLE: "o", MARK_SQUARE: "s"}
SUFFIX_MARK = {v: k for k, v in MARK_SUFFIX.items()}

# A colour as puzzle files write it (palettes, clue colours).
_HEX_RE = re.compile(r"^#[0-9a-fA-F]{6}$")
# One character per colour in the solution string: 0 empty, 1-9 then a-z.
COLOUR_CHARS = "0123456789abcdefghijklmnopqrstuvwxyz"
MAX_COLOURS = len(COLOUR_CHARS) - 1  # 35


@dataclass
class ColourPuzzle:
    shape: tuple
    n_cells: int
    k: int                       # number of puzzle colours
    clue_colours: np.ndarray     # float32 (k, 3) sRGB in 0..1
    line_start: np.ndarray
    line_cells: np.ndarray
    line_axis: np.ndarray
    clue_kind: np.ndarray
    clue_start: np.ndarray
    clue_data: np.ndarray
    colour_solution: Optional[np.ndarray] = None  # uint8 (n_cells,), 0 empty, 1..k
    name: str = ""
    meta: dict = field(default_factory=dict)
    colour_groups: Optional[list] = None          # per reveal palette entry, its puzzle colour 1..k

    @property
    def n_lines(self) -> int:
        return len(self.clue_kind)

    @property
    def dim(self) -> int:
        return len(self.shape)

    @property
    def is_3d(self) -> bool:
        return len(self.shape) == 3

    @property
    def solution(self):
        """Filled cells of the colour solution (bool), like ``Puzzle.solution``; None when unknown."""
        return None if self.colour_solution is None else self.colour_solution > 0

    def line(self, i: int) -> np.ndarray:
        return self.line_cells[self.line_start[i]:self.line_start[i + 1]]

    def clue_numbers(self, i: int) -> np.ndarray:
        return self.clue_data[self.clue_start[i]:self.clue_start[i + 1]]

    def clue(self, i: int):
        """None, a list of (length, colour) blocks (2D), or a list of (count, mark) per colour (3D)."""
        kind = int(self.clue_kind[i])
        nums = [int(v) for v in self.clue_numbers(i)]
        if kind == CKIND_NONE:
            return None
        return [(nums[j], nums[j + 1]) for j in range(0, len(nums), 2)]

    def clues(self) -> list:
        return [self.clue(i) for i in range(self.n_lines)]

    def grid_shape(self) -> tuple:
        if len(self.shape) == 2:
            return (self.shape[1], self.shape[0])
        return tuple(self.shape)


def line_names(p: ColourPuzzle) -> list:
    return line_names_2d(*p.shape) if p.dim == 2 else line_names_3d(*p.shape)


def to_hex(srgb) -> list:
    """``#rrggbb`` strings (lowercase) of sRGB colours in 0..1, shape (k, 3)."""
    b = np.clip(np.rint(np.asarray(srgb, np.float64).reshape(-1, 3) * 255.0), 0, 255).astype(int)
    return [f"#{r:02x}{g:02x}{bl:02x}" for r, g, bl in b]


def from_hex(texts) -> np.ndarray:
    """sRGB float32 (k, 3) in 0..1 from ``#rrggbb`` strings; ValueError naming the bad entry."""
    out = np.empty((len(texts), 3), np.float32)
    for i, t in enumerate(texts):
        if not isinstance(t, str) or not _HEX_RE.match(t):
            raise ValueError(f"entry {i} is {t!r}, not a colour \"#rrggbb\"")
        out[i] = [int(t[j:j + 2], 16) / 255.0 for j in (1, 3, 5)]
    return out


def colour_text(rgb) -> str:
    r, g, b = (int(round(float(v) * 255)) for v in rgb)
    return f"#{r:02x}{g:02x}{b:02x}"


def default_colours(k: int) -> np.ndarray:
    """k distinct colours for puzzles made without a palette (black, red, blue, green, ...)."""
    base = [(0, 0, 0), (0.85, 0.15, 0.1), (0.1, 0.3, 0.85), (0.1, 0.65, 0.2), (0.95, 0.6, 0.05),
            (0.55, 0.2, 0.7), (0.1, 0.7, 0.75), (0.5, 0.5, 0.5)]
    out = [base[i] if i < len(base) else ((i * 0.37) % 1, (i * 0.61) % 1, (i * 0.83) % 1) for i in range(k)]
    return np.asarray(out, dtype=np.float32).reshape(k, 3)


def _check_k(k: int):
    if not 1 <= k <= MAX_COLOURS:
        raise PuzzleError(f"a colour puzzle needs 1 to {MAX_COLOURS} colours, got {k}")


def _encode_2d(clue, length, k, where):
    if clue is None:
        return CKIND_NONE, []
    data, need, prev = [], 0, None
    for b in clue:
        if not isinstance(b, (tuple, list)) or len(b) != 2:
            raise PuzzleError(f"{where}: a block must be a (length, colour) pair, got {b!r}")
        n, c = int(b[0]), int(b[1])
        if n < 1:
            raise PuzzleError(f"{where}: block length must be at least 1, got {n}")
        if not 1 <= c <= k:
            raise PuzzleError(f"{where}: colour {c} is outside the puzzle's colours 1..{k}")
        need += n + (1 if prev == c else 0)
        prev = c
        data += [n, c]
    if need > length:
        raise PuzzleError(f"{where}: clue needs {need} cells but the line has {length}")
    return CKIND_BLOCKS, data


def min_cells_3d(count: int, mark: int) -> int:
    """Fewest cells a colour of ``count`` cells with ``mark`` takes, gaps between its runs included."""
    if count == 0:
        return 0
    return count + {MARK_PLAIN: 0, MARK_CIRCLE: 1, MARK_SQUARE: 2}[mark]


def _encode_3d(clue, length, k, where):
    if clue is None:
        return CKIND_NONE, []
    if len(clue) != k:
        raise PuzzleError(f"{where}: a 3D colour clue needs one entry per colour ({k}), got {len(clue)}")
    data, total = [], 0
    for c, (n, m) in enumerate(clue, start=1):
        n, m = int(n), int(m)
        if n < 0:
            raise PuzzleError(f"{where}: negative count {n} for colour {c}")
        if m not in MARK_SUFFIX:
            raise PuzzleError(f"{where}: unknown mark {m} for colour {c}")
        if m == MARK_CIRCLE and n < 2:
            raise PuzzleError(f"{where}: a circled count needs at least 2 cells, colour {c} has {n}")
        if m == MARK_SQUARE and n < 3:
            raise PuzzleError(f"{where}: a squared count needs at least 3 cells, colour {c} has {n}")
        if n == 0:
            m = MARK_PLAIN
        total += n
        data += [n, m]
    # A necessary condition only: whether the runs fit around each other is the line solver's job.
    if total > length or max(min_cells_3d(n, m) for n, m in zip(data[0::2], data[1::2])) > length:
        raise PuzzleError(f"{where}: clue counts need more cells than the line's {length}")
    return CKIND_COUNTS, data


def make_colour_puzzle(shape, clues: Sequence, k: int, clue_colours=None, colour_solution=None,
                       name: str = "") -> ColourPuzzle:
    """A 2D (W, H) or 3D (X, Y, Z) colour puzzle from clues in the model's line order."""
    _check_k(k)
    shape = tuple(int(s) for s in shape)
    if len(shape) == 2:
        if min(shape) < 1:
            raise PuzzleError(f"a 2D puzzle needs at least one row and one column (got {shape})")
        start, cells, axis = grid_lines_2d(*shape)
        names, enc = line_names_2d(*shape), _encode_2d
    elif len(shape) == 3:
        if min(shape) < 1:
            raise PuzzleError(f"a 3D puzzle needs every dimension ≥ 1 (got {shape})")
        start, cells, axis = grid_lines_3d(*shape)
        names, enc = line_names_3d(*shape), _encode_3d
    else:
        raise PuzzleError(f"a colour puzzle is 2D or 3D, not shape {shape}")
    n_lines = len(start) - 1
    if len(clues) != n_lines:
        raise PuzzleError(f"{len(clues)} clues for {n_lines} lines")
    kinds, cstart, cdata = [], [0], []
    for i, clue in enumerate(clues):
        kind, nums = enc(clue, int(start[i + 1] - start[i]), k, names[i])
        kinds.append(kind)
        cdata += nums
        cstart.append(len(cdata))
    n = int(np.prod(shape))
    cols = default_colours(k) if clue_colours is None else np.asarray(clue_colours, np.float32).reshape(-1, 3)
    if len(cols) != k:
        raise PuzzleError(f"{len(cols)} clue colours for a puzzle of {k} colour{'s' if k != 1 else ''}")
    sol = None
    if colour_solution is not None:
        sol = np.asarray(colour_solution).ravel().astype(np.int64)
        if sol.size != n:
            raise PuzzleError(f"solution has {sol.size} cells, the puzzle {n}")
        if sol.size and (sol.min() < 0 or sol.max() > k):
            raise PuzzleError(f"solution has colour {int(sol.max())} outside the puzzle's colours 0..{k}")
        sol = sol.astype(np.uint8)
    return ColourPuzzle(shape, n, int(k), cols, start, cells, axis, np.asarray(kinds, np.int8),
                        np.asarray(cstart, INDEX), np.asarray(cdata, INDEX), sol, name)


# ---------------------------------------------------------------------------------------------
# clues of a coloured grid


def runs_of(values) -> list:
    """Maximal runs of equal non-zero values of a line: [(length, colour), ...] in order."""
    out = []
    prev, n = 0, 0
    for v in values:
        v = int(v)
        if v == prev and v:
            n += 1
            continue
        if prev:
            out.append((n, prev))
        prev, n = v, 1
    if prev:
        out.append((n, prev))
    return out


def clue_of_line(values, k: int, is_3d: bool):
    """The clue a fully coloured line shows."""
    runs = runs_of(values)
    if not is_3d:
        return runs
    out = []
    for c in range(1, k + 1):
        mine = [n for n, col in runs if col == c]
        r = len(mine)
        out.append((sum(mine), MARK_PLAIN if r <= 1 else MARK_CIRCLE if r == 2 else MARK_SQUARE))
    return out


def colour_puzzle_from_grid(grid, k: Optional[int] = None, clue_colours=None, name: str = "") -> ColourPuzzle:
    """The full-clue colour puzzle of a grid of colour indices ((H, W) in 2D, (X, Y, Z) in 3D)."""
    g = np.asarray(grid).astype(np.int64)
    if k is None:
        k = max(int(g.max()) if g.size else 1, 1)
    shape = (g.shape[1], g.shape[0]) if g.ndim == 2 else tuple(g.shape)
    flat = g.ravel()
    if g.ndim == 3 and g.size and 0 <= g.min() and g.max() <= k and 1 <= k <= MAX_COLOURS:
        return _from_grid_3d(g, k, clue_colours, name)
    start, cells, _ = grid_lines_2d(*shape) if g.ndim == 2 else grid_lines_3d(*shape)
    clues = [clue_of_line(flat[cells[start[i]:start[i + 1]]], k, g.ndim == 3) for i in range(len(start) - 1)]
    return make_colour_puzzle(shape, clues, k, clue_colours, flat, name)


def clue_data_3d(values, line_start, line_cells, k) -> np.ndarray:
    """The 3D clue numbers of every line of a filled grid (``values`` per cell, 0..k), in the
    model's order: per line and colour its count and mark (``clue_of_line``'s), as numpy rows
    per axis (lines of one axis have one length), (n_lines, 2k)."""
    n_lines = len(line_start) - 1
    out = np.zeros((n_lines, 2 * k), dtype=INDEX)
    lens = np.diff(line_start)
    a = 0
    while a < n_lines:
        b = a + int(np.argmax(lens[a:] != lens[a])) if (lens[a:] != lens[a]).any() else n_lines
        L = int(lens[a])
        v = values[line_cells[line_start[a]:line_start[b]]].reshape(b - a, L)
        for c in range(1, k + 1):
            on = v == c
            starts = on.copy()
            starts[:, 1:] &= ~on[:, :-1]
            runs = starts.sum(axis=1)
            out[a:b, 2 * (c - 1)] = on.sum(axis=1)
            out[a:b, 2 * c - 1] = np.where(runs <= 1, MARK_PLAIN, np.where(runs == 2, MARK_CIRCLE, MARK_SQUARE))
        a = b
    return out


def _from_grid_3d(g, k, clue_colours, name) -> ColourPuzzle:
    """``colour_puzzle_from_grid`` of a 3D grid, its clues counted with numpy (a Python loop per
    line took most of a 64^3 colour design's set-up)."""
    shape = tuple(int(v) for v in g.shape)
    flat = g.ravel()
    start, cells, axis = grid_lines_3d(*shape)
    data = clue_data_3d(flat, start, cells, k)
    n_lines = len(start) - 1
    cols = default_colours(k) if clue_colours is None else np.asarray(clue_colours, np.float32).reshape(-1, 3)
    if len(cols) != k:
        raise PuzzleError(f"{len(cols)} clue colours for a puzzle of {k} colours")
    return ColourPuzzle(shape, int(flat.size), int(k), cols, start, cells, axis,
                        np.full(n_lines, CKIND_COUNTS, np.int8), np.arange(n_lines + 1, dtype=INDEX) * 2 * k,
                        data.ravel(), flat.astype(np.uint8), name)


def check_colour_solution(p: ColourPuzzle, solution=None) -> list:
    """Names of the clued lines whose clue ``solution`` (default: the puzzle's) does not satisfy."""
    sol = p.colour_solution if solution is None else np.asarray(solution).ravel()
    if sol is None:
        return []
    sol = np.asarray(sol).astype(np.int64)
    if p.is_3d and sol.size == p.n_cells and (sol.min(initial=0) >= 0) and sol.max(initial=0) <= p.k:
        # 3D: every line's clue of the solution counted with numpy, compared with the shown ones
        want = clue_data_3d(sol, p.line_start, p.line_cells, p.k)
        shown = p.clue_kind == CKIND_COUNTS
        got = p.clue_data[p.clue_start[:-1][shown][:, None] + np.arange(2 * p.k)[None, :]]
        bad = np.flatnonzero(shown)[(got != want[shown]).any(axis=1)]
        names = line_names(p)
        return [names[i] for i in bad]
    names = line_names(p)
    bad = []
    for i in range(p.n_lines):
        clue = p.clue(i)
        if clue is None:
            continue
        if clue_of_line(sol[p.line(i)], p.k, p.is_3d) != clue:
            bad.append(names[i])
    return bad


def with_hidden(p: ColourPuzzle, hidden) -> ColourPuzzle:
    """A copy with the clues of the given lines removed (bool mask or indices); the shown clues'
    numbers kept as they are (they were checked when the puzzle was made)."""
    mask = np.zeros(p.n_lines, dtype=bool)
    mask[np.asarray(hidden)] = True
    keep = np.repeat(~mask, np.diff(p.clue_start))
    counts = np.where(mask, 0, np.diff(p.clue_start))
    start = np.zeros(p.n_lines + 1, dtype=INDEX)
    np.cumsum(counts, out=start[1:])
    sol = None if p.colour_solution is None else p.colour_solution.copy()
    q = ColourPuzzle(p.shape, p.n_cells, p.k, p.clue_colours, p.line_start, p.line_cells, p.line_axis,
                     np.where(mask, CKIND_NONE, p.clue_kind).astype(np.int8), start, p.clue_data[keep], sol, p.name)
    q.meta, q.colour_groups = dict(p.meta), p.colour_groups
    return q


def colour_stats(p: ColourPuzzle) -> dict:
    """Size, lines, hidden lines and per colour: lines whose clue has it, its cells over those
    lines' clues, and (3D) the lines per mark; 2D: the blocks of that colour."""
    out = {"shape": [int(s) for s in p.shape], "cells": int(p.n_cells), "lines": int(p.n_lines),
           "hidden": int(np.count_nonzero(p.clue_kind == CKIND_NONE)), "colours": int(p.k),
           "clue_colours": [colour_text(c) for c in p.clue_colours], "per_colour": []}
    for c in range(1, p.k + 1):
        lines, cells, blocks, marks = 0, 0, 0, {"plain": 0, "circle": 0, "square": 0}
        for clue in p.clues():
            if clue is None:
                continue
            if p.is_3d:
                n, m = clue[c - 1]
                if n:
                    lines += 1
                    cells += n
                    marks[{MARK_PLAIN: "plain", MARK_CIRCLE: "circle", MARK_SQUARE: "square"}[m]] += 1
            else:
                mine = [n for n, col in clue if col == c]
                lines += bool(mine)
                cells += sum(mine)
                blocks += len(mine)
        row = {"colour": c, "lines": lines, "cells": cells}
        row.update(marks if p.is_3d else {"blocks": blocks})
        out["per_colour"].append(row)
    return out


def format_colour_stats(name: str, s: dict) -> str:
    head = (f"{name}: {'x'.join(map(str, s['shape']))} colour puzzle, {s['colours']} "
            f"colour{'s' if s['colours'] != 1 else ''} "
            f"({' '.join(s['clue_colours'])}), {s['cells']} cells, {s['lines']} lines, {s['hidden']} hidden\n")
    rows = []
    for r in s["per_colour"]:
        extra = (f", lines plain/circle/square {r['plain']}/{r['circle']}/{r['square']}" if "plain" in r
                 else f", {r['blocks']} blocks")
        rows.append(f"  colour {r['colour']}: on {r['lines']} lines, {r['cells']} cells by the clues{extra}\n")
    return head + "".join(rows)


def colour_solution_text(sol) -> str:
    """A solution as the file writes it: one character per cell, ``0`` empty, ``1``-``9`` then
    ``a``-``z`` colour 1..35."""
    return "".join(COLOUR_CHARS[int(v)] for v in np.asarray(sol).ravel())


def is_colour(puzzle) -> bool:
    """Whether ``puzzle`` is a colour puzzle (a ``ColourPuzzle``, of any number of colours)."""
    return isinstance(puzzle, ColourPuzzle)


def as_plain(p: ColourPuzzle):
    """The plain puzzle a 1-colour puzzle is: the same cells, lines and clues (a 2D block of
    colour 1 is a block; a 3D count of colour 1 with its mark is a plain / circle / square clue),
    its solution the cells of colour 1, name and meta kept. A colour puzzle of several colours is
    refused (``PuzzleError``)."""
    from .puzzle import Clue3D, make_2d, make_3d
    if p.k != 1:
        raise PuzzleError(f"a puzzle of {p.k} colours is not a plain puzzle")
    names = {MARK_PLAIN: "plain", MARK_CIRCLE: "circle", MARK_SQUARE: "square"}
    clues = [None if c is None else ([n for n, _ in c] if not p.is_3d else Clue3D(c[0][0], names[c[0][1]]))
             for c in p.clues()]
    sol = None if p.colour_solution is None else p.colour_solution > 0
    if p.is_3d:
        X, Y, Z = p.shape
        nx, ny = Y * Z, X * Z
        x = [clues[y * Z:(y + 1) * Z] for y in range(Y)]
        y = [clues[nx + i * Z:nx + (i + 1) * Z] for i in range(X)]
        z = [clues[nx + ny + i * Y:nx + ny + (i + 1) * Y] for i in range(X)]
        q = make_3d(p.shape, x, y, z, sol, p.name)
    else:
        W, H = p.shape
        q = make_2d(clues[:H], clues[H:H + W], sol, p.name)
    q.meta = dict(p.meta)
    return q
