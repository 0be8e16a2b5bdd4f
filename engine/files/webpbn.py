"""webpbn's XML puzzle format (the one Wolter's pbnsolve reads), 2D, black-and-white or coloured.

Read: the first ``<puzzle>`` of a ``<puzzleset>`` (or every one: one builder each), its
``<color>`` definitions (name, ``char``, 3- or 6-digit hex), ``<clues type="rows|columns">`` of
``<line>``s of ``<count color="...">N</count>``, and an optional ``<solution type="goal">``
``<image>``. The background colour (``backgroundcolor``, default ``white``) is empty; the other
colours in the order they are defined become puzzle colours 1..k. A puzzle whose only colour is
the default black is returned as a black-and-white ``Puzzle``, any other as a ``ColourPuzzle``.
Write: the same layout, colours named by ``meta["colour_names"]`` when a file gave them.
"""
from __future__ import annotations

import xml.etree.ElementTree as ET

import numpy as np

from ..model.colourpuzzle import (COLOUR_CHARS, MAX_COLOURS, ColourPuzzle, colour_text, make_colour_puzzle)
from ..model.puzzle import KIND_NONE, PuzzleError, make_2d
from .common import PuzzleFileError, require_consistent


def _hex(text, where):
    t = (text or "").strip().lstrip("#")
    if len(t) == 3:
        t = "".join(ch * 2 for ch in t)
    try:
        if len(t) != 6:
            raise ValueError
        return [int(t[j:j + 2], 16) / 255.0 for j in (0, 2, 4)]
    except ValueError:
        raise PuzzleFileError(f"{where}: colour value {text!r} is not a 3- or 6-digit hex colour") from None


def _one_puzzle(el, where):
    E = PuzzleFileError
    bg = el.get("backgroundcolor", "white")
    default = el.get("defaultcolor", "black")
    names, rgbs, chars = [], [], {}
    defined = {}
    for c in el.findall("color"):
        name = c.get("name")
        if not name:
            raise E(f"{where}: a <color> without a name")
        defined[name] = _hex(c.text, f"{where}: color {name!r}")
        if c.get("char"):
            chars[c.get("char")] = name
    if bg not in defined:
        defined[bg] = [1.0, 1.0, 1.0]
    if default not in defined and default == "black":
        defined[default] = [0.0, 0.0, 0.0]
    for name, rgb in defined.items():
        if name != bg:
            names.append(name)
            rgbs.append(rgb)
    if not names:
        raise E(f"{where}: the puzzle defines no colour besides its background")
    if len(names) > MAX_COLOURS:
        raise E(f"{where}: {len(names)} colours; at most {MAX_COLOURS} are supported")
    index = {n: i + 1 for i, n in enumerate(names)}
    k = len(names)
    tables = {}
    for clues in el.findall("clues"):
        kind = clues.get("type")
        if kind not in ("rows", "columns"):
            raise E(f"{where}: <clues type={kind!r}>; expected rows or columns")
        lines = []
        for li, line in enumerate(clues.findall("line")):
            blocks = []
            for cnt in line.findall("count"):
                col = cnt.get("color", default)
                if col not in index:
                    raise E(f"{where}: {kind} line {li + 1}: undefined colour {col!r}")
                try:
                    n = int((cnt.text or "").strip())
                except ValueError:
                    raise E(f"{where}: {kind} line {li + 1}: malformed block {cnt.text!r}") from None
                if n < 0:
                    raise E(f"{where}: {kind} line {li + 1}: negative block {n}")
                if n > 0:
                    blocks.append((n, index[col]))
            lines.append(blocks)
        tables[kind] = lines
    if "rows" not in tables or "columns" not in tables:
        raise E(f"{where}: a puzzle needs <clues type=\"rows\"> and <clues type=\"columns\">")
    rows, cols = tables["rows"], tables["columns"]
    if not rows or not cols:
        raise E(f"{where}: a puzzle needs at least one row and one column")
    W, H = len(cols), len(rows)
    sol = None
    img = el.find("solution/image")
    for s in el.findall("solution"):
        if s.get("type", "goal") == "goal" and s.find("image") is not None:
            img = s.find("image")
            break
    if img is not None and img.text:
        text_rows = [r.strip().strip("|") for r in img.text.strip().splitlines() if r.strip()]
        if len(text_rows) != H or any(len(r) != W for r in text_rows):
            raise E(f"{where}: <image> must have {H} rows of {W} cells")
        bgchars = {ch for ch, n in chars.items() if n == bg} | {"."}
        sol = np.zeros(W * H, dtype=np.uint8)
        for r, row in enumerate(text_rows):
            for c, ch in enumerate(row):
                if ch in bgchars:
                    continue
                name = chars.get(ch, default if ch in "X#" else None)
                if name not in index:
                    raise E(f"{where}: <image> has the undefined colour character {ch!r}")
                sol[r * W + c] = index[name]
    title = el.findtext("title") or el.findtext("id") or ""
    try:
        if k == 1 and names[0] == "black":
            p = make_2d([[n for n, _ in b] for b in rows], [[n for n, _ in b] for b in cols],
                        None if sol is None else sol > 0, title.strip())
        else:
            p = make_colour_puzzle((W, H), rows + cols, k, np.asarray(rgbs, np.float32), sol, title.strip())
            p.meta["colour_names"] = names
    except PuzzleError as e:
        raise E(f"{where}: {e}") from None
    if sol is not None:
        if isinstance(p, ColourPuzzle):
            from ..model.colourpuzzle import check_colour_solution
            bad = check_colour_solution(p)
            if bad:
                raise E(f"{where}: the <image> does not satisfy the clues of {', '.join(bad[:5])}")
        else:
            require_consistent(p, where, "image")
    return p


