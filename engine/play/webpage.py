"""A playable web page of a 3D puzzle (black-and-white, or a colour puzzle whose cubes are
painted as in Picross 3D Round 2): the web player's template (built from ``web/`` into
``engine/play/player/nonogram-player.html``) filled with one puzzle.

The page needs no network and no server. It carries the solution for its mistake check,
XOR-ed with a keystream and base64-encoded so that it cannot be read at a glance; that is not a
security measure (the page's own script decodes it). The keystream is xorshift32 from the
page's key, one byte per step, the same as ``web/src/data.js``.
"""
from __future__ import annotations

import base64
import hashlib
import html
import json
import os
import re
from typing import Optional

import numpy as np

from ..colour.colourspace import to_hex
from ..colour.inks import choose_inks
from ..files.colourfile import colour_puzzle_to_dict
from ..model.puzzle import Puzzle
from ..files.puzzlefile import puzzle_to_dict

TEMPLATE_PATH = os.path.join(os.path.dirname(os.path.abspath(__file__)), "player", "nonogram-player.html")
DATA_SLOT = '<script id="nonogram-puzzle" type="application/json">__NONOGRAM_PUZZLE__</script>'
TITLE_SLOT = "<title>__TITLE__</title>"
BUILD_HINT = ("build it once with `npm ci && npm run build` in the repository's web/ folder "
              "(bash scripts/bootstrap.sh does this)")


# Colour puzzles: the player draws up to this many numbers on a face and has a key per colour.
MAX_PAINT_COLOURS = 9


class WebPageError(ValueError):
    """The page cannot be made (no solution, too large, player not built); the message says why."""


def template_text(path: Optional[str] = None) -> str:
    path = path or TEMPLATE_PATH
    try:
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
    except FileNotFoundError:
        raise WebPageError(f"the web player has not been built ({os.path.basename(path)} is missing): "
                           f"{BUILD_HINT}") from None
    return checked_template(text, path)


def checked_template(text: str, source: str = "the template") -> str:
    if DATA_SLOT not in text or TITLE_SLOT not in text:
        raise WebPageError(f"{source} is not the web player's template (its puzzle slot is missing): {BUILD_HINT}")
    return text


def player_limit(template: str) -> int:
    """The largest side the player takes (the template's ``nonogram-player-limit``)."""
    m = re.search(r'<meta name="nonogram-player-limit" content="(\d+)">', template)
    if not m:
        raise WebPageError(f"the web player's template names no size limit: {BUILD_HINT}")
    return int(m.group(1))


def keystream(key: int, n: int) -> np.ndarray:
    """n bytes of xorshift32 from ``key`` (as web/src/data.js)."""
    out = np.empty(n, np.uint8)
    s = (key & 0xFFFFFFFF) or 0x9E3779B9
    for i in range(n):
        s ^= (s << 13) & 0xFFFFFFFF
        s ^= s >> 17
        s ^= (s << 5) & 0xFFFFFFFF
        out[i] = s & 0xFF
    return out


PAGE_KEY_FIELDS = ("name", "shape", "x", "y", "z", "solution", "clue_colours", "palette", "colours")


def page_key(puzzle_json: str) -> int:
    """The page's key: from the puzzle itself, so the same puzzle gives the same page (and its
    progress, kept by the browser per page content, survives exporting it again)."""
    return int.from_bytes(hashlib.sha256(puzzle_json.encode("utf-8")).digest()[:4], "little") or 1


def _hex_colour(rgb) -> str:
    r, g, b = (int(round(float(np.clip(v, 0.0, 1.0)) * 255)) for v in rgb)
    return f"#{r:02x}{g:02x}{b:02x}"


def check_playable(puzzle, limit: int) -> None:
    """Raise WebPageError unless the web player can play the puzzle."""
    name = repr(puzzle.name) if puzzle.name else "the puzzle"
    if len(puzzle.shape) != 3:
        raise WebPageError(f"{name} is a {len(puzzle.shape)}D puzzle; the web player plays 3D puzzles")
    k = getattr(puzzle, "k", 1)
    if k > MAX_PAINT_COLOURS:
        raise WebPageError(f"{name} has {k} puzzle colours; the web player plays up to {MAX_PAINT_COLOURS}")
    if puzzle.solution is None:
        raise WebPageError(f"{name} has no solution stored; the page needs it to check the player's "
                           f"breaks (solve it, or make it from a model, and save it with its solution)")
    shape = "×".join(str(int(s)) for s in puzzle.shape)
    if max(int(s) for s in puzzle.shape) > limit:
        raise WebPageError(f"{name} is {shape}, over the web player's limit of {limit} cubes per side")
    if np.asarray(puzzle.solution).size != puzzle.n_cells:
        raise WebPageError(f"{name}: its solution has {np.asarray(puzzle.solution).size} cells, "
                           f"the puzzle {puzzle.n_cells}")


def info_of(puzzle) -> dict:
    """What the page and the catalogue show beside the puzzle: clues hidden, and the design's
    difficulty band and score when the puzzle's meta has them (Hide Clues, ``engine design``)."""
    kinds = np.asarray(puzzle.clue_kind)
    info: dict = {"hidden": int((kinds == 0).sum()), "lines": int(kinds.size)}
    design = puzzle.meta.get("design") if isinstance(puzzle.meta, dict) else None
    if isinstance(design, dict):
        for key in ("band", "score", "logic"):
            if design.get(key) is not None:
                info[key] = design[key]
    return info


