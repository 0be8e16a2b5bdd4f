"""Colour puzzles in the project's JSON format (docs/PUZZLE_FORMAT.md, "Colour puzzles").

A JSON puzzle with the key ``clue_colours`` is a colour puzzle; ``puzzlefile`` hands such objects
here. Clues: 2D rows/columns are lists of ``[length, colour]`` blocks (colour 1..k, an index into
``clue_colours``); 3D x/y/z clues are lists of k strings, one per colour, in the 3D syntax
(``"3"``, ``"4o"``, ``"5s"``, ``"0"``); ``null`` hides a line. ``solution`` has one character per
cell: ``0`` empty, ``1``-``9`` then ``a``-``z`` = colour 1..35.
"""
from __future__ import annotations

import copy
import json
import re

import numpy as np

from ..model.colourpuzzle import (CKIND_NONE, COLOUR_CHARS, MARK_SUFFIX, MAX_COLOURS, SUFFIX_MARK, ColourPuzzle,
                                  check_colour_solution, colour_solution_text, colour_text, make_colour_puzzle)
from ..model.puzzle import PuzzleError
from .common import PuzzleFileError, parse_shape, reveal_colours

FORMAT_NAME = "nonogram"
FORMAT_VERSION = 1
_KEYS_COMMON = ("format", "version", "name", "shape", "clue_colours", "solution", "palette", "colours",
                "colour_groups", "meta")
_KEYS = {2: _KEYS_COMMON + ("rows", "columns"), 3: _KEYS_COMMON + ("x", "y", "z")}
_HEX_RE = re.compile(r"^#[0-9a-fA-F]{6}$")
_COUNT_RE = re.compile(r"^(0|[1-9][0-9]*)([os]?)$")
MAX_PALETTE = 256


