"""Readers and writers of the common 2D nonogram text formats (see docs/PUZZLE_FORMAT.md).

Readers take the file's text and its name (for messages) and return one zero-argument
builder per puzzle, so a 1000-puzzle batch is split cheaply and only the picked puzzles are
built. Every problem is a PuzzleFileError naming the file, the line and what is wrong.
"""
from __future__ import annotations

import html
import os
import re
import warnings
from typing import Optional

import numpy as np

from ..model.puzzle import KIND_NONE, Puzzle, PuzzleError, make_2d
from .common import MAX_CELLS, PuzzleFileError, PuzzleFileWarning, file_kind, read_text, require_consistent, solution_text

_INT_RE = re.compile(r"^[0-9]+$")
_KEY_RE = re.compile(r"^[A-Za-z_]")
_MAX_SIDE = 1 << 15


def _stem(source: str) -> str:
    name = os.path.basename(source)
    for ext in (".gz", ".txt", ".non", ".nonpack", ".nin", ".json"):
        if name.lower().endswith(ext):
            name = name[: -len(ext)]
    return name


def _blocks(text: str, source: str, lineno: int, what: str) -> list:
    """Block lengths of one clue line ("3,1", "3 1", "0" or blank = empty line)."""
    tokens = text.replace(",", " ").split()
    out = []
    for t in tokens:
        if not (t.isdigit() and t.isascii()):
            if re.match(r"^-[0-9]+$", t):
                raise PuzzleFileError(f"{source}: line {lineno}: {what}: negative block length {t}")
            raise PuzzleFileError(f"{source}: line {lineno}: {what}: {t!r} is not a block length")
        out.append(int(t))
    if out == [0]:
        return []
    if 0 in out:
        raise PuzzleFileError(f"{source}: line {lineno}: {what}: a block of length 0 in {text.strip()!r}")
    return out


def _size(text: str, source: str, lineno: int, what: str) -> int:
    t = text.strip()
    if not _INT_RE.match(t) or not 1 <= int(t) <= _MAX_SIDE:
        raise PuzzleFileError(f"{source}: line {lineno}: {what} must be an integer from 1 to {_MAX_SIDE}, got {t!r}")
    return int(t)


def _check_cells(W: int, H: int, source: str, lineno: int):
    if W * H > MAX_CELLS:
        raise PuzzleFileError(f"{source}: line {lineno}: {W}x{H} has more than the {MAX_CELLS} cells supported")


def _builder(rows, columns, solution, name, meta, source, where=""):
    prefix = f"{source}: {where}: " if where else f"{source}: "

    def build() -> Puzzle:
        try:
            p = make_2d(rows, columns, solution, name)
        except PuzzleError as e:
            raise PuzzleFileError(f"{prefix}{e}") from None
        p.meta = dict(meta)
        return require_consistent(p, prefix.rstrip(": "), "goal/solution")
    return build


def _numbered(text: str):
    return list(enumerate(text.splitlines(), start=1))


def _require_2d(p: Puzzle, path: str, fmt: str):
    if len(p.shape) != 2:
        raise PuzzleFileError(f"{path}: {fmt} holds 2D puzzles only; {p.name or 'this puzzle'} is "
                              f"{'x'.join(map(str, p.shape))} (3D puzzles are saved as .json)")
    if (p.clue_kind == KIND_NONE).any():
        raise PuzzleFileError(f"{path}: {fmt} cannot express hidden (missing) clues; save as .json")


def _clue_lists(p: Puzzle):
    clues = p.clues()
    H = p.shape[1]
    return clues[:H], clues[H:]


# ---------------------------------------------------------------------------------------------
# .non (Steve Simpson, extended by mikix): "key value" lines, rows/columns blocks, goal


def _clue_block(lines, n, source, key, key_line):
    """Resolve the blank lines of a rows/columns block into exactly n clue lines.

    Blank lines mean both "empty line" and "separator", so trailing (then leading) blanks are
    taken as separators only when there are more lines than clues.
    """
    core = list(lines)
    while core and not core[-1][1].strip():
        core.pop()
    if len(core) < n <= len(lines):
        core = lines[:n]
    elif len(core) > n:
        while len(core) > n and not core[0][1].strip():
            core.pop(0)
    if len(core) != n:
        raise PuzzleFileError(f"{source}: line {key_line}: '{key}' has {len(core)} clue lines, expected {n}")
    label = "row" if key == "rows" else "column"
    return [_blocks(t, source, ln, f"{label} {i + 1}") for i, (ln, t) in enumerate(core)]


