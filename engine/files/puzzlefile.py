"""Puzzle files: the project's JSON format, and loading/saving any supported format by extension.

The JSON format is specified in docs/PUZZLE_FORMAT.md. The 2D interchange formats (.non, .nin,
TAAI, Dejoue's native text) live in formats2d.py; this module picks the format from the file
name, applies the ``FILE#N`` selector of multi-puzzle files, and turns every problem into a
``PuzzleFileError`` that names the file.
"""
from __future__ import annotations

import copy
import gzip
import json
import os
import re
from pathlib import Path
from typing import Optional

import numpy as np

from ..model.puzzle import Clue3D, Puzzle, PuzzleError, make_2d, make_3d
from .common import MAX_CELLS as MAX_CELLS, MAX_FILE_BYTES as MAX_FILE_BYTES
from .common import PuzzleFileError as PuzzleFileError, PuzzleFileWarning as PuzzleFileWarning
from .common import check_solution as check_solution, require_consistent as require_consistent
from .common import colour_fields as colour_fields, reveal_colours
from .common import file_kind, is_int, parse_shape, read_text, solution_text

FORMAT_NAME = "nonogram"
FORMAT_VERSION = 1

_KEYS_COMMON = ("format", "version", "name", "shape", "solution", "palette", "colours", "meta")
_KEYS_2D = _KEYS_COMMON + ("rows", "columns")
_KEYS_3D = _KEYS_COMMON + ("x", "y", "z")
_CLUE3D_RE = re.compile(r"^(0|[1-9][0-9]*)([os]?)$")
_KIND_SUFFIX = {"": "plain", "o": "circle", "s": "square"}
_SELECTOR_RE = re.compile(r"^(.*)#([0-9]+)$", re.S)


# ---------------------------------------------------------------------------------------------
# solution consistency


# ---------------------------------------------------------------------------------------------
# JSON: dict <-> Puzzle


def _clue3d_text(clue) -> Optional[str]:
    return None if clue is None else str(clue)


def puzzle_to_dict(p) -> dict:
    """The JSON object of a puzzle, plain or colour (keys in the documented order)."""
    from ..model.colourpuzzle import is_colour
    if is_colour(p):
        from .colourfile import colour_puzzle_to_dict
        return colour_puzzle_to_dict(p)
    d: dict = {"format": FORMAT_NAME, "version": FORMAT_VERSION}
    if p.name:
        d["name"] = p.name
    d["shape"] = [int(s) for s in p.shape]
    clues = p.clues()
    if len(p.shape) == 2:
        W, H = p.shape
        d["rows"] = [None if c is None else list(c) for c in clues[:H]]
        d["columns"] = [None if c is None else list(c) for c in clues[H:H + W]]
    elif len(p.shape) == 3:
        X, Y, Z = p.shape
        texts = [_clue3d_text(c) for c in clues]
        nx, ny = Y * Z, X * Z
        d["x"] = [texts[y * Z:(y + 1) * Z] for y in range(Y)]
        d["y"] = [texts[nx + x * Z:nx + (x + 1) * Z] for x in range(X)]
        d["z"] = [texts[nx + ny + x * Y:nx + ny + (x + 1) * Y] for x in range(X)]
    else:
        raise PuzzleFileError(f"only 2D and 3D grid puzzles can be saved, not shape {p.shape}")
    if p.solution is not None:
        d["solution"] = solution_text(p)
    if p.palette is not None or p.colours is not None:
        d["palette"], d["colours"] = colour_fields(p)
    if p.meta:
        d["meta"] = copy.deepcopy(p.meta)
    return d


def _blocks(v, where, field):
    if v is None:
        return None
    if not isinstance(v, list) or not all(is_int(b) for b in v):
        raise PuzzleFileError(f"{where}: {field}: a clue must be a list of integers or null, got {v!r}")
    if any(b < 0 for b in v):
        raise PuzzleFileError(f"{where}: {field}: negative block length in {v}")
    if v == [0]:
        return []
    if any(b == 0 for b in v):
        raise PuzzleFileError(f"{where}: {field}: a block of length 0 in {v} (write [] or [0] for an empty line)")
    return v