def _is_int(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def parse_hex_colours(v, where, key, lo, hi) -> np.ndarray:
    E = PuzzleFileError
    if not isinstance(v, list):
        raise E(f"{where}: '{key}' must be a list of \"#rrggbb\" colours, got {type(v).__name__}")
    if not lo <= len(v) <= hi:
        raise E(f"{where}: '{key}' has {len(v)} colours; between {lo} and {hi} are allowed")
    out = []
    for i, c in enumerate(v):
        if not isinstance(c, str) or not _HEX_RE.match(c):
            raise E(f"{where}: {key}[{i}] must be a colour \"#rrggbb\", got {c!r}")
        out.append([int(c[j:j + 2], 16) / 255.0 for j in (1, 3, 5)])
    return np.asarray(out, dtype=np.float32).reshape(-1, 3)


def _block_list(v, where, field, k):
    E = PuzzleFileError
    if v is None:
        return None
    if not isinstance(v, list):
        raise E(f"{where}: {field}: a colour clue must be a list of [length, colour] blocks or null, got {v!r}")
    out = []
    for j, b in enumerate(v):
        if not (isinstance(b, list) and len(b) == 2 and _is_int(b[0]) and _is_int(b[1])):
            raise E(f"{where}: {field}[{j}]: malformed block {b!r}; expected [length, colour]")
        if b[0] < 1:
            raise E(f"{where}: {field}[{j}]: block length must be at least 1, got {b[0]}")
        if not 1 <= b[1] <= k:
            raise E(f"{where}: {field}[{j}]: colour {b[1]} is not one of the puzzle's colours 1..{k}")
        out.append((b[0], b[1]))
    return out


def _counts(v, where, field, k):
    E = PuzzleFileError
    if v is None:
        return None
    if not isinstance(v, list) or len(v) != k:
        raise E(f"{where}: {field}: a 3D colour clue must be a list of {k} counts (one per colour) "
                f"like \"3\", \"4o\", \"5s\", or null; got {v!r}")
    out = []
    for c, s in enumerate(v, start=1):
        m = _COUNT_RE.match(s) if isinstance(s, str) else None
        if not m:
            raise E(f"{where}: {field}[{c - 1}]: unknown count {s!r} for colour {c}; expected a number "
                    f"followed by nothing (one run), 'o' (two) or 's' (three or more)")
        out.append((int(m.group(1)), SUFFIX_MARK[m.group(2)]))
    return out


def _table(d, key, n, where, what):
    E = PuzzleFileError
    v = d.get(key)
    if not isinstance(v, list) or len(v) != n:
        got = f"{len(v)} entries" if isinstance(v, list) else "missing or not a list"
        raise E(f"{where}: '{key}' must list {n} {what}; {got}")
    return v


def _colour_solution(d, n, k, where):
    E = PuzzleFileError
    s = d.get("solution")
    if s is None:
        return None
    if not isinstance(s, str) or len(s) != n:
        raise E(f"{where}: 'solution' must be a string of {n} characters (one per cell)")
    allowed = COLOUR_CHARS[:k + 1]
    arr = np.frombuffer(s.encode("ascii", "replace"), dtype=np.uint8)
    lut = np.full(256, 255, dtype=np.uint8)
    for i, ch in enumerate(allowed):
        lut[ord(ch)] = i
    vals = lut[arr]
    if (vals == 255).any():
        pos = int(np.flatnonzero(vals == 255)[0])
        raise E(f"{where}: 'solution' has {s[pos]!r} at index {pos}; a puzzle of {k} colour{'s' if k != 1 else ''} allows "
                f"only {allowed!r}")
    return vals


def colour_puzzle_from_dict(d: dict, where: str) -> ColourPuzzle:
    """A ColourPuzzle from a JSON object that has ``clue_colours`` (format/version already checked)."""
    E = PuzzleFileError
    shape = parse_shape(d, where)
    unknown = [key for key in d if key not in _KEYS[len(shape)]]
    if unknown:
        raise E(f"{where}: unknown key(s) {', '.join(map(repr, unknown))} for a {len(shape)}D colour "
                f"puzzle (allowed: {', '.join(_KEYS[len(shape)])})")
    cols = parse_hex_colours(d.get("clue_colours"), where, "clue_colours", 1, MAX_COLOURS)
    k = len(cols)
    name = d.get("name", "")
    if not isinstance(name, str):
        raise E(f"{where}: 'name' must be a string, got {name!r}")
    meta = d.get("meta", {})
    if not isinstance(meta, dict):
        raise E(f"{where}: 'meta' must be an object, got {type(meta).__name__}")
    n = int(np.prod(shape))
    sol = _colour_solution(d, n, k, where)
    if len(shape) == 2:
        W, H = shape
        rows = _table(d, "rows", H, where, "row clues")
        columns = _table(d, "columns", W, where, "column clues")
        clues = ([_block_list(v, where, f"rows[{i}]", k) for i, v in enumerate(rows)]
                 + [_block_list(v, where, f"columns[{i}]", k) for i, v in enumerate(columns)])
    else:
        X, Y, Z = shape
        clues = []
        for key, a, b in (("x", Y, Z), ("y", X, Z), ("z", X, Y)):
            t = _table(d, key, a, where, f"lists of {b} clues")
            for i, row in enumerate(t):
                if not isinstance(row, list) or len(row) != b:
                    raise E(f"{where}: {key}[{i}] must list {b} clues")
                clues += [_counts(v, where, f"{key}[{i}][{j}]", k) for j, v in enumerate(row)]
    try:
        p = make_colour_puzzle(shape, clues, k, cols, sol, name)
    except PuzzleError as e:
        raise E(f"{where}: {e}") from None
    p.meta = copy.deepcopy(meta)
    reveal = {}
    if "palette" in d:
        reveal["palette"] = parse_hex_colours(d["palette"], where, "palette", 1, MAX_PALETTE)
    if "colours" in d:
        # the reveal's keys are every kind's: checked by the one reader (cell by cell)
        reveal_colours(d, None if sol is None else sol > 0, where)
        reveal["colours"] = d["colours"]
    if "colour_groups" in d:
        g = d["colour_groups"]
        npal = len(reveal["palette"]) if "palette" in reveal else None
        if npal is None:
            raise E(f"{where}: 'colour_groups' needs a 'palette' (one group per palette entry)")
        if not isinstance(g, list) or len(g) != npal or not all(_is_int(v) and 1 <= v <= k for v in g):
            raise E(f"{where}: 'colour_groups' must list {npal} puzzle colours (1..{k}), one per palette entry")
        p.colour_groups = list(g)
    if reveal:
        p.meta.setdefault("_reveal", {}).update(
            {"palette": [colour_text(c) for c in reveal.get("palette", [])], "colours": reveal.get("colours")})
    bad = check_colour_solution(p)
    if bad:
        more = f" and {len(bad) - 5} more" if len(bad) > 5 else ""
        raise E(f"{where}: solution: the solution does not satisfy the clues of {', '.join(bad[:5])}{more}")
    return p


def colour_puzzle_to_dict(p: ColourPuzzle) -> dict:
    d: dict = {"format": FORMAT_NAME, "version": FORMAT_VERSION}
    if p.name:
        d["name"] = p.name
    d["shape"] = [int(s) for s in p.shape]
    d["clue_colours"] = [colour_text(c) for c in p.clue_colours]
    clues = p.clues()
    if p.dim == 2:
        W, H = p.shape
        conv = [None if c is None else [[n, col] for n, col in c] for c in clues]
        d["rows"], d["columns"] = conv[:H], conv[H:H + W]
    else:
        X, Y, Z = p.shape
        conv = [None if c is None else [f"{n}{MARK_SUFFIX[m] if n else ''}" for n, m in c] for c in clues]
        nx, ny = Y * Z, X * Z
        d["x"] = [conv[y * Z:(y + 1) * Z] for y in range(Y)]
        d["y"] = [conv[nx + x * Z:nx + (x + 1) * Z] for x in range(X)]
        d["z"] = [conv[nx + ny + x * Y:nx + ny + (x + 1) * Y] for x in range(X)]
    if p.colour_solution is not None:
        d["solution"] = colour_solution_text(p.colour_solution)
    meta = copy.deepcopy(p.meta) if p.meta else {}
    reveal = meta.pop("_reveal", None)
    if reveal and reveal.get("palette"):
        d["palette"] = reveal["palette"]
        if reveal.get("colours"):
            d["colours"] = reveal["colours"]
        if p.colour_groups:
            d["colour_groups"] = list(p.colour_groups)
    if meta:
        d["meta"] = meta
    return d


def dumps_colour_json(p: ColourPuzzle) -> str:
    """Canonical text: one clue row per text line, like the black-and-white files."""
    d = colour_puzzle_to_dict(p)
    parts = []
    for key, v in d.items():
        if key in ("rows", "columns", "x", "y", "z"):
            text = "[\n" + ",\n".join("    " + json.dumps(r) for r in v) + "\n  ]" if v else "[]"
        elif key == "meta":
            text = json.dumps(v, ensure_ascii=False, indent=2).replace("\n", "\n  ")
        else:
            text = json.dumps(v, ensure_ascii=False)
        parts.append(f"  {json.dumps(key)}: {text}")
    return "{\n" + ",\n".join(parts) + "\n}\n"


def hidden_count(p: ColourPuzzle) -> int:
    return int(np.count_nonzero(p.clue_kind == CKIND_NONE))