def _unquote(value: str) -> str:
    v = value.strip()
    if len(v) >= 2 and v[0] == v[-1] == '"':
        v = v[1:-1]
    return html.unescape(v)


_NON_META = ("catalogue", "by", "copyright", "license")


def _parse_non_one(lines, source, where):
    keys, blocks = {}, {}
    i = 0
    while i < len(lines):
        ln, raw = lines[i]
        s = raw.strip()
        i += 1
        if not _KEY_RE.match(s):
            continue  # blank, or a line the format says to ignore
        parts = s.split(None, 1)
        key, value = parts[0].lower(), (parts[1] if len(parts) > 1 else "")
        if key in ("rows", "columns"):
            if key in blocks:
                raise PuzzleFileError(f"{source}: line {ln}: duplicate '{key}'")
            start = i
            while i < len(lines) and not _KEY_RE.match(lines[i][1].strip()) \
                    and not lines[i][1].strip().startswith("#"):
                i += 1
            blocks[key] = (ln, lines[start:i])
        elif key == "color":
            raise PuzzleFileError(f"{source}: line {ln}: colour puzzles are not supported (found 'color')")
        else:
            if key in ("width", "height", "goal") and key in keys:
                raise PuzzleFileError(f"{source}: line {ln}: duplicate '{key}'")
            keys[key] = (ln, value)
    for k in ("width", "height"):
        if k not in keys:
            raise PuzzleFileError(f"{source}: {where}missing '{k}'")
    for k in ("rows", "columns"):
        if k not in blocks:
            raise PuzzleFileError(f"{source}: {where}missing '{k}'")
    W = _size(keys["width"][1], source, keys["width"][0], "width")
    H = _size(keys["height"][1], source, keys["height"][0], "height")
    _check_cells(W, H, source, keys["height"][0])
    rows = _clue_block(blocks["rows"][1], H, source, "rows", blocks["rows"][0])
    cols = _clue_block(blocks["columns"][1], W, source, "columns", blocks["columns"][0])
    solution = None
    if "goal" in keys:
        ln, value = keys["goal"]
        g = _unquote(value)
        if len(g) != W * H:
            raise PuzzleFileError(f"{source}: line {ln}: goal has {len(g)} cells, width × height = {W * H}")
        bad = set(g) - {"0", "1"}
        if bad:
            raise PuzzleFileError(f"{source}: line {ln}: goal has the character {sorted(bad)[0]!r}; "
                                  f"only 0 and 1 are supported (black and white puzzles)")
        solution = np.frombuffer(g.encode("ascii"), dtype=np.uint8) == ord("1")
    name = _unquote(keys["title"][1]) if "title" in keys else _stem(source)
    meta = {k: _unquote(keys[k][1]) for k in _NON_META if k in keys}
    return _builder(rows, cols, solution, name, meta, source, where.rstrip(": "))


def parse_non(text: str, source: str) -> list:
    """Puzzles of a .non file, or of a .nonpack bundle (puzzles separated by a ``====`` line)."""
    chunks: list = []
    cur: list = []
    for ln, raw in _numbered(text):
        if raw.strip() == "====":
            chunks.append(cur)
            cur = []
        else:
            cur.append((ln, raw))
    chunks.append(cur)
    multi = len(chunks) > 1
    return [_parse_non_one(c, source, f"puzzle #{k + 1}: " if multi else "")
            for k, c in enumerate(chunks)]


def _non_value(v: str) -> str:
    return '"' + html.escape(str(v).replace("\n", " "), quote=True) + '"'


def format_non(p: Puzzle, path: str = "<output>") -> str:
    _require_2d(p, path, ".non")
    W, H = p.shape
    rows, cols = _clue_lists(p)
    out = []
    if p.name:
        out.append(f"title {_non_value(p.name)}")
    for k in _NON_META:
        if isinstance(p.meta.get(k), str):
            # SPDX codes are written bare, as in the mikix database.
            v = p.meta[k]
            out.append(f"{k} {v if k == 'license' and re.match(r'^[A-Za-z0-9.+-]+$', v) else _non_value(v)}")
    out += [f"width {W}", f"height {H}", "", "rows"]
    out += [",".join(map(str, c)) or "0" for c in rows]
    out += ["", "columns"]
    out += [",".join(map(str, c)) or "0" for c in cols]
    if p.solution is not None:
        out += ["", f'goal "{solution_text(p)}"']
    return "\n".join(out) + "\n"


