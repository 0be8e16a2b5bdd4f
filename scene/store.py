"""Data stored on a nonogram object: its puzzle, solver report, settings and JSON helpers."""
from __future__ import annotations

import json
import math
from typing import Any, Optional, cast

import bpy
import numpy as np

from ..jobs import engine_access
from .common import NonogramError


def jsonable(v: Any, max_array: Optional[int] = None) -> Any:
    """``v`` with numpy arrays and scalars turned into plain Python, ready for ``json.dumps``.

    Non-finite floats become None (JSON has no NaN). Arrays longer than ``max_array`` become a
    short description instead: diagnostics stored on an object must stay small.
    """
    if isinstance(v, dict):
        return {str(k): jsonable(x, max_array) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [jsonable(x, max_array) for x in v]
    if isinstance(v, np.ndarray):
        if max_array is not None and v.size > max_array:
            return f"array{v.shape}"
        return jsonable(v.tolist(), max_array)
    if isinstance(v, np.generic):
        return jsonable(v.item(), max_array)
    if isinstance(v, float):
        return v if math.isfinite(v) else None
    if v is None or isinstance(v, (bool, int, str)):
        return v
    return str(v)


def cells_mesh(obj: bpy.types.Object) -> bpy.types.Mesh:
    """The nonogram object's point mesh."""
    return cast(bpy.types.Mesh, obj.data)


def settings(context: Any) -> Any:
    """The scene's Make/Solve settings (registered at run time, unknown to stubs)."""
    return context.scene.nonogram_settings


def props(obj: Any) -> Any:
    """The add-on's property group on an object (registered at run time, unknown to stubs)."""
    return obj.nonogram


def nonogram_of(obj):
    """The nonogram object for ``obj`` (itself, or the parent of its clue object), else None."""
    if obj is None:
        return None
    if obj.nonogram.is_nonogram:
        return obj
    if obj.parent is not None and obj.parent.nonogram.is_nonogram:
        return obj.parent
    return None


def n_lines(obj) -> int:
    """Lines of the stored 3D puzzle (x-, y- then z-lines)."""
    X, Y, Z = props(obj).shape
    return Y * Z + X * Z + X * Y


def is_colour_puzzle(puzzle) -> bool:
    """A colour puzzle (clues per puzzle colour, issue #24), not a black-and-white one: the
    engine's answer (``colourpuzzle.is_colour``), the one the results give too."""
    return engine_access.colourpuzzle.is_colour(puzzle)


# (object name, stored puzzle text) -> whether it is a colour puzzle: the stored puzzle parsed once
# per text, as polls and panels ask on every redraw
_KINDS: dict = {}


def holds_colour_puzzle(obj) -> bool:
    """Whether the puzzle stored on ``obj`` is a colour puzzle (the parsed puzzle's answer, kept
    per stored text; a damaged one is not)."""
    text = props(obj).puzzle
    if not text:
        return False
    key = (obj.name, text)
    found = _KINDS.get(key)
    if found is None:
        try:
            found = is_colour_puzzle(load_full_puzzle(obj))
        except NonogramError:
            found = False
        if len(_KINDS) > 32:
            _KINDS.clear()
        _KINDS[key] = found
    return found


def store_puzzle(obj, puzzle) -> None:
    pg = props(obj)
    d = engine_access.puzzlefile.puzzle_to_dict(puzzle)  # one writer for every kind
    if is_colour_puzzle(puzzle):
        # the Design panel's Puzzle Colours says this nonogram's (Hide Clues then keeps them)
        pg.design_options.puzzle_colours = len(puzzle.clue_colours)
    pg.puzzle = json.dumps(d, separators=(",", ":"))
    if len(puzzle.shape) == 3:
        pg.shape = tuple(int(v) for v in puzzle.shape)


def load_full_puzzle(obj):
    """The stored puzzle with every clue, hidden ones included (see ``hidden``)."""
    pf = engine_access.puzzlefile
    text = obj.nonogram.puzzle
    if not text:
        raise NonogramError(f"'{obj.name}' holds no puzzle")
    try:
        return pf.puzzle_from_dict(json.loads(text), source=obj.name)
    except (ValueError, pf.PuzzleFileError) as e:
        raise NonogramError(f"the puzzle stored on '{obj.name}' is damaged: {e}") from None


def store_report(obj, report_dict) -> None:
    obj.nonogram.report = json.dumps(jsonable(report_dict)) if report_dict is not None else ""


def load_stored_report(obj):
    text = obj.nonogram.report
    return json.loads(text) if text else None