def _clue3d(v, where, field):
    if v is None:
        return None
    if not isinstance(v, str):
        raise PuzzleFileError(f"{where}: {field}: a 3D clue must be a string like \"5\", \"5o\", \"5s\" "
                              f"or null, got {v!r}")
    m = _CLUE3D_RE.match(v)
    if not m:
        hint = " (negative)" if v.startswith("-") else ""
        raise PuzzleFileError(f"{where}: {field}: unknown clue {v!r}{hint}; expected a count followed by "
                              f"nothing (plain), 'o' (circle) or 's' (square)")
    return Clue3D(int(m.group(1)), _KIND_SUFFIX[m.group(2)])


def _list_of(d, key, n, where, what):
    v = d.get(key)
    if not isinstance(v, list):
        raise PuzzleFileError(f"{where}: '{key}' is missing or not a list (expected {n} {what})")
    if len(v) != n:
        raise PuzzleFileError(f"{where}: '{key}' has {len(v)} entries, expected {n} {what}")
    return v


def _table3d(d, key, a, b, labels, where):
    rows = _list_of(d, key, a, where, f"lists of {b} clues, one per {labels[0]}")
    out = []
    for i, row in enumerate(rows):
        if not isinstance(row, list) or len(row) != b:
            got = f"{len(row)} entries" if isinstance(row, list) else repr(row)
            raise PuzzleFileError(f"{where}: {key}[{i}] must list {b} clues (one per {labels[1]}), got {got}")
        out.append([_clue3d(c, where, f"{key}[{i}][{j}]") for j, c in enumerate(row)])
    return out


def _solution(d, n, where):
    s = d.get("solution")
    if s is None:
        return None
    if not isinstance(s, str):
        raise PuzzleFileError(f"{where}: 'solution' must be a string of 0/1, got {type(s).__name__}")
    if len(s) != n:
        raise PuzzleFileError(f"{where}: 'solution' has {len(s)} characters, the puzzle has {n} cells")
    if set(s) - {"0", "1"}:
        pos = next(i for i, ch in enumerate(s) if ch not in "01")
        raise PuzzleFileError(f"{where}: 'solution' has the character {s[pos]!r} at index {pos}; only 0 and 1 are allowed")
    return np.frombuffer(s.encode("ascii"), dtype=np.uint8) == ord("1")


def puzzle_from_dict(d, source: str = "<dict>") -> Puzzle:
    """A Puzzle from the JSON object; PuzzleFileError naming ``source`` and the field on any problem."""
    where = source
    if not isinstance(d, dict):
        raise PuzzleFileError(f"{where}: the top level must be a JSON object, got {type(d).__name__}")
    if d.get("format") != FORMAT_NAME:
        raise PuzzleFileError(f"{where}: 'format' must be \"{FORMAT_NAME}\", got {d.get('format')!r}")
    if d.get("version") != FORMAT_VERSION or not is_int(d.get("version")):
        raise PuzzleFileError(f"{where}: 'version' must be {FORMAT_VERSION}, got {d.get('version')!r}")
    if "clue_colours" in d:  # a colour puzzle (colourfile.py, issue #24)
        from .colourfile import colour_puzzle_from_dict
        return colour_puzzle_from_dict(d, where)
    shape = parse_shape(d, where)
    allowed = _KEYS_2D if len(shape) == 2 else _KEYS_3D
    unknown = [k for k in d if k not in allowed]
    if unknown:
        raise PuzzleFileError(f"{where}: unknown key(s) {', '.join(map(repr, unknown))} for a "
                              f"{len(shape)}D puzzle (allowed: {', '.join(allowed)})")
    name = d.get("name", "")
    if not isinstance(name, str):
        raise PuzzleFileError(f"{where}: 'name' must be a string, got {name!r}")
    meta = d.get("meta", {})
    if not isinstance(meta, dict):
        raise PuzzleFileError(f"{where}: 'meta' must be an object, got {type(meta).__name__}")
    n = int(np.prod(shape))
    solution = _solution(d, n, where)
    try:
        if len(shape) == 2:
            W, H = shape
            rows = _list_of(d, "rows", H, where, "row clues (shape[1] = height)")
            cols = _list_of(d, "columns", W, where, "column clues (shape[0] = width)")
            rows = [_blocks(v, where, f"rows[{i}]") for i, v in enumerate(rows)]
            cols = [_blocks(v, where, f"columns[{i}]") for i, v in enumerate(cols)]
            p = make_2d(rows, cols, solution, name)
        else:
            X, Y, Z = shape
            x = _table3d(d, "x", Y, Z, ("y", "z"), where)
            y = _table3d(d, "y", X, Z, ("x", "z"), where)
            z = _table3d(d, "z", X, Y, ("x", "y"), where)
            p = make_3d(shape, x, y, z, solution, name)
    except PuzzleError as e:
        raise PuzzleFileError(f"{where}: {e}") from None
    p.meta = copy.deepcopy(meta)
    p.palette, p.colours = reveal_colours(d, solution, where)
    return require_consistent(p, where)