# ---------------------------------------------------------------------------------------------
# .nin (Jakub Wilk): "W H", then H row clues, then W column clues, space separated, 0 = empty


def parse_nin(text: str, source: str) -> list:
    lines = _numbered(text)
    while lines and not lines[-1][1].strip():
        lines.pop()
    while lines and not lines[0][1].strip():
        lines.pop(0)
    if not lines:
        raise PuzzleFileError(f"{source}: empty file")
    ln, head = lines[0]
    parts = head.split()
    if len(parts) != 2:
        raise PuzzleFileError(f"{source}: line {ln}: expected 'WIDTH HEIGHT', got {head.strip()!r}")
    W = _size(parts[0], source, ln, "width")
    H = _size(parts[1], source, ln, "height")
    _check_cells(W, H, source, ln)
    body = lines[1:]
    if len(body) < H + W:
        raise PuzzleFileError(f"{source}: line {ln}: a {W}x{H} puzzle needs {H} row + {W} column "
                              f"clue lines, the file has {len(body)}")
    if len(body) > H + W:
        # Seen in the wild (jwilk's data142.nin: garbled extra copies); the puzzle itself is complete.
        extra = body[H + W]
        warnings.warn(PuzzleFileWarning(
            f"{source}: line {extra[0]}: ignoring {len(body) - H - W} line(s) after the "
            f"{H} row + {W} column clues of the {W}x{H} puzzle"), stacklevel=2)
        body = body[:H + W]
    clues = [_blocks(t, source, n, f"row {i + 1}" if i < H else f"column {i - H + 1}")
             for i, (n, t) in enumerate(body)]
    return [_builder(clues[:H], clues[H:], None, _stem(source), {}, source)]


def format_nin(p: Puzzle, path: str = "<output>") -> str:
    _require_2d(p, path, ".nin")
    W, H = p.shape
    rows, cols = _clue_lists(p)
    return f"{W} {H}\n" + "".join((" ".join(map(str, c)) or "0") + "\n" for c in rows + cols)


# ---------------------------------------------------------------------------------------------
# .txt: TAAI tournament batches / single puzzles, and Dejoue's native format


TAAI_SIZE = 25  # every tournament since 2011 used 25×25 puzzles


def _taai_puzzle(lines, source, name, where, head_line):
    lines = list(lines)
    content = max((i + 1 for i, (_, t) in enumerate(lines) if t.strip()), default=0)
    # The size is inferred from the line count, and an empty clue is a blank line, so trailing
    # blank lines are ambiguous: prefer the tournament size when it fits, else drop one
    # trailing blank to make the count even.
    if content <= 2 * TAAI_SIZE <= len(lines):
        lines = lines[:2 * TAAI_SIZE]
    elif len(lines) % 2 and len(lines) > content:
        lines.pop()
    if not content or len(lines) % 2:
        raise PuzzleFileError(f"{source}: line {head_line}: {where}expected 2×N clue lines for an N×N "
                              f"puzzle (N columns, then N rows), found {len(lines)}")
    n = len(lines) // 2
    _check_cells(n, n, source, head_line)

    def build():
        # Clue text is parsed only here, so picking FILE#N from a batch parses one puzzle.
        clues = [_blocks(t, source, ln, f"{where}column {i + 1}" if i < n else f"{where}row {i - n + 1}")
                 for i, (ln, t) in enumerate(lines)]
        in_cols, in_rows = sum(map(sum, clues[:n])), sum(map(sum, clues[n:]))
        if in_cols != in_rows:
            # With the size inferred, a misplaced line would otherwise pass unnoticed.
            raise PuzzleFileError(f"{source}: line {head_line}: {where}the column clues fill {in_cols} "
                                  f"cells but the row clues {in_rows}; not an {n}×{n} puzzle (columns, then rows)")
        return _builder(clues[n:], clues[:n], None, name, {}, source, where.rstrip(": "))()
    return build


