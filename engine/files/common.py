"""What every puzzle file reader and writer shares: the file error and warning, the size limits,
reading a file's text (gzipped or not), the ``shape`` field, and the check that a file's solution
satisfies its clues. The bottom of the files part: it imports no other file module, so the format
modules and ``puzzlefile`` (which picks among them) never import each other in a circle.
"""
from __future__ import annotations

import gzip
import os

import numpy as np

from ..model.puzzle import KIND_BLOCKS, KIND_CIRCLE, KIND_PLAIN, KIND_SQUARE, Puzzle, line_names

# Beyond this a puzzle no longer fits the engine's flat int64 line arrays in reasonable memory.
MAX_CELLS = 1 << 24
# Bigger files are not puzzles we can solve anyway; refusing them early avoids reading gigabytes.
MAX_FILE_BYTES = 256 << 20


class PuzzleFileError(ValueError):
    """A puzzle file that cannot be read or written; the message names the file and the field."""


class PuzzleFileWarning(UserWarning):
    """Something odd in a file that still gave a complete puzzle (e.g. ignored trailing lines)."""


def _runs(puzzle: Puzzle, solution: np.ndarray):
    """Every block of filled cells of every line: (line of each block, block lengths), in line order."""
    starts = puzzle.line_start
    vals = np.asarray(solution, dtype=bool)[puzzle.line_cells]
    lengths = np.diff(starts)
    line_of_cell = np.repeat(np.arange(puzzle.n_lines), lengths)
    first = starts[:-1][lengths > 0]
    last = starts[1:][lengths > 0] - 1
    before = np.zeros_like(vals)
    before[1:] = vals[:-1]
    before[first] = False  # a line's first cell has no left neighbour in that line
    after = np.zeros_like(vals)
    after[:-1] = vals[1:]
    after[last] = False
    begin = np.flatnonzero(vals & ~before)
    end = np.flatnonzero(vals & ~after)
    return line_of_cell[begin], end - begin + 1


def check_solution(puzzle: Puzzle) -> list:
    """Names of the clued lines whose clue the puzzle's solution does not satisfy ([] if none)."""
    if puzzle.solution is None:
        return []
    n = puzzle.n_lines
    block_line, block_len = _runs(puzzle, puzzle.solution)
    n_blocks = np.bincount(block_line, minlength=n)
    totals = np.bincount(block_line, weights=block_len, minlength=n).astype(np.int64)
    kind = puzzle.clue_kind.astype(np.int64)
    n_nums = np.diff(puzzle.clue_start)
    bad = np.zeros(n, dtype=bool)

    is3d = kind >= KIND_PLAIN
    got_kind = np.where(n_blocks <= 1, KIND_PLAIN, np.where(n_blocks == 2, KIND_CIRCLE, KIND_SQUARE))
    want_total = np.zeros(n, dtype=np.int64)
    want_total[is3d] = puzzle.clue_data[puzzle.clue_start[:-1][is3d]]
    bad |= is3d & ((got_kind != kind) | (totals != want_total))

    blocks = kind == KIND_BLOCKS
    bad |= blocks & (n_blocks != n_nums)
    same_count = blocks & (n_blocks == n_nums)
    # Lines with as many blocks as clue numbers: compare the lengths pairwise, in order.
    clue_line = np.repeat(np.arange(n), n_nums)
    mine = same_count[block_line]
    differ = block_len[mine] != puzzle.clue_data[same_count[clue_line]]
    bad[block_line[mine][differ]] = True

    names = line_names(puzzle)
    return [names[i] for i in np.flatnonzero(bad)]


def require_consistent(puzzle: Puzzle, source: str, field: str = "solution") -> Puzzle:
    bad = check_solution(puzzle)
    if bad:
        more = f" and {len(bad) - 5} more" if len(bad) > 5 else ""
        raise PuzzleFileError(f"{source}: {field}: the solution does not satisfy the clues of "
                              f"{', '.join(bad[:5])}{more}")
    return puzzle


def solution_text(puzzle: Puzzle) -> str:
    sol = np.asarray(puzzle.solution, dtype=bool).ravel()
    if sol.size != puzzle.n_cells:
        raise PuzzleFileError(f"puzzle {puzzle.name!r}: its solution has {sol.size} cells, "
                              f"the puzzle {puzzle.n_cells}")
    return np.where(sol, ord("1"), ord("0")).astype(np.uint8).tobytes().decode("ascii")


def is_int(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def parse_shape(d: dict, where) -> tuple:
    s = d.get("shape")
    if not isinstance(s, list) or len(s) not in (2, 3) or not all(is_int(v) for v in s):
        raise PuzzleFileError(f"{where}: 'shape' must be a list of 2 or 3 integers, got {s!r}")
    if any(v < 1 for v in s):
        raise PuzzleFileError(f"{where}: 'shape' values must be at least 1, got {s}")
    n = int(np.prod(s, dtype=object))
    if n > MAX_CELLS:
        raise PuzzleFileError(f"{where}: 'shape' {s} has {n} cells, more than the {MAX_CELLS} supported")
    return tuple(s)


def file_kind(path: str) -> tuple:
    """(format key, gzipped?) from the file name."""
    name = os.path.basename(path).lower()
    gz = name.endswith(".gz")
    if gz:
        name = name[:-3]
    ext = os.path.splitext(name)[1]
    return ext, gz


def read_text(path: str, gz: bool) -> str:
    try:
        if gz:
            with gzip.open(path, "rb") as f:
                data = f.read(MAX_FILE_BYTES + 1)
        else:
            if os.path.getsize(path) > MAX_FILE_BYTES:
                raise PuzzleFileError(f"{path}: file is larger than {MAX_FILE_BYTES >> 20} MB; not a puzzle file")
            with open(path, "rb") as f:
                data = f.read()
    except FileNotFoundError:
        raise PuzzleFileError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise PuzzleFileError(f"{path}: is a directory, not a puzzle file") from None
    except (OSError, EOFError) as e:  # includes gzip.BadGzipFile
        raise PuzzleFileError(f"{path}: cannot read: {e}") from None
    if len(data) > MAX_FILE_BYTES:
        raise PuzzleFileError(f"{path}: file is larger than {MAX_FILE_BYTES >> 20} MB; not a puzzle file")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise PuzzleFileError(f"{path}: not UTF-8 text (byte {e.start})") from None
    return text