def _dump_rows(rows) -> str:
    if not rows:
        return "[]"
    return "[\n" + ",\n".join("    " + json.dumps(r) for r in rows) + "\n  ]"


def dumps_json(p) -> str:
    """Canonical JSON text (any kind): one clue row per text line, so that diffs of puzzle files
    stay readable."""
    d = puzzle_to_dict(p)
    parts = []
    for k, v in d.items():
        if k in ("rows", "columns", "x", "y", "z"):
            text = _dump_rows(v)
        elif k == "meta":
            try:
                text = json.dumps(v, ensure_ascii=False, indent=2).replace("\n", "\n  ")
            except (TypeError, ValueError) as e:
                raise PuzzleFileError(f"puzzle {p.name!r}: 'meta' cannot be written as JSON: {e}") from None
        else:
            text = json.dumps(v, ensure_ascii=False)
        parts.append(f"  {json.dumps(k)}: {text}")
    return "{\n" + ",\n".join(parts) + "\n}\n"


def loads_json(text: str, source: str = "<string>") -> Puzzle:
    try:
        d = json.loads(text)
    except json.JSONDecodeError as e:
        raise PuzzleFileError(f"{source}: line {e.lineno} column {e.colno}: bad JSON: {e.msg}") from None
    except RecursionError:
        raise PuzzleFileError(f"{source}: bad JSON: nested too deeply") from None
    return puzzle_from_dict(d, source)


# ---------------------------------------------------------------------------------------------
# files


def split_selector(path) -> tuple:
    """``(file, N)`` for ``FILE#N`` (puzzle N, 1-based, of a multi-puzzle file), else ``(file, None)``.

    A file whose real name ends in ``#N`` is still found: the selector applies only when the
    whole string names no existing file.
    """
    s = os.fspath(path)
    if os.path.exists(s):
        return s, None
    m = _SELECTOR_RE.match(s)
    if m and os.path.exists(m.group(1)):
        return m.group(1), int(m.group(2))
    return s, None


READ_EXTENSIONS = (".json", ".non", ".nonpack", ".nin", ".txt", ".xml", ".g")
WRITE_EXTENSIONS = (".json", ".non", ".nonpack", ".nin", ".txt", ".xml")


def _parse(path: str, text: str, ext: str):
    """A list of zero-argument builders, one per puzzle in the file (built only when picked)."""
    from . import formats2d
    if ext == ".json":
        return [lambda: loads_json(text, path)]
    if ext in (".non", ".nonpack"):
        return formats2d.parse_non(text, path)
    if ext == ".nin":
        return formats2d.parse_nin(text, path)
    if ext == ".txt":
        return formats2d.parse_txt(text, path)
    if ext == ".xml":
        from . import webpbn
        return webpbn.parse_xml(text, path)
    if ext == ".g":
        from . import olsak
        return olsak.parse_g(text, path)
    raise PuzzleFileError(f"{path}: unknown puzzle file extension {ext!r} "
                          f"(supported: {', '.join(READ_EXTENSIONS)}, optionally .gz)")