def _taai_sections(lines, source):
    """[(header line number, N, lines)] of a ``$N`` batch file."""
    sections: list = []
    for ln, raw in lines:
        s = raw.strip()
        if s.startswith("$"):
            if not _INT_RE.match(s[1:]):
                raise PuzzleFileError(f"{source}: line {ln}: bad puzzle header {s!r} (expected $N)")
            sections.append((ln, int(s[1:]), []))
        elif not sections:
            if s:
                raise PuzzleFileError(f"{source}: line {ln}: clue line before the first $N header")
        else:
            sections[-1][2].append((ln, raw))
    return sections


def parse_taai(text: str, source: str) -> list:
    lines = _numbered(text)
    stem = _stem(source)
    if any(raw.strip().startswith("$") for _, raw in lines):
        return [_taai_puzzle(body, source, f"{stem}#{k + 1}", f"puzzle ${num}: ", ln)
                for k, (ln, num, body) in enumerate(_taai_sections(lines, source))]
    return [_taai_puzzle(lines, source, stem, "", 1)]


def parse_taai_solutions(text: str, source: str) -> list:
    """The grids of a TAAI solution file: ``$N`` then rows of tab-separated 0/1; bool (H, W) each."""
    grids = []
    for ln, num, body in _taai_sections(_numbered(text), source):
        rows = []
        for n, raw in body:
            if not raw.strip():
                continue
            toks = raw.split()
            if set(toks) - {"0", "1"}:
                raise PuzzleFileError(f"{source}: line {n}: solution ${num}: only 0 and 1 are allowed")
            rows.append([t == "1" for t in toks])
        if not rows or any(len(r) != len(rows[0]) for r in rows):
            raise PuzzleFileError(f"{source}: line {ln}: solution ${num}: rows of unequal length")
        grids.append(np.array(rows, dtype=bool))
    return grids


_DEJOUE_CLUE_RE = re.compile(r"^\[(.*)\]$")


def parse_dejoue(text: str, source: str) -> list:
    """Dejoue's native format: ``GRID name``, ``ROWS``, ``[ a b ]`` lines, ``COLUMNS``, ...; '#' comments."""
    grids = []  # [name, line, rows, columns, current]
    for ln, raw in _numbered(text):
        s = raw.strip()
        if not s or s.startswith("#"):
            continue
        word = s.split(None, 1)[0]
        if word == "GRID":
            grids.append({"name": s[4:].strip(), "line": ln, "ROWS": None, "COLUMNS": None, "cur": None})
        elif not grids:
            raise PuzzleFileError(f"{source}: line {ln}: expected 'GRID name' first, got {s!r}")
        elif word in ("ROWS", "COLUMNS") and s == word:
            g = grids[-1]
            if g[word] is not None:
                raise PuzzleFileError(f"{source}: line {ln}: duplicate {word} in grid {g['name']!r}")
            g[word] = []
            g["cur"] = word
        else:
            m = _DEJOUE_CLUE_RE.match(s)
            g = grids[-1]
            if not m:
                raise PuzzleFileError(f"{source}: line {ln}: expected a clue like '[ 1 2 ]', ROWS, "
                                      f"COLUMNS or GRID, got {s!r}")
            if g["cur"] is None:
                raise PuzzleFileError(f"{source}: line {ln}: clue before ROWS or COLUMNS")
            label = "row" if g["cur"] == "ROWS" else "column"
            g[g["cur"]].append(_blocks(m.group(1), source, ln, f"{label} {len(g[g['cur']]) + 1}"))
    if not grids:
        raise PuzzleFileError(f"{source}: no GRID found")
    out = []
    for g in grids:
        for k in ("ROWS", "COLUMNS"):
            if not g[k]:
                raise PuzzleFileError(f"{source}: line {g['line']}: grid {g['name']!r} has no {k} clues")
        _check_cells(len(g["COLUMNS"]), len(g["ROWS"]), source, g["line"])
        out.append(_builder(g["ROWS"], g["COLUMNS"], None, g["name"] or _stem(source), {}, source,
                            f"grid {g['name']!r} (line {g['line']})"))
    return out


