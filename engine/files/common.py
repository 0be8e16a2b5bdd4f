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


# ---------------------------------------------------------------------------------------------
# reveal colours (``palette`` / ``colours``), the same keys in every kind of puzzle file


_HEX_DIGITS = np.frombuffer(b"0123456789abcdef", np.uint8)
_HEX_VALUE = np.full(256, -1, np.int16)
_HEX_VALUE[_HEX_DIGITS] = np.arange(16)


def colour_fields(p) -> tuple:
    """(``palette`` list of "#rrggbb", ``colours`` string) of a puzzle's reveal colours."""
    from ..model.colourpuzzle import to_hex
    where = f"puzzle {p.name!r}"
    if p.palette is None or p.colours is None:
        raise PuzzleFileError(f"{where}: reveal colours need both a palette and per-cell colours")
    if p.solution is None:
        raise PuzzleFileError(f"{where}: 'colours' needs the solution (colours sit on its filled cells)")
    pal = np.asarray(p.palette, np.float64)
    if pal.ndim != 2 or pal.shape[1] != 3 or not 1 <= len(pal) <= 256 or not np.isfinite(pal).all():
        raise PuzzleFileError(f"{where}: 'palette' must hold 1 to 256 RGB colours, got shape {pal.shape}")
    sol = np.asarray(p.solution, bool).ravel()
    col = np.asarray(p.colours).ravel()
    if col.size != sol.size:
        raise PuzzleFileError(f"{where}: 'colours' has {col.size} cells, the puzzle {sol.size}")
    if sol.any() and int(col[sol].max()) >= len(pal):
        raise PuzzleFileError(f"{where}: 'colours' uses palette entry {int(col[sol].max())}, the "
                              f"palette has {len(pal)}")
    c = col.astype(np.int64) & 255
    text = np.full((sol.size, 2), ord("."), np.uint8)
    text[sol, 0] = _HEX_DIGITS[c[sol] >> 4]
    text[sol, 1] = _HEX_DIGITS[c[sol] & 15]
    return to_hex(np.clip(pal, 0.0, 1.0)), text.tobytes().decode("ascii")


def reveal_colours(d, solution, where):
    """(palette float32 (k, 3), colours uint8 (n,)) from the optional 'palette'/'colours' keys of
    a puzzle file of any kind (``solution``: its filled cells, bool); PuzzleFileError naming the
    key and the cell on any problem."""
    from ..model.colourpuzzle import from_hex
    pal, col = d.get("palette"), d.get("colours")
    if pal is None and col is None:
        return None, None
    if pal is None or col is None:
        have, need = ("colours", "palette") if pal is None else ("palette", "colours")
        raise PuzzleFileError(f"{where}: '{have}' needs '{need}' beside it")
    if not isinstance(pal, list) or not 1 <= len(pal) <= 256:
        got = f"{len(pal)} entries" if isinstance(pal, list) else type(pal).__name__
        raise PuzzleFileError(f"{where}: 'palette' must be a list of 1 to 256 \"#rrggbb\" colours, got {got}")
    try:
        palette = from_hex(pal)
    except ValueError as e:
        raise PuzzleFileError(f"{where}: 'palette': {e}") from None
    if solution is None:
        raise PuzzleFileError(f"{where}: 'colours' needs 'solution' (colours sit on its filled cells)")
    n = solution.size
    if not isinstance(col, str):
        raise PuzzleFileError(f"{where}: 'colours' must be a string, got {type(col).__name__}")
    if len(col) != 2 * n:
        raise PuzzleFileError(f"{where}: 'colours' has {len(col)} characters; the puzzle's {n} cells "
                              f"need {2 * n} (two hex digits or \"..\" per cell)")
    if not col.isascii():
        raise PuzzleFileError(f"{where}: 'colours' holds a character other than 0-9, a-f and '.'")
    b = np.frombuffer(col.encode("ascii"), np.uint8).reshape(n, 2)
    dots = b == ord(".")
    vals = _HEX_VALUE[b]
    bad = ~dots & (vals < 0)
    if bad.any():
        i = int(np.flatnonzero(bad.any(axis=1))[0])
        raise PuzzleFileError(f"{where}: 'colours' cell {i} is {col[2 * i:2 * i + 2]!r}; expected two "
                              f"lowercase hex digits or \"..\"")
    empty = dots.all(axis=1)
    half = dots.any(axis=1) & ~empty
    if half.any():
        i = int(np.flatnonzero(half)[0])
        raise PuzzleFileError(f"{where}: 'colours' cell {i} is {col[2 * i:2 * i + 2]!r}; expected two "
                              f"lowercase hex digits or \"..\"")
    wrong = empty == solution
    if wrong.any():
        i = int(np.flatnonzero(wrong)[0])
        what = "has no colour but is filled" if solution[i] else "has a colour but is empty"
        raise PuzzleFileError(f"{where}: 'colours' cell {i} {what} in 'solution' "
                              f"({int(wrong.sum())} such cells)")
    idx = np.where(empty, 0, vals[:, 0] * 16 + vals[:, 1]).astype(np.int64)
    if idx.max() >= len(palette):
        i = int(np.argmax(idx))
        raise PuzzleFileError(f"{where}: 'colours' cell {i} uses palette entry {idx[i]}, the palette "
                              f"has {len(palette)}")
    return palette, idx.astype(np.uint8)
