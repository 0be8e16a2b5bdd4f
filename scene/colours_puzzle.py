"""A colour puzzle's palette on its nonogram: editing or merging reveal entries and regrouping
them into puzzle colours re-inks the clue numbers and the cubes, in the operator's (or the
property edit's) one undo step. What happens to the clues and the design (docs/ADDON.md,
"Editing a colour puzzle's palette"):

- changing an entry's colour, or merging two entries of one puzzle colour: the cells and clues
  stay, each puzzle colour becomes the use-weighted mean of its entries; the design (the hidden
  clues, its score) stays as it is, true as before;
- merging entries of two puzzle colours, or regrouping: cells change puzzle colour, so the clues
  of their lines change. The hidden clues are kept and checked again at once (the live check:
  unique? solvable?); the design's result is marked stale with the reason, and the Design panel
  says so, offering Repair / Hide Clues when the check finds the puzzle no longer unique.
"""
from __future__ import annotations

import bpy
import numpy as np

from ..jobs import engine_access
from ..jobs.colour import regroup_check
from .build import recolour_colour_puzzle, show_as_colour_puzzle
from .check import load_design, store_design
from . import colours
from .common import NonogramError
from .live_check import request
from .store import is_colour_puzzle, load_full_puzzle, props


def changed_lines(before, after) -> int:
    """How many lines' full clues differ between two colour puzzles of the same grid."""
    return int(sum(a != b for a, b in zip(before.clues(), after.clues())))


def apply_colour_puzzle(context, obj, full, *, clues_changed: bool, why: str) -> None:
    """Show the (full) colour puzzle ``full`` on ``obj``: glyphs inked anew, cubes, panel
    palette; the hidden clues kept. When the clues changed, the design is marked stale with
    ``why`` and the puzzle checked again; when they did not, the glyphs are re-inked in place
    where they fit (``recolour_colour_puzzle``)."""
    if not clues_changed:
        if not recolour_colour_puzzle(obj, full):
            show_as_colour_puzzle(context, obj, full)
        return
    show_as_colour_puzzle(context, obj, full)
    info = load_design(obj)
    if info:
        store_design(obj, dict(info, stale=why))
    request(obj)  # the kept hidden clues, on the new clues: unique? solvable?


def recolour_entry(obj, full=None) -> None:
    """The panel's palette of a colour puzzle was edited (one entry's colour): its puzzle colours
    follow, re-inking the clues and the cubes; the cells, clues and design stay. ``full``: the
    stored full puzzle, when the caller has it already (loading it is half of a re-ink)."""
    pg = props(obj)
    full = load_full_puzzle(obj) if full is None else full
    cg = engine_access.colourgroups
    palette, _, _ = cg.reveal_parts(full)
    if len(pg.palette) != len(palette):
        return
    new = engine_access.colourspace.quantize_srgb([tuple(e.colour) for e in pg.palette])
    if np.array_equal(new, palette):
        return
    apply_colour_puzzle(bpy.context, obj, cg.recolour(full, new), clues_changed=False, why="")


colours.colour_puzzle_entry_changed = recolour_entry


def merge_colour_entries(context, obj, keep: int, drop: int) -> tuple:
    """Merge reveal entry ``drop`` into ``keep`` (0-based) of the colour puzzle on ``obj``:
    (lines whose clue changed, the new puzzle). NonogramError when it cannot be done."""
    full = load_full_puzzle(obj)
    if not is_colour_puzzle(full):
        raise NonogramError(f"'{obj.name}' is not a colour puzzle")
    cg = engine_access.colourgroups
    _, _, groups = cg.reveal_parts(full)
    try:
        new, cells_changed = cg.merge_reveal(full, keep, drop)
    except (ValueError, engine_access.palette.PaletteError) as e:
        raise NonogramError(str(e)) from None
    lines = changed_lines(full, new) if cells_changed else 0
    why = (f"colour {drop + 1} (puzzle colour {int(groups[drop])}) merged into colour {keep + 1} "
           f"(puzzle colour {int(groups[keep])}): the clues of {lines} lines changed since")
    apply_colour_puzzle(context, obj, new, clues_changed=bool(lines), why=why)
    return lines, new


def regroup_nonogram(context, obj, k: int, groups=None) -> tuple:
    """Group the reveal colours of ``obj`` (black-and-white with reveal colours, or a colour
    puzzle) into ``k`` puzzle colours, automatically or by ``groups`` (1..k per palette entry):
    (lines whose clue changed, the new puzzle). The hidden clues are kept and checked again."""
    full = load_full_puzzle(obj)
    cg = engine_access.colourgroups
    try:
        if is_colour_puzzle(full):
            new = cg.regroup(full, k, groups)
            lines = changed_lines(full, new)
        else:
            why = regroup_check(full, k)
            if why:
                raise NonogramError(why)
            new = cg.colour_puzzle_from_reveal(full, k, groups)
            lines = full.n_lines
    except ValueError as e:
        raise NonogramError(str(e)) from None
    how = "as picked" if groups is not None else "automatically"
    apply_colour_puzzle(context, obj, new, clues_changed=True,
                        why=f"regrouped into {k} puzzle colours ({how}) since: Hide Clues designs "
                            f"it again")
    return lines, new

