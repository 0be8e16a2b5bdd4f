"""The engine modules the Blender side uses, typed for mypy and imported lazily at run time.

Enabling the add-on must not import numba or the engine (Blender starts fast), and the engine's
kernels must be cached in the add-on's folder, which ``runtime.engine()`` sets before the first
engine import. So at run time each name below is a ``runtime.LazyModule`` that imports its module
through ``runtime.engine()`` on first attribute access; for mypy it is the module itself, so
every call across the boundary is checked. Use them as
``engine_access.design_session.DesignSession(...)`` and catch the engine's exceptions by type
(``except engine_access.design.DesignError``).
This file is the one place that knows where each engine module lives.
"""
from typing import TYPE_CHECKING

from .runtime import lazy

# name in the add-on -> engine module (the engine's parts: docs/ENGINE_API.md)
if TYPE_CHECKING:
    from ..engine import jit
    from ..engine import warmup as kernels_warmup
    from ..engine.colour import capture as colour, colourspace, inks, palette
    from ..engine.colour import groups as colourgroups
    from ..engine.design import hiding as design, session as design_session
    from ..engine.files import puzzlefile
    from ..engine.model import cells, clues, colourpuzzle, puzzle, stats
    from ..engine.play import webpage
    from ..engine.solve import driver as solve
    from ..engine.voxel import pieces, voxelize
else:
    cells = lazy("model.cells")
    clues = lazy("model.clues")
    colour = lazy("colour.capture")
    colourgroups = lazy("colour.groups")
    colourpuzzle = lazy("model.colourpuzzle")
    colourspace = lazy("colour.colourspace")
    design = lazy("design.hiding")
    inks = lazy("colour.inks")
    design_session = lazy("design.session")
    jit = lazy("jit")
    kernels_warmup = lazy("warmup")
    palette = lazy("colour.palette")
    pieces = lazy("voxel.pieces")
    puzzle = lazy("model.puzzle")
    puzzlefile = lazy("files.puzzlefile")
    solve = lazy("solve.driver")
    stats = lazy("model.stats")
    voxelize = lazy("voxel.voxelize")
    webpage = lazy("play.webpage")

__all__ = ["cells", "clues", "colour", "colourgroups",
           "colourpuzzle", "colourspace", "design", "design_session", "inks", "jit",
           "kernels_warmup", "palette", "pieces", "puzzle", "puzzlefile", "solve", "stats",
           "voxelize", "webpage"]
