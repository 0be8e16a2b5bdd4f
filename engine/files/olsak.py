"""Olšák's ``.g`` format (the grid program's; pbnsolve reads it too), 2D, read only.

Layout: free text, then optionally a line starting ``#d`` that opens the colour declarations, one
per line: ``<inchar>:<outchar> <word_XPM> [comment]``, where ``<word_XPM>`` is a colour name or
``#RRGGBB``; inchar ``0`` redefines the background (empty), inchar ``1`` is the default colour
of blocks written without a colour character. A line starting with ``:`` opens the row clues,
the next one the column clues, a third (or the end of the file) ends them. A clue line lists its
blocks as ``N`` or ``N<inchar>``; an empty line is an empty clue. Without ``#d`` the puzzle is
black-and-white. Triangle colours (a ``/`` or ``\\`` in the word) and triddlers are refused.
"""
from __future__ import annotations

import re

import numpy as np

from ..model.colourpuzzle import MAX_COLOURS, make_colour_puzzle
from ..model.puzzle import PuzzleError, make_2d
from .common import PuzzleFileError

# The few X11 colour names the sample files use; others get a generated colour (names are kept).
_NAMED = {"black": "000000", "white": "ffffff", "red": "ff0000", "green": "00ff00", "blue": "0000ff",
          "yellow": "ffff00", "orange": "ffa500", "brown": "a52a2a", "gray": "bebebe", "grey": "bebebe",
          "purple": "a020f0", "pink": "ffc0cb", "cyan": "00ffff", "magenta": "ff00ff", "darkgreen": "006400",
          "darkblue": "00008b", "darkred": "8b0000", "violet": "ee82ee", "gold": "ffd700", "tan": "d2b48c"}
_BLOCK_RE = re.compile(r"^([0-9]+)(\S?)$")


def _rgb(word: str, where: str, i: int):
    w = word.lower()
    if w.startswith("#"):
        h = w[1:]
        if not re.fullmatch(r"[0-9a-f]{6}", h):
            raise PuzzleFileError(f"{where}: colour {word!r} is not #RRGGBB")
    else:
        h = _NAMED.get(w)
        if h is None:  # an X11 name we do not list: a stand-in colour, distinct per entry
            h = "%02x%02x%02x" % ((37 * i) % 200 + 30, (91 * i) % 200 + 30, (53 * i) % 200 + 30)
    return [int(h[j:j + 2], 16) / 255.0 for j in (0, 2, 4)]


def parse_g(text: str, path: str):
    return [lambda: _parse(text, path)]


def _parse(text: str, where: str):
    E = PuzzleFileError
    lines = text.splitlines()
    i = 0
    colours = {}   # inchar -> (name, rgb)
    default = None
    declared = False
    while i < len(lines) and not lines[i].startswith(":"):
        line = lines[i]
        i += 1
        if line[:2].lower() == "#t":
            raise E(f"{where}: triddlers are not supported")
        if line[:2].lower() != "#d":
            continue
        declared = True
        while i < len(lines) and not lines[i].lstrip().startswith(":"):
            decl = lines[i].lstrip()
            i += 1
            if not decl:
                continue
            if len(decl) < 3 or decl[1] != ":":
                raise E(f"{where}: line {i}: bad colour declaration {lines[i - 1]!r}")
            inchar = decl[0]
            rest = decl[3:].split()
            if not rest:
                raise E(f"{where}: line {i}: colour declaration without a colour")
            word = rest[0]
            if "/" in word or "\\" in word:
                raise E(f"{where}: line {i}: triangle colours are not supported")
            if inchar == "0":
                continue  # the background: empty cells
            if inchar in colours:
                raise E(f"{where}: line {i}: colour {inchar!r} declared twice")
            colours[inchar] = (word, _rgb(word, where, len(colours)))
            if inchar == "1":
                default = inchar
        if i < len(lines):
            lines[i] = lines[i].lstrip()
        break
    if i >= len(lines):
        raise E(f"{where}: no ':' line opening the row clues")
    tables = []
    i += 1
    for part in ("rows", "columns"):
        clues = []
        while i < len(lines) and not lines[i].startswith(":"):
            toks = lines[i].split()
            i += 1
            blocks = []
            for t in toks:
                m = _BLOCK_RE.match(t)
                if not m:
                    raise E(f"{where}: line {i}: malformed block {t!r}")
                n, ch = int(m.group(1)), m.group(2)
                if n == 0:
                    if len(toks) == 1:
                        continue
                    raise E(f"{where}: line {i}: a block of length 0")
                if not declared:
                    if ch:
                        raise E(f"{where}: line {i}: colour {ch!r} in a black-and-white file")
                    blocks.append((n, 1))
                    continue
                key = ch or default
                if key is None:
                    raise E(f"{where}: line {i}: block {t!r} has no colour and no default colour is declared")
                if key not in colours:
                    raise E(f"{where}: line {i}: undefined colour {ch!r}")
                blocks.append((n, key))
            clues.append(blocks)
        tables.append(clues)
        i += 1
    rows, cols = tables
    if not rows or not cols:
        raise E(f"{where}: a puzzle needs at least one row and one column")
    name = ""
    try:
        if not declared:
            return make_2d([[n for n, _ in b] for b in rows], [[n for n, _ in b] for b in cols], None, name)
        keys = list(colours)
        if len(keys) > MAX_COLOURS:
            raise E(f"{where}: {len(keys)} colours; at most {MAX_COLOURS} are supported")
        if not keys:
            raise E(f"{where}: no colour declared besides the background")
        index = {key: j + 1 for j, key in enumerate(keys)}
        conv = [[(n, index[c]) for n, c in b] for b in rows + cols]
        p = make_colour_puzzle((len(cols), len(rows)), conv, len(keys),
                               np.asarray([colours[key][1] for key in keys], np.float32), None, name)
        p.meta["colour_names"] = [colours[key][0] for key in keys]
        return p
    except PuzzleError as e:
        raise E(f"{where}: {e}") from None