def _builders(path: str):
    ext, gz = file_kind(path)
    if not os.path.exists(path):
        raise PuzzleFileError(f"{path}: no such file")
    if ext not in READ_EXTENSIONS:
        _parse(path, "", ext)  # raises the unknown-extension error before touching the file
    return _parse(path, read_text(path, gz), ext)


def load_puzzles(path) -> list:
    """Every puzzle of a file (``FILE#N`` gives a one-element list with puzzle N)."""
    file, index = split_selector(path)
    builders = _builders(file)
    if index is not None:
        return [_pick(builders, index, file)()]
    return [b() for b in builders]


def _pick(builders, index, file):
    if not 1 <= index <= len(builders):
        raise PuzzleFileError(f"{file}: no puzzle #{index}; the file holds {len(builders)} "
                              f"puzzle{'s' if len(builders) != 1 else ''} (#1..#{len(builders)})")
    return builders[index - 1]


def load_puzzle(path) -> Puzzle:
    """One puzzle: the only one in the file, or puzzle N of ``FILE#N``."""
    file, index = split_selector(path)
    builders = _builders(file)
    if index is None:
        if len(builders) != 1:
            raise PuzzleFileError(f"{file}: the file holds {len(builders)} puzzles; pick one with "
                                  f"{file}#N (N = 1..{len(builders)})")
        return builders[0]()
    return _pick(builders, index, file)()


def format_puzzles(puzzles, path) -> str:
    """The text of a file holding ``puzzles`` in the format named by ``path``'s extension."""
    from . import formats2d
    path = os.fspath(path)
    ext, _ = file_kind(path)
    if ext not in WRITE_EXTENSIONS:
        raise PuzzleFileError(f"{path}: cannot write extension {ext!r} "
                              f"(supported: {', '.join(WRITE_EXTENSIONS)}, optionally .gz)")
    multi = ext in (".txt", ".nonpack")
    if not puzzles:
        raise PuzzleFileError(f"{path}: nothing to write")
    if len(puzzles) > 1 and not multi:
        raise PuzzleFileError(f"{path}: a {ext} file holds one puzzle, got {len(puzzles)}; "
                              f"pick one with IN#N or write .txt / .nonpack")
    from ..model.colourpuzzle import ColourPuzzle
    if ext == ".xml":
        from . import webpbn
        return webpbn.format_xml(puzzles[0], path)
    if isinstance(puzzles[0], ColourPuzzle) and ext != ".json":
        raise PuzzleFileError(f"{path}: a colour puzzle is written as .json or (2D) .xml, not {ext}")
    if ext == ".json":
        return dumps_json(puzzles[0])
    if any(p.palette is not None for p in puzzles):
        import warnings
        warnings.warn(f"{path}: {ext} files hold no colours; the reveal's palette is left out "
                      f"(write .json to keep it)", PuzzleFileWarning, stacklevel=2)
    if ext in (".non", ".nonpack"):
        return "====\n".join(formats2d.format_non(p, path) for p in puzzles)
    if ext == ".nin":
        return formats2d.format_nin(puzzles[0], path)
    return "\n".join(formats2d.format_dejoue(p, path) for p in puzzles)


def save_puzzles(puzzles, path) -> None:
    path = os.fspath(path)
    text = format_puzzles(list(puzzles), path)
    _, gz = file_kind(path)
    try:
        if gz:
            with gzip.open(path, "wt", encoding="utf-8", newline="\n") as f:
                f.write(text)
        else:
            Path(path).write_text(text, encoding="utf-8", newline="\n")
    except OSError as e:
        raise PuzzleFileError(f"{path}: cannot write: {e}") from None


def save_puzzle(puzzle: Puzzle, path) -> None:
    """Write one puzzle; the format follows the extension (.json, .non, .nin, .txt, each optionally .gz)."""
    save_puzzles([puzzle], path)