def format_dejoue(p: Puzzle, path: str = "<output>") -> str:
    _require_2d(p, path, "Dejoue .txt")
    rows, cols = _clue_lists(p)
    name = " ".join((p.name or _stem(path)).split())
    fmt = lambda c: "[ " + " ".join(map(str, c)) + (" ]" if c else "]")  # noqa: E731
    return "\n".join([f"GRID {name}", "ROWS"] + [fmt(c) for c in rows]
                     + ["COLUMNS"] + [fmt(c) for c in cols]) + "\n"


_SOLVER_OUTPUT_RE = re.compile(r"^\s+(Size: [0-9]+x[0-9]+|Solution nb [0-9]+)", re.M)


def parse_dejoue_solutions(text: str, source: str) -> list:
    """Grids of picross-solver's output: [(name, [bool (H, W) grid, ...])] per GRID."""
    out: list = []  # [(name, (W, H), [(line, [row text, ...]), ...])]
    cur: Optional[list] = None
    for ln, raw in _numbered(text):
        s = raw.strip()
        m = re.match(r"^GRID [0-9]+: (.*)$", s)
        if m:
            out.append((m.group(1), [None], []))
            cur = None
            continue
        m = re.match(r"^Size: ([0-9]+)x([0-9]+)$", s)
        if m and out:
            out[-1][1][0] = (int(m.group(1)), int(m.group(2)))
            continue
        if s.startswith("Solution nb") and out:
            if out[-1][1][0] is None:
                raise PuzzleFileError(f"{source}: line {ln}: solution before 'Size:'")
            cur = []
            out[-1][2].append((ln, cur))
            continue
        if cur is not None and s and set(s) <= {"#", "."}:
            cur.append(s)
        else:
            cur = None
    result = []
    for name, (size,), sols in out:
        grids = []
        for ln, rows in sols:
            W, H = size
            if len(rows) != H or any(len(r) != W for r in rows):
                raise PuzzleFileError(f"{source}: line {ln}: grid {name!r}: the solution is not {W}x{H}")
            grids.append(np.array([[ch == "#" for ch in r] for r in rows], dtype=bool))
        result.append((name, grids))
    return result


def parse_txt(text: str, source: str) -> list:
    """A .txt puzzle file: TAAI batch ($N headers), TAAI single puzzle, or Dejoue native (GRID)."""
    first = next((s.strip() for s in text.splitlines() if s.strip() and not s.strip().startswith("#")), "")
    if first.startswith("GRID"):
        if _SOLVER_OUTPUT_RE.search(text):
            raise PuzzleFileError(f"{source}: this is picross-solver output (solutions), not a puzzle; "
                                  f"read it with formats2d.parse_dejoue_solutions")
        return parse_dejoue(text, source)
    if first.startswith("$") or re.match(r"^[0-9][0-9\s]*$", first):
        return parse_taai(text, source)
    if not first:
        raise PuzzleFileError(f"{source}: empty file")
    raise PuzzleFileError(f"{source}: unrecognised .txt puzzle (expected a TAAI '$N' batch, TAAI clue "
                          f"lines, or Dejoue 'GRID name'); first line {first[:40]!r}")


# ---------------------------------------------------------------------------------------------
# plain solution grids ('#' filled, '.' empty), e.g. webpbn-survey/solutions/*.txt


def parse_grid_text(text: str, source: str) -> np.ndarray:
    rows = [(ln, s.strip()) for ln, s in _numbered(text) if s.strip()]
    if not rows:
        raise PuzzleFileError(f"{source}: empty grid")
    for ln, s in rows:
        if set(s) - {"#", "."}:
            raise PuzzleFileError(f"{source}: line {ln}: only '#' and '.' are allowed in a grid")
        if len(s) != len(rows[0][1]):
            raise PuzzleFileError(f"{source}: line {ln}: row of {len(s)} cells, the first has {len(rows[0][1])}")
    return np.array([[ch == "#" for ch in s] for _, s in rows], dtype=bool)


def _read(path) -> str:
    return read_text(os.fspath(path), file_kind(os.fspath(path))[1])


def read_taai_solutions(path) -> list:
    return parse_taai_solutions(_read(path), os.fspath(path))


def read_dejoue_solutions(path) -> list:
    return parse_dejoue_solutions(_read(path), os.fspath(path))


def read_grid(path) -> np.ndarray:
    return parse_grid_text(_read(path), os.fspath(path))