def _reveal_of(puzzle) -> tuple:
    """The reveal palette (float (m, 3)) and per-cell palette index, or (None, None)."""
    palette = getattr(puzzle, "palette", None)
    colours = getattr(puzzle, "colours", None)
    if palette is not None and colours is not None:
        return np.asarray(palette, dtype=np.float32).reshape(-1, 3), np.asarray(colours).ravel()
    reveal = puzzle.meta.get("_reveal") if isinstance(puzzle.meta, dict) else None
    if isinstance(reveal, dict) and reveal.get("palette") and reveal.get("colours"):
        text = reveal["colours"]
        idx = np.array([0 if text[j] == "." else int(text[j:j + 2], 16) for j in range(0, len(text), 2)])
        pal = np.array([[int(c[j:j + 2], 16) / 255 for j in (1, 3, 5)] for c in reveal["palette"]], np.float32)
        return pal, idx
    return None, None


def _clue_tables(puzzle) -> tuple:
    """The x, y, z clue tables as the page reads them, and the clue colours (None in black and
    white). A colour clue is a list of one count per colour, as in the puzzle file; a colour
    puzzle with one colour is written as a black-and-white one (it plays the same)."""
    if getattr(puzzle, "clue_colours", None) is None:
        d = puzzle_to_dict(puzzle)
        return d, None
    d = colour_puzzle_to_dict(puzzle)
    if puzzle.k == 1:
        for axis in "xyz":
            d[axis] = [[None if c is None else c[0] for c in row] for row in d[axis]]
        return d, None
    return d, d["clue_colours"]


def page_data(puzzle, info: Optional[dict] = None) -> dict:
    """The object the page reads (format ``nonogram-page`` version 1). A colour puzzle adds
    ``clue_colours`` (the puzzle colours, for a reveal without a palette), ``inks`` (what its
    numbers, buttons and paint are drawn in) and ``paint`` (each cell's puzzle colour, 0 empty,
    keyed like the solution)."""
    d, clue_colours = _clue_tables(puzzle)
    # the key from what the puzzle is, not from its meta (a design's timing differs run to run):
    # the same puzzle exported again is the same page, and keeps its progress in the browser
    key = page_key(json.dumps({k: d[k] for k in PAGE_KEY_FIELDS if k in d}, sort_keys=True))
    sol = np.asarray(puzzle.solution, dtype=bool).ravel()
    n = sol.size
    packed = np.packbits(sol.astype(np.uint8), bitorder="little")
    # the keystream: solution bytes, then one byte per cell for the reveal colours, then one for
    # the paint colours
    ks = keystream(key, packed.size + 2 * n)
    data: dict = {"format": "nonogram-page", "version": 1, "name": puzzle.name or "Nonogram",
                  "shape": d["shape"], "x": d["x"], "y": d["y"], "z": d["z"], "key": key,
                  "solution": base64.b64encode((packed ^ ks[:packed.size]).tobytes()).decode("ascii")}
    palette, colours = _reveal_of(puzzle)
    if palette is not None:
        idx = np.where(sol, np.asarray(colours, dtype=np.uint8).ravel(), 0).astype(np.uint8)
        data["palette"] = [_hex_colour(c) for c in palette]
        data["colours"] = base64.b64encode((idx ^ ks[packed.size:packed.size + n]).tobytes()).decode("ascii")
    if clue_colours is not None:
        paint = np.asarray(puzzle.colour_solution, dtype=np.uint8).ravel()
        data["clue_colours"] = list(clue_colours)
        # the numbers, palette buttons and painted cubes: legible inks (engine/colour/inks.py, as
        # Blender's player view); the reveal keeps the model's colours
        data["inks"] = to_hex(choose_inks(puzzle.clue_colours))
        data["paint"] = base64.b64encode((paint ^ ks[packed.size + n:]).tobytes()).decode("ascii")
    data["info"] = info_of(puzzle) if info is None else info
    return data


def render_page(puzzle: Puzzle, info: Optional[dict] = None, template: Optional[str] = None) -> str:
    """The page's HTML text. ``info``: shown beside the puzzle (default ``info_of(puzzle)``)."""
    template = checked_template(template) if template is not None else template_text()
    check_playable(puzzle, player_limit(template))
    text = json.dumps(page_data(puzzle, info), separators=(",", ":"), ensure_ascii=True)
    # inside <script>: no "<" at all, so neither "</script>" nor "<!--" can end or confuse it
    text = text.replace("<", "\\u003c")
    title = html.escape(f"{puzzle.name or 'Nonogram'} · Nonogram 3D")
    return (template.replace(DATA_SLOT, DATA_SLOT.replace("__NONOGRAM_PUZZLE__", text), 1)
            .replace(TITLE_SLOT, f"<title>{title}</title>", 1))


def write_page(puzzle: Puzzle, path: str, info: Optional[dict] = None, template: Optional[str] = None) -> str:
    """Write the page to ``path`` (only after it was made in full); returns the path."""
    text = render_page(puzzle, info, template)
    folder = os.path.dirname(os.path.abspath(path))
    os.makedirs(folder, exist_ok=True)
    tmp = path + ".part"
    with open(tmp, "w", encoding="utf-8") as fh:
        fh.write(text)
    os.replace(tmp, path)
    return path