def parse_xml(text: str, path: str):
    """One builder per ``<puzzle>`` of the file (see puzzlefile._parse)."""
    E = PuzzleFileError
    try:
        root = ET.fromstring(text)
    except ET.ParseError as e:
        raise E(f"{path}: bad XML: {e}") from None
    puzzles = [root] if root.tag == "puzzle" else root.findall("puzzle")
    if not puzzles:
        raise E(f"{path}: no <puzzle> in the file")
    return [lambda el=el, i=i: _one_puzzle(el, f"{path}#{i + 1}" if len(puzzles) > 1 else path)
            for i, el in enumerate(puzzles)]


def _esc(s: str) -> str:
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")


def format_xml(p, path: str) -> str:
    E = PuzzleFileError
    if p.dim != 2:
        raise E(f"{path}: webpbn XML holds 2D puzzles only, not shape {p.shape}")
    colour = isinstance(p, ColourPuzzle)
    if colour:
        names = list(p.meta.get("colour_names") or [f"c{c}" for c in range(1, p.k + 1)])
        if len(names) != p.k or "white" in names:
            names = [f"c{c}" for c in range(1, p.k + 1)]
        rgbs = [colour_text(c)[1:] for c in p.clue_colours]
    else:
        names, rgbs = ["black"], ["000000"]
    chars = [COLOUR_CHARS[c] for c in range(1, len(names) + 1)]
    # no DOCTYPE line: readers that honour it (libxml2 in pbnsolve) would try to fetch the DTD
    out = ['<?xml version="1.0"?>', "<puzzleset>",
           f'<puzzle type="grid" defaultcolor="{_esc(names[0])}">']
    if p.name:
        out.append(f"<title>{_esc(p.name)}</title>")
    out.append('<color name="white" char=".">ffffff</color>')
    for n, ch, rgb in zip(names, chars, rgbs):
        out.append(f'<color name="{_esc(n)}" char="{ch}">{rgb}</color>')
    W, H = p.shape
    for kind, lo, hi in (("columns", H, H + W), ("rows", 0, H)):
        out.append(f'<clues type="{kind}">')
        for i in range(lo, hi):
            if int(p.clue_kind[i]) == KIND_NONE:
                raise E(f"{path}: webpbn XML has no hidden lines; line {i} of {p.name!r} has no clue")
            clue = p.clue(i)
            blocks = clue if colour else [(n, 1) for n in clue]
            out.append("<line>" + "".join(f'<count color="{_esc(names[c - 1])}">{n}</count>' for n, c in blocks)
                       + "</line>")
        out.append("</clues>")
    sol = p.colour_solution if colour else (None if p.solution is None else p.solution.astype(np.uint8))
    if sol is not None:
        grid = np.asarray(sol).reshape(H, W)
        rows = ["|" + "".join("." if v == 0 else chars[int(v) - 1] for v in row) + "|" for row in grid]
        out.append('<solution type="goal"><image>\n' + "\n".join(rows) + "\n</image></solution>")
    out += ["</puzzle>", "</puzzleset>", ""]
    return "\n".join(out)
